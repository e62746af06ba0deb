#!/usr/bin/env bash
# The guest's own root: the Debian tree of base.sh plus the container
# engines of rootfs/engines (podman, conmon, crun, containerd).  A second
# debootstrap (minbase, rootfs/packages and rootfs/engines), cached under
# $CACHE_DIR like base.sh's, so that the container root /srv/root, which
# image.sh copies from base.sh's tree, stays without them.  Prints the
# cached tree's path on stdout.
set -eu
. "$(dirname "$0")/../ci/lib.sh"

suite=bookworm
list() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$@" | tr '\n' ',' | sed 's/,$//'; }
pkgs=$(list "$TOP/rootfs/packages" "$TOP/rootfs/engines")
key=$(printf '%s\n' "$suite" "$pkgs" | cat - "$0" | sha256sum | cut -c1-16)
tree=$CACHE_DIR/rootfs-engines-$suite-$key

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
start=$(date +%s)
if ! debootstrap --variant=minbase --include="$pkgs" "$suite" "$tree.tmp" "$mirror" \
	>"$CACHE_DIR/debootstrap-engines.log" 2>&1; then
	tail -n 20 "$CACHE_DIR/debootstrap-engines.log" >&2
	die "debootstrap failed; full log in $CACHE_DIR/debootstrap-engines.log"
fi
rm -rf "$tree.tmp"/var/cache/apt/archives/*.deb "$tree.tmp"/var/lib/apt/lists/*
: >"$tree.tmp/etc/machine-id"
touch "$tree.tmp/.complete"
rm -rf "$tree"
mv "$tree.tmp" "$tree"
note "debootstrap with the engines: $(($(date +%s) - start)) s" >&2
printf '%s\n' "$tree"
