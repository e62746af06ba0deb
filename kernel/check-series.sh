#!/usr/bin/env bash
# make check-series: every patch passes checkpatch --strict with nothing
# reported, and the kernel builds after each patch in turn (bisectable).
# Builds in a worktree of build/linux so the working tree is left alone.
set -eu
. "$(dirname "$0")/../ci/lib.sh"

wt=$BUILD/linux-series
obj=$BUILD/linux-series-obj
fail=0

cd "$KSRC"
for p in $(series_patches); do
	# The tree is Debian's tarball, not mainline's history: no commit id
	# a Fixes: tag names can be looked up in it (UNKNOWN_COMMIT_ID).
	out=$(./scripts/checkpatch.pl --strict --no-tree -q --terse --ignore UNKNOWN_COMMIT_ID "$p" 2>&1 |
		grep -v '^total: 0 errors, 0 warnings, 0 checks,') || true
	if [ -n "$out" ]; then
		echo "checkpatch: ${p##*/}:"
		while IFS= read -r line; do echo "  $line"; done <<<"$out"
		fail=1
	else
		note "checkpatch clean: ${p##*/}"
	fi
done

[ -d "$wt" ] || git worktree add -q --detach "$wt" base
mkdir -p "$obj"
cp "$KOBJ/.config" "$obj/.config" 2>/dev/null || die "build the kernel once first ('make kernel')"
export CCACHE_BASEDIR=$BUILD CCACHE_NOHASHDIR=1 CCACHE_COMPRESS=1
export KBUILD_BUILD_TIMESTAMP="2026-01-01" KBUILD_BUILD_USER=pspace KBUILD_BUILD_HOST=pspace
# FROM=N skips the builds of patches before N (they were checked earlier);
# checkpatch still runs on every patch.
n=0
for c in $(git rev-list --reverse base..HEAD); do
	n=$((n + 1))
	subject=$(git log -1 --format=%s "$c")
	if [ "$n" -lt "${FROM:-1}" ]; then
		note "build skipped (FROM=$FROM): $subject"
		continue
	fi
	git -C "$wt" checkout -q --detach "$c"
	if make -C "$wt" O="$obj" CC="ccache gcc" HOSTCC="ccache gcc" -j"$(nproc)" -s olddefconfig bzImage >"$obj/build.log" 2>&1; then
		note "builds: $subject"
	else
		echo "BUILD FAILED after: $subject"
		tail -n 20 "$obj/build.log" | sed 's/^/  /'
		fail=1
	fi
done
"$TOP/kernel/check-32bit.sh" || fail=1
[ $fail = 0 ] && note "series is clean and bisectable"
exit $fail
