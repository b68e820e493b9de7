// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * fsnote.c - the filesystem type of a traced superblock and what its
 * journal looks like to the tracer (fsnote.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "sys/devinfo.h"
#include "sys/fsnote.h"

int fss_fstype_of(__u32 kdev, char *buf, size_t len)
{
	char line[8192];
	FILE *f = fopen("/proc/self/mountinfo", "r");
	int rc = -ENOENT;

	buf[0] = '\0';
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned int maj, min;
		char type[64];
		const char *sep;

		if (sscanf(line, "%*d %*d %u:%u", &maj, &min) != 2 ||
		    fss_kdev(maj, min) != kdev)
			continue;
		/* optional fields end at " - ", then FSTYPE SOURCE OPTIONS */
		sep = strstr(line, " - ");
		if (!sep || sscanf(sep + 3, "%63s", type) != 1)
			continue;
		snprintf(buf, len, "%s", type);
		rc = 0;
		break;
	}
	fclose(f);
	return rc;
}

const char *fss_journal_note(const char *fstype)
{
	if (!strcmp(fstype, "ext4") || !strcmp(fstype, "ext3"))
		return "no jbd2 commit: its syncs needed none (data only, or "
		       "no journal)";
	if (!strcmp(fstype, "xfs"))
		return "no commit thread: xfs forces its log in the syncing "
		       "thread (jrn)";
	if (!strcmp(fstype, "btrfs"))
		return "no commit thread: fsync writes btrfs's log tree itself "
		       "(fs, dwr)";
	if (!fstype[0])
		return "no filesystem mounted from it now: n/a";
	return "no journal that the tracer hooks";
}
