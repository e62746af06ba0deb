#!/usr/bin/env bash
# make bench: boot the patched kernel and measure everything, then boot the
# unpatched one (same config) and the patched one again, alternating, for
# the fork-rate rows; then write build/bench/report.md and the charts.
#   BENCH_QUICK=1   reduced sizes and rounds (development runs)
#   BENCH_PAIRS=N   unpatched/patched guest pairs for the fork rows (3)
#   BENCH_ICOUNT_PAIRS=N  pairs of guests whose clock counts instructions
#                   (QEMU -icount), for the fork rows again (3; quick 1)
#   BENCH_ONLY=icount  only those pairs and the instruction profile of the
#                   fork path (tests/bench/profile.sh), beside the results
#                   of an earlier run kept in build/bench
set -eu
. "$(dirname "$0")/../../ci/lib.sh"

out=$BUILD/bench
mkdir -p "$out"
only=${BENCH_ONLY:-}
case $only in
"") rm -f "$out"/*.txt "$out"/*.png ;;
icount)
	rm -f "$out"/icount-*.txt "$out"/console-icount-*.log
	[ ! -f "$out/host.txt" ] ||
		sed -i '/^RESULT [a-z]* guest=icount-/d; /^RESULT profile/d; /^RESULT code /d' "$out/host.txt"
	;;
*) die "BENCH_ONLY=$only: unknown (icount is the one choice)" ;;
esac
unset PSPACE_ICOUNT	# only the guests below that ask for it
quick=${BENCH_QUICK:-0}
pairs=${BENCH_PAIRS:-$([ "$quick" = 1 ] && echo 1 || echo 3)}
ipairs=${BENCH_ICOUNT_PAIRS:-$([ "$quick" = 1 ] && echo 1 || echo 3)}
export PSPACE_TIMEOUT=${PSPACE_TIMEOUT:-7200}
# How busy this machine was around each guest: load average and the
# share of idle CPU time (from /proc/stat) while the guest ran.
cpu_idle() { awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print $5 + $6, t }' /proc/stat; }
# boot NAME KERNEL MODE: one guest run, its RESULT lines kept as NAME.txt
boot() {
	local i0 t0 i1 t1 start=$SECONDS
	read -r i0 t0 < <(cpu_idle)
	PSPACE_ENV=PSPACE_BENCH=$3,BENCH_QUICK=$quick "$TOP/tests/run-guest.sh" bench "$2" \
		>"$out/console-$1.log" 2>&1 ||
		die "the $1 guest's bench run failed; see $out/console-$1.log"
	read -r i1 t1 < <(cpu_idle)
	cp "$BUILD/results/bench.txt" "$out/$1.txt"
	# A guest that timed out still gives its rows; say that it did.
	[ -f "$BUILD/results/complete" ] ||
		echo "RESULT incomplete guest=$1 console=console-$1.log" | tee -a "$out/host.txt" >&2
	echo "RESULT host guest=$1 seconds=$((SECONDS - start)) cpus=$(nproc)" \
		"load1=$(cut -d' ' -f1 /proc/loadavg)" "kernel=$(sha256sum "$2" | cut -c1-12)" \
		"idle=$(awk "BEGIN { printf \"%.3f\", ($i1 - $i0) / ($t1 - $t0 + 1) }")" >>"$out/host.txt"
}
# pairs N PREFIX MODE: N pairs of guests in ABBA order, unpatched first
# in odd pairs, patched in even, so that a drift of this machine's speed
# does not land on one kernel only.
pairs() {
	local i
	for i in $(seq "$1"); do
		if [ $((i % 2)) = 1 ]; then
			boot "${2}pristine-$i" "$BUILD/bzImage-pristine" "$3"
			boot "${2}patched-$i" "$BUILD/bzImage" "$3"
		else
			boot "${2}patched-$i" "$BUILD/bzImage" "$3"
			boot "${2}pristine-$i" "$BUILD/bzImage-pristine" "$3"
		fi
	done
}
if [ -z "$only" ]; then
	# Everything on the patched kernel; then the fork-rate rows in pairs.
	boot patched "$BUILD/bzImage" full
	pairs "$pairs" "" baseline
fi
# The fork rows again on one vCPU whose clock counts guest instructions:
# what the patched fork path costs, whatever else this machine runs.
export PSPACE_ICOUNT=1
pairs "$ipairs" icount- icount
unset PSPACE_ICOUNT
# Where the patched fork path differs, function by function: one guest
# per kernel under an instruction-counting TCG plugin.
"$TOP/tests/bench/profile.sh" "$out" "$([ "$quick" = 1 ] && echo 500 || echo 2000)" >>"$out/host.txt" ||
	note "the instruction profile failed (above); the report goes without it"
python3 "$TOP/tests/bench/report.py" "$out"
note "report: $out/report.md, charts: $out/*.png"
