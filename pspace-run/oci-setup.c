// SPDX-License-Identifier: GPL-2.0
/*
 * The container's side of create, in the leader (pid 1 of the new
 * pspace, in its own mount namespace), and of exec.
 *
 * The file system is set up as pspace-run's own (mounts.c) is: root.path
 * bound onto itself, every mount point looked up in it with openat2() and
 * RESOLVE_IN_ROOT (a symbolic link in the image never leads onto the
 * host), every file system mounted onto that fd with the new mount API,
 * then pivot_root and the old root detached.  The order is config.json's.
 * A missing mount point is made (as OCI asks), inside the root through
 * directory fds.  Then the default devices, sysctl, maskedPaths,
 * readonlyPaths and a read-only root.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <json-c/json.h>
#include <limits.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#include "pspace-run.h"
#include "mnt.h"
#include "sys.h"
#include "oci.h"

#ifndef DEVPTS_SUPER_MAGIC
#define DEVPTS_SUPER_MAGIC 0x1cd1
#endif
#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

static int open_in(int root, const char *path, int flags, uint64_t resolve)
{
	return open_at2(root, path, flags, resolve);
}

#define IN_ROOT (RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS)
#define NO_LINKS (RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)

/*
 * The API file systems mounted (proc, sysfs, cgroup) and /dev: each
 * one's destination and an fd of the mount itself, kept until setup is
 * over (oci_setup_done).  Later mounts below such a destination, the
 * device nodes, maskedPaths, readonlyPaths, linux.sysctl, the console's
 * ptmx and oomScoreAdj are found from that fd, never by path: a process
 * of the host's that shares the image can rename the directory proc was
 * mounted on and put another in its place, and masks applied by path
 * would then cover nothing (runc: CVE-2025-52565, -52881).
 */
static struct api_mount {
	char dest[PATH_MAX];	/* normalised: no '//', no trailing '/' */
	const char *type;
	int fd;
} api[16];
static int napi;
static bool off_apifd;	/* the fixture: as before, by path (PSPACE_TEST_OFF=apifd) */

/* @in without repeated, trailing or "." components, into @out. */
static void normalise(char *out, const char *in)
{
	size_t n = 0;

	while (*in) {
		const char *end;
		size_t len;

		while (*in == '/')
			in++;
		end = strchrnul(in, '/');
		len = end - in;
		if (n + len + 2 >= PATH_MAX)
			die(EXIT_SETUP, "path too long: %.64s...", in);
		if (len && !(len == 1 && *in == '.')) {
			out[n++] = '/';
			memcpy(out + n, in, len);
			n += len;
		}
		in = end;
	}
	if (!n)
		out[n++] = '/';
	out[n] = '\0';
}

static struct in_root container_root;	/* the rootfs, bound onto itself */

/*
 * The mount point @path (in the container, or relative to the API mount
 * @base) found from @base with @resolve, and made when missing, by the
 * resolver the launcher uses too (inroot.c): a symbolic link in the
 * image is followed inside the root (/etc/resolv.conf -> /run/...,
 * absolute or relative, dangling or not), as crun follows it, and a
 * path leading back to the container's / is refused.  Returns it O_PATH;
 * -1 for a link when @resolve has RESOLVE_NO_SYMLINKS.
 */
static int mount_point(int base, const char *path, bool file, uint64_t resolve)
{
	struct in_root r = container_root;
	int flags = IN_ROOT_CREATE | (file ? IN_ROOT_FILE : 0);
	const char *c;
	int fd;

	for (c = path; *c; c += strcspn(c, "/")) {
		c += strspn(c, "/");
		if (!strncmp(c, "..", 2) && (!c[2] || c[2] == '/'))
			die(EXIT_SETUP, "mount destination %s: has a '..'", path);
	}
	r.fd = base;
	r.resolve = resolve & ~(uint64_t)RESOLVE_NO_SYMLINKS;
	if (resolve & RESOLVE_NO_SYMLINKS)
		flags |= IN_ROOT_NO_SYMLINKS;
	fd = in_root_open(&r, path, flags);
	if (fd == IN_ROOT_IS_ROOT)
		die(EXIT_SETUP, "mount destination %s: leads back to the container's / (a symbolic link to /?)",
		    path);
	if (fd < 0 && errno == ELOOP && (flags & IN_ROOT_NO_SYMLINKS))
		return -1;
	if (fd < 0)
		die_errno(EXIT_SETUP, "mount destination %s", path);
	return fd;
}

