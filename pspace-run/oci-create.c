// SPDX-License-Identifier: GPL-2.0
/*
 * create, run and exec: the runtime's side.
 *
 * create checks the whole bundle first (oci-config.c: nothing is made for
 * a bad one), then makes the state directory, the cgroup and the exec
 * fifo, and clones the leader: clone3(CLONE_NPSPACE | the namespaces |
 * CLONE_INTO_CGROUP).  The leader sets the container up, takes the
 * process's user and privileges, finds the command, says "ready" on a
 * pipe and blocks in a read() of the exec fifo, which it opened before
 * pivot_root.  create then writes state.json and the pid file and exits;
 * the leader stays, reparented to the engine's subreaper.  start writes
 * the byte; the leader execs.  Whatever fails before "ready" undoes what
 * create made: the leader is killed, the cgroup and the state directory
 * removed.
 *
 * exec enters the running container: a child cloned into its cgroup
 * setns()es into the leader's namespaces through its pidfd, then forks
 * (CLONE_PARENT: the process is exec's own child) the process, which
 * takes the same privileges and seccomp filter as the container's.
 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pspace-run.h"
#include "sys.h"
#include "oci.h"

#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif

static pid_t clone3_(uint64_t flags, int cgroup, int *pidfd)
{
	struct clone_args_v2 args;

	memset(&args, 0, sizeof(args));
	args.flags = flags;
	if (cgroup >= 0) {
		args.flags |= CLONE_INTO_CGROUP;
		args.cgroup = cgroup;
	}
	if (pidfd) {
		args.flags |= CLONE_PIDFD;
		args.pidfd = (uintptr_t)pidfd;
	}
	args.exit_signal = (flags & CLONE_PARENT) ? 0 : SIGCHLD;
	return sys_clone3(&args);
}

/*
 * A sibling of the caller (CLONE_PARENT), for exec's process entering the
 * pspace; under the container's seccomp filter already, which may refuse
 * clone3 (ENOSYS, as Docker's profile does for it): then clone().
 */
static pid_t clone_parent(void)
{
	pid_t pid = clone3_(CLONE_PARENT, -1, NULL);

	if (pid < 0 && (errno == ENOSYS || errno == EPERM))
		pid = sys_clone_parent();
	return pid;
}

/* What create undoes when it fails. */
static struct {
	char dir[4200];
	char cgroup[PATH_MAX];
	pid_t leader;
	int pidfd;
} made = { .pidfd = -1 };

static void undo_create(void)
{
	if (made.leader > 0) {
		if (made.pidfd < 0 ||
		    sys_pidfd_send_signal(made.pidfd, SIGKILL, PIDFD_SIGNAL_PSPACE) < 0)
			kill(made.leader, SIGKILL);
		waitpid(made.leader, NULL, 0);
	}
	if (made.cgroup[0])
		oci_cgroup_remove(made.cgroup);
	if (made.dir[0])
		oci_remove_dir(made.dir);
}

/* An fd moved above @floor, close-on-exec: out of --preserve-fds' way. */
static int move_high(int fd, int floor)
{
	int high;

	if (fd < 0)
		return fd;
	high = fcntl(fd, F_DUPFD_CLOEXEC, floor);
	if (high < 0)
		oci_fail(EXIT_SETUP, "fcntl(F_DUPFD): %s", strerror(errno));
	close(fd);
	return high;
}

/*
 * Hooks run on the host, in the runtime's namespaces, with the state on
 * stdin; a failing prestart/createRuntime hook fails create.
 */
