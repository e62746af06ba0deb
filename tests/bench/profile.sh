#!/usr/bin/env bash
# What the patched fork path costs, function by function: boot the patched
# and the unpatched kernel once each with tests/bench/insn-profile.c (a
# QEMU TCG plugin) counting the kernel's instructions per translation
# block, one vCPU on an instruction clock, while the guest runs N
# fork+exit+wait in the innermost of 0, 1, 8 and 32 nested CLONE_NEWPID
# namespaces (and, on the patched kernel, pspaces); tests/bench/profile.py
# maps the blocks to functions with each kernel's System.map.
#
#   tests/bench/profile.sh OUTDIR [N]   RESULT lines on stdout (N: 2000)
#   PROFILE_KERNELS="patched pristine"  the kernels, in this order
#
# Needs gcc and both kernels built (make kernel kernel-pristine).
set -eu
. "$(dirname "$0")/../../ci/lib.sh"

out=$1
n=${2:-2000}
mkdir -p "$out"
so=$out/insn-profile.so
gcc -O2 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden \
	-o "$so" "$TOP/tests/bench/insn-profile.c" || die "could not build the profiling plugin"
# The same sequence on both kernels: what ran before (the pids used, the
# slabs filled) shifts the counts.  sync(1) marks each profile.
guest=$out/profile-guest.sh
cat >"$guest" <<SCRIPT
set -u
echo 0 >/proc/sys/kernel/randomize_va_space
kinds=newpid
grep -qw pspace_fork_start /proc/kallsyms && kinds="newpid npspace"
B=/usr/lib/pspace/bin/pspace_bench
"\$B" forkonce newpid 1 $((n / 10))	# warm up, not profiled
for d in 0 1 8 32; do
	for k in \$kinds; do
		[ "\$d" = 0 ] && [ "\$k" = npspace ] && continue
		echo "profile kind=\$k depth=\$d"
		sync
		"\$B" forkonce "\$k" "\$d" $n
		sync
	done
done
SCRIPT
for variant in ${PROFILE_KERNELS:-patched pristine}; do
	case $variant in
	patched) kernel=$BUILD/bzImage map=$KOBJ/System.map ;;
	pristine) kernel=$BUILD/bzImage-pristine map=$BUILD/linux-pristine-obj/System.map ;;
	esac
	{ [ -f "$kernel" ] && [ -f "$map" ]; } || die "$kernel or $map: missing; run 'make kernel kernel-pristine'"
	mark=$(awk '$3 == "ksys_sync" { print $1 }' "$map")
	[ -n "$mark" ] || die "ksys_sync: not in $map"
	rm -f "$out/profile-$variant".*
	PSPACE_ICOUNT=1 PSPACE_QEMU_PLUGIN="$so,mark=0x$mark,out=$out/profile-$variant" \
		"$TOP/tests/run-guest.sh" script "$guest" "$kernel" >"$out/console-profile-$variant.log" 2>&1 ||
		die "the $variant profile guest failed; see $out/console-profile-$variant.log"
	grep '^profile ' "$BUILD/results/script.log" >"$out/profile-$variant.index" ||
		die "the $variant profile guest ran nothing; see $BUILD/results/script.log"
done
python3 "$TOP/tests/bench/profile.py" "$out" "$n" \
	"$KOBJ/System.map" "$BUILD/linux-pristine-obj/System.map"
