// SPDX-License-Identifier: GPL-2.0
/*
 * The state directory, ROOT/ID (--root, default /run/pspace-run), mode
 * 0700, made by create and removed by delete:
 *
 *   state.json   the leader's wid and start time, the bundle, the cgroup
 *   config.json  the bundle's, as create read it (delete runs its
 *                poststop hooks, start its poststart ones, exec takes
 *                its seccomp profile)
 *   exec.fifo    while the container is "created": the leader waits in a
 *                read() of it, start writes one byte (and removes it)
 *
 * The status is never stored: "stopped" when the leader is gone (or its
 * wid is another process's now: the start time tells), "created" while
 * the fifo is there, else "running".
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pspace-run.h"
#include "sys.h"
#include "oci.h"

/* runc's rule: letters, digits and _+-. ; not "." or "..". */
void oci_check_id(const char *id)
{
	const char *p;

	if (!*id || strlen(id) > 200 || !strcmp(id, ".") || !strcmp(id, ".."))
		oci_fail(EXIT_SETUP, "invalid container ID '%s'", id);
	for (p = id; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '+' || *p == '-' || *p == '.'))
			oci_fail(EXIT_SETUP, "invalid container ID '%s'", id);
}

void oci_state_dir(const char *id, char *out, size_t size)
{
	snprintf(out, size, "%s/%s", oci.root_pin[0] ? oci.root_pin : oci.root, id);
}

unsigned long long oci_start_time(pid_t pid)
{
	char name[64], buf[1024], *p;
	unsigned long long t = 0;
	ssize_t n;
	int fd, i;

	snprintf(name, sizeof(name), "/proc/%d/stat", (int)pid);
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return 0;
	/* p+2 is field 3 (state); a zombie has ended. */
	if (p[2] == 'Z' || p[2] == 'X')
		return 0;
	p += 2;
	for (i = 3; i < 22 && p; i++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (p)
		t = strtoull(p, NULL, 10);
	return t;
}

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return "";
	return json_object_get_string(v);
}

static long long jint(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return 0;
	return json_object_get_int64(v);
}

int oci_state_load(const char *id, struct oci_state *st)
{
	char path[4200];
	json_object *o, *a;

	memset(st, 0, sizeof(*st));
	oci_check_id(id);
	snprintf(st->id, sizeof(st->id), "%s", id);
	oci_state_dir(id, st->dir, sizeof(st->dir));
	/*
	 * A DIR missing when it was checked is never looked into: another
	 * user could have made it since (in /tmp, say) and planted a state.
	 */
	if (oci.root_missing) {
		errno = ENOENT;
		return -1;
	}
	snprintf(path, sizeof(path), "%s/state.json", st->dir);
	o = json_object_from_file(path);
	if (!o)
		return -1;
	st->pid = jint(o, "pid");
	st->start_time = jint(o, "start_time");
	st->ns_flags = jint(o, "ns_flags");
	snprintf(st->bundle, sizeof(st->bundle), "%s", jstr(o, "bundle"));
	snprintf(st->rootfs, sizeof(st->rootfs), "%s", jstr(o, "rootfs"));
	snprintf(st->cgroup, sizeof(st->cgroup), "%s", jstr(o, "cgroup"));
	snprintf(st->created, sizeof(st->created), "%s", jstr(o, "created"));
	if (json_object_object_get_ex(o, "annotations", &a))
		st->annotations = json_object_get(a);
	json_object_put(o);
	return 0;
}

