// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * suite.c - the test engine behind `run`, `compare` and `devices --probe`
 * (suite.h): run workload tests wrapped by the tracer, the JSON object of
 * a test, the verdict glue, and one stop-signal model.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <json-c/json.h>
#include "doc/doc.h"
#include "lib/progress.h"
#include "workload/suite.h"
#include "sys/target.h"

void fss_run_hook_before(void *arg)
{
	struct fss_run_hook *h = arg;
	int rc;

	h->begun = false;
	/* not collecting: the tracer calls no on_sync until begin */
	if (!h->coll)
		h->coll = fss_collector_new();
	else
		fss_collector_reset(h->coll);
	rc = h->coll ? fss_tracer_begin(h->tr) : -ENOMEM;
	if (rc < 0)
		fprintf(stderr, "fsyncscope: warning: tracer: cannot start test %s: %s\n",
			h->cur->name, strerror(-rc));
	else
		h->begun = true;
}

void fss_run_hook_sync(const struct fss_sync_result *res, void *arg)
{
	struct fss_run_hook *h = arg;

	fss_collector_add(res, h->coll);
	if (h->events)
		fss_sync_result_write_json(h->events, h->cur->name, res);
}

/* The test's breakdown and histograms, from what was collected. */
static void hook_results(struct fss_run_hook *h,
			 const struct fss_trace_window *tw)
{
	fss_collector_breakdown(h->coll, &tw->flush, tw->drops, &h->cur->b);
	h->cur->b.no_rq_start = tw->no_rq_start;
	h->cur->b.no_journal = tw->no_journal;
	h->cur->b.kernel_painted = fss_tracer_kernel_painted(h->tr);
	h->cur->b.has_summ = true;
	memcpy(h->cur->b.summ, tw->summ, sizeof(tw->summ));
	h->cur->traced = true;
	free(h->cur->hist);
	h->cur->hist = malloc(FSS_COLL_NHIST * sizeof(*h->cur->hist));
	if (h->cur->hist)
		for (int i = 0; i < FSS_COLL_NHIST; i++)
			h->cur->hist[i] = *fss_collector_hist(h->coll, i);
}

void fss_run_hook_after(void *arg)
{
	struct fss_run_hook *h = arg;
	struct fss_trace_window tw;
	int rc;

	if (h->begun) {
		rc = fss_tracer_end(h->tr, &tw);
		if (h->events)
			fflush(h->events);
		if (rc < 0)
			fprintf(stderr, "fsyncscope: warning: tracer: no breakdown for %s: %s\n",
				h->cur->name, strerror(-rc));
		else
			hook_results(h, &tw);
	}
	/* the tracer is not collecting now: nothing calls on_sync */
	fss_collector_free(h->coll);
	h->coll = NULL;
}

void fss_run_tests_free(struct fss_run_test *tests, int n)
{
	for (int i = 0; tests && i < n; i++) {
		free(tests[i].hist);
		tests[i].hist = NULL;
		free(tests[i].res.lat_hist);
		tests[i].res.lat_hist = NULL;
	}
}

/* ---- JSON output ------------------------------------------------------ */


/*
 * The breakdown's flush facts, with "elided" decided by the device: on a
 * write-through queue the kernel completes flushes without sending them,
 * so every sync that saw no flush had its flush elided; on a write-back
 * queue nothing is elided (a sync without a flush simply sent none).
 */
static struct json_object *flush_json(const struct fss_breakdown *b, int write_cache)
{
	struct json_object *o = fss_breakdown_flush_json(b);

	if (!o)
		return NULL;
	if (write_cache == 0)
		json_object_object_add(o, "elided",
				       json_object_new_uint64(b->flush.syncs_no_flush));
	else if (write_cache == 1)
		json_object_object_add(o, "elided", json_object_new_uint64(0));
	return o;
}

/*
 * "hist": the test's histograms (hist.h): "op" the per-op latency of every
 * op, and, when traced, "total" and each phase of the traced syncs.
 */
static struct json_object *hists_json(const struct fss_run_test *r)
{
	struct json_object *o = json_object_new_object();
	int ph;

	json_object_object_add(o, "scheme", json_object_new_string(FSS_HIST_SCHEME));
	json_object_object_add(o, "unit", json_object_new_string("ns"));
	if (r->res.lat_hist)
		json_object_object_add(o, "op", fss_hist_json(r->res.lat_hist));
	if (r->traced && r->hist) {
		json_object_object_add(o, "total", fss_hist_json(&r->hist[0]));
		for (ph = 0; ph < FSS_PH_MAX; ph++)
			json_object_object_add(o, fss_phase_name(ph),
					       fss_hist_json(&r->hist[1 + ph]));
	}
	return o;
}

