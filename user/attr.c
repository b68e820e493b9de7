// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* PLACEHOLDER: being written (attribution engine). */
#include <errno.h>
#include <stdlib.h>
#include "attr.h"
const char *fss_phase_name(enum fss_phase ph) { static const char *n[] = {"fs","journal","queue","device_write","device_flush","other"}; return ph < FSS_PH_MAX ? n[ph] : "?"; }
const char *fss_sync_kind_name(enum fss_sync_kind k) { static const char *n[] = {"fsync","fdatasync","sync_file_range","msync","syncfs","dsync_write","io_uring_fsync"}; return k < FSS_SYNC_KIND_MAX ? n[k] : "?"; }
struct fss_attr *fss_attr_new(const struct fss_attr_opts *o) { errno = ENOSYS; return NULL; }
void fss_attr_free(struct fss_attr *a) {}
int fss_attr_add(struct fss_attr *a, const struct fss_event *ev) { return -ENOSYS; }
int fss_attr_drain(struct fss_attr *a, __u64 h, fss_sync_cb cb, void *arg) { return -ENOSYS; }
void fss_attr_flush_stats(const struct fss_attr *a, struct fss_flush_stats *st) {}
void fss_attr_reset_stats(struct fss_attr *a) {}
