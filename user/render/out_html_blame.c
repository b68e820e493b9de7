// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * out_html_blame.c - blame in the HTML page (docs/blame.md), read from the
 * document only: a run test's `blame` (self / others / unattributed, the
 * other processes that caused the most), a trace summary's `blame`,
 * `blamed[]` and each process's `blame`.  Blame off or n/a is said with
 * its reason, never drawn as an empty table.  Tables carry data-test /
 * data-cause / data-pid / data-stat attributes for tests/helpers/check-html.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lib/phase.h"
#include <json-c/json.h>
#include "doc/doc.h"
#include "render/out_html_blame.h"
#include "render/out_svg.h"

#define CHART_CAUSES	8	/* causes with their own colour in a chart */

static const char *const col_self = "#555555";
static const char *const col_rest = "#aaaaaa";	/* other causes not listed */
static const char *const col_unattr = "#f0f0f0";
/* Paul Tol's muted scheme (colour-blind safe), not the phases' colours */
static const char *const col_cause[CHART_CAUSES] = {
	"#332288", "#88CCEE", "#44AA99", "#117733",
	"#999933", "#CC6677", "#882255", "#AA4499",
};

/* the blamed phases, in the document's order: journal to device_flush */
#define bphase(p) fss_phase_name(FSS_PH_JOURNAL + (p))

static void esc(FILE *f, const char *s)
{
	svg_esc(f, s ? s : "n/a");
}

static void ns_cell(FILE *f, const char *stat, double ns)
{
	char b[48];

	svg_fmt_us(b, sizeof(b), ns / 1e3);
	fprintf(f, "<td data-stat=\"%s\">%s</td>", stat, b);
}

static void share_cell(FILE *f, const char *stat, double part, double all)
{
	if (all > 0 && isfinite(part))
		fprintf(f, "<td data-stat=\"%s\">%.1f %%</td>", stat,
			100 * part / all);
	else
		fprintf(f, "<td data-stat=\"%s\">n/a</td>", stat);
}

static void str_cell(FILE *f, const char *stat, const char *s)
{
	fprintf(f, "<td data-stat=\"%s\">", stat);
	esc(f, s);
	fputs("</td>", f);
}

static double nz(double v)
{
	return isfinite(v) ? v : 0;
}

/* self + others + unattributed: the blamed (journal..device) time */
static double blamed_all(struct json_object *b)
{
	return nz(fss_jnum(b, "self_ns")) + nz(fss_jnum(b, "others_ns")) +
	       nz(fss_jnum(b, "unattributed_ns"));
}

static void na_par(FILE *f, const char *key, const char *why)
{
	fputs("<p class=\"blame-na\"", f);
	if (key) {
		fputs(" data-test=\"", f);
		esc(f, key);
		fputc('"', f);
	}
	fputs(">Blame: ", f);
	esc(f, why);
	fputs("</p>\n", f);
}

/* the self / others / unattributed rows of a blame table */
static void cause_row(FILE *f, const char *cause, const char *label,
		      double ns, double all, bool pad)
{
	fprintf(f, "<tr data-cause=\"%s\"><td>%s</td>%s", cause, label,
		pad ? "<td></td><td></td><td></td>" : "");
	ns_cell(f, "time", ns);
	share_cell(f, "share", ns, all);
	fputs("</tr>\n", f);
}

/* ---- run --------------------------------------------------------------- */

static bool test_traced(struct json_object *t)
{
	return !strcmp(fss_jstr(t, "status") ?: "", "ok") &&
	       fss_j(t, "breakdown") &&
	       strcmp(fss_jstr(t, "method") ?: "", "none");
}

void html_blame_test(FILE *f, const char *key, struct json_object *t,
		     struct json_object *doc)
{
	struct json_object *b = fss_j(t, "blame"), *a = fss_j(b, "others");
	double all = blamed_all(b);
	size_t i, n = a ? fss_jlen(a) : 0;

