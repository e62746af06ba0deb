// SPDX-License-Identifier: GPL-2.0
/*
 * The runtime's binary out of the container's reach (CVE-2019-5736).
 *
 * pspace-run's code runs inside containers: the leader until it execs,
 * the --as-pid2 init all along, a joined or OCI exec'd process until its
 * command is exec'd, an OCI leader until start.  Root in the container
 * can open /proc/PID/exe of such a process (O_PATH, kept past its exec)
 * and write through it to the file the host ran, the host's pspace-run,
 * which the next user of the host runs as root.
 *
 * So pspace-run first re-executes itself from a sealed view of the
 * binary, as runc 1.2 does: where it may mount (root), from a detached
 * overlayfs whose only layers are the binary's directory and an empty
 * one (an overlay without an upper layer is read-only for good: unlike a
 * read-only bind mount, nobody can make it writable), which costs no copy
 * and no memory; elsewhere from a copy, as runc 1.1 and crun: a memfd
 * holding the binary, sealed against writing, growing, shrinking and
 * further sealing.  Its /proc/PID/exe is that file, which nobody can
 * write.  Each process that enters a container also makes itself
 * non-dumpable first (no /proc/PID/mem, fd, environ, exe for the
 * container's processes unless they hold CAP_SYS_PTRACE).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pspace-run.h"
#include "mnt.h"

#ifndef MFD_ALLOW_SEALING
#define MFD_ALLOW_SEALING 0x0002U
#endif
#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif
#ifndef F_ADD_SEALS
#define F_ADD_SEALS 1033
#define F_GET_SEALS 1034
#define F_SEAL_SEAL 0x0001
#define F_SEAL_SHRINK 0x0002
#define F_SEAL_GROW 0x0004
#define F_SEAL_WRITE 0x0008
#endif
#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif

#ifndef ST_RDONLY
#define ST_RDONLY 1	/* statfs f_flags; <sys/statvfs.h> in glibc */
#endif

#define SEALS (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)

#define OVERLAYFS_MAGIC 0x794c7630
/* The empty lower layer: root's, in root's /run (not in the OCI state root). */
#define EXE_LOWER "/run/pspace-run-exe-lower"

/* Is the mount @id one of our mount namespace's (not a detached one)? */
static bool attached_mount(unsigned long long id)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	unsigned long long m;
	char line[4096];
	bool found = true;	/* unreadable: assume attached */

	if (!f)
		return found;
	found = false;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llu", &m) == 1 && m == id)
			found = true;
	fclose(f);
	return found;
}

/*
 * Is @fd on a read-only overlayfs mounted nowhere in our mount namespace:
 * the detached one overlay_exe() made?  (Root running pspace-run from a
 * read-only overlay mount outside its chroot would pass too: a mount the
 * container cannot reach or make writable either.)
 */
static bool on_detached_overlay(int fd)
{
	unsigned long long id = 0;
	char path[64], line[256];
	struct statfs sfs;
	bool got = false;
	FILE *f;

	if (fstatfs(fd, &sfs) < 0 || sfs.f_type != OVERLAYFS_MAGIC || !(sfs.f_flags & ST_RDONLY))
		return false;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!got && fgets(line, sizeof(line), f))
		got = sscanf(line, "mnt_id: %llu", &id) == 1;
	fclose(f);
	return got && !attached_mount(id);
}

/*
 * Is /proc/self/exe already sealed: on overlay_exe()'s detached overlay,
 * a sealed memfd, or tmpfile_copy()'s (no name left, ours, no write
 * permission for anyone)?  An unsealed memfd or a deleted binary is none.
 */
static bool running_sealed(void)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	struct stat st;
	int seals;

	if (fd < 0)
		return false;
	seals = fcntl(fd, F_GET_SEALS);
	if (fstat(fd, &st) < 0)
		st.st_nlink = 1;
	if (on_detached_overlay(fd)) {
		close(fd);
		return true;
	}
	close(fd);
	if (seals >= 0 && (seals & SEALS) == SEALS)
		return true;
	return st.st_nlink == 0 && st.st_uid == geteuid() && !(st.st_mode & 0222) &&
	       S_ISREG(st.st_mode);
}

/* The name ps and pgrep show: argv[0]'s, not the memfd's fd number. */
static void restore_name(const char *argv0)
{
	const char *base = strrchr(argv0, '/');

	prctl(PR_SET_NAME, base ? base + 1 : argv0, 0, 0, 0);
}

