// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * text_hists.c - the biolatency-style --hist view of a run / compare
 * test's histograms (per op and per phase).
 */
#include <stdio.h>
#include <json-c/json.h>
#include "lib/fmt.h"
#include "lib/hist.h"
#include "lib/phase.h"
#include "render/render.h"

/* "op" (per op), "total", then the phases: the document's series */
#define NSERIES (2 + FSS_PH_MAX)
static const char *series_name(size_t i)
{
	return i == 0 ? "op" : i == 1 ? "total" : fss_phase_name(i - 2);
}

void fss_text_hists(FILE *f, struct json_object *t, int indent)
{
	struct json_object *hj = fss_j(t, "hist");
	size_t i;

	if (!hj) {
		fprintf(f, "%*sno histogram (%s)\n", indent, "",
			fss_jstr(t, "reason") ?: "n/a");
		return;
	}
	for (i = 0; i < NSERIES; i++) {
		struct fss_hist h;
		char title[160], p50[24], p99[24];

		if (fss_hist_from_json(fss_j(hj, series_name(i)), &h) || !h.count)
			continue;
		fss_fmt_dur(p50, sizeof(p50), fss_hist_quantile_ns(&h, 0.5) / 1e3);
		fss_fmt_dur(p99, sizeof(p99), fss_hist_quantile_ns(&h, 0.99) / 1e3);
		snprintf(title, sizeof(title), "%s: %llu samples, p50 %s, p99 %s",
			 i ? series_name(i) : "per op", (unsigned long long)h.count, p50, p99);
		fss_hist_print(f, &h, title, indent);
	}
}
