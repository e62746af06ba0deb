// SPDX-License-Identifier: GPL-2.0
/* Command line: GNU-style options, the same list as in pspace-run.1. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "pspace-run.h"

#ifndef VERSION
#define VERSION "0.1"
#endif

#define PID_MAX_LIMIT (4 * 1024 * 1024)
#define DEFAULT_STOP_TIMEOUT 10

static char *default_argv[] = { "/sbin/init", NULL };
static char *default_join_argv[] = { "/bin/sh", NULL };

static void usage(FILE *out, int status)
{
	fprintf(out,
		"Usage: %s [OPTION]... ROOT [COMMAND [ARG]...]\n"
		"  or:  %s --join=WID [OPTION]... [COMMAND [ARG]...]\n"
		"  or:  %s --list\n"
		"Run COMMAND (default: ROOT's init, as --boot) as pid 1 of a new pspace whose root is ROOT.\n"
		"\n"
		"Verbs:\n"
		"  -j, --join=WID           run COMMAND (default /bin/sh) in the running\n"
		"                           container whose leader is WID\n"
		"  -j, --join=NAME          ... or whose machine name is NAME (-M)\n"
		"  -l, --list               show the pspaces this process can see, as a tree\n"
		"\n"
		"Options:\n"
		"  -E, --setenv=NAME=VALUE  set an environment variable in the container\n"
		"      --as-pid2            run a minimal init as pid 1 and COMMAND as pid 2\n"
		"      --console=MODE       interactive (a pty of the container; the default\n"
		"                           when stdin is a terminal) or pipe (stdio passed\n"
		"                           through, a terminal replaced by a relayed pipe)\n"
		"      --hostname=NAME      the container's hostname (default: ROOT's\n"
		"                           /etc/hostname, else ROOT's basename)\n"
		"      --pid-max=N          the pspace's own pid_max\n"
		"      --kill-signal=SIG    the signal that asks the leader to stop\n"
		"                           (default SIGRTMIN+3 for an init, else SIGTERM)\n"
		"      --stop-timeout=SECS  then SIGKILL to the whole pspace (default %d)\n"
		"      --cap-add=CAPS       keep these capabilities (comma-separated, or all)\n"
		"      --cap-drop=CAPS      drop these capabilities (comma-separated, or all)\n"
		"      --no-new-privs       set no_new_privs for the container\n"
		"      --seccomp=on|off     the default seccomp filter (on) or none\n"
		"      --suid=auto|deny|allow  may the container make setuid, setgid and\n"
		"                           file-capability files in ROOT (auto: not if\n"
		"                           other users of the host can reach ROOT)\n"
		"      --keep-fd=N          pass the caller's file descriptor N to COMMAND\n"
		"                           (others above 2 are closed; repeatable)\n"
		"  -M, --machine=NAME       the container's name (default ROOT's basename,\n"
		"                           -2, -3... added while taken) and hostname\n"
		"  -b, --boot               run ROOT's init (/sbin/init, systemd...); the\n"
		"                           arguments after ROOT go to it (also: no COMMAND)\n"
		"      --bind=SRC[:DST[:OPTS]]  bind the host's SRC onto DST in ROOT (default\n"
		"                           DST=SRC); OPTS: ro,rbind,norbind,nosuid,nodev,noexec\n"
		"      --bind-ro=SRC[:DST]  the same, read-only\n"
		"      --tmpfs=DST[:OPTS]   a tmpfs on DST (OPTS: tmpfs's own, ro, noexec...)\n"
		"      --read-only          ROOT read-only (/proc /dev /run /tmp stay writable)\n"
		"      --ephemeral          an overlay of ROOT on a tmpfs, gone at exit\n"
		"      --private-network    a network namespace of its own, lo up, nothing else\n"
		"      --private-users[=UID[:COUNT]]  a user namespace: the container's uids\n"
		"                           0..COUNT-1 (default 65536) are UID.. outside (default:\n"
		"                           a free range from 524288); ROOT is mounted idmapped\n"
		"      --chdir=DIR          COMMAND's working directory (in the container)\n"
		"  -u, --user=NAME|UID[:GID]  run COMMAND as this user of ROOT's /etc/passwd\n"
		"                           (groups from ROOT's /etc/group; HOME, USER set)\n"
		"      --env-file=FILE      NAME=VALUE lines ('#' comments) for the environment\n"
		"                           (a regular file of at most 4 MiB)\n"
		"  -q, --quiet              print nothing but errors\n"
		"  -v, --verbose            say what is being set up\n"
		"  -h, --help               display this help and exit\n"
		"  -V, --version            output version information and exit\n"
		"\n"
		"Exit status: COMMAND's own, or 128+N if it died of signal N;\n"
		"125 if pspace-run itself fails, 126 if COMMAND cannot be run,\n"
		"127 if COMMAND is not found.\n",
		progname, progname, progname, DEFAULT_STOP_TIMEOUT);
	exit(status);
}

static void bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", progname);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", progname);
	exit(EXIT_SETUP);
}

/* Which of @names (NULL-terminated) @arg is; else "--OPT: 'ARG' is @expected". */
static int parse_choice(const char *opt, const char *arg, const char *const names[],
			const char *expected)
{
	char fmt[128];
	int i;

	for (i = 0; names[i]; i++)
		if (!strcmp(arg, names[i]))
			return i;
	snprintf(fmt, sizeof(fmt), "--%s: '%%s' is %s", opt, expected);
	bad_usage(fmt, arg);
	return -1;
}

