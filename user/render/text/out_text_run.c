// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * out_text_run.c - the plain (80-column) text of a run result, from its
 * document only.  `run` prints the header before the tests and the body
 * (findings, rows, sweep, verdict) once the document is complete;
 * `report saved.json --format text` prints both in a row, so the two are
 * the same bytes.  The findings come first, right under the header
 * (docs/findings.md).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "sys/devinfo.h"
#include "lib/fmt.h"
#include "render/render.h"
#include "sys/verdict.h"

#define ROW_FMT "  %-20s%12s%10s%8s%8s%8s%8s"

void fss_text_run_header(FILE *f, struct json_object *doc)
{
	struct json_object *t = fss_j(doc, "target"), *o = fss_j(doc, "options");
	bool has_disk = json_object_get_boolean(fss_j(t, "has_disk"));
	char buf[2 * 4096 + 128];

	fprintf(f, "fsyncscope %s run\n", fss_jstr(doc, "version") ?: "?");
	if (!fss_j(t, "lookup_error")) {
		struct fss_target tg;

		fss_target_from_json(t, &tg);
		fss_target_print(f, &tg);
	} else {
		fss_print_wrapped(f, "path        ", 12, fss_jstr(t, "path") ?: "?");
		snprintf(buf, sizeof(buf), "%s on %s, mounted at %s",
			 fss_jstr(t, "fs") ?: "?", fss_jstr(t, "source") ?: "?",
			 fss_jstr(t, "mountpoint") ?: "?");
		fss_print_wrapped(f, "filesystem  ", 12, buf);
		fss_print_wrapped(f, "device      ", 12, fss_jstr(t, "disk") ?:
				  "none (not on a block device)");
	}
	snprintf(buf, sizeof(buf), "%s", !has_disk ? "n/a (no block device)" :
		 fss_jstr(t, "write_cache") ?: "unknown");
	if (fss_jint(t, "logical_block_size", 0) > 0)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 ", logical block %lld bytes", fss_jint(t, "logical_block_size", 0));
	fss_print_wrapped(f, "write cache ", 12, buf);
	if (fss_jint(o, "count", 0))
		snprintf(buf, sizeof(buf), "%lld ops per test%s", fss_jint(o, "count", 0),
			 strcmp(fss_jstr(o, "mode") ?: "", "suite") ? " (per job)" : "");
	else
		snprintf(buf, sizeof(buf), "%g second%s per test", fss_jnum(o, "seconds"),
			 fss_jnum(o, "seconds") == 1 ? "" : "s");
	snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
		 "; latency per op in usecs (CLOCK_MONOTONIC)");
	fss_print_wrapped(f, "tests       ", 12, buf);
	fss_print_wrapped(f, "tracing     ", 12,
			  !json_object_get_boolean(fss_j(o, "trace")) ?
			  "off (--no-trace)" :
			  !strcmp(fss_jstr(o, "painter") ?: "user", "kernel") ?
			  "on (breakdown under each row that syncs), painted "
			  "in the kernel (--painter kernel): one record per "
			  "sync, no request records; blame of the slowest "
			  "syncs only, from a flight recorder" :
			  "on (breakdown under each row that syncs)");
}

void fss_text_run_section(struct fss_text_run *c, const char *title,
			  const char *note)
{
	fputc('\n', c->f);
	fss_print_wrapped(c->f, "", 0, title ? title : "");
	if (note)
		fss_print_wrapped(c->f, "", 1, note);
	fprintf(c->f, ROW_FMT "\n", "", "ops/sec", "usecs/op", "p50", "p99",
		"p99.9", "max");
	c->nnotes = 0;
}

static int add_note(struct fss_text_run *c, const char *text)
{
	for (int i = 0; i < c->nnotes; i++)
		if (!strcmp(c->notes[i], text))
			return i + 1;
	if (c->nnotes >= 16)
		return 0;
	snprintf(c->notes[c->nnotes], sizeof(c->notes[0]), "%s", text);
	return ++c->nnotes;
}

void fss_text_run_section_end(struct fss_text_run *c)
{
	char lead[16];

	for (int i = 0; i < c->nnotes; i++) {
		snprintf(lead, sizeof(lead), "  [%d] ", i + 1);
		fss_print_wrapped(c->f, lead, 6, c->notes[i]);
	}
	c->nnotes = 0;
}

/*
 * Who caused the test's journal, queue and device time (docs/blame.md):
 * normally the workload itself; a neighbour shows up by name.
 */
