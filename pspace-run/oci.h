/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pspace-run as an OCI runtime: the runc command line (create, start,
 * state, kill, delete, run, exec, features, spec), a bundle's config.json
 * read with json-c, and the container's pid namespace made a pspace.
 *
 * oci-main.c     the command line, the small verbs
 * oci-config.c   config.json into struct oci_spec, every field checked
 * oci-state.c    the state directory (--root): state.json, the exec fifo
 * oci-create.c   create, run and exec: the runtime's side
 * oci-setup.c    the container's side: mounts, console, user, exec
 * oci-cgroup.c   cgroupsPath and its resources (cgroup v2)
 */
#ifndef PSPACE_OCI_H
#define PSPACE_OCI_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#define OCI_VERSION "1.2.0"
#define OCI_DEFAULT_ROOT "/run/pspace-run"

struct json_object;

struct oci_mount {
	char *destination;	/* absolute, inside the container */
	char *type;		/* "bind" or a file system type */
	char *source;
	bool bind, recursive;
	uint64_t attr;		/* MOUNT_ATTR_* */
	unsigned int propagation;	/* MS_PRIVATE, MS_SLAVE, MS_SHARED, 0 */
	char *data;		/* the options that are the file system's own */
};

struct oci_rlimit {
	int resource;
	struct rlimit limit;
};

struct oci_hook {
	char *path;
	char **args;		/* may be NULL: then path alone */
	char **env;
	int timeout;		/* seconds, 0: none */
};

enum oci_hook_kind {
	HOOK_PRESTART, HOOK_CREATE_RUNTIME, HOOK_CREATE_CONTAINER, HOOK_START_CONTAINER,
	HOOK_POSTSTART, HOOK_POSTSTOP, HOOK_KINDS
};

struct oci_ns {
	int flag;		/* CLONE_NEW* */
	char *path;		/* join this one, or NULL: a new one */
};

struct oci_process {
	char **args;
	char **env;
	char *cwd;
	uid_t uid;
	gid_t gid;
	gid_t *groups;
	int ngroups;
	bool has_umask;
	mode_t umask;
	bool caps_given;	/* "capabilities" present: else none at all */
	uint64_t caps[5];	/* bounding, effective, inheritable, permitted, ambient */
	struct oci_rlimit *rlimits;
	int nrlimits;
	bool no_new_privileges;
	bool terminal;
	unsigned short rows, cols;	/* consoleSize */
	char *apparmor, *selinux;	/* refused when set: not enforced here */
	int oom_score_adj;
	bool has_oom_score_adj;
};

enum { CAPSET_BOUNDING, CAPSET_EFFECTIVE, CAPSET_INHERITABLE, CAPSET_PERMITTED, CAPSET_AMBIENT };

struct oci_spec {
	char *bundle;		/* absolute */
	char *root;		/* root.path, absolute and resolved */
	bool root_readonly;
	char *hostname;
	struct oci_process process;
	struct oci_mount *mounts;
	int nmounts;
	struct oci_ns ns[8];
	int nns;
	unsigned long clone_flags;	/* the new namespaces (no CLONE_NEWPID) */
	char **masked, **readonly;
	char **sysctl_keys, **sysctl_values;
	int nsysctl;
	char *cgroups_path;
	int64_t memory_limit, memory_swap, memory_reservation;	/* -1: unset */
	int64_t pids_limit;	/* -1: unset */
	uint64_t cpu_shares, cpu_period;
	int64_t cpu_quota;	/* -1: unset */
	char *cpuset_cpus, *cpuset_mems;
	char **unified_keys, **unified_values;
	int nunified;
	struct oci_hook *hooks[HOOK_KINDS];
	int nhooks[HOOK_KINDS];
	struct json_object *seccomp;	/* linux.seccomp, checked; NULL: none */
	struct json_object *json;	/* the whole document */
};

