// SPDX-License-Identifier: GPL-2.0
/*
 * The other verbs: --join runs a command inside a running container,
 * --list shows the pspaces the caller can see.
 *
 * A joined process is bound as the container's own processes are, from
 * its first instruction inside: it is cloned straight into the leader's
 * cgroup (CLONE_INTO_CGROUP) and takes the leader's bounding set,
 * no_new_privs and (rebuilt, the same default) seccomp filter, or
 * stricter ones if asked; never the caller's.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pspace-run.h"
#include "sys.h"

static bool is_leader(const struct proc_info *pi)
{
	return pi->levels > 1 && pi->innermost == 1;
}

#define CGROUP2_SUPER_MAGIC 0x63677270

/* What the leader runs with, from /proc/WID/status. */
struct leader_privs {
	uint64_t cap_bnd;
	bool no_new_privs;
	bool seccomp;
};

static void read_leader_privs(pid_t pid, struct leader_privs *lp)
{
	char name[64], line[256];
	int seen = 0;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/status", pid);
	f = fopen(name, "re");
	if (!f)
		die_errno(EXIT_SETUP, "--join %d", (int)pid);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "CapBnd:", 7)) {
			lp->cap_bnd = strtoull(line + 7, NULL, 16);
			seen |= 1;
		} else if (!strncmp(line, "NoNewPrivs:", 11)) {
			lp->no_new_privs = strtol(line + 11, NULL, 10) != 0;
			seen |= 2;
		} else if (!strncmp(line, "Seccomp:", 8)) {
			lp->seccomp = strtol(line + 8, NULL, 10) != 0;
			seen |= 4;
		}
	}
	fclose(f);
	if (seen != 7)
		die(EXIT_SETUP, "--join %d: cannot read its capabilities, no_new_privs and seccomp mode",
		    (int)pid);
}

/*
 * The leader's cgroup, opened through the caller's cgroup2 mount: its
 * path in /proc/WID/cgroup ("0::/pspace-123") is relative to the
 * caller's cgroup namespace root, which is what /sys/fs/cgroup shows.
 * -1 when there is no cgroup2 to join.
 */
static int open_leader_cgroup(pid_t pid)
{
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV |
			   RESOLVE_NO_SYMLINKS,
	};
	char name[64], line[512];
	struct statfs sfs;
	int root, fd = -1;
	FILE *f;

	if (statfs("/sys/fs/cgroup", &sfs) < 0 || sfs.f_type != CGROUP2_SUPER_MAGIC)
		return -1;
	snprintf(name, sizeof(name), "/proc/%d/cgroup", pid);
	f = fopen(name, "re");
	if (!f)
		die_errno(EXIT_SETUP, "--join %d", (int)pid);
	line[0] = '\0';
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::/", 4))
			break;
	fclose(f);
	if (strncmp(line, "0::/", 4))
		die(EXIT_SETUP, "--join %d: no cgroup2 path in %s", (int)pid, name);
	line[strcspn(line, "\n")] = '\0';
	root = open("/sys/fs/cgroup", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root >= 0)
		fd = line[4] ? sys_openat2(root, line + 4, &how)
			     : sys_openat2(root, ".", &how);
	if (fd < 0)
		die_errno(EXIT_SETUP, "--join %d: its cgroup %s", (int)pid, line + 3);
	close(root);
	return fd;
}

/*
 * A user's own container in a cgroup that is not the user's (none was
 * delegated: it stayed where pspace-run was started) cannot be entered
 * by the user's --join: the joined process then stays in the caller's
 * cgroup, which is the user's own business, as the container's is.
 */
static pid_t clone_into(const struct config *cfg, int cgroup)
{
	struct clone_args_v2 args = { .exit_signal = SIGCHLD };
	pid_t pid;

	if (cgroup < 0)
		return fork();
	args.flags = CLONE_INTO_CGROUP;
	args.cgroup = cgroup;
	pid = sys_clone3(&args);
	if (pid < 0 && (errno == EACCES || errno == EPERM) && geteuid() != 0) {
		verbose(cfg, "--join %d: its cgroup is not yours to enter (none delegated to you): "
			"the joined process stays in yours", (int)cfg->join);
		return fork();
	}
	return pid;
}

