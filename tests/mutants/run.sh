#!/usr/bin/env bash
# make check-mutants: every test must be able to fail.  Each NAME.patch in
# tests/mutants/ is a one-line mutation of the patched kernel that breaks
# one promise of the SPEC (see README there); for each, build the kernel
# with it, boot it once and run the pspace selftests: the mutant is
# "killed" if any test fails (or the guest does not finish), "survived"
# if they all pass.  Exits non-zero if one survived or did not apply.
#
#   tests/mutants/run.sh                  every mutant
#   MUTANTS="2.2-* 5.3-*" tests/mutants/run.sh   some of them (globs)
#
# The mutants are applied in a git worktree of build/linux at its HEAD,
# build/mutant/linux, built in build/mutant/linux-obj.  With ccache's base
# directory at build/mutant, its paths look to ccache exactly like
# build/linux's do from build/, so the first build hits the cache of
# "make kernel" and each mutant recompiles one file and relinks.
# Logs and results: build/mutant/NAME/.
set -eu
. "$(dirname "$0")/../../ci/lib.sh"

dir=$BUILD/mutant
wt=$dir/linux
obj=$dir/linux-obj

[ -d "$KSRC/.git" ] || die "$KSRC: no kernel tree; run 'make kernel-tree'"
[ -f "$KOBJ/.config" ] || die "build the kernel once first ('make kernel')"
[ -f "$BUILD/rootfs.img" ] || die "$BUILD/rootfs.img: missing; run 'make rootfs'"

head=$(git -C "$KSRC" rev-parse HEAD)
mkdir -p "$dir"
[ -d "$wt/.git" ] || [ -f "$wt/.git" ] || git -C "$KSRC" worktree add -q --detach "$wt" "$head"
git -C "$wt" reset -q --hard
git -C "$wt" checkout -q --detach "$head"
mkdir -p "$obj"
cmp -s "$KOBJ/.config" "$obj/.config" || cp "$KOBJ/.config" "$obj/.config"

export CCACHE_BASEDIR=$dir CCACHE_NOHASHDIR=1 CCACHE_COMPRESS=1
export KBUILD_BUILD_TIMESTAMP="2026-01-01" KBUILD_BUILD_USER=pspace KBUILD_BUILD_HOST=pspace

patches=()
for pattern in ${MUTANTS:-*}; do
	for m in "$TOP"/tests/mutants/$pattern.patch; do
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
	git -C "$wt" reset -q --hard "$head"
	if ! git -C "$wt" apply "$m"; then
		echo "mutant $name: does not apply to $head"
		broken=$((broken + 1))
		continue
	fi
	if ! make -C "$wt" O="$obj" CC="ccache gcc" HOSTCC="ccache gcc" LOCALVERSION= \
		-j"$(nproc)" -s bzImage >"$out/build.log" 2>&1; then
		echo "mutant $name: does not build (see $out/build.log)"
		broken=$((broken + 1))
		continue
	fi
	cp "$obj/arch/x86/boot/bzImage" "$out/bzImage"
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
git -C "$wt" reset -q --hard "$head"

echo "$killed killed, $survived survived${broken:+, $broken did not apply or build}" |
	sed 's/, 0 did not apply or build$//'
[ -z "$survivors" ] || echo "survivors:$survivors"
[ $survived = 0 ] && [ $broken = 0 ]
