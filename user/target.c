// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * target.c - what a run's target directory is on (target.h): the
 * filesystem, its block device and disk, their write cache, with a
 * fallback when libmount cannot say, and its JSON for the run document.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <json-c/json.h>
#include "target.h"

/* ---- target facts ----------------------------------------------------- */

/* Copy a string, truncating to the destination. */
static void scopy(char *dst, size_t n, const char *src)
{
	size_t l = strnlen(src, n - 1);

	memcpy(dst, src, l);
	dst[l] = '\0';
}


static const char *fs_magic_name(long type)
{
	switch ((unsigned long)type) {
	case 0xEF53: return "ext2/3/4";
	case 0x58465342: return "xfs";
	case 0x9123683E: return "btrfs";
	case 0x01021994: return "tmpfs";
	case 0x858458F6: return "ramfs";
	case 0x794C7630: return "overlay";
	case 0x6969: return "nfs";
	case 0x65735546: return "fuse";
	case 0xF2F52010: return "f2fs";
	case 0x2FC12FC1: return "zfs";
	default: return "";
	}
}

/* mountinfo: the mount of st_dev whose mount point is the longest prefix */
static void mountinfo_lookup(struct fss_target *t)
{
	char line[3 * PATH_MAX], mnt[PATH_MAX], fstype[64], src[PATH_MAX];
	size_t best = 0;
	FILE *f = fopen("/proc/self/mountinfo", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned int ma, mi;
		char *dash;
		size_t l;

		if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &ma, &mi, mnt) != 3)
			continue;
		if (makedev(ma, mi) != t->st_dev)
			continue;
		dash = strstr(line, " - ");
		if (!dash || sscanf(dash + 3, "%63s %4095s", fstype, src) != 2)
			continue;
		l = strlen(mnt);
		if (strncmp(t->path, mnt, l) ||
		    (t->path[l] != '/' && t->path[l] && strcmp(mnt, "/")))
			continue;
		if (l < best)
			continue;
		best = l;
		scopy(t->mountpoint, sizeof(t->mountpoint), mnt);
		scopy(t->fstype, sizeof(t->fstype), fstype);
		scopy(t->source, sizeof(t->source), src);
	}
	fclose(f);
}

static __u32 sysfs_kdev(const char *name)
{
	char p[PATH_MAX], buf[32];
	unsigned int ma, mi;
	FILE *f;

	snprintf(p, sizeof(p), "/sys/class/block/%s/dev", name);
	f = fopen(p, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%u:%u", &ma, &mi) != 2)
		ma = mi = 0;
	fclose(f);
	return fss_kdev(ma, mi);
}

/*
 * The filesystem's dev_t as the BPF side sees it (i_sb->s_dev, kernel
 * encoding): the MAJ:MIN of its mount in mountinfo.  That is st_dev except
 * on btrfs, where st_dev is the subvolume's own anonymous dev, so filtering
 * on st_dev would drop every sync.  Falls back to st_dev.
 */
static __u32 sb_kdev(const struct fss_target *t)
{
	char line[3 * PATH_MAX], mnt[PATH_MAX];
	unsigned int ma, mi;
	__u32 k = t->fs_kdev;
	FILE *f;

	if (!t->mountpoint[0])
		return k;
	f = fopen("/proc/self/mountinfo", "r");
	if (!f)
		return k;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &ma, &mi, mnt) == 3 &&
		    !strcmp(mnt, t->mountpoint) && (ma || mi))
			k = fss_kdev(ma, mi);	/* the last (top) mount wins */
	fclose(f);
	return k;
}

