// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * out_text_diff.c - the plain text (80 columns) of a diff document: the
 * two sides, then a row per change with its interval and gate.
 */
#include <math.h>
#include <string.h>
#include <json-c/json.h>
#include "lib/fmt.h"
#include "lib/hist.h"
#include "render/render.h"

static void diff_side(FILE *f, const char *name, struct json_object *s)
{
	if (!fss_jstr(s, "hostname")) {	/* trace summaries carry none */
		fprintf(f, "%s: %s\n   (a %s result: no host facts in it)\n", name,
			fss_jstr(s, "path") ?: "?", fss_jstr(s, "kind") ?: "?");
		return;
	}
	fprintf(f, "%s: %s\n   %s on %s, Linux %s\n", name, fss_jstr(s, "path") ?: "?",
		fss_jstr(s, "target") ?: "?", fss_jstr(s, "hostname") ?: "?",
		fss_jstr(s, "kernel") ?: "?");
}

/* A change in %: one decimal below 100, none above (fits the column) */
static void fmt_pct(char *buf, size_t len, double v)
{
	snprintf(buf, len, fabs(v) < 99.95 ? "%+.1f%%" : "%+.0f%%", v);
}

static void diff_row(FILE *f, struct json_object *r)
{
	struct json_object *cp = fss_j(r, "ci95_pct");
	double pct = fss_jnum(r, "change_pct");
	char a[24], b[24], ch[24], ci[64], lo[24], hi[24];

	fss_fmt_dur(a, sizeof(a), fss_jnum(r, "a_us"));
	fss_fmt_dur(b, sizeof(b), fss_jnum(r, "b_us"));
	if (isfinite(pct)) {
		fmt_pct(ch, sizeof(ch), pct);
		fmt_pct(lo, sizeof(lo), json_object_get_double(fss_jidx(cp, 0)));
		fmt_pct(hi, sizeof(hi), json_object_get_double(fss_jidx(cp, 1)));
		snprintf(ci, sizeof(ci), "%s..%s", lo, hi);
	} else {
		snprintf(ch, sizeof(ch), "%+.1fus", fss_jnum(r, "change_us"));
		snprintf(ci, sizeof(ci), "n/a (A is 0)");
	}
	fprintf(f, "  %-12s %-4s %9s %9s %7s %-17s %s\n", fss_jstr(r, "series"),
		fss_jstr(r, "stat"), a, b, ch, ci, fss_jstr(r, "verdict"));
}

void fss_text_diff(FILE *f, struct json_object *doc)
{
	struct json_object *m = fss_j(doc, "method"), *ts = fss_j(doc, "tests");
	struct json_object *oa = fss_j(doc, "only_in_a"), *ob = fss_j(doc, "only_in_b");
	size_t i, j;

	diff_side(f, "A", fss_j(doc, "a"));
	diff_side(f, "B", fss_j(doc, "b"));
	fprintf(f, "95%% intervals of B - A from %lld Poisson bootstrap resamples of the\n"
		"histograms; \"within noise\" unless the whole interval is beyond "
		"%.3g%% and %.3gus\n", fss_jint(m, "resamples", 0),
		fss_jnum(m, "min_change_pct"), fss_jnum(m, "min_change_us"));
	for (i = 0; ts && i < fss_jlen(ts); i++) {
		struct json_object *t = fss_jidx(ts, i);
		struct json_object *rows = fss_j(t, "rows");

		fprintf(f, "\n%s (A %lld, B %lld samples)\n", fss_jstr(t, "test"),
			fss_jint(t, "a_count", 0), fss_jint(t, "b_count", 0));
		fprintf(f, "  %-12s %-4s %9s %9s %7s %-17s %s\n", "series", "stat",
			"A", "B", "change", "95% interval", "verdict");
		for (j = 0; rows && j < fss_jlen(rows); j++)
			diff_row(f, fss_jidx(rows, j));
	}
	for (i = 0; oa && i < fss_jlen(oa); i++)
		fprintf(f, "\nonly in A: %s", json_object_get_string(
			fss_jidx(oa, i)));
	for (i = 0; ob && i < fss_jlen(ob); i++)
		fprintf(f, "\nonly in B: %s", json_object_get_string(
			fss_jidx(ob, i)));
	if ((oa && fss_jlen(oa)) || (ob && fss_jlen(ob)))
		fputc('\n', f);
	if (fss_jnum(m, "fail_if_slower_pct") >= 0)
		fprintf(f, "\ngate --fail-if-slower %.3g%%: %lld row(s) of total/op p50 "
			"or p99\nslower with the whole interval above that\n",
			fss_jnum(m, "fail_if_slower_pct"), fss_jint(doc, "gate_failures", 0));
}
