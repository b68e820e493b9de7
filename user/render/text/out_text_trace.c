// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * out_text_trace.c - the plain text of `trace` (80 columns), rendered from
 * its documents (live_doc.c): an interval or the summary, and a --slower
 * sync from its "sync" record.  `trace` prints through it, and `report
 * trace.jsonl --format text` prints the same bytes.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>
#include "doc/doc.h"
#include "lib/fmt.h"
#include "lib/phase.h"
#include "render/render.h"

#define NPH	FSS_PH_MAX

/* the phases as the document names them, and their column headers */

static const char *str_or(struct json_object *o, const char *key,
			  const char *def)
{
	const char *s = fss_jstr(o, key);

	return s ? s : def;
}

/* " SYNCS  TOTAL_s  P50_us  P99_us  fs jrn que dwr dfl oth": 56 columns */
static void print_stats_header(FILE *f, const char *ident)
{
	fprintf(f, "%-23s %6s %8s %7s %7s", ident, "SYNCS", "TOTAL_s", "P50_us", "P99_us");
	for (int p = 0; p < NPH; p++)
		fprintf(f, " %3s", fss_phase_abbr(p));
	fprintf(f, "\n");
}

/* a time in us (key of o, null: 0) in 8 columns; seconds when too long */
static void print_us(FILE *f, struct json_object *o, const char *key)
{
	struct json_object *v = fss_j(o, key);
	double us = v ? json_object_get_double(v) : 0;

	if (us < 9999999.5)
		fprintf(f, " %7.0f", us);
	else
		fprintf(f, " %6.0fs", us / 1e6);
}

