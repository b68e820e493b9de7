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
 * The time index ("tidx") answers "which items overlap [s, e)?" quickly:
 * items are kept in an array sorted by their first timestamp; an item that
 * is still open, or lasted longer than TIDX_LONG_NS, or was evicted from
 * the sorted array while it could still matter, is also listed in a small
 * unsorted side list.  Beside each slot of the sorted array, pm[] keeps an
 * upper bound of the latest end among the closed, short items up to that
 * slot: a query scans back from e only while that bound is past s, then
 * the side list.  On a fast device that is a handful of items however
 * many a slow one elsewhere in the window left behind.
 *
 * The model itself (which requests belong to a sync, which interval is
 * which phase) is documented in docs/model.md; keep the two in step.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "attr.h"

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
#define TIDX_LONG_NS		(10 * NSEC_PER_MSEC)
/* Journal threads remembered (one per mounted journalled fs, roughly). */
#define ATTR_MAX_JTHREADS	256

#define OPEN_END		UINT64_MAX

static const char *const phase_names[FSS_PH_MAX] = {
	[FSS_PH_FS]		= "fs",
	[FSS_PH_JOURNAL]	= "journal",
	[FSS_PH_QUEUE]		= "queue",
	[FSS_PH_DEV_WRITE]	= "device_write",
	[FSS_PH_DEV_FLUSH]	= "device_flush",
	[FSS_PH_OTHER]		= "other",
};

static const char *const kind_names[FSS_SYNC_KIND_MAX] = {
	[FSS_SYNC_FSYNC]		= "fsync",
	[FSS_SYNC_FDATASYNC]		= "fdatasync",
	[FSS_SYNC_SYNC_FILE_RANGE]	= "sync_file_range",
	[FSS_SYNC_MSYNC]		= "msync",
	[FSS_SYNC_SYNCFS]		= "syncfs",
	[FSS_SYNC_DSYNC_WRITE]		= "dsync_write",
	[FSS_SYNC_IOURING_FSYNC]	= "io_uring_fsync",
};

const char *fss_phase_name(enum fss_phase ph)
{
	return (unsigned int)ph < FSS_PH_MAX ? phase_names[ph] : "?";
}

const char *fss_sync_kind_name(enum fss_sync_kind kind)
{
	return (unsigned int)kind < FSS_SYNC_KIND_MAX ? kind_names[kind] : "?";
}

/* ---- time index ---- */

struct tnode {
	__u64 first;		/* first event, or interval start */
	__u64 end;		/* last completion / interval end; OPEN_END if open */
	__u64 last;		/* last event seen (to expire lost requests) */
	long side;		/* index in tidx.side, or -1 */
	bool in_recent;		/* listed in the sorted array */
};

/*
 * Invariant of pm: pm[i] >= pm[i - 1] and pm[i] >= tnode_reach(v[i]), so
 * pm[i] bounds the end of every item in v[head .. i] that is not in the
 * side list.  Forgetting items at the head keeps it true.
 */
struct tidx {
	struct tnode **v;	/* v[head .. head + len) sorted by first */
	__u64 *pm;		/* pm[i]: see above; same slots as v */
	size_t head, len, cap;
	struct tnode **side;	/* open, long or evicted-but-alive items */
	size_t nside, cside;
};

typedef void (*tnode_free_fn)(struct tnode *n, void *ctx);

static bool tnode_needs_side(const struct tnode *n)
{
	return n->end == OPEN_END || n->end - n->first > TIDX_LONG_NS ||
	       !n->in_recent;
}

static bool tnode_overlaps(const struct tnode *n, __u64 s, __u64 e)
{
	return n->first < e && n->end > s;
}

/* How far an item in v reaches for the scan: side items are found apart. */
static __u64 tnode_reach(const struct tnode *n)
{
	return n->side < 0 ? n->end : 0;
}

/* Restore the pm invariant from slot i on, after v[i] changed. */
static void tidx_pm_fix(struct tidx *t, size_t i)
{
	size_t end = t->head + t->len;
	__u64 m = i > t->head ? t->pm[i - 1] : 0;

	/* slot i always (it may be new); later ones until they already hold */
	do {
		if (tnode_reach(t->v[i]) > m)
			m = tnode_reach(t->v[i]);
		t->pm[i++] = m;
	} while (i < end && t->pm[i] < m);
}

