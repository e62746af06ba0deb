/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The core's system calls that musl has no wrapper for: the new mount
 * API, openat2, clone3 and the pidfd calls, each once, typed.  No other
 * file of pspace-run calls syscall() for these; the mount toolkit on top
 * of them (mnt.c) is what the front ends use.
 */
#ifndef PSPACE_RUN_SYS_H
#define PSPACE_RUN_SYS_H

#include <fcntl.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif
#ifndef PIDFD_SIGNAL_PSPACE
#define PIDFD_SIGNAL_PSPACE (1UL << 3)	/* include/uapi/linux/pidfd.h, SPEC 2.8 */
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* <sys/mount.h> and <linux/mount.h> do not mix; what we use of the former. */
int mount(const char *, const char *, const char *, unsigned long, const void *);
int umount2(const char *, int);
#ifndef MNT_DETACH
#define MNT_DETACH 2
#endif

/* struct clone_args up to cgroup (CLONE_ARGS_SIZE_VER2, Linux 5.7). */
struct clone_args_v2 {
	uint64_t flags;
	uint64_t pidfd;
	uint64_t child_tid;
	uint64_t parent_tid;
	uint64_t exit_signal;
	uint64_t stack;
	uint64_t stack_size;
	uint64_t tls;
	uint64_t set_tid;
	uint64_t set_tid_size;
	uint64_t cgroup;
};

static inline pid_t sys_clone3(struct clone_args_v2 *args)
{
	return syscall(SYS_clone3, args, sizeof(*args));
}

/* clone(CLONE_PARENT): the child's exit signal is the caller's own. */
static inline pid_t sys_clone_parent(void)
{
	return syscall(SYS_clone, CLONE_PARENT, 0, 0, 0, 0);
}

static inline int sys_pidfd_open(pid_t pid, unsigned int flags)
{
	return syscall(SYS_pidfd_open, pid, flags);
}

static inline int sys_pidfd_send_signal(int pidfd, int sig, unsigned int flags)
{
	return syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, flags);
}

static inline int sys_close_range(unsigned int first, unsigned int last, unsigned int flags)
{
	return syscall(SYS_close_range, first, last, flags);
}

static inline int sys_pivot_root(const char *new_root, const char *put_old)
{
	return syscall(SYS_pivot_root, new_root, put_old);
}

static inline int sys_openat2(int dir, const char *path, const struct open_how *how)
{
	return syscall(SYS_openat2, dir, path, how, sizeof(*how));
}

/* openat2() with @flags (O_CLOEXEC added) and @resolve. */
static inline int open_at2(int dir, const char *path, int flags, uint64_t resolve)
{
	struct open_how how = { .flags = (uint64_t)flags | O_CLOEXEC, .resolve = resolve };

	return sys_openat2(dir, path, &how);
}

static inline int sys_open_tree(int dfd, const char *path, unsigned int flags)
{
	return syscall(SYS_open_tree, dfd, path, flags | OPEN_TREE_CLOEXEC);
}

static inline int sys_move_mount(int from, const char *from_path, int to, const char *to_path,
				 unsigned int flags)
{
	return syscall(SYS_move_mount, from, from_path, to, to_path, flags);
}

static inline int sys_mount_setattr(int fd, const char *path, unsigned int flags,
				    const struct mount_attr *attr)
{
	return syscall(SYS_mount_setattr, fd, path, flags, attr, sizeof(*attr));
}

static inline int sys_fsopen(const char *fstype, unsigned int flags)
{
	return syscall(SYS_fsopen, fstype, flags);
}

static inline int sys_fsconfig(int fs, unsigned int cmd, const char *key, const void *value,
			       int aux)
{
	return syscall(SYS_fsconfig, fs, cmd, key, value, aux);
}

static inline int sys_fsmount(int fs, unsigned int flags, unsigned int attr)
{
	return syscall(SYS_fsmount, fs, flags, attr);
}

#endif
