// SPDX-License-Identifier: GPL-2.0
/*
 * The capability bounding set of the container, through libcap.  The
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

void drop_capabilities(const struct config *cfg)
{
	cap_value_t cap, max = (cap_value_t)cap_max_bits();

	/* Capabilities this kernel does not know are not there to drop. */
	for (cap = 0; cap < max && cap <= 63; cap++) {
		if (!(cfg->cap_drop & (1ULL << cap)))
			continue;
		if (cap_drop_bound(cap) < 0) {
			char *name = cap_to_name(cap);

			die_errno(EXIT_SETUP, "drop %s from the bounding set", name ? name : "?");
		}
	}
	if (cfg->no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die_errno(EXIT_SETUP, "prctl(PR_SET_NO_NEW_PRIVS)");
}
