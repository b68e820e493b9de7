/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * out_html_little.h - a sweep's Little's-law figures in the HTML page
 * (out_html_little.c).
 */
#ifndef __FSS_OUT_HTML_LITTLE_H
#define __FSS_OUT_HTML_LITTLE_H

#include <stdio.h>
#include <json-c/json.h>

/* A run's "little" object: its table and three charts (none without). */
void fss_html_little(FILE *f, struct json_object *doc);

#endif /* __FSS_OUT_HTML_LITTLE_H */
