/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * clkflush.bpf.h - the in-kernel painter's flush facts (docs/hotpath.md
 * "Flush facts in the kernel"): a request's flush bits, its scope's
 * flush counts as it moves, and its distinct facts counted once in
 * clk_flc[] when it ends.  Steps of bpf/clock.bpf.c, run under the
 * disk's lock; included there only.
 */
#ifndef __CLKFLUSH_BPF_H
#define __CLKFLUSH_BPF_H

#include "clock.bpf.h"

/*
 * clk_rq.fl: a request's flush facts (as attribution's paint_rq reads
 * them from its records), and how it is counted in its scope's flush
 * counts (clk_flush_count) and in clk_flc[] (clk_flush_done).
 */
#define CLKF_PF_ASK	(1u << 0)	/* asked for a preflush */
#define CLKF_FUA_ASK	(1u << 1)	/* asked for FUA */
#define CLKF_FUA_ISS	(1u << 2)	/* issued with FUA */
#define CLKF_NVFL	(1u << 3)	/* its NVMe command is a Flush */
#define CLKF_NVDONE	(1u << 4)	/* and that command completed */
#define CLKF_SERVED	(1u << 5)	/* a traced sync of its scope
					 * overlapped it */
#define CLKF_FC_IN	(1u << 6)	/* in its scope's fc_in */
#define CLKF_FC_ST	(1u << 7)	/* counted in fc_st (once) */
#define CLKF_PF_IN	(1u << 8)	/* in pf_in */
#define CLKF_PF_ST	(1u << 9)	/* counted in pf_st (once) */

/* Does shared request r count in key k (key) of its disk? */
static __always_inline bool clk_counts_in(const struct clk_rq *r,
					  const struct clk_key *key, __u32 k)
{
	return key->fs && (r->shared == CLK_ALL || r->shared == k);
}

static __always_inline bool clk_flushy(const struct clk_rq *r)
{
	return r->pure_flush ||
	       (r->fl & (CLKF_PF_ASK | CLKF_FUA_ASK | CLKF_FUA_ISS | CLKF_NVFL));
}

static __always_inline void clk_cnt(__u64 *in, __u64 *st, int d, bool start)
{
	if (d > 0)
		(*in)++;
	else if (d < 0 && *in)
		(*in)--;
	if (start)
		(*st)++;
}

/*
 * The flush counts of request r's scope, after its level or its flush
 * facts changed (under the lock): a flush-class request is "in" while
 * it is at a level (in flight), and counted once as started; a sync's
 * overlapped ones are then those in at its entry plus those started
 * before its exit.  Its scope is the keys it counts in (a shared
 * request), or its thread (its own: flushes are shared, never own).
 */
static __always_inline void clk_flush_count(struct clk_disk *d,
					    struct clk_rq *r,
					    struct clk_thr *th)
{
	__u16 fl = r->fl;
	bool fin = r->lvl && clk_flushy(r), pin = r->lvl && r->pure_flush;
	bool fst = fin && !(fl & CLKF_FC_ST), pst = pin && !(fl & CLKF_PF_ST);
	int df = (int)fin - !!(fl & CLKF_FC_IN);
	int dp = (int)pin - !!(fl & CLKF_PF_IN);

	if (!df && !dp)
		return;
	if (r->shared == CLK_OWN) {
		if (th && r->own && r->gen == th->gen)
			clk_cnt(&th->fc_in, &th->fc_st, df, fst);
	} else {
		for (__u32 k = 0; k < CLK_KEYS; k++) {
			struct clk_key *key = &d->keys[k];

			if (!clk_counts_in(r, key, k))
				continue;
			clk_cnt(&key->fc_in, &key->fc_st, df, fst);
			clk_cnt(&key->pf_in, &key->pf_st, dp, pst);
		}
	}
	fl &= ~(CLKF_FC_IN | CLKF_PF_IN);
	fl |= (fin ? CLKF_FC_IN : 0) | (pin ? CLKF_PF_IN : 0) |
	      (fst ? CLKF_FC_ST : 0) | (pst ? CLKF_PF_ST : 0);
	r->fl = fl;
}

/*
 * The traced syncs of request r's scope entered so far; *now: one is in
 * flight.  NULL: none can be (its own thread's slot is gone).
 */
static __always_inline __u64 *clk_scope_sent(struct clk_disk *d,
					     struct clk_rq *r,
					     struct clk_thr *th, bool *now)
{
	if (r->shared == CLK_ALL) {
		*now = d->nsync > 0;
		return &d->sent;
	}
	if (r->shared < CLK_KEYS) {
		struct clk_key *k = &d->keys[r->shared & CLK_KMASK];

		*now = k->nsync > 0;
		return &k->sent;
	}
	if (!th)
		return NULL;
	*now = th->counted && (th->counted >> 8) == r->dslot;
	return &th->sent;
}

/* At its first event: a sync of its scope in flight serves it. */
static __always_inline void clk_serve_init(struct clk_disk *d,
					   struct clk_rq *r,
					   struct clk_thr *th)
{
	bool now = false;
	__u64 *sent = clk_scope_sent(d, r, th, &now);

	r->sv = sent ? (__u32)*sent : 0;
	if (now)
		r->fl |= CLKF_SERVED;
}

/*
 * Request r ends (its completion, or its address's next request): if a
 * traced sync of its scope overlapped it (one in flight at its first
 * event, or one entered since), its flush facts are counted once, as
 * attribution's count_once counts a request painted into >= 1 sync.
 */
static __always_inline void clk_flush_done(struct clk_disk *d,
					   struct clk_rq *r,
					   struct clk_thr *th)
{
	__u16 fl = r->fl;
	bool now = false;
	__u64 *sent;

	if (!(fl & CLKF_SERVED)) {
		sent = clk_scope_sent(d, r, th, &now);
		if (!sent || (__u32)*sent == r->sv)
			return;
	}
	if (r->pure_flush)
		__sync_fetch_and_add(&clk_flc[FSS_KFL_FLUSHES], 1);
	else if (fl & CLKF_PF_ASK)
		__sync_fetch_and_add(&clk_flc[FSS_KFL_PREFLUSH], 1);
	if (fl & CLKF_FUA_ISS)
		__sync_fetch_and_add(&clk_flc[FSS_KFL_FUA], 1);
	else if ((fl & CLKF_FUA_ASK) && r->issued)
		__sync_fetch_and_add(&clk_flc[FSS_KFL_FUA_EMU], 1);
	if ((fl & CLKF_NVFL) && (fl & CLKF_NVDONE))
		__sync_fetch_and_add(&clk_flc[FSS_KFL_NVME_FLUSH], 1);
	r->fl = fl & ~CLKF_SERVED;
}

#endif /* __CLKFLUSH_BPF_H */