struct json_object *fss_run_test_json(const struct fss_run_test *r, int write_cache)
{
	const struct fss_wl_result *res = &r->res;
	struct json_object *o = json_object_new_object(), *lat = NULL;
	bool ok = res->status == FSS_WL_OK;

	json_object_object_add(o, "name", json_object_new_string(r->name));
	json_object_object_add(o, "section", json_object_new_string(r->section));
	json_object_object_add(o, "section_title", r->section_title ?
			       json_object_new_string(r->section_title) : NULL);
	json_object_object_add(o, "section_note", r->section_note ?
			       json_object_new_string(r->section_note) : NULL);
	json_object_object_add(o, "label", json_object_new_string(r->label));
	json_object_object_add(o, "method",
			       json_object_new_string(fss_method_name(r->spec.method)));
	json_object_object_add(o, "bs", json_object_new_int64((int64_t)r->spec.bs));
	json_object_object_add(o, "writes_per_sync",
			       json_object_new_int(r->spec.writes_per_sync));
	json_object_object_add(o, "jobs", json_object_new_int(r->spec.jobs));
	json_object_object_add(o, "direct", json_object_new_boolean(res->direct_used));
	json_object_object_add(o, "pattern",
			       json_object_new_string(fss_pattern_name(r->spec.pattern)));
	json_object_object_add(o, "shared_file",
			       json_object_new_boolean(r->spec.shared_file));
	json_object_object_add(o, "ioengine", json_object_new_string(
			       r->spec.iodepth ? "io_uring" : "sync"));
	json_object_object_add(o, "iodepth", r->spec.iodepth ?
			       json_object_new_int((int)r->spec.iodepth) : NULL);
	json_object_object_add(o, "sync_batch", !r->spec.iodepth ? NULL :
			       json_object_new_string(fss_sync_batch_name(
						      r->spec.sync_batch)));
	json_object_object_add(o, "status", json_object_new_string(ok ? "ok" : "n/a"));
	json_object_object_add(o, "reason", ok ? NULL :
			       json_object_new_string(res->reason));
	json_object_object_add(o, "note", res->note[0] ?
			       json_object_new_string(res->note) : NULL);
	json_object_object_add(o, "ops", ok ? json_object_new_int64((int64_t)res->ops) :
			       NULL);
	json_object_object_add(o, "writes", ok ?
			       json_object_new_int64((int64_t)res->writes) : NULL);
	json_object_object_add(o, "syncs", ok && r->spec.iodepth ?
			       json_object_new_int64((int64_t)res->syncs) : NULL);
	if (ok && r->spec.iodepth && res->syncs) {
		lat = json_object_new_object();
		json_object_object_add(lat, "p50", fss_json_num(res->sync_lat.p50, 3));
		json_object_object_add(lat, "p99", fss_json_num(res->sync_lat.p99, 3));
		json_object_object_add(lat, "mean", fss_json_num(res->sync_lat.mean, 3));
		json_object_object_add(o, "sync_latency_us", lat);
	} else {
		json_object_object_add(o, "sync_latency_us", NULL);
	}
	json_object_object_add(o, "elapsed_s", ok ? fss_json_num(res->elapsed_s, 6) : NULL);
	json_object_object_add(o, "ops_per_sec", ok ? fss_json_num(res->ops_per_sec, 3) : NULL);
	json_object_object_add(o, "usecs_per_op", ok ? fss_json_num(res->usecs_per_op, 3) : NULL);
	if (ok) {
		lat = json_object_new_object();
		json_object_object_add(lat, "p50", fss_json_num(res->lat.p50, 3));
		json_object_object_add(lat, "p90", fss_json_num(res->lat.p90, 3));
		json_object_object_add(lat, "p99", fss_json_num(res->lat.p99, 3));
		json_object_object_add(lat, "p99_9", fss_json_num(res->lat.p99_9, 3));
		json_object_object_add(lat, "max", fss_json_num(res->lat.max, 3));
		json_object_object_add(lat, "mean", fss_json_num(res->lat.mean, 3));
	}
	json_object_object_add(o, "latency_us", lat);
	json_object_object_add(o, "partial", json_object_new_boolean(res->partial));
	if (r->traced && ok) {
		fss_breakdown_add_json(o, &r->b);
		json_object_object_add(o, "flush", flush_json(&r->b, write_cache));
		/* who caused the syncs' time (docs/blame.md); null: off */
		json_object_object_add(o, "blame", fss_blame_sum_json(&r->b.blame));
	}
	if (ok)
		json_object_object_add(o, "hist", hists_json(r));
	return o;
}