	if (!test_traced(t))
		return;
	if (!b) {
		na_par(f, key, fss_doc_blame_na(fss_jstr(fss_j(doc, "strategy"),
						  "blame"), true));
		return;
	}
	fprintf(f, "<table class=\"blame\" data-test=\"");
	esc(f, key);
	fprintf(f, "\"><caption>Who caused its journal, queue and device time "
		"(%lld syncs; docs/blame.md)</caption>\n<tr><th>cause</th>"
		"<th>pid</th><th>name</th><th>cgroup</th><th>time</th>"
		"<th>share</th></tr>\n", fss_jint(b, "syncs", 0));
	cause_row(f, "self", "self (the test's own threads)",
		  nz(fss_jnum(b, "self_ns")), all, true);
	cause_row(f, "others", n ? "other processes, of which:" :
		  "other processes", nz(fss_jnum(b, "others_ns")), all, true);
	for (i = 0; i < n; i++) {
		struct json_object *x = fss_jidx(a, i);

		fprintf(f, "<tr data-cause=\"other\" data-pid=\"%lld\"><td>"
			"&nbsp;&nbsp;other</td><td data-stat=\"pid\">%lld</td>",
			fss_jint(x, "pid", 0), fss_jint(x, "pid", 0));
		str_cell(f, "comm", fss_cause_name(x));
		str_cell(f, "cgroup", fss_jstr(x, "cgroup"));
		ns_cell(f, "time", nz(fss_jnum(x, "blamed_ns")));
		share_cell(f, "share", nz(fss_jnum(x, "blamed_ns")), all);
		fputs("</tr>\n", f);
	}
	cause_row(f, "unattributed", "unattributed (the reasons are in the "
		  "--events records)", nz(fss_jnum(b, "unattributed_ns")), all,
		  true);
	fputs("</table>\n", f);
}

struct run_bars {
	struct svg_cbar b[64];
	char labels[64][64];
	int n;
};

static int run_bar_fn(const char *key, struct json_object *t, void *arg)
{
	struct run_bars *rb = arg;
	struct json_object *b = fss_j(t, "blame");
	struct svg_cbar *c = &rb->b[rb->n];
	double all = blamed_all(b);
	char d[32];

	if (!b || !(all > 0) || rb->n >= 64)
		return 0;
	snprintf(rb->labels[rb->n], sizeof(rb->labels[0]), "%s", key);
	c->label = rb->labels[rb->n];
	c->seg[0] = (struct svg_seg){ "self", fss_jnum(b, "self_ns") / all,
				      col_self };
	c->seg[1] = (struct svg_seg){ "others", fss_jnum(b, "others_ns") / all,
				      col_cause[0] };
	c->seg[2] = (struct svg_seg){ "unattributed",
				      fss_jnum(b, "unattributed_ns") / all,
				      col_unattr };
	c->nseg = 3;
	svg_fmt_us(d, sizeof(d), all / 1e3);
	snprintf(c->note, sizeof(c->note), "of %s", d);
	rb->n++;
	return 0;
}

void html_blame_run_chart(FILE *f, struct json_object *doc)
{
	static const char *const names[] = { "self", "others", "unattributed" };
	const char *const cols[] = { col_self, col_cause[0], col_unattr };
	struct run_bars *rb = calloc(1, sizeof(*rb));

	if (!rb)
		return;
	fss_doc_foreach_test(doc, run_bar_fn, rb);
	if (rb->n) {
		fputs("<h2>Who caused the journal, queue and device time, per "
		      "test</h2>\n", f);
		svg_legend(f, names, cols, 3);
		svg_cause_bars(f, "Self, other processes and unattributed: "
			       "shares of each test's blamed time (right: that "
			       "time)", rb->b, rb->n, "share of the journal, "
			       "queue and device time (%)");
	}
	free(rb);
}

/* ---- trace summary ----------------------------------------------------- */

/* the traced syncs' blamed time: self, others, unattributed */
static void trace_sum(FILE *f, struct json_object *b)
{
	double all = blamed_all(b);

	fprintf(f, "<table class=\"blame\" data-test=\"all syncs\"><caption>"
		"The traced syncs' journal, queue and device time by cause "
		"(%lld syncs)</caption>\n<tr><th>cause</th><th>time</th>"
		"<th>share</th></tr>\n", fss_jint(b, "syncs", 0));
	cause_row(f, "self", "self (each sync's own process)",
		  nz(fss_jnum(b, "self_ns")), all, false);
	cause_row(f, "others", "other processes", nz(fss_jnum(b, "others_ns")),
		  all, false);
	cause_row(f, "unattributed", "unattributed",
		  nz(fss_jnum(b, "unattributed_ns")), all, false);
	fputs("</table>\n", f);
}

