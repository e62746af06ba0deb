#!/usr/bin/env bash
# Print the Debian mirror this machine's apt uses for bookworm, so that no
# host name is ever written into the project.  PSPACE_MIRROR overrides it.
set -eu
if [ -n "${PSPACE_MIRROR:-}" ]; then
	printf '%s\n' "$PSPACE_MIRROR"
	exit 0
fi
suite=${1:-bookworm}
{
	# deb822 sources: a stanza with "Types: deb", the suite, and its URIs.
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v suite="$suite" '
			function flush() {
				if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " suite " ")) print uris
				types = suites = uris = ""
			}
			/^[ \t]*$/ { flush(); next }
			/^Types:/ { sub(/^Types:[ \t]*/, ""); types = $0 }
			/^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites = $0 }
			/^URIs:/ { sub(/^URIs:[ \t]*/, ""); split($0, u, " "); uris = u[1] }
			END { flush() }' "$f"
	done
	# one-line sources: "deb [options] URI SUITE COMPONENT..."
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		sed -e 's/#.*//' -e 's/\[[^]]*\]//' |
		awk -v suite="$suite" '$1 == "deb" && $3 == suite { print $2 }'
} | head -n 1 | grep . || {
	echo "rootfs/mirror.sh: no apt source for '$suite' found; set PSPACE_MIRROR" >&2
	exit 1
}
