// SPDX-License-Identifier: GPL-2.0
/*
 * pspace-run's main loop while the container runs, in tini's shape: one
 * poll() over a signalfd (the signals pspace-run passes on or acts on),
 * the leader's pidfd (its end), a timerfd on the monotonic clock (the
 * stop timeout) and the console relay.  Nothing ticks; nothing blocks.
 * The leader's end becomes pspace-run's exit status.
 *
 * The same loop watches a joined process (--join): it passes every
 * signal on to it instead of stopping the container.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pspace-run.h"
#include "sys.h"


/*
 * PIDFD_GET_INFO (Linux 6.13), the fields up to exit_code: the size the
 * first version had (PIDFD_INFO_SIZE_VER0), which every kernel with the
 * ioctl takes.
 */
struct pidfd_info_v0 {
	uint64_t mask;
	uint64_t cgroupid;
	uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
	int32_t exit_code;
};
#define PIDFD_GET_INFO_V0 _IOWR(0xFF, 11, struct pidfd_info_v0)
#define PIDFD_INFO_EXIT_BIT (1ULL << 3)

/*
 * The leader was made with CLONE_AUTOREAP: the kernel reaps it once the
 * pspace is empty (SPEC 1.9, 3.2), and its wait status is read through
 * the pidfd.  POLLHUP says it has been reaped.
 */
static int autoreaped_status(int pidfd)
{
	struct pidfd_info_v0 info;
	struct pollfd p = { .fd = pidfd, .events = POLLHUP };

	for (;;) {
		memset(&info, 0, sizeof(info));
		info.mask = PIDFD_INFO_EXIT_BIT;
		if (ioctl(pidfd, PIDFD_GET_INFO_V0, &info) < 0 && errno != ESRCH)
			die_errno(EXIT_SETUP, "ioctl(PIDFD_GET_INFO)");
		if (info.mask & PIDFD_INFO_EXIT_BIT)
			return info.exit_code;
		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			die_errno(EXIT_SETUP, "poll");
	}
}

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
 * waits for gets a handler, although the signalfd takes them first.
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
	if (sys_pidfd_send_signal(pidfd, sig, 0) < 0 && errno != ESRCH)
		warn_errno("pidfd_send_signal");
}

/*
 * SIGKILL to every process of the pspace.  PIDFD_SIGNAL_PSPACE names the
 * pspace by the leader's pidfd; a kernel without it (series v1) says
 * EINVAL, and then kill(-wid) does the same (SPEC 2.2): the wid cannot
 * have been recycled, since the leader is our child and not reaped yet.
 */
void kill_pspace(const struct config *cfg, pid_t leader, int pidfd)
{
	if (sys_pidfd_send_signal(pidfd, SIGKILL, PIDFD_SIGNAL_PSPACE) == 0) {
		verbose(cfg, "SIGKILL to the whole pspace (pidfd_send_signal, PIDFD_SIGNAL_PSPACE)");
		return;
	}
	if (errno == ESRCH)
		return;
	if (errno != EINVAL) {
		warn_errno("pidfd_send_signal(PIDFD_SIGNAL_PSPACE)");
		return;
	}
	verbose(cfg, "SIGKILL to the whole pspace (kill(-%d): no PIDFD_SIGNAL_PSPACE here)",
		(int)leader);
	if (kill(-leader, SIGKILL) < 0 && errno != ESRCH)
		warn_errno("kill(-%d, SIGKILL)", (int)leader);
}

struct supervisor {
	const struct config *cfg;
	pid_t pid;		/* the leader, or the joined process */
	int pidfd;
	int timer;		/* armed once a stop was asked for */
	bool stopping;
	bool reaped;		/* the leader's status is in status */
	int status;
};

/*
 * As an init does (pspace-run is one when it runs nested, as a container's
 * leader: --join'ed processes that are orphaned come to it), reap every
 * child that has ended; the leader's status is kept.
 */
static void reap(struct supervisor *s)
{
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
		if (pid == s->pid) {
			s->status = st;
			s->reaped = true;
		}
}

