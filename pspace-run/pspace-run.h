/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pspace-run: start a command as pid 1 of a new pspace, chroot done right.
 *
 * One configuration struct is filled by option parsing (options.c) and read
 * everywhere else; each concern lives in its own file.
 */
#ifndef PSPACE_RUN_H
#define PSPACE_RUN_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

#ifndef CLONE_NPSPACE
#define CLONE_NPSPACE (1ULL << 56)	/* include/uapi/linux/sched.h, SPEC 1.1 */
#endif
#ifndef CLONE_AUTOREAP
#define CLONE_AUTOREAP (1ULL << 34)		/* Linux 7.1 */
#endif
#ifndef CLONE_PIDFD_AUTOKILL
#define CLONE_PIDFD_AUTOKILL (1ULL << 36)	/* Linux 7.1 */
#endif
#ifndef NS_PIDNS_IS_PSPACE
#define NS_PIDNS_IS_PSPACE _IO(0xb7, 0x40)	/* include/uapi/linux/nsfs.h, SPEC 2.9 */
#endif

/* Exit statuses of pspace-run itself, as chroot(1) and env(1). */
#define EXIT_SETUP	125	/* pspace-run failed */
#define EXIT_CANNOT_RUN	126	/* COMMAND found but not executable */
#define EXIT_NOT_FOUND	127	/* COMMAND not found */

#define MAX_SETENV	64
#define MAX_KEEP_FD	16
#define MAX_MOUNTS	64
#define MAX_GROUPS	64

/*
 * The test fixture (make fixture: pspace-run-fixture, never installed)
 * is built with PSPACE_TEST_FIXTURE and switches single protections off
 * as PSPACE_TEST_OFF=inroot,sysro,... asks, so that the attack suite can
 * show each attack succeeding without its protection.  In pspace-run
 * itself TEST_OFF() is constant 0 and the code it guards is dead.
 */
enum test_off {
	OFF_INROOT = 1 << 0,	/* mount targets resolved without RESOLVE_IN_ROOT */
	OFF_SYSRO = 1 << 1,	/* /sys with its submounts, read-only at the top only */
	OFF_PROCMASK = 1 << 2,	/* /proc not masked */
	OFF_FDS = 1 << 3,	/* caller's fds not closed */
	OFF_NS = 1 << 4,	/* no UTS/IPC namespace */
	OFF_CAPSETS = 1 << 5,	/* only the bounding set follows --cap-* */
	OFF_JOIN = 1 << 6,	/* --join takes the caller's privileges */
	OFF_INIT = 1 << 7,	/* the --as-pid2 init as in 0.1: privileged, one pgrp */
	OFF_DEVICES = 1 << 8,	/* no device policy on the cgroup */
	OFF_MOVEROOT = 1 << 9,	/* initramfs fallback as runc --no-pivot: nothing closed */
	OFF_DEVNODES = 1 << 10,	/* the host's device nodes bound in, read-write */
	OFF_EXE = 1 << 11,	/* no sealed copy to run from, dumpable (selfexe.c) */
	OFF_PURO = 1 << 12,	/* --private-users: --read-only and --bind made inside, unlocked */
	OFF_APIFD = 1 << 13,	/* OCI: API mounts found by path, masked by path */
	OFF_SUID = 1 << 14,	/* setuid and file-capability files made as in 0.1 */
	OFF_AUTOKILL = 1 << 15,	/* no CLONE_PIDFD_AUTOKILL: the PDEATHSIG fallback alone */
	OFF_NPSPACE = 1 << 16,	/* a kernel whose bit makes a plain pid namespace (SPEC 1.10) */
	OFF_PIDNS = 1 << 17,	/* a kernel whose bit makes no pid namespace at all */
};
#ifdef PSPACE_TEST_FIXTURE
#define TEST_OFF(cfg, bit) ((cfg)->test_off & (bit))
#else
#define TEST_OFF(cfg, bit) 0
#endif

enum console_mode { CONSOLE_AUTO, CONSOLE_INTERACTIVE, CONSOLE_PIPE };
struct sock_fprog;