void oci_state_save(const struct oci_state *st)
{
	json_object *o = json_object_new_object();
	char path[4200], tmp[4200];

	json_object_object_add(o, "id", json_object_new_string(st->id));
	json_object_object_add(o, "pid", json_object_new_int64(st->pid));
	json_object_object_add(o, "start_time", json_object_new_int64(st->start_time));
	json_object_object_add(o, "ns_flags", json_object_new_int64(st->ns_flags));
	json_object_object_add(o, "bundle", json_object_new_string(st->bundle));
	json_object_object_add(o, "rootfs", json_object_new_string(st->rootfs));
	json_object_object_add(o, "cgroup", json_object_new_string(st->cgroup));
	json_object_object_add(o, "created", json_object_new_string(st->created));
	if (st->annotations)
		json_object_object_add(o, "annotations", json_object_get(st->annotations));
	snprintf(path, sizeof(path), "%s/state.json", st->dir);
	snprintf(tmp, sizeof(tmp), "%s/state.json.tmp", st->dir);
	if (json_object_to_file_ext(tmp, o, JSON_C_TO_STRING_PLAIN) < 0 || rename(tmp, path) < 0)
		oci_fail(EXIT_SETUP, "%s: %s", path, strerror(errno));
	json_object_put(o);
}

const char *oci_status(const struct oci_state *st)
{
	char fifo[4200];

	if (!st->pid || oci_start_time(st->pid) != st->start_time)
		return "stopped";
	snprintf(fifo, sizeof(fifo), "%s/exec.fifo", st->dir);
	if (access(fifo, F_OK) == 0)
		return "created";
	return "running";
}

/* A pidfd of the leader, if the leader is still the process we started. */
int oci_pidfd(const struct oci_state *st)
{
	int fd;

	if (!st->pid)
		return -1;
	fd = sys_pidfd_open(st->pid, 0);
	if (fd < 0)
		return -1;
	/* Read after the pidfd is held: the wid cannot be recycled under it. */
	if (oci_start_time(st->pid) != st->start_time) {
		close(fd);
		errno = ESRCH;
		return -1;
	}
	return fd;
}

/* What "state" prints, and hooks read on stdin: runc's fields. */
char *oci_state_json(const struct oci_state *st)
{
	json_object *o = json_object_new_object();
	const char *status = oci_status(st);

	json_object_object_add(o, "ociVersion", json_object_new_string(OCI_VERSION));
	json_object_object_add(o, "id", json_object_new_string(st->id));
	json_object_object_add(o, "pid", json_object_new_int64(strcmp(status, "stopped")
							       ? st->pid : 0));
	json_object_object_add(o, "status", json_object_new_string(status));
	json_object_object_add(o, "bundle", json_object_new_string(st->bundle));
	json_object_object_add(o, "rootfs", json_object_new_string(st->rootfs));
	json_object_object_add(o, "created", json_object_new_string(st->created));
	json_object_object_add(o, "annotations", st->annotations ? json_object_get(st->annotations)
			       : json_object_new_object());
	json_object_object_add(o, "owner", json_object_new_string(""));
	return strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
						     JSON_C_TO_STRING_NOSLASHESCAPE));
}

/* The state directory holds files only. */
void oci_remove_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	if (rmdir(path) < 0 && errno != ENOENT)
		oci_log("warning", "rmdir %s: %s", path, strerror(errno));
}

/* Written whole, then renamed into place: an engine never reads half. */
void oci_write_pid_file(const char *path, pid_t pid)
{
	char tmp[PATH_MAX + 16], buf[32];
	int fd, n;

	snprintf(tmp, sizeof(tmp), "%s.pspace-tmp", path);
	n = snprintf(buf, sizeof(buf), "%d", (int)pid);
	/* Never through a link someone planted at the temporary name. */
	if (unlink(tmp) < 0 && errno != ENOENT)
		oci_fail(EXIT_SETUP, "--pid-file %s: %s", tmp, strerror(errno));
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, buf, n) != n || close(fd) < 0 || rename(tmp, path) < 0)
		oci_fail(EXIT_SETUP, "--pid-file %s: %s", path, strerror(errno));
}

/*
 * The state directory holds what later verbs act on as root: the hooks of
 * the saved config.json, the cgroup to remove, the pid to signal.  One
 * that another user may write (or a symbolic link to somewhere) would let
 * that user plant a container whose poststop hook root's delete runs.  It
 * must be the caller's or root's, and writable by no one else; create
 * makes a missing one 0700.  So must every directory on the way to it:
 * the owner of a parent could swap DIR for a directory of their own
 * between this check and the verb's use of it.  A sticky directory
 * (/tmp) is safe: others may not rename what they do not own in it.
 */
