// SPDX-License-Identifier: GPL-2.0
/*
 * The container's file system, set up by the leader in its own mount
 * namespace, in this order: private propagation, ROOT bind-mounted onto
 * itself, the API file systems, pivot_root, old root detached.
 *
 * ROOT is not trusted: it may be an odd or hostile image whose "dev" is a
 * symbolic link to "/" or "../../..", whose "run" leads to "/var/run", or
 * whose files are fifos.  So nothing here looks a path up in ROOT the
 * ordinary way.  Every mount point is opened with openat2() and
 * RESOLVE_IN_ROOT relative to ROOT (a symbolic link is followed as if ROOT
 * were "/", never onto the host; magic links of /proc are refused), and
 * every file system is mounted onto that file descriptor with the new
 * mount API (fsopen/fsmount, open_tree, move_mount).  What pspace-run
 * creates, it creates in file systems of its own (the /dev tmpfs), again
 * through their file descriptors.  A mount point missing in ROOT is
 * skipped, never created.  The host's files that the container gets
 * (device nodes, /sys) are cloned with open_tree() before anything in
 * ROOT is looked at.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <linux/mount.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pspace-run.h"
#include "mnt.h"
#include "sys.h"


#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

#define ATTR_SAFE (MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC)

static const struct config *config;
static int root_fd = -1;	/* ROOT, bound onto itself */

/* A new file system, not yet attached anywhere; dies naming @what on failure. */
static int new_fs(const char *fstype, const char *options, uint64_t attr, const char *what)
{
	return mnt_new_fs_or_die(fstype, options, attr, what);
}

static struct in_root in_root;	/* ROOT, to resolve mount points in (inroot.c) */

/*
 * The mount point @path of ROOT (relative, no leading slash), a
 * directory opened as O_PATH inside ROOT.  -1 when ROOT has no such
 * directory (the mount is skipped); any other problem is an error, and
 * so is a path that leads back to ROOT itself ("dev -> /"), where a
 * mount would cover the whole container.
 */
static int open_in_root(const char *path)
{
	int fd = in_root_open(&in_root, path, IN_ROOT_DIR);

	if (fd == IN_ROOT_IS_ROOT)
		die(EXIT_SETUP, "%s/%s: leads back to ROOT itself (a symbolic link to /?)",
		    config->root, path);
	if (fd < 0 && errno == ENOENT) {
		verbose(config, "ROOT has no /%s: not mounted", path);
		return -1;
	}
	if (fd < 0)
		die_errno(EXIT_SETUP, "%s/%s", config->root, path);
	return fd;
}

/* A path inside a file system of our own (proc, sysfs, our tmpfs). */
static int open_beneath(int dir, const char *path, int flags)
{
	struct open_how how = {
		.flags = flags | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS,
	};

	return sys_openat2(dir, path, &how);
}

/*
 * A clone of the host's node, read-only: bound into the container, it is
 * the host's inode, whose mode and owner root in the container could
 * change (chmod, chown: EROFS now), while reading and writing the device
 * itself is no write to the file system and goes on working.
 */
static int clone_host_node(const char *path, struct stat *st)
{
	int fd = mnt_clone(AT_FDCWD, path, false);

	if (fd < 0 || (st && fstat(fd, st) < 0))
		die_errno(EXIT_SETUP, "%s", path);
	if (!TEST_OFF(config, OFF_DEVNODES) &&
	    mnt_setattr(fd, "", false, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, 0, 0) < 0)
		die_errno(EXIT_SETUP, "%s: make its clone read-only", path);
	return fd;
}

/*
 * /proc, masked as systemd-nspawn masks it: the files that reach the
 * whole machine are covered, the directories
 * that configure it are read-only, and so is /proc/sys, but for
 * kernel/pid_max, which belongs to the pspace (each pid namespace has its
 * own).  Everything is done on clones taken from @proc before any of them
 * is attached, so that no lookup crosses a mount of ours.
 */
static const char *const proc_inaccessible[] = {
	"kcore", "kallsyms", "keys", "sysrq-trigger", "timer_list",
};
static const char *const proc_readonly[] = {
	"acpi", "apm", "asound", "bus", "fs", "irq", "scsi", "sys",
};

