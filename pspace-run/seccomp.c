// SPDX-License-Identifier: GPL-2.0
/*
 * The default seccomp filter, through libseccomp.  Like systemd-nspawn's
 * it refuses (EPERM) the system calls that turn a kept capability into a
 * way out of the container, or that reach things no namespace separates:
 * open_by_handle_at above all (the 2014 "shocker" escape: with
 * CAP_DAC_READ_SEARCH, a file handle opens any inode of a file system
 * whose root the container does not see), kexec, modules, swap, the
 * kernel keyring, bpf, perf, fanotify, quotas, and the obsolete and
 * CPU-emulation calls.  The calls a capability guards are refused unless
 * that capability is kept (--cap-add), as nspawn does.  Everything else
 * is allowed: this is a deny list, so that what runs under nspawn runs
 * here.  A seccomp filter cannot be lifted from inside, not even with
 * CAP_SYS_ADMIN.
 *
 * The rules cover the x86-64, i386 and x32 entry points alike (a 32-bit
 * int $0x80 has its own numbers); a call from any other ABI is killed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/reboot.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pspace-run.h"
#include "oci.h"

#define ALWAYS (-1)

/* The list the man page gives (SECURITY); keep them the same. */
static const struct {
	const char *name;
	int unless_cap;		/* allowed when this capability is kept */
} denied[] = {
	{ "open_by_handle_at", ALWAYS },
	{ "kexec_load", ALWAYS },
	{ "kexec_file_load", ALWAYS },
	{ "init_module", CAP_SYS_MODULE },
	{ "finit_module", CAP_SYS_MODULE },
	{ "delete_module", CAP_SYS_MODULE },
	{ "create_module", ALWAYS },
	{ "get_kernel_syms", ALWAYS },
	{ "query_module", ALWAYS },
	{ "swapon", ALWAYS },
	{ "swapoff", ALWAYS },
	{ "add_key", ALWAYS },		/* the keyring is not namespaced */
	{ "keyctl", ALWAYS },
	{ "request_key", ALWAYS },
	{ "bpf", ALWAYS },		/* nor is bpffs */
	{ "perf_event_open", ALWAYS },
	{ "fanotify_init", ALWAYS },
	{ "fanotify_mark", ALWAYS },
	{ "lookup_dcookie", ALWAYS },
	{ "nfsservctl", ALWAYS },
	{ "quotactl", ALWAYS },
	{ "quotactl_fd", ALWAYS },
	{ "uselib", ALWAYS },
	{ "ustat", ALWAYS },
	{ "sysfs", ALWAYS },
	{ "_sysctl", ALWAYS },
	{ "modify_ldt", ALWAYS },
	{ "vm86", ALWAYS },
	{ "vm86old", ALWAYS },
	{ "ioperm", CAP_SYS_RAWIO },
	{ "iopl", CAP_SYS_RAWIO },
	{ "pciconfig_iobase", CAP_SYS_RAWIO },
	{ "pciconfig_read", CAP_SYS_RAWIO },
	{ "pciconfig_write", CAP_SYS_RAWIO },
	{ "settimeofday", CAP_SYS_TIME },
	{ "stime", CAP_SYS_TIME },
	{ "clock_settime", CAP_SYS_TIME },
	{ "clock_settime64", CAP_SYS_TIME },
	{ "clock_adjtime", CAP_SYS_TIME },
	{ "clock_adjtime64", CAP_SYS_TIME },
	{ "adjtimex", CAP_SYS_TIME },
	{ "acct", CAP_SYS_PACCT },
	{ "syslog", CAP_SYSLOG },
	{ "ptrace", CAP_SYS_PTRACE },
	/*
	 * A pidfd of a host process comes in through any host socket
	 * (SO_PEERPIDFD, SCM_PIDFD): its fds are the host's (as nspawn,
	 * always refused), and so are its namespaces (the ioctls below).
	 */
	{ "pidfd_getfd", ALWAYS },
	{ "process_vm_readv", CAP_SYS_PTRACE },
	{ "process_vm_writev", CAP_SYS_PTRACE },
	{ "reboot", CAP_SYS_BOOT },
	{ "vhangup", CAP_SYS_TTY_CONFIG },
};

/* reboot(2) commands that are the host's business, not a pspace's. */
static const unsigned int host_reboot[] = {
	LINUX_REBOOT_CMD_KEXEC, LINUX_REBOOT_CMD_CAD_ON, LINUX_REBOOT_CMD_CAD_OFF,
	LINUX_REBOOT_CMD_SW_SUSPEND,
};

/*
 * ioctls that type into a terminal, or take the whole machine's console
 * output (TIOCCONS, one redirect for all): never, whatever the terminal.
 */
static const unsigned long tty_injection[] = { TIOCSTI, TIOCLINUX, TIOCCONS };

