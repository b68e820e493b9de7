// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * render.c - format dispatch (render.h); the events-file reader is
 * doc/events.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include "render/render.h"
#include "lib/fmt.h"

int fss_emit(struct json_object *doc, enum fss_fmt fmt, const char *path,
	     const struct fss_render_opts *ro)
{
	struct fss_out out;
	char err[512], *mem = NULL;
	size_t memlen = 0;
	FILE *f;
	int rc = 2;

	if (fss_out_open(&out, path, err, sizeof(err)))
		goto fail;
	/* stdout too gets it whole or not at all: rendered in memory first */
	f = out.f == stdout ? open_memstream(&mem, &memlen) : out.f;
	if (!f) {
		snprintf(err, sizeof(err), "out of memory");
		fss_out_abort(&out);
		goto fail;
	}
	if (fss_render(doc, fmt, f, ro, err, sizeof(err))) {
		if (f != out.f)
			fclose(f);
		fss_out_abort(&out);
		goto fail;
	}
	rc = 1;
	if (f != out.f && (fclose(f) ||
			   fwrite(mem, 1, memlen, stdout) != memlen)) {
		snprintf(err, sizeof(err), "cannot write output: %s",
			 strerror(errno));
		fss_out_abort(&out);
		goto fail;
	}
	if (fss_out_commit(&out, err, sizeof(err)))
		goto fail;
	free(mem);
	json_object_put(doc);
	return 0;
fail:
	fprintf(stderr, "fsyncscope: %s\n", err);
	free(mem);
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

static int render(struct json_object *doc, enum fss_fmt fmt, FILE *f,
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

int fss_render(struct json_object *doc, enum fss_fmt fmt, FILE *f,
	       const struct fss_render_opts *ro, char *err, size_t errlen)
{
	if (!render(doc, fmt, f, ro, err, errlen))
		return 0;
	fss_err_oneline(err);
	return -1;
}
