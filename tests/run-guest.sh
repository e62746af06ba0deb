#!/usr/bin/env bash
# Boot a kernel on build/rootfs.img under QEMU and do one thing in the guest.
#
#   tests/run-guest.sh check|check-debug|demo|shell|regression [KERNEL]
#   tests/run-guest.sh script FILE [KERNEL]   run a shell script in the guest
#
# check: run every suite; results come back over 9p into build/results/,
#        the console is kept in build/console-check.log.  The exit status
#        is 0 only if every test passed, the guest finished in time and the
#        kernel log holds no splat.
# check-debug: the kernel suites and the stress suites (scaled down) on
#        build/bzImage-debug (KASAN, lockdep, kmemleak, ...); a kmemleak
#        report after the run counts as a splat.
# bench: the measurements of make bench (tests/bench/run.sh drives it).
# demo:  show nested containers.      shell: an interactive guest shell.
#
# PSPACE_KVM=1 uses KVM when /dev/kvm exists (off by default: it has hung
# guests here).  PSPACE_ICOUNT=1 runs one vCPU whose clock counts guest
# instructions (QEMU's -icount shift=0: 1 ns per instruction), so that a
# time measured in the guest does not depend on this machine's load.  PSPACE_TIMEOUT (seconds) bounds a check run (default 2700).
# SUITES=20-pspace-run,40-systemd runs only those suites (80-initramfs: the
# initramfs guest of tests/run-initramfs.sh, booted after the disk guest).
set -eu
. "$(dirname "$0")/../ci/lib.sh"

mode=${1:-check}
[ "$mode" != script ] || { script=$2; shift; }
kernel=${2:-$BUILD/bzImage}
timeout=${PSPACE_TIMEOUT:-2700}
results=$BUILD/results
console=$BUILD/console-$mode.log
guest_mode=$mode
env=${PSPACE_ENV:-}	# NAME=VALUE[,...] exported to the guest's suites
extra=""
if [ "$mode" = check-debug ]; then
	guest_mode=check
	kernel=${2:-$BUILD/bzImage-debug}
	timeout=${PSPACE_TIMEOUT:-3000}
	SUITES=${SUITES:-10-pspace-selftests,30-regression,50-stress,60-security}
	# KASAN, lockdep and kmemleak under TCG run some 20 times slower:
	# the stress suite is scaled down (make check runs it in full).
	env=${env:+$env,}STRESS_CYCLES=${STRESS_CYCLES:-1000},FUZZ_ITERATIONS=${FUZZ_ITERATIONS:-5000}
	env=$env,STRESS_SLAB_LIMIT_KB=0,SUITE_TIMEOUT=1800,REGRESSION_TIMEOUT=600,REGRESSION_SLOW=1
	# ACPI's _PRT evaluation times out (AE_AML_LOOP_TIMEOUT) that slowly;
	# the firmware's PCI IRQ table routes the virtio devices instead.
	extra="pci=noacpi"
elif [ -n "${STRESS_CYCLES:-}${FUZZ_ITERATIONS:-}" ]; then
	env=${env:+$env,}STRESS_CYCLES=${STRESS_CYCLES:-10000},FUZZ_ITERATIONS=${FUZZ_ITERATIONS:-20000}
fi

[ -f "$kernel" ] || die "$kernel: missing; run 'make kernel'"
[ -f "$BUILD/rootfs.img" ] || die "$BUILD/rootfs.img: missing; run 'make rootfs'"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not found; run 'make deps'"

accel=tcg
cpu=max
if [ "${PSPACE_KVM:-0}" = 1 ] && [ -w /dev/kvm ]; then
	accel=kvm
	cpu=host
fi

rm -rf "$results"
mkdir -p "$results"
[ "$mode" != script ] || cp "$script" "$results/script.sh"

smp=(-smp 2)
if [ "${PSPACE_ICOUNT:-0}" = 1 ]; then
	accel=tcg
	cpu=max
	# sleep=off: idle time is skipped, not waited for in real time.
	smp=(-smp 1 -icount "shift=0,sleep=off")
fi
# PSPACE_QEMU_PLUGIN=FILE.so,ARG=VALUE,...: a TCG plugin (tests/bench/profile.sh).
if [ -n "${PSPACE_QEMU_PLUGIN:-}" ]; then
	# One vCPU: the profiling plugin's counters are not atomic.
	[ "${PSPACE_ICOUNT:-0}" = 1 ] || die "PSPACE_QEMU_PLUGIN needs PSPACE_ICOUNT=1 (one vCPU)"
	smp+=(-plugin "$PSPACE_QEMU_PLUGIN")
fi
qemu=(qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -m 2048 "${smp[@]}"
	-nographic -no-reboot
	-kernel "$kernel"
	-append "console=ttyS0 root=/dev/vda rw rootwait init=/usr/lib/pspace/init pspace.mode=$guest_mode ${SUITES:+pspace.suites=$SUITES} ${env:+pspace.env=$env} loglevel=5 panic=-1${extra:+ $extra}"
	-drive "file=$BUILD/rootfs.img,format=raw,if=virtio,snapshot=on"
	-fsdev "local,id=results,path=$results,security_model=none"
	-device "virtio-9p-pci,fsdev=results,mount_tag=results"
	-device virtio-rng-pci)

if [ "$mode" = shell ]; then
	exec "${qemu[@]}"
fi

rc=0
timeout -k 10 "$timeout" "${qemu[@]}" </dev/null 2>&1 | tee "$console" || rc=$?
[ "$rc" = 124 ] && note "guest timed out after ${timeout}s (console: $console)"

case "$mode" in check | check-debug) ;; *) exit "$rc" ;; esac
# The initramfs guest (tests/run-initramfs.sh), a machine of its own,
# into the same results; in SUITES its name is 80-initramfs.
if [ "$mode" = check ] && case ",${SUITES:-80-initramfs}," in *,80-initramfs,*) true ;; *) false ;; esac; then
	echo "# suite: 80-initramfs (the initramfs guest)"
	"$TOP/tests/run-initramfs.sh" "$results" "$kernel" >/dev/null || true
	cat "$results/80-initramfs.tap"
fi
# The host-side suites (tests/host/) go into the same summary
# (PSPACE_HOST_SUITES=0 leaves them out: make check-mutants).
for t in "$TOP"/tests/host/*; do
	[ "${PSPACE_HOST_SUITES:-1}" = 1 ] || break
	[ -x "$t" ] || continue
	echo "# suite: host-${t##*/}"
	"$t" 2>&1 | tee "$results/host-${t##*/}.tap"
done
exec "$TOP/tests/summarize.sh" "$results" "$console"
