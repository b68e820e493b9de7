// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * attr_paint.c - painting one sync (see attr_int.h): the requests and
 * journal commits that belong to it become phase intervals, and a sweep
 * gives every instant to the highest-priority phase active then.
 *
 * The model itself (which requests belong to a sync, which interval is
 * which phase) is documented in docs/model.md; keep the two in step.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "engine/attr/attr_int.h"

struct paint {
	__u64 s, e;
	int err;
};

static void paint_add(struct fss_attr *a, struct paint *p, enum fss_phase ph,
		      __u64 from, __u64 to)
{
	if (from < p->s)
		from = p->s;
	if (to > p->e)
		to = p->e;
	if (from >= to)
		return;
	if (a->npts + 2 > a->cpts) {
		size_t nc = a->cpts ? a->cpts * 2 : 64;
		struct paint_pt *n = realloc(a->pts, nc * sizeof(*n));

		if (!n) {
			p->err = -ENOMEM;
			return;
		}
		a->pts = n;
		a->cpts = nc;
	}
	a->pts[a->npts++] = (struct paint_pt){ from, ph, 1 };
	a->pts[a->npts++] = (struct paint_pt){ to, ph, -1 };
}

static int pt_cmp(const void *x, const void *y)
{
	const struct paint_pt *a = x, *b = y;

	return a->t < b->t ? -1 : a->t > b->t;
}

/*
 * Sweep the boundaries: each stretch between two boundaries goes to the
 * highest-priority phase active in it (enum order is the priority: fs
 * lowest, device_flush highest), or to "other".
 */
static void paint_sweep(struct fss_attr *a, const struct paint *p,
			struct fss_sync_result *res)
{
	int active[FSS_PH_OTHER] = { 0 };
	__u64 cur = p->s;
	size_t i = 0;

	if (a->npts > 32) {
		qsort(a->pts, a->npts, sizeof(*a->pts), pt_cmp);
	} else {	/* a sync has a handful of boundaries */
		for (i = 1; i < a->npts; i++) {
			struct paint_pt x = a->pts[i];
			size_t j = i;

			for (; j > 0 && a->pts[j - 1].t > x.t; j--)
				a->pts[j] = a->pts[j - 1];
			a->pts[j] = x;
		}
		i = 0;
	}
	for (;;) {
		__u64 t = i < a->npts ? a->pts[i].t : p->e;
		int ph;

		if (t > cur) {
			for (ph = FSS_PH_OTHER - 1; ph >= 0 && !active[ph]; ph--)
				;
			res->phase_ns[ph >= 0 ? ph : FSS_PH_OTHER] += t - cur;
			attr_detail_seg(a, cur, t, ph >= 0 ? ph : FSS_PH_OTHER);
			cur = t;
		}
		if (i == a->npts)
			break;
		for (; i < a->npts && a->pts[i].t == t; i++)
			active[a->pts[i].phase] += a->pts[i].delta;
	}
}

static void count_once(struct fss_attr *a, struct rq *r, unsigned int what,
		       __u64 *counter)
{
	if (r->stat_epoch != a->epoch) {
		r->stat_epoch = a->epoch;
		r->stat_mask = 0;
	}
	if (!(r->stat_mask & what)) {
		r->stat_mask |= what;
		(*counter)++;
	}
}

/* Does request r belong to sync ev (see docs/model.md)? */
static bool rq_belongs(const struct fss_attr *a, const struct rq *r,
		       const struct fss_event *ev, __u32 disk)
{
	__u32 asked = (r->has & RQ_HAS_START) ? r->start_flags : r->first_flags;

	if (disk && r->dev != disk)
		return false;
	/*
	 * No completion seen, and it began before this sync did: the sync it
	 * began in is painted with it to its exit; a later one is not, since
	 * the completion was most likely lost (a thread's own write whose
	 * sync returned was done) rather than still running.
	 */
	if (!(r->has & RQ_HAS_COMPLETE) && r->n.first < ev->ts)
		return false;
	if (r->first_tid == ev->tid)
		return true;			/* submitted by the syncing thread */
	if (r->all_flags & FSS_RQ_FLUSH)
		return true;			/* a flush on the device */
	if (attr_is_jthread(a, ev->dev, r->first_tid))
		return true;			/* the fs's journal thread */
	if ((asked & (FSS_RQ_PREFLUSH | FSS_RQ_FUA)) &&
	    (r->first_flags & FSS_RQ_KTHREAD))
		return true;			/* a log worker's flush write */
	return false;
}

