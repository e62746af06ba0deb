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
#include <errno.h>
#include <linux/reboot.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/ioctl.h>

#include "pspace-run.h"

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

static void check(int r, const char *what)
{
	if (r < 0) {
		errno = -r;
		die_errno(EXIT_SETUP, "seccomp: %s", what);
	}
}

void install_seccomp(const struct config *cfg)
{
	scmp_filter_ctx ctx;
	size_t i;
	int nr;

	if (!cfg->seccomp)
		return;
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
	check(seccomp_load(ctx), "load the filter");
	seccomp_release(ctx);
}
