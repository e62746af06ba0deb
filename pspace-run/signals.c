// SPDX-License-Identifier: GPL-2.0
/* Signals for both front ends: names, the stop signal, a clean slate for a child. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pspace-run.h"

/*
 * Real-time signals are numbered as glibc, kill(1), runc and crun number
 * them, from the container's side: RTMIN is 34.  musl's own SIGNAL_RTMIN is
 * 35 (it keeps one more for itself), and a container's systemd, built
 * with glibc, halts on 37, SIGNAL_RTMIN+3, not on 38 (SIGNAL_RTMIN+4 there:
 * poweroff).
 */

/*
 * A signal by its name or number, for both front ends (--kill-signal,
 * OCI kill): "TERM", "SIGTERM", "term", "15", "RTMIN+3", "SIGRTMAX-1";
 * -1 when @arg names no signal.
 */
int signal_by_name(const char *arg)
{
	static const struct { const char *name; int sig; } names[] = {
		{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT }, { "ILL", SIGILL },
		{ "TRAP", SIGTRAP }, { "ABRT", SIGABRT }, { "IOT", SIGIOT }, { "BUS", SIGBUS },
		{ "FPE", SIGFPE }, { "KILL", SIGKILL }, { "USR1", SIGUSR1 }, { "SEGV", SIGSEGV },
		{ "USR2", SIGUSR2 }, { "PIPE", SIGPIPE }, { "ALRM", SIGALRM }, { "TERM", SIGTERM },
		{ "STKFLT", SIGSTKFLT }, { "CHLD", SIGCHLD }, { "CONT", SIGCONT },
		{ "STOP", SIGSTOP }, { "TSTP", SIGTSTP }, { "TTIN", SIGTTIN }, { "TTOU", SIGTTOU },
		{ "URG", SIGURG }, { "XCPU", SIGXCPU }, { "XFSZ", SIGXFSZ }, { "VTALRM", SIGVTALRM },
		{ "PROF", SIGPROF }, { "WINCH", SIGWINCH }, { "IO", SIGIO }, { "POLL", SIGPOLL },
		{ "PWR", SIGPWR }, { "SYS", SIGSYS },
	};
	const char *name = arg;
	char *end;
	size_t i;
	long n;

	if (!strncasecmp(name, "SIG", 3))
		name += 3;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(name, names[i].name))
			return names[i].sig;
	if (!strncasecmp(name, "RTMIN", 5)) {
		n = name[5] ? strtol(name + 5, &end, 10) : 0;
		/* n in range before the sum: strtol() gives LONG_MAX for "RTMIN+1111...". */
		if ((!name[5] || !*end) && n >= 0 && n <= SIGNAL_RTMAX - SIGNAL_RTMIN)
			return SIGNAL_RTMIN + n;
	}
	if (!strncasecmp(name, "RTMAX", 5)) {
		n = name[5] ? strtol(name + 5, &end, 10) : 0;
		if ((!name[5] || !*end) && n <= 0 && n >= SIGNAL_RTMIN - SIGNAL_RTMAX)
			return SIGNAL_RTMAX + n;
	}
	errno = 0;
	n = strtol(arg, &end, 10);
	if (*arg && !*end && !errno && n > 0 && n < NSIG)
		return n;
	return -1;
}

/*
 * In the leader and in a joined process, before anything else of the
 * container runs: every signal at its default disposition and none
 * blocked.  A caller that started pspace-run with "&" from a script left
 * SIGINT and SIGQUIT ignored, which an exec keeps and a shell cannot
 * trap again (POSIX): the container is a system of its own, as
 * systemd-nspawn and tini start theirs.
 */
void reset_signals(void)
{
	struct sigaction sa;
	sigset_t none;
	int sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

int stop_signal(const struct config *cfg)
{
	if (cfg->kill_signal)
		return cfg->kill_signal;
	/* systemd halts cleanly on SIGRTMIN+3 and ignores SIGTERM as pid 1. */
	return cfg->boots_init ? SIGNAL_RTMIN + 3 : SIGTERM;
}
