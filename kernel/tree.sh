#!/usr/bin/env bash
# make kernel-tree: $KSRC (build/linux; build/6.12/linux for KERNEL=6.12) as
# a git tree — a pristine linux-source-$PSPACE_KERNEL commit (tag "pristine"),
# one local commit that only un-hides new files from git (tag "base"), and
# the series ($KDIR/series: kernel/series, kernel/6.12/series) applied on
# top by "git am".
#
# The tree is where the series is edited: commit there, then "make
# kernel-export" writes $KDIR/patches/ back.  To keep such work safe, the
# tree is only reset when it still holds exactly what was last applied or
# exported; otherwise this script stops and says so.
set -eu
. "$(dirname "$0")/../ci/lib.sh"

STAMP=$KSRC/.git/pspace-applied

extract_pristine() {
	local TARBALL=${PSPACE_KERNEL_TARBALL:-}
	[ -n "$TARBALL" ] || TARBALL=$("$TOP/kernel/fetch-source.sh")
	[ -f "$TARBALL" ] || die "$TARBALL: not found"
	note "extracting $TARBALL"
	rm -rf "$KSRC.tmp"
	mkdir -p "$KSRC.tmp"
	tar -C "$KSRC.tmp" --strip-components=1 -xf "$TARBALL"
	(
		cd "$KSRC.tmp"
		git init -q -b master
		git config user.name "pspace developers"
		git config user.email "dev@pspace.invalid"
		git config core.abbrev 12
		git add -f -A
		git commit -q -m "linux-source-$PSPACE_KERNEL $(make -s kernelversion) (pristine)"
		git tag pristine
		# Debian's tarball appends "/*" to .gitignore, which hides every new
		# file from git.  Drop that block in a local commit the series sits
		# on, so new files in the tree show up in "git status".
		sed -i '/^# Debian packaging: ignore everything/,$d' .gitignore
		sed -i '$ { /^#$/d }' .gitignore
		git commit -q -a -m "local: let git see new files (drop Debian's '/*' ignore)"
		git tag base
	)
	mv "$KSRC.tmp" "$KSRC"
}

apply_series() {
	cd "$KSRC"
	git am --abort >/dev/null 2>&1 || true
	git reset -q --hard base
	git clean -qfdx
	# shellcheck disable=SC2046
	if series_patches | grep -qv /0000-cover-letter.patch; then
		git am -q --whitespace=error-all $(series_patches | grep -v /0000-cover-letter.patch) ||
			die "$KDIR/series does not apply; see 'git -C $KSRC am --show-current-patch'"
	fi
	printf '%s %s\n' "$(series_hash)" "$(git rev-parse HEAD)" >"$STAMP"
	note "applied $(git rev-list --count base..HEAD) patches"
}

mkdir -p "$BUILD"
[ -d "$KSRC/.git" ] || extract_pristine

want=$(series_hash)
read -r have_hash have_head 2>/dev/null <"$STAMP" || { have_hash=none; have_head=none; }
head=$(git -C "$KSRC" rev-parse HEAD)

if [ "$want" = "$have_hash" ]; then
	note "series already applied in $KSRC"
elif [ "$head" = "$have_head" ] || [ "$have_head" = none ] || [ "${KERNEL_RESET:-0}" = 1 ]; then
	apply_series
else
	die "$KSRC has commits that are not in $KDIR/patches; run 'make kernel-export' (or KERNEL_RESET=1 to drop them)"
fi
