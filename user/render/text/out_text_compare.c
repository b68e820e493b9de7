// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * out_text_compare.c - the plain (80-column) text of a compare result,
 * from its document only (docs/compare.md).  `compare` prints through
 * these functions as each part of the document becomes known (the header
 * before anything runs, one line per filesystem as it finishes, the
 * tables at the end); `report saved.json --format text` calls them all in
 * a row, so the two are the same bytes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "lib/fmt.h"
#include "lib/phase.h"
#include "render/render.h"

#define LABEL_W		16
#define VAL_W		13
#define RATIO_W		7
#define MAX_COLS	3
#define MAX_NOTES	12

#define NPHASES	FSS_PH_MAX
#define JOURNAL	1

static size_t alen(struct json_object *a)
{
	return a && json_object_is_type(a, json_type_array) ?
	       fss_jlen(a) : 0;
}

static struct json_object *aget(struct json_object *a, size_t i)
{
	return i < alen(a) ? fss_jidx(a, i) : NULL;
}

static bool jbool(struct json_object *o, const char *key)
{
	return json_object_get_boolean(fss_j(o, key));
}

/* A filesystem's name in the tables: "ext4", a second one "ext4-2". */
static const char *lbl(struct json_object *o)
{
	return fss_jstr(o, "label") ?: fss_jstr(o, "fs") ?: "?";
}

/* ---- the header --------------------------------------------------- */

static void header_where(FILE *f, struct json_object *doc)
{
	struct json_object *sd = fss_j(doc, "scratch_dev");
	struct json_object *im = fss_j(doc, "images"), *on, *dev;
	char buf[3 * 4096], sz[32];

	if (sd && !json_object_is_type(sd, json_type_null)) {
		dev = fss_j(sd, "device");
		fss_fmt_size(sz, sizeof(sz), (unsigned long long)
			     fss_jint(dev, "size_bytes", 0));
		snprintf(buf, sizeof(buf), "%s (%s, %s, write cache %s): "
			 "each filesystem is made on it in turn; its data "
			 "are destroyed", fss_jstr(sd, "path") ?: "?",
			 fss_jstr(dev, "name") ?: "?",
			 dev ? sz : "size unknown",
			 fss_jstr(dev, "write_cache") ?: "unknown");
		fss_print_wrapped(f, "device      ", 12, buf);
		return;
	}
	on = fss_j(im, "on");
	fss_fmt_size(sz, sizeof(sz), (unsigned long long)
		     fss_jint(im, "size_bytes", 0));
	snprintf(buf, sizeof(buf), "%s: one %s sparse image per filesystem on "
		 "its own loop device, removed at the end",
		 fss_jstr(im, "dir") ?: "?", sz);
	fss_print_wrapped(f, "images      ", 12, buf);
	if (jbool(im, "in_memory"))
		snprintf(buf, sizeof(buf), "in memory (%s): no disk under the "
			 "images", on ? fss_jstr(on, "fstype") ?: "" : "tmpfs");
	else if (on && jbool(on, "has_disk"))
		snprintf(buf, sizeof(buf), "on %s (%s, mounted at %s); "
			 "disk %s, write cache %s",
			 fss_jstr(on, "fstype") ?: "",
			 fss_jstr(on, "source") ?: "",
			 fss_jstr(on, "mountpoint") ?: "",
			 fss_jstr(on, "disk") ?: "",
			 fss_jstr(fss_j(im, "disk"), "write_cache") ?:
			 "unknown");
	else if (on)
		snprintf(buf, sizeof(buf), "on %s (%s), not a block device",
			 fss_jstr(on, "fstype") ?: "",
			 fss_jstr(on, "source") ?: "");
	else
		snprintf(buf, sizeof(buf), "on a filesystem that could not be "
			 "looked up");
	fss_print_wrapped(f, "            ", 12, buf);
}

