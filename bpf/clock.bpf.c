// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * clock.bpf.c - the in-kernel painter's steps (bpf/clock.bpf.h): the
 * cumulative phase clocks of user/engine/attr/clock.c, one step per event.
 * Global functions, each verified once on its own.
 *
 * Who writes what:
 *  - a disk's clocks (its keys' counts and clocks): the block and jbd2
 *    tp_btf programs, under the disk's bpf_spin_lock, seq odd meanwhile;
 *  - a thread's own counts: the same, under the same lock;
 *  - a sync's stretch (snapshot, phases, own level): the syncing thread
 *    itself (sync entry and exit, fs hook, log force: classic tracepoints,
 *    which may not take the lock, so they read the disk's clocks by seq
 *    and extrapolate them to their time), or a request event of its
 *    thread under the lock; busy keeps them apart, and the one that finds
 *    it taken flags the sync FSS_KP_RACE instead of waiting.
 * The flush facts' steps are in clkflush.bpf.h.
 */
#include "clock.bpf.h"
#include "clkflush.bpf.h"

#define CLK_READ_TRIES	4096
#define clk_barrier()	asm volatile("" ::: "memory")

/* What a step returns: how much later than asked it took effect, flags. */
static __always_inline int clk_pack(__u64 delta, __u32 flags)
{
	if (delta > CLK_DELTA_MAX) {
		delta = CLK_DELTA_MAX;
		flags |= FSS_KP_CLAMPED;
	}
	return (int)((__u32)delta << CLK_FLAG_BITS | (flags & CLK_FLAG_MASK));
}

static __always_inline int clk_top(const __u32 *n)
{
	if (n[CLK_DFLUSH])
		return CLK_DFLUSH;
	if (n[CLK_DWRITE])
		return CLK_DWRITE;
	if (n[CLK_QUEUE])
		return CLK_QUEUE;
	if (n[CLK_JOURNAL])
		return CLK_JOURNAL;
	if (n[CLK_FS])
		return CLK_FS;
	return 0;
}

/*
 * Raise the disk's last time to t (a CAS loop: the sync programs raise it
 * without the lock).  Returns the time an event at t takes effect: t, or
 * the later time of a change already made (another CPU's, or a sync
 * program's read); the caller's records use that same time.
 */
static __always_inline __u64 clk_now(struct clk_disk *d, __u64 t)
{
	for (int i = 0; i < 8; i++) {
		__u64 cur = d->last;

		if (t <= cur)
			return cur;
		if (__sync_val_compare_and_swap(&d->last, cur, t) == cur)
			return t;
	}
	return d->last > t ? d->last : t;
}

static __always_inline void clk_key_adv(struct clk_key *k, __u64 t)
{
	if (t > k->last) {
		k->cum[clk_top(k->n) & CLK_LMASK] += t - k->last;
		k->last = t;
	}
}

/* The sync's own level: its requests on its disk, the fs hook, the log. */
static __always_inline __u32 clk_own_level(const struct clk_thr *th)
{
	__u32 lv = th->own == th->sdisk && !th->own_stale ? clk_top(th->n) : 0;

	if (th->log_open && lv < CLK_JOURNAL)
		lv = CLK_JOURNAL;
	if (th->fs_open && lv < CLK_FS)
		lv = CLK_FS;
	return lv;
}

/*
 * Close the sync's stretch at clocks cum (clock.c sync_close): what the
 * key spent above the own level is the key's level, the rest the own
 * level's.  A clock below the snapshot (the other writer closed later
 * first) adds nothing and flags the sync.
 */
static __always_inline void clk_close_at(struct clk_thr *th, const __u64 *cum)
{
	__u32 own = th->lvl & CLK_LMASK;

	for (__u32 lv = 0; lv <= CLK_DFLUSH; lv++) {
		__u32 at = lv > own ? lv : own;
		__u32 ph = at ? at - 1 : CLK_PH_OTHER;
		__u64 c = cum[lv];

		if (c < th->snap[lv]) {
			th->flags |= FSS_KP_CLAMPED;
			continue;
		}
		th->acc[ph & CLK_LMASK] += c - th->snap[lv];
		th->snap[lv] = c;
	}
}

