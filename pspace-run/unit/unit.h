/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host unit tier (make -C pspace-run check): TAP on stdout, one
 * plain "N passed, N failed" line at the end.  A check that makes
 * pspace-run exit (die(), a bad option) runs in a child of its own,
 * whose status, stdout and stderr come back to be looked at.
 */
#ifndef PSPACE_RUN_UNIT_H
#define PSPACE_RUN_UNIT_H

#include <stdbool.h>

struct outcome {
	int status;	/* the exit status; 128 + N for death by signal N */
	char out[8192];
	char err[8192];
};

/* Run @fn(@arg) in a child (5 s at most); @fn returning means exit 0. */
void run_child(void (*fn)(void *arg), void *arg, struct outcome *o);

/* One TAP line; false when @cond is. */
bool ok(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A check that cannot run here, and why. */
void skip(const char *what, const char *why);
/* A line of diagnostics after a failed check. */
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A scratch directory of its own, removed by unit_end(). */
const char *scratch_dir(void);
/* Make the scratch directory; -1 on failure. */
int unit_begin(void);
/* Remove it, print the plan and "N passed, N failed[, N skipped]": the exit status. */
int unit_end(void);

void unit_options(void);
void unit_signals(void);
void unit_mounts(void);
void unit_env_file(void);
void unit_oci_config(void);
void unit_inroot(void);
void unit_failure(void);
void unit_escapes(void);

#endif
