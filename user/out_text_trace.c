// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * out_text_trace.c - the plain text of `trace` (80 columns): an interval
 * or the summary, and a --slower sync from its JSON record.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>
#include "doc.h"
#include "fmt.h"
#include "fsnote.h"
#include "live_agg.h"
#include "live_doc.h"
#include "live_names.h"
#include "render.h"
#include "blame.h"
#include "cgpath.h"

static const char *cache_str(int wc)
{
	return wc == 1 ? "write back" : wc == 0 ? "write through" : NULL;
}

static const char *ph_abbr[FSS_PH_MAX] = { "fs", "jrn", "que", "dwr", "dfl", "oth" };

/* " SYNCS  TOTAL_s  P50_us  P99_us  fs jrn que dwr dfl oth": 56 columns */
static void print_stats_header(FILE *f, const char *ident)
{
	fprintf(f, "%-23s %6s %8s %7s %7s", ident, "SYNCS", "TOTAL_s", "P50_us", "P99_us");
	for (int p = 0; p < FSS_PH_MAX; p++)
		fprintf(f, " %3s", ph_abbr[p]);
	fprintf(f, "\n");
}

static void print_us(FILE *f, __u64 ns)
{
	double us = ns / 1000.0;

	if (us < 9999999.5)
		fprintf(f, " %7.0f", us);
	else
		fprintf(f, " %6.0fs", ns / 1e9);
}

static void print_stats(FILE *f, const struct gstat *g)
{
	fprintf(f, " %6llu %8.3f", (unsigned long long)g->syncs, g->total_ns / 1e9);
	print_us(f, live_quantile_ns(&g->h, 0.50));
	print_us(f, live_quantile_ns(&g->h, 0.99));
	for (int p = 0; p < FSS_PH_MAX; p++)
		fprintf(f, " %3.0f", g->total_ns ? 100.0 * g->phase_ns[p] / g->total_ns : 0.0);
	fprintf(f, "\n");
}

/* print an identity cell of 23 columns; a longer one goes on its own line */
static void print_ident(FILE *f, const char *s)
{
	size_t n = strlen(s);

	if (n <= 23) {
		fprintf(f, "%-23s", s);
		return;
	}
	if (n > 78)
		fprintf(f, "...%s\n%23s", s + n - 75, "");
	else
		fprintf(f, "%s\n%23s", s, "");
}

/* Each traced filesystem without a jbd2 commit above: why, for its type. */
/* BLAMED: who caused sync time in others; per traced process, by whom */
static void blamed_text(FILE *f, const struct window *w, int top)
{
	const struct table *t = &w->tbl[G_BLAMED];
	struct group **s;
	int shown = top < t->n ? top : t->n;

	if (!w->all.blamed_syncs) {
		fprintf(f, "\nBLAMED: n/a (blame off: --no-blame, or its hooks "
			"did not attach)\n");
		return;
	}
	fprintf(f, "\nBLAMED (sync time caused in other processes' syncs; "
		"top %d of %d)\n", shown, t->n);
	fprintf(f, "%7s %-15s %8s %6s %3s %3s %3s %3s  %s\n", "PID", "NAME",
		"CAUSED_s", "SYNCS", "jrn", "que", "dwr", "dfl", "CGROUP");
	s = live_tbl_sorted(t);
	for (int i = 0; s && i < shown; i++) {
		const struct gstat *g = &s[i]->st;
		const char *cg = s[i]->k2 ? fss_cgroup_path(s[i]->k2, NULL) : NULL;

		fprintf(f, "%7llu %-15.15s %8.3f %6llu",
			(unsigned long long)s[i]->k1, s[i]->comm, g->total_ns / 1e9,
			(unsigned long long)g->syncs);
		for (int p = FSS_PH_JOURNAL; p <= FSS_PH_DEV_FLUSH; p++)
			fprintf(f, " %3.0f", g->total_ns ?
				100.0 * g->phase_ns[p] / g->total_ns : 0.0);
		fprintf(f, "  %.20s\n", cg ? cg : "n/a");
	}
	free(s);
	fprintf(f, "sync time of the traced processes by cause: self %.3f s, "
		"others %.3f s,\n  unattributed %.3f s (of %.3f s in journal, "
		"queue and device)\n", w->all.blame_self_ns / 1e9,
		w->all.blame_others_ns / 1e9, w->all.blame_unattributed_ns / 1e9,
		(w->all.phase_ns[FSS_PH_JOURNAL] + w->all.phase_ns[FSS_PH_QUEUE] +
		 w->all.phase_ns[FSS_PH_DEV_WRITE] +
		 w->all.phase_ns[FSS_PH_DEV_FLUSH]) / 1e9);
}

static void journal_notes(FILE *f, const struct window *w, bool journal_na)
{
	const struct table *dt = &w->tbl[G_DEV];

	if (journal_na) {
		fprintf(f, "n/a: no jbd2 or xfs log tracepoint attached\n");
		return;
	}
	for (int i = 0; i < dt->n; i++) {
		const struct group *g = dt->all[i];
		struct dev_facts *d = live_names_dev(g->k1);
		const char *type = d ? d->fstype : "";
		char devs[24];

		if (live_tbl_find(&w->tbl[G_JOURNAL], g->k1, 0))
			continue;
		snprintf(devs, sizeof(devs), "%u:%u", live_kmaj(g->k1), live_kmin(g->k1));
		fprintf(f, "%s %s%s%s\n", devs, type, type[0] ? ": " : "",
			fss_journal_note(type));
	}
}

