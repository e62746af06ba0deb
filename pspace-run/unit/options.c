// SPDX-License-Identifier: GPL-2.0
/*
 * The launcher's command line (options.c, binds.c's --bind/--tmpfs
 * parser, caps.c's lists), the signal names both front ends share
 * (signals.c), the mount toolkit's option parsing (mnt.c) and
 * --env-file (user.c): what each accepts, and the message and status
 * (125) of what it refuses.
 */
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/mount.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../pspace-run.h"
#include "../mnt.h"
#include "../oci.h"
#include "unit.h"

/* What parse_options() made of a command line, one "key=value" a word. */
static void print_config(const struct config *c)
{
	int i;

	printf("root=%s argv0=%s argc=%d boot=%d kill=%d stop=%d pidmax=%ld nnp=%d seccomp=%d "
	       "suid=%d console=%d join=%d joinname=%s list=%d host=%s machine=%s given=%d "
	       "ro=%d eph=%d net=%d pu=%d pubase=%u pucount=%lu chdir=%s user=%s q=%d v=%d "
	       "pid2=%d capdrop=%llx keep=%d setenv=%d envfile=%s",
	       c->root ? c->root : "-", c->argv && c->argv[0] ? c->argv[0] : "-",
	       c->argv ? (int)({ int n = 0; while (c->argv[n]) n++; n; }) : -1,
	       c->boot, c->kill_signal, c->stop_timeout, c->pid_max, c->no_new_privs, c->seccomp,
	       (int)c->suid, (int)c->console, (int)c->join, c->join_name ? c->join_name : "-",
	       c->list, c->hostname ? c->hostname : "-", c->machine ? c->machine : "-",
	       c->machine_given, c->read_only, c->ephemeral, c->private_network,
	       c->private_users, (unsigned int)c->pu_base, c->pu_count,
	       c->chdir ? c->chdir : "-", c->user ? c->user : "-", c->quiet, c->verbose,
	       c->as_pid2, (unsigned long long)c->cap_drop, c->nkeep_fd, c->nsetenv,
	       c->env_file ? c->env_file : "-");
	for (i = 0; i < c->nmounts; i++) {
		const struct mount_opt *m = &c->mounts[i];

		printf(" m%d=%s:%s:%s:%s:attr=%llx:rec=%d", i,
		       m->type == MNT_TMPFS ? "tmpfs" : "bind", m->src ? m->src : "-", m->dst,
		       m->fs_opts ? m->fs_opts : "-", (unsigned long long)m->attr, m->recursive);
	}
	putchar('\n');
}

static void parse_and_print(void *arg)
{
	static char copy[4096];
	static char *argv[128];
	struct config cfg = { 0 };
	int argc = 0;
	char *w, *save = NULL;

	snprintf(copy, sizeof(copy), "pspace-run %s", (const char *)arg);
	/* Words are split at spaces; '~' stands for a space inside a word. */
	for (w = strtok_r(copy, " ", &save); w && argc < 127; w = strtok_r(NULL, " ", &save)) {
		char *t;

		for (t = w; *t; t++)
			if (*t == '~')
				*t = ' ';
		argv[argc++] = w;
	}
	argv[argc] = NULL;
	optind = 1;
	parse_options(&cfg, argc, argv);
	print_config(&cfg);
}

struct option_case {
	const char *args;
	int status;		/* 0: parsed (stdout checked), else the exit status */
	const char *expect;	/* a substring of stdout (status 0) or stderr */
};

#define ALL_DROPPED "capdrop=ffffffffffffffff"

