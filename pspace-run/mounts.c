// SPDX-License-Identifier: GPL-2.0
/*
 * The container's file system, set up by the leader in its own mount
 * namespace, in this order: private propagation, ROOT bind-mounted onto
 * itself, the API file systems, pivot_root, old root detached.  Each step
 * is a line in a table so the whole setup reads top to bottom.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "pspace-run.h"

#define MNT_SAFE (MS_NOSUID | MS_NODEV | MS_NOEXEC)

struct api_mount {
	const char *source;
	const char *target;	/* relative to the new root */
	const char *fstype;
	unsigned long flags;
	const char *data;
	bool create;		/* mount point lives in a tmpfs of ours */
	bool (*when)(void);	/* mounted only if this says so */
	void (*populate)(void);	/* fills the new mount */
};

static void populate_dev(void);
static void protect_proc_sys(void);
static void make_readonly(void);

/* Mounted in order; one whose mount point is missing in ROOT is skipped. */
static const struct api_mount api_mounts[] = {
	{ "proc", "proc", "proc", MNT_SAFE, NULL, .populate = protect_proc_sys },
	/*
	 * The host's /sys, bound read-only: without a network namespace of
	 * its own a fresh sysfs is the same superblock, which the kernel
	 * refuses to stack on itself when containers nest.
	 */
	{ "/sys", "sys", NULL, MS_BIND | MS_REC, NULL, .populate = make_readonly },
	{ "tmpfs", "dev", "tmpfs", MS_NOSUID | MS_STRICTATIME, "mode=755,size=4m",
	  .populate = populate_dev },
	{ "devpts", "dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
	  "newinstance,ptmxmode=0666,mode=620,gid=5", .create = true },
	{ "tmpfs", "dev/shm", "tmpfs", MS_NOSUID | MS_NODEV | MS_STRICTATIME, "mode=1777",
	  .create = true },
	/* Our own cgroup namespace's view, writable: the delegated cgroup. */
	{ "cgroup2", "sys/fs/cgroup", "cgroup2", MNT_SAFE, NULL, .when = cgroup_is_delegated },
	{ "tmpfs", "run", "tmpfs", MS_NOSUID | MS_NODEV | MS_STRICTATIME, "mode=755" },
};

/* Device nodes bind-mounted from the host's /dev into the new /dev. */
static const char *const dev_nodes[] = { "null", "zero", "full", "random", "urandom", "tty" };

static const struct { const char *target, *link; } dev_links[] = {
	{ "dev/ptmx", "pts/ptmx" },
	{ "dev/fd", "/proc/self/fd" },
	{ "dev/stdin", "/proc/self/fd/0" },
	{ "dev/stdout", "/proc/self/fd/1" },
	{ "dev/stderr", "/proc/self/fd/2" },
};

/*
 * /proc/sys read-only, but for kernel/pid_max, which belongs to the
 * pspace (each pid namespace has its own).
 */
static void protect_proc_sys(void)
{
	static const char *const pid_max = "proc/sys/kernel/pid_max";

	if (mount("proc/sys", "proc/sys", NULL, MS_BIND | MS_REC, NULL) < 0 ||
	    mount(NULL, "proc/sys", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MNT_SAFE, NULL) < 0)
		die_errno(EXIT_SETUP, "make /proc/sys read-only");
	if (access(pid_max, F_OK) == 0 &&
	    (mount(pid_max, pid_max, NULL, MS_BIND, NULL) < 0 ||
	     mount(NULL, pid_max, NULL, MS_REMOUNT | MS_BIND | MNT_SAFE, NULL) < 0))
		die_errno(EXIT_SETUP, "keep /%s writable", pid_max);
}

