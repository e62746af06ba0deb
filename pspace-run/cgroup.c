// SPDX-License-Identifier: GPL-2.0
/*
 * The container's delegated cgroup: when the host has cgroup2 at
 * /sys/fs/cgroup, a fresh child cgroup that the leader is cloned into
 * (CLONE_INTO_CGROUP), seen through a cgroup namespace of its own and a
 * writable cgroup2 at /sys/fs/cgroup.  It is removed when the container
 * ends: by pspace-run, or, if pspace-run is killed, by a small janitor
 * process that outlives it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "pspace-run.h"

#define CGROUP_ROOT "/sys/fs/cgroup"
#define CGROUP2_SUPER_MAGIC 0x63677270

static char cgroup_path[128];
static bool delegated;

bool cgroup_is_delegated(void)
{
	return delegated;
}

/* Remove @path and the cgroups below it, deepest first. */
static void remove_tree(const char *path)
{
	char sub[PATH_MAX];
	struct dirent *d;
	DIR *dir = opendir(path);

	if (dir) {
		while ((d = readdir(dir)))
			if (d->d_type == DT_DIR && d->d_name[0] != '.') {
				snprintf(sub, sizeof(sub), "%s/%s", path, d->d_name);
				remove_tree(sub);
			}
		closedir(dir);
	}
	rmdir(path);
}

/* Wait (bounded) until nothing lives in @path any more. */
static void wait_unpopulated(const char *path)
{
	struct timespec tick = { .tv_nsec = 50 * 1000 * 1000 };
	char events[PATH_MAX], line[64];
	int i;

	snprintf(events, sizeof(events), "%s/cgroup.events", path);
	for (i = 0; i < 600; i++) {
		FILE *f = fopen(events, "re");
		bool populated = false;

		if (!f)
			return;
		while (fgets(line, sizeof(line), f))
			if (!strcmp(line, "populated 1\n"))
				populated = true;
		fclose(f);
		if (!populated)
			return;
		nanosleep(&tick, NULL);
	}
}

/*
 * The janitor: waits for pspace-run to go (EOF on @alive), then for the
 * cgroup to empty, removes it and exits.  A no-op when pspace-run already
 * did it.
 */
static void start_janitor(const int alive[2])
{
	pid_t pid = fork();
	char c;

	if (pid < 0)
		die_errno(EXIT_SETUP, "fork");
	if (pid != 0)
		return;
	close(alive[1]);
	setsid();
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	for (int fd = 0; fd < 3; fd++) {
		int null = open("/dev/null", O_RDWR);

		if (null >= 0 && null != fd) {
			dup2(null, fd);
			close(null);
		}
	}
	while (read(alive[0], &c, 1) > 0)
		;
	wait_unpopulated(cgroup_path);
	remove_tree(cgroup_path);
	_exit(0);
}

int cgroup_create(const struct config *cfg, const int alive[2])
{
	struct statfs sfs;
	int fd;

	if (statfs(CGROUP_ROOT, &sfs) < 0 || sfs.f_type != CGROUP2_SUPER_MAGIC)
		return -1;	/* no cgroup2 here: nothing to delegate */
	snprintf(cgroup_path, sizeof(cgroup_path), CGROUP_ROOT "/pspace-%d", (int)getpid());
	if (mkdir(cgroup_path, 0755) < 0) {
		if (errno == EROFS || errno == EACCES || errno == EPERM)
			return -1;	/* not ours to delegate from */
		die_errno(EXIT_SETUP, "%s", cgroup_path);
	}
	fd = open(cgroup_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		die_errno(EXIT_SETUP, "%s", cgroup_path);
	start_janitor(alive);
	delegated = true;
	verbose(cfg, "cgroup %s", cgroup_path);
	return fd;
}

void cgroup_remove(void)
{
	if (!cgroup_path[0])
		return;
	wait_unpopulated(cgroup_path);
	remove_tree(cgroup_path);
}
