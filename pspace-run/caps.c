// SPDX-License-Identifier: GPL-2.0
/*
 * The capability bounding set of the container.  The default keeps what
 * systemd-nspawn keeps, which includes CAP_KILL, CAP_SYS_ADMIN,
 * CAP_SYS_CHROOT and CAP_SETPCAP so that containers can nest; --cap-add
 * and --cap-drop change it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>

#include "pspace-run.h"

#define CAP_LAST 40	/* CAP_CHECKPOINT_RESTORE */

static const char *const cap_names[CAP_LAST + 1] = {
	"chown", "dac_override", "dac_read_search", "fowner", "fsetid", "kill",
	"setgid", "setuid", "setpcap", "linux_immutable", "net_bind_service",
	"net_broadcast", "net_admin", "net_raw", "ipc_lock", "ipc_owner",
	"sys_module", "sys_rawio", "sys_chroot", "sys_ptrace", "sys_pacct",
	"sys_admin", "sys_boot", "sys_nice", "sys_resource", "sys_time",
	"sys_tty_config", "mknod", "lease", "audit_write", "audit_control",
	"setfcap", "mac_override", "mac_admin", "syslog", "wake_alarm",
	"block_suspend", "audit_read", "perfmon", "bpf", "checkpoint_restore",
};

/* What systemd-nspawn keeps by default. */
static const char *const kept[] = {
	"audit_control", "audit_write", "chown", "dac_override", "dac_read_search",
	"fowner", "fsetid", "ipc_owner", "kill", "lease", "linux_immutable",
	"mknod", "net_bind_service", "net_broadcast", "net_raw", "setfcap",
	"setgid", "setpcap", "setuid", "sys_admin", "sys_boot", "sys_chroot",
	"sys_nice", "sys_ptrace", "sys_resource", "sys_tty_config",
};

static int cap_by_name(const char *name)
{
	int i;

	if (!strncasecmp(name, "cap_", 4))
		name += 4;
	for (i = 0; i <= CAP_LAST; i++)
		if (!strcasecmp(name, cap_names[i]))
			return i;
	return -1;
}

uint64_t default_cap_drop(void)
{
	uint64_t keep = 0;
	size_t i;

	for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		keep |= 1ULL << cap_by_name(kept[i]);
	return ~keep;
}

/* "sys_admin,CAP_NET_ADMIN" or "all" into a mask; -1 on an unknown name. */
int parse_cap_list(const char *list, uint64_t *mask)
{
	char *copy = strdup(list), *name, *save = NULL;
	int ret = 0;

	*mask = 0;
	for (name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		int cap = cap_by_name(name);

		if (!strcasecmp(name, "all")) {
			*mask = ~0ULL;
		} else if (cap < 0) {
			ret = -1;
			break;
		} else {
			*mask |= 1ULL << cap;
		}
	}
	free(copy);
	return ret;
}

void drop_capabilities(const struct config *cfg)
{
	int cap;

	for (cap = 0; cap <= 63; cap++) {
		if (!(cfg->cap_drop & (1ULL << cap)))
			continue;
		/* Capabilities this kernel does not know are not there. */
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL)
			die_errno(EXIT_SETUP, "drop capability %d from the bounding set", cap);
	}
	if (cfg->no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die_errno(EXIT_SETUP, "prctl(PR_SET_NO_NEW_PRIVS)");
}
