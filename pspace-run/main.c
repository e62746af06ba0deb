// SPDX-License-Identifier: GPL-2.0
/* pspace-run: check the arguments, start the pspace, watch over it. */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pspace-run.h"

static void check_root(const struct config *cfg)
{
	struct stat st;

	if (stat(cfg->root, &st) < 0)
		die_errno(EXIT_SETUP, "%s", cfg->root);
	if (!S_ISDIR(st.st_mode))
		die(EXIT_SETUP, "%s: Not a directory", cfg->root);
}

int main(int argc, char **argv)
{
	struct config cfg = { 0 };
	int pidfd = -1;
	pid_t leader;
	int console = -1;

	parse_options(&cfg, argc, argv);
	if (cfg.list)
		return list_pspaces(&cfg);
	if (geteuid() != 0)
		die(EXIT_SETUP, "must be run as root (CAP_KILL and CAP_SYS_ADMIN are needed)");
	if (cfg.join)
		return join_container(&cfg);
	check_root(&cfg);
	leader = spawn_pspace(&cfg, &pidfd, &console);
	return supervise(&cfg, leader, pidfd, console);
}
