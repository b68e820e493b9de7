// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * live_doc.c - the documents of `trace` (schema fsyncscope/trace, JSON
 * Lines): the start record, each interval and the summary from a window
 * of live_agg.c's groups, and a --slower sync (live_doc.h).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>
#include "doc/doc.h"
#include "sys/fsnote.h"
#include "stats/live_agg.h"
#include "live/live_doc.h"
#include "stats/summ.h"
#include "stats/collector.h"
#include "live/live_names.h"
#include "doc/blame_json.h"
#include "lib/cgpath.h"

static struct json_object *jdev(__u32 kdev)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%u:%u", live_kmaj(kdev), live_kmin(kdev));
	return json_object_new_string(buf);
}

static struct json_object *jus(__u64 ns)
{
	return json_object_new_double(ns / 1000.0);
}

static struct json_object *gstat_json(const struct gstat *g, bool phases)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "syncs", json_object_new_int64(g->syncs));
	json_object_object_add(o, "errors", json_object_new_int64(g->errors));
	json_object_object_add(o, "total_ns", json_object_new_int64(g->total_ns));
	json_object_object_add(o, "mean_us", g->syncs ? jus(g->total_ns / g->syncs) : NULL);
	json_object_object_add(o, "p50_us", g->syncs ? jus(live_quantile_ns(&g->h, 0.50)) : NULL);
	json_object_object_add(o, "p99_us", g->syncs ? jus(live_quantile_ns(&g->h, 0.99)) : NULL);
	json_object_object_add(o, "max_us", g->syncs ? jus(g->max_ns) : NULL);
	if (phases) {
		struct json_object *ph = json_object_new_object();

		for (int p = 0; p < FSS_PH_MAX; p++) {
			struct json_object *po = json_object_new_object();

			json_object_object_add(po, "ns", json_object_new_int64(g->phase_ns[p]));
			json_object_object_add(po, "mean_us", g->syncs ?
					       jus(g->phase_ns[p] / g->syncs) : NULL);
			json_object_object_add(po, "share", g->total_ns ?
					       json_object_new_double((double)g->phase_ns[p] / g->total_ns) : NULL);
			json_object_object_add(ph, fss_phase_name(p), po);
		}
		json_object_object_add(o, "phases", ph);
	}
	return o;
}

static struct json_object *by_kind_json(const struct gstat *g)
{
	struct json_object *o = json_object_new_object();

	for (int k = 0; k < FSS_SYNC_KIND_MAX; k++)
		if (g->by_kind[k])
			json_object_object_add(o, fss_sync_kind_name(k),
					       json_object_new_int64(g->by_kind[k]));
	return o;
}

static const char *cache_str(int wc)
{
	return wc == 1 ? "write back" : wc == 0 ? "write through" : NULL;
}

static struct json_object *flush_json(const struct fss_flush_stats *f)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "flushes", json_object_new_int64(f->flushes));
	json_object_object_add(o, "flush_sync_refs", json_object_new_int64(f->flush_sync_refs));
	json_object_object_add(o, "syncs_per_flush", f->flushes ?
			       json_object_new_double((double)f->flush_sync_refs / f->flushes) : NULL);
	json_object_object_add(o, "syncs", json_object_new_int64(f->syncs));
	json_object_object_add(o, "syncs_with_flush", json_object_new_int64(f->syncs_with_flush));
	json_object_object_add(o, "syncs_no_flush", json_object_new_int64(f->syncs_no_flush));
	json_object_object_add(o, "fua_writes", json_object_new_int64(f->fua_writes));
	json_object_object_add(o, "fua_emulated", json_object_new_int64(f->fua_emulated));
	json_object_object_add(o, "preflush", json_object_new_int64(f->preflush));
	json_object_object_add(o, "nvme_flush_cmds", json_object_new_int64(f->nvme_flush_cmds));
	return o;
}

