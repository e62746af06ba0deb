// SPDX-License-Identifier: GPL-2.0
/*
 * pspace_bench: the measurements behind "make bench".  Each subcommand
 * prints lines "RESULT <bench> <key>=<value>..." for tests/bench/report.py;
 * repeated rounds are printed one by one (the report takes medians).
 *
 *   create ROUNDS N          fork / clone3(NEWPID) / clone3(NPSPACE) + reap,
 *                            interleaved rounds, ns per create+reap
 *   killwid ROUNDS CALLS     kill(-wid) on a 10-process pspace beside
 *                            0..10,000 unrelated tasks, ns per call
 *   killsize ROUNDS CALLS N...  kill(-wid) on pspaces of N processes (up to
 *                            20,000: children made with CLONE_VM, so that
 *                            they cost no page tables), ns per call
 *   teardown ROUNDS N...     end a tree of N processes until all are reaped:
 *                            kill(-wid, SIGKILL) on a pspace, cgroup.kill on
 *                            a CLONE_NEWPID tree in a cgroup of its own
 *   freeze ROUNDS N...       stop a tree of N processes (all stopped) and let
 *                            it go on: SIGSTOP/SIGCONT to -wid against
 *                            cgroup.freeze 1/0
 *   forkrate ROUNDS N        fork+exit+wait in the caller's namespace, with
 *                            the default pid_max and with pid_max 1000
 *   forkdepth ROUNDS N KINDS DEPTH...  fork+exit+wait in the innermost of
 *                            DEPTH nested namespaces of each kind (KINDS:
 *                            "newpid,npspace" or "newpid")
 *   forkonce KIND DEPTH N    N fork+exit+wait in the innermost of DEPTH
 *                            nested namespaces of KIND (newpid, npspace),
 *                            between two sync(2) calls made there: what
 *                            tests/bench/profile.sh profiles
 *   forkpath N FUNC...       kprobe counts of FUNC per fork+exit+wait, at
 *                            depths 0, 1, 8, 32 (newpid) and 1 (npspace)
 *   memory ROUNDS N          kernel memory per idle pspace / NEWPID ns
 *   meminfo                  used and kernel memory (kB) once it holds still
 *   exec ROUNDS NAME -- CMD  start-to-exit time of CMD (for the launchers)
 *
 * The fork-rate rounds also print calib_ns, the time of a fixed loop that
 * makes no system call: its spread shows how busy the machine was; and
 * idle_ticks, the idle time of the round (none on an instruction clock).
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include "common.h"

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif
#define CGROOT "/sys/fs/cgroup"

static void pause_forever(void)
{
	for (;;)
		pause();
}

static double create_reap(uint64_t flags, int n)
{
	double t = now();
	int i;

	for (i = 0; i < n; i++) {
		pid_t pid = flags == (uint64_t)-1 ? fork() : clone3_flags(flags, NULL);

		if (pid == 0)
			_exit(0);
		if (pid < 0) {
			perror("clone3");
			exit(1);
		}
		waitpid(pid, NULL, 0);
	}
	return (now() - t) / n * 1e9;
}

static void bench_create(int rounds, int n)
{
	static const struct { const char *name; uint64_t flags; } kinds[] = {
		{ "fork", (uint64_t)-1 },
		{ "newpid", CLONE_NEWPID },
		{ "npspace", CLONE_NPSPACE },
	};
	int r, k;

	create_reap(CLONE_NPSPACE, n / 10 + 1);	/* warm up */
	for (r = 0; r < rounds; r++)
		for (k = 0; k < 3; k++) {
			/* Rotate the order so no kind always goes first. */
			int kk = (k + r) % 3;

			printf("RESULT create kind=%s round=%d ns=%.0f\n", kinds[kk].name, r,
			       create_reap(kinds[kk].flags, n));
		}
}