/* A new file system; -1 with errno, but a refused option is an error of the bundle. */
static int new_fs(const char *type, const char *data, uint64_t attr, const char *dest)
{
	const char *bad;
	int mnt = mnt_new_fs(type, data, attr, &bad);

	if (mnt < 0 && bad)
		die_errno(EXIT_SETUP, "mount %s on %s: option %s", type, dest, bad);
	return mnt;
}

/*
 * The API mount container path @path is on (the longest destination
 * that is @path or leads to it), with @path relative to it in @rel; -1
 * if none.
 */
static int api_fd(const char *path, const char **rel)
{
	static char norm[PATH_MAX];
	size_t best = 0;
	int i, fd = -1;

	normalise(norm, path);
	for (i = 0; i < napi; i++) {
		size_t n = strlen(api[i].dest);

		if (n >= best && !strncmp(norm, api[i].dest, n) && (!norm[n] || norm[n] == '/')) {
			best = n;
			fd = api[i].fd;
			*rel = norm + n + (norm[n] == '/');
		}
	}
	return fd;
}

/*
 * proc, sysfs and cgroup go onto a real directory at their destination,
 * with no symbolic link on the way (runc: CVE-2019-16884, -19921): the
 * image's /proc -> /x would have proc land on /x, with maskedPaths and
 * readonlyPaths of /proc/... aimed at whatever /proc leads to later, and
 * a /proc/sys left writable is the host's kernel.core_pattern.  The
 * destination is looked up once, with no symbolic link allowed, and
 * proc mounted onto that very fd (api_destination); the fixture without
 * 'apifd' does what pspace-run did before: looks it up following links
 * and checks a second lookup (check_api_destination), a window a racer
 * swapping a link for a directory wins.
 */
static int api_destination(int base, const char *rel, uint64_t resolve, const char *dest,
			   const char *type)
{
	struct stat st;
	int fd = mount_point(base, rel, false, resolve | NO_LINKS);

	if (fd < 0)
		die(EXIT_SETUP, "mount destination %s: is a symbolic link or leads through one: refused for a %s mount",
		    dest, type);
	if (fstat(fd, &st) < 0)
		die_errno(EXIT_SETUP, "mount destination %s", dest);
	if (!S_ISDIR(st.st_mode))
		die(EXIT_SETUP, "mount destination %s: not a directory: refused for a %s mount", dest,
		    type);
	return fd;
}

static void check_api_destination(int root, const char *dest, const char *type)
{
	struct stat st;
	int fd = open_in(root, dest, O_PATH | O_NOFOLLOW,
			 RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);

	if ((fd < 0 && errno == ELOOP) || (fd >= 0 && fstat(fd, &st) == 0 && S_ISLNK(st.st_mode)))
		die(EXIT_SETUP, "mount destination %s: is a symbolic link or leads through one: refused for a %s mount",
		    dest, type);
	if (fd < 0 || fstat(fd, &st) < 0)
		die_errno(EXIT_SETUP, "mount destination %s", dest);
	if (!S_ISDIR(st.st_mode))
		die(EXIT_SETUP, "mount destination %s: not a directory: refused for a %s mount", dest,
		    type);
	close(fd);
}

static int host_sys = -1;
static const char *const dev_nodes[] = { "null", "zero", "full", "random", "urandom", "tty" };
static int dev_node_fd[sizeof(dev_nodes) / sizeof(dev_nodes[0])];
static dev_t dev_node_rdev[sizeof(dev_nodes) / sizeof(dev_nodes[0])];

/* The mount @m of @type (a bind's clone, or a new file system), detached. */
static int mount_source(const struct oci_mount *m, const char *type, bool *file)
{
	int mnt;

	if (m->bind) {
		struct stat st;

		if (stat(m->source, &st) < 0)
			die_errno(EXIT_SETUP, "mount %s: source %s", m->destination, m->source);
		*file = !S_ISDIR(st.st_mode);
		mnt = mnt_clone(AT_FDCWD, m->source, m->recursive);
		if (mnt < 0)
			die_errno(EXIT_SETUP, "bind %s on %s", m->source, m->destination);
		if (mnt_setattr(mnt, "", m->recursive, m->attr,
				m->attr & MOUNT_ATTR__ATIME ? MOUNT_ATTR__ATIME : 0,
				m->propagation) < 0)
			die_errno(EXIT_SETUP, "bind %s on %s: options", m->source, m->destination);
	} else {
		const char *fstype = !strcmp(type, "cgroup") ? "cgroup2" : type;

		mnt = new_fs(fstype, m->data, m->attr, m->destination);
		if (mnt < 0 && !strcmp(type, "sysfs") && host_sys >= 0) {
			/* No network namespace of its own: the host's sysfs, read-only. */
			mnt = host_sys;
			host_sys = -1;
		}
		if (mnt < 0)
			die_errno(EXIT_SETUP, "mount %s on %s", type, m->destination);
		if (m->propagation && mnt_setattr(mnt, "", false, 0, 0, m->propagation) < 0)
			die_errno(EXIT_SETUP, "mount %s on %s: propagation", type, m->destination);
	}
	return mnt;
}

