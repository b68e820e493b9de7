/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * clock.bpf.h - the in-kernel painter: cumulative phase clocks, the BPF
 * side of user/engine/attr/clock.c (docs/hotpath.md "Cumulative phase
 * clocks").  On with FSYNCSCOPE_KPAINT=1 (kpaint); each traced sync's
 * record then carries the phases painted here (fss_sync_rec.kph), and
 * user space compares them with its own painter's, sync by sync.
 *
 * What clock.c keeps in tables is here:
 *  - per disk (clk_disks, an array; found by a walk over its 16 slots at
 *    a request's first event and a thread's first sync on a filesystem):
 *    one bpf_spin_lock, the last time any of its clocks moved, and a key
 *    per filesystem on it (at most 4): its shared level counts n[] and
 *    cumulative clocks cum[], and its journal thread;
 *  - per thread (clk_thrs, an array by tid, tagged): its own requests in flight
 *    per level (on one disk at a time), and its sync in flight: which key,
 *    its own level, its snapshot of the key's clocks and its phases so far;
 *  - per request (in its rq_folds entry, bpf/common.bpf.h: one lookup for
 *    the records and the clocks; entries kept for the next request at the
 *    address): its thread, disk, level, sharing class.
 * And the flush facts (docs/hotpath.md "Flush facts in the kernel"):
 * per key and per thread, flush-class requests and pure flushes in
 * flight and started, which a sync reads at entry and exit as it reads
 * the clocks (its overlapped ones: in flight at entry + started since);
 * per disk, key and thread, traced syncs in flight and entered, which a
 * request reads at its first event and its completion (served: a sync
 * overlapped it), counting its distinct facts once in clk_flc[].
 * Everything of one disk changes under its lock, with the time read
 * before the lock and clamped there to the disk's last move, so the
 * clocks of a disk never go backwards whatever CPU an event runs on; no
 * helper is called under the lock.
 */
#ifndef __CLOCK_BPF_H
#define __CLOCK_BPF_H

#include "common.bpf.h"

/* FSYNCSCOPE_KPAINT=1: paint in the kernel too (set before load). */
const volatile bool kpaint __weak = false;
/* and the NVMe commands' times too (the tp_btf block set is loaded) */
const volatile bool kp_nvme __weak = false;
/*
 * FSYNCSCOPE_KPAINT=only (a benchmark of one record per sync): the
 * request and NVMe programs move the clocks and send nothing.
 */
const volatile bool kp_only __weak = false;
/*
 * and, with blame (--painter kernel), each request of a traced disk into
 * the flight recorder as it completes (bpf/block.bpf.c, fss_fr_rec)
 */
const volatile bool kp_fr __weak = false;

#define CLK_LVLS	8	/* 0 nothing, 1 + phase: fs .. device_flush (5) */
#define CLK_LMASK	7
#define CLK_KEYS	4	/* filesystems per disk */
#define CLK_KMASK	3
#define CLK_DISKS	16
#define CLK_OWN		0xfe	/* clk_rq.shared: its thread's syncs only */
#define CLK_ALL		0xff	/* clk_rq.shared: every key on its disk */

/* levels: 1 + enum fss_phase (lib/phase.h), 0: nothing */
#define CLK_FS		1
#define CLK_JOURNAL	2
#define CLK_QUEUE	3
#define CLK_DWRITE	4
#define CLK_DFLUSH	5
#define CLK_PH_OTHER	5	/* enum fss_phase FSS_PH_OTHER */

struct clk_key {
	__u64 fs;			/* fs dev_t, 0: slot free (64 bits:
					 * claimed by cmpxchg) */
	__u32 jtid;			/* its journal thread (0: none seen) */
	__u32 pad;
	__u32 n[CLK_LVLS];		/* shared contributors per level */
	__u64 last;			/* cum advanced to here */
	__u64 cum[CLK_LVLS];		/* ns at each level so far */
	/*
	 * flush facts of the requests counted here (clk_flush_count): pure
	 * flushes and flush-class requests in flight, and started so far
	 */
	__u64 pf_in, pf_st, fc_in, fc_st;
	/* its traced syncs in flight, and entered so far (atomics) */
	__u64 nsync, sent;
};

/*
 * A disk's clocks.  Written only under its lock (clk_locks, a map of its
 * own: classic tracepoint and raw_tp programs may not use a map that
 * holds a bpf_spin_lock, tp_btf ones may), by the block and jbd2 tp_btf
 * programs; seq is odd while they write.  The sync programs (classic
 * tracepoints) only read it, retrying until seq is even and unchanged.
 */
struct clk_disk {
	__u64 disk;			/* disk dev_t, 0: slot free (cmpxchg) */
	__u32 seq;
	__u32 pad;
	__u64 last;			/* latest time of any change here */
	/* its traced syncs in flight, and entered so far (atomics) */
	__u64 nsync, sent;
	struct clk_key keys[CLK_KEYS];
};

struct clk_lock {
	struct bpf_spin_lock lock;
};

/*
 * A thread: its own requests in flight per level (n[], written under the
 * disk's lock), and its sync's stretch (written by the thread itself, or
 * under the disk's lock by one of its requests' events, whichever holds
 * busy; the other one flags the sync FSS_KP_RACE).
 */
struct clk_thr {
	__u64 tid;			/* whose slot it is (0: free); 64 bits:
					 * claimed by cmpxchg */
	__u32 own;			/* disk slot + 1 of n[], 0: none */
	__u32 n[CLK_LVLS];		/* its requests in flight per level */
	__u32 sdisk;			/* its sync: disk slot + 1, 0: none */
	__u32 skey, lvl, fs_open, log_open;
	__u32 flags;			/* FSS_KP_* of its sync */
	/*
	 * its sync returned with own requests still in flight: their
	 * completion was lost (docs/model.md), so n[] no longer counts them
	 * (0 for a reader; the next writer clears n[] and starts generation
	 * gen + 1: those requests' later events leave n[] alone)
	 */
	__u32 own_stale;
	__u32 gen;
	__u32 pad;
	__u64 busy;			/* the stretch is being written */
	__u64 snap[CLK_LVLS];
	__u64 acc[CLK_LVLS];		/* by enum fss_phase */
	/* its own flush-class requests in flight, and started (lock) */
	__u64 fc_in, fc_st;
	__u64 sent;			/* its traced syncs entered so far */
	/*
	 * its sync's flush facts: in flight at entry less started by then
	 * (mod 2^64), so that adding the started count at any later time
	 * gives those it overlapped up to then; and those counts
	 */
	__u64 pf_base, fc_base, ofc_base;
	__u32 knflush, kflushy;
	/* its sync's key ((disk slot + 1) << 8 | key) in the keys' and
	 * disk's nsync, 0: none */
	__u32 counted;
	__u32 cpad;
};

/* a request's state: in its rq_folds entry (fsyncscope.h) */
#define clk_rq fss_fold_clk

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CLK_DISKS);
	__type(key, __u32);
	__type(value, struct clk_disk);
} clk_disks SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CLK_DISKS);
	__type(key, __u32);
	__type(value, struct clk_lock);
} clk_locks SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);			/* fs dev_t */
	__type(value, __u32);			/* (disk slot + 1) << 8 | key */
} clk_fs SEC(".maps") __weak;