static void stop(struct supervisor *s)
{
	const struct config *cfg = s->cfg;
	struct itimerspec when = { .it_value = { .tv_sec = cfg->stop_timeout } };

	verbose(cfg, "stopping the container (signal %d to the leader)", stop_signal(cfg));
	send(s->pidfd, stop_signal(cfg));
	if (s->stopping)
		return;
	s->stopping = true;
	if (!cfg->stop_timeout)
		kill_pspace(cfg, s->pid, s->pidfd);
	else if (timerfd_settime(s->timer, 0, &when, NULL) < 0)
		warn_errno("timerfd_settime");
}

static void on_signal(struct supervisor *s, int sig)
{
	const struct config *cfg = s->cfg;

	if (sig == SIGCHLD) {
		reap(s);
		return;
	}
	if (sig == SIGCONT) {
		console_foreground();
		return;
	}
	if (sig == SIGWINCH && cfg->console == CONSOLE_INTERACTIVE) {
		console_resize();
		return;
	}
	if ((sig == SIGINT || sig == SIGTERM) && !cfg->join) {
		stop(s);
		return;
	}
	verbose(cfg, "forwarding signal %d to %s", sig, cfg->join ? "the joined process" : "the leader");
	send(s->pidfd, sig);
}

static void read_signals(struct supervisor *s, int sfd)
{
	struct signalfd_siginfo si;

	while (read(sfd, &si, sizeof(si)) == sizeof(si))
		on_signal(s, si.ssi_signo);
}

static void on_timeout(struct supervisor *s)
{
	uint64_t expirations;

	if (read(s->timer, &expirations, sizeof(expirations)) < 0)
		return;
	notice(s->cfg, "the container did not stop within %d s: killing it", s->cfg->stop_timeout);
	kill_pspace(s->cfg, s->pid, s->pidfd);
}

int supervise(const struct config *cfg, pid_t leader, int pidfd, int console, bool autoreap)
{
	struct supervisor s = { .cfg = cfg, .pid = leader, .pidfd = pidfd };
	struct pollfd p[3 + 2 * 3];
	sigset_t set;
	size_t i;
	int sfd;

	(void)console;
	sigemptyset(&set);
	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		catch(&set, forwarded[i]);
	for (i = 0; i < sizeof(stopping) / sizeof(stopping[0]); i++)
		catch(&set, stopping[i]);
	catch(&set, SIGCONT);
	catch(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	/* A reader of our output that went away is an EPIPE, not our death. */
	signal(SIGPIPE, SIG_IGN);
	sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	s.timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (sfd < 0 || s.timer < 0)
		die_errno(EXIT_SETUP, "signalfd/timerfd");
	console_foreground();

	for (;;) {
		int n = 0;

		p[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		p[n++] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
		p[n++] = (struct pollfd){ .fd = s.timer, .events = POLLIN };
		n += console_poll_fds(p + n, false);
		if (poll(p, n, console_poll_timeout()) < 0) {
			if (errno == EINTR)
				continue;
			die_errno(EXIT_SETUP, "poll");
		}
		if (p[0].revents)
			read_signals(&s, sfd);
		if (p[2].revents)
			on_timeout(&s);
		console_poll_done(p + 3);
		if (p[1].revents)
			break;	/* the leader is gone, and with it the pspace (SPEC 3.2) */
		console_foreground();
	}
	if (autoreap)
		s.status = autoreaped_status(pidfd);
	while (!autoreap && !s.reaped && waitpid(leader, &s.status, 0) < 0)
		if (errno != EINTR)
			die_errno(EXIT_SETUP, "waitpid");
	console_finish();
	close(pidfd);
	close(sfd);
	close(s.timer);
	/* The pspace is empty once its leader is reaped (SPEC 3.2). */
	cgroup_remove();
	if (WIFEXITED(s.status))
		return WEXITSTATUS(s.status);
	/* reboot(2) halting a pspace ends its init with SIGINT: a clean stop. */
	if (cfg->boots_init && WTERMSIG(s.status) == SIGINT)
		return 0;
	return 128 + WTERMSIG(s.status);
}
