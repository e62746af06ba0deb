// SPDX-License-Identifier: GPL-2.0
/*
 * Error reporting: one line, naming the path or option and the reason;
 * what a failure undoes before the exit; and passing a file descriptor
 * over a unix socket.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pspace-run.h"

const char *progname = "pspace-run";

/*
 * What a failure undoes, newest first, pushed by whatever made it: the
 * caller's terminal modes (console.c), a claimed machine name
 * (machine.c), a half-made OCI container (oci-create.c).  An entry
 * pushed for its own process only is not undone by a child that
 * inherited it: a container's leader that fails undoes nothing of
 * pspace-run's.
 */
static struct {
	void (*fn)(void);
	pid_t owner;	/* 0: in whichever process fails */
} undo[8];
static int nundo;

void on_failure(void (*fn)(void), bool this_process_only)
{
	int i;

	for (i = 0; i < nundo; i++)
		if (undo[i].fn == fn)
			return;
	if (nundo == (int)(sizeof(undo) / sizeof(undo[0]))) {
		fprintf(stderr, "%s: internal error: too many things to undo\n", progname);
		_exit(EXIT_SETUP);
	}
	undo[nundo].fn = fn;
	undo[nundo++].owner = this_process_only ? getpid() : 0;
}

void on_failure_cancel(void (*fn)(void))
{
	int i;

	for (i = 0; i < nundo; i++)
		if (undo[i].fn == fn) {
			memmove(&undo[i], &undo[i + 1], (nundo - i - 1) * sizeof(undo[0]));
			nundo--;
			return;
		}
}

void undo_on_failure(void)
{
	pid_t self = getpid();

	while (nundo > 0) {
		nundo--;
		if (!undo[nundo].owner || undo[nundo].owner == self)
			undo[nundo].fn();
	}
}

/*
 * @s for a terminal: every control character shown as \xNN, the C0 ones
 * and DEL, and C1 both as UTF-8 (U+0080..U+009F) and as a stray byte.
 * Messages name what the container or its image made (a path, an
 * argument, a line of a file in ROOT): none of it reaches the caller's
 * terminal as an escape sequence (SECURITY).
 */
void put_escaped(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++) {
		bool stray = *p >= 0x80 && *p <= 0x9f &&
			     (p == (const unsigned char *)s || p[-1] < 0x80);

		if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			fprintf(f, "\\x%02x\\x%02x", p[0], p[1]);
			p++;
		} else if (*p < 0x20 || *p == 0x7f || stray) {
			fprintf(f, "\\x%02x", *p);
		} else {
			fputc(*p, f);
		}
	}
}

static void vreport(int err, const char *fmt, va_list ap)
{
	char msg[4096];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "%s: ", progname);
	put_escaped(stderr, msg);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

void die(int status, const char *fmt, ...)
{
	va_list ap;

	undo_on_failure();
	va_start(ap, fmt);
	vreport(0, fmt, ap);
	va_end(ap);
	_exit(status);
}

void die_errno(int status, const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	undo_on_failure();
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

/* One byte carrying one file descriptor (SCM_RIGHTS). */
struct fd_msg {
	char data;
	struct iovec iov;
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr msg;
};

static void init_fd_msg(struct fd_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->data = 'm';
	m->iov.iov_base = &m->data;
	m->iov.iov_len = 1;
	m->msg.msg_iov = &m->iov;
	m->msg.msg_iovlen = 1;
	m->msg.msg_control = m->u.buf;
	m->msg.msg_controllen = sizeof(m->u.buf);
}

/* 0, or -1 with errno set. */
int send_fd(int sock, int fd)
{
	struct fd_msg m;
	struct cmsghdr *c;

	init_fd_msg(&m);
	c = CMSG_FIRSTHDR(&m.msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &m.msg, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

/* The descriptor, close-on-exec, or -1. */
int receive_fd(int sock)
{
	struct fd_msg m;
	struct cmsghdr *c;
	ssize_t n;
	int fd;

	init_fd_msg(&m);
	do
		n = recvmsg(sock, &m.msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		return -1;
	c = CMSG_FIRSTHDR(&m.msg);
	if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
	    c->cmsg_len != CMSG_LEN(sizeof(int)))
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}