/* Paint request r into the sync; returns true if it is flush-class. */
static bool paint_rq(struct fss_attr *a, struct paint *p, struct rq *r,
		     struct fss_sync_result *res)
{
	__u32 asked = (r->has & RQ_HAS_START) ? r->start_flags : r->first_flags;
	bool issued = r->has & RQ_HAS_ISSUE;
	bool completed = r->has & RQ_HAS_COMPLETE;
	bool pure_flush = r->all_flags & FSS_RQ_FLUSH;
	bool fua_native = issued && (r->issue_flags & FSS_RQ_FUA);
	bool fua_emu = issued && (asked & FSS_RQ_FUA) && !fua_native;
	/* the kernel's own flush requests carry PREFLUSH too: not a preflush */
	bool preflush = (asked & FSS_RQ_PREFLUSH) && !pure_flush;
	bool nvme = (r->has & RQ_HAS_NVME_SETUP) &&
		    (r->has & RQ_HAS_NVME_COMPLETE);
	bool nvme_flush = nvme && r->nvme_opcode == 0;
	bool flushy = pure_flush || fua_native || nvme_flush;
	/* no completion seen: open to the sync's end, or to its id's reuse */
	__u64 open_end = (r->has & RQ_HAS_LOST) && r->lost_at < p->e ?
			 r->lost_at : p->e;
	__u64 dev_from = 0, dev_to = 0;
	bool have_dev = false;

	res->nr_rq++;
	if (!completed) {
		res->nr_incomplete++;
		count_once(a, r, RQ_CNT_INCOMPLETE, &a->stats.incomplete);
	}

	/* queue: waiting before issue, or in the flush machinery */
	if (r->has & RQ_HAS_START) {
		res->nr_started++;
		if (issued)
			paint_add(a, p, FSS_PH_QUEUE, r->start, r->issue);
		else
			paint_add(a, p, FSS_PH_QUEUE, r->start,
				  completed ? r->final : open_end);
	}

	/* device: the NVMe command when seen, else issue -> completion */
	if (nvme) {
		dev_from = r->nvme_setup;
		dev_to = r->nvme_complete;
		have_dev = true;
	} else if (issued) {
		dev_from = r->issue;
		dev_to = completed ? r->complete : open_end;
		have_dev = true;
	}
	if (have_dev) {
		paint_add(a, p, flushy ? FSS_PH_DEV_FLUSH : FSS_PH_DEV_WRITE,
			  dev_from, dev_to);
		if (nvme_flush && dev_to > p->s && dev_from < p->e)
			res->device_flush_from_nvme = true;
	}

	if (pure_flush) {
		res->nr_flush++;
		a->stats.flush_sync_refs++;
		count_once(a, r, RQ_CNT_FLUSH, &a->stats.flushes);
	}
	if (preflush) {
		res->nr_preflush++;
		count_once(a, r, RQ_CNT_PREFLUSH, &a->stats.preflush);
	}
	if (fua_native) {
		res->nr_fua++;
		count_once(a, r, RQ_CNT_FUA, &a->stats.fua_writes);
	}
	if (fua_emu) {
		res->nr_fua_emulated++;
		count_once(a, r, RQ_CNT_FUA_EMU, &a->stats.fua_emulated);
	}
	if (nvme_flush)
		count_once(a, r, RQ_CNT_NVME_FLUSH, &a->stats.nvme_flush_cmds);
	if (!pure_flush && !preflush && !(asked & FSS_RQ_FUA) && !fua_native &&
	    (r->all_flags & FSS_RQ_WRITE))
		res->nr_write++;
	attr_detail_rq(a, r, pure_flush || nvme_flush ? FSS_RQC_FLUSH : fua_native ?
		  FSS_RQC_FUA : preflush ? FSS_RQC_PREFLUSH : FSS_RQC_WRITE,
		  completed ? (nvme ? r->nvme_complete : r->complete) : open_end);