static void mask_proc(int proc)
{
	int pid_max, fd, target;
	size_t i;

	if (TEST_OFF(config, OFF_PROCMASK))
		return;
	/* The writable pid_max first, from the proc mount itself. */
	pid_max = mnt_clone(proc, "sys/kernel/pid_max", false);
	if (pid_max < 0 && errno != ENOENT)
		die_errno(EXIT_SETUP, "keep /proc/sys/kernel/pid_max writable");

	for (i = 0; i < sizeof(proc_readonly) / sizeof(proc_readonly[0]); i++) {
		fd = mnt_clone(proc, proc_readonly[i], true);
		if (fd < 0 && errno == ENOENT)
			continue;
		target = open_beneath(proc, proc_readonly[i], O_PATH | O_DIRECTORY);
		if (fd < 0 || target < 0 ||
		    mnt_setattr(fd, "", true, MOUNT_ATTR_RDONLY | ATTR_SAFE, 0, 0) < 0 ||
		    mnt_attach(fd, target) < 0)
			die_errno(EXIT_SETUP, "make /proc/%s read-only", proc_readonly[i]);
		close(fd);
		close(target);
	}
	if (pid_max >= 0) {
		target = open_beneath(proc, "sys/kernel/pid_max", O_PATH);
		if (target < 0 || mnt_attach(pid_max, target) < 0)
			die_errno(EXIT_SETUP, "keep /proc/sys/kernel/pid_max writable");
		close(target);
		close(pid_max);
	}

	/*
	 * The files are covered by the host's /dev/null, as runc masks them
	 * (a clone taken from a detached tmpfs is refused before 6.15): they
	 * read empty, and what is written to them goes nowhere.
	 */
	for (i = 0; i < sizeof(proc_inaccessible) / sizeof(proc_inaccessible[0]); i++) {
		target = open_beneath(proc, proc_inaccessible[i], O_PATH);
		if (target < 0 && errno == ENOENT)
			continue;
		fd = clone_host_node("/dev/null", NULL);
		if (target < 0 || mnt_attach(fd, target) < 0)
			die_errno(EXIT_SETUP, "mask /proc/%s", proc_inaccessible[i]);
		close(fd);
		close(target);
	}
}

/* The host's files that the container gets, cloned before ROOT is looked at. */
static const char *const dev_nodes[] = { "null", "zero", "full", "random", "urandom", "tty" };
static int dev_node_fd[sizeof(dev_nodes) / sizeof(dev_nodes[0])];
static dev_t dev_node_rdev[sizeof(dev_nodes) / sizeof(dev_nodes[0])];
static int host_sys = -1;

/*
 * A sysfs of a network namespace of its own, made by a child that
 * unshares one and passes the mount back: root of a user namespace may
 * mount sysfs only for a network namespace its namespace owns.  It has
 * none of the host's submounts; its /sys/class/net shows that
 * namespace's lo, not the host's interfaces.
 */
static int sysfs_of_own_netns(void)
{
	int sock[2], fd, status;
	pid_t child;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sock) < 0)
		die_errno(EXIT_SETUP, "/sys: socketpair");
	child = fork();
	if (child < 0)
		die_errno(EXIT_SETUP, "/sys: fork");
	if (child == 0) {
		close(sock[0]);
		if (unshare(CLONE_NEWNET) < 0)
			die_errno(EXIT_SETUP, "/sys: a network namespace for a sysfs of its own");
		_exit(send_fd(sock[1], new_fs("sysfs", NULL, 0, "/sys")) < 0 ? EXIT_SETUP : 0);
	}
	close(sock[1]);
	fd = receive_fd(sock[0]);
	close(sock[0]);
	if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) || fd < 0)
		die(EXIT_SETUP, "/sys: no sysfs of its own in the user namespace");
	return fd;
}

