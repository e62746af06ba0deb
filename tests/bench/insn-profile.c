// SPDX-License-Identifier: GPL-2.0
/*
 * insn-profile: a QEMU TCG plugin that counts the guest kernel's executed
 * instructions per translation block, between two executions of a marker
 * function, for tests/bench/profile.sh.
 *
 *   qemu-system-x86_64 ... -plugin insn-profile.so,mark=0xADDR,out=FILE
 *
 * The block at ADDR (a kernel function's entry, say ksys_sync: the guest
 * runs sync(1) before and after each workload) marks the profiles: its
 * first, third, fifth... run zeroes every count; its second, fourth...
 * writes "vaddr insns executions last" of every kernel block that ran since
 * to FILE.1, FILE.2, ... (last: the address of the block's last
 * instruction).  Only addresses in the kernel half are counted: user
 * space runs uninstrumented.
 *
 * QEMU 7.2 counts in a block an instruction that the x86 translator
 * abandoned because it crosses into the next page (it starts the next
 * block instead); profile.py takes it out, from "last".  One vCPU only
 * (-icount): the counters are not atomic.
 *
 * Declares the few functions of QEMU's plugin API (version 1, QEMU 7.2)
 * it calls: Debian ships no header for them.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct qemu_info_t qemu_info_t;
enum { QEMU_PLUGIN_CB_NO_REGS };
enum { QEMU_PLUGIN_INLINE_ADD_U64 };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
	void (*cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb));
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
	void (*cb)(unsigned int vcpu, void *data), int flags, void *data);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
	int op, void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
	void (*cb)(qemu_plugin_id_t id, void *data), void *data);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

struct block {
	uint64_t vaddr, insns, count, last;
};

/* Blocks never move once handed to QEMU: chunks, never realloc. */
#define CHUNK 65536
static struct block *chunks[4096];
static size_t nblocks;
static uint64_t mark;
static const char *out;
static int marks;

static struct block *new_block(void)
{
	size_t c = nblocks / CHUNK;

	if (c >= sizeof(chunks) / sizeof(chunks[0]))
		return NULL;
	if (!chunks[c]) {
		chunks[c] = calloc(CHUNK, sizeof(struct block));
		if (!chunks[c])
			return NULL;
	}
	return &chunks[c][nblocks++ % CHUNK];
}

static void each_block(void (*fn)(struct block *b, void *data), void *data)
{
	size_t i;

	for (i = 0; i < nblocks; i++)
		fn(&chunks[i / CHUNK][i % CHUNK], data);
}

static void zero(struct block *b, void *data)
{
	(void)data;
	b->count = 0;
}

static void dump_one(struct block *b, void *data)
{
	if (b->count)
		fprintf(data, "%" PRIx64 " %" PRIu64 " %" PRIu64 " %" PRIx64 "\n",
			b->vaddr, b->insns, b->count, b->last);
}

static void dump(int n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s.%d", out, n);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return;
	}
	each_block(dump_one, f);
	fclose(f);
}

static void on_mark(unsigned int vcpu, void *data)
{
	(void)vcpu;
	(void)data;
	if (++marks % 2)
		each_block(zero, NULL);
	else
		dump(marks / 2);
}

static void on_exit_cb(qemu_plugin_id_t id, void *data)
{
	(void)id;
	(void)data;
	if (marks % 2)
		fprintf(stderr, "insn-profile: marker ran %d times, an odd number: the last profile is missing\n",
			marks);
}

static void on_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	struct block *b;

	(void)id;
	if (vaddr < 0xffff800000000000ULL)
		return;
	b = new_block();
	if (!b) {
		static int told;

		if (!told++)
			fprintf(stderr, "insn-profile: out of block slots, counts are incomplete\n");
		return;
	}
	b->vaddr = vaddr;
	b->insns = qemu_plugin_tb_n_insns(tb);
	b->last = b->insns ? qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, b->insns - 1)) : vaddr;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->count, 1);
	if (vaddr == mark)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_mark,
						     QEMU_PLUGIN_CB_NO_REGS, NULL);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			int argc, char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "mark=", 5))
			mark = strtoull(argv[i] + 5, NULL, 16);
		else if (!strncmp(argv[i], "out=", 4))
			out = argv[i] + 4;
	}
	if (!mark || !out) {
		fprintf(stderr, "insn-profile: needs mark=ADDR,out=FILE\n");
		return 1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_trans);
	qemu_plugin_register_atexit_cb(id, on_exit_cb, NULL);
	return 0;
}
