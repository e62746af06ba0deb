// SPDX-License-Identifier: GPL-2.0
/* exit() and _exit() inside a fuzz target come back to it (fuzz.h). */
#include <stdlib.h>
#include <unistd.h>

#include "fuzz.h"

jmp_buf fuzz_exit;
bool fuzz_in_target;

void __real_exit(int status) __attribute__((noreturn));
void __real__exit(int status) __attribute__((noreturn));

void __wrap_exit(int status)
{
	if (fuzz_in_target)
		longjmp(fuzz_exit, 1);
	__real_exit(status);
}

void __wrap__exit(int status)
{
	if (fuzz_in_target)
		longjmp(fuzz_exit, 1);
	__real__exit(status);
}
