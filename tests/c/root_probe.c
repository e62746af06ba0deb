// SPDX-License-Identifier: GPL-2.0
/*
 * root_probe MARKER: the ways out of a container's root, tried from
 * inside, each in a child of its own.  MARKER is a file only the host's
 * root has (a relative name: it is looked for in whatever directory an
 * attack ends up in).  Each attack is one TAP line: "ok" when it did not
 * reach MARKER, "not ok ... ESCAPED" when it did.  Written for a root
 * moved over an initramfs (pspace-run's fallback where pivot_root(2)
 * refuses), where the host's root still lies below the container's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *marker;
static int n;

/* In the child: 0 when MARKER is in the current directory (escaped). */
static int found_here(void)
{
	return access(marker, F_OK) == 0 ? 0 : 1;
}

/* Up as far as ".." goes, then look. */
static int up_and_look(void)
{
	int i;

	for (i = 0; i < 64; i++)
		if (chdir("..") < 0)
			break;
	return found_here();
}

static int dotdot(void)
{
	if (chdir("/") < 0)
		return 2;
	return up_and_look();
}

/* The classic: chroot below the cwd, walk up, chroot there. */
static int chroot_game(void)
{
	if (chdir("/") < 0)
		return 2;
	mkdir("/run/probe-cage", 0700);
	if (chroot("/run/probe-cage") < 0) {
		printf("# chroot: %s\n", strerror(errno));
		return 1;
	}
	if (up_and_look() == 0)
		return 0;
	if (chroot(".") < 0)
		return 1;
	if (chdir("/") < 0)
		return 2;
	return found_here();
}

static int proc_root(void)
{
	char path[512];

	snprintf(path, sizeof(path), "/proc/1/root/%s", marker);
	if (access(path, F_OK) == 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/root/../../../%s", marker);
	if (access(path, F_OK) == 0)
		return 0;
	return 1;
}

/* "/" detached, then the mount namespace's own root asked for. */
static int umount_setns(int how)
{
	char path[64];
	int ns;

	if (how == 1 && unshare(CLONE_NEWNS) < 0) {
		printf("# unshare(CLONE_NEWNS): %s\n", strerror(errno));
		return 1;
	}
	if (how == 2 && (unshare(CLONE_NEWUSER) < 0 || unshare(CLONE_NEWNS) < 0)) {
		printf("# unshare(CLONE_NEWUSER), unshare(CLONE_NEWNS): %s\n", strerror(errno));
		return 1;
	}
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)getpid());
	ns = open(path, O_RDONLY | O_CLOEXEC);
	if (ns < 0) {
		printf("# %s: %s\n", path, strerror(errno));
		return 2;
	}
	if (umount2("/", MNT_DETACH) < 0)
		printf("# umount2(/): %s\n", strerror(errno));
	if (setns(ns, CLONE_NEWNS) < 0) {
		printf("# setns(mount): %s\n", strerror(errno));
		return 1;
	}
	if (chdir("/") < 0) {
		printf("# chdir / after setns: %s\n", strerror(errno));
		return 2;
	}
	return found_here();
}

static int inherited_fds(void)
{
	int fd;

	for (fd = 3; fd < 1024; fd++)
		if (fcntl(fd, F_GETFD) >= 0) {
			printf("# fd %d is open\n", fd);
			if (fchdir(fd) == 0 && up_and_look() == 0)
				return 0;
		}
	return 1;
}

static int by_handle(void)
{
	struct {
		struct file_handle h;
		unsigned char bytes[128];
	} fh;
	int mount_id, dir, fd;

	fh.h.handle_bytes = sizeof(fh.bytes);
	if (name_to_handle_at(AT_FDCWD, "/", &fh.h, &mount_id, 0) < 0) {
		printf("# name_to_handle_at: %s\n", strerror(errno));
		return 1;
	}
	dir = open("/", O_RDONLY | O_DIRECTORY);
	fd = open_by_handle_at(dir, &fh.h, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		printf("# open_by_handle_at: %s\n", strerror(errno));
		return 1;
	}
	/* Refused is what is asked: opening anything by handle is the hole. */
	return 0;
}

static void attack(const char *what, int (*fn)(void))
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(fn());
	waitpid(pid, &st, 0);
	n++;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		printf("not ok %d - ROOT escape: %s: ESCAPED (reached %s)\n", n, what, marker);
	else if (WIFEXITED(st) && WEXITSTATUS(st) == 1)
		printf("ok %d - ROOT escape: %s: stays inside\n", n, what);
	else
		printf("not ok %d - ROOT escape: %s: the probe failed (status %#x)\n", n, what, st);
	fflush(stdout);
}

static int umount_setns0(void) { return umount_setns(0); }
static int umount_setns1(void) { return umount_setns(1); }
static int umount_setns2(void) { return umount_setns(2); }

int main(int argc, char **argv)
{
	if (argc != 2 || strchr(argv[1], '/')) {
		fprintf(stderr, "usage: %s MARKER (a file name, no slash)\n", argv[0]);
		return 2;
	}
	marker = argv[1];
	/* Each child's diagnostics reach the file before its _exit(). */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (found_here() == 0 && chdir("/") == 0 && found_here() == 0) {
		printf("Bail out! %s is inside the container's root already\n", marker);
		return 1;
	}
	attack("\"..\" from /", dotdot);
	attack("chroot below the cwd, \"..\", chroot .", chroot_game);
	attack("/proc/1/root and /proc/self/root", proc_root);
	attack("an fd inherited from the caller (fchdir)", inherited_fds);
	attack("open_by_handle_at", by_handle);
	attack("unshare(CLONE_NEWNS), umount2(\"/\"), setns", umount_setns1);
	attack("unshare(CLONE_NEWUSER), unshare(CLONE_NEWNS), umount2(\"/\"), setns", umount_setns2);
	/* Last: the umount2() acts on the container's own mount namespace. */
	attack("umount2(\"/\", MNT_DETACH), setns(own mount namespace)", umount_setns0);
	printf("1..%d\n", n);
	return 0;
}
