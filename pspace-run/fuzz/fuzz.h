/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fuzz targets (libFuzzer): pspace-run's parsers of untrusted input,
 * built with clang, ASan and UBSan against glibc.  They call exit() and
 * _exit() on every refusal, which libFuzzer would take for a crash: the
 * link wraps both (-Wl,--wrap=exit,--wrap=_exit) and, inside a target,
 * a wrapped exit jumps back to it instead (exit.c).
 */
#ifndef PSPACE_RUN_FUZZ_H
#define PSPACE_RUN_FUZZ_H

#include <setjmp.h>
#include <stdbool.h>

extern jmp_buf fuzz_exit;
extern bool fuzz_in_target;

/* Run @call; true if it returned, false if it exited (a refusal). */
#define FUZZ_RUN(call) ({					\
	bool returned_ = false;					\
	if (!setjmp(fuzz_exit)) {				\
		fuzz_in_target = true;				\
		call;						\
		returned_ = true;				\
	}							\
	fuzz_in_target = false;					\
	returned_;						\
})

#endif
