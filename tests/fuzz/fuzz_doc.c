// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * fuzz_doc.c - libFuzzer target: a saved result as `report` and `diff`
 * read it (fss_doc_load: JSON or trace's JSON Lines, schema and the
 * document checks of doc_schema.c), then every renderer of every format
 * (text, text --hist, html, csv, json, perfetto without events) and a diff
 * of the document against itself, rendered as text and html.  A document
 * the loader refuses must say why in one line; one it takes must render
 * without a crash, a sanitizer report or a leak.
 */
#include <string.h>
#include <json-c/json.h>
#include "doc/doc.h"
#include "doc/diff_doc.h"
#include "render/render.h"
#include "fuzz_common.h"

static void render_all(struct json_object *doc, const char *path)
{
	static const enum fss_fmt fmts[] = { FSS_FMT_TEXT, FSS_FMT_JSON,
		FSS_FMT_HTML, FSS_FMT_CSV, FSS_FMT_PERFETTO };
	struct fss_render_opts ro = { .lines_path = path };
	char err[512];

	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		err[0] = '\0';
		if (fss_render(doc, fmts[i], fuzz_sink(), &ro, err,
			       sizeof(err)) &&
		    (!err[0] || strchr(err, '\n')))
			abort();	/* a failure says why, in one line */
	}
	ro.hist = 1;
	fss_render(doc, FSS_FMT_TEXT, fuzz_sink(), &ro, err, sizeof(err));
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const char *path = fuzz_file("fuzz_doc", data, size);
	struct json_object *doc, *again, *d;
	struct fss_diff_opts o;
	char err[768] = "";

	doc = fss_doc_load(path, err, sizeof(err));
	if (!doc) {
		if (!err[0] || strchr(err, '\n'))
			abort();
		return 0;
	}
	render_all(doc, path);
	/* diff A A: both loaded, as `diff` does */
	again = fss_doc_load(path, err, sizeof(err));
	if (!again)
		abort();	/* the same bytes loaded once */
	fss_diff_defaults(&o);
	o.resamples = 100;
	d = fss_diff_build(doc, "a.json", again, "b.json", &o, err,
			   sizeof(err));
	if (d) {
		FILE *f = fuzz_sink();

		fss_render(d, FSS_FMT_TEXT, f, NULL, err, sizeof(err));
		fss_render(d, FSS_FMT_HTML, f, NULL, err, sizeof(err));
		fss_render(d, FSS_FMT_CSV, f, NULL, err, sizeof(err));
		json_object_put(d);
	}
	json_object_put(again);
	json_object_put(doc);
	return 0;
}
