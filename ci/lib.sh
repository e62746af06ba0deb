# shellcheck shell=bash
# Helpers shared by the build and test scripts: phase banners with timings,
# error reporting, and the paths every script agrees on.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE_DIR=${PSPACE_CACHE:-/var/cache/pspace}
# The kernel the series is built on ("make ... KERNEL=6.12"): mainline 7.3,
# Debian's linux-source-7.3 from trixie-backports (kernel/fetch-source.sh),
# or the 6.12 backport on bookworm's linux-source-6.12.  Each has its own
# series (KDIR: series, patches/, cover-letter.txt) and its own build
# directory: 7.3 in build/, 6.12 in build/6.12/.
PSPACE_KERNEL=${PSPACE_KERNEL:-7.3}
case "$PSPACE_KERNEL" in
7.3)
	KDIR=$TOP/kernel
	BUILD=${PSPACE_BUILD:-$TOP/build}
	KTARBALL=$CACHE_DIR/linux-source-7.3/linux-source-7.3.tar.xz
	KSUITE=trixie-backports
	;;
6.12)
	KDIR=$TOP/kernel/6.12
	BUILD=${PSPACE_BUILD:-$TOP/build/6.12}
	KTARBALL=/usr/src/linux-source-6.12.tar.xz
	KSUITE=bookworm
	;;
*)
	printf '%s: error: unknown kernel %s (PSPACE_KERNEL, make KERNEL=: 7.3 or 6.12)\n' "${0##*/}" "$PSPACE_KERNEL" >&2
	exit 1
	;;
esac
KSRC=$BUILD/linux
KOBJ=$BUILD/linux-obj
export TOP BUILD KSRC KOBJ CACHE_DIR PSPACE_KERNEL KDIR KTARBALL KSUITE

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

# The patch files $KDIR/series lists, one path per line, in order (the
# cover letter, 0000-cover-letter.patch, first; git am skips it).
series_patches() {
	local p
	while read -r p; do
		case "$p" in '' | '#'*) continue ;; esac
		printf '%s\n' "$KDIR/patches/$p"
	done <"$KDIR/series"
}

# A hash of the series and its patches: what $KSRC was made from.
series_hash() {
	# shellcheck disable=SC2046
	cat "$KDIR/series" $(series_patches) | sha256sum | cut -d' ' -f1
}