static long parse_number(const char *opt, const char *arg, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max) {
		fprintf(stderr, "%s: --%s: '%s' is not a number from %ld to %ld\n",
			progname, opt, arg, min, max);
		exit(EXIT_SETUP);
	}
	return v;
}

static int parse_signal(const char *arg)
{
	int sig = signal_by_name(arg);

	if (sig < 0)
		bad_usage("--kill-signal: unknown signal '%s'", arg);
	return sig;
}


/*
 * --private-users[=UID[:COUNT]]: the container's 0 is UID outside, COUNT
 * ids (default 65536); no UID: a free range is picked (userns.c).
 */
static void parse_private_users(struct config *cfg, const char *arg)
{
	unsigned long long base, count = 65536;
	char *end;

	cfg->private_users = true;
	cfg->pu_count = count;
	if (!arg)
		return;
	errno = 0;
	base = strtoull(arg, &end, 10);
	if (!errno && end != arg && *end == ':') {
		const char *c = end + 1;

		count = strtoull(c, &end, 10);
		if (end == c)
			errno = EINVAL;
	}
	if (errno || end == arg || *end || !isdigit((unsigned char)arg[0]) || count == 0 ||
	    base + count > 0xffffffffULL)
		bad_usage("--private-users: '%s' is not UID[:COUNT] (a range of uids below 2^32-1)",
			  arg);
	cfg->pu_given = true;
	cfg->pu_base = base;
	cfg->pu_count = count;
}

static void parse_test_off(struct config *cfg)
{
	cfg->test_off = test_off_env();
}

/* The long options without a letter; those users reach for (issue 12) from 400. */
enum { OPT_AS_PID2 = 254, OPT_CONSOLE = 255, OPT_HOSTNAME = 256, OPT_PID_MAX, OPT_KILL_SIGNAL, OPT_STOP_TIMEOUT,
       OPT_CAP_ADD, OPT_CAP_DROP, OPT_NO_NEW_PRIVS,
       OPT_SECCOMP = 320, OPT_KEEP_FD, OPT_SUID };
enum { OPT_BIND = 400, OPT_BIND_RO, OPT_TMPFS, OPT_READ_ONLY, OPT_EPHEMERAL,
       OPT_PRIVATE_NETWORK, OPT_CHDIR, OPT_ENV_FILE, OPT_PRIVATE_USERS };
