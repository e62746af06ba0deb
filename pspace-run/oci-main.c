// SPDX-License-Identifier: GPL-2.0
/*
 * The OCI runtime's command line, as runc and crun take it:
 *
 *   pspace-run [--root DIR] [--log FILE] [--log-format text|json]
 *              [--systemd-cgroup] VERB [OPTION]... ID [ARG]...
 *
 * Every verb is a process of its own; what lasts between them is the
 * state directory ROOT/ID (oci-state.c).  Here are the small verbs
 * (start, state, kill, delete, features, spec) and the dispatch.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <json-c/json.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pspace-run.h"
#include "sys.h"
#include "oci.h"



static const char *const verbs[] = {
	"create", "start", "state", "kill", "delete", "run", "exec", "features", "spec",
	"pause", "resume", "ps", "update", "checkpoint", "restore", "events", "list",
};

/*
 * The OCI command line when the first argument is one of its global
 * options or verbs; pspace-run's own otherwise.  (A ROOT named like a
 * verb is given as ./create.)
 */
bool oci_is_command(int argc, char **argv)
{
	const char *a;
	size_t i;

	if (argc < 2)
		return false;
	a = argv[1];
	if (!strcmp(a, "--root") || !strncmp(a, "--root=", 7) || !strcmp(a, "--log") ||
	    !strncmp(a, "--log=", 6) || !strcmp(a, "--log-format") ||
	    !strncmp(a, "--log-format=", 13) || !strcmp(a, "--systemd-cgroup") ||
	    !strcmp(a, "--debug"))
		return true;
	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(a, verbs[i]))
			return true;
	return false;
}

static void usage(FILE *out, int status)
{
	fprintf(out,
		"Usage: %s [GLOBAL OPTION]... VERB [OPTION]... ID [ARG]...\n"
		"The OCI runtime command line (as runc's); the container is a pspace.\n"
		"\n"
		"Verbs:\n"
		"  create [-b BUNDLE] [--console-socket PATH] [--pid-file FILE] ID\n"
		"  start ID\n"
		"  state ID\n"
		"  kill [-a|--all] ID [SIGNAL]\n"
		"  delete [-f|--force] ID\n"
		"  run [-b BUNDLE] [-d] [--console-socket PATH] [--pid-file FILE] ID\n"
		"  exec [-p FILE] [-t] [-d] [--console-socket PATH] [--pid-file FILE]\n"
		"       [--cwd DIR] [-e NAME=VALUE] [-u UID[:GID]] ID [COMMAND [ARG]...]\n"
		"  features\n"
		"  spec [-b BUNDLE]\n"
		"\n"
		"Global options:\n"
		"  --root DIR          the state directory (default " OCI_DEFAULT_ROOT ")\n"
		"  --log FILE          also log errors to FILE\n"
		"  --log-format FMT    text or json\n"
		"  --systemd-cgroup    cgroupsPath is slice:prefix:name\n",
		progname);
	exit(status);
}

static void need_id(int argc, char **argv, int optind_, const char *verb)
{
	if (optind_ >= argc)
		oci_fail(EXIT_SETUP, "%s: missing the container ID", verb);
	oci_check_id(argv[optind_]);
}

static void load_or_fail(const char *id, struct oci_state *st)
{
	if (oci_state_load(id, st) < 0)
		oci_fail(EXIT_SETUP, "container %s does not exist", id);
}

static int verb_state(int argc, char **argv)
{
	struct oci_state st;

	need_id(argc, argv, optind, "state");
	load_or_fail(argv[optind], &st);
	puts(oci_state_json(&st));
	return 0;
}