/*
 * First index in the sorted array whose item starts at or after ts.  The
 * callers ask about recent times: gallop back from the tail, then bisect.
 */
static size_t tidx_upper(const struct tidx *t, __u64 ts)
{
	size_t lo = t->head, hi = t->head + t->len, step = 1;

	while (hi > t->head) {
		size_t p = hi - t->head > step ? hi - step : t->head;

		if (t->v[p]->first < ts) {
			lo = p + 1;
			break;
		}
		hi = p;
		step *= 2;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid]->first < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int tidx_side_add(struct tidx *t, struct tnode *n)
{
	if (n->side >= 0)
		return 0;
	if (t->nside == t->cside) {
		size_t nc = t->cside ? t->cside * 2 : 64;
		struct tnode **p = realloc(t->side, nc * sizeof(*p));

		if (!p)
			return -ENOMEM;
		t->side = p;
		t->cside = nc;
	}
	n->side = (long)t->nside;
	t->side[t->nside++] = n;
	return 0;
}

static void tidx_side_del(struct tidx *t, struct tnode *n)
{
	struct tnode *last;

	if (n->side < 0)
		return;
	last = t->side[--t->nside];
	t->side[n->side] = last;
	last->side = n->side;
	n->side = -1;
}

static int tidx_insert(struct tidx *t, struct tnode *n)
{
	size_t i, end;

	if (t->head + t->len == t->cap) {
		if (t->head > t->cap / 2) {
			memmove(t->v, t->v + t->head, t->len * sizeof(*t->v));
			memmove(t->pm, t->pm + t->head, t->len * sizeof(*t->pm));
			t->head = 0;
		} else {
			size_t nc = t->cap ? t->cap * 2 : 256;
			struct tnode **p = realloc(t->v, nc * sizeof(*p));
			__u64 *q;

			if (!p)
				return -ENOMEM;
			t->v = p;	/* cap unchanged until pm grew too */
			q = realloc(t->pm, nc * sizeof(*q));
			if (!q)
				return -ENOMEM;
			t->pm = q;
			t->cap = nc;
		}
	}
	n->side = -1;
	n->in_recent = true;
	if (tnode_needs_side(n) && tidx_side_add(t, n))
		return -ENOMEM;
	/* records arrive nearly sorted: insertion from the tail is cheap */
	end = t->head + t->len;
	for (i = end; i > t->head && t->v[i - 1]->first > n->first; i--)
		;
	memmove(t->v + i + 1, t->v + i, (end - i) * sizeof(*t->v));
	memmove(t->pm + i + 1, t->pm + i, (end - i) * sizeof(*t->pm));
	t->v[i] = n;
	t->len++;
	tidx_pm_fix(t, i);
	return 0;
}

/*
 * After n->end changed.  An item that leaves the side list is found in v
 * by its start (updates come for recent items, near the tail) and the
 * bound fixed from there.
 */
static int tidx_update(struct tidx *t, struct tnode *n)
{
	size_t i;

	if (tnode_needs_side(n))
		return tidx_side_add(t, n);
	tidx_side_del(t, n);
	for (i = tidx_upper(t, n->first + 1); i > t->head; i--) {
		if (t->v[i - 1] == n) {
			tidx_pm_fix(t, i - 1);
			return 0;
		}
		if (t->v[i - 1]->first < n->first)
			break;
	}
	return -EINVAL;		/* in_recent but not in v: cannot happen */
}

struct ptrvec {
	void **p;
	size_t n, cap;
};

static int ptrvec_push(struct ptrvec *v, void *x)
{
	if (v->n == v->cap) {
		size_t nc = v->cap ? v->cap * 2 : 64;
		void **p = realloc(v->p, nc * sizeof(*p));

		if (!p)
			return -ENOMEM;
		v->p = p;
		v->cap = nc;
	}
	v->p[v->n++] = x;
	return 0;
}

/* Append every item overlapping [s, e) to out. */
static int tidx_query(const struct tidx *t, __u64 s, __u64 e, struct ptrvec *out)
{
	size_t i;

	for (i = tidx_upper(t, e); i > t->head; i--) {
		struct tnode *n = t->v[i - 1];

		if (t->pm[i - 1] <= s)
			break;	/* v[head .. i - 1] all ended by s */
		if (n->side < 0 && tnode_overlaps(n, s, e) &&
		    ptrvec_push(out, n))
			return -ENOMEM;
	}
	for (i = 0; i < t->nside; i++) {
		struct tnode *n = t->side[i];

		if (tnode_overlaps(n, s, e) && ptrvec_push(out, n))
			return -ENOMEM;
	}
	return 0;
}

/*
 * Forget items that ended before cutoff, and open items whose last event is
 * older than stale_before (their completion was lost).
 */
static void tidx_gc(struct tidx *t, __u64 cutoff, __u64 stale_before,
		    tnode_free_fn fn, void *ctx)
{
	size_t i;

	while (t->len && t->v[t->head]->first < cutoff) {
		struct tnode *n = t->v[t->head];

		n->in_recent = false;
		if (n->end != OPEN_END && n->end < cutoff) {
			tidx_side_del(t, n);
			fn(n, ctx);
		} else if (tidx_side_add(t, n)) {
			n->in_recent = true;	/* keep it; retry next time */
			break;
		}
		t->head++;
		t->len--;
	}
	if (!t->len)
		t->head = 0;
	for (i = 0; i < t->nside;) {
		struct tnode *n = t->side[i];
		bool gone = n->end != OPEN_END ? n->end < cutoff :
			    n->last < stale_before;

		if (!n->in_recent && gone) {
			tidx_side_del(t, n);	/* moves the last one to i */
			fn(n, ctx);
		} else {
			i++;
		}
	}
}

static void tidx_destroy(struct tidx *t, tnode_free_fn fn, void *ctx)
{
	size_t i;

	/* every item is in v, or only in side (in_recent false) */
	for (i = 0; i < t->nside; i++)
		if (!t->side[i]->in_recent)
			fn(t->side[i], ctx);
	for (i = 0; i < t->len; i++)
		fn(t->v[t->head + i], ctx);
	free(t->v);
	free(t->pm);
	free(t->side);
	memset(t, 0, sizeof(*t));
}

/* ---- requests ---- */

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

/* The time index of dev's requests; create: make it if missing. */
static struct tidx *rq_index(struct fss_attr *a, __u32 dev, bool create)
{
	struct disk_idx *d;
	size_t i;

	if (a->last_disk < a->ndisks && a->disks[a->last_disk].dev == dev)
		return &a->disks[a->last_disk].t;
	for (i = 0; i < a->ndisks; i++) {
		if (a->disks[i].dev == dev) {
			a->last_disk = i;
			return &a->disks[i].t;
		}
	}
	if (!create)
		return NULL;
	if (a->ndisks == a->cdisks) {
		size_t nc = a->cdisks ? a->cdisks * 2 : 4;

		d = realloc(a->disks, nc * sizeof(*d));
		if (!d)
			return NULL;
		a->disks = d;
		a->cdisks = nc;
	}
	d = &a->disks[a->ndisks];
	memset(d, 0, sizeof(*d));
	d->dev = dev;
	a->last_disk = a->ndisks++;
	return &d->t;
}

static __u64 hash_id(__u64 id)
{
	return id * 0x9e3779b97f4a7c15ULL;
}

static struct rq **hash_slot(struct fss_attr *a, __u64 id)
{
	return &a->hash[hash_id(id) >> (64 - a->hash_bits)];
}

static int hash_grow(struct fss_attr *a)
{
	unsigned int bits = a->hash_bits + 1;
	size_t i, n = (size_t)1 << a->hash_bits;
	struct rq **nh = calloc((size_t)1 << bits, sizeof(*nh));

	if (!nh)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct rq *r = a->hash[i], *next;

		for (; r; r = next) {
			struct rq **slot = &nh[hash_id(r->id) >> (64 - bits)];

			next = r->hnext;
			r->hnext = *slot;
			*slot = r;
		}
	}
	free(a->hash);
	a->hash = nh;
	a->hash_bits = bits;
	return 0;
}