static const struct option longopts[] = {
	{ "join", required_argument, NULL, 'j' },
	{ "list", no_argument, NULL, 'l' },
	{ "setenv", required_argument, NULL, 'E' },
	{ "as-pid2", no_argument, NULL, OPT_AS_PID2 },
	{ "console", required_argument, NULL, OPT_CONSOLE },
	{ "hostname", required_argument, NULL, OPT_HOSTNAME },
	{ "pid-max", required_argument, NULL, OPT_PID_MAX },
	{ "kill-signal", required_argument, NULL, OPT_KILL_SIGNAL },
	{ "stop-timeout", required_argument, NULL, OPT_STOP_TIMEOUT },
	{ "cap-add", required_argument, NULL, OPT_CAP_ADD },
	{ "cap-drop", required_argument, NULL, OPT_CAP_DROP },
	{ "no-new-privs", no_argument, NULL, OPT_NO_NEW_PRIVS },
	{ "seccomp", required_argument, NULL, OPT_SECCOMP },
	{ "keep-fd", required_argument, NULL, OPT_KEEP_FD },
	{ "suid", required_argument, NULL, OPT_SUID },
	{ "machine", required_argument, NULL, 'M' },
	{ "boot", no_argument, NULL, 'b' },
	{ "bind", required_argument, NULL, OPT_BIND },
	{ "bind-ro", required_argument, NULL, OPT_BIND_RO },
	{ "tmpfs", required_argument, NULL, OPT_TMPFS },
	{ "read-only", no_argument, NULL, OPT_READ_ONLY },
	{ "ephemeral", no_argument, NULL, OPT_EPHEMERAL },
	{ "private-network", no_argument, NULL, OPT_PRIVATE_NETWORK },
	{ "private-users", optional_argument, NULL, OPT_PRIVATE_USERS },
	{ "chdir", required_argument, NULL, OPT_CHDIR },
	{ "user", required_argument, NULL, 'u' },
	{ "env-file", required_argument, NULL, OPT_ENV_FILE },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

/* In the order of their enums (CONSOLE_INTERACTIVE on, SUID_AUTO on). */
static const char *const console_modes[] = { "interactive", "pipe", NULL };
static const char *const on_off[] = { "on", "off", NULL };
static const char *const suid_policies[] = { "auto", "deny", "allow", NULL };

/* The first half of the options: how the container is run. */
static bool take_run_option(struct config *cfg, int c)
{
	uint64_t mask;

	switch (c) {
	case 'j':
		if (!isdigit((unsigned char)optarg[0])) {
			cfg->join_name = optarg;	/* a machine name, looked up later */
			cfg->join = -1;
			break;
		}
		cfg->join = parse_number("join", optarg, 1, PID_MAX_LIMIT);
		break;
	case 'l':
		cfg->list = true;
		break;
	case 'E':
		if (!strchr(optarg, '=') || optarg[0] == '=')
			bad_usage("--setenv: '%s' is not NAME=VALUE", optarg);
		if (cfg->nsetenv == MAX_SETENV)
			bad_usage("--setenv: more than %s variables", "64");
		cfg->setenv[cfg->nsetenv++] = optarg;
		break;
	case OPT_AS_PID2:
		cfg->as_pid2 = true;
		break;
	case OPT_CONSOLE:
		cfg->console = parse_choice("console", optarg, console_modes,
					    "neither interactive nor pipe") + CONSOLE_INTERACTIVE;
		break;
	case OPT_HOSTNAME:
		if (!*optarg || strlen(optarg) > 64)
			bad_usage("--hostname: '%s' is not 1 to 64 characters", optarg);
		cfg->hostname = optarg;
		break;
	case OPT_PID_MAX:
		cfg->pid_max = parse_number("pid-max", optarg, 1, PID_MAX_LIMIT);
		break;
	case OPT_KILL_SIGNAL:
		cfg->kill_signal = parse_signal(optarg);
		break;
	case OPT_STOP_TIMEOUT:
		cfg->stop_timeout = parse_number("stop-timeout", optarg, 0, INT_MAX);
		break;
	case OPT_CAP_ADD:
	case OPT_CAP_DROP:
		if (parse_cap_list(optarg, &mask))
			bad_usage(c == OPT_CAP_ADD ? "--cap-add: unknown capability in '%s'"
				  : "--cap-drop: unknown capability in '%s'", optarg);
		if (c == OPT_CAP_ADD)
			cfg->cap_drop &= ~mask;
		else
			cfg->cap_drop |= mask;
		break;
	case OPT_NO_NEW_PRIVS:
		cfg->no_new_privs = true;
		break;
	case OPT_SECCOMP:
		cfg->seccomp = !parse_choice("seccomp", optarg, on_off, "neither on nor off");
		break;
	case OPT_SUID:
		cfg->suid = parse_choice("suid", optarg, suid_policies, "not auto, deny or allow");
		break;
	case OPT_KEEP_FD:
		if (cfg->nkeep_fd == MAX_KEEP_FD)
			bad_usage("--keep-fd: more than %s descriptors", "16");
		cfg->keep_fd[cfg->nkeep_fd++] = parse_number("keep-fd", optarg, 3, INT_MAX);
		break;
	default:
		return false;
	}
	return true;
}

/* The second half: the container's shape (name, mounts, user), and -h, -V. */
static void take_shape_option(struct config *cfg, int c)
{
	switch (c) {
	case 'M':
		if (!*optarg || strlen(optarg) > 64 || strspn(optarg, "0123456789") == strlen(optarg) ||
		    optarg[0] == '-' || optarg[0] == '.' ||
		    strspn(optarg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.") !=
		    strlen(optarg))
			bad_usage("--machine: '%s' is not a name (1 to 64 letters, digits, '-' and '.', not all digits)",
				  optarg);
		cfg->machine = optarg;
		cfg->machine_given = true;
		break;
	case 'b':
		cfg->boot = true;
		break;
	case OPT_BIND:
		parse_mount_opt(cfg, 'b', optarg);
		break;
	case OPT_BIND_RO:
		parse_mount_opt(cfg, 'r', optarg);
		break;
	case OPT_TMPFS:
		parse_mount_opt(cfg, 't', optarg);
		break;
	case OPT_READ_ONLY:
		cfg->read_only = true;
		break;
	case OPT_EPHEMERAL:
		cfg->ephemeral = true;
		break;
	case OPT_PRIVATE_NETWORK:
		cfg->private_network = true;
		break;
	case OPT_PRIVATE_USERS:
		parse_private_users(cfg, optarg);
		break;
	case OPT_CHDIR:
		if (optarg[0] != '/')
			bad_usage("--chdir: '%s' is not an absolute path", optarg);
		cfg->chdir = optarg;
		break;
	case 'u':
		cfg->user = optarg;
		break;
	case OPT_ENV_FILE:
		cfg->env_file = optarg;
		break;
	case 'q':
		cfg->quiet = true;
		break;
	case 'v':
		cfg->verbose++;
		break;
	case 'h':
		usage(stdout, 0);
		break;
	case 'V':
		printf("pspace-run %s\n", VERSION);
		exit(0);
	default:
		fprintf(stderr, "Try '%s --help' for more information.\n", progname);
		exit(EXIT_SETUP);
	}
}

void parse_options(struct config *cfg, int argc, char **argv)
{
	int c;

	cfg->stop_timeout = DEFAULT_STOP_TIMEOUT;
	cfg->cap_drop = default_cap_drop();
	cfg->seccomp = true;
	parse_test_off(cfg);

	while ((c = getopt_long(argc, argv, "+j:lE:qvhVM:bu:", longopts, NULL)) != -1)
		if (!take_run_option(cfg, c))
			take_shape_option(cfg, c);
	if (cfg->list) {
		if (optind < argc || cfg->join)
			bad_usage("--list takes no ROOT, COMMAND or --join%s", "");
		return;
	}
	/* A pty whenever stdin is a terminal: no terminal of ours goes in. */
	if (cfg->console == CONSOLE_AUTO)
		cfg->console = isatty(0) ? CONSOLE_INTERACTIVE : CONSOLE_PIPE;
	else if (cfg->console == CONSOLE_INTERACTIVE && !isatty(0))
		bad_usage("--console=interactive needs a terminal on stdin%s", "");
	if (cfg->join) {
		/* What shapes a new container cannot apply to a running one. */
		if (cfg->user)
			bad_usage("--join: --user is not supported with --join (it would run as root)%s", "");
		if (cfg->chdir)
			bad_usage("--join: --chdir is not supported with --join%s", "");
		if (cfg->machine_given || cfg->boot || cfg->nmounts || cfg->read_only ||
		    cfg->ephemeral || cfg->private_network || cfg->private_users)
			bad_usage("--join: -M, --boot, --bind, --tmpfs, --read-only, --ephemeral, --private-network and --private-users only apply to a new container%s", "");
		cfg->argv = optind < argc ? &argv[optind] : default_join_argv;
		return;
	}
	if (optind >= argc)
		bad_usage("missing ROOT%s", "");
	cfg->root = argv[optind++];
	cfg->argv = optind < argc ? &argv[optind] : default_argv;
	/* No COMMAND is a boot; with --boot, what follows ROOT is init's. */
	if (optind >= argc)
		cfg->boot = true;
	if (cfg->boot)
		cfg->argv = &argv[optind];
	if (cfg->boot && cfg->as_pid2)
		bad_usage("--boot runs ROOT's init as pid 1: not with --as-pid2%s", "");
	cfg->boots_init = cfg->boot;
}