/*
 * Take / give back a thread's stretch; false: the other writer kept it
 * (it may be what this CPU interrupted: so a bounded wait).
 */
static __always_inline bool clk_busy(struct clk_thr *th)
{
	for (int i = 0; i < 64; i++)
		if (__sync_val_compare_and_swap(&th->busy, 0, 1) == 0)
			return true;
	th->flags |= FSS_KP_RACE;
	return false;
}

static __always_inline void clk_idle(struct clk_thr *th)
{
	clk_barrier();
	th->busy = 0;
}

static __always_inline struct clk_disk *clk_disk_at(__u32 slot)
{
	return slot < CLK_DISKS ? bpf_map_lookup_elem(&clk_disks, &slot) : NULL;
}

static __always_inline struct bpf_spin_lock *clk_lock_at(__u32 slot)
{
	struct clk_lock *l = slot < CLK_DISKS ?
			     bpf_map_lookup_elem(&clk_locks, &slot) : NULL;

	return l ? &l->lock : NULL;
}

/* A writer's section: under the lock, seq odd. */
static __always_inline void clk_wbegin(struct clk_disk *d)
{
	d->seq++;
	clk_barrier();
}

static __always_inline void clk_wend(struct clk_disk *d)
{
	clk_barrier();
	d->seq++;
}

/* The disk's slot for disk dev, claimed if new and create; -1: none. */
__noinline int clk_disk_slot(__u32 disk, int create)
{
	for (__u32 i = 0; i < CLK_DISKS; i++) {
		struct clk_disk *d = clk_disk_at(i);

		if (!d)
			return -1;
		if (d->disk == disk)
			return i;
		if (d->disk)
			continue;
		if (!create)
			return -1;
		if (__sync_val_compare_and_swap(&d->disk, 0, (__u64)disk) == 0 ||
		    d->disk == disk)
			return i;
	}
	__sync_fetch_and_add(&clk_full, 1);
	return -1;
}

/*
 * A traced sync of key dk is in flight (add) or no longer: its key's and
 * disk's nsync (atomics: the sync programs take no lock), and the count
 * of syncs entered that a request compares (clk_scope_sent).
 */
static __always_inline void clk_sync_count(struct clk_thr *th, __u32 dk,
					   bool add)
{
	struct clk_disk *d = dk ? clk_disk_at((dk >> 8) - 1) : NULL;
	struct clk_key *k;

	if (!d)
		return;
	k = &d->keys[dk & CLK_KMASK];
	if (add) {
		__sync_fetch_and_add(&k->sent, 1);
		__sync_fetch_and_add(&d->sent, 1);
		th->sent++;
		__sync_fetch_and_add(&k->nsync, 1);
		__sync_fetch_and_add(&d->nsync, 1);
		th->counted = dk;
	} else {
		__sync_fetch_and_add(&k->nsync, -1);
		__sync_fetch_and_add(&d->nsync, -1);
		th->counted = 0;
	}
}

static __always_inline struct clk_thr *clk_thr_of(__u32 tid, bool create)
{
	__u32 slot = tid & (CLK_THREADS - 1);
	struct clk_thr *th = bpf_map_lookup_elem(&clk_thrs, &slot);
	__u64 old;

	if (!th || th->tid == tid)
		return th;
	if (!create)
		return NULL;
	/* another thread's: taken over only when it is idle */
	old = th->tid;
	if ((old && (th->sdisk || clk_top(th->n) || th->busy)) ||
	    __sync_val_compare_and_swap(&th->tid, old, (__u64)tid) != old) {
		__sync_fetch_and_add(&clk_full, 1);
		return NULL;
	}
	if (th->counted)	/* the last one's exit was not seen */
		clk_sync_count(th, th->counted, false);
	th->own = 0;
	for (__u32 i = 0; i < CLK_LVLS; i++)
		th->n[i] = 0;
	th->fc_in = 0;
	th->sdisk = 0;
	th->own_stale = 0;
	th->flags = 0;
	th->gen++;
	return th;
}

