// SPDX-License-Identifier: GPL-2.0
/*
 * Machine names (-M/--machine): each running container has one, unique
 * among the containers of the same runtime directory, /run/pspace-run
 * (a nested pspace-run registers in the container's own /run).
 *
 * A name is a file RUNDIR/machines/NAME holding "PID WID" (pspace-run's
 * pid and the leader's wid, as pspace-run sees them), and it is taken for
 * as long as pspace-run holds an exclusive flock(2) on it.  A lock is
 * what makes two starts with the same name race safely: both may create
 * or open the file, only one gets the lock; and the kernel drops the lock
 * when pspace-run dies, however it dies (kill -9 included), so a file
 * left behind is a stale name that the next start takes over.  The file
 * is unlinked on every exit path of pspace-run (die() included), and
 * after a kill -9 by the cgroup's janitor, which takes the lock first so
 * that it never removes a name a new start has taken in the meantime.
 * A start that finds a name locked checks that the file it locked is
 * still the one linked under that name (it may have been unlinked between
 * its open and its flock) and starts over if not.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pspace-run.h"
#include "sys.h"

#define MACHINES "pspace-run/machines"

static int lock_fd = -1;	/* the name's file, flock'ed */
static char claimed[72];	/* its name */
static pid_t owner;		/* the pspace-run that holds it */

/*
 * RUNDIR/pspace-run/@name (machines, seccomp), created if @create: /run
 * for root, else $XDG_RUNTIME_DIR.  Each level must be a directory of
 * ours that nobody else can write to (a file is only ever opened
 * O_NOFOLLOW in it); @name itself nobody else can list either (the
 * names of root's containers are root's business, issue 32): one made
 * 0755 by an earlier version is made 0700.
 */
static int open_dir(const char *base, bool create, mode_t mode)
{
	int fd;
	struct stat st;

	if (create && mkdirat(AT_FDCWD, base, mode) < 0 && errno != EEXIST)
		return -1;
	fd = open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022) ||
	    ((st.st_mode & 0777 & ~mode) && fchmod(fd, mode) < 0)) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

int open_run_dir(const char *name, bool create)
{
	const char *base = "/run";
	char path[4096];
	int fd;

	if (geteuid() != 0 && getenv("XDG_RUNTIME_DIR") && *getenv("XDG_RUNTIME_DIR"))
		base = getenv("XDG_RUNTIME_DIR");
	if (access(base, F_OK) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/pspace-run", base);
	fd = open_dir(path, create, 0755);
	if (fd < 0)
		return -1;
	close(fd);
	snprintf(path, sizeof(path), "%s/pspace-run/%s", base, name);
	return open_dir(path, create, 0700);
}

static int open_machines(bool create)
{
	return open_run_dir("machines", create);
}

static bool valid_machine(const char *name)
{
	size_t n = strlen(name), digits = strspn(name, "0123456789");

	if (n == 0 || n > 64 || name[0] == '-' || name[0] == '.' || digits == n)
		return false;
	for (; *name; name++)
		if (!isalnum((unsigned char)*name) && *name != '-' && *name != '.')
			return false;
	return true;
}

/* "PID WID" of the name file @fd. */
static bool read_entry(int fd, pid_t *pid, pid_t *wid)
{
	char buf[64];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	int p, w;

	if (n <= 0)
		return false;
	buf[n] = '\0';
	if (sscanf(buf, "%d %d", &p, &w) != 2)
		return false;
	*pid = p;
	*wid = w;
	return true;
}

/*
 * Lock the name @name in @dir: 0, or -1 with errno EBUSY when a running
 * pspace-run holds it.
 */
static int try_claim(int dir, const char *name)
{
	struct timespec pause = { .tv_nsec = 20 * 1000 * 1000 };
	int tries, fd;

	for (tries = 0; tries < 100; tries++) {
		struct stat a, b;
		pid_t pid, wid;

		fd = openat(dir, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
		if (fd < 0)
			return -1;
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			int err = errno;

			/*
			 * Held by a janitor that is removing it (its pspace-run
			 * is gone): that takes a moment; wait for it.
			 */
			if (err == EWOULDBLOCK && read_entry(fd, &pid, &wid) &&
			    pid > 0 && kill(pid, 0) < 0 && errno == ESRCH && tries < 50) {
				close(fd);
				nanosleep(&pause, NULL);
				continue;
			}
			close(fd);
			errno = err == EWOULDBLOCK ? EBUSY : err;
			return -1;
		}
		/* Still the file linked under that name (not unlinked since our open)? */
		if (fstat(fd, &a) == 0 && S_ISREG(a.st_mode) &&
		    fstatat(dir, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
			char buf[32];
			int len = snprintf(buf, sizeof(buf), "%d 0\n", (int)getpid());

			if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, len, 0) != len) {
				int err = errno;

				unlinkat(dir, name, 0);
				close(fd);
				errno = err;
				return -1;
			}
			lock_fd = fd;
			owner = getpid();
			snprintf(claimed, sizeof(claimed), "%s", name);
			/* The name is free again if pspace-run fails (in pspace-run only). */
			on_failure(machine_release, true);
			return 0;
		}
		if (fstat(fd, &a) == 0 && !S_ISREG(a.st_mode)) {
			close(fd);
			errno = EEXIST;
			return -1;
		}
		close(fd);
	}
	errno = EBUSY;
	return -1;
}

