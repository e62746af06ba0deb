#!/usr/bin/env bash
# make regression-baseline: boot the unpatched kernel (same config, same
# rootfs, same test binaries) and record which mainline selftests pass
# there, into tests/regression/baseline-$PSPACE_KERNEL.txt (7.3 or 6.12).
# "make check" compares the patched kernel against this file without
# rebuilding the unpatched one.
set -eu
. "$(dirname "$0")/../../ci/lib.sh"

out=$TOP/tests/regression/baseline-$PSPACE_KERNEL.txt
"$TOP/tests/run-guest.sh" regression "$BUILD/bzImage-pristine" >"$BUILD/console-regression.log" 2>&1 || true
[ -f "$BUILD/results/complete" ] || die "the unpatched guest did not finish; see $BUILD/console-regression.log"
{
	echo "# Mainline selftests on the UNPATCHED linux-source-$PSPACE_KERNEL ($(git -C "$KSRC" log -1 --format=%s pristine)),"
	echo "# same config, rootfs and binaries as 'make check'.  Written by 'make regression-baseline'."
	echo "# Every PASS here must pass on the patched kernel; FAIL/SKIP/TIMEOUT lines are known"
	echo "# and reported as skips.  Reasons for the known ones are in tests/regression/README.md."
	sort "$BUILD/results/regression.txt"
} >"$out"
note "$out: $(grep -c $'\tPASS$' "$out") pass, $(grep -vc -e $'\tPASS$' -e '^#' "$out") known failures or skips"