void fss_text_compare_header(FILE *f, struct json_object *doc)
{
	struct json_object *o = fss_j(doc, "options");
	struct json_object *wa = fss_j(doc, "workloads");
	char buf[4096];
	size_t l = 0;

	fprintf(f, "fsyncscope %s compare\n", fss_jstr(doc, "version") ?: "?");
	header_where(f, doc);
	buf[0] = '\0';
	for (size_t i = 0; i < alen(wa) && l < sizeof(buf); i++)
		l += snprintf(buf + l, sizeof(buf) - l, "%s%s", i ? ", " : "",
			      fss_jstr(aget(wa, i), "name") ?: "?");
	fss_print_wrapped(f, "workloads   ", 12, buf);
	if (fss_jint(o, "count", 0))
		snprintf(buf, sizeof(buf), "%lld ops per workload%s and "
			 "filesystem", fss_jint(o, "count", 0),
			 fss_jint(o, "jobs", 1) > 1 ? " (per job)" : "");
	else
		snprintf(buf, sizeof(buf), "%g second%s per workload and "
			 "filesystem", fss_jnum(o, "seconds"),
			 fss_jnum(o, "seconds") == 1 ? "" : "s");
	l = strlen(buf);
	if (fss_jint(o, "repeat", 1) > 1)
		snprintf(buf + l, sizeof(buf) - l, ", %lld rounds in alternating "
			 "order", fss_jint(o, "repeat", 1));
	fss_print_wrapped(f, "length      ", 12, buf);
	fss_print_wrapped(f, "tracing     ", 12, jbool(o, "trace") ?
			  "on (phase breakdown per filesystem and workload)" :
			  "off (--no-trace)");
	fputc('\n', f);
	fflush(f);
}

/* ---- one line per filesystem -------------------------------------- */

/* The mkfs command; the image's directory is in the header: its name only */
static void mkfs_cmdline(struct json_object *doc, struct json_object *fs,
			 char *buf, size_t len)
{
	struct json_object *a = fss_j(fs, "mkfs");
	const char *img = fss_jstr(fs, "image");
	size_t l = 0, n = alen(a);
	struct json_object *im = fss_j(doc, "images");
	bool images = im && !json_object_is_type(im, json_type_null);

	buf[0] = '\0';
	for (size_t i = 0; i < n && l + 1 < len; i++) {
		const char *arg = json_object_get_string(aget(a, i));

		if (i == n - 1 && images && img && strrchr(img, '/') &&
		    !strcmp(arg, img))
			arg = strrchr(img, '/') + 1;
		l += snprintf(buf + l, len - l, "%s%s", i ? " " : "", arg);
	}
}

void fss_text_compare_fs(FILE *f, struct json_object *doc,
			 struct json_object *fs)
{
	struct json_object *t = fss_j(fs, "target");
	char buf[3 * 4096], cmd[1024], lead[16];
	double run_s = fss_jnum(fs, "run_s");

	mkfs_cmdline(doc, fs, cmd, sizeof(cmd));
	long long rounds = fss_jint(fs, "rounds_run", 1);
	char rn[32] = "";

	if (rounds > 1)
		snprintf(rn, sizeof(rn), " x %lld rounds", rounds);
	snprintf(buf, sizeof(buf), "%s: %s; mounted %s; %lld of %zu workloads"
		 "%s in %.1f s%s", fss_jstr(fs, "device") ?: "", cmd,
		 t ? fss_jstr(t, "mount_options") ?: "" : "(options unknown)",
		 fss_jint(fs, "workloads_run", 0),
		 alen(fss_j(doc, "workloads")), rn,
		 isfinite(run_s) ? run_s : 0.0,
		 !strcmp(fss_jstr(fs, "status") ?: "", "interrupted") ?
		 " (interrupted)" : "");
	snprintf(lead, sizeof(lead), "%-12s", lbl(fs));
	fss_print_wrapped(f, lead, 12, buf);
	fflush(f);
}

/* ---- one table per workload --------------------------------------- */

struct table {
	FILE *f;
	struct json_object *fss;	/* the document's "filesystems" */
	struct json_object *res;	/* this workload's "results" */
	int nfs;
	char val[MAX_COLS][32], rat[MAX_COLS][16];
	char notes[MAX_NOTES][320];
	int nnotes;
};

static const char *fs_name(struct table *tb, int i)
{
	return lbl(aget(tb->fss, i));
}

static struct json_object *result(struct table *tb, int i)
{
	return aget(tb->res, i);
}