static int wait_for(pid_t child)
{
	int status;

	/* A joined command is no init: it gets the terminal's signals itself. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	if (waitpid(child, &status, 0) < 0)
		die_errno(EXIT_SETUP, "waitpid");
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

/*
 * In a child already in the leader's cgroup (CLONE_INTO_CGROUP; the
 * kernel refuses that from outside the cgroup namespace, so the
 * namespaces come after), not yet in the pspace: enter the namespaces,
 * drop to the container's privileges, close the caller's fds, clear the
 * environment, and only then fork the process that appears inside.
 * Nothing of the caller's, and no privilege the container lacks, is
 * ever in the pspace for the container to ptrace or read through /proc.
 */
/* Is @pid's namespace @ns ("user", "cgroup") another than ours? */
static bool other_ns(pid_t pid, const char *ns)
{
	struct stat a, b;
	char path[64], self[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)pid, ns);
	snprintf(self, sizeof(self), "/proc/self/ns/%s", ns);
	if (stat(path, &a) < 0 || stat(self, &b) < 0)
		die_errno(EXIT_SETUP, "--join %d: its %s namespace", (int)pid, ns);
	return a.st_ino != b.st_ino || a.st_dev != b.st_dev;
}

static bool other_userns(pid_t pid)
{
	return other_ns(pid, "user");
}

static void join_and_run(const struct config *joined, int pidfd)
{
	pid_t command;
	char path[64];
	bool userns;
	int root;

	make_undumpable();
	/*
	 * setns() gives the top of the mount namespace's root mount, which
	 * is the container's root only while the container leaves it there:
	 * one that detached its "/" (over an initramfs, the host's root lies
	 * below) would have us land outside.  The leader's own root it is.
	 */
	snprintf(path, sizeof(path), "/proc/%d/root", (int)joined->join);
	root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		die_errno(EXIT_SETUP, "--join %d: its root", (int)joined->join);
	/*
	 * A container with a user namespace of its own (unprivileged, or
	 * --private-users) is entered through it, and the joined process is
	 * its root, not the host's: the host's root is not mapped there.
	 */
	userns = other_userns(joined->join);
	/*
	 * A container given no cgroup has none of its own namespace either,
	 * and one without --private-network shares the host's network:
	 * entering the caller's own again needs CAP_SYS_ADMIN over the
	 * host's, which a user lacks (setns checks before it sees that
	 * nothing changes).  A network namespace of its own is entered: a
	 * joined process left in the host's would hand the container a way
	 * into it (setns() to the joined pid's, from inside).
	 */
	if (setns(pidfd, CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC |
		  (other_ns(joined->join, "cgroup") ? CLONE_NEWCGROUP : 0) |
		  (other_ns(joined->join, "net") ? CLONE_NEWNET : 0) |
		  (userns ? CLONE_NEWUSER : 0)) < 0)
		die_errno(EXIT_SETUP, "--join %d: setns", (int)joined->join);
	close(pidfd);
	if (userns) {
		if (setresgid(0, 0, 0) < 0)
			die_errno(EXIT_SETUP, "--join %d: setresgid 0", (int)joined->join);
		/* Refused where setgroups is denied (a single-id map): none to drop. */
		if (setgroups(0, NULL) < 0 && errno != EPERM)
			die_errno(EXIT_SETUP, "--join %d: setgroups", (int)joined->join);
		if (setresuid(0, 0, 0) < 0)
			die_errno(EXIT_SETUP, "--join %d: setresuid 0", (int)joined->join);
		/* The uid change reset "dumpable" to fs.suid_dumpable. */
		make_undumpable();
	}
	if (fchdir(root) < 0 || chroot(".") < 0)
		die_errno(EXIT_SETUP, "--join %d: enter its root", (int)joined->join);
	close(root);
	if (chdir("/") < 0)
		die_errno(EXIT_SETUP, "chdir /");
	console_setup_child(joined, -1);
	set_environment(joined);
	close_caller_fds(joined);
	lock_down(joined, false);
	command = fork();
	if (command < 0)
		die_errno(EXIT_SETUP, "fork");
	if (command == 0)
		exec_locked(joined);
	_exit(wait_for(command));
}

static int watch_joined(const struct config *cfg, pid_t child);