static void do_mount(int root, const struct oci_mount *m)
{
	const char *type = m->type ? m->type : "bind", *rel = NULL;
	bool file = false, is_api, keep;
	int target, mnt, base, i, j;
	uint64_t resolve = IN_ROOT;
	char norm[PATH_MAX];

	normalise(norm, m->destination);
	if (!strcmp(norm, "/"))
		die(EXIT_SETUP, "mounts: destination / is root.path's business");
	mnt = mount_source(m, type, &file);
	is_api = !m->bind && (!strcmp(type, "proc") || !strcmp(type, "sysfs") ||
			      !strcmp(type, "cgroup") || !strcmp(type, "cgroup2"));
	keep = !off_apifd && (is_api || !strcmp(norm, "/dev"));
	if (keep && napi == sizeof(api) / sizeof(api[0]))
		die(EXIT_SETUP, "mounts: more than %zu proc, sysfs, cgroup and /dev mounts",
		    sizeof(api) / sizeof(api[0]));
	/* Below a kept mount: from its fd, as nothing can move it away. */
	base = off_apifd ? -1 : api_fd(norm, &rel);
	if (base >= 0 && *rel) {
		resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
	} else {
		base = root;
		rel = m->destination;
	}
	if (is_api && !off_apifd) {
		target = api_destination(base, rel, resolve, m->destination, type);
		test_pause("resolved");
	} else if (!off_apifd) {
		target = mount_point(base, rel, file, resolve);
	} else {
		target = mount_point(root, m->destination, file, IN_ROOT);
		if (is_api) {
			test_pause("resolved");
			check_api_destination(root, m->destination, type);
		}
	}
	if (mnt_attach(mnt, target) < 0)
		die_errno(EXIT_SETUP, "mount %s on %s", type, m->destination);
	close(target);
	/* A kept mount this one covers is out of sight: forget it. */
	for (i = j = 0; i < napi; i++) {
		size_t n = strlen(norm);

		if (!strncmp(api[i].dest, norm, n) && (!api[i].dest[n] || api[i].dest[n] == '/'))
			close(api[i].fd);
		else
			api[j++] = api[i];
	}
	napi = j;
	if (keep) {
		strcpy(api[napi].dest, norm);
		api[napi].type = type;
		api[napi++].fd = mnt;
	} else {
		close(mnt);
	}
}

static const struct { const char *name, *link; } dev_links[] = {
	{ "ptmx", "pts/ptmx" }, { "fd", "/proc/self/fd" }, { "stdin", "/proc/self/fd/0" },
	{ "stdout", "/proc/self/fd/1" }, { "stderr", "/proc/self/fd/2" },
};

/*
 * The default devices: nodes of the container's own, made in its /dev as
 * runc makes them outside a user namespace, so that chmod or chown by
 * root inside changes nothing of the host's.  Where a node cannot be
 * made (the image's /dev has that file already, or mknod is refused),
 * the host's node is bound read-only (metadata changes fail with EROFS,
 * the device itself works).
 */
