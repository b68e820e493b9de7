/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * common.bpf.h - maps, settings and helpers shared by the per-layer BPF
 * programs.  Every definition is __weak so that each object file can carry
 * it and `bpftool gen object` merges them into one.
 */
#ifndef __COMMON_BPF_H
#define __COMMON_BPF_H

#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "fsyncscope.h"
#include "core_fixes.bpf.h"

/*
 * tp_btf pointer arguments may be NULL.  Kernels with "bpf: Mark raw_tp
 * arguments with PTR_MAYBE_NULL" (Debian's 6.12.117, 6.13) type every one
 * trusted_ptr_or_null, and the verifier refuses to load a program that
 * dereferences one before testing it ("invalid mem access
 * 'trusted_ptr_or_null_'", EACCES): the block and NVMe tp_btf sets and
 * blame did not load there (docs/kernels.md).  So every tp_btf program
 * tests its pointer arguments first ("may be NULL: common.bpf.h"); older
 * kernels accept both.
 */

/* Settings, written by user space between open and load. */
const volatile __u32 targ_tgid __weak = 0;	/* 0: any process */
const volatile bool filter_tgids __weak = false;	/* use the tgids map */
const volatile __u32 targ_fs_dev __weak = 0;	/* 0: any filesystem */
/* targ_fs_dev an overlay: its upper filesystem, whose work its syncs are */
const volatile __u32 targ_fs_upper __weak = 0;
const volatile __u32 targ_disk_dev __weak = 0;	/* 0: any disk */

/* Is dev the target filesystem, or the one a target overlay syncs? */
static __always_inline bool targ_fs_is(__u32 dev)
{
	return dev == targ_fs_dev || (targ_fs_upper && dev == targ_fs_upper);
}
const volatile char targ_comm[FSS_COMM_LEN] __weak = {};	/* "": any */
const volatile __u64 targ_cgroup __weak = 0;	/* cgroup v2 id, 0: any */
/*
 * Benchmark floor (FSYNCSCOPE_FLOOR=1): every program counts its hook and
 * returns, so a run costs only what having programs on these attach points
 * costs; bench-overhead compares it with the full recording.
 */
const volatile bool floor_only __weak = false;

/*
 * Live mode: fsyncscope's own process (0: off).  Its syncs are never
 * traced (its calibration's are, through calib_tgid); blame tells its
 * other records apart in user space by this pid (docs/live.md).
 */
const volatile __u32 self_tgid __weak = 0;

/*
 * Overload by design (docs/hotpath.md "Overload"): a sync that enters
 * while the ring holds more than ring_high_pct % unread data is summarized
 * (counted in summ, no records of its own); a sync during which, or
 * loss_grace_ns before which, a record was lost is summarized at its exit.
 * ring_high_pct 0: never at entry.
 */
const volatile __u32 ring_high_pct __weak = 75;
const volatile __u64 loss_grace_ns __weak = 20 * 1000 * 1000;
/*
 * Sampling at a stated rate (--sample N, docs/hotpath.md "Sampling"): a
 * sync is traced in full with probability 1/N, drawn at entry; the others
 * are summarized (FSS_SUMM_SAMPLED).  0 or 1: every sync.  Calibration's
 * syncs are always traced.
 */
const volatile __u32 sample_every __weak = 0;
/* When a record was last lost (ring full), for the check above. */
__u64 last_loss_ns __weak = 0;
/* Summarized syncs in flight: their own requests need no records. */
__s64 summ_inflight __weak = 0;

/* Runtime switch: our own process during calibration (0: off). */
__u32 calib_tgid __weak = 0;

/*
 * Start time of each sync in flight, in slot tid % FSS_INFLIGHT_SLOTS, 0
 * when none; user space reads it through the mmap'ed .bss to keep what a
 * long sync overlaps until its record arrives.  Two threads in flight on
 * one slot: the later one wins, and the earlier sync is then only covered
 * by user space's slack.
 */
__u64 inflight_start[FSS_INFLIGHT_SLOTS] __weak = {};

/* Per-thread state of an in-flight sync. */
struct sync_state {
	__u64 ts;
	__u64 fs_start, fs_end, log_start;
	__u64 ino;
	__u64 bytes;
	__u32 kind;
	__u32 dev;
	__u32 fs_hook;
	__u32 fd;
	__u32 rq_marked;	/* fs dev whose disk this thread put in rq_devs */
	__u32 summ;		/* enum fss_summ_why: 0 traced, else why not */
	__u32 clk_fs;		/* kpaint (clock.bpf.h): fs dev of clk_dk */
	__u32 clk_dk;		/* its clock key, 0: none */
	__u32 clk_flags;	/* FSS_KP_* known at entry: not painted */
	__u32 clk_pad;
};

