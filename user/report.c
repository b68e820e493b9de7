// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* PLACEHOLDER: being written (breakdown aggregation and printers). */
#include <errno.h>
#include <stdlib.h>
#include "report.h"
struct fss_collector *fss_collector_new(void) { return NULL; }
void fss_collector_free(struct fss_collector *c) {}
void fss_collector_reset(struct fss_collector *c) {}
void fss_collector_add(const struct fss_sync_result *res, void *c) {}
__u64 fss_collector_count(const struct fss_collector *c) { return 0; }
void fss_collector_breakdown(const struct fss_collector *c, const struct fss_flush_stats *f, __u64 d, struct fss_breakdown *o) {}
void fss_breakdown_print(FILE *f, const struct fss_breakdown *b, int indent) {}
struct json_object *fss_breakdown_phases_json(const struct fss_breakdown *b) { return NULL; }
struct json_object *fss_breakdown_flush_json(const struct fss_breakdown *b) { return NULL; }
int fss_sync_result_write_json(FILE *f, const char *t, const struct fss_sync_result *r) { return -ENOSYS; }
