// SPDX-License-Identifier: GPL-2.0
/*
 * The launcher's command line (options.c, binds.c's --bind/--tmpfs,
 * caps.c's lists, signals.c) on arbitrary arguments: the input is split
 * at NUL bytes into argv[1...].
 */
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../pspace-run.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 1), *argv[66], *p, *end;
	struct config *cfg = calloc(1, sizeof(*cfg));
	int argc = 0;

	if (!copy || !cfg) {
		free(copy);
		free(cfg);
		return 0;
	}
	memcpy(copy, data, size);
	copy[size] = '\0';
	argv[argc++] = "pspace-run";
	for (p = copy, end = copy + size; p <= end && argc < 65; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	optind = 0;	/* glibc: start getopt afresh */
	opterr = 0;
	FUZZ_RUN(parse_options(cfg, argc, argv));
	free(copy);
	free(cfg);
	return 0;
}
