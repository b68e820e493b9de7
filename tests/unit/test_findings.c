// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * test_findings.c - every rule of the findings engine (user/findings/,
 * docs/findings.md) on synthetic run and trace documents: it fires at its
 * threshold and not just below it, with the evidence quoting the
 * document's numbers; the healthy line; the order, the merge of one rule
 * over many tests, the attach (findings first, versioned) and the text.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "doc/doc.h"
#include "findings/findings.h"
#include "render/render.h"
#include "tap.h"

/* A run test's knobs (shares of fs..other; NAN: the default). */
struct rt {
	const char *name;
	int syncs;
	double share[6];
	double flush_p50;
	int no_flush, elided, incomplete;
	const char *blame;	/* the test's "blame" JSON, or NULL */
	double total_mean;	/* breakdown_total.mean_us; 0: 1000 */
	int wps;		/* writes of 8 KiB per sync; 0: 4 */
	int sfr;		/* of syncs, sync_file_range calls */
};

static const char *const ph[6] = { "fs", "journal", "queue", "device_write",
				   "device_flush", "other" };

static void test_json(char *b, size_t n, const struct rt *t)
{
	size_t len = snprintf(b, n, "{\"name\":\"%s\",\"status\":\"ok\","
			      "\"bs\":8192,\"writes_per_sync\":%d,"
			      "\"syncs_traced\":%d,\"syncs_incomplete\":%d,"
			      "\"incomplete_rqs\":3,\"breakdown\":{",
			      t->name ? t->name : "custom.fdatasync",
			      t->wps ? t->wps : 4, t->syncs,
			      t->incomplete);

	for (int p = 0; p < 6; p++)
		len += snprintf(b + len, n - len, "%s\"%s\":{\"mean_us\":%g,"
				"\"p50_us\":%g,\"p99_us\":1,\"share\":%g}",
				p ? "," : "", ph[p], 1000 * t->share[p],
				p == 4 ? t->flush_p50 : 1000 * t->share[p],
				t->share[p]);
	snprintf(b + len, n - len, "},\"breakdown_total\":{\"mean_us\":%g,"
		 "\"p50_us\":900},\"flush\":{\"flushes_per_sync\":1,"
		 "\"syncs_no_flush\":%d,\"elided\":%d},\"blame\":%s,"
		 "\"syncs_by_kind\":{\"sync_file_range\":%d}}",
		 t->total_mean > 0 ? t->total_mean : 1000, t->no_flush,
		 t->elided, t->blame ? t->blame : "null", t->sfr);
}

/* A run document: target facts, drops, strategy layers, tests. */
static struct json_object *run_doc(const char *disk, const char *cache,
				   const char *mopts, int drops,
				   const char *layers, const struct rt *t, int nt)
{
	char *b = malloc(1 << 16);
	size_t len;
	struct json_object *d;

	len = snprintf(b, 1 << 16, "{\"schema\":\"fsyncscope/run\","
		       "\"schema_version\":1,\"version\":\"x\",\"target\":{"
		       "\"fstype\":\"ext4\",\"disk\":\"%s\",\"write_cache\":"
		       "\"%s\",\"mount_options\":\"%s\"},\"options\":{\"trace\":"
		       "true},\"drops\":%d,\"strategy\":{\"layers\":%s},"
		       "\"tests\":[", disk, cache, mopts, drops,
		       layers ? layers : "null");
	for (int i = 0; i < nt; i++) {
		if (i)
			b[len++] = ',';
		test_json(b + len, (1 << 16) - len, &t[i]);
		len += strlen(b + len);
	}
	snprintf(b + len, (1 << 16) - len, "]}");
	d = json_tokener_parse(b);
	CHECK(d != NULL, "bad synthetic run document: %s", b);
	free(b);
	return d;
}

/* One test, write-back sda, nothing else special. */
static struct rt base(void)
{
	struct rt t = { .syncs = 100, .share = { 0.1, 0.05, 0.05, 0.3, 0.3, 0.2 },
			.flush_p50 = 300 };
	return t;
}

static struct json_object *run1(const struct rt *t)
{
	return run_doc("sda", "write back", "rw,relatime", 0, NULL, t, 1);
}

static struct json_object *get(struct json_object *a, const char *id)
{
	for (size_t i = 0; a && i < json_object_array_length(a); i++) {
		struct json_object *x = json_object_array_get_idx(a, i);

		if (!strcmp(fss_jstr(x, "id") ?: "", id))
			return x;
	}
	return NULL;
}

static const char *sev(struct json_object *a, const char *id)
{
	struct json_object *x = get(a, id);

	return x ? fss_jstr(x, "severity") : "none";
}

