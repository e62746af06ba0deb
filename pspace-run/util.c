// SPDX-License-Identifier: GPL-2.0
/* Error reporting: one line, naming the path or option and the reason. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pspace-run.h"

const char *progname = "pspace-run";

static void vreport(int err, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", progname);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

void die(int status, const char *fmt, ...)
{
	va_list ap;

	console_done();	/* the terminal as it was, whatever happens */
	machine_release();	/* the name is free again (in pspace-run only) */
	va_start(ap, fmt);
	vreport(0, fmt, ap);
	va_end(ap);
	_exit(status);
}

void die_errno(int status, const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	console_done();
	machine_release();
	va_start(ap, fmt);
	vreport(err, fmt, ap);
	va_end(ap);
	_exit(status);
}

void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(0, fmt, ap);
	va_end(ap);
}

void warn_errno(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vreport(err, fmt, ap);
	va_end(ap);
}

/* -v: what is being set up.  --quiet wins over -v. */
void verbose(const struct config *cfg, const char *fmt, ...)
{
	va_list ap;

	if (!cfg->verbose || cfg->quiet)
		return;
	va_start(ap, fmt);
	vreport(0, fmt, ap);
	va_end(ap);
}

/* Not an error, but worth a line (a forced stop): silenced by --quiet. */
void notice(const struct config *cfg, const char *fmt, ...)
{
	va_list ap;

	if (cfg->quiet)
		return;
	va_start(ap, fmt);
	vreport(0, fmt, ap);
	va_end(ap);
}