static void iso_time(const struct timespec *ts, char *buf, size_t len)
{
	struct tm tm;

	localtime_r(&ts->tv_sec, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%S%z", &tm);
}

/* The sync-time histogram of a group in hist.c's JSON form. */
static struct json_object *shist_json(const struct fss_shist *h)
{
	struct fss_hist *d = fss_hist_new();
	struct json_object *o;

	if (!d)
		return NULL;
	fss_shist_to(h, d);
	o = fss_hist_json(d);
	free(d);
	return o;
}

static struct json_object *kinds_json(const struct window *w)
{
	struct json_object *a = json_object_new_array();

	for (int k = 0; k < FSS_SYNC_KIND_MAX; k++) {
		struct json_object *ko;

		if (!w->kind[k].syncs)
			continue;
		ko = gstat_json(&w->kind[k], true);
		json_object_object_add(ko, "kind", json_object_new_string(fss_sync_kind_name(k)));
		json_object_array_add(a, ko);
	}
	return a;
}

/* a group's sync time by who caused it (null: blame off) */
static struct json_object *self_others_json(const struct gstat *g)
{
	struct json_object *o;

	if (!g->blamed_syncs)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "syncs", json_object_new_int64(g->blamed_syncs));
	json_object_object_add(o, "self_ns", json_object_new_int64(g->blame_self_ns));
	json_object_object_add(o, "others_ns", json_object_new_int64(g->blame_others_ns));
	json_object_object_add(o, "unattributed_ns",
			       json_object_new_int64(g->blame_unattributed_ns));
	json_object_object_add(o, "flush_syncs",
			       json_object_new_int64(g->flush_syncs));
	json_object_object_add(o, "flush_coalesced_syncs",
			       json_object_new_int64(g->coalesced_syncs));
	return o;
}

/* who caused the most sync time in other processes' syncs */
static struct json_object *blamed_json(const struct window *w, int top)
{
	const struct table *t = &w->tbl[G_BLAMED];
	struct json_object *a = json_object_new_array();
	struct group **s = live_tbl_sorted(t);

	for (int i = 0; s && i < t->n && i < top; i++) {
		struct json_object *o = json_object_new_object();
		struct json_object *ph = json_object_new_object();
		const char *cg = s[i]->k2 ? fss_cgroup_path(s[i]->k2, NULL) : NULL;

		json_object_object_add(o, "pid", json_object_new_int64(s[i]->k1 & 0xffffffff));
		json_object_object_add(o, "comm", json_object_new_string(s[i]->comm));
		/* the filesystem whose syncs it slowed */
		json_object_object_add(o, "dev", jdev(s[i]->k1 >> 32));
		json_object_object_add(o, "cgroup_id", s[i]->k2 ?
				       json_object_new_uint64(s[i]->k2) : NULL);
		json_object_object_add(o, "cgroup", cg ? json_object_new_string(cg) : NULL);
		json_object_object_add(o, "writeback", json_object_new_boolean(
					       s[i]->blame_flags & FSS_BL_WB));
		/* fsyncscope's own process (docs/live.md) */
		json_object_object_add(o, "tool", json_object_new_boolean(
					       s[i]->blame_flags & FSS_BL_TOOL));
		/* a kernel thread's own I/O, not credited to a dirtier */
		json_object_object_add(o, "kernel_thread", json_object_new_boolean(
			(s[i]->blame_flags & FSS_BL_KTHREAD) &&
			!(s[i]->blame_flags & FSS_BL_OWNER)));
		json_object_object_add(o, "caused_ns", json_object_new_int64(s[i]->st.total_ns));
		json_object_object_add(o, "syncs", json_object_new_int64(s[i]->st.syncs));
		for (int p = 0; p < FSS_PH_MAX; p++) {
			char k[32];

			if (!s[i]->st.phase_ns[p])
				continue;
			snprintf(k, sizeof(k), "%s_ns", fss_phase_name(p));
			json_object_object_add(ph, k, json_object_new_int64(s[i]->st.phase_ns[p]));
		}
		json_object_object_add(o, "by_phase", ph);
		json_object_array_add(a, o);
	}
	free(s);
	return a;
}

/* the top processes by sync time */
static struct json_object *procs_json(const struct table *t, int top)
{
	struct json_object *a = json_object_new_array();
	struct group **s = live_tbl_sorted(t);