static bool t_ok(struct json_object *t)
{
	return !strcmp(fss_jstr(t, "status") ?: "", "ok");
}

static bool t_traced(struct json_object *t)
{
	struct json_object *bd = fss_j(t, "breakdown");

	return t_ok(t) && bd && json_object_is_type(bd, json_type_object) &&
	       fss_jint(t, "syncs_traced", 0) > 0;
}

/* A result that was not run carries only fs, name, status and reason. */
static bool t_ran(struct json_object *t)
{
	return fss_j(t, "method") != NULL;
}

static int note_add(struct table *tb, const char *text)
{
	for (int i = 0; i < tb->nnotes; i++)
		if (!strcmp(tb->notes[i], text))
			return i + 1;
	if (tb->nnotes >= MAX_NOTES)
		return 0;
	snprintf(tb->notes[tb->nnotes], sizeof(tb->notes[0]), "%s", text);
	return ++tb->nnotes;
}

static void na_note(struct table *tb, int i, const char *fmt, const char *what)
{
	char note[320];
	int k;

	snprintf(note, sizeof(note), fmt, fs_name(tb, i), what);
	k = note_add(tb, note);
	snprintf(tb->val[i], sizeof(tb->val[i]), k ? "n/a [%d]" : "n/a", k);
}

static void print_cells(struct table *tb, const char *label)
{
	char line[256];
	int l;

	l = snprintf(line, sizeof(line), "%-*s", LABEL_W, label);
	for (int i = 0; i < tb->nfs && l < (int)sizeof(line); i++)
		l += snprintf(line + l, sizeof(line) - l, "%*s%*s", VAL_W,
			      tb->val[i], RATIO_W, tb->rat[i]);
	while (l > 0 && line[l - 1] == ' ')
		line[--l] = '\0';
	fprintf(tb->f, "%s\n", line);
}

/* The cell of a test that has no value: why, as a short mark. */
static void missing_cell(struct table *tb, int i)
{
	struct json_object *t = result(tb, i);

	if (!t_ran(t))
		snprintf(tb->val[i], sizeof(tb->val[i]), "not run");
	else
		na_note(tb, i, "%s: n/a: %s", fss_jstr(t, "reason") ?: "");
}

/* The phase cell of a test without a breakdown. */
static void untraced_cell(struct table *tb, int i)
{
	struct json_object *t = result(tb, i);

	if (!t_ok(t)) {
		missing_cell(tb, i);
		return;
	}
	na_note(tb, i, "%s: no breakdown: %s",
		!strcmp(fss_jstr(t, "method") ?: "", "none") ?
		"the method does not sync" : fss_j(t, "breakdown") ?
		"no syncs were traced" :
		"the tracer did not run for this test");
}

static void fmt_ratio(char *buf, size_t len, double r)
{
	if (!isfinite(r))
		buf[0] = '\0';
	else if (r < 9.995)
		snprintf(buf, len, "%.2fx", r);
	else if (r < 99.95)
		snprintf(buf, len, "%.1fx", r);
	else
		snprintf(buf, len, "%.0fx", r);
}

enum { V_OPS, V_P50, V_P99, V_TOTAL };

static const char *const labels[] = {
	[V_OPS] = "  ops/sec", [V_P50] = "  p50 us",
	[V_P99] = "  p99 us", [V_TOTAL] = "  total mean us",
};
static const char *const ratio_keys[] = {
	[V_OPS] = "ops_per_sec", [V_P50] = "p50_us",
	[V_P99] = "p99_us", [V_TOTAL] = "total_mean_us",
};

static double value_of(struct json_object *t, int what)
{
	switch (what) {
	case V_OPS: return fss_jnum(t, "ops_per_sec");
	case V_P50: return fss_jnum(fss_j(t, "latency_us"), "p50");
	case V_P99: return fss_jnum(fss_j(t, "latency_us"), "p99");
	case V_TOTAL: return t_traced(t) ?
		fss_jnum(fss_j(t, "breakdown_total"), "mean_us") : NAN;
	}
	return NAN;
}

