#!/usr/bin/env bash
# The Debian bookworm tree that the guest and its containers run: debootstrap
# (minbase plus rootfs/packages), cached under $CACHE_DIR so a rerun takes
# seconds.  The cache key is the suite, the package list and this script.
# Prints the cached tree's path on stdout.
set -eu
. "$(dirname "$0")/../ci/lib.sh"

suite=bookworm
pkgs=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TOP/rootfs/packages" | tr '\n' ',' | sed 's/,$//')
key=$(printf '%s\n' "$suite" "$pkgs" | cat - "$0" | sha256sum | cut -c1-16)
tree=$CACHE_DIR/rootfs-$suite-$key

# One debootstrap at a time per cache (worktrees and CI share it).
mkdir -p "$CACHE_DIR"
exec 9>"$CACHE_DIR/.lock"
flock 9

if [ -f "$tree/.complete" ]; then
	note "debootstrap cache hit: $tree" >&2
	printf '%s\n' "$tree"
	exit 0
fi

mirror=$("$TOP/rootfs/mirror.sh" "$suite")
note "debootstrap $suite (minbase + $pkgs) into $tree" >&2
rm -rf "$tree.tmp"
if ! debootstrap --variant=minbase --include="$pkgs" "$suite" "$tree.tmp" "$mirror" >"$CACHE_DIR/debootstrap.log" 2>&1; then
	tail -n 20 "$CACHE_DIR/debootstrap.log" >&2
	die "debootstrap failed; full log in $CACHE_DIR/debootstrap.log"
fi
# Leave no apt lists or package files behind: they are large and stale.
rm -rf "$tree.tmp"/var/cache/apt/archives/*.deb "$tree.tmp"/var/lib/apt/lists/*
# Containers get a fresh machine id on first boot.
: >"$tree.tmp/etc/machine-id"
touch "$tree.tmp/.complete"
rm -rf "$tree"
mv "$tree.tmp" "$tree"
printf '%s\n' "$tree"