static const struct option_case option_cases[] = {
	/* What parses, and into what. */
	{ "/srv/root /bin/true", 0, "root=/srv/root argv0=/bin/true argc=1 boot=0" },
	{ "/srv/root", 0, "argc=0 boot=1" },
	{ "-b /srv/root --unit=x", 0, "argv0=--unit=x argc=1 boot=1" },
	{ "/srv/root /bin/sh -c true", 0, "argv0=/bin/sh argc=3" },
	{ "/srv/root /bin/sh -v", 0, " v=0 " },
	{ "-v -v /srv/root /bin/true", 0, " v=2 " },
	{ "-q /srv/root /bin/true", 0, " q=1 " },
	{ "--kill-signal=TERM /srv/root x", 0, "kill=15 " },
	{ "--kill-signal=SIGKILL /srv/root x", 0, "kill=9 " },
	{ "--kill-signal=sys /srv/root x", 0, "kill=31 " },
	{ "--kill-signal=RTMIN+3 /srv/root x", 0, "kill=37 " },
	{ "--kill-signal=SIGRTMAX-1 /srv/root x", 0, "kill=63 " },
	{ "--kill-signal=10 /srv/root x", 0, "kill=10 " },
	{ "--stop-timeout=0 /srv/root x", 0, "stop=0 " },
	{ "/srv/root x", 0, "stop=10 " },
	{ "--pid-max=4194304 /srv/root x", 0, "pidmax=4194304 " },
	{ "--no-new-privs /srv/root x", 0, "nnp=1 " },
	{ "--seccomp=off /srv/root x", 0, "seccomp=0 " },
	{ "/srv/root x", 0, "seccomp=1 " },
	{ "--suid=allow /srv/root x", 0, "suid=2 " },
	{ "--suid=deny /srv/root x", 0, "suid=1 " },
	{ "--console=pipe /srv/root x", 0, "console=2 " },
	{ "/srv/root x", 0, "console=2 " },	/* stdin is no terminal */
	{ "--cap-drop=all /srv/root x", 0, ALL_DROPPED },
	{ "--cap-drop=all --cap-add=chown /srv/root x", 0, "capdrop=fffffffffffffffe" },
	{ "/srv/root x", 0, "capdrop=ffffffff021b5000" },	/* nspawn's less sys_ptrace */
	{ "--keep-fd=3 --keep-fd=4 /srv/root x", 0, "keep=2 " },
	{ "-E A=1 -E B= /srv/root x", 0, "setenv=2 " },
	{ "-M web-1 /srv/root x", 0, "machine=web-1 given=1 " },
	{ "--hostname=h.example /srv/root x", 0, "host=h.example " },
	{ "--chdir=/tmp /srv/root x", 0, "chdir=/tmp " },
	{ "-u www-data /srv/root x", 0, "user=www-data " },
	{ "--private-users /srv/root x", 0, "pu=1 pubase=0 pucount=65536 " },
	{ "--private-users=100000:1000 /srv/root x", 0, "pu=1 pubase=100000 pucount=1000 " },
	{ "--private-network --read-only --ephemeral /srv/root x", 0, "ro=1 eph=1 net=1 " },
	{ "--as-pid2 /srv/root x", 0, "pid2=1 " },
	{ "--env-file=/e /srv/root x", 0, "envfile=/e" },
	{ "--join=42", 0, "join=42 joinname=- list=0" },
	{ "--join=42 /bin/true", 0, "argv0=/bin/true" },
	{ "--join=42", 0, "argv0=/bin/sh" },
	{ "-j web", 0, "join=-1 joinname=web " },
	{ "--list", 0, "list=1 " },
	{ "--bind=/a /srv/root x", 0, "m0=bind:/a:/a:-:attr=0:rec=1" },
	{ "--bind=/a:/b /srv/root x", 0, "m0=bind:/a:/b:-:attr=0:rec=1" },
	{ "--bind=/a:/b:ro,norbind /srv/root x", 0, "m0=bind:/a:/b:-:attr=1:rec=0" },
	{ "--bind=/a:/b:nosuid,nodev,noexec /srv/root x", 0, "m0=bind:/a:/b:-:attr=e:rec=1" },
	{ "--bind-ro=/a:/b /srv/root x", 0, "m0=bind:/a:/b:-:attr=1:rec=1" },
	{ "--tmpfs=/t /srv/root x", 0, "m0=tmpfs:-:/t:mode=0755:attr=6:rec=0" },
	{ "--tmpfs=/t:size=1m,mode=700 /srv/root x", 0, "m0=tmpfs:-:/t:size=1m,mode=700:attr=6" },
	{ "--tmpfs=/t:ro,noexec /srv/root x", 0, "m0=tmpfs:-:/t:mode=0755:attr=f:" },
	{ "--bind=/a --tmpfs=/t /srv/root x", 0, "m0=bind:/a:/a:-:attr=0:rec=1 m1=tmpfs" },

	/* What is refused, and what it says. */
	{ "", 125, "missing ROOT" },
	{ "--bogus /srv/root", 125, "Try 'pspace-run --help'" },
	{ "--kill-signal=NOPE /srv/root x", 125, "--kill-signal: unknown signal 'NOPE'" },
	{ "--kill-signal=0 /srv/root x", 125, "--kill-signal: unknown signal '0'" },
	{ "--kill-signal=65 /srv/root x", 125, "--kill-signal: unknown signal '65'" },
	{ "--kill-signal=RTMIN+99 /srv/root x", 125, "unknown signal 'RTMIN+99'" },
	{ "--kill-signal=-9 /srv/root x", 125, "unknown signal '-9'" },
	{ "--stop-timeout=-1 /srv/root x", 125, "--stop-timeout: '-1' is not a number from 0" },
	{ "--stop-timeout=1s /srv/root x", 125, "--stop-timeout: '1s' is not a number" },
	{ "--pid-max=0 /srv/root x", 125, "--pid-max: '0' is not a number from 1 to 4194304" },
	{ "--pid-max=4194305 /srv/root x", 125, "--pid-max: '4194305' is not a number" },
	{ "--seccomp=maybe /srv/root x", 125, "--seccomp: 'maybe' is neither on nor off" },
	{ "--suid=yes /srv/root x", 125, "--suid: 'yes' is not auto, deny or allow" },
	{ "--console=tty /srv/root x", 125, "--console: 'tty' is neither interactive nor pipe" },
	{ "--console=interactive /srv/root x", 125, "--console=interactive needs a terminal" },
	{ "--cap-add=fly /srv/root x", 125, "--cap-add: unknown capability in 'fly'" },
	{ "--cap-drop=chown,fly /srv/root x", 125, "--cap-drop: unknown capability in 'chown,fly'" },
	{ "--keep-fd=2 /srv/root x", 125, "--keep-fd: '2' is not a number from 3" },
	{ "-E novalue /srv/root x", 125, "--setenv: 'novalue' is not NAME=VALUE" },
	{ "-E =x /srv/root x", 125, "--setenv: '=x' is not NAME=VALUE" },
	{ "-M 123 /srv/root x", 125, "--machine: '123' is not a name" },
	{ "-M -x /srv/root x", 125, "--machine: '-x' is not a name" },
	{ "-M a/b /srv/root x", 125, "--machine: 'a/b' is not a name" },
	{ "-M a~b /srv/root x", 125, "--machine: 'a b' is not a name" },
	{ "--hostname= /srv/root x", 125, "--hostname: '' is not 1 to 64 characters" },
	{ "--chdir=tmp /srv/root x", 125, "--chdir: 'tmp' is not an absolute path" },
	{ "--private-users=x /srv/root x", 125, "--private-users: 'x' is not UID[:COUNT]" },
	{ "--private-users=1:0 /srv/root x", 125, "--private-users: '1:0' is not UID[:COUNT]" },
	{ "--private-users=4294967295:2 /srv/root x", 125, "is not UID[:COUNT]" },
	{ "--private-users=-1 /srv/root x", 125, "--private-users: '-1' is not UID[:COUNT]" },
	{ "--join=0", 125, "--join: '0' is not a number from 1" },
	{ "--join=42 -u root", 125, "--user is not supported with --join" },
	{ "--join=42 --chdir=/", 125, "--chdir is not supported with --join" },
	{ "--join=42 --bind=/a", 125, "only apply to a new container" },
	{ "--join=42 --private-users", 125, "only apply to a new container" },
	{ "--list /srv/root", 125, "--list takes no ROOT" },
	{ "--list --join=3", 125, "--list takes no ROOT, COMMAND or --join" },
	{ "-b --as-pid2 /srv/root", 125, "--boot runs ROOT's init as pid 1: not with --as-pid2" },
	{ "--bind= /srv/root x", 125, "--bind : SRC is empty" },
	{ "--bind=/a:rel /srv/root x", 125, "--bind /a:rel: DST must be an absolute path" },
	{ "--bind=/a:/x/../etc /srv/root x", 125, "DST has a '.' or '..' component" },
	{ "--bind=/a:/./etc /srv/root x", 125, "DST has a '.' or '..' component" },
	{ "--bind=/a:/ /srv/root x", 125, "DST is the container's / itself" },
	{ "--bind=/a:// /srv/root x", 125, "DST is the container's / itself" },
	{ "--bind=/a:/b:fly /srv/root x", 125, "unknown option 'fly' (ro, rw, rbind" },
	{ "--bind=/a:/b:nosuid,suid /srv/root x", 0, "m0=bind:/a:/b:-:attr=0:rec=1" },
	{ "--bind-ro=/a:/b:rw /srv/root x", 125, "takes SRC[:DST] (it is read-only)" },
	{ "--tmpfs= /srv/root x", 125, "--tmpfs : DST is empty" },
	{ "--tmpfs=/t:size=1m:x /srv/root x", 125, "--tmpfs /t:size=1m:x: takes DST[:OPTS]" },
	{ "--tmpfs=t /srv/root x", 125, "--tmpfs t: DST must be an absolute path" },
};