static bool any_warning(struct json_object *a)
{
	for (size_t i = 0; a && i < json_object_array_length(a); i++)
		if (strcmp(fss_jstr(json_object_array_get_idx(a, i),
				    "severity") ?: "", "info"))
			return true;
	return false;
}

/* findings of doc (doc put) */
static struct json_object *F(struct json_object *doc)
{
	struct json_object *a = fss_findings(doc);

	json_object_put(doc);
	return a;
}

static void test_healthy(void)
{
	struct rt t = base();
	struct json_object *a = F(run1(&t)), *d;
	char *txt = NULL;
	size_t n = 0;
	FILE *m;

	CHECK_EQ(json_object_array_length(a), 1);
	CHECK(!strcmp(sev(a, "healthy"), "info"), "healthy: %s", sev(a, "healthy"));
	HAS(fss_jstr(get(a, "healthy"), "title"), "No problem found in 100 traced syncs");
	CHECK(!any_warning(a), "a warning on a healthy run");
	json_object_put(a);
	/* the text: one line */
	d = fss_findings_attach(run1(&t));
	m = open_memstream(&txt, &n);
	fss_text_findings(m, d);
	fclose(m);
	CHECK(!strcmp(txt, "FINDINGS: No problem found in 100 traced syncs.\n"),
	      "text: '%s'", txt);
	free(txt);
	json_object_put(d);
	/* nothing traced: says so, claims no health */
	t.syncs = 0;
	a = F(run1(&t));
	CHECK(get(a, "healthy") == NULL, "healthy without syncs");
	CHECK(!strcmp(sev(a, "nothing_traced"), "info"), "nothing_traced");
	json_object_put(a);
}

/* phase p at share v (the rest in device_write): does id fire? */
static const char *phase_at(int p, double v, int syncs, const char *id)
{
	static char out[16];
	struct rt t = { .syncs = syncs, .flush_p50 = 10 };
	struct json_object *a;

	t.share[p] = v;
	t.share[3] = 1 - v;
	a = F(run1(&t));
	snprintf(out, sizeof(out), "%s", sev(a, id));
	json_object_put(a);
	return out;
}

static void test_phase_bounds(void)
{
	static const struct { int p; double th; const char *id; } r[] = {
		{ 1, FSS_FIND_JOURNAL_SHARE, "journal_bound" },
		{ 2, FSS_FIND_QUEUE_SHARE, "queue_bound" },
		{ 0, FSS_FIND_FS_SHARE, "fs_bound" },
		{ 5, FSS_FIND_OTHER_SHARE, "other_bound" },
	};

	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		CHECK(!strcmp(phase_at(r[i].p, r[i].th, 100, r[i].id), "warning"),
		      "%s at %g", r[i].id, r[i].th);
		CHECK(!strcmp(phase_at(r[i].p, r[i].th - 0.001, 100, r[i].id),
			      "none"), "%s below %g", r[i].id, r[i].th);
		CHECK(!strcmp(phase_at(r[i].p, 0.9, FSS_FIND_MIN_SYNCS - 1,
				       r[i].id), "none"),
		      "%s on %d syncs", r[i].id, FSS_FIND_MIN_SYNCS - 1);
	}
}

/* syncs faster than FSS_FIND_SLOW_MEAN_US: where the time goes, no warning */
static void test_phase_fast(void)
{
	struct rt t = { .syncs = 100, .share = { 0.9, 0, 0, 0.1, 0, 0 },
			.total_mean = FSS_FIND_SLOW_MEAN_US };
	struct json_object *a = F(run1(&t));

	CHECK(!strcmp(sev(a, "fs_bound"), "warning"), "at the line");
	json_object_put(a);
	t.total_mean = FSS_FIND_SLOW_MEAN_US - 0.1;
	a = F(run1(&t));
	CHECK(!strcmp(sev(a, "fs_bound"), "info"), "below: %s", sev(a, "fs_bound"));
	CHECK(get(a, "healthy") != NULL, "fast syncs are healthy");
	json_object_put(a);
}

static void test_phase_evidence(void)
{
	struct rt t = { .syncs = 100, .share = { 0.6, 0, 0, 0.4, 0, 0 } };
	struct json_object *a = F(run1(&t)), *x = get(a, "fs_bound");
	const char *e = fss_jstr(x, "evidence");

	HAS(e, "fs was 60.0 % of the sync time of test custom.fdatasync");
	HAS(e, "600 us per sync of a 1.00 ms mean, over 100 syncs");
	HAS(e, "writes back 32768 bytes (4 x 8192)");
	HAS(fss_jstr(x, "advice"), "the filesystem's own work");	/* 32 KiB */
	json_object_put(a);
	t.name = "big";		/* 8 KiB x 32: a big sync */
	t.wps = 32;
	a = F(run1(&t));
	x = get(a, "fs_bound");
	HAS(fss_jstr(x, "advice"), "sync_file_range");
	CHECK_DBL(fss_jnum(fss_j(x, "figures"), "share"), 0.6);
	HAS(json_object_get_string(json_object_array_get_idx(fss_j(x, "refs"), 0)),
	    "docs/findings.md#fs_bound");
	json_object_put(a);
}

