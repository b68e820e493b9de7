/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * attr_int.h - internals shared by the attribution modules (not for
 * callers: they use attr.h):
 *
 *   attr.c        names, life cycle, input (fss_attr_add), journal
 *                 commits, draining and the flush statistics
 *   attr_rq.c     block requests: one struct rq per life of a
 *                 (disk, struct request *) pair, its hash and time index
 *   attr_paint.c  painting one sync: which requests and commits belong to
 *                 it, and the sweep that turns them into phase times
 *   attr_detail.c the opt-in detail of a sync (segments, requests,
 *                 commits) for --events
 *   tidx.c        the time index all of them use
 */
#ifndef __FSS_ATTR_INT_H
#define __FSS_ATTR_INT_H

#include <stdbool.h>
#include <stddef.h>
#include "engine/attr/attr.h"
#include "engine/attr/tidx.h"

#define NSEC_PER_MSEC		1000000ULL
#define NSEC_PER_SEC		1000000000ULL

/*
 * Events older than the horizon minus this are forgotten (see drain), unless
 * a sync known to be in flight (fss_attr_hold) or waiting to be painted
 * overlaps them.  The slack only has to cover syncs the tracer cannot see
 * in flight (io_uring fsyncs, two threads on one in-flight slot): 250 ms
 * keeps the memory of a 20k-syncs/s run at a quarter second of requests.
 */
#define ATTR_SLACK_NS		(250 * NSEC_PER_MSEC)
/* A request with no completion for this long is taken as lost. */
#define ATTR_STALE_NS		(30 * NSEC_PER_SEC)
/* Items longer than this also go to the side list of the time index. */
/* Journal threads remembered (one per mounted journalled fs, roughly). */
#define ATTR_MAX_JTHREADS	256


enum {
	RQ_HAS_START		= 1 << 0,
	RQ_HAS_ISSUE		= 1 << 1,
	RQ_HAS_COMPLETE		= 1 << 2,
	RQ_HAS_NVME_SETUP	= 1 << 3,
	RQ_HAS_NVME_COMPLETE	= 1 << 4,
	RQ_HAS_REQUEUED		= 1 << 5,	/* put back, not issued again yet */
	RQ_HAS_LOST		= 1 << 6,	/* its id was reused, no completion seen */
};

/* What a request counts as in the flush statistics (bit per counter). */
enum {
	RQ_CNT_FLUSH		= 1 << 0,
	RQ_CNT_FUA		= 1 << 1,
	RQ_CNT_FUA_EMU		= 1 << 2,
	RQ_CNT_PREFLUSH		= 1 << 3,
	RQ_CNT_NVME_FLUSH	= 1 << 4,
	RQ_CNT_INCOMPLETE	= 1 << 5,
};

struct rq {
	struct tnode n;		/* first = first event, end = last COMPLETE */
	struct rq *hnext;	/* hash chain, while the current owner of the id */
	__u64 id;
	__u32 dev;
	__u32 first_tid;
	__u32 first_flags;	/* FSS_RQ_* of the first event */
	__u32 start_flags;
	__u32 issue_flags;
	__u32 all_flags;	/* OR of every event's flags */
	__u64 start, issue, complete, final;
	__u64 lost_at;		/* RQ_HAS_LOST: when its id began another request */
	__u64 nvme_setup, nvme_complete;
	__u32 nvme_opcode;
	__u32 stat_epoch;	/* stats epoch stat_mask belongs to */
	__u8 has;		/* RQ_HAS_* */
	__u8 stat_mask;		/* RQ_CNT_* already counted in stat_epoch */
	bool in_hash;
};

struct jrec {
	struct tnode n;		/* [start_commit, end_commit] */
	__u32 dev;		/* fs dev_t */
	__u32 tid;		/* journal thread */
};

struct jthread {
	__u32 dev, tid;
	__u64 last;
};

struct pending {
	struct fss_event ev;	/* pend is sorted by ev.ts_end, then arrival */
};

/* One endpoint of a phase interval, for the sweep. */
struct paint_pt {
	__u64 t;
	__u32 phase;
	__s32 delta;
};

/*
 * Requests are indexed per disk: a sync looks only at its own disk's, so a
 * slow disk elsewhere (whose requests set the look-back) costs it nothing.
 */
struct disk_idx {
	__u32 dev;
	struct tidx t;
};

struct fss_attr {
	struct fss_attr_opts opts;

	struct rq **hash;	/* current owner of each (dev, id) */
	unsigned int hash_bits;
	size_t nhashed;
	struct rq *free_rqs;	/* recycled request records */
	size_t nfree;

	struct disk_idx *disks;	/* a time index of requests per disk */
	size_t ndisks, cdisks, last_disk;
	size_t nrqs;
	size_t nopen;		/* requests not completed, not ended by a reuse */
	struct tidx jnl;
	size_t njnl;
	struct jthread jthreads[ATTR_MAX_JTHREADS];
	unsigned int njthreads;

	struct pending *pend;
	size_t phead, npend, cpend;	/* waiting: pend[phead .. npend) */

	__u64 max_seen;		/* latest timestamp in any record */
	__u64 hold;		/* start of the oldest sync in flight (0: none) */
	__u64 orphans;		/* events for requests we never saw begin */

	struct fss_flush_stats stats;
	__u32 epoch;

	/* scratch for painting one sync */
	struct ptrvec cand;
	struct paint_pt *pts;
	size_t npts, cpts;

	/* opts.detail: what the sync was made of (fss_sync_detail) */
	struct fss_sync_detail detail;
	struct fss_seg *seg;
	struct fss_rq_span *rqd;
	struct fss_jnl_span *jd;
	size_t cseg, crqd, cjd;
	int detail_err;
};

#define RQ_FREE_MAX	4096

/* attr_rq.c: requests */

/* The time index of dev's requests; create: make it if missing. */
struct tidx *attr_rq_index(struct fss_attr *a, __u32 dev, bool create);
/* One block-layer or NVMe record (not a sync, not a journal commit). */
int attr_rq_event(struct fss_attr *a, const struct fss_event *ev);
/* tnode_free_fn of the request indexes (ctx: the struct fss_attr). */
void attr_rq_free(struct tnode *n, void *ctx);

/* attr.c: journal threads */

/* attr_jnl.c: note a journal thread at ts; is (dev, tid) one of them? */
void attr_jthread_note(struct fss_attr *a, __u32 dev, __u32 tid, __u64 ts);
bool attr_is_jthread(const struct fss_attr *a, __u32 dev, __u32 tid);

/* attr_paint.c */

/* Paint the sync of record ev into res (and the flush statistics). */
int attr_paint_sync(struct fss_attr *a, const struct fss_event *ev,
		    struct fss_sync_result *res);

/* attr_detail.c: each a no-op unless opts.detail; ENOMEM in detail_err */

void attr_detail_seg(struct fss_attr *a, __u64 from, __u64 to, int ph);
void attr_detail_rq(struct fss_attr *a, const struct rq *r, __u32 cls,
		    __u64 end);
void attr_detail_jnl(struct fss_attr *a, const struct jrec *j);
void attr_detail_free(struct fss_attr *a);

#endif /* __FSS_ATTR_INT_H */
