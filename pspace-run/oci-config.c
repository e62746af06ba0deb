// SPDX-License-Identifier: GPL-2.0
/*
 * A bundle's config.json, read with json-c into struct oci_spec.  Nothing
 * here has a side effect: every field is checked before the runtime
 * makes anything (state directory, cgroup, process), so a bad bundle
 * leaves nothing behind.  An error names the field, as
 * "config.json: process.user.uid: expected an integer".
 *
 * A field that pspace-run cannot honour and that matters for safety (a
 * user namespace, an AppArmor profile, extra devices, a seccomp
 * listener) fails create; one that does not (blockIO, hugepage limits)
 * is left out, and listed in "features".
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <linux/mount.h>
#include <sched.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/capability.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pspace-run.h"
#include "oci.h"

#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#define MS_PRIVATE_ (1 << 18)
#define MS_SLAVE_ (1 << 19)
#define MS_SHARED_ (1 << 17)

static const char *source = "config.json";

static void bad(const char *field, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
static void bad(const char *field, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	oci_fail(EXIT_SETUP, "%s: %s: %s", source, field, msg);
}

static const char *type_name(json_type t)
{
	switch (t) {
	case json_type_object: return "an object";
	case json_type_array: return "an array";
	case json_type_string: return "a string";
	case json_type_int: return "an integer";
	case json_type_boolean: return "a boolean";
	case json_type_double: return "a number";
	default: return "null";
	}
}

/* @parent.@key of type @t; NULL when absent or null and not @required. */
static json_object *get(json_object *o, const char *where, const char *key, json_type t,
			bool required)
{
	char field[256];
	json_object *v = NULL;

	snprintf(field, sizeof(field), "%s%s%s", where, *where ? "." : "", key);
	if (!o || !json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null)) {
		if (required)
			bad(field, "missing");
		return NULL;
	}
	if (!json_object_is_type(v, t))
		bad(field, "expected %s, not %s", type_name(t), type_name(json_object_get_type(v)));
	return v;
}

static char *get_string(json_object *o, const char *where, const char *key, bool required)
{
	json_object *v = get(o, where, key, json_type_string, required);

	return v ? strdup(json_object_get_string(v)) : NULL;
}

static bool get_bool(json_object *o, const char *where, const char *key)
{
	json_object *v = get(o, where, key, json_type_boolean, false);

	return v && json_object_get_boolean(v);
}

static int64_t get_int(json_object *o, const char *where, const char *key, int64_t min,
		       int64_t max, int64_t dflt)
{
	json_object *v = get(o, where, key, json_type_int, false);
	int64_t n;

	if (!v)
		return dflt;
	n = json_object_get_int64(v);
	if (n < min || n > max || (errno == ERANGE && n == INT64_MAX)) {
		char field[256];

		snprintf(field, sizeof(field), "%s.%s", where, key);
		bad(field, "%lld is out of range (%lld to %lld)", (long long)n, (long long)min,
		    (long long)max);
	}
	return n;
}

/* An array of strings into a NULL-terminated vector (NULL if absent). */
static char **get_strings(json_object *o, const char *where, const char *key, bool required)
{
	json_object *a = get(o, where, key, json_type_array, required);
	size_t i, n;
	char **v;

	if (!a)
		return NULL;
	n = json_object_array_length(a);
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		oci_fail(EXIT_SETUP, "out of memory");
	for (i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(a, i);

		if (!json_object_is_type(s, json_type_string)) {
			char field[256];

			snprintf(field, sizeof(field), "%s.%s[%zu]", where, key, i);
			bad(field, "expected a string, not %s", type_name(json_object_get_type(s)));
		}
		v[i] = strdup(json_object_get_string(s));
	}
	return v;
}

static void refuse_if_set(json_object *o, const char *where, const char *key, const char *why)
{
	json_object *v;
	char field[256];

	if (!o || !json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null))
		return;
	if (json_object_is_type(v, json_type_string) && !*json_object_get_string(v))
		return;
	if (json_object_is_type(v, json_type_array) && !json_object_array_length(v))
		return;
	if (json_object_is_type(v, json_type_object) && !json_object_object_length(v))
		return;
	snprintf(field, sizeof(field), "%s.%s", where, key);
	bad(field, "not supported by pspace-run (%s)", why);
}

/* "CAP_SYS_ADMIN" names; an unknown one is left out, as runc does. */
static uint64_t get_caps(json_object *o, const char *where, const char *key)
{
	char **names = get_strings(o, where, key, false);
	uint64_t mask = 0;
	int i;

	for (i = 0; names && names[i]; i++) {
		char lower[64];
		cap_value_t cap;
		size_t j;

		snprintf(lower, sizeof(lower), "%s", names[i]);
		for (j = 0; lower[j]; j++)
			lower[j] = (char)tolower((unsigned char)lower[j]);
		if (cap_from_name(lower, &cap) || cap < 0 || cap > 63) {
			oci_log("warning", "%s: %s.%s: unknown capability %s: left out", source, where,
				key, names[i]);
			continue;
		}
		mask |= 1ULL << cap;
	}
	return mask;
}

