// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * out_html_compare.c - compare's numbers with their intervals in the HTML
 * page: per workload, a summary chart of each filesystem's own ops/s and
 * p99 over the rounds with their 95 % intervals ("spread", docs/
 * compare.md) and a table of the same; then each ratio to the first
 * filesystem with its interval and word ("confidence").
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include "doc/doc.h"
#include "lib/phase.h"
#include "render/out_html_compare.h"
#include "render/out_svg.h"

static void esc(FILE *f, const char *s)
{
	svg_esc(f, s ? s : "n/a");
}

#define MAXFS	16

static const char *const fs_colors[] = {
	"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
};

/* A number formatted for a cell: ops with one decimal, latencies as us. */
static void val(char *b, size_t len, double v, bool ops)
{
	if (!isfinite(v))
		snprintf(b, len, "n/a");
	else if (ops)
		snprintf(b, len, "%.1f", v);
	else
		svg_fmt_us(b, len, v);
}

static void spread_row(FILE *f, const char *fs, const char *metric,
		       struct json_object *s, bool ops)
{
	char m[48], lo[48], hi[48];

	val(m, sizeof(m), s ? fss_jnum(s, "mean") : NAN, ops);
	val(lo, sizeof(lo), s ? fss_jnum(s, "lo") : NAN, ops);
	val(hi, sizeof(hi), s ? fss_jnum(s, "hi") : NAN, ops);
	fputs("<tr data-fs=\"", f);
	esc(f, fs);
	fprintf(f, "\" data-metric=\"%s\"><td>", metric);
	esc(f, fs);
	fprintf(f, "</td><td>%s</td><td data-stat=\"mean\">%s</td>"
		"<td data-stat=\"lo\">%s</td><td data-stat=\"hi\">%s</td>"
		"<td data-stat=\"rounds\">%lld</td></tr>\n",
		ops ? "ops/sec" : "p99", m, lo, hi, s ? fss_jint(s, "rounds", 0) :
		0);
}

/* ops/s or p99 of every filesystem as interval rows. */
static int irows(struct json_object *w, const char *metric,
		 struct svg_irow *r, char (*keys)[160])
{
	struct json_object *res = fss_j(w, "results");
	int n = 0;

	for (size_t i = 0; res && i < fss_jlen(res) && n < MAXFS; i++) {
		struct json_object *t = fss_jidx(res, i);
		struct json_object *s = fss_j(fss_j(t, "spread"), metric);
		const char *fs = fss_jstr(t, "label") ?: fss_jstr(t, "fs") ?: "?";

		snprintf(keys[n], sizeof(keys[0]), "%s/%s/%s",
			 fss_jstr(w, "name") ?: "?", fs, metric);
		r[n] = (struct svg_irow){ fs, keys[n],
			fs_colors[n % (sizeof(fs_colors) / sizeof(*fs_colors))],
			s ? fss_jnum(s, "mean") : NAN, s ? fss_jnum(s, "lo") : NAN,
			s ? fss_jnum(s, "hi") : NAN };
		n++;
	}
	return n;
}

void fss_html_compare_summary(FILE *f, struct json_object *w)
{
	struct json_object *res = fss_j(w, "results");
	static char keys[MAXFS][160];
	struct svg_irow r[MAXFS];
	char title[300];
	const char *name = fss_jstr(w, "name") ?: "?";
	int n;

	if (!res || !fss_jlen(res) || !fss_j(fss_jidx(res, 0), "spread"))
		return;
	fputs("<table class=\"spread\" data-workload=\"", f);
	esc(f, name);
	fputs("\"><caption>Each filesystem over its rounds: mean and 95 % "
	      "interval</caption><tr><th>filesystem</th><th></th><th>mean</th>"
	      "<th>low</th><th>high</th><th>rounds</th></tr>\n", f);
	for (size_t i = 0; i < fss_jlen(res); i++) {
		struct json_object *t = fss_jidx(res, i);
		const char *fs = fss_jstr(t, "label") ?: fss_jstr(t, "fs") ?: "?";

		spread_row(f, fs, "ops_per_sec",
			   fss_j(fss_j(t, "spread"), "ops_per_sec"), true);
		spread_row(f, fs, "p99_us", fss_j(fss_j(t, "spread"), "p99_us"),
			   false);
	}
	fputs("</table>\n", f);
	n = irows(w, "ops_per_sec", r, keys);
	snprintf(title, sizeof(title), "%s: ops/sec per filesystem (higher is "
		 "better)", name);
	svg_interval_rows(f, title, "ops per second", false, r, n);
	n = irows(w, "p99_us", r, keys);
	snprintf(title, sizeof(title), "%s: p99 latency per op per filesystem "
		 "(lower is better)", name);
	svg_interval_rows(f, title, "p99 latency per op", true, r, n);
}