/*
 * The container's own seccomp filter, as recorded when it was made
 * (seccomp.c): pspace-run's default for its own containers, the bundle's
 * profile for an OCI one.  Without a record (another runtime's
 * container, or one of a pspace-run before records) the join is
 * refused rather than made under another filter; except for a user's
 * own container (in a user namespace below the caller's, the only kind
 * a user can join) where no runtime directory held the record: what the
 * user's filter keeps from the container is the user's own anyway, and
 * the default filter is rebuilt as the container got it.  The record
 * counts even while the leader has no filter yet (an OCI container
 * created, not started, whose leader loads it just before its exec).
 */
static const struct sock_fprog *leader_filter(const struct config *cfg, bool filtered)
{
	const struct sock_fprog *prog = recorded_filter(cfg->join);

	if (prog || !filtered)
		return prog;
	if (geteuid() != 0 && other_userns(cfg->join))
		return NULL;
	die(EXIT_SETUP, "--join %d: no record of its seccomp filter (not started by this "
	    "pspace-run?): refusing to join it under another filter", (int)cfg->join);
}

int join_container(const struct config *cfg)
{
	struct config joined = *cfg;
	struct leader_privs lp = { 0 };
	struct proc_info pi;
	int pidfd, cgroup = -1;
	pid_t child;

	/*
	 * The pidfd first: what /proc/WID shows is the pidfd's process's
	 * only if that process is still alive after it was read (a wid of
	 * a leader that has exited may be a new process's by then).
	 */
	pidfd = sys_pidfd_open(cfg->join, 0);
	if (pidfd < 0 && errno == ESRCH)
		die(EXIT_SETUP, "--join %d: no such process", (int)cfg->join);
	if (pidfd < 0)
		die_errno(EXIT_SETUP, "--join %d", (int)cfg->join);
	if (!read_proc_info(cfg->join, &pi))
		die(EXIT_SETUP, "--join %d: no such process", (int)cfg->join);
	if (!is_leader(&pi))
		die(EXIT_SETUP, "--join %d: not the leader of a pspace", (int)cfg->join);
	/* Another user's container: say so, not what would fail next. */
	if (sys_pidfd_send_signal(pidfd, 0, 0) < 0 && errno == EPERM)
		die_errno(EXIT_SETUP, "--join %d", (int)cfg->join);
	if (!TEST_OFF(cfg, OFF_JOIN)) {
		/* The same or stricter: what the leader has, less what is asked. */
		read_leader_privs(cfg->join, &lp);
		joined.cap_drop |= ~lp.cap_bnd;
		joined.no_new_privs |= lp.no_new_privs;
		joined.seccomp = lp.seccomp;
		joined.seccomp_prog = leader_filter(cfg, lp.seccomp);
		cgroup = open_leader_cgroup(cfg->join);
	}
	if (sys_pidfd_send_signal(pidfd, 0, 0) < 0)
		die(EXIT_SETUP, "--join %d: the leader exited while being joined", (int)cfg->join);
	if (TEST_OFF(cfg, OFF_JOIN)) {
		/* The fixture: visible inside with the caller's privileges. */
		if (setns(pidfd, CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC |
			  CLONE_NEWCGROUP) < 0)
			die_errno(EXIT_SETUP, "--join %d: setns", (int)cfg->join);
		child = fork();
		if (child == 0) {
			if (chdir("/") < 0)
				die_errno(EXIT_SETUP, "chdir /");
			exec_command(cfg);
		}
	} else {
		/* The caller's terminal, reopened while our /proc still shows us. */
		console_prepare(cfg);
		child = clone_into(cfg, cgroup);
		if (child == 0)
			join_and_run(&joined, pidfd);
	}
	if (child < 0)
		die_errno(EXIT_SETUP, "--join %d: clone into its cgroup", (int)cfg->join);
	close(pidfd);
	if (cgroup >= 0)
		close(cgroup);
	if (TEST_OFF(cfg, OFF_JOIN))
		return wait_for(child);
	return watch_joined(cfg, child);
}

/*
 * The joined process has a session of its own and, when stdin is a
 * terminal, a pty of the container's devpts (console_setup_child); here
 * that pty is relayed and every signal passed on, in supervise()'s loop.
 */
