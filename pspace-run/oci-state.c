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
