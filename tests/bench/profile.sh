#!/usr/bin/env bash
# What the patched fork path costs, function by function: boot the patched
# and the unpatched kernel in pairs with tests/bench/insn-profile.c (a
# QEMU TCG plugin) counting the kernel's instructions per translation
# block, one vCPU on an instruction clock, while the guest runs N
# fork+exit+wait in the innermost of 0, 1, 8 and 32 nested CLONE_NEWPID
# namespaces (and, on the patched kernel, pspaces); tests/bench/profile.py
# maps the blocks to functions with each kernel's System.map.
#
#   tests/bench/profile.sh OUTDIR [N]   RESULT lines on stdout (N: 2000)
#   PROFILE_PAIRS=4   pairs of guests, one boot of each kernel (ABBA)
#
# Needs gcc and both kernels built (make kernel kernel-pristine), without
# kernel address space randomization (guest.config has none): the blocks
# are mapped with System.map.
set -eu
. "$(dirname "$0")/../../ci/lib.sh"

out=$1
n=${2:-2000}
case $out in *,*) die "$out: QEMU's -plugin option cannot take a comma in a path" ;; esac
mkdir -p "$out"
so=$out/insn-profile.so
gcc -O2 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden \
	-o "$so" "$TOP/tests/bench/insn-profile.c" || die "could not build the profiling plugin"
# The same sequence on both kernels: what ran before (the pids used, the
# slabs filled) shifts the counts.  pspace_bench forkonce calls sync(2)
# just before and just after its forks, in the innermost namespace: the
# marks.  Nothing else in the guest may call it before the script ends.
guest=$out/profile-guest.sh
cat >"$guest" <<SCRIPT
set -u
echo 0 >/proc/sys/kernel/randomize_va_space
kinds=newpid
grep -qw pspace_fork_start /proc/kallsyms && kinds="newpid npspace"
B=/usr/lib/pspace/bin/pspace_bench
"\$B" forkdepth 1 $((n / 10)) newpid 1 >/dev/null	# warm up, no sync(2)
for d in 0 1 8 32; do
	for k in \$kinds; do
		[ "\$d" = 0 ] && [ "\$k" = npspace ] && continue
		echo "profile kind=\$k depth=\$d"
		"\$B" forkonce "\$k" "\$d" $n || echo "forkonce failed: kind=\$k depth=\$d"
	done
done
SCRIPT
rm -f "$out"/profile-patched-* "$out"/profile-pristine-*
# profile VARIANT RUN: one guest, its dumps as profile-VARIANT-RUN.N
profile() {
	local kernel map mark
	case $1 in
	patched) kernel=$BUILD/bzImage map=$KOBJ/System.map ;;
	pristine) kernel=$BUILD/bzImage-pristine map=$BUILD/linux-pristine-obj/System.map ;;
	esac
	{ [ -f "$kernel" ] && [ -f "$map" ]; } || die "$kernel or $map: missing; run 'make kernel kernel-pristine'"
	mark=$(awk '$3 == "ksys_sync" { print $1 }' "$map")
	[ -n "$mark" ] || die "ksys_sync: not in $map"
	PSPACE_ICOUNT=1 PSPACE_QEMU_PLUGIN="$so,mark=0x$mark,out=$out/profile-$1-$2" \
		"$TOP/tests/run-guest.sh" script "$guest" "$kernel" >"$out/console-profile-$1-$2.log" 2>&1 ||
		die "the $1 profile guest failed; see $out/console-profile-$1-$2.log"
	grep '^profile ' "$BUILD/results/script.log" >"$out/profile-$1-$2.index" ||
		die "the $1 profile guest ran nothing; see $BUILD/results/script.log"
	! grep '^forkonce failed' "$BUILD/results/script.log" >&2 ||
		die "the $1 profile guest's forks failed; see $BUILD/results/script.log"
}
# Pairs in ABBA order: what differs from one boot to the next, of one
# kernel too, shows against what comes back in every pair.
for i in $(seq "${PROFILE_PAIRS:-4}"); do
	if [ $((i % 2)) = 1 ]; then
		profile patched "$i"
		profile pristine "$i"
	else
		profile pristine "$i"
		profile patched "$i"
	fi
done
python3 "$TOP/tests/bench/profile.py" "$out" "$n" \
	"$KOBJ/System.map" "$BUILD/linux-pristine-obj/System.map"