	for (int i = 0; s && i < t->n && i < top; i++) {
		struct proc_name *p = live_names_proc_find(s[i]->k1);
		struct json_object *po = gstat_json(&s[i]->st, true);

		json_object_object_add(po, "pid", json_object_new_int64(s[i]->k1));
		json_object_object_add(po, "comm", json_object_new_string(p ? p->comm : ""));
		json_object_object_add(po, "cmdline", p && p->cmdline[0] ?
				       json_object_new_string(p->cmdline) : NULL);
		json_object_object_add(po, "name", json_object_new_string(live_names_proc_label(p)));
		json_object_object_add(po, "role", p ? fss_dbrole_json(&p->role) : NULL);
		json_object_object_add(po, "by_kind", by_kind_json(&s[i]->st));
		json_object_object_add(po, "blame", self_others_json(&s[i]->st));
		json_object_array_add(a, po);
	}
	free(s);
	return a;
}

/* the top files by sync time */
static struct json_object *files_json(const struct table *t, int top)
{
	struct json_object *a = json_object_new_array();
	struct group **s = live_tbl_sorted(t);

	for (int i = 0; s && i < t->n && i < top; i++) {
		struct json_object *fo = gstat_json(&s[i]->st, true);
		struct file_name *fn = live_names_file(s[i]->k1, s[i]->k2, false);
		char label[PATH_MAX + 64];
		bool resolved;

		live_names_file_label(s[i]->k1, s[i]->k2, label, sizeof(label), &resolved);
		json_object_object_add(fo, "path", resolved ? json_object_new_string(label) : NULL);
		if (!resolved)
			json_object_object_add(fo, "path_note", json_object_new_string(label));
		json_object_object_add(fo, "dev", jdev(s[i]->k1));
		json_object_object_add(fo, "ino", json_object_new_int64(s[i]->k2));
		if (fn && fn->relation) {	/* --pg */
			json_object_object_add(fo, "relation", json_object_new_string(fn->relation));
			json_object_object_add(fo, "relation_kind", json_object_new_string(fn->relkind));
		}
		json_object_object_add(fo, "last_pid", json_object_new_int64(s[i]->last_pid));
		json_object_object_add(fo, "by_kind", by_kind_json(&s[i]->st));
		json_object_array_add(a, fo);
	}
	free(s);
	return a;
}

/* one device: its facts and what its syncs asked of it (kp: no records) */
static struct json_object *dev_json(const struct group *dg, bool kp)
{
	const struct gstat *g = &dg->st;
	struct dev_facts *d = live_names_dev(dg->k1);
	struct json_object *dobj = json_object_new_object();
	const char *wc = d ? cache_str(d->write_cache) : NULL;

	json_object_object_add(dobj, "dev", jdev(dg->k1));
	json_object_object_add(dobj, "fs", d && d->fstype[0] ?
			       json_object_new_string(d->fstype) : NULL);
	json_object_object_add(dobj, "disk", d && d->disk_name[0] ?
			       json_object_new_string(d->disk_name) : NULL);
	json_object_object_add(dobj, "write_cache", wc ? json_object_new_string(wc) : NULL);
	json_object_object_add(dobj, "fua", d && d->fua >= 0 ?
			       json_object_new_boolean(d->fua) : NULL);
	/* a write-through device gets no real flush: the kernel drops it */
	json_object_object_add(dobj, "flush_elided", d && d->write_cache >= 0 ?
			       json_object_new_boolean(d->write_cache == 0) : NULL);
	json_object_object_add(dobj, "syncs", json_object_new_int64(g->syncs));
	json_object_object_add(dobj, "syncs_with_flush", json_object_new_int64(g->with_flush));
	json_object_object_add(dobj, "syncs_no_flush", json_object_new_int64(g->syncs - g->with_flush));
	json_object_object_add(dobj, "flush_refs", json_object_new_int64(g->nr_flush));
	json_object_object_add(dobj, "preflush_refs", fss_rq_count_json(kp, g->nr_preflush));
	json_object_object_add(dobj, "fua_writes", fss_rq_count_json(kp, g->nr_fua));
	json_object_object_add(dobj, "fua_emulated", fss_rq_count_json(kp, g->nr_fua_emulated));
	json_object_object_add(dobj, "syncs_waited_journal", fss_rq_count_json(kp, g->with_journal));
	json_object_object_add(dobj, "device_flush_ns", json_object_new_int64(g->phase_ns[FSS_PH_DEV_FLUSH]));
	/* which kinds: a sync_file_range never flushes (docs/findings.md) */
	json_object_object_add(dobj, "by_kind", by_kind_json(g));
	return dobj;
}

