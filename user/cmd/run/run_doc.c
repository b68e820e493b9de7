// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * run_doc.c - the result document of `fsyncscope run` (docs/run.md):
 * options, tests, sweep, verdict, findings; and the header the plain text
 * prints before the tests run (out_text_run.c renders the rest of the
 * document once it is complete: findings first, docs/findings.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <json-c/json.h>
#include "cmd/commands.h"
#include "lib/version.h"
#include "findings/findings.h"
#include "doc/doc.h"
#include "cmd/run/run_int.h"
#include "engine/tracer/tracer.h"

/* The header, rendered from the document's first parts. */
void run_print_header(struct ctx *c)
{
	struct json_object *d = json_object_new_object();

	json_object_object_add(d, "version", json_object_new_string(FSS_VERSION));
	json_object_object_add(d, "target", fss_target_info_json(&c->ti));
	json_object_object_add(d, "options", run_options_json(c->o));
	fss_text_run_header(stdout, d);
	json_object_put(d);
	fflush(stdout);
}

struct json_object *run_options_json(const struct run_opts *o)
{
	struct json_object *j = json_object_new_object();

	json_object_object_add(j, "mode", json_object_new_string(
		o->nsweep ? "sweep" : o->custom ? "custom" : "suite"));
	json_object_object_add(j, "seconds", o->wl.count ? NULL : fss_json_num(o->wl.seconds, 3));
	json_object_object_add(j, "count", o->wl.count ?
			       json_object_new_int64((int64_t)o->wl.count) : NULL);
	json_object_object_add(j, "trace", json_object_new_boolean(!o->wl.no_trace));
	/* who paints: kernel when asked and it can (run.c tracer_start) */
	json_object_object_add(j, "painter", o->wl.no_trace ? NULL :
			       json_object_new_string(o->kernel_paint ?
						      "kernel" : "user"));
	json_object_object_add(j, "file", o->file ? json_object_new_string(o->file) : NULL);
	json_object_object_add(j, "force", json_object_new_boolean(o->force));
	if (o->custom) {
		const struct fss_cli_shape *sh = &o->shape;
		struct json_object *sw = NULL;

		json_object_object_add(j, "method", json_object_new_string(
					fss_method_name(sh->methods[0])));
		json_object_object_add(j, "bs", json_object_new_int64((int64_t)o->wl.bs));
		json_object_object_add(j, "direct",
				       json_object_new_boolean(sh->direct));
		json_object_object_add(j, "writes_per_sync", json_object_new_int(o->wl.wps));
		json_object_object_add(j, "jobs", json_object_new_int(o->wl.jobs));
		json_object_object_add(j, "shared_file", json_object_new_boolean(o->shared));
		json_object_object_add(j, "pattern", json_object_new_string(
					fss_pattern_name(sh->pattern)));
		json_object_object_add(j, "file_size",
				       sh->pattern == FSS_PAT_APPEND ? NULL :
				       json_object_new_int64((int64_t)o->wl.file_size));
		if (o->nsweep) {
			sw = json_object_new_array();
			for (int i = 0; i < o->nsweep; i++)
				json_object_array_add(sw, json_object_new_int(o->sweep[i]));
		}
		json_object_object_add(j, "sweep_jobs", o->sweep_iodepth ?
				       NULL : sw);
		json_object_object_add(j, "sweep_iodepth", o->sweep_iodepth ?
				       sw : NULL);
		json_object_object_add(j, "ioengine", json_object_new_string(
				       o->uring ? "io_uring" : "sync"));
		json_object_object_add(j, "sync_batch", !o->uring ? NULL :
				       json_object_new_string(
				       fss_sync_batch_name(o->sync_batch)));
		json_object_object_add(j, "iodepth", o->uring &&
				       !(o->nsweep && o->sweep_iodepth) ?
				       json_object_new_int((int)o->iodepth) : NULL);
	}
	return j;
}

/* The level with the fewest ops asked in flight that ran: the base. */
static int sweep_base(const struct sweep_row *rows, int n)
{
	int base = -1;

	for (int k = 0; k < n; k++)
		if (rows[k].r->res.status == FSS_WL_OK &&
		    (base < 0 || rows[k].jobs * rows[k].iodepth <
				 rows[base].jobs * rows[base].iodepth))
			base = k;
	return base;
}

/*
 * Little's law at level i: L = IOPS x mean latency (the ops in flight
 * on average, to hold against the jobs x depth asked), the speedup over
 * the base, the naive capacity 1 / (the base's mean latency) and IOPS
 * against it.  NAN where n/a.
 */
struct little_pt {
	double conc, speedup, naive, vs_naive;
};

static void sweep_stats(const struct sweep_row *rows, int n, int i,
			struct little_pt *p)
{
	const struct fss_wl_result *b, *x = &rows[i].r->res;
	int base = sweep_base(rows, n);

	p->naive = p->speedup = p->vs_naive = p->conc = NAN;
	if (x->status != FSS_WL_OK)
		return;
	p->conc = x->ops_per_sec * x->lat.mean / 1e6;
	if (base < 0)
		return;
	b = &rows[base].r->res;
	if (b->ops_per_sec > 0)
		p->speedup = x->ops_per_sec / b->ops_per_sec;
	if (b->lat.mean > 0) {
		p->naive = 1e6 / b->lat.mean;
		p->vs_naive = x->ops_per_sec / p->naive;
	}
}

#define ADD(o, k, v)	json_object_object_add(o, k, v)

/* The latency columns of a level (mean, p50, p99 in us; null if n/a). */
static void lat_cols(struct json_object *o, const struct fss_wl_result *x)
{
	bool ok = x->status == FSS_WL_OK;

	ADD(o, "ops_per_sec", ok ? fss_json_num(x->ops_per_sec, 3) : NULL);
	ADD(o, "mean_us", ok ? fss_json_num(x->lat.mean, 3) : NULL);
	ADD(o, "p50_us", ok ? fss_json_num(x->lat.p50, 3) : NULL);
	ADD(o, "p99_us", ok ? fss_json_num(x->lat.p99, 3) : NULL);
}

struct json_object *run_sweep_json(const struct sweep_row *rows, int n)
{
	struct json_object *arr = json_object_new_array();
	int base = sweep_base(rows, n);
	struct little_pt p;

	for (int i = 0; i < n; i++) {
		const struct fss_wl_result *x = &rows[i].r->res;
		struct json_object *o = json_object_new_object();
		bool ok = x->status == FSS_WL_OK;

		sweep_stats(rows, n, i, &p);
		ADD(o, "jobs", json_object_new_int(rows[i].jobs));
		ADD(o, "iodepth", json_object_new_int(rows[i].iodepth));
		ADD(o, "concurrency", json_object_new_int(rows[i].jobs *
							  rows[i].iodepth));
		ADD(o, "name", json_object_new_string(rows[i].r->name));
		ADD(o, "status", json_object_new_string(ok ? "ok" : "n/a"));
		lat_cols(o, x);
		ADD(o, "littles_law_concurrency", fss_json_num(p.conc, 3));
		ADD(o, "concurrency_per_job", fss_json_num(p.conc / rows[i].jobs,
							   3));
		ADD(o, "base_jobs", base >= 0 ?
		    json_object_new_int(rows[base].jobs) : NULL);
		ADD(o, "base_concurrency", base >= 0 ?
		    json_object_new_int(rows[base].jobs * rows[base].iodepth) :
		    NULL);
		ADD(o, "speedup", fss_json_num(p.speedup, 3));
		ADD(o, "naive_iops", fss_json_num(p.naive, 3));
		ADD(o, "vs_naive", fss_json_num(p.vs_naive, 3));
		json_object_array_add(arr, o);
	}
	return arr;
}

/*
 * The sweep as the seed's figures see it (docs/run.md "Little's law"):
 * one point per level with the concurrency asked (jobs x depth), IOPS,
 * mean / p50 / p99, L = IOPS x mean latency, the IOPS Little's law
 * gives for that concurrency at that latency, and 1 / latency, the
 * naive capacity; the base's 1 / latency as the naive line.
 */
struct json_object *run_little_json(const struct run_opts *opt,
				    const struct sweep_row *rows, int n)
{
	struct json_object *o = json_object_new_object();
	struct json_object *pts = json_object_new_array();
	int base = sweep_base(rows, n);
	struct little_pt p;

	ADD(o, "axis", json_object_new_string(opt->sweep_iodepth ? "iodepth" :
					      "jobs"));
	ADD(o, "ioengine", json_object_new_string(opt->uring ? "io_uring" :
						  "sync"));
	ADD(o, "base_level", base < 0 ? NULL : json_object_new_int(
		opt->sweep_iodepth ? rows[base].iodepth : rows[base].jobs));
	ADD(o, "base_concurrency", base < 0 ? NULL :
	    json_object_new_int(rows[base].jobs * rows[base].iodepth));
	ADD(o, "base_mean_us", base < 0 ? NULL :
	    fss_json_num(rows[base].r->res.lat.mean, 3));
	sweep_stats(rows, n, base < 0 ? 0 : base, &p);
	ADD(o, "naive_capacity", fss_json_num(p.naive, 3));
	for (int i = 0; i < n; i++) {
		const struct fss_wl_result *x = &rows[i].r->res;
		struct json_object *q = json_object_new_object();
		unsigned int conc = rows[i].jobs * rows[i].iodepth;
		bool ok = x->status == FSS_WL_OK && x->lat.mean > 0;

		sweep_stats(rows, n, i, &p);
		ADD(q, "level", json_object_new_int(opt->sweep_iodepth ?
						    rows[i].iodepth :
						    rows[i].jobs));
		ADD(q, "jobs", json_object_new_int(rows[i].jobs));
		ADD(q, "iodepth", json_object_new_int(rows[i].iodepth));
		ADD(q, "concurrency", json_object_new_int(conc));
		ADD(q, "name", json_object_new_string(rows[i].r->name));
		ADD(q, "status", json_object_new_string(
		    x->status == FSS_WL_OK ? "ok" : "n/a"));
		lat_cols(q, x);
		ADD(q, "L", fss_json_num(p.conc, 3));
		ADD(q, "little_iops", ok ? fss_json_num(conc * 1e6 /
							x->lat.mean, 3) : NULL);
		ADD(q, "naive_capacity", ok ? fss_json_num(1e6 / x->lat.mean,
							   3) : NULL);
		ADD(q, "speedup", fss_json_num(p.speedup, 3));
		ADD(q, "vs_naive", fss_json_num(p.vs_naive, 3));
		json_object_array_add(pts, q);
	}
	ADD(o, "points", pts);
	return o;
}

/* Facts of a device that could not be read: all unknown. */
static void dev_unknown(struct fss_devinfo *d, const char *name)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->write_cache = d->fua = -1;
	d->nvme_vwc_present = d->nvme_vwc_enabled = -1;
}

