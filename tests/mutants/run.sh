#!/usr/bin/env bash
# make check-mutants: every test must be able to fail.  Each NAME.patch in
# tests/mutants/ (tests/mutants/6.12/ for KERNEL=6.12) is a one-line mutation of the patched kernel that breaks
# one promise of the SPEC (see README there); for each, build the kernel
# with it, boot it once and run the pspace selftests: the mutant is
# "killed" if any test fails (or the guest does not finish), "survived"
# if they all pass.  Exits non-zero if one survived or did not apply.
#
#   tests/mutants/run.sh                  every mutant
#   MUTANTS="2.2-* 5.3-*" tests/mutants/run.sh   some of them (globs)
#
# Each mutant is applied to build/linux itself and built in its object
# directory, build/linux-obj, with the same command as "make kernel": one
# file recompiles and the kernel relinks.  (A worktree of its own would
# start cold: the kernel passes its absolute source path to the compiler
# in -fmacro-prefix-map, so ccache shares nothing between two trees.)
# The mutated file is put back after each mutant and on any exit, and the
# kernel is rebuilt unmutated at the end; build/bzImage is never touched.
# The tree must have no uncommitted change to start with.
# Logs and results: build/mutant/NAME/.
set -eu
. "$(dirname "$0")/../../ci/lib.sh"

dir=$BUILD/mutant
case "$PSPACE_KERNEL" in
7.3) mutants=$TOP/tests/mutants ;;
*) mutants=$TOP/tests/mutants/$PSPACE_KERNEL ;;
esac

[ -d "$KSRC/.git" ] || die "$KSRC: no kernel tree; run 'make kernel-tree'"
[ -f "$KOBJ/.config" ] || die "build the kernel once first ('make kernel')"
[ -f "$BUILD/rootfs.img" ] || die "$BUILD/rootfs.img: missing; run 'make rootfs'"
[ -z "$(git -C "$KSRC" status --porcelain --untracked-files=no)" ] ||
	die "$KSRC has uncommitted changes; commit them first"
mkdir -p "$dir"

export CCACHE_BASEDIR=$BUILD CCACHE_NOHASHDIR=1 CCACHE_COMPRESS=1
export KBUILD_BUILD_TIMESTAMP="2026-01-01" KBUILD_BUILD_USER=pspace KBUILD_BUILD_HOST=pspace
kmake() { # as kernel/build.sh does, so nothing but the mutated file rebuilds
	make -C "$KSRC" O="$KOBJ" CC="ccache gcc" HOSTCC="ccache gcc" LOCALVERSION= \
		-j"$(nproc)" -s bzImage
}
restore() { git -C "$KSRC" checkout -q -- .; }
trap restore EXIT

patches=()
set -f	# the patterns are globs over tests/mutants/, not over the cwd
read -ra patterns <<<"${MUTANTS:-*}"
set +f
for pattern in "${patterns[@]}"; do
	for m in "$mutants"/$pattern.patch; do
		[ -f "$m" ] && patches+=("$m")
	done
done
[ ${#patches[@]} -gt 0 ] || die "no mutant matches '${MUTANTS:-*}'"

killed=0 survived=0 broken=0
survivors=""
for m in "${patches[@]}"; do
	name=${m##*/}
	name=${name%.patch}
	out=$dir/$name
	rm -rf "$out"
	mkdir -p "$out"
	start=$(date +%s)
	restore
	if ! git -C "$KSRC" apply "$m"; then
		echo "mutant $name: does not apply to $(git -C "$KSRC" rev-parse --short HEAD)"
		broken=$((broken + 1))
		continue
	fi
	if ! kmake >"$out/build.log" 2>&1; then
		echo "mutant $name: does not build (see $out/build.log)"
		broken=$((broken + 1))
		continue
	fi
	cp "$KOBJ/arch/x86/boot/bzImage" "$out/bzImage"
	built=$(date +%s)
	rc=0
	SUITES=10-pspace-selftests PSPACE_HOST_SUITES=0 PSPACE_TIMEOUT=${PSPACE_TIMEOUT:-900} \
		"$TOP/tests/run-guest.sh" check "$out/bzImage" >"$out/guest.log" 2>&1 || rc=$?
	cp -r "$BUILD/results" "$out/results" 2>/dev/null || true
	end=$(date +%s)
	times="build $((built - start))s, guest $((end - built))s"
	if [ $rc != 0 ]; then
		killed=$((killed + 1))
		why=$(grep -h '^not ok' "$out"/results/*.tap 2>/dev/null | sed 's/^not ok [0-9]* //' | head -n 3 | paste -sd ';' -)
		echo "mutant $name: killed ($times) by: ${why:-the guest did not finish}"
	else
		survived=$((survived + 1))
		survivors="$survivors $name"
		echo "mutant $name: SURVIVED ($times)"
	fi
	rm -f "$out/bzImage"
done
restore
note "rebuilding the unmutated kernel in $KOBJ"
kmake >"$dir/rebuild.log" 2>&1 || echo "rebuilding the unmutated kernel failed: see $dir/rebuild.log"

echo "$killed killed, $survived survived${broken:+, $broken did not apply or build}" |
	sed 's/, 0 did not apply or build$//'
[ -z "$survivors" ] || echo "survivors:$survivors"
[ $survived = 0 ] && [ $broken = 0 ]