static int verb_start(int argc, char **argv)
{
	struct oci_state st;
	struct oci_spec *spec;
	char fifo[4200], cfg[4200];
	const char *status;
	int fd;

	need_id(argc, argv, optind, "start");
	load_or_fail(argv[optind], &st);
	status = oci_status(&st);
	if (strcmp(status, "created"))
		oci_fail(EXIT_SETUP, "container %s is %s, not created: cannot start it", st.id,
			 status);
	snprintf(fifo, sizeof(fifo), "%s/exec.fifo", st.dir);
	/* The leader reads it; with no reader, it is gone (ENXIO). */
	fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		oci_fail(EXIT_SETUP, "container %s: its exec fifo: %s", st.id, strerror(errno));
	if (write(fd, "0", 1) != 1)
		oci_fail(EXIT_SETUP, "container %s: start: %s", st.id, strerror(errno));
	close(fd);
	unlink(fifo);
	snprintf(cfg, sizeof(cfg), "%s/config.json", st.dir);
	spec = oci_load_saved_spec(cfg, st.bundle);
	oci_run_hooks(spec, HOOK_POSTSTART, oci_state_json(&st), false);
	return 0;
}

/* The leader's pidfd; the whole pspace with --all (SPEC 2.8, else 2.2). */
static int signal_container(const struct oci_state *st, int sig, bool all)
{
	int pidfd = oci_pidfd(st);

	if (pidfd < 0)
		return -1;
	if (!all)
		return sys_pidfd_send_signal(pidfd, sig, 0);
	/*
	 * No fallback to kill(-pid): a pid number is not pinned by the
	 * pidfd, and a kernel without PIDFD_SIGNAL_PSPACE made no pspace.
	 */
	return sys_pidfd_send_signal(pidfd, sig, PIDFD_SIGNAL_PSPACE);
}

static int verb_kill(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' }, { NULL, 0, NULL, 0 }
	};
	struct oci_state st;
	const char *status;
	bool all = false;
	int c, sig = SIGTERM;

	while ((c = getopt_long(argc, argv, "+a", longopts, NULL)) != -1) {
		if (c != 'a')
			oci_fail(EXIT_SETUP, "kill: unknown option");
		all = true;
	}
	need_id(argc, argv, optind, "kill");
	if (optind + 1 < argc) {
		sig = signal_by_name(argv[optind + 1]);
		if (sig < 0)
			oci_fail(EXIT_SETUP, "kill: unknown signal '%s'", argv[optind + 1]);
	}
	load_or_fail(argv[optind], &st);
	status = oci_status(&st);
	/*
	 * runc's words: containerd's runc shim reads "container not running"
	 * as "the process already finished", not as a failure of kill.
	 */
	if (!strcmp(status, "stopped"))
		oci_fail(EXIT_SETUP, "container %s: container not running", st.id);
	if (signal_container(&st, sig, all) < 0)
		oci_fail(EXIT_SETUP, "kill %s: %s", st.id, strerror(errno));
	return 0;
}

/* Wait until the leader is gone (its pidfd says so). */
static void wait_gone(const struct oci_state *st, int timeout_ms)
{
	int pidfd = oci_pidfd(st);
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	if (pidfd < 0)
		return;
	while (poll(&p, 1, timeout_ms) < 0 && errno == EINTR)
		;
	close(pidfd);
}

static int verb_delete(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "force", no_argument, NULL, 'f' }, { NULL, 0, NULL, 0 }
	};
	struct oci_state st;
	struct oci_spec *spec = NULL;
	const char *status;
	bool force = false;
	char cfg[4200];
	int c;

	while ((c = getopt_long(argc, argv, "+f", longopts, NULL)) != -1) {
		if (c != 'f')
			oci_fail(EXIT_SETUP, "delete: unknown option");
		force = true;
	}
	need_id(argc, argv, optind, "delete");
	if (oci_state_load(argv[optind], &st) < 0) {
		if (force)
			return 0;
		oci_fail(EXIT_SETUP, "container %s does not exist", argv[optind]);
	}
	status = oci_status(&st);
	if (strcmp(status, "stopped")) {
		if (!force && strcmp(status, "created"))
			oci_fail(EXIT_SETUP, "container %s is %s: stop it first, or delete --force",
				 st.id, status);
		signal_container(&st, SIGKILL, true);
		wait_gone(&st, 10000);
	}
	snprintf(cfg, sizeof(cfg), "%s/config.json", st.dir);
	if (access(cfg, R_OK) == 0)
		spec = oci_load_saved_spec(cfg, st.bundle);
	if (st.cgroup[0])
		oci_cgroup_remove(st.cgroup);
	st.pid = 0;
	if (spec)
		oci_run_hooks(spec, HOOK_POSTSTOP, oci_state_json(&st), false);
	oci_remove_dir(st.dir);
	return 0;
}

