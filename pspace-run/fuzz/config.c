// SPDX-License-Identifier: GPL-2.0
/*
 * config.json, as an engine or a user hands it to the OCI runtime: the
 * whole reader (oci-config.c: JSON, every field, seccomp filters built
 * with libseccomp, never loaded) on arbitrary bytes.  A refusal is fine;
 * a crash, a leak of memory errors, undefined behaviour are not.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../pspace-run.h"
#include "../oci.h"
#include "fuzz.h"

static char bundle[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char rootfs[128];

	(void)argc;
	(void)argv;
	snprintf(bundle, sizeof(bundle), "/tmp/pspace-run-fuzz.XXXXXX");
	if (!mkdtemp(bundle))
		abort();
	snprintf(rootfs, sizeof(rootfs), "%s/rootfs", bundle);
	if (mkdir(rootfs, 0755) < 0)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	FUZZ_RUN(oci_parse_spec(text, size, bundle));
	free(text);
	return 0;
}