static bool safe_owner(const struct stat *st)
{
	return st->st_uid == geteuid() || st->st_uid == 0;
}

/*
 * In a rootless engine's user namespace, /, /run and /run/user belong to
 * no uid mapped there and show as the overflow uid.  Such a directory
 * above DIR is accepted on its mode alone when the overflow uid is not
 * mapped (so no process here can own it), or when it is one of those
 * few system directories (a full map has the overflow uid mapped, to a
 * user of the namespace's own, who cannot own / or /run).  Without a
 * readable uid_map nothing is accepted this way.
 */
static bool unmapped_owner(const struct stat *st, const char *path)
{
	static const char *const system_dirs[] = { "/", "/run", "/run/user", "/var", "/var/run" };
	static int accept = -1;	/* 0 never, 1 the overflow uid is unmapped, 2 system dirs only */
	static uid_t overflow = 65534;
	size_t i;

	if (accept < 0) {
		unsigned long in, out, count;
		bool identity = false, mapped = false;
		FILE *f = fopen("/proc/sys/kernel/overflowuid", "re");

		if (f) {
			if (fscanf(f, "%u", &overflow) != 1)
				overflow = 65534;
			fclose(f);
		}
		accept = 0;
		f = fopen("/proc/self/uid_map", "re");
		if (f) {
			while (fscanf(f, "%lu %lu %lu", &in, &out, &count) == 3) {
				if (in == 0 && out == 0 && count == 4294967295UL)
					identity = true;
				if (overflow >= in && overflow - in < count)
					mapped = true;
			}
			accept = identity ? 0 : mapped ? 2 : 1;
			fclose(f);
		}
	}
	if (!accept || st->st_uid != overflow)
		return false;
	if (accept == 1)
		return true;
	for (i = 0; i < sizeof(system_dirs) / sizeof(system_dirs[0]); i++)
		if (!strcmp(path, system_dirs[i]))
			return true;
	return false;
}

/*
 * FUSE reports whatever owner and mode its user-space server likes.  A
 * FUSE / (a rootless container's fuse-overlayfs root) is the exception:
 * whoever serves it owns everything here anyway.
 */
static void refuse_fuse(const char *path)
{
	struct statfs sfs;

	if (strcmp(path, "/") && statfs(path, &sfs) == 0 &&
	    sfs.f_type == 0x65735546 /* FUSE_SUPER_MAGIC */)
		oci_fail(EXIT_SETUP, "--root %s: %s is on a FUSE file system, whose owners and "
			 "modes its server makes up", oci.root, path);
}

/* False when PATH does not exist: nothing below it is looked at then. */
static bool check_state_parent(const char *path, const char *what)
{
	struct stat st;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return false;
		oci_fail(EXIT_SETUP, "--root %s: %s %s: %s", oci.root, what, path, strerror(errno));
	}
	/* A link in a safe directory is safe if its owner is; where it points is walked too. */
	if (S_ISLNK(st.st_mode) && safe_owner(&st))
		return true;
	if (!S_ISDIR(st.st_mode) || !(safe_owner(&st) || unmapped_owner(&st, path)) ||
	    ((st.st_mode & 022) && !(st.st_mode & S_ISVTX)))
		oci_fail(EXIT_SETUP, "--root %s: its %s %s is owned by uid %u, mode %04o: every "
			 "directory above the state directory must be root's (or the caller's) and "
			 "writable by no one else (or sticky)", oci.root, what, path,
			 (unsigned int)st.st_uid, (unsigned int)(st.st_mode & 07777));
	refuse_fuse(path);
	return true;
}

/*
 * Each directory above PATH (absolute), from / down; false at the first
 * that does not exist (another user may make it, or a link by its name,
 * right after).
 */
