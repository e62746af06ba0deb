// SPDX-License-Identifier: GPL-2.0
/* What /proc/PID/status says of a process: one reader for --join, --list and the names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pspace-run.h"

bool read_proc_info(pid_t pid, struct proc_info *pi)
{
	char name[64], line[512];
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/status", (int)pid);
	f = fopen(name, "re");
	if (!f)
		return false;
	memset(pi, 0, sizeof(*pi));
	pi->pid = pid;
	pi->ppid = -1;
	while (fgets(line, sizeof(line), f)) {
		char *p, *end;

		if (!strncmp(line, "PPid:", 5)) {
			pi->ppid = strtol(line + 5, NULL, 10);
		} else if (!strncmp(line, "NSpid:", 6)) {
			for (p = line + 6;; p = end) {
				long v = strtol(p, &end, 10);

				if (end == p)
					break;
				pi->levels++;
				pi->outer = pi->innermost;
				pi->innermost = v;
			}
		} else if (!strncmp(line, "PSpace:\t", 8)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(pi->path, sizeof(pi->path), "%.255s", line + 8);
		}
	}
	fclose(f);
	return pi->levels > 0;
}
