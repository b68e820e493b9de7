// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * out_html.c - one self-contained HTML page of a result document: inline
 * CSS and SVG (out_svg.c), no script, no network, printable.  Kinds: run,
 * compare, diff, trace (summary).  Every number shown comes from the
 * document; tables carry data-test / data-series / data-stat attributes so
 * a test can read the page back and compare it with the JSON.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "doc/doc.h"
#include "lib/hist.h"
#include "lib/phase.h"
#include "render/out_html_blame.h"
#include "render/out_html_compare.h"
#include "render/out_html_little.h"
#include "render/out_svg.h"
#include "render/render.h"

#define MAX_POINTS	20000

static const char css[] =
"body{font:14px/1.4 system-ui,sans-serif;color:#222;max-width:1000px;margin:1em auto;padding:0 1em}"
"h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}"
"h3{font-size:1em;margin:1.2em 0 .3em}"
"table{border-collapse:collapse;margin:.4em 0}td,th{padding:2px 8px;text-align:right}"
"th{background:#f2f2f2}td:first-child,th:first-child{text-align:left}"
"table.facts td{text-align:left;vertical-align:top}table.facts td:first-child{color:#555}"
".verdict{border-left:4px solid #D55E00;padding:.4em .8em;background:#fff6ef}"
"figure{margin:.6em 0}figcaption{font-weight:600;font-size:.95em}"
"svg.chart{max-width:100%;height:auto;background:#fff}"
".small{display:inline-block;margin-right:8px}"
".ax{stroke:#444;stroke-width:1}.grid{stroke:#ddd;stroke-width:1}"
".zero{stroke:#444;stroke-dasharray:3 3}"
".mark{stroke:#000;stroke-width:1;stroke-dasharray:4 2}"
".tick{font-size:10px;fill:#444}.axt{font-size:11px;fill:#222}"
".lbl{font-size:11px;fill:#222}.mk{font-size:10px;fill:#000}"
".note{color:#555;font-size:.85em;margin:.2em 0}"
"ul.legend{list-style:none;padding:0;margin:.3em 0}ul.legend li{display:inline-block;margin-right:12px}"
".sw{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-1px}"
"caption{text-align:left;font-weight:600;padding:.2em 0}"
"table.blamed td,table.blame td{white-space:nowrap}"
"table.blamed td[data-stat=comm],table.blamed td[data-stat=cgroup],"
"table.blame td[data-stat=comm],table.blame td[data-stat=cgroup]{text-align:left}"
".slower{color:#b03a00;font-weight:600}.faster{color:#005a8c;font-weight:600}"
"@media print{body{max-width:none}figure{break-inside:avoid}}";

static void esc(FILE *f, const char *s)
{
	svg_esc(f, s ? s : "n/a");
}

static void page_open(FILE *f, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<meta name=\"viewport\" content=\"width=device-width\"><title>", f);
	esc(f, title);
	fprintf(f, "</title><style>%s</style></head><body>\n<h1>", css);
	esc(f, title);
	fputs("</h1>\n", f);
}

static void page_close(FILE *f, struct json_object *doc)
{
	fputs("<p class=\"note\">Made by fsyncscope", f);
	if (fss_jstr(doc, "version")) {
		fputc(' ', f);
		esc(f, fss_jstr(doc, "version"));
	}
	fputs(" from a result of schema ", f);
	esc(f, fss_jstr(doc, "schema"));
	fputs(". Phases add up to each sync's total; see docs/model.md.</p>\n"
	      "</body></html>\n", f);
}

static void fact(FILE *f, const char *k, const char *v)
{
	fputs("<tr><td>", f);
	esc(f, k);
	fputs("</td><td>", f);
	esc(f, v);
	fputs("</td></tr>\n", f);
}

static void host_facts(FILE *f, struct json_object *doc)
{
	struct json_object *h = fss_j(doc, "host"), *s = fss_j(doc, "strategy");
	char buf[512];

	snprintf(buf, sizeof(buf), "%s, Linux %s %s, %lld CPUs",
		 fss_jstr(h, "hostname") ?: "?", fss_jstr(h, "kernel") ?: "?",
		 fss_jstr(h, "machine") ?: "", fss_jint(h, "cpus", 0));
	fact(f, "host", buf);
	if (s) {
		snprintf(buf, sizeof(buf), "sync %s, fs %s, journal %s, block %s, nvme %s",
			 fss_jstr(s, "sync") ?: "n/a", fss_jstr(s, "fs") ?: "n/a",
			 fss_jstr(s, "journal") ?: "n/a", fss_jstr(s, "block") ?: "n/a",
			 fss_jstr(s, "nvme") ?: "n/a");
		fact(f, "attach points", buf);
	}
}