/* One ratio's row: means, ratio, 95 % interval, word (docs/compare.md). */
static void ci_row(FILE *f, const char *fs, const char *metric,
		   const char *label, struct json_object *c, bool ops)
{
	char a[48], b[48];
	double lo = fss_jnum(c, "lo"), hi = fss_jnum(c, "hi");
	double r = fss_jnum(c, "ratio");

	fputs("<tr data-fs=\"", f);
	esc(f, fs);
	fprintf(f, "\" data-metric=\"%s\"><td>", metric);
	esc(f, label);
	fputs("</td>", f);
	if (!c) {
		fputs("<td data-stat=\"a\">n/a</td><td data-stat=\"b\">n/a</td>"
		      "<td data-stat=\"ratio\">n/a</td><td data-stat=\"interval\">"
		      "n/a</td><td data-stat=\"word\">n/a</td></tr>\n", f);
		return;
	}
	if (ops) {
		snprintf(a, sizeof(a), "%.1f", fss_jnum(c, "a"));
		snprintf(b, sizeof(b), "%.1f", fss_jnum(c, "b"));
	} else {
		svg_fmt_us(a, sizeof(a), fss_jnum(c, "a"));
		svg_fmt_us(b, sizeof(b), fss_jnum(c, "b"));
	}
	fprintf(f, "<td data-stat=\"a\">%s</td><td data-stat=\"b\">%s</td>",
		a, b);
	if (isfinite(r))
		fprintf(f, "<td data-stat=\"ratio\">%.3f</td>", r);
	else
		fputs("<td data-stat=\"ratio\">n/a</td>", f);
	if (isfinite(lo) && isfinite(hi))
		fprintf(f, "<td data-stat=\"interval\">%.3f – %.3f</td>", lo, hi);
	else
		fputs("<td data-stat=\"interval\">n/a</td>", f);
	fputs("<td data-stat=\"word\">", f);
	esc(f, fss_jstr(c, "word") ?: "n/a");
	fputs("</td></tr>\n", f);
}

/* compare: each filesystem against the first over the rounds. */
void fss_html_compare_ci(FILE *f, struct json_object *w)
{
	struct json_object *res = fss_j(w, "results");
	const char *base;
	size_t n = res ? fss_jlen(res) : 0;

	if (n < 2)
		return;
	base = fss_jstr(fss_jidx(res, 0), "label") ?:
	       fss_jstr(fss_jidx(res, 0), "fs") ?: "?";
	for (size_t i = 1; i < n; i++) {
		struct json_object *t = fss_jidx(res, i);
		struct json_object *c = fss_j(t, "confidence");
		struct json_object *ph = fss_j(c, "phases");
		const char *fs = fss_jstr(t, "label") ?: fss_jstr(t, "fs") ?: "?";

		if (!c)
			continue;
		fputs("<h3>", f);
		esc(f, fs);
		fputs(" against ", f);
		esc(f, base);
		fprintf(f, ": means over %lld round(s), ratio, 95 %% interval"
			"</h3>\n", fss_jint(fss_j(c, "ops_per_sec"), "rounds", 0));
		fputs("<table class=\"ci\" data-workload=\"", f);
		esc(f, fss_jstr(w, "name") ?: "?");
		fputs("\"><tr><th>ratio of</th><th>", f);
		esc(f, base);
		fputs("</th><th>", f);
		esc(f, fs);
		fputs("</th><th>ratio</th><th>95 % interval</th><th></th></tr>\n",
		      f);
		ci_row(f, fs, "ops_per_sec", "ops/sec", fss_j(c, "ops_per_sec"),
		       true);
		ci_row(f, fs, "p50_us", "p50", fss_j(c, "p50_us"), false);
		ci_row(f, fs, "p99_us", "p99", fss_j(c, "p99_us"), false);
		for (int p = 0; ph && p < SVG_NPH; p++)
			ci_row(f, fs, fss_phase_name(p), fss_phase_name(p),
			       fss_j(ph, fss_phase_name(p)), false);
		if (ph)
			ci_row(f, fs, "total_mean_us", "total mean",
			       fss_j(c, "total_mean_us"), false);
		fputs("</table>\n", f);
	}
}