/*
 * Disks of interest (docs/model.md): unfiltered tracing (no --mount/--dev)
 * records block and NVMe requests only on the disks of traced syncs.  A
 * sync's entry puts its file's disk in rq_devs; user space puts there the
 * disk it maps each traced sync's filesystem to, and sets rq_dev_all when
 * it cannot (a filesystem whose disk it does not know: requests of any
 * disk may belong to its syncs) or the map is full.  Requests elsewhere are
 * only counted (hook_hits).
 */
const volatile bool rq_dev_filter __weak = false;
__u32 rq_dev_all __weak = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);			/* disk dev_t */
	__type(value, __u8);
} rq_devs SEC(".maps") __weak;

/* Overlay fs dev -> its upper filesystem and disk (fsyncscope.h). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);			/* the overlay's fs dev_t */
	__type(value, struct fss_fs_alias);
} fs_alias SEC(".maps") __weak;

/* Per-journal state of an in-flight jbd2 commit; start == 0: none. */
struct commit_state {
	__u64 start, locking, flushing, logging;
	__u32 transaction;
	__u32 sync_commit;
	__u32 dev;
	__u32 pad;
	/*
	 * kpaint: the time of a commit's start [0] stamped by the first of
	 * its two programs (classic and tp_btf, journal.bpf.c) for
	 * transaction ev_tx - 1, so that both painters see one time ([1]:
	 * unused; the tp_btf end sends the record itself)
	 */
	__u64 ev_ts[2];
	__u32 ev_tx[2];
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 2 << 20);
} events SEC(".maps") __weak;

/*
 * Per-thread sync state in task-local storage: found from the current task
 * without hashing, kept for the thread's life (an idle slot has ts == 0)
 * so a sync costs no map insert or delete, and freed with the thread.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sync_state);
} syncs SEC(".maps") __weak;

/*
 * A jbd2 commit runs start to end in its journal's kthread
 * (jbd2_journal_commit_transaction), so its state lives in that thread's
 * task storage: no hash insert and delete per commit.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct commit_state);
} commits SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);			/* tgid */
	__type(value, __u8);
} tgids SEC(".maps") __weak;

/*
 * [0]: events lost (ring buffer full); [1]: sync state lost (no task storage
 * slot could be made for a sync or a journal commit, or found at a sync's
 * exit: seen at the thread's next sync; or the io_uring request map was
 * full); [2]: blame records lost (ring buffer full)
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 3);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps") __weak;

/* Syncs by kind: traced in full, or summarized (why, total, log2 hist). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FSS_SYNC_KIND_MAX);
	__type(key, __u32);
	__type(value, struct fss_summ);
} summ SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FSS_HOOK_MAX);
	__type(key, __u32);
	__type(value, __u64);
} hook_hits SEC(".maps") __weak;

static __always_inline void count_drop(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&drops, &which);

	if (v)
		(*v)++;
	if (which == 0)
		last_loss_ns = bpf_ktime_get_ns();
}

/*
 * Folded requests (struct fss_rq_fold_event, FSYNCSCOPE_RQ_RECORDS): on,
 * a request's events wait in rq_folds and go as one record at its first
 * completion; user space unfolds it into the same events, in the same
 * order, and reads the map for requests in flight (engine/tracer/fold.c).
 * Off (max_entries set to 1 by user space): one record per event.
 */
const volatile bool rq_fold __weak = false;
/* In an idle entry's owned: its request's events are dropped (fold_mute). */
#define FSS_FOLD_MUTED	2

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u64);			/* struct request * */
	__type(value, struct fss_rq_fold_event);
} rq_folds SEC(".maps") __weak;

/* Never written: the zeroed value a new rq_folds entry starts from. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fss_rq_fold_event);
} rq_fold_zero SEC(".maps") __weak;

/* Send the n events folded in f (the entry stays; the caller resets it). */
static __always_inline void fold_send(struct fss_rq_fold_event *f)
{
	__u32 n = f->n;

	if (n == 0 || n > FSS_FOLD_SLOTS)
		return;
	/* to its last slot used: the clock state after the slots stays */
	if (bpf_ringbuf_output(&events, f,
			       offsetof(struct fss_rq_fold_event, ev) +
			       n * sizeof(struct fss_fold_slot), BPF_RB_NO_WAKEUP)) {
		count_drop(0);
		if (f->owned)
			count_drop(2);
	}
}

