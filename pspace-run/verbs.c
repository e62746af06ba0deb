// SPDX-License-Identifier: GPL-2.0
/*
 * The other verbs: --join runs a command inside a running container,
 * --list shows the pspaces the caller can see.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pspace-run.h"

struct proc_info {
	pid_t pid;
	int levels;		/* entries on the NSpid line */
	pid_t innermost;	/* the last of them */
	char path[256];		/* the PSpace: line */
};

static bool read_proc_info(pid_t pid, struct proc_info *pi)
{
	char name[64], line[512];
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/status", pid);
	f = fopen(name, "re");
	if (!f)
		return false;
	memset(pi, 0, sizeof(*pi));
	pi->pid = pid;
	while (fgets(line, sizeof(line), f)) {
		char *p, *end;

		if (!strncmp(line, "NSpid:", 6)) {
			for (p = line + 6;; p = end) {
				long v = strtol(p, &end, 10);

				if (end == p)
					break;
				pi->levels++;
				pi->innermost = v;
			}
		} else if (!strncmp(line, "PSpace:\t", 8)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(pi->path, sizeof(pi->path), "%.255s", line + 8);
		}
	}
	fclose(f);
	return pi->levels > 0;
}

static bool is_leader(const struct proc_info *pi)
{
	return pi->levels > 1 && pi->innermost == 1;
}

static int watch_joined(const struct config *cfg, pid_t child);

int join_container(const struct config *cfg)
{
	struct proc_info pi;
	int pidfd;
	pid_t child;

	if (!read_proc_info(cfg->join, &pi))
		die(EXIT_SETUP, "--join %d: no such process", (int)cfg->join);
	if (!is_leader(&pi))
		die(EXIT_SETUP, "--join %d: not the leader of a pspace", (int)cfg->join);
	/* The caller's terminal, reopened while our /proc still shows us. */
	console_prepare(cfg);
	pidfd = syscall(SYS_pidfd_open, cfg->join, 0);
	if (pidfd < 0)
		die_errno(EXIT_SETUP, "--join %d", (int)cfg->join);
	/* All at once; the mount namespace brings the container's root. */
	if (setns(pidfd, CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC |
		  CLONE_NEWCGROUP) < 0)
		die_errno(EXIT_SETUP, "--join %d: setns", (int)cfg->join);
	close(pidfd);

	child = fork();
	if (child < 0)
		die_errno(EXIT_SETUP, "fork");
	if (child == 0) {
		if (chdir("/") < 0)
			die_errno(EXIT_SETUP, "chdir /");
		console_setup_child(cfg, -1);
		exec_command(cfg);
	}
	return watch_joined(cfg, child);
}

/*
 * The joined process has a session of its own and, when stdin is a
 * terminal, a pty of the container's devpts (console_setup_child); here
 * that pty is relayed and every signal passed on, in supervise()'s loop.
 */
static int watch_joined(const struct config *cfg, pid_t child)
{
	int pidfd = syscall(SYS_pidfd_open, child, 0);

	if (pidfd < 0)
		die_errno(EXIT_SETUP, "pidfd_open");
	return supervise(cfg, child, pidfd, console_setup_parent(cfg, -1));
}

static int compare_path(const void *a, const void *b)
{
	const struct proc_info *x = a, *y = b;

	return strcmp(x->path, y->path);
}

static int depth_of(const char *path)
{
	int n = 0;

	for (; *path; path++)
		n += *path == '/';
	return n;
}

static void leader_command(pid_t pid, char *out, size_t size)
{
	char name[64];
	size_t n, i;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/cmdline", pid);
	out[0] = '\0';
	f = fopen(name, "re");
	if (!f)
		return;
	n = fread(out, 1, size - 1, f);
	fclose(f);
	for (i = 0; i + 1 < n; i++)
		if (!out[i])
			out[i] = ' ';
	out[n] = '\0';
}

int list_pspaces(const struct config *cfg)
{
	struct proc_info *all = NULL, *leaders;
	size_t nall = 0, cap = 0, nleaders = 0, i, j;
	struct dirent *d;
	DIR *proc = opendir("/proc");

	(void)cfg;
	if (!proc)
		die_errno(EXIT_SETUP, "/proc");
	while ((d = readdir(proc))) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		if (nall == cap) {
			cap = cap ? 2 * cap : 256;
			all = realloc(all, cap * sizeof(*all));
			if (!all)
				die_errno(EXIT_SETUP, "realloc");
		}
		if (read_proc_info(atoi(d->d_name), &all[nall]))
			nall++;
	}
	closedir(proc);
	if (nall && !all[0].path[0])
		die(EXIT_SETUP, "this kernel shows no PSpace: line in /proc/<pid>/status");

	leaders = calloc(nall ? nall : 1, sizeof(*leaders));
	if (!leaders)
		die_errno(EXIT_SETUP, "calloc");
	for (i = 0; i < nall; i++)
		if (is_leader(&all[i]))
			leaders[nleaders++] = all[i];
	qsort(leaders, nleaders, sizeof(*leaders), compare_path);

	printf("%-24s %7s %6s  %s\n", "PSPACE", "WID", "PROCS", "COMMAND");
	for (i = 0; i < nleaders; i++) {
		size_t len = strlen(leaders[i].path);
		int count = 0, indent = 2 * (depth_of(leaders[i].path) - 1);
		char cmd[128];

		/* Its own processes and those of pspaces nested in it. */
		for (j = 0; j < nall; j++)
			if (!strncmp(all[j].path, leaders[i].path, len) &&
			    (all[j].path[len] == '\0' || all[j].path[len] == '/'))
				count++;
		leader_command(leaders[i].pid, cmd, sizeof(cmd));
		printf("%*s%-*s %7d %6d  %s\n", indent, "", 24 - indent, leaders[i].path,
		       (int)leaders[i].pid, count, cmd);
	}
	free(leaders);
	free(all);
	return 0;
}