void unit_options(void)
{
	size_t i;

	for (i = 0; i < sizeof(option_cases) / sizeof(option_cases[0]); i++) {
		const struct option_case *c = &option_cases[i];
		struct outcome o;
		bool good;

		run_child(parse_and_print, (void *)c->args, &o);
		if (c->status == 0)
			good = o.status == 0 && strstr(o.out, c->expect);
		else
			good = o.status == c->status && strstr(o.err, c->expect) && !o.out[0];
		if (!ok(good, "options: '%s' %s %s", c->args, c->status ? "refused:" : "gives",
			c->expect)) {
			diag("exit status %d", o.status);
			diag("stdout: %s", o.out);
			diag("stderr: %s", o.err);
		}
	}
}

/* 65 forty-character "--bind" options: the 65th is one too many. */
static void too_many_mounts(void *arg)
{
	static char buf[65 * 16 + 16];
	size_t used = 0;
	int i;

	(void)arg;
	for (i = 0; i < 65; i++)
		used += snprintf(buf + used, sizeof(buf) - used, "--tmpfs=/t%d ", i);
	snprintf(buf + used, sizeof(buf) - used, "/srv/root x");
	parse_and_print(buf);
}

void unit_signals(void)
{
	static const struct { const char *name; int sig; } names[] = {
		{ "HUP", SIGHUP }, { "SIGINT", SIGINT }, { "quit", SIGQUIT }, { "SigTerm", SIGTERM },
		{ "KILL", SIGKILL }, { "USR1", SIGUSR1 }, { "USR2", SIGUSR2 }, { "CONT", SIGCONT },
		{ "STOP", SIGSTOP }, { "TSTP", SIGTSTP }, { "WINCH", SIGWINCH }, { "PWR", SIGPWR },
		{ "SYS", SIGSYS }, { "CHLD", SIGCHLD }, { "IOT", SIGABRT }, { "POLL", SIGIO },
		{ "RTMIN", 34 }, { "RTMIN+0", 34 }, { "SIGRTMIN+3", 37 }, { "RTMAX", 64 },
		{ "RTMAX-30", 34 }, { "1", 1 }, { "64", 64 },
		{ "", -1 }, { "SIG", -1 }, { "RTMIN+31", -1 }, { "RTMAX-31", -1 }, { "RTMAX+1", -1 },
		{ "RTMIN-1", -1 }, { "0", -1 }, { "65", -1 }, { "9x", -1 }, { "TERMX", -1 },
		{ "99999999999999999999", -1 },
		{ "RTMIN+99999999999999999999", -1 }, { "RTMAX-99999999999999999999", -1 },
	};
	struct outcome o;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int got = signal_by_name(names[i].name);

		if (!ok(got == names[i].sig, "signal_by_name('%s') is %d", names[i].name,
			names[i].sig))
			diag("got %d", got);
	}
	/* The default stop signal: an init's is SIGRTMIN+3, else SIGTERM; --kill-signal wins. */
	ok(stop_signal(&(struct config){ .boots_init = true }) == 37,
	   "stop_signal: an init stops on SIGRTMIN+3 as glibc counts (37), which systemd halts on");
	ok(stop_signal(&(struct config){ 0 }) == SIGTERM, "stop_signal: a command stops on SIGTERM");
	ok(stop_signal(&(struct config){ .boots_init = true, .kill_signal = SIGINT }) == SIGINT,
	   "stop_signal: --kill-signal wins over the default");
	run_child(too_many_mounts, NULL, &o);
	if (!ok(o.status == 125 && strstr(o.err, "--tmpfs: more than 64 mounts"),
		"options: a 65th mount is refused"))
		diag("status %d, stderr %s", o.status, o.err);
}