/*
 * Threads by tid % CLK_THREADS, each slot tagged with its tid: an array
 * lookup (inlined) where a hash lookup cost ~70 ns per event.  A thread
 * whose slot another holds, with a sync or requests in flight, is not
 * painted (FSS_KP_FULL); an idle slot is taken over.
 */
#define CLK_THREADS	16384

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CLK_THREADS);
	__type(key, __u32);			/* tid % CLK_THREADS */
	__type(value, struct clk_thr);
} clk_thrs SEC(".maps") __weak;

/* Thread tid's slot, if it holds it. */
static __always_inline struct clk_thr *clk_thr_at(__u32 tid)
{
	__u32 slot = tid & (CLK_THREADS - 1);
	struct clk_thr *th = bpf_map_lookup_elem(&clk_thrs, &slot);

	return th && th->tid == tid ? th : NULL;
}

/* Events a full table could not take (requests, threads, disks). */
__u64 clk_full __weak = 0;
/* Distinct flush facts of traced syncs, by enum fss_kfl (clock.bpf.c). */
__u64 clk_flc[FSS_KFL_MAX] __weak = {};

/*
 * A step returns how many ns later than its time it took effect (the
 * disk had already changed later: the event's records take that time
 * too, so both painters see one) << CLK_FLAG_BITS, and FSS_KP_* flags.
 */
#define CLK_FLAG_BITS	6
#define CLK_FLAG_MASK	((1u << CLK_FLAG_BITS) - 1)
#define CLK_DELTA_MAX	((1ull << (31 - CLK_FLAG_BITS)) - 1)
#define CLK_DELTA(r)	((__u64)((__u32)(r) >> CLK_FLAG_BITS))
#define CLK_FLAGS(r)	((__u32)(r) & CLK_FLAG_MASK)