/* Global options. */
struct oci_global {
	const char *root;	/* --root */
	const char *log;	/* --log */
	bool log_json;		/* --log-format json */
	bool systemd_cgroup;
	bool debug;
	bool root_missing;	/* --root DIR did not exist when checked */
	int root_fd;		/* O_PATH of DIR once checked, else -1 */
	char root_pin[32];	/* "/proc/self/fd/N": DIR as checked, whatever its path does */
};
extern struct oci_global oci;

/* oci-main.c */
bool oci_is_command(int argc, char **argv);
int oci_main(int argc, char **argv);
void oci_fail(int status, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));
void oci_log(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool oci_check_state_root(void);
void oci_close_state_root(void);

/* oci-config.c */
struct oci_spec *oci_load_spec(const char *bundle);
/* @path's JSON object: a regular file of at most 64 MiB, or an error of the verb. */
struct json_object *oci_read_json_file(const char *path);
struct oci_spec *oci_load_spec_file(const char *path, const char *bundle);
/* The same from @text (@len bytes, NUL-terminated): the fuzz target's way in. */
struct oci_spec *oci_parse_spec(const char *text, size_t len, const char *bundle);
struct oci_spec *oci_load_saved_spec(const char *path, const char *bundle);
int oci_parse_process(struct json_object *o, struct oci_process *p, const char *where);
void *oci_seccomp_build(struct json_object *seccomp);	/* a scmp_filter_ctx */
struct json_object *oci_default_spec(void);
struct json_object *oci_features(void);

/* oci-state.c */
struct oci_state {
	char id[256];
	char dir[4096];		/* ROOT/ID */
	pid_t pid;		/* the leader's wid, 0 if none */
	unsigned long long start_time;	/* its start time, /proc/PID/stat field 22 */
	char bundle[4096];
	char rootfs[4096];
	char cgroup[4096];	/* absolute, under /sys/fs/cgroup; "" if none */
	char created[64];
	unsigned long ns_flags;	/* the namespaces to enter for exec */
	struct json_object *annotations;
};
void oci_check_id(const char *id);
void oci_state_dir(const char *id, char *out, size_t size);
int oci_state_load(const char *id, struct oci_state *st);	/* -1: no such container */
void oci_state_save(const struct oci_state *st);
const char *oci_status(const struct oci_state *st);
unsigned long long oci_start_time(pid_t pid);
int oci_pidfd(const struct oci_state *st);	/* -1 when stopped */
char *oci_state_json(const struct oci_state *st);
void oci_remove_dir(const char *path);
void oci_write_pid_file(const char *path, pid_t pid);

/* oci-create.c */
struct oci_create_opts {
	const char *id;
	const char *bundle;
	const char *console_socket;
	const char *pid_file;
	int preserve_fds;
	bool detach;		/* run --detach */
};
int oci_create(const struct oci_create_opts *o, bool run);
int oci_run_hooks(const struct oci_spec *spec, enum oci_hook_kind kind, const char *state_json,
		  bool fatal);
struct oci_exec_opts {
	const char *id;
	const char *process_file;
	const char *console_socket;
	const char *pid_file;
	const char *cwd;
	const char *user;
	char **env;
	int nenv;
	bool tty, detach, no_new_privs;
	int preserve_fds;
	char **argv;
};
int oci_exec(const struct oci_exec_opts *o);

/* oci-setup.c: in the container's leader (or an exec'd process) */
void oci_setup_root(const struct oci_spec *spec);
void oci_setup_done(void);
void oci_setup_console(int console_sock, const struct oci_process *p);
void oci_set_sysctl(const struct oci_spec *spec);
void oci_lock_down(const struct oci_process *p, void *seccomp_ctx);
void oci_set_oom_score_adj(int adj);
void oci_exec_process(const struct oci_process *p) __attribute__((noreturn));
void oci_load_seccomp(void *ctx);
char *oci_find_executable(const struct oci_process *p);
int oci_send_fd(int sock, int fd, const char *name);
int oci_connect_console(const char *path);

/* oci-cgroup.c */
int oci_cgroup_create(const struct oci_spec *spec, const char *id, char *path, size_t size);
void oci_cgroup_remove(const char *path);

#endif