static void cap_case(const char *list, int want_rc, uint64_t want_mask)
{
	uint64_t mask = 0;
	int rc = parse_cap_list(list, &mask);

	if (!ok(rc == want_rc && (rc || mask == want_mask), "parse_cap_list('%s')%s", list,
		want_rc ? " is refused" : ""))
		diag("rc %d, mask %llx", rc, (unsigned long long)mask);
}

static void tmpfs_context(void *arg)
{
	const char *bad = NULL;
	int fs = mnt_fs_context("tmpfs", arg, &bad);

	printf("fs=%d bad=%s\n", fs >= 0, bad ? bad : "-");
}

void unit_mounts(void)
{
	struct outcome o;
	uint64_t defaults = default_cap_drop();

	cap_case("chown", 0, 1ULL << CAP_CHOWN);
	cap_case("CAP_CHOWN", 0, 1ULL << CAP_CHOWN);
	cap_case("cap_sys_admin,net_admin", 0, 1ULL << CAP_SYS_ADMIN | 1ULL << CAP_NET_ADMIN);
	cap_case("all", 0, ~0ULL);
	cap_case("", 0, 0);
	cap_case("chown,,kill", 0, 1ULL << CAP_CHOWN | 1ULL << CAP_KILL);
	cap_case("cap_fly", -1, 0);
	cap_case("chown,fly", -1, 0);
	/* The default set is nspawn's: it keeps CAP_SYS_ADMIN and CAP_KILL, drops CAP_SYS_MODULE. */
	ok(!(defaults & (1ULL << CAP_SYS_ADMIN)) && !(defaults & (1ULL << CAP_KILL)),
	   "default capabilities keep CAP_SYS_ADMIN and CAP_KILL");
	ok(defaults & (1ULL << CAP_SYS_PTRACE),
	   "default capabilities drop CAP_SYS_PTRACE (a host pidfd's fds and namespaces)");
	ok((defaults & (1ULL << CAP_SYS_MODULE)) && (defaults & (1ULL << CAP_SYS_RAWIO)) &&
	   (defaults & (1ULL << CAP_SYS_TIME)) && (defaults & (1ULL << CAP_MAC_ADMIN)),
	   "default capabilities drop CAP_SYS_MODULE, CAP_SYS_RAWIO, CAP_SYS_TIME, CAP_MAC_ADMIN");

	/* fsopen() itself needs privilege: these run where the host lets us. */
	if (geteuid() != 0) {
		skip("mnt_fs_context: tmpfs options", "fsopen() needs root on the host");
		return;
	}
	run_child(tmpfs_context, "size=1m,mode=0700", &o);
	ok(o.status == 0 && strstr(o.out, "fs=1 bad=-"), "mnt_fs_context: tmpfs takes size=1m,mode=0700");
	run_child(tmpfs_context, "mode=0700,bogus=1", &o);
	ok(o.status == 0 && strstr(o.out, "fs=0 bad=bogus=1"),
	   "mnt_fs_context: a refused option is named as given (bogus=1)");
	run_child(tmpfs_context, "size=lots", &o);
	ok(o.status == 0 && strstr(o.out, "fs=0 bad=size=lots"),
	   "mnt_fs_context: a refused value is named with its key (size=lots)");
	run_child(tmpfs_context, "", &o);
	ok(o.status == 0 && strstr(o.out, "fs=1 bad=-"), "mnt_fs_context: no options");
}

