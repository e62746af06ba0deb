// SPDX-License-Identifier: GPL-2.0
/* pspace-run: check the arguments, start the pspace, watch over it. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <grp.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pspace-run.h"
#include "oci.h"

/*
 * ROOT must be a directory.  It is resolved here, once, as chroot(1)
 * would resolve it (symbolic links followed): the mount calls that make
 * it the container's root do not follow a final symlink themselves.
 */
static void check_root(struct config *cfg)
{
	struct stat st;
	char *real;

	if (!*cfg->root)
		die(EXIT_SETUP, "ROOT is an empty string");
	if (stat(cfg->root, &st) < 0)
		die_errno(EXIT_SETUP, "%s", cfg->root);
	if (!S_ISDIR(st.st_mode))
		die(EXIT_SETUP, "%s: Not a directory", cfg->root);
	real = realpath(cfg->root, NULL);
	if (!real)
		die_errno(EXIT_SETUP, "%s", cfg->root);
	if (strcmp(real, cfg->root))
		verbose(cfg, "ROOT %s is %s", cfg->root, real);
	cfg->root = real;
}

/* --keep-fd: each must be open now, or the mistake shows up inside. */
static void check_keep_fds(const struct config *cfg)
{
	int i;

	for (i = 0; i < cfg->nkeep_fd; i++)
		if (fcntl(cfg->keep_fd[i], F_GETFD) < 0)
			die_errno(EXIT_SETUP, "--keep-fd %d", cfg->keep_fd[i]);
}

/*
 * Before anything else: pspace-run is not a setuid or file-capability
 * program (it trusts its environment, its arguments and the caller's
 * files as the caller's own), and the caller's supplementary groups
 * never reach a container, whose root would hold them with the host's
 * meaning on whatever is bound in (--user sets the user's own).  A
 * caller without privilege cannot drop them: setgroups() is refused
 * (EPERM), and in its user namespace they show as the overflow group.
 */
static void check_caller(void)
{
	if (getauxval(AT_SECURE))
		die(EXIT_SETUP, "refusing to run setuid, setgid or with file capabilities (AT_SECURE): run it as root, or as a user without privilege");
	if (setgroups(0, NULL) < 0 && errno != EPERM)
		die_errno(EXIT_SETUP, "setgroups");
	/* Nor root's gid when it is another (sudo -g disk): the container's is 0. */
	if (geteuid() == 0 && getegid() != 0 && setresgid(0, 0, 0) < 0 && errno != EINVAL &&
	    errno != EPERM)
		die_errno(EXIT_SETUP, "setresgid 0");
}

int main(int argc, char **argv)
{
	struct config cfg = { 0 };
	int pidfd = -1;
	bool autoreap = false;
	pid_t leader;
	int console = -1;
	int status;

	check_caller();
	/* Before anything enters a container: the binary out of its reach. */
	reexec_sealed(argv);
	/* The OCI runtime's command line (oci-main.c): VERB ID, as runc's. */
	if (oci_is_command(argc, argv))
		return oci_main(argc, argv);
	parse_options(&cfg, argc, argv);
	if (cfg.list)
		return list_pspaces(&cfg);
	check_keep_fds(&cfg);
	read_env_file(&cfg);
	if (cfg.join_name)
		cfg.join = machine_lookup(cfg.join_name);
	if (cfg.join)
		return join_container(&cfg);
	check_root(&cfg);
	/* Unprivileged or --private-users: the mapping, ROOT's owner, the idmap. */
	userns_prepare(&cfg);
	/* Every option checked against ROOT before anything is created. */
	find_init(&cfg);
	resolve_user(&cfg);
	check_mount_sources(&cfg);
	suid_policy(&cfg);
	userns_read_only(&cfg);
	if (cfg.machine_given && !cfg.hostname)
		cfg.hostname = cfg.machine;
	pick_hostname(&cfg);
	machine_claim(&cfg);
	console_prepare(&cfg);
	leader = spawn_pspace(&cfg, &pidfd, &console, &autoreap);
	machine_set_wid(leader);
	status = supervise(&cfg, leader, pidfd, console, autoreap);
	machine_release();
	return status;
}
