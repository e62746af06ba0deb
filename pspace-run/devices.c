// SPDX-License-Identifier: GPL-2.0
/*
 * The device policy of the delegated cgroup, as systemd-nspawn's
 * DeviceAllow=: a BPF_PROG_TYPE_CGROUP_DEVICE program on the container's
 * cgroup lets its processes open (and mknod) only the character devices
 * its /dev holds: null zero full random urandom, tty, ptmx and the ptys
 * of its devpts.  Without it, root with CAP_MKNOD makes a node of the
 * host's disk and reads it, whatever the mounts say.  The container
 * cannot take the program off: bpf(2) is in the seccomp filter, and its
 * sub-cgroups inherit it.
 *
 * The program is eleven comparisons; no library writes a device cgroup
 * program, so it is written here (libbpf would need a compiler for BPF).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/mount.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pspace-run.h"

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })
#define LDX_W(d, s, o)	INSN(BPF_LDX | BPF_MEM | BPF_W, d, s, o, 0)
#define AND(d, i)	INSN(BPF_ALU64 | BPF_AND | BPF_K, d, 0, 0, i)
#define MOV(d, i)	INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define JEQ(d, i, o)	INSN(BPF_JMP | BPF_JEQ | BPF_K, d, 0, o, i)
#define JNE(d, i, o)	INSN(BPF_JMP | BPF_JNE | BPF_K, d, 0, o, i)
#define JLT(d, i, o)	INSN(BPF_JMP | BPF_JLT | BPF_K, d, 0, o, i)
#define JGT(d, i, o)	INSN(BPF_JMP | BPF_JGT | BPF_K, d, 0, o, i)
#define JA(o)		INSN(BPF_JMP | BPF_JA, 0, 0, o, 0)
#define EXIT()		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

/*
 * r2 = type (access_type & 0xffff), r3 = major, r4 = minor; a jump's
 * offset counts from the next instruction: ALLOW is at 18, DENY at 20.
 */
static const struct bpf_insn program[] = {
	/*  0 */ LDX_W(2, 1, 0),
	/*  1 */ AND(2, 0xffff),
	/*  2 */ LDX_W(3, 1, 4),
	/*  3 */ LDX_W(4, 1, 8),
	/*  4 */ JNE(2, BPF_DEVCG_DEV_CHAR, 15),	/* no block device */
	/*  5 */ JNE(3, 1, 6),			/* memory devices: */
	/*  6 */ JEQ(4, 3, 11),			/* null */
	/*  7 */ JEQ(4, 5, 10),			/* zero */
	/*  8 */ JEQ(4, 7, 9),			/* full */
	/*  9 */ JEQ(4, 8, 8),			/* random */
	/* 10 */ JEQ(4, 9, 7),			/* urandom */
	/* 11 */ JA(8),
	/* 12 */ JNE(3, 5, 3),			/* 5: tty, ptmx */
	/* 13 */ JEQ(4, 0, 4),
	/* 14 */ JEQ(4, 2, 3),
	/* 15 */ JA(4),
	/* 16 */ JLT(3, 136, 3),		/* 136-143: Unix98 ptys */
	/* 17 */ JGT(3, 143, 2),
	/* 18 */ MOV(0, 1),
	/* 19 */ EXIT(),
	/* 20 */ MOV(0, 0),
	/* 21 */ EXIT(),
};

/*
 * The program loaded and attached to the cgroup @cgroup (a directory
 * fd); -1 with errno set on failure.  Also the OCI runtime's device
 * policy (oci-cgroup.c).
 */
int device_policy_attach(int cgroup)
{
	union bpf_attr attr;
	int prog, saved;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
	attr.insns = (uintptr_t)program;
	attr.insn_cnt = sizeof(program) / sizeof(program[0]);
	attr.license = (uintptr_t)"GPL";
	prog = syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
	if (prog < 0)
		return -1;
	memset(&attr, 0, sizeof(attr));
	attr.target_fd = cgroup;
	attr.attach_bpf_fd = prog;
	attr.attach_type = BPF_CGROUP_DEVICE;
	if (syscall(SYS_bpf, BPF_PROG_ATTACH, &attr, sizeof(attr)) < 0) {
		saved = errno;
		close(prog);
		errno = saved;
		return -1;
	}
	close(prog);
	return 0;
}