/*
 * The container's name: -M, else ROOT's basename (letters, digits, '-'
 * and '.' kept, the rest made '-'; "root" for "/"), with "-2", "-3"...
 * appended while that one is taken.  A name given with -M that is taken
 * is an error.
 */
void machine_claim(struct config *cfg)
{
	static char base[65], name[72];
	const char *b;
	size_t i;
	int dir, n;

	if (!cfg->machine) {
		b = strrchr(cfg->root, '/');
		b = b ? b + 1 : cfg->root;
		snprintf(base, sizeof(base), "%s", b);
		for (i = 0; base[i]; i++)
			if (!isalnum((unsigned char)base[i]) && base[i] != '-' && base[i] != '.')
				base[i] = '-';
		if (!valid_machine(base))
			snprintf(base, sizeof(base), "%s", "root");
		cfg->machine = base;
	}
	dir = open_machines(true);
	if (dir < 0) {
		if (cfg->machine_given)
			die_errno(EXIT_SETUP, "--machine %s: cannot register it under /run/" MACHINES,
				  cfg->machine);
		verbose(cfg, "no runtime directory /run/" MACHINES ": machine %s not registered",
			cfg->machine);
		return;
	}
	if (try_claim(dir, cfg->machine) == 0)
		goto done;
	if (errno != EBUSY)
		die_errno(EXIT_SETUP, "--machine %s", cfg->machine);
	if (cfg->machine_given)
		die(EXIT_SETUP, "--machine %s: a running container has that name already",
		    cfg->machine);
	/*
	 * No small bound: make bench's 1,000 idle containers of one ROOT
	 * stopped at root-999 ("every name in use" for the 1,000th).
	 */
	for (n = 2; n < 1000000; n++) {
		snprintf(name, sizeof(name), "%.60s-%d", cfg->machine, n);
		if (try_claim(dir, name) == 0) {
			cfg->machine = name;
			goto done;
		}
		if (errno != EBUSY)
			die_errno(EXIT_SETUP, "machine %s", name);
	}
	die(EXIT_SETUP, "machine %s: every name %s-N in use", cfg->machine, cfg->machine);
done:
	close(dir);
	verbose(cfg, "machine %s", cfg->machine);
}

void machine_set_wid(pid_t wid)
{
	char buf[48];
	int len;

	if (lock_fd < 0)
		return;
	len = snprintf(buf, sizeof(buf), "%d %d\n", (int)owner, (int)wid);
	if (ftruncate(lock_fd, 0) < 0 || pwrite(lock_fd, buf, len, 0) != len)
		warn_errno("machine %s", claimed);
}