static void default_devices(int root)
{
	const char *rel;
	int dev = api_fd("/dev", &rel);
	size_t i;

	if (dev >= 0 && !*rel)
		dev = fcntl(dev, F_DUPFD_CLOEXEC, 0);
	else
		dev = open_in(root, "dev", O_PATH | O_DIRECTORY, IN_ROOT);
	if (dev < 0) {
		if (errno == ENOENT)
			return;
		die_errno(EXIT_SETUP, "/dev");
	}
	for (i = 0; i < sizeof(dev_nodes) / sizeof(dev_nodes[0]); i++) {
		int fd;

		mode_t mask = umask(0);	/* 0666 as asked: no chmod by name after it */
		int r = mknodat(dev, dev_nodes[i], S_IFCHR | 0666, dev_node_rdev[i]);

		umask(mask);
		if (r == 0) {
			close(dev_node_fd[i]);
			continue;
		}
		if (errno != EEXIST && errno != EPERM)
			die_errno(EXIT_SETUP, "mknod /dev/%s", dev_nodes[i]);
		fd = openat(dev, dev_nodes[i], O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC,
			    0666);
		if (fd < 0 && errno == EEXIST)
			fd = openat(dev, dev_nodes[i], O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || mnt_attach(dev_node_fd[i], fd) < 0)
			die_errno(EXIT_SETUP, "/dev/%s", dev_nodes[i]);
		close(fd);
		close(dev_node_fd[i]);
	}
	for (i = 0; i < sizeof(dev_links) / sizeof(dev_links[0]); i++)
		if (symlinkat(dev_links[i].link, dev, dev_links[i].name) < 0 && errno != EEXIST)
			die_errno(EXIT_SETUP, "symlink /dev/%s", dev_links[i].name);
	close(dev);
}

/*
 * @path in the container (after pivot_root), O_PATH and not following a
 * last symbolic link: below an API mount, from that mount's fd with no
 * link allowed at all; elsewhere resolved in the root.
 */
