// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * blame.c - who made each sync slow (model: docs/blame.md).
 *
 * Input state, all of fixed size:
 *  - owners: the submitters seen (process, cgroup, or a kernel thread's
 *    writeback of an inode), interned to a small index;
 *  - transactions: per (fs dev, jbd2 tid) the handles and blocks of each
 *    contributor (FSS_EV_JHANDLE) and the run stats (FSS_EV_JSTATS);
 *  - commits: the jbd2 commits seen (FSS_EV_JOURNAL): tid, journal thread
 *    and interval;
 *  - per disk, a log of completed requests in completion order (start,
 *    issue, completion, bytes, owner, creator thread), made from the
 *    request records with a direct-mapped table of requests in flight.
 * A sync's blame reads these: the journal time by blocks of the commits it
 * overlapped; queue, device_write and device_flush time by bytes of the
 * requests that went ahead of its own, that the device completed during
 * it, and that the flushes it waited for had to make durable.  Requests
 * of the journal thread during a commit carry that transaction's blocks,
 * so their bytes are split among its contributors.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/blame/blame_int.h"

/* ---- owners ---- */

static bool owner_same(const struct owner *o, const struct fss_event *ev,
		       __u32 flags, __u64 ino)
{
	return o->pid == ev->pid && o->cgroup == ev->blame.cgroup &&
	       o->flags == flags && o->ino == ino;
}

/* Remember pid's comm (from any record that carries one). */
static void comm_note(struct fss_blame *b, __u32 pid, const char *comm)
{
	fss_comms_note(b->comms, pid, comm);
}

/*
 * The comm of an event: its own, else the last one sent for its pid (in
 * this run: the caller's table outlives a test's blame), else the
 * caller's fallback (/proc), noted for good; "?" when nothing knows it.
 */
static const char *comm_of(struct fss_blame *b, const struct fss_event *ev)
{
	char comm[FSS_COMM_LEN] = "";
	const char *c;

	if (ev->comm[0])
		return ev->comm;
	c = fss_comms_get(b->comms, ev->pid);
	if (c)
		return c;
	if (b->opts.comm_fallback &&
	    !b->opts.comm_fallback(ev->pid, ev->tid, comm,
				   b->opts.comm_fallback_arg)) {
		comm_note(b, ev->pid, comm);
		c = fss_comms_get(b->comms, ev->pid);
	}
	return c ? c : "?";
}

/* The index of the submitter an event names (OWNER_UNKNOWN when full). */
static __u32 owner_intern(struct fss_blame *b, const struct fss_event *ev)
{
	__u32 flags = ev->blame.flags & (FSS_BL_WB | FSS_BL_OWNER |
					 FSS_BL_KTHREAD);
	/* a kernel thread's writeback is told apart by inode */
	__u64 ino = (flags & FSS_BL_WB) && !(flags & FSS_BL_OWNER) ?
		    ev->blame.ino : 0;
	__u64 h = ((__u64)ev->pid * 0x9E3779B97F4A7C15ULL) ^
		  (ev->blame.cgroup * 0xC2B2AE3D27D4EB4FULL) ^ (ino << 7) ^ flags;
	unsigned int i, k;

	for (k = 0; k < 32; k++) {
		i = 1 + (unsigned int)((h + k) % (BL_NOWNER - 1));
		struct owner *o = &b->owners[i];

		if (o->used && owner_same(o, ev, flags, ino)) {
			if (ev->comm[0] || !strcmp(o->comm, "?"))
				strncpy(o->comm, comm_of(b, ev), FSS_COMM_LEN);
			return i;
		}
		if (!o->used) {
			o->used = true;
			o->pid = ev->pid;
			o->tid = ev->tid;
			o->cgroup = ev->blame.cgroup;
			o->flags = flags;
			o->wb_dev = flags & FSS_BL_WB ? ev->blame.wb_dev : 0;
			o->ino = ino;	/* the key: 0 when credited */
			strncpy(o->comm, comm_of(b, ev), FSS_COMM_LEN);
			return i;
		}
	}
	return OWNER_UNKNOWN;
}

/* ---- transactions and commits ---- */

static void add_handle(struct fss_blame *b, const struct fss_event *ev)
{
	struct tx *t = fss_blame__tx_find(b, ev->dev, ev->blame.jtid, true);
	__u32 o = owner_intern(b, ev);
	unsigned int i;

	t->handles += ev->blame.handles;
	t->blocks += ev->blame.blocks;
	for (i = 0; i < t->ncontrib; i++)
		if (t->c[i].owner == o)
			break;
	if (i == t->ncontrib) {
		if (t->ncontrib == BL_NCONTRIB || o == OWNER_UNKNOWN) {
			t->folded_handles += ev->blame.handles;
			t->folded_blocks += ev->blame.blocks;
			b->st.contrib_folded++;
			return;
		}
		t->ncontrib++;
		t->c[i].owner = o;
		t->c[i].handles = 0;
		t->c[i].blocks = 0;
	}
	t->c[i].handles += ev->blame.handles;
	t->c[i].blocks += ev->blame.blocks;
}