static const char *flush_at(const char *disk, double share, double p50)
{
	static char out[16];
	struct rt t = { .syncs = 100, .flush_p50 = p50 };
	struct json_object *a;

	t.share[4] = share;
	t.share[3] = 1 - share;
	a = F(run_doc(disk, "write back", "rw", 0, NULL, &t, 1));
	snprintf(out, sizeof(out), "%s", sev(a, "slow_flush"));
	json_object_put(a);
	return out;
}

static void test_slow_flush(void)
{
	struct rt t = { .syncs = 100, .share = { 0, 0, 0, 0.2, 0.8, 0 },
			.flush_p50 = 1600 };
	struct json_object *a;
	const char *e;

	CHECK(!strcmp(flush_at("nvme0n1", FSS_FIND_FLUSH_SHARE,
			       FSS_FIND_FLUSH_FAST_US), "warning"), "at both lines");
	CHECK(!strcmp(flush_at("nvme0n1", FSS_FIND_FLUSH_SHARE - 0.001, 500),
		      "none"), "share below");
	CHECK(!strcmp(flush_at("nvme0n1", 0.9, FSS_FIND_FLUSH_FAST_US - 0.1),
		      "none"), "a PLP-fast flush");
	CHECK(!strcmp(flush_at("loop3", 0.9, 500), "info"), "loop: info");
	a = F(run_doc("nvme0n1", "write back", "rw", 0, NULL, &t, 1));
	e = fss_jstr(get(a, "slow_flush"), "evidence");
	HAS(e, "device_flush was 80.0 %");
	HAS(e, "A flush costs 1.60 ms per sync (p50), against 50 us");
	HAS(fss_jstr(get(a, "slow_flush"), "advice"), "power-loss protection");
	json_object_put(a);
}

static const char *noflush_at(const char *cache, int no_flush, int elided,
			      const char *mopts, char *ev, size_t evn)
{
	static char out[16];
	struct rt t = base();
	struct json_object *a;

	t.no_flush = no_flush;
	t.elided = elided;
	a = F(run_doc("loop0", cache, mopts, 0, NULL, &t, 1));
	snprintf(out, sizeof(out), "%s", sev(a, "no_flush"));
	if (ev)
		snprintf(ev, evn, "%s", fss_jstr(get(a, "no_flush"), "evidence") ?: "");
	json_object_put(a);
	return out;
}

static void test_no_flush(void)
{
	char ev[1400];
	struct json_object *a, *d;

	/* 100 syncs: 10 % is the line */
	CHECK(!strcmp(noflush_at("write back", 10, 0, "rw,barrier=0", ev,
				 sizeof(ev)), "critical"), "10 of 100");
	HAS(ev, "10 of 100 syncs of test custom.fdatasync saw no flush");
	HAS(ev, "mounted with barrier=0");
	CHECK(!strcmp(noflush_at("write back", 9, 0, "rw", NULL, 0), "none"), "9");
	CHECK(!strcmp(noflush_at("write through", 100, 0, "rw", NULL, 0), "none"),
	      "write through: nothing to flush");
	CHECK(!strcmp(noflush_at("write back", 100, 100, "rw", NULL, 0), "none"),
	      "elided");
	/* a trace record: per device */
	d = json_tokener_parse("{\"schema\":\"fsyncscope/trace\",\"schema_version\":1,"
		"\"type\":\"summary\",\"events_lost\":0,\"all\":{\"syncs\":50},"
		"\"devices\":[{\"dev\":\"7:0\",\"fs\":\"ext4\",\"disk\":\"loop0\","
		"\"write_cache\":\"write back\",\"flush_elided\":false,"
		"\"syncs\":50,\"syncs_no_flush\":50}]}");
	a = F(d);
	CHECK(!strcmp(sev(a, "no_flush"), "critical"), "trace: %s", sev(a, "no_flush"));
	HAS(fss_jstr(get(a, "no_flush"), "subject"), "syncs on loop0 (7:0)");
	/* critical first */
	CHECK(!strcmp(fss_jstr(json_object_array_get_idx(a, 0), "id"), "no_flush"),
	      "not first");
	json_object_put(a);
}