static int open_target(const char *path)
{
	const char *rel;
	int base;

	if (off_apifd)
		return open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	base = api_fd(path, &rel);
	if (base < 0)
		return open_in(AT_FDCWD, path, O_PATH | O_NOFOLLOW, IN_ROOT);
	if (!*rel)
		return fcntl(base, F_DUPFD_CLOEXEC, 0);
	return open_in(base, rel, O_PATH | O_NOFOLLOW, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
}

/*
 * The proc the sysctls are written through: the container's proc mount,
 * or where the config has none, a proc of the leader's own that is never
 * attached anywhere.
 */
static int sysctl_proc(void)
{
	int i, fd;

	for (i = 0; i < napi; i++)
		if (!strcmp(api[i].type, "proc"))
			return fcntl(api[i].fd, F_DUPFD_CLOEXEC, 0);
	fd = new_fs("proc", NULL, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
		    "linux.sysctl");
	if (fd < 0)
		die_errno(EXIT_SETUP, "linux.sysctl: mount proc");
	return fd;
}

void oci_set_sysctl(const struct oci_spec *s)
{
	int i, proc = -1;

	for (i = 0; i < s->nsysctl; i++) {
		char path[PATH_MAX], *p;
		int fd;
		size_t n = strlen(s->sysctl_values[i]);

		snprintf(path, sizeof(path), "sys/%s", s->sysctl_keys[i]);
		for (p = path + 4; *p; p++)
			if (*p == '.')
				*p = '/';
		if (off_apifd) {
			char abs[PATH_MAX + 8];

			snprintf(abs, sizeof(abs), "/proc/%s", path);
			fd = open(abs, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
		} else {
			if (proc < 0)
				proc = sysctl_proc();
			fd = open_in(proc, path, O_WRONLY, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
		}
		if (fd < 0 || write(fd, s->sysctl_values[i], n) != (ssize_t)n)
			die_errno(EXIT_SETUP, "linux.sysctl: %s", s->sysctl_keys[i]);
		close(fd);
	}
	if (proc >= 0)
		close(proc);
}

/*
 * The source of a file mask: the container's /dev/null, checked to be the
 * null device (a node another process swapped for a symbolic link, or
 * for another file, between its mknod and now, would be bound writable
 * over /proc: runc's CVE-2025-31133), cloned through that checked fd.
 */
static int null_mask(void)
{
	int fd = open_target("/dev/null"), mnt;
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0)
		die_errno(EXIT_SETUP, "linux.maskedPaths: /dev/null");
	if (!S_ISCHR(st.st_mode) || st.st_rdev != makedev(1, 3))
		die(EXIT_SETUP, "linux.maskedPaths: /dev/null is not the null device");
	mnt = mnt_clone(fd, "", false);
	close(fd);
	return mnt;
}

/* After pivot_root: paths are the container's own (open_target). */
static void mask_paths(char **paths)
{
	int i;

	for (i = 0; paths && paths[i]; i++) {
		struct stat st;
		int target, mnt;

		target = open_target(paths[i]);
		if (target < 0 && errno == ENOENT)
			continue;
		if (target < 0 || fstat(target, &st) < 0)
			die_errno(EXIT_SETUP, "linux.maskedPaths: %s", paths[i]);
		if (S_ISDIR(st.st_mode))
			mnt = new_fs("tmpfs", "size=0,mode=0755", MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
				     MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, paths[i]);
		else
			mnt = null_mask();
		if (mnt < 0 || mnt_attach(mnt, target) < 0)
			die_errno(EXIT_SETUP, "linux.maskedPaths: %s", paths[i]);
		close(mnt);
		close(target);
	}
}

static void readonly_paths(char **paths)
{
	int i;

	for (i = 0; paths && paths[i]; i++) {
		int target = open_target(paths[i]), mnt;

		if (target < 0 && errno == ENOENT)
			continue;
		mnt = target < 0 ? -1 : mnt_clone(target, "", true);
		if (mnt < 0 || target < 0 ||
		    mnt_setattr(mnt, "", true, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
				MOUNT_ATTR_NODEV, 0, 0) < 0 ||
		    mnt_attach(mnt, target) < 0)
			die_errno(EXIT_SETUP, "linux.readonlyPaths: %s", paths[i]);
		close(mnt);
		close(target);
	}
}

void oci_setup_root(const struct oci_spec *s)
{
	char path[32];
	struct stat st;
	size_t i;
	int root;

	off_apifd = test_off_env() & OFF_APIFD;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		die_errno(EXIT_SETUP, "make / private");
	for (i = 0; i < sizeof(dev_nodes) / sizeof(dev_nodes[0]); i++) {
		snprintf(path, sizeof(path), "/dev/%s", dev_nodes[i]);
		dev_node_fd[i] = mnt_clone(AT_FDCWD, path, false);
		if (dev_node_fd[i] < 0 || fstat(dev_node_fd[i], &st) < 0 ||
		    mnt_setattr(dev_node_fd[i], "", false, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
				MOUNT_ATTR_NOEXEC, 0, 0) < 0)
			die_errno(EXIT_SETUP, "%s", path);
		dev_node_rdev[i] = st.st_rdev;
	}
	host_sys = mnt_clone(AT_FDCWD, "/sys", false);
	if (host_sys >= 0 && mnt_setattr(host_sys, "", false, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
					 MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, 0, 0) < 0)
		die_errno(EXIT_SETUP, "make /sys read-only");

	root = mnt_clone(AT_FDCWD, s->root, true);
	if (root < 0 || mnt_attach_at(root, AT_FDCWD, s->root) < 0)
		die_errno(EXIT_SETUP, "root.path: bind %s onto itself", s->root);
	if (fchdir(root) < 0 || in_root_init(&container_root, root) < 0)
		die_errno(EXIT_SETUP, "root.path: %s", s->root);
	for (i = 0; i < (size_t)s->nmounts; i++)
		do_mount(root, &s->mounts[i]);
	default_devices(root);
	if (host_sys >= 0)
		close(host_sys);
	test_pause("mounted");

	if (sys_pivot_root(".", ".") < 0)
		die_errno(EXIT_SETUP, "pivot_root into %s", s->root);
	if (umount2(".", MNT_DETACH) < 0)
		die_errno(EXIT_SETUP, "detach the old root");
	if (chdir("/") < 0)
		die_errno(EXIT_SETUP, "chdir /");
	close(root);
	oci_set_sysctl(s);
	mask_paths(s->masked);
	readonly_paths(s->readonly);
	if (s->root_readonly) {
		int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

		if (fd < 0 || mnt_setattr(fd, "", false, MOUNT_ATTR_RDONLY, 0, 0) < 0)
			die_errno(EXIT_SETUP, "root.readonly");
		close(fd);
	}
}

/* Setup is over: the kept mounts' fds go. */
void oci_setup_done(void)
{
	while (napi > 0)
		close(api[--napi].fd);
}

int oci_connect_console(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path))
		oci_fail(EXIT_SETUP, "--console-socket %s: path too long", path);
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		oci_fail(EXIT_SETUP, "--console-socket %s: %s", path, strerror(errno));
	return fd;
}

int oci_send_fd(int sock, int fd, const char *name)
{
	char control[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = (void *)name, .iov_len = strlen(name) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control, .msg_controllen = sizeof(control),
	};
	struct cmsghdr *c;

	memset(control, 0, sizeof(control));
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) < 0 ? -1 : 0;
}

