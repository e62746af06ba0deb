// SPDX-License-Identifier: GPL-2.0
/*
 * The mount toolkit both front ends use: every mount is made on a file
 * descriptor with the new mount API (fsopen/fsconfig/fsmount, open_tree,
 * move_mount, mount_setattr), never on a path looked up the ordinary
 * way.  Each call returns -1 with errno and leaves the message to its
 * caller, who knows what the mount was for.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mnt.h"
#include "pspace-run.h"
#include "sys.h"

int mnt_clone(int dfd, const char *path, bool recursive)
{
	return sys_open_tree(dfd, path,
			     OPEN_TREE_CLONE | (*path ? 0 : AT_EMPTY_PATH) |
			     (recursive ? AT_RECURSIVE : 0));
}

int mnt_attach(int mnt, int target)
{
	return sys_move_mount(mnt, "", target, "",
			      MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
}

int mnt_attach_at(int mnt, int dir, const char *path)
{
	return sys_move_mount(mnt, "", dir, path,
			      MOVE_MOUNT_F_EMPTY_PATH | (*path ? 0 : MOVE_MOUNT_T_EMPTY_PATH));
}

int mnt_setattr(int fd, const char *path, bool recursive, uint64_t set, uint64_t clr,
		uint64_t propagation)
{
	struct mount_attr a = { .attr_set = set, .attr_clr = clr, .propagation = propagation };

	return sys_mount_setattr(fd, path,
				 (*path ? 0 : AT_EMPTY_PATH) | (recursive ? AT_RECURSIVE : 0), &a);
}

static char failed_option[256];

int mnt_fs_context(const char *fstype, const char *options, const char **bad)
{
	char *copy, *opt, *save = NULL;
	int fs, err;

	*bad = NULL;
	fs = sys_fsopen(fstype, FSOPEN_CLOEXEC);
	if (fs < 0)
		return -1;
	if (!options || !*options)
		return fs;
	copy = strdup(options);
	if (!copy) {
		close(fs);
		errno = ENOMEM;
		return -1;
	}
	for (opt = strtok_r(copy, ",", &save); opt; opt = strtok_r(NULL, ",", &save)) {
		char *value = strchr(opt, '=');
		int r;

		if (value)
			*value++ = '\0';
		if (value)
			r = sys_fsconfig(fs, FSCONFIG_SET_STRING, opt, value, 0);
		else
			r = sys_fsconfig(fs, FSCONFIG_SET_FLAG, opt, NULL, 0);
		if (r < 0) {
			err = errno;
			if (value)
				value[-1] = '=';	/* named as given: "size=lots" */
			snprintf(failed_option, sizeof(failed_option), "%s", opt);
			free(copy);
			close(fs);
			*bad = failed_option;
			errno = err;
			return -1;
		}
	}
	free(copy);
	return fs;
}

int mnt_create(int fs, uint64_t attr)
{
	int mnt, err;

	if (sys_fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		mnt = -1;
	else
		mnt = sys_fsmount(fs, FSMOUNT_CLOEXEC, attr);
	err = errno;
	close(fs);
	errno = err;
	return mnt;
}

int mnt_new_fs(const char *fstype, const char *options, uint64_t attr, const char **bad)
{
	int fs = mnt_fs_context(fstype, options, bad);

	return fs < 0 ? -1 : mnt_create(fs, attr);
}

int mnt_new_fs_or_die(const char *fstype, const char *options, uint64_t attr, const char *what)
{
	const char *bad;
	int mnt = mnt_new_fs(fstype, options, attr, &bad);

	if (mnt < 0 && bad)
		die_errno(EXIT_SETUP, "mount %s on %s: option %s", fstype, what, bad);
	if (mnt < 0)
		die_errno(EXIT_SETUP, "mount %s on %s", fstype, what);
	return mnt;
}