static struct json_object *devs_json(const struct table *t, bool kp)
{
	struct json_object *a = json_object_new_array();
	struct group **s = live_tbl_sorted(t);

	for (int i = 0; s && i < t->n; i++)
		json_object_array_add(a, dev_json(s[i], kp));
	free(s);
	return a;
}

/* the journal commits on the devices of the traced syncs */
static struct json_object *journal_json(const struct window *w)
{
	struct json_object *a = json_object_new_array();
	struct group **s = live_tbl_sorted(&w->tbl[G_JOURNAL]);

	for (int i = 0; s && i < w->tbl[G_JOURNAL].n; i++) {
		const struct group *dg = live_tbl_find(&w->tbl[G_DEV], s[i]->k1, 0);
		struct json_object *jo;

		/* commits of filesystems none of the traced syncs were on: not ours */
		if (!dg)
			continue;
		jo = gstat_json(&s[i]->st, false);
		json_object_object_del(jo, "errors");
		json_object_object_add(jo, "dev", jdev(s[i]->k1));
		json_object_object_add(jo, "commits", json_object_new_int64(s[i]->st.syncs));
		json_object_object_del(jo, "syncs");
		json_object_object_add(jo, "sync_commits", json_object_new_int64(s[i]->sync_commits));
		json_object_object_add(jo, "syncs_waited", json_object_new_int64(dg->st.with_journal));
		json_object_array_add(a, jo);
	}
	free(s);
	return a;
}

/*
 * Each traced filesystem without a journal commit above (in the order
 * they were first seen): why, for its type.
 */
static struct json_object *journal_notes_json(const struct window *w)
{
	struct json_object *a = json_object_new_array();
	const struct table *dt = &w->tbl[G_DEV];

	for (int i = 0; i < dt->n; i++) {
		const struct group *g = dt->all[i];
		struct dev_facts *d = live_names_dev(g->k1);
		const char *type = d ? d->fstype : "";
		struct json_object *n;

		if (live_tbl_find(&w->tbl[G_JOURNAL], g->k1, 0))
			continue;
		n = json_object_new_object();
		json_object_object_add(n, "dev", jdev(g->k1));
		json_object_object_add(n, "fs", type[0] ? json_object_new_string(type) : NULL);
		json_object_object_add(n, "note", json_object_new_string(fss_journal_note(type)));
		json_object_array_add(a, n);
	}
	return a;
}