/*
 * Request r of disk d goes to level lv at t (clock.c rq_move): its
 * thread's sync closed first if it waits on this disk, each key it counts
 * in advanced at its old level, then the counts.  Under d's lock.
 */
static __always_inline void clk_move(struct clk_disk *d, struct clk_rq *r,
				     struct clk_thr *th, __u32 lv, __u64 t)
{
	__u32 old = r->lvl & CLK_LMASK;
	struct clk_thr *s = th && th->sdisk == r->dslot ? th : NULL;
	bool mine = false;

	lv &= CLK_LMASK;
	if (lv == old) {
		clk_flush_count(d, r, th);	/* its facts may have changed */
		return;
	}
	if (s && clk_busy(s)) {
		struct clk_key *k = &d->keys[s->skey & CLK_KMASK];

		clk_key_adv(k, t);
		clk_close_at(s, k->cum);
		mine = true;
	}
	for (__u32 k = 0; k < CLK_KEYS; k++) {
		struct clk_key *key = &d->keys[k];

		if (!clk_counts_in(r, key, k))
			continue;
		clk_key_adv(key, t);
		if (old && key->n[old])
			key->n[old]--;
		if (lv)
			key->n[lv]++;
	}
	if (th && th->own_stale) {	/* its last sync left some: lost */
		for (__u32 i = 0; i < CLK_LVLS; i++)
			th->n[i] = 0;
		th->fc_in = 0;
		th->gen++;
		th->own_stale = 0;
	}
	if (th && r->own && r->gen == th->gen) {
		if (old && th->n[old])
			th->n[old]--;
		if (lv)
			th->n[lv]++;
	}
	r->lvl = lv;
	clk_flush_count(d, r, th);
	if (mine) {
		s->lvl = clk_own_level(s);
		clk_idle(s);
	}
}

/* Whose syncs a new request counts in (clock.c rq_class).  Under lock. */
static __always_inline __u8 clk_class(struct clk_disk *d, __u32 tid,
				      __u32 flags)
{
	if (flags & FSS_RQ_FLUSH)
		return CLK_ALL;
	for (__u32 k = 0; k < CLK_KEYS; k++)
		if (d->keys[k].fs && d->keys[k].jtid == tid)
			return k;
	if ((flags & (FSS_RQ_PREFLUSH | FSS_RQ_FUA)) &&
	    (flags & FSS_RQ_KTHREAD))
		return CLK_ALL;
	return CLK_OWN;
}

/* End a request still open at r (its completion never came), at now. */
static __always_inline void clk_rq_end(struct clk_rq *r, __u64 now)
{
	__u32 slot = r->dslot - 1;
	struct bpf_spin_lock *lk;
	struct clk_disk *d;
	struct clk_thr *th;

	if (!r->dslot)
		return;
	d = clk_disk_at(slot);
	lk = clk_lock_at(slot);
	th = clk_thr_of(r->tid, false);
	if (!d || !lk)
		return;
	bpf_spin_lock(lk);
	clk_wbegin(d);
	clk_move(d, r, th, 0, clk_now(d, now));
	clk_flush_done(d, r, th);
	r->dslot = 0;
	clk_wend(d);
	bpf_spin_unlock(lk);
}

/*
 * A summarized sync's own request is created (fold_mute in rq_event): no
 * traced sync paints it, so the clocks skip it to its completion, as the
 * records do.
 */
__noinline int clk_rq_mute(struct clk_rq *r)
{
	if (!kpaint || !r)
		return 0;
	clk_rq_end(r, bpf_ktime_get_ns());
	r->muted = 1;
	return 0;
}

