// SPDX-License-Identifier: GPL-2.0
/*
 * clone3_fuzz: random clone3() calls, with and without CLONE_NPSPACE, for
 * a bounded number of iterations.  Every call must either succeed (the
 * child exits at once) or fail with an errno clone3() documents; anything
 * else, a hang or a kernel splat (checked by the caller) is a failure.
 *
 *   clone3_fuzz [ITERATIONS] [SEED]
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "common.h"

/* Flags clone3() can be given without handing the child our stack. */
static const uint64_t flag_pool[] = {
	CLONE_NPSPACE, CLONE_NPSPACE, CLONE_NPSPACE, CLONE_NEWPID,
	CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWNET, CLONE_NEWUSER,
	CLONE_NEWCGROUP, CLONE_NEWTIME, CLONE_FS, CLONE_FILES, CLONE_SIGHAND,
	CLONE_THREAD, CLONE_PIDFD, CLONE_PARENT, CLONE_PTRACE, CLONE_VFORK,
	CLONE_SYSVSEM, CLONE_UNTRACED, CLONE_IO, CLONE_CLEAR_SIGHAND,
	CLONE_INTO_CGROUP, CLONE_PARENT_SETTID, CLONE_CHILD_SETTID,
	CLONE_CHILD_CLEARTID, CLONE_SETTLS, CLONE_DETACHED,
	1ULL << 35, 1ULL << 40, 1ULL << 63,	/* unknown bits */
};

static const int allowed[] = {
	EINVAL, EPERM, ENOSPC, E2BIG, EFAULT, EBADF, EEXIST, EAGAIN, ENOMEM,
	EBUSY, EOPNOTSUPP, EUSERS,
};

static uint64_t rnd64(void)
{
	return ((uint64_t)random() << 33) ^ ((uint64_t)random() << 11) ^ (uint64_t)random();
}

struct clone_args_big {
	struct clone_args a;
	char tail[64];
};

static long ok, clean, bad, npspace;

