// SPDX-License-Identifier: GPL-2.0
/*
 * What pspace-run reads out of ROOT for the options (--user, --boot) and
 * the --env-file it reads on the caller's side.
 *
 * --user is looked up in ROOT's /etc/passwd and /etc/group, parsed here
 * from files opened inside ROOT (openat2, RESOLVE_IN_ROOT), never through
 * the host's NSS: the host's users are not the container's, and a
 * hostile ROOT's files are only ever read, as small regular files.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pspace-run.h"
#include "sys.h"

#define MAX_SMALL_FILE (4 << 20)

/*
 * A small regular file as a NUL-terminated string, NULL if it does not
 * exist.  Looked at through an O_PATH fd first (a fifo would block on
 * open, a device do anything, /dev/zero never end), then reopened
 * through it for reading: no one can swap it in between.  @what names
 * it in messages ("--user: ROOT's /etc/passwd").
 */
static char *read_small_file(int dir, const char *path, uint64_t resolve, const char *what)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = resolve };
	char proc[64], *buf;
	struct stat st;
	int p, fd;
	size_t len = 0;

	p = sys_openat2(dir, path, &how);
	if (p < 0 && errno == ENOENT)
		return NULL;
	if (p < 0 || fstat(p, &st) < 0)
		die_errno(EXIT_SETUP, "%s", what);
	if (!S_ISREG(st.st_mode) || st.st_size > MAX_SMALL_FILE)
		die(EXIT_SETUP, "%s: not a regular file of at most 4 MiB", what);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", p);
	fd = open(proc, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	close(p);
	buf = malloc(st.st_size + 1);
	if (fd < 0 || !buf)
		die_errno(EXIT_SETUP, "%s", what);
	while (len < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + len, st.st_size - len);

		if (n < 0)
			die_errno(EXIT_SETUP, "%s", what);
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* ROOT's @path (relative), looked up inside ROOT; NULL if it has none. */
static char *read_root_file(const char *root, const char *path, const char *option)
{
	char what[128];
	char *text;
	int dir;

	dir = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		die_errno(EXIT_SETUP, "%s", root);
	snprintf(what, sizeof(what), "%s: ROOT's /%s", option, path);
	text = read_small_file(dir, path, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS, what);
	close(dir);
	return text;
}

/* Split the line at @line into @max ':' fields; the number of fields. */
static int fields(char *line, char **f, int max)
{
	int n = 0;

	f[n++] = line;
	for (; *line && n < max; line++)
		if (*line == ':') {
			*line = '\0';
			f[n++] = line + 1;
		}
	return n;
}

static bool parse_id(const char *s, unsigned long *id)
{
	char *end;

	if (!*s || !isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*id = strtoul(s, &end, 10);
	return !errno && !*end && *id < 0xffffffffUL;
}

static bool valid_name(const char *s)
{
	if (!*s || strlen(s) > 256)
		return false;
	for (; *s; s++)
		if (*s == ':' || *s == ',' || *s == '/' || isspace((unsigned char)*s) ||
		    !isprint((unsigned char)*s))
			return false;
	return true;
}

/* The next line of @text (NUL-terminated in place), or NULL. */
static char *next_line(char **text)
{
	char *line = *text, *nl;

	if (!line || !*line)
		return NULL;
	nl = strchr(line, '\n');
	if (nl) {
		*nl = '\0';
		*text = nl + 1;
	} else {
		*text = NULL;
	}
	return line;
}

/* A group of ROOT's by name or number: its gid, or dies. */
static gid_t lookup_group(const struct config *cfg, const char *group, char *groups_text)
{
	unsigned long id;
	char *copy, *text, *line, *f[4];

	if (parse_id(group, &id))
		return id;
	if (!valid_name(group))
		die(EXIT_SETUP, "--user %s: '%s' is neither a GID nor a group name", cfg->user, group);
	if (!groups_text)
		die(EXIT_SETUP, "--user %s: ROOT has no /etc/group", cfg->user);
	copy = strdup(groups_text);
	for (text = copy; (line = next_line(&text));)
		if (fields(line, f, 4) >= 3 && !strcmp(f[0], group) && parse_id(f[2], &id)) {
			free(copy);
			return id;
		}
	die(EXIT_SETUP, "--user %s: no group '%s' in ROOT's /etc/group", cfg->user, group);
}

/* Is @name in the comma-separated @members? */
static bool member(const char *members, const char *name)
{
	size_t n = strlen(name);

	while (*members) {
		size_t m = strcspn(members, ",");

		if (m == n && !strncmp(members, name, n))
			return true;
		members += m + (members[m] == ',');
	}
	return false;
}

/*
 * -u/--user NAME|UID[:GID]: uid, gid, HOME and USER from ROOT's
 * /etc/passwd; GID by number or by name from ROOT's /etc/group; the
 * supplementary groups are those of ROOT's /etc/group that list the user.
 * A UID that ROOT does not know runs with GID = UID (or :GID), HOME=/ and
 * no USER.  Every mistake dies (125) before anything is created.
 */
void resolve_user(struct config *cfg)
{
	char *spec, *group, *passwd, *groups_text, *text, *line, *f[7];
	unsigned long id;
	bool by_uid, found = false;

	if (!cfg->user)
		return;
	spec = strdup(cfg->user);
	group = strchr(spec, ':');
	if (group)
		*group++ = '\0';
	if (!*spec || (group && !*group))
		die(EXIT_SETUP, "--user: '%s' is not NAME|UID[:GID]", cfg->user);
	by_uid = isdigit((unsigned char)spec[0]);
	if (by_uid && !parse_id(spec, &id))
		die(EXIT_SETUP, "--user: '%s' is not a UID (0 to 4294967294) or a name", cfg->user);
	if (!by_uid && !valid_name(spec))
		die(EXIT_SETUP, "--user: '%s' is not a valid user name", cfg->user);

	passwd = read_root_file(cfg->root, "etc/passwd", "--user");
	groups_text = read_root_file(cfg->root, "etc/group", "--user");
	for (text = passwd; text && (line = next_line(&text));) {
		unsigned long uid, gid;

		if (fields(line, f, 7) < 7 || !parse_id(f[2], &uid) || !parse_id(f[3], &gid))
			continue;
		if (by_uid ? uid != id : strcmp(f[0], spec))
			continue;
		cfg->uid = uid;
		cfg->gid = gid;
		cfg->user_name = strdup(f[0]);
		cfg->user_home = strdup(*f[5] ? f[5] : "/");
		found = true;
		break;
	}
	/*
	 * "Run this as www-data" is not "run this as root": a name the
	 * image maps to uid 0 would hold the container's whole capability
	 * set (and every root exec regains it), where -u promises a user
	 * without capabilities.  Root is asked for by its name or number.
	 */
	if (found && cfg->uid == 0 && !by_uid && strcmp(spec, "root"))
		die(EXIT_SETUP, "--user %s: ROOT's /etc/passwd gives it uid 0 (root); -u root or -u 0 if that is meant",
		    cfg->user);
	if (!found) {
		if (!by_uid)
			die(EXIT_SETUP, "--user %s: no such user in ROOT's /etc/passwd", cfg->user);
		cfg->uid = id;
		cfg->gid = id;
		cfg->user_home = "/";
	}
	if (group)
		cfg->gid = lookup_group(cfg, group, groups_text);
	cfg->groups[cfg->ngroups++] = cfg->gid;
	for (text = groups_text; cfg->user_name && text && (line = next_line(&text));) {
		unsigned long gid;

		if (fields(line, f, 4) < 4 || !parse_id(f[2], &gid) || gid == cfg->gid ||
		    !member(f[3], cfg->user_name))
			continue;
		if (cfg->ngroups == MAX_GROUPS)
			die(EXIT_SETUP, "--user %s: in more than %d groups", cfg->user, MAX_GROUPS);
		cfg->groups[cfg->ngroups++] = gid;
	}
	free(passwd);
	free(groups_text);
	verbose(cfg, "--user %s: uid %u, gid %u, %d groups", cfg->user, (unsigned)cfg->uid,
		(unsigned)cfg->gid, cfg->ngroups);
}

/*
 * In the leader (or COMMAND's process under --as-pid2), after the mounts
 * and before lock_down(): the user's groups, gid and uid.  The kept
 * capabilities stay permitted across setresuid() (PR_SET_KEEPCAPS) and
 * are made effective again, so that lock_down() can still shrink the
 * bounding set and install the seccomp filter; the exec of COMMAND as a
 * user other than root then leaves it none (the ambient and inheritable
 * sets are empty).  Then --chdir, else the user's home if there is one.
 */
void become_user(const struct config *cfg)
{
	if (cfg->user) {
		cap_t caps;

		if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
			die_errno(EXIT_SETUP, "--user %s: prctl(PR_SET_KEEPCAPS)", cfg->user);
		if (setgroups(cfg->ngroups, cfg->groups) < 0)
			die_errno(EXIT_SETUP, "--user %s: setgroups", cfg->user);
		if (setresgid(cfg->gid, cfg->gid, cfg->gid) < 0)
			die_errno(EXIT_SETUP, "--user %s: setresgid %u", cfg->user, (unsigned)cfg->gid);
		if (setresuid(cfg->uid, cfg->uid, cfg->uid) < 0)
			die_errno(EXIT_SETUP, "--user %s: setresuid %u", cfg->user, (unsigned)cfg->uid);
		if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0)
			die_errno(EXIT_SETUP, "--user %s: prctl(PR_SET_KEEPCAPS)", cfg->user);
		caps = cap_get_proc();
		if (caps) {
			cap_value_t c, max = (cap_value_t)cap_max_bits();

			for (c = 0; c < max; c++) {
				cap_flag_value_t v = CAP_CLEAR;

				cap_get_flag(caps, c, CAP_PERMITTED, &v);
				cap_set_flag(caps, CAP_EFFECTIVE, 1, &c, v);
			}
			if (cap_set_proc(caps) < 0)
				die_errno(EXIT_SETUP, "--user %s: capabilities", cfg->user);
			cap_free(caps);
		}
	}
	if (cfg->chdir) {
		if (chdir(cfg->chdir) < 0)
			die_errno(EXIT_SETUP, "--chdir %s", cfg->chdir);
	} else if (cfg->user && cfg->user_home && chdir(cfg->user_home) < 0 && chdir("/") < 0) {
		die_errno(EXIT_SETUP, "chdir /");
	}
}

/*
 * --env-file FILE (the caller's, a small regular file: read_small_file):
 * NAME=VALUE lines, taken as they are (no quotes, no expansion); empty
 * lines and lines starting with '#' are skipped.  Anything else dies
 * naming the file and the line number.
 */
void read_env_file(struct config *cfg)
{
	char what[4200], *text, *line, *next;
	int n = 0, cap = 0;

	if (!cfg->env_file)
		return;
	snprintf(what, sizeof(what), "--env-file %s", cfg->env_file);
	text = read_small_file(AT_FDCWD, cfg->env_file, 0, what);
	if (!text) {
		errno = ENOENT;
		die_errno(EXIT_SETUP, "%s", what);
	}
	for (next = text; (line = next_line(&next));) {
		size_t len = strlen(line), name;
		char *p = line;

		n++;
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		p += strspn(p, " \t");
		if (!*p || *p == '#')
			continue;
		name = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
		if (!name || isdigit((unsigned char)p[0]) || p[name] != '=')
			die(EXIT_SETUP, "--env-file %s:%d: not NAME=VALUE: '%.60s'", cfg->env_file, n, p);
		if (cfg->nfile_env == cap) {
			cap = cap ? 2 * cap : 16;
			cfg->file_env = realloc(cfg->file_env, cap * sizeof(char *));
			if (!cfg->file_env)
				die_errno(EXIT_SETUP, "--env-file");
		}
		cfg->file_env[cfg->nfile_env++] = strdup(p);
	}
	free(text);
}

/*
 * -b/--boot: ROOT's init, the first of these that is an executable
 * regular file inside ROOT (links followed inside ROOT); the arguments
 * after ROOT go to it.
 */
static const char *const inits[] = {
	"/sbin/init", "/lib/systemd/systemd", "/usr/lib/systemd/systemd", "/etc/init", "/bin/init",
};

void find_init(struct config *cfg)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int dir, n = 0;
	size_t i;
	char **argv;

	if (!cfg->boot)
		return;
	dir = open(cfg->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		die_errno(EXIT_SETUP, "%s", cfg->root);
	for (i = 0; i < sizeof(inits) / sizeof(inits[0]); i++) {
		struct stat st;
		int fd = sys_openat2(dir, inits[i], &how);
		bool good = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
			    (st.st_mode & 0111);

		if (fd >= 0)
			close(fd);
		if (good)
			break;
	}
	close(dir);
	if (i == sizeof(inits) / sizeof(inits[0]))
		die(EXIT_SETUP, "--boot: ROOT has no init (/sbin/init, /lib/systemd/systemd, "
		    "/usr/lib/systemd/systemd, /etc/init, /bin/init)");
	while (cfg->argv && cfg->argv[n])
		n++;
	argv = calloc(n + 2, sizeof(char *));
	if (!argv)
		die_errno(EXIT_SETUP, "--boot");
	argv[0] = (char *)inits[i];
	memcpy(argv + 1, cfg->argv, n * sizeof(char *));
	cfg->argv = argv;
	verbose(cfg, "--boot: %s", inits[i]);
}
