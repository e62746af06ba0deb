// SPDX-License-Identifier: GPL-2.0
/*
 * escape_probe: what a process in a container can reach of the host.
 *
 *   escape_probe inside MARKER HOSTPID...   run inside a container: the
 *       host processes HOSTPID... and the file MARKER (which exists only
 *       in the host's root) must be out of reach; TAP out.
 *   escape_probe unpriv   run as an unprivileged user on the host: no
 *       pspace without a user namespace of one's own, and no pid_max but
 *       one's own.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/ptrace.h>
#include <sys/stat.h>

#include "common.h"

static int gone(const char *what, long r, int want)
{
	int e = errno;

	tap(r == -1 && e == want, "%s: %s (want %s)", what,
	    r == -1 ? strerror(e) : "succeeded", strerror(want));
	return r == -1 && e == want;
}

static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static void inside(const char *marker, int n, char **pids)
{
	char what[128], path[300];
	DIR *d;
	struct dirent *e;
	int i, reached = 0, fd;

	for (i = 0; i < n; i++) {
		pid_t pid = atoi(pids[i]);
		struct stat st;

		snprintf(path, sizeof(path), "/proc/%d", pid);
		snprintf(what, sizeof(what), "host pid %d is not in /proc", pid);
		gone(what, stat(path, &st), ENOENT);
		snprintf(what, sizeof(what), "kill(%d, 0) of a host pid", pid);
		gone(what, kill(pid, 0), ESRCH);
		snprintf(what, sizeof(what), "kill(%d, SIGKILL) of a host pid", pid);
		gone(what, kill(pid, SIGKILL), ESRCH);
		/* Without sys_ptrace (the default set) the filter refuses it first. */
		snprintf(what, sizeof(what), "ptrace(PTRACE_ATTACH, %d) of a host pid", pid);
		errno = 0;
		if (ptrace(PTRACE_ATTACH, pid, 0, 0) == -1 && errno == EPERM)
			tap(1, "%s: EPERM (the filter: no sys_ptrace)", what);
		else
			gone(what, ptrace(PTRACE_ATTACH, pid, 0, 0), ESRCH);
		snprintf(what, sizeof(what), "pidfd_open(%d) of a host pid", pid);
		gone(what, syscall(__NR_pidfd_open, pid, 0), ESRCH);
	}

	/* ".." at the root stays at the root. */
	tap(same_file("/", "/../../../.."), "\"/../../..\" is \"/\"");
	snprintf(path, sizeof(path), "/../../../..%s", marker);
	gone("the host's marker through \"/../../..\"", access(path, F_OK), ENOENT);
	gone("the host's marker by its own name", access(marker, F_OK), ENOENT);

	/* /proc/<pid>/root of everything visible is our root. */
	d = opendir("/proc");
	while (d && (e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/root%s", e->d_name, marker);
		if (!access(path, F_OK))
			reached++;
	}
	if (d)
		closedir(d);
	tap(reached == 0, "no /proc/<pid>/root leads to the host's root (%d do)", reached);

	/* The classic chroot escape: chroot deeper, then walk up. */
	fd = open("/", O_RDONLY | O_DIRECTORY);
	mkdir("/tmp/escape", 0700);
	if (chroot("/tmp/escape") == 0) {
		for (i = 0; i < 64; i++)
			if (chdir(".."))
				break;
		/* Also through an fd to the old root, opened before. */
		if (fchdir(fd) == 0)
			for (i = 0; i < 64; i++)
				if (chdir(".."))
					break;
		if (chroot(".") == 0)
			gone("the host's marker after a chroot escape attempt", access(marker, F_OK), ENOENT);
		else
			tap(0, "chroot(\".\"): %s", strerror(errno));
	} else {
		tap(0, "chroot(\"/tmp/escape\"): %s", strerror(errno));
	}
	close(fd);
}

static int make_pspace(void)
{
	pid_t pid = clone3_flags(CLONE_NPSPACE, NULL);
	int st;

	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return -errno;
	waitpid(pid, &st, 0);
	return 0;
}

static void unpriv(void)
{
	char map[32];
	int r, fd;
	pid_t pid;

	if (geteuid() == 0) {
		tap(0, "unpriv must run as an unprivileged user");
		return;
	}
	r = make_pspace();
	tap(r == -EPERM, "an unprivileged user gets EPERM for CLONE_NPSPACE (%s)", strerror(-r));
	fd = open("/proc/sys/kernel/pid_max", O_WRONLY);
	errno = 0;
	tap(fd < 0 || write(fd, "4000000", 7) < 0,
	    "an unprivileged user cannot write the host's pid_max (%s)", strerror(errno));
	if (fd >= 0)
		close(fd);

	pid = fork();
	if (pid == 0) {
		snprintf(map, sizeof(map), "0 %d 1\n", (int)getuid());
		if (unshare(CLONE_NEWUSER))
			_exit(10);
		if (write_file("/proc/self/uid_map", map))
			_exit(11);
		if (make_pspace())
			_exit(12);
		/* Root of its own user ns, not of the host's pid namespace. */
		if (!write_file("/proc/sys/kernel/pid_max", "4000000"))
			_exit(13);
		pid = clone3_flags(CLONE_NPSPACE, NULL);
		if (pid == 0)
			_exit(write_file("/proc/sys/kernel/pid_max", "5000") ? 14 : 0);
		if (pid < 0)
			_exit(15);
		waitpid(pid, &r, 0);
		_exit(WIFEXITED(r) ? WEXITSTATUS(r) : 16);
	}
	waitpid(pid, &r, 0);
	tap(WIFEXITED(r) && WEXITSTATUS(r) == 0,
	    "in a user namespace of its own it makes pspaces and sets their pid_max, not the host's (%d)",
	    WIFEXITED(r) ? WEXITSTATUS(r) : -1);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 3 && !strcmp(argv[1], "inside"))
		inside(argv[2], argc - 3, argv + 3);
	else if (argc == 2 && !strcmp(argv[1], "unpriv"))
		unpriv();
	else {
		fprintf(stderr, "usage: escape_probe inside MARKER HOSTPID... | unpriv\n");
		return 2;
	}
	return tap_done();
}
