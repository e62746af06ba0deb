// SPDX-License-Identifier: GPL-2.0
/*
 * What the user adds to the container's file system: --bind SRC[:DST[:OPTS]],
 * --bind-ro, --tmpfs DST[:OPTS], --read-only, --ephemeral; and the
 * loopback of --private-network.
 *
 * SRC is the caller's: it is resolved on the host, as ROOT is, and cloned
 * (open_tree) before anything in ROOT is looked at.  DST is ROOT's, and
 * ROOT is not trusted: DST must be absolute with no "." or ".." component,
 * and it is looked up one component at a time with openat2() and
 * RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS from ROOT's fd, so that a
 * symbolic link on the way ("mnt -> /etc", "a -> ../../..") is followed
 * as if ROOT were "/", never onto the host.  A missing component is
 * created with mkdirat() in the directory fd that lookup gave (a single
 * name, no path), and opened again the same way: whatever a process that
 * shares ROOT swaps in between (a link for a directory), the next lookup
 * stays in ROOT.  The mount goes onto the final fd (move_mount).  A DST
 * that leads back to ROOT itself is refused, as for the API mounts.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pspace-run.h"
#include "mnt.h"
#include "sys.h"

/* --- parsing, in pspace-run before anything is created ------------------- */

/* Mount flags that OPTS may name; the rest of a --tmpfs OPTS goes to tmpfs. */
static const struct {
	const char *name;
	uint64_t set, clear;
} flag_opts[] = {
	{ "ro", MOUNT_ATTR_RDONLY, 0 }, { "rw", 0, MOUNT_ATTR_RDONLY },
	{ "nosuid", MOUNT_ATTR_NOSUID, 0 }, { "suid", 0, MOUNT_ATTR_NOSUID },
	{ "nodev", MOUNT_ATTR_NODEV, 0 }, { "dev", 0, MOUNT_ATTR_NODEV },
	{ "noexec", MOUNT_ATTR_NOEXEC, 0 }, { "exec", 0, MOUNT_ATTR_NOEXEC },
};

static bool flag_opt(const char *opt, uint64_t *attr)
{
	size_t i;

	for (i = 0; i < sizeof(flag_opts) / sizeof(flag_opts[0]); i++)
		if (!strcmp(opt, flag_opts[i].name)) {
			*attr = (*attr | flag_opts[i].set) & ~flag_opts[i].clear;
			return true;
		}
	return false;
}

static void bad_mount(const char *option, const char *arg, const char *why)
{
	die(EXIT_SETUP, "%s %s: %s", option, arg, why);
}

/* DST: absolute, no "." or ".." component, not "/" itself. */
static void check_dst(const struct config *cfg, const char *option, const char *arg,
		      const char *dst)
{
	const char *p = dst;

	(void)cfg;
	if (dst[0] != '/')
		bad_mount(option, arg, "DST must be an absolute path");
	if (TEST_OFF(cfg, OFF_INROOT))
		return;	/* the fixture takes "..", as a naive launcher would */
	while (*p) {
		size_t n;

		p += strspn(p, "/");
		n = strcspn(p, "/");
		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			bad_mount(option, arg, "DST has a '.' or '..' component");
		p += n;
	}
	if (!dst[strspn(dst, "/")])
		bad_mount(option, arg, "DST is the container's / itself");
	if (strlen(dst) >= PATH_MAX)
		bad_mount(option, arg, "DST is too long");
}

/*
 * --bind SRC[:DST[:OPTS]] (OPTS: ro, rw, rbind, norbind, nosuid, nodev,
 * noexec...), --bind-ro SRC[:DST], --tmpfs DST[:OPTS].  0 or dies (125).
 */
