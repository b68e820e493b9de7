// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * out_text.c - the text dispatcher: each document kind to its text
 * renderer (out_text_run.c, out_text_compare.c, out_text_devices.c,
 * out_text_trace.c, out_text_diff.c; the --hist view: text_hists.c).
 */
#include <string.h>
#include <json-c/json.h>
#include "render/render.h"

int fss_render_text(struct json_object *doc, FILE *f,
		    const struct fss_render_opts *ro, char *err, size_t errlen)
{
	const char *kind = fss_doc_kind(doc);

	if (!strcmp(kind, "diff")) {
		fss_text_diff(f, doc);
		return 0;
	}
	if (!strcmp(kind, "run"))	/* what run printed, from its document */
		return fss_text_run(f, doc, ro && ro->hist);
	if (!strcmp(kind, "devices"))
		return fss_text_devices(f, doc, err, errlen);
	if (!strcmp(kind, "check"))
		return fss_text_check(f, doc);
	if (!strcmp(kind, "compare"))	/* what compare printed */
		return fss_text_compare(f, doc, ro && ro->hist);
	if (!strcmp(kind, "trace") && !(ro && ro->hist)) {
		int rc = ro && ro->lines_path ?
			 fss_text_trace_lines(f, ro->lines_path,
					      ro->record) : 1;

		return rc == 1 ? fss_text_trace(f, doc) : rc;
	}
	snprintf(err, errlen, "text of a saved %s result: not available (run, "
		 "compare, devices, trace and check have it); use --hist, --format html, "
		 "csv or json", kind);
	return -1;
}