static const char *neigh_run(double other_ns, const char *cg, char *adv,
			     size_t n)
{
	static char out[16];
	char blame[512];
	struct rt t = base();
	struct json_object *a;

	snprintf(blame, sizeof(blame), "{\"syncs\":100,\"self_ns\":%.0f,"
		 "\"others_ns\":%.0f,\"unattributed_ns\":0,\"others\":[{\"pid\":"
		 "4242,\"comm\":\"bigwriter\",\"cgroup_id\":7,\"cgroup\":%s,"
		 "\"blamed_ns\":%.0f}]}", 1e9 - other_ns, other_ns, cg, other_ns);
	t.blame = blame;
	a = F(run1(&t));
	snprintf(out, sizeof(out), "%s", sev(a, "neighbour"));
	if (adv)
		snprintf(adv, n, "%s | %s", fss_jstr(get(a, "neighbour"), "evidence") ?: "",
			 fss_jstr(get(a, "neighbour"), "advice") ?: "");
	json_object_put(a);
	return out;
}

static void test_neighbour_run(void)
{
	char s[3000];

	CHECK(!strcmp(neigh_run(FSS_FIND_NEIGHBOUR_SHARE * 1e9, "\"/\"", s,
				sizeof(s)), "warning"), "at the line");
	HAS(s, "pid 4242 bigwriter (cgroup /) caused 200.00 ms of the 1.000 s");
	HAS(s, "(20.0 %)");
	HAS(s, "systemd-run --scope");
	HAS(s, "ionice -c3 -p 4242");
	CHECK(!strcmp(neigh_run(FSS_FIND_NEIGHBOUR_SHARE * 1e9 - 1e6, "\"/\"",
				NULL, 0), "none"), "below the line");
	neigh_run(5e8, "\"/batch.slice/backup\"", s, sizeof(s));
	HAS(s, "cap its cgroup /batch.slice/backup with io.max");
	LACKS(s, "systemd-run");
}

/* A trace summary: all syncs, the blame totals, a blamed neighbour, and
 * (when own_ns > 0) the neighbour traced too with own_ns of blamed time. */
static struct json_object *trace_doc(double caused, double own_ns,
				     const char *extra)
{
	char b[4096];

	snprintf(b, sizeof(b), "{\"schema\":\"fsyncscope/trace\","
		 "\"schema_version\":1,\"type\":\"summary\",\"events_lost\":0,"
		 "\"all\":{\"syncs\":400,\"mean_us\":2500,\"p50_us\":2000,"
		 "\"phases\":{\"device_flush\":{\"mean_us\":1000,\"share\":0.4},"
		 "\"device_write\":{\"mean_us\":1500,\"share\":0.6}}},"
		 "\"blame\":{\"self_ns\":%.0f,\"others_ns\":%.0f,"
		 "\"unattributed_ns\":0},\"processes\":[{\"pid\":9,\"blame\":"
		 "{\"self_ns\":%.0f,\"others_ns\":0,\"unattributed_ns\":0}}],"
		 "\"blamed\":[{\"pid\":9,\"comm\":\"storm\",\"dev\":\"7:0\","
		 "\"cgroup\":\"/\",\"caused_ns\":%.0f,\"syncs\":33,\"by_phase\":"
		 "{\"journal_ns\":%.0f}}]%s}", 1e9 - caused, caused, own_ns,
		 caused, caused, extra ? extra : "");
	return json_tokener_parse(b);
}

static void test_neighbour_trace(void)
{
	struct json_object *a, *d;
	const char *e;

	a = F(trace_doc(2e8, 0, NULL));
	CHECK(!strcmp(sev(a, "neighbour"), "warning"), "at 20 %%");
	e = fss_jstr(get(a, "neighbour"), "evidence");
	HAS(e, "pid 9 storm (cgroup /) caused 200.00 ms of the 1.000 s");
	HAS(e, "In 33 syncs on 7:0: journal 200.00 ms (its metadata in the "
	    "journal commits waited for)");
	json_object_put(a);
	a = F(trace_doc(1.99e8, 0, NULL));
	CHECK(!strcmp(sev(a, "neighbour"), "none"), "below 20 %%");
	json_object_put(a);
	/* its own syncs (500 ms) left out: 150 / 500 ms = 30 % */
	a = F(trace_doc(1.5e8, 5e8, NULL));
	CHECK(!strcmp(sev(a, "neighbour"), "warning"), "own syncs left out");
	HAS(fss_jstr(get(a, "neighbour"), "evidence"), "left out of that total");
	CHECK_DBL(fss_jnum(fss_j(get(a, "neighbour"), "figures"), "share"), 0.3);
	json_object_put(a);
	/* fsyncscope's own process ("tool") is never a neighbour */
	d = trace_doc(5e8, 0, NULL);
	json_object_object_add(json_object_array_get_idx(fss_j(d, "blamed"), 0),
			       "tool", json_object_new_boolean(1));
	a = F(d);
	CHECK(!strcmp(sev(a, "neighbour"), "none"), "the tool is no neighbour");
	json_object_put(a);
	/* a kernel thread's own I/O: an info kernel_worker, no ionice */
	d = trace_doc(5e8, 0, NULL);
	json_object_object_add(json_object_array_get_idx(fss_j(d, "blamed"), 0),
			       "kernel_thread", json_object_new_boolean(1));
	a = F(d);
	CHECK(!strcmp(sev(a, "neighbour"), "none"), "a kworker is no neighbour");
	CHECK(!strcmp(sev(a, "kernel_worker"), "info"), "kernel_worker, info");
	e = fss_jstr(get(a, "kernel_worker"), "advice");
	HAS(e, "ionice and cgroup limits do not apply");
	LACKS(e, "ionice -c3 -p");
	HAS(fss_jstr(get(a, "kernel_worker"), "title"),
	    "pid 9 storm did 50 % of their journal, queue and device time");
	json_object_put(a);
}

