#!/usr/bin/env bash
# make rootfs: build/rootfs.img, an ext4 image made with "mkfs.ext4 -d" (no
# loop mounts) from the cached Debian tree plus the project's files:
#   /usr/local/bin/pspace-run       the launcher
#   /usr/lib/pspace/                guest init, test suites, selftests, demo
#   /srv/root/                      a second copy of the Debian tree, the
#                                   container root, with pspace-run in it
# The guest's own root is engines.sh's tree (base.sh's plus podman, crun,
# conmon and containerd); /srv/root is base.sh's, without them.
set -eu
. "$(dirname "$0")/../ci/lib.sh"

base=$("$TOP/rootfs/base.sh")
guest=$("$TOP/rootfs/engines.sh")
stage=$BUILD/rootfs-stage
img=$BUILD/rootfs.img

[ -x "$BUILD/pspace-run" ] || die "$BUILD/pspace-run: missing; run 'make pspace-run' first"

note "staging $stage"
mkdir -p "$stage"
rsync -a --delete --exclude=/.complete --exclude=/srv/root "$guest/" "$stage/"
mkdir -p "$stage/srv/root"
rsync -a --delete --exclude=/.complete "$base/" "$stage/srv/root/"

for r in "$stage" "$stage/srv/root"; do
	install -D -m 0755 "$BUILD/pspace-run" "$r/usr/local/bin/pspace-run"
	install -D -m 0755 "$TOP/tests/guest/demo-level" "$r/usr/local/bin/pspace-demo-level"
	echo pspace >"$r/etc/hostname"
done
echo pspace-guest >"$stage/etc/hostname"

lib=$stage/usr/lib/pspace
rm -rf "$lib"
mkdir -p "$lib/suites" "$lib/bin"
install -m 0755 "$TOP/tests/guest/init" "$TOP/tests/guest/run-suites" "$TOP/tests/guest/demo" \
	"$TOP/tests/guest/regression" "$TOP/tests/guest/pty-drive" "$TOP/tests/guest/bench" \
	"$TOP/tests/guest/engine-pty" "$TOP/tests/guest/exe-writer" "$lib/"
# The regression baseline of the kernel this image is built for: 7.3's
# until its first "make regression-baseline" an empty one (nothing compared).
if [ -f "$TOP/tests/regression/baseline-$PSPACE_KERNEL.txt" ]; then
	install -m 0644 "$TOP/tests/regression/baseline-$PSPACE_KERNEL.txt" "$lib/regression-baseline.txt"
else
	note "warning: no tests/regression/baseline-$PSPACE_KERNEL.txt; run 'make regression-baseline'"
	: >"$lib/regression-baseline.txt"
fi
install -m 0644 "$TOP/tests/regression/expected-$PSPACE_KERNEL.txt" "$lib/regression-expected.txt"
install -m 0644 "$TOP/tests/lib/tap.sh" "$lib/"
for s in "$TOP"/tests/guest/suites/*; do
	[ -f "$s" ] && install -m 0755 "$s" "$lib/suites/"
done
cp -a "$BUILD/guest-bin/." "$lib/bin/"
# The attack suite's fixture: pspace-run with switchable protections.
install -m 0755 "$BUILD/pspace-run-fixture" "$lib/bin/"
# The security probe runs inside containers of /srv/root.
install -D -m 0755 "$BUILD/guest-bin/escape_probe" "$stage/srv/root/usr/local/lib/pspace-tests/escape_probe"
cp -a "$BUILD/kselftest" "$lib/kselftest"

# Size: what the tree holds, plus room for the tests to write: 85-engines
# keeps up to three copies of the container image at once (the tarball,
# podman's storage, then containerd's content store and snapshot).
kib=$(du -sk "$stage" | cut -f1)
image_kib=$(du -sk "$stage/srv/root" | cut -f1)
size=$(((kib * 13 / 10 + 512 * 1024 + image_kib * 4) / 1024))M
rm -f "$img.tmp"
truncate -s "$size" "$img.tmp"
mkfs.ext4 -q -F -L pspace-root -E root_owner=0:0 -d "$stage" "$img.tmp"
mv "$img.tmp" "$img"
note "$img: $size"
