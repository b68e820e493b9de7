// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * block.bpf.c - block requests: created/inserted, issued, completed.
 *
 * Each program exists as tp_btf (preferred: typed struct request *) and as
 * raw_tp (same arguments, for kernels that refuse tp_btf); user space
 * enables one set.  Requests are identified by their struct request
 * pointer; op and flags are normalised with BTF enum values.
 *
 * These run for every request of the traced disk, several per sync, so
 * they are kept short: the tp_btf set reads the request with plain loads
 * (direct = true: the verifier knows the argument's type), the raw_tp set
 * with bpf_probe_read_kernel(); the body is one inlined function.
 */
#include "blame_owner.bpf.h"
#include "clock.bpf.h"

/*
 * Blame on, tp_btf set, block_io_start in the kernel (user space sets it):
 * btf_io_start sends each creation on a disk blame wants with its owner,
 * one record (struct fss_rq_owned_event), and blame_rq_owner is not
 * loaded.
 */
const volatile bool blame_in_rq __weak = false;

static __always_inline void rq_fill(struct fss_rq_event *e, struct request *rq,
				    __u32 type, __s64 nr_bytes,
				    const bool direct, const __u32 extra)
{
	e->id = (__u64)rq;
	e->sector = FSS_RD(direct, rq, __sector);
	e->bytes = nr_bytes >= 0 ? nr_bytes : FSS_RD(direct, rq, __data_len);
	e->flags = rq_flags(rq, direct, type == FSS_EV_RQ_START ||
			    type == FSS_EV_RQ_ISSUE) | extra;
}

/*
 * A request the submitting thread makes for its summarized sync needs no
 * creation record (bpf/common.bpf.h): no traced sync paints another
 * thread's data writes (docs/model.md); flush-class requests, which any
 * sync on the disk may wait for, are always recorded.  Folded, its entry
 * is muted (fold_mute) and its issue and completion go nowhere either;
 * per event they still are sent (they may run in a traced sync's thread,
 * which cannot tell whose request it handles without a lookup).
 */
static __always_inline bool rq_of_summarized(struct request *rq,
					     const bool direct)
{
	struct sync_state *st;
	__u32 opf;

	if (!summ_inflight)
		return false;
	st = sync_current();
	if (!st || !st->summ)
		return false;
	opf = FSS_RD(direct, rq, cmd_flags);
	if ((opf & ((1u << FSS_REQ_OP_BITS) - 1)) == FSS_REQ_OP(REQ_OP_FLUSH) ||
	    (opf & (1u << FSS_REQ_BIT(__REQ_PREFLUSH))) ||
	    (opf & (1u << FSS_REQ_BIT(__REQ_FUA))))
		return false;
	return true;
}

/* Is the request to be recorded?  *dev: its disk. */
static __always_inline bool rq_want(struct request *rq, __u32 hook,
				    const bool direct, __u32 *dev)
{
	if (floor_hit(hook))
		return false;
	*dev = fss_rq_kdev(rq, direct);
	if (targ_disk_dev && *dev != targ_disk_dev)
		return false;
	count_hit(hook);
	return rq_dev_marked(*dev);
}

/*
 * Folded (rq_fold): the event goes into the request's entry of rq_folds
 * (cur: as the caller found or made it), and a completion sends them all
 * (bpf/common.bpf.h).  owned: the folded creation's owner, when blame
 * wants it.  False: not folded, send it.
 */
static __always_inline bool rq_fold_event(struct request *rq, __u32 type,
					  __u32 dev, __s64 nr_bytes,
					  const bool direct, const __u32 extra,
					  const bool owned, __u64 now,
					  struct fss_rq_fold_event *cur)
{
	struct fss_rq_fold_event *f;
	struct fss_fold_slot s;
	__u64 key = (__u64)rq;

	s.ts = now;
	s.type = type;
	s.tid = (__u32)bpf_get_current_pid_tgid();
	s.sector = FSS_RD(direct, rq, __sector);
	s.bytes = nr_bytes >= 0 ? nr_bytes : FSS_RD(direct, rq, __data_len);
	s.flags = rq_flags(rq, direct, type == FSS_EV_RQ_START ||
			   type == FSS_EV_RQ_ISSUE) | extra;
	f = fold_add(cur, key, dev, &s, type == FSS_EV_RQ_START ||
		     type == FSS_EV_RQ_ISSUE);
	if (!f)
		return false;
	if (owned) {
		owner_fill(&f->own);
		f->owned = 1;
	}
	if (type == FSS_EV_RQ_COMPLETE)
		fold_done(key, f);
	return true;
}

/* The flight recorder (fsyncscope.h fss_fr_rec): user space maps it. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, FSS_FR_SLOTS);
	__type(key, __u32);
	__type(value, struct fss_fr_rec);
} fr_ring SEC(".maps");

__u64 fr_head = 0;		/* requests written so far */

/* A completed request's note into the next slot (seq: fss_fr_rec). */
static __always_inline void fr_append(const struct fss_fr_note *n, __u32 dev,
				      __s64 nr_bytes, __u64 now)
{
	__u64 i = __sync_fetch_and_add(&fr_head, 1);
	__u32 k = i & (FSS_FR_SLOTS - 1);
	struct fss_fr_rec *e = bpf_map_lookup_elem(&fr_ring, &k);

	if (!e)
		return;
	*(volatile __u64 *)&e->seq = 0;
	asm volatile("" ::: "memory");
	e->start = n->start;
	e->issue = n->issue;
	e->complete = now;
	e->own = n->own;
	e->dev = dev;
	e->bytes = nr_bytes > 0 ? (__u32)nr_bytes : 0;
	e->rqflags = n->rqflags;
	asm volatile("" ::: "memory");
	*(volatile __u64 *)&e->seq = i + 1;
}

/*
 * kp_fr: a request's event into its note (fss_fr_note, in its rq_folds
 * entry): its creation (or first insert) the time and whom it is credited
 * to, as blame's owner record would, its issue the time and flags; at its
 * first completion the note goes to the flight recorder and is cleared.
 * Only disks blame wants (unfiltered: those of traced syncs).
 */
static __always_inline void fr_note(struct fss_rq_fold_event *f, __u32 type,
				    __u32 dev, __u32 flags, __s64 nr_bytes,
				    __u64 now)
{
	struct fss_fr_note *n = &f->fr;

	if (type == FSS_EV_RQ_ISSUE) {
		n->issue = now;
		n->rqflags = flags;
		return;
	}
	if (type == FSS_EV_RQ_START) {
		/* a creation is a new request; an insert after it is not */
		if (n->start && !(flags & FSS_RQ_CREATE))
			return;
		n->start = now;
		n->issue = 0;
		n->own.pid = 0;
		if (blame_disk_dev(dev))
			owner_fill(&n->own);
		return;
	}
	if (type != FSS_EV_RQ_COMPLETE || !(n->start | n->issue))
		return;
	if (blame_disk_dev(dev))
		fr_append(n, dev, nr_bytes, now);
	n->start = 0;
	n->issue = 0;
}

/* The clocks skip a summarized sync's own request (clk_rq_mute). */
static __always_inline void rq_clk_mute(struct request *rq, __u32 dev,
					__u32 extra, __u64 now)
{
	struct fss_rq_fold_event *f = fold_entry_of((__u64)rq, true);

	clk_rq_mute(f ? &f->clk : NULL);
	/* the flight recorder still holds it: it is a neighbour's load */
	if (kp_fr && f)
		fr_note(f, FSS_EV_RQ_START, dev, extra, -1, now);
}

/*
 * The in-kernel painter's step for a request's event, then the flight
 * recorder's note (kp_fr); the time, moved on by what the clocks took.
 */
static __always_inline __u64 rq_clk_step(struct fss_rq_fold_event *f,
					 __u32 dev, __u32 type, __u32 fl,
					 __s64 nr_bytes, __u64 now)
{
	int r;

	/* its state null-checked before any arithmetic (verifier) */
	if (f)
		r = clk_rq_event(&f->clk, dev, type, fl, now);
	else
		r = clk_rq_event(NULL, dev, type, fl, now);
	now += CLK_DELTA(r);
	if (kp_fr && f)
		fr_note(f, type, dev, fl, nr_bytes, now);
	return now;
}

static __always_inline int rq_event(struct request *rq, __u32 type,
				    __u32 hook, __s64 nr_bytes, const bool direct,
				    const __u32 extra)
{
	const bool clk = kpaint && direct && type != FSS_EV_RQ_REQUEUE;
	struct fss_rq_fold_event *f = NULL;
	struct fss_rq_event *e;
	__u64 now;
	__u32 dev;

	if (!rq_want(rq, hook, direct, &dev))
		return 0;
	now = bpf_ktime_get_ns();	/* one time for records and clocks */
	/*
	 * only its creation or insert: that runs in the submitter; an issue
	 * may run in any thread that runs the queue, for others' requests
	 */
	if (type == FSS_EV_RQ_START && rq_of_summarized(rq, direct) &&
	    (!rq_fold || fold_mute((__u64)rq, extra & FSS_RQ_CREATE))) {
		if (kpaint && direct)	/* raw_tp may not take its lock */
			rq_clk_mute(rq, dev, extra, now);
		return 0;
	}
	/*
	 * one lookup of its rq_folds entry for the fold and the clocks, which
	 * keep its state there (made at its first event); the time the
	 * clocks took it is the records' too (clock.bpf.h)
	 */
	if (rq_fold || clk)
		f = fold_entry_of((__u64)rq, clk && type != FSS_EV_RQ_COMPLETE);
	if (clk) {
		__u32 fl = rq_flags(rq, direct, type != FSS_EV_RQ_COMPLETE) |
			   extra;

		now = rq_clk_step(f, dev, type, fl, nr_bytes, now);
	}
	if (kp_only && direct)	/* the clocks alone (clock.bpf.h) */
		return 0;
	if (rq_fold && rq_fold_event(rq, type, dev, nr_bytes, direct, extra,
				     false, now, f))
		return 0;
	e = rq_event_reserve(type, dev);
	if (!e)
		return 0;
	e->ts = now;
	rq_fill(e, rq, type, nr_bytes, direct, extra);
	event_submit(e);
	return 0;
}

/*
 * A creation with its owner (blame_in_rq): what rq_event and blame's
 * owner record would send, in one record; a disk blame does not want gets
 * the plain one.
 */
static __always_inline int rq_start_owned(struct request *rq)
{
	struct fss_rq_fold_event *f = NULL;
	struct fss_rq_owned_event *e;
	struct fss_credited own;
	__u64 now;
	__u32 dev;

	if (!rq_want(rq, FSS_HOOK_RQ_START, true, &dev))
		return 0;
	now = bpf_ktime_get_ns();
	if (rq_of_summarized(rq, true) &&
	    (!rq_fold || fold_mute((__u64)rq, true))) {
		if (kpaint)
			rq_clk_mute(rq, dev, FSS_RQ_CREATE, now);
		return 0;
	}
	if (rq_fold || kpaint)	/* as rq_event */
		f = fold_entry_of((__u64)rq, kpaint);
	if (kpaint) {
		__u32 fl = rq_flags(rq, true, true) | FSS_RQ_CREATE;

		now = rq_clk_step(f, dev, FSS_EV_RQ_START, fl, -1, now);
	}
	if (kp_only)	/* the clocks alone, and the flight recorder */
		return 0;
	if (rq_fold && rq_fold_event(rq, FSS_EV_RQ_START, dev, -1, true,
				     FSS_RQ_CREATE, blame_disk_dev(dev), now,
				     f))
		return 0;
	if (!blame_disk_dev(dev)) {
		struct fss_rq_event *p = rq_event_reserve(FSS_EV_RQ_START, dev);

		if (p) {
			p->ts = now;
			rq_fill(p, rq, FSS_EV_RQ_START, -1, true, FSS_RQ_CREATE);
			event_submit(p);
		}
		return 0;
	}
	owner_fill(&own);	/* its comm, if new, goes first */
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count_drop(0);
		count_drop(2);
		return 0;
	}
	e->rq.type = FSS_EV_RQ_START_OWNED;
	e->rq.tid = (__u32)bpf_get_current_pid_tgid();
	e->rq.ts = now;
	e->rq.dev = dev;
	e->rq.nvme_opcode = 0;
	rq_fill(&e->rq, rq, FSS_EV_RQ_START, -1, true, FSS_RQ_CREATE);
	e->own = own;
	event_submit(e);
	return 0;
}