/* blamed[]: who caused sync time in other processes' syncs */
static void trace_blamed_table(FILE *f, struct json_object *doc, double all)
{
	struct json_object *a = fss_j(doc, "blamed");
	size_t i, n = a ? fss_jlen(a) : 0;

	fprintf(f, "<h3>Who caused time in other processes' syncs (top %zu of "
		"%lld)</h3>\n", n, fss_jint(doc, "blamed_total", 0));
	if (!n) {
		fputs("<p class=\"blame-none\">Nobody: no traced sync had time "
		      "caused by another process.</p>\n", f);
		return;
	}
	fputs("<table class=\"blamed\"><tr><th>pid</th><th>name</th>"
	      "<th>cgroup</th><th>fs</th><th>writeback</th><th>caused</th>"
	      "<th>share</th><th>syncs</th><th title=\"journal\">jrn</th>"
	      "<th title=\"queue\">que</th><th title=\"device_write\">dwr</th>"
	      "<th title=\"device_flush\">dfl</th></tr>\n", f);
	for (i = 0; i < n; i++) {
		struct json_object *x = fss_jidx(a, i);
		struct json_object *bp = fss_j(x, "by_phase");

		fprintf(f, "<tr data-pid=\"%lld\"><td data-stat=\"pid\">%lld"
			"</td>", fss_jint(x, "pid", 0), fss_jint(x, "pid", 0));
		str_cell(f, "comm", fss_cause_name(x));
		str_cell(f, "cgroup", fss_jstr(x, "cgroup"));
		str_cell(f, "dev", fss_jstr(x, "dev"));
		str_cell(f, "writeback", json_object_get_boolean(
				 fss_j(x, "writeback")) ? "yes" : "no");
		ns_cell(f, "caused", nz(fss_jnum(x, "caused_ns")));
		share_cell(f, "share", nz(fss_jnum(x, "caused_ns")), all);
		fprintf(f, "<td data-stat=\"syncs\">%lld</td>",
			fss_jint(x, "syncs", 0));
		for (int p = 0; p < 4; p++) {
			char k[32];

			snprintf(k, sizeof(k), "%s_ns", bphase(p));
			ns_cell(f, bphase(p), nz(fss_jnum(bp, k)));
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n<p class=\"note\">fs: the filesystem of the syncs it "
	      "slowed; share: of the traced syncs' journal, queue and device "
	      "time; jrn, que, dwr, dfl: the time it caused in journal, queue, "
	      "device_write and device_flush.</p>\n", f);
}

/* one colour per listed cause; the legend names them */
struct cause_names {
	char s[CHART_CAUSES][64];
	const char *names[CHART_CAUSES + 3];
	const char *cols[CHART_CAUSES + 3];
	int n;
};

static void cause_names(struct json_object *a, struct cause_names *cn)
{
	size_t n = a ? fss_jlen(a) : 0;

	cn->names[0] = "self";
	cn->cols[0] = col_self;
	for (cn->n = 0; (size_t)cn->n < n && cn->n < CHART_CAUSES; cn->n++) {
		struct json_object *x = fss_jidx(a, cn->n);

		snprintf(cn->s[cn->n], sizeof(cn->s[0]), "pid %lld %s on %s",
			 fss_jint(x, "pid", 0), fss_cause_name(x),
			 fss_jstr(x, "dev") ?: "?");
		cn->names[1 + cn->n] = cn->s[cn->n];
		cn->cols[1 + cn->n] = col_cause[cn->n];
	}
	cn->names[1 + cn->n] = "other causes";
	cn->cols[1 + cn->n] = col_rest;
	cn->names[2 + cn->n] = "unattributed";
	cn->cols[2 + cn->n] = col_unattr;
}

/* The "all" bar: self, each listed cause, the rest of others, unattributed */
static void all_bar(struct svg_cbar *c, struct json_object *b,
		    struct json_object *a, const struct cause_names *cn)
{
	double all = blamed_all(b), listed = 0;
	char d[32];
	int i;

	c->label = "all four phases";
	c->seg[0] = (struct svg_seg){ "self", fss_jnum(b, "self_ns") / all,
				      col_self };
	for (i = 0; i < cn->n; i++) {
		double v = nz(fss_jnum(fss_jidx(a, i),
				       "caused_ns"));

		c->seg[1 + i] = (struct svg_seg){ cn->names[1 + i], v / all,
						  col_cause[i] };
		listed += v;
	}
	c->seg[1 + i] = (struct svg_seg){ "other causes",
		fmax(nz(fss_jnum(b, "others_ns")) - listed, 0) / all,
		col_rest };
	c->seg[2 + i] = (struct svg_seg){ "unattributed",
		fss_jnum(b, "unattributed_ns") / all, col_unattr };
	c->nseg = 3 + i;
	svg_fmt_us(d, sizeof(d), all / 1e3);
	snprintf(c->note, sizeof(c->note), "of %s", d);
}

/* A bar per phase: the listed causes' shares of the phase's time */
static void phase_bar(struct svg_cbar *c, int p, struct json_object *doc,
		      const struct cause_names *cn)
{
	struct json_object *a = fss_j(doc, "blamed");
	double t = fss_jnum(fss_j(fss_j(fss_j(doc, "all"), "phases"),
				  bphase(p)), "ns");
	char k[32], d[32];

	c->label = bphase(p);
	c->nseg = 0;
	snprintf(k, sizeof(k), "%s_ns", bphase(p));
	for (int i = 0; t > 0 && i < cn->n; i++) {
		struct json_object *x = fss_jidx(a, i);

		double v = nz(fss_jnum(fss_j(x, "by_phase"), k));

		c->seg[c->nseg++] = (struct svg_seg){ cn->names[1 + i], v / t,
						      col_cause[i] };
	}
	svg_fmt_us(d, sizeof(d), nz(t) / 1e3);
	snprintf(c->note, sizeof(c->note), "of %s", d);
}

static void trace_chart(FILE *f, struct json_object *doc)
{
	struct json_object *b = fss_j(doc, "blame"), *a = fss_j(doc, "blamed");
	struct cause_names cn;
	struct svg_cbar bars[5];

	if (!(blamed_all(b) > 0))
		return;
	cause_names(a, &cn);
	all_bar(&bars[0], b, a, &cn);
	for (int p = 0; p < 4; p++)
		phase_bar(&bars[1 + p], p, doc, &cn);
	svg_legend(f, cn.names, cn.cols, cn.n + 3);
	svg_cause_bars(f, "Blamed time by cause: all of it, then each phase "
		       "(right: that time)", bars, 5, "share of the time (%)");
	fputs("<p class=\"note\">In a phase's bar, only the causes listed "
	      "above have their share; the blank rest is the syncing "
	      "processes' own time, unattributed time and causes not "
	      "listed.</p>\n", f);
}

static void procs_head(FILE *f)
{
	fputs("<h3>The traced processes: their syncs' blamed time by cause"
	      "</h3>\n<table class=\"blame-procs\"><tr><th>process</th>"
	      "<th>syncs</th><th>blamed time</th><th>self</th><th>others</th>"
	      "<th>unattributed</th></tr>\n", f);
}

/* each traced process: its syncs' blamed time, self vs others */
static void trace_procs(FILE *f, struct json_object *doc)
{
	struct json_object *a = fss_j(doc, "processes");
	size_t i, n = a ? fss_jlen(a) : 0;
	bool head = false;

	for (i = 0; i < n; i++) {
		struct json_object *p = fss_jidx(a, i);
		struct json_object *b = fss_j(p, "blame");
		double all = blamed_all(b);

		if (!b)
			continue;
		if (!head)
			procs_head(f);
		head = true;
		fprintf(f, "<tr data-pid=\"%lld\"><td>", fss_jint(p, "pid", 0));
		esc(f, fss_jstr(p, "name"));
		fprintf(f, " (%lld)</td><td data-stat=\"syncs\">%lld</td>",
			fss_jint(p, "pid", 0), fss_jint(b, "syncs", 0));
		ns_cell(f, "time", all);
		share_cell(f, "self", fss_jnum(b, "self_ns"), all);
		share_cell(f, "others", fss_jnum(b, "others_ns"), all);
		share_cell(f, "unattributed", fss_jnum(b, "unattributed_ns"),
			   all);
		fputs("</tr>\n", f);
	}
	if (head)
		fputs("</table>\n", f);
}

void html_blame_trace(FILE *f, struct json_object *doc)
{
	struct json_object *b = fss_j(doc, "blame");

	fputs("<h2>Blamed: who caused the traced syncs' journal, queue and "
	      "device time</h2>\n", f);
	if (!b) {
		na_par(f, NULL, fss_doc_blame_na(fss_jstr(doc, "blame_strategy"),
			fss_jint(fss_j(doc, "all"), "syncs", 0) > 0));
		return;
	}
	trace_sum(f, b);
	trace_chart(f, doc);
	trace_blamed_table(f, doc, blamed_all(b));
	trace_procs(f, doc);
}