static void add_stats(struct fss_blame *b, const struct fss_event *ev)
{
	struct tx *t = fss_blame__tx_find(b, ev->dev, ev->blame.jtid, true);

	t->have_stats = true;
	t->st_handles = ev->blame.handles;
	t->st_blocks = ev->blame.blocks;
	t->st_logged = ev->blame.logged;
}

static void add_commit(struct fss_blame *b, const struct fss_event *ev)
{
	struct commit *c = &b->commits[b->ncommits++ % BL_NCOMMIT];

	c->dev = ev->dev;
	c->jtid = ev->journal.transaction;
	c->thread = ev->tid;
	fss_blame__jthread_note(b, ev->tid);
	c->start = ev->ts;
	c->end = ev->ts_end;
}

/* ---- requests ---- */

/* 4-way: the request's slot, else a free or finished one, else the oldest */
static struct open_rq *open_slot(struct fss_blame *b, __u64 id, __u32 dev,
				 bool *found)
{
	__u64 h = (id >> 6) * 0x9E3779B97F4A7C15ULL;
	size_t base = (h >> (64 - 14)) & ~(size_t)3;	/* BL_NOPEN == 1 << 14 */
	struct open_rq *r = &b->open[base], *pick = NULL;

	for (int k = 0; k < 4; k++)
		if (r[k].used && r[k].id == id && r[k].dev == dev) {
			*found = true;
			return &r[k];
		}
	*found = false;
	for (int k = 0; k < 4 && !pick; k++)
		if (!r[k].used || r[k].completed)
			pick = &r[k];
	for (int k = 0; k < 4 && !pick; k++)
		if (!pick || r[k].start < pick->start)
			pick = &r[k];
	return pick;
}

static void open_reset(struct open_rq *r, __u64 id, __u32 dev)
{
	memset(r, 0, sizeof(*r));
	r->used = true;
	r->id = id;
	r->dev = dev;
}

/* The slot of the request an event is about, begun anew if need be. */
static struct open_rq *open_get(struct fss_blame *b, const struct fss_event *ev)
{
	__u64 id = ev->type == FSS_EV_RQ_OWNER ? ev->blame.id : ev->rq.id;
	bool found;
	struct open_rq *r = open_slot(b, id, ev->dev, &found);

	if (!found || (r->completed && ev->type != FSS_EV_RQ_COMPLETE))
		open_reset(r, id, ev->dev);
	return r;
}

static void rq_done(struct fss_blame *b, struct open_rq *r, __u64 ts,
		    __u32 bytes)
{
	struct disk_log *d = fss_blame__disk(b, r->dev, true);
	struct done *x;
	__u64 *blk;

	r->completed = true;
	if (!d)
		return;
	blk = &d->blk_issue[d->n % BL_NLOG / BL_LOGBLK];
	if (d->n % BL_LOGBLK == 0)
		*blk = UINT64_MAX;
	if (r->issue && r->issue < *blk)
		*blk = r->issue;
	x = &d->log[d->n++ % BL_NLOG];
	x->start = r->start;
	x->issue = r->issue;
	x->complete = ts;
	x->bytes = bytes;
	x->owner = r->owned ? r->owner : OWNER_UNKNOWN;
	x->tid = r->tid;
	x->flags = (r->owned ? D_OWNED : 0);
	if (r->rqflags & FSS_RQ_FLUSH)
		x->flags |= D_FLUSH;
	else if (r->rqflags & FSS_RQ_WRITE)
		x->flags |= D_WRITE;
	if (r->rqflags & FSS_RQ_META)
		x->flags |= D_META;
	if ((r->rqflags & FSS_RQ_FLUSH) ||
	    ((r->rqflags & FSS_RQ_PREFLUSH) && r->issue))
		d->flush_issue[d->nflush++ % BL_NFLUSH] = r->issue ? r->issue : ts;
	if ((x->flags & D_WRITE) && !r->owned)
		b->st.rq_unknown++;
}

static struct bio_own *bio_slot(struct fss_blame *b, __u32 dev, __u64 sector)
{
	__u64 h = (sector ^ ((__u64)dev << 40)) * 0x9E3779B97F4A7C15ULL;

	return &b->bios[h >> (64 - 14)];	/* BL_NBIO == 1 << 14 */
}

/* Kernels without block_io_start: who queued the bio at sector (dev). */
static void add_bio(struct fss_blame *b, const struct fss_event *ev)
{
	struct bio_own *x = bio_slot(b, ev->dev, ev->blame.id);

	x->used = true;
	x->sector = ev->blame.id;
	x->dev = ev->dev;
	x->owner = owner_intern(b, ev);
	x->tid = ev->tid;
}

