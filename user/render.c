// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * render.c - format dispatch and the events-file reader (render.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include "render.h"

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
		if (!o || fss_doc_check(o, "events", where, err, errlen)) {
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

int fss_emit(struct json_object *doc, enum fss_fmt fmt, const char *path,
	     const struct fss_render_opts *ro)
{
	struct fss_out out;
	char err[512];
	int rc = 2;

	if (fss_out_open(&out, path, err, sizeof(err)))
		goto fail;
	if (fss_render(doc, fmt, out.f, ro, err, sizeof(err))) {
		fss_out_abort(&out);
		goto fail;
	}
	rc = 1;
	if (fss_out_commit(&out, err, sizeof(err)))
		goto fail;
	json_object_put(doc);
	return 0;
fail:
	fprintf(stderr, "fsyncscope: %s\n", err);
	json_object_put(doc);
	return rc;
}

static struct {
	struct fss_out out;
	int saved_fd;
} redir = { .saved_fd = -1 };

int fss_stdout_to_begin(const char *path)
{
	char err[512];

	fflush(stdout);
	if (fss_out_open(&redir.out, path, err, sizeof(err))) {
		fprintf(stderr, "fsyncscope: %s\n", err);
		return 1;
	}
	redir.saved_fd = dup(STDOUT_FILENO);
	if (redir.saved_fd < 0 || dup2(fileno(redir.out.f), STDOUT_FILENO) < 0) {
		fprintf(stderr, "fsyncscope: cannot write %s: %s\n", path, strerror(errno));
		fss_out_abort(&redir.out);
		return 1;
	}
	return 0;
}

int fss_stdout_to_end(bool ok)
{
	char err[512];
	int rc = 0;

	if (redir.saved_fd < 0)
		return 0;
	if (fflush(stdout) == EOF)
		ok = false;
	dup2(redir.saved_fd, STDOUT_FILENO);
	close(redir.saved_fd);
	redir.saved_fd = -1;
	if (!ok) {
		fss_out_abort(&redir.out);
		return 0;
	}
	if (fss_out_commit(&redir.out, err, sizeof(err))) {
		fprintf(stderr, "fsyncscope: %s\n", err);
		rc = 1;
	}
	return rc;
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
			 JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED) |
			JSON_C_TO_STRING_NOSLASHESCAPE));
		return 0;
	case FSS_FMT_HTML:
		return fss_render_html(doc, f, ro, err, errlen);
	case FSS_FMT_CSV:
		return fss_render_csv(doc, f, ro, err, errlen);
	case FSS_FMT_TEXT:
		return fss_render_text(doc, f, ro, err, errlen);
	case FSS_FMT_PERFETTO:
		return fss_render_perfetto(doc, f, ro, err, errlen);
	}
	snprintf(err, errlen, "unknown format");
	return -1;
}