static int verb_features(void)
{
	puts(json_object_to_json_string_ext(oci_features(), JSON_C_TO_STRING_PRETTY |
					    JSON_C_TO_STRING_NOSLASHESCAPE));
	return 0;
}

static int verb_spec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "bundle", required_argument, NULL, 'b' }, { "rootless", no_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 }
	};
	const char *bundle = ".";
	char path[PATH_MAX];
	FILE *f;
	int c, fd;

	while ((c = getopt_long(argc, argv, "+b:", longopts, NULL)) != -1) {
		if (c == 'b')
			bundle = optarg;
		else
			oci_fail(EXIT_SETUP, "spec: unknown option");
	}
	snprintf(path, sizeof(path), "%s/config.json", bundle);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		oci_fail(EXIT_SETUP, "%s: %s", path, strerror(errno));
	f = fdopen(fd, "w");
	fprintf(f, "%s\n", json_object_to_json_string_ext(oci_default_spec(),
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	if (fclose(f))
		oci_fail(EXIT_SETUP, "%s: %s", path, strerror(errno));
	return 0;
}

static int verb_create(int argc, char **argv, bool run)
{
	static const struct option longopts[] = {
		{ "bundle", required_argument, NULL, 'b' },
		{ "console-socket", required_argument, NULL, 'c' },
		{ "pid-file", required_argument, NULL, 'p' },
		{ "preserve-fds", required_argument, NULL, 'P' },
		{ "detach", no_argument, NULL, 'd' },
		{ "no-pivot", no_argument, NULL, 'n' },
		{ "no-new-keyring", no_argument, NULL, 'k' },
		{ "keep", no_argument, NULL, 'K' },
		{ "no-subreaper", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 }
	};
	struct oci_create_opts o = { .bundle = "." };
	int c;

	while ((c = getopt_long(argc, argv, "+b:d", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			o.bundle = optarg;
			break;
		case 'c':
			o.console_socket = optarg;
			break;
		case 'p':
			o.pid_file = optarg;
			break;
		case 'P':
			o.preserve_fds = atoi(optarg);
			if (o.preserve_fds < 0 || o.preserve_fds > 1000)
				oci_fail(EXIT_SETUP, "--preserve-fds: '%s' is not a count", optarg);
			break;
		case 'd':
			o.detach = true;
			break;
		case 'n':
			oci_fail(EXIT_SETUP, "--no-pivot: not supported (pivot_root is always used)");
		case 'k': case 'K': case 's':
			break;
		default:
			oci_fail(EXIT_SETUP, "%s: unknown option", run ? "run" : "create");
		}
	}
	need_id(argc, argv, optind, run ? "run" : "create");
	o.id = argv[optind];
	return oci_create(&o, run);
}

static int verb_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "process", required_argument, NULL, 'p' },
		{ "console-socket", required_argument, NULL, 'c' },
		{ "pid-file", required_argument, NULL, 'P' },
		{ "tty", no_argument, NULL, 't' },
		{ "detach", no_argument, NULL, 'd' },
		{ "cwd", required_argument, NULL, 'w' },
		{ "env", required_argument, NULL, 'e' },
		{ "user", required_argument, NULL, 'u' },
		{ "no-new-privs", no_argument, NULL, 'N' },
		{ "preserve-fds", required_argument, NULL, 'F' },
		{ "cap", required_argument, NULL, 'C' },
		{ "process-label", required_argument, NULL, 'l' },
		{ "apparmor", required_argument, NULL, 'A' },
		{ "additional-gids", required_argument, NULL, 'g' },
		{ "cgroup", required_argument, NULL, 'G' },
		{ "ignore-paused", no_argument, NULL, 'I' },
		{ NULL, 0, NULL, 0 }
	};
	struct oci_exec_opts o = { 0 };
	int c;

	o.env = calloc(argc + 1, sizeof(char *));
	while ((c = getopt_long(argc, argv, "+p:tde:u:", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			o.process_file = optarg;
			break;
		case 'c':
			o.console_socket = optarg;
			break;
		case 'P':
			o.pid_file = optarg;
			break;
		case 't':
			o.tty = true;
			break;
		case 'd':
			o.detach = true;
			break;
		case 'w':
			o.cwd = optarg;
			break;
		case 'e':
			if (!strchr(optarg, '=') || optarg[0] == '=')
				oci_fail(EXIT_SETUP, "exec --env: '%s' is not NAME=VALUE", optarg);
			o.env[o.nenv++] = optarg;
			break;
		case 'u':
			o.user = optarg;
			break;
		case 'N':
			o.no_new_privs = true;
			break;
		case 'F':
			o.preserve_fds = atoi(optarg);
			break;
		case 'I':
			break;
		case 'C': case 'l': case 'A': case 'g': case 'G':
			oci_fail(EXIT_SETUP, "exec: option %s is not supported by pspace-run",
				 argv[optind - 1]);
		default:
			oci_fail(EXIT_SETUP, "exec: unknown option");
		}
	}
	need_id(argc, argv, optind, "exec");
	o.id = argv[optind];
	o.argv = &argv[optind + 1];
	if (!o.process_file && !o.argv[0])
		oci_fail(EXIT_SETUP, "exec: neither --process FILE nor a COMMAND");
	return oci_exec(&o);
}