void live_text_report(FILE *f, const struct window *w,
		      const struct live_report_ctx *rc)
{
	struct group **s;
	char tbuf[64];
	struct tm tm;
	int shown;

	localtime_r(&w->start_wall.tv_sec, &tm);
	strftime(tbuf, sizeof(tbuf), "%Y-%m-%d %H:%M:%S", &tm);
	if (rc->index)
		fprintf(f, "\n=== interval %d: %s, %.2f s", rc->index, tbuf, rc->seconds);
	else
		fprintf(f, "\n=== summary: from %s, %.2f s", tbuf, rc->seconds);
	fprintf(f, ", %llu syncs", (unsigned long long)w->all.syncs);
	if (w->all.errors)
		fprintf(f, " (%llu failed)", (unsigned long long)w->all.errors);
	fprintf(f, "\n");
	if (rc->drops)
		fprintf(f, "warning: %llu events lost (ring buffer or state map full, or hook skipped): "
			"counts are incomplete\n", (unsigned long long)rc->drops);
	if (!w->all.syncs) {
		fprintf(f, "no syncs\n");
		return;
	}

	print_stats_header(f, "KIND");
	for (int k = 0; k < FSS_SYNC_KIND_MAX; k++) {
		if (!w->kind[k].syncs)
			continue;
		fprintf(f, "%-23s", fss_sync_kind_name(k));
		print_stats(f, &w->kind[k]);
	}
	fprintf(f, "%-23s", "all");
	print_stats(f, &w->all);

	fprintf(f, "\nPROCESSES (top %d of %d by sync time)\n",
		rc->top < w->tbl[G_PROC].n ? rc->top : w->tbl[G_PROC].n, w->tbl[G_PROC].n);
	print_stats_header(f, "    PID NAME");
	s = live_tbl_sorted(&w->tbl[G_PROC]);
	for (int i = 0; s && i < w->tbl[G_PROC].n && i < rc->top; i++) {
		struct proc_name *p = live_names_proc_find(s[i]->k1);

		fprintf(f, "%7llu %-15.15s", (unsigned long long)s[i]->k1, live_names_proc_label(p));
		print_stats(f, &s[i]->st);
	}
	free(s);

	shown = rc->top < w->tbl[G_FILE].n ? rc->top : w->tbl[G_FILE].n;
	fprintf(f, "\nFILES (top %d of %d by sync time)\n", shown, w->tbl[G_FILE].n);
	print_stats_header(f, "FILE");
	s = live_tbl_sorted(&w->tbl[G_FILE]);
	for (int i = 0; s && i < shown; i++) {
		char label[PATH_MAX + 64];
		bool resolved;

		live_names_file_label(s[i]->k1, s[i]->k2, label, sizeof(label), &resolved);
		print_ident(f, label);
		print_stats(f, &s[i]->st);
	}
	free(s);

	fprintf(f, "\nDEVICES (flush facts)\n");
	fprintf(f, "%-9s %-8s %-13s %3s %7s %7s %8s %7s %8s\n", "FS_DEV", "DISK", "CACHE", "FUA",
		"SYNCS", "FLUSHED", "NO_FLUSH", "FUA_WR", "DFLUSH_s");
	s = live_tbl_sorted(&w->tbl[G_DEV]);
	for (int i = 0; s && i < w->tbl[G_DEV].n; i++) {
		const struct gstat *g = &s[i]->st;
		struct dev_facts *d = live_names_dev(s[i]->k1);
		const char *wc = d ? cache_str(d->write_cache) : NULL;
		char devs[24];

		snprintf(devs, sizeof(devs), "%u:%u", live_kmaj(s[i]->k1), live_kmin(s[i]->k1));
		fprintf(f, "%-9s %-8.8s %-13s %3s %7llu %7llu %8llu %7llu %8.3f\n", devs,
			d && d->disk_name[0] ? d->disk_name : "n/a", wc ? wc : "n/a",
			!d || d->fua < 0 ? "n/a" : d->fua ? "yes" : "no",
			(unsigned long long)g->syncs, (unsigned long long)g->with_flush,
			(unsigned long long)(g->syncs - g->with_flush),
			(unsigned long long)g->nr_fua, g->phase_ns[FSS_PH_DEV_FLUSH] / 1e9);
		if (d && d->write_cache == 0)
			fprintf(f, "  %s is write through: the kernel elides its flushes\n",
				d->disk_name);
	}
	free(s);
	if (w->flush.flushes)
		fprintf(f, "all devices: %llu flushes served %llu syncs (%.2f syncs per flush)\n",
			(unsigned long long)w->flush.flushes,
			(unsigned long long)w->flush.flush_sync_refs,
			(double)w->flush.flush_sync_refs / w->flush.flushes);
	else
		fprintf(f, "all devices: no cache flush request attributed to a sync\n");
	fprintf(f, "FUA writes %llu native, %llu emulated; %llu PREFLUSH requests\n",
		(unsigned long long)w->flush.fua_writes,
		(unsigned long long)w->flush.fua_emulated,
		(unsigned long long)w->flush.preflush);

	fprintf(f, "\nJOURNAL (jbd2 commits by kernel threads, on the devices above)\n");
	s = live_tbl_sorted(&w->tbl[G_JOURNAL]);
	shown = 0;
	for (int i = 0; s && i < w->tbl[G_JOURNAL].n; i++) {
		const struct group *dg = live_tbl_find(&w->tbl[G_DEV], s[i]->k1, 0);
		const struct gstat *g = &s[i]->st;
		char devs[24];

		if (!dg)
			continue;
		if (!shown++)
			fprintf(f, "%-9s %7s %7s %8s %7s %7s %7s %8s\n", "FS_DEV", "COMMITS",
				"ASKED", "TOTAL_s", "P50_us", "P99_us", "MAX_us", "WAITERS");
		snprintf(devs, sizeof(devs), "%u:%u", live_kmaj(s[i]->k1), live_kmin(s[i]->k1));
		fprintf(f, "%-9s %7llu %7llu %8.3f", devs, (unsigned long long)g->syncs,
			(unsigned long long)s[i]->sync_commits, g->total_ns / 1e9);
		print_us(f, live_quantile_ns(&g->h, 0.50));
		print_us(f, live_quantile_ns(&g->h, 0.99));
		print_us(f, g->max_ns);
		fprintf(f, " %8llu\n", (unsigned long long)dg->st.with_journal);
	}
	free(s);
	journal_notes(f, w, rc->journal_na);
	blamed_text(f, w, rc->top);
}


