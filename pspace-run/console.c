// SPDX-License-Identifier: GPL-2.0
/*
 * The interactive console.  The leader allocates a pty in the container's
 * own devpts, makes it its controlling terminal and /dev/console, and
 * hands the master to pspace-run over a socket; pspace-run relays it to
 * its own terminal in raw mode, passes window-size changes on, and puts
 * its terminal back as it was on every way out.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

#include "pspace-run.h"

static struct termios saved;
static bool saved_valid;

static void restore_terminal(void)
{
	if (saved_valid)
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
	saved_valid = false;
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

static void send_fd(int sock, int fd)
{
	struct fd_msg m;
	struct cmsghdr *c;

	init_fd_msg(&m);
	c = CMSG_FIRSTHDR(&m.msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if (sendmsg(sock, &m.msg, 0) != 1)
		die_errno(EXIT_SETUP, "pass the console to pspace-run");
}

static int receive_fd(int sock)
{
	struct fd_msg m;
	struct cmsghdr *c;
	int fd;

	init_fd_msg(&m);
	if (recvmsg(sock, &m.msg, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&m.msg);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/*
 * In the leader, after the new /dev is in place and before pivot_root:
 * a pty of the container's devpts becomes stdio, the controlling
 * terminal (the leader is a session leader already) and /dev/console.
 */
void console_setup_child(const struct config *cfg, int sock)
{
	int master, slave;
	char *name;

	if (cfg->console != CONSOLE_INTERACTIVE)
		return;
	master = open("dev/pts/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0 || grantpt(master) || unlockpt(master))
		die_errno(EXIT_SETUP, "allocate the container's console");
	name = ptsname(master);
	if (!name)
		die_errno(EXIT_SETUP, "ptsname");
	/* ptsname() names it in the host's terms: /dev/pts/N of our devpts. */
	slave = open(name + 1, O_RDWR | O_NOCTTY);
	if (slave < 0)
		die_errno(EXIT_SETUP, "open the console %s", name);
	if (ioctl(slave, TIOCSCTTY, 0) < 0)
		die_errno(EXIT_SETUP, "make the console the controlling terminal");
	if (access("dev/console", F_OK) != 0) {
		int fd = open("dev/console", O_CREAT | O_WRONLY | O_CLOEXEC, 0600);

		if (fd >= 0)
			close(fd);
	}
	if (mount(name + 1, "dev/console", NULL, MS_BIND, NULL) < 0)
		die_errno(EXIT_SETUP, "bind the console on /dev/console");
	send_fd(sock, master);
	close(master);
	close(sock);
	if (dup2(slave, 0) < 0 || dup2(slave, 1) < 0 || dup2(slave, 2) < 0)
		die_errno(EXIT_SETUP, "dup2 the console");
	if (slave > 2)
		close(slave);
}

/* In pspace-run: the master, the terminal in raw mode, the size passed on. */
int console_setup_parent(const struct config *cfg, int sock)
{
	struct termios raw;
	int master;

	if (cfg->console != CONSOLE_INTERACTIVE)
		return -1;
	master = receive_fd(sock);
	close(sock);
	if (master < 0)
		return -1;	/* the leader failed and said why */
	if (tcgetattr(STDIN_FILENO, &saved) == 0) {
		saved_valid = true;
		atexit(restore_terminal);
		raw = saved;
		cfmakeraw(&raw);
		tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	}
	console_resize(master);
	return master;
}

void console_resize(int master)
{
	struct winsize ws;

	if (master >= 0 && ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0)
		ioctl(master, TIOCSWINSZ, &ws);
}

/* Copy what is there from one side to the other; false at the end. */
static bool relay(int from, int to)
{
	char buf[4096];
	ssize_t n = read(from, buf, sizeof(buf)), off = 0;

	if (n <= 0)
		return n < 0 && (errno == EAGAIN || errno == EINTR);
	while (off < n) {
		ssize_t w = write(to, buf + off, n - off);

		if (w < 0 && errno != EINTR && errno != EAGAIN)
			return false;
		if (w > 0)
			off += w;
	}
	return true;
}

/*
 * One round of the relay: waits at most @ms for either side.  Returns
 * false once the console's far end is gone (the leader exited).
 */
bool console_pump(int master, int ms, bool *stdin_open)
{
	struct pollfd p[2] = {
		{ .fd = master, .events = POLLIN },
		{ .fd = *stdin_open ? STDIN_FILENO : -1, .events = POLLIN },
	};

	if (poll(p, 2, ms) <= 0)
		return true;
	if (p[1].revents & (POLLIN | POLLHUP) && !relay(STDIN_FILENO, master))
		*stdin_open = false;
	if (p[0].revents & POLLIN)
		return relay(master, STDOUT_FILENO);
	return !(p[0].revents & (POLLHUP | POLLERR));
}

/* What the container wrote before its end, still in the pty. */
void console_drain(int master)
{
	char buf[4096];
	ssize_t n;

	fcntl(master, F_SETFL, O_NONBLOCK);
	while ((n = read(master, buf, sizeof(buf))) > 0)
		if (write(STDOUT_FILENO, buf, n) < 0)
			break;
}

void console_done(void)
{
	restore_terminal();
}
