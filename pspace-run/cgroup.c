// SPDX-License-Identifier: GPL-2.0
/*
 * The container's delegated cgroup: when the host has cgroup2 at
 * /sys/fs/cgroup, a fresh cgroup that the leader is cloned into
 * (CLONE_INTO_CGROUP), seen through a cgroup namespace of its own and a
 * writable cgroup2 at /sys/fs/cgroup.
 *
 * Where: below pspace-run's own cgroup (/proc/self/cgroup), as OWN/pspace-PID,
 * so that whatever limits a service manager put on the caller bind the
 * container too.  pspace-run itself stays in OWN.  cgroup v2's
 * no-internal-process rule lets a cgroup that holds processes have
 * children, but not pass controllers down to them (except the root): so
 * the container gets the controllers OWN already passes down
 * (OWN/cgroup.subtree_control), and pspace-run never changes OWN's
 * subtree_control or moves the caller's processes around.
 *
 * Removal: when the container ends, by pspace-run, or, if pspace-run is
 * killed, by a small janitor process that outlives it; everything the
 * container created inside goes too (dot-names included), deepest first,
 * through directory fds (no path length limit, no path of the container
 * followed).  A directory of the same name left by an earlier run is
 * removed if empty, else another name is taken: it never fails a run.
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
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pspace-run.h"
#include "mnt.h"
#include "sys.h"

#define CGROUP_ROOT "/sys/fs/cgroup"
#define CGROUP2_SUPER_MAGIC 0x63677270
#define UNPOPULATED_WAIT_MS 30000

static int own_fd = -1;		/* pspace-run's own cgroup, the parent */
static char name[64];		/* the container's cgroup, in own_fd */
static ino_t ino;		/* its inode: the same name may be another cgroup later */
static bool delegated;

