#!/usr/bin/env bash
# The test programs that run in the guest, built statically from the
# patched kernel tree into build/guest-bin/ (copied into the image).
set -eu
. "$(dirname "$0")/../ci/lib.sh"

out=$BUILD/guest-bin
REGRESSION_TARGETS="pid_namespace clone3 pidfd nsfs proc"
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

build pspace_test "$sel/pspace/pspace_test.c"

# The project's own guest programs: stress, fuzz, security probe, bench.
for src in "$TOP"/tests/c/*.c; do
	name=${src##*/}
	build "${name%.c}" -Wextra "$src"
done

# Mainline's selftests for what the series touches, for the regression
# comparison against the unpatched kernel (tests/regression/baseline.txt).
rm -rf "$BUILD/kselftest"
make -s -C "$sel" O="$BUILD/kselftest-obj" TARGETS="$REGRESSION_TARGETS" \
	KHDR_INCLUDES="-isystem $hdr" LDFLAGS=-static \
	install INSTALL_PATH="$BUILD/kselftest" >"$BUILD/kselftest-build.log" 2>&1 ||
	die "building the mainline selftests failed; see $BUILD/kselftest-build.log"
note "guest test programs in $out: $(cd "$out" && echo *)"
