// SPDX-License-Identifier: GPL-2.0
/*
 * Creating the pspace: clone3(CLONE_NPSPACE | CLONE_NEWNS | CLONE_NEWUTS |
 * CLONE_NEWIPC | CLONE_PIDFD): a container never shares the host's
 * hostname or its SysV/POSIX IPC.
 * The child comes back from here as pid 1 of the new pspace and never
 * returns to the caller; the parent gets the leader's wid and a pidfd.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "pspace-run.h"
#include "sys.h"


/*
 * The leader's getppid() is 0, so it cannot tell whether pspace-run is
 * still there that way: it holds the read end of a pipe whose write end
 * only pspace-run has, and sees POLLHUP once pspace-run is gone.
 */
static void die_with_parent(int alive_fd)
{
	struct pollfd p = { .fd = alive_fd, .events = POLLIN };

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		die_errno(EXIT_SETUP, "prctl(PR_SET_PDEATHSIG)");
	if (poll(&p, 1, 0) > 0 && (p.revents & POLLHUP))
		_exit(EXIT_SETUP);
	close(alive_fd);
}

/* RFC 1123 labels: letters, digits, '-' and '.', 1 to 64 characters. */
static bool valid_hostname(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > 64 || name[0] == '-' || name[0] == '.')
		return false;
	for (; *name; name++)
		if (!isalnum((unsigned char)*name) && *name != '-' && *name != '.')
			return false;
	return true;
}

/*
 * ROOT's /etc/hostname, read as a hostile ROOT may have made it: looked
 * up inside ROOT, and read only if it is a small regular file (a fifo
 * would block, a device could do anything on open), reopened through
 * its O_PATH fd.
 */
static char *read_root_hostname(const char *root, char *buf, size_t size)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	char proc[64];
	struct stat st;
	int dir, path, fd;
	ssize_t n;

	dir = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return NULL;
	path = sys_openat2(dir, "etc/hostname", &how);
	close(dir);
	if (path < 0)
		return NULL;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", path);
	fd = -1;
	if (fstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < 256)
		fd = open(proc, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	close(path);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	buf[strcspn(buf, " \t\r\n")] = '\0';
	return buf;
}

/*
 * The container's hostname, in its own UTS namespace: --hostname, else
 * ROOT's /etc/hostname, else ROOT's basename; if none of them is a valid
 * name, the name it started with (its own copy).
 */
void pick_hostname(struct config *cfg)
{
	static char buf[256];
	const char *base;

	if (cfg->hostname)
		return;
	if (read_root_hostname(cfg->root, buf, sizeof(buf)) && valid_hostname(buf)) {
		cfg->hostname = buf;
		return;
	}
	base = strrchr(cfg->root, '/');
	base = base ? base + 1 : cfg->root;
	if (valid_hostname(base))
		cfg->hostname = base;
}

/* uname -r, for messages that name the kernel. */
const char *kernel_release(void)
{
	static struct utsname u;

	if (!u.release[0] && uname(&u) < 0)
		snprintf(u.release, sizeof(u.release), "unknown");
	return u.release;
}

/*
 * SPEC 1.10: the child of clone3(CLONE_NPSPACE) makes sure it got a
 * pspace (pid 1, and its pid namespace says it is one) before anything
 * of the caller's runs.  A kernel that gives the flag's bit another
 * meaning, or none it checks, would otherwise run the "container" in
 * the caller's pid namespace.  It says so and ends the child; the
 * caller sees the child's EXIT_SETUP.
 */
void verify_pspace_leader(void)
{
	int fd, r = -1;

	if (getpid() == 1) {
		fd = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			r = ioctl(fd, NS_PIDNS_IS_PSPACE);
			close(fd);
		}
		if (r == 1)
			return;
	}
	warn("this kernel (%s) did not make a pspace: clone3() flag bit 56 "
	     "(CLONE_NPSPACE) has another meaning here or none; nothing was run",
	     kernel_release());
	_exit(EXIT_SETUP);
}