struct json_object *fss_run_host_json(void)
{
	struct json_object *o = json_object_new_object();
	struct utsname u;
	char host[256] = "";

	if (uname(&u)) {
		memset(&u, 0, sizeof(u));
	}
	gethostname(host, sizeof(host) - 1);
	json_object_object_add(o, "kernel", json_object_new_string(u.release));
	json_object_object_add(o, "machine", json_object_new_string(u.machine));
	json_object_object_add(o, "hostname", json_object_new_string(host));
	json_object_object_add(o, "cpus",
			       json_object_new_int((int)sysconf(_SC_NPROCESSORS_ONLN)));
	return o;
}

/* ---- the engine shared with compare and devices --probe --------------- */

/* The sync kinds (1 << FSS_SYNC_*) a method's ops are traced as. */
__u32 fss_method_sync_kinds(enum fss_method m)
{
	switch (m) {
	case FSS_M_OPEN_DATASYNC:
	case FSS_M_OPEN_SYNC:
	case FSS_M_PWRITEV2_DSYNC:
		return 1u << FSS_SYNC_DSYNC_WRITE;
	case FSS_M_FDATASYNC:
		return 1u << FSS_SYNC_FDATASYNC;
	case FSS_M_FSYNC:
	case FSS_M_FSYNC_WRITETHROUGH:
		return 1u << FSS_SYNC_FSYNC;
	case FSS_M_SYNC_FILE_RANGE:
		return 1u << FSS_SYNC_SYNC_FILE_RANGE;
	default:
		return 0;
	}
}