static const struct { const char *name; int resource; } rlimit_names[] = {
	{ "RLIMIT_AS", RLIMIT_AS }, { "RLIMIT_CORE", RLIMIT_CORE }, { "RLIMIT_CPU", RLIMIT_CPU },
	{ "RLIMIT_DATA", RLIMIT_DATA }, { "RLIMIT_FSIZE", RLIMIT_FSIZE },
	{ "RLIMIT_LOCKS", RLIMIT_LOCKS }, { "RLIMIT_MEMLOCK", RLIMIT_MEMLOCK },
	{ "RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE }, { "RLIMIT_NICE", RLIMIT_NICE },
	{ "RLIMIT_NOFILE", RLIMIT_NOFILE }, { "RLIMIT_NPROC", RLIMIT_NPROC },
	{ "RLIMIT_RSS", RLIMIT_RSS }, { "RLIMIT_RTPRIO", RLIMIT_RTPRIO },
	{ "RLIMIT_RTTIME", RLIMIT_RTTIME }, { "RLIMIT_SIGPENDING", RLIMIT_SIGPENDING },
	{ "RLIMIT_STACK", RLIMIT_STACK },
};

static uint64_t get_u64(json_object *o, const char *where, const char *key)
{
	json_object *v = get(o, where, key, json_type_int, true);

	if (json_object_get_int64(v) < 0 && !json_object_is_type(v, json_type_int))
		bad(where, "%s: negative", key);
	return json_object_get_uint64(v);
}

static void parse_rlimits(json_object *proc, struct oci_process *p, const char *where)
{
	json_object *a = get(proc, where, "rlimits", json_type_array, false);
	size_t i, n, j;

	if (!a)
		return;
	n = json_object_array_length(a);
	p->rlimits = calloc(n + 1, sizeof(*p->rlimits));
	for (i = 0; i < n; i++) {
		json_object *r = json_object_array_get_idx(a, i);
		char field[128], *type;

		snprintf(field, sizeof(field), "%s.rlimits[%zu]", where, i);
		if (!json_object_is_type(r, json_type_object))
			bad(field, "expected an object");
		type = get_string(r, field, "type", true);
		for (j = 0; j < sizeof(rlimit_names) / sizeof(rlimit_names[0]); j++)
			if (!strcmp(type, rlimit_names[j].name))
				break;
		if (j == sizeof(rlimit_names) / sizeof(rlimit_names[0]))
			bad(field, "unknown type %s", type);
		p->rlimits[p->nrlimits].resource = rlimit_names[j].resource;
		p->rlimits[p->nrlimits].limit.rlim_cur = get_u64(r, field, "soft");
		p->rlimits[p->nrlimits].limit.rlim_max = get_u64(r, field, "hard");
		if (p->rlimits[p->nrlimits].limit.rlim_cur > p->rlimits[p->nrlimits].limit.rlim_max)
			bad(field, "soft is above hard");
		p->nrlimits++;
		free(type);
	}
}

/* process, or an exec --process FILE: into @p. */
/* process.user: uid, gid, umask, additionalGids; no user name. */
static void parse_user(json_object *proc, struct oci_process *p, const char *where)
{
	json_object *user, *groups;
	char field[128];

	snprintf(field, sizeof(field), "%s.user", where);
	user = get(proc, where, "user", json_type_object, false);
	if (!user)
		return;
	groups = get(user, field, "additionalGids", json_type_array, false);
	p->uid = get_int(user, field, "uid", 0, UINT32_MAX - 1, 0);
	p->gid = get_int(user, field, "gid", 0, UINT32_MAX - 1, 0);
	if (json_object_object_get_ex(user, "umask", NULL) &&
	    get(user, field, "umask", json_type_int, false)) {
		p->has_umask = true;
		p->umask = get_int(user, field, "umask", 0, 0777, 022);
	}
	refuse_if_set(user, field, "username", "a user name needs the container's "
		      "passwd; give uid and gid");
	if (groups) {
		size_t n = json_object_array_length(groups), k;

		p->groups = calloc(n + 1, sizeof(gid_t));
		for (k = 0; k < n; k++) {
			json_object *g = json_object_array_get_idx(groups, k);

			if (!json_object_is_type(g, json_type_int) ||
			    json_object_get_int64(g) < 0 ||
			    json_object_get_int64(g) >= UINT32_MAX) {
				snprintf(field, sizeof(field), "%s.user.additionalGids[%zu]",
					 where, k);
				bad(field, "expected a group id");
			}
			p->groups[p->ngroups++] = json_object_get_int64(g);
		}
	}
}

int oci_parse_process(json_object *proc, struct oci_process *p, const char *where)
{
	json_object *caps, *size;
	char field[128];
	int i;

	memset(p, 0, sizeof(*p));
	p->args = get_strings(proc, where, "args", true);
	if (!p->args[0])
		bad("process.args", "empty: no command to run");
	if (!p->args[0][0])
		bad("process.args[0]", "empty");
	p->env = get_strings(proc, where, "env", false);
	for (i = 0; p->env && p->env[i]; i++)
		if (!strchr(p->env[i], '=') || p->env[i][0] == '=') {
			snprintf(field, sizeof(field), "%s.env[%d]", where, i);
			bad(field, "'%s' is not NAME=VALUE", p->env[i]);
		}
	p->cwd = get_string(proc, where, "cwd", false);
	if (!p->cwd)
		p->cwd = strdup("/");
	if (p->cwd[0] != '/') {
		snprintf(field, sizeof(field), "%s.cwd", where);
		bad(field, "'%s' is not an absolute path", p->cwd);
	}
	parse_user(proc, p, where);
	snprintf(field, sizeof(field), "%s.capabilities", where);
	caps = get(proc, where, "capabilities", json_type_object, false);
	if (caps) {
		p->caps_given = true;
		p->caps[CAPSET_BOUNDING] = get_caps(caps, field, "bounding");
		p->caps[CAPSET_EFFECTIVE] = get_caps(caps, field, "effective");
		p->caps[CAPSET_INHERITABLE] = get_caps(caps, field, "inheritable");
		p->caps[CAPSET_PERMITTED] = get_caps(caps, field, "permitted");
		p->caps[CAPSET_AMBIENT] = get_caps(caps, field, "ambient");
	}
	parse_rlimits(proc, p, where);
	p->no_new_privileges = get_bool(proc, where, "noNewPrivileges");
	p->terminal = get_bool(proc, where, "terminal");
	snprintf(field, sizeof(field), "%s.consoleSize", where);
	size = get(proc, where, "consoleSize", json_type_object, false);
	if (size) {
		p->rows = get_int(size, field, "height", 0, 65535, 0);
		p->cols = get_int(size, field, "width", 0, 65535, 0);
	}
	if (get(proc, where, "oomScoreAdj", json_type_int, false)) {
		p->has_oom_score_adj = true;
		p->oom_score_adj = get_int(proc, where, "oomScoreAdj", -1000, 1000, 0);
	}
	refuse_if_set(proc, where, "apparmorProfile", "no AppArmor profile is applied; "
		      "run with the profile unconfined");
	refuse_if_set(proc, where, "selinuxLabel", "no SELinux label is applied");
	return 0;
}

/* Mount options: those that are mount flags, the rest is the fs's data. */
static const struct {
	const char *name;
	uint64_t set, clear;
} mount_flags[] = {
	{ "ro", MOUNT_ATTR_RDONLY, 0 }, { "rw", 0, MOUNT_ATTR_RDONLY },
	{ "nosuid", MOUNT_ATTR_NOSUID, 0 }, { "suid", 0, MOUNT_ATTR_NOSUID },
	{ "nodev", MOUNT_ATTR_NODEV, 0 }, { "dev", 0, MOUNT_ATTR_NODEV },
	{ "noexec", MOUNT_ATTR_NOEXEC, 0 }, { "exec", 0, MOUNT_ATTR_NOEXEC },
	{ "noatime", MOUNT_ATTR_NOATIME, 0 }, { "strictatime", MOUNT_ATTR_STRICTATIME, 0 },
	{ "relatime", 0, 0 }, { "norelatime", 0, 0 }, { "atime", 0, 0 },
	{ "nodiratime", MOUNT_ATTR_NODIRATIME, 0 }, { "diratime", 0, 0 },
	{ "async", 0, 0 }, { "nomand", 0, 0 }, { "defaults", 0, 0 },
};

static void parse_mount(json_object *m, struct oci_mount *mnt, const char *where)
{
	char **options = get_strings(m, where, "options", false);
	char data[1024] = "";
	int i;

	memset(mnt, 0, sizeof(*mnt));
	mnt->destination = get_string(m, where, "destination", true);
	if (mnt->destination[0] != '/') {
		char field[160];

		snprintf(field, sizeof(field), "%s.destination", where);
		bad(field, "'%s' is not an absolute path", mnt->destination);
	}
	mnt->type = get_string(m, where, "type", false);
	mnt->source = get_string(m, where, "source", false);
	refuse_if_set(m, where, "uidMappings", "no id-mapped mounts");
	refuse_if_set(m, where, "gidMappings", "no id-mapped mounts");
	for (i = 0; options && options[i]; i++) {
		const char *o = options[i];
		size_t k;

		for (k = 0; k < sizeof(mount_flags) / sizeof(mount_flags[0]); k++)
			if (!strcmp(o, mount_flags[k].name))
				break;
		if (k < sizeof(mount_flags) / sizeof(mount_flags[0])) {
			mnt->attr = (mnt->attr & ~mount_flags[k].clear) | mount_flags[k].set;
		} else if (!strcmp(o, "bind")) {
			mnt->bind = true;
		} else if (!strcmp(o, "rbind")) {
			mnt->bind = mnt->recursive = true;
		} else if (!strcmp(o, "private") || !strcmp(o, "rprivate")) {
			mnt->propagation = MS_PRIVATE_;
		} else if (!strcmp(o, "slave") || !strcmp(o, "rslave")) {
			mnt->propagation = MS_SLAVE_;
		} else if (!strcmp(o, "shared") || !strcmp(o, "rshared")) {
			mnt->propagation = MS_SHARED_;
		} else if (!strcmp(o, "unbindable") || !strcmp(o, "runbindable") ||
			   !strcmp(o, "tmpcopyup") || !strcmp(o, "copy-symlink") ||
			   !strcmp(o, "z") || !strcmp(o, "Z") || !strcmp(o, "U")) {
			/* not done: harmless to leave out */
		} else if (!strcmp(o, "idmap") || !strcmp(o, "ridmap") || !strcmp(o, "remount") ||
			   !strcmp(o, "mand") || !strcmp(o, "sync") || !strcmp(o, "dirsync")) {
			char field[160];

			snprintf(field, sizeof(field), "%s.options", where);
			bad(field, "option '%s' is not supported by pspace-run", o);
		} else {
			if (strlen(data) + strlen(o) + 2 > sizeof(data))
				bad(where, "options too long");
			if (*data)
				strcat(data, ",");
			strcat(data, o);
		}
	}
	if (mnt->type && !strcmp(mnt->type, "bind"))
		mnt->bind = true;
	if (!mnt->bind && !mnt->type)
		bad(where, "neither a type nor a bind option");
	if (mnt->bind && !mnt->source)
		bad(where, "a bind mount without a source");
	if (mnt->bind && mnt->source[0] != '/')
		bad(where, "bind source '%s' is not an absolute path", mnt->source);
	mnt->data = *data ? strdup(data) : NULL;
}

static const struct { const char *name; int flag; } ns_types[] = {
	{ "mount", CLONE_NEWNS }, { "uts", CLONE_NEWUTS }, { "ipc", CLONE_NEWIPC },
	{ "network", CLONE_NEWNET }, { "cgroup", CLONE_NEWCGROUP }, { "pid", CLONE_NEWPID },
	{ "user", CLONE_NEWUSER }, { "time", CLONE_NEWTIME },
};

/* IPC and mqueue keys in an IPC namespace the container makes, net.* in
 * a network namespace it makes: nothing that reaches the host. */
static bool sysctl_is_namespaced(const char *key, const struct oci_spec *s)
{
	if (!strncmp(key, "kernel.msg", 10) || !strcmp(key, "kernel.sem") ||
	    !strncmp(key, "kernel.shm", 10) || !strncmp(key, "fs.mqueue.", 10))
		return s->clone_flags & CLONE_NEWIPC;
	return !strncmp(key, "net.", 4) && (s->clone_flags & CLONE_NEWNET);
}

static void parse_namespaces(json_object *linux_, struct oci_spec *s)
{
	json_object *a = get(linux_, "linux", "namespaces", json_type_array, false);
	size_t i, n = a ? json_object_array_length(a) : 0, k;
	bool pid = false;

	for (i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(a, i);
		char field[64], *type, *path;

		snprintf(field, sizeof(field), "linux.namespaces[%zu]", i);
		if (!json_object_is_type(o, json_type_object))
			bad(field, "expected an object");
		type = get_string(o, field, "type", true);
		path = get_string(o, field, "path", false);
		if (path && !*path)
			path = NULL;
		for (k = 0; k < sizeof(ns_types) / sizeof(ns_types[0]); k++)
			if (!strcmp(type, ns_types[k].name))
				break;
		if (k == sizeof(ns_types) / sizeof(ns_types[0]))
			bad(field, "unknown namespace type '%s'", type);
		if (ns_types[k].flag == CLONE_NEWUSER)
			bad(field, "user: not supported by pspace-run (no uid/gid mapping); "
			    "run the container without a user namespace");
		if (ns_types[k].flag == CLONE_NEWTIME)
			bad(field, "time: not supported by pspace-run");
		if (ns_types[k].flag == CLONE_NEWPID) {
			if (path)
				bad(field, "pid with a path: joining another container's pid "
				    "namespace is not supported (each container is a pspace)");
			pid = true;
			continue;
		}
		if (ns_types[k].flag == CLONE_NEWNS && path)
			bad(field, "mount with a path: not supported by pspace-run");
		if (path) {
			if (path[0] != '/')
				bad(field, "path '%s' is not absolute", path);
			if (s->nns == (int)(sizeof(s->ns) / sizeof(s->ns[0])))
				bad(field, "too many");
			s->ns[s->nns].flag = ns_types[k].flag;
			s->ns[s->nns++].path = path;
		} else {
			s->clone_flags |= ns_types[k].flag;
		}
	}
	/* Always a mount namespace of its own; the pid namespace is the pspace. */
	s->clone_flags |= CLONE_NEWNS;
	if (!pid)
		oci_log("warning", "%s: linux.namespaces: no pid namespace: the container is "
			"made a pspace anyway", source);
}

static void parse_resources(json_object *linux_, struct oci_spec *s)
{
	json_object *r = get(linux_, "linux", "resources", json_type_object, false);
	json_object *mem, *pids, *cpu, *unified;

	s->memory_limit = s->memory_swap = s->memory_reservation = -1;
	s->pids_limit = -1;
	s->cpu_quota = -1;
	if (!r)
		return;
	mem = get(r, "linux.resources", "memory", json_type_object, false);
	if (mem) {
		s->memory_limit = get_int(mem, "linux.resources.memory", "limit", -1, INT64_MAX, -1);
		s->memory_swap = get_int(mem, "linux.resources.memory", "swap", -1, INT64_MAX, -1);
		s->memory_reservation = get_int(mem, "linux.resources.memory", "reservation", -1,
						INT64_MAX, -1);
	}
	pids = get(r, "linux.resources", "pids", json_type_object, false);
	if (pids)
		s->pids_limit = get_int(pids, "linux.resources.pids", "limit", -1, INT64_MAX, -1);
	cpu = get(r, "linux.resources", "cpu", json_type_object, false);
	if (cpu) {
		s->cpu_shares = get_int(cpu, "linux.resources.cpu", "shares", 0, 262144, 0);
		s->cpu_quota = get_int(cpu, "linux.resources.cpu", "quota", -1, INT64_MAX, -1);
		s->cpu_period = get_int(cpu, "linux.resources.cpu", "period", 0, 1000000, 0);
		s->cpuset_cpus = get_string(cpu, "linux.resources.cpu", "cpus", false);
		s->cpuset_mems = get_string(cpu, "linux.resources.cpu", "mems", false);
		refuse_if_set(cpu, "linux.resources.cpu", "realtimeRuntime", "no RT scheduling");
	}
	unified = get(r, "linux.resources", "unified", json_type_object, false);
	if (unified) {
		int n = json_object_object_length(unified), i = 0;

		s->unified_keys = calloc(n + 1, sizeof(char *));
		s->unified_values = calloc(n + 1, sizeof(char *));
		json_object_object_foreach(unified, key, val) {
			if (!json_object_is_type(val, json_type_string) || strchr(key, '/') ||
			    key[0] == '.' || !strchr(key, '.'))
				bad("linux.resources.unified", "'%s' is not a cgroup file with a "
				    "string value", key);
			s->unified_keys[i] = strdup(key);
			s->unified_values[i++] = strdup(json_object_get_string(val));
		}
		s->nunified = i;
	}
	/* devices: the pspace-run device policy is applied, whatever the list. */
	get(r, "linux.resources", "devices", json_type_array, false);
}

static const char *const hook_names[HOOK_KINDS] = {
	"prestart", "createRuntime", "createContainer", "startContainer", "poststart",
	"poststop",
};

static void parse_hooks(json_object *root, struct oci_spec *s)
{
	json_object *h = get(root, "", "hooks", json_type_object, false);
	int k;

	if (!h)
		return;
	for (k = 0; k < HOOK_KINDS; k++) {
		char field[64];
		json_object *a;
		size_t i, n;

		snprintf(field, sizeof(field), "hooks");
		a = get(h, field, hook_names[k], json_type_array, false);
		if (!a)
			continue;
		n = json_object_array_length(a);
		if (n && (k == HOOK_CREATE_CONTAINER || k == HOOK_START_CONTAINER))
			bad("hooks", "%s: not supported by pspace-run (hooks in the container's "
			    "namespaces)", hook_names[k]);
		s->hooks[k] = calloc(n + 1, sizeof(struct oci_hook));
		for (i = 0; i < n; i++) {
			json_object *o = json_object_array_get_idx(a, i);
			struct oci_hook *hk = &s->hooks[k][i];

			snprintf(field, sizeof(field), "hooks.%s[%zu]", hook_names[k], i);
			if (!json_object_is_type(o, json_type_object))
				bad(field, "expected an object");
			hk->path = get_string(o, field, "path", true);
			if (hk->path[0] != '/')
				bad(field, "path '%s' is not absolute", hk->path);
			hk->args = get_strings(o, field, "args", false);
			hk->env = get_strings(o, field, "env", false);
			hk->timeout = get_int(o, field, "timeout", 1, INT_MAX, 0);
		}
		s->nhooks[k] = n;
	}
}

static const char *const seccomp_actions[] = {
	"SCMP_ACT_KILL", "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD", "SCMP_ACT_TRAP",
	"SCMP_ACT_ERRNO", "SCMP_ACT_TRACE", "SCMP_ACT_ALLOW", "SCMP_ACT_LOG",
};

static uint32_t seccomp_action(const char *name, int errno_ret, const char *field)
{
	if (!strcmp(name, "SCMP_ACT_KILL") || !strcmp(name, "SCMP_ACT_KILL_THREAD"))
		return SCMP_ACT_KILL_THREAD;
	if (!strcmp(name, "SCMP_ACT_KILL_PROCESS"))
		return SCMP_ACT_KILL_PROCESS;
	if (!strcmp(name, "SCMP_ACT_TRAP"))
		return SCMP_ACT_TRAP;
	if (!strcmp(name, "SCMP_ACT_ERRNO"))
		return SCMP_ACT_ERRNO(errno_ret);
	if (!strcmp(name, "SCMP_ACT_TRACE"))
		return SCMP_ACT_TRACE(errno_ret);
	if (!strcmp(name, "SCMP_ACT_ALLOW"))
		return SCMP_ACT_ALLOW;
	if (!strcmp(name, "SCMP_ACT_LOG"))
		return SCMP_ACT_LOG;
	bad(field, "action %s is not supported by pspace-run", name);
}

static const struct { const char *name; enum scmp_compare op; } seccomp_ops[] = {
	{ "SCMP_CMP_NE", SCMP_CMP_NE }, { "SCMP_CMP_LT", SCMP_CMP_LT },
	{ "SCMP_CMP_LE", SCMP_CMP_LE }, { "SCMP_CMP_EQ", SCMP_CMP_EQ },
	{ "SCMP_CMP_GE", SCMP_CMP_GE }, { "SCMP_CMP_GT", SCMP_CMP_GT },
	{ "SCMP_CMP_MASKED_EQ", SCMP_CMP_MASKED_EQ },
};

static void scmp_check(int r, const char *field)
{
	if (r < 0)
		bad(field, "libseccomp: %s", strerror(-r));
}

/*
 * linux.seccomp into a libseccomp filter, not loaded: create checks the
 * whole profile this way before anything is made, and the leader loads
 * the same filter last.  A syscall name libseccomp does not know is left
 * out (a profile lists calls of every kernel), as runc and crun do.
 */
/* linux.seccomp's flags and architectures onto @ctx. */
static void seccomp_flags_archs(scmp_filter_ctx ctx, const char *w, char **flags, char **archs)
{
	int k;

	for (k = 0; flags && flags[k]; k++) {
		if (!strcmp(flags[k], "SECCOMP_FILTER_FLAG_LOG"))
			scmp_check(seccomp_attr_set(ctx, SCMP_FLTATR_CTL_LOG, 1), w);
		else if (!strcmp(flags[k], "SECCOMP_FILTER_FLAG_SPEC_ALLOW"))
			scmp_check(seccomp_attr_set(ctx, SCMP_FLTATR_CTL_SSB, 1), w);
		else if (strcmp(flags[k], "SECCOMP_FILTER_FLAG_TSYNC"))
			bad("linux.seccomp.flags", "%s is not supported by pspace-run", flags[k]);
	}
	for (k = 0; archs && archs[k]; k++) {
		char lower[64];
		uint32_t arch;
		size_t j;
		int r;

		if (strncmp(archs[k], "SCMP_ARCH_", 10))
			bad("linux.seccomp.architectures", "'%s' is not SCMP_ARCH_*", archs[k]);
		snprintf(lower, sizeof(lower), "%s", archs[k] + 10);
		for (j = 0; lower[j]; j++)
			lower[j] = (char)tolower((unsigned char)lower[j]);
		arch = seccomp_arch_resolve_name(lower);
		if (!arch)
			bad("linux.seccomp.architectures", "unknown %s", archs[k]);
		r = seccomp_arch_add(ctx, arch);
		if (r != -EEXIST)
			scmp_check(r, "linux.seccomp.architectures");
	}
}

/* linux.seccomp.syscalls[@i], @c, onto @ctx (nothing for a rule that is @dact). */
static void seccomp_rule(scmp_filter_ctx ctx, json_object *c, size_t i, uint32_t dact)
{
	json_object *args;
	struct scmp_arg_cmp cmp[6];
	char field[64], **names, *action;
	unsigned int ncmp = 0;
	uint32_t act;
	int j, errno_ret;

	snprintf(field, sizeof(field), "linux.seccomp.syscalls[%zu]", i);
	if (!json_object_is_type(c, json_type_object))
		bad(field, "expected an object");
	names = get_strings(c, field, "names", true);
	action = get_string(c, field, "action", true);
	errno_ret = get_int(c, field, "errnoRet", 0, 4095, EPERM);
	act = seccomp_action(action, errno_ret, field);
	args = get(c, field, "args", json_type_array, false);
	for (j = 0; args && j < (int)json_object_array_length(args); j++) {
		json_object *a = json_object_array_get_idx(args, j);
		char afield[96], *op;
		size_t o;

		snprintf(afield, sizeof(afield), "%s.args[%d]", field, j);
		if (ncmp == 6)
			bad(afield, "more than 6 argument comparisons");
		if (!json_object_is_type(a, json_type_object))
			bad(afield, "expected an object");
		op = get_string(a, afield, "op", true);
		for (o = 0; o < sizeof(seccomp_ops) / sizeof(seccomp_ops[0]); o++)
			if (!strcmp(op, seccomp_ops[o].name))
				break;
		if (o == sizeof(seccomp_ops) / sizeof(seccomp_ops[0]))
			bad(afield, "unknown op %s", op);
		cmp[ncmp].arg = get_int(a, afield, "index", 0, 5, 0);
		cmp[ncmp].op = seccomp_ops[o].op;
		cmp[ncmp].datum_a = get_u64(a, afield, "value");
		cmp[ncmp].datum_b = get(a, afield, "valueTwo", json_type_int, false)
				    ? get_u64(a, afield, "valueTwo") : 0;
		ncmp++;
	}
	if (act == dact)
		return;	/* libseccomp refuses a rule that is the default */
	for (j = 0; names[j]; j++) {
		int nr = seccomp_syscall_resolve_name(names[j]);
		int r;

		if (nr == __NR_SCMP_ERROR)
			continue;
		r = seccomp_rule_add_array(ctx, act, nr, ncmp, cmp);
		/* A rule libseccomp cannot express on every arch is skipped. */
		if (r == -EDOM || r == -EINVAL)
			continue;
		if (r < 0)
			bad(field, "%s: libseccomp: %s", names[j], strerror(-r));
	}
}

void *oci_seccomp_build(json_object *sc)
{
	const char *w = "linux.seccomp";
	char *dflt = get_string(sc, w, "defaultAction", true);
	int dflt_errno = get_int(sc, w, "defaultErrnoRet", 0, 4095, EPERM);
	char **archs = get_strings(sc, w, "architectures", false);
	char **flags = get_strings(sc, w, "flags", false);
	json_object *calls = get(sc, w, "syscalls", json_type_array, false);
	uint32_t dact = seccomp_action(dflt, dflt_errno, "linux.seccomp.defaultAction");
	scmp_filter_ctx ctx = seccomp_init(dact);
	size_t i, n;

	if (!ctx)
		bad(w, "libseccomp cannot make a filter");
	refuse_if_set(sc, w, "listenerPath", "no seccomp notification");
	scmp_check(seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0), w);
	seccomp_flags_archs(ctx, w, flags, archs);
	n = calls ? json_object_array_length(calls) : 0;
	for (i = 0; i < n; i++)
		seccomp_rule(ctx, json_object_array_get_idx(calls, i), i, dact);
	(void)seccomp_actions;
	return ctx;
}