/* a group's row after its identity: syncs, time, p50, p99, phase shares */
static void print_stats(FILE *f, struct json_object *g)
{
	unsigned long long total = fss_jcount(g, "total_ns");
	struct json_object *ph = fss_j(g, "phases");

	fprintf(f, " %6llu %8.3f", fss_jcount(g, "syncs"), total / 1e9);
	print_us(f, g, "p50_us");
	print_us(f, g, "p99_us");
	for (int p = 0; p < NPH; p++) {
		unsigned long long ns = fss_jcount(fss_j(ph, fss_phase_name(p)), "ns");

		fprintf(f, " %3.0f", total ? 100.0 * ns / total : 0.0);
	}
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

static size_t len_of(struct json_object *a)
{
	return a && json_object_is_type(a, json_type_array) ?
	       fss_jlen(a) : 0;
}

#define each(a, i, e) \
	for (size_t i = 0; i < len_of(a) && \
	     ((e) = fss_jidx(a, i)); i++)

/* "=== interval N: ..." or "=== summary: ..."; false: no syncs */
static bool print_head(FILE *f, struct json_object *doc)
{
	struct json_object *all = fss_j(doc, "all");
	const char *start = str_or(doc, "start", "?");
	unsigned long long lost = fss_jcount(doc, "events_lost");
	long long index = fss_jint(doc, "interval", 0);
	double secs = json_object_get_double(fss_j(doc, "seconds"));

	/* "start" is local time "YYYY-MM-DDTHH:MM:SS+ZZZZ": shown without T, zone */
	if (index)
		fprintf(f, "\n=== interval %lld: %.10s %.8s, %.2f s", index, start,
			strlen(start) >= 19 ? start + 11 : "", secs);
	else
		fprintf(f, "\n=== summary: from %.10s %.8s, %.2f s", start,
			strlen(start) >= 19 ? start + 11 : "", secs);
	fprintf(f, ", %llu syncs", fss_jcount(all, "syncs"));
	if (fss_jcount(all, "errors"))
		fprintf(f, " (%llu failed)", fss_jcount(all, "errors"));
	fprintf(f, "\n");
	if (!strcmp(str_or(doc, "painter", "user"), "kernel"))
		fprintf(f, "painted in the kernel: one record per sync, no "
			"request records (their counts: n/a; blame: the slowest\nsyncs only, from a flight recorder)\n");
	if (lost && fss_j(doc, "overload"))
		fprintf(f, "warning: %llu events lost (ring buffer or state map "
			"full, or hook skipped);\nsyncs near them were "
			"summarized, not painted\n", lost);
	else if (lost)
		fprintf(f, "warning: %llu events lost (ring buffer or state map full, or hook skipped): "
			"counts are incomplete\n", lost);
	/* summarized syncs are counted, not in the tables below */
	fss_text_overload(f, 0, fss_j(doc, "overload"), false,
			  "what follows covers");
	if (!fss_jcount(all, "syncs")) {
		fprintf(f, "no syncs\n");
		return false;
	}
	return true;
}

static void print_kinds(FILE *f, struct json_object *doc)
{
	struct json_object *k;

	print_stats_header(f, "KIND");
	each(fss_j(doc, "kinds"), i, k) {
		fprintf(f, "%-23s", str_or(k, "kind", "?"));
		print_stats(f, k);
	}
	fprintf(f, "%-23s", "all");
	print_stats(f, fss_j(doc, "all"));
}

static void print_procs_files(FILE *f, struct json_object *doc)
{
	struct json_object *procs = fss_j(doc, "processes"), *files = fss_j(doc, "files"), *e;

	fprintf(f, "\nPROCESSES (top %zu of %lld by sync time)\n", len_of(procs),
		fss_jint(doc, "processes_total", 0));
	print_stats_header(f, "    PID NAME");
	each(procs, i, e) {
		fprintf(f, "%7llu %-15.15s", fss_jcount(e, "pid"), str_or(e, "name", "?"));
		print_stats(f, e);
	}
	fprintf(f, "\nFILES (top %zu of %lld by sync time)\n", len_of(files),
		fss_jint(doc, "files_total", 0));
	print_stats_header(f, "FILE");
	each(files, i, e) {
		const char *rel = fss_jstr(e, "relation");	/* --pg */
		char label[PATH_MAX + 160];

		snprintf(label, sizeof(label), "%s%s%s%s",
			 str_or(e, "path", str_or(e, "path_note", "?")),
			 rel ? " (" : "", rel ? rel : "", rel ? ")" : "");
		print_ident(f, label);
		print_stats(f, e);
	}
}

static void print_devices(FILE *f, struct json_object *doc)
{
	struct json_object *fl = fss_j(doc, "flush"), *d, *fua;

	fprintf(f, "\nDEVICES (flush facts)\n");
	fprintf(f, "%-9s %-8s %-13s %3s %7s %7s %8s %7s %8s\n", "FS_DEV", "DISK", "CACHE", "FUA",
		"SYNCS", "FLUSHED", "NO_FLUSH", "FUA_WR", "DFLUSH_s");
	each(fss_j(doc, "devices"), i, d) {
		const char *wc = fss_jstr(d, "write_cache");
		char fw[24] = "n/a";	/* null: no request record */

		if (fss_j(d, "fua_writes"))
			snprintf(fw, sizeof(fw), "%llu", fss_jcount(d, "fua_writes"));
		fua = fss_j(d, "fua");
		fprintf(f, "%-9s %-8.8s %-13s %3s %7llu %7llu %8llu %7s %8.3f\n",
			str_or(d, "dev", "?"), str_or(d, "disk", "n/a"), wc ? wc : "n/a",
			!fua ? "n/a" : json_object_get_boolean(fua) ? "yes" : "no",
			fss_jcount(d, "syncs"), fss_jcount(d, "syncs_with_flush"),
			fss_jcount(d, "syncs_no_flush"), fw,
			fss_jcount(d, "device_flush_ns") / 1e9);
		if (wc && !strcmp(wc, "write through"))
			fprintf(f, "  %s is write through: the kernel elides its flushes\n",
				str_or(d, "disk", ""));
	}
	if (fss_jcount(fl, "flushes"))
		fprintf(f, "all devices: %llu flushes served %llu syncs (%.2f syncs per flush)\n",
			fss_jcount(fl, "flushes"), fss_jcount(fl, "flush_sync_refs"),
			json_object_get_double(fss_j(fl, "syncs_per_flush")));
	else
		fprintf(f, "all devices: no cache flush request attributed to a sync\n");
	fprintf(f, "FUA writes %llu native, %llu emulated; %llu PREFLUSH requests\n",
		fss_jcount(fl, "fua_writes"), fss_jcount(fl, "fua_emulated"),
		fss_jcount(fl, "preflush"));
}

static void print_journal(FILE *f, struct json_object *doc)
{
	struct json_object *j;

	fprintf(f, "\nJOURNAL (jbd2 commits by kernel threads, on the devices above)\n");
	each(fss_j(doc, "journal"), i, j) {
		if (!i)
			fprintf(f, "%-9s %7s %7s %8s %7s %7s %7s %8s\n", "FS_DEV", "COMMITS",
				"ASKED", "TOTAL_s", "P50_us", "P99_us", "MAX_us", "WAITERS");
		fprintf(f, "%-9s %7llu %7llu %8.3f", str_or(j, "dev", "?"),
			fss_jcount(j, "commits"), fss_jcount(j, "sync_commits"),
			fss_jcount(j, "total_ns") / 1e9);
		print_us(f, j, "p50_us");
		print_us(f, j, "p99_us");
		print_us(f, j, "max_us");
		fprintf(f, " %8llu\n", fss_jcount(j, "syncs_waited"));
	}
	/* each traced filesystem without a commit above: why, for its type */
	if (!fss_j(doc, "journal_traced") ||
	    !json_object_get_boolean(fss_j(doc, "journal_traced"))) {
		fprintf(f, "n/a: no jbd2 or xfs log tracepoint attached\n");
		return;
	}
	each(fss_j(doc, "journal_notes"), i, j) {
		const char *type = str_or(j, "fs", "");

		fprintf(f, "%s %s%s%s\n", str_or(j, "dev", "?"), type,
			type[0] ? ": " : "", str_or(j, "note", ""));
	}
}

/* BLAMED: who caused sync time in others; the traced syncs by cause */
static void print_blamed(FILE *f, struct json_object *doc)
{
	struct json_object *all = fss_j(doc, "all"), *ph = fss_j(all, "phases");
	struct json_object *b = fss_j(doc, "blame"), *x;
	double dev_s = 0;

	if (!b) {
		fprintf(f, "\nBLAMED: %s\n",
			fss_doc_blame_na(fss_jstr(doc, "blame_strategy"),
					 fss_jcount(fss_j(doc, "all"), "syncs") > 0));
		return;
	}
	fprintf(f, "\nBLAMED (sync time caused in other processes' syncs; "
		"top %zu of %llu)\n", len_of(fss_j(doc, "blamed")),
		fss_jcount(doc, "blamed_total"));
	fprintf(f, "%7s %-15s %-7s %8s %6s %3s %3s %3s %3s %s\n", "PID", "NAME",
		"FS_DEV", "CAUSED_s", "SYNCS", "jrn", "que", "dwr", "dfl", "CGROUP");
	each(fss_j(doc, "blamed"), i, x) {
		struct json_object *bp = fss_j(x, "by_phase");
		double tot = fss_jcount(x, "caused_ns");

		fprintf(f, "%7llu %-15.17s %-7.7s %8.3f %6llu", fss_jcount(x, "pid"),
			fss_cause_name(x), str_or(x, "dev", "?"), tot / 1e9,
			fss_jcount(x, "syncs"));
		for (int p = 1; p <= 4; p++) {	/* journal .. device_flush */
			char k[32];

			snprintf(k, sizeof(k), "%s_ns", fss_phase_name(p));
			fprintf(f, " %3.0f", tot ? 100.0 * fss_jcount(bp, k) / tot : 0.0);
		}
		fprintf(f, " %.13s\n", str_or(x, "cgroup", "n/a"));
	}
	for (int p = 1; p <= 4; p++)
		dev_s += fss_jcount(fss_j(ph, fss_phase_name(p)), "ns") / 1e9;
	fprintf(f, "sync time of the traced processes by cause: self %.3f s, "
		"others %.3f s,\n  unattributed %.3f s (of %.3f s in journal, "
		"queue and device)\n", fss_jcount(b, "self_ns") / 1e9,
		fss_jcount(b, "others_ns") / 1e9,
		fss_jcount(b, "unattributed_ns") / 1e9, dev_s);
}

/* an interval or the summary of trace, from its document */
int fss_text_trace(FILE *f, struct json_object *doc)
{
	if (!print_head(f, doc))
		return 0;
	fss_text_findings(f, doc);
	print_kinds(f, doc);
	print_procs_files(f, doc);
	print_devices(f, doc);
	print_journal(f, doc);
	print_blamed(f, doc);
	fss_text_db_sections(f, doc);	/* FILE CLASSES, CHECKPOINTS */
	return 0;
}

/* "; flush shared with 3 syncs (pid 812 x2, ...)": the coalesced syncs */
static void slower_coalesced(struct json_object *a, char *buf, size_t n,
			     size_t *len)
{
	struct json_object *c = NULL, *by, *x;
	size_t i, m;

	for (i = 0; i < fss_jlen(a) && !c; i++) {
		x = fss_jidx(a, i);
		if (!strcmp(fss_jstr(x, "phase") ?: "",
			    fss_phase_name(FSS_PH_DEV_FLUSH)))
			c = fss_j(fss_j(x, "evidence"), "coalesced");
	}
	if (!c || fss_jint(c, "syncs", 0) <= 0 || *len + 64 >= n)
		return;
	*len += snprintf(buf + *len, n - *len, "%sflush shared with %lld sync%s (",
			 *len ? "; " : "", fss_jint(c, "syncs", 0),
			 fss_jint(c, "syncs", 0) == 1 ? "" : "s");
	by = fss_j(c, "by");
	m = by ? fss_jlen(by) : 0;
	for (i = 0; i < m && i < 2 && *len + 40 < n; i++) {
		x = fss_jidx(by, i);
		*len += snprintf(buf + *len, n - *len, "%spid %lld x%lld",
				 i ? ", " : "", fss_jint(x, "pid", 0),
				 fss_jint(x, "syncs", 0));
	}
	*len += snprintf(buf + *len, n - *len, "%s)", m > 2 ? ", ..." : "");
	if (*len >= n)
		*len = n - 1;
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
	n = fss_jlen(a);
	for (size_t i = 0; i < n && shown < 3 && len < sizeof(buf) - 64; i++) {
		x = fss_jidx(a, i);
		if (json_object_object_get(x, "unattributed"))
			continue;
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s %.0f%% ",
				shown ? "; " : "", fss_jstr(x, "phase") ?: "?",
				json_object_get_double(json_object_object_get(
					x, "share")) * 100);
		if (json_object_get_boolean(json_object_object_get(x, "self")))
			len += snprintf(buf + len, sizeof(buf) - len, "self");
		else
			len += snprintf(buf + len, sizeof(buf) - len, "pid %lld %.17s",
					fss_jint(x, "pid", 0),
					fss_cause_name(x));
		shown++;
	}
	slower_coalesced(a, buf, sizeof(buf), &len);
	if (len)	/* 80 columns */
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
		    fss_jint(o, "pid", 0),
		    fss_jstr(o, "name") ?: fss_jstr(o, "comm") ?: "",
		    fss_jstr(o, "kind") ?: "?", fss_jint(o, "total_ns", 0) / 1e6);
	if (w + 2 + n <= 79)
		fprintf(f, "  %s\n", label);
	else if (n <= 77)
		fprintf(f, "\n  %s\n", label);
	else
		fprintf(f, "\n  ...%s\n", label + n - 74);
	fprintf(f, "        ");
	for (int p = 0; p < NPH; p++) {
		char k[32];

		snprintf(k, sizeof(k), "%s_ns", fss_phase_name(p));
		fprintf(f, " %s %.3f", fss_phase_abbr(p), fss_jint(o, k, 0) / 1e6);
	}
	if (ret < 0)
		fprintf(f, "  failed: %s", strerror(-ret));
	fprintf(f, "\n");
	slower_blame(f, o);
}

