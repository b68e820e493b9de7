/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The reader of --events files: one JSON object a line (docs/report.md). */
#ifndef FSS_DOC_EVENTS_H
#define FSS_DOC_EVENTS_H

#include <stddef.h>
#include <json-c/json.h>

/*
 * Per-sync records of an --events file, for the timeline and the CSV:
 * calls fn for each line whose "test" is test (NULL: every line).
 */
typedef void (*fss_event_fn)(struct json_object *ev, void *arg);
int fss_events_each(const char *path, const char *test, fss_event_fn fn,
		    void *arg, char *err, size_t errlen);
/*
 * The same, parsing only every stride-th line (1: all) and at most limit
 * lines (0: no limit): long runs have millions.
 */
int fss_events_some(const char *path, size_t stride, size_t limit,
		    fss_event_fn fn, void *arg, char *err, size_t errlen);
/* Lines in an events file, or -1 with err. */
long long fss_events_count(const char *path, char *err, size_t errlen);

#endif