static void make_readonly(void)
{
	if (mount(NULL, "sys", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MNT_SAFE, NULL) < 0)
		die_errno(EXIT_SETUP, "remount /sys read-only");
	/*
	 * The host's whole cgroup hierarchy came along with /sys; the
	 * container gets its own view instead (the kernel refuses the same
	 * superblock stacked on itself, so it has to go first).
	 */
	if (cgroup_is_delegated() && umount2("sys/fs/cgroup", MNT_DETACH) < 0 && errno != EINVAL)
		die_errno(EXIT_SETUP, "detach the host's /sys/fs/cgroup");
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void mount_api(const struct api_mount *m)
{
	if (m->create && mkdir(m->target, 0755) < 0 && errno != EEXIST && errno != ENOENT)
		die_errno(EXIT_SETUP, "mkdir /%s", m->target);
	if (!is_dir(m->target))
		return;
	if (m->when && !m->when())
		return;
	if (mount(m->source, m->target, m->fstype, m->flags, m->data) < 0)
		die_errno(EXIT_SETUP, "mount %s on /%s", m->fstype ? m->fstype : m->source,
			  m->target);
	if (m->populate)
		m->populate();
}

static void populate_dev(void)
{
	char src[64], dst[64];
	size_t i;

	for (i = 0; i < sizeof(dev_nodes) / sizeof(dev_nodes[0]); i++) {
		int fd;

		snprintf(src, sizeof(src), "/dev/%s", dev_nodes[i]);
		snprintf(dst, sizeof(dst), "dev/%s", dev_nodes[i]);
		fd = open(dst, O_CREAT | O_WRONLY | O_CLOEXEC, 0666);
		if (fd < 0)
			die_errno(EXIT_SETUP, "create /%s", dst);
		close(fd);
		if (mount(src, dst, NULL, MS_BIND, NULL) < 0)
			die_errno(EXIT_SETUP, "bind %s on /%s", src, dst);
	}
	for (i = 0; i < sizeof(dev_links) / sizeof(dev_links[0]); i++)
		if (symlink(dev_links[i].link, dev_links[i].target) < 0)
			die_errno(EXIT_SETUP, "symlink /%s", dev_links[i].target);
}

#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef OPEN_TREE_CLOEXEC
#define OPEN_TREE_CLOEXEC O_CLOEXEC
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif

/*
 * ROOT bind-mounted onto itself, and the working directory moved into
 * that new mount.  A copy of ROOT's tree (open_tree) is attached on top
 * of ROOT and entered through its file descriptor: a path lookup of "/"
 * would not cross into a mount stacked on the root itself, which is
 * what a nested "pspace-run / ..." asks for.
 */
static void bind_root_onto_itself(const char *root)
{
	int fd = syscall(SYS_open_tree, AT_FDCWD, root,
			 OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);

	if (fd < 0)
		die_errno(EXIT_SETUP, "bind %s", root);
	if (syscall(SYS_move_mount, fd, "", AT_FDCWD, root, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		die_errno(EXIT_SETUP, "bind %s onto itself", root);
	if (fchdir(fd) < 0)
		die_errno(EXIT_SETUP, "%s", root);
	close(fd);
}

static void set_pid_max(long value)
{
	char buf[32];
	int fd = open("/proc/sys/kernel/pid_max", O_WRONLY | O_CLOEXEC);
	int len = snprintf(buf, sizeof(buf), "%ld\n", value);

	if (fd < 0 || write(fd, buf, len) != len)
		die_errno(EXIT_SETUP, "--pid-max %ld", value);
	close(fd);
}

void setup_root(const struct config *cfg, int console_sock)
{
	size_t i;

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		die_errno(EXIT_SETUP, "make / private");
	bind_root_onto_itself(cfg->root);

	for (i = 0; i < sizeof(api_mounts) / sizeof(api_mounts[0]); i++)
		mount_api(&api_mounts[i]);
	console_setup_child(cfg, console_sock);

	/*
	 * pivot_root(".", ".") stacks the old root on top of the new one;
	 * detaching it leaves nothing of the host reachable, unlike chroot().
	 */
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		die_errno(EXIT_SETUP, "pivot_root into %s", cfg->root);
	if (umount2(".", MNT_DETACH) < 0)
		die_errno(EXIT_SETUP, "detach the old root");
	if (chdir("/") < 0)
		die_errno(EXIT_SETUP, "chdir /");
	/* The sysctl acts on the writer's pid namespace: ours. */
	if (cfg->pid_max)
		set_pid_max(cfg->pid_max);
	verbose(cfg, "root is %s", cfg->root);
}
