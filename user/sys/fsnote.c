// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * fsnote.c - the filesystem type of a traced superblock and what its
 * journal looks like to the tracer (fsnote.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <libmount/libmount.h>
#include "sys/devinfo.h"
#include "sys/fsnote.h"

int fss_fstype_of(__u32 kdev, char *buf, size_t len)
{
	struct libmnt_table *tb = mnt_new_table_from_file("/proc/self/mountinfo");
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	int rc = -ENOENT;

	buf[0] = '\0';
	if (!tb || !it) {
		rc = errno ? -errno : -ENOMEM;
		goto out;
	}
	while (mnt_table_next_fs(tb, it, &fs) == 0) {
		if (fss_kdev_from_dev(mnt_fs_get_devno(fs)) != kdev ||
		    !mnt_fs_get_fstype(fs))
			continue;
		snprintf(buf, len, "%s", mnt_fs_get_fstype(fs));
		rc = 0;
		break;
	}
out:
	mnt_free_iter(it);
	mnt_unref_table(tb);
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
