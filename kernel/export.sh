#!/usr/bin/env bash
# make kernel-export: write the commits on top of "base" in build/linux
# back to kernel/patches/ and kernel/series.  The options are fixed so that
# re-exporting an untouched patch gives the same bytes.
set -eu
. "$(dirname "$0")/../ci/lib.sh"

[ -d "$KSRC/.git" ] || die "$KSRC: no kernel tree; run 'make kernel-tree' first"
cd "$KSRC"
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
	die "$KSRC has uncommitted changes; commit them first"

rm -f "$TOP"/kernel/patches/[0-9][0-9][0-9][0-9]-*.patch
git format-patch -q --no-signature --no-numbered --zero-commit \
	--full-index --abbrev=12 --no-stat --stat=80 \
	--cover-letter --cover-from-description=auto \
	-o "$TOP/kernel/patches" base..HEAD >/dev/null
# The cover letter is kept by hand in kernel/cover-letter.txt, so format-patch's
# template is replaced by it (with the generated shortlog and diffstat).
if [ -f "$TOP/kernel/cover-letter.txt" ]; then
	{
		sed -n '1,/^Subject:/p' "$TOP/kernel/patches/0000-cover-letter.patch" |
			sed "s/^Date: .*/Date: $(git log -1 --format=%aD HEAD)/" |
			sed 's/^Subject: .*/Subject: [PATCH 0\/'"$(git rev-list --count base..HEAD)"'] '"$(head -n1 "$TOP/kernel/cover-letter.txt")"'/'
		echo
		tail -n +3 "$TOP/kernel/cover-letter.txt"
		echo
		git shortlog base..HEAD
		git diff --stat=80 --summary base HEAD
	} >"$TOP/kernel/patches/0000-cover-letter.patch.new"
	mv "$TOP/kernel/patches/0000-cover-letter.patch.new" "$TOP/kernel/patches/0000-cover-letter.patch"
else
	rm -f "$TOP/kernel/patches/0000-cover-letter.patch"
fi
for p in "$TOP"/kernel/patches/[0-9][0-9][0-9][0-9]-*.patch; do
	echo "${p##*/}"
done >"$TOP/kernel/series"
printf '%s %s\n' "$(series_hash)" "$(git rev-parse HEAD)" >"$KSRC/.git/pspace-applied"
note "exported $(wc -l <"$TOP/kernel/series") patches to kernel/patches/"
