// SPDX-License-Identifier: GPL-2.0
/*
 * Mount points inside a root that is not trusted: ROOT of the launcher,
 * the rootfs of an OCI bundle.  Either may be an odd or hostile image
 * whose "dev" is a symbolic link to "/" or "../../..", whose
 * /etc/resolv.conf leads to a /run/... that does not exist yet, or
 * whose files are fifos.  So no path is looked up the ordinary way:
 * each component is opened with openat2() and RESOLVE_IN_ROOT (a link
 * is followed as if the root were "/", never onto the host; magic links
 * of /proc are refused), what is missing is made in its parent found
 * the same way, and a path that leads back to the root itself is
 * refused.  The launcher (mounts.c, binds.c) and the OCI runtime
 * (oci-setup.c) both come here; they differed before (the OCI runtime
 * mounted onto a link to "/", the launcher refused a dangling link).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mnt.h"
#include "sys.h"

/* Links followed while making a path: as the kernel's MAXSYMLINKS. */
#define MAX_LINKS 40

int in_root_init(struct in_root *r, int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -1;
	r->fd = fd;
	r->resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
	r->dev = st.st_dev;
	r->ino = st.st_ino;
	r->naive = false;
	return 0;
}

/* @path (relative, "" for the root itself) opened O_PATH | @oflags. */
static int lookup(const struct in_root *r, const char *path, int oflags, int flags)
{
	uint64_t resolve = r->resolve;

	if (!*path)
		path = ".";
	if (r->naive)	/* the fixture: as a naive launcher would */
		return openat(r->fd, path, O_PATH | O_CLOEXEC | oflags);
	if (flags & IN_ROOT_NO_SYMLINKS)
		resolve |= RESOLVE_NO_SYMLINKS;
	return open_at2(r->fd, path, O_PATH | oflags, resolve);
}

/* @in without leading, repeated or trailing '/' and "." components, into @out. */
static int normalise(char *out, size_t size, const char *in, bool dotdot_ok)
{
	size_t n = 0;

	while (*in) {
		size_t len;

		in += strspn(in, "/");
		len = strcspn(in, "/");
		if (len == 2 && in[0] == '.' && in[1] == '.' && !dotdot_ok) {
			errno = EINVAL;
			return -1;
		}
		if (len && !(len == 1 && in[0] == '.')) {
			if (n + len + 2 > size) {
				errno = ENAMETOOLONG;
				return -1;
			}
			if (n)
				out[n++] = '/';
			memcpy(out + n, in, len);
			n += len;
		}
		in += len;
	}
	out[n] = '\0';
	return 0;
}

/*
 * The component of @path from @start to its end (a NUL written there) is
 * missing: make it in its parent.  0 when it is there now (made, or by
 * someone else meanwhile); 1 when it is a dangling symbolic link, and
 * @path (whose tail after the component is @rest) now leads through its
 * target; -1 with errno.
 */
static int make_component(const struct in_root *r, char *path, size_t size, size_t start,
			  const char *rest, bool file, int flags)
{
	char parent_path[PATH_MAX], target[PATH_MAX], joined[PATH_MAX * 3 + 3];
	const char *name = path + start;
	int parent, made, err;
	ssize_t n;

	snprintf(parent_path, sizeof(parent_path), "%.*s", start ? (int)start - 1 : 0, path);
	parent = lookup(r, parent_path, O_DIRECTORY, flags);
	if (parent < 0)
		return -1;
	if (file) {
		/* The fixture follows a link here too, as a naive mkdir -p and touch would. */
		made = openat(parent, name, O_CREAT | O_WRONLY | O_CLOEXEC |
			      (r->naive ? 0 : O_EXCL | O_NOFOLLOW), 0644);
		if (made >= 0)
			close(made);
	} else {
		made = mkdirat(parent, name, 0755);
	}
	if (made >= 0 || errno != EEXIST) {
		err = errno;
		close(parent);
		errno = err;
		return made < 0 ? -1 : 0;
	}
	n = readlinkat(parent, name, target, sizeof(target) - 1);
	close(parent);
	if (n <= 0 || (flags & IN_ROOT_NO_SYMLINKS) || r->naive)
		return 0;	/* made by someone else meanwhile: look again */
	target[n] = '\0';
	if (target[0] == '/')
		snprintf(joined, sizeof(joined), "%s%s%s", target, *rest ? "/" : "", rest);
	else
		snprintf(joined, sizeof(joined), "%s%s%s%s%s", parent_path, *parent_path ? "/" : "",
			 target, *rest ? "/" : "", rest);
	/* A link's own ".." is the kernel's to resolve, inside the root. */
	if (normalise(path, size, joined, true) < 0)
		return -1;
	return 1;
}

int in_root_open(const struct in_root *r, const char *path, int flags)
{
	char cur[PATH_MAX], rest[PATH_MAX];
	int links = 0, fd = -1;
	size_t start = 0;
	struct stat st;

	if (normalise(cur, sizeof(cur), path, r->naive) < 0)
		return -1;
	for (;;) {
		size_t end = start + strcspn(cur + start, "/");
		bool last = !cur[end];
		int oflags = !last || (flags & IN_ROOT_DIR) ? O_DIRECTORY : 0;
		char save = cur[end];

		snprintf(rest, sizeof(rest), "%s", cur + end + (save ? 1 : 0));
		cur[end] = '\0';
		fd = lookup(r, cur, oflags, flags);
		if (fd < 0 && errno == ENOENT && (flags & IN_ROOT_CREATE) && end > start) {
			int made = make_component(r, cur, sizeof(cur), start, rest,
						  last && (flags & IN_ROOT_FILE), flags);

			if (made < 0)
				return -1;
			if (made == 1) {
				if (++links > MAX_LINKS) {
					errno = ELOOP;
					return -1;
				}
				start = 0;	/* the new path, from the root */
				continue;
			}
			fd = lookup(r, cur, oflags, flags);
		}
		cur[end] = save;
		if (fd < 0)
			return -1;
		if (last)
			break;
		close(fd);
		start = end + 1;
	}
	if (fstat(fd, &st) < 0) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	if (st.st_dev == r->dev && st.st_ino == r->ino) {
		close(fd);
		return IN_ROOT_IS_ROOT;
	}
	return fd;
}
