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
 * So pspace-run first re-executes itself from a sealed copy, as runc and
 * crun do: a memfd holding the binary, sealed against writing, growing,
 * shrinking and further sealing, then execveat()ed.  Its /proc/PID/exe
 * is that memfd (nothing on the host's file system), which nobody can
 * write.  Each process that enters a container also makes itself
 * non-dumpable first (no /proc/PID/mem, fd, environ, exe for the
 * container's processes unless they hold CAP_SYS_PTRACE).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pspace-run.h"

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

#define SEALS (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)

/* Is /proc/self/exe already a sealed copy? */
static bool running_sealed(void)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	int seals;

	if (fd < 0)
		return false;
	seals = fcntl(fd, F_GET_SEALS);
	close(fd);
	return seals >= 0 && (seals & SEALS) == SEALS;
}

/* The name ps and pgrep show: argv[0]'s, not the memfd's fd number. */
static void restore_name(const char *argv0)
{
	const char *base = strrchr(argv0, '/');

	prctl(PR_SET_NAME, base ? base + 1 : argv0, 0, 0, 0);
}

static bool fixture_off(void)
{
#ifdef PSPACE_TEST_FIXTURE
	const char *off = getenv("PSPACE_TEST_OFF");

	return off && strstr(off, "exe");
#else
	return false;
#endif
}

void reexec_sealed(char **argv)
{
	extern char **environ;
	struct stat st;
	off_t done = 0;
	int exe, mfd;

	if (fixture_off())
		return;
	if (running_sealed()) {
		restore_name(argv[0]);
		return;
	}
	exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (exe < 0 || fstat(exe, &st) < 0)
		die_errno(EXIT_SETUP, "/proc/self/exe");
	mfd = syscall(SYS_memfd_create, "pspace-run", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
	if (mfd < 0 && errno == EINVAL)	/* before 6.3: no MFD_EXEC, executable anyway */
		mfd = syscall(SYS_memfd_create, "pspace-run", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (mfd < 0)
		die_errno(EXIT_SETUP, "memfd_create (a sealed copy of pspace-run to run from)");
	while (done < st.st_size) {
		ssize_t n = sendfile(mfd, exe, NULL, st.st_size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die_errno(EXIT_SETUP, "copy /proc/self/exe into a memfd");
		done += n;
	}
	close(exe);
	if (fcntl(mfd, F_ADD_SEALS, SEALS) < 0)
		die_errno(EXIT_SETUP, "seal the memfd copy of pspace-run");
	syscall(SYS_execveat, mfd, "", argv, environ, AT_EMPTY_PATH);
	die_errno(EXIT_SETUP, "execute the sealed copy of pspace-run (vm.memfd_noexec?)");
}

/* Before entering a container: no /proc/PID/{exe,mem,fd,...} for it. */
void make_undumpable(void)
{
	if (fixture_off())
		return;
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		die_errno(EXIT_SETUP, "prctl(PR_SET_DUMPABLE, 0)");
}
