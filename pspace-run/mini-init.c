// SPDX-License-Identifier: GPL-2.0
/*
 * --as-pid2: a minimal init as pid 1 for commands that are not written to
 * be one.  It starts COMMAND as pid 2, passes signals on to it, reaps
 * every orphan, and when COMMAND exits ends the rest (SIGTERM, then
 * SIGKILL after the stop timeout) and exits with COMMAND's status.
 *
 * After the fork it needs no privilege at all (reaping and kill() of its
 * own uid's processes need none), so it keeps none: no capability in any
 * set, the container's bounding set, no_new_privs and seccomp filter, no
 * fd of the caller's, and not the caller's environment (/proc/1/environ
 * shows the strings pspace-run was started with: they are wiped).
 * COMMAND runs in a process group of its own, the terminal's foreground
 * one when there is a terminal, so that one Ctrl-C is one SIGINT to it
 * and none to the init (as tini does).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pspace-run.h"

static const int passed_on[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2,
				 SIGWINCH, SIGCONT };

static void nothing(int sig)
{
	(void)sig;
}

/* Reap whatever has exited; return COMMAND's status once it has. */
static bool reap(pid_t command, int *status)
{
	bool done = false;
	int st;
	pid_t r;

	while ((r = waitpid(-1, &st, WNOHANG)) > 0)
		if (r == command) {
			*status = st;
			done = true;
		}
	return done;
}

static time_t monotonic_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/* The stop timeout on the monotonic clock: setting the time changes nothing. */
static void end_the_rest(const struct config *cfg)
{
	time_t until = monotonic_seconds() + cfg->stop_timeout;
	struct timespec tick = { .tv_nsec = 100 * 1000 * 1000 };
	int st;

	kill(-1, SIGTERM);
	while (monotonic_seconds() < until) {
		while (waitpid(-1, &st, WNOHANG) > 0)
			;
		if (waitpid(-1, &st, WNOHANG) < 0 && errno == ECHILD)
			return;
		nanosleep(&tick, NULL);
	}
	kill(-1, SIGKILL);
	while (wait(&st) > 0)
		;
}

/* The init's side: the caller's environment, fds and privileges go. */
static void init_lock_down(const struct config *cfg, int gate)
{
	struct config only_gate = { .test_off = cfg->test_off, .keep_fd = { gate }, .nkeep_fd = 1 };
	extern char **environ;
	char **e;

	if (TEST_OFF(cfg, OFF_INIT))
		return;
	for (e = environ; e && *e; e++)
		memset(*e, 0, strlen(*e));
	clearenv();
	close_caller_fds(&only_gate);
	lock_down(cfg, true);
}

/* COMMAND's side: its own process group, in the foreground. */
static void command_foreground(const struct config *cfg)
{
	sigset_t ttou;

	(void)cfg;
	if (TEST_OFF(cfg, OFF_INIT))
		return;
	if (setpgid(0, 0) < 0)
		die_errno(EXIT_SETUP, "setpgid");
	if (!isatty(STDIN_FILENO))
		return;
	/* A background process group's tcsetpgrp() would stop on SIGTTOU. */
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, NULL);
	if (tcsetpgrp(STDIN_FILENO, getpid()) < 0 && errno != ENOTTY)
		die_errno(EXIT_SETUP, "make COMMAND the terminal's foreground");
	sigprocmask(SIG_UNBLOCK, &ttou, NULL);
}

void run_as_pid2(const struct config *cfg)
{
	struct timespec tick = { .tv_sec = 1 };
	struct sigaction sa;
	sigset_t set;
	pid_t command;
	int status = 0, gate[2];
	size_t i;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = nothing;
	/* A leader drops signals it leaves at SIG_DFL: catch them all. */
	for (i = 0; i < sizeof(passed_on) / sizeof(passed_on[0]); i++) {
		sigaction(passed_on[i], &sa, NULL);
		sigaddset(&set, passed_on[i]);
	}
	sigaction(SIGCHLD, &sa, NULL);
	sigprocmask(SIG_BLOCK, &set, NULL);

	/*
	 * COMMAND waits at the gate until the init has dropped everything:
	 * once COMMAND runs, the container could ptrace the init
	 * (CAP_SYS_PTRACE) or read its /proc files.
	 */
	if (pipe2(gate, O_CLOEXEC) < 0)
		die_errno(EXIT_SETUP, "pipe");
	command = fork();
	if (command < 0)
		die_errno(EXIT_SETUP, "fork");
	if (command == 0) {
		char c;

		close(gate[1]);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		for (i = 0; i < sizeof(passed_on) / sizeof(passed_on[0]); i++)
			signal(passed_on[i], SIG_DFL);
		command_foreground(cfg);
		while (read(gate[0], &c, 1) < 0 && errno == EINTR)
			;
		close(gate[0]);
		exec_command(cfg);
	}
	close(gate[0]);
	init_lock_down(cfg, gate[1]);
	close(gate[1]);
	for (;;) {
		int sig = sigtimedwait(&set, NULL, &tick);

		if (reap(command, &status))
			break;
		if (sig > 0 && sig != SIGCHLD)
			kill(command, sig);
	}
	end_the_rest(cfg);
	if (WIFEXITED(status))
		_exit(WEXITSTATUS(status));
	_exit(128 + WTERMSIG(status));
}