static bool check_state_parents(const char *path, const char *what)
{
	char buf[PATH_MAX];
	char *slash;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		oci_fail(EXIT_SETUP, "--root %s: too long", oci.root);
	check_state_parent("/", what);
	for (slash = strchr(buf + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (buf[0] && !check_state_parent(buf, what))
			return false;
		*slash = '/';
	}
	return true;
}

/*
 * From here on DIR is used through an O_PATH descriptor of the directory
 * just checked ("/proc/self/fd/N/ID/state.json"): a rename of DIR or of
 * any directory above it after the check changes nothing.  The fd sits
 * high, out of --preserve-fds' way, and no container process inherits it
 * (the children close it before they touch the preserved fds).  Without
 * /proc the path is used as checked.
 */
static void pin_state_root(const struct stat *checked)
{
	struct stat st;
	int fd, high;

	oci_close_state_root();
	fd = open(oci.root, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		oci_fail(EXIT_SETUP, "--root %s: %s", oci.root, strerror(errno));
	if (fstat(fd, &st) < 0 || st.st_dev != checked->st_dev || st.st_ino != checked->st_ino)
		oci_fail(EXIT_SETUP, "--root %s: replaced while it was checked", oci.root);
	high = fcntl(fd, F_DUPFD_CLOEXEC, 200);
	if (high >= 0) {
		close(fd);
		fd = high;
	}
	oci.root_fd = fd;
	snprintf(oci.root_pin, sizeof(oci.root_pin), "/proc/self/fd/%d", fd);
	if (access(oci.root_pin, F_OK) < 0)
		oci.root_pin[0] = '\0';
}

void oci_close_state_root(void)
{
	if (oci.root_fd >= 0)
		close(oci.root_fd);
	oci.root_fd = -1;
	oci.root_pin[0] = '\0';
}

/*
 * True when DIR exists (and passed), false when it does not: then no
 * verb but create looks into it, and create checks again once it has
 * made it (someone else may have, in /tmp, between the two).
 */
bool oci_check_state_root(void)
{
	char abs[PATH_MAX], real[PATH_MAX], last[PATH_MAX + 2], *slash;
	struct stat st;

	/* The path as given, made absolute; then where its parent really is. */
	if (oci.root[0] == '/') {
		if (snprintf(abs, sizeof(abs), "%s", oci.root) >= (int)sizeof(abs))
			oci_fail(EXIT_SETUP, "--root %s: too long", oci.root);
	} else {
		char cwd[PATH_MAX];

		if (!getcwd(cwd, sizeof(cwd)) ||
		    snprintf(abs, sizeof(abs), "%s/%s", cwd, oci.root) >= (int)sizeof(abs))
			oci_fail(EXIT_SETUP, "--root %s: cannot make it absolute", oci.root);
	}
	/* A missing parent: DIR is missing too, whatever is there by now. */
	if (!check_state_parents(abs, "parent"))
		return false;
	slash = strrchr(abs, '/');
	if (slash && slash != abs) {
		*slash = '\0';
		if (!realpath(abs, real))
			return false;
		if (snprintf(last, sizeof(last), "%s/x", real) >= (int)sizeof(last) ||
		    !check_state_parents(last, "parent (resolved)"))
			return false;
		*slash = '/';
	}
	if (lstat(oci.root, &st) < 0) {
		if (errno == ENOENT)
			return false;
		oci_fail(EXIT_SETUP, "--root %s: %s", oci.root, strerror(errno));
	}
	if (!S_ISDIR(st.st_mode))
		oci_fail(EXIT_SETUP, "--root %s: not a directory (a symbolic link is not followed)",
			 oci.root);
	if (!safe_owner(&st) || (st.st_mode & 022))
		oci_fail(EXIT_SETUP, "--root %s: owned by uid %u, mode %04o: the state directory "
			 "must be root's (or the caller's) and writable by no one else",
			 oci.root, (unsigned int)st.st_uid, (unsigned int)(st.st_mode & 07777));
	refuse_fuse(oci.root);
	pin_state_root(&st);
	return true;
}
