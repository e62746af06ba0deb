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
#define CLONE_NPSPACE 0x400000000ULL
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

/* Processes in pspaces below ours: their PSpace: path has a component. */
static inline int nested_procs(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	char path[300], line[256];
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		FILE *f;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "PSpace:", 7)) {
				if (strchr(line, '/') && strpbrk(strchr(line, '/'), "0123456789"))
					n++;
				break;
			}
		fclose(f);
	}
	closedir(d);
	return n;
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
