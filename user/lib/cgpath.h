/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * cgpath.h - the path of a cgroup v2 id ("/system.slice/backup.service"),
 * relative to the cgroup2 mount (found with libmount), for blame's output.
 */
#ifndef __FSS_CGPATH_H
#define __FSS_CGPATH_H

#include <linux/types.h>

/*
 * The path of cgroup id (its directory's inode number), or NULL when it is
 * not found (gone, or no cgroup2 at /sys/fs/cgroup).  A miss rescans the
 * hierarchy at most once a second; the string lives until the next rescan.
 * arg is unused (fss_cgroup_path_fn).  Not thread safe: one caller thread.
 */
const char *fss_cgroup_path(__u64 id, void *arg);

#endif /* __FSS_CGPATH_H */
