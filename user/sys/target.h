/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * target.h - the facts of the directory a run or a probe syncs in.
 */
#ifndef __FSS_TARGET_H
#define __FSS_TARGET_H

#include <stdbool.h>
#include "sys/devinfo.h"

struct json_object;

struct target_info {
	struct fss_target t;
	bool looked_up;			/* fss_target_lookup worked */
	char lookup_err[128];
	struct fss_devinfo dev;
	bool dev_ok;
};

/* Look dir up (libmount, sysfs), else fall back to statfs and st_dev. */
void fss_target_get(const char *dir, struct target_info *ti);
/* "write back", "write through", "unknown", "n/a (no block device)" */
const char *fss_target_wc_str(const struct target_info *ti);
/* The run document's "target" object (docs/run.md). */
struct json_object *fss_target_info_json(const struct target_info *ti);

/*
 * --mount DIR of the live commands: the filesystem mounted at or under DIR
 * and its disk (kernel dev_t encoding).  0, or -1 with one line in err
 * ("--mount DIR: ...").
 */
int fss_mount_filter(const char *dir, __u32 *fs_dev, __u32 *disk_dev,
		     char *err, size_t errlen);

/*
 * --cgroup PATH|ID of the live commands: a cgroup v2 id, or the directory
 * (absolute, or relative to the cgroup2 mount) whose id it is.  0, or
 * -errno with one line in err ("--cgroup X: ...").
 */
int fss_cgroup_id(const char *arg, __u64 *id, char *err, size_t errlen);

/*
 * --dev DEV of the live commands: /dev/X, X (a sysfs block name) or
 * MAJ:MIN to a block device (kernel encoding).  0, or -errno with one
 * line in err ("--dev X: ...").
 */
int fss_dev_parse(const char *arg, __u32 *kdev, char *err, size_t errlen);

/*
 * --dev DEV of the live commands as a filter: its disk in *disk_dev, and
 * the filesystem directly on it in *fs_dev (filtered in the kernel), or
 * *fs_dev 0 and *whole_disk when it is a disk under several filesystems
 * (its syncs filtered in user space); a mountpoint on it in dir.  0, or
 * -errno with one line in err ("--dev X: ...").
 */
int fss_dev_filter(const char *arg, __u32 *fs_dev, __u32 *disk_dev,
		   bool *whole_disk, char *dir, size_t dirlen,
		   char *err, size_t errlen);

/*
 * Where a filesystem on device blk (exact; also a non-block fs's 0:N) or
 * on any partition of disk is mounted: its mountpoint in dir (the first,
 * or the first that mounts the filesystem's root rather than a bind of a
 * subdirectory) and its dev in *fs_kdev.  0, or -ENOENT.
 */
int fss_mount_of_dev(__u32 blk, __u32 disk, bool exact, char *dir, size_t len,
		     __u32 *fs_kdev);

/*
 * -p of the live commands: each id (a thread's too) to its process (tgid)
 * in place, duplicates dropped.  0, or -1 with the id that is not there
 * in *missing.
 */
int fss_pids_to_tgids(__u32 *ids, int *n, __u32 *missing);

/* A directory for the calibration syncs, on a block device if we can. */
const char *fss_calib_dir_default(void);

#endif /* __FSS_TARGET_H */
