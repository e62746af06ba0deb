#!/usr/bin/env bash
# Print the phase timings recorded in build/timings, then forget them.
set -eu
. "$(dirname "$0")/lib.sh"
[ -f "$BUILD/timings" ] || exit 0
echo
echo "Phase timings:"
sed 's/^/  /' "$BUILD/timings"
rm -f "$BUILD/timings"