bool cgroup_is_delegated(void)
{
	return delegated;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Is anything alive in the cgroup @dir (cgroup.events says "populated 1")? */
static bool populated(int dir, int wait_ms)
{
	long long deadline = now_ms() + wait_ms;
	char buf[256];
	bool busy = false;
	int fd = openat(dir, "cgroup.events", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	for (;;) {
		ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
		struct pollfd p = { .fd = fd, .events = POLLPRI };
		long long left = deadline - now_ms();

		buf[n > 0 ? n : 0] = '\0';
		busy = strstr(buf, "populated 1") != NULL;
		if (!busy || left <= 0)
			break;
		/* kernfs wakes POLLPRI pollers when cgroup.events changes. */
		poll(&p, 1, left < 100 ? left : 100);
	}
	close(fd);
	return busy;
}

/*
 * rmdir of @dir/@top and every cgroup below it, deepest first.  The walk
 * holds one directory fd at a time, going down by name and back up by
 * "..", so a deep tree made inside costs neither stack nor fds.
 */
static int remove_tree(int dir, const char *top)
{
	char **names = NULL;
	size_t depth = 0, cap = 0;
	int cur = openat(dir, top, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int ret;

	if (cur < 0)
		return errno == ENOENT ? 0 : -1;
	for (;;) {
		int again = dup(cur);
		DIR *d;
		struct dirent *e;
		char *sub = NULL;

		/* From the start each time: the dup shares the file offset. */
		lseek(again, 0, SEEK_SET);
		d = again >= 0 ? fdopendir(again) : NULL;

		while (d && (e = readdir(d)))
			if (e->d_type == DT_DIR && strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
				sub = strdup(e->d_name);
				break;
			}
		if (d)
			closedir(d);
		if (sub) {
			int next = openat(cur, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (next < 0 || (depth == cap &&
					 !(names = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof(*names))))) {
				free(sub);
				if (next >= 0)
					close(next);
				break;
			}
			names[depth++] = sub;
			close(cur);
			cur = next;
			continue;
		}
		if (!depth)
			break;
		/* A leaf: up one, and remove it. */
		sub = names[--depth];
		{
			int up = openat(cur, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

			close(cur);
			cur = up;
		}
		if (cur < 0 || unlinkat(cur, sub, AT_REMOVEDIR) < 0) {
			free(sub);
			break;
		}
		free(sub);
	}
	while (depth)
		free(names[--depth]);
	free(names);
	if (cur >= 0)
		close(cur);
	ret = unlinkat(dir, top, AT_REMOVEDIR);
	return ret;
}

/* Remove the container's cgroup, if @name in own_fd is still the one we made. */
static void remove_ours(void)
{
	struct stat st;
	int fd = openat(own_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0 || st.st_ino != ino) {
		close(fd);
		return;
	}
	populated(fd, UNPOPULATED_WAIT_MS);
	close(fd);
	remove_tree(own_fd, name);
}

/* Close every fd from 3 up but @a and @b. */
static void close_all_but(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a;

	if (lo > 3)
		sys_close_range(3, lo - 1, 0);
	if (hi > lo + 1)
		sys_close_range(lo + 1, hi - 1, 0);
	sys_close_range(hi + 1, ~0U, 0);
}

/*
 * The janitor: waits for pspace-run to go (EOF on @alive), then for the
 * cgroup to empty, removes it and exits.  A no-op when pspace-run already
 * did it.  It holds nothing of pspace-run's but that pipe and the parent
 * cgroup: not the console socket, not the relay pipes, not a terminal.
 */
static void start_janitor(const int alive[2])
{
	pid_t pid = fork();
	char c;
	int fd;

	if (pid < 0)
		die_errno(EXIT_SETUP, "fork");
	if (pid != 0)
		return;
	close_all_but(alive[0], own_fd);
	setsid();
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	for (fd = 0; fd < 3; fd++) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (null >= 0 && null != fd) {
			dup2(null, fd);
			close(null);
		}
	}
	for (;;) {
		ssize_t n = read(alive[0], &c, 1);

		if (n == 0 || (n < 0 && errno != EINTR))
			break;
	}
	remove_ours();
	machine_janitor_release();
	_exit(0);
}

/*
 * pspace-run's own cgroup ("0::/path" in /proc/self/cgroup, relative to
 * our cgroup namespace, which is also what our /sys/fs/cgroup shows), as
 * a directory fd; -1 where it cannot be told.
 */
static int open_own_cgroup(const struct config *cfg)
{
	char line[PATH_MAX], path[PATH_MAX + sizeof(CGROUP_ROOT)];
	FILE *f = fopen("/proc/self/cgroup", "re");
	bool found = false;
	int fd;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::/", 4)) {
			line[strcspn(line, "\n")] = '\0';
			found = true;
			break;
		}
	fclose(f);
	/* Moved out of our cgroup namespace's root ("0::/../x"): not ours to use. */
	if (!found || strstr(line + 3, "/..")) {
		verbose(cfg, "no cgroup2 path for pspace-run itself: no delegated cgroup");
		return -1;
	}
	snprintf(path, sizeof(path), CGROUP_ROOT "%s", strcmp(line + 3, "/") ? line + 3 : "");
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		verbose(cfg, "%s: %s: no delegated cgroup", path, strerror(errno));
	return fd;
}

/* mkdir @name in own_fd; a stale one of an earlier run is removed first. */
static int make(const char *dir)
{
	int fd;

	if (mkdirat(own_fd, dir, 0755) == 0)
		return 0;
	if (errno != EEXIST)
		return -1;
	fd = openat(own_fd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		bool busy = populated(fd, 0);

		close(fd);
		if (!busy && remove_tree(own_fd, dir) == 0 && mkdirat(own_fd, dir, 0755) == 0)
			return 0;
	}
	errno = EEXIST;
	return -1;
}

/*
 * --private-users: the container's root is not the host's, so the cgroup
 * and the files a delegate writes are given to it, as systemd delegates
 * a cgroup to a user; the device policy is attached from here, as the
 * leader's bpf(2) would be refused in its user namespace.
 */
static void delegate_to_userns(const struct config *cfg, int fd)
{
	static const char *const files[] = {
		".", "cgroup.procs", "cgroup.threads", "cgroup.subtree_control",
	};
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (fchownat(fd, files[i], cfg->pu_base, cfg->pu_base, AT_SYMLINK_NOFOLLOW) < 0 &&
		    errno != ENOENT)
			die_errno(EXIT_SETUP, "cgroup %s: give %s to the container's root", name,
				  files[i]);
	if (!TEST_OFF(cfg, OFF_DEVICES) && device_policy_attach(fd) < 0)
		die_errno(EXIT_SETUP, "attach the device policy to the container's cgroup");
}

int cgroup_create(const struct config *cfg, const int alive[2])
{
	struct statfs sfs;
	struct stat st;
	int fd, i;

	if (statfs(CGROUP_ROOT, &sfs) < 0 || sfs.f_type != CGROUP2_SUPER_MAGIC)
		return -1;	/* no cgroup2 here: nothing to delegate */
	own_fd = open_own_cgroup(cfg);
	if (own_fd < 0)
		return -1;
	for (i = 0; i < 100; i++) {
		if (i == 0)
			snprintf(name, sizeof(name), "pspace-%d", (int)getpid());
		else
			snprintf(name, sizeof(name), "pspace-%d.%d", (int)getpid(), i);
		if (make(name) == 0)
			break;
		if (errno == EROFS || errno == EACCES || errno == EPERM) {
			verbose(cfg, "cgroup %s: %s: no delegated cgroup", name, strerror(errno));
			close(own_fd);
			own_fd = -1;
			return -1;	/* not ours to delegate from */
		}
		if (errno != EEXIST)
			die_errno(EXIT_SETUP, "cgroup %s", name);
		verbose(cfg, "cgroup %s is in use: trying another name", name);
	}
	if (i == 100)
		die(EXIT_SETUP, "cgroup pspace-%d: every name in use", (int)getpid());
	fd = openat(own_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		die_errno(EXIT_SETUP, "cgroup %s", name);
	ino = st.st_ino;
	if (cfg->private_users)
		delegate_to_userns(cfg, fd);
	start_janitor(alive);
	delegated = true;
	verbose(cfg, "cgroup %s, below pspace-run's own", name);
	return fd;
}

void cgroup_remove(void)
{
	if (!delegated)
		return;
	remove_ours();
}

/*
 * In the leader, in its delegated cgroup: the program goes onto the
 * cgroup its cgroup namespace shows as the root.  A nested pspace-run
 * (bpf(2) refused by the outer filter) leaves it to the outer program,
 * which its cgroup inherits.
 */
void restrict_devices(const struct config *cfg)
{
	const char *bad;
	int mnt, cgroup;

	if (!cgroup_is_delegated() || TEST_OFF(cfg, OFF_DEVICES))
		return;
	/*
	 * In a user namespace bpf(2) is refused: --private-users attached the
	 * program from outside (cgroup.c); unprivileged, there is none, and
	 * none is needed for /dev, whose nodes are the host's safe ones bound
	 * in (a user namespace can make no device node, and what it mounts is
	 * nodev).
	 */
	if (cfg->userns)
		return;
	mnt = mnt_new_fs("cgroup2", NULL, 0, &bad);
	if (mnt < 0)
		die_errno(EXIT_SETUP, "the container's cgroup");
	cgroup = openat(mnt, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cgroup < 0)
		die_errno(EXIT_SETUP, "the container's cgroup");
	if (device_policy_attach(cgroup) < 0) {
		if (errno == EPERM) {
			verbose(cfg, "no device policy of its own (bpf: EPERM): the outer one holds");
			close(cgroup);
			close(mnt);
			return;
		}
		die_errno(EXIT_SETUP, "attach the device policy to the container's cgroup");
	}
	close(cgroup);
	close(mnt);
}