int parse_mount_opt(struct config *cfg, int type, const char *arg)
{
	const char *option = type == 'b' ? "--bind" : type == 'r' ? "--bind-ro" : "--tmpfs";
	struct mount_opt *m;
	char *copy, *first, *second, *rest, *opt, *save = NULL;
	static char tmpfs_opts[MAX_MOUNTS][256];
	size_t used = 0;

	if (cfg->nmounts == MAX_MOUNTS)
		die(EXIT_SETUP, "%s: more than %d mounts", option, MAX_MOUNTS);
	m = &cfg->mounts[cfg->nmounts];
	memset(m, 0, sizeof(*m));
	m->arg = arg;
	copy = strdup(arg);
	if (!copy)
		die_errno(EXIT_SETUP, "%s", option);
	first = copy;
	second = strchr(first, ':');
	rest = NULL;
	if (second) {
		*second++ = '\0';
		rest = strchr(second, ':');
		if (rest)
			*rest++ = '\0';
	}
	if (!*first)
		bad_mount(option, arg, type == 't' ? "DST is empty" : "SRC is empty");
	if (type == 't') {
		if (rest)
			bad_mount(option, arg, "takes DST[:OPTS]");
		m->type = MNT_TMPFS;
		m->dst = first;
		m->attr = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
		tmpfs_opts[cfg->nmounts][0] = '\0';
		for (opt = second ? strtok_r(second, ",", &save) : NULL; opt;
		     opt = strtok_r(NULL, ",", &save)) {
			if (flag_opt(opt, &m->attr))
				continue;
			used += snprintf(tmpfs_opts[cfg->nmounts] + used,
					 used < 256 ? 256 - used : 0, "%s%s", used ? "," : "", opt);
			if (used >= 256)
				bad_mount(option, arg, "OPTS too long");
		}
		if (!used)
			snprintf(tmpfs_opts[cfg->nmounts], 256, "mode=0755");
		m->fs_opts = tmpfs_opts[cfg->nmounts];
	} else {
		m->type = MNT_BIND;
		m->src = first;
		m->dst = second && *second ? second : first;
		m->recursive = true;
		if (type == 'r') {
			if (rest)
				bad_mount(option, arg, "takes SRC[:DST] (it is read-only)");
			m->attr = MOUNT_ATTR_RDONLY;
		}
		for (opt = rest ? strtok_r(rest, ",", &save) : NULL; opt;
		     opt = strtok_r(NULL, ",", &save)) {
			if (!strcmp(opt, "rbind"))
				m->recursive = true;
			else if (!strcmp(opt, "norbind"))
				m->recursive = false;
			else if (!flag_opt(opt, &m->attr)) {
				char why[160];

				snprintf(why, sizeof(why), "unknown option '%.64s' (ro, rw, rbind, norbind, nosuid, nodev, noexec)", opt);
				bad_mount(option, arg, why);
			}
		}
	}
	check_dst(cfg, option, arg, m->dst);
	cfg->nmounts++;
	return 0;
}

/*
 * In pspace-run, before the clone: every SRC must exist (resolved once,
 * as ROOT is), every --tmpfs OPTS must be taken by tmpfs (tried on a file
 * system context that is never created), and the combinations must make
 * sense.  Nothing is left behind by a failure here.
 */
void check_mount_sources(struct config *cfg)
{
	int i;

	if (cfg->ephemeral && cfg->read_only)
		die(EXIT_SETUP, "--ephemeral and --read-only exclude each other");
	for (i = 0; i < cfg->nmounts; i++) {
		struct mount_opt *m = &cfg->mounts[i];
		const char *option = m->type == MNT_TMPFS ? "--tmpfs" :
				     m->attr & MOUNT_ATTR_RDONLY ? "--bind(-ro)" : "--bind";

		if (m->type == MNT_TMPFS) {
			const char *bad;
			int fs = mnt_fs_context("tmpfs", m->fs_opts, &bad);

			if (fs < 0 && bad)
				die_errno(EXIT_SETUP, "--tmpfs %s: option '%s'", m->arg, bad);
			if (fs < 0)
				die_errno(EXIT_SETUP, "--tmpfs %s", m->arg);
			close(fs);
		} else {
			struct stat st;
			char *real;

			if (stat(m->src, &st) < 0)
				die_errno(EXIT_SETUP, "%s %s: SRC %s", option, m->arg, m->src);
			real = realpath(m->src, NULL);
			if (!real)
				die_errno(EXIT_SETUP, "%s %s: SRC %s", option, m->arg, m->src);
			m->src = real;
			m->src_dir = S_ISDIR(st.st_mode);
		}
	}
}

/* --- in the leader, in its own mount namespace ------------------------- */

/* --private-network: the loopback up, nothing else there. */
void bring_lo_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		die_errno(EXIT_SETUP, "--private-network: lo");
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		die_errno(EXIT_SETUP, "--private-network: bring lo up");
	close(fd);
}