/*
 * In the leader: the name is pspace-run's, never to be released from here
 * (a nested pspace-run is pid 1, and so is its leader, in their pspaces).
 */
void machine_forget(void)
{
	lock_fd = -1;
}

/* In pspace-run (not in a child of it): the name is free again. */
void machine_release(void)
{
	int dir;

	if (lock_fd < 0 || getpid() != owner)
		return;
	dir = open_machines(false);
	if (dir >= 0) {
		unlinkat(dir, claimed, 0);
		close(dir);
	}
	close(lock_fd);
	lock_fd = -1;
}

/*
 * In the cgroup's janitor, once pspace-run is gone: remove its name's file
 * if nobody has taken the name since (the lock) and it is still its.
 */
void machine_janitor_release(void)
{
	pid_t pid, wid;
	int dir, fd;

	if (!claimed[0])
		return;
	dir = open_machines(false);
	if (dir < 0)
		return;
	fd = openat(dir, claimed, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0 && read_entry(fd, &pid, &wid) &&
	    pid == owner)
		unlinkat(dir, claimed, 0);
	if (fd >= 0)
		close(fd);
	close(dir);
}

/* --join NAME: the wid of the running container of that name. */
pid_t machine_lookup(const char *name)
{
	struct proc_info pi;
	pid_t pid, wid;
	int dir, fd;

	if (!valid_machine(name))
		die(EXIT_SETUP, "--join: '%s' is neither a wid nor a machine name", name);
	dir = open_machines(false);
	fd = dir < 0 ? -1 : openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (dir >= 0)
		close(dir);
	/* Not locked: nobody runs under that name (a stale file). */
	if (fd < 0 || flock(fd, LOCK_SH | LOCK_NB) == 0)
		die(EXIT_SETUP, "--join %s: no running container has that name", name);
	if (!read_entry(fd, &pid, &wid) || wid <= 0)
		die(EXIT_SETUP, "--join %s: the container is still starting", name);
	close(fd);
	/* The leader is that pspace-run's child: a recycled wid is not. */
	if (!read_proc_info(wid, &pi) || pi.ppid != pid)
		die(EXIT_SETUP, "--join %s: its leader %d is gone", name, (int)wid);
	return wid;
}

/*
 * --list: the name of the container whose leader's parent (pspace-run)
 * is @parent, looked up in the runtime directory that pspace-run sees:
 * through /proc/PARENT/root, resolved inside that root (the pspace-run
 * may be in a container, whose files are not trusted), regular files
 * only.  @wid is the leader's wid as @parent sees it.
 */
const char *machine_of(pid_t wid, pid_t parent, char *buf, size_t size)
{
	struct open_how in_root = {
		.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	struct open_how beneath = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	const char *found = NULL;
	char name[64];
	struct proc_info pi;
	pid_t me = read_proc_info(parent, &pi) ? pi.innermost : -1;
	struct dirent *e;
	int root, dir;
	DIR *d;

	snprintf(name, sizeof(name), "/proc/%d/root", (int)parent);
	root = open(name, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0 || me <= 0) {
		if (root >= 0)
			close(root);
		return NULL;
	}
	dir = sys_openat2(root, "run/" MACHINES, &in_root);
	close(root);
	d = dir < 0 ? NULL : fdopendir(dir);
	if (!d) {
		if (dir >= 0)
			close(dir);
		return NULL;
	}
	while (!found && (e = readdir(d))) {
		char proc[64];
		struct stat st;
		pid_t pid, w;
		int path, fd = -1;

		if (e->d_name[0] == '.' || !valid_machine(e->d_name))
			continue;
		path = sys_openat2(dirfd(d), e->d_name, &beneath);
		if (path < 0)
			continue;
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", path);
		if (fstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < 64)
			fd = open(proc, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		close(path);
		if (fd < 0)
			continue;
		if (read_entry(fd, &pid, &w) && pid == me && w == wid) {
			snprintf(buf, size, "%s", e->d_name);
			found = buf;
		}
		close(fd);
	}
	closedir(d);
	return found;
}
