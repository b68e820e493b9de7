// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * attr.c - attribution ("painting") of sync timelines into phases.
 *
 * Records come in as they are read from the ring buffer: roughly, not
 * strictly, in time order; a sync's record arrives at its exit, after the
 * events that happened inside it.  We keep
 *
 *  - requests: one struct rq per life of a (disk, struct request *) pair,
 *    found by a hash on the id while it is the current owner of that id,
 *    and kept in its disk's time index for the painting;
 *  - journal commits (jbd2) in a second time index, and the set of journal
 *    threads per filesystem;
 *  - pending syncs, painted when fss_attr_drain() is told that nothing
 *    older than its horizon can still arrive.
 *
 * Where things are (attr_int.h lists the modules): requests in attr_rq.c,
 * the time index in tidx.c, painting in attr_paint.c, the opt-in detail
 * in attr_detail.c; this file has the names, the life cycle, the input,
 * journal commits, draining and the statistics.
 *
 * The model itself (which requests belong to a sync, which interval is
 * which phase) is documented in docs/model.md; keep the two in step.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "engine/attr/attr_int.h"

static const char *const kind_names[FSS_SYNC_KIND_MAX] = {
	[FSS_SYNC_FSYNC]		= "fsync",
	[FSS_SYNC_FDATASYNC]		= "fdatasync",
	[FSS_SYNC_SYNC_FILE_RANGE]	= "sync_file_range",
	[FSS_SYNC_MSYNC]		= "msync",
	[FSS_SYNC_SYNCFS]		= "syncfs",
	[FSS_SYNC_DSYNC_WRITE]		= "dsync_write",
	[FSS_SYNC_IOURING_FSYNC]	= "io_uring_fsync",
};

const char *fss_sync_kind_name(enum fss_sync_kind kind)
{
	return (unsigned int)kind < FSS_SYNC_KIND_MAX ? kind_names[kind] : "?";
}

/* the JSON keys and metric labels of enum fss_summ_why (docs/hotpath.md) */
static const char *const why_names[FSS_SUMM_WHY_MAX] = {
	[FSS_SUMM_TRACED]	= "traced",
	[FSS_SUMM_RING_HIGH]	= "ring_high",
	[FSS_SUMM_LOST_NEAR]	= "lost_near",
	[FSS_SUMM_RING_FULL]	= "ring_full",
	[FSS_SUMM_LOST_AFTER]	= "lost_after",
	[FSS_SUMM_SAMPLED]	= "sampled",
	[FSS_SUMM_UNPAINTED]	= "unpainted",
};

const char *fss_summ_why_name(enum fss_summ_why why)
{
	return (unsigned int)why < FSS_SUMM_WHY_MAX ? why_names[why] : "?";
}

/* ---- journal ---- */

static void jrec_free(struct tnode *n, void *ctx)
{
	struct fss_attr *a = ctx;

	a->njnl--;
	free(n);
}

static int add_journal(struct fss_attr *a, const struct fss_event *ev)
{
	struct jrec *j = calloc(1, sizeof(*j));

	if (!j)
		return -ENOMEM;
	j->n.first = ev->ts;
	j->n.end = ev->ts_end;
	j->n.last = ev->ts_end;
	j->dev = ev->dev;
	j->tid = ev->tid;
	if (tidx_insert(&a->jnl, &j->n)) {
		free(j);
		return -ENOMEM;
	}
	a->njnl++;
	attr_jthread_note(a, ev->dev, ev->tid, ev->ts_end);
	return 0;
}

/* ---- public: life cycle and input ---- */

struct fss_attr *fss_attr_new(const struct fss_attr_opts *opts)
{
	struct fss_attr *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	if (opts)
		a->opts = *opts;
	a->hash_bits = 10;
	a->hash = calloc((size_t)1 << a->hash_bits, sizeof(*a->hash));
	if (!a->hash) {
		free(a);
		errno = ENOMEM;
		return NULL;
	}
	return a;
}

void fss_attr_free(struct fss_attr *a)
{
	struct rq *r, *next;

	if (!a)
		return;
	for (size_t i = 0; i < a->ndisks; i++)
		tidx_destroy(&a->disks[i].t, attr_rq_free, a);
	free(a->disks);
	tidx_destroy(&a->jnl, jrec_free, a);
	for (r = a->free_rqs; r; r = next) {
		next = r->hnext;
		free(r);
	}
	free(a->hash);
	free(a->pend);
	free(a->cand.p);
	free(a->pts);
	attr_detail_free(a);
	free(a);
}