/*
 * --ephemeral: an overlay whose lower layer is ROOT and whose upper and
 * work directories are on a tmpfs that is mounted nowhere but in the
 * overlay, attached onto ROOT in our mount namespace only.  It goes with
 * the namespace, when the container ends.  The layers are named by our
 * fds (/proc/self/fd/N), not by paths anyone else could change.  Returns
 * an fd of the overlay's root; the working directory is moved into it.
 */
int ephemeral_root(const struct config *cfg)
{
	char lower[64], upper[64], work[64];
	const char *bad;
	struct stat st;
	int root, tmp, ov, mnt;

	root = open(root_path(cfg), O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0 || fstat(root, &st) < 0)
		die_errno(EXIT_SETUP, "--ephemeral: %s", cfg->root);
	tmp = mnt_new_fs("tmpfs", "mode=0755", 0, &bad);
	if (tmp < 0)
		die_errno(EXIT_SETUP, "--ephemeral: tmpfs");
	/*
	 * overlayfs takes private clones of its layers, which it refuses
	 * for a detached mount ("failed to clone upperpath"): the tmpfs is
	 * attached onto ROOT first, in our mount namespace only (ROOT itself
	 * is named by the fd taken before), and the overlay goes on top.
	 */
	if (mnt_attach_at(tmp, AT_FDCWD, root_path(cfg)) < 0)
		die_errno(EXIT_SETUP, "--ephemeral: attach the tmpfs onto %s", cfg->root);
	/* The overlay's "/" is the upper directory's: ROOT's owner and mode. */
	if (mkdirat(tmp, "upper", 0755) < 0 || mkdirat(tmp, "work", 0700) < 0 ||
	    fchownat(tmp, "upper", st.st_uid, st.st_gid, AT_SYMLINK_NOFOLLOW) < 0 ||
	    fchmodat(tmp, "upper", st.st_mode & 07777, 0) < 0)
		die_errno(EXIT_SETUP, "--ephemeral: the upper directory");
	snprintf(lower, sizeof(lower), "/proc/self/fd/%d", root);
	snprintf(upper, sizeof(upper), "/proc/self/fd/%d/upper", tmp);
	snprintf(work, sizeof(work), "/proc/self/fd/%d/work", tmp);
	ov = sys_fsopen("overlay", FSOPEN_CLOEXEC);
	if (ov < 0)
		die_errno(EXIT_SETUP, "--ephemeral: overlay (CONFIG_OVERLAY_FS?)");
	if (sys_fsconfig(ov, FSCONFIG_SET_STRING, "lowerdir+", lower, 0) < 0 &&
	    sys_fsconfig(ov, FSCONFIG_SET_STRING, "lowerdir", lower, 0) < 0)
		die_errno(EXIT_SETUP, "--ephemeral: overlay lower layer %s", cfg->root);
	if (sys_fsconfig(ov, FSCONFIG_SET_STRING, "upperdir", upper, 0) < 0 ||
	    sys_fsconfig(ov, FSCONFIG_SET_STRING, "workdir", work, 0) < 0 ||
	    (mnt = mnt_create(ov, 0)) < 0)
		die_errno(EXIT_SETUP, "--ephemeral: overlay of %s", cfg->root);
	close(tmp);
	close(root);
	if (mnt_attach_at(mnt, AT_FDCWD, root_path(cfg)) < 0)
		die_errno(EXIT_SETUP, "--ephemeral: attach the overlay onto %s", cfg->root);
	if (fchdir(mnt) < 0)
		die_errno(EXIT_SETUP, "%s", cfg->root);
	verbose(cfg, "--ephemeral: an overlay of %s on a tmpfs", cfg->root);
	return mnt;
}

/*
 * DST opened as O_PATH inside ROOT (@root), each missing component made
 * on the way (directories; the last one an empty file when @dir is
 * false), a dangling link followed inside ROOT (inroot.c).  With
 * @quiet, -1 on a failure instead of dying.
 */
