// SPDX-License-Identifier: GPL-2.0
/* pspace-run: check the arguments, start the pspace, watch over it. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
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

int main(int argc, char **argv)
{
	struct config cfg = { 0 };
	int pidfd = -1;
	pid_t leader;
	int console = -1;
	int status;

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
	if (cfg.machine_given && !cfg.hostname)
		cfg.hostname = cfg.machine;
	pick_hostname(&cfg);
	machine_claim(&cfg);
	console_prepare(&cfg);
	leader = spawn_pspace(&cfg, &pidfd, &console);
	machine_set_wid(leader);
	status = supervise(&cfg, leader, pidfd, console);
	machine_release();
	return status;
}
