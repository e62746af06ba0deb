// SPDX-License-Identifier: GPL-2.0
/*
 * The container's stdio.  No terminal of the caller ever enters the
 * container, in any mode: a terminal fd in a container is a keyboard
 * (TIOCSTI, TIOCLINUX) into the caller's shell.
 *
 * interactive (stdin is a terminal): the leader allocates a pty in the
 *   container's own devpts, makes it its controlling terminal and
 *   /dev/console, and puts it in place of each of stdin, stdout and
 *   stderr that is a terminal (the others, pipes or files, pass straight
 *   through).  pspace-run gets the master over a socket and relays it to
 *   its own terminal in raw mode.
 * pipe: stdio passes straight through, but for a terminal: each of
 *   stdin, stdout and stderr that is one is replaced by a pipe that
 *   pspace-run relays.  The leader has no controlling terminal.
 *
 * The relay is non-blocking on both sides with a buffer each way, and is
 * driven by supervise()'s poll loop (console_poll_fds/console_poll_done),
 * so a full pipe or a paste into a busy container never blocks signals.
 * The caller's terminal is reopened (/proc/self/fd/N) for the relay, so
 * that O_NONBLOCK never reaches the file description the caller's shell
 * shares.  pspace-run only reads its terminal and only switches it to raw
 * mode while it is in the terminal's foreground process group: started
 * with "&", it neither stops on SIGTTOU/SIGTTIN nor steals the shell's
 * input; "fg" makes it take the terminal.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "pspace-run.h"
#include "mnt.h"

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef OPEN_TREE_CLOEXEC
#define OPEN_TREE_CLOEXEC O_CLOEXEC
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif

#define RELAY_BUF (64 * 1024)

/* One direction of the relay: what was read from @from, not yet written to @to. */
struct relay {
	int from, to;		/* -1: that side is finished */
	bool from_tty;		/* @from is the caller's terminal: read in the foreground only */
	bool close_to;		/* close @to once @from ended and the buffer is out */
	size_t off, len;
	char buf[RELAY_BUF];
};

static struct {
	enum console_mode mode;
	bool tty[3];		/* which of the caller's stdin/stdout/stderr is a terminal */
	int child_end[3];	/* pipe mode: what the leader gets in place of fd N */
	int parent_end[3];	/* pipe mode: pspace-run's end of that pipe */
	int sock[2];		/* interactive: the master travels over this */
	int master, peer;	/* interactive: the pty, and a slave kept open here */
	int term_fd[3];		/* the caller's terminal on fd N, reopened for the relay */
	int term;		/* term_fd[0]: the one read, set raw, asked for the size */
	int out;		/* interactive: where the pty's output goes */
	bool shared[3];		/* fallback: term_fd[N] is fd N itself... */
	bool nonblock[3];	/* ... O_NONBLOCK set on it (in pspace-run, after the clone)... */
	int flags[3];		/* ... and these its flags before */
	bool raw;		/* the terminal is in raw mode (saved holds the old mode) */
	struct termios saved;
	int nrelays;
} con = {
	.child_end = { -1, -1, -1 }, .parent_end = { -1, -1, -1 }, .sock = { -1, -1 },
	.master = -1, .peer = -1, .term_fd = { -1, -1, -1 }, .term = -1, .out = -1,
};
/* Apart from the rest: zeroes, in .bss, not 192 KiB of .data in the binary. */
static struct relay relays[3];

static void restore_terminal(void)
{
	sigset_t ttou, old;

	if (!con.raw)
		return;
	con.raw = false;
	/* Whatever happened meanwhile, restoring it never stops us. */
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, &old);
	tcflush(con.term, TCIFLUSH);
	tcsetattr(con.term, TCSANOW, &con.saved);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

void console_done(void)
{
	int fd;

	restore_terminal();
	for (fd = 2; fd >= 0; fd--)
		if (con.nonblock[fd]) {
			fcntl(fd, F_SETFL, con.flags[fd]);
			con.nonblock[fd] = false;
		}
}

/*
 * The caller's terminal fd @fd, as a file description of our own (so that
 * O_NONBLOCK stays ours); failing that (no /proc), @fd itself, which gets
 * O_NONBLOCK in console_setup_parent and its flags back at the end.
 */
