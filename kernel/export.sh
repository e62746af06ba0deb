#!/usr/bin/env bash
# make kernel-export: write the commits on top of "base" in $KSRC back to
# $KDIR/patches/ and $KDIR/series (kernel/ for 7.3, kernel/6.12/ for 6.12).
# The options are fixed so that re-exporting an untouched patch gives the
# same bytes.
set -eu
. "$(dirname "$0")/../ci/lib.sh"

[ -d "$KSRC/.git" ] || die "$KSRC: no kernel tree; run 'make kernel-tree' first"
cd "$KSRC"
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
	die "$KSRC has uncommitted changes; commit them first"

mkdir -p "$KDIR/patches"
rm -f "$KDIR"/patches/[0-9][0-9][0-9][0-9]-*.patch
git format-patch -q --no-signature --no-numbered --zero-commit \
	--full-index --abbrev=12 --no-stat --stat=80 \
	--cover-letter --cover-from-description=auto \
	-o "$KDIR/patches" base..HEAD >/dev/null
# The cover letter is kept by hand in $KDIR/cover-letter.txt, so format-patch's
# template is replaced by it (with the generated shortlog and diffstat).
if [ -f "$KDIR/cover-letter.txt" ]; then
	{
		sed -n '1,/^Subject:/p' "$KDIR/patches/0000-cover-letter.patch" |
			sed "s/^Date: .*/Date: $(git log -1 --format=%aD HEAD)/" |
			sed 's/^Subject: .*/Subject: [PATCH 0\/'"$(git rev-list --count base..HEAD)"'] '"$(head -n1 "$KDIR/cover-letter.txt")"'/'
		echo
		tail -n +3 "$KDIR/cover-letter.txt"
		echo
		git shortlog base..HEAD
		git diff --stat=80 --summary base HEAD
	} >"$KDIR/patches/0000-cover-letter.patch.new"
	mv "$KDIR/patches/0000-cover-letter.patch.new" "$KDIR/patches/0000-cover-letter.patch"
else
	rm -f "$KDIR/patches/0000-cover-letter.patch"
fi
for p in "$KDIR"/patches/[0-9][0-9][0-9][0-9]-*.patch; do
	echo "${p##*/}"
done >"$KDIR/series"
printf '%s %s\n' "$(series_hash)" "$(git rev-parse HEAD)" >"$KSRC/.git/pspace-applied"
note "exported $(wc -l <"$KDIR/series") patches to ${KDIR#"$TOP"/}/patches/"