/*
 * process.terminal: a pty of the container's own devpts; its master goes
 * to the engine through --console-socket, its other end becomes our
 * controlling terminal and stdio.
 */
void oci_setup_console(int sock, const struct oci_process *p)
{
	int master, slave, unlock = 0;
	char name[64];
	struct winsize ws = { .ws_row = p->rows, .ws_col = p->cols };

	struct statfs sfs;
	const char *rel;
	int dev = api_fd("/dev/pts/ptmx", &rel);

	/* The container's devpts, from the /dev mount's fd when it is ours. */
	if (dev >= 0)
		master = open_in(dev, rel, O_RDWR | O_NOCTTY, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
	else
		master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0)
		die_errno(EXIT_SETUP, "process.terminal: /dev/ptmx");
	if (fstatfs(master, &sfs) < 0 || sfs.f_type != DEVPTS_SUPER_MAGIC)
		die(EXIT_SETUP, "process.terminal: /dev/ptmx is not a devpts ptmx");
	if (ioctl(master, TIOCSPTLCK, &unlock) < 0)
		die_errno(EXIT_SETUP, "process.terminal: unlock the pty");
	slave = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY);
	if (slave < 0)
		die_errno(EXIT_SETUP, "process.terminal: open the pty");
	if (ptsname_r(master, name, sizeof(name)))
		snprintf(name, sizeof(name), "/dev/pts/?");
	if ((p->rows || p->cols) && ioctl(slave, TIOCSWINSZ, &ws) < 0)
		die_errno(EXIT_SETUP, "process.consoleSize");
	if (oci_send_fd(sock, master, name) < 0)
		die_errno(EXIT_SETUP, "--console-socket: send the pty");
	close(master);
	close(sock);
	setsid();
	if (ioctl(slave, TIOCSCTTY, 0) < 0)
		die_errno(EXIT_SETUP, "process.terminal: make the pty our terminal");
	if (dup2(slave, 0) < 0 || dup2(slave, 1) < 0 || dup2(slave, 2) < 0)
		die_errno(EXIT_SETUP, "process.terminal: dup2");
	if (slave > 2)
		close(slave);
}

static const char *env_get(char **env, const char *name)
{
	size_t n = strlen(name);

	for (; env && *env; env++)
		if (!strncmp(*env, name, n) && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

/* args[0] as execvp would find it, with the process's own PATH. */
char *oci_find_executable(const struct oci_process *p)
{
	const char *cmd = p->args[0], *path = env_get(p->env, "PATH");
	char *copy, *dir, *save = NULL, buf[PATH_MAX];
	struct stat st;

	if (strchr(cmd, '/')) {
		if (stat(cmd, &st) < 0)
			return NULL;
		return strdup(cmd);
	}
	copy = strdup(path ? path : DEFAULT_PATH);
	for (dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		snprintf(buf, sizeof(buf), "%s/%s", *dir ? dir : ".", cmd);
		if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0) {
			free(copy);
			return strdup(buf);
		}
	}
	free(copy);
	errno = ENOENT;
	return NULL;
}

static void set_caps(const struct oci_process *p)
{
	cap_value_t cap, max = (cap_value_t)cap_max_bits();
	cap_t want = cap_init();
	static const cap_flag_t sets[] = { CAP_EFFECTIVE, CAP_INHERITABLE, CAP_PERMITTED };
	static const int idx[] = { CAPSET_EFFECTIVE, CAPSET_INHERITABLE, CAPSET_PERMITTED };
	size_t k;

	if (!want)
		die_errno(EXIT_SETUP, "capabilities");
	for (cap = 0; cap < max && cap <= 63; cap++)
		for (k = 0; k < 3; k++)
			if (p->caps[idx[k]] & (1ULL << cap) &&
			    cap_set_flag(want, sets[k], 1, &cap, CAP_SET))
				die_errno(EXIT_SETUP, "capabilities");
	if (cap_set_proc(want) < 0)
		die_errno(EXIT_SETUP, "process.capabilities: set them");
	cap_free(want);
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		die_errno(EXIT_SETUP, "clear the ambient capabilities");
	for (cap = 0; cap < max && cap <= 63; cap++)
		if (p->caps[CAPSET_AMBIENT] & (1ULL << cap) &&
		    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0) < 0)
			die_errno(EXIT_SETUP, "process.capabilities.ambient: %s", cap_to_name(cap));
}