static void verdict_block(FILE *f, struct json_object *doc)
{
	struct json_object *v = fss_j(doc, "verdict");

	if (!v || json_object_is_type(v, json_type_null)) {
		if (fss_jstr(doc, "verdict_reason")) {
			fputs("<p class=\"verdict\">No verdict: ", f);
			esc(f, fss_jstr(doc, "verdict_reason"));
			fputs("</p>\n", f);
		}
		return;
	}
	fputs("<div class=\"verdict\"><p><b>Verdict:</b> ", f);
	esc(f, fss_jstr(v, "headline"));
	fputs("</p><p><b>Based on:</b> ", f);
	esc(f, fss_jstr(v, "basis"));
	fputs("</p><p><b>Measured in:</b> ", f);
	esc(f, fss_jstr(v, "measured_in") ?: "device facts only");
	fputs("</p></div>\n", f);
}

/* ---- one test ---------------------------------------------------------- */

static int hist_get(struct json_object *t, const char *series, struct fss_hist *h)
{
	return fss_hist_from_json(fss_j(fss_j(t, "hist"), series), h);
}

static void num_cell(FILE *f, const char *stat, double us)
{
	char b[48];

	svg_fmt_us(b, sizeof(b), us);
	fprintf(f, "<td data-stat=\"%s\">%s</td>", stat, b);
}

