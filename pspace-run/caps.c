// SPDX-License-Identifier: GPL-2.0
/*
 * The container's capabilities, in all five sets, through libcap.  The
 * default keeps what systemd-nspawn keeps, which includes CAP_KILL,
 * CAP_SYS_ADMIN, CAP_SYS_CHROOT and CAP_SETPCAP so that containers can
 * nest; --cap-add and --cap-drop change it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/capability.h>
#include <sys/prctl.h>

#include "pspace-run.h"

/* What systemd-nspawn keeps by default. */
static const cap_value_t kept[] = {
	CAP_AUDIT_CONTROL, CAP_AUDIT_WRITE, CAP_CHOWN, CAP_DAC_OVERRIDE,
	CAP_DAC_READ_SEARCH, CAP_FOWNER, CAP_FSETID, CAP_IPC_OWNER, CAP_KILL,
	CAP_LEASE, CAP_LINUX_IMMUTABLE, CAP_MKNOD, CAP_NET_BIND_SERVICE,
	CAP_NET_BROADCAST, CAP_NET_RAW, CAP_SETFCAP, CAP_SETGID, CAP_SETPCAP,
	CAP_SETUID, CAP_SYS_ADMIN, CAP_SYS_BOOT, CAP_SYS_CHROOT, CAP_SYS_NICE,
	CAP_SYS_PTRACE, CAP_SYS_RESOURCE, CAP_SYS_TTY_CONFIG,
};

uint64_t default_cap_drop(void)
{
	uint64_t keep = 0;
	size_t i;

	for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		keep |= 1ULL << kept[i];
	return ~keep;
}

/*
 * "sys_admin,CAP_NET_ADMIN", a number, or "all" into a mask; -1 on a name
 * libcap does not know.
 */
int parse_cap_list(const char *list, uint64_t *mask)
{
	char *copy = strdup(list), *name, *save = NULL;
	char full[64];
	int ret = 0;

	*mask = 0;
	for (name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		cap_value_t cap;

		if (!strcasecmp(name, "all")) {
			*mask = ~0ULL;
			continue;
		}
		/* libcap wants "cap_chown"; accept "chown" and "CAP_CHOWN". */
		snprintf(full, sizeof(full), "%s%s",
			 strncasecmp(name, "cap_", 4) ? "cap_" : "", name);
		for (char *c = full; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		if (cap_from_name(full, &cap) || cap < 0 || cap > 63) {
			ret = -1;
			break;
		}
		*mask |= 1ULL << cap;
	}
	free(copy);
	return ret;
}

/*
 * The container's privileges, in the process about to become (or run)
 * COMMAND, in this order: the bounding set (needs CAP_SETPCAP), then
 * no_new_privs, then the seccomp filter (needs CAP_SYS_ADMIN or
 * no_new_privs), then the other four sets: permitted and effective are
 * the kept capabilities (@keep_no_caps: none, for the --as-pid2 init),
 * inheritable and ambient are emptied.  A caller's inheritable set
 * (setpriv --inh-caps) must not come back at exec: a root exec adds the
 * inheritable set to the permitted one, bounding set or not.
 */
void lock_down(const struct config *cfg, bool keep_no_caps)
{
	cap_value_t cap, max = (cap_value_t)cap_max_bits();
	uint64_t cap_drop = cfg->cap_drop;
	cap_t now, want;

	/* Over an initramfs, chroot and setns(mount) lead out (mounts.c). */
	if (root_moved)
		cap_drop |= 1ULL << CAP_SYS_CHROOT;

	/* Capabilities this kernel does not know are not there to drop. */
	for (cap = 0; cap < max && cap <= 63; cap++) {
		if (!(cap_drop & (1ULL << cap)))
			continue;
		if (cap_drop_bound(cap) < 0) {
			char *name = cap_to_name(cap);

			die_errno(EXIT_SETUP, "drop %s from the bounding set", name ? name : "?");
		}
	}
	if (cfg->no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die_errno(EXIT_SETUP, "prctl(PR_SET_NO_NEW_PRIVS)");
	install_seccomp(cfg);
	if (TEST_OFF(cfg, OFF_CAPSETS))
		return;

	now = cap_get_proc();
	want = cap_init();
	if (!now || !want)
		die_errno(EXIT_SETUP, "capabilities");
	for (cap = 0; !keep_no_caps && cap < max && cap <= 63; cap++) {
		cap_flag_value_t have = CAP_CLEAR;

		if (cap_drop & (1ULL << cap))
			continue;
		/* Only what pspace-run itself holds can be kept. */
		if (cap_get_flag(now, cap, CAP_PERMITTED, &have) || have != CAP_SET)
			continue;
		if (cap_set_flag(want, CAP_PERMITTED, 1, &cap, CAP_SET) ||
		    cap_set_flag(want, CAP_EFFECTIVE, 1, &cap, CAP_SET))
			die_errno(EXIT_SETUP, "capabilities");
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		die_errno(EXIT_SETUP, "clear the ambient capabilities");
	if (cap_set_proc(want) < 0)
		die_errno(EXIT_SETUP, "set the capabilities");
	cap_free(want);
	cap_free(now);
}