/* Start a pspace of @n processes (leader + n-1 children); return the wid. */
static pid_t start_pspace(int n)
{
	int p[2], i;
	pid_t wid;
	char c;

	if (pipe(p))
		exit(1);
	wid = clone3_flags(CLONE_NPSPACE, NULL);
	if (wid == 0) {
		for (i = 1; i < n; i++) {
			pid_t pid = fork();

			if (pid == 0)
				pause_forever();
			if (pid < 0)
				_exit(1);
		}
		if (write(p[1], "r", 1) != 1)
			_exit(1);
		pause_forever();
	}
	if (wid < 0 || read(p[0], &c, 1) != 1) {
		perror("start_pspace");
		exit(1);
	}
	close(p[0]);
	close(p[1]);
	return wid;
}

static void stop_pspace(pid_t wid)
{
	kill(-wid, SIGKILL);
	waitpid(wid, NULL, 0);
}

static double time_kill(pid_t wid, int calls)
{
	double t;
	int i;

	for (i = 0; i < calls / 10 + 1; i++)	/* warm up */
		kill(-wid, SIGCONT);
	t = now();
	for (i = 0; i < calls; i++)
		kill(-wid, SIGCONT);
	return (now() - t) / calls * 1e9;
}

/* @n unrelated sleeping tasks (children of a helper), or stop them. */
static pid_t others_start(int n)
{
	int p[2];
	pid_t helper;
	char c;

	if (pipe(p))
		exit(1);
	helper = fork();
	if (helper == 0) {
		int i;

		setpgid(0, 0);

		for (i = 0; i < n; i++)
			if (fork() == 0)
				pause_forever();
		if (write(p[1], "r", 1) != 1)
			_exit(1);
		pause_forever();
	}
	if (read(p[0], &c, 1) != 1)
		exit(1);
	close(p[0]);
	close(p[1]);
	return helper;
}

static void others_stop(pid_t helper, int n)
{
	int i;

	/* The helper's children are in its process group; as a subreaper
	 * we inherit and reap them (the pspace leaders stay alive). */
	kill(-helper, SIGKILL);
	for (i = 0; i <= n; i++)
		waitpid(-1, NULL, 0);
}

static void bench_killwid(int rounds, int calls)
{
	static const int unrelated[] = { 0, 1000, 5000, 10000 };
	pid_t wid, helper;
	int r, i;

	for (r = 0; r < rounds; r++) {
		wid = start_pspace(10);
		for (i = 0; i < 4; i++) {
			/* Rotate the order: the first measured runs colder. */
			int u = unrelated[(i + r) % 4];

			helper = u ? others_start(u) : 0;
			printf("RESULT killwid_system tasks=%d round=%d ns=%.0f\n", u, r,
			       time_kill(wid, calls));
			if (helper)
				others_stop(helper, u);
		}
		stop_pspace(wid);
	}
}

/*
 * Idle time of every CPU so far, in USER_HZ ticks (/proc/stat): a fork
 * round on an instruction clock (QEMU -icount) must run no idle time,
 * which the clock would count as time passed.
 */
static long long idle_ticks(void)
{
	long long v[5] = { 0 };
	FILE *f = fopen("/proc/stat", "r");

	if (!f)
		return -1;
	if (fscanf(f, "cpu %lld %lld %lld %lld %lld", &v[0], &v[1], &v[2], &v[3], &v[4]) != 5)
		v[3] = -1, v[4] = 0;
	fclose(f);
	return v[3] + v[4];
}

/*
 * Before a timed fork round: let what the previous one left behind (pid
 * namespaces torn down after an RCU grace period, from a work item; the
 * output being written) finish off the clock.
 */
static void settle_round(void)
{
	usleep(200000);
}

/* Idle ticks since @before (from idle_ticks()), -1 if either is unknown. */
static long long idle_since(long long before)
{
	long long now = idle_ticks();

	return before < 0 || now < 0 ? -1 : now - before;
}

