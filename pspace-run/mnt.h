/* SPDX-License-Identifier: GPL-2.0 */
/* The mount toolkit (mnt.c): -1 with errno on failure, the caller says what failed. */
#ifndef PSPACE_RUN_MNT_H
#define PSPACE_RUN_MNT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* A detached copy of the mount at @path ("" : @dfd itself), with its submounts if @recursive. */
int mnt_clone(int dfd, const char *path, bool recursive);
/* Attach the detached mount @mnt onto the directory or file @target. */
int mnt_attach(int mnt, int target);
/* The same onto @path below @dir ("" : @dir itself). */
int mnt_attach_at(int mnt, int dir, const char *path);
/* mount_setattr() of the mount at @path below @fd ("" : @fd itself). */
int mnt_setattr(int fd, const char *path, bool recursive, uint64_t set, uint64_t clr,
		uint64_t propagation);
/*
 * fsopen(@fstype) configured with @options ("key=value,flag,..."): the
 * context's fd; -1 with errno, and *@bad the option refused if one was.
 */
int mnt_fs_context(const char *fstype, const char *options, const char **bad);
/* Create the file system of context @fs and fsmount() it with @attr; @fs is closed. */
int mnt_create(int fs, uint64_t attr);
/* mnt_fs_context() and mnt_create(): a new file system, not yet attached. */
int mnt_new_fs(const char *fstype, const char *options, uint64_t attr, const char **bad);
/* The same, dying with "mount FSTYPE on WHAT[: option OPT]: ERROR" (EXIT_SETUP). */
int mnt_new_fs_or_die(const char *fstype, const char *options, uint64_t attr, const char *what);

/*
 * Paths inside a root that is not trusted (ROOT, an OCI rootfs): the one
 * resolver of mount points for both front ends (inroot.c).
 */
struct in_root {
	int fd;			/* where paths are resolved from */
	uint64_t resolve;	/* RESOLVE_* (in_root_init: IN_ROOT | NO_MAGICLINKS) */
	dev_t dev;		/* the container's "/": what no mount point may be */
	ino_t ino;
	bool naive;		/* the attack fixture: openat(), as a naive launcher */
};

enum {
	IN_ROOT_DIR = 1 << 0,		/* the last component must be a directory */
	IN_ROOT_CREATE = 1 << 1,	/* make what is missing: directories ... */
	IN_ROOT_FILE = 1 << 2,		/* ... the last one an empty file */
	IN_ROOT_NO_SYMLINKS = 1 << 3,	/* no symbolic link on the way (ELOOP) */
};
#define IN_ROOT_IS_ROOT (-2)	/* in_root_open(): the path leads back to "/" */

/* @fd is the container's root (O_PATH); -1 with errno. */
int in_root_init(struct in_root *r, int fd);
/*
 * @path (absolute or relative to @r->fd, no ".." component) opened
 * O_PATH inside the root.  With IN_ROOT_CREATE each missing component
 * is made in its parent, found the same way; a dangling symbolic link
 * met on the way is followed inside the root and its target made
 * (/etc/resolv.conf -> /run/..., as crun does).  -1 with errno
 * (ENOENT: missing, without IN_ROOT_CREATE; EINVAL: a ".."), or
 * IN_ROOT_IS_ROOT for a path that leads back to the container's / (a
 * link to "/": a mount there would cover the whole container).
 */
int in_root_open(const struct in_root *r, const char *path, int flags);

#endif
