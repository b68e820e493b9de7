// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * clock.c - cumulative phase clocks (clock.h): which requests and commits
 * a sync waits for follows docs/model.md ("Which requests belong to a
 * sync", "The intervals of a sync"), decided at each request's first
 * event instead of after the sync.  Where that cannot match the
 * reference painter is listed in docs/hotpath.md.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include "engine/attr/clock.h"
#include "engine/attr/attr.h"
#include "fsyncscope.h"

#define LVL(ph)		(1 + (ph))
#define ALL_KEYS	FSS_CLK_KEYS	/* rq->shared: every key on its disk */

void fss_clk_init(struct fss_clk *c)
{
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < FSS_CLK_SYNCS; i++)
		c->syncs[i].key = -1;
}

static int key_of(const struct fss_clk *c, __u32 fs)
{
	for (int i = 0; i < c->nkeys; i++)
		if (c->keys[i].fs == fs)
			return i;
	return -1;
}

int fss_clk_add_fs(struct fss_clk *c, __u32 fs, __u32 disk)
{
	if (key_of(c, fs) >= 0)
		return 0;
	if (c->nkeys == FSS_CLK_KEYS)
		return -ENOSPC;
	c->keys[c->nkeys].fs = fs;
	c->keys[c->nkeys].disk = disk;
	c->nkeys++;
	return 0;
}

static int top(const __u32 n[FSS_CLK_LVLS])
{
	int lv = FSS_CLK_LVLS - 1;

	while (lv > 0 && !n[lv])
		lv--;
	return lv;
}

/* The key's clock to t, at the level it has had since its last change. */
static void key_advance(struct fss_clk_key *k, __u64 t)
{
	if (t > k->last) {
		k->cum[top(k->n)] += t - k->last;
		k->last = t;
	}
}

static struct fss_clk_own *own_find(struct fss_clk *c, __u32 tid,
				    __u32 disk, bool make)
{
	struct fss_clk_own *free_slot = NULL;

	for (int i = 0; i < FSS_CLK_OWNS; i++) {
		struct fss_clk_own *o = &c->owns[i];

		if (o->tid == tid && o->disk == disk)
			return o;
		if (!o->tid && !free_slot)
			free_slot = o;
	}
	if (!make || !free_slot)
		return NULL;
	memset(free_slot, 0, sizeof(*free_slot));
	free_slot->tid = tid;
	free_slot->disk = disk;
	return free_slot;
}

static struct fss_clk_sync *sync_of(struct fss_clk *c, __u32 tid)
{
	for (int i = 0; i < FSS_CLK_SYNCS; i++)
		if (c->syncs[i].key >= 0 && c->syncs[i].tid == tid)
			return &c->syncs[i];
	return NULL;
}

/* The sync's own level: its thread's requests on the disk, fs, log. */
static int own_level(struct fss_clk *c, const struct fss_clk_sync *s)
{
	struct fss_clk_own *o = own_find(c, s->tid, c->keys[s->key].disk,
					 false);
	int lv = o ? top(o->n) : 0;

	if (s->log_open && lv < LVL(FSS_PH_JOURNAL))
		lv = LVL(FSS_PH_JOURNAL);
	if (s->fs_open && lv < LVL(FSS_PH_FS))
		lv = LVL(FSS_PH_FS);
	return lv;
}

/*
 * Close the stretch since the snapshot, at own level s->lvl: what the key
 * spent above it is the key's level, the rest is s->lvl's.
 */
static void sync_close(struct fss_clk *c, struct fss_clk_sync *s, __u64 t)
{
	struct fss_clk_key *k = &c->keys[s->key];

	key_advance(k, t);
	for (int lv = 0; lv < FSS_CLK_LVLS; lv++) {
		int at = lv > s->lvl ? lv : s->lvl;

		s->acc[at ? at - 1 : FSS_PH_OTHER] += k->cum[lv] - s->snap[lv];
		s->snap[lv] = k->cum[lv];
	}
}

/* Is key k one a request of this sharing class counts in? */
static bool rq_in_key(const struct fss_clk *c, const struct fss_clk_rq *r,
		      int k)
{
	return r->shared == ALL_KEYS ? c->keys[k].disk == r->disk :
	       r->shared == k;
}

/*
 * The request goes to level lv at t: clocks first (the own sync's stretch
 * closed, each key advanced at its old level), then the counts.
 */
