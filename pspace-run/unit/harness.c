// SPDX-License-Identifier: GPL-2.0
/* The unit tier's harness: TAP, a scratch directory, children for what exits. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

static int passed, failed, skipped, number;
static char scratch[64];

bool ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", cond ? "ok" : "not ok", ++number);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (cond)
		passed++;
	else
		failed++;
	fflush(stdout);
	return cond;
}

void skip(const char *what, const char *why)
{
	printf("ok %d - %s # SKIP %s\n", ++number, what, why);
	skipped++;
}

void diag(const char *fmt, ...)
{
	char line[1024], *p, *save = NULL;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	for (p = strtok_r(line, "\n", &save); p; p = strtok_r(NULL, "\n", &save))
		printf("# %s\n", p);
}

/* Everything the child wrote to @fd, into @buf (NUL-terminated, cut at @size). */
static void drain(int fd, char *buf, size_t size, size_t *len)
{
	ssize_t n;

	n = read(fd, buf + *len, size - 1 - *len);
	if (n > 0)
		*len += n;
	buf[*len] = '\0';
}

void run_child(void (*fn)(void *arg), void *arg, struct outcome *o)
{
	int out[2], err[2], status;
	size_t olen = 0, elen = 0;
	struct pollfd p[2];
	int open_fds = 2;
	pid_t pid;

	memset(o, 0, sizeof(*o));
	fflush(stdout);
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
		perror("pipe");
		exit(2);
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		dup2(null, 0);	/* no terminal: --console's default is pipe */
		dup2(out[1], 1);
		dup2(err[1], 2);
		alarm(5);
		fn(arg);
		fflush(stdout);
		fflush(stderr);
		_exit(0);
	}
	close(out[1]);
	close(err[1]);
	p[0] = (struct pollfd){ .fd = out[0], .events = POLLIN };
	p[1] = (struct pollfd){ .fd = err[0], .events = POLLIN };
	while (open_fds > 0 && poll(p, 2, -1) > 0) {
		char *buf[2] = { o->out, o->err };
		size_t *len[2] = { &olen, &elen }, size[2] = { sizeof(o->out), sizeof(o->err) };
		int i;

		for (i = 0; i < 2; i++) {
			size_t before = *len[i];

			if (!p[i].revents)
				continue;
			drain(p[i].fd, buf[i], size[i], len[i]);
			if (*len[i] == before || *len[i] == size[i] - 1) {
				p[i].fd = -1;
				open_fds--;
			}
		}
	}
	close(out[0]);
	close(err[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	o->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

const char *scratch_dir(void)
{
	return scratch;
}

int unit_begin(void)
{
	snprintf(scratch, sizeof(scratch), "/tmp/pspace-run-unit.XXXXXX");
	if (!mkdtemp(scratch)) {
		perror("mkdtemp");
		return -1;
	}
	return 0;
}

int unit_end(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", scratch);
	printf("1..%d\n", number);
	if (skipped)
		printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	else
		printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

