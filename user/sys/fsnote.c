// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * fsnote.c - the filesystem type of a traced superblock and what its
 * journal looks like to the tracer (fsnote.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* mountinfo's octal escapes (\040 for a space) undone, in place */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
				      (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

char *fss_ovl_upperdir(struct libmnt_fs *fs)
{
	const char *opts = mnt_fs_get_fs_options(fs);
	char *val = NULL, *dir;
	size_t len = 0;

	if (!opts || mnt_optstr_get_option(opts, "upperdir", &val, &len) ||
	    !val || !len)
		return NULL;
	dir = strndup(val, len);
	if (dir)
		unescape(dir);
	return dir;
}

int fss_overlays(struct fss_ovl *out, int max)
{
	struct libmnt_table *tb = mnt_new_table_from_file("/proc/self/mountinfo");
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	int n = 0;

	if (!tb || !it) {
		n = errno ? -errno : -ENOMEM;
		goto out;
	}
	while (n < max && mnt_table_next_fs(tb, it, &fs) == 0) {
		const char *type = mnt_fs_get_fstype(fs);
		struct stat st;
		char *dir;

		if (!type || strcmp(type, "overlay"))
			continue;
		dir = fss_ovl_upperdir(fs);
		if (dir && !stat(dir, &st)) {
			out[n].ovl = fss_kdev_from_dev(mnt_fs_get_devno(fs));
			out[n].upper = fss_kdev_from_dev(st.st_dev);
			n++;
		}
		free(dir);
	}
out:
	mnt_free_iter(it);
	mnt_unref_table(tb);
	return n;
}

int fss_mountpoint_of(__u32 kdev, char *buf, size_t len)
{
	char line[8192], root[4096], mnt[4096];
	FILE *f = fopen("/proc/self/mountinfo", "r");
	bool have = false;

	buf[0] = '\0';
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned int maj, min;
		bool whole;

		if (sscanf(line, "%*d %*d %u:%u %4095s %4095s", &maj, &min,
			   root, mnt) != 4 || fss_kdev(maj, min) != kdev)
			continue;
		whole = !strcmp(root, "/");
		if (have && !whole)
			continue;	/* a bind of a subtree: only if nothing else */
		unescape(mnt);
		snprintf(buf, len, "%s", mnt);
		have = true;
		if (whole)
			break;
	}
	fclose(f);
	return have ? 0 : -ENOENT;
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