/* The current request with this id on this disk (any disk if anydev). */
static struct rq *hash_find(struct fss_attr *a, __u32 dev, __u64 id,
			    bool anydev)
{
	struct rq *r;

	for (r = *hash_slot(a, id); r; r = r->hnext)
		if (r->id == id && (anydev || r->dev == dev))
			return r;
	return NULL;
}

static void hash_del(struct fss_attr *a, struct rq *r)
{
	struct rq **p;

	if (!r->in_hash)
		return;
	for (p = hash_slot(a, r->id); *p; p = &(*p)->hnext) {
		if (*p == r) {
			*p = r->hnext;
			break;
		}
	}
	r->hnext = NULL;
	r->in_hash = false;
	a->nhashed--;
}

static void hash_add(struct fss_attr *a, struct rq *r)
{
	struct rq **slot;

	/* a failed grow only makes chains longer */
	if (a->nhashed >= ((size_t)1 << a->hash_bits) && a->hash_bits < 30)
		hash_grow(a);
	slot = hash_slot(a, r->id);
	r->hnext = *slot;
	*slot = r;
	r->in_hash = true;
	a->nhashed++;
}

static void rq_free(struct tnode *n, void *ctx)
{
	struct fss_attr *a = ctx;
	struct rq *r = (struct rq *)n;

	hash_del(a, r);
	a->nrqs--;
	if (!(r->has & (RQ_HAS_COMPLETE | RQ_HAS_LOST)))
		a->nopen--;
	if (a->nfree < RQ_FREE_MAX) {
		r->hnext = a->free_rqs;
		a->free_rqs = r;
		a->nfree++;
	} else {
		free(r);
	}
}