/* A new, empty entry of rq_folds for request key; NULL: map full. */
static __always_inline struct fss_rq_fold_event *fold_entry_new(__u64 key)
{
	struct fss_rq_fold_event *f;
	__u32 zero = 0;
	void *z = bpf_map_lookup_elem(&rq_fold_zero, &zero);

	if (!z)
		return NULL;
	bpf_map_update_elem(&rq_folds, &key, z, BPF_NOEXIST);
	f = bpf_map_lookup_elem(&rq_folds, &key);
	if (!f)
		return NULL;
	f->type = FSS_EV_RQ_FOLD;
	f->id = key;
	return f;
}

/*
 * Fold event s of request key (disk dev): appended to its entry f
 * (fold_entry_of; NULL: none yet), made when create (a start or an
 * issue) and there is none.  A creation that
 * finds an entry (its pointer's previous request never completed) or a
 * full entry sends what it holds first.  NULL: not folded, the caller
 * sends s as an event of its own (no entry for key exists then, so the
 * order of key's events is kept).
 */
static __always_inline struct fss_rq_fold_event *
fold_add(struct fss_rq_fold_event *f, __u64 key, __u32 dev,
	 const struct fss_fold_slot *s, bool create)
{
	__u32 n;

	if (f && (f->owned & FSS_FOLD_MUTED)) {
		/* a start here is another request: the muted one is gone */
		if (s->type == FSS_EV_RQ_START)
			f->owned = 0;
		else {		/* swallowed: nothing appended, nothing sent */
			if (s->type == FSS_EV_RQ_COMPLETE)
				f->owned = 0;
			return f;
		}
	}
	if (!f) {
		if (!create)
			return NULL;
		f = fold_entry_new(key);
		if (!f)
			return NULL;
	} else if (f->n >= FSS_FOLD_SLOTS ||
		   (f->n && s->type == FSS_EV_RQ_START &&
		    (s->flags & FSS_RQ_CREATE))) {
		fold_send(f);
		f->n = 0;
	}
	n = f->n;
	if (!n) {		/* an idle entry: what follows begins a chunk */
		if (!create)
			return NULL;
		f->dev = dev;
		f->owned = 0;
	}
	if (n >= FSS_FOLD_SLOTS)
		return NULL;
	f->ev[n] = *s;
	/* written after the slot: a reader that sees n sees the slot */
	asm volatile("" ::: "memory");
	f->n = n + 1;
	return f;
}

/*
 * Key's entry, made (empty) when create and there is none: the in-kernel
 * painter keeps a request's state in it (fss_rq_fold_event.clk).  An
 * empty entry folds as no entry does.  NULL: none, or the map is full.
 */
static __always_inline struct fss_rq_fold_event *fold_entry_of(__u64 key,
							       bool create)
{
	struct fss_rq_fold_event *f = bpf_map_lookup_elem(&rq_folds, &key);

	return f || !create ? f : fold_entry_new(key);
}

/*
 * A request that a summarized sync's own thread creates (rq_of_summarized,
 * bpf/block.bpf.c): no traced sync paints it (docs/model.md), so its
 * entry is muted from its creation to its completion and fold_add
 * swallows its events -- no record at all, where the per-event transport
 * still sends its issue and completion.  create: this is the request's
 * creation, so events an entry still holds are an earlier request's at the
 * address (it never completed): sent first.  False when the entry holds
 * this request's own earlier events (its creation outside the sync): the
 * caller then folds the event as usual, so a request is whole or absent.
 */
static __always_inline bool fold_mute(__u64 key, bool create)
{
	struct fss_rq_fold_event *f = bpf_map_lookup_elem(&rq_folds, &key);

	if (!f) {
		f = fold_entry_new(key);
		if (!f)
			return false;
	} else if (f->n && !(f->owned & FSS_FOLD_MUTED)) {
		if (!create)
			return false;
		fold_send(f);
		f->n = 0;
	}
	f->owned = FSS_FOLD_MUTED;
	return true;
}

/*
 * The request completed: send its folded events.  The entry stays, idle
 * (n = 0), for the next request at this address: requests are
 * preallocated per tag, so the addresses recur and a request then costs
 * no map update or delete.
 */
static __always_inline void fold_done(__u64 key, struct fss_rq_fold_event *f)
{
	fold_send(f);
	f->n = 0;
}

static __always_inline __u32 log2_ns(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1) r += 1;
	return r;
}

