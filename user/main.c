// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* fsyncscope - explain why a sync is slow.  Subcommand dispatch. */
#include <stdio.h>
#include <string.h>
#include "cmd/commands.h"
#include "lib/version.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} cmds[] = {
	{ "run", cmd_run, "drive syncs (pg_test_fsync superset) and explain them" },
	{ "devices", cmd_devices, "block device facts: write cache, FUA, NVMe VWC" },
	{ "trace", cmd_trace, "attach to a running host: why are its syncs slow" },
	{ "compare", cmd_compare, "the same syncs on ext4, xfs, btrfs side by side" },
	{ "report", cmd_report, "render a saved result: HTML, CSV, JSON, histograms" },
	{ "diff", cmd_diff, "is B slower than A? per phase, with 95% intervals" },
	{ "exporter", cmd_exporter, "serve the breakdown to Prometheus (/metrics, textfile)" },
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: fsyncscope COMMAND [OPTION...]\n"
		   "Explain why a sync is slow: split every fsync/fdatasync/O_DSYNC write\n"
		   "into filesystem, journal, block-queue, device-write and device-flush time.\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\n'fsyncscope COMMAND --help' for the options of a command.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("fsyncscope %s\n", FSS_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "fsyncscope: unknown command '%s' (try 'fsyncscope --help')\n", argv[1]);
	return 2;
}
