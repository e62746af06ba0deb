# pspace: the front door.  "make help" lists the targets.
SHELL := /bin/bash
# KERNEL=7.3 (the default: Debian's linux-source-7.3, kernel/series) or
# KERNEL=6.12 (the backport: linux-source-6.12, kernel/6.12/series), each
# built in a directory of its own: build/ and build/6.12/.
KERNEL ?= 7.3
ifeq ($(KERNEL),7.3)
B := build
else ifeq ($(KERNEL),6.12)
B := build/6.12
else
$(error KERNEL=$(KERNEL): 7.3 or 6.12)
endif
export PSPACE_KERNEL := $(KERNEL)
PHASE = ci/phase.sh

.DEFAULT_GOAL := help

# Each top-level make starts a fresh list of phase timings.
ifeq ($(MAKELEVEL),0)
$(shell rm -f $(B)/timings)
endif

help: ## list the targets
	@echo "pspace — make targets:"
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{ printf "  %-20s %s\n", $$1, $$2 }'

deps: ## install the Debian packages the build needs (apt-get, as root)
	@$(PHASE) deps ci/deps.sh

kernel-tree: deps ## build/linux: pristine 7.3 (KERNEL=6.12: build/6.12/linux) in git, the series applied
	@$(PHASE) kernel-tree kernel/tree.sh

kernel-export: ## write the commits in build/linux back to kernel/patches (6.12: kernel/6.12/)
	@kernel/export.sh

kernel: kernel-tree ## build/bzImage: the patched kernel (ccache)
	@$(PHASE) kernel kernel/build.sh guest

kernel-debug: kernel-tree ## build/bzImage-debug: the same with KASAN, lockdep, ...
	@$(PHASE) kernel-debug kernel/build.sh debug

kernel-pristine: kernel-tree ## build/bzImage-pristine: no patches, same config
	@$(PHASE) kernel-pristine kernel/build.sh pristine

check-series: kernel-tree ## checkpatch --strict and a build after each patch (FROM=N)
	@$(PHASE) check-series kernel/check-series.sh

pspace-run: deps ## build/pspace-run: the static launcher
	@$(PHASE) pspace-run $(MAKE) -s -C pspace-run O=$(abspath $(B))

unit: deps ## pspace-run's host unit tier and a short fuzz run: seconds, no VM (make check runs it first)
	@$(PHASE) unit sh -c 'tests/host/pspace-run-unit && tests/host/pspace-run-fuzz'
fuzz: deps ## pspace-run's fuzz targets, FUZZ_SECONDS (600) each: config.json, the command line
	@$(PHASE) fuzz $(MAKE) -s -C pspace-run O=$(abspath $(B)) fuzz

guest-bin: kernel-tree ## build/guest-bin: selftests built from the patched tree
	@$(PHASE) guest-bin tests/build-guest-bin.sh

rootfs: pspace-run guest-bin ## build/rootfs.img: Debian bookworm + tests + /srv/root
	@$(PHASE) rootfs rootfs/image.sh

build: kernel rootfs ## everything a guest run needs

demo: build ## boot the patched kernel and show nested containers
	@$(PHASE) demo tests/run-guest.sh demo
	@ci/timings.sh

check: unit build ## the unit tier, then build and run every test suite in the guest
	@$(PHASE) check tests/run-guest.sh check; rc=$$?; ci/timings.sh; exit $$rc

check-debug: kernel-debug rootfs ## the kernel and stress suites on the debug kernel
	@$(PHASE) check-debug tests/run-guest.sh check-debug; rc=$$?; ci/timings.sh; exit $$rc

bench: build kernel-pristine ## measure pspace costs; build/bench/report.md + chart
	@$(PHASE) bench tests/bench/run.sh

shell: build ## boot the guest into a root shell (Ctrl-A X quits QEMU)
	@tests/run-guest.sh shell

check-mutants: build ## mutated kernels must fail the pspace selftests (MUTANTS=glob)
	@$(PHASE) check-mutants tests/mutants/run.sh; rc=$$?; ci/timings.sh; exit $$rc

regression-baseline: kernel-pristine rootfs ## record which mainline selftests pass unpatched (tests/regression/baseline-KERNEL.txt)
	@$(PHASE) regression-baseline tests/regression/make-baseline.sh

install: pspace-run ## install pspace-run and its man page (DESTDIR, PREFIX)
	@$(MAKE) -s -C pspace-run O=$(abspath $(B)) install

lint: ## shellcheck the scripts
	@shellcheck -x -e SC1091 ci/*.sh kernel/*.sh rootfs/*.sh tests/*.sh tests/guest/init tests/guest/run-suites tests/guest/demo tests/guest/demo-level tests/guest/regression tests/guest/bench tests/guest/suites/* tests/bench/*.sh tests/regression/*.sh tests/mutants/*.sh tests/host/* tests/initramfs/* .ci/run

clean: ## remove build output (keeps the kernel tree and caches)
	rm -rf $(B)/results $(B)/rootfs-stage $(B)/rootfs.img $(B)/pspace-run* $(B)/guest-bin $(B)/timings

distclean: ## remove all of build/ (both kernels)
	rm -rf $(B)

.PHONY: help deps kernel-tree kernel-export kernel kernel-debug kernel-pristine check-series check-debug check-mutants bench \
	pspace-run unit fuzz guest-bin rootfs build demo check shell regression-baseline install lint clean distclean