/* A fresh request's state, its own count decided.  Under the lock. */
static __always_inline void clk_rq_init(struct clk_disk *d, struct clk_rq *r,
					struct clk_thr *th, __u32 slot,
					__u32 tid, __u32 flags)
{
	r->tid = tid;
	r->dslot = slot + 1;
	r->lvl = 0;
	r->issued = 0;
	r->pure_flush = 0;
	r->shared = clk_class(d, tid, flags);
	r->own = 0;
	r->nvme = 0;
	r->fl = 0;
	clk_serve_init(d, r, th);
	if (!th)
		return;
	if (th->own_stale) {		/* as clk_move */
		for (__u32 i = 0; i < CLK_LVLS; i++)
			th->n[i] = 0;
		th->fc_in = 0;
		th->gen++;
		th->own_stale = 0;
	}
	r->gen = th->gen;
	/* own counts are kept for one disk at a time */
	if (th->own != r->dslot && !clk_top(th->n))
		th->own = r->dslot;
	if (th->own == r->dslot)
		r->own = 1;
	else if (th->sdisk == r->dslot)
		th->flags |= FSS_KP_TWODISK;
}

/*
 * A block request event (FSS_EV_RQ_START / _ISSUE / _COMPLETE) of request
 * id on disk, with its FSS_RQ_* flags, or its NVMe command's
 * (FSS_EV_NVME_SETUP, with FSS_RQ_NVME_FLUSH for a Flush; _COMPLETE):
 * clock.c fss_clk_rq.  tp_btf only.
 */
__noinline int clk_rq_event(struct clk_rq *r, __u32 disk, __u32 type,
			    __u32 flags, __u64 t)
{
	__u32 cur = (__u32)bpf_get_current_pid_tgid();
	/* a completion never makes a request: it began before us */
	bool ends = type == FSS_EV_RQ_COMPLETE || type == FSS_EV_NVME_COMPLETE;
	struct bpf_spin_lock *lk;
	struct clk_thr *th;
	struct clk_disk *d;
	bool fresh = false;
	__u32 slot, lv;
	__u64 at;
	int ds;

	if (!kpaint)
		return 0;
	if (!r) {			/* no entry: the map is full */
		if (!ends)
			__sync_fetch_and_add(&clk_full, 1);
		return 0;
	}
	if (r->muted) {
		/* as fold_add: a start is another request, else swallowed */
		if (type != FSS_EV_RQ_START) {
			if (type == FSS_EV_RQ_COMPLETE)
				r->muted = 0;
			return 0;
		}
		r->muted = 0;
	}
	if (r->dslot && type == FSS_EV_RQ_START && (flags & FSS_RQ_CREATE))
		clk_rq_end(r, t);	/* its address's last one never ended */
	if (!r->dslot) {
		if (ends)
			return 0;
		ds = clk_disk_slot(disk, 1);
		if (ds < 0)
			return 0;
		fresh = true;
		slot = ds;
	} else {
		slot = r->dslot - 1;
	}
	th = clk_thr_of(fresh ? cur : r->tid, fresh);
	d = clk_disk_at(slot);
	lk = clk_lock_at(slot);
	if (!d || !lk)
		return 0;
	bpf_spin_lock(lk);
	clk_wbegin(d);
	at = clk_now(d, t);
	if (fresh)
		clk_rq_init(d, r, th, slot, cur, flags);
	if (flags & FSS_RQ_FLUSH)
		r->pure_flush = 1;
	/*
	 * what it asked: its first event's flags (its creation's; a later
	 * insert, after the flush machinery cleared them, is the same one)
	 */
	if (fresh)
		r->fl |= (flags & FSS_RQ_PREFLUSH ? CLKF_PF_ASK : 0) |
			 (flags & FSS_RQ_FUA ? CLKF_FUA_ASK : 0);
	if (type == FSS_EV_RQ_ISSUE && (flags & FSS_RQ_FUA))
		r->fl |= CLKF_FUA_ISS;
	if (type == FSS_EV_NVME_SETUP && (flags & FSS_RQ_NVME_FLUSH))
		r->fl |= CLKF_NVFL;
	if (type == FSS_EV_NVME_COMPLETE)
		r->fl |= CLKF_NVDONE;
	if (type == FSS_EV_RQ_START) {
		lv = r->issued ? r->lvl : CLK_QUEUE;
	} else if (type == FSS_EV_RQ_ISSUE) {
		r->issued = 1;
		/* on NVMe there since its command's setup, just before */
		lv = r->nvme ? r->lvl :
		     r->pure_flush || (flags & FSS_RQ_FUA) ? CLK_DFLUSH :
		     CLK_DWRITE;
	} else if (type == FSS_EV_NVME_SETUP) {
		/* the device time is its command's (clock.c fss_clk_rq) */
		r->nvme = 1;
		lv = r->pure_flush || (flags & (FSS_RQ_FUA | FSS_RQ_NVME_FLUSH)) ?
		     CLK_DFLUSH : CLK_DWRITE;
	} else {
		lv = 0;		/* its command's completion, or its own */
	}
	clk_move(d, r, th, lv, at);
	if (type == FSS_EV_RQ_COMPLETE) {
		clk_flush_done(d, r, th);
		r->dslot = 0;
	}
	clk_wend(d);
	bpf_spin_unlock(lk);
	return clk_pack(at - t, 0);
}