/*
 * How fast this vCPU runs a fixed loop without system calls now: the
 * median of five short runs (one run takes a timer tick or a host
 * preemption whole).
 */
static double calib(void)
{
	double v[5], t, x;
	int k, j;

	for (k = 0; k < 5; k++) {
		volatile unsigned long y = 0;
		long i;

		t = now();
		for (i = 0; i < 400000; i++)
			y += i ^ (y >> 3);
		v[k] = (now() - t) * 1e9 / 400000;
	}
	for (k = 1; k < 5; k++)
		for (j = k; j > 0 && v[j - 1] > v[j]; j--) {
			x = v[j];
			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	return v[2];
}

static double fork_rate(int n)
{
	return create_reap((uint64_t)-1, n);
}

static void bench_forkrate(int rounds, int n)
{
	char old[32] = "";
	int r, fd = open("/proc/sys/kernel/pid_max", O_RDONLY);

	if (fd < 0 || read(fd, old, sizeof(old) - 1) <= 0)
		exit(1);
	close(fd);
	fork_rate(n / 10 + 1);	/* warm up */
	/* The two pid_max values in turns, the first alternating by round. */
	for (r = 0; r < rounds; r++) {
		int k;

		for (k = 0; k < 2; k++) {
			int small = (k + r) % 2;
			double cal;

			long long idle;
			double ns;

			write_file("/proc/sys/kernel/pid_max", small ? "1000" : old);
			settle_round();
			cal = calib();
			idle = idle_ticks();
			ns = fork_rate(n);
			printf("RESULT forkrate pid_max=%s round=%d ns=%.0f calib_ns=%.3f idle_ticks=%lld\n",
			       small ? "1000" : "default", r, ns, cal, idle_since(idle));
		}
		write_file("/proc/sys/kernel/pid_max", old);
	}
}

/*
 * Used memory: Shmem (memfd copies of a binary, tmpfs files) is in
 * Cached, but nothing can drop it: it counts.
 */
static long used_kb(void)
{
	return meminfo_kb("MemTotal") - meminfo_kb("MemFree") - meminfo_kb("Buffers") -
	       meminfo_kb("Cached") + meminfo_kb("Shmem");
}

/* Unreclaimable slab (not dentry or inode caches), stacks, page tables. */
static long kernel_kb(void)
{
	return meminfo_kb("SUnreclaim") + meminfo_kb("KernelStack") + meminfo_kb("PageTables");
}

/*
 * Wait (up to 5 s) until kernel_kb() holds still: what earlier rounds
 * killed is freed after RCU grace periods, and must not be counted.
 */
static void settle(void)
{
	long prev = kernel_kb(), cur;
	int i;

	for (i = 0; i < 20; i++) {
		usleep(250000);
		cur = kernel_kb();
		if (labs(cur - prev) < 32)
			return;
		prev = cur;
	}
}

static void bench_memory(int rounds, int n)
{
	static const struct { const char *name; uint64_t flags; } kinds[] = {
		{ "newpid", CLONE_NEWPID },
		{ "npspace", CLONE_NPSPACE },
	};
	pid_t *pids = calloc(n, sizeof(*pids));
	int r, k, i;

	for (r = 0; r < rounds; r++)
		for (k = 0; k < 2; k++) {
			int kk = (k + r) % 2, p[2];
			long u0, k0, u1, k1;
			char c;

			if (pipe(p))
				exit(1);
			sync();
			write_file("/proc/sys/vm/drop_caches", "3");
			settle();
			u0 = used_kb();
			k0 = kernel_kb();
			for (i = 0; i < n; i++) {
				pids[i] = clone3_flags(kinds[kk].flags, NULL);
				if (pids[i] == 0) {
					if (write(p[1], "r", 1) != 1)
						_exit(1);
					pause_forever();
				}
				if (pids[i] < 0 || read(p[0], &c, 1) != 1) {
					perror("memory");
					exit(1);
				}
			}
			settle();
			u1 = used_kb();
			k1 = kernel_kb();
			printf("RESULT memory kind=%s round=%d used_bytes=%.0f kernel_bytes=%.0f\n",
			       kinds[kk].name, r, (u1 - u0) * 1024.0 / n, (k1 - k0) * 1024.0 / n);
			for (i = 0; i < n; i++)
				kill(pids[i], SIGKILL);
			for (i = 0; i < n; i++)
				waitpid(pids[i], NULL, 0);
			close(p[0]);
			close(p[1]);
		}
	free(pids);
}

/* A process of a light tree: shares the leader's memory, waits. */
static int light_child(void *arg)
{
	(void)arg;
	for (;;)
		syscall(SYS_pause);
	return 0;
}

/*
 * A tree of @n processes: a leader made with clone3(@flags), in the cgroup
 * @cgfd if that is >= 0, and its n - 1 children, forked, or with @light
 * made with clone(CLONE_VM) (processes of their own that share the
 * leader's memory: 20,000 of them fit in the guest).  Returns the leader's
 * pid once every child exists, or -1.
 */
static pid_t start_tree(uint64_t flags, int cgfd, int n, int light)
{
	struct clone_args args = {
		.flags = flags | (cgfd >= 0 ? CLONE_INTO_CGROUP : 0),
		.exit_signal = SIGCHLD,
		.cgroup = cgfd >= 0 ? (uint64_t)cgfd : 0,
	};
	size_t stk = 16384;
	int p[2], i;
	pid_t leader;
	char c;

	if (pipe(p))
		return -1;
	leader = syscall(__NR_clone3, &args, sizeof(args));
	if (leader == 0) {
		char *stacks = NULL;

		close(p[0]);
		if (light) {
			stacks = mmap(NULL, stk * n, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
			if (stacks == MAP_FAILED)
				_exit(1);
		}
		for (i = 1; i < n; i++) {
			pid_t pid = light ? clone(light_child, stacks + stk * i, CLONE_VM | SIGCHLD, NULL)
					  : fork();

			if (pid == 0)
				pause_forever();
			if (pid < 0)
				_exit(1);
		}
		if (write(p[1], "r", 1) != 1)
			_exit(1);
		pause_forever();
	}
	close(p[1]);
	if (leader < 0 || read(p[0], &c, 1) != 1) {
		fprintf(stderr, "pspace_bench: a tree of %d processes: %s\n", n,
			leader < 0 ? strerror(errno) : "its leader died");
		if (leader > 0)
			waitpid(leader, NULL, 0);
		leader = -1;
	}
	close(p[0]);
	return leader;
}

static void bench_killsize(int rounds, int calls, int nsizes, char **sizes)
{
	int r, i;

	/* 20,000 processes are more than threads-max allows a 2 GiB guest. */
	write_file("/proc/sys/kernel/threads-max", "200000");
	for (r = 0; r < rounds; r++)
		for (i = 0; i < nsizes; i++) {
			int n = atoi(sizes[(i + r) % nsizes]);
			int c = calls * 10 / n < 3 ? 3 : (calls * 10 / n > calls ? calls : calls * 10 / n);
			pid_t wid = start_tree(CLONE_NPSPACE, -1, n, 1);

			if (wid < 0) {
				printf("RESULT killsize procs=%d round=%d error=create\n", n, r);
				continue;
			}
			printf("RESULT killsize procs=%d round=%d ns=%.0f\n", n, r, time_kill(wid, c));
			stop_pspace(wid);
		}
}

/* A fresh cgroup below the root; its fd, and its path in @path. */
static int cg_make(char *path, size_t len, const char *what, int n)
{
	int fd;

	snprintf(path, len, CGROOT "/pspace-bench-%s-%d-%d", what, n, getpid());
	if (mkdir(path, 0755) && errno != EEXIST) {
		perror(path);
		exit(1);
	}
	fd = open(path, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(path);
		exit(1);
	}
	return fd;
}

static void cg_remove(const char *path, int fd)
{
	int i;

	close(fd);
	for (i = 0; i < 1000 && rmdir(path) && errno == EBUSY; i++)
		usleep(1000);
}

static int cg_write(const char *dir, const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return write_file(path, val);
}

/* Does DIR/cgroup.events say "KEY VAL"? */
static int cg_event(const char *dir, const char *key, int val)
{
	char path[256], buf[256], *k;
	int fd, n;

	snprintf(path, sizeof(path), "%s/cgroup.events", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	k = strstr(buf, key);
	return k && atoi(k + strlen(key) + 1) == val;
}

/*
 * Kill a tree of @n processes until all are reaped: a pspace with
 * kill(-wid), or a CLONE_NEWPID tree with cgroup.kill.  Both trees sit
 * in a fresh cgroup of their own, as a container's would.
 */
static double teardown(int n, int pspace)
{
	char cg[128];
	int fd = cg_make(cg, sizeof(cg), pspace ? "pskill" : "kill", n);
	pid_t leader = start_tree(pspace ? CLONE_NPSPACE : CLONE_NEWPID, fd, n, 0);
	double t = -1;

	if (leader > 0) {
		t = now();
		if (pspace)
			kill(-leader, SIGKILL);
		else if (cg_write(cg, "cgroup.kill", "1"))
			perror("cgroup.kill");
		waitpid(leader, NULL, 0);	/* a pid-namespace init is reaped last */
		t = (now() - t) * 1e9;
	}
	cg_remove(cg, fd);
	return t;
}

static void bench_teardown(int rounds, int nsizes, char **sizes)
{
	int r, i, k;

	for (r = 0; r < rounds; r++)
		for (i = 0; i < nsizes; i++) {
			int n = atoi(sizes[(i + r) % nsizes]);

			for (k = 0; k < 2; k++) {
				int pspace = (k + r) % 2;
				double ns = teardown(n, pspace);

				printf("RESULT teardown kind=%s procs=%d round=%d ns=%.0f\n",
				       pspace ? "pspace" : "cgroup.kill", n, r, ns);
			}
		}
}

/* The state letter of /proc/PID/stat, 0 if gone. */
static int proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	int fd, n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] ? p[2] : 0;
}

/* Wait until every one of @pids is stopped (or none is); 0, or -1 after 120 s. */
static int wait_stopped(pid_t *pids, int n, int stopped)
{
	char *done = calloc(n, 1);
	double end = now() + 120;
	int left = n, i;

	while (left > 0 && now() < end) {
		for (i = 0; i < n; i++)
			if (!done[i] && (proc_state(pids[i]) == 'T') == stopped) {
				done[i] = 1;
				left--;
			}
		if (left)
			usleep(50);
	}
	free(done);
	return left ? -1 : 0;
}

/* The leader and its children, from /proc/LEADER/task/LEADER/children. */
static int tree_pids(pid_t leader, pid_t *pids, int max)
{
	char path[64];
	FILE *f;
	int n = 0;

	pids[n++] = leader;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", leader, leader);
	f = fopen(path, "r");
	if (!f)
		return n;
	while (n < max && fscanf(f, "%d", &pids[n]) == 1)
		n++;
	fclose(f);
	return n;
}

/*
 * Nothing tells when a whole pspace is stopped: its /proc entries are
 * scanned, so @scan gets what one scan of the stopped tree costs.
 */
static void freeze_pspace(int n, double *fr, double *th, double *scan)
{
	pid_t *pids = calloc(n, sizeof(*pids));
	char cg[128];
	int fd = cg_make(cg, sizeof(cg), "psfreeze", n);
	pid_t wid = start_tree(CLONE_NPSPACE, fd, n, 0);
	double t;
	int got;

	*fr = *th = *scan = -1;
	if (wid < 0)
		goto out;
	got = tree_pids(wid, pids, n);
	t = now();
	kill(-wid, SIGSTOP);
	if (!wait_stopped(pids, got, 1))
		*fr = (now() - t) * 1e9;
	t = now();
	if (!wait_stopped(pids, got, 1))
		*scan = (now() - t) * 1e9;
	t = now();
	kill(-wid, SIGCONT);
	if (!wait_stopped(pids, got, 0))
		*th = (now() - t) * 1e9;
	if (got != n)
		fprintf(stderr, "pspace_bench: freeze: %d of %d processes seen\n", got, n);
	stop_pspace(wid);
out:
	cg_remove(cg, fd);
	free(pids);
}

static int wait_event(const char *cg, const char *key, int val)
{
	double end = now() + 120;

	while (cg_event(cg, key, val) != 1)
		if (now() > end)
			return -1;
		else
			usleep(50);
	return 0;
}

static void freeze_cgroup(int n, double *fr, double *th)
{
	char cg[128];
	int fd = cg_make(cg, sizeof(cg), "freeze", n);
	pid_t leader = start_tree(CLONE_NEWPID, fd, n, 0);
	double t;

	*fr = *th = -1;
	if (leader > 0) {
		t = now();
		cg_write(cg, "cgroup.freeze", "1");
		if (!wait_event(cg, "frozen", 1))
			*fr = (now() - t) * 1e9;
		t = now();
		cg_write(cg, "cgroup.freeze", "0");
		if (!wait_event(cg, "frozen", 0))
			*th = (now() - t) * 1e9;
		cg_write(cg, "cgroup.kill", "1");
		waitpid(leader, NULL, 0);
	}
	cg_remove(cg, fd);
}

static void bench_freeze(int rounds, int nsizes, char **sizes)
{
	int r, i, k;

	for (r = 0; r < rounds; r++)
		for (i = 0; i < nsizes; i++) {
			int n = atoi(sizes[(i + r) % nsizes]);

			for (k = 0; k < 2; k++) {
				int pspace = (k + r) % 2;
				double fr, th, scan = 0;

				if (pspace)
					freeze_pspace(n, &fr, &th, &scan);
				else
					freeze_cgroup(n, &fr, &th);
				printf("RESULT freeze kind=%s procs=%d round=%d ns=%.0f thaw_ns=%.0f "
				       "scan_ns=%.0f\n", pspace ? "pspace" : "cgroup.freeze", n, r, fr,
				       th, scan);
			}
		}
}

/* forkonce: sync(2) around the forks alone, the profile's marks. */
static int mark_forks;

/* Fork @n times in the innermost of @depth nested namespaces (@flags). */
static void __attribute__((noreturn)) chain(uint64_t flags, int depth, int n, int wfd)
{
	double ns;
	pid_t pid;

	if (depth == 0) {
		if (mark_forks)
			sync();
		ns = n ? create_reap((uint64_t)-1, n) : 0;
		if (mark_forks)
			sync();
		if (write(wfd, &ns, sizeof(ns)) != sizeof(ns))
			_exit(1);
		_exit(0);
	}
	pid = clone3_flags(flags, NULL);
	if (pid == 0)
		chain(flags, depth - 1, n, wfd);
	if (pid < 0) {
		perror("clone3");
		_exit(1);
	}
	waitpid(pid, NULL, 0);
	_exit(0);
}

/* ns per fork+exit+wait at @depth, -1 on failure. */
static double fork_at_depth(uint64_t flags, int depth, int n)
{
	double ns = -1;
	int p[2];
	pid_t pid;

	if (pipe(p))
		exit(1);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		chain(flags, depth, n, p[1]);
	}
	close(p[1]);
	if (read(p[0], &ns, sizeof(ns)) != sizeof(ns))
		ns = -1;
	close(p[0]);
	waitpid(pid, NULL, 0);
	return ns;
}

