// SPDX-License-Identifier: GPL-2.0
/*
 * The container's user namespace: run unprivileged, or --private-users.
 *
 * Unprivileged: the leader is cloned with CLONE_NEWUSER (SPEC 1.3: it
 * holds every capability in the new user namespace, so CLONE_NPSPACE is
 * allowed there) and pspace-run maps the caller to root inside: its own
 * uid alone (setgroups denied), or, where /etc/subuid and /etc/subgid
 * grant the caller a range and newuidmap/newgidmap are installed, the
 * caller as 0 and the range as 1..COUNT, as rootless podman does.
 *
 * --private-users[=UID[:COUNT]] (root): the container's uids 0..COUNT-1
 * are UID..UID+COUNT-1 outside.  ROOT's files keep their owners on disk:
 * ROOT is mounted idmapped (mount_setattr(MOUNT_ATTR_IDMAP)) with the
 * same mapping, so an unshifted image works, and what root inside creates
 * in ROOT is owned by root on disk.  That mount is made in a mount
 * namespace of pspace-run's own before the container's is copied from
 * it, so the copy locks it (MNT_LOCKED, MNT_LOCK_NODEV...): the
 * container cannot take its idmap or its nodev away.  The default range
 * is the first 64K-aligned one from 524288 that no user or group of the
 * host or of ROOT, no /etc/subuid or /etc/subgid range and no other
 * running pspace-run uses (a flock'ed file in /run/pspace-run/userns).
 *
 * In both, the leader waits (a pipe) until its maps are written.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pspace-run.h"
#include "mnt.h"
#include "sys.h"

#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

#define FIRST_BASE 524288U
#define RANGE 65536U
#define USERNS_DIR "/run/pspace-run/userns"

static const char *newuidmap, *newgidmap;
static int range_lock = -1;

/* The first file of @names that is executable, or NULL. */
static const char *find_tool(const char *name)
{
	static const char *const dirs[] = { "/usr/bin", "/bin", "/usr/sbin", "/sbin" };
	static char paths[2][64];
	static int next;
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char *p = paths[next];

		snprintf(p, sizeof(paths[0]), "%s/%s", dirs[i], name);
		if (access(p, X_OK) == 0) {
			next = (next + 1) % 2;
			return p;
		}
	}
	return NULL;
}