/* A jbd2 commit of fs starts (in the current thread) or ends.  tp_btf. */
__noinline int clk_commit(__u32 fs, int start, __u64 t)
{
	__u32 *dk, slot, key, cur = (__u32)bpf_get_current_pid_tgid();
	struct bpf_spin_lock *lk;
	struct clk_disk *d;
	struct clk_key *k;
	__u64 at;

	if (!kpaint)
		return 0;
	dk = bpf_map_lookup_elem(&clk_fs, &fs);
	if (!dk)
		return 0;	/* no sync on it yet */
	slot = (*dk >> 8) - 1;
	key = *dk & CLK_KMASK;
	d = clk_disk_at(slot);
	lk = clk_lock_at(slot);
	if (!d || !lk)
		return 0;
	bpf_spin_lock(lk);
	clk_wbegin(d);
	at = clk_now(d, t);
	k = &d->keys[key];
	if (start) {
		clk_key_adv(k, at);
		k->jtid = cur;
		k->n[CLK_JOURNAL]++;
	} else if (k->n[CLK_JOURNAL]) {
		clk_key_adv(k, at);
		k->n[CLK_JOURNAL]--;
	}
	clk_wend(d);
	bpf_spin_unlock(lk);
	return clk_pack(at - t, 0);
}

/*
 * The key of filesystem dev on disk: (disk slot + 1) << 8 | key, the key
 * claimed if new (and clk_fs told, for its journal's commits); 0: none.
 * A new key's clocks start at 0 with last 0: its first advance and every
 * reader's extrapolation agree on that, and only differences are used.
 */
__noinline int clk_key_get(__u32 disk, __u32 dev)
{
	struct clk_disk *d;
	__u32 dk = 0;
	int ds;

	if (!kpaint || !dev)
		return 0;
	ds = clk_disk_slot(disk, 1);
	if (ds < 0)
		return 0;
	d = clk_disk_at(ds);
	if (!d)
		return 0;
	for (__u32 k = 0; k < CLK_KEYS; k++) {
		if (d->keys[k].fs == dev ||
		    (!d->keys[k].fs &&
		     (__sync_val_compare_and_swap(&d->keys[k].fs, 0,
						  (__u64)dev) == 0 ||
		      d->keys[k].fs == dev))) {
			dk = (ds + 1) << 8 | k;
			break;
		}
	}
	if (!dk)
		__sync_fetch_and_add(&clk_full, 1);
	else
		bpf_map_update_elem(&clk_fs, &dev, &dk, BPF_ANY);
	return dk;
}

/*
 * The thread's own change at *t (sync entry: enter, else a close), with
 * no lock: the disk's last time raised to *t first, so that no writer
 * applies an earlier change after it; the disk's clocks read as of one
 * unchanged seq, extrapolated to *t (moved to the key's last change when
 * that is later: another CPU's event came in between), the stretch
 * taken and seq checked again before it is written.  The stretch is
 * never held while seq is awaited (a writer holds seq odd while it waits
 * for the stretch).  FSS_KP_RACE: the disk kept changing through
 * CLK_READ_TRIES reads.
 */
/* One try at a consistent read of a key (clk_own_change). */
struct clk_rd {
	__u32 slot, key, tid, held;
	__u32 top, pad;
	__u64 last;
	__u64 cum[CLK_LVLS];
	/* flush counts: the key's, the thread's own */
	__u64 pf_in, pf_st, fc_in, fc_st, ofc_in, ofc_st;
};

