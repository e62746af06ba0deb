#!/usr/bin/env bash
# make bench: boot the patched kernel and measure everything, boot the
# unpatched one (same config) for the fork-rate comparison row, then write
# build/bench/report.md and build/bench/killwid.png.
set -eu
. "$(dirname "$0")/../../ci/lib.sh"

out=$BUILD/bench
mkdir -p "$out"
PSPACE_ENV=PSPACE_BENCH=full "$TOP/tests/run-guest.sh" bench "$BUILD/bzImage" >"$out/console-patched.log" 2>&1 ||
	die "the patched guest's bench run failed; see $out/console-patched.log"
cp "$BUILD/results/bench.txt" "$out/patched.txt"
PSPACE_ENV=PSPACE_BENCH=baseline "$TOP/tests/run-guest.sh" bench "$BUILD/bzImage-pristine" >"$out/console-pristine.log" 2>&1 ||
	die "the unpatched guest's bench run failed; see $out/console-pristine.log"
cp "$BUILD/results/bench.txt" "$out/pristine.txt"
python3 "$TOP/tests/bench/report.py" "$out"
note "report: $out/report.md, chart: $out/killwid.png"