static int make_target(const struct config *cfg, int root, const struct mount_opt *m, bool dir,
		       bool quiet)
{
	const char *option = m->type == MNT_TMPFS ? "--tmpfs" : "--bind";
	struct in_root r;
	struct stat st;
	int fd = -1;

	(void)cfg;
	if (in_root_init(&r, root) < 0)
		goto fail_errno;
	r.naive = TEST_OFF(cfg, OFF_INROOT);
	fd = in_root_open(&r, m->dst, IN_ROOT_CREATE | (dir ? IN_ROOT_DIR : IN_ROOT_FILE));
	if (fd == IN_ROOT_IS_ROOT) {
		if (quiet)
			return -1;
		die(EXIT_SETUP, "%s %s: DST leads back to the container's / (a symbolic link to /?)",
		    option, m->arg);
	}
	if (fd < 0 || fstat(fd, &st) < 0)
		goto fail_errno;
	if (!dir && S_ISDIR(st.st_mode)) {
		if (quiet)
			goto fail;
		die(EXIT_SETUP, "%s %s: DST %s is a directory, SRC is not", option, m->arg, m->dst);
	}
	return fd;
fail_errno:
	if (!quiet)
		die_errno(EXIT_SETUP, "%s %s: DST %s", option, m->arg, m->dst);
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

/* The sources of --bind, cloned before anything in ROOT is looked at. */
static int source_fd[MAX_MOUNTS];

static void clone_sources(const struct config *cfg)
{
	int i;

	for (i = 0; i < cfg->nmounts; i++) {
		const struct mount_opt *m = &cfg->mounts[i];

		source_fd[i] = -1;
		if (m->type != MNT_BIND || m->host_side)
			continue;
		source_fd[i] = mnt_clone(AT_FDCWD, m->src, m->recursive);
		if (source_fd[i] < 0)
			die_errno(EXIT_SETUP, "--bind %s: SRC %s", m->arg, m->src);
		if (m->attr && mnt_setattr(source_fd[i], "", true, m->attr, 0, 0) < 0)
			die_errno(EXIT_SETUP, "--bind %s: OPTS", m->arg);
	}
}

/*
 * Before --read-only makes ROOT read-only: the bind sources cloned, and the
 * mount points in ROOT made (not those below /dev, /run, /proc, /sys or
 * /tmp, which are file systems of ours by then).  Called with or without
 * --read-only, right after ROOT is bound (or overlaid).
 */
void prepare_user_mounts(const struct config *cfg, int root)
{
	clone_sources(cfg);
	/* In a user namespace of root's, pspace-run did both, locked (userns.c). */
	if (!cfg->read_only || (cfg->private_users && !TEST_OFF(cfg, OFF_PURO)))
		return;
	make_mount_points(cfg, root);
	if (mnt_setattr(root, "", true, MOUNT_ATTR_RDONLY, 0, 0) < 0)
		die_errno(EXIT_SETUP, "--read-only: %s", cfg->root);
	verbose(cfg, "--read-only: %s", cfg->root);
}

/* Is @dst below one of the file systems the leader mounts (or /tmp)? */
static bool below_api(const char *dst)
{
	static const char *const ours[] = { "dev", "run", "proc", "sys", "tmp" };
	const char *top = dst + strspn(dst, "/");
	size_t j;

	for (j = 0; j < sizeof(ours) / sizeof(ours[0]); j++)
		if (!strncmp(top, ours[j], strlen(ours[j])) &&
		    (!top[strlen(ours[j])] || top[strlen(ours[j])] == '/'))
			return true;
	return false;
}

/*
 * --read-only: the mount points of --bind and --tmpfs made in ROOT (@root
 * a directory fd of it), as they cannot be once it is read-only; not those
 * below /dev, /run, /proc, /sys or /tmp, file systems of ours by then.
 * Also from the host side for --private-users (userns.c).
 */
void make_mount_points(const struct config *cfg, int root)
{
	int i;

	for (i = 0; i < cfg->nmounts; i++) {
		const struct mount_opt *m = &cfg->mounts[i];
		int fd;

		if (below_api(m->dst))
			continue;
		fd = make_target(cfg, root, m, m->type == MNT_TMPFS || m->src_dir, true);
		if (fd >= 0)
			close(fd);
	}
}

/* Is @a a leading path of @b ("/a/b" of "/a/b/c" and of itself)? */
static bool path_prefix(const char *a, const char *b)
{
	size_t n = strlen(a);

	while (n > 1 && a[n - 1] == '/')
		n--;
	return !strncmp(a, b, n) && (!b[n] || b[n] == '/' || (n == 1 && a[0] == '/'));
}

/*
 * --private-users (userns.c): --bind mounts made here, in pspace-run's own
 * mount namespace, on the idmapped ROOT, before the container's is copied
 * from it: the copy locks them (MNT_LOCKED, MNT_LOCK_READONLY, ... and
 * each submount of a recursive bind), so that root inside can neither
 * remount a --bind-ro read-write nor take a bind away.  Their sources are
 * not idmapped: their files' owners are shifted as everything outside ROOT.
 *
 * They go in before every mount the leader makes, so only the leading run
 * of --bind options may: it ends at the first one that is not a --bind,
 * has a DST below /dev, /run, /proc, /sys or /tmp (the leader's file
 * systems cover those) or not in its plain form, lies below or above an
 * earlier DST (nested binds are made by the leader, as the container's
 * root), goes through a symbolic link in ROOT, or lies in one of ROOT's
 * API directories by another name (/var/run with run -> var/run).  The
 * rest, and everything with --ephemeral, the leader makes, in order,
 * unlocked.
 */
static int host_src[MAX_MOUNTS];
static int host_run;	/* mounts[0 .. host_run - 1] are candidates */

/* "/a/b": no empty component, no trailing slash. */
static bool plain_dst(const char *dst)
{
	size_t n = strlen(dst);

	return dst[0] == '/' && !strstr(dst, "//") && (n == 1 || dst[n - 1] != '/');
}

/*
 * Before anything in ROOT is looked at, as for the leader's binds: the
 * sources of the leading run, cloned.
 */
void host_bind_sources(const struct config *cfg)
{
	int i, j;

	host_run = 0;
	if (cfg->ephemeral || TEST_OFF(cfg, OFF_PURO))
		return;
	for (i = 0; i < cfg->nmounts; i++) {
		const struct mount_opt *m = &cfg->mounts[i];
		bool related = false;

		if (m->type != MNT_BIND || below_api(m->dst) || !plain_dst(m->dst))
			break;
		for (j = 0; j < i; j++)
			if (path_prefix(cfg->mounts[j].dst, m->dst) ||
			    path_prefix(m->dst, cfg->mounts[j].dst))
				related = true;
		if (related)
			break;
		host_src[i] = mnt_clone(AT_FDCWD, m->src, m->recursive);
		if (host_src[i] < 0)
			die_errno(EXIT_SETUP, "--bind %s: SRC %s", m->arg, m->src);
	}
	host_run = i;
}

/* Does @dst, or a directory on its way, open as one of @api (@n of them)? */
static bool in_api_dir(int root, const char *dst, const struct stat *api, int n)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS,
	};
	char path[PATH_MAX];
	size_t len;
	int j;

	snprintf(path, sizeof(path), "%s", dst);
	for (len = strlen(path); len > 1; len = strrchr(path, '/') - path) {
		struct stat st;
		int fd;

		path[len] = '\0';
		fd = sys_openat2(root, path, &how);
		if (fd < 0)
			return true;	/* a link, or changed under us: the leader's */
		if (fstat(fd, &st) < 0) {
			close(fd);
			return true;
		}
		close(fd);
		for (j = 0; j < n; j++)
			if (st.st_dev == api[j].st_dev && st.st_ino == api[j].st_ino)
				return true;
	}
	return false;
}