/* Partial runs and the workload's own notes, as footnotes. */
static void cell_notes(struct table *tb, int i)
{
	struct json_object *t = result(tb, i);
	char note[320];

	if (jbool(t, "partial")) {
		snprintf(note, sizeof(note), "%s: partial (interrupted after "
			 "%.2f s, %lld ops)", fs_name(tb, i),
			 fss_jnum(t, "elapsed_s"), fss_jint(t, "ops", 0));
		note_add(tb, note);
	}
	if (fss_jstr(t, "note")) {
		snprintf(note, sizeof(note), "%s: %s", fs_name(tb, i),
			 fss_jstr(t, "note"));
		note_add(tb, note);
	}
}

/* ops/sec, p50, p99 (what) or total mean: a value and its ratio per fs */
static void value_row(struct table *tb, int what)
{
	bool (*has)(struct json_object *) = what == V_TOTAL ? t_traced : t_ok;

	for (int i = 0; i < tb->nfs; i++) {
		struct json_object *t = result(tb, i);
		double v;

		tb->rat[i][0] = '\0';
		if (!has(t)) {
			if (what == V_TOTAL)
				untraced_cell(tb, i);
			else
				missing_cell(tb, i);
			continue;
		}
		v = value_of(t, what);
		if (what == V_OPS)
			snprintf(tb->val[i], sizeof(tb->val[i]), "%.1f", v);
		else
			fss_fmt_us(tb->val[i], sizeof(tb->val[i]), v);
		if (what != V_TOTAL)
			cell_notes(tb, i);
		if (i)
			fmt_ratio(tb->rat[i], sizeof(tb->rat[i]),
				  fss_jnum(fss_j(t, "ratio_to_first"),
					   ratio_keys[what]));
	}
	print_cells(tb, labels[what]);
}

static void phase_row(struct table *tb, int ph)
{
	char lead[32], m[16];

	for (int i = 0; i < tb->nfs; i++) {
		struct json_object *t = result(tb, i), *fs = aget(tb->fss, i);
		struct json_object *st = fss_j(fss_j(t, "breakdown"),
					       fss_phase_name(ph));
		double mean = fss_jnum(st, "mean_us");
		double share = fss_jnum(st, "share");

		tb->rat[i][0] = '\0';
		if (!t_traced(t))
			untraced_cell(tb, i);
		else if (ph == JOURNAL && !jbool(fs, "journal_traced"))
			na_note(tb, i, "%s: journal %s",
				fss_jstr(fs, "journal") ?: "");
		else if (!isfinite(mean))
			snprintf(tb->val[i], sizeof(tb->val[i]), "n/a");
		else
			snprintf(tb->val[i], sizeof(tb->val[i]), "%s %4.0f%%",
				 fss_fmt_us(m, sizeof(m), mean),
				 isfinite(share) ? share * 100.0 : 0.0);
	}
	snprintf(lead, sizeof(lead), "%s%s", ph == JOURNAL ? "> " : "    ",
		 fss_phase_name(ph));
	print_cells(tb, lead);
}

/* syncs traced, the phases, total mean, flushes/sync */
static void breakdown_rows(struct table *tb)
{
	for (int i = 0; i < tb->nfs; i++) {
		struct json_object *t = result(tb, i);

		tb->rat[i][0] = '\0';
		if (t_traced(t))
			snprintf(tb->val[i], sizeof(tb->val[i]), "%lld",
				 fss_jint(t, "syncs_traced", 0));
		else
			untraced_cell(tb, i);
	}
	print_cells(tb, "  syncs traced");
	fprintf(tb->f, "  phase: mean us, share of sync time\n");
	for (int ph = 0; ph < NPHASES; ph++)
		phase_row(tb, ph);
	value_row(tb, V_TOTAL);
	for (int i = 0; i < tb->nfs; i++) {
		struct json_object *t = result(tb, i);

		tb->rat[i][0] = '\0';
		if (t_traced(t))
			snprintf(tb->val[i], sizeof(tb->val[i]), "%.2f",
				 (double)fss_jint(fss_j(t, "flush"), "flushes",
						  0) /
				 (double)fss_jint(t, "syncs_traced", 1));
		else
			untraced_cell(tb, i);
	}
	print_cells(tb, "  flushes/sync");
}