static void clone_host_sources(void)
{
	char path[32];
	struct stat st;
	size_t i;

	for (i = 0; i < sizeof(dev_nodes) / sizeof(dev_nodes[0]); i++) {
		snprintf(path, sizeof(path), "/dev/%s", dev_nodes[i]);
		dev_node_fd[i] = clone_host_node(path, &st);
		dev_node_rdev[i] = st.st_rdev;
	}
	/*
	 * The host's sysfs alone, read-only: without a network namespace of
	 * its own a fresh sysfs is the same superblock, which the kernel
	 * refuses to stack on itself when containers nest.  None of the
	 * host's submounts come along (tracefs, debugfs, securityfs, bpffs,
	 * the host's cgroup tree: read-only or not, they show the whole
	 * machine), as a fresh sysfs would have none; the container's own
	 * cgroup2 goes on top.  (The fixture takes them all, read-only at
	 * the top only, as 0.1 did.)
	 */
	if (TEST_OFF(config, OFF_SYSRO))
		host_sys = mnt_clone(AT_FDCWD, "/sys", true);
	else
		host_sys = mnt_clone(AT_FDCWD, "/sys", false);
	/*
	 * In a user namespace the host's submounts of /sys are locked
	 * (MNT_LOCKED: what they cover must stay covered), and a clone that
	 * would leave them behind is refused (EINVAL).  Taking them along
	 * would show tracefs, debugfs or securityfs, whose world-readable
	 * files are readable inside (issue 32): a sysfs of a network
	 * namespace of our own instead, which has none.
	 */
	if (host_sys < 0 && errno == EINVAL && !config->private_network) {
		verbose(config, "/sys: the host's submounts are locked to it in a user namespace: "
			"a sysfs of a network namespace of its own instead");
		host_sys = sysfs_of_own_netns();
	}
	/*
	 * --private-network: a network namespace of our own has a sysfs of
	 * its own (its /sys/class/net shows only its interfaces); the same
	 * read-only mount attributes.
	 */
	if (config->private_network) {
		if (host_sys >= 0)
			close(host_sys);
		host_sys = new_fs("sysfs", NULL, 0, "/sys");
	}
	if (host_sys < 0)
		die_errno(EXIT_SETUP, "/sys");
	if (mnt_setattr(host_sys, "", !TEST_OFF(config, OFF_SYSRO), MOUNT_ATTR_RDONLY | ATTR_SAFE,
			0, 0) < 0)
		die_errno(EXIT_SETUP, "make /sys read-only");
}

static void mount_proc(int target)
{
	int proc = new_fs("proc", NULL, ATTR_SAFE, "/proc");

	if (mnt_attach(proc, target) < 0)
		die_errno(EXIT_SETUP, "mount proc on /proc");
	mask_proc(proc);
	close(proc);
}

