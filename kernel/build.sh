#!/usr/bin/env bash
# make kernel / make kernel-debug: configure $KSRC (tinyconfig plus the
# fragments in kernel/config/) and build bzImage with ccache, out of tree.
#
#   kernel/build.sh [guest|debug|pristine]
#
# guest    -> $BUILD/bzImage        (the series applied; the default)
# debug    -> $BUILD/bzImage-debug  (the series plus debug.config)
# pristine -> $BUILD/bzImage-pristine (no patches: the baseline kernel)
# ($BUILD: build/, or build/6.12/ for KERNEL=6.12.)
set -eu
. "$(dirname "$0")/../ci/lib.sh"

# guest-$PSPACE_KERNEL.config: what differs between the two kernels
# (options renamed or gone), merged right after guest.config.
guest="guest.config guest-$PSPACE_KERNEL.config"
variant=${1:-guest}
case "$variant" in
guest) frags=$guest obj=$KOBJ out=$BUILD/bzImage src=$KSRC ;;
debug) frags="$guest debug.config" obj=$KOBJ-debug out=$BUILD/bzImage-debug src=$KSRC ;;
pristine) frags=$guest obj=$BUILD/linux-pristine-obj out=$BUILD/bzImage-pristine src=$BUILD/linux-pristine ;;
*) die "unknown variant '$variant' (guest, debug or pristine)" ;;
esac

if [ "$variant" = pristine ]; then
	[ -d "$KSRC/.git" ] || "$TOP/kernel/tree.sh"
	if [ ! -d "$src" ]; then
		note "checking out the pristine tree in $src"
		git -C "$KSRC" worktree add -q --detach "$src" pristine
	fi
fi

export CCACHE_BASEDIR=$BUILD CCACHE_NOHASHDIR=1 CCACHE_COMPRESS=1
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-10G}
export KBUILD_BUILD_TIMESTAMP="2026-01-01" KBUILD_BUILD_USER=pspace KBUILD_BUILD_HOST=pspace
kmake() {
	make -C "$src" O="$1" CC="ccache gcc" HOSTCC="ccache gcc" LOCALVERSION= -j"$(nproc)" -s "${@:2}"
}

# Generate the configuration in a scratch directory and only replace the
# build's .config when it changed, so an unchanged configuration never
# costs a rebuild.
configure() {
	local tmp=$BUILD/kconfig-scratch f args=()
	rm -rf "$tmp"
	mkdir -p "$tmp" "$obj"
	kmake "$tmp" tinyconfig >/dev/null
	for f in $frags; do args+=("$TOP/kernel/config/$f"); done
	(cd "$tmp" && "$src/scripts/kconfig/merge_config.sh" -m -O "$tmp" "$tmp/.config" "${args[@]}" >/dev/null)
	kmake "$tmp" olddefconfig >/dev/null
	# Every option a fragment asks for must survive olddefconfig.
	local missing
	# (A later fragment overrides an earlier one: check the last value.)
	missing=$(cat "${args[@]}" | sed -n 's/^\(CONFIG_[A-Z0-9_]*\)=\(.*\)$/\1=\2/p' | tac | awk -F= '!seen[$1]++' |
		while IFS= read -r line; do
			case "$line" in *=n) grep -qx "# ${line%=n} is not set" "$tmp/.config" || grep -qx "$line" "$tmp/.config" ||
				! grep -q "^${line%=n}=" "$tmp/.config" || echo "$line" ;;
			*) grep -qxF "$line" "$tmp/.config" || echo "$line" ;;
			esac
		done)
	[ -z "$missing" ] || note "warning: not set after olddefconfig: $(echo "$missing" | tr '\n' ' ')"
	if ! cmp -s "$tmp/.config" "$obj/.config"; then
		cp "$tmp/.config" "$obj/.config"
		note "configuration updated"
	fi
	rm -rf "$tmp"
}

configure
note "building bzImage ($variant) in $obj"
kmake "$obj" bzImage
cp "$obj/arch/x86/boot/bzImage" "$out"
note "$out: $(make -s -C "$src" O="$obj" kernelrelease 2>/dev/null)"
