// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * events.c - the --events file reader: counts lines, calls back for each
 * (or every stride-th) JSON object; the timeline and CSV renderers use it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "doc/doc.h"
#include "doc/events.h"
#include "lib/fmt.h"

static int fss_events_filter(const char *path, const char *test, size_t stride,
			     size_t limit, fss_event_fn fn, void *arg, char *err,
			     size_t errlen);

long long fss_events_count(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	static char buf[1 << 16];
	long long n = 0;
	size_t got;

	if (!f) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		fss_err_oneline(err);
		return -1;
	}
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0)
		for (char *p = buf; (p = memchr(p, '\n', got - (size_t)(p - buf))); p++)
			n++;
	fclose(f);
	return n;
}

int fss_events_each(const char *path, const char *test, fss_event_fn fn,
		    void *arg, char *err, size_t errlen)
{
	return fss_events_filter(path, test, 1, 0, fn, arg, err, errlen);
}

int fss_events_some(const char *path, size_t stride, size_t limit,
		    fss_event_fn fn, void *arg, char *err, size_t errlen)
{
	return fss_events_filter(path, NULL, stride, limit, fn, arg, err, errlen);
}

static int fss_events_filter(const char *path, const char *test, size_t stride,
			     size_t limit, fss_event_fn fn, void *arg, char *err,
			     size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, parsed = 0;
	ssize_t len;
	int ln = 0;
	char where[PATH_MAX + 32];

	if (!f) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		fss_err_oneline(err);	/* one line, whatever the name holds */
		return -1;
	}
	if (!stride)
		stride = 1;
	while ((len = getline(&line, &cap, f)) > 0) {
		struct json_object *o;
		const char *t;

		if (ln++ % stride)
			continue;
		if (limit && parsed++ >= limit)
			break;
		o = json_tokener_parse(line);
		snprintf(where, sizeof(where), "%s: line %d", path, ln);
		if (!o || !json_object_is_type(o, json_type_object))
			snprintf(err, errlen, "%s is not a JSON object", where);
		/* trace's JSON Lines come here too: each record by its type */
		if (!o || fss_doc_check(o, fss_jstr(o, "type") ? "trace" : "events",
					where, err, errlen)) {
			fss_err_oneline(err);	/* and whatever key it quotes */
			json_object_put(o);
			free(line);
			fclose(f);
			return -1;
		}
		t = fss_jstr(o, "test");
		if (!test || (t && !strcmp(t, test)))
			fn(o, arg);
		json_object_put(o);
	}
	free(line);
	fclose(f);
	return 0;
}