static int reopen_terminal(int fd)
{
	char path[32];
	int f;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	f = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (f >= 0 && isatty(f))
		return f;
	if (f >= 0)
		close(f);
	con.shared[fd] = true;
	return fd;
}

/*
 * Before the leader (or a joined process) is started, and before --join
 * enters the container (whose /proc has no /proc/self for us): which of
 * stdio is a terminal, that terminal reopened, and the pipes or the
 * socket that replace it inside.
 */
void console_prepare(const struct config *cfg)
{
	int fd, p[2];

	/* The terminal as it was, whatever fails, in whichever process. */
	on_failure(console_done, false);
	/* A closed stdio fd would be taken by the next open(), and inherited. */
	for (fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
			die_errno(EXIT_SETUP, "/dev/null");
	con.mode = cfg->console;
	for (fd = 0; fd < 3; fd++) {
		con.tty[fd] = isatty(fd);
		if (con.tty[fd])
			con.term_fd[fd] = reopen_terminal(fd);
	}
	con.term = con.term_fd[0];
	if (con.mode == CONSOLE_INTERACTIVE) {
		/*
		 * What the container writes to its terminal goes to ours:
		 * stdout's, else stderr's; with neither a terminal, to stdout
		 * (a pipe reopened for O_NONBLOCK of our own, a file as it is).
		 */
		struct stat st;

		con.out = con.tty[1] ? con.term_fd[1] : con.tty[2] ? con.term_fd[2] : 1;
		if (con.out == 1 && fstat(1, &st) == 0 && S_ISFIFO(st.st_mode)) {
			int f = open("/proc/self/fd/1", O_WRONLY | O_NONBLOCK | O_CLOEXEC);

			if (f >= 0)
				con.out = f;
		}
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, con.sock) < 0)
			die_errno(EXIT_SETUP, "socketpair");
		return;
	}
	for (fd = 0; fd < 3; fd++) {
		if (!con.tty[fd])
			continue;
		if (pipe2(p, O_CLOEXEC) < 0)
			die_errno(EXIT_SETUP, "pipe");
		/* stdin: pspace-run writes, the leader reads; else the other way. */
		con.child_end[fd] = p[fd == 0 ? 0 : 1];
		con.parent_end[fd] = p[fd == 0 ? 1 : 0];
	}
}

