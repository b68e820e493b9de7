// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * compare_doc.c - the result document of `compare` (schema
 * fsyncscope/compare, docs/compare.md): the head known before anything
 * runs (what the header is rendered from), one entry per filesystem as it
 * finishes, then every workload's results with their ratios to the first
 * filesystem.  Everything `compare` prints is rendered from it.
 */
#include <math.h>
#include <string.h>
#include <json-c/json.h>
#include "cmd/commands.h"
#include "cmd/compare/compare_int.h"
#include "doc/doc.h"

#define jnum	fss_json_num

static bool t_ok(const struct fss_run_test *t)
{
	return t->ran && t->res.status == FSS_WL_OK;
}

static bool t_traced(const struct fss_run_test *t)
{
	return t_ok(t) && t->traced && t->b.syncs > 0;
}

static double ratio(double v, double base)
{
	if (!isfinite(v) || !isfinite(base) || !(base > 0) || v < 0)
		return NAN;
	return v / base;
}

static struct json_object *ratios_json(const struct cmp_fs_run *r,
				       const struct fss_run_test *t,
				       const struct fss_run_test *base)
{
	struct json_object *o, *ph;

	if (!t_ok(t) || !t_ok(base))
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "ops_per_sec", jnum(ratio(t->res.ops_per_sec,
						base->res.ops_per_sec), 4));
	json_object_object_add(o, "p50_us", jnum(ratio(t->res.lat.p50,
						base->res.lat.p50), 4));
	json_object_object_add(o, "p99_us", jnum(ratio(t->res.lat.p99,
						base->res.lat.p99), 4));
	if (!t_traced(t) || !t_traced(base)) {
		json_object_object_add(o, "total_mean_us", NULL);
		json_object_object_add(o, "phases", NULL);
		return o;
	}
	json_object_object_add(o, "total_mean_us", jnum(ratio(t->b.total_mean_us,
						base->b.total_mean_us), 4));
	ph = json_object_new_object();
	for (int p = 0; p < FSS_PH_MAX; p++)
		json_object_object_add(ph, fss_phase_name(p),
			p == FSS_PH_JOURNAL && !cmp_fs_defs[r->kind].journal_traced ? NULL :
			jnum(ratio(t->b.phase[p].mean_us, base->b.phase[p].mean_us), 4));
	json_object_object_add(o, "phases", ph);
	return o;
}

/* One filesystem's result of one workload: the run test object + fs, ratios. */
static struct json_object *result_json(const struct cmp_fs_run *runs, int i, int wi)
{
	const struct cmp_fs_run *r = &runs[i];
	const struct fss_run_test *t = &r->tests[wi];
	struct json_object *o, *bd;
	char why[600];

	if (!t->ran) {
		o = json_object_new_object();
		json_object_object_add(o, "fs", json_object_new_string(cmp_fs_defs[r->kind].name));
		json_object_object_add(o, "label", json_object_new_string(r->label));
		json_object_object_add(o, "name", json_object_new_string(t->name));
		json_object_object_add(o, "status", json_object_new_string("n/a"));
		snprintf(why, sizeof(why), "not run: %.560s", r->status == CMP_FS_ERROR ?
			 r->error : "interrupted");
		json_object_object_add(o, "reason", json_object_new_string(why));
		return o;
	}
	o = fss_run_test_json(t, r->disk_ok ? r->disk.write_cache : -1);
	json_object_object_add(o, "fs", json_object_new_string(cmp_fs_defs[r->kind].name));
	json_object_object_add(o, "label", json_object_new_string(r->label));
	if (!cmp_fs_defs[r->kind].journal_traced &&
	    json_object_object_get_ex(o, "breakdown", &bd) && bd) {
		json_object_object_add(bd, "journal", NULL);
		json_object_object_add(o, "journal_reason",
				       json_object_new_string(cmp_fs_defs[r->kind].journal_what));
	}
	json_object_object_add(o, "ratio_to_first", ratios_json(r, t, &runs[0].tests[wi]));
	json_object_object_add(o, "rounds", cmp_rounds_json(r, wi));
	json_object_object_add(o, "spread", cmp_spread_json(r, wi));
	json_object_object_add(o, "confidence",
			       cmp_confidence_json(r, &runs[0], wi));
	return o;
}