/* The fixture without "exe" runs the host's file; without "overlay", a copy. */
static bool fixture_off_what(const char *what)
{
#ifdef PSPACE_TEST_FIXTURE
	const char *off = getenv("PSPACE_TEST_OFF");

	return off && strstr(off, what);
#else
	(void)what;
	return false;
#endif
}

static bool fixture_off(void)
{
	return fixture_off_what("exe");
}

/* Is the directory @fd root's, written by no one else, and empty? */
static bool empty_root_dir(int fd)
{
	struct stat st;
	struct dirent *e;
	bool empty = true;
	DIR *d;
	int rd;

	if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022))
		return false;
	rd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = rd < 0 ? NULL : fdopendir(rd);
	if (!d) {
		if (rd >= 0)
			close(rd);
		return false;
	}
	while (empty && (e = readdir(d)))
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	closedir(d);
	return empty;
}

/*
 * The binary through a detached, read-only overlayfs of its directory
 * over an empty one (lower layers only: read-only for good); an O_PATH
 * fd to execveat(), or -1 where that cannot be had (not root, no
 * overlayfs, the binary's directory overlapping /run) and the caller
 * copies instead.  Both layers are given as the directories opened and
 * checked here (/proc/self/fd/N); the name must be the running file
 * (device and inode) before the mount, and the same inode, size and
 * mtime through it (the overlay has a device of its own).
 */
