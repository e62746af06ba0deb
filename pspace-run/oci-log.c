// SPDX-License-Identifier: GPL-2.0
/*
 * The OCI runtime's settings of this run (--root, --log, --log-format,
 * --debug) and its log: one line on stderr, and a line (text or JSON,
 * as runc writes them) appended to --log.  Every oci-*.c file reports
 * through here; the dispatcher (oci-main.c) only fills the settings.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pspace-run.h"
#include "oci.h"

struct oci_global oci = { .root = OCI_DEFAULT_ROOT, .root_fd = -1 };

static void json_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
}

/* Messages name DIR as the user gave it, not the /proc/self/fd path it is used by. */
static void unpin(char *msg, size_t size)
{
	size_t pin = strlen(oci.root_pin), root = strlen(oci.root);
	char *p = msg;

	while (pin && (p = strstr(p, oci.root_pin))) {
		if (p[pin] && p[pin] != '/') {	/* fd 20 in "/proc/self/fd/201" */
			p += pin;
			continue;
		}
		if (strlen(msg) - pin + root >= size)
			return;
		memmove(p + root, p + pin, strlen(p + pin) + 1);
		memcpy(p, oci.root, root);
		p += root;
	}
}

static void vlog(const char *level, const char *fmt, va_list ap)
{
	char msg[2048], when[64];
	struct timespec ts;
	struct tm tm;
	FILE *f;
	int fd;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	unpin(msg, sizeof(msg));
	if (strcmp(level, "debug") || oci.debug) {
		fprintf(stderr, "%s: %s%s", progname, strcmp(level, "error") ? level : "",
			strcmp(level, "error") ? ": " : "");
		put_escaped(stderr, msg);
		fputc('\n', stderr);
	}
	if (!oci.log)
		return;
	fd = open(oci.log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600);
	if (fd < 0)
		return;
	f = fdopen(fd, "a");
	if (!f) {
		close(fd);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (oci.log_json) {
		fprintf(f, "{\"level\":\"%s\",\"msg\":\"", level);
		json_escape(f, msg);
		fprintf(f, "\",\"time\":\"%s\"}\n", when);
	} else {
		fprintf(f, "%s %s: %s\n", when, level, msg);
	}
	fclose(f);
}

void oci_log(const char *level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, fmt, ap);
	va_end(ap);
}

/* An error of the runtime itself: logged, what was made undone, exit. */
void oci_fail(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("error", fmt, ap);
	va_end(ap);
	undo_on_failure();
	exit(status);
}
