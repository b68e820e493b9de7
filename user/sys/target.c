// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * target.c - what a run's target directory is on (target.h): the
 * filesystem (libmount), its block device and disk (an overlay's: its
 * upper layer's), their write cache, with a fallback when libmount cannot
 * say, and its JSON for the run document.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <json-c/json.h>
#include <libmount/libmount.h>
#include <linux/magic.h>
#include "lib/parse.h"
#include "sys/devinfo.h"
#include "sys/fsnote.h"
#include "sys/target.h"

/* ---- target facts ----------------------------------------------------- */

/* Copy a string, truncating to the destination. */
static void scopy(char *dst, size_t n, const char *src)
{
	size_t l = src ? strnlen(src, n - 1) : 0;

	if (l)
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

static int target_lookup(const char *path, struct fss_target *t, int depth);

/*
 * An overlay has no disk: its syncs sync the upper layer's files, so the
 * disk is the upper filesystem's (looked up once more: not an overlay's).
 */
static void ovl_disk(struct libmnt_fs *fs, struct fss_target *t)
{
	char *dir = fss_ovl_upperdir(fs);
	struct fss_target *up = calloc(1, sizeof(*up));

	if (dir && up && !target_lookup(dir, up, 1) && up->has_disk) {
		scopy(t->upper, sizeof(t->upper), up->path);
		scopy(t->upper_fstype, sizeof(t->upper_fstype), up->fstype);
		t->upper_kdev = up->fs_kdev;
		t->has_disk = true;
		scopy(t->fs_blkdev, sizeof(t->fs_blkdev), up->fs_blkdev);
		t->fs_blkdev_kdev = up->fs_blkdev_kdev;
		scopy(t->disk, sizeof(t->disk), up->disk);
		t->disk_kdev = up->disk_kdev;
	}
	free(up);
	free(dir);
}

int fss_target_lookup(const char *path, struct fss_target *t)
{
	return target_lookup(path, t, 0);
}

static int target_lookup(const char *path, struct fss_target *t, int depth)
{
	struct libmnt_table *tb;
	struct libmnt_fs *fs;
	struct stat st, sst;
	dev_t blk = 0, mdev;
	const char *s;
	char dir[PATH_MAX];
	int err = 0;

	memset(t, 0, sizeof(*t));
	if (!path || !*path)
		return -EINVAL;
	if (!realpath(path, t->path))
		return -errno;
	if (stat(t->path, &st))
		return -errno;
	t->st_dev = st.st_dev;
	t->fs_kdev = fss_kdev_from_dev(st.st_dev);

	tb = mnt_new_table_from_file("/proc/self/mountinfo");
	if (!tb)
		return errno ? -errno : -EIO;
	/* the last mount on the path's longest mounted prefix: bind mounts too */
	fs = mnt_table_find_mountpoint(tb, t->path, MNT_ITER_BACKWARD);
	if (fs && mnt_fs_get_devno(fs) != st.st_dev &&
	    !mnt_fs_match_fstype(fs, "btrfs")) {
		struct libmnt_fs *byno;

		/* btrfs subvolumes have their own anonymous st_dev */
		byno = mnt_table_find_devno(tb, st.st_dev, MNT_ITER_BACKWARD);
		if (byno)
			fs = byno;
	}
	if (!fs) {
		err = -ENOENT;
		goto out;
	}
	/*
	 * The superblock's dev (what the kernel's tracepoints and i_sb->s_dev
	 * report): the mount's MAJ:MIN.  Same as st_dev except on btrfs, whose
	 * subvolumes have their own anonymous st_dev.
	 */
	if (mnt_fs_get_devno(fs))
		t->fs_kdev = fss_kdev_from_dev(mnt_fs_get_devno(fs));
	scopy(t->mountpoint, sizeof(t->mountpoint), mnt_fs_get_target(fs));
	scopy(t->fstype, sizeof(t->fstype), mnt_fs_get_fstype(fs));
	scopy(t->source, sizeof(t->source), mnt_fs_get_source(fs));
	scopy(t->mount_opts, sizeof(t->mount_opts), mnt_fs_get_options(fs));

	/*
	 * The block device: st_dev when it is one (ext4, xfs); else the mount
	 * source (btrfs reports an anonymous st_dev); else mountinfo's devno.
	 */
	snprintf(dir, sizeof(dir), "%s/dev/block/%u:%u", fss_sysfs_root(),
		 major(st.st_dev), minor(st.st_dev));
	s = mnt_fs_get_source(fs);
	mdev = mnt_fs_get_devno(fs);
	if (major(st.st_dev) && !access(dir, F_OK)) {
		blk = st.st_dev;
	} else if (s && s[0] == '/' && !stat(s, &sst) && S_ISBLK(sst.st_mode)) {
		blk = sst.st_rdev;
	} else if (major(mdev)) {
		snprintf(dir, sizeof(dir), "%s/dev/block/%u:%u", fss_sysfs_root(),
			 major(mdev), minor(mdev));
		if (!access(dir, F_OK))
			blk = mdev;
	}
	if (blk) {
		t->has_disk = true;
		t->fs_blkdev_kdev = fss_kdev_from_dev(blk);
		if (fss_dev_name(t->fs_blkdev_kdev, t->fs_blkdev,
				 sizeof(t->fs_blkdev)))
			t->fs_blkdev[0] = '\0';
		t->disk_kdev = fss_disk_of(t->fs_blkdev_kdev);
		if (t->disk_kdev &&
		    fss_dev_name(t->disk_kdev, t->disk, sizeof(t->disk)))
			t->disk[0] = '\0';
	}
	if (!blk && !depth && mnt_fs_match_fstype(fs, "overlay"))
		ovl_disk(fs, t);
out:
	mnt_unref_table(tb);
	return err;
}

/* mountinfo: the mount of st_dev whose mount point is the longest prefix */
static void mountinfo_lookup(struct libmnt_table *tb, struct fss_target *t)
{
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	size_t best = 0;

	while (tb && it && mnt_table_next_fs(tb, it, &fs) == 0) {
		const char *mnt = mnt_fs_get_target(fs);
		size_t l;

		if (!mnt || mnt_fs_get_devno(fs) != t->st_dev)
			continue;
		l = strlen(mnt);
		if (strncmp(t->path, mnt, l) ||
		    (t->path[l] != '/' && t->path[l] && strcmp(mnt, "/")))
			continue;
		if (l < best)
			continue;
		best = l;
		scopy(t->mountpoint, sizeof(t->mountpoint), mnt);
		scopy(t->fstype, sizeof(t->fstype), mnt_fs_get_fstype(fs) ?: "");
		scopy(t->source, sizeof(t->source), mnt_fs_get_source(fs) ?: "");
	}
	mnt_free_iter(it);
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
static __u32 sb_kdev(struct libmnt_table *tb, const struct fss_target *t)
{
	struct libmnt_fs *fs;
	__u32 k = t->fs_kdev;

	if (!t->mountpoint[0] || !tb)
		return k;
	/* the last (top) mount on the mount point wins */
	fs = mnt_table_find_target(tb, t->mountpoint, MNT_ITER_BACKWARD);
	if (fs && mnt_fs_get_devno(fs))
		k = fss_kdev_from_dev(mnt_fs_get_devno(fs));
	return k;
}

/* Fallback when fss_target_lookup fails: stat, statfs, mountinfo, sysfs. */
static void target_fallback(const char *dir, struct fss_target *t)
{
	char p[PATH_MAX + 32], real[PATH_MAX], *slash;
	struct libmnt_table *tb;
	struct statfs sfs;
	struct stat st;

	memset(t, 0, sizeof(*t));
	if (!realpath(dir, t->path))
		snprintf(t->path, sizeof(t->path), "%s", dir);
	if (stat(t->path, &st))
		return;
	t->st_dev = st.st_dev;
	t->fs_kdev = fss_kdev(major(st.st_dev), minor(st.st_dev));
	/* read once: the mount, then its superblock's dev_t */
	tb = mnt_new_table_from_file("/proc/self/mountinfo");
	if (tb)
		mountinfo_lookup(tb, t);
	t->fs_kdev = sb_kdev(tb, t);
	mnt_unref_table(tb);
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

/* ---- the live commands' targets (trace's --cgroup and --dev) ---- */

/* Where cgroup v2 is mounted (-ENOENT when it is not). */
static int cgroup2_mount(char *buf, size_t len)
{
	struct libmnt_table *tb = mnt_new_table_from_file("/proc/self/mountinfo");
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	int rc = -ENOENT;

	while (tb && it && !mnt_table_next_fs(tb, it, &fs))
		if (mnt_fs_match_fstype(fs, "cgroup2") && mnt_fs_get_target(fs)) {
			snprintf(buf, len, "%s", mnt_fs_get_target(fs));
			rc = 0;
			break;
		}
	mnt_free_iter(it);
	mnt_unref_table(tb);
	return rc;
}

int fss_cgroup_id(const char *arg, __u64 *id, char *err, size_t errlen)
{
	char path[2 * PATH_MAX], mnt[PATH_MAX];
	struct {
		struct file_handle fh;
		__u64 id;
	} h;
	struct statfs sfs;
	struct stat st;
	int mount_id;
	long l;

	if (fss_parse_long(arg, &l)) {
		if (l <= 0) {
			snprintf(err, errlen, "--cgroup %s: not a cgroup id", arg);
			return -EINVAL;
		}
		*id = l;
		return 0;
	}
	snprintf(path, sizeof(path), "%s", arg);
	if (stat(path, &st)) {
		if (arg[0] == '/' && !strncmp(arg, "/sys/", 5)) {
			snprintf(err, errlen, "--cgroup %s: %s", arg, strerror(errno));
			return -ENOENT;
		}
		if (cgroup2_mount(mnt, sizeof(mnt))) {
			snprintf(err, errlen, "--cgroup %s: no cgroup v2 hierarchy is mounted", arg);
			return -ENOENT;
		}
		snprintf(path, sizeof(path), "%s/%s", mnt, arg[0] == '/' ? arg + 1 : arg);
		if (stat(path, &st)) {
			snprintf(err, errlen, "--cgroup %.200s: no such cgroup (looked at %.200s)", arg, path);
			return -ENOENT;
		}
	}
	if (statfs(path, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "--cgroup %s: not a cgroup v2 directory", arg);
		return -EINVAL;
	}
	/* the file handle of a cgroup2 directory is its 64-bit id */
	h.fh.handle_bytes = sizeof(h.id);
	if (!name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0) &&
	    h.fh.handle_bytes == sizeof(__u64))
		memcpy(id, h.fh.f_handle, sizeof(*id));
	else
		*id = st.st_ino;
	return 0;
}

int fss_mount_of_dev(__u32 blk, __u32 disk, bool exact, char *dir, size_t len,
		     __u32 *fs_kdev)
{
	struct libmnt_table *tb = mnt_new_table_from_file("/proc/self/mountinfo");
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	int rc = -ENOENT;

	while (tb && it && !mnt_table_next_fs(tb, it, &fs)) {
		dev_t d = mnt_fs_get_devno(fs);
		__u32 k = fss_kdev(major(d), minor(d));
		const char *root = mnt_fs_get_root(fs);
		bool whole = root && !strcmp(root, "/");

		if (!mnt_fs_get_target(fs) ||
		    !(k == blk || (!exact && major(d) && fss_disk_of(k) == disk)))
			continue;
		/* the first match, unless a later one mounts the fs's root */
		if (rc || whole) {
			snprintf(dir, len, "%s", mnt_fs_get_target(fs));
			*fs_kdev = k;
			rc = 0;
		}
		if (whole)
			break;
	}
	mnt_free_iter(it);
	mnt_unref_table(tb);
	return rc;
}

int fss_dev_parse(const char *arg, __u32 *kdev, char *err, size_t errlen)
{
	unsigned int maj, min;
	struct stat st;
	char c;

	if (sscanf(arg, "%u:%u%c", &maj, &min, &c) == 2) {
		char p[64];

		snprintf(p, sizeof(p), "/sys/dev/block/%u:%u", maj, min);
		if (access(p, F_OK)) {
			snprintf(err, errlen, "--dev %s: no such block device", arg);
			return -ENODEV;
		}
		*kdev = fss_kdev(maj, min);
		return 0;
	}
	if (!stat(arg, &st)) {
		if (!S_ISBLK(st.st_mode)) {
			snprintf(err, errlen, "--dev %s: not a block device (use --mount for a directory)", arg);
			return -ENOTBLK;
		}
		*kdev = fss_kdev(major(st.st_rdev), minor(st.st_rdev));
		return 0;
	}
	if (!strchr(arg, '/')) {
		struct fss_devinfo d;

		if (!fss_devinfo_read(arg, &d)) {
			*kdev = fss_kdev(d.major, d.minor);
			return 0;
		}
	}
	snprintf(err, errlen, "--dev %s: no such block device", arg);
	return -ENODEV;
}

const char *fss_calib_dir_default(void)
{
	static const char *cands[] = { "/var/tmp", "/tmp" };
	struct fss_target t;

	for (unsigned int i = 0; i < sizeof(cands) / sizeof(cands[0]); i++)
		if (!access(cands[i], W_OK) && !fss_target_lookup(cands[i], &t) &&
		    t.has_disk)
			return cands[i];
	return "/tmp";
}

/* ---- the command ---- */

/* A thread id is accepted too: the filter is on whole processes (tgid). */
static int pid_to_tgid(__u32 pid, __u32 *tgid)
{
	char path[64], line[256];
	FILE *f;
	int rc = -ESRCH;

	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -ESRCH;
	while (fgets(line, sizeof(line), f)) {
		unsigned int v;

		if (sscanf(line, "Tgid: %u", &v) == 1) {
			*tgid = v;
			rc = 0;
			break;
		}
	}
	fclose(f);
	return rc;
}

int fss_pids_to_tgids(__u32 *ids, int *n, __u32 *missing)
{
	int out = 0;

	for (int i = 0; i < *n; i++) {
		bool dup = false;
		__u32 tgid;

		if (pid_to_tgid(ids[i], &tgid)) {
			*missing = ids[i];
			return -1;
		}
		for (int j = 0; j < out && !dup; j++)
			dup = ids[j] == tgid;
		if (!dup)
			ids[out++] = tgid;
	}
	*n = out;
	return 0;
}

int fss_dev_filter(const char *arg, __u32 *fs_dev, __u32 *disk_dev,
		   bool *whole_disk, char *dir, size_t dirlen,
		   char *err, size_t errlen)
{
	__u32 blk, disk;
	int rc = fss_dev_parse(arg, &blk, err, errlen);

	if (rc)
		return rc;
	disk = fss_disk_of(blk);
	*disk_dev = disk ? disk : blk;
	*whole_disk = false;
	if (!fss_mount_of_dev(blk, *disk_dev, true, dir, dirlen, fs_dev))
		return 0;
	if (!fss_mount_of_dev(blk, *disk_dev, false, dir, dirlen, fs_dev)) {
		*fs_dev = 0;
		*whole_disk = true;
		return 0;
	}
	snprintf(err, errlen, "--dev %s: no mounted filesystem on it", arg);
	return -ENOENT;
}