static void jrec_free(struct tnode *n, void *ctx)
{
	struct fss_attr *a = ctx;

	a->njnl--;
	free(n);
}

static int rq_new(struct fss_attr *a, const struct fss_event *ev, struct rq **out)
{
	struct rq *r = a->free_rqs, *old;
	struct tidx *t;

	if (r) {
		a->free_rqs = r->hnext;
		a->nfree--;
	} else {
		r = malloc(sizeof(*r));
		if (!r)
			return -ENOMEM;
	}
	memset(r, 0, sizeof(*r));
	r->id = ev->rq.id;
	r->dev = ev->dev;
	r->first_tid = ev->tid;
	r->first_flags = ev->rq.flags;
	r->n.first = ev->ts;
	r->n.end = OPEN_END;
	r->n.last = ev->ts;
	t = rq_index(a, ev->dev, true);
	if (!t || tidx_insert(t, &r->n)) {
		free(r);
		return -ENOMEM;
	}
	a->nrqs++;
	a->nopen++;
	/* the id now names this request; an older one keeps its history */
	old = hash_find(a, ev->dev, ev->rq.id, false);
	if (old)
		hash_del(a, old);
	hash_add(a, r);
	*out = r;
	return 0;
}

/*
 * Does this START or ISSUE of an open (not completed) request r begin a
 * new request with the same id?  Yes for a creation (block_io_start comes
 * once per request), and for an insert or issue after r was issued with no
 * requeue since: a request is only issued again after it was put back.
 * Then r's completion was lost.
 */
static bool rq_reused(const struct rq *r, const struct fss_event *ev)
{
	if (ev->type == FSS_EV_RQ_START && (ev->rq.flags & FSS_RQ_CREATE))
		return true;
	return (r->has & RQ_HAS_ISSUE) && !(r->has & RQ_HAS_REQUEUED);
}

/*
 * r ended before ts without a completion we saw (ts: its id in use again).
 * It stays a request with no completion (nr_incomplete), but its paint now
 * ends at ts instead of at the end of every sync that comes after it.
 */
static int rq_lost(struct fss_attr *a, struct rq *r, __u64 ts)
{
	r->has |= RQ_HAS_LOST;
	a->nopen--;
	r->lost_at = ts > r->n.first ? ts : r->n.first;
	r->n.end = r->lost_at;
	hash_del(a, r);
	return tidx_update(rq_index(a, r->dev, false), &r->n);
}