/*
 * root.path: relative to the bundle (and then it must stay inside it), or
 * absolute as engines give it; an existing directory either way.
 */
/*
 * The copy of config.json create saved in the state directory: its root
 * was checked then, and need not exist any more (start, exec and delete
 * use the rest; an engine may have removed the bundle and unmounted the
 * rootfs before it deletes the container).
 */
static bool saved_spec;

static char *resolve_root(const char *bundle, const char *path)
{
	char joined[PATH_MAX * 2], *real;
	struct stat st;
	size_t n = strlen(bundle);

	if (!*path)
		bad("root.path", "empty");
	if (path[0] == '/')
		snprintf(joined, sizeof(joined), "%s", path);
	else
		snprintf(joined, sizeof(joined), "%s/%s", bundle, path);
	if (saved_spec)
		return strdup(joined);
	real = realpath(joined, NULL);
	if (!real)
		bad("root.path", "%s: %s", joined, strerror(errno));
	if (stat(real, &st) < 0 || !S_ISDIR(st.st_mode))
		bad("root.path", "%s: not a directory", joined);
	if (path[0] != '/' && (strncmp(real, bundle, n) || (real[n] != '/' && real[n] != '\0')))
		bad("root.path", "'%s' leads out of the bundle (to %s)", path, real);
	if (!strcmp(real, "/"))
		bad("root.path", "'%s' is the host's root", path);
	return real;
}

