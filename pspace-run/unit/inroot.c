// SPDX-License-Identifier: GPL-2.0
/*
 * The one resolver of mount points (inroot.c), on a hostile root made
 * in the scratch directory: links to "/", "..", loops, dangling links
 * that would make files on the host if followed the ordinary way.
 * openat2() needs no privilege, so all of it runs on the host.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../mnt.h"
#include "unit.h"

static char root[PATH_MAX], host[PATH_MAX];

static void make(const char *kind, const char *path, const char *target)
{
	char full[PATH_MAX * 2];
	int r;

	snprintf(full, sizeof(full), "%s/%s", root, path);
	if (!strcmp(kind, "dir"))
		r = mkdir(full, 0755);
	else if (!strcmp(kind, "file"))
		r = close(open(full, O_CREAT | O_WRONLY, 0644));
	else
		r = symlink(target, full);
	if (r < 0) {
		perror(full);
		exit(2);
	}
}

/* What in_root_open(@path, @flags) gives, as "fd", "root" or an errno name. */
static const char *resolve(const char *path, int flags, bool naive, struct stat *st)
{
	static char buf[32];
	struct in_root r;
	int dir = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC), fd;

	if (dir < 0 || in_root_init(&r, dir) < 0)
		return "setup";
	r.naive = naive;
	errno = 0;
	fd = in_root_open(&r, path, flags);
	close(dir);
	if (fd == IN_ROOT_IS_ROOT)
		return "root";
	if (fd < 0) {
		snprintf(buf, sizeof(buf), "%s", errno == ENOENT ? "ENOENT" : errno == EINVAL ? "EINVAL" :
			 errno == ELOOP ? "ELOOP" : errno == ENOTDIR ? "ENOTDIR" : "other");
		return buf;
	}
	if (st)
		fstat(fd, st);
	close(fd);
	return "fd";
}

static bool exists(const char *base, const char *path, mode_t type)
{
	char full[PATH_MAX * 2];
	struct stat st;

	snprintf(full, sizeof(full), "%s/%s", base, path);
	return lstat(full, &st) == 0 && (st.st_mode & S_IFMT) == type;
}

#define IS(got, want, ...) do { \
	const char *got_ = (got); \
	if (!ok(!strcmp(got_, want), __VA_ARGS__)) \
		diag("got %s, want %s", got_, want); \
} while (0)