/* Count one sync of kind: traced (why 0) or summarized, with its total. */
static __always_inline void summ_count(__u32 kind, __u32 why, __u64 total_ns)
{
	struct fss_summ *s = bpf_map_lookup_elem(&summ, &kind);
	__u32 b;

	if (!s || why >= FSS_SUMM_WHY_MAX)
		return;
	__sync_fetch_and_add(&s->syncs[why], 1);
	if (why == FSS_SUMM_TRACED)
		return;
	__sync_fetch_and_add(&s->total_ns, total_ns);
	b = log2_ns(total_ns);
	if (b >= FSS_SUMM_BUCKETS)
		b = FSS_SUMM_BUCKETS - 1;
	__sync_fetch_and_add(&s->hist[b], 1);
}

/* Was a record lost during a sync that began at start (or just before)? */
static __always_inline bool loss_near(__u64 start)
{
	__u64 l = last_loss_ns;

	return l && l + loss_grace_ns >= start;
}

/* Is the ring too full for a new sync to be traced in full? */
static __always_inline bool ring_high(void)
{
	__u64 avail, size;

	if (!ring_high_pct)
		return false;
	avail = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);
	size = bpf_ringbuf_query(&events, BPF_RB_RING_SIZE);
	return avail * 100 > size * ring_high_pct;
}

/* At entry: this sync is not drawn by the sampling (see sample_every). */
static __always_inline bool sampled_out(void)
{
	return sample_every > 1 && bpf_get_prandom_u32() % sample_every;
}

static __always_inline void count_hit(__u32 hook)
{
	__u64 *v = bpf_map_lookup_elem(&hook_hits, &hook);

	if (v)
		(*v)++;
}

/*
 * Benchmark floor: count the hook and tell the program to return before
 * it records anything (the exit-side programs just test floor_only).
 */
static __always_inline bool floor_hit(__u32 hook)
{
	if (!floor_only)
		return false;
	count_hit(hook);
	return true;
}

/* The current thread's sync state slot; create: make it if missing. */
static __always_inline struct sync_state *sync_slot(bool create)
{
	return bpf_task_storage_get(&syncs, bpf_get_current_task_btf(), 0,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/* The current thread's sync in flight, or NULL. */
static __always_inline struct sync_state *sync_current(void)
{
	struct sync_state *st = sync_slot(false);

	return st && st->ts ? st : NULL;
}

static __always_inline bool want_tgid(__u32 tgid)
{
	if (calib_tgid && tgid == calib_tgid)
		return true;
	if (self_tgid && tgid == self_tgid)
		return false;
	if (targ_tgid)
		return tgid == targ_tgid;
	if (filter_tgids)
		return bpf_map_lookup_elem(&tgids, &tgid) != NULL;
	return true;
}

/* Is the current task one whose syncs we trace? */
static __always_inline bool want_task(__u32 tgid)
{
	if (calib_tgid && tgid == calib_tgid)
		return true;
	if (!want_tgid(tgid))
		return false;
	if (targ_comm[0]) {
		char comm[FSS_COMM_LEN];

		bpf_get_current_comm(comm, sizeof(comm));
		for (int i = 0; i < FSS_COMM_LEN; i++) {
			if (comm[i] != targ_comm[i])
				return false;
			if (!comm[i])
				break;
		}
	}
	if (targ_cgroup && bpf_get_current_cgroup_id() != targ_cgroup)
		return false;
	return true;
}

/*
 * A zeroed event of the current task, stamped now; a full ring counts a
 * drop in slot drop_slot.  No comm: event_reserve adds it.
 */
static __always_inline struct fss_event *event_reserve_bare(__u32 type, __u32 dev,
							   const int drop_slot)
{
	struct fss_event *e;
	__u64 id = bpf_get_current_pid_tgid();

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		if (drop_slot >= 0)	/* -1: the caller accounts for it */
			count_drop(drop_slot);
		return NULL;
	}
	__builtin_memset(e, 0, sizeof(*e));
	e->type = type;
	e->tid = (__u32)id;
	e->pid = id >> 32;
	e->dev = dev;
	e->ts = bpf_ktime_get_ns();
	return e;
}

static __always_inline struct fss_event *event_reserve_slot(__u32 type, __u32 dev,
							   const int drop_slot)
{
	struct fss_event *e = event_reserve_bare(type, dev, drop_slot);

	if (e)
		bpf_get_current_comm(e->comm, sizeof(e->comm));
	return e;
}

static __always_inline struct fss_event *event_reserve(__u32 type, __u32 dev)
{
	struct fss_event *e = event_reserve_bare(type, dev, 0);

	if (e)
		bpf_get_current_comm(e->comm, sizeof(e->comm));
	return e;
}

/* A request/NVMe record with its header filled and the rest zero. */
static __always_inline struct fss_rq_event *rq_event_reserve(__u32 type, __u32 dev)
{
	struct fss_rq_event *e;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count_drop(0);
		return NULL;
	}
	e->type = type;
	e->tid = (__u32)bpf_get_current_pid_tgid();
	e->ts = bpf_ktime_get_ns();
	e->id = 0;
	e->sector = 0;
	e->dev = dev;
	e->bytes = 0;
	e->flags = 0;
	e->nvme_opcode = 0;
	return e;
}

