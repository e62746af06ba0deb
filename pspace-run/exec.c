// SPDX-License-Identifier: GPL-2.0
/* The last step in the leader: a clean environment, then COMMAND. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pspace-run.h"

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* A random RFC 4122 version 4 UUID, as systemd expects container_uuid. */
static void make_uuid(char out[37])
{
	unsigned char b[16];
	int i, n = 0;

	if (getentropy(b, sizeof(b)) < 0)
		die_errno(EXIT_SETUP, "getentropy");
	b[6] = (b[6] & 0x0f) | 0x40;
	b[8] = (b[8] & 0x3f) | 0x80;
	for (i = 0; i < 16; i++) {
		n += sprintf(out + n, "%02x", b[i]);
		if (i == 3 || i == 5 || i == 7 || i == 9)
			out[n++] = '-';
	}
	out[n] = '\0';
}

static void set_environment(const struct config *cfg)
{
	char uuid[37];
	int i;

	const char *term = getenv("TERM");
	char *saved_term = term ? strdup(term) : NULL;

	if (clearenv() != 0)
		die(EXIT_SETUP, "cannot clear the environment");
	if (setenv("PATH", DEFAULT_PATH, 1) || setenv("HOME", "/", 1) ||
	    setenv("container", "pspace", 1) ||
	    (saved_term && setenv("TERM", saved_term, 1)))
		die_errno(EXIT_SETUP, "setenv");
	free(saved_term);
	make_uuid(uuid);
	if (setenv("container_uuid", uuid, 1))
		die_errno(EXIT_SETUP, "setenv");
	for (i = 0; i < cfg->nsetenv; i++)
		if (putenv((char *)cfg->setenv[i]))
			die_errno(EXIT_SETUP, "--setenv %s", cfg->setenv[i]);
}

void exec_command(const struct config *cfg)
{
	set_environment(cfg);
	drop_capabilities(cfg);
	execvp(cfg->argv[0], cfg->argv);
	/* As chroot(1) and env(1): 127 when not found, 126 otherwise. */
	die_errno(errno == ENOENT || errno == ENOTDIR ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN,
		  "%s", cfg->argv[0]);
}