int fss_attr_add(struct fss_attr *a, const struct fss_event *ev)
{
	__u64 latest;
	size_t i;

	if (!a || !ev)
		return -EINVAL;
	switch (ev->type) {
	case FSS_EV_SYNC:
		if (ev->sync.kind >= FSS_SYNC_KIND_MAX)
			return -EINVAL;
		/* fall through */
	case FSS_EV_JOURNAL:
		if (ev->ts_end < ev->ts)
			return -EINVAL;
		latest = ev->ts_end;
		break;
	case FSS_EV_RQ_START:
	case FSS_EV_RQ_ISSUE:
	case FSS_EV_RQ_COMPLETE:
	case FSS_EV_NVME_SETUP:
	case FSS_EV_NVME_COMPLETE:
	case FSS_EV_RQ_REQUEUE:
		latest = ev->ts;
		break;
	default:
		return -EINVAL;
	}

	if (ev->type == FSS_EV_SYNC) {
		if (a->npend == a->cpend && a->phead > a->cpend / 2) {
			a->npend -= a->phead;
			memmove(a->pend, a->pend + a->phead,
				a->npend * sizeof(*a->pend));
			a->phead = 0;
		} else if (a->npend == a->cpend) {
			size_t nc = a->cpend ? a->cpend * 2 : 256;
			struct pending *p = realloc(a->pend, nc * sizeof(*p));

			if (!p)
				return -ENOMEM;
			a->pend = p;
			a->cpend = nc;
		}
		/*
		 * Keep pend sorted by exit time (then arrival): records come
		 * nearly in order, so the insertion point is at or near the
		 * tail and drain never sorts.
		 */
		i = a->npend;
		while (i > a->phead && a->pend[i - 1].ev.ts_end > ev->ts_end)
			i--;
		if (i < a->npend)
			memmove(a->pend + i + 1, a->pend + i,
				(a->npend - i) * sizeof(*a->pend));
		a->pend[i].ev = *ev;
		a->npend++;
	} else if (ev->type == FSS_EV_JOURNAL) {
		int err = add_journal(a, ev);

		if (err)
			return err;
	} else {
		int err = attr_rq_event(a, ev);

		if (err)
			return err;
	}
	if (latest > a->max_seen)
		a->max_seen = latest;
	return 0;
}

/* ---- draining ---- */

static __u64 sub_sat(__u64 a, __u64 b)
{
	return a > b ? a - b : 0;
}

int fss_attr_drain(struct fss_attr *a, __u64 horizon, fss_sync_cb cb, void *arg)
{
	struct fss_sync_result res;
	size_t n, i, painted;
	__u64 cutoff, stale;
	int err = 0;

	if (!a)
		return -EINVAL;

	for (n = a->phead;
	     n < a->npend && a->pend[n].ev.ts_end <= horizon; n++) {
		err = attr_paint_sync(a, &a->pend[n].ev, &res);
		if (err)
			break;
		if (cb)
			cb(&res, arg);
	}
	painted = n - a->phead;
	a->phead = n;
	if (a->phead == a->npend)
		a->phead = a->npend = 0;
	if (err)
		return err;

	/*
	 * Forget what ended before every sync that can still be painted:
	 * the oldest pending sync, and (for syncs whose record has not come
	 * yet) anything within the slack of the horizon and of the newest
	 * record seen.
	 */
	cutoff = sub_sat(horizon, ATTR_SLACK_NS);
	if (sub_sat(a->max_seen, ATTR_SLACK_NS) < cutoff)
		cutoff = sub_sat(a->max_seen, ATTR_SLACK_NS);
	for (i = a->phead; i < a->npend; i++)
		if (a->pend[i].ev.ts < cutoff)
			cutoff = a->pend[i].ev.ts;
	if (a->hold && a->hold < cutoff)
		cutoff = a->hold;
	stale = sub_sat(a->max_seen, ATTR_STALE_NS);
	if (stale > cutoff)
		stale = cutoff;
	for (i = 0; i < a->ndisks; i++)
		tidx_gc(&a->disks[i].t, cutoff, stale, attr_rq_free, a);
	tidx_gc(&a->jnl, cutoff, stale, jrec_free, a);
	return (int)painted;
}

void fss_attr_hold(struct fss_attr *a, __u64 ts)
{
	if (a)
		a->hold = ts;
}

size_t fss_attr_open_rqs(const struct fss_attr *a)
{
	return a ? a->nopen : 0;
}

void fss_attr_flush_stats(const struct fss_attr *a, struct fss_flush_stats *st)
{
	if (!st)
		return;
	if (!a) {
		memset(st, 0, sizeof(*st));
		return;
	}
	*st = a->stats;
}

void fss_attr_reset_stats(struct fss_attr *a)
{
	if (!a)
		return;
	memset(&a->stats, 0, sizeof(a->stats));
	a->epoch++;
}

/*
 * Test hook (tests/unit/test_attr.c declares it itself; not part of
 * attr.h): how much the engine holds right now.
 */
void fss_attr__counts(const struct fss_attr *a, size_t *pending, size_t *rqs,
		      size_t *hashed, size_t *journals);

void fss_attr__counts(const struct fss_attr *a, size_t *pending, size_t *rqs,
		      size_t *hashed, size_t *journals)
{
	*pending = a->npend - a->phead;
	*rqs = a->nrqs;
	*hashed = a->nhashed;
	*journals = a->njnl;
}

