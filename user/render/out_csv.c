// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * out_csv.c - CSV (RFC 4180: comma separated, CRLF line ends, fields with
 * a comma, quote or line break quoted, quotes doubled) of a result:
 * one row per test x series (run, compare), one row per change (diff), or
 * one row per sync from an --events file.
 */
#include <math.h>
#include <string.h>
#include <json-c/json.h>
#include "lib/hist.h"
#include "lib/phase.h"
#include "render/render.h"

/* "op" (per op), "total", then the phases: the document's series */
#define NSERIES (2 + FSS_PH_MAX)
static const char *series_name(size_t i)
{
	return i == 0 ? "op" : i == 1 ? "total" : fss_phase_name(i - 2);
}

static void field(FILE *f, const char *s, bool last)
{
	if (!s)
		s = "";
	if (strpbrk(s, ",\"\r\n")) {
		fputc('"', f);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', f);
			fputc(*s, f);
		}
		fputc('"', f);
	} else {
		fputs(s, f);
	}
	fputs(last ? "\r\n" : ",", f);
}

static void num(FILE *f, double v, int decimals, bool last)
{
	char b[64] = "";

	if (isfinite(v))
		snprintf(b, sizeof(b), "%.*f", decimals, v);
	field(f, b, last);
}

/* One row per series of one test: counts and statistics from its hist. */
static int test_rows(const char *key, struct json_object *t, void *arg)
{
	FILE *f = arg;
	struct json_object *hj = fss_j(t, "hist"), *bd = fss_j(t, "breakdown");
	size_t i;

	for (i = 0; i < NSERIES; i++) {
		struct fss_hist h;
		double share = NAN;

		if (fss_hist_from_json(fss_j(hj, series_name(i)), &h))
			continue;
		if (i >= 2)
			share = fss_jnum(fss_j(bd, series_name(i)), "share");
		field(f, key, false);
		field(f, fss_jstr(t, "fs"), false);
		field(f, series_name(i), false);
		num(f, (double)h.count, 0, false);
		num(f, fss_hist_mean_ns(&h) / 1e3, 3, false);
		num(f, fss_hist_quantile_ns(&h, 0.5) / 1e3, 3, false);
		num(f, fss_hist_quantile_ns(&h, 0.99) / 1e3, 3, false);
		num(f, fss_hist_quantile_ns(&h, 0.999) / 1e3, 3, false);
		num(f, h.count ? (double)h.max / 1e3 : NAN, 3, false);
		num(f, share, 4, true);
	}
	return 0;
}

static void diff_rows(FILE *f, struct json_object *doc)
{
	struct json_object *ts = fss_j(doc, "tests");
	size_t i, j;

	field(f, "test", false);
	field(f, "series", false);
	field(f, "stat", false);
	field(f, "a_us", false);
	field(f, "b_us", false);
	field(f, "change_pct", false);
	field(f, "ci95_lo_us", false);
	field(f, "ci95_hi_us", false);
	field(f, "verdict", true);
	for (i = 0; ts && i < fss_jlen(ts); i++) {
		struct json_object *t = fss_jidx(ts, i);
		struct json_object *rows = fss_j(t, "rows");

		for (j = 0; rows && j < fss_jlen(rows); j++) {
			struct json_object *r = fss_jidx(rows, j);
			struct json_object *ci = fss_j(r, "ci95_us");

			field(f, fss_jstr(t, "test"), false);
			field(f, fss_jstr(r, "series"), false);
			field(f, fss_jstr(r, "stat"), false);
			num(f, fss_jnum(r, "a_us"), 3, false);
			num(f, fss_jnum(r, "b_us"), 3, false);
			num(f, fss_jnum(r, "change_pct"), 2, false);
			num(f, json_object_get_double(fss_jidx(ci, 0)), 3, false);
			num(f, json_object_get_double(fss_jidx(ci, 1)), 3, false);
			field(f, fss_jstr(r, "verdict"), true);
		}
	}
}

static const char *const ev_cols[] = {
	"test", "tid", "pid", "comm", "kind", "dev", "ino", "start_ns", "total_ns",
	"fs_ns", "journal_ns", "queue_ns", "device_write_ns", "device_flush_ns",
	"other_ns", "nr_rq", "nr_write", "nr_flush", "ret",
};
#define NEV	(sizeof(ev_cols) / sizeof(ev_cols[0]))

static void ev_row(struct json_object *ev, void *arg)
{
	FILE *f = arg;
	size_t i;

	for (i = 0; i < NEV; i++) {
		struct json_object *v = fss_j(ev, ev_cols[i]);

		field(f, v && !json_object_is_type(v, json_type_null) ?
		      json_object_get_string(v) : "", i == NEV - 1);
	}
}

int fss_render_csv(struct json_object *doc, FILE *f,
		   const struct fss_render_opts *ro, char *err, size_t errlen)
{
	const char *kind = fss_doc_kind(doc);
	size_t i;

	if (ro && ro->events_path) {
		for (i = 0; i < NEV; i++)
			field(f, ev_cols[i], i == NEV - 1);
		return fss_events_each(ro->events_path, NULL, ev_row, f, err, errlen);
	}
	if (!strcmp(kind, "diff")) {
		diff_rows(f, doc);
		return 0;
	}
	if (strcmp(kind, "run") && strcmp(kind, "compare")) {
		snprintf(err, errlen, "no CSV rendering for %s results", kind);
		return -1;
	}
	fputs("test,fs,series,count,mean_us,p50_us,p99_us,p99_9_us,max_us,share\r\n", f);
	fss_doc_foreach_test(doc, test_rows, f);
	return 0;
}
