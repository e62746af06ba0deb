/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the guest test programs in tests/c: clone3(), TAP
 * output, waiting with a deadline, counting processes in pspaces.
 */
#ifndef PSPACE_TESTS_COMMON_H
#define PSPACE_TESTS_COMMON_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef CLONE_NPSPACE
#define CLONE_NPSPACE (1ULL << 56)
#endif

static int tap_n, tap_failed;

static inline void tap(int ok, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	if (!ok)
		tap_failed++;
	printf("%s %d - ", ok ? "ok" : "not ok", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static inline void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

static inline pid_t clone3_flags(uint64_t flags, int *pidfd)
{
	struct clone_args args = {
		.flags = flags,
		.pidfd = (uintptr_t)pidfd,
		.exit_signal = SIGCHLD,
	};

	return syscall(__NR_clone3, &args, sizeof(args));
}

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* waitpid() for at most @secs seconds; -2 on timeout, else the status. */
static inline int wait_deadline(pid_t pid, double secs)
{
	double end = now() + secs;
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG | __WALL);

		if (r == pid)
			return status;
		if (r < 0)
			return -1;
		if (now() > end)
			return -2;
		usleep(2000);
	}
}

/*
 * Processes of pspaces below ours that an earlier suite left (slow to
 * die on a debug kernel, say): named once by nested_baseline(), then not
 * counted, so that a count is this program's own.
 */
static pid_t nested_ignored[256];
static int nested_nignored;

/* The PSpace: path of /proc/@pid if it has a component below ours, else NULL. */
static inline const char *nested_pspace(const char *pid, char *line, size_t size, char *comm,
					size_t csize, char *state, size_t ssize)
{
	char path[300];
	const char *ret = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	comm[0] = state[0] = '\0';
	while (fgets(line, size, f)) {
		if (!strncmp(line, "Name:", 5))
			snprintf(comm, csize, "%.63s", line + 6);
		if (!strncmp(line, "State:", 6))
			snprintf(state, ssize, "%.63s", line + 7);
		if (!strncmp(line, "PSpace:", 7)) {
			if (strchr(line, '/') && strpbrk(strchr(line, '/'), "0123456789"))
				ret = line;
			break;
		}
	}
	fclose(f);
	return ret;
}

/* Processes in pspaces below ours: their PSpace: path has a component. */
static inline int nested_scan(int record)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	char line[256], comm[64], state[64];
	int n = 0, i;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		pid_t pid;
		int ignored = 0;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		if (!nested_pspace(e->d_name, line, sizeof(line), comm, sizeof(comm), state,
				   sizeof(state)))
			continue;
		pid = atoi(e->d_name);
		for (i = 0; i < nested_nignored; i++)
			if (nested_ignored[i] == pid)
				ignored = 1;
		if (ignored)
			continue;
		if (record && nested_nignored < 256) {
			nested_ignored[nested_nignored++] = pid;
			comm[strcspn(comm, "\n")] = state[strcspn(state, "\n")] = '\0';
			line[strcspn(line, "\n")] = '\0';
			printf("# left by an earlier suite, not counted: %d %s (%s) %s\n", pid, comm,
			       state, line);
		}
		n++;
	}
	closedir(d);
	return n;
}

static inline int nested_procs(void)
{
	return nested_scan(0);
}

/* Wait up to @secs for nested_procs() to reach 0; return what is left. */
static inline int settle_nested(double secs)
{
	double end = now() + secs;
	int n;

	while ((n = nested_procs()) > 0 && now() < end) {
		while (waitpid(-1, NULL, WNOHANG | __WALL) > 0)
			;
		usleep(10000);
	}
	return n;
}

/*
 * At the start: give what earlier suites left up to @secs to end, then
 * name what remains and leave it out of every later count.
 */
static inline void nested_baseline(double secs)
{
	if (settle_nested(secs) > 0)
		nested_scan(1);
}

static inline long meminfo_kb(const char *key)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	size_t len = strlen(key);
	long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':') {
			v = strtol(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

static inline int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n = -1;

	if (fd >= 0) {
		n = write(fd, s, strlen(s));
		close(fd);
	}
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

#endif
