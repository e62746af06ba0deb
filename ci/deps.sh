#!/usr/bin/env bash
# make deps: install what the build and the tests need, when it is missing.
set -eu
. "$(dirname "$0")/lib.sh"

# The kernel's source: bookworm's linux-source-6.12 for KERNEL=6.12; for
# 7.3 (trixie-backports) apt's tools and Debian's archive keyring, then
# kernel/fetch-source.sh below.  7.3 needs no other host tool than 6.12
# (scripts/min-tool-version.sh: gcc 8.1, binutils 2.30; bookworm has 12 and
# 2.40; pahole 1.26 only for BTF, which the guest config leaves off).
case "$PSPACE_KERNEL" in
6.12) kpkgs=(linux-source-6.12) ;;
*) kpkgs=(debian-archive-keyring apt dpkg) ;;
esac
pkgs=("${kpkgs[@]}" qemu-system-x86 musl-tools libcap-dev libseccomp-dev libjson-c-dev gcc make
	debootstrap bc flex bison libelf-dev libssl-dev cpio e2fsprogs ccache
	xz-utils git rsync kmod python3 python3-ply python3-git file shellcheck gnuplot-nox busybox-static
	clang libclang-rt-14-dev)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} = 0 ]; then
	note "all dependencies installed"
else
	[ "$(id -u)" = 0 ] || die "missing packages (${missing[*]}); run 'make deps' as root"
	note "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null
	apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi
# The kernel tarball (linux-source-7.3: fetched into $CACHE_DIR once).
[ -f "$KTARBALL" ] || "$TOP/kernel/fetch-source.sh" >/dev/null
