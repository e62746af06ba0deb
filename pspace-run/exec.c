// SPDX-License-Identifier: GPL-2.0
/* The last step in the leader: a clean environment, then COMMAND. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pspace-run.h"
#include "sys.h"

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

/*
 * The container's environment.  The caller's strings are also zeroed:
 * /proc/PID/environ shows them until the next exec, and a --join child
 * or the --as-pid2 init is visible inside before (or without) one.
 */
void set_environment(const struct config *cfg)
{
	extern char **environ;
	char **caller = environ, **e;
	char uuid[37];
	int i;

	const char *term = getenv("TERM");
	char *saved_term = term ? strdup(term) : NULL;

	if (clearenv() != 0)
		die(EXIT_SETUP, "cannot clear the environment");
	for (e = caller; e && *e; e++)
		memset(*e, 0, strlen(*e));
	if (setenv("PATH", DEFAULT_PATH, 1) || setenv("HOME", "/", 1) ||
	    setenv("container", "pspace", 1) ||
	    (saved_term && setenv("TERM", saved_term, 1)))
		die_errno(EXIT_SETUP, "setenv");
	free(saved_term);
	make_uuid(uuid);
	if (setenv("container_uuid", uuid, 1))
		die_errno(EXIT_SETUP, "setenv");
	/* --user's, then --env-file's, then --setenv's: the last one wins. */
	if (cfg->user && (setenv("HOME", cfg->user_home ? cfg->user_home : "/", 1) ||
			  (cfg->user_name && (setenv("USER", cfg->user_name, 1) ||
					      setenv("LOGNAME", cfg->user_name, 1)))))
		die_errno(EXIT_SETUP, "setenv");
	for (i = 0; i < cfg->nfile_env; i++)
		if (putenv(cfg->file_env[i]))
			die_errno(EXIT_SETUP, "--env-file %s", cfg->file_env[i]);
	for (i = 0; i < cfg->nsetenv; i++)
		if (putenv((char *)cfg->setenv[i]))
			die_errno(EXIT_SETUP, "--setenv %s", cfg->setenv[i]);
}

static int compare_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/*
 * Nothing of the caller's above 0, 1 and 2 goes into the container (an
 * fd of the host's "/" is a way out: fchdir, openat), but what
 * --keep-fd names; those lose close-on-exec.
 */
void close_caller_fds(const struct config *cfg)
{
	int keep[MAX_KEEP_FD + 1], i, n = cfg->nkeep_fd;
	unsigned int from = 3;

	if (TEST_OFF(cfg, OFF_FDS))
		return;
	memcpy(keep, cfg->keep_fd, n * sizeof(int));
	qsort(keep, n, sizeof(int), compare_int);
	keep[n] = -1;
	for (i = 0; i <= n; i++) {
		unsigned int to = keep[i] < 0 ? ~0U : (unsigned int)keep[i] - 1;

		if (to >= from && sys_close_range(from, to, 0) < 0)
			die_errno(EXIT_SETUP, "close_range");
		if (keep[i] >= 0) {
			if (fcntl(keep[i], F_SETFD, 0) < 0)
				die_errno(EXIT_SETUP, "--keep-fd %d", keep[i]);
			from = keep[i] + 1;
		}
	}
}

void exec_command(const struct config *cfg)
{
	set_environment(cfg);
	close_caller_fds(cfg);
	become_user(cfg);
	lock_down(cfg, false);
	exec_locked(cfg);
}

/* COMMAND, in a process whose environment, fds and privileges are set. */
void exec_locked(const struct config *cfg)
{
	execvp(cfg->argv[0], cfg->argv);
	/* As chroot(1) and env(1): 127 when not found, 126 otherwise. */
	die_errno(errno == ENOENT || errno == ENOTDIR ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN,
		  "%s", cfg->argv[0]);
}
