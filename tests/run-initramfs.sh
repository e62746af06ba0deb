#!/usr/bin/env bash
# The initramfs guest: a machine whose root is the initramfs, never
# switched away from (PSPACE-RUN.md: "it works where chroot(8) works ... on
# an initramfs root").  Packs Debian's busybox-static, the static
# pspace-run (and its test fixture), the root probe and a tiny ROOT
# (/srv/root: busybox, pspace-run, the probe) into build/initramfs.cpio.gz,
# boots build/bzImage with it as -initrd and no disk, runs
# tests/initramfs/80-initramfs there and leaves its TAP in
# RESULTS/80-initramfs.tap (default build/results-initramfs).
#
#   tests/run-initramfs.sh [RESULTS_DIR [KERNEL]]
#
# Exit status 0 when every test passed and the kernel log holds no splat.
# tests/run-guest.sh check runs it after the disk guest, into the same
# results (SUITES: its name is 80-initramfs).
set -eu
. "$(dirname "$0")/../ci/lib.sh"

results=${1:-$BUILD/results-initramfs}
kernel=${2:-$BUILD/bzImage}
timeout=${PSPACE_INITRAMFS_TIMEOUT:-400}
stage=$BUILD/initramfs-stage
cpio=$BUILD/initramfs.cpio.gz
console=$BUILD/console-initramfs.log
busybox=${BUSYBOX:-/bin/busybox}

[ -f "$kernel" ] || die "$kernel: missing; run 'make kernel'"
[ -x "$BUILD/pspace-run" ] || die "$BUILD/pspace-run: missing; run 'make pspace-run'"
[ -x "$BUILD/guest-bin/root_probe" ] || die "$BUILD/guest-bin/root_probe: missing; run 'make guest-bin'"
file -b "$busybox" 2>/dev/null | grep -q 'statically linked' ||
	die "$busybox: not a static busybox; run 'make deps' (busybox-static)"

# busybox DIR: a /bin of busybox and its applets, as links.
busybox() {
	local a
	install -D -m 0755 "$busybox" "$1/bin/busybox"
	for a in $("$busybox" --list); do
		[ "$a" = busybox ] || ln -sf busybox "$1/bin/$a"
	done
}

rm -rf "$stage"
mkdir -p "$stage"/{proc,sys,dev,run,tmp,results,srv/root}
busybox "$stage"
install -m 0755 "$TOP/tests/initramfs/init" "$stage/init"
install -D -m 0755 "$BUILD/pspace-run" "$stage/usr/local/bin/pspace-run"
install -D -m 0644 "$TOP/tests/lib/tap.sh" "$stage/usr/lib/pspace/tap.sh"
install -D -m 0755 "$TOP/tests/initramfs/80-initramfs" "$stage/usr/lib/pspace/suites/80-initramfs"
install -D -m 0755 "$BUILD/pspace-run-fixture" "$stage/usr/lib/pspace/bin/pspace-run-fixture"
touch "$stage/initramfs-host-marker"
r=$stage/srv/root
mkdir -p "$r"/{proc,sys,dev,run,tmp,etc}
busybox "$r"
install -D -m 0755 "$BUILD/pspace-run" "$r/usr/local/bin/pspace-run"
install -D -m 0755 "$BUILD/guest-bin/root_probe" "$r/usr/local/bin/root_probe"
echo root-of-initramfs >"$r/etc/hostname"
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$cpio.tmp"
mv "$cpio.tmp" "$cpio"
note "$cpio: $(du -k "$cpio" | cut -f1) KiB"

rm -rf "$results/80-initramfs.tap" "$results/initramfs-complete"
mkdir -p "$results"
rc=0
timeout -k 10 "$timeout" qemu-system-x86_64 -accel tcg -cpu max -m 1024 -smp 2 \
	-nographic -no-reboot -kernel "$kernel" -initrd "$cpio" \
	-append "console=ttyS0 rdinit=/init loglevel=5 panic=-1" \
	-fsdev "local,id=results,path=$results,security_model=none" \
	-device "virtio-9p-pci,fsdev=results,mount_tag=results" \
	-device virtio-rng-pci </dev/null >"$console" 2>&1 || rc=$?
tap=$results/80-initramfs.tap
[ -f "$tap" ] || echo "# no results from the initramfs guest (console: $console)" >"$tap"
if [ ! -f "$results/initramfs-complete" ]; then
	echo "not ok - the initramfs guest did not finish (status $rc; console: $console)" >>"$tap"
fi
splat='(BUG:|WARNING:|Oops|Kernel panic|KASAN:|UBSAN:|general protection fault|possible (circular|recursive) locking|INFO: task .* blocked|RCU detected stall)'
if grep -Eq "$splat" "$console"; then
	echo "not ok - the initramfs guest's kernel log holds a splat (console: $console)" >>"$tap"
fi
rm -f "$results/initramfs-complete"
cat "$tap"
passed=$(grep -Ec '^ok [0-9]+' "$tap" || true)
failed=$(grep -Ec '^not ok' "$tap" || true)
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