/*
 * The leading run's binds onto ROOT (@root, its idmapped mount), their
 * mount points made as the container's root (fsuid @cfg->pu_base: through
 * the idmap, root's on disk, and only where root inside may write).
 */
void host_binds(struct config *cfg, int root)
{
	static const char *const api_dirs[] = { "/dev", "/run", "/proc", "/sys", "/tmp" };
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS,
	};
	struct stat api[5];
	int i, j, n = 0;

	/*
	 * The API directories, each a directory of that name (no link,
	 * present): else where the leader's mounts go depends on links a
	 * bind could change or cover, and every bind is the leader's.
	 */
	for (j = 0; j < 5 && host_run; j++) {
		struct open_how dir = how;
		int fd;

		dir.flags |= O_DIRECTORY;
		fd = sys_openat2(root, api_dirs[j], &dir);
		if (fd < 0 || fstat(fd, &api[n]) < 0) {
			verbose(cfg, "--bind: ROOT's %s is not a plain directory: every bind made "
				"inside, unlocked", api_dirs[j]);
			i = 0;
			if (fd >= 0)
				close(fd);
			goto out;
		}
		n++;
		close(fd);
	}
	for (i = 0; i < host_run; i++) {
		struct mount_opt *m = &cfg->mounts[i];
		struct stat st, got;
		int target = -1, fd = -1;
		bool same = false;

		/*
		 * As the container's root, through the idmap: no DAC override
		 * (what needs it is the leader's), nothing made in a SRC of
		 * the host's with the host root's rights.
		 */
		setfsgid(cfg->pu_base);
		setfsuid(cfg->pu_base);
		if ((uid_t)setfsuid(-1) == cfg->pu_base && (gid_t)setfsgid(-1) == cfg->pu_base)
			target = make_target(cfg, root, m, m->src_dir, true);
		/* Where a lookup without links leads too, and not an API dir. */
		if (target >= 0)
			fd = sys_openat2(root, m->dst, &how);
		same = fd >= 0 && fstat(fd, &st) == 0 && fstat(target, &got) == 0 &&
		       st.st_dev == got.st_dev && st.st_ino == got.st_ino &&
		       !in_api_dir(root, m->dst, api, n);
		setfsuid(0);
		setfsgid(0);
		if (fd >= 0)
			close(fd);
		if (!same) {
			if (target >= 0)
				close(target);
			break;
		}
		if (m->src_dir && !S_ISDIR(got.st_mode))
			die(EXIT_SETUP, "--bind %s: DST %s is not a directory, SRC is", m->arg, m->dst);
		if (m->attr && mnt_setattr(host_src[i], "", true, m->attr, 0, 0) < 0)
			die_errno(EXIT_SETUP, "--bind %s: OPTS", m->arg);
		if (mnt_attach(host_src[i], target) < 0)
			die_errno(EXIT_SETUP, "--bind %s: mount onto DST %s", m->arg, m->dst);
		close(host_src[i]);
		close(target);
		m->host_side = true;
		verbose(cfg, "--bind %s (made by pspace-run, locked)", m->arg);
	}
