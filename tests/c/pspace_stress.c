// SPDX-License-Identifier: GPL-2.0
/*
 * pspace_stress: bounded stress and race tests for pspaces, TAP output.
 *
 *   pspace_stress [CYCLES]     (default 10000)
 *
 * Every test has an alarm; a hang is a failure, not a stuck guest.  The
 * kernel log is checked for splats by the caller (make check scans dmesg).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdbool.h>
#include <sys/mman.h>

#include "common.h"

#define LIMIT_NS 64	/* max_pid_namespaces in the cycle test's user ns */
#define MAX_LEVEL 32	/* MAX_PID_NS_LEVEL */

static void pause_forever(void)
{
	for (;;)
		pause();
}

/* Run @fn in a forked child with an alarm; return its exit status or -1. */
static int in_child(int (*fn)(void *), void *arg, unsigned int secs)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		alarm(secs);
		_exit(fn(arg));
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status)) {
		diag("child died of signal %d%s", WTERMSIG(status),
		     WTERMSIG(status) == SIGALRM ? " (timed out)" : "");
		return -1;
	}
	return WEXITSTATUS(status);
}

/* --- create/destroy cycles, leaks measured by the ucount -------------- */

/*
 * Hold as many idle pspaces at once as the ucount lets us make; return
 * how many that was (they are killed and reaped before returning).
 */