/* The numbers table of a test: per-op latency, each phase, total. */
static void test_table(FILE *f, const char *key, struct json_object *t)
{
	struct json_object *lat = fss_j(t, "latency_us"), *bd = fss_j(t, "breakdown");
	int p;

	fputs("<table class=\"nums\" data-test=\"", f);
	esc(f, key);
	fputs("\"><tr><th>series</th><th>mean</th><th>p50</th><th>p99</th>"
	      "<th>share of sync time</th></tr>\n", f);
	fputs("<tr data-series=\"op\"><td>per op (workload clock)</td>", f);
	num_cell(f, "mean", fss_jnum(lat, "mean"));
	num_cell(f, "p50", fss_jnum(lat, "p50"));
	num_cell(f, "p99", fss_jnum(lat, "p99"));
	fputs("<td></td></tr>\n", f);
	for (p = 0; bd && p < SVG_NPH; p++) {
		struct json_object *ph = fss_j(bd, fss_phase_name(p));
		double sh = fss_jnum(ph, "share");

		fprintf(f, "<tr data-series=\"%s\"><td><span class=\"sw\" style=\"background:%s\">"
			"</span>%s</td>", fss_phase_name(p), svg_phase_colors[p],
			fss_phase_name(p));
		num_cell(f, "mean", fss_jnum(ph, "mean_us"));
		num_cell(f, "p50", fss_jnum(ph, "p50_us"));
		num_cell(f, "p99", fss_jnum(ph, "p99_us"));
		if (isfinite(sh))
			fprintf(f, "<td data-stat=\"share\">%.1f %%</td></tr>\n", sh * 100);
		else
			fputs("<td data-stat=\"share\">n/a</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* Per-sync points of every test, read once from the events file. */
struct tl {
	char name[128];
	struct svg_point *p;
	size_t n, cap;
	double t0;
};

struct tls {
	struct tl *v;
	int n;
};

static struct tl *tl_of(struct tls *ts, const char *name)
{
	struct tl *nv;
	int i;

	for (i = ts->n - 1; i >= 0; i--)
		if (!strcmp(ts->v[i].name, name))
			return &ts->v[i];
	if (ts->n >= 1024 || !(nv = realloc(ts->v, (ts->n + 1) * sizeof(*nv))))
		return NULL;
	ts->v = nv;
	memset(&ts->v[ts->n], 0, sizeof(ts->v[0]));
	snprintf(ts->v[ts->n].name, sizeof(ts->v[0].name), "%s", name);
	return &ts->v[ts->n++];
}

static void tl_add(struct json_object *ev, void *arg)
{
	double start = fss_jnum(ev, "start_ns"), total = fss_jnum(ev, "total_ns");
	struct tl *t = tl_of(arg, fss_jstr(ev, "test") ?: "");
	double best = -1;
	char k[32];
	int p, dom = 5;

	if (!t || !isfinite(start) || !isfinite(total))
		return;
	for (p = 0; p < SVG_NPH; p++) {
		double v;

		snprintf(k, sizeof(k), "%s_ns", fss_phase_name(p));
		v = fss_jnum(ev, k);
		if (v > best) {
			best = v;
			dom = p;
		}
	}
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 4096;
		struct svg_point *np = realloc(t->p, nc * sizeof(*np));

		if (!np)
			return;
		t->p = np;
		t->cap = nc;
	}
	t->t0 = t->n ? fmin(t->t0, start) : start;
	t->p[t->n++] = (struct svg_point){ start, total, dom };
}

static void tls_free(struct tls *ts)
{
	for (int i = 0; i < ts->n; i++)
		free(ts->v[i].p);
	free(ts->v);
	ts->v = NULL;
	ts->n = 0;
}

/* The timeline of one test: at most MAX_POINTS, evenly strided. */
static void test_timeline(FILE *f, const char *name, struct tls *ts,
			  size_t traced)
{
	struct tl *t = NULL;
	char title[300];
	size_t i, stride, kept = 0;

	for (int k = 0; ts && k < ts->n; k++)
		if (!strcmp(ts->v[k].name, name))
			t = &ts->v[k];
	if (!t || !t->n)
		return;
	stride = (t->n + MAX_POINTS - 1) / MAX_POINTS;
	for (i = 0; i < t->n; i += stride) {
		t->p[kept] = t->p[i];
		t->p[kept].t_s = (t->p[i].t_s - t->t0) / 1e9;
		kept++;
	}
	snprintf(title, sizeof(title), "%s: each traced sync over time "
		 "(latency, colour = dominant phase)", name);
	svg_timeline(f, title, t->p, kept, traced > kept ? traced - kept : 0);
}

static void test_hists(FILE *f, const char *key, struct json_object *t,
		       struct tls *events)
{
	static struct fss_hist h[1 + SVG_NPH];
	const struct fss_hist *hp[1 + SVG_NPH];
	struct svg_mark mk[3];
	bool traced = !hist_get(t, "total", &h[0]);
	double lo, hi;
	char title[300];
	int p, n = 1;

	if (!traced && hist_get(t, "op", &h[0]))
		return;
	hp[0] = &h[0];
	for (p = 0; traced && p < SVG_NPH; p++)
		if (!hist_get(t, fss_phase_name(p), &h[1 + p]))
			hp[n++] = &h[1 + p];
	svg_hist_range(hp, n, &lo, &hi);
	mk[0] = (struct svg_mark){ "p50", fss_hist_quantile_ns(&h[0], 0.5) };
	mk[1] = (struct svg_mark){ "p99", fss_hist_quantile_ns(&h[0], 0.99) };
	mk[2] = (struct svg_mark){ "p99.9", fss_hist_quantile_ns(&h[0], 0.999) };
	snprintf(title, sizeof(title), traced ? "%s: sync latency, %llu traced syncs" :
		 "%s: latency per op, %llu ops (not traced)", key,
		 (unsigned long long)h[0].count);
	svg_hist(f, title, &h[0], lo, hi, SVG_TOTAL_COLOR, mk, 3, 0);
	for (p = 0; traced && p < SVG_NPH; p++) {
		snprintf(title, sizeof(title), "%s time per sync", fss_phase_name(p));
		mk[0].ns = fss_hist_quantile_ns(&h[1 + p], 0.5);
		mk[1].ns = fss_hist_quantile_ns(&h[1 + p], 0.99);
		svg_hist(f, title, &h[1 + p], lo, hi, svg_phase_colors[p], mk, 2, 1);
	}
	if (traced)
		test_timeline(f, key, events, (size_t)h[0].count);
}

/* ---- run --------------------------------------------------------------- */

struct bars {
	struct svg_bar b[256];
	char labels[256][128];
	int n;
};

static int bar_fn(const char *key, struct json_object *t, void *arg)
{
	struct bars *bs = arg;
	struct json_object *bd = fss_j(t, "breakdown");
	struct svg_bar *b;
	char m[32];
	int p;

	if (!bd || bs->n >= 256)
		return 0;
	b = &bs->b[bs->n];
	snprintf(bs->labels[bs->n], sizeof(bs->labels[0]), "%s", key);
	b->label = bs->labels[bs->n++];
	for (p = 0; p < SVG_NPH; p++)
		b->share[p] = fss_jnum(fss_j(bd, fss_phase_name(p)), "share");
	svg_fmt_us(m, sizeof(m), fss_jnum(fss_j(fss_j(t, "hist"), "total"), "sum_ns") /
	       fmax(fss_jnum(fss_j(fss_j(t, "hist"), "total"), "count"), 1) / 1000);
	snprintf(b->note, sizeof(b->note), "mean %s", m);
	return 0;
}

struct run_ctx {
	FILE *f;
	struct tls *events;
	struct json_object *doc;
};

static int run_test_fn(const char *key, struct json_object *t, void *arg)
{
	struct run_ctx *c = arg;
	char b[64];

	fputs("<h3>", c->f);
	esc(c->f, key);
	fputs("</h3>\n", c->f);
	if (strcmp(fss_jstr(t, "status") ?: "", "ok")) {
		fputs("<p>n/a: ", c->f);
		esc(c->f, fss_jstr(t, "reason"));
		fputs("</p>\n", c->f);
		return 0;
	}
	snprintf(b, sizeof(b), "%.3f ops/s, %lld ops in %.3f s", fss_jnum(t, "ops_per_sec"),
		 fss_jint(t, "ops", 0), fss_jnum(t, "elapsed_s"));
	fputs("<p>", c->f);
	esc(c->f, b);
	if (fss_jstr(t, "note")) {
		fputs(" — ", c->f);
		esc(c->f, fss_jstr(t, "note"));
	}
	fputs("</p>\n", c->f);
	test_table(c->f, key, t);
	html_blame_test(c->f, key, t, c->doc);
	test_hists(c->f, key, t, c->events);
	return 0;
}

static void shares_chart(FILE *f, struct json_object *doc, const char *title)
{
	struct bars *bs = calloc(1, sizeof(*bs));

	if (!bs)
		return;
	fss_doc_foreach_test(doc, bar_fn, bs);
	if (bs->n) {
		svg_phase_legend(f);
		svg_stacked_shares(f, title, bs->b, bs->n);
	}
	free(bs);
}

/*
 * Overload by design (docs/hotpath.md): syncs only counted in the kernel,
 * over the run's traced tests; the charts cover the syncs traced in full
 */
static void summarized_fact(FILE *f, struct json_object *doc)
{
	struct json_object *ts = fss_j(doc, "tests");
	long long traced = 0, summ = 0;
	bool any = false;
	char buf[160];

	for (size_t i = 0; ts && i < fss_jlen(ts); i++) {
		struct json_object *t = fss_jidx(ts, i);

		if (!fss_j(t, "overload"))
			continue;
		any = true;
		traced += fss_jint(t, "syncs_traced", 0);
		summ += fss_jint(t, "syncs_summarized", 0);
	}
	if (!any)
		return;
	snprintf(buf, sizeof(buf), "%lld (traced in full: %lld; the breakdowns "
		 "cover those)", summ, traced);
	fact(f, "syncs summarized", buf);
}

/* "painted": --painter kernel (the run's options, the trace document) */
static void painted_fact(FILE *f, struct json_object *o)
{
	const char *p = fss_jstr(o, "painter");

	if (p && !strcmp(p, "kernel"))
		fact(f, "painted", "in the kernel, one record per sync (no "
		     "request records: their counts n/a; blame of the slowest syncs "
		     "only, from a flight recorder)");
}

static void render_run(FILE *f, struct json_object *doc, struct tls *events)
{
	struct json_object *t = fss_j(doc, "target"), *o = fss_j(doc, "options");
	struct run_ctx c = { f, events, doc };
	char buf[600], title[400];

	snprintf(title, sizeof(title), "fsyncscope run: %s", fss_jstr(t, "path") ?: "?");
	page_open(f, title);
	fss_html_findings(f, doc);
	fputs("<table class=\"facts\">\n", f);
	host_facts(f, doc);
	snprintf(buf, sizeof(buf), "%s on %s, mounted at %s (%s)", fss_jstr(t, "fstype") ?: "?",
		 fss_jstr(t, "source") ?: "?", fss_jstr(t, "mountpoint") ?: "?",
		 fss_jstr(t, "mount_options") ?: "");
	fact(f, "filesystem", buf);
	snprintf(buf, sizeof(buf), "%s, write cache %s, logical block %lld bytes",
		 fss_jstr(t, "device") ?: "?", fss_jstr(t, "write_cache") ?: "unknown",
		 fss_jint(t, "logical_block_size", 0));
	fact(f, "device", buf);
	snprintf(buf, sizeof(buf), "%s, %s, tracing %s", fss_jstr(o, "mode") ?: "?",
		 isfinite(fss_jnum(o, "seconds")) ? "time-limited" : "count-limited",
		 json_object_get_boolean(fss_j(o, "trace")) ? "on" : "off");
	fact(f, "run", buf);
	snprintf(buf, sizeof(buf), "%lld", fss_jint(doc, "drops", -1));
	fact(f, "events lost", fss_jint(doc, "drops", -1) < 0 ? "n/a (not traced)" : buf);
	summarized_fact(f, doc);
	painted_fact(f, o);
	if (fss_jstr(fss_j(doc, "strategy"), "blame"))
		fact(f, "blame", fss_jstr(fss_j(doc, "strategy"), "blame"));
	fputs("</table>\n", f);
	verdict_block(f, doc);
	fputs("<h2>Where sync time goes, per test</h2>\n", f);
	shares_chart(f, doc, "Share of traced sync time by phase, per test "
		     "(right: mean sync latency)");
	html_blame_run_chart(f, doc);
	fss_html_little(f, doc);
	fputs("<h2>Tests</h2>\n", f);
	fss_doc_foreach_test(doc, run_test_fn, &c);
	page_close(f, doc);
}

/* ---- compare ----------------------------------------------------------- */

static void compare_workload(FILE *f, struct json_object *w)
{
	struct json_object *res = fss_j(w, "results");
	static struct fss_hist hs[4];
	const struct fss_hist *hp[4];
	const char *names[4];
	struct bars *bs = calloc(1, sizeof(*bs));
	char title[400];
	double lo, hi;
	size_t i;
	int n = 0;

	fputs("<h2>", f);
	esc(f, fss_jstr(w, "title") ?: fss_jstr(w, "name"));
	fputs("</h2>\n", f);
	fss_html_compare_summary(f, w);
	for (i = 0; res && i < fss_jlen(res); i++) {
		struct json_object *t = fss_jidx(res, i);
		char key[200];

		const char *fs = fss_jstr(t, "label") ?: fss_jstr(t, "fs") ?: "?";

		snprintf(key, sizeof(key), "%s/%s", fs,
			 fss_jstr(t, "name") ?: "?");
		if (bs)
			bar_fn(fs, t, bs);
		if (n < 4 && !hist_get(t, "total", &hs[n])) {
			names[n] = fs;
			hp[n] = &hs[n];
			n++;
		}
		fputs("<h3>", f);
		esc(f, key);
		fputs("</h3>\n", f);
		if (strcmp(fss_jstr(t, "status") ?: "", "ok")) {
			fputs("<p>n/a: ", f);
			esc(f, fss_jstr(t, "reason"));
			fputs("</p>\n", f);
		} else {
			test_table(f, key, t);
		}
	}
	if (bs && bs->n) {
		snprintf(title, sizeof(title), "%s: share of sync time by phase, per "
			 "filesystem", fss_jstr(w, "name") ?: "");
		svg_phase_legend(f);
		svg_stacked_shares(f, title, bs->b, bs->n);
	}
	free(bs);
	fss_html_compare_ci(f, w);
	if (n) {
		svg_hist_range(hp, n, &lo, &hi);
		snprintf(title, sizeof(title), "%s: sync latency per filesystem, same axes",
			 fss_jstr(w, "name") ?: "");
		svg_hist_overlay(f, title, hs, names, n, lo, hi);
	}
}

static void render_compare(FILE *f, struct json_object *doc)
{
	struct json_object *ws = fss_j(doc, "workloads"), *im = fss_j(doc, "images");
	char buf[400];
	size_t i;

	page_open(f, "fsyncscope compare: the same syncs on each filesystem");
	fss_html_findings(f, doc);
	fputs("<table class=\"facts\">\n", f);
	host_facts(f, doc);
	if (im) {
		snprintf(buf, sizeof(buf), "loop images in %s (%lld bytes each)",
			 fss_jstr(im, "dir") ?: "?", fss_jint(im, "size_bytes", 0));
		fact(f, "where", buf);
	}
	fputs("</table>\n", f);
	for (i = 0; ws && i < fss_jlen(ws); i++)
		compare_workload(f, fss_jidx(ws, i));
	page_close(f, doc);
}

/* ---- diff -------------------------------------------------------------- */

static void diff_test(FILE *f, struct json_object *t)
{
	struct json_object *rows = fss_j(t, "rows");
	struct svg_ci ci[32];
	char labels[32][64], title[300];
	size_t i;
	int n = 0;

	fputs("<h3>", f);
	esc(f, fss_jstr(t, "test"));
	fprintf(f, "</h3>\n<p class=\"note\">A: %lld samples, B: %lld samples</p>\n",
		fss_jint(t, "a_count", 0), fss_jint(t, "b_count", 0));
	fputs("<table class=\"diff\" data-test=\"", f);
	esc(f, fss_jstr(t, "test"));
	fputs("\"><tr><th>series</th><th>stat</th><th>A</th><th>B</th><th>change</th>"
	      "<th>95 % interval</th><th>verdict</th></tr>\n", f);
	for (i = 0; rows && i < fss_jlen(rows); i++) {
		struct json_object *r = fss_jidx(rows, i);
		struct json_object *cp = fss_j(r, "ci95_pct");
		const char *word = fss_jstr(r, "verdict") ?: "?";
		double lo = fss_jnum(r, "ci95_pct") , pct = fss_jnum(r, "change_pct");
		char a[48], b[48];

		(void)lo;
		svg_fmt_us(a, sizeof(a), fss_jnum(r, "a_us"));
		svg_fmt_us(b, sizeof(b), fss_jnum(r, "b_us"));
		fprintf(f, "<tr data-series=\"%s\" data-stat=\"%s\"><td>%s</td><td>%s</td>"
			"<td>%s</td><td>%s</td>", fss_jstr(r, "series"), fss_jstr(r, "stat"),
			fss_jstr(r, "series"), fss_jstr(r, "stat"), a, b);
		if (isfinite(pct))
			fprintf(f, "<td>%+.1f %%</td><td>%+.1f .. %+.1f %%</td>", pct,
				json_object_get_double(fss_jidx(cp, 0)),
				json_object_get_double(fss_jidx(cp, 1)));
		else
			fprintf(f, "<td>%+.1f µs</td><td>n/a (A is 0)</td>",
				fss_jnum(r, "change_us"));
		fprintf(f, "<td class=\"%s\" data-verdict>%s</td></tr>\n",
			strcmp(word, "within noise") ? word : "noise", word);
		if (n < 32 && isfinite(pct)) {
			snprintf(labels[n], sizeof(labels[0]), "%s %s", fss_jstr(r, "series"),
				 fss_jstr(r, "stat"));
			ci[n] = (struct svg_ci){ labels[n], pct,
				json_object_get_double(fss_jidx(cp, 0)),
				json_object_get_double(fss_jidx(cp, 1)),
				!strcmp(word, "slower") ? 1 : !strcmp(word, "faster") ? -1 : 0 };
			n++;
		}
	}
	fputs("</table>\n", f);
	snprintf(title, sizeof(title), "%s: change of B against A with its 95 %% interval",
		 fss_jstr(t, "test") ?: "");
	if (n)
		svg_ci_plot(f, title, ci, n);
}

static void render_diff(FILE *f, struct json_object *doc)
{
	struct json_object *a = fss_j(doc, "a"), *b = fss_j(doc, "b");
	struct json_object *m = fss_j(doc, "method"), *ts = fss_j(doc, "tests");
	char buf[600];
	size_t i;

	page_open(f, "fsyncscope diff: is B slower than A?");
	fputs("<table class=\"facts\">\n", f);
	snprintf(buf, sizeof(buf), "%s (%s, %s, Linux %s)", fss_jstr(a, "path") ?: "?",
		 fss_jstr(a, "target") ?: "?", fss_jstr(a, "hostname") ?: "?",
		 fss_jstr(a, "kernel") ?: "?");
	fact(f, "A", buf);
	snprintf(buf, sizeof(buf), "%s (%s, %s, Linux %s)", fss_jstr(b, "path") ?: "?",
		 fss_jstr(b, "target") ?: "?", fss_jstr(b, "hostname") ?: "?",
		 fss_jstr(b, "kernel") ?: "?");
	fact(f, "B", buf);
	snprintf(buf, sizeof(buf), "%s; %lld resamples, seed %lld; within noise unless "
		 "the whole interval is beyond %.3g %% and %.3g µs", fss_jstr(m, "bootstrap"),
		 fss_jint(m, "resamples", 0), fss_jint(m, "seed", 0),
		 fss_jnum(m, "min_change_pct"), fss_jnum(m, "min_change_us"));
	fact(f, "method", buf);
	fputs("</table>\n", f);
	for (i = 0; ts && i < fss_jlen(ts); i++)
		diff_test(f, fss_jidx(ts, i));
	page_close(f, doc);
}

/* ---- trace summary ----------------------------------------------------- */

/* Top rows (processes or files) of a trace summary: a table and bars. */
static void trace_top(FILE *f, struct json_object *arr, const char *what,
		      const char *name_key, const char *title)
{
	struct bars *bs = calloc(1, sizeof(*bs));
	size_t i, n = arr ? fss_jlen(arr) : 0;
	int p;

	if (!bs || !n) {
		free(bs);
		return;
	}
	fprintf(f, "<h2>%s</h2>\n<table class=\"top\" data-what=\"%s\"><tr><th>%s</th>"
		"<th>syncs</th><th>mean</th><th>p50</th><th>p99</th><th>max</th></tr>\n",
		title, what, what);
	for (i = 0; i < n && i < 10; i++) {
		struct json_object *r = fss_jidx(arr, i);
		char lbl[128];

		if (!strcmp(name_key, "name"))
			snprintf(lbl, sizeof(lbl), "%s (%lld)", fss_jstr(r, "name") ?: "?",
				 fss_jint(r, "pid", 0));
		else
			snprintf(lbl, sizeof(lbl), "%s", fss_jstr(r, name_key) ?: "?");
		fputs("<tr><td>", f);
		esc(f, lbl);
		fprintf(f, "</td><td>%lld</td>", fss_jint(r, "syncs", 0));
		num_cell(f, "mean", fss_jnum(r, "mean_us"));
		num_cell(f, "p50", fss_jnum(r, "p50_us"));
		num_cell(f, "p99", fss_jnum(r, "p99_us"));
		num_cell(f, "max", fss_jnum(r, "max_us"));
		fputs("</tr>\n", f);
		if (strlen(lbl) > 30)	/* paths: keep their end */
			snprintf(bs->labels[bs->n], sizeof(bs->labels[0]), "…%s",
				 lbl + strlen(lbl) - 29);
		else
			snprintf(bs->labels[bs->n], sizeof(bs->labels[0]), "%s", lbl);
		bs->b[bs->n].label = bs->labels[bs->n];
		for (p = 0; p < SVG_NPH; p++)
			bs->b[bs->n].share[p] = fss_jnum(fss_j(fss_j(r, "phases"),
						 fss_phase_name(p)), "share");
		svg_fmt_us(lbl, 32, fss_jnum(r, "mean_us"));
		snprintf(bs->b[bs->n].note, sizeof(bs->b[0].note), "mean %.32s", lbl);
		bs->n++;
	}
	fputs("</table>\n", f);
	svg_stacked_shares(f, "Share of each one's sync time by phase (right: mean)",
			   bs->b, bs->n);
	free(bs);
}

/* The sync-time histogram of all traced syncs (trace keeps no phases') */
static void trace_hist(FILE *f, struct json_object *all)
{
	static struct fss_hist h;
	const struct fss_hist *hp = &h;
	struct svg_mark mk[3];
	char title[160];
	double lo, hi;

	if (fss_hist_from_json(fss_j(all, "hist"), &h) || !h.count)
		return;
	svg_hist_range(&hp, 1, &lo, &hi);
	mk[0] = (struct svg_mark){ "p50", fss_hist_quantile_ns(&h, 0.5) };
	mk[1] = (struct svg_mark){ "p99", fss_hist_quantile_ns(&h, 0.99) };
	mk[2] = (struct svg_mark){ "p99.9", fss_hist_quantile_ns(&h, 0.999) };
	snprintf(title, sizeof(title), "Sync latency, all %llu traced syncs",
		 (unsigned long long)h.count);
	svg_hist(f, title, &h, lo, hi, SVG_TOTAL_COLOR, mk, 3, 0);
}

/* did the trace see a database's file (a class with a "db")? */
static bool any_db_class(struct json_object *a)
{
	size_t n = a ? fss_jlen(a) : 0;

	for (size_t i = 0; i < n; i++)
		if (fss_jstr(fss_jidx(a, i), "db"))
			return true;
	return false;
}

/* PostgreSQL checkpoints: the checkpointer's sync phase (docs/databases.md) */
static void trace_ckpts(FILE *f, struct json_object *arr)
{
	size_t i, n = arr ? fss_jlen(arr) : 0;

	if (!n)
		return;
	fputs("<h2>Checkpoints (the checkpointer's sync phase; cf. log_checkpoints "
	      "&quot;sync files=&quot;)</h2>\n<table class=\"top\" "
	      "data-what=\"checkpoint\"><tr><th>start</th><th>pid</th><th>files</th>"
	      "<th>syncs</th><th>seconds</th><th>longest</th><th>average</th>"
	      "<th>complete</th></tr>\n", f);
	for (i = 0; i < n; i++) {
		struct json_object *c = fss_jidx(arr, i);

		fputs("<tr><td>", f);
		esc(f, fss_jstr(c, "start") ?: "?");
		fprintf(f, "</td><td>%lld</td><td>%lld</td><td>%lld</td><td>%.3f</td>",
			fss_jint(c, "pid", 0), fss_jint(c, "files", 0),
			fss_jint(c, "syncs", 0), fss_jnum(c, "seconds"));
		num_cell(f, "longest", fss_jnum(c, "longest_us"));
		num_cell(f, "average", fss_jnum(c, "average_us"));
		fprintf(f, "<td>%s</td></tr>\n",
			json_object_get_boolean(fss_j(c, "complete")) ? "yes" : "no");
	}
	fputs("</table>\n", f);
}

static void render_trace(FILE *f, struct json_object *doc)
{
	struct json_object *all = fss_j(doc, "all"), *ov = fss_j(doc, "overload");
	struct bars *bs = calloc(1, sizeof(*bs));
	char buf[200];

	snprintf(buf, sizeof(buf), "fsyncscope trace: %s of %.1f s",
		 fss_jstr(doc, "type") ?: "report", fss_jnum(doc, "seconds"));
	page_open(f, buf);
	fss_html_findings(f, doc);
	fputs("<table class=\"facts\">\n", f);
	fact(f, "started", fss_jstr(doc, "start"));
	snprintf(buf, sizeof(buf), "%lld syncs, %lld processes, %lld files",
		 fss_jint(all, "syncs", 0), fss_jint(doc, "processes_total", 0),
		 fss_jint(doc, "files_total", 0));
	fact(f, "traced", buf);
	snprintf(buf, sizeof(buf), "%lld", fss_jint(doc, "events_lost", 0));
	fact(f, "events lost", buf);
	painted_fact(f, doc);
	if (ov && fss_jint(ov, "sample_every", 0) > 1) {
		snprintf(buf, sizeof(buf), "1 in %lld syncs traced in full, "
			 "drawn at random (--sample)",
			 fss_jint(ov, "sample_every", 0));
		fact(f, "sampled", buf);
	}
	if (ov && fss_jint(ov, "summarized", 0) > 0) {
		snprintf(buf, sizeof(buf), "%lld (traced in full: %lld; the "
			 "breakdowns cover those)", fss_jint(ov, "summarized", 0),
			 fss_jint(ov, "traced", 0));
		fact(f, "syncs summarized", buf);
	}
	fputs("</table>\n", f);
	if (bs && fss_j(all, "phases")) {
		bs->b[0].label = "all traced syncs";
		for (int p = 0; p < SVG_NPH; p++)
			bs->b[0].share[p] = fss_jnum(fss_j(fss_j(all, "phases"),
						     fss_phase_name(p)), "share");
		svg_fmt_us(buf, 32, fss_jnum(all, "mean_us"));
		snprintf(bs->b[0].note, sizeof(bs->b[0].note), "mean %.32s", buf);
		bs->n = 1;
		svg_phase_legend(f);
		svg_stacked_shares(f, "Share of all traced sync time by phase", bs->b, 1);
	}
	free(bs);
	trace_hist(f, all);
	trace_top(f, fss_j(doc, "processes"), "process", "name",
		  "Top processes by sync time");
	trace_top(f, fss_j(doc, "files"), "file", "path", "Top files by sync time");
	html_blame_trace(f, doc);
	if (any_db_class(fss_j(doc, "classes")))
		trace_top(f, fss_j(doc, "classes"), "class", "label",
			  "Database files by class (docs/databases.md)");
	trace_ckpts(f, fss_j(doc, "checkpoints"));
	page_close(f, doc);
}

int fss_render_html(struct json_object *doc, FILE *f,
		    const struct fss_render_opts *ro, char *err, size_t errlen)
{
	const char *kind = fss_doc_kind(doc);
	struct tls ts = { 0 };
	long long lines;

	/* parse only every stride-th record: at most MAX_POINTS in all */
	if (ro && ro->events_path) {
		lines = fss_events_count(ro->events_path, err, errlen);
		if (lines < 0 || fss_events_some(ro->events_path,
				(size_t)((lines + MAX_POINTS - 1) / MAX_POINTS), 0,
				tl_add, &ts, err, errlen)) {
			tls_free(&ts);
			return -1;
		}
	}
	if (!strcmp(kind, "run"))
		render_run(f, doc, &ts);
	else if (!strcmp(kind, "compare"))
		render_compare(f, doc);
	else if (!strcmp(kind, "diff"))
		render_diff(f, doc);
	else if (!strcmp(kind, "trace"))
		render_trace(f, doc);
	else {
		snprintf(err, errlen, "no HTML rendering for %s results", kind);
		tls_free(&ts);
		return -1;
	}
	tls_free(&ts);
	return 0;
}