static int overlay_exe(const struct stat *exe)
{
	char bin[PATH_MAX], lower[96], opts[128], *name;
	const char *bad;
	int mnt = -1, fd = -1, bindir, empty;
	struct stat st;
	ssize_t n;

	if (geteuid() != 0 || fixture_off_what("overlay"))
		return -1;
	n = readlink("/proc/self/exe", bin, sizeof(bin) - 1);
	if (n <= 1)
		return -1;
	bin[n] = '\0';
	name = strrchr(bin, '/');
	if (bin[0] != '/' || !name || strstr(bin, " (deleted)"))
		return -1;
	*name++ = '\0';
	if (mkdir(EXE_LOWER, 0755) < 0 && errno != EEXIST)
		return -1;
	bindir = open(bin[0] ? bin : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	empty = open(EXE_LOWER, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (bindir < 0 || empty < 0 || !empty_root_dir(empty) ||
	    fstatat(bindir, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    st.st_dev != exe->st_dev || st.st_ino != exe->st_ino)
		goto out;
	snprintf(lower, sizeof(lower), "/proc/self/fd/%d:/proc/self/fd/%d", bindir, empty);
	/* xino off: no "falling back to xino=off" in the log for a /run on another fs. */
	snprintf(opts, sizeof(opts), "xino=off,lowerdir=%s", lower);
	mnt = mnt_new_fs("overlay", opts, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
			 &bad);
	if (mnt < 0 && bad && !strcmp(bad, "xino"))
		mnt = mnt_new_fs("overlay", opts + strlen("xino=off,"),
				 MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, &bad);
	if (mnt < 0)
		goto out;
	fd = openat(mnt, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	close(mnt);
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_ino != exe->st_ino ||
			st.st_size != exe->st_size || st.st_mtim.tv_sec != exe->st_mtim.tv_sec ||
			st.st_mtim.tv_nsec != exe->st_mtim.tv_nsec || !on_detached_overlay(fd))) {
		close(fd);
		fd = -1;
	}
out:
	if (bindir >= 0)
		close(bindir);
	if (empty >= 0)
		close(empty);
	return fd;
}

/* The whole of @exe into @fd. */
static int copy_exe(int fd, int exe, off_t size)
{
	off_t done = 0;

	while (done < size) {
		ssize_t n = sendfile(fd, exe, &done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
	}
	return 0;
}

/*
 * Where memfds may not be executed (vm.memfd_noexec=2): an unlinked
 * O_TMPFILE copy, reopened read-only (an fd open for writing could not be
 * executed).  Writing that file through /proc/PID/exe, once nothing runs
 * it, changes a file nobody will ever run again.  The first directory
 * that allows it and whose mount is not noexec; -1 if none.
 */
static int tmpfile_copy(int exe, off_t size)
{
	static const char *const dirs[] = { "/run", "/dev/shm", "/tmp", "/var/tmp" };
	/* The caller's runtime dir only if it is the caller's own (not root's: su, sudo -E). */
	const char *runtime = geteuid() ? getenv("XDG_RUNTIME_DIR") : NULL;
	size_t i;

	for (i = 0; i <= sizeof(dirs) / sizeof(dirs[0]); i++) {
		const char *dir = i ? dirs[i - 1] : runtime;
		char path[64];
		int fd, ro;

		struct stat st;
		int d;

		if (!dir || *dir != '/')
			continue;
		d = open(dir, O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (d < 0)
			continue;
		if (fstat(d, &st) < 0 || (i == 0 && (st.st_uid != geteuid() || (st.st_mode & 022)))) {
			close(d);
			continue;
		}
		fd = openat(d, ".", O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0500);
		close(d);
		if (fd < 0)
			continue;
		if (fchmod(fd, 0500) < 0) {	/* whatever the umask took away */
			close(fd);
			continue;
		}
		if (copy_exe(fd, exe, size) < 0) {
			close(fd);
			continue;
		}
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		ro = open(path, O_RDONLY | O_CLOEXEC);
		close(fd);
		if (ro >= 0 && faccessat(ro, "", X_OK, AT_EMPTY_PATH | AT_EACCESS) == 0)
			return ro;
		if (ro >= 0)
			close(ro);
	}
	return -1;
}

void reexec_sealed(char **argv)
{
	extern char **environ;
	struct stat st;
	int exe, mfd;

	if (fixture_off())
		return;
	if (running_sealed()) {
		restore_name(argv[0]);
		return;
	}
	exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	/*
	 * A binary the caller may execute but not read (a 0711 copy of
	 * root's run by a user) cannot be copied.  It is not the caller's,
	 * so neither the caller nor the container can write or chmod it,
	 * and the kernel runs an unreadable binary non-dumpable: run it as
	 * it is.  Anything readable is copied, whatever its write bits,
	 * immutable flag or read-only mount say today.
	 */
	if (exe < 0 && errno == EACCES && stat("/proc/self/exe", &st) == 0 &&
	    st.st_uid != geteuid())
		return;
	if (exe < 0 || fstat(exe, &st) < 0)
		die_errno(EXIT_SETUP, "/proc/self/exe");
	mfd = overlay_exe(&st);
	if (mfd >= 0) {
		syscall(SYS_execveat, mfd, "", argv, environ, AT_EMPTY_PATH);
		close(mfd);	/* not executable there (a noexec mount of the binary?): copy */
	}
	mfd = syscall(SYS_memfd_create, "pspace-run", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
	if (mfd < 0 && errno == EINVAL)	/* before 6.3: no MFD_EXEC, executable anyway */
		mfd = syscall(SYS_memfd_create, "pspace-run", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (mfd >= 0) {
		if (copy_exe(mfd, exe, st.st_size) < 0)
			die_errno(EXIT_SETUP, "copy /proc/self/exe into a memfd");
		if (fcntl(mfd, F_ADD_SEALS, SEALS) < 0)
			die_errno(EXIT_SETUP, "seal the memfd copy of pspace-run");
		syscall(SYS_execveat, mfd, "", argv, environ, AT_EMPTY_PATH);
		if (errno != EACCES)
			die_errno(EXIT_SETUP, "execute the sealed copy of pspace-run");
		close(mfd);
	} else if (errno != EACCES && errno != EPERM) {
		die_errno(EXIT_SETUP, "memfd_create (a sealed copy of pspace-run to run from)");
	}
	/* vm.memfd_noexec=2: refused at memfd_create (or, =1 with a seal, at exec). */
	mfd = tmpfile_copy(exe, st.st_size);
	close(exe);
	if (mfd < 0)
		die(EXIT_SETUP, "cannot run from a copy of pspace-run: memfds are not executable here (vm.memfd_noexec) and no O_TMPFILE copy in /run, /dev/shm, /tmp or /var/tmp could be executed");
	syscall(SYS_execveat, mfd, "", argv, environ, AT_EMPTY_PATH);
	die_errno(EXIT_SETUP, "execute the copy of pspace-run");
}

/* Before entering a container: no /proc/PID/{exe,mem,fd,...} for it. */
void make_undumpable(void)
{
	if (fixture_off())
		return;
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		die_errno(EXIT_SETUP, "prctl(PR_SET_DUMPABLE, 0)");
}