struct lines {
	struct json_object *a;	/* every record, in order */
	struct json_object *(*record)(struct json_object *);
};

static void line_add(struct json_object *o, void *arg)
{
	struct lines *l = arg;

	o = json_object_get(o);
	json_object_array_add(l->a, l->record ? l->record(o) : o);
}

/* one record as trace printed it (the start: the --slower header) */
static void print_line(FILE *f, struct json_object *o)
{
	const char *type = str_or(o, "type", "");

	if (!strcmp(type, "start") && fss_j(o, "slower_ms")) {
		fprintf(f, "TIME PID NAME KIND TOTAL FILE (on its own line when long)\n");
		fprintf(f, "%8s ms per phase: fs, journal, queue, device_write, "
			"device_flush, other\n", "");
	} else if (!strcmp(type, "sync")) {
		fss_text_trace_sync(f, o);
	} else if (!strcmp(type, "interval") || !strcmp(type, "summary")) {
		fss_text_trace(f, o);
	}
}

int fss_text_trace_lines(FILE *f, const char *path,
			 struct json_object *(*record)(struct json_object *))
{
	struct lines l = { json_object_new_array(), record };
	struct json_object *o;
	char e[512];

	/* one document (not a line each): not ours to render record by record */
	if (fss_events_each(path, NULL, line_add, &l, e, sizeof(e)) ||
	    len_of(l.a) < 2) {
		json_object_put(l.a);
		return 1;
	}
	each(l.a, i, o)
		print_line(f, o);
	json_object_put(l.a);
	return 0;
}