/* The caller's range in /etc/subuid or /etc/subgid (by name or number). */
static bool read_subid(const char *file, const char *name, unsigned long id,
		       unsigned long *start, unsigned long *count)
{
	FILE *f = fopen(file, "re");
	char line[512];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char who[256];
		unsigned long s, c;

		if (sscanf(line, "%255[^:]:%lu:%lu", who, &s, &c) != 3 || c == 0)
			continue;
		char num[32];

		snprintf(num, sizeof(num), "%lu", id);
		if ((name && !strcmp(who, name)) || !strcmp(who, num)) {
			*start = s;
			*count = c;
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* Does [lo, lo+n) of @file (subuid format) overlap [a, a+len)? */
static bool subid_overlaps(const char *file, unsigned long a, unsigned long len)
{
	FILE *f = fopen(file, "re");
	char line[512];
	bool hit = false;

	if (!f)
		return false;
	while (!hit && fgets(line, sizeof(line), f)) {
		unsigned long s, c;

		if (sscanf(line, "%*[^:]:%lu:%lu", &s, &c) == 2 && s < a + len && a < s + c)
			hit = true;
	}
	fclose(f);
	return hit;
}

/*
 * The first user or group of a passwd/group text (field 3, the id) in
 * [a, a+len): its name and id in @who, true; false when none is.
 */
static bool ids_overlap(char *text, unsigned long a, unsigned long len, char *who, size_t size)
{
	char *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[128];
		unsigned long id;

		if (sscanf(line, "%127[^:]:%*[^:]:%lu", name, &id) != 2 &&
		    sscanf(line, "%127[^:]::%lu", name, &id) != 2)
			continue;
		if (id >= a && id < a + len) {
			snprintf(who, size, "%s (%lu)", name, id);
			return true;
		}
	}
	return false;
}

static char *slurp(int dir, const char *path)
{
	struct open_how how = {
		.flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	struct stat st;
	char *buf;
	ssize_t n;
	int fd;

	/* O_NONBLOCK: a fifo in a hostile ROOT does not block the open. */
	fd = dir >= 0 ? sys_openat2(dir, path, &how)
		      : open(path, how.flags);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (4 << 20) ||
	    !(buf = malloc(st.st_size + 1))) {
		close(fd);
		return NULL;
	}
	n = read(fd, buf, st.st_size);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* Who of the host's or ROOT's users and groups is in [a, a+len)? */
static bool range_taken(const struct config *cfg, unsigned long a, unsigned long len,
			char *who, size_t size)
{
	static const char *const files[] = { "etc/passwd", "etc/group" };
	int root = open(cfg->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	bool hit = false;
	size_t i;

	for (i = 0; !hit && i < 2; i++) {
		char host[32], *text;

		snprintf(host, sizeof(host), "/%s", files[i]);
		text = slurp(-1, host);
		if (text && ids_overlap(text, a, len, who, size))
			hit = true, strncat(who, i ? ", a group of the host" : ", a user of the host",
					    size - strlen(who) - 1);
		free(text);
		text = hit || root < 0 ? NULL : slurp(root, files[i]);
		if (text && ids_overlap(text, a, len, who, size))
			hit = true, strncat(who, i ? ", a group of ROOT" : ", a user of ROOT",
					    size - strlen(who) - 1);
		free(text);
	}
	if (root >= 0)
		close(root);
	if (!hit && (subid_overlaps("/etc/subuid", a, len) || subid_overlaps("/etc/subgid", a, len))) {
		snprintf(who, size, "a range of /etc/subuid or /etc/subgid");
		hit = true;
	}
	return hit;
}

/* Lock the range starting at @base for this run: 0, or -1 (in use). */
static int lock_range(const struct config *cfg, int dir, unsigned long base, unsigned long count)
{
	char name[32], buf[64];
	int fd, len;

	snprintf(name, sizeof(name), "%lu", base);
	fd = openat(dir, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	if (fd < 0)
		die_errno(EXIT_SETUP, "--private-users: " USERNS_DIR "/%s", name);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		return -1;
	}
	len = snprintf(buf, sizeof(buf), "%d %lu\n", (int)getpid(), count);
	if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, len, 0) != len)
		warn_errno("--private-users: " USERNS_DIR "/%s", name);
	range_lock = fd;
	verbose(cfg, "--private-users: uids %lu-%lu", base, base + count - 1);
	return 0;
}

/*
 * Another running pspace-run's range overlapping [a, a+len)?  Each is a
 * file named by its start, holding "PID COUNT", flock'ed while it runs.
 */
static bool range_in_use(unsigned long a, unsigned long len)
{
	DIR *d = opendir(USERNS_DIR);
	struct dirent *e;
	bool hit = false;

	while (d && !hit && (e = readdir(d))) {
		unsigned long b, c;
		char buf[64];
		ssize_t n;
		int fd;

		if (sscanf(e->d_name, "%lu", &b) != 1)
			continue;
		fd = openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = pread(fd, buf, sizeof(buf) - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
		if (sscanf(buf, "%*d %lu", &c) != 1)
			c = RANGE;
		if (b < a + len && a < b + c && flock(fd, LOCK_SH | LOCK_NB) < 0)
			hit = true;
		close(fd);
	}
	if (d)
		closedir(d);
	return hit;
}

/*
 * USERNS_DIR, made if missing, with its ".lock" held exclusively: the
 * check that no running container's range overlaps and the lock of our
 * own are one step, or two runs picking different but overlapping
 * ranges (--private-users=600000 and =589824) both got theirs.
 */
static int lock_userns_dir(int *dir)
{
	int fd;

	if (mkdir("/run/pspace-run", 0755) < 0 && errno != EEXIST)
		die_errno(EXIT_SETUP, "--private-users: /run/pspace-run");
	if (mkdir(USERNS_DIR, 0755) < 0 && errno != EEXIST)
		die_errno(EXIT_SETUP, "--private-users: " USERNS_DIR);
	*dir = open(USERNS_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*dir < 0)
		die_errno(EXIT_SETUP, "--private-users: " USERNS_DIR);
	fd = openat(*dir, ".lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX) < 0)
		die_errno(EXIT_SETUP, "--private-users: " USERNS_DIR "/.lock");
	return fd;
}

static void pick_range(struct config *cfg)
{
	char who[256];
	unsigned long b;
	int dir, lock = lock_userns_dir(&dir);

	if (cfg->pu_given) {
		if (range_taken(cfg, cfg->pu_base, cfg->pu_count, who, sizeof(who)))
			die(EXIT_SETUP, "--private-users=%lu:%lu: the range holds %s",
			    (unsigned long)cfg->pu_base, (unsigned long)cfg->pu_count, who);
		if (range_in_use(cfg->pu_base, cfg->pu_count) ||
		    lock_range(cfg, dir, cfg->pu_base, cfg->pu_count) < 0)
			die(EXIT_SETUP, "--private-users=%lu:%lu: a running container uses that range",
			    (unsigned long)cfg->pu_base, (unsigned long)cfg->pu_count);
		goto out;
	}
	for (b = FIRST_BASE; b + cfg->pu_count <= 0xfffffffeUL; b += RANGE) {
		if (range_taken(cfg, b, cfg->pu_count, who, sizeof(who)) ||
		    range_in_use(b, cfg->pu_count))
			continue;
		if (lock_range(cfg, dir, b, cfg->pu_count) == 0) {
			cfg->pu_base = b;
			goto out;
		}
	}
	die(EXIT_SETUP, "--private-users: no free range of %lu uids", (unsigned long)cfg->pu_count);
out:
	close(dir);
	close(lock);
}

static void write_file(pid_t pid, const char *file, const char *text)
{
	char path[64];
	int fd;
	ssize_t len = strlen(text);

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, text, len) != len)
		die_errno(EXIT_SETUP, "user namespace: write %s \"%.*s\"", file,
			  (int)strcspn(text, "\n"), text);
	close(fd);
}

/* newuidmap PID 0 ID 1 1 START COUNT */
static void run_map_tool(const char *tool, pid_t pid, unsigned long id, unsigned long start,
			 unsigned long count)
{
	char a[5][24];
	pid_t child;
	int status;

	snprintf(a[0], sizeof(a[0]), "%d", (int)pid);
	snprintf(a[1], sizeof(a[1]), "%lu", id);
	snprintf(a[2], sizeof(a[2]), "%lu", start);
	snprintf(a[3], sizeof(a[3]), "%lu", count);
	child = fork();
	if (child < 0)
		die_errno(EXIT_SETUP, "fork");
	if (child == 0) {
		execl(tool, tool, a[0], "0", a[1], "1", "1", a[2], a[3], (char *)NULL);
		_exit(127);
	}
	if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		die(EXIT_SETUP, "user namespace: %s %s 0 %s 1 1 %s %s failed (status %d)",
		    tool, a[0], a[1], a[2], a[3], WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

void userns_write_maps(const struct config *cfg, pid_t pid)
{
	char map[128];

	if (cfg->private_users) {
		snprintf(map, sizeof(map), "0 %lu %lu\n", (unsigned long)cfg->pu_base,
			 (unsigned long)cfg->pu_count);
		write_file(pid, "uid_map", map);
		write_file(pid, "gid_map", map);
		return;
	}
	if (cfg->sub_count) {
		run_map_tool(newuidmap, pid, cfg->caller_uid, cfg->subuid, cfg->sub_count);
		run_map_tool(newgidmap, pid, cfg->caller_gid, cfg->subgid, cfg->subgid_count);
		return;
	}
	write_file(pid, "setgroups", "deny");
	snprintf(map, sizeof(map), "0 %lu 1\n", (unsigned long)cfg->caller_gid);
	write_file(pid, "gid_map", map);
	snprintf(map, sizeof(map), "0 %lu 1\n", (unsigned long)cfg->caller_uid);
	write_file(pid, "uid_map", map);
}

/*
 * In the leader, first thing: wait until pspace-run wrote the maps, then
 * become root of the new user namespace (--private-users: the clone kept
 * the host's root, which it does not map).
 */
void userns_enter(const struct config *cfg, int sync_fd)
{
	char c;

	if (read(sync_fd, &c, 1) != 1)
		_exit(EXIT_SETUP);
	close(sync_fd);
	if (setresgid(0, 0, 0) < 0)
		die_errno(EXIT_SETUP, "user namespace: setresgid 0");
	if (!cfg->unprivileged || cfg->sub_count)
		if (setgroups(0, NULL) < 0)
			die_errno(EXIT_SETUP, "user namespace: setgroups");
	if (setresuid(0, 0, 0) < 0)
		die_errno(EXIT_SETUP, "user namespace: setresuid 0");
}

/*
 * --private-users: a user namespace with the container's mapping, made by
 * a child that does nothing else, for the idmapped mount; its fd.
 */
static int mapping_userns(const struct config *cfg)
{
	char path[64];
	int go[2], fd;
	pid_t pid;
	char c = 0;

	if (pipe2(go, O_CLOEXEC) < 0)
		die_errno(EXIT_SETUP, "pipe");
	pid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
	if (pid < 0)
		die_errno(EXIT_SETUP, "--private-users: clone(CLONE_NEWUSER)");
	if (pid == 0) {
		close(go[1]);
		/* Until pspace-run has what it wants of us. */
		while (read(go[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(go[0]);
	userns_write_maps(cfg, pid);
	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die_errno(EXIT_SETUP, "--private-users: %s", path);
	close(go[1]);
	waitpid(pid, NULL, 0);
	return fd;
}

/*
 * --private-users: ROOT idmapped (and nodev), attached over ROOT in a
 * mount namespace of pspace-run's own, which the container's copies.
 */
static int raw_root = -1, idmapped_root = -1;

static void idmap_root(const struct config *cfg)
{
	struct mount_attr attr = {
		.attr_set = MOUNT_ATTR_IDMAP | MOUNT_ATTR_NODEV,
	};
	int userns = mapping_userns(cfg), tree;

	if (unshare(CLONE_NEWNS) < 0)
		die_errno(EXIT_SETUP, "--private-users: unshare(CLONE_NEWNS)");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		die_errno(EXIT_SETUP, "--private-users: make / private");
	raw_root = open(cfg->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (raw_root < 0)
		die_errno(EXIT_SETUP, "--private-users: %s", cfg->root);
	/* ROOT by this one fd from here on: nothing renamed into its path counts. */
	tree = mnt_clone(raw_root, "", true);
	if (tree < 0)
		die_errno(EXIT_SETUP, "--private-users: clone %s", cfg->root);
	attr.userns_fd = userns;
	if (sys_mount_setattr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr) < 0)
		die_errno(EXIT_SETUP, "--private-users: an idmapped mount of %s "
			  "(its file system must support idmapped mounts)", cfg->root);
	if (mnt_attach(tree, raw_root) < 0)
		die_errno(EXIT_SETUP, "--private-users: attach the idmapped %s", cfg->root);
	idmapped_root = tree;
	close(userns);
	verbose(cfg, "--private-users: %s idmapped, 0 is %lu outside", cfg->root,
		(unsigned long)cfg->pu_base);
}

/*
 * --private-users: with --read-only, ROOT's idmapped mount made read-only here,
 * in pspace-run's own mount namespace, so that the copy the container's
 * user namespace gets has the flag locked (MNT_LOCK_READONLY); made
 * read-only by the leader, in a namespace its root owns, root inside
 * could remount it read-write.  Then the --bind mounts, locked the same
 * way (host_binds).  The mount points of --bind and --tmpfs are made
 * first, through ROOT itself (the idmapped mount maps no host id), as
 * they cannot be afterwards.
 */
void userns_read_only(struct config *cfg)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY };

	if (raw_root < 0)
		return;
	host_bind_sources(cfg);
	if (cfg->read_only && !TEST_OFF(cfg, OFF_PURO))
		make_mount_points(cfg, raw_root);
	if (cfg->read_only && !TEST_OFF(cfg, OFF_PURO) &&
	    sys_mount_setattr(idmapped_root, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr) < 0)
		die_errno(EXIT_SETUP, "--read-only: %s", cfg->root);
	host_binds(cfg, idmapped_root);
	close(raw_root);
	raw_root = -1;
}

/*
 * --private-users: the idmapped ROOT as the working directory, for the
 * leader to inherit (pspace.c), through the fd of the mount made, not
 * ROOT's path again; -1 when there is none.  Then closed.
 */
int userns_root_fd(void)
{
	return idmapped_root;
}

void userns_root_close(void)
{
	if (idmapped_root >= 0)
		close(idmapped_root);
	idmapped_root = -1;
}

/*
 * Can another user of the host reach what is in ROOT by its host path?
 * Not if a directory above ROOT (ROOT itself the container may chmod) is
 * the caller's or root's and others cannot search it (as machinectl and
 * podman keep their images in a 0700 directory).  What the container
 * makes in ROOT, a setuid file above all, is then nobody else's to run.
 */
bool root_reachable(const char *root)
{
	char *path = strdup(root), *slash;
	struct stat st;

	if (!path)
		die_errno(EXIT_SETUP, "%s", root);
	while ((slash = strrchr(path, '/'))) {
		if (slash == path)
			slash[1] = '\0';
		else
			*slash = '\0';
		if (stat(path, &st) == 0 && (st.st_uid == 0 || st.st_uid == geteuid()) &&
		    !(st.st_mode & S_IXOTH) && (!(st.st_mode & S_IXGRP) || st.st_gid == 0)) {
			free(path);
			return false;
		}
		if (slash == path)
			break;
	}
	free(path);
	return true;
}

/*
 * Before the container is made: unprivileged, find the mapping and check
 * that ROOT's owner is in it; --private-users, pick the range and mount
 * ROOT idmapped.
 */
void userns_prepare(struct config *cfg)
{
	struct stat st;

	if (geteuid() != 0) {
		struct passwd *pw = getpwuid(getuid());
		unsigned long s, c, gs, gc;

		if (cfg->private_users)
			die(EXIT_SETUP, "--private-users: needs root (run unprivileged, "
			    "pspace-run makes a user namespace anyway)");
		cfg->unprivileged = true;
		cfg->userns = true;
		cfg->caller_uid = geteuid();
		cfg->caller_gid = getegid();
		newuidmap = find_tool("newuidmap");
		newgidmap = find_tool("newgidmap");
		if (newuidmap && newgidmap &&
		    read_subid("/etc/subuid", pw ? pw->pw_name : NULL, cfg->caller_uid, &s, &c) &&
		    read_subid("/etc/subgid", pw ? pw->pw_name : NULL, cfg->caller_uid, &gs, &gc)) {
			cfg->subuid = s;
			cfg->sub_count = c > 65535 ? 65535 : c;
			cfg->subgid = gs;
			cfg->subgid_count = gc > 65535 ? 65535 : gc;
			verbose(cfg, "unprivileged: uid %lu is root inside, 1-%lu are %lu-%lu (/etc/subuid)",
				(unsigned long)cfg->caller_uid, (unsigned long)cfg->sub_count, s,
				s + cfg->sub_count - 1);
		} else {
			verbose(cfg, "unprivileged: uid %lu is root inside, nothing else is mapped%s",
				(unsigned long)cfg->caller_uid,
				newuidmap ? " (no /etc/subuid range)" : " (no newuidmap)");
		}
		if (stat(cfg->root, &st) < 0)
			die_errno(EXIT_SETUP, "%s", cfg->root);
		if (st.st_uid != cfg->caller_uid &&
		    !(cfg->sub_count && st.st_uid >= cfg->subuid &&
		      st.st_uid < cfg->subuid + cfg->sub_count))
			die(EXIT_SETUP, "%s: owned by uid %lu, which the container's user namespace "
			    "does not map (run unprivileged, uid %lu is root inside%s): a ROOT of "
			    "your own is needed", cfg->root, (unsigned long)st.st_uid,
			    (unsigned long)cfg->caller_uid,
			    cfg->sub_count ? ", and your /etc/subuid range" : "");
		return;
	}
	if (!cfg->private_users)
		return;
	cfg->userns = true;
	pick_range(cfg);
	idmap_root(cfg);
}

/*
 * Does our user namespace map @gid (devpts's gid=5, tty)?  Read from
 * /proc/self/gid_map, so that a pspace-run nested in a user namespace
 * (root there, no namespace of its own) asks its own.
 */
bool userns_maps_gid(unsigned long gid)
{
	FILE *f = fopen("/proc/self/gid_map", "re");
	unsigned long in, out, count;
	bool mapped = false;

	if (!f)
		return true;	/* no /proc to tell: as before */
	while (!mapped && fscanf(f, "%lu %lu %lu", &in, &out, &count) == 3)
		mapped = gid >= in && gid - in < count;
	fclose(f);
	return mapped;
}
