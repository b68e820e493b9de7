/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * out_html_blame.h - blame in the HTML page (docs/blame.md): who caused
 * the syncs' journal, queue and device time, from the document only.
 */
#ifndef __FSS_OUT_HTML_BLAME_H
#define __FSS_OUT_HTML_BLAME_H

#include <stdio.h>
#include <json-c/json.h>

/* run: one bar per test, self / others / unattributed (none: no blame) */
void html_blame_run_chart(FILE *f, struct json_object *doc);

/* run: a test's blame table, or why it has none (key: the test's name) */
void html_blame_test(FILE *f, const char *key, struct json_object *t,
		     struct json_object *doc);

/* trace summary: the "Blamed" section, or why there is none */
void html_blame_trace(FILE *f, struct json_object *doc);

#endif /* __FSS_OUT_HTML_BLAME_H */
