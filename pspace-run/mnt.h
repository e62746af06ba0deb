/* SPDX-License-Identifier: GPL-2.0 */
/* The mount toolkit (mnt.c): -1 with errno on failure, the caller says what failed. */
#ifndef PSPACE_RUN_MNT_H
#define PSPACE_RUN_MNT_H

#include <stdbool.h>
#include <stdint.h>

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

#endif