/* The bind mount of the console's slave (an fd) on dev/console. */
static void bind_console(int slave)
{
	int tree, fd;

	fd = open("dev/console", O_CREAT | O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
	if (fd < 0)
		die_errno(EXIT_SETUP, "create /dev/console");
	close(fd);
	tree = mnt_clone(slave, "", false);
	if (tree < 0 || mnt_attach_at(tree, AT_FDCWD, "dev/console") < 0)
		die_errno(EXIT_SETUP, "bind the console on /dev/console");
	close(tree);
}

/*
 * In the leader, once the container's /dev is in place, with the working
 * directory at the container's root (before or after pivot_root); in a
 * joined process, after setns and chdir("/").  Afterwards none of fds 0-2
 * is a terminal of the caller.
 */
void console_setup_child(const struct config *cfg, int sock)
{
	int fd, master, slave;

	if (sock < 0)
		sock = con.sock[1];
	/* Nothing of pspace-run's side stays here (the --as-pid2 init never execs). */
	if (con.sock[0] >= 0)
		close(con.sock[0]);
	for (fd = 0; fd < 3; fd++)
		if (con.term_fd[fd] > 2)
			close(con.term_fd[fd]);
	if (con.out > 2 && !con.tty[1] && !con.tty[2])
		close(con.out);
	/*
	 * A session of its own, without the caller's controlling terminal
	 * (/dev/tty): the leader has one already (SPEC 1.6), a joined
	 * process starts one here.
	 */
	if (getsid(0) != getpid() && setsid() < 0)
		die_errno(EXIT_SETUP, "setsid");
	reset_signals();
	if (con.mode != CONSOLE_INTERACTIVE) {
		for (fd = 0; fd < 3; fd++) {
			if (con.child_end[fd] < 0)
				continue;
			if (dup2(con.child_end[fd], fd) < 0)
				die_errno(EXIT_SETUP, "dup2");
			close(con.child_end[fd]);
			close(con.parent_end[fd]);
		}
		return;
	}
	master = open("dev/pts/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0 || unlockpt(master))
		die_errno(EXIT_SETUP, "allocate the container's console");
	/* The slave through the master: no path of the container looked up. */
	slave = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY);
	if (slave < 0)
		die_errno(EXIT_SETUP, "open the container's console");
	if (ioctl(slave, TIOCSCTTY, 0) < 0)
		die_errno(EXIT_SETUP, "make the console the controlling terminal");
	if (!cfg->join)
		bind_console(slave);
	if (send_fd(sock, master) < 0)
		die_errno(EXIT_SETUP, "pass the console to pspace-run");
	close(master);
	close(sock);
	for (fd = 0; fd < 3; fd++)
		if (con.tty[fd] && dup2(slave, fd) < 0)
			die_errno(EXIT_SETUP, "dup2 the console");
	if (slave > 2)
		close(slave);
}

/* The fallback of reopen_terminal(): O_NONBLOCK on the caller's own fd. */
static void set_nonblocking(void)
{
	int fd;

	for (fd = 0; fd < 3; fd++)
		if (con.shared[fd]) {
			con.flags[fd] = fcntl(fd, F_GETFL);
			fcntl(fd, F_SETFL, con.flags[fd] | O_NONBLOCK);
			con.nonblock[fd] = true;
		}
}

static void add_relay(int from, int to, bool from_tty, bool close_to)
{
	struct relay *r = &relays[con.nrelays++];

	r->from = from;
	r->to = to;
	r->from_tty = from_tty;
	r->close_to = close_to;
	r->off = r->len = 0;
}

/*
 * In pspace-run, once the leader is started.  Returns the master in
 * interactive mode, else -1 (also when the leader failed before it sent
 * one: it said why, and its exit status tells).
 */
int console_setup_parent(const struct config *cfg, int sock)
{
	int fd, n;

	(void)cfg;
	on_failure(console_done, false);
	if (con.sock[1] >= 0)
		close(con.sock[1]);
	con.sock[1] = -1;
	if (con.mode != CONSOLE_INTERACTIVE) {
		for (fd = 0; fd < 3; fd++) {
			if (con.child_end[fd] < 0)
				continue;
			close(con.child_end[fd]);
			fcntl(con.parent_end[fd], F_SETFL, O_NONBLOCK);
			if (fd == 0)
				add_relay(con.term, con.parent_end[0], true, true);
			else
				add_relay(con.parent_end[fd], con.term_fd[fd], false, false);
		}
		set_nonblocking();
		return -1;
	}
	if (sock < 0)
		sock = con.sock[0];
	con.master = receive_fd(sock);
	close(sock);
	if (con.sock[0] >= 0 && con.sock[0] != sock)
		close(con.sock[0]);
	con.sock[0] = -1;
	/* Only a pty master will do (TIOCGPTN fails on anything else). */
	if (con.master >= 0 && ioctl(con.master, TIOCGPTN, &n) < 0) {
		close(con.master);
		con.master = -1;
	}
	if (con.master < 0)
		return -1;
	/*
	 * A slave kept open here: the master never reads EIO while the
	 * container closes and reopens its console (systemd does).
	 */
	con.peer = ioctl(con.master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	fcntl(con.master, F_SETFL, O_NONBLOCK);
	set_nonblocking();
	add_relay(con.term, con.master, true, false);
	add_relay(con.master, con.out, false, false);
	console_resize();
	return con.master;
}

void console_resize(void)
{
	struct winsize ws;

	if (con.master >= 0 && ioctl(con.term, TIOCGWINSZ, &ws) == 0)
		ioctl(con.master, TIOCSWINSZ, &ws);
}

/* Are we in the foreground of the caller's terminal? */
static bool foreground(void)
{
	return con.term >= 0 && tcgetpgrp(con.term) == getpgrp();
}

/*
 * Called at the start, on SIGCONT and on every turn of the loop: in the
 * foreground, the terminal goes raw (interactive mode) and is read.
 */
void console_foreground(void)
{
	struct termios raw;

	if (con.mode != CONSOLE_INTERACTIVE || con.master < 0 || con.raw || !foreground())
		return;
	if (tcgetattr(con.term, &con.saved) < 0)
		return;
	raw = con.saved;
	cfmakeraw(&raw);
	if (tcsetattr(con.term, TCSANOW, &raw) == 0)
		con.raw = true;
}

/* The poll timeout: a check once a second for "fg" while in the background. */
int console_poll_timeout(void)
{
	int i;

	for (i = 0; i < con.nrelays; i++)
		if (relays[i].from_tty && relays[i].from >= 0 && !foreground())
			return 1000;
	return -1;
}

/* What the relay waits for: two entries per direction at most. */
int console_poll_fds(struct pollfd *p, bool draining)
{
	bool fg = foreground();
	int i, n = 0;

	for (i = 0; i < con.nrelays; i++) {
		struct relay *r = &relays[i];
		bool reading = r->from >= 0 && r->off + r->len < RELAY_BUF &&
			       !(r->from_tty && (draining || !fg));

		p[n].fd = reading ? r->from : -1;
		p[n++].events = POLLIN;
		p[n].fd = r->len && r->to >= 0 ? r->to : -1;
		p[n++].events = POLLOUT;
	}
	return n;
}

static void end_from(struct relay *r)
{
	/* The master is shared by both directions; it is closed at the end. */
	if (r->from != con.master && r->from != con.term)
		close(r->from);
	/* (con.term stays open: the terminal is restored through it.) */
	r->from = -1;
}

static void relay_in(struct relay *r)
{
	ssize_t n;

	if (r->off + r->len == RELAY_BUF) {
		memmove(r->buf, r->buf + r->off, r->len);
		r->off = 0;
	}
	n = read(r->from, r->buf + r->off + r->len, RELAY_BUF - r->off - r->len);
	if (n > 0) {
		if (r->to < 0)
			return;	/* nobody to write to: dropped, so the writer never blocks */
		r->len += n;
	} else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
		end_from(r);	/* EOF, or EIO: the terminal hung up */
	}
}

static void relay_out(struct relay *r)
{
	ssize_t n = write(r->to, r->buf + r->off, r->len);

	if (n > 0) {
		r->off += n;
		r->len -= n;
		if (!r->len)
			r->off = 0;
	} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
		/* EPIPE: the reader is gone; what follows is dropped. */
		r->len = r->off = 0;
		if (r->close_to)
			close(r->to);
		r->to = -1;
	}
}

