// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* PLACEHOLDER: being written (tracer). */
#include <errno.h>
#include <string.h>
#include <stdio.h>
#include "trace.h"
int fss_strategy_parse(const char *s, enum fss_strategy *out) { return -1; }
struct fss_tracer *fss_tracer_open(const struct fss_trace_opts *o, char *err, size_t n) { snprintf(err, n, "tracing is not built yet"); return NULL; }
int fss_tracer_begin(struct fss_tracer *t, const char *name) { return -ENOSYS; }
int fss_tracer_end(struct fss_tracer *t, struct fss_breakdown *out) { return -ENOSYS; }
struct json_object *fss_tracer_strategy_json(struct fss_tracer *t) { return NULL; }
void fss_tracer_print_strategy(struct fss_tracer *t, FILE *f) {}
__u64 fss_tracer_drops(struct fss_tracer *t) { return 0; }
void fss_tracer_close(struct fss_tracer *t) {}
