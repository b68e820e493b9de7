/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * out_html_compare.h - compare's summary chart and its intervals in the
 * HTML page (out_html_compare.c).
 */
#ifndef __FSS_OUT_HTML_COMPARE_H
#define __FSS_OUT_HTML_COMPARE_H

#include <stdio.h>
#include <json-c/json.h>

/* One workload: ops/s and p99 per filesystem, each with its interval. */
void fss_html_compare_summary(FILE *f, struct json_object *w);

/* One workload: each ratio to the first filesystem with its interval. */
void fss_html_compare_ci(FILE *f, struct json_object *w);

#endif /* __FSS_OUT_HTML_COMPARE_H */
