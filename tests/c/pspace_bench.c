// SPDX-License-Identifier: GPL-2.0
/*
 * pspace_bench: the measurements behind "make bench".  Each subcommand
 * prints lines "RESULT <bench> <key>=<value>..." for tests/bench/report.py;
 * repeated rounds are printed one by one (the report takes medians).
 *
 *   create ROUNDS N          fork / clone3(NEWPID) / clone3(NPSPACE) + reap,
 *                            interleaved rounds, ns per create+reap
 *   killwid ROUNDS CALLS     kill(-wid) on a 10-process pspace beside
 *                            0..10,000 unrelated tasks, and on pspaces of
 *                            10..5,000 processes, ns per call
 *   forkrate ROUNDS N        fork+exit+wait in the caller's namespace, with
 *                            the default pid_max and with pid_max 1000
 *   memory ROUNDS N          kernel memory per idle pspace / NEWPID ns
 *   exec ROUNDS NAME -- CMD  start-to-exit time of CMD (for the launchers)
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/prctl.h>

#include "common.h"

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
	static const int sizes[] = { 10, 100, 1000, 2500, 5000 };
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
		for (i = 0; i < 5; i++) {
			wid = start_pspace(sizes[i]);
			printf("RESULT killwid_size procs=%d round=%d ns=%.0f\n", sizes[i], r,
			       time_kill(wid, calls > 50 ? calls / 10 : calls));
			stop_pspace(wid);
		}
	}
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
	for (r = 0; r < rounds; r++) {
		printf("RESULT forkrate pid_max=default round=%d ns=%.0f\n", r, fork_rate(n));
		write_file("/proc/sys/kernel/pid_max", "1000");
		printf("RESULT forkrate pid_max=1000 round=%d ns=%.0f\n", r, fork_rate(n));
		write_file("/proc/sys/kernel/pid_max", old);
	}
}

static long used_kb(void)
{
	return meminfo_kb("MemTotal") - meminfo_kb("MemFree") - meminfo_kb("Buffers") -
	       meminfo_kb("Cached");
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
	else if (argc >= 4 && !strcmp(argv[1], "memory"))
		bench_memory(atoi(argv[2]), atoi(argv[3]));
	else if (argc >= 6 && !strcmp(argv[1], "exec") && !strcmp(argv[4], "--"))
		bench_exec(atoi(argv[2]), argv[3], argv + 5);
	else {
		fprintf(stderr, "usage: pspace_bench create|killwid|forkrate|memory ROUNDS N\n"
			"       pspace_bench exec ROUNDS NAME -- COMMAND...\n");
		return 2;
	}
	return 0;
}