static void bench_forkdepth(int rounds, int n, const char *kinds, int ndepths, char **depths)
{
	int nk = strstr(kinds, "npspace") ? 2 : 1, r, i, k;

	fork_at_depth(CLONE_NEWPID, 1, n / 10 + 1);	/* warm up */
	for (r = 0; r < rounds; r++)
		for (i = 0; i < ndepths; i++) {
			int d = atoi(depths[(i + r) % ndepths]);

			for (k = 0; k < nk; k++) {
				int pspace = nk == 2 && (k + r + i) % 2;
				long long idle;
				double cal, ns;

				settle_round();
				cal = calib();
				idle = idle_ticks();
				ns = fork_at_depth(pspace ? CLONE_NPSPACE : CLONE_NEWPID, d, n);
				printf("RESULT forkdepth kind=%s depth=%d round=%d ns=%.0f calib_ns=%.3f "
				       "idle_ticks=%lld\n", pspace ? "npspace" : "newpid", d, r, ns, cal,
				       idle_since(idle));
			}
		}
}

/*
 * @n fork+exit+wait in the innermost of @depth namespaces, between two
 * sync(2) calls made there: tests/bench/profile.sh counts what the kernel
 * runs from one to the other, and nothing else is between them.
 */
static void bench_forkonce(const char *kind, int depth, int n)
{
	double ns;

	mark_forks = 1;
	ns = fork_at_depth(strcmp(kind, "npspace") ? CLONE_NEWPID : CLONE_NPSPACE, depth, n);
	printf("RESULT forkonce kind=%s depth=%d ns=%.0f\n", kind, depth, ns);
	exit(ns < 0);
}

