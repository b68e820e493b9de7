// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * devuse.c - is a block device in use (devuse.h): its partitions from
 * sysfs, mounts and swap from libmount, holders from sysfs, and the
 * kernel's exclusive claim.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <libmount/libmount.h>
#include "sys/devuse.h"

/* Copy a string, truncating to the destination (n > 0). */
static void scopy(char *dst, size_t n, const char *src)
{
	size_t l = strnlen(src, n - 1);

	memcpy(dst, src, l);
	dst[l] = '\0';
}

struct blkdev {
	unsigned int major, minor;
	char name[64];
};

static int read_dev_file(const char *path, unsigned int *ma, unsigned int *mi)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%u:%u", ma, mi) == 2;
	fclose(f);
	return ok ? 0 : -1;
}

/* DEV and, for a whole disk, its partitions (from sysfs).  Count or -1. */
static int dev_and_parts(dev_t rdev, struct blkdev *out, int max)
{
	char sys[PATH_MAX], real[PATH_MAX], p[PATH_MAX + 300];
	struct dirent *de;
	const char *slash;
	int n = 0;
	DIR *d;

	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(rdev),
		 minor(rdev));
	if (!realpath(sys, real))
		return -1;
	slash = strrchr(real, '/');
	out[n].major = major(rdev);
	out[n].minor = minor(rdev);
	scopy(out[n].name, sizeof(out[n].name), slash ? slash + 1 : real);
	n++;
	snprintf(p, sizeof(p), "%s/partition", real);
	if (!access(p, F_OK))
		return n;		/* a partition has no partitions */
	d = opendir(real);
	if (!d)
		return n;
	while ((de = readdir(d)) && n < max) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s/partition", real, de->d_name);
		if (access(p, F_OK))
			continue;
		snprintf(p, sizeof(p), "%s/%s/dev", real, de->d_name);
		if (read_dev_file(p, &out[n].major, &out[n].minor))
			continue;
		scopy(out[n].name, sizeof(out[n].name), de->d_name);
		n++;
	}
	closedir(d);
	return n;
}

/* Is path (a mount source, a swap file) the block device b? */
static bool path_is(const char *path, const struct blkdev *b)
{
	struct stat st;

	return path && path[0] == '/' && !stat(path, &st) &&
	       S_ISBLK(st.st_mode) && major(st.st_rdev) == b->major &&
	       minor(st.st_rdev) == b->minor;
}

/* Mount point of a mount of b (by its device number or source), if any. */
static bool mounted_at(const struct blkdev *b, char *mnt, size_t len)
{
	struct libmnt_table *tb;
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	bool found = false;
	dev_t want = makedev(b->major, b->minor);

	tb = mnt_new_table_from_file("/proc/self/mountinfo");

	while (tb && it && !found && !mnt_table_next_fs(tb, it, &fs)) {
		/* btrfs shows an anonymous st_dev: compare the source too */
		found = mnt_fs_get_devno(fs) == want ||
			path_is(mnt_fs_get_srcpath(fs), b);
		if (found)
			snprintf(mnt, len, "%s", mnt_fs_get_target(fs) ?: "?");
	}
	mnt_free_iter(it);
	mnt_unref_table(tb);
	return found;
}

static bool used_as_swap(const struct blkdev *b)
{
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	bool found = false;

	if (tb && !mnt_table_parse_swaps(tb, NULL))
		while (it && !found && !mnt_table_next_fs(tb, it, &fs))
			found = path_is(mnt_fs_get_srcpath(fs), b);
	mnt_free_iter(it);
	mnt_unref_table(tb);
	return found;
}

/* First entry of /sys/dev/block/M:m/holders, or "" when none. */
static void first_holder(const struct blkdev *b, char *out, size_t len)
{
	char p[128];
	struct dirent *de;
	DIR *d;

	out[0] = '\0';
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/holders", b->major,
		 b->minor);
	d = opendir(p);
	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.') {
			scopy(out, len, de->d_name);
			break;
		}
	closedir(d);
}

/* Mounted, swap or held: the device or one of its partitions.  0 or -1. */
static int check_users(const char *dev, const struct blkdev *list, int n,
		       char *err, size_t errlen)
{
	char mnt[PATH_MAX], holder[64];

	for (int i = 0; i < n; i++) {
		const char *what = i ? "its partition " : "";

		if (mounted_at(&list[i], mnt, sizeof(mnt))) {
			snprintf(err, errlen, "%s: %s%s is mounted at %s; "
				 "refusing to destroy it", dev, what,
				 list[i].name, mnt);
			return -1;
		}
		if (used_as_swap(&list[i])) {
			snprintf(err, errlen, "%s: %s%s is in use as swap; "
				 "refusing to destroy it", dev, what,
				 list[i].name);
			return -1;
		}
		first_holder(&list[i], holder, sizeof(holder));
		if (holder[0]) {
			snprintf(err, errlen, "%s: %s%s is held by %s "
				 "(holders/); refusing to destroy it", dev,
				 what, list[i].name, holder);
			return -1;
		}
	}
	return 0;
}

static bool read_only(const struct blkdev *b)
{
	unsigned int ro = 0;
	char p[128];
	FILE *f;

	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/ro", b->major, b->minor);
	f = fopen(p, "r");
	if (f) {
		if (fscanf(f, "%u", &ro) != 1)
			ro = 0;
		fclose(f);
	}
	return ro != 0;
}

int fss_dev_check_unused(const char *dev, char *whole, size_t wlen,
			 char *err, size_t errlen)
{
	struct blkdev list[64];
	struct stat st;
	int n, fd;

	if (stat(dev, &st)) {
		snprintf(err, errlen, "%s: %s", dev, strerror(errno));
		return -1;
	}
	if (!S_ISBLK(st.st_mode)) {
		snprintf(err, errlen, "%s: not a block device; refusing to "
			 "touch it", dev);
		return -1;
	}
	n = dev_and_parts(st.st_rdev, list, 64);
	if (n < 1) {
		snprintf(err, errlen, "%s: not in /sys/dev/block; refusing to "
			 "touch it", dev);
		return -1;
	}
	if (check_users(dev, list, n, err, errlen))
		return -1;
	if (read_only(&list[0])) {
		snprintf(err, errlen, "%s: read-only device", dev);
		return -1;
	}
	/* the kernel's own claim: a mount elsewhere, dm, md, swap, mkfs... */
	fd = open(dev, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s; refusing to destroy it", dev,
			 errno == EBUSY ? "in use (opened exclusively by the "
			 "kernel or another program)" : strerror(errno));
		return -1;
	}
	close(fd);
	snprintf(whole, wlen, "%s", list[0].name);
	return 0;
}