/* @path's JSON object (config.json or the saved copy): at most 64 MiB, nothing after it. */
/* The JSON object in @text (@len bytes, NUL-terminated), read from @path. */
static json_object *parse_json_object(const char *text, size_t len, const char *path)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *root;

	root = json_tokener_parse_ex(tok, text, len);
	if (!root || json_tokener_get_error(tok) != json_tokener_success)
		oci_fail(EXIT_SETUP, "%s: not valid JSON: %s at offset %zu", path,
			 json_tokener_error_desc(json_tokener_get_error(tok) == json_tokener_continue
						 ? json_tokener_error_parse_eof
						 : json_tokener_get_error(tok)),
			 json_tokener_get_parse_end(tok));
	if (json_tokener_get_parse_end(tok) < len) {
		size_t e = json_tokener_get_parse_end(tok);

		while (e < len && isspace((unsigned char)text[e]))
			e++;
		if (e < len)
			oci_fail(EXIT_SETUP, "%s: not valid JSON: text after the document at offset %zu",
				 path, e);
	}
	json_tokener_free(tok);
	if (!json_object_is_type(root, json_type_object))
		oci_fail(EXIT_SETUP, "%s: expected a JSON object, not %s", path,
			 type_name(json_object_get_type(root)));
	return root;
}