/*
 * The disk the syncs went to: --file's whole disk when it names a block
 * device, else the whole disk under DIR.  None (rv->have false, rv->why)
 * when DIR's filesystem has no block device.
 */
void run_verdict_get(struct ctx *c, struct run_verdict *rv)
{
	const struct fss_target *t = &c->ti.t;
	struct stat st;

	memset(rv, 0, sizeof(*rv));
	rv->idx = -1;
	if (c->o->file && !stat(c->o->file, &st) && S_ISBLK(st.st_mode)) {
		char parent[sizeof(rv->dev.parent)];

		if (fss_devinfo_read(c->o->file, &rv->dev)) {
			dev_unknown(&rv->dev, c->o->file);
		} else if (rv->dev.is_partition && rv->dev.parent[0]) {
			snprintf(parent, sizeof(parent), "%s", rv->dev.parent);
			if (fss_devinfo_read(parent, &rv->dev))
				dev_unknown(&rv->dev, parent);
		}
	} else if (!t->has_disk || !t->disk[0]) {
		snprintf(rv->why, sizeof(rv->why), "%s is on %s, not on a block "
			 "device: there is no device cache to judge", t->path,
			 t->fstype[0] ? t->fstype : "a filesystem");
		return;
	} else if (c->ti.dev_ok) {
		rv->dev = c->ti.dev;
	} else {
		dev_unknown(&rv->dev, t->disk);
	}
	rv->idx = fss_run_verdict_test(c->tests, c->ntests);
	fss_run_verdict(&rv->dev, NULL, c->tests, rv->idx, &rv->v);
	rv->have = true;
}

