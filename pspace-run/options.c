// SPDX-License-Identifier: GPL-2.0
/* Command line: GNU-style options, the same list as in pspace-run.1. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "pspace-run.h"

#ifndef VERSION
#define VERSION "0.1"
#endif

static char *default_argv[] = { "/sbin/init", NULL };

static void usage(FILE *out, int status)
{
	fprintf(out,
		"Usage: %s [OPTION]... ROOT [COMMAND [ARG]...]\n"
		"Run COMMAND (default /sbin/init) as pid 1 of a new pspace whose root is ROOT.\n"
		"\n"
		"Options:\n"
		"  -q, --quiet      print nothing but errors\n"
		"  -v, --verbose    say what is being set up\n"
		"  -h, --help       display this help and exit\n"
		"  -V, --version    output version information and exit\n"
		"\n"
		"Exit status: COMMAND's own, or 128+N if it died of signal N;\n"
		"125 if pspace-run itself fails, 126 if COMMAND cannot be run,\n"
		"127 if COMMAND is not found.\n",
		progname);
	exit(status);
}

void parse_options(struct config *cfg, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "+qvhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'q':
			cfg->quiet = true;
			break;
		case 'v':
			cfg->verbose++;
			break;
		case 'h':
			usage(stdout, 0);
			break;
		case 'V':
			printf("pspace-run %s\n", VERSION);
			exit(0);
		default:
			fprintf(stderr, "Try '%s --help' for more information.\n", progname);
			exit(EXIT_SETUP);
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "%s: missing ROOT\n", progname);
		fprintf(stderr, "Try '%s --help' for more information.\n", progname);
		exit(EXIT_SETUP);
	}
	cfg->root = argv[optind++];
	cfg->argv = optind < argc ? &argv[optind] : default_argv;
}