static void mount_sys(int target)
{
	char magic[64];
	int cg, fd;

	if (mnt_attach(host_sys, target) < 0)
		die_errno(EXIT_SETUP, "bind /sys");
	if (!cgroup_is_delegated())
		return;
	/*
	 * The host's whole cgroup hierarchy came along with /sys; the
	 * container gets its own view instead (the kernel refuses the same
	 * superblock stacked on itself, so the host's goes first).  umount2()
	 * takes no fd: the path is the fd's own magic link.
	 */
	fd = open_beneath(host_sys, "fs/cgroup", O_PATH | O_DIRECTORY);
	if (fd < 0)
		return;
	snprintf(magic, sizeof(magic), "/proc/self/fd/%d", fd);
	if (umount2(magic, MNT_DETACH) < 0 && errno != EINVAL)
		die_errno(EXIT_SETUP, "detach the host's /sys/fs/cgroup");
	close(fd);
	fd = open_beneath(host_sys, "fs/cgroup", O_PATH | O_DIRECTORY);
	if (fd < 0)
		die_errno(EXIT_SETUP, "/sys/fs/cgroup");
	/*
	 * Still the host's cgroup2 (locked in a user namespace: it cannot be
	 * detached): an empty tmpfs goes between, the same superblock is not
	 * stacked on its own root.
	 */
	{
		struct statfs sf;

		if (fstatfs(fd, &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC) {
			cg = new_fs("tmpfs", "mode=755,size=4k", ATTR_SAFE | MOUNT_ATTR_RDONLY,
				    "/sys/fs/cgroup");
			if (mnt_attach(cg, fd) < 0)
				die_errno(EXIT_SETUP, "cover the host's /sys/fs/cgroup");
			close(cg);
			close(fd);
			fd = open_beneath(host_sys, "fs/cgroup", O_PATH | O_DIRECTORY);
			if (fd < 0)
				die_errno(EXIT_SETUP, "/sys/fs/cgroup");
		}
	}
	/* Our own cgroup namespace's view, writable: the delegated cgroup. */
	cg = new_fs("cgroup2", NULL, ATTR_SAFE, "/sys/fs/cgroup");
	if (mnt_attach(cg, fd) < 0)
		die_errno(EXIT_SETUP, "mount cgroup2 on /sys/fs/cgroup");
	close(cg);
	close(fd);
}

static const struct { const char *target, *link; } dev_links[] = {
	{ "ptmx", "pts/ptmx" },
	{ "fd", "/proc/self/fd" },
	{ "stdin", "/proc/self/fd/0" },
	{ "stdout", "/proc/self/fd/1" },
	{ "stderr", "/proc/self/fd/2" },
};

/* A file system mounted on a new directory @name of our /dev tmpfs. */
static void dev_submount(int dev, const char *name, mode_t mode, const char *fstype,
			 const char *options, uint64_t attr)
{
	char what[32];
	int fd, mnt;

	snprintf(what, sizeof(what), "/dev/%s", name);
	if (mkdirat(dev, name, mode) < 0 || fchmodat(dev, name, mode, 0) < 0)
		die_errno(EXIT_SETUP, "mkdir %s", what);
	fd = open_beneath(dev, name, O_PATH | O_DIRECTORY);
	if (fd < 0)
		die_errno(EXIT_SETUP, "%s", what);
	mnt = new_fs(fstype, options, attr, what);
	if (mnt_attach(mnt, fd) < 0)
		die_errno(EXIT_SETUP, "mount %s on %s", fstype, what);
	close(mnt);
	close(fd);
}

/*
 * /dev: a tmpfs of ours, filled through its own fd (ROOT's "dev" may be
 * anything; what is below it is ours): the host's device nodes bound
 * onto empty files, a new devpts instance, shm, mqueue, the links.
 */
static void mount_dev(int target)
{
	int dev = new_fs("tmpfs", "mode=755,size=4m", MOUNT_ATTR_NOSUID | MOUNT_ATTR_STRICTATIME,
			 "/dev");
	size_t i;

	if (mnt_attach(dev, target) < 0)
		die_errno(EXIT_SETUP, "mount tmpfs on /dev");
	for (i = 0; i < sizeof(dev_nodes) / sizeof(dev_nodes[0]); i++) {
		int fd;

		/*
		 * Nodes of the container's own where we may make them (not in
		 * a user namespace): what root inside does to them is done to
		 * the tmpfs, never to the host's /dev.  Else the read-only
		 * clones of the host's.
		 */
		if (!TEST_OFF(config, OFF_INROOT | OFF_DEVNODES) &&
		    mknodat(dev, dev_nodes[i], S_IFCHR | 0666, dev_node_rdev[i]) == 0) {
			if (fchmodat(dev, dev_nodes[i], 0666, 0) < 0)
				die_errno(EXIT_SETUP, "chmod /dev/%s", dev_nodes[i]);
			continue;
		}
		if (errno != EPERM && !TEST_OFF(config, OFF_INROOT | OFF_DEVNODES))
			die_errno(EXIT_SETUP, "mknod /dev/%s", dev_nodes[i]);
		fd = openat(dev, dev_nodes[i], O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (TEST_OFF(config, OFF_INROOT)) {
			/* The fixture creates them by path, as pspace-run 0.1 did. */
			char path[32];

			snprintf(path, sizeof(path), "dev/%s", dev_nodes[i]);
			close(fd);
			fd = openat(root_fd, path, O_CREAT | O_WRONLY | O_CLOEXEC, 0666);
		}

		if (fd < 0)
			die_errno(EXIT_SETUP, "create /dev/%s", dev_nodes[i]);
		if (mnt_attach(dev_node_fd[i], fd) < 0)
			die_errno(EXIT_SETUP, "bind /dev/%s", dev_nodes[i]);
		close(fd);
		close(dev_node_fd[i]);
		dev_node_fd[i] = -1;
	}
	/* gid=5 (tty) only where it is mapped: a user namespace may map 0 alone. */
	if (!userns_maps_gid(5))
		verbose(config, "/dev/pts: gid 5 (tty) is not mapped: ptys are root's group");
	dev_submount(dev, "pts", 0755, "devpts", userns_maps_gid(5) ?
		     "newinstance,ptmxmode=0666,mode=620,gid=5" :
		     "newinstance,ptmxmode=0666,mode=620",
		     MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC);
	dev_submount(dev, "shm", 01777, "tmpfs", "mode=1777",
		     MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_STRICTATIME);
	/* The container's own IPC namespace's message queues. */
	dev_submount(dev, "mqueue", 0755, "mqueue", NULL, ATTR_SAFE);
	for (i = 0; i < sizeof(dev_links) / sizeof(dev_links[0]); i++)
		if (symlinkat(dev_links[i].link, dev, dev_links[i].target) < 0)
			die_errno(EXIT_SETUP, "symlink /dev/%s", dev_links[i].target);
	close(dev);
}

static void mount_run(int target)
{
	int run = new_fs("tmpfs", "mode=755", MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
			 MOUNT_ATTR_STRICTATIME, "/run");

	if (mnt_attach(run, target) < 0)
		die_errno(EXIT_SETUP, "mount tmpfs on /run");
	close(run);
}

/* In order; one whose mount point is missing in ROOT is skipped. */
static const struct {
	const char *target;
	void (*mount)(int target);
} api_mounts[] = {
	{ "proc", mount_proc },
	{ "sys", mount_sys },
	{ "dev", mount_dev },
	{ "run", mount_run },
};

/*
 * ROOT bind-mounted onto itself, and the working directory moved into
 * that new mount.  A copy of ROOT's tree (open_tree) is attached on top
 * of ROOT and entered through its file descriptor: a path lookup of "/"
 * would not cross into a mount stacked on the root itself, which is
 * what a nested "pspace-run / ..." asks for.  Returns an O_PATH fd of it.
 */
static int bind_root_onto_itself(const char *root)
{
	int fd = mnt_clone(AT_FDCWD, root, true);

	if (fd < 0)
		die_errno(EXIT_SETUP, "bind %s", root);
	if (mnt_attach_at(fd, AT_FDCWD, root) < 0)
		die_errno(EXIT_SETUP, "bind %s onto itself", root);
	if (fchdir(fd) < 0)
		die_errno(EXIT_SETUP, "%s", root);
	return fd;
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

bool root_moved;

/*
 * pivot_root(2) refuses to move the initramfs ("rootfs", the absolute
 * root of every mount tree, which has no parent to be moved to) away.
 * When our root is that, pivot_root's EINVAL is expected.
 */
static bool root_is_initramfs(void)
{
	struct statfs sf;

	return statfs("/", &sf) == 0 && (sf.f_type == RAMFS_MAGIC || sf.f_type == TMPFS_MAGIC);
}

/* mountinfo's octal escapes (\040 for a space) undone in place. */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++, d++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*d = *s;
		}
	}
	*d = '\0';
}