static int hold_all(int max)
{
	pid_t pids[256];
	int n = 0, i;

	while (n < max + 1 && n < 256) {
		pids[n] = clone3_flags(CLONE_NPSPACE, NULL);
		if (pids[n] == 0)
			pause_forever();
		if (pids[n] < 0)
			break;
		n++;
	}
	for (i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	for (i = 0; i < n; i++)
		waitpid(pids[i], NULL, 0);
	return n;
}

/*
 * clone3(CLONE_NPSPACE), retrying on ENOSPC for up to @secs: a pid
 * namespace's charge is dropped only once its last pid is freed, which
 * waits for an RCU grace period after the reap.
 */
static pid_t npspace_retry(double secs, long *waits)
{
	double end = now() + secs;
	pid_t pid;

	while ((pid = clone3_flags(CLONE_NPSPACE, NULL)) < 0 && errno == ENOSPC && now() < end) {
		(*waits)++;
		usleep(1000);
	}
	return pid;
}

static int cycles(void *arg)
{
	long n = *(long *)arg, i, waits = 0;
	const char *lim = getenv("STRESS_SLAB_LIMIT_KB");
	long slab_limit = lim ? atol(lim) : 2048;
	long before = -1, after, avail0, avail1;
	double end;
	char map[32];
	int p[2], held = 0;

	/*
	 * A user namespace of our own, allowed LIMIT_NS pid namespaces at
	 * a time: a pid namespace (or a pid pinning one) that leaks keeps
	 * its charge for good, so once the cycles are over and the last
	 * grace period has passed, fewer than LIMIT_NS can be held at once.
	 */
	snprintf(map, sizeof(map), "0 %d 1\n", (int)geteuid());
	if (unshare(CLONE_NEWUSER))
		return 100;
	if (write_file("/proc/self/uid_map", map))
		return 101;
	snprintf(map, sizeof(map), "%d\n", LIMIT_NS);
	if (write_file("/proc/sys/user/max_pid_namespaces", map))
		return 102;
	if (pipe(p))
		return 103;
	avail0 = meminfo_kb("MemAvailable");
	for (i = 0; i < n; i++) {
		pid_t wid = npspace_retry(10, &waits);
		char c;
		int st;

		if (wid == 0) {
			/* The leader: two children, then end one of three ways. */
			if (fork() == 0)
				pause_forever();
			if (fork() == 0)
				pause_forever();
			if (write(p[1], "r", 1) != 1)
				_exit(1);
			if (i % 3 == 0)
				_exit(0);	/* 3.2: the children die with it */
			pause_forever();
		}
		if (wid < 0) {
			diag("cycle %ld: clone3: %s (for 10 s)", i, strerror(errno));
			return 104;
		}
		if (read(p[0], &c, 1) != 1)
			return 105;
		if (i % 3 == 1)
			kill(-wid, SIGKILL);
		else if (i % 3 == 2)
			kill(wid, SIGKILL);
		st = wait_deadline(wid, 30);
		if (st < 0) {
			diag("cycle %ld: the leader was not reaped (%d)", i, st);
			return 106;
		}
		if (i == 99)
			before = meminfo_kb("SUnreclaim");
	}
	after = meminfo_kb("SUnreclaim");
	avail1 = meminfo_kb("MemAvailable");
	/* Every charge comes back within a few grace periods. */
	for (end = now() + 10; now() < end && (held = hold_all(LIMIT_NS)) < LIMIT_NS;)
		usleep(100000);
	diag("%ld cycles, %ld short waits for a grace period; afterwards %d of %d pid namespaces can be held at once",
	     n, waits, held, LIMIT_NS);
	diag("SUnreclaim %ld kB after 100 cycles, %ld kB after %ld (%+ld kB); MemAvailable %+ld kB",
	     before, after, n, after - before, avail1 - avail0);
	if (held != LIMIT_NS)
		return 107;
	/*
	 * 10,000 leaked pspaces would be megabytes of slab, not kilobytes.
	 * STRESS_SLAB_LIMIT_KB=0 (make check-debug) skips this: KASAN's
	 * quarantine holds freed objects, and kmemleak checks there instead.
	 */
	if (n >= 1000 && after - before > slab_limit && slab_limit > 0)
		return 108;
	return 0;
}

/* --- nesting to the limit, one kill(-wid) ends it ---------------------- */

static int chain_fd = -1;

static int chain(int level)
{
	pid_t pid;

	if (fork() == 0)
		pause_forever();
	if (level == MAX_LEVEL) {
		pid = clone3_flags(CLONE_NPSPACE, NULL);
		if (pid == 0)
			_exit(0);
		if (write(chain_fd, pid < 0 && errno == ENOSPC ? "E" : "X", 1) != 1)
			return 1;
		pause_forever();
	}
	pid = clone3_flags(CLONE_NPSPACE, NULL);
	if (pid == 0)
		_exit(chain(level + 1));
	if (pid < 0) {
		if (write(chain_fd, "F", 1) != 1)
			return 1;
	}
	pause_forever();
	return 0;
}

static void deep_nest(void)
{
	int p[2], st, n;
	pid_t wid;
	char c = 0;

	if (pipe(p)) {
		tap(0, "deep: pipe");
		return;
	}
	chain_fd = p[1];
	wid = clone3_flags(CLONE_NPSPACE, NULL);
	if (wid == 0)
		_exit(chain(1));
	close(p[1]);
	if (wid < 0 || read(p[0], &c, 1) != 1)
		c = '?';
	tap(c == 'E', "1.5 nesting: %d levels made, level %d gets ENOSPC (got '%c')",
	    MAX_LEVEL, MAX_LEVEL + 1, c);
	n = nested_procs();
	tap(n == 2 * MAX_LEVEL, "deep: %d processes in the %d-deep nest (a leader and a child per level)",
	    n, MAX_LEVEL);
	kill(-wid, SIGKILL);
	st = wait_deadline(wid, 60);
	n = settle_nested(10);
	tap(st >= 0 && n == 0, "2.2 one kill(-wid, SIGKILL) tears down the %d-deep nest (%d left)",
	    MAX_LEVEL, n);
	close(p[0]);
}

/* --- a fork bomb against a low pid_max --------------------------------- */

struct bomb {
	int eagain, other, last_errno;
};

static struct bomb *bomb;

static void bomber(void)
{
	for (;;) {
		pid_t pid = fork();

		if (pid == 0)
			continue;	/* the child bombs on */
		if (pid < 0) {
			if (errno == EAGAIN)
				__atomic_add_fetch(&bomb->eagain, 1, __ATOMIC_RELAXED);
			else {
				__atomic_add_fetch(&bomb->other, 1, __ATOMIC_RELAXED);
				bomb->last_errno = errno;
			}
			pause_forever();
		}
	}
}

static void fork_bomb(void)
{
	int p[2], host_ok = 0, i, st, n;
	pid_t wid, hosts[50];
	char c;

	bomb = mmap(NULL, sizeof(*bomb), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (bomb == MAP_FAILED || pipe(p)) {
		tap(0, "fork bomb: setup");
		return;
	}
	wid = clone3_flags(CLONE_NPSPACE, NULL);
	if (wid == 0) {
		double end;

		if (write_file("/proc/sys/kernel/pid_max", "301"))
			_exit(1);
		for (i = 0; i < 4; i++)
			if (fork() == 0)
				bomber();
		/* Until the pspace is full (forks fail) or 60 s passed. */
		for (end = now() + 60; now() < end && bomb->eagain + bomb->other < 8;)
			usleep(10000);
		if (write(p[1], "r", 1) != 1)
			_exit(2);
		pause_forever();
	}
	if (wid < 0 || read(p[0], &c, 1) != 1) {
		tap(0, "fork bomb: the pspace did not start");
		return;
	}
	tap(bomb->eagain > 0 && bomb->other == 0,
	    "5.4 a fork bomb in a pspace with pid_max 301 gets EAGAIN (%d EAGAIN, %d other%s%s)",
	    bomb->eagain, bomb->other, bomb->other ? ", last: " : "",
	    bomb->other ? strerror(bomb->last_errno) : "");
	n = nested_procs();
	diag("the full pspace holds %d processes", n);
	for (i = 0; i < 50; i++) {
		hosts[i] = fork();
		if (hosts[i] == 0)
			_exit(0);
		if (hosts[i] > 0)
			host_ok++;
	}
	for (i = 0; i < 50; i++)
		if (hosts[i] > 0)
			waitpid(hosts[i], NULL, 0);
	tap(host_ok == 50, "fork bomb: meanwhile the host forks freely (%d of 50)", host_ok);
	kill(-wid, SIGKILL);
	st = wait_deadline(wid, 60);
	n = settle_nested(10);
	tap(st >= 0 && n == 0, "fork bomb: kill(-wid, SIGKILL) ends the bomb cleanly (%d left)", n);
	munmap(bomb, sizeof(*bomb));
	close(p[0]);
	close(p[1]);
}

/* --- races ---------------------------------------------------------------- */

/* Fork and reap for ever; count failures other than EAGAIN in @bad. */
static void storm(int *bad)
{
	for (;;) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		if (pid > 0)
			waitpid(pid, NULL, 0);
		else if (bad && errno != EAGAIN)
			__atomic_add_fetch(bad, 1, __ATOMIC_RELAXED);
	}
}

static unsigned int rnd(unsigned int n)
{
	return (unsigned int)random() % n;
}

/*
 * A pspace whose leader starts four fork storms, then either waits to be
 * killed (@leader_exits false) or exits itself after @delay_us.
 */
static pid_t storm_pspace(bool leader_exits, unsigned int delay_us)
{
	pid_t wid = clone3_flags(CLONE_NPSPACE, NULL);
	int i;

	if (wid != 0)
		return wid;
	for (i = 0; i < 4; i++)
		if (fork() == 0)
			storm(NULL);
	if (!leader_exits)
		pause_forever();
	usleep(delay_us);
	_exit(0);
}

static void race_storm(int rounds, bool leader_exits)
{
	int r, hung = 0;

	for (r = 0; r < rounds; r++) {
		unsigned int delay = rnd(50000);
		pid_t wid = storm_pspace(leader_exits, delay);

		if (wid < 0) {
			hung++;
			continue;
		}
		if (!leader_exits) {
			usleep(delay);
			kill(-wid, SIGKILL);
		}
		if (wait_deadline(wid, 30) < 0)
			hung++;
	}
	tap(hung == 0 && settle_nested(10) == 0, "race: %s a fork storm inside, %d rounds (%d hung)",
	    leader_exits ? "the leader exits during" : "kill(-wid, SIGKILL) against",
	    rounds, hung);
}

/* Join a pspace that is being killed and fork in it: success or EAGAIN. */
static int joiner(int nsfd)
{
	int i, bad = 0;

	if (setns(nsfd, CLONE_NEWPID))
		return 50;
	for (i = 0; i < 50; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		if (pid > 0)
			waitpid(pid, NULL, 0);
		else if (errno != EAGAIN)
			bad++;
	}
	return bad ? 51 : 0;
}

static void race_setns_dying(int rounds)
{
	int r, hung = 0, bad = 0;
	char path[64];

	for (r = 0; r < rounds; r++) {
		pid_t wid = clone3_flags(CLONE_NPSPACE, NULL), j;
		int nsfd, st;

		if (wid == 0)
			pause_forever();
		if (wid < 0) {
			bad++;
			continue;
		}
		snprintf(path, sizeof(path), "/proc/%d/ns/pid", wid);
		nsfd = open(path, O_RDONLY | O_CLOEXEC);
		j = fork();
		if (j == 0)
			_exit(joiner(nsfd));
		usleep(rnd(3000));
		kill(wid, SIGKILL);
		if (wait_deadline(wid, 30) < 0)
			hung++;
		st = wait_deadline(j, 30);
		if (st < 0)
			hung++;
		else if (!WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
		close(nsfd);
	}
	tap(hung == 0 && bad == 0 && settle_nested(10) == 0,
	    "race: setns() into a dying pspace and fork: success or EAGAIN, %d rounds (%d hung, %d other errors)",
	    rounds, hung, bad);
}

static int pid_max_race(void *arg)
{
	int *bad = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t wid = clone3_flags(CLONE_NPSPACE, NULL);
	int st;

	(void)arg;
	if (wid == 0) {
		double end = now() + 5;
		char v[16];
		int i;

		if (fork() == 0) {
			for (;;) {
				snprintf(v, sizeof(v), "%u", 301 + rnd(2000));
				write_file("/proc/sys/kernel/pid_max", v);
			}
		}
		for (i = 0; i < 3; i++)
			if (fork() == 0)
				storm(bad);
		while (now() < end)
			usleep(100000);
		_exit(0);	/* 3.2 ends the writers and forkers */
	}
	if (wid < 0 || wait_deadline(wid, 30) < 0)
		return 1;
	st = *bad;
	return st ? 2 : 0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000;
	double t;
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	srandom(getpid());
	nested_baseline(30);
	t = now();
	r = in_child(cycles, &n, 900);
	tap(r == 0, "%ld pspace create/destroy cycles with children inside, no leaked pid namespace or pid (%d, %.1f s)",
	    n, r, now() - t);
	deep_nest();
	fork_bomb();
	race_storm(30, false);
	race_storm(30, true);
	race_setns_dying(200);
	r = in_child(pid_max_race, NULL, 60);
	tap(r == 0, "race: pid_max written concurrently with forks for 5 s: forks succeed or get EAGAIN (%d)", r);
	tap(settle_nested(10) == 0, "no process of any pspace is left");
	return tap_done();
}