void console_poll_done(const struct pollfd *p)
{
	int i;

	for (i = 0; i < con.nrelays; i++) {
		struct relay *r = &relays[i];

		if (p[2 * i].fd >= 0 && p[2 * i].revents)
			relay_in(r);
		if (p[2 * i + 1].fd >= 0 && p[2 * i + 1].revents)
			relay_out(r);
		/* The input ended and is all out: the container sees EOF. */
		if (r->from < 0 && !r->len && r->close_to && r->to >= 0) {
			close(r->to);
			r->to = -1;
		}
	}
}

/* Is there anything left to carry from the container to the caller? */
static bool output_pending(void)
{
	int i;

	for (i = 0; i < con.nrelays; i++) {
		struct relay *r = &relays[i];

		if (r->from_tty)
			continue;
		if ((r->from >= 0) || (r->len && r->to >= 0))
			return true;
	}
	return false;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/*
 * After the leader is gone (and with it every process of the pspace):
 * what the container wrote is still in the pty or the pipes.  Carry it
 * out until EOF (the master reads EIO once no slave is open and its
 * buffer is empty), for two seconds at most, then give the terminal back.
 */
void console_finish(void)
{
	struct pollfd p[2 * 3];
	long long deadline = now_ms() + 2000;
	int n, left;

	if (con.peer >= 0)
		close(con.peer);
	con.peer = -1;
	while (output_pending() && (left = deadline - now_ms()) > 0) {
		n = console_poll_fds(p, true);
		if (poll(p, n, left) < 0 && errno != EINTR)
			break;
		console_poll_done(p);
	}
	console_done();
}