struct json_object *live_doc_report(const struct window *w,
				    const struct live_report_ctx *rc)
{
	struct json_object *o = json_object_new_object();
	char tbuf[64];

	iso_time(&w->start_wall, tbuf, sizeof(tbuf));
	fss_doc_stamp(o, "trace");
	json_object_object_add(o, "type", json_object_new_string(rc->type));
	if (rc->index)
		json_object_object_add(o, "interval", json_object_new_int(rc->index));
	json_object_object_add(o, "start", json_object_new_string(tbuf));
	json_object_object_add(o, "seconds", json_object_new_double(rc->seconds));
	json_object_object_add(o, "events_lost", json_object_new_int64(rc->drops));
	/* who split the syncs: docs/hotpath.md, "trace --painter kernel" */
	json_object_object_add(o, "painter", json_object_new_string(
			       rc->kernel_painter ? "kernel" : "user"));
	if (rc->has_summ) {
		json_object_object_add(o, "syncs_summarized", json_object_new_uint64(
			fss_summ_summarized(rc->summ)));
		json_object_object_add(o, "overload", fss_summ_json(rc->summ));
		if (rc->sample_every)
			json_object_object_add(fss_j(o, "overload"),
					       "sample_every",
					       json_object_new_uint64(
						       rc->sample_every));
	}
	json_object_object_add(o, "all", gstat_json(&w->all, true));
	json_object_object_add(fss_j(o, "all"), "hist", shist_json(&w->all.h));
	json_object_object_add(o, "by_kind", by_kind_json(&w->all));
	json_object_object_add(o, "kinds", kinds_json(w));
	json_object_object_add(o, "processes", procs_json(&w->tbl[G_PROC], rc->top));
	json_object_object_add(o, "processes_total", json_object_new_int(w->tbl[G_PROC].n));
	json_object_object_add(o, "files", files_json(&w->tbl[G_FILE], rc->top));
	json_object_object_add(o, "files_total", json_object_new_int(w->tbl[G_FILE].n));
	json_object_object_add(o, "devices", devs_json(&w->tbl[G_DEV],
						       rc->kernel_painter));
	json_object_object_add(o, "flush", flush_json(&w->flush));
	json_object_object_add(o, "journal", journal_json(w));
	json_object_object_add(o, "journal_traced", json_object_new_boolean(!rc->journal_na));
	json_object_object_add(o, "journal_notes", rc->journal_na ? NULL :
			       journal_notes_json(w));
	/* blame: null when no sync carried any (--no-blame, or n/a) */
	json_object_object_add(o, "blame", self_others_json(&w->all));
	json_object_object_add(o, "blamed", w->all.blamed_syncs ?
			       blamed_json(w, rc->top) : NULL);
	json_object_object_add(o, "blamed_total", json_object_new_int(w->tbl[G_BLAMED].n));
	/* what blame ran with: why blame is null, when it is */
	json_object_object_add(o, "blame_strategy", rc->blame ?
			       json_object_new_string(rc->blame) : NULL);
	/* -- CMD: its exit status (null: it still runs) in the summary */
	if (rc->cmd && !rc->index)
		json_object_object_add(o, "command_status", rc->cmd_status >= 0 ?
				       json_object_new_int(rc->cmd_status) : NULL);
	return o;
}

static struct json_object *filters_json(const struct live_filters *f)
{
	struct json_object *o = json_object_new_object(), *p = json_object_new_array();

	for (int i = 0; i < f->ntgids; i++)
		json_object_array_add(p, json_object_new_int64(f->tgids[i]));
	json_object_object_add(o, "pids", p);
	json_object_object_add(o, "comm", f->comm ? json_object_new_string(f->comm) : NULL);
	json_object_object_add(o, "role", f->role ? json_object_new_string(f->role) : NULL);
	json_object_object_add(o, "cgroup", f->cgroup ? json_object_new_string(f->cgroup) : NULL);
	json_object_object_add(o, "cgroup_id", f->cgroup_id ? json_object_new_int64(f->cgroup_id) : NULL);
	json_object_object_add(o, "mount", f->mount ? json_object_new_string(f->mount) : NULL);
	json_object_object_add(o, "dev", f->dev ? json_object_new_string(f->dev) : NULL);
	json_object_object_add(o, "fs_dev", f->fs_dev ? jdev(f->fs_dev) : NULL);
	json_object_object_add(o, "disk_dev", f->disk_dev ? jdev(f->disk_dev) : NULL);
	return o;
}

static struct json_object *cmd_json(char *const *cmd)
{
	struct json_object *a;

	if (!cmd)
		return NULL;
	a = json_object_new_array();
	for (; *cmd; cmd++)
		json_object_array_add(a, json_object_new_string(*cmd));
	return a;
}

struct json_object *live_doc_start(const struct live_start *s,
				   struct json_object *strategy)
{
	struct json_object *o = json_object_new_object();

	fss_doc_stamp(o, "trace");
	json_object_object_add(o, "type", json_object_new_string("start"));
	json_object_object_add(o, "filters", filters_json(&s->filters));
	json_object_object_add(o, "command", cmd_json(s->cmd));
	json_object_object_add(o, "interval_s", s->interval_s ?
			       json_object_new_double(s->interval_s) : NULL);
	json_object_object_add(o, "duration_s", s->duration_s ?
			       json_object_new_double(s->duration_s) : NULL);
	json_object_object_add(o, "slower_ms", s->slower_ms >= 0 ?
			       json_object_new_double(s->slower_ms) : NULL);
	json_object_object_add(o, "strategy", strategy);
	return o;
}