/* --hist: each filesystem's histograms of workload wi, from its document */
static const char *status_name(enum cmp_fs_status s)
{
	switch (s) {
	case CMP_FS_OK: return "ok";
	case CMP_FS_INTERRUPTED: return "interrupted";
	case CMP_FS_ERROR: return "error";
	default: return "not_run";
	}
}

static struct json_object *fs_json(const struct cmp_opts *o,
				   const struct cmp_fs_run *r, int nwl)
{
	const struct cmp_fs_def *d = &cmp_fs_defs[r->kind];
	struct json_object *j = json_object_new_object(), *a = NULL;
	int done = 0;

	json_object_object_add(j, "fs", json_object_new_string(d->name));
	json_object_object_add(j, "label", json_object_new_string(r->label));
	json_object_object_add(j, "status", json_object_new_string(status_name(r->status)));
	json_object_object_add(j, "error", r->status == CMP_FS_ERROR ?
			       json_object_new_string(r->error) : NULL);
	if (r->mkfs_argc) {
		a = json_object_new_array();
		for (int i = 0; i < r->mkfs_argc; i++)
			json_object_array_add(a, json_object_new_string(r->mkfs_argv[i]));
	}
	json_object_object_add(j, "mkfs", a);
	json_object_object_add(j, "device", r->dev[0] ?
			       json_object_new_string(r->dev) : NULL);
	json_object_object_add(j, "loop", json_object_new_boolean(!o->scratch_dev));
	json_object_object_add(j, "image", r->img[0] ?
			       json_object_new_string(r->img) : NULL);
	json_object_object_add(j, "target", r->t_ok ? fss_target_json(&r->t) : NULL);
	json_object_object_add(j, "write_cache", r->disk_ok && r->disk.write_cache >= 0 ?
			       json_object_new_string(r->disk.write_cache ?
						      "write back" : "write through") :
			       NULL);
	json_object_object_add(j, "journal", json_object_new_string(d->journal_what));
	json_object_object_add(j, "journal_traced", json_object_new_boolean(d->journal_traced));
	json_object_object_add(j, "strategy", r->strategy ? json_object_get(r->strategy) : NULL);
	/* who painted its syncs: the kernel only where it could */
	json_object_object_add(j, "painter", !r->strategy ? NULL :
			       json_object_new_string(r->kernel_painted ?
						      "kernel" : "user"));
	json_object_object_add(j, "drops", r->strategy ?
			       json_object_new_uint64(r->drops) : NULL);
	json_object_object_add(j, "setup_s", r->setup_s > 0 ? jnum(r->setup_s, 3) : NULL);
	json_object_object_add(j, "run_s", r->run_s > 0 ? jnum(r->run_s, 3) : NULL);
	for (int i = 0; i < nwl; i++)
		done += r->tests[i].ran;
	json_object_object_add(j, "workloads_run", json_object_new_int(done));
	json_object_object_add(j, "rounds_run", json_object_new_int(r->rounds_done));
	return j;
}

static struct json_object *options_json(const struct cmp_opts *o)
{
	struct json_object *j = json_object_new_object(), *m = json_object_new_object();

	json_object_object_add(j, "seconds", o->wl.count ? NULL : jnum(o->wl.seconds, 3));
	json_object_object_add(j, "count", o->wl.count ?
			       json_object_new_int64((int64_t)o->wl.count) : NULL);
	json_object_object_add(j, "trace", json_object_new_boolean(!o->wl.no_trace));
	json_object_object_add(j, "painter", o->wl.no_trace ? NULL :
			       json_object_new_string(o->kernel_paint ?
						      "kernel" : "user"));
	json_object_object_add(j, "size_bytes", o->scratch_dev ? NULL :
			       json_object_new_int64((int64_t)o->size));
	json_object_object_add(j, "bs", json_object_new_int64((int64_t)o->wl.bs));
	json_object_object_add(j, "writes_per_sync", json_object_new_int(o->wl.wps));
	json_object_object_add(j, "jobs", json_object_new_int(o->wl.jobs));
	json_object_object_add(j, "direct",
			       json_object_new_boolean(o->shape.direct));
	json_object_object_add(j, "pattern", !o->shape.pattern_set ? NULL :
			       json_object_new_string(
					fss_pattern_name(o->shape.pattern)));
	json_object_object_add(j, "file_size",
			       json_object_new_int64((int64_t)o->wl.file_size));
	for (int i = 0; i < o->nfs; i++) {
		int k = o->fs[i];
		const char *mo = o->mkfs_label_opts[i] ?: o->mkfs_opts[k];

		json_object_object_add(m, o->label[i], mo ?
				       json_object_new_string(mo) : NULL);
	}
	json_object_object_add(j, "mkfs_opts", m);
	json_object_object_add(j, "repeat", json_object_new_int(o->repeat));
	json_object_object_add(j, "order", json_object_new_string(
			       "alternating"));
	return j;
}