static void blame_text(FILE *f, struct json_object *b)
{
	double self = fss_jnum(b, "self_ns"), oth = fss_jnum(b, "others_ns");
	double un = fss_jnum(b, "unattributed_ns"), all = self + oth + un;
	struct json_object *a = fss_j(b, "others");
	char buf[512];
	size_t n;

	if (!b || !(all > 0))
		return;
	n = snprintf(buf, sizeof(buf), "self %.1f %%, others %.1f %%, "
		     "unattributed %.1f %% of the journal, queue and device "
		     "time%s", 100 * self / all, 100 * oth / all, 100 * un / all,
		     oth > 0 ? ":" : " (no other process caused any)");
	for (size_t i = 0; a && i < fss_jlen(a) &&
	     n < sizeof(buf) - 64; i++) {
		struct json_object *x = fss_jidx(a, i);

		n += snprintf(buf + n, sizeof(buf) - n, "%s pid %lld %s %.3f ms",
			      i ? "," : "", fss_jint(x, "pid", 0),
			      fss_jstr(x, "comm") ?: "?",
			      fss_jnum(x, "blamed_ns") / 1e6);
	}
	fss_print_wrapped(f, "    blame: ", 6, buf);
}

void fss_text_run_row(struct fss_text_run *c, struct json_object *t, bool hist)
{
	const char *label = fss_jstr(t, "label") ?: fss_jstr(t, "name") ?: "?";
	struct json_object *lat = fss_j(t, "latency_us");
	char ops[32], upo[32], a[16], b[16], d[16], e[16], mark[16] = "";
	bool ok = !strcmp(fss_jstr(t, "status") ?: "", "ok");
	int n;

	if (!ok) {
		const char *why = fss_jstr(t, "reason") ?: "";

		if (strlen(why) <= 42) {
			fprintf(c->f, "  %-20s%12s  %s\n", label, "n/a", why);
		} else {
			n = add_note(c, why);
			fprintf(c->f, "  %-20s%12s  see [%d]\n", label, "n/a", n);
		}
	} else {
		snprintf(ops, sizeof(ops), "%.3f", fss_jnum(t, "ops_per_sec"));
		snprintf(upo, sizeof(upo), "%.0f", fss_jnum(t, "usecs_per_op"));
		if (fss_jstr(t, "note") && (n = add_note(c, fss_jstr(t, "note"))))
			snprintf(mark, sizeof(mark), " [%d]", n);
		fprintf(c->f, ROW_FMT "%s\n", label, ops, upo,
			fss_fmt_us(a, sizeof(a), fss_jnum(lat, "p50")),
			fss_fmt_us(b, sizeof(b), fss_jnum(lat, "p99")),
			fss_fmt_us(d, sizeof(d), fss_jnum(lat, "p99_9")),
			fss_fmt_us(e, sizeof(e), fss_jnum(lat, "max")), mark);
	}
	if (json_object_get_boolean(fss_j(t, "partial")))
		fprintf(c->f, "    (partial: interrupted after %.2f s, %lld ops)\n",
			fss_jnum(t, "elapsed_s"), fss_jint(t, "ops", 0));
	if (ok && fss_j(t, "breakdown") && strcmp(fss_jstr(t, "method") ?: "", "none")) {
		fss_text_breakdown(c->f, t, 4);
		blame_text(c->f, fss_j(t, "blame"));
	}
	if (hist && ok)
		fss_text_hists(c->f, t, 4);
	fflush(c->f);
}

/* What L should come close to: the concurrency asked, in words. */
static const char *little_expect(struct json_object *pts, bool depth)
{
	bool jobs1 = true, depth1 = true;

	for (size_t i = 0; pts && i < fss_jlen(pts); i++) {
		struct json_object *p = fss_jidx(pts, i);

		jobs1 = jobs1 && fss_jint(p, "jobs", 1) == 1;
		depth1 = depth1 && fss_jint(p, "iodepth", 1) == 1;
	}
	if (depth)
		return jobs1 ? "depth" : "jobs x depth";
	return depth1 ? "jobs" : "jobs x depth";
}

/*
 * The Little's-law table of a sweep from its "little" object (or, in a
 * document saved before it existed, from "sweep": the same columns).
 */