/* a --slower sync's blame, from its record: the three largest causes */
static void slower_blame(FILE *f, struct json_object *o)
{
	struct json_object *a, *x;
	char buf[512];
	size_t n, len = 0;
	int shown = 0;

	if (!json_object_object_get_ex(o, "blame", &a) ||
	    !json_object_is_type(a, json_type_array))
		return;
	n = json_object_array_length(a);
	for (size_t i = 0; i < n && shown < 3 && len < sizeof(buf) - 64; i++) {
		x = json_object_array_get_idx(a, i);
		if (json_object_object_get(x, "unattributed"))
			continue;
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s %.0f%% ",
				shown ? "; " : "", fss_jstr(x, "phase") ?: "?",
				json_object_get_double(json_object_object_get(
					x, "share")) * 100);
		if (json_object_get_boolean(json_object_object_get(x, "self")))
			len += snprintf(buf + len, sizeof(buf) - len, "self");
		else
			len += snprintf(buf + len, sizeof(buf) - len, "pid %lld %.15s",
					fss_jint(x, "pid", 0),
					fss_jstr(x, "comm") ?: "?");
		shown++;
	}
	if (shown)	/* 80 columns */
		fss_print_wrapped(f, "         blame: ", 16, buf);
}

/* a --slower sync from its record (live_doc_sync) */
void fss_text_trace_sync(FILE *f, struct json_object *o)
{
	const char *path = fss_jstr(o, "path"), *dev = fss_jstr(o, "dev");
	const char *time = fss_jstr(o, "time");
	long long ino = fss_jint(o, "ino", 0), ret = fss_jint(o, "ret", 0);
	char label[PATH_MAX + 64];
	size_t n;
	int w;

	if (!dev)
		dev = "0:0";
	if (path)
		snprintf(label, sizeof(label), "%s", path);
	else if (!ino && !strcmp(dev, "0:0"))
		snprintf(label, sizeof(label), "n/a");
	else if (!ino)
		snprintf(label, sizeof(label), "dev %s", dev);
	else
		snprintf(label, sizeof(label), "dev %s ino %lld", dev, ino);
	n = strlen(label);
	/* the file on the same line when it fits, else on its own */
	w = fprintf(f, "%.8s %lld %s %s %.3f ms",
		    time && strlen(time) >= 19 ? time + 11 : "?",
		    fss_jint(o, "pid", 0), fss_jstr(o, "comm") ?: "",
		    fss_jstr(o, "kind") ?: "?", fss_jint(o, "total_ns", 0) / 1e6);
	if (w + 2 + n <= 79)
		fprintf(f, "  %s\n", label);
	else if (n <= 77)
		fprintf(f, "\n  %s\n", label);
	else
		fprintf(f, "\n  ...%s\n", label + n - 74);
	fprintf(f, "        ");
	for (int p = 0; p < FSS_PH_MAX; p++) {
		char k[32];

		snprintf(k, sizeof(k), "%s_ns", fss_phase_name(p));
		fprintf(f, " %s %.3f", ph_abbr[p], fss_jint(o, k, 0) / 1e6);
	}
	if (ret < 0)
		fprintf(f, "  failed: %s", strerror(-ret));
	fprintf(f, "\n");
	slower_blame(f, o);
}