/* --- tp_btf --- */
SEC("tp_btf/block_io_start")
int BPF_PROG(btf_io_start, struct request *rq)
{
	if (!rq)
		return 0;	/* may be NULL: common.bpf.h */
	if (blame_in_rq)
		return rq_start_owned(rq);
	return rq_event(rq, FSS_EV_RQ_START, FSS_HOOK_RQ_START, -1, true,
			FSS_RQ_CREATE);
}

SEC("tp_btf/block_rq_insert")
int BPF_PROG(btf_rq_insert, struct request *rq)
{
	if (!rq)
		return 0;	/* may be NULL: common.bpf.h */
	return rq_event(rq, FSS_EV_RQ_START, FSS_HOOK_RQ_START, -1, true, 0);
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(btf_rq_issue, struct request *rq)
{
	if (!rq)
		return 0;	/* may be NULL: common.bpf.h */
	return rq_event(rq, FSS_EV_RQ_ISSUE, FSS_HOOK_RQ_ISSUE, -1, true, 0);
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(btf_rq_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	if (!rq)
		return 0;	/* may be NULL: common.bpf.h */
	return rq_event(rq, FSS_EV_RQ_COMPLETE, FSS_HOOK_RQ_COMPLETE, nr_bytes, true, 0);
}

SEC("tp_btf/block_rq_requeue")
int BPF_PROG(btf_rq_requeue, struct request *rq)
{
	if (!rq)
		return 0;	/* may be NULL: common.bpf.h */
	return rq_event(rq, FSS_EV_RQ_REQUEUE, FSS_HOOK_RQ_REQUEUE, -1, true, 0);
}

/* --- raw_tp: same arguments, untyped context --- */
SEC("raw_tp/block_io_start")
int BPF_PROG(raw_io_start, struct request *rq)
{
	return rq_event(rq, FSS_EV_RQ_START, FSS_HOOK_RQ_START, -1, false,
			FSS_RQ_CREATE);
}

SEC("raw_tp/block_rq_insert")
int BPF_PROG(raw_rq_insert, struct request *rq)
{
	return rq_event(rq, FSS_EV_RQ_START, FSS_HOOK_RQ_START, -1, false, 0);
}

SEC("raw_tp/block_rq_issue")
int BPF_PROG(raw_rq_issue, struct request *rq)
{
	return rq_event(rq, FSS_EV_RQ_ISSUE, FSS_HOOK_RQ_ISSUE, -1, false, 0);
}

SEC("raw_tp/block_rq_complete")
int BPF_PROG(raw_rq_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	return rq_event(rq, FSS_EV_RQ_COMPLETE, FSS_HOOK_RQ_COMPLETE, nr_bytes, false, 0);
}

SEC("raw_tp/block_rq_requeue")
int BPF_PROG(raw_rq_requeue, struct request *rq)
{
	return rq_event(rq, FSS_EV_RQ_REQUEUE, FSS_HOOK_RQ_REQUEUE, -1, false, 0);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