pid_t spawn_pspace(const struct config *cfg, int *pidfd, int *console, bool *autoreap)
{
	struct clone_args_v2 args;
	int alive[2], sock[2] = { -1, -1 }, sync[2] = { -1, -1 }, cgroup, cwd = -1;
	long pid;

	if (pipe2(alive, O_CLOEXEC) < 0)
		die_errno(EXIT_SETUP, "pipe");
	/*
	 * The leader waits until its seccomp filter is recorded for --join
	 * (seccomp.c), and in a user namespace until its maps are written.
	 */
	if (pipe2(sync, O_CLOEXEC) < 0)
		die_errno(EXIT_SETUP, "pipe");
	if (cfg->console == CONSOLE_INTERACTIVE &&
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sock) < 0)
		die_errno(EXIT_SETUP, "socketpair");

	memset(&args, 0, sizeof(args));
	args.flags = CLONE_NPSPACE | CLONE_NEWNS | CLONE_PIDFD;
	if (!TEST_OFF(cfg, OFF_NS))
		args.flags |= CLONE_NEWUTS | CLONE_NEWIPC;
	if (cfg->private_network)
		args.flags |= CLONE_NEWNET;
	if (cfg->userns)
		args.flags |= CLONE_NEWUSER;
	cgroup = cgroup_create(cfg, alive);
	if (cgroup >= 0) {
		args.flags |= CLONE_INTO_CGROUP | CLONE_NEWCGROUP;
		args.cgroup = cgroup;
	}
	args.pidfd = (uintptr_t)pidfd;
	args.exit_signal = SIGCHLD;
	/* The fixture plays a kernel on which the bit means something else. */
	if (TEST_OFF(cfg, OFF_NPSPACE))
		args.flags = (args.flags & ~CLONE_NPSPACE) | CLONE_NEWPID;
	if (TEST_OFF(cfg, OFF_PIDNS))
		args.flags &= ~CLONE_NPSPACE;

	/*
	 * --private-users: ROOT may lie below a directory only the host's
	 * root can search (as it should, userns.c), which the leader, root
	 * of the new user namespace only, cannot walk.  It gets ROOT as its
	 * working directory instead, which the copy of the mount namespace
	 * carries over onto the copy of ROOT's (idmapped) mount.
	 */
	if (userns_root_fd() >= 0) {
		cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (cwd < 0 || fchdir(userns_root_fd()) < 0)
			die_errno(EXIT_SETUP, "%s", cfg->root);
	}
	/*
	 * SPEC 1.9: with CLONE_PIDFD_AUTOKILL the kernel ends the whole
	 * pspace when the last reference to the pidfd goes, so a kill -9 of
	 * pspace-run takes the container with it even where nothing else
	 * would (the leader's PDEATHSIG below is the fallback).  It needs
	 * CLONE_AUTOREAP (no SIGCHLD, the exit status through the pidfd) and
	 * CAP_SYS_ADMIN where pspace-run runs, or CLONE_NNP; a kernel
	 * without them (before 7.1) says EINVAL, an unprivileged caller
	 * EPERM: then the pspace is made without them.
	 */
	*autoreap = false;
	if (!TEST_OFF(cfg, OFF_AUTOKILL)) {
		args.flags |= CLONE_AUTOREAP | CLONE_PIDFD_AUTOKILL;
		args.exit_signal = 0;
		pid = sys_clone3(&args);
		*autoreap = pid >= 0;
		args.flags &= ~(CLONE_AUTOREAP | CLONE_PIDFD_AUTOKILL);
		args.exit_signal = SIGCHLD;
	}
	if (!*autoreap)
		pid = sys_clone3(&args);
	userns_root_close();
	if (pid != 0 && cwd >= 0 && (fchdir(cwd) < 0 || close(cwd) < 0))
		die_errno(EXIT_SETUP, "back to the working directory");
	if (pid < 0) {
		cgroup_remove();
		if (errno == EINVAL || errno == ENOSYS)
			die(EXIT_SETUP, "this kernel (%s) does not support CLONE_NPSPACE (clone3: %s)",
			    kernel_release(), strerror(errno));
		die_errno(EXIT_SETUP, cfg->userns ? "clone3(CLONE_NEWUSER | CLONE_NPSPACE)"
			  : "clone3(CLONE_NPSPACE)");
	}
	if (pid == 0) {
		verify_pspace_leader();
		machine_forget();
		close(alive[1]);
		if (cwd >= 0)
			close(cwd);
		close(sync[1]);
		if (cfg->userns) {
			userns_enter(cfg, sync[0]);
		} else {
			char c;

			if (read(sync[0], &c, 1) != 1)
				_exit(EXIT_SETUP);
			close(sync[0]);
		}
		if (sock[0] >= 0)
			close(sock[0]);
		die_with_parent(alive[0]);
		/*
		 * The leader (and the --as-pid2 init) is pspace-run's code in
		 * the container: no /proc/1/mem or exe for its processes.  In
		 * a user namespace of its own the caller (who may --join it)
		 * is no more privileged than the container, and the leader
		 * stays as the caller's other processes are.
		 */
		if (!cfg->userns)
			make_undumpable();
		if (cfg->private_network)
			bring_lo_up();
		if (cfg->hostname && !TEST_OFF(cfg, OFF_NS) &&
		    sethostname(cfg->hostname, strlen(cfg->hostname)) < 0)
			die_errno(EXIT_SETUP, "hostname %s", cfg->hostname);
		restrict_devices(cfg);
		setup_root(cfg, sock[1]);
		if (cfg->as_pid2)
			run_as_pid2(cfg);
		exec_command(cfg);
	}
	/*
	 * The leader may be gone already (SPEC 1.10's check ends it): a
	 * write to it is then EPIPE, not pspace-run's death by SIGPIPE.
	 * Only the parent: the leader keeps the disposition it execs with.
	 */
	signal(SIGPIPE, SIG_IGN);
	close(alive[0]);
	close(sync[0]);
	record_default_filter(cfg, pid);
	if (cfg->userns)
		userns_write_maps(cfg, pid);
	if (write(sync[1], "", 1) != 1)
		die_errno(EXIT_SETUP, "start the leader");
	close(sync[1]);
	if (cgroup >= 0)
		close(cgroup);
	/* alive[1] stays open, unused, for as long as pspace-run lives. */
	verbose(cfg, "leader started, wid %ld", pid);
	if (sock[1] >= 0)
		close(sock[1]);
	*console = console_setup_parent(cfg, sock[0]);
	return pid;
}