struct config {
	const char *root;	/* ROOT, resolved (realpath) once checked */
	char **argv;		/* COMMAND and its arguments */
	bool quiet;
	int verbose;
	const char *hostname;	/* --hostname, ROOT's /etc/hostname or basename */
	const char *setenv[MAX_SETENV];	/* -E NAME=VALUE, in order */
	int nsetenv;
	long pid_max;		/* --pid-max, 0: the kernel's default */
	int kill_signal;	/* --kill-signal, 0: by COMMAND (see stop_signal) */
	int stop_timeout;	/* --stop-timeout seconds before SIGKILL */
	bool no_new_privs;	/* --no-new-privs */
	uint64_t cap_drop;	/* capabilities dropped from the bounding set */
	bool boots_init;	/* COMMAND looks like an init system */
	bool as_pid2;		/* --as-pid2: a minimal init runs COMMAND */
	enum console_mode console;	/* --console */
	pid_t join;		/* --join WID */
	bool list;		/* --list */
	bool seccomp;		/* the default seccomp filter (--seccomp=off) */
	const struct sock_fprog *seccomp_prog;	/* --join: the container's, recorded */
	enum { SUID_AUTO, SUID_DENY, SUID_ALLOW } suid;	/* --suid */
	bool no_suid;		/* no setuid/setgid/fcaps files: caps.c suid_policy() */
	int keep_fd[MAX_KEEP_FD];	/* --keep-fd N, passed to COMMAND */
	int nkeep_fd;
	unsigned int test_off;	/* fixture only: enum test_off */

	/* The options users reach for (issue 12). */
	const char *machine;	/* -M/--machine, else ROOT's basename (made unique) */
	bool machine_given;	/* -M was given: a name in use is an error */
	const char *join_name;	/* --join NAME */
	bool boot;		/* -b/--boot, or no COMMAND: run ROOT's init */
	struct mount_opt {
		enum { MNT_BIND, MNT_TMPFS } type;
		const char *src;	/* --bind: on the host, absolute */
		const char *dst;	/* inside ROOT, absolute, no ".." */
		const char *fs_opts;	/* --tmpfs: what goes to fsconfig */
		uint64_t attr;		/* MOUNT_ATTR_* */
		bool recursive;		/* --bind: rbind (the default) */
		bool src_dir;		/* --bind: SRC is a directory */
		bool host_side;		/* --bind: made by pspace-run (host_binds) */
		const char *arg;	/* the option as given, for messages */
	} mounts[MAX_MOUNTS];
	int nmounts;
	bool read_only;		/* --read-only */
	bool ephemeral;		/* --ephemeral */
	bool private_network;	/* --private-network */
	const char *chdir;	/* --chdir */
	const char *user;	/* -u/--user as given */
	uid_t uid;
	gid_t gid;
	gid_t groups[MAX_GROUPS];	/* supplementary, from ROOT's /etc/group */
	int ngroups;
	char *user_name;	/* USER/LOGNAME, NULL for a uid ROOT does not know */
	char *user_home;	/* HOME */
	const char *env_file;	/* --env-file */
	char **file_env;	/* its NAME=VALUE lines, in order */
	int nfile_env;

	/* A user namespace (userns.c): run unprivileged, or --private-users. */
	bool userns;		/* CLONE_NEWUSER */
	bool unprivileged;	/* run by a user without privilege */
	bool private_users;	/* --private-users */
	bool pu_given;		/* --private-users=UID[:COUNT] */
	uid_t pu_base;		/* the container's 0 outside */
	unsigned long pu_count;
	uid_t caller_uid;	/* unprivileged: root inside */
	gid_t caller_gid;
	unsigned long subuid, sub_count;	/* /etc/subuid: 1..COUNT inside */
	unsigned long subgid, subgid_count;
};

/* options.c */
void parse_options(struct config *cfg, int argc, char **argv);
unsigned int test_off_env(void);
void test_pause(const char *stage);
int stop_signal(const struct config *cfg);
int signal_by_name(const char *arg);
#define SIGNAL_RTMIN 34	/* glibc's SIGRTMIN, as runc and kill(1) count (signals.c) */
#define SIGNAL_RTMAX 64

/* caps.c */
uint64_t default_cap_drop(void);
int parse_cap_list(const char *list, uint64_t *mask);
void lock_down(const struct config *cfg, bool keep_no_caps);
void suid_policy(struct config *cfg);

/* seccomp.c */
void install_seccomp(const struct config *cfg);
void record_filter(void *ctx, pid_t wid);
void record_default_filter(const struct config *cfg, pid_t wid);
struct sock_fprog *recorded_filter(pid_t wid);

/* devices.c */
void restrict_devices(const struct config *cfg);
int device_policy_attach(int cgroup);

