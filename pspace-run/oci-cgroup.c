// SPDX-License-Identifier: GPL-2.0
/*
 * linux.cgroupsPath and linux.resources on cgroup v2.  create makes the
 * cgroup (and its missing parents, with the controllers the resources
 * need enabled in each parent's subtree_control), writes the limits,
 * attaches pspace-run's device policy, and clones the leader into it
 * (CLONE_INTO_CGROUP): nothing of the container ever runs outside it.
 * delete removes it once empty.
 *
 * cgroupsPath "/a/b" is below /sys/fs/cgroup; with --systemd-cgroup,
 * "machine.slice:libpod:ID" is machine.slice/libpod-ID.scope (no systemd
 * is asked: the same directories are made).  No cgroupsPath: /ID.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "pspace-run.h"
#include "oci.h"

#define CGROUP_ROOT "/sys/fs/cgroup"
#define CGROUP2_SUPER_MAGIC 0x63677270

static int write_file(int dir, const char *name, const char *value)
{
	int fd = openat(dir, name, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int saved;

	if (fd < 0)
		return -1;
	n = write(fd, value, strlen(value));
	saved = errno;
	close(fd);
	errno = saved;
	return n == (ssize_t)strlen(value) ? 0 : -1;
}

/* "a-b.slice" is a.slice/a-b.slice, as systemd nests slices. */
static void systemd_path(const char *spec, const char *id, char *out, size_t size)
{
	char *copy = strdup(spec), *slice = copy, *prefix, *name;
	char path[PATH_MAX] = "";
	char *dash;

	prefix = strchr(slice, ':');
	*prefix++ = '\0';
	name = strchr(prefix, ':');
	if (name)
		*name++ = '\0';
	if (!name || !*name)
		name = (char *)id;
	if (!*slice)
		slice = "system.slice";
	if (strcmp(slice, "-.slice")) {
		for (dash = strchr(slice, '-'); dash; dash = strchr(dash + 1, '-')) {
			size_t len = strlen(path);

			snprintf(path + len, sizeof(path) - len, "/%.*s.slice", (int)(dash - slice),
				 slice);
		}
		snprintf(path + strlen(path), sizeof(path) - strlen(path), "/%s", slice);
	}
	if (*prefix)
		snprintf(out, size, "%s/%s-%s.scope", path, prefix, name);
	else
		snprintf(out, size, "%s/%s", path, name);
	free(copy);
}