out:
	for (; i < host_run; i++)
		close(host_src[i]);
	host_run = 0;
}

/* --read-only: a tmpfs on /tmp, as the API file systems are writable. */
static void mount_tmp(const struct config *cfg, int root)
{
	struct in_root r;
	const char *bad;
	int mnt, target;

	if (in_root_init(&r, root) < 0)
		die_errno(EXIT_SETUP, "%s", cfg->root);
	target = in_root_open(&r, "tmp", IN_ROOT_DIR);
	if (target == IN_ROOT_IS_ROOT)
		die(EXIT_SETUP, "%s/tmp: leads back to ROOT itself", cfg->root);
	if (target < 0)
		return;	/* ROOT has no /tmp: skipped, as the API mounts are */
	mnt = mnt_new_fs("tmpfs", "mode=1777", MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, &bad);
	if (mnt < 0 || mnt_attach(mnt, target) < 0)
		die_errno(EXIT_SETUP, "mount tmpfs on /tmp");
	close(mnt);
	close(target);
}

/* After the API file systems: the user's mounts, in command-line order. */
void user_mounts(const struct config *cfg, int root)
{
	int i;

	if (cfg->read_only)
		mount_tmp(cfg, root);
	for (i = 0; i < cfg->nmounts; i++) {
		const struct mount_opt *m = &cfg->mounts[i];
		int target, mnt;

		if (m->host_side)
			continue;
		if (m->type == MNT_TMPFS) {
			const char *bad;

			mnt = mnt_new_fs("tmpfs", m->fs_opts, m->attr, &bad);
			if (mnt < 0)
				die_errno(EXIT_SETUP, "--tmpfs %s", m->arg);
			target = make_target(cfg, root, m, true, false);
		} else {
			mnt = source_fd[i];
			target = make_target(cfg, root, m, m->src_dir, false);
			if (m->src_dir) {
				struct stat st;

				if (fstat(target, &st) < 0 || !S_ISDIR(st.st_mode))
					die(EXIT_SETUP, "--bind %s: DST %s is not a directory, SRC is",
					    m->arg, m->dst);
			}
		}
		if (mnt_attach(mnt, target) < 0)
			die_errno(EXIT_SETUP, "%s %s: mount onto DST %s",
				  m->type == MNT_TMPFS ? "--tmpfs" : "--bind", m->arg, m->dst);
		close(mnt);
		close(target);
		verbose(cfg, "%s %s", m->type == MNT_TMPFS ? "--tmpfs" : "--bind", m->arg);
	}
}