void oci_load_seccomp(void *ctx)
{
	int r;

	if (!ctx)
		return;
	r = seccomp_load(ctx);
	if (r < 0) {
		errno = -r;
		die_errno(EXIT_SETUP, "linux.seccomp: load the filter");
	}
}

/*
 * The process's privileges, in runc's order: rlimits (raising a hard one
 * needs CAP_SYS_RESOURCE), the bounding set, the seccomp filter while
 * CAP_SYS_ADMIN is still there (or, with noNewPrivileges, last), the
 * user and groups with the permitted set kept, the capability sets, the
 * umask and the working directory.
 */
/* /proc/self/oom_score_adj of this process (inherited by its children). */
void oci_set_oom_score_adj(int adj)
{
	char buf[16];
	int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC), n;

	n = snprintf(buf, sizeof(buf), "%d", adj);
	if (fd < 0 || write(fd, buf, n) != n)
		die_errno(EXIT_SETUP, "process.oomScoreAdj");
	close(fd);
}

void oci_lock_down(const struct oci_process *p, void *ctx)
{
	cap_value_t cap, max = (cap_value_t)cap_max_bits();
	char cwd[PATH_MAX];
	int i;

	for (i = 0; i < p->nrlimits; i++)
		if (setrlimit(p->rlimits[i].resource, &p->rlimits[i].limit) < 0)
			die_errno(EXIT_SETUP, "process.rlimits[%d]", i);
	if (p->has_oom_score_adj) {
		char buf[16], path[32];
		int proc = sysctl_proc(), fd, n;

		/* Through a proc known to be one (see struct api_mount). */
		snprintf(path, sizeof(path), "%d/oom_score_adj", (int)getpid());
		fd = open_in(proc, path, O_WRONLY, RESOLVE_BENEATH | NO_LINKS);
		n = snprintf(buf, sizeof(buf), "%d", p->oom_score_adj);
		if (fd < 0 || write(fd, buf, n) != n)
			die_errno(EXIT_SETUP, "process.oomScoreAdj");
		close(fd);
		close(proc);
	}
	for (cap = 0; cap < max && cap <= 63; cap++)
		if (!(p->caps[CAPSET_BOUNDING] & (1ULL << cap)) && cap_drop_bound(cap) < 0)
			die_errno(EXIT_SETUP, "drop %s from the bounding set", cap_to_name(cap));
	if (!p->no_new_privileges)
		oci_load_seccomp(ctx);
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
		die_errno(EXIT_SETUP, "prctl(PR_SET_KEEPCAPS)");
	if (setgroups(p->ngroups, p->groups) < 0)
		die_errno(EXIT_SETUP, "process.user.additionalGids");
	if (setresgid(p->gid, p->gid, p->gid) < 0)
		die_errno(EXIT_SETUP, "process.user.gid %u", (unsigned int)p->gid);
	if (setresuid(p->uid, p->uid, p->uid) < 0)
		die_errno(EXIT_SETUP, "process.user.uid %u", (unsigned int)p->uid);
	/* A changed euid resets "dumpable" to fs.suid_dumpable: set it again. */
	make_undumpable();
	if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0)
		die_errno(EXIT_SETUP, "prctl(PR_SET_KEEPCAPS)");
	set_caps(p);
	if (p->no_new_privileges && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die_errno(EXIT_SETUP, "prctl(PR_SET_NO_NEW_PRIVS)");
	umask(p->has_umask ? p->umask : 022);
	if (chdir(p->cwd) < 0)
		die_errno(EXIT_SETUP, "process.cwd %s", p->cwd);
	/* A cwd outside the container's root (a leaked fd) is refused. */
	if (!getcwd(cwd, sizeof(cwd)) || cwd[0] != '/')
		die(EXIT_SETUP, "process.cwd %s: outside the container's root", p->cwd);
}

void oci_exec_process(const struct oci_process *p)
{
	static char *empty[] = { NULL };
	char *path;

	/* With noNewPrivileges the filter comes last, as runc loads it. */
	path = oci_find_executable(p);
	if (!path)
		die_errno(EXIT_NOT_FOUND, "process.args[0] %s", p->args[0]);
	execve(path, p->args, p->env ? p->env : empty);
	die_errno(errno == ENOENT || errno == ENOTDIR ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN,
		  "process.args[0] %s", path);
}