	return pure_flush || preflush || (asked & FSS_RQ_FUA) || fua_native ||
	       nvme_flush;
}

void fss_sync_result_of(const struct fss_event *ev, struct fss_sync_result *res)
{
	const struct fss_sync_rec *sr = &ev->sync;

	memset(res, 0, sizeof(*res));
	res->start = ev->ts;
	res->total = ev->ts_end - ev->ts;
	res->tid = ev->tid;
	res->pid = ev->pid;
	res->kind = sr->kind;
	res->dev = ev->dev;
	res->ino = sr->ino;
	res->ret = sr->ret;
	memcpy(res->comm, ev->comm, sizeof(res->comm));
	res->kflags = sr->kflags;
	if (sr->kflags & FSS_KP_VALID) {
		memcpy(res->kphase_ns, sr->kph, sizeof(res->kphase_ns));
		res->knflush = sr->knflush;
		res->kflushy = sr->kflushy;
	}
}

int attr_paint_sync(struct fss_attr *a, const struct fss_event *ev,
		    struct fss_sync_result *res)
{
	struct paint p = { .s = ev->ts, .e = ev->ts_end };
	const struct fss_sync_rec *sr = &ev->sync;
	__u32 disk = a->opts.disk_of ?
		     a->opts.disk_of(ev->dev, a->opts.disk_of_arg) : 0;
	bool saw_flush = false;
	size_t i;
	int err;

	fss_sync_result_of(ev, res);
	a->npts = 0;
	memset(&a->detail, 0, sizeof(a->detail));
	a->detail_err = 0;

	/* fs: the filesystem's fsync in the caller */
	if (sr->fs_start)
		paint_add(a, &p, FSS_PH_FS, sr->fs_start,
			  sr->fs_end ? sr->fs_end : p.e);

	/* journal: commits of this fs in the window, and the xfs log force */
	if (sr->log_start && sr->log_start < p.e) {
		paint_add(a, &p, FSS_PH_JOURNAL, sr->log_start, p.e);
		res->journal_seen = true;
	}
	a->cand.n = 0;
	err = tidx_query(&a->jnl, p.s, p.e, &a->cand);
	if (err)
		return err;
	for (i = 0; i < a->cand.n; i++) {
		struct jrec *j = a->cand.p[i];

		if (j->dev != ev->dev)
			continue;
		res->nr_journal++;
		attr_detail_jnl(a, j);
		if (j->n.end > j->n.first)
			res->journal_seen = true;
		paint_add(a, &p, FSS_PH_JOURNAL, j->n.first, j->n.end);
	}

	/* block requests that belong to this sync */
	a->cand.n = 0;
	if (disk) {
		struct tidx *t = attr_rq_index(a, disk, false);

		err = t ? tidx_query(t, p.s, p.e, &a->cand) : 0;
	} else {	/* disk unknown: every disk's requests */
		err = 0;
		for (i = 0; i < a->ndisks && !err; i++)
			err = tidx_query(&a->disks[i].t, p.s, p.e, &a->cand);
	}
	if (err)
		return err;
	for (i = 0; i < a->cand.n; i++) {
		struct rq *r = a->cand.p[i];

		if (rq_belongs(a, r, ev, disk) && paint_rq(a, &p, r, res))
			saw_flush = true;
	}
	if (p.err)
		return p.err;

	paint_sweep(a, &p, res);
	if (a->opts.detail && !a->detail_err)
		res->detail = &a->detail;

	a->stats.syncs++;
	res->flush_seen = saw_flush;
	if (saw_flush)
		a->stats.syncs_with_flush++;
	else
		a->stats.syncs_no_flush++;
	return 0;
}

