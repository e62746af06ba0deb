#!/usr/bin/env bash
# make bench: boot the patched kernel and measure everything, then boot the
# unpatched one (same config) and the patched one again, alternating, for
# the fork-rate rows; then write build/bench/report.md and the charts.
#   BENCH_QUICK=1   reduced sizes and rounds (development runs)
#   BENCH_PAIRS=N   unpatched/patched guest pairs for the fork rows (3)
set -eu
. "$(dirname "$0")/../../ci/lib.sh"

out=$BUILD/bench
mkdir -p "$out"
rm -f "$out"/*.txt "$out"/*.png
quick=${BENCH_QUICK:-0}
pairs=${BENCH_PAIRS:-$([ "$quick" = 1 ] && echo 1 || echo 3)}
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
		"load1=$(cut -d' ' -f1 /proc/loadavg)" \
		"idle=$(awk "BEGIN { printf \"%.3f\", ($i1 - $i0) / ($t1 - $t0 + 1) }")" >>"$out/host.txt"
}
# Everything on the patched kernel; then the fork-rate rows in guests
# that alternate unpatched / patched, so that a drift of this machine's
# speed does not land on one kernel only.
boot patched "$BUILD/bzImage" full
# Pairs in ABBA order: unpatched first in odd pairs, patched in even.
for i in $(seq "$pairs"); do
	if [ $((i % 2)) = 1 ]; then
		boot "pristine-$i" "$BUILD/bzImage-pristine" baseline
		boot "patched-$i" "$BUILD/bzImage" baseline
	else
		boot "patched-$i" "$BUILD/bzImage" baseline
		boot "pristine-$i" "$BUILD/bzImage-pristine" baseline
	fi
done
python3 "$TOP/tests/bench/report.py" "$out"
note "report: $out/report.md, charts: $out/*.png"
