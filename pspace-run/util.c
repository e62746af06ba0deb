// SPDX-License-Identifier: GPL-2.0
/*
 * Error reporting: one line, naming the path or option and the reason;
 * and passing a file descriptor over a unix socket.
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
