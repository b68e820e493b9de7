// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * out_text_breakdown.c - the per-phase breakdown of a test, as plain text,
 * from the test's JSON (syncs_traced, syncs_by_kind, breakdown,
 * breakdown_total, flush, incomplete_rqs, drops).  run's and devices
 * --probe's text print it under their rows.  Reads the document only.
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include "doc/doc.h"
#include "lib/fmt.h"
#include "render/render.h"

#define BD_WIDTH	80
#define BD_ITEMS	16

struct bd_items {
	char s[BD_ITEMS][64];
	int n;
};

static void bd_add(struct bd_items *it, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void bd_add(struct bd_items *it, const char *fmt, ...)
{
	va_list ap;

	if (it->n >= BD_ITEMS)
		return;
	va_start(ap, fmt);
	vsnprintf(it->s[it->n++], sizeof(it->s[0]), fmt, ap);
	va_end(ap);
}

/*
 * "head item, item, item" wrapped at 80 columns; continuation lines line
 * up under the first item.
 */
static void bd_print_items(FILE *f, int indent, const char *head,
			   const struct bd_items *it)
{
	int col, cont = indent + (int)strlen(head);

	col = fprintf(f, "%*s%s", indent, "", head);
	for (int i = 0; i < it->n; i++) {
		int len = (int)strlen(it->s[i]);
		bool last = i == it->n - 1;

		if (i > 0) {
			if (col + 1 + len + !last > BD_WIDTH) {
				fputc('\n', f);
				col = fprintf(f, "%*s", cont, "");
			} else {
				col += fprintf(f, " ");
			}
		}
		col += fprintf(f, "%s%s", it->s[i], last ? "" : ",");
	}
	fputc('\n', f);
}

/* one phase's row: mean, p50, p99, share and a bar of the share */
static void bd_phase_row(FILE *f, int indent, const char *name,
			 struct json_object *ph, int bar_w)
{
	char m[24], p50[24], p99[24], share[16], bar[32] = "";
	double sh = fss_jnum(ph, "share");

	if (fss_j(ph, "na")) {
		fprintf(f, "%*s%-12s %9s %9s %9s %6s\n", indent, "", name,
			"n/a", "n/a", "n/a", "n/a");
		return;
	}
	fss_fmt_dur(m, sizeof(m), fss_jnum(ph, "mean_us"));
	fss_fmt_dur(p50, sizeof(p50), fss_jnum(ph, "p50_us"));
	fss_fmt_dur(p99, sizeof(p99), fss_jnum(ph, "p99_us"));
	if (isnan(sh)) {
		snprintf(share, sizeof(share), "n/a");
	} else {
		snprintf(share, sizeof(share), "%.1f%%", sh * 100.0);
		if (bar_w >= 5) {
			int nb = (int)(sh * bar_w + 0.5);

			if (nb > bar_w)
				nb = bar_w;
			if (nb < 0)
				nb = 0;
			memset(bar, '#', nb);
			bar[nb] = '\0';
		}
	}
	fprintf(f, "%*s%-12s %9s %9s %9s %6s%s%s\n", indent, "", name, m, p50,
		p99, share, bar[0] ? "  " : "", bar);
}

static void bd_phases(FILE *f, int indent, struct json_object *t)
{
	struct json_object *tot = fss_j(t, "breakdown_total");
	struct json_object *bd = fss_j(t, "breakdown");
	char m[24], p50[24], p99[24];
	/* name 12 + 3 x (1 + 9) + 1 + share 6 = 49 columns, then the bar */
	int bar_w = BD_WIDTH - indent - 49 - 2;

	if (bar_w > 25)
		bar_w = 25;
	fprintf(f, "%*s%-12s %9s %9s %9s %6s\n", indent, "", "phase",
		"mean", "p50", "p99", "share");
	if (json_object_is_type(bd, json_type_object)) {
		json_object_object_foreach(bd, name, ph)
			bd_phase_row(f, indent, name, ph, bar_w);
	}
	fss_fmt_dur(m, sizeof(m), fss_jnum(tot, "mean_us"));
	fss_fmt_dur(p50, sizeof(p50), fss_jnum(tot, "p50_us"));
	fss_fmt_dur(p99, sizeof(p99), fss_jnum(tot, "p99_us"));
	fprintf(f, "%*s%-12s %9s %9s %9s\n", indent, "", "total", m, p50, p99);
}

static void bd_flush(FILE *f, int indent, struct json_object *t,
		     unsigned long long syncs, bool no_rq_start)
{
	struct json_object *fl = fss_j(t, "flush");
	unsigned long long flushes = fss_jcount(fl, "flushes");
	struct bd_items it = { .n = 0 };

	bd_add(&it, "%.2f flushes/sync", (double)flushes / (double)syncs);
	if (flushes)
		bd_add(&it, "%.2f syncs/flush", fss_jnum(fl, "syncs_per_flush"));
	else
		bd_add(&it, "syncs/flush n/a (no flush request seen)");
	if (no_rq_start) {
		bd_add(&it, "FUA %llu native / emulated n/a",
		       fss_jcount(fl, "fua_writes"));
		bd_add(&it, "preflush requests n/a");
	} else {
		bd_add(&it, "FUA %llu native / %llu emulated",
		       fss_jcount(fl, "fua_writes"), fss_jcount(fl, "fua_emulated"));
		bd_add(&it, "%llu preflush requests", fss_jcount(fl, "preflush"));
	}
	bd_add(&it, "%llu syncs saw no flush", fss_jcount(fl, "syncs_no_flush"));
	if (fss_jcount(fl, "nvme_flush_cmds"))
		bd_add(&it, "%llu NVMe Flush commands",
		       fss_jcount(fl, "nvme_flush_cmds"));
	bd_print_items(f, indent, "flush: ", &it);
}

/* "WHAT n/a: the reason" of phase's breakdown.PHASE.na, when it has one */
static void bd_na(FILE *f, int indent, const char *what,
		  struct json_object *t, const char *phase)
{
	const char *na = fss_jstr(fss_j(fss_j(t, "breakdown"), phase), "na");
	char lead[64];

	if (!na)
		return;
	snprintf(lead, sizeof(lead), "%*s%s n/a: ", indent, "", what);
	fss_print_wrapped(f, lead, indent, na);
}

/* what makes the breakdown less than whole, said under it */
static void bd_caveats(FILE *f, int indent, struct json_object *t,
		       unsigned long long syncs, bool no_rq_start)
{
	unsigned long long incomplete = fss_jcount(t, "incomplete_rqs");
	unsigned long long drops = fss_jcount(t, "drops");

	/* the reasons are the document's (stats/collector.c), not ours */
	if (no_rq_start)
		bd_na(f, indent, "queue and preflush", t, "queue");
	bd_na(f, indent, "journal", t, "journal");
	/*
	 * Lost by the kernel's tracepoint, or still running at the end: said
	 * when it touches 1 % of the syncs or more (JSON always has it); a
	 * handful among thousands cannot move the breakdown.
	 */
	if (incomplete && fss_jcount(t, "syncs_incomplete") * 100 >= syncs)
		fprintf(f, "%*s%llu request%s with no completion event: painted "
			"as in flight\n%*sonly to the exit of the sync it began "
			"in (docs/model.md, Limits)\n", indent, "", incomplete,
			incomplete == 1 ? "" : "s", indent, "");
	if (drops && fss_j(t, "overload"))
		fprintf(f, "%*s%llu events lost (ring full, hook skipped); a "
			"sync near a record lost\n%*sis summarized, not "
			"painted\n", indent, "", drops, indent, "");
	else if (drops)
		fprintf(f, "%*s%llu events lost (ring full, hook skipped): "
			"breakdown incomplete\n", indent, "", drops);
}

/* The overload paragraph (render.h): run's breakdowns and trace's text. */
void fss_text_overload(FILE *f, int indent, struct json_object *o,
		       bool with_max, const char *covers)
{
	struct json_object *why = fss_j(o, "why");
	struct json_object *tot = fss_j(o, "summarized_total_us");
	unsigned long long n = fss_jcount(o, "summarized");
	unsigned long long sampled = fss_jcount(why, "sampled");
	char lead[48], text[560], a[16], b[16], c[16], max[32] = "";
	char smp[64] = "";

	if (!n)
		return;
	if (sampled)
		snprintf(smp, sizeof(smp), "; %llu not drawn by --sample 1/%llu",
			 sampled, fss_jcount(o, "sample_every"));
	fss_fmt_dur(a, sizeof(a), json_object_get_double(fss_j(tot, "p50_le")));
	fss_fmt_dur(b, sizeof(b), json_object_get_double(fss_j(tot, "p99_le")));
	if (with_max) {
		fss_fmt_dur(c, sizeof(c),
			    json_object_get_double(fss_j(tot, "max_le")));
		snprintf(max, sizeof(max), ", max <= %s", c);
	}
	if (sampled == n)	/* --sample only: no overload */
		snprintf(text, sizeof(text), "1 in %llu syncs traced in full, "
			 "drawn at random (--sample); the other %llu counted "
			 "in the kernel: their totals p50 <= %s, p99 <= %s%s; "
			 "%s the %llu syncs traced in full",
			 fss_jcount(o, "sample_every"), n, a, b, max, covers,
			 fss_jcount(o, "traced"));
	else
		snprintf(text, sizeof(text), "%llu syncs summarized in the "
			 "kernel (%llu at entry: ring over its high mark; %llu "
			 "near a lost record; %llu found no room for their own "
			 "record; %llu painted with a request whose completion "
			 "was lost after%s); their totals p50 <= %s, p99 <= "
			 "%s%s; %s the %llu syncs traced in full", n,
			 fss_jcount(why, "ring_high"),
			 fss_jcount(why, "lost_near"),
			 fss_jcount(why, "ring_full"),
			 fss_jcount(why, "lost_after"), smp, a, b, max, covers,
			 fss_jcount(o, "traced"));
	snprintf(lead, sizeof(lead), "%*s%s: ", indent, "",
		 sampled == n ? "sampled" : "overload");
	fss_print_wrapped(f, lead, indent + 2, text);
}

void fss_text_breakdown(FILE *f, struct json_object *t, int indent)
{
	struct json_object *by_kind = fss_j(t, "syncs_by_kind");
	unsigned long long syncs = fss_jcount(t, "syncs_traced");
	bool no_rq_start = fss_j(fss_j(fss_j(t, "breakdown"), "queue"), "na");
	struct bd_items it = { .n = 0 };
	char head[48];

	if (!f || !t)
		return;
	if (indent < 0)
		indent = 0;
	if (indent > 20)
		indent = 20;
	if (!syncs) {
		fprintf(f, "%*sno syncs were traced\n", indent, "");
		if (fss_jcount(t, "drops"))
			fprintf(f, "%*s%llu events lost (ring full, hook "
				"skipped)\n", indent, "", fss_jcount(t, "drops"));
		fss_text_overload(f, indent, fss_j(t, "overload"), true,
				  "the phases above cover");
		return;
	}
	if (json_object_is_type(by_kind, json_type_object)) {
		json_object_object_foreach(by_kind, kind, n)
			if (json_object_get_uint64(n))
				bd_add(&it, "%s %llu", kind, (unsigned long long)
				       json_object_get_uint64(n));
	}
	snprintf(head, sizeof(head), "%llu syncs: ", syncs);
	bd_print_items(f, indent, head, &it);
	bd_phases(f, indent, t);
	bd_flush(f, indent, t, syncs, no_rq_start);
	bd_caveats(f, indent, t, syncs, no_rq_start);
	fss_text_overload(f, indent, fss_j(t, "overload"), true,
			  "the phases above cover");
}
