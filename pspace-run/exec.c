// SPDX-License-Identifier: GPL-2.0
/* The last step in the leader: a clean environment, then COMMAND. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pspace-run.h"

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

static void set_environment(void)
{
	const char *term = getenv("TERM");
	char *saved_term = term ? strdup(term) : NULL;

	if (clearenv() != 0)
		die(EXIT_SETUP, "cannot clear the environment");
	if (setenv("PATH", DEFAULT_PATH, 1) || setenv("HOME", "/", 1) ||
	    setenv("container", "pspace", 1) ||
	    (saved_term && setenv("TERM", saved_term, 1)))
		die_errno(EXIT_SETUP, "setenv");
	free(saved_term);
}

void exec_command(const struct config *cfg)
{
	set_environment();
	execvp(cfg->argv[0], cfg->argv);
	/* As chroot(1) and env(1): 127 when not found, 126 otherwise. */
	die_errno(errno == ENOENT || errno == ENOTDIR ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN,
		  "%s", cfg->argv[0]);
}