int oci_run_hooks(const struct oci_spec *s, enum oci_hook_kind kind, const char *state,
		  bool fatal)
{
	int i;

	for (i = 0; i < s->nhooks[kind]; i++) {
		const struct oci_hook *h = &s->hooks[kind][i];
		static char *empty[] = { NULL };
		char *argv0[] = { h->path, NULL };
		int in[2], status, pidfd;
		pid_t pid;

		if (pipe2(in, O_CLOEXEC) < 0)
			oci_fail(EXIT_SETUP, "hook %s: pipe: %s", h->path, strerror(errno));
		pid = fork();
		if (pid < 0)
			oci_fail(EXIT_SETUP, "hook %s: fork: %s", h->path, strerror(errno));
		if (pid == 0) {
			dup2(in[0], 0);
			execve(h->path, h->args ? h->args : argv0, h->env ? h->env : empty);
			fprintf(stderr, "%s: hook %s: %s\n", progname, h->path, strerror(errno));
			_exit(127);
		}
		close(in[0]);
		signal(SIGPIPE, SIG_IGN);
		if (write(in[1], state, strlen(state)) < 0 && errno != EPIPE)
			oci_log("warning", "hook %s: stdin: %s", h->path, strerror(errno));
		close(in[1]);
		pidfd = sys_pidfd_open(pid, 0);
		if (h->timeout && pidfd >= 0) {
			struct pollfd p = { .fd = pidfd, .events = POLLIN };

			if (poll(&p, 1, h->timeout * 1000) == 0) {
				kill(pid, SIGKILL);
				waitpid(pid, NULL, 0);
				if (fatal)
					oci_fail(EXIT_SETUP, "hook %s: timed out after %d s", h->path,
						 h->timeout);
				oci_log("warning", "hook %s: timed out", h->path);
				continue;
			}
		}
		if (pidfd >= 0)
			close(pidfd);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			if (fatal)
				oci_fail(EXIT_SETUP, "hook %s failed (status %d)", h->path,
					 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
			oci_log("warning", "hook %s failed", h->path);
		}
	}
	return 0;
}

/* In the leader: everything up to the exec fifo, then the command. */
static void leader(const struct oci_spec *s, int ready, int fifo, int console, void *ctx)
{
	char *path;
	char c;
	int i;

	/* pspace-run's code in the container until start: see selfexe.c. */
	make_undumpable();
	for (i = 0; i < s->nns; i++) {
		int fd = open(s->ns[i].path, O_RDONLY | O_CLOEXEC);

		if (fd < 0 || setns(fd, s->ns[i].flag) < 0)
			die_errno(EXIT_SETUP, "linux.namespaces: %s", s->ns[i].path);
		close(fd);
	}
	/* A network namespace of its own gets lo up, as runc and crun do. */
	if (s->clone_flags & CLONE_NEWNET)
		bring_lo_up();
	if (s->hostname && sethostname(s->hostname, strlen(s->hostname)) < 0)
		die_errno(EXIT_SETUP, "hostname %s", s->hostname);
	oci_setup_root(s);
	if (console >= 0)
		oci_setup_console(console, &s->process);
	oci_lock_down(&s->process, ctx);
	oci_setup_done();
	path = oci_find_executable(&s->process);
	if (!path)
		die(EXIT_NOT_FOUND, "process.args[0] %s: not found in the container",
		    s->process.args[0]);
	if (write(ready, "1", 1) != 1)
		_exit(EXIT_SETUP);
	close(ready);
	/* Until start; EOF would mean that nobody may write it any more. */
	while (read(fifo, &c, 1) < 0 && errno == EINTR)
		;
	close(fifo);
	if (s->process.no_new_privileges)
		oci_load_seccomp(ctx);
	reset_signals();
	oci_exec_process(&s->process);
}

static volatile pid_t forward_to;

static void forward(int sig)
{
	if (forward_to > 0)
		kill(forward_to, sig);
}

/* run, exec: pass the caller's signals on, wait, give the exit status. */
static int wait_process(pid_t pid)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH };
	struct sigaction sa;
	size_t i;
	int status;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	forward_to = pid;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			oci_fail(EXIT_SETUP, "waitpid: %s", strerror(errno));
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

static void now_rfc3339(char *out, size_t size)
{
	struct timespec ts;
	struct tm tm;
	char base[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, size, "%s.%09ldZ", base, ts.tv_nsec);
}

