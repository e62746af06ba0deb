// SPDX-License-Identifier: GPL-2.0
/*
 * The attack fixture's switches (PSPACE_TEST_OFF=NAME,...: enum test_off
 * in pspace-run.h, one bit per name in the order of names[] below) and
 * its pauses (PSPACE_TEST_PAUSE=STAGE:FILE), for both front ends.  In
 * pspace-run itself, built without PSPACE_TEST_FIXTURE, both do nothing.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pspace-run.h"

/* The test fixture's switches (pspace-run.h); nothing in pspace-run itself. */
unsigned int test_off_env(void)
{
	unsigned int bits = 0;
#ifdef PSPACE_TEST_FIXTURE
	static const char *const names[] = {
		"inroot", "sysro", "procmask", "fds", "ns", "capsets", "join", "init",
		"devices", "moveroot", "devnodes", "exe", "puro", "apifd", "suid",
		"autokill", "npspace", "pidns",
	};
	const char *off = getenv("PSPACE_TEST_OFF");
	size_t i;

	for (i = 0; off && i < sizeof(names) / sizeof(names[0]); i++) {
		const char *p = strstr(off, names[i]);

		if (p && (p == off || p[-1] == ',') && (!p[strlen(names[i])] ||
							 p[strlen(names[i])] == ','))
			bits |= 1U << i;
	}
#endif
	return bits;
}

/*
 * The fixture's pause points: PSPACE_TEST_PAUSE=STAGE:FILE makes the
 * process reaching STAGE create FILE and wait (up to 20 s) until the
 * test removes it, so that an attack can act in a window a racer would
 * have to hit; PSPACE_TEST_PAUSE=STAGE:ms=N just sleeps N ms there.
 * Nothing in pspace-run itself.
 */
void test_pause(const char *stage)
{
#ifdef PSPACE_TEST_FIXTURE
	const char *p = getenv("PSPACE_TEST_PAUSE");
	size_t n = strlen(stage);
	int fd, i;

	if (!p || strncmp(p, stage, n) || p[n] != ':')
		return;
	if (!strncmp(p + n + 1, "ms=", 3)) {	/* STAGE:ms=N: just sleep */
		usleep(atoi(p + n + 4) * 1000);
		return;
	}
	fd = open(p + n + 1, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	close(fd);
	for (i = 0; i < 2000 && access(p + n + 1, F_OK) == 0; i++)
		usleep(10000);
#else
	(void)stage;
#endif
}
