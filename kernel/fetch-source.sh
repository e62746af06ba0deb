#!/usr/bin/env bash
# The pristine kernel tarball of $PSPACE_KERNEL ($KTARBALL), fetched when it
# is missing; prints its path.
#
# 6.12: bookworm's linux-source-6.12, installed by "make deps" (apt-get).
# 7.3:  Debian's linux-source-7.3 from trixie-backports, a suite this
#       machine's apt does not list.  The package is fetched through an apt
#       configuration of the project's own under $CACHE_DIR/apt-KSUITE/: a
#       source list for "KSUITE main" on the mirror rootfs/mirror.sh reads
#       from this machine's apt sources (so no host name is written into the
#       project), checked with Debian's archive keyring, with its own lists
#       and cache.  The machine's apt configuration and state are never
#       changed.  The tarball is taken out of the .deb (dpkg-deb -x) into
#       $CACHE_DIR/linux-source-VERSION/ and reused from there.
set -eu
. "$(dirname "$0")/../ci/lib.sh"

pkg=linux-source-$PSPACE_KERNEL
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

if [ -f "$KTARBALL" ]; then
	printf '%s\n' "$KTARBALL"
	exit 0
fi
[ "$PSPACE_KERNEL" != 6.12 ] || die "$KTARBALL: not found (run 'make deps', or apt-get install $pkg)"
[ "$(id -u)" = 0 ] || die "$KTARBALL: not found; run 'make deps' as root to fetch $pkg"
[ -f "$keyring" ] || die "$keyring: missing (apt-get install debian-archive-keyring)"
command -v dpkg-deb >/dev/null || die "dpkg-deb not found"

mirror=$("$TOP/rootfs/mirror.sh") || die "no Debian mirror found in this machine's apt sources; set PSPACE_MIRROR"
apt=$CACHE_DIR/apt-$KSUITE
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/download"
printf 'deb [signed-by=%s] %s %s main\n' "$keyring" "$mirror" "$KSUITE" >"$apt/sources.list"
opts=(-q -o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache")
note "fetching $pkg from $KSUITE (apt source list: $apt/sources.list)" >&2
apt-get "${opts[@]}" update >"$apt/update.log" 2>&1 ||
	{ cat "$apt/update.log" >&2; die "apt-get update for $KSUITE failed"; }
# apt downloads as its sandbox user: give it a directory it may write.
dl=$apt/download
rm -f "$dl"/*.deb
if id _apt >/dev/null 2>&1; then
	chown _apt "$dl"
fi
(cd "$dl" && apt-get "${opts[@]}" download "$pkg") >"$apt/download.log" 2>&1 ||
	{ cat "$apt/download.log" >&2; die "apt-get download $pkg failed"; }
deb=$(ls "$dl"/"${pkg}"_*.deb)
note "unpacking ${deb##*/}" >&2
dest=${KTARBALL%/*}
rm -rf "$dest.tmp"
mkdir -p "$dest.tmp"
dpkg-deb -x "$deb" "$dest.tmp/deb"
[ -f "$dest.tmp/deb/usr/src/${KTARBALL##*/}" ] || die "${deb##*/} holds no usr/src/${KTARBALL##*/}"
mv "$dest.tmp/deb/usr/src/${KTARBALL##*/}" "$dest.tmp/"
dpkg-deb -f "$deb" Version >"$dest.tmp/version"
rm -rf "$dest.tmp/deb" "$dest"
mv "$dest.tmp" "$dest"
rm -f "$deb"
note "$KTARBALL: $pkg $(cat "$dest/version")" >&2
printf '%s\n' "$KTARBALL"
