// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * render.c - format dispatch and the events-file reader (render.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "render.h"

int fss_events_each(const char *path, const char *test, fss_event_fn fn,
		    void *arg, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int ln = 0;

	if (!f) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		struct json_object *o;
		const char *t;

		ln++;
		o = json_tokener_parse(line);
		if (!o || !json_object_is_type(o, json_type_object)) {
			snprintf(err, errlen, "%s: line %d is not a JSON object", path, ln);
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

int fss_render(struct json_object *doc, enum fss_fmt fmt, FILE *f,
	       const struct fss_render_opts *ro, char *err, size_t errlen)
{
	const char *kind = fss_doc_kind(doc);

	switch (fmt) {
	case FSS_FMT_JSON:
		/* trace results are JSON Lines: one line, as trace prints them */
		fprintf(f, "%s\n", json_object_to_json_string_ext(doc,
			(kind && !strcmp(kind, "trace") ? JSON_C_TO_STRING_PLAIN :
			 JSON_C_TO_STRING_PRETTY) | JSON_C_TO_STRING_NOSLASHESCAPE));
		return 0;
	case FSS_FMT_HTML:
		return fss_render_html(doc, f, ro, err, errlen);
	case FSS_FMT_CSV:
		return fss_render_csv(doc, f, ro, err, errlen);
	case FSS_FMT_TEXT:
		return fss_render_text(doc, f, ro, err, errlen);
	}
	snprintf(err, errlen, "unknown format");
	return -1;
}
