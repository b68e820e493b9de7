/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * target.h - the facts of the directory a run or a probe syncs in.
 */
#ifndef __FSS_TARGET_H
#define __FSS_TARGET_H

#include <stdbool.h>
#include "devinfo.h"

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

#endif /* __FSS_TARGET_H */