static void print_table(FILE *f, struct json_object *doc, struct json_object *w)
{
	struct table tb = {
		.f = f,
		.fss = fss_j(doc, "filesystems"),
		.res = fss_j(w, "results"),
	};
	bool any_traced = false;
	char lead[32];

	tb.nfs = (int)alen(tb.fss);
	if (tb.nfs > MAX_COLS)
		tb.nfs = MAX_COLS;
	fputc('\n', f);
	fss_print_wrapped(f, "", 2, fss_jstr(w, "title") ?: "");
	for (int i = 0; i < tb.nfs; i++) {
		snprintf(tb.val[i], sizeof(tb.val[i]), "%s", fs_name(&tb, i));
		tb.rat[i][0] = '\0';
		any_traced |= t_traced(result(&tb, i));
	}
	print_cells(&tb, "");
	for (int what = V_OPS; what <= V_P99; what++)
		value_row(&tb, what);
	if (any_traced)
		breakdown_rows(&tb);
	for (int i = 0; i < tb.nnotes; i++) {
		snprintf(lead, sizeof(lead), "  [%d] ", i + 1);
		fss_print_wrapped(f, lead, 6, tb.notes[i]);
	}
}

/* ---- the ratios' intervals over the rounds ------------------------- */

static void fmt_bound(char *buf, size_t len, double r)
{
	if (r < 9.995)
		snprintf(buf, len, "%.2f", r);
	else if (r < 99.95)
		snprintf(buf, len, "%.1f", r);
	else
		snprintf(buf, len, "%.0f", r);
}

/* One row: mean of the first, mean of this one, ratio, interval, word. */
static void ci_row(FILE *f, const char *label, struct json_object *c,
		   bool ops)
{
	char va[16], vb[16], r[16], lo[16], hi[16], iv[40];
	const char *word = fss_jstr(c, "word");

	if (!c) {
		fprintf(f, "%-16s%10s\n", label, "n/a");
		return;
	}
	if (ops) {
		snprintf(va, sizeof(va), "%.1f", fss_jnum(c, "a"));
		snprintf(vb, sizeof(vb), "%.1f", fss_jnum(c, "b"));
	} else {
		fss_fmt_us(va, sizeof(va), fss_jnum(c, "a"));
		fss_fmt_us(vb, sizeof(vb), fss_jnum(c, "b"));
	}
	fmt_ratio(r, sizeof(r), fss_jnum(c, "ratio"));
	if (isfinite(fss_jnum(c, "lo")) && isfinite(fss_jnum(c, "hi"))) {
		fmt_bound(lo, sizeof(lo), fss_jnum(c, "lo"));
		fmt_bound(hi, sizeof(hi), fss_jnum(c, "hi"));
		snprintf(iv, sizeof(iv), "[%s, %s]", lo, hi);
	} else {
		snprintf(iv, sizeof(iv), "n/a");
	}
	fprintf(f, "%-16s%10s %10s %7s  %-15s %s\n", label, va, vb, r, iv,
		word ?: "n/a");
}

/* Each filesystem after the first against it: the means over the rounds,
 * their ratio, its 95 % interval and a word. */
static void print_confidence(FILE *f, struct json_object *doc,
			     struct json_object *w)
{
	struct json_object *res = fss_j(w, "results");
	struct json_object *base = aget(res, 0);
	char lead[32], buf[200];