/*
 * Submit without waking the consumer: user space polls every few ms, which
 * keeps a wake-up (and context switch) off the traced sync path.
 */
static __always_inline void event_submit(void *e)
{
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
}

/* dev_t as tracepoints print it: MAJOR << 20 | MINOR. */
static __always_inline __u32 sb_kdev(struct super_block *sb)
{
	return BPF_CORE_READ(sb, s_dev);
}

/* Are requests on disk dev recorded?  (targ_disk_dev is checked before.) */
static __always_inline bool rq_dev_marked(__u32 dev)
{
	if (!rq_dev_filter || rq_dev_all)
		return true;
	return bpf_map_lookup_elem(&rq_devs, &dev) != NULL;
}

/*
 * A traced sync on a file of sb (fs dev): its disk becomes one of
 * interest before the sync makes any request.  Once per thread and
 * filesystem (st->rq_marked); no disk (no s_bdev): user space decides.
 */
static __always_inline void rq_dev_mark(struct sync_state *st,
					struct super_block *sb, __u32 dev)
{
	struct gendisk *disk;
	__u8 one = 1;
	__u32 d;

	if (!rq_dev_filter || st->rq_marked == dev)
		return;
	disk = BPF_CORE_READ(sb, s_bdev, bd_disk);
	if (disk) {
		d = ((__u32)BPF_CORE_READ(disk, major) << 20) |
		    (__u32)BPF_CORE_READ(disk, first_minor);
	} else {	/* an overlay: its upper's disk, once user space knows */
		struct fss_fs_alias *al = bpf_map_lookup_elem(&fs_alias, &dev);

		if (!al)
			return;
		d = al->disk;
	}
	st->rq_marked = dev;
	bpf_map_update_elem(&rq_devs, &d, &one, BPF_NOEXIST);
}

/*
 * A request's FSS_RQ_* flags (block.bpf.c, nvme.bpf.c), the op and the
 * flags from BTF enums.  who: also say whether the current task is a
 * kernel thread.  Only the submitting side (start, issue) asks; a
 * completion runs in whatever context the interrupt found, so it would
 * say nothing.
 */
static __always_inline __u32 rq_flags(struct request *rq, const bool direct,
				      const bool who)
{
	__u32 opf = FSS_RD(direct, rq, cmd_flags);
	__u32 op = opf & ((1u << FSS_REQ_OP_BITS) - 1);
	__u32 f = 0;
	struct task_struct *task;

	if (op == FSS_REQ_OP(REQ_OP_WRITE))
		f |= FSS_RQ_WRITE;
	else if (op == FSS_REQ_OP(REQ_OP_READ))
		f |= FSS_RQ_READ;
	else if (op == FSS_REQ_OP(REQ_OP_FLUSH))
		f |= FSS_RQ_FLUSH;
	else if (op == FSS_REQ_OP(REQ_OP_DISCARD))
		f |= FSS_RQ_DISCARD;
	else
		f |= FSS_RQ_OTHER;
	if (opf & (1u << FSS_REQ_BIT(__REQ_PREFLUSH)))
		f |= FSS_RQ_PREFLUSH;
	if (opf & (1u << FSS_REQ_BIT(__REQ_FUA)))
		f |= FSS_RQ_FUA;
	if (opf & (1u << FSS_REQ_BIT(__REQ_SYNC)))
		f |= FSS_RQ_SYNC;
	if (opf & (1u << FSS_REQ_BIT(__REQ_META)))
		f |= FSS_RQ_META;
	if (who) {
		task = bpf_get_current_task_btf();
		if (!task->mm)
			f |= FSS_RQ_KTHREAD;
	}
	return f;
}

#endif /* __COMMON_BPF_H */
