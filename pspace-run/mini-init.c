// SPDX-License-Identifier: GPL-2.0
/*
 * --as-pid2: a minimal init as pid 1 for commands that are not written to
 * be one.  It starts COMMAND as pid 2, passes signals on to it, reaps
 * every orphan, and when COMMAND exits ends the rest (SIGTERM, then
 * SIGKILL after the stop timeout) and exits with COMMAND's status.
 */
#include <errno.h>
#include <signal.h>
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

static void end_the_rest(const struct config *cfg)
{
	time_t until = time(NULL) + cfg->stop_timeout;
	struct timespec tick = { .tv_nsec = 100 * 1000 * 1000 };
	int st;

	kill(-1, SIGTERM);
	while (time(NULL) < until) {
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

void run_as_pid2(const struct config *cfg)
{
	struct timespec tick = { .tv_sec = 1 };
	struct sigaction sa;
	sigset_t set;
	pid_t command;
	int status = 0;
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

	command = fork();
	if (command < 0)
		die_errno(EXIT_SETUP, "fork");
	if (command == 0) {
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		for (i = 0; i < sizeof(passed_on) / sizeof(passed_on[0]); i++)
			signal(passed_on[i], SIG_DFL);
		exec_command(cfg);
	}
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
