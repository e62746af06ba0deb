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

/*
 * What systemd-nspawn keeps by default, less CAP_SYS_PTRACE: a container
 * root with it reaches a host process whose pidfd it gets from any host
 * socket it can connect to (SO_PEERPIDFD, SCM_PIDFD), and through that
 * pidfd its fds and namespaces, the host's mount namespace among them
 * (an outside attack, issue 32).  Docker and podman drop it too.
 */
static const cap_value_t kept[] = {
	CAP_AUDIT_CONTROL, CAP_AUDIT_WRITE, CAP_CHOWN, CAP_DAC_OVERRIDE,
	CAP_DAC_READ_SEARCH, CAP_FOWNER, CAP_FSETID, CAP_IPC_OWNER, CAP_KILL,
	CAP_LEASE, CAP_LINUX_IMMUTABLE, CAP_MKNOD, CAP_NET_BIND_SERVICE,
	CAP_NET_BROADCAST, CAP_NET_RAW, CAP_SETFCAP, CAP_SETGID, CAP_SETPCAP,
	CAP_SETUID, CAP_SYS_ADMIN, CAP_SYS_BOOT, CAP_SYS_CHROOT, CAP_SYS_NICE,
	CAP_SYS_RESOURCE, CAP_SYS_TTY_CONFIG,
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

/*
 * A place the container writes that another user of the host can reach:
 * ROOT (resolved already), or a --bind source, resolved here (a path
 * through a 0700 directory may be a link to a place anyone reaches).
 */
static const char *reachable_place(const struct config *cfg)
{
	int i;

	if (!cfg->ephemeral && root_reachable(cfg->root))
		return cfg->root;
	for (i = 0; i < cfg->nmounts; i++) {
		char *real;
		bool reachable;

		if (cfg->mounts[i].type != MNT_BIND)
			continue;
		real = realpath(cfg->mounts[i].src, NULL);
		reachable = !real || root_reachable(real);
		free(real);
		if (reachable)
			return cfg->mounts[i].src;
	}
	return NULL;
}

/*
 * Setuid, setgid and file-capability files (--suid, issue 32).  Root in
 * the container owns ROOT's files, and what it makes setuid there (or
 * gives a file capability) runs with that privilege for every user of
 * the host who can reach ROOT's path: the host's root's, without a user
 * namespace or with --private-users (its idmap writes uid 0), the
 * caller's, unprivileged.  So where ROOT or a --bind source is within
 * other users' reach (auto), or always (deny), no such file can be made:
 * CAP_FSETID goes (a write to a setuid file, a truncate or a chown
 * clears its bits; a new setgid file is only of the creator's groups),
 * CAP_SETFCAP goes (no security.capability), and the seccomp filter
 * refuses a mode with S_ISUID or S_ISGID to chmod, open, creat and mknod
 * and their relatives, as systemd's RestrictSUIDSGID= does.  openat2()
 * keeps its mode where no filter reads it, but a file it makes setuid
 * is empty, and the first write clears the bit.
 */
void suid_policy(struct config *cfg)
{
	const char *place;

	if (TEST_OFF(cfg, OFF_SUID))
		return;
	place = reachable_place(cfg);
	if (cfg->suid == SUID_ALLOW) {
		if (place && !cfg->quiet)
			warn("--suid=allow: %s is reachable by other users of the host: a setuid, setgid "
			     "or file-capability file the container makes in it works for them too",
			     place);
		return;
	}
	if (cfg->suid == SUID_AUTO && !place) {
		verbose(cfg, "--suid=auto: ROOT is below a directory only its owner can search: "
			"setuid files may be made in it");
		return;
	}
	cfg->no_suid = true;
	cfg->cap_drop |= 1ULL << CAP_FSETID | 1ULL << CAP_SETFCAP;
	verbose(cfg, "--suid=%s: %s%s: no setuid, setgid or file-capability files "
		"(CAP_FSETID and CAP_SETFCAP dropped, S_ISUID and S_ISGID refused)",
		cfg->suid == SUID_DENY ? "deny" : "auto", place ? place : "ROOT",
		place ? " is reachable by other users of the host" : "");
	if (!cfg->seccomp && !cfg->quiet)
		warn("--seccomp=off: the container may set S_ISUID on its own files in %s, which "
		     "other users of the host reach (--suid: only CAP_FSETID and CAP_SETFCAP dropped)",
		     place ? place : cfg->root);
}