static int add_rq_event(struct fss_attr *a, const struct fss_event *ev)
{
	bool nvme = ev->type == FSS_EV_NVME_SETUP ||
		    ev->type == FSS_EV_NVME_COMPLETE;
	/* NVMe events that carry no disk dev_t are joined on the id alone */
	struct rq *r = hash_find(a, ev->dev, ev->rq.id, nvme && !ev->dev);
	bool done = r && (r->has & RQ_HAS_COMPLETE);
	int err;

	if ((ev->type == FSS_EV_RQ_START || ev->type == FSS_EV_RQ_ISSUE) &&
	    r && !done && rq_reused(r, ev)) {
		err = rq_lost(a, r, ev->ts);
		if (err)
			return err;
		r = NULL;
	}

	switch (ev->type) {
	case FSS_EV_RQ_START:
		if (!r || done) {
			err = rq_new(a, ev, &r);
			if (err)
				return err;
		}
		/* a second START (insert after block_io_start) is the same one */
		if (!(r->has & (RQ_HAS_START | RQ_HAS_ISSUE))) {
			r->has |= RQ_HAS_START;
			r->start = ev->ts;
			r->start_flags = ev->rq.flags;
		}
		break;
	case FSS_EV_RQ_ISSUE:
		if (!r || done) {
			err = rq_new(a, ev, &r);
			if (err)
				return err;
		}
		/* a requeued request is issued again: keep the first issue */
		r->has &= ~RQ_HAS_REQUEUED;
		if (!(r->has & RQ_HAS_ISSUE)) {
			r->has |= RQ_HAS_ISSUE;
			r->issue = ev->ts;
			r->issue_flags = ev->rq.flags;
		}
		break;
	case FSS_EV_RQ_COMPLETE:
		if (!r) {
			a->orphans++;
			return 0;
		}
		if (!(r->has & RQ_HAS_COMPLETE)) {
			if (!(r->has & RQ_HAS_LOST))
				a->nopen--;
			r->has |= RQ_HAS_COMPLETE;
			r->complete = ev->ts;
			r->final = ev->ts;
		} else if (ev->ts > r->final) {
			r->final = ev->ts;	/* e.g. after the post-flush */
		}
		r->n.end = r->final > r->n.first ? r->final : r->n.first;
		break;
	case FSS_EV_RQ_REQUEUE:
		if (!r)
			a->orphans++;
		if (!r || done)
			return 0;	/* after a partial completion: a new one */
		r->has |= RQ_HAS_REQUEUED;
		break;
	case FSS_EV_NVME_SETUP:
		if (!r || done || (r->has & RQ_HAS_NVME_SETUP)) {
			a->orphans++;
			return 0;
		}
		r->has |= RQ_HAS_NVME_SETUP;
		r->nvme_setup = ev->ts;
		r->nvme_opcode = ev->rq.nvme_opcode;
		break;
	case FSS_EV_NVME_COMPLETE:
		if (!r || !(r->has & RQ_HAS_NVME_SETUP) ||
		    (r->has & RQ_HAS_NVME_COMPLETE)) {
			a->orphans++;
			return 0;
		}
		r->has |= RQ_HAS_NVME_COMPLETE;
		r->nvme_complete = ev->ts;
		break;
	}
	r->all_flags |= ev->rq.flags;
	if (ev->ts > r->n.last)
		r->n.last = ev->ts;
	return tidx_update(rq_index(a, r->dev, false), &r->n);
}

/* ---- journal ---- */

static void jthread_note(struct fss_attr *a, __u32 dev, __u32 tid, __u64 ts)
{
	unsigned int i, oldest = 0;

	for (i = 0; i < a->njthreads; i++) {
		struct jthread *j = &a->jthreads[i];

		if (j->dev == dev && j->tid == tid) {
			if (ts > j->last)
				j->last = ts;
			return;
		}
		if (j->last < a->jthreads[oldest].last)
			oldest = i;
	}
	if (a->njthreads < ATTR_MAX_JTHREADS)
		i = a->njthreads++;
	else
		i = oldest;
	a->jthreads[i].dev = dev;
	a->jthreads[i].tid = tid;
	a->jthreads[i].last = ts;
}

static bool is_jthread(const struct fss_attr *a, __u32 dev, __u32 tid)
{
	unsigned int i;

	for (i = 0; i < a->njthreads; i++)
		if (a->jthreads[i].dev == dev && a->jthreads[i].tid == tid)
			return true;
	return false;
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
	jthread_note(a, ev->dev, ev->tid, ev->ts_end);
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
		tidx_destroy(&a->disks[i].t, rq_free, a);
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
	free(a->seg);
	free(a->rqd);
	free(a->jd);
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
		int err = add_rq_event(a, ev);

		if (err)
			return err;
	}
	if (latest > a->max_seen)
		a->max_seen = latest;
	return 0;
}

/* ---- painting ---- */

/* Grow *v (of elem bytes each) to hold n + 1; false on ENOMEM. */
static bool grow(void **v, size_t *cap, size_t n, size_t elem)
{
	void *p;
	size_t nc;

	if (n < *cap)
		return true;
	nc = *cap ? *cap * 2 : 16;
	p = realloc(*v, nc * elem);
	if (!p)
		return false;
	*v = p;
	*cap = nc;
	return true;
}