/* util.c */
extern const char *progname;
void die(int status, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));
void die_errno(int status, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void put_escaped(FILE *f, const char *s);	/* control characters as \xNN */
/* What die() (and the OCI runtime's oci_fail()) undoes first, newest first. */
void on_failure(void (*fn)(void), bool this_process_only);
void on_failure_cancel(void (*fn)(void));
void undo_on_failure(void);
void warn_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void verbose(const struct config *cfg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void notice(const struct config *cfg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int send_fd(int sock, int fd);
int receive_fd(int sock);

/* pspace.c */
void pick_hostname(struct config *cfg);
pid_t spawn_pspace(const struct config *cfg, int *pidfd, int *console, bool *autoreap);
void verify_pspace_leader(void);
const char *kernel_release(void);

/* mounts.c */
void setup_root(const struct config *cfg, int console_sock);
/* The leader's root was moved over an initramfs, not pivoted (mounts.c). */
extern bool root_moved;

/* cgroup.c */
int cgroup_create(const struct config *cfg, const int alive[2]);
bool cgroup_is_delegated(void);
void cgroup_remove(void);

/* console.c */
struct pollfd;
void console_prepare(const struct config *cfg);
void console_setup_child(const struct config *cfg, int sock);
int console_setup_parent(const struct config *cfg, int sock);
void console_resize(void);
void console_foreground(void);
int console_poll_timeout(void);
int console_poll_fds(struct pollfd *p, bool draining);
void console_poll_done(const struct pollfd *p);
void console_finish(void);
void console_done(void);

/* exec.c */
void set_environment(const struct config *cfg);
void close_caller_fds(const struct config *cfg);
void exec_command(const struct config *cfg) __attribute__((noreturn));
void exec_locked(const struct config *cfg) __attribute__((noreturn));

/* verbs.c */
int join_container(const struct config *cfg);
int list_pspaces(const struct config *cfg);

/* machine.c: the names of running containers, in the runtime directory */
/* /proc/PID/status (proc.c) */
struct proc_info {
	pid_t pid;
	pid_t ppid;		/* PPid, -1 if not read */
	int levels;		/* entries on the NSpid line */
	pid_t innermost;	/* the last of them: the pid in its own pspace */
	pid_t outer;		/* the one before (0 if none): in the parent's */
	char path[256];		/* the PSpace: line */
};
bool read_proc_info(pid_t pid, struct proc_info *pi);

void machine_claim(struct config *cfg);
void machine_set_wid(pid_t wid);
void machine_release(void);
void machine_forget(void);
void machine_janitor_release(void);
pid_t machine_lookup(const char *name);
const char *machine_of(pid_t leader, pid_t parent, char *buf, size_t size);
int open_run_dir(const char *name, bool create);

/* user.c: --user, --env-file, --boot, from files read inside ROOT */
void resolve_user(struct config *cfg);
void read_env_file(struct config *cfg);
void find_init(struct config *cfg);
void become_user(const struct config *cfg);
void check_mount_sources(struct config *cfg);
int parse_mount_opt(struct config *cfg, int type, const char *arg);

/* binds.c: --bind, --bind-ro, --tmpfs, --read-only, --ephemeral, --private-network */
void bring_lo_up(void);
int ephemeral_root(const struct config *cfg);
void prepare_user_mounts(const struct config *cfg, int root);
void make_mount_points(const struct config *cfg, int root);
void host_bind_sources(const struct config *cfg);
void host_binds(struct config *cfg, int root);

/*
 * ROOT as the leader names it: with --private-users its working directory
 * (pspace.c: the leader, root of its user namespace only, may not be able
 * to walk ROOT's path), else the path.  A mount onto "." goes on top of
 * whatever is mounted there already, as one onto the path does.
 */
static inline const char *root_path(const struct config *cfg)
{
	return cfg->private_users ? "." : cfg->root;
}
void user_mounts(const struct config *cfg, int root);

/* userns.c: unprivileged runs and --private-users */
void userns_prepare(struct config *cfg);
void userns_read_only(struct config *cfg);
bool root_reachable(const char *root);
int userns_root_fd(void);
void userns_root_close(void);
void userns_write_maps(const struct config *cfg, pid_t pid);
void userns_enter(const struct config *cfg, int sync_fd);
bool userns_maps_gid(unsigned long gid);

/* mini-init.c */
void run_as_pid2(const struct config *cfg) __attribute__((noreturn));

/* supervise.c */
int supervise(const struct config *cfg, pid_t leader, int pidfd, int console, bool autoreap);
void kill_pspace(const struct config *cfg, pid_t leader, int pidfd);
void reset_signals(void);

/* selfexe.c */
void reexec_sealed(char **argv);
void make_undumpable(void);

#endif