/* The result document of the run (docs/run.md). */
struct json_object *run_doc(struct ctx *c, __u64 drops,
			    const struct sweep_row *rows, int nrows,
			    const struct run_verdict *rv)
{
	struct json_object *doc = json_object_new_object(), *tests;

	fss_doc_stamp(doc, "run");
	json_object_object_add(doc, "host", fss_run_host_json());
	json_object_object_add(doc, "target", fss_target_info_json(&c->ti));
	json_object_object_add(doc, "options", run_options_json(c->o));
	json_object_object_add(doc, "strategy", c->tr ?
			       fss_tracer_strategy_json(c->tr) : NULL);
	json_object_object_add(doc, "drops", c->tr ?
			       json_object_new_int64((int64_t)drops) : NULL);
	tests = json_object_new_array();
	for (int i = 0; i < c->ntests; i++)
		if (c->tests[i].ran)
			json_object_array_add(tests, fss_run_test_json(&c->tests[i],
					rv->have ? rv->dev.write_cache : -1));
	json_object_object_add(doc, "tests", tests);
	if (c->o->nsweep) {
		json_object_object_add(doc, "sweep", run_sweep_json(rows, nrows));
		json_object_object_add(doc, "little",
				       run_little_json(c->o, rows, nrows));
	}
	json_object_object_add(doc, "verdict", rv->have ?
			       fss_run_verdict_json(&rv->v, &rv->dev, c->tests,
						    rv->idx) : NULL);
	json_object_object_add(doc, "verdict_reason", rv->have ? NULL :
			       json_object_new_string(rv->why));
	json_object_object_add(doc, "interrupted", fss_run_interrupted_json());
	return fss_findings_attach(doc);	/* first in the document */
}