void unit_inroot(void)
{
	const int C = IN_ROOT_CREATE;
	struct stat st;

	snprintf(root, sizeof(root), "%s/root", scratch_dir());
	snprintf(host, sizeof(host), "%s/host", scratch_dir());
	if (mkdir(root, 0755) < 0 || mkdir(host, 0755) < 0) {
		perror(root);
		exit(2);
	}
	make("dir", "etc", NULL);
	make("file", "etc/hostname", NULL);
	make("dir", "run", NULL);
	make("link", "dev", "/");
	make("link", "up", "../../..");
	make("link", "abs", "/etc");
	make("link", "rel", "etc");
	make("link", "loop1", "loop2");
	make("link", "loop2", "loop1");
	make("link", "etc/resolv.conf", "/run/systemd/resolve/stub-resolv.conf");
	make("link", "dangling-rel", "made/here");
	/* Followed the ordinary way, this one would make files on the host. */
	{
		char target[PATH_MAX * 2];

		snprintf(target, sizeof(target), "%s/escaped", host);
		make("link", "escape", target);
	}

	IS(resolve("/etc", IN_ROOT_DIR, false, NULL), "fd", "in_root: an existing directory");
	IS(resolve("etc//./hostname", 0, false, NULL), "fd", "in_root: '//' and '.' are nothing");
	IS(resolve("/etc/hostname", IN_ROOT_DIR, false, NULL), "ENOTDIR",
	   "in_root: a file where a directory must be: ENOTDIR");
	IS(resolve("/nothere", IN_ROOT_DIR, false, NULL), "ENOENT",
	   "in_root: missing, without CREATE: ENOENT (the mount is skipped)");
	IS(resolve("/", IN_ROOT_DIR, false, NULL), "root", "in_root: '/' itself is refused");
	IS(resolve("", IN_ROOT_DIR, false, NULL), "root", "in_root: '' is '/' and refused");
	IS(resolve("/dev", IN_ROOT_DIR, false, NULL), "root",
	   "in_root: 'dev -> /' leads back to the root: refused");
	IS(resolve("/up", IN_ROOT_DIR, false, NULL), "root",
	   "in_root: 'up -> ../../..' stays inside, so it is the root: refused");
	IS(resolve("/dev/etc", IN_ROOT_DIR, false, NULL), "fd",
	   "in_root: through 'dev -> /' to /etc is inside the root");
	IS(resolve("/abs/hostname", 0, false, &st), "fd",
	   "in_root: an absolute link is followed inside the root");
	IS(resolve("/a/../etc", IN_ROOT_DIR, false, NULL), "EINVAL", "in_root: '..' is refused");
	IS(resolve("/rel", IN_ROOT_DIR | IN_ROOT_NO_SYMLINKS, false, NULL), "ELOOP",
	   "in_root: NO_SYMLINKS refuses a link (ELOOP)");
	IS(resolve("/etc", IN_ROOT_DIR | IN_ROOT_NO_SYMLINKS, false, NULL), "fd",
	   "in_root: NO_SYMLINKS takes a path without links");
	IS(resolve("/loop1/x", C | IN_ROOT_DIR, false, NULL), "ELOOP",
	   "in_root: a loop of links ends in ELOOP, CREATE or not");

	IS(resolve("/new/a/b", C | IN_ROOT_DIR, false, NULL), "fd",
	   "in_root: CREATE makes each missing directory");
	ok(exists(root, "new/a/b", S_IFDIR), "in_root: ... and they are in the root");
	IS(resolve("/new/file", C | IN_ROOT_FILE, false, &st), "fd",
	   "in_root: CREATE|FILE makes the last one a file");
	ok(exists(root, "new/file", S_IFREG), "in_root: ... an empty regular file");
	IS(resolve("/etc/resolv.conf", C | IN_ROOT_FILE, false, &st), "fd",
	   "in_root: a dangling absolute link is followed inside the root, its target made");
	ok(exists(root, "run/systemd/resolve/stub-resolv.conf", S_IFREG),
	   "in_root: ... as ROOT/run/systemd/resolve/stub-resolv.conf, as crun does");
	ok(exists(root, "etc/resolv.conf", S_IFLNK), "in_root: ... the link left as it was");
	IS(resolve("/dangling-rel/x", C | IN_ROOT_DIR, false, NULL), "fd",
	   "in_root: a dangling relative link is followed from its directory");
	ok(exists(root, "made/here/x", S_IFDIR), "in_root: ... ROOT/made/here/x made");
	IS(resolve("/escape/file", C | IN_ROOT_FILE, false, NULL), "fd",
	   "in_root: a link to a host path is made inside the root");
	ok(!exists(host, "escaped", S_IFDIR) && !exists(host, "escaped/file", S_IFREG),
	   "in_root: ... and nothing is made on the host");
	IS(resolve("/dev/made-via-root", C | IN_ROOT_DIR, false, NULL), "fd",
	   "in_root: CREATE through 'dev -> /' makes it in the root");
	ok(exists(root, "made-via-root", S_IFDIR), "in_root: ... as ROOT/made-via-root");
	IS(resolve("/etc/hostname/x", C | IN_ROOT_DIR, false, NULL), "ENOTDIR",
	   "in_root: CREATE below a file fails (ENOTDIR)");
	IS(resolve("/rel/nolink", C | IN_ROOT_DIR | IN_ROOT_NO_SYMLINKS, false, NULL), "ELOOP",
	   "in_root: CREATE with NO_SYMLINKS makes nothing through a link");
	ok(!exists(root, "etc/nolink", S_IFDIR), "in_root: ... nothing made");

	/* A link to a host directory that exists: inside the root it is ROOT/<that path>. */
	make("link", "hostdir", host);
	IS(resolve("/hostdir/inside", C | IN_ROOT_DIR, false, NULL), "fd",
	   "in_root: a link to an existing host directory is followed inside the root");
	ok(!exists(host, "inside", S_IFDIR), "in_root: ... nothing made in the host's directory");
	/* The attack fixture's naive mode (pspace-run never sets it) does escape. */
	IS(resolve("/hostdir/naive", C | IN_ROOT_DIR, true, NULL), "fd",
	   "in_root: the fixture's naive mode follows the link onto the host");
	ok(exists(host, "naive", S_IFDIR), "in_root: ... and makes the directory there");
	{
		char target[PATH_MAX * 2];

		snprintf(target, sizeof(target), "%s/planted", host);
		make("link", "hostfile", target);
	}
	IS(resolve("/hostfile", C | IN_ROOT_FILE, false, NULL), "fd",
	   "in_root: a dangling link to a host file: the file is made inside the root");
	ok(!exists(host, "planted", S_IFREG), "in_root: ... not on the host");
	IS(resolve("/hostfile", C | IN_ROOT_FILE, true, NULL), "fd",
	   "in_root: the fixture's naive mode follows it");
	ok(exists(host, "planted", S_IFREG), "in_root: ... and makes the host's file");
}