static __always_inline bool clk_rd_once(struct clk_disk *d, struct clk_thr *th,
					struct clk_rd *rd)
{
	struct clk_key *key = &d->keys[rd->key & CLK_KMASK];
	__u32 s1 = d->seq;

	if (s1 & 1)
		return false;
	clk_barrier();
	rd->top = clk_top(key->n);
	rd->last = key->last;
	for (__u32 lv = 0; lv < CLK_LVLS; lv++)
		rd->cum[lv] = key->cum[lv];
	rd->pf_in = key->pf_in;
	rd->pf_st = key->pf_st;
	rd->fc_in = key->fc_in;
	rd->fc_st = key->fc_st;
	rd->ofc_in = th->fc_in;
	rd->ofc_st = th->fc_st;
	/* one try: a writer holding it is done soon, or waits on us */
	if (__sync_val_compare_and_swap(&th->busy, 0, 1) != 0)
		return false;
	clk_barrier();
	if (d->seq == s1) {
		rd->held = 1;
		return true;
	}
	clk_idle(th);
	return false;
}

/* bpf_loop's step: verified once, however many times it runs. */
static long clk_rd_step(__u64 i, void *ctx)
{
	struct clk_rd *rd = ctx;
	struct clk_disk *d = clk_disk_at(rd->slot);
	struct clk_thr *th = clk_thr_at(rd->tid);

	if (!d || !th)
		return 1;
	return clk_rd_once(d, th, rd) ? 1 : 0;
}

static __always_inline __u32 clk_own_change(struct clk_thr *th,
					    struct clk_disk *d, __u64 *t,
					    bool enter, int fs, int log)
{
	struct clk_rd rd = {
		.slot = th->sdisk - 1,
		.key = th->skey,
		.tid = (__u32)bpf_get_current_pid_tgid(),
	};
	__u64 last, at;
	bool held;

	/*
	 * Published first: from here on no writer applies a change earlier
	 * than *t, and one applied before has raised the key's last itself.
	 */
	clk_now(d, *t);
	/*
	 * a writer holds seq odd for up to a few us (irqs off, under
	 * contention): one try here, then up to CLK_READ_TRIES by bpf_loop
	 */
	if (!clk_rd_once(d, th, &rd))
		bpf_loop(CLK_READ_TRIES, clk_rd_step, &rd, 0);
	held = rd.held;
	last = rd.last;
	if (!held) {
		th->flags |= FSS_KP_RACE;
		return FSS_KP_RACE;
	}
	at = *t > last ? *t : last;
	if (at > last)
		rd.cum[rd.top & CLK_LMASK] += at - last;
	*t = at;
	if (enter) {
		for (__u32 lv = 0; lv < CLK_LVLS; lv++) {
			th->snap[lv] = rd.cum[lv];
			th->acc[lv] = 0;
		}
		/* in flight now, less started so far (mod 2^64) */
		th->pf_base = rd.pf_in - rd.pf_st;
		th->fc_base = rd.fc_in - rd.fc_st;
		th->ofc_base = rd.ofc_in - rd.ofc_st;
		th->knflush = (__u32)rd.pf_in;
		th->kflushy = (__u32)(rd.fc_in + rd.ofc_in);
	} else {
		clk_close_at(th, rd.cum);
		/* those in flight at entry and those started since */
		th->knflush = (__u32)(th->pf_base + rd.pf_st);
		th->kflushy = (__u32)(th->fc_base + rd.fc_st +
				      th->ofc_base + rd.ofc_st);
	}
	if (fs >= 0)
		th->fs_open = fs;
	if (log >= 0)
		th->log_open = log;
	th->lvl = clk_own_level(th);
	clk_idle(th);
	return 0;
}

__noinline int clk_sync_drop(void)
{
	struct clk_thr *th;

	if (!kpaint)
		return 0;
	th = clk_thr_of((__u32)bpf_get_current_pid_tgid(), false);
	if (th && th->counted)
		clk_sync_count(th, th->counted, false);
	return 0;
}

