// SPDX-License-Identifier: GPL-2.0
/*
 * pspace-run's main loop while the container runs: wait for the leader,
 * pass signals on, stop the container when asked, and turn the leader's
 * end into pspace-run's exit status.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pspace-run.h"

/* Passed on to the leader as they are. */
static const int forwarded[] = { SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH };
/* Stop the container: the stop signal, then SIGKILL after the timeout. */
static const int stopping[] = { SIGINT, SIGTERM };

static void nothing(int sig)
{
	(void)sig;
}

/*
 * pspace-run may itself be the leader of a pspace (nesting), and a
 * leader never gets a signal it leaves at SIG_DFL.  So every signal it
 * waits for gets a handler, although sigtimedwait() takes them first.
 */
static void catch(sigset_t *set, int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = nothing;
	sigaction(sig, &sa, NULL);
	sigaddset(set, sig);
}

static void send(int pidfd, int sig)
{
	if (syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0) < 0 && errno != ESRCH)
		warn_errno("pidfd_send_signal");
}

int supervise(const struct config *cfg, pid_t leader, int pidfd, int console)
{
	struct timespec tick = { .tv_sec = 1 }, now = { 0 };
	bool stdin_open = true;
	time_t kill_at = 0;
	sigset_t set;
	size_t i;
	int status;

	sigemptyset(&set);
	catch(&set, SIGCHLD);
	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		catch(&set, forwarded[i]);
	for (i = 0; i < sizeof(stopping) / sizeof(stopping[0]); i++)
		catch(&set, stopping[i]);
	sigprocmask(SIG_BLOCK, &set, NULL);

	for (;;) {
		int sig;

		/* With a console, relay it and look for signals in between. */
		if (console >= 0 && !console_pump(console, 100, &stdin_open)) {
			close(console);
			console = -1;
		}
		sig = sigtimedwait(&set, NULL, console >= 0 ? &now : &tick);

		if (waitpid(leader, &status, WNOHANG) == leader)
			break;
		if (kill_at && time(NULL) >= kill_at) {
			verbose(cfg, "stop timeout: SIGKILL to the whole pspace");
			/* kill(-wid) reaches every process of the pspace. */
			if (kill(-leader, SIGKILL) < 0 && errno != ESRCH)
				warn_errno("kill(-%d, SIGKILL)", (int)leader);
			kill_at = 0;
		}
		if (sig < 0 || sig == SIGCHLD)
			continue;
		if (sig == SIGINT || sig == SIGTERM) {
			verbose(cfg, "stopping the container (signal %d to the leader)",
				stop_signal(cfg));
			send(pidfd, stop_signal(cfg));
			if (!kill_at)
				kill_at = time(NULL) + cfg->stop_timeout;
			continue;
		}
		if (sig == SIGWINCH && console >= 0) {
			console_resize(console);
			continue;
		}
		verbose(cfg, "forwarding signal %d to the leader", sig);
		send(pidfd, sig);
	}
	if (console >= 0) {
		console_drain(console);
		close(console);
	}
	console_done();
	close(pidfd);
	/* The pspace is empty once its leader is reaped (SPEC 3.2). */
	cgroup_remove();
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	/* reboot(2) halting a pspace ends its init with SIGINT: a clean stop. */
	if (cfg->boots_init && WTERMSIG(status) == SIGINT)
		return 0;
	return 128 + WTERMSIG(status);
}