static void test_tool(void)
{
	struct rt t = base();
	struct json_object *a;

	a = F(run_doc("sda", "write back", "rw", 7, "{\"sync\":{\"hooks\":"
		      "\"tracepoint\"},\"journal\":{\"hooks\":null,\"detail\":"
		      "\"n/a: no jbd2\"}}", &t, 1));
	CHECK(!strcmp(sev(a, "events_lost"), "warning"), "drops");
	HAS(fss_jstr(get(a, "events_lost"), "title"), "7 trace events were lost");
	CHECK(!strcmp(sev(a, "layer_na"), "info"), "layer");
	HAS(fss_jstr(get(a, "layer_na"), "evidence"), "journal: n/a: no jbd2.");
	CHECK(get(a, "healthy") == NULL, "healthy with lost events");
	json_object_put(a);
	t.incomplete = 1;	/* 1 of 100: the line */
	a = F(run1(&t));
	CHECK(!strcmp(sev(a, "syncs_incomplete"), "info"), "1 %%");
	CHECK(get(a, "healthy") != NULL, "an info keeps it healthy");
	json_object_put(a);
	t.syncs = 101;
	a = F(run1(&t));
	CHECK(get(a, "syncs_incomplete") == NULL, "below 1 %%");
	json_object_put(a);
	a = F(json_tokener_parse("{\"schema\":\"fsyncscope/trace\","
		"\"schema_version\":1,\"type\":\"interval\",\"events_lost\":3,"
		"\"journal_traced\":false,\"all\":{\"syncs\":5}}"));
	CHECK(!strcmp(sev(a, "events_lost"), "warning"), "trace lost");
	CHECK(!strcmp(sev(a, "layer_na"), "info"), "trace journal");
	HAS(fss_jstr(get(a, "events_lost"), "evidence"), "are missing from");
	json_object_put(a);
	/* overload by design: the summarized syncs are said, not "missing" */
	a = F(json_tokener_parse("{\"schema\":\"fsyncscope/trace\","
		"\"schema_version\":1,\"type\":\"interval\",\"events_lost\":3,"
		"\"syncs_summarized\":40,\"all\":{\"syncs\":5}}"));
	HAS(fss_jstr(get(a, "events_lost"), "evidence"), "3 events of this "
	    "trace did not reach user space (ring buffer full). 40 syncs were "
	    "summarized in the kernel instead");
	LACKS(fss_jstr(get(a, "events_lost"), "evidence"), "are missing");
	CHECK_DBL(fss_jnum(fss_j(get(a, "events_lost"), "figures"),
			   "syncs_summarized"), 40);
	json_object_put(a);
}

static void test_checkpoints(void)
{
	/* all: 400 syncs x 2500 us = 1 s; a burst of 250 ms is 25 % */
	const char *c = ",\"checkpoints\":[{\"pid\":77,\"seconds\":0.4,"
		"\"files\":12,\"syncs\":300,\"total_ns\":%s,\"longest_us\":"
		"9000}]";
	char x[256];
	struct json_object *a;

	snprintf(x, sizeof(x), c, "250000000");
	a = F(trace_doc(0, 0, x));
	CHECK(!strcmp(sev(a, "checkpoint_burst"), "warning"), "25 %%");
	HAS(fss_jstr(get(a, "checkpoint_burst"), "evidence"),
	    "1 checkpoint made 300 syncs for 250.00 ms of the 1.000 s");
	HAS(fss_jstr(get(a, "checkpoint_burst"), "advice"),
	    "checkpoint_completion_target");
	json_object_put(a);
	snprintf(x, sizeof(x), c, "249000000");
	a = F(trace_doc(0, 0, x));
	CHECK(get(a, "checkpoint_burst") == NULL, "below 25 %%");
	json_object_put(a);
}