	for (size_t i = 1; i < alen(res) && i < MAX_COLS; i++) {
		struct json_object *t = aget(res, i), *c = fss_j(t, "confidence");
		struct json_object *ph = fss_j(c, "phases");
		long long n = fss_jint(fss_j(c, "ops_per_sec"), "rounds", 0);

		if (!c || json_object_is_type(c, json_type_null))
			continue;
		snprintf(buf, sizeof(buf), "%s vs %s, %lld round%s: means, "
			 "ratio, 95%% interval (%s)", lbl(t), lbl(base), n,
			 n == 1 ? "" : "s", n > 1 ? "rounds and bootstrap" :
			 "bootstrap only");
		fputc('\n', f);
		fss_print_wrapped(f, "  ", 4, buf);
		fprintf(f, "%-16s%10.10s %10.10s %7s  %s\n", "", lbl(base),
			lbl(t), "ratio", "interval");
		ci_row(f, "  ops/sec", fss_j(c, "ops_per_sec"), true);
		ci_row(f, "  p50 us", fss_j(c, "p50_us"), false);
		ci_row(f, "  p99 us", fss_j(c, "p99_us"), false);
		if (!fss_j(c, "total_mean_us"))
			continue;
		for (int p = 0; p < NPHASES; p++) {
			snprintf(lead, sizeof(lead), "%s%s", p == JOURNAL ?
				 "> " : "    ", fss_phase_name(p));
			ci_row(f, lead, fss_j(ph, fss_phase_name(p)), false);
		}
		ci_row(f, "  total mean us", fss_j(c, "total_mean_us"), false);
	}
	(void)doc;
}

/* --hist: each filesystem's histograms of workload w */
static void print_hists(FILE *f, struct json_object *w)
{
	struct json_object *res = fss_j(w, "results");

	for (size_t i = 0; i < alen(res); i++) {
		fprintf(f, "  %s, %s:\n", lbl(aget(res, i)),
			fss_jstr(w, "name") ?: "?");
		fss_text_hists(f, aget(res, i), 4);
	}
}

static void print_notes(FILE *f, struct json_object *doc)
{
	struct json_object *fss = fss_j(doc, "filesystems");
	struct json_object *im = fss_j(doc, "images"), *on = fss_j(im, "on");
	char buf[1024];
	size_t l = 0;

	fputc('\n', f);
	snprintf(buf, sizeof(buf), "value / %s's (ops/sec: higher is faster; "
		 "latencies: lower is faster); blank when there is nothing to "
		 "divide by", lbl(aget(fss, 0)));
	fss_print_wrapped(f, "ratios      ", 12, buf);
	if (jbool(fss_j(doc, "options"), "trace")) {
		buf[0] = '\0';
		for (size_t i = 0; i < alen(fss) && l < sizeof(buf); i++)
			l += snprintf(buf + l, sizeof(buf) - l, "%s%s: %s",
				      i ? "; " : "",
				      lbl(aget(fss, i)),
				      fss_jstr(aget(fss, i), "journal") ?: "?");
		fss_print_wrapped(f, "> journal   ", 12, buf);
	}
	if (im && !json_object_is_type(im, json_type_null)) {
		snprintf(buf, sizeof(buf), "the filesystems sit on loop "
			 "devices: a device_flush there is an fsync of the "
			 "image file on %s, device_write a copy into its page "
			 "cache; use "
			 "--scratch-dev for a real device",
			 jbool(im, "in_memory") ? "tmpfs" :
			 fss_jstr(on, "disk") ?: "the disk below");
		fss_print_wrapped(f, "loop        ", 12, buf);
	}
}

void fss_text_compare_results(FILE *f, struct json_object *doc, bool hist)
{
	struct json_object *wa = fss_j(doc, "workloads");

	for (size_t w = 0; w < alen(wa); w++) {
		print_table(f, doc, aget(wa, w));
		print_confidence(f, doc, aget(wa, w));
		if (hist)
			print_hists(f, aget(wa, w));
	}
	print_notes(f, doc);
	fflush(f);
}

void fss_text_compare_body(FILE *f, struct json_object *doc, bool hist)
{
	struct json_object *fss = fss_j(doc, "filesystems");

	/* first the findings (docs/findings.md), then what was run */
	if (fss_j(doc, "findings")) {
		fss_text_findings(f, doc);
		fputc('\n', f);
	}
	for (size_t i = 0; i < alen(fss); i++) {
		const char *st = fss_jstr(aget(fss, i), "status") ?: "";

		if (!strcmp(st, "ok") || !strcmp(st, "interrupted"))
			fss_text_compare_fs(f, doc, aget(fss, i));
	}
	fss_text_compare_results(f, doc, hist);
}

int fss_text_compare(FILE *f, struct json_object *doc, bool hist)
{
	fss_text_compare_header(f, doc);
	fss_text_compare_body(f, doc, hist);
	return 0;
}