/* DIR without trailing slashes: "DIR/" would let lstat() follow a link. */
static const char *strip_slashes(const char *arg)
{
	static char buf[PATH_MAX];
	size_t n = strlen(arg);

	if (n >= sizeof(buf))
		oci_fail(EXIT_SETUP, "--root %s: too long", arg);
	memcpy(buf, arg, n + 1);
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = '\0';
	if (!n)
		oci_fail(EXIT_SETUP, "--root: empty");
	return buf;
}

int oci_main(int argc, char **argv)
{
	static const struct option globals[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "log", required_argument, NULL, 'l' },
		{ "log-format", required_argument, NULL, 'f' },
		{ "systemd-cgroup", no_argument, NULL, 's' },
		{ "debug", no_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *verb;
	int c;

	while ((c = getopt_long(argc, argv, "+h", globals, NULL)) != -1) {
		switch (c) {
		case 'r':
			oci.root = strip_slashes(optarg);
			break;
		case 'l':
			oci.log = optarg;
			break;
		case 'f':
			if (!strcmp(optarg, "json"))
				oci.log_json = true;
			else if (strcmp(optarg, "text"))
				oci_fail(EXIT_SETUP, "--log-format: '%s' is neither text nor json", optarg);
			break;
		case 's':
			oci.systemd_cgroup = true;
			break;
		case 'D':
			oci.debug = true;
			break;
		case 'h':
			usage(stdout, 0);
			break;
		default:
			usage(stderr, EXIT_SETUP);
		}
	}
	if (optind >= argc)
		usage(stderr, EXIT_SETUP);
	verb = argv[optind];
	/* Each verb parses from its own name on. */
	argc -= optind;
	argv += optind;
	optind = 1;
	if (!strcmp(verb, "features"))
		return verb_features();
	if (!strcmp(verb, "spec"))
		return verb_spec(argc, argv);
	oci.root_missing = !oci_check_state_root();
	test_pause("rootchecked");	/* the fixture: 80-oci renames DIR here */
	if (!strcmp(verb, "state"))
		return verb_state(argc, argv);
	if (geteuid() != 0)
		oci_fail(EXIT_SETUP, "%s: must be run as root", verb);
	if (!strcmp(verb, "create"))
		return verb_create(argc, argv, false);
	if (!strcmp(verb, "run"))
		return verb_create(argc, argv, true);
	if (!strcmp(verb, "start"))
		return verb_start(argc, argv);
	if (!strcmp(verb, "kill"))
		return verb_kill(argc, argv);
	if (!strcmp(verb, "delete"))
		return verb_delete(argc, argv);
	if (!strcmp(verb, "exec"))
		return verb_exec(argc, argv);
	oci_fail(EXIT_SETUP, "%s: not supported by pspace-run", verb);
}
