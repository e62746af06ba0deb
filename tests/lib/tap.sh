# shellcheck shell=bash
# A small TAP producer for the guest's shell suites.
#
#   . "$PSPACE_LIB/tap.sh"
#   is "$(cmd)" "expected" "SPEC 1.2: description"
#   ok "description" command args...
#   skip "description" "why"
#   done_testing
#
# A test name should start with the contract item it proves ("SPEC 1.2:",
# "RUN exit:"), so that a failure points at a promise.

TAP_N=0
TAP_FAILED=0

tap_diag() {
	printf '%s\n' "$@" | sed 's/^/# /'
}

pass() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $1"
}

fail() {
	TAP_N=$((TAP_N + 1))
	TAP_FAILED=$((TAP_FAILED + 1))
	echo "not ok $TAP_N - $1"
	shift
	[ $# = 0 ] || tap_diag "$@"
}

# ok DESCRIPTION COMMAND...: passes when COMMAND exits 0.
ok() {
	local desc=$1 out rc=0
	shift
	out=$("$@" 2>&1) || rc=$?
	if [ $rc = 0 ]; then
		pass "$desc"
	else
		fail "$desc" "command: $*" "status: $rc" "$out"
	fi
}

# is GOT EXPECTED DESCRIPTION
is() {
	if [ "$1" = "$2" ]; then
		pass "$3"
	else
		fail "$3" "got:      '$1'" "expected: '$2'"
	fi
}

# like GOT REGEX DESCRIPTION (extended regular expression)
like() {
	if printf '%s\n' "$1" | grep -Eq -- "$2"; then
		pass "$3"
	else
		fail "$3" "got:      '$1'" "expected to match: $2"
	fi
}

# nested_procs: how many processes live in pspaces below ours (their
# PSpace: path is not "/").  0 once every container is gone.
nested_procs() {
	cat /proc/[0-9]*/status 2>/dev/null | grep -c '^PSpace:.*/[0-9]' || true
}

# leftover_cgroups: cgroups pspace-run made that still exist, after giving
# a janitor up to 5 s to remove them.
leftover_cgroups() {
	local _
	for _ in $(seq 50); do
		ls -d /sys/fs/cgroup/pspace-* >/dev/null 2>&1 || break
		sleep 0.1
	done
	find /sys/fs/cgroup -maxdepth 1 -name 'pspace-*' | wc -l
}

# leader_of PID: the pspace leader among PID's children (pspace-run also
# has a cgroup janitor as a child), waiting up to 10 s for it.
leader_of() {
	local _ c
	for _ in $(seq 100); do
		for c in $(pgrep -P "$1"); do
			if grep -qs $'^NSpid:.*\t1$' "/proc/$c/status"; then
				echo "$c"
				return 0
			fi
		done
		sleep 0.1
	done
	return 1
}

skip() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $1 # SKIP $2"
}

done_testing() {
	echo "1..$TAP_N"
	[ "$TAP_FAILED" = 0 ]
}