/*
 * The painter's steps, global functions of clock.bpf.c: each is verified
 * once, on its own, rather than inlined into every block program (the
 * verifier's walk over them inlined passed its limit).  They take
 * scalars, and a request's state in its rq_folds entry (NULL: none, the
 * map is full); each checks kpaint itself.  0 or FSS_KP_* flags.
 */
/* request r of disk: an FSS_EV_RQ_START / _ISSUE / _COMPLETE, flags */
int clk_rq_event(struct clk_rq *r, __u32 disk, __u32 type, __u32 flags,
		 __u64 t);
/* a summarized sync's own request is created: skipped to its completion */
int clk_rq_mute(struct clk_rq *r);
/* at t, a jbd2 commit of fs starts (start != 0, in its thread) or ends */
int clk_commit(__u32 fs, int start, __u64 t);
/* the clock key of filesystem dev on disk: (disk slot + 1) << 8 | key */
int clk_key_get(__u32 disk, __u32 dev);
/* the current thread's traced sync enters at ts, on key dk */
int clk_sync_begin(__u64 ts, __u32 dk);
/* at t, its fs hook opens (1) / closes (0), its log force (log 1) */
int clk_sync_flags(int fs, int log, __u64 t);
/* it exits at t; its phases are then in clk_thrs[tid].acc */
int clk_sync_end(__u64 t, __u64 total);
/* it exits unpainted (its entry flagged it): no longer in flight */
int clk_sync_drop(void);

/*
 * The key of filesystem dev (superblock sb) for a sync, cached in the
 * thread's sync state: its own disk's, or for an overlay its upper
 * filesystem's (fs_alias); 0: none (no disk, or a table is full).
 */
static __always_inline __u32 clk_key_of(struct sync_state *st,
					struct super_block *sb, __u32 dev)
{
	struct fss_fs_alias *al;
	struct gendisk *gd;
	__u32 disk, fs = dev;

	/* none is not kept: an overlay's alias may come later */
	if (st->clk_fs == dev && st->clk_dk)
		return st->clk_dk;
	st->clk_fs = dev;
	st->clk_dk = 0;
	if (!sb)
		return 0;
	gd = BPF_CORE_READ(sb, s_bdev, bd_disk);
	if (gd) {
		disk = ((__u32)BPF_CORE_READ(gd, major) << 20) |
		       (__u32)BPF_CORE_READ(gd, first_minor);
	} else {
		/* an overlay: its upper filesystem's key (fsyncscope.h) */
		al = bpf_map_lookup_elem(&fs_alias, &dev);
		if (!al)
			return 0;
		disk = al->disk;
		fs = al->fs;
	}
	st->clk_dk = clk_key_get(disk, fs);
	return st->clk_dk;
}

/* A traced sync enters (st->ts): its snapshot of its key's clocks. */
static __always_inline void clk_sync_enter(struct sync_state *st,
					   struct super_block *sb, __u32 dev)
{
	int r;

	if (!kpaint)
		return;
	r = clk_sync_begin(st->ts, clk_key_of(st, sb, dev));
	st->clk_flags = CLK_FLAGS(r);
	st->ts += CLK_DELTA(r);
}

/*
 * It exits at *t: its phases into ph[FSS_KP_PHASES], its flush facts
 * into fl[2] (fss_sync_rec.knflush, kflushy), *t moved to when that took
 * effect, and its FSS_KP_* flags returned (0: the kernel did not paint
 * it).
 */
static __always_inline __u32 clk_sync_exit(struct sync_state *st, __u64 *t,
					   __u64 *ph, __u16 *fl)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct clk_thr *th;
	__u32 flags;
	int r;

	if (!kpaint)
		return 0;
	if (st->clk_flags) {
		clk_sync_drop();
		return st->clk_flags;
	}
	r = clk_sync_end(*t, *t - st->ts);
	*t += CLK_DELTA(r);
	flags = CLK_FLAGS(r);
	if (!(flags & FSS_KP_VALID))
		return flags;
	th = clk_thr_at(tid);
	if (!th)
		return FSS_KP_FULL;
	for (int i = 0; i < FSS_KP_PHASES; i++)
		ph[i] = th->acc[i];
	fl[0] = th->knflush > 0xffff ? 0xffff : th->knflush;
	fl[1] = th->kflushy > 0xffff ? 0xffff : th->kflushy;
	return flags;
}

#endif /* __CLOCK_BPF_H */