/*
 * Once ROOT covers "/": every other mount of the initramfs (the host's
 * /proc, /sys, /dev, the file system ROOT came from) detached from the
 * container's mount namespace, as pivot_root's detach of the old root
 * does.  Our root is still the initramfs here, so an absolute path names
 * the initramfs's own directories, not ROOT's: each direct child of the
 * namespace's root mount (the first line of mountinfo) but ROOT.
 */
static void detach_initramfs_mounts(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *buf = NULL, *line, *save = NULL;
	size_t size = 0, len = 0;
	int root_id = -1;

	if (!f) {
		verbose(config, "no /proc/self/mountinfo: the initramfs's mounts stay below ROOT");
		return;
	}
	/* All of it first: detaching the host's /proc ends the reading. */
	for (;;) {
		if (len + 4096 + 1 > size) {
			size = size ? 2 * size : 16384;
			buf = realloc(buf, size);
			if (!buf)
				die(EXIT_SETUP, "out of memory");
		}
		size_t n = fread(buf + len, 1, size - len - 1, f);

		if (n == 0)
			break;
		len += n;
	}
	fclose(f);
	if (!buf)
		return;
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char mp[4096];
		int id, parent;

		if (sscanf(line, "%d %d %*s %*s %4095s", &id, &parent, mp) != 3)
			continue;
		if (root_id < 0) {
			root_id = id;
			continue;
		}
		if (parent != root_id || !strcmp(mp, "/"))
			continue;
		unescape(mp);
		if (umount2(mp, MNT_DETACH) < 0 && errno != EINVAL && errno != ENOENT)
			die_errno(EXIT_SETUP, "detach the initramfs's %s", mp);
		verbose(config, "detached the initramfs's %s", mp);
	}
	free(buf);
}

