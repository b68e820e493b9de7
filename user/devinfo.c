// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* PLACEHOLDER: being written (device facts). */
#include <errno.h>
#include <sys/sysmacros.h>
#include "devinfo.h"
__u32 fss_kdev_from_dev(dev_t dev) { return fss_kdev(major(dev), minor(dev)); }
int fss_target_lookup(const char *path, struct fss_target *t) { return -ENOSYS; }
__u32 fss_disk_of(__u32 kdev) { return 0; }
int fss_devinfo_read(const char *name, struct fss_devinfo *d) { return -ENOSYS; }
int fss_devinfo_list(struct fss_devinfo **out, int *n) { return -ENOSYS; }
void fss_devinfo_print_table(FILE *f, const struct fss_devinfo *d, int n) {}
struct json_object *fss_devinfo_json(const struct fss_devinfo *d) { return NULL; }
struct json_object *fss_target_json(const struct fss_target *t) { return NULL; }