int oci_create(const struct oci_create_opts *o, bool run)
{
	struct oci_spec *s;
	struct oci_state st;
	char path[4300];
	int ready[2], fifo, console = -1, cgroup, floor = 3 + o->preserve_fds + 8;
	json_object *ann;
	void *ctx = NULL;
	pid_t pid;
	char c;

	/* The whole bundle first: a bad one leaves nothing behind. */
	s = oci_load_spec(o->bundle);
	if (s->process.terminal && !o->console_socket)
		oci_fail(EXIT_SETUP, "process.terminal is true: --console-socket is needed");
	if (!s->process.terminal && o->console_socket)
		oci_fail(EXIT_SETUP, "--console-socket given, but process.terminal is false");
	if (s->seccomp)
		ctx = oci_seccomp_build(s->seccomp);

	memset(&st, 0, sizeof(st));
	snprintf(st.id, sizeof(st.id), "%s", o->id);
	if (mkdir(oci.root, 0700) < 0 && errno != EEXIST)
		oci_fail(EXIT_SETUP, "--root %s: %s", oci.root, strerror(errno));
	/* Made by us, or by someone else since the first check: look again. */
	if (!oci_check_state_root())
		oci_fail(EXIT_SETUP, "--root %s: %s", oci.root, strerror(ENOENT));
	oci.root_missing = false;
	oci_state_dir(o->id, st.dir, sizeof(st.dir));
	if (mkdir(st.dir, 0700) < 0) {
		if (errno == EEXIST)
			oci_fail(EXIT_SETUP, "container %s already exists", o->id);
		oci_fail(EXIT_SETUP, "%s: %s", st.dir, strerror(errno));
	}
	snprintf(made.dir, sizeof(made.dir), "%s", st.dir);
	on_failure(undo_create, true);

	snprintf(path, sizeof(path), "%s/config.json", st.dir);
	if (json_object_to_file_ext(path, s->json, JSON_C_TO_STRING_PLAIN) < 0)
		oci_fail(EXIT_SETUP, "%s: %s", path, strerror(errno));
	snprintf(path, sizeof(path), "%s/exec.fifo", st.dir);
	if (mkfifo(path, 0600) < 0)
		oci_fail(EXIT_SETUP, "%s: %s", path, strerror(errno));
	/* Read and write: opening it never blocks, and start finds a reader. */
	fifo = move_high(open(path, O_RDWR | O_CLOEXEC), floor);
	if (fifo < 0)
		oci_fail(EXIT_SETUP, "%s: %s", path, strerror(errno));
	if (o->console_socket)
		console = move_high(oci_connect_console(o->console_socket), floor);
	cgroup = move_high(oci_cgroup_create(s, o->id, st.cgroup, sizeof(st.cgroup)), floor);
	if (cgroup >= 0)
		snprintf(made.cgroup, sizeof(made.cgroup), "%s", st.cgroup);
	if (pipe2(ready, O_CLOEXEC) < 0)
		oci_fail(EXIT_SETUP, "pipe: %s", strerror(errno));
	ready[0] = move_high(ready[0], floor);
	ready[1] = move_high(ready[1], floor);

	pid = clone3_(CLONE_NPSPACE | s->clone_flags, cgroup, &made.pidfd);
	if (pid < 0) {
		if (errno == EINVAL || errno == ENOSYS)
			oci_fail(EXIT_SETUP, "this kernel (%s) does not support CLONE_NPSPACE (clone3: %s)",
				 kernel_release(), strerror(errno));
		oci_fail(EXIT_SETUP, "clone3(CLONE_NPSPACE): %s", strerror(errno));
	}
	if (pid == 0) {
		int fd;

		verify_pspace_leader();
		close(ready[0]);
		if (cgroup >= 0)
			close(cgroup);
		/* Nothing of create's to undo from in here. */
		on_failure_cancel(undo_create);
		oci_close_state_root();
		/* Everything above the preserved fds goes at exec. */
		for (fd = 3; fd < 3 + o->preserve_fds; fd++)
			fcntl(fd, F_SETFD, 0);
		sys_close_range(3 + o->preserve_fds, ~0U, CLOSE_RANGE_CLOEXEC);
		leader(s, ready[1], fifo, console, ctx);
	}
	made.leader = pid;
	close(ready[1]);
	close(fifo);
	if (console >= 0)
		close(console);
	if (cgroup >= 0)
		close(cgroup);
	if (read(ready[0], &c, 1) != 1) {
		int status;

		waitpid(pid, &status, 0);
		made.leader = 0;
		oci_fail(EXIT_SETUP, "container %s: the container's setup failed (%s %d)", o->id,
			 WIFEXITED(status) ? "exit status" : "signal",
			 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	}
	close(ready[0]);

	st.pid = pid;
	st.start_time = oci_start_time(pid);
	/* What pspace-run --join of it must load (seccomp.c). */
	if (ctx)
		record_filter(ctx, pid);
	st.ns_flags = s->clone_flags;
	snprintf(st.bundle, sizeof(st.bundle), "%s", s->bundle);
	snprintf(st.rootfs, sizeof(st.rootfs), "%s", s->root);
	now_rfc3339(st.created, sizeof(st.created));
	if (json_object_object_get_ex(s->json, "annotations", &ann) &&
	    json_object_is_type(ann, json_type_object))
		st.annotations = ann;
	oci_state_save(&st);
	if (o->pid_file)
		oci_write_pid_file(o->pid_file, pid);
	oci_run_hooks(s, HOOK_PRESTART, oci_state_json(&st), true);
	oci_run_hooks(s, HOOK_CREATE_RUNTIME, oci_state_json(&st), true);
	if (!run) {
		on_failure_cancel(undo_create);
		return 0;
	}

	/* run: start it at once. */
	fifo = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fifo < 0 || write(fifo, "0", 1) != 1)
		oci_fail(EXIT_SETUP, "container %s: start: %s", o->id, strerror(errno));
	close(fifo);
	unlink(path);
	on_failure_cancel(undo_create);
	oci_run_hooks(s, HOOK_POSTSTART, oci_state_json(&st), false);
	if (o->detach)
		return 0;
	{
		int status = wait_process(pid);

		if (st.cgroup[0])
			oci_cgroup_remove(st.cgroup);
		st.pid = 0;
		oci_run_hooks(s, HOOK_POSTSTOP, oci_state_json(&st), false);
		oci_remove_dir(st.dir);
		return status;
	}
}