/* A kprobe perf counter on @func, counting this task and its children. */
static int open_kprobe(const char *func)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	FILE *f = fopen("/sys/bus/event_source/devices/kprobe/type", "r");
	int type = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &type) != 1)
		type = -1;
	fclose(f);
	if (type < 0)
		return -1;
	attr.type = type;
	attr.config1 = (uintptr_t)func;
	attr.inherit = 1;
	attr.disabled = 1;
	return syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
}

static void bench_forkpath(int n, int nf, char **funcs)
{
	static const struct { const char *kind; uint64_t flags; int depth; } at[] = {
		{ "fork", CLONE_NEWPID, 0 },
		{ "newpid", CLONE_NEWPID, 1 },
		{ "newpid", CLONE_NEWPID, 8 },
		{ "newpid", CLONE_NEWPID, 32 },
		{ "npspace", CLONE_NPSPACE, 1 },
	};
	int *fds = calloc(nf, sizeof(*fds)), a, f, pass;

	for (f = 0; f < nf; f++) {
		fds[f] = open_kprobe(funcs[f]);
		if (fds[f] < 0)
			printf("RESULT forkpath func=%s absent=1 error=%s\n", funcs[f], strerror(errno));
	}
	for (a = 0; a < 5; a++) {
		long long c[2][64] = { { 0 } };
		int failed = 0;

		/* Pass 0 makes the namespaces only, pass 1 also forks n times. */
		for (pass = 0; pass < 2; pass++) {
			for (f = 0; f < nf && f < 64; f++)
				if (fds[f] >= 0) {
					ioctl(fds[f], PERF_EVENT_IOC_RESET, 0);
					ioctl(fds[f], PERF_EVENT_IOC_ENABLE, 0);
				}
			if (fork_at_depth(at[a].flags, at[a].depth, pass ? n : 0) < 0) {
				printf("RESULT forkpath kind=%s depth=%d error=clone\n", at[a].kind, at[a].depth);
				failed = 1;
				break;
			}
			for (f = 0; f < nf && f < 64; f++)
				if (fds[f] >= 0) {
					ioctl(fds[f], PERF_EVENT_IOC_DISABLE, 0);
					if (read(fds[f], &c[pass][f], sizeof(c[pass][f])) != sizeof(c[pass][f]))
						c[pass][f] = -1;
				}
		}
		for (f = 0; f < nf && f < 64 && !failed; f++)
			if (fds[f] >= 0)
				printf("RESULT forkpath kind=%s depth=%d func=%s per_fork=%.3f\n", at[a].kind,
				       at[a].depth, funcs[f], (double)(c[1][f] - c[0][f]) / n);
	}
	free(fds);
}

