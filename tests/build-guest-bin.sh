#!/usr/bin/env bash
# The test programs that run in the guest, built statically from the
# patched kernel tree into $BUILD/guest-bin/ (copied into the image).
# A tree without the series' selftests (tools/testing/selftests/pspace: a
# pristine or half-ported kernel) gives no pspace_test, only a note: the
# regression and guard runs need the rest.
set -eu
. "$(dirname "$0")/../ci/lib.sh"

out=$BUILD/guest-bin
# Mainline's selftests of what the series touches.  Since 6.14 the nsfs
# ones are filesystems/nsfs, and namespaces/ tests the nsfs rework (nsid,
# file handles, listns()).
case "$PSPACE_KERNEL" in
6.12) REGRESSION_TARGETS="pid_namespace clone3 pidfd nsfs proc" ;;
*) REGRESSION_TARGETS="pid_namespace clone3 pidfd filesystems/nsfs namespaces proc" ;;
esac
mkdir -p "$out"
make -s -C "$KSRC" O="$KOBJ" headers >/dev/null
hdr=$KOBJ/usr/include
sel=$KSRC/tools/testing/selftests
cflags=(-static -O2 -g -Wall -isystem "$hdr" -I "$sel")

build() { # NAME SOURCE...
	local name=$1
	shift
	gcc "${cflags[@]}" -o "$out/$name.tmp" "$@" -lpthread
	mv "$out/$name.tmp" "$out/$name"
}

if [ -f "$sel/pspace/pspace_test.c" ]; then
	build pspace_test "$sel/pspace/pspace_test.c"
else
	rm -f "$out/pspace_test"
	note "no $sel/pspace in this tree: no pspace_test (10-pspace-selftests will fail)"
fi

# The project's own guest programs: stress, fuzz, security probe, bench.
for src in "$TOP"/tests/c/*.c; do
	name=${src##*/}
	build "${name%.c}" -Wextra "$src"
done

# Mainline's selftests for what the series touches, for the regression
# comparison against the unpatched kernel (tests/regression/baseline-*.txt).
rm -rf "$BUILD/kselftest"
make -s -C "$sel" O="$BUILD/kselftest-obj" TARGETS="$REGRESSION_TARGETS" \
	KHDR_INCLUDES="-isystem $hdr" LDFLAGS=-static \
	install INSTALL_PATH="$BUILD/kselftest" >"$BUILD/kselftest-build.log" 2>&1 ||
	die "building the mainline selftests failed; see $BUILD/kselftest-build.log"
# (The selftests' make skips a target it does not find, and says so only in the log.)
for t in $REGRESSION_TARGETS; do
	grep -q "^$t:" "$BUILD/kselftest/kselftest-list.txt" ||
		die "no mainline selftest installed from $t; see $BUILD/kselftest-build.log"
done
note "guest test programs in $out: $(cd "$out" && echo *)"