void fss_text_run_little(FILE *f, struct json_object *little)
{
	struct json_object *pts = fss_j(little, "points") ?: little;
	bool depth = !strcmp(fss_jstr(little, "axis") ?: "", "iodepth");
	const char *ax = depth ? "depth" : "jobs";
	char a[16], b[16], d[16];
	size_t i, n = pts ? fss_jlen(pts) : 0;
	long long bl = fss_jint(little, "base_level", 0);

	fprintf(f, "\nLittle's law check (L = IOPS x mean latency, expect L close to "
		"%s):\n", little_expect(pts, depth));
	fprintf(f, "%6s%12s%9s%9s%9s%8s%9s%13s\n", ax, "IOPS", "mean", "p50",
		"p99", "L", "speedup", "vs 1/lat");
	for (i = 0; i < n; i++) {
		struct json_object *r = fss_jidx(pts, i);
		long long lv = fss_jint(r, "level", fss_jint(r, "jobs", 0));
		double L = fss_jnum(r, fss_j(r, "L") ? "L" :
				    "littles_law_concurrency");

		if (!fss_j(little, "points"))
			bl = fss_jint(r, "base_jobs", 0);
		if (strcmp(fss_jstr(r, "status") ?: "", "ok")) {
			fprintf(f, "%6lld%12s  %s\n", lv, "n/a", "see above");
			continue;
		}
		fprintf(f, "%6lld%12.1f%9s%9s%9s%8.2f%9.2f%12.2fx\n", lv,
			fss_jnum(r, "ops_per_sec"),
			fss_fmt_us(a, sizeof(a), fss_jnum(r, "mean_us")),
			fss_fmt_us(b, sizeof(b), fss_jnum(r, "p50_us")),
			fss_fmt_us(d, sizeof(d), fss_jnum(r, "p99_us")), L,
			fss_jnum(r, "speedup"), fss_jnum(r, "vs_naive"));
	}
	if (bl) {
		char note[320];

		snprintf(note, sizeof(note), "(latencies in usecs per op; speedup = "
			 "IOPS / IOPS at %s=%lld; vs 1/lat = IOPS / (1 / mean latency "
			 "at %s=%lld), i.e. against the naive capacity estimate from "
			 "one %s's latency)", ax, bl, ax, bl,
			 depth ? "op" : "syncer");
		fss_print_wrapped(f, "", 1, note);
	}
}

struct find_test {
	const char *name;
	long long syncs;
};

static int find_fn(const char *key, struct json_object *t, void *arg)
{
	struct find_test *ft = arg;

	if (strcmp(key, ft->name))
		return 0;
	ft->syncs = fss_jint(t, "syncs_traced", 0);
	return 1;
}

void fss_text_run_verdict(FILE *f, struct json_object *doc)
{
	struct json_object *v = fss_j(doc, "verdict");
	char buf[4096 + 256];

	fputc('\n', f);
	if (!v || json_object_is_type(v, json_type_null)) {
		snprintf(buf, sizeof(buf), "n/a: %s", fss_jstr(doc, "verdict_reason") ?: "");
		fss_print_wrapped(f, "Verdict:  ", 10, buf);
		return;
	}
	fss_verdict_print_json(f, v);
	if (fss_jstr(v, "measured_in")) {
		struct find_test ft = { fss_jstr(v, "measured_in"), 0 };

		fss_doc_foreach_test(doc, find_fn, &ft);
		snprintf(buf, sizeof(buf), "test %s (%lld traced syncs)", ft.name, ft.syncs);
	} else if (!json_object_get_boolean(fss_j(fss_j(doc, "options"), "trace"))) {
		snprintf(buf, sizeof(buf), "nothing (--no-trace): the verdict "
			 "rests on the device facts only");
	} else {
		snprintf(buf, sizeof(buf), "nothing: no traced fdatasync (or "
			 "other durable sync) test completed");
	}
	fss_print_wrapped(f, "Measured: ", 10, buf);
}

struct whole {
	struct fss_text_run c;
	const char *section;
	bool hist;
};

static int whole_fn(const char *key, struct json_object *t, void *arg)
{
	struct whole *w = arg;
	const char *sec = fss_jstr(t, "section_title") ?: fss_jstr(t, "section") ?: "";

	(void)key;
	if (!w->section || strcmp(w->section, sec)) {
		if (w->section)
			fss_text_run_section_end(&w->c);
		fss_text_run_section(&w->c, sec, fss_jstr(t, "section_note"));
		w->section = sec;
	}
	fss_text_run_row(&w->c, t, w->hist);
	return 0;
}

void fss_text_run_body(FILE *f, struct json_object *doc, bool hist)
{
	struct whole w = { .c = { .f = f }, .hist = hist };

	if (fss_j(doc, "findings")) {
		fputc('\n', f);
		fss_text_findings(f, doc);
	}
	fss_doc_foreach_test(doc, whole_fn, &w);
	if (w.section)
		fss_text_run_section_end(&w.c);
	if (fss_j(doc, "little"))
		fss_text_run_little(f, fss_j(doc, "little"));
	else if (fss_j(doc, "sweep"))
		fss_text_run_little(f, fss_j(doc, "sweep"));
	fss_text_run_verdict(f, doc);
	fflush(f);
}

int fss_text_run(FILE *f, struct json_object *doc, bool hist)
{
	fss_text_run_header(f, doc);
	fss_text_run_body(f, doc, hist);
	return 0;
}