static void rq_move(struct fss_clk *c, struct fss_clk_rq *r, int lv, __u64 t)
{
	struct fss_clk_sync *s = sync_of(c, r->tid);
	struct fss_clk_own *o;

	if (lv == r->lvl)
		return;
	if (s && c->keys[s->key].disk != r->disk)
		s = NULL;		/* its sync waits on another disk */
	if (s)
		sync_close(c, s, t);
	for (int k = 0; k < c->nkeys; k++) {
		if (!rq_in_key(c, r, k))
			continue;
		key_advance(&c->keys[k], t);
		if (r->lvl)
			c->keys[k].n[r->lvl]--;
		if (lv)
			c->keys[k].n[lv]++;
	}
	o = own_find(c, r->tid, r->disk, lv != 0);
	if (o) {
		if (r->lvl && o->n[r->lvl])
			o->n[r->lvl]--;
		if (lv)
			o->n[lv]++;
		if (!top(o->n))
			o->tid = 0;	/* nothing in flight: the slot is free */
	} else if (lv) {
		c->full++;
	}
	r->lvl = lv;
	if (s)
		s->lvl = own_level(c, s);
}

/*
 * Whose syncs a request counts in besides its thread's, from its first
 * event (docs/model.md): a pure flush, or a kernel thread's PREFLUSH/FUA
 * write, in every sync on its disk; the journal thread's, in its fs's.
 */
static int rq_class(const struct fss_clk *c, __u32 disk, __u32 tid,
		    __u32 flags)
{
	if (flags & FSS_RQ_FLUSH)
		return ALL_KEYS;
	for (int k = 0; k < c->nkeys; k++)
		if (c->keys[k].disk == disk && c->keys[k].jtid == tid)
			return k;
	if ((flags & (FSS_RQ_PREFLUSH | FSS_RQ_FUA)) &&
	    (flags & FSS_RQ_KTHREAD))
		return ALL_KEYS;
	return -1;
}

static struct fss_clk_rq *rq_find(struct fss_clk *c, __u64 id, __u32 disk,
				  bool make)
{
	struct fss_clk_rq *free_slot = NULL;
	/* open addressing from the id's hash, as a BPF hash map would be */
	unsigned int h = (unsigned int)((id >> 6) ^ (id >> 20) ^ disk);

	for (int i = 0; i < FSS_CLK_RQS; i++) {
		struct fss_clk_rq *r = &c->rqs[(h + i) % FSS_CLK_RQS];

		if (r->id == id && r->disk == disk)
			return r;
		if (!r->id && !free_slot)
			free_slot = r;
	}
	return make ? free_slot : NULL;
}

void fss_clk_rq(struct fss_clk *c, __u32 type, __u64 id, __u32 disk,
		__u32 tid, __u32 flags, __u64 t)
{
	/* a completion never makes a request: it began before us */
	bool ends = type == FSS_EV_RQ_COMPLETE || type == FSS_EV_NVME_COMPLETE;
	struct fss_clk_rq *r = rq_find(c, id, disk, !ends);
	int lv;

	if (!r) {		/* began before us, or the table is full */
		if (!ends)
			c->full++;
		return;
	}
	if (!r->id) {
		memset(r, 0, sizeof(*r));
		r->id = id;
		r->disk = disk;
		r->tid = tid;
		r->shared = rq_class(c, disk, tid, flags);
	}
	r->pure_flush |= !!(flags & FSS_RQ_FLUSH);
	switch (type) {
	case FSS_EV_RQ_START:		/* created, or inserted: queued */
		lv = r->issued ? r->lvl : LVL(FSS_PH_QUEUE);
		break;
	case FSS_EV_RQ_ISSUE:		/* on the device until completed */
		r->issued = 1;
		if (r->nvme)		/* there since its command's setup */
			return;
		lv = r->pure_flush || (flags & FSS_RQ_FUA) ?
		     LVL(FSS_PH_DEV_FLUSH) : LVL(FSS_PH_DEV_WRITE);
		break;
	/*
	 * its NVMe command, set up just before the issue and completed
	 * just before the request: the device time is the command's
	 * (attr_paint.c paint_rq)
	 */
	case FSS_EV_NVME_SETUP:
		r->nvme = 1;
		lv = r->pure_flush || (flags & (FSS_RQ_FUA | FSS_RQ_NVME_FLUSH)) ?
		     LVL(FSS_PH_DEV_FLUSH) : LVL(FSS_PH_DEV_WRITE);
		break;
	case FSS_EV_NVME_COMPLETE:
		lv = 0;
		break;
	case FSS_EV_RQ_COMPLETE:	/* the first completion ends it */
		rq_move(c, r, 0, t);
		r->id = 0;
		return;
	default:
		return;
	}
	rq_move(c, r, lv, t);
}

void fss_clk_commit_start(struct fss_clk *c, __u32 fs, __u32 jtid, __u64 t)
{
	int k = key_of(c, fs);

	if (k < 0)
		return;
	key_advance(&c->keys[k], t);
	c->keys[k].jtid = jtid;
	c->keys[k].n[LVL(FSS_PH_JOURNAL)]++;
}