struct json_object *live_doc_sync(const struct fss_sync_result *r,
				  __u64 wall_ns)
{
	struct file_name *fn = r->ino ? live_names_file(r->dev, r->ino, false) : NULL;
	struct proc_name *pn = live_names_proc_find(r->pid);
	struct json_object *o = json_object_new_object();
	time_t sec = wall_ns / LIVE_NSEC;
	char tbuf[32], ts[64];
	struct tm tm;

	localtime_r(&sec, &tm);
	strftime(tbuf, sizeof(tbuf), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(ts, sizeof(ts), "%s.%06llu", tbuf,
		 (unsigned long long)(wall_ns % LIVE_NSEC) / 1000);
	json_object_object_add(o, "type", json_object_new_string("sync"));
	json_object_object_add(o, "time", json_object_new_string(ts));
	json_object_object_add(o, "pid", json_object_new_int64(r->pid));
	json_object_object_add(o, "tid", json_object_new_int64(r->tid));
	json_object_object_add(o, "comm", json_object_new_string(r->comm));
	json_object_object_add(o, "name", json_object_new_string(pn ? live_names_proc_label(pn) : r->comm));
	json_object_object_add(o, "role", pn ? fss_dbrole_json(&pn->role) : NULL);
	json_object_object_add(o, "kind", json_object_new_string(fss_sync_kind_name(r->kind)));
	json_object_object_add(o, "dev", jdev(r->dev));
	json_object_object_add(o, "ino", json_object_new_int64(r->ino));
	json_object_object_add(o, "path", fn && fn->path ? json_object_new_string(fn->path) : NULL);
	json_object_object_add(o, "ret", json_object_new_int(r->ret));
	json_object_object_add(o, "total_ns", json_object_new_int64(r->total));
	for (int p = 0; p < FSS_PH_MAX; p++) {
		char k[32];

		snprintf(k, sizeof(k), "%s_ns", fss_phase_name(p));
		json_object_object_add(o, k, json_object_new_int64(r->phase_ns[p]));
	}
	json_object_object_add(o, "painter", json_object_new_string(
			       r->kernel_painted ? "kernel" : "user"));
	json_object_object_add(o, "nr_rq", fss_rq_count_json(r->kernel_painted, r->nr_rq));
	json_object_object_add(o, "nr_write", fss_rq_count_json(r->kernel_painted, r->nr_write));
	json_object_object_add(o, "nr_flush", json_object_new_int(r->nr_flush));
	json_object_object_add(o, "nr_fua", fss_rq_count_json(r->kernel_painted, r->nr_fua));
	json_object_object_add(o, "nr_journal", fss_rq_count_json(r->kernel_painted, r->nr_journal));
	if (r->blame)
		fss_blame_add_json(o, r->blame, fss_cgroup_path, NULL);
	return o;
}

void live_doc_describe(const struct live_start *s, char *buf, size_t len)
{
	const struct live_filters *f = &s->filters;
	size_t n = 0;

	buf[0] = '\0';
	if (s->cmd) {
		n += snprintf(buf + n, len - n, "%s (pid %u) and its children",
			      s->cmd[0], f->ntgids ? f->tgids[0] : 0);
	} else if (f->ntgids) {
		n += snprintf(buf + n, len - n, "pid");
		for (int i = 0; i < f->ntgids && n < len - 16; i++)
			n += snprintf(buf + n, len - n, "%s%u", i ? "," : " ", f->tgids[i]);
	}
	if (f->comm && n < len)
		n += snprintf(buf + n, len - n, "%scomm %s", n ? ", " : "", f->comm);
	if (f->role && n < len)
		n += snprintf(buf + n, len - n, "%srole %s", n ? ", " : "", f->role);
	if (f->cgroup && n < len)
		n += snprintf(buf + n, len - n, "%scgroup %s (id %llu)", n ? ", " : "",
			      f->cgroup, (unsigned long long)f->cgroup_id);
	if (f->mount && n < len)
		n += snprintf(buf + n, len - n, "%smount %s", n ? ", " : "", f->mount);
	if (f->dev && n < len)
		n += snprintf(buf + n, len - n, "%sdev %s", n ? ", " : "", f->dev);
	if (!n)
		snprintf(buf, len, "every sync on the host");
}
