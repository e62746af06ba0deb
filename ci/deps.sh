#!/usr/bin/env bash
# make deps: install what the build and the tests need, when it is missing.
set -eu
. "$(dirname "$0")/lib.sh"

pkgs=(linux-source-6.12 qemu-system-x86 musl-tools libcap-dev libseccomp-dev libjson-c-dev gcc make
	debootstrap bc flex bison libelf-dev libssl-dev cpio e2fsprogs ccache
	xz-utils git rsync kmod python3 file shellcheck gnuplot-nox busybox-static)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} = 0 ]; then
	note "all dependencies installed"
	exit 0
fi
[ "$(id -u)" = 0 ] || die "missing packages (${missing[*]}); run 'make deps' as root"
note "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