static void enable_controllers(int dir, bool memory, bool pids, bool cpu, bool cpuset)
{
	char have[512] = "";
	int fd = openat(dir, "cgroup.controllers", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return;
	n = read(fd, have, sizeof(have) - 1);
	close(fd);
	have[n > 0 ? n : 0] = '\0';
	/* One at a time: one that cannot be enabled does not stop the others. */
	if (memory && strstr(have, "memory"))
		write_file(dir, "cgroup.subtree_control", "+memory");
	if (pids && strstr(have, "pids"))
		write_file(dir, "cgroup.subtree_control", "+pids");
	if (cpu && strstr(have, "cpu"))
		write_file(dir, "cgroup.subtree_control", "+cpu");
	if (cpuset && strstr(have, "cpuset"))
		write_file(dir, "cgroup.subtree_control", "+cpuset");
}

static char created_path[PATH_MAX];

static void set_limit(int dir, const char *file, const char *value, const char *field)
{
	if (write_file(dir, file, value) < 0)
		oci_fail(EXIT_SETUP, "%s: %s %s in %s: %s%s", field, file, value, created_path,
			 strerror(errno), errno == ENOENT ? " (controller not enabled)" : "");
}

int oci_cgroup_create(const struct oci_spec *s, const char *id, char *out, size_t size)
{
	bool memory = s->memory_limit >= 0 || s->memory_swap >= 0 || s->memory_reservation >= 0;
	bool pids = s->pids_limit >= 0;
	bool cpu = s->cpu_shares || s->cpu_quota >= 0 || s->cpu_period;
	bool cpuset = s->cpuset_cpus || s->cpuset_mems;
	char rel[PATH_MAX], *p, *comp, *save = NULL;
	struct statfs sfs;
	char buf[64];
	int dir, next, i;

	if (statfs(CGROUP_ROOT, &sfs) < 0 || sfs.f_type != CGROUP2_SUPER_MAGIC) {
		if (memory || pids || cpu || cpuset || s->nunified)
			oci_fail(EXIT_SETUP, "linux.resources: no cgroup v2 at " CGROUP_ROOT);
		return -1;
	}
	if (!s->cgroups_path || !*s->cgroups_path)
		snprintf(rel, sizeof(rel), "/%s", id);
	else if (oci.systemd_cgroup || (s->cgroups_path[0] != '/' && strchr(s->cgroups_path, ':')))
		systemd_path(s->cgroups_path, id, rel, sizeof(rel));
	else
		snprintf(rel, sizeof(rel), "%s%s", s->cgroups_path[0] == '/' ? "" : "/",
			 s->cgroups_path);
	snprintf(out, size, CGROUP_ROOT "%s", rel);

	dir = open(CGROUP_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		oci_fail(EXIT_SETUP, CGROUP_ROOT ": %s", strerror(errno));
	p = strdup(rel);
	for (comp = strtok_r(p, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
		enable_controllers(dir, memory, pids, cpu, cpuset);
		if (mkdirat(dir, comp, 0755) < 0 && errno != EEXIST)
			oci_fail(EXIT_SETUP, "linux.cgroupsPath: mkdir %s: %s", out, strerror(errno));
		next = openat(dir, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0)
			oci_fail(EXIT_SETUP, "linux.cgroupsPath: %s: %s", out, strerror(errno));
		close(dir);
		dir = next;
	}
	free(p);
	snprintf(created_path, sizeof(created_path), "%s", out);

	if (s->memory_limit >= 0) {
		snprintf(buf, sizeof(buf), "%" PRId64, s->memory_limit);
		set_limit(dir, "memory.max", buf, "linux.resources.memory.limit");
	}
	if (s->memory_reservation >= 0) {
		snprintf(buf, sizeof(buf), "%" PRId64, s->memory_reservation);
		set_limit(dir, "memory.low", buf, "linux.resources.memory.reservation");
	}
	if (s->memory_swap >= 0 || (s->memory_swap == -1 && s->memory_limit >= 0)) {
		/* OCI's swap is memory + swap; v2's memory.swap.max is swap alone. */
		if (s->memory_swap < 0)
			snprintf(buf, sizeof(buf), "max");
		else if (s->memory_limit >= 0 && s->memory_swap >= s->memory_limit)
			snprintf(buf, sizeof(buf), "%" PRId64, s->memory_swap - s->memory_limit);
		else
			snprintf(buf, sizeof(buf), "%" PRId64, s->memory_swap);
		if (faccessat(dir, "memory.swap.max", F_OK, 0) == 0)
			set_limit(dir, "memory.swap.max", buf, "linux.resources.memory.swap");
	}
	if (s->pids_limit >= 0 || s->pids_limit == -1) {
		if (s->pids_limit > 0) {
			snprintf(buf, sizeof(buf), "%" PRId64, s->pids_limit);
			set_limit(dir, "pids.max", buf, "linux.resources.pids.limit");
		}
	}
	if (s->cpu_shares) {
		uint64_t w = 1 + ((s->cpu_shares < 2 ? 2 : s->cpu_shares) - 2) * 9999 / 262142;

		snprintf(buf, sizeof(buf), "%" PRIu64, w);
		set_limit(dir, "cpu.weight", buf, "linux.resources.cpu.shares");
	}
	if (s->cpu_quota >= 0 || s->cpu_period) {
		uint64_t period = s->cpu_period ? s->cpu_period : 100000;

		if (s->cpu_quota > 0)
			snprintf(buf, sizeof(buf), "%" PRId64 " %" PRIu64, s->cpu_quota, period);
		else
			snprintf(buf, sizeof(buf), "max %" PRIu64, period);
		set_limit(dir, "cpu.max", buf, "linux.resources.cpu.quota");
	}
	if (s->cpuset_cpus && *s->cpuset_cpus)
		set_limit(dir, "cpuset.cpus", s->cpuset_cpus, "linux.resources.cpu.cpus");
	if (s->cpuset_mems && *s->cpuset_mems)
		set_limit(dir, "cpuset.mems", s->cpuset_mems, "linux.resources.cpu.mems");
	for (i = 0; i < s->nunified; i++)
		set_limit(dir, s->unified_keys[i], s->unified_values[i], "linux.resources.unified");
	/*
	 * The device policy: what pspace-run gives every container.  Refused
	 * (EPERM) only when pspace-run itself runs in a container that has one.
	 */
	if (device_policy_attach(dir) < 0 && errno != EPERM)
		oci_fail(EXIT_SETUP, "the device policy on %s: %s", out, strerror(errno));
	return dir;
}

static bool populated(const char *path, int wait_ms)
{
	char name[PATH_MAX + 32], buf[256];
	struct timespec t0, t;
	bool busy = false;
	int fd;

	snprintf(name, sizeof(name), "%s/cgroup.events", path);
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
		struct pollfd p = { .fd = fd, .events = POLLPRI };
		long left;

		buf[n > 0 ? n : 0] = '\0';
		busy = strstr(buf, "populated 1") != NULL;
		clock_gettime(CLOCK_MONOTONIC, &t);
		left = wait_ms - ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (!busy || left <= 0)
			break;
		poll(&p, 1, left < 100 ? left : 100);
	}
	close(fd);
	return busy;
}

/* Deepest first; the container may have made cgroups of its own. */
static void remove_tree(const char *path, int depth)
{
	DIR *d;
	struct dirent *e;

	if (depth > 64)
		return;
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d))) {
		char sub[PATH_MAX];

		if (e->d_type != DT_DIR || !strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name) < (int)sizeof(sub))
			remove_tree(sub, depth + 1);
	}
	closedir(d);
	rmdir(path);
}

void oci_cgroup_remove(const char *path)
{
	char kill_file[PATH_MAX + 16];
	int fd;

	if (populated(path, 0)) {
		/* Whatever is left (exec'd processes of a killed container). */
		snprintf(kill_file, sizeof(kill_file), "%s/cgroup.kill", path);
		fd = open(kill_file, O_WRONLY | O_CLOEXEC);
		if (fd >= 0) {
			if (write(fd, "1", 1) < 0)
				oci_log("warning", "%s: %s", kill_file, strerror(errno));
			close(fd);
		}
		populated(path, 10000);
	}
	remove_tree(path, 0);
}