static struct json_object *workload_json(const struct cmp_wl *w)
{
	struct json_object *j = json_object_new_object();

	json_object_object_add(j, "name", json_object_new_string(w->name));
	json_object_object_add(j, "title", json_object_new_string(w->title));
	json_object_object_add(j, "method",
			       json_object_new_string(fss_method_name(w->spec.method)));
	json_object_object_add(j, "pattern",
			       json_object_new_string(fss_pattern_name(w->spec.pattern)));
	json_object_object_add(j, "bs", json_object_new_int64((int64_t)w->spec.bs));
	json_object_object_add(j, "writes_per_sync",
			       json_object_new_int(w->spec.writes_per_sync));
	json_object_object_add(j, "jobs", json_object_new_int(w->spec.jobs));
	json_object_object_add(j, "direct", json_object_new_boolean(w->spec.direct));
	return j;
}


static struct json_object *where_json(const struct cmp_opts *o,
				      const struct cmp_place *pl)
{
	struct json_object *im;

	if (o->scratch_dev) {
		struct json_object *s = json_object_new_object();

		json_object_object_add(s, "path",
				       json_object_new_string(o->scratch_dev));
		json_object_object_add(s, "device", pl->disk_ok ?
				       fss_devinfo_json(&pl->disk) : NULL);
		return s;
	}
	im = json_object_new_object();
	json_object_object_add(im, "dir", json_object_new_string(pl->workdir));
	json_object_object_add(im, "parent",
			       json_object_new_string(pl->parent));
	json_object_object_add(im, "size_bytes",
			       json_object_new_int64((int64_t)o->size));
	json_object_object_add(im, "in_memory",
			       json_object_new_boolean(pl->in_memory));
	json_object_object_add(im, "on", pl->t_ok ?
			       fss_target_json(&pl->t) : NULL);
	json_object_object_add(im, "disk", pl->disk_ok ?
			       fss_devinfo_json(&pl->disk) : NULL);
	return im;
}

struct json_object *cmp_doc_new(const struct cmp_opts *o,
				const struct cmp_place *pl,
				const struct cmp_wl *wl, int nwl)
{
	struct json_object *doc = json_object_new_object(), *a;

	fss_doc_stamp(doc, "compare");
	json_object_object_add(doc, "host", fss_run_host_json());
	json_object_object_add(doc, "images", o->scratch_dev ? NULL :
			       where_json(o, pl));
	json_object_object_add(doc, "scratch_dev", o->scratch_dev ?
			       where_json(o, pl) : NULL);
	json_object_object_add(doc, "options", options_json(o));
	json_object_object_add(doc, "filesystems", json_object_new_array());
	a = json_object_new_array();
	for (int w = 0; w < nwl; w++)
		json_object_array_add(a, workload_json(&wl[w]));
	json_object_object_add(doc, "workloads", a);
	return doc;
}

struct json_object *cmp_doc_add_fs(struct json_object *doc,
				   const struct cmp_opts *o,
				   const struct cmp_fs_run *r, int nwl)
{
	struct json_object *j = fs_json(o, r, nwl);

	json_object_array_add(fss_j(doc, "filesystems"), j);
	return j;
}

void cmp_doc_finish(struct json_object *doc, const struct cmp_opts *o,
		    const struct cmp_fs_run *runs, int nwl)
{
	struct json_object *fa = fss_j(doc, "filesystems");
	struct json_object *wa = fss_j(doc, "workloads");

	for (int i = (int)json_object_array_length(fa); i < o->nfs; i++)
		json_object_array_add(fa, fs_json(o, &runs[i], nwl));
	for (int w = 0; w < nwl; w++) {
		struct json_object *res = json_object_new_array();

		for (int i = 0; i < o->nfs; i++)
			json_object_array_add(res, result_json(runs, i, w));
		json_object_object_add(json_object_array_get_idx(wa, w),
				       "results", res);
	}
	json_object_object_add(doc, "interrupted", fss_run_interrupted_json());
}
