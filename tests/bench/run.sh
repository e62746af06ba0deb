#!/usr/bin/env bash
# make bench: boot the patched kernel and measure everything, boot the
# unpatched one (same config) for the fork-rate comparison rows, then write
# build/bench/report.md and build/bench/killwid.png.
set -eu
. "$(dirname "$0")/../../ci/lib.sh"

out=$BUILD/bench
mkdir -p "$out"
rm -f "$out"/*.txt
# boot NAME KERNEL MODE: one guest run, its RESULT lines kept as NAME.txt
boot() {
	PSPACE_ENV=PSPACE_BENCH=$3 "$TOP/tests/run-guest.sh" bench "$2" >"$out/console-$1.log" 2>&1 ||
		die "the $1 guest's bench run failed; see $out/console-$1.log"
	cp "$BUILD/results/bench.txt" "$out/$1.txt"
}
# Everything on the patched kernel; then the fork-rate comparison in
# guests that alternate unpatched / patched / unpatched, so that a drift
# of this machine's speed does not land on one kernel only.
boot patched "$BUILD/bzImage" full
boot pristine "$BUILD/bzImage-pristine" baseline
boot patched-2 "$BUILD/bzImage" baseline
boot pristine-2 "$BUILD/bzImage-pristine" baseline
python3 "$TOP/tests/bench/report.py" "$out"
note "report: $out/report.md, chart: $out/killwid.png"