/*
 * The pidfs ioctls that open a process's namespaces from its pidfd,
 * PIDFD_GET_CGROUP_NAMESPACE .. PIDFD_GET_UTS_NAMESPACE, _IO(0xFF, 1..10):
 * on a host process's pidfd they are the host's namespaces, whatever
 * the container sees (PIDFD_GET_INFO, _IOWR with a size, stays).
 */
#define PIDFS_IOCTL_NS_MASK 0xffffff00UL
#define PIDFS_IOCTL_NS 0x0000ff00UL

/*
 * --suid (caps.c suid_policy): a mode with S_ISUID or S_ISGID refused to
 * the calls that set one, as systemd's RestrictSUIDSGID=: which argument
 * is the mode, and which the flags that make open() create (-1: none).
 */
static const struct {
	const char *name;
	int mode, flags;
} sets_mode[] = {
	{ "chmod", 1, -1 }, { "fchmod", 1, -1 }, { "fchmodat", 2, -1 }, { "fchmodat2", 2, -1 },
	{ "creat", 1, -1 }, { "mknod", 1, -1 }, { "mknodat", 2, -1 },
	{ "open", 2, 1 }, { "openat", 3, 2 },
};

static void check(int r, const char *what)
{
	if (r < 0) {
		errno = -r;
		die_errno(EXIT_SETUP, "seccomp: %s", what);
	}
}

static void deny_suid_mode(scmp_filter_ctx ctx, const char *name, int mode, int flags)
{
	static const unsigned int bits[] = { S_ISUID, S_ISGID };
	static const unsigned int creates[] = { O_CREAT, O_TMPFILE & ~O_DIRECTORY };
	int nr = seccomp_syscall_resolve_name(name);
	size_t b, c;

	if (nr == __NR_SCMP_ERROR)
		return;
	for (b = 0; b < 2; b++) {
		struct scmp_arg_cmp m = { mode, SCMP_CMP_MASKED_EQ, bits[b], bits[b] };

		if (flags < 0) {
			check(seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1, &m), name);
			continue;
		}
		for (c = 0; c < 2; c++) {
			struct scmp_arg_cmp both[2] = {
				m, { flags, SCMP_CMP_MASKED_EQ, creates[c], creates[c] },
			};

			check(seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EPERM), nr, 2, both), name);
		}
	}
}

/* The default filter for @cfg, not loaded. */
static scmp_filter_ctx build_filter(const struct config *cfg)
{
	scmp_filter_ctx ctx;
	size_t i;
	int nr;

	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		die(EXIT_SETUP, "seccomp: cannot allocate a filter");
	/* no_new_privs is --no-new-privs' business, not the filter's. */
	check(seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0), "no_new_privs attribute");
	check(seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS),
	      "bad-architecture action");
	if (seccomp_arch_native() == SCMP_ARCH_X86_64) {
		int r = seccomp_arch_add(ctx, SCMP_ARCH_X86);

		if (r != -EEXIST)
			check(r, "add the i386 ABI");
		r = seccomp_arch_add(ctx, SCMP_ARCH_X32);
		if (r != -EEXIST)
			check(r, "add the x32 ABI");
	}

	for (i = 0; i < sizeof(denied) / sizeof(denied[0]); i++) {
		int cap = denied[i].unless_cap;

		if (cap != ALWAYS && !(cfg->cap_drop & (1ULL << cap)))
			continue;
		nr = seccomp_syscall_resolve_name(denied[i].name);
		if (nr == __NR_SCMP_ERROR)
			continue;	/* no such call on any of our ABIs */
		check(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0), denied[i].name);
	}
	/*
	 * With CAP_SYS_BOOT kept, reboot(2) halts or restarts the pspace
	 * only.  The kernel takes cmd (and an ioctl's request) as a 32-bit
	 * int and ignores the upper half of the register, which an EQ of
	 * libseccomp compares too: each rule compares the lower 32 bits.
	 */
	if (!(cfg->cap_drop & (1ULL << CAP_SYS_BOOT)))
		for (i = 0; i < sizeof(host_reboot) / sizeof(host_reboot[0]); i++)
			check(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(reboot), 1,
					       SCMP_A2(SCMP_CMP_MASKED_EQ, 0xffffffffUL,
						       host_reboot[i])), "reboot");
	for (i = 0; i < sizeof(tty_injection) / sizeof(tty_injection[0]); i++)
		check(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
				       SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, tty_injection[i])),
		      "ioctl");
	check(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
			       SCMP_A1(SCMP_CMP_MASKED_EQ, PIDFS_IOCTL_NS_MASK, PIDFS_IOCTL_NS)),
	      "ioctl");
	for (i = 0; cfg->no_suid && i < sizeof(sets_mode) / sizeof(sets_mode[0]); i++)
		deny_suid_mode(ctx, sets_mode[i].name, sets_mode[i].mode, sets_mode[i].flags);
	return ctx;
}

