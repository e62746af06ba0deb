#!/usr/bin/env bash
# The series on 32-bit: CLONE_NPSPACE is bit 56, so the flag must survive
# every path from clone3() to the pid namespace code without passing
# through an unsigned long.  Build the files the series touches for i386
# (tinyconfig plus pid namespaces), warnings shown; run by check-series.
set -eu
. "$(dirname "$0")/../ci/lib.sh"

obj=$BUILD/linux-i386-obj
# Every C file the series changes under kernel/ and fs/.
files=$(git -C "$KSRC" diff --name-only base..HEAD -- 'kernel/*.c' 'fs/*.c' | sed 's/\.c$/.o/')
# (No file: an empty series; make without a target would build all of i386.)
if [ -z "$files" ]; then
	note "i386: the series changes no C file under kernel/ or fs/"
	exit 0
fi
mkdir -p "$obj"
kmake() { make -C "$KSRC" O="$obj" ARCH=i386 CC="ccache gcc" -s "$@"; }
export CCACHE_BASEDIR=$BUILD CCACHE_NOHASHDIR=1 CCACHE_COMPRESS=1
kmake tinyconfig >/dev/null
# (CONFIG_SYSCTL: 7.3's name of CONFIG_PROC_SYSCTL.)
printf '%s\n' CONFIG_MULTIUSER=y CONFIG_NAMESPACES=y CONFIG_PID_NS=y CONFIG_USER_NS=y \
	CONFIG_UTS_NS=y CONFIG_PROC_FS=y CONFIG_PROC_SYSCTL=y CONFIG_SYSCTL=y CONFIG_TTY=y >"$obj/pspace.config"
(cd "$obj" && "$KSRC/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$obj/pspace.config" >/dev/null)
kmake olddefconfig >/dev/null
grep -qx CONFIG_X86_32=y "$obj/.config" || die "i386 configuration did not take"
# shellcheck disable=SC2086 # one make target per word
out=$(kmake -j"$(nproc)" W=1 $files 2>&1) || { echo "$out"; die "i386 build failed"; }
warn=$(echo "$out" | grep -c 'warning:' || true)
[ "$warn" = 0 ] || { echo "$out"; die "i386 build: $warn warnings"; }
note "i386 builds with W=1, no warning: $(echo "$files" | tr '\n' ' ')"