json_object *oci_read_json_file(const char *path)
{
	json_object *root;
	char *text = NULL;
	size_t len = 0, cap = 0;
	struct stat st;
	ssize_t got;
	int fd;

	/* O_NONBLOCK: a fifo in its place does not hang the verb. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		oci_fail(EXIT_SETUP, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0)
		oci_fail(EXIT_SETUP, "%s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		oci_fail(EXIT_SETUP, "%s: not a regular file", path);
	for (;;) {
		if (len + 4096 > cap) {
			cap = cap ? 2 * cap : 65536;
			if (cap > 64 << 20)
				oci_fail(EXIT_SETUP, "%s: larger than 64 MiB", path);
			text = realloc(text, cap + 1);
		}
		got = read(fd, text + len, cap - len);
		if (got < 0)
			oci_fail(EXIT_SETUP, "%s: %s", path, strerror(errno));
		if (!got)
			break;
		len += got;
	}
	close(fd);
	text[len] = '\0';
	root = parse_json_object(text, len, path);
	free(text);
	return root;
}

static void parse_mounts(json_object *root, struct oci_spec *s)
{
	json_object *a = get(root, "", "mounts", json_type_array, false);
	size_t n = a ? json_object_array_length(a) : 0, k;

	s->mounts = calloc(n + 1, sizeof(*s->mounts));
	for (k = 0; k < n; k++) {
		json_object *m = json_object_array_get_idx(a, k);
		char field[64];

		snprintf(field, sizeof(field), "mounts[%zu]", k);
		if (!json_object_is_type(m, json_type_object))
			bad(field, "expected an object");
		parse_mount(m, &s->mounts[k], field);
	}
	s->nmounts = n;
}

/* The linux object: namespaces, what is refused, paths, sysctl, cgroup, seccomp. */
static void parse_linux(json_object *root, struct oci_spec *s)
{
	json_object *linux_;
	int i;

	linux_ = get(root, "", "linux", json_type_object, false);
	parse_namespaces(linux_, s);
	if (s->hostname && !(s->clone_flags & CLONE_NEWUTS))
		bad("hostname", "set without a uts namespace of the container's own");
	refuse_if_set(linux_, "linux", "uidMappings", "no user namespace");
	refuse_if_set(linux_, "linux", "gidMappings", "no user namespace");
	refuse_if_set(linux_, "linux", "devices", "only the default devices (null, zero, "
		      "full, random, urandom, tty, ptmx) are given to a container");
	refuse_if_set(linux_, "linux", "mountLabel", "no SELinux label is applied");
	refuse_if_set(linux_, "linux", "intelRdt", "no resctrl");
	s->masked = get_strings(linux_, "linux", "maskedPaths", false);
	s->readonly = get_strings(linux_, "linux", "readonlyPaths", false);
	for (i = 0; s->masked && s->masked[i]; i++)
		if (s->masked[i][0] != '/')
			bad("linux.maskedPaths", "'%s' is not absolute", s->masked[i]);
	for (i = 0; s->readonly && s->readonly[i]; i++)
		if (s->readonly[i][0] != '/')
			bad("linux.readonlyPaths", "'%s' is not absolute", s->readonly[i]);
	{
		json_object *sys = get(linux_, "linux", "sysctl", json_type_object, false);

		if (sys) {
			int n = json_object_object_length(sys);

			s->sysctl_keys = calloc(n + 1, sizeof(char *));
			s->sysctl_values = calloc(n + 1, sizeof(char *));
			json_object_object_foreach(sys, key, val) {
				if (!json_object_is_type(val, json_type_string))
					bad("linux.sysctl", "%s: expected a string", key);
				if (strstr(key, "..") || strchr(key, '/') || key[0] == '.')
					bad("linux.sysctl", "'%s' is not a sysctl name", key);
				/* Only what the container's own namespaces hold, as runc. */
				if (!sysctl_is_namespaced(key, s))
					bad("linux.sysctl", "'%s' is not in a namespace of the container's own", key);
				s->sysctl_keys[s->nsysctl] = strdup(key);
				s->sysctl_values[s->nsysctl++] = strdup(json_object_get_string(val));
			}
		}
	}
	s->cgroups_path = get_string(linux_, "linux", "cgroupsPath", false);
	if (s->cgroups_path && strstr(s->cgroups_path, ".."))
		bad("linux.cgroupsPath", "'%s' has a '..'", s->cgroups_path);
	parse_resources(linux_, s);
	s->seccomp = get(linux_, "linux", "seccomp", json_type_object, false);
	if (s->seccomp)
		seccomp_release(oci_seccomp_build(s->seccomp));
}

/* The spec of the config.json object @root, of @bundle. */
static struct oci_spec *spec_of(json_object *root, const char *bundle)
{
	struct oci_spec *s = calloc(1, sizeof(*s));
	json_object *r, *proc;
	char *v;

	s->json = root;
	s->bundle = strdup(bundle);

	v = get_string(root, "", "ociVersion", true);
	if (strncmp(v, "1.", 2))
		bad("ociVersion", "'%s' is not 1.x", v);
	r = get(root, "", "root", json_type_object, true);
	v = get_string(r, "root", "path", true);
	s->root = resolve_root(bundle, v);
	s->root_readonly = get_bool(r, "root", "readonly");
	s->hostname = get_string(root, "", "hostname", false);
	if (s->hostname && (strlen(s->hostname) > 64))
		bad("hostname", "longer than 64 characters");
	proc = get(root, "", "process", json_type_object, true);
	oci_parse_process(proc, &s->process, "process");
	if (s->process.terminal && !s->process.args)
		bad("process.terminal", "without args");

	parse_mounts(root, s);
	parse_hooks(root, s);

	parse_linux(root, s);
	return s;
}

struct oci_spec *oci_load_spec_file(const char *path, const char *bundle)
{
	return spec_of(oci_read_json_file(path), bundle);
}

struct oci_spec *oci_parse_spec(const char *text, size_t len, const char *bundle)
{
	return spec_of(parse_json_object(text, len, "config.json"), bundle);
}

struct oci_spec *oci_load_saved_spec(const char *path, const char *bundle)
{
	struct oci_spec *s;

	saved_spec = true;
	s = oci_load_spec_file(path, bundle);
	saved_spec = false;
	return s;
}

struct oci_spec *oci_load_spec(const char *bundle)
{
	char path[PATH_MAX + 16], *real;

	real = realpath(bundle, NULL);
	if (!real)
		oci_fail(EXIT_SETUP, "bundle %s: %s", bundle, strerror(errno));
	snprintf(path, sizeof(path), "%s/config.json", real);
	return oci_load_spec_file(path, real);
}

/* What "spec" writes: a container of the bundle's rootfs, as runc's. */
json_object *oci_default_spec(void)
{
	static const char *const text =
		"{\"ociVersion\":\"" OCI_VERSION "\","
		"\"process\":{\"terminal\":true,\"user\":{\"uid\":0,\"gid\":0},"
		"\"args\":[\"sh\"],"
		"\"env\":[\"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\","
		"\"TERM=xterm\"],\"cwd\":\"/\","
		"\"capabilities\":{"
		"\"bounding\":[\"CAP_AUDIT_WRITE\",\"CAP_KILL\",\"CAP_NET_BIND_SERVICE\"],"
		"\"effective\":[\"CAP_AUDIT_WRITE\",\"CAP_KILL\",\"CAP_NET_BIND_SERVICE\"],"
		"\"permitted\":[\"CAP_AUDIT_WRITE\",\"CAP_KILL\",\"CAP_NET_BIND_SERVICE\"]},"
		"\"rlimits\":[{\"type\":\"RLIMIT_NOFILE\",\"hard\":1024,\"soft\":1024}],"
		"\"noNewPrivileges\":true},"
		"\"root\":{\"path\":\"rootfs\",\"readonly\":true},"
		"\"hostname\":\"pspace\","
		"\"mounts\":["
		"{\"destination\":\"/proc\",\"type\":\"proc\",\"source\":\"proc\"},"
		"{\"destination\":\"/dev\",\"type\":\"tmpfs\",\"source\":\"tmpfs\","
		"\"options\":[\"nosuid\",\"strictatime\",\"mode=755\",\"size=65536k\"]},"
		"{\"destination\":\"/dev/pts\",\"type\":\"devpts\",\"source\":\"devpts\","
		"\"options\":[\"nosuid\",\"noexec\",\"newinstance\",\"ptmxmode=0666\",\"mode=0620\",\"gid=5\"]},"
		"{\"destination\":\"/dev/shm\",\"type\":\"tmpfs\",\"source\":\"shm\","
		"\"options\":[\"nosuid\",\"noexec\",\"nodev\",\"mode=1777\",\"size=65536k\"]},"
		"{\"destination\":\"/dev/mqueue\",\"type\":\"mqueue\",\"source\":\"mqueue\","
		"\"options\":[\"nosuid\",\"noexec\",\"nodev\"]},"
		"{\"destination\":\"/sys\",\"type\":\"sysfs\",\"source\":\"sysfs\","
		"\"options\":[\"nosuid\",\"noexec\",\"nodev\",\"ro\"]},"
		"{\"destination\":\"/sys/fs/cgroup\",\"type\":\"cgroup\",\"source\":\"cgroup\","
		"\"options\":[\"nosuid\",\"noexec\",\"nodev\",\"relatime\",\"ro\"]}],"
		"\"linux\":{\"resources\":{\"devices\":[{\"allow\":false,\"access\":\"rwm\"}]},"
		"\"namespaces\":[{\"type\":\"pid\"},{\"type\":\"network\"},{\"type\":\"ipc\"},"
		"{\"type\":\"uts\"},{\"type\":\"mount\"},{\"type\":\"cgroup\"}],"
		"\"maskedPaths\":[\"/proc/acpi\",\"/proc/asound\",\"/proc/kcore\",\"/proc/keys\","
		"\"/proc/latency_stats\",\"/proc/timer_list\",\"/proc/timer_stats\","
		"\"/proc/sched_debug\",\"/sys/firmware\",\"/proc/scsi\"],"
		"\"readonlyPaths\":[\"/proc/bus\",\"/proc/fs\",\"/proc/irq\",\"/proc/sys\","
		"\"/proc/sysrq-trigger\"]}}";

	return json_tokener_parse(text);
}

json_object *oci_features(void)
{
	static const char *const text =
		"{\"ociVersionMin\":\"1.0.0\",\"ociVersionMax\":\"" OCI_VERSION "\","
		"\"hooks\":[\"prestart\",\"createRuntime\",\"poststart\",\"poststop\"],"
		"\"mountOptions\":[\"ro\",\"rw\",\"nosuid\",\"suid\",\"nodev\",\"dev\",\"noexec\","
		"\"exec\",\"noatime\",\"strictatime\",\"relatime\",\"nodiratime\",\"bind\",\"rbind\","
		"\"private\",\"rprivate\",\"slave\",\"rslave\",\"shared\",\"rshared\"],"
		"\"linux\":{\"namespaces\":[\"pid\",\"mount\",\"uts\",\"ipc\",\"network\",\"cgroup\"],"
		"\"capabilities\":[],"
		"\"cgroup\":{\"v1\":false,\"v2\":true,\"systemd\":false,\"systemdUser\":false,"
		"\"rdma\":false},"
		"\"seccomp\":{\"enabled\":true,\"actions\":[\"SCMP_ACT_ALLOW\",\"SCMP_ACT_ERRNO\","
		"\"SCMP_ACT_KILL\",\"SCMP_ACT_KILL_PROCESS\",\"SCMP_ACT_KILL_THREAD\","
		"\"SCMP_ACT_LOG\",\"SCMP_ACT_TRACE\",\"SCMP_ACT_TRAP\"],"
		"\"operators\":[\"SCMP_CMP_EQ\",\"SCMP_CMP_GE\",\"SCMP_CMP_GT\",\"SCMP_CMP_LE\","
		"\"SCMP_CMP_LT\",\"SCMP_CMP_MASKED_EQ\",\"SCMP_CMP_NE\"]},"
		"\"apparmor\":{\"enabled\":false},\"selinux\":{\"enabled\":false},"
		"\"intelRdt\":{\"enabled\":false},"
		"\"mountExtensions\":{\"idmap\":{\"enabled\":false}}},"
		"\"annotations\":{\"org.pspace.pid-namespace\":\"pspace (CLONE_NPSPACE)\","
		"\"org.pspace.ignored\":\"linux.resources.blockIO, hugepageLimits, network, "
		"rdma; linux.personality; linux.rootfsPropagation; process.ioPriority, "
		"scheduler; mount options tmpcopyup, unbindable\","
		"\"org.pspace.refused\":\"user and time namespaces, uid/gid mappings, "
		"linux.devices, AppArmor, SELinux, intelRdt, seccomp listenerPath, "
		"createContainer and startContainer hooks\"}}";
	json_object *f = json_tokener_parse(text), *lin, *caps;
	int cap;

	if (f && json_object_object_get_ex(f, "linux", &lin) &&
	    json_object_object_get_ex(lin, "capabilities", &caps))
		for (cap = 0; cap <= CAP_LAST_CAP; cap++) {
			char *name = cap_to_name(cap), upper[64];
			size_t j;

			snprintf(upper, sizeof(upper), "%s", name ? name : "");
			for (j = 0; upper[j]; j++)
				upper[j] = (char)toupper((unsigned char)upper[j]);
			if (!strncmp(upper, "CAP_", 4))
				json_object_array_add(caps, json_object_new_string(upper));
			cap_free(name);
		}
	return f;
}