/* The current thread's traced sync enters at ts on key dk (0: none). */
__noinline int clk_sync_begin(__u64 ts, __u32 dk)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct clk_thr *th;
	struct clk_disk *d;
	__u64 t = ts;
	__u32 fl;

	if (!kpaint)
		return 0;
	th = clk_thr_of(tid, true);
	if (!th)
		return clk_pack(0, FSS_KP_FULL);
	th->sdisk = 0;
	if (th->counted)	/* its last sync's exit was not seen */
		clk_sync_count(th, th->counted, false);
	if (!dk)
		return clk_pack(0, FSS_KP_NOKEY);
	d = clk_disk_at((dk >> 8) - 1);
	if (!d)
		return clk_pack(0, FSS_KP_NOKEY);
	th->skey = dk & CLK_KMASK;
	th->flags = 0;
	th->lvl = 0;
	/* published first: a request moving from here on closes it */
	th->sdisk = dk >> 8;
	clk_sync_count(th, dk, true);
	fl = clk_own_change(th, d, &t, true, 0, 0);
	return clk_pack(t - ts, fl);
}

/* At t, its fs hook opens / closes (fs >= 0), its log force (log > 0). */
__noinline int clk_sync_flags(int fs, int log, __u64 t)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct clk_thr *th;
	struct clk_disk *d;
	__u64 at = t;

	if (!kpaint)
		return 0;
	th = clk_thr_of(tid, false);
	if (!th || !th->sdisk)
		return 0;
	d = clk_disk_at(th->sdisk - 1);
	if (!d)
		return 0;
	clk_own_change(th, d, &at, false, fs, log > 0 ? 1 : -1);
	return clk_pack(at - t, 0);
}

/*
 * The phases add up to the sync's total exactly; a stretch closed late
 * (a request event closed it after the thread's own later close) left
 * them short or over: the difference goes to other, or is taken from the
 * largest phase (FSS_KP_CLAMPED says so).
 */
static __always_inline __u32 clk_exact(__u64 *ph, __u64 total)
{
	__u64 sum = 0, over;
	__u32 big = 0;

	for (__u32 i = 0; i < FSS_KP_PHASES; i++) {
		sum += ph[i];
		if (ph[i] > ph[big & CLK_LMASK])
			big = i;
	}
	if (sum == total)
		return 0;
	if (sum < total) {
		ph[CLK_PH_OTHER] += total - sum;
		return FSS_KP_CLAMPED;
	}
	over = sum - total;
	big &= CLK_LMASK;
	ph[big] = ph[big] > over ? ph[big] - over : 0;
	return FSS_KP_CLAMPED;
}

/*
 * It exits at t, total after its entry: its phases stay in th->acc, the
 * time it took effect (t + the delta returned) is the record's end.
 */
__noinline int clk_sync_end(__u64 t, __u64 total)
{
	__u32 flags, tid = (__u32)bpf_get_current_pid_tgid();
	struct clk_thr *th;
	struct clk_disk *d;
	__u64 at = t;

	if (!kpaint)
		return 0;
	th = clk_thr_of(tid, false);
	if (!th || !th->sdisk)
		return clk_pack(0, FSS_KP_FULL);
	d = clk_disk_at(th->sdisk - 1);
	if (!d)
		return 0;
	clk_own_change(th, d, &at, false, -1, -1);
	/*
	 * its own requests are done when it returns: any still counted lost
	 * their completion, and would hold its later syncs at their level
	 */
	if (th->own == th->sdisk && clk_top(th->n))
		th->own_stale = 1;
	th->sdisk = 0;
	if (th->counted)
		clk_sync_count(th, th->counted, false);
	/* a request event may still hold the stretch: it flags it */
	if (!clk_busy(th))
		return clk_pack(at - t, th->flags | FSS_KP_RACE | FSS_KP_VALID);
	flags = th->flags | clk_exact(th->acc, total + (at - t));
	clk_idle(th);
	return clk_pack(at - t, flags | FSS_KP_VALID);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