/* The fuzzing itself, in a worker whose CLONE_PARENT children main reaps. */
static int fuzz(long iters, int result_fd)
{
	long i;
	int counts[4096] = { 0 };
	static pid_t tid_a, tid_b;
	static pid_t set_tid[40];
	int pidfd, e;

	for (i = 0; i < iters; i++) {
		struct clone_args_big b;
		size_t size;
		uint64_t flags = 0;
		int n = random() % 5, k;
		pid_t pid;

		memset(&b, 0, sizeof(b));
		for (k = 0; k < n; k++)
			flags |= flag_pool[random() % (sizeof(flag_pool) / sizeof(flag_pool[0]))];
		if (flags & CLONE_NPSPACE)
			npspace++;
		b.a.flags = flags;
		b.a.pidfd = (uintptr_t)&pidfd;
		b.a.child_tid = (uintptr_t)&tid_a;
		b.a.parent_tid = (uintptr_t)&tid_b;
		switch (random() % 6) {
		case 0: b.a.exit_signal = SIGCHLD; break;
		case 1: b.a.exit_signal = 0; break;
		case 2:
			/* Any but the two no worker can block or survive. */
			do
				b.a.exit_signal = random() % 70;
			while (b.a.exit_signal == SIGKILL || b.a.exit_signal == SIGSTOP);
			break;
		case 3: b.a.exit_signal = rnd64(); break;
		default: b.a.exit_signal = SIGCHLD; break;
		}
		if (random() % 8 == 0) {
			b.a.set_tid = (uintptr_t)set_tid;
			b.a.set_tid_size = random() % 34;
			for (k = 0; k < 40; k++)
				set_tid[k] = random() % 4 ? random() % 400 : -1;
		}
		if (random() % 10 == 0)
			b.a.cgroup = random() % 2 ? 1000 : (uint64_t)-1;
		if (random() % 10 == 0)
			b.a.tls = rnd64();
		if (random() % 12 == 0)
			b.a.pidfd = random() % 2 ? 0 : 0xdead0000;	/* bad pointers */
		switch (random() % 8) {
		case 0: size = random() % sizeof(b.a); break;			/* too small */
		case 1: size = sizeof(b.a) + 8 + random() % 56;			/* bigger */
			if (random() % 2)
				b.tail[random() % 8] = 1;			/* nonzero tail */
			break;
		case 2: size = 4096 + 1 + random() % 4096; break;		/* > PAGE_SIZE */
		default: size = sizeof(b.a); break;
		}

		pid = syscall(__NR_clone3, &b, size);
		if (pid == 0)
			syscall(__NR_exit_group, 0);
		if (pid > 0) {
			ok++;
			if (flags & CLONE_PIDFD && b.a.pidfd == (uintptr_t)&pidfd)
				close(pidfd);
			continue;
		}
		e = errno;
		for (k = 0; k < (int)(sizeof(allowed) / sizeof(allowed[0])); k++)
			if (e == allowed[k])
				break;
		if (e >= 0 && e < 4096)
			counts[e]++;
		if (k < (int)(sizeof(allowed) / sizeof(allowed[0]))) {
			clean++;
		} else {
			bad++;
			diag("iteration %ld: flags %#llx size %zu exit_signal %#llx: %s",
			     i, (unsigned long long)flags, size,
			     (unsigned long long)b.a.exit_signal, strerror(e));
		}
		/* Reap whatever finished, whichever signal it exits with. */
		while (waitpid(-1, NULL, WNOHANG | __WALL) > 0)
			;
	}
	while (waitpid(-1, NULL, __WALL) > 0)
		;
	for (e = 1; e < 4096; e++)
		if (counts[e])
			diag("%-12s %d", strerror(e), counts[e]);
	{
		long r[4] = { ok, clean, bad, npspace };

		if (write(result_fd, r, sizeof(r)) != sizeof(r))
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 20000;
	unsigned int seed = argc > 2 ? (unsigned int)atol(argv[2]) : (unsigned int)getpid();
	struct rlimit nocore = { 0, 0 };
	uint64_t all = ~0ULL;
	double start = now();
	long r[4] = { 0, 0, -1, 0 };
	int p[2], e, status = -1;
	pid_t worker, w;

	setvbuf(stdout, NULL, _IOLBF, 0);
	srandom(seed);
	nested_baseline(30);
	diag("seed %u, %ld iterations", seed, iters);
	/* A child with a random TLS may crash: no core files. */
	setrlimit(RLIMIT_CORE, &nocore);
	/*
	 * Children exit with random exit signals, sent to the worker (or,
	 * with CLONE_PARENT, to us): block them all, waitpid() needs none.
	 */
	/* Raw: the C library keeps two real-time signals for itself. */
	syscall(__NR_rt_sigprocmask, SIG_BLOCK, &all, NULL, sizeof(all));
	if (pipe(p))
		return 1;
	worker = fork();
	if (worker == 0) {
		alarm(900);
		_exit(fuzz(iters, p[1]));
	}
	/* CLONE_PARENT children of the worker are ours: reap them all. */
	while ((w = waitpid(-1, &e, __WALL)) > 0)
		if (w == worker)
			status = e;
	if (status == 0 && read(p[0], r, sizeof(r)) == sizeof(r)) {
		ok = r[0];
		clean = r[1];
		bad = r[2];
		npspace = r[3];
	} else {
		bad = -1;
		diag("the fuzzing worker failed (status %#x)", status);
	}
	tap(bad == 0, "clone3 fuzz: %ld calls (%ld with CLONE_NPSPACE): %ld children, %ld clean errors, %ld others, %.1f s",
	    iters, npspace, ok, clean, bad, now() - start);
	e = settle_nested(10);
	tap(e == 0, "clone3 fuzz: no process of a pspace is left (%d)", e);
	return tap_done();
}