/*
 * The container's filter: the one recorded for the container being
 * joined (--join), else the default one, unless --seccomp=off.
 */
void install_seccomp(const struct config *cfg)
{
	scmp_filter_ctx ctx;

	if (cfg->seccomp_prog) {
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, cfg->seccomp_prog) < 0)
			die_errno(EXIT_SETUP, "seccomp: load the container's filter");
		return;
	}
	if (!cfg->seccomp)
		return;
	ctx = build_filter(cfg);
	check(seccomp_load(ctx), "load the filter");
	seccomp_release(ctx);
}

/*
 * The filter each container was given, recorded as the BPF program that
 * was loaded, in RUNDIR/pspace-run/seccomp/WID (0700, root's or the
 * user's: machine.c open_run_dir), with the leader's start time, so that
 * --join loads the very same one, whoever built it: pspace-run's default
 * for a container of its own, the bundle's linux.seccomp for an OCI
 * container (issue 32: --join gave an OCI container's joined processes
 * the default filter, and what its profile refuses ran through --join).
 * A record of a wid whose start time is another is stale: it is never
 * loaded, and the next record made removes it.
 */
struct filter_record {
	uint64_t start_time;
	uint32_t len;		/* instructions that follow */
	uint32_t pad;
};

static void prune_records(int dir)
{
	struct filter_record r;
	struct dirent *e;
	DIR *d;
	int dfd = fcntl(dir, F_DUPFD_CLOEXEC, 0);

	d = dfd < 0 ? NULL : fdopendir(dfd);
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return;
	}
	while ((e = readdir(d))) {
		int fd;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		fd = openat(dir, e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (pread(fd, &r, sizeof(r), 0) != sizeof(r) ||
		    oci_start_time(atoi(e->d_name)) != r.start_time)
			unlinkat(dir, e->d_name, 0);
		close(fd);
	}
	closedir(d);
}

/* Record @ctx (a scmp_filter_ctx) as the filter of the container led by @wid. */
void record_filter(void *ctx, pid_t wid)
{
	struct filter_record r = { .start_time = oci_start_time(wid) };
	char name[16], tmp[32];
	struct stat st;
	int dir, fd;

	dir = open_run_dir("seccomp", true);
	if (dir < 0)
		return;	/* no runtime directory: --join will refuse to guess */
	prune_records(dir);
	snprintf(name, sizeof(name), "%d", (int)wid);
	snprintf(tmp, sizeof(tmp), ".%d.new", (int)wid);
	unlinkat(dir, tmp, 0);
	fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, &r, sizeof(r)) != sizeof(r) || seccomp_export_bpf(ctx, fd) < 0 ||
	    fstat(fd, &st) < 0)
		die_errno(EXIT_SETUP, "seccomp: record the container's filter");
	/* The program's length, known once it is written. */
	r.len = (st.st_size - sizeof(r)) / sizeof(struct sock_filter);
	if (pwrite(fd, &r, sizeof(r), 0) != sizeof(r) || close(fd) < 0 ||
	    renameat(dir, tmp, dir, name) < 0)
		die_errno(EXIT_SETUP, "seccomp: record the container's filter");
	close(dir);
}

/* pspace-run's own containers: the default filter, if there is one. */
void record_default_filter(const struct config *cfg, pid_t wid)
{
	scmp_filter_ctx ctx;

	if (!cfg->seccomp)
		return;
	ctx = build_filter(cfg);
	record_filter(ctx, wid);
	seccomp_release(ctx);
}

/* The filter recorded for the container led by @wid, or NULL. */
struct sock_fprog *recorded_filter(pid_t wid)
{
	struct filter_record r;
	struct sock_fprog *prog;
	struct stat st;
	char name[16];
	int dir, fd;

	dir = open_run_dir("seccomp", false);
	if (dir < 0)
		return NULL;
	snprintf(name, sizeof(name), "%d", (int)wid);
	fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dir);
	if (fd < 0)
		return NULL;
	prog = calloc(1, sizeof(*prog));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !prog ||
	    read(fd, &r, sizeof(r)) != sizeof(r) || r.start_time != oci_start_time(wid) ||
	    r.len == 0 || r.len > BPF_MAXINSNS ||
	    st.st_size != (off_t)(sizeof(r) + r.len * sizeof(struct sock_filter))) {
		close(fd);
		free(prog);
		return NULL;
	}
	prog->len = r.len;
	prog->filter = calloc(r.len, sizeof(struct sock_filter));
	if (!prog->filter ||
	    read(fd, prog->filter, r.len * sizeof(struct sock_filter)) !=
		    (ssize_t)(r.len * sizeof(struct sock_filter)))
		die_errno(EXIT_SETUP, "--join %d: its seccomp filter", (int)wid);
	close(fd);
	return prog;
}