/* "UID" or "UID:GID" */
static void parse_user(const char *arg, struct oci_process *p)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || (*end && *end != ':') || v >= UINT32_MAX)
		oci_fail(EXIT_SETUP, "exec --user: '%s' is not UID[:GID]", arg);
	p->uid = v;
	if (*end == ':') {
		arg = end + 1;
		v = strtoul(arg, &end, 10);
		if (errno || end == arg || *end || v >= UINT32_MAX)
			oci_fail(EXIT_SETUP, "exec --user: '%s' is not UID[:GID]", arg);
		p->gid = v;
	}
	p->ngroups = 0;
}

int oci_exec(const struct oci_exec_opts *o)
{
	struct oci_state st;
	struct oci_spec *s;
	struct oci_process p;
	char path[4300];
	int pidfd, cgroup = -1, report[2], console = -1, floor = 3 + o->preserve_fds + 8;
	void *ctx = NULL;
	pid_t child, proc = 0;
	int status, err = 0;
	ssize_t n;

	if (oci_state_load(o->id, &st) < 0)
		oci_fail(EXIT_SETUP, "container %s does not exist", o->id);
	if (strcmp(oci_status(&st), "running"))
		oci_fail(EXIT_SETUP, "container %s is %s, not running", o->id, oci_status(&st));
	snprintf(path, sizeof(path), "%s/config.json", st.dir);
	s = oci_load_saved_spec(path, st.bundle);
	if (o->process_file) {
		json_object *j = oci_read_json_file(o->process_file);

		oci_parse_process(j, &p, "process");
	} else {
		int i, n0 = 0;

		p = s->process;
		p.args = o->argv;
		p.terminal = o->tty;
		while (p.env && p.env[n0])
			n0++;
		p.env = calloc(n0 + o->nenv + 1, sizeof(char *));
		for (i = 0; i < n0; i++)
			p.env[i] = s->process.env[i];
		for (i = 0; i < o->nenv; i++)
			p.env[n0 + i] = o->env[i];
	}
	if (o->cwd)
		p.cwd = (char *)o->cwd;
	if (o->user)
		parse_user(o->user, &p);
	if (o->no_new_privs)
		p.no_new_privileges = true;
	if (o->tty)
		p.terminal = true;
	if (p.terminal && !o->console_socket)
		oci_fail(EXIT_SETUP, "exec: a terminal needs --console-socket");
	if (s->seccomp)
		ctx = oci_seccomp_build(s->seccomp);
	if (p.terminal)
		console = move_high(oci_connect_console(o->console_socket), floor);

	pidfd = move_high(oci_pidfd(&st), floor);
	if (pidfd < 0)
		oci_fail(EXIT_SETUP, "container %s: %s", o->id, strerror(errno));
	if (st.cgroup[0]) {
		cgroup = move_high(open(st.cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC), floor);
		if (cgroup < 0)
			oci_fail(EXIT_SETUP, "container %s: its cgroup %s: %s", o->id, st.cgroup,
				 strerror(errno));
	}
	if (pipe2(report, O_CLOEXEC) < 0)
		oci_fail(EXIT_SETUP, "pipe: %s", strerror(errno));
	report[0] = move_high(report[0], floor);
	report[1] = move_high(report[1], floor);

	child = clone3_(0, cgroup, NULL);
	if (child < 0)
		oci_fail(EXIT_SETUP, "clone into the container's cgroup: %s", strerror(errno));
	if (child == 0) {
		int fd;

		close(report[0]);
		on_failure_cancel(undo_create);
		oci_close_state_root();
		/* The host's cgroup directory must not be reachable as a cwd. */
		if (cgroup >= 0)
			close(cgroup);
		make_undumpable();
		/*
		 * oomScoreAdj by this process's own /proc entry, which the
		 * container's /proc does not show until it is in the pspace:
		 * here, before the setns(), and inherited.
		 */
		if (p.has_oom_score_adj) {
			oci_set_oom_score_adj(p.oom_score_adj);
			p.has_oom_score_adj = false;
		}
		if (setns(pidfd, CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC |
			  CLONE_NEWNET | (st.ns_flags & CLONE_NEWCGROUP)) < 0)
			die_errno(EXIT_SETUP, "exec %s: setns", o->id);
		close(pidfd);
		for (fd = 3; fd < 3 + o->preserve_fds; fd++)
			fcntl(fd, F_SETFD, 0);
		sys_close_range(3 + o->preserve_fds, ~0U, CLOSE_RANGE_CLOEXEC);
		/*
		 * The container's user, capabilities, no_new_privs and seccomp
		 * filter before the process is in the pspace: from its first
		 * instruction there, nothing of the container can ptrace a
		 * process with more than the container has (as --join does).
		 */
		oci_lock_down(&p, ctx);
		if (p.no_new_privileges)
			oci_load_seccomp(ctx);
		proc = clone_parent();
		if (proc < 0)
			die_errno(EXIT_SETUP, "exec %s: clone", o->id);
		if (proc > 0) {
			if (write(report[1], &proc, sizeof(proc)) != sizeof(proc))
				_exit(EXIT_SETUP);
			_exit(0);
		}
		/* The fixture: 80-oci looks at the process here, its first moment inside. */
		test_pause("entered");
		if (console >= 0)
			oci_setup_console(console, &p);
		else
			setsid();
		reset_signals();
		test_pause("exec");	/* the fixture: a window for 80-oci's exe attack */
		{
			char *exe = oci_find_executable(&p);
			static char *empty[] = { NULL };

			if (exe)
				execve(exe, p.args, p.env ? p.env : empty);
			err = exe ? errno : ENOENT;
			if (write(report[1], &err, sizeof(err)) != sizeof(err))
				_exit(EXIT_SETUP);
			_exit(err == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN);
		}
	}
	close(report[1]);
	close(pidfd);
	if (cgroup >= 0)
		close(cgroup);
	if (console >= 0)
		close(console);
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	n = read(report[0], &proc, sizeof(proc));
	if (n != sizeof(proc))
		oci_fail(EXIT_SETUP, "exec %s: could not enter the container", o->id);
	/* EOF: the exec went through (the pipe was close-on-exec). */
	n = read(report[0], &err, sizeof(err));
	if (n == sizeof(err)) {
		waitpid(proc, NULL, 0);
		oci_fail(err == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN, "exec %s: %s: %s", o->id,
			 p.args[0], strerror(err));
	}
	if (o->pid_file)
		oci_write_pid_file(o->pid_file, proc);
	if (o->detach)
		return 0;
	return wait_process(proc);
}