/* a trace summary whose database view has one class */
static const char *log_at(const char *cls, double share, double mean,
			  char *adv, size_t n)
{
	static char out[16];
	char x[512];
	struct json_object *a;

	snprintf(x, sizeof(x), ",\"classes\":[{\"class\":\"%s\",\"syncs\":"
		 "100,\"mean_us\":%g,\"p50_us\":1500,\"p99_us\":9000,"
		 "\"phases\":{\"device_flush\":{\"mean_us\":1000,\"share\":%g}}}]",
		 cls, mean, share);
	a = F(trace_doc(0, 0, x));
	snprintf(out, sizeof(out), "%s", sev(a, "log_flush"));
	if (adv)
		snprintf(adv, n, "%s | %s", fss_jstr(get(a, "log_flush"), "evidence") ?: "",
			 fss_jstr(get(a, "log_flush"), "advice") ?: "");
	json_object_put(a);
	return out;
}

static void test_log_flush(void)
{
	char s[2000];

	CHECK(!strcmp(log_at("pg_wal", FSS_FIND_FLUSH_SHARE,
			     FSS_FIND_SLOW_MEAN_US, s, sizeof(s)), "warning"),
	      "at both lines");
	HAS(s, "100 PostgreSQL WAL syncs: mean 100 us, p50 1.50 ms, p99 9.00 ms;"
	    " device_flush 50.0 % of their time (1.00 ms per sync)");
	HAS(s, "commit_delay");
	CHECK(!strcmp(log_at("pg_wal", FSS_FIND_FLUSH_SHARE - 0.001, 2000,
			     NULL, 0), "none"), "share below");
	CHECK(!strcmp(log_at("pg_wal", 0.9, FSS_FIND_SLOW_MEAN_US - 0.1,
			     NULL, 0), "none"), "fast syncs");
	CHECK(!strcmp(log_at("pg_relation", 0.9, 2000, NULL, 0), "none"),
	      "not a commit log");
	CHECK(!strcmp(log_at("innodb_redo", 0.9, 2000, s, sizeof(s)), "warning"),
	      "redo");
	HAS(s, "innodb_flush_log_at_trx_commit");
}

/* wal_serial of a trace record: syncs WAL syncs of total ns over sec s */
static const char *wal_at(int syncs, double ns, double sec, char *ev,
			  size_t n)
{
	static char out[16];
	char x[512];
	struct json_object *a;

	snprintf(x, sizeof(x), ",\"seconds\":%g,\"classes\":[{\"class\":"
		 "\"pg_wal\",\"syncs\":%d,\"total_ns\":%.0f,\"mean_us\":%g,"
		 "\"by_role\":{\"backend\":{\"syncs\":%d}}}]", sec, syncs, ns,
		 ns / syncs / 1e3, syncs - 3);
	a = F(trace_doc(0, 0, x));
	snprintf(out, sizeof(out), "%s", sev(a, "wal_serial"));
	if (ev)
		snprintf(ev, n, "%s | %s", fss_jstr(get(a, "wal_serial"),
			 "evidence") ?: "", fss_jstr(get(a, "wal_serial"),
			 "advice") ?: "");
	json_object_put(a);
	return out;
}

/* WAL syncs back to back: from half the wall time, not over 1.1 of it */
static void test_wal_serial(void)
{
	char s[2000];

	CHECK(!strcmp(wal_at(400, 2e9, 4, s, sizeof(s)), "warning"),
	      "at the line");
	HAS(s, "400 WAL syncs (397 of them by backends at commit) of 5.00 ms "
	    "on average took 2.00 s of the 4.00 s traced");
	HAS(s, "WALWriteLock");
	HAS(s, "commit_delay");
	CHECK(!strcmp(wal_at(400, 1.99e9, 4, NULL, 0), "none"), "below");
	CHECK(!strcmp(wal_at(19, 3.9e9, 4, NULL, 0), "none"), "few syncs");
	CHECK(!strcmp(wal_at(400, 4.4e9, 4, NULL, 0), "warning"), "1.1");
	CHECK(!strcmp(wal_at(400, 4.5e9, 4, NULL, 0), "none"),
	      "overlapping: not one server's");
}