static int watch_joined(const struct config *cfg, pid_t child)
{
	int pidfd = sys_pidfd_open(child, 0);

	if (pidfd < 0)
		die_errno(EXIT_SETUP, "pidfd_open");
	return supervise(cfg, child, pidfd, console_setup_parent(cfg, -1), false);
}

static int compare_path(const void *a, const void *b)
{
	const struct proc_info *x = a, *y = b;

	return strcmp(x->path, y->path);
}

static int depth_of(const char *path)
{
	int n = 0;

	for (; *path; path++)
		n += *path == '/';
	return n;
}

/*
 * The leader's command line, as the container wrote it: its arguments
 * joined by spaces, and every byte that is not printable ASCII (escape
 * sequences, a newline that would start a row of its own, UTF-8 too) and
 * each backslash shown as \xNN, as ps(1) shows what it cannot print as
 * '?': nothing of it reaches the caller's terminal raw.  @out holds four
 * times what is read, plus the NUL.
 */
static void leader_command(pid_t pid, char *out, size_t size)
{
	char name[64], raw[128];
	size_t n, i, o = 0;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/cmdline", pid);
	out[0] = '\0';
	f = fopen(name, "re");
	if (!f)
		return;
	n = fread(raw, 1, sizeof(raw), f);
	fclose(f);
	while (n && !raw[n - 1])
		n--;
	for (i = 0; i < n && o + 5 <= size; i++) {
		unsigned char c = raw[i];

		if (!c)
			out[o++] = ' ';
		else if (c < 0x20 || c >= 0x7f || c == '\\')
			o += snprintf(out + o, size - o, "\\x%02x", c);
		else
			out[o++] = c;
	}
	out[o] = '\0';
}

/*
 * The machine name of the container led by @pi: registered by its
 * parent, the pspace-run that started it, under the wid that parent
 * sees (the next to last NSpid).  "-" when there is none.
 */
static const char *leader_machine(const struct proc_info *pi, char *buf, size_t size)
{
	if (pi->ppid <= 0 || pi->outer <= 0 || !machine_of(pi->outer, pi->ppid, buf, size))
		return "-";
	return buf;
}

int list_pspaces(const struct config *cfg)
{
	struct proc_info *all = NULL, *leaders;
	size_t nall = 0, cap = 0, nleaders = 0, i, j;
	struct dirent *d;
	DIR *proc = opendir("/proc");

	(void)cfg;
	if (!proc)
		die_errno(EXIT_SETUP, "/proc");
	while ((d = readdir(proc))) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		if (nall == cap) {
			cap = cap ? 2 * cap : 256;
			all = realloc(all, cap * sizeof(*all));
			if (!all)
				die_errno(EXIT_SETUP, "realloc");
		}
		if (read_proc_info(atoi(d->d_name), &all[nall]))
			nall++;
	}
	closedir(proc);
	if (nall && !all[0].path[0])
		die(EXIT_SETUP, "this kernel shows no PSpace: line in /proc/<pid>/status");

	leaders = calloc(nall ? nall : 1, sizeof(*leaders));
	if (!leaders)
		die_errno(EXIT_SETUP, "calloc");
	for (i = 0; i < nall; i++)
		if (is_leader(&all[i]))
			leaders[nleaders++] = all[i];
	qsort(leaders, nleaders, sizeof(*leaders), compare_path);

	printf("%-16s %-24s %7s %6s  %s\n", "MACHINE", "PSPACE", "WID", "PROCS", "COMMAND");
	for (i = 0; i < nleaders; i++) {
		size_t len = strlen(leaders[i].path);
		int count = 0, indent = 2 * (depth_of(leaders[i].path) - 1);
		char cmd[4 * 128 + 1], machine[72];

		/* Its own processes and those of pspaces nested in it. */
		for (j = 0; j < nall; j++)
			if (!strncmp(all[j].path, leaders[i].path, len) &&
			    (all[j].path[len] == '\0' || all[j].path[len] == '/'))
				count++;
		leader_command(leaders[i].pid, cmd, sizeof(cmd));
		printf("%*s%-*s %-24s %7d %6d  %s\n", indent, "", 16 - indent,
		       leader_machine(&leaders[i], machine, sizeof(machine)), leaders[i].path,
		       (int)leaders[i].pid, count, cmd);
	}
	free(leaders);
	free(all);
	return 0;
}
