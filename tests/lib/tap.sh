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

unlike() {
	if printf '%s\n' "$1" | grep -Eq -- "$2"; then
		fail "$3" "got:      '$1'" "expected not to match: $2"
	else
		pass "$3"
	fi
}

# nested_procs: how many processes live in pspaces below ours (their
# PSpace: path is not "/").  0 once every container is gone.
nested_procs() {
	cat /proc/[0-9]*/status 2>/dev/null | grep -c '^PSpace:.*/[0-9]' || true
}

# nested_list: those processes, one per line, for a diagnostic.
nested_list() {
	local s d
	for s in /proc/[0-9]*/status; do
		grep -qs '^PSpace:.*/[0-9]' "$s" || continue
		d=${s%/status}
		echo "${d#/proc/}: $(tr '\0' ' ' <"$d/cmdline" 2>/dev/null)$(grep -E '^(State|PPid|NSpid|PSpace)' "$s" 2>/dev/null | tr '\t\n' '  ')"
	done
}

# no_nested_procs DESC: a test that no process of a nested pspace is left,
# allowing a second for the last ones to be reaped; lists any that are.
no_nested_procs() {
	local _ n
	for _ in $(seq 10); do
		n=$(nested_procs)
		[ "$n" = 0 ] && break
		sleep 0.1
	done
	is "$n" 0 "$1"
	[ "$n" = 0 ] || tap_diag "$(nested_list)"
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

# mount_table: the mount points and file system types of our mount
# namespace, sorted; mount_changes: how it differs from MOUNTS_BEFORE
# (set MOUNTS_BEFORE=$(mount_table) at the start of a suite).
mount_table() {
	awk '{ for (i = 7; $i != "-"; i++) ; print $5, $(i + 1) }' /proc/self/mountinfo | sort
}

mount_changes() {
	diff <(echo "${MOUNTS_BEFORE:-}") <(mount_table) | sed -n 's/^[<>] //p' | tr '\n' ';'
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

# fold_tap < <(PROGRAM): read the TAP of a sub-program and count its results
# as ours (its plan line is dropped, other lines become diagnostics); not
# in a pipeline, whose subshell would lose the counts.
fold_tap() {
	local line
	while IFS= read -r line; do
		case "$line" in
		"ok "*) pass "${line#ok * - }" ;;
		"not ok "*) fail "${line#not ok * - }" ;;
		"1.."*) ;;
		"# "*) echo "$line" ;;
		*) echo "# $line" ;;
		esac
	done
}

# free_sys_dir: the first directory below /sys that the kernel keeps as a
# mount point (configfs, securityfs, tracefs, debugfs, bpffs, pstore) with
# nothing mounted on it, for a test's own submount of /sys; fails if none.
free_sys_dir() {
	local d
	for d in /sys/kernel/config /sys/kernel/security /sys/kernel/tracing /sys/kernel/debug /sys/fs/bpf /sys/fs/pstore; do
		if [ -d "$d" ] && ! mountpoint -q "$d"; then
			echo "$d"
			return 0
		fi
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