/* A request with no owner record: the bio it starts with, if seen. */
static void rq_owner_from_bio(struct fss_blame *b, struct open_rq *r,
			      const struct fss_event *ev)
{
	struct bio_own *x = bio_slot(b, ev->dev, ev->rq.sector);

	if (r->owned || !x->used || x->dev != ev->dev ||
	    x->sector != ev->rq.sector)
		return;
	r->owned = true;
	r->owner = x->owner;
	r->tid = x->tid;
}

static void add_rq(struct fss_blame *b, const struct fss_event *ev)
{
	struct open_rq *r;

	if (ev->type == FSS_EV_RQ_OWNER && (ev->blame.flags & FSS_BL_BIO)) {
		add_bio(b, ev);
		return;
	}
	r = open_get(b, ev);
	if (b->bios && (ev->type == FSS_EV_RQ_START ||
			ev->type == FSS_EV_RQ_ISSUE))
		rq_owner_from_bio(b, r, ev);

	switch (ev->type) {
	case FSS_EV_RQ_OWNER:
		r->owner = owner_intern(b, ev);
		r->owned = true;
		r->tid = ev->tid;
		if (!r->start)
			r->start = ev->ts;
		break;
	case FSS_EV_RQ_START:
		if (!r->start)
			r->start = ev->ts;
		break;
	case FSS_EV_RQ_ISSUE:
		r->issue = ev->ts;
		r->rqflags = ev->rq.flags;
		break;
	case FSS_EV_RQ_COMPLETE:
		rq_done(b, r, ev->ts, ev->rq.bytes);
		break;
	default:
		break;
	}
}

/* ---- public: life cycle and input ---- */

struct fss_blame *fss_blame_new(const struct fss_blame_opts *opts)
{
	struct fss_blame *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	if (opts)
		b->opts = *opts;
	b->open = calloc(BL_NOPEN, sizeof(*b->open));
	b->bios = calloc(BL_NBIO, sizeof(*b->bios));
	b->syncs = calloc(BL_NSYNC, sizeof(*b->syncs));
	b->comms = b->opts.comms;
	if (!b->comms) {
		b->comms = fss_comms_new();
		b->own_comms = true;
	}
	if (!b->open || !b->bios || !b->syncs || !b->comms) {
		if (b->own_comms)
			fss_comms_free(b->comms);
		free(b->open);
		free(b->bios);
		free(b->syncs);
		free(b);
		return NULL;
	}
	strcpy(b->owners[OWNER_UNKNOWN].comm, "?");
	b->owners[OWNER_UNKNOWN].used = true;
	return b;
}

void fss_blame_free(struct fss_blame *b)
{
	if (!b)
		return;
	for (unsigned int i = 0; i < b->ndisks; i++)
		free(b->disks[i].log);
	free(b->open);
	free(b->bios);
	free(b->syncs);
	free(b->scratch);
	if (b->own_comms)
		fss_comms_free(b->comms);
	free(b);
}

int fss_blame_add(struct fss_blame *b, const struct fss_event *ev)
{
	if (!b || !ev)
		return -EINVAL;
	switch (ev->type) {
	case FSS_EV_SYNC:
		fss_blame__sync_add(b, ev);
		break;
	case FSS_EV_COMM:
		comm_note(b, ev->pid, ev->comm);
		break;
	case FSS_EV_JHANDLE:
		b->st.records++;
		comm_note(b, ev->pid, ev->comm);
		add_handle(b, ev);
		break;
	case FSS_EV_JSTATS:
		b->st.records++;
		add_stats(b, ev);
		break;
	case FSS_EV_JOURNAL:
		add_commit(b, ev);
		break;
	case FSS_EV_XLOG_FORCE:
		b->st.records++;
		fss_blame__xfs_force(b, ev);
		break;
	case FSS_EV_RQ_OWNER:
		b->st.records++;
		/* fall through */
	case FSS_EV_RQ_START:
	case FSS_EV_RQ_ISSUE:
	case FSS_EV_RQ_COMPLETE:
		add_rq(b, ev);
		break;
	default:
		break;
	}
	return 0;
}

void fss_blame_add_done(struct fss_blame *b, const struct fss_blame_rq *q,
			const struct fss_event *owner)
{
	struct open_rq r;

	if (!b || !q)
		return;
	open_reset(&r, 0, q->dev);
	if (owner) {
		b->st.records++;
		r.owner = owner_intern(b, owner);
		r.owned = true;
		r.tid = owner->tid;
	}
	r.start = q->start ? q->start : owner ? owner->ts : 0;
	r.issue = q->issue;
	r.rqflags = q->issue ? q->rqflags : 0;
	rq_done(b, &r, q->complete, q->bytes);
}

void fss_blame_stats(const struct fss_blame *b, struct fss_blame_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (b)
		*st = b->st;
}