/*
 * The fallback where our root is the initramfs, as systemd's switch-root
 * and runc's --no-pivot do: ROOT moved over "/", then chroot() into it.
 * The initramfs stays below ROOT as the namespace's root mount; what
 * could reach it is closed (pspace-run.1, SECURITY): its other mounts
 * are detached here, and CAP_SYS_CHROOT goes (lock_down), without which
 * no process can setns() into a mount namespace and so be handed its
 * root, which is where "umount2("/", MNT_DETACH); setns(own mount
 * namespace)" would otherwise lead.  A user namespace made inside gets
 * every mount locked (MNT_LOCKED) and cannot uncover it either.
 */
static void move_root_over_initramfs(const struct config *cfg)
{
	verbose(cfg, "the root is the initramfs (pivot_root: EINVAL): moving %s over it",
		cfg->root);
	if (mount(".", "/", NULL, MS_MOVE, NULL) < 0)
		die_errno(EXIT_SETUP, "move %s over the initramfs root", cfg->root);
	if (!TEST_OFF(cfg, OFF_MOVEROOT))
		detach_initramfs_mounts();
	if (chroot(".") < 0)
		die_errno(EXIT_SETUP, "chroot into %s", cfg->root);
	root_moved = !TEST_OFF(cfg, OFF_MOVEROOT);
}

void setup_root(const struct config *cfg, int console_sock)
{
	size_t i;
	int root;

	config = cfg;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		die_errno(EXIT_SETUP, "make / private");
	clone_host_sources();
	if (cfg->ephemeral)
		root = ephemeral_root(cfg);
	else
		root = bind_root_onto_itself(root_path(cfg));
	root_fd = root;
	if (in_root_init(&in_root, root) < 0)
		die_errno(EXIT_SETUP, "%s", cfg->root);
	in_root.naive = TEST_OFF(cfg, OFF_INROOT);
	/* --bind sources cloned; --read-only's mount points made, then ROOT read-only. */
	prepare_user_mounts(cfg, root);

	for (i = 0; i < sizeof(api_mounts) / sizeof(api_mounts[0]); i++) {
		int target = open_in_root(api_mounts[i].target);

		if (target < 0)
			continue;
		api_mounts[i].mount(target);
		close(target);
	}
	user_mounts(cfg, root);
	if (host_sys >= 0)
		close(host_sys);
	for (i = 0; i < sizeof(dev_nodes) / sizeof(dev_nodes[0]); i++)
		if (dev_node_fd[i] >= 0)
			close(dev_node_fd[i]);

	/*
	 * pivot_root(".", ".") stacks the old root on top of the new one;
	 * detaching it leaves nothing of the host reachable, unlike chroot().
	 */
	if (sys_pivot_root(".", ".") == 0) {
		if (umount2(".", MNT_DETACH) < 0)
			die_errno(EXIT_SETUP, "detach the old root");
	} else if (errno == EINVAL && root_is_initramfs()) {
		move_root_over_initramfs(cfg);
	} else {
		die_errno(EXIT_SETUP, "pivot_root into %s", cfg->root);
	}
	if (chdir("/") < 0)
		die_errno(EXIT_SETUP, "chdir /");
	close(root);
	/*
	 * The console's files are looked up by path, so only now, when no
	 * path leads out of the container any more.
	 */
	console_setup_child(cfg, console_sock);
	/* The sysctl acts on the writer's pid namespace: ours. */
	if (cfg->pid_max)
		set_pid_max(cfg->pid_max);
	verbose(cfg, "root is %s", cfg->root);
}
