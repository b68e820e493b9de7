// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * out_html_little.c - a sweep's Little's-law figures in the HTML page of
 * a run (the seed article's: IOPS and latency against the depth or the
 * jobs), from the document's "little" object (docs/run.md): IOPS with
 * the IOPS Little's law gives (concurrency / mean latency) and the naive
 * capacity 1 / latency at the base level; mean, p50 and p99 latency; L
 * = IOPS x mean latency against the concurrency asked.  A table with the
 * same numbers (data-level, data-stat) comes first.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include "doc/doc.h"
#include "render/out_html_little.h"
#include "render/out_svg.h"

#define MAXPT	64	/* MAX_SWEEP */

struct pts {
	int n;
	double lv[MAXPT], conc[MAXPT], iops[MAXPT], mean[MAXPT], p50[MAXPT];
	double p99[MAXPT], L[MAXPT], lit[MAXPT], naive[MAXPT], pnaive[MAXPT];
};

/* A number of the document, NAN when null or the level is n/a. */
static double num(struct json_object *p, const char *k, bool ok)
{
	return ok ? fss_jnum(p, k) : NAN;
}

static void pts_read(struct json_object *little, struct pts *q)
{
	struct json_object *a = fss_j(little, "points");
	double cap = fss_jnum(little, "naive_capacity");

	q->n = 0;
	for (size_t i = 0; a && i < fss_jlen(a) && q->n < MAXPT; i++) {
		struct json_object *p = fss_jidx(a, i);
		bool ok = !strcmp(fss_jstr(p, "status") ?: "", "ok");
		int k = q->n++;

		q->lv[k] = fss_jnum(p, "level");
		q->conc[k] = fss_jnum(p, "concurrency");
		q->iops[k] = num(p, "ops_per_sec", ok);
		q->mean[k] = num(p, "mean_us", ok);
		q->p50[k] = num(p, "p50_us", ok);
		q->p99[k] = num(p, "p99_us", ok);
		q->L[k] = num(p, "L", ok);
		q->lit[k] = num(p, "little_iops", ok);
		q->pnaive[k] = num(p, "naive_capacity", ok);
		q->naive[k] = cap;
	}
}

static void cell(FILE *f, const char *stat, const char *fmt, double v)
{
	fprintf(f, "<td data-stat=\"%s\">", stat);
	if (isfinite(v))
		fprintf(f, fmt, v);
	else
		fputs("n/a", f);
	fputs("</td>", f);
}

static void us_cell(FILE *f, const char *stat, double us)
{
	char b[48];

	svg_fmt_us(b, sizeof(b), us);
	fprintf(f, "<td data-stat=\"%s\">%s</td>", stat, b);
}

static void little_table(FILE *f, const struct pts *q, const char *ax)
{
	fprintf(f, "<table class=\"little\"><tr><th>%s</th><th>in flight "
		"asked</th><th>IOPS</th><th>mean</th><th>p50</th><th>p99</th>"
		"<th>L = IOPS × mean</th><th>Little: asked / mean</th>"
		"<th>1 / latency</th></tr>\n", ax);
	for (int k = 0; k < q->n; k++) {
		fprintf(f, "<tr data-level=\"%.0f\"><td>%.0f</td>", q->lv[k],
			q->lv[k]);
		cell(f, "concurrency", "%.0f", q->conc[k]);
		cell(f, "ops_per_sec", "%.1f", q->iops[k]);
		us_cell(f, "mean_us", q->mean[k]);
		us_cell(f, "p50_us", q->p50[k]);
		us_cell(f, "p99_us", q->p99[k]);
		cell(f, "L", "%.3f", q->L[k]);
		cell(f, "little_iops", "%.1f", q->lit[k]);
		cell(f, "naive_capacity", "%.1f", q->pnaive[k]);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void iops_chart(FILE *f, const struct pts *q, const char *ax,
		       struct json_object *little)
{
	struct svg_xy_series s[3] = {
		{ "ops_per_sec", "IOPS measured", "#0072B2", NULL, q->lv,
		  q->iops, q->n, true },
		{ "little_iops", "Little's law: in flight asked / mean latency",
		  "#009E73", "6 3", q->lv, q->lit, q->n, true },
		{ "naive_capacity", "naive capacity: 1 / latency at the base",
		  "#D55E00", "2 3", q->lv, q->naive, q->n, true },
	};
	char title[160], xt[64], note[300];

	snprintf(title, sizeof(title), "IOPS against %s", ax);
	snprintf(xt, sizeof(xt), "%s", ax);
	snprintf(note, sizeof(note), "Where IOPS rises above the naive line, "
		 "the device works on several syncs at once; IOPS on the "
		 "Little's-law line means the latency measured explains it "
		 "(base: %s %lld, mean latency %.1f µs).", ax,
		 fss_jint(little, "base_level", 0),
		 fss_jnum(little, "base_mean_us"));
	svg_xy_chart(f, title, xt, "ops per second", false, s, 3, note);
}

static void lat_chart(FILE *f, const struct pts *q, const char *ax)
{
	struct svg_xy_series s[3] = {
		{ "mean_us", "mean", "#0072B2", NULL, q->lv, q->mean, q->n,
		  true },
		{ "p50_us", "p50", "#009E73", NULL, q->lv, q->p50, q->n, true },
		{ "p99_us", "p99", "#D55E00", NULL, q->lv, q->p99, q->n, true },
	};
	char title[160];

	snprintf(title, sizeof(title), "Latency per op against %s", ax);
	svg_xy_chart(f, title, ax, "latency per op", true, s, 3, NULL);
}

static void l_chart(FILE *f, const struct pts *q)
{
	struct svg_xy_series s[2] = {
		{ "L", "L = IOPS × mean latency", "#0072B2", NULL, q->conc,
		  q->L, q->n, true },
		{ "concurrency", "in flight asked (L = it)", "#777777", "6 3",
		  q->conc, q->conc, q->n, false },
	};

	svg_xy_chart(f, "Little's law: L against the ops asked to be in "
		     "flight", "ops in flight asked (jobs × depth)",
		     "L, ops in flight measured", false, s, 2, "L below the line: "
		     "ops were not all in flight all the time (start and "
		     "stop, time between an op and the next).");
}

void fss_html_little(FILE *f, struct json_object *doc)
{
	struct json_object *little = fss_j(doc, "little");
	const char *ax;
	struct pts q;

	if (!little || !json_object_is_type(little, json_type_object))
		return;
	ax = !strcmp(fss_jstr(little, "axis") ?: "", "iodepth") ?
	     "io_uring depth" : "jobs";
	pts_read(little, &q);
	if (!q.n)
		return;
	fprintf(f, "<h2>Little's law: IOPS and latency against %s</h2>\n",
		ax);
	fputs("<p class=\"note\">L = λ·W: the ops in flight on average are "
	      "IOPS times the mean latency. 1 / latency is the naive capacity "
	      "\"one sync takes W, so the device does 1/W\" (docs/run.md).</p>"
	      "\n", f);
	little_table(f, &q, ax);
	iops_chart(f, &q, ax, little);
	lat_chart(f, &q, ax);
	l_chart(f, &q);
}
