// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * fuzz_events.c - libFuzzer target: an --events file (run --events,
 * --events-detail) as `report --events` reads it: the HTML timeline, one
 * CSV row per sync, the Perfetto trace, each of a small run document
 * whose test the events name.  Also trace's JSON Lines as the text of
 * trace reads them, record by record.  Refused lines say why in one
 * line; taken ones render without a crash, a sanitizer report or a leak.
 */
#include <string.h>
#include <json-c/json.h>
#include "doc/doc.h"
#include "render/render.h"
#include "fuzz_common.h"

static const char run_doc[] =
	"{\"schema\":\"fsyncscope/run\",\"schema_version\":1,\"version\":\"0\","
	"\"options\":{\"mode\":\"custom\",\"count\":3,\"trace\":true},"
	"\"tests\":[{\"name\":\"custom.fdatasync\",\"label\":\"fdatasync\","
	"\"status\":\"ok\",\"method\":\"fdatasync\",\"ops\":3,"
	"\"syncs_traced\":3,\"syncs_by_kind\":{\"fdatasync\":3}}]}";

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static const enum fss_fmt fmts[] = { FSS_FMT_HTML, FSS_FMT_CSV,
		FSS_FMT_PERFETTO };
	const char *path = fuzz_file("fuzz_events", data, size);
	struct json_object *doc = json_tokener_parse(run_doc);
	struct fss_render_opts ro = { .events_path = path, .max_syncs = 1000 };
	char err[768];

	if (!doc)
		abort();
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		err[0] = '\0';
		if (fss_render(doc, fmts[i], fuzz_sink(), &ro, err,
			       sizeof(err)) &&
		    (!err[0] || strchr(err, '\n')))
			abort();	/* a failure says why, in one line */
	}
	fss_text_trace_lines(fuzz_sink(), path, NULL);
	json_object_put(doc);
	return 0;
}