int fss_run_tests(const struct fss_run_cfg *cfg, struct fss_run_test *tests,
		  int n, struct fss_run_out *out, char *err, size_t errlen)
{
	struct fss_run_hook hk = { 0 };
	struct fss_wl_hooks hooks = { fss_run_hook_before, fss_run_hook_after, &hk };
	struct fss_workload *w;
	struct target_info *ti;
	int rc = 0;

	if (out)
		memset(out, 0, sizeof(*out));
	w = fss_wl_new(cfg->dir, NULL, false, err, errlen);
	if (!w)
		return -EINVAL;
	ti = calloc(1, sizeof(*ti));
	if (!ti) {
		fss_wl_free(w);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	fss_target_get(cfg->dir, ti);
	if (cfg->trace) {
		struct fss_trace_opts to = {
			.strategy = cfg->strategy,
			.calib_dir = ti->t.path,
			.tgid = getpid(),
			.fs_dev = ti->t.fs_kdev,
			.disk_dev = ti->t.disk_kdev,
			.verbose = cfg->verbose,
			.kernel_paint = cfg->kernel_paint,
			.on_sync = fss_run_hook_sync,
			.on_sync_arg = &hk,
		};

		/* hook only the kinds of sync these tests make */
		for (int i = 0; i < n; i++)
			to.sync_kinds |= tests[i].spec.iodepth ?
				1u << FSS_SYNC_IOURING_FSYNC :
				fss_method_sync_kinds(tests[i].spec.method);

		hk.tr = fss_tracer_open(&to, err, errlen);
		if (!hk.tr) {
			rc = -EIO;
			goto out;
		}
		if (cfg->verbose)
			fss_tracer_print_strategy(hk.tr, stderr);
	}
	for (int i = 0; i < n && !fss_wl_stop; i++) {
		struct fss_run_test *r = &tests[i];

		r->spec.name = r->name;
		hk.cur = r;
		if (cfg->verbose)
			fprintf(stderr, "fsyncscope: %s%srunning %s\n",
				cfg->tag ? cfg->tag : "", cfg->tag ? ": " : "",
				r->name);
		fss_progress_begin(cfg->tag, r->name, r->spec.seconds,
				   r->spec.count);
		rc = fss_wl_run(w, &r->spec, NULL,
				hk.tr && fss_method_syncs(r->spec.method) ? &hooks : NULL,
				&r->res, err, errlen);
		fss_progress_end();
		if (rc)
			break;
		r->ran = true;
	}
	if (!rc && fss_wl_stop)
		rc = -EINTR;
	if (hk.tr && out) {
		out->strategy = fss_tracer_strategy_json(hk.tr);
		out->drops = fss_tracer_drops(hk.tr);
		out->kernel_painted = fss_tracer_kernel_painted(hk.tr);
	}
out:
	if (hk.tr)
		fss_tracer_close(hk.tr);
	fss_wl_free(w);
	free(ti);
	return rc;
}

static bool durable_method(enum fss_method m)
{
	return m == FSS_M_FDATASYNC || m == FSS_M_FSYNC ||
	       m == FSS_M_OPEN_DATASYNC || m == FSS_M_OPEN_SYNC ||
	       m == FSS_M_PWRITEV2_DSYNC;
}

int fss_run_verdict_test(const struct fss_run_test *t, int n)
{
	for (int pass = 0; pass < 2; pass++) {
		int best = -1;

		for (int i = 0; i < n; i++) {
			enum fss_method m = t[i].spec.method;

			if (!t[i].ran || !t[i].traced || t[i].res.status != FSS_WL_OK ||
			    !t[i].b.syncs)
				continue;
			if (pass == 0 ? m != FSS_M_FDATASYNC : !durable_method(m))
				continue;
			if (best < 0 || t[i].b.syncs > t[best].b.syncs)
				best = i;
		}
		if (best >= 0)
			return best;
	}
	return -1;
}

void fss_run_verdict(const struct fss_devinfo *dev, const char *retry_hint,
		     const struct fss_run_test *tests, int idx,
		     struct fss_verdict *v)
{
	struct fss_verdict_in in = {
		.write_cache = -1, .fua = -1,
		.nvme_vwc_present = -1, .nvme_vwc_enabled = -1,
		.flush_p50_us = -1, .sync_p50_us = -1,
		.retry_hint = retry_hint,
	};

	if (dev) {
		in.dev_name = dev->name[0] ? dev->name : NULL;
		in.write_cache = dev->write_cache;
		in.fua = dev->fua;
		in.nvme_vwc_present = dev->nvme_vwc_present;
		in.nvme_vwc_enabled = dev->nvme_vwc_enabled;
		in.is_loop = dev->loop_backing[0] != '\0';
		in.loop_backing = dev->loop_backing;
	}
	if (idx >= 0) {
		const struct fss_breakdown *b = &tests[idx].b;

		in.syncs = b->syncs;
		in.flushes = b->flush.flushes;
		in.syncs_no_flush = b->flush.syncs_no_flush;
		in.fua_writes = b->flush.fua_writes;
		in.flush_p50_us = b->phase[FSS_PH_DEV_FLUSH].p50_us;
		in.flush_p50_lo_us = b->phase[FSS_PH_DEV_FLUSH].p50_lo_us;
		in.flush_p50_hi_us = b->phase[FSS_PH_DEV_FLUSH].p50_hi_us;
		in.flush_ci = !isnan(in.flush_p50_lo_us) &&
			      !isnan(in.flush_p50_hi_us);
		in.sync_p50_us = b->total_p50_us;
		if (!isfinite(in.flush_p50_us))
			in.flush_p50_us = -1;
		if (!isfinite(in.sync_p50_us))
			in.sync_p50_us = -1;
	}
	fss_verdict_compute(&in, v);
}

struct json_object *fss_run_verdict_json(const struct fss_verdict *v,
					 const struct fss_devinfo *dev,
					 const struct fss_run_test *tests,
					 int idx)
{
	struct json_object *o = fss_verdict_json(v);

	if (!o)
		return NULL;
	json_object_object_add(o, "device", dev && dev->name[0] ?
			       json_object_new_string(dev->name) : NULL);
	json_object_object_add(o, "measured_in", idx >= 0 ?
			       json_object_new_string(tests[idx].name) : NULL);
	return o;
}

static const int stop_sigs[4] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

static void on_signal(int sig)
{
	if (!fss_wl_stop)
		fss_wl_stop = sig;
}

void fss_run_signals_catch(struct fss_run_sigs *s)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };

	fss_wl_stop = 0;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 4; i++)
		sigaction(stop_sigs[i], &sa, &s->old[i]);
}

void fss_run_signals_restore(const struct fss_run_sigs *s)
{
	for (int i = 0; i < 4; i++)
		sigaction(stop_sigs[i], &s->old[i], NULL);
}

const char *fss_run_sig_name(int sig)
{
	switch (sig) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	case SIGPIPE: return "SIGPIPE";
	default: return "a signal";
	}
}

struct json_object *fss_run_interrupted_json(void)
{
	return fss_wl_stop ? json_object_new_string(fss_run_sig_name(fss_wl_stop)) :
	       NULL;
}