/* Fallback when fss_target_lookup fails: stat, statfs, mountinfo, sysfs. */
static void target_fallback(const char *dir, struct fss_target *t)
{
	char p[PATH_MAX + 32], real[PATH_MAX], *slash;
	struct statfs sfs;
	struct stat st;

	memset(t, 0, sizeof(*t));
	if (!realpath(dir, t->path))
		snprintf(t->path, sizeof(t->path), "%s", dir);
	if (stat(t->path, &st))
		return;
	t->st_dev = st.st_dev;
	t->fs_kdev = fss_kdev(major(st.st_dev), minor(st.st_dev));
	mountinfo_lookup(t);
	t->fs_kdev = sb_kdev(t);
	if (!t->fstype[0] && !statfs(t->path, &sfs))
		snprintf(t->fstype, sizeof(t->fstype), "%s", fs_magic_name(sfs.f_type));
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u", major(st.st_dev),
		 minor(st.st_dev));
	if (!realpath(p, real))
		return;
	t->has_disk = true;
	slash = strrchr(real, '/');
	scopy(t->fs_blkdev, sizeof(t->fs_blkdev), slash ? slash + 1 : real);
	t->fs_blkdev_kdev = t->fs_kdev;
	snprintf(p, sizeof(p), "%s/partition", real);
	if (!access(p, F_OK) && slash) {
		*slash = '\0';
		slash = strrchr(real, '/');
		scopy(t->disk, sizeof(t->disk), slash ? slash + 1 : real);
		t->disk_kdev = sysfs_kdev(t->disk);
	} else {
		scopy(t->disk, sizeof(t->disk), t->fs_blkdev);
		t->disk_kdev = t->fs_kdev;
	}
}

void fss_target_get(const char *dir, struct target_info *ti)
{
	int rc;

	memset(ti, 0, sizeof(*ti));
	rc = fss_target_lookup(dir, &ti->t);
	if (rc) {
		snprintf(ti->lookup_err, sizeof(ti->lookup_err), "%s", strerror(-rc));
		target_fallback(dir, &ti->t);
	} else {
		ti->looked_up = true;
	}
	if (ti->t.has_disk && ti->t.disk[0] &&
	    !fss_devinfo_read(ti->t.disk, &ti->dev))
		ti->dev_ok = true;
}

const char *fss_target_wc_str(const struct target_info *ti)
{
	if (!ti->t.has_disk)
		return "n/a (no block device)";
	if (!ti->dev_ok || ti->dev.write_cache < 0)
		return "unknown";
	return ti->dev.write_cache ? "write back" : "write through";
}

struct json_object *fss_target_info_json(const struct target_info *ti)
{
	struct json_object *o = NULL, *v;
	const char *dev;

	if (ti->looked_up)
		o = fss_target_json(&ti->t);
	if (!o) {
		o = json_object_new_object();
		json_object_object_add(o, "path", json_object_new_string(ti->t.path));
		json_object_object_add(o, "mountpoint", ti->t.mountpoint[0] ?
				       json_object_new_string(ti->t.mountpoint) : NULL);
		json_object_object_add(o, "source", ti->t.source[0] ?
				       json_object_new_string(ti->t.source) : NULL);
		json_object_object_add(o, "disk", ti->t.disk[0] ?
				       json_object_new_string(ti->t.disk) : NULL);
		json_object_object_add(o, "lookup_error",
				       json_object_new_string(ti->lookup_err));
	}
	/* the run contract's keys, whatever the lookup produced */
	if (!json_object_object_get_ex(o, "fs", &v))
		json_object_object_add(o, "fs", ti->t.fstype[0] ?
				       json_object_new_string(ti->t.fstype) : NULL);
	dev = ti->t.fs_blkdev[0] ? ti->t.fs_blkdev : ti->t.disk;
	if (!json_object_object_get_ex(o, "device", &v))
		json_object_object_add(o, "device", dev[0] ?
				       json_object_new_string(dev) : NULL);
	if (!json_object_object_get_ex(o, "write_cache", &v)) {
		const char *wc = fss_target_wc_str(ti);

		json_object_object_add(o, "write_cache",
				       strcmp(wc, "unknown") && ti->t.has_disk ?
				       json_object_new_string(wc) : NULL);
	}
	if (!json_object_object_get_ex(o, "logical_block_size", &v))
		json_object_object_add(o, "logical_block_size", ti->dev_ok &&
				       ti->dev.logical_block_size > 0 ?
				       json_object_new_int(ti->dev.logical_block_size) :
				       NULL);
	return o;
}

int fss_mount_filter(const char *dir, __u32 *fs_dev, __u32 *disk_dev,
		     char *err, size_t errlen)
{
	struct fss_target target;
	struct stat st;

	if (stat(dir, &st)) {
		snprintf(err, errlen, "--mount %s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "--mount %s: not a directory", dir);
		return -1;
	}
	if (fss_target_lookup(dir, &target)) {
		snprintf(err, errlen, "--mount %s: cannot find the filesystem under it",
			 dir);
		return -1;
	}
	*fs_dev = target.fs_kdev;
	*disk_dev = target.disk_kdev;
	return 0;
}
