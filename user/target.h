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

#endif /* __FSS_TARGET_H */