/* --env-file: a regular file of at most 4 MiB, NAME=VALUE lines, '#' comments. */
static void env_file(void *arg)
{
	struct config cfg = { .env_file = arg };
	int i;

	read_env_file(&cfg);
	for (i = 0; i < cfg.nfile_env; i++)
		printf("[%s]", cfg.file_env[i]);
	putchar('\n');
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(2);
	}
}

void unit_env_file(void)
{
	char good[PATH_MAX], bad_line[PATH_MAX], fifo[PATH_MAX], big[PATH_MAX];
	struct outcome o;
	int fd;

	snprintf(good, sizeof(good), "%s/env", scratch_dir());
	write_file(good, "# a comment\nA=1\n\nB=two words\nC=\n");
	run_child(env_file, good, &o);
	if (!ok(o.status == 0 && strstr(o.out, "[A=1][B=two words][C=]"),
		"--env-file: NAME=VALUE lines in order, comments and blank lines skipped"))
		diag("status %d, out %s, err %s", o.status, o.out, o.err);

	snprintf(bad_line, sizeof(bad_line), "%s/env-bad", scratch_dir());
	write_file(bad_line, "A=1\nnot a variable\n");
	run_child(env_file, bad_line, &o);
	if (!ok(o.status == 125 && strstr(o.err, "env-bad") && strstr(o.err, ":2"),
		"--env-file: a line without '=' is refused, naming file and line"))
		diag("status %d, err %s", o.status, o.err);

	run_child(env_file, "/nonexistent/env", &o);
	ok(o.status == 125 && strstr(o.err, "/nonexistent/env"),
	   "--env-file: a missing file is named");
	run_child(env_file, "/dev/zero", &o);
	if (!ok(o.status == 125 && strstr(o.err, "/dev/zero"),
		"--env-file: /dev/zero is refused at once, not read forever"))
		diag("status %d, err %s", o.status, o.err);

	snprintf(fifo, sizeof(fifo), "%s/fifo", scratch_dir());
	if (mkfifo(fifo, 0600) == 0) {
		run_child(env_file, fifo, &o);
		if (!ok(o.status == 125 && strstr(o.err, "fifo"),
			"--env-file: a fifo is refused, not waited on"))
			diag("status %d, err %s", o.status, o.err);
	}
	snprintf(big, sizeof(big), "%s/big", scratch_dir());
	fd = open(big, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	if (fd >= 0 && ftruncate(fd, (4 << 20) + 1) == 0) {
		close(fd);
		run_child(env_file, big, &o);
		if (!ok(o.status == 125 && strstr(o.err, "big"),
			"--env-file: a file over 4 MiB is refused"))
			diag("status %d, err %s", o.status, o.err);
	}
	run_child(env_file, (void *)scratch_dir(), &o);
	ok(o.status == 125, "--env-file: a directory is refused");
}

/* die() undoes what was pushed, newest first, each in the process it belongs to. */
static void undo_a(void)
{
	(void)!write(1, "a", 1);	/* die() ends with _exit(): no stdio */
}

static void undo_b(void)
{
	(void)!write(1, "b", 1);	/* die() ends with _exit(): no stdio */
}

static void undo_c(void)
{
	(void)!write(1, "c", 1);	/* die() ends with _exit(): no stdio */
}

static void push_and_die(void *arg)
{
	on_failure(undo_a, false);
	on_failure(undo_b, true);
	on_failure(undo_a, false);	/* once is enough */
	on_failure(undo_c, false);
	if (arg)
		on_failure_cancel(undo_c);
	die(EXIT_SETUP, "failed");
}

static void push_fork_die(void *arg)
{
	pid_t child;

	(void)arg;
	on_failure(undo_a, false);
	on_failure(undo_b, true);
	fflush(stdout);
	child = fork();
	if (child == 0)
		die(EXIT_SETUP, "the child failed");
	waitpid(child, NULL, 0);
	printf("|");
	fflush(stdout);
	exit(0);
}

void unit_failure(void)
{
	struct outcome o;

	run_child(push_and_die, NULL, &o);
	if (!ok(o.status == 125 && !strcmp(o.out, "cba") && strstr(o.err, "pspace-run: failed"),
		"die: undoes what was pushed, newest first, once each"))
		diag("status %d, out '%s', err '%s'", o.status, o.out, o.err);
	run_child(push_and_die, "cancel", &o);
	ok(o.status == 125 && !strcmp(o.out, "ba"), "die: a cancelled undo is not run");
	run_child(push_fork_die, NULL, &o);
	if (!ok(!strcmp(o.out, "a|"),
		"die: a child undoes what belongs to any process, not its parent's own"))
		diag("out '%s'", o.out);
}

/* Messages name what the container made: no control character reaches the terminal raw. */
static void die_with(void *arg)
{
	die(EXIT_SETUP, "name %s end", (const char *)arg);
}

static void oci_fail_with(void *arg)
{
	oci_fail(EXIT_SETUP, "process.args[0] %s: not found", (const char *)arg);
}

void unit_escapes(void)
{
	static const struct { const char *in, *shown; } cases[] = {
		{ "\x1b]0;PWNED\x07", "name \\x1b]0;PWNED\\x07 end" },
		{ "a\nforged row", "name a\\x0aforged row end" },
		{ "\x1b[2J\x7f", "name \\x1b[2J\\x7f end" },
		{ "caf\xc3\xa9", "name caf\xc3\xa9 end" },		/* UTF-8 stays */
		{ "\xc2\x9b" "31m", "name \\xc2\\x9b31m end" },	/* C1 CSI as UTF-8 */
		{ "x\x9b" "31m", "name x\\x9b31m end" },		/* C1 CSI as a byte */
		{ "\xe2\x80\x9b", "name \xe2\x80\x9b end" },		/* U+201B is no control */
	};
	struct outcome o;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		run_child(die_with, (void *)cases[i].in, &o);
		if (!ok(o.status == 125 && strstr(o.err, cases[i].shown) && !strchr(o.err, '\x1b'),
			"die: a message's control characters are shown as \\xNN (case %zu)", i))
			diag("stderr: %s", o.err);
	}
	run_child(oci_fail_with, "/bin/x\x1b]0;T\x07", &o);
	ok(o.status == 125 && strstr(o.err, "/bin/x\\x1b]0;T\\x07: not found") &&
	   !strchr(o.err, '\x1b'), "oci_fail: the same for the OCI runtime's messages");
}
