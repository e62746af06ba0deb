# shellcheck shell=bash
# Helpers shared by the build and test scripts: phase banners with timings,
# error reporting, and the paths every script agrees on.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${PSPACE_BUILD:-$TOP/build}
KSRC=$BUILD/linux
KOBJ=$BUILD/linux-obj
CACHE_DIR=${PSPACE_CACHE:-/var/cache/pspace}
export TOP BUILD KSRC KOBJ CACHE_DIR

die() {
	printf '%s: error: %s\n' "${0##*/}" "$*" >&2
	exit 1
}

note() {
	printf '  %s\n' "$*"
}

# phase NAME COMMAND...: run COMMAND, print how long it took, and keep the
# figure in $BUILD/timings so that make demo/check can print a summary.
phase() {
	local name=$1 start end rc=0
	shift
	printf '==> %s\n' "$name"
	start=$(date +%s.%N)
	"$@" || rc=$?
	end=$(date +%s.%N)
	mkdir -p "$BUILD"
	printf '%-28s %6.1fs%s\n' "$name" "$(awk "BEGIN { print $end - $start }")" \
		"$([ $rc = 0 ] || echo " (failed, status $rc)")" | tee -a "$BUILD/timings"
	return $rc
}

# The patch files kernel/series lists, one path per line, in order (the
# cover letter, 0000-cover-letter.patch, first; git am skips it).
series_patches() {
	local p
	while read -r p; do
		case "$p" in '' | '#'*) continue ;; esac
		printf '%s\n' "$TOP/kernel/patches/$p"
	done <"$TOP/kernel/series"
}

# A hash of the series and its patches: what build/linux was made from.
series_hash() {
	# shellcheck disable=SC2046
	cat "$TOP/kernel/series" $(series_patches) | sha256sum | cut -d' ' -f1
}