/* MariaDB: InnoDB's sync time by class, the largest's advice */
static void test_innodb_split(void)
{
	const char *cls = ",\"classes\":[{\"class\":\"innodb_redo\","
		"\"syncs\":10,\"total_ns\":2e8},{\"class\":"
		"\"innodb_doublewrite\",\"syncs\":5,\"total_ns\":5e8},"
		"{\"class\":\"innodb_data\",\"syncs\":5,\"total_ns\":3e8}]";
	struct json_object *a = F(trace_doc(0, 0, cls)), *g;
	const char *e;

	CHECK(!strcmp(sev(a, "innodb_split"), "info"), "20 syncs: info");
	e = fss_jstr(get(a, "innodb_split"), "evidence");
	HAS(e, "20 InnoDB syncs took 1.000 s: redo 20.0 %, doublewrite "
	    "50.0 %, data 30.0 %, undo 0.0 %.");
	HAS(fss_jstr(get(a, "innodb_split"), "title"),
	    "InnoDB's sync time is 50 % doublewrite");
	HAS(fss_jstr(get(a, "innodb_split"), "advice"), "atomic 16 KiB");
	g = fss_j(get(a, "innodb_split"), "figures");
	CHECK_DBL(fss_jnum(g, "doublewrite_share"), 0.5);
	CHECK_DBL(fss_jnum(g, "redo_share") + fss_jnum(g, "data_share") +
		  fss_jnum(g, "doublewrite_share") +
		  fss_jnum(g, "undo_share"), 1.0);
	json_object_put(a);
	/* 19 syncs: too few; PostgreSQL only: none */
	a = F(trace_doc(0, 0, ",\"classes\":[{\"class\":\"innodb_redo\","
			"\"syncs\":19,\"total_ns\":2e8}]"));
	CHECK(!strcmp(sev(a, "innodb_split"), "none"), "19 syncs");
	json_object_put(a);
	a = F(trace_doc(0, 0, ",\"classes\":[{\"class\":\"pg_wal\","
			"\"syncs\":400,\"total_ns\":2e8}]"));
	CHECK(!strcmp(sev(a, "innodb_split"), "none"), "no InnoDB");
	json_object_put(a);
}

static void test_order_merge(void)
{
	struct rt t[3] = { base(), base(), base() };
	struct json_object *a;

	t[0].name = "a";	/* fs-bound 0.6 */
	t[0].share[0] = 0.6;
	t[0].share[3] = 0;
	t[1].name = "b";	/* fs-bound 0.7: the worst */
	t[1].share[0] = 0.7;
	t[1].share[3] = 0;
	t[2].name = "c";	/* no flush: critical */
	t[2].no_flush = 100;
	a = F(run_doc("sda", "write back", "rw", 0, NULL, t, 3));
	CHECK_EQ(json_object_array_length(a), 2);
	CHECK(!strcmp(fss_jstr(json_object_array_get_idx(a, 0), "id"), "no_flush"),
	      "critical first");
	CHECK(!strcmp(fss_jstr(get(a, "fs_bound"), "subject"), "test b"),
	      "the worst test");
	CHECK_EQ(fss_jint(get(a, "fs_bound"), "also_in", -1), 1);
	json_object_put(a);
}

static void test_attach(void)
{
	struct rt t = base();
	struct json_object *d = fss_findings_attach(run1(&t)), *dv;
	int i = 0;
	const char *want[] = { "schema", "schema_version", "findings_version",
			       "findings", "version" };

	json_object_object_foreach(d, k, v) {
		(void)v;
		if (i < 5)
			CHECK(!strcmp(k, want[i]), "key %d: %s", i, k);
		i++;
	}
	CHECK_EQ(fss_jint(d, "findings_version", 0), FSS_FINDINGS_VERSION);
	CHECK(fss_j(d, "tests") != NULL, "tests kept");
	json_object_put(d);
	dv = json_tokener_parse("{\"schema\":\"fsyncscope/devices\","
				"\"schema_version\":1}");
	CHECK(fss_findings(dv) == NULL, "devices: none");
	d = fss_findings_attach(dv);
	CHECK(d == dv && !fss_j(d, "findings"), "devices unchanged");
	json_object_put(d);
}

static void test_text(void)
{
	struct rt t = { .syncs = 100, .share = { 0, 0.3, 0, 0.7, 0, 0 } };
	struct json_object *d = fss_findings_attach(run1(&t));
	char *txt = NULL, *line;
	size_t n = 0;
	FILE *m = open_memstream(&txt, &n);

	fss_text_findings(m, d);
	fclose(m);
	HAS(txt, "FINDINGS (1, most important first; docs/findings.md)\n");
	HAS(txt, "  WARNING  Syncs wait for the journal: 30 % of their time");
	HAS(txt, "           evidence: journal was 30.0 %");
	HAS(txt, "           advice:   ");
	HAS(txt, "           see:      docs/findings.md#journal_bound");
	for (line = strtok(txt, "\n"); line; line = strtok(NULL, "\n"))
		CHECK(strlen(line) <= 80, "over 80 columns: '%s'", line);
	free(txt);
	json_object_put(d);
}