static void print_meminfo(void)
{
	sync();
	write_file("/proc/sys/vm/drop_caches", "3");
	settle();
	printf("used_kb=%ld kernel_kb=%ld shmem_kb=%ld\n", used_kb(), kernel_kb(),
	       meminfo_kb("Shmem"));
}

static void bench_exec(int rounds, const char *name, char **argv)
{
	int r;

	for (r = 0; r < rounds; r++) {
		double t = now();
		pid_t pid = fork();
		int st;

		if (pid == 0) {
			int null = open("/dev/null", O_RDWR);

			dup2(null, 0);
			dup2(null, 1);
			execvp(argv[0], argv);
			_exit(127);
		}
		waitpid(pid, &st, 0);
		printf("RESULT exec kind=%s round=%d ns=%.0f status=%d\n", name, r, (now() - t) * 1e9,
		       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	}
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (argc >= 4 && !strcmp(argv[1], "create"))
		bench_create(atoi(argv[2]), atoi(argv[3]));
	else if (argc >= 4 && !strcmp(argv[1], "killwid"))
		bench_killwid(atoi(argv[2]), atoi(argv[3]));
	else if (argc >= 4 && !strcmp(argv[1], "forkrate"))
		bench_forkrate(atoi(argv[2]), atoi(argv[3]));
	else if (argc >= 5 && !strcmp(argv[1], "killsize"))
		bench_killsize(atoi(argv[2]), atoi(argv[3]), argc - 4, argv + 4);
	else if (argc >= 4 && !strcmp(argv[1], "teardown"))
		bench_teardown(atoi(argv[2]), argc - 3, argv + 3);
	else if (argc >= 4 && !strcmp(argv[1], "freeze"))
		bench_freeze(atoi(argv[2]), argc - 3, argv + 3);
	else if (argc >= 6 && !strcmp(argv[1], "forkdepth"))
		bench_forkdepth(atoi(argv[2]), atoi(argv[3]), argv[4], argc - 5, argv + 5);
	else if (argc == 5 && !strcmp(argv[1], "forkonce"))
		bench_forkonce(argv[2], atoi(argv[3]), atoi(argv[4]));
	else if (argc >= 4 && !strcmp(argv[1], "forkpath"))
		bench_forkpath(atoi(argv[2]), argc - 3, argv + 3);
	else if (argc == 2 && !strcmp(argv[1], "meminfo"))
		print_meminfo();
	else if (argc >= 4 && !strcmp(argv[1], "memory"))
		bench_memory(atoi(argv[2]), atoi(argv[3]));
	else if (argc >= 6 && !strcmp(argv[1], "exec") && !strcmp(argv[4], "--"))
		bench_exec(atoi(argv[2]), argv[3], argv + 5);
	else {
		fprintf(stderr, "usage: pspace_bench create|killwid|forkrate|memory ROUNDS N\n"
			"       pspace_bench killsize ROUNDS CALLS N...\n"
			"       pspace_bench teardown|freeze ROUNDS N...\n"
			"       pspace_bench forkdepth ROUNDS N newpid[,npspace] DEPTH...\n"
			"       pspace_bench forkonce newpid|npspace DEPTH N\n"
			"       pspace_bench forkpath N FUNC...\n"
			"       pspace_bench meminfo\n"
			"       pspace_bench exec ROUNDS NAME -- COMMAND...\n");
		return 2;
	}
	return 0;
}