static void detail_seg(struct fss_attr *a, __u64 from, __u64 to, int ph)
{
	struct fss_sync_detail *d = &a->detail;

	if (!a->opts.detail)
		return;
	if (d->nseg && a->seg[d->nseg - 1].phase == (__u32)ph &&
	    a->seg[d->nseg - 1].to == from) {
		a->seg[d->nseg - 1].to = to;
		return;
	}
	if (!grow((void **)&a->seg, &a->cseg, d->nseg, sizeof(*a->seg))) {
		a->detail_err = -ENOMEM;
		return;
	}
	a->seg[d->nseg++] = (struct fss_seg){ from, to, (__u32)ph };
	d->seg = a->seg;
}

static void detail_rq(struct fss_attr *a, const struct rq *r, __u32 cls,
		      __u64 end)
{
	struct fss_sync_detail *d = &a->detail;

	if (!a->opts.detail)
		return;
	if (!grow((void **)&a->rqd, &a->crqd, d->nrq, sizeof(*a->rqd))) {
		a->detail_err = -ENOMEM;
		return;
	}
	a->rqd[d->nrq++] = (struct fss_rq_span){
		.id = r->id, .dev = r->dev, .cls = cls,
		.start = (r->has & RQ_HAS_START) ? r->start :
			 (r->has & RQ_HAS_ISSUE) ? r->issue : r->n.first,
		.issue = (r->has & RQ_HAS_ISSUE) ? r->issue : 0,
		.end = end, .completed = r->has & RQ_HAS_COMPLETE,
	};
	d->rq = a->rqd;
}

static void detail_jnl(struct fss_attr *a, const struct jrec *j)
{
	struct fss_sync_detail *d = &a->detail;

	if (!a->opts.detail)
		return;
	if (!grow((void **)&a->jd, &a->cjd, d->njnl, sizeof(*a->jd))) {
		a->detail_err = -ENOMEM;
		return;
	}
	a->jd[d->njnl++] = (struct fss_jnl_span){ j->dev, j->n.first, j->n.end };
	d->jnl = a->jd;
}

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
			detail_seg(a, cur, t, ph >= 0 ? ph : FSS_PH_OTHER);
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
	if (is_jthread(a, ev->dev, r->first_tid))
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
	detail_rq(a, r, pure_flush || nvme_flush ? FSS_RQC_FLUSH : fua_native ?
		  FSS_RQC_FUA : preflush ? FSS_RQC_PREFLUSH : FSS_RQC_WRITE,
		  completed ? (nvme ? r->nvme_complete : r->complete) : open_end);

	return pure_flush || preflush || (asked & FSS_RQ_FUA) || fua_native ||
	       nvme_flush;
}

static int paint_sync(struct fss_attr *a, const struct fss_event *ev,
		      struct fss_sync_result *res)
{
	struct paint p = { .s = ev->ts, .e = ev->ts_end };
	const struct fss_sync_rec *sr = &ev->sync;
	__u32 disk = a->opts.disk_of ?
		     a->opts.disk_of(ev->dev, a->opts.disk_of_arg) : 0;
	bool saw_flush = false;
	size_t i;
	int err;

	memset(res, 0, sizeof(*res));
	res->start = p.s;
	res->total = p.e - p.s;
	res->tid = ev->tid;
	res->pid = ev->pid;
	res->kind = sr->kind;
	res->dev = ev->dev;
	res->ino = sr->ino;
	res->ret = sr->ret;
	memcpy(res->comm, ev->comm, sizeof(res->comm));
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
		detail_jnl(a, j);
		if (j->n.end > j->n.first)
			res->journal_seen = true;
		paint_add(a, &p, FSS_PH_JOURNAL, j->n.first, j->n.end);
	}

	/* block requests that belong to this sync */
	a->cand.n = 0;
	if (disk) {
		struct tidx *t = rq_index(a, disk, false);

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
	if (saw_flush)
		a->stats.syncs_with_flush++;
	else
		a->stats.syncs_no_flush++;
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
		err = paint_sync(a, &a->pend[n].ev, &res);
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
		tidx_gc(&a->disks[i].t, cutoff, stale, rq_free, a);
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