/* a trace summary: one write-back loop0, sfr of its syncs sync_file_range */
static struct json_object *sfr_trace(int syncs, int no_flush, int sfr,
				     double other)
{
	char b[1024];

	snprintf(b, sizeof(b), "{\"schema\":\"fsyncscope/trace\","
		 "\"schema_version\":1,\"type\":\"summary\",\"events_lost\":0,"
		 "\"all\":{\"syncs\":%d,\"mean_us\":1000,\"phases\":{"
		 "\"fs\":{\"share\":%g,\"mean_us\":1},\"other\":{\"share\":%g,"
		 "\"mean_us\":1}}},\"kinds\":[{\"kind\":\"sync_file_range\","
		 "\"syncs\":%d},{\"kind\":\"fsync\",\"syncs\":%d}],"
		 "\"devices\":[{\"dev\":\"7:0\",\"fs\":\"ext4\",\"disk\":"
		 "\"loop0\",\"write_cache\":\"write back\",\"flush_elided\":"
		 "false,\"syncs\":%d,\"syncs_no_flush\":%d,\"by_kind\":{"
		 "\"sync_file_range\":%d,\"fsync\":%d}}]}", syncs, 1 - other,
		 other, sfr, syncs - sfr, syncs, no_flush, sfr, syncs - sfr);
	return json_tokener_parse(b);
}

/*
 * sync_file_range starts writeback and never flushes, and no fs hook sees
 * it: its syncs are left out of no_flush, and other_bound does not fire
 * where they are most of the syncs (a PostgreSQL checkpoint's, measured:
 * 472 of 537 syncs without a flush, 467 of them sync_file_range).
 */
static void test_sync_file_range(void)
{
	struct rt t = base();
	struct json_object *a;
	const char *e;

	/* run: every sync a sync_file_range, none flushed, half other */
	t.name = "custom.sync_file_range";
	t.sfr = 100;
	t.no_flush = 100;
	t.share[0] = 0.3;
	t.share[5] = 0.5;
	t.share[3] = 0.2;
	t.share[1] = t.share[2] = t.share[4] = 0;
	a = F(run1(&t));
	CHECK(!strcmp(sev(a, "no_flush"), "none"), "run: %s", sev(a, "no_flush"));
	CHECK(!strcmp(sev(a, "other_bound"), "none"), "run other: %s",
	      sev(a, "other_bound"));
	json_object_put(a);
	/* the checkpoint as measured: 5 of 70 durable syncs, under 10 % */
	a = F(sfr_trace(537, 472, 467, 0.1));
	CHECK(!strcmp(sev(a, "no_flush"), "none"), "pg: %s", sev(a, "no_flush"));
	json_object_put(a);
	/* 10 of 100 durable ones is the line */
	a = F(sfr_trace(500, 410, 400, 0.1));
	CHECK(!strcmp(sev(a, "no_flush"), "critical"), "10 of 100: %s",
	      sev(a, "no_flush"));
	e = fss_jstr(get(a, "no_flush"), "evidence") ?: "";
	HAS(e, "10 of 100 syncs of syncs on loop0 (7:0) saw no flush");
	HAS(e, "400 sync_file_range calls, which never flush, are left out");
	json_object_put(a);
	a = F(sfr_trace(500, 409, 400, 0.1));
	CHECK(!strcmp(sev(a, "no_flush"), "none"), "9 of 100: %s",
	      sev(a, "no_flush"));
	json_object_put(a);
	/* other_bound: not when sync_file_range is half the syncs or more */
	a = F(sfr_trace(100, 0, 50, 0.5));
	CHECK(!strcmp(sev(a, "other_bound"), "none"), "sfr 50: %s",
	      sev(a, "other_bound"));
	json_object_put(a);
	a = F(sfr_trace(100, 0, 49, 0.5));
	CHECK(!strcmp(sev(a, "other_bound"), "warning"), "sfr 49: %s",
	      sev(a, "other_bound"));
	json_object_put(a);
}

static const struct tap_case cases[] = {
	{ "healthy", test_healthy },
	{ "phase_bounds", test_phase_bounds },
	{ "phase_fast", test_phase_fast },
	{ "phase_evidence", test_phase_evidence },
	{ "slow_flush", test_slow_flush },
	{ "no_flush", test_no_flush },
	{ "sync_file_range", test_sync_file_range },
	{ "neighbour_run", test_neighbour_run },
	{ "neighbour_trace", test_neighbour_trace },
	{ "tool", test_tool },
	{ "checkpoints", test_checkpoints },
	{ "log_flush", test_log_flush },
	{ "wal_serial", test_wal_serial },
	{ "innodb_split", test_innodb_split },
	{ "order_merge", test_order_merge },
	{ "attach", test_attach },
	{ "text", test_text },
};

TAP_MAIN(cases)