void fss_clk_commit_end(struct fss_clk *c, __u32 fs, __u64 t)
{
	int k = key_of(c, fs);

	if (k < 0 || !c->keys[k].n[LVL(FSS_PH_JOURNAL)])
		return;		/* began before us */
	key_advance(&c->keys[k], t);
	c->keys[k].n[LVL(FSS_PH_JOURNAL)]--;
}

int fss_clk_sync_enter(struct fss_clk *c, __u32 tid, __u32 fs, __u64 t)
{
	int k = key_of(c, fs);
	/* a thread is in one sync at a time: one whose exit was lost ends */
	struct fss_clk_sync *s = sync_of(c, tid);

	if (k < 0)
		return -ENOENT;
	for (int i = 0; i < FSS_CLK_SYNCS && !s; i++)
		if (c->syncs[i].key < 0)
			s = &c->syncs[i];
	if (!s) {
		c->full++;
		return -ENOSPC;
	}
	memset(s, 0, sizeof(*s));
	s->tid = tid;
	s->key = k;
	key_advance(&c->keys[k], t);
	memcpy(s->snap, c->keys[k].cum, sizeof(s->snap));
	s->lvl = own_level(c, s);
	return 0;
}

/* A change of the sync's own fs / log state at t: its stretch closed. */
static void sync_flags(struct fss_clk *c, __u32 tid, __u64 t, int fs_open,
		       int log_open)
{
	struct fss_clk_sync *s = sync_of(c, tid);

	if (!s)
		return;
	sync_close(c, s, t);
	if (fs_open >= 0)
		s->fs_open = fs_open;
	if (log_open >= 0)
		s->log_open = log_open;
	s->lvl = own_level(c, s);
}

void fss_clk_fs_enter(struct fss_clk *c, __u32 tid, __u64 t)
{
	sync_flags(c, tid, t, 1, -1);
}

void fss_clk_fs_exit(struct fss_clk *c, __u32 tid, __u64 t)
{
	sync_flags(c, tid, t, 0, -1);
}

void fss_clk_log_force(struct fss_clk *c, __u32 tid, __u64 t)
{
	sync_flags(c, tid, t, -1, 1);	/* open to the sync's exit */
}

int fss_clk_sync_exit(struct fss_clk *c, __u32 tid, __u64 t,
		      __u64 phase_ns[FSS_PH_MAX])
{
	struct fss_clk_sync *s = sync_of(c, tid);

	if (!s)
		return -ENOENT;
	sync_close(c, s, t);
	memcpy(phase_ns, s->acc, sizeof(s->acc));
	s->key = -1;
	return 0;
}

_Static_assert(FSS_KP_PHASES == FSS_PH_MAX, "kernel phases are enum fss_phase");

/* A sync's FSS_KP_* flags: painted in full (true), or counted why not. */
static bool kp_painted(struct fss_kp_stats *st, __u32 kflags)
{
	st->syncs++;
	if (!(kflags & FSS_KP_VALID) ||
	    (kflags & (FSS_KP_NOKEY | FSS_KP_TWODISK | FSS_KP_FULL |
		       FSS_KP_RACE))) {
		st->not_painted[kflags & FSS_KP_NOKEY ? 0 :
				kflags & FSS_KP_TWODISK ? 1 :
				kflags & FSS_KP_FULL ? 2 :
				kflags & FSS_KP_RACE ? 3 : 4]++;
		return false;
	}
	st->painted++;
	return true;
}

bool fss_kp_note_kernel(struct fss_kp_stats *st, __u32 kflags)
{
	return kp_painted(st, kflags);
}

void fss_kp_note(struct fss_kp_stats *st, const struct fss_sync_result *r)
{
	__u64 d = 0, over = 0, under = 0;

	if (!kp_painted(st, r->kflags))
		return;
	st->compared++;
	st->total_ns += r->total;
	if (r->kflags & FSS_KP_CLAMPED)
		st->clamped++;
	if (r->knflush != r->nr_flush || (r->kflushy > 0) != r->flush_seen)
		st->flush_differ++;
	for (int ph = 0; ph < FSS_PH_MAX; ph++) {
		if (r->kphase_ns[ph] > r->phase_ns[ph])
			over += r->kphase_ns[ph] - r->phase_ns[ph];
		else
			under += r->phase_ns[ph] - r->kphase_ns[ph];
	}
	/* both add up to the total: what one painter gave elsewhere */
	d = over > under ? over : under;
	if (!d) {
		st->identical++;
		return;
	}
	st->diff_ns += d;
	if (d > st->max_diff_ns)
		st->max_diff_ns = d;
}
