/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * tidx.h - the time index of the attribution engine (attr.c and friends).
 *
 * Answers "which items overlap [s, e)?" quickly: items are kept in an
 * array sorted by their first timestamp; an item that is still open, or
 * lasted longer than TIDX_LONG_NS, or was evicted from the sorted array
 * while it could still matter, is also listed in a small unsorted side
 * list.  Beside each slot of the sorted array, pm[] keeps an upper bound
 * of the latest end among the closed, short items up to that slot: a
 * query scans back from e only while that bound is past s, then the side
 * list.  On a fast device that is a handful of items however many a slow
 * one elsewhere in the window left behind.
 *
 * Internal to the attribution modules; pure C, no I/O.
 */
#ifndef __FSS_TIDX_H
#define __FSS_TIDX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

/* Items longer than this also go to the side list of the time index. */
#define TIDX_LONG_NS		(10 * 1000000ULL)

#define OPEN_END		UINT64_MAX

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

struct ptrvec {
	void **p;
	size_t n, cap;
};

int tidx_insert(struct tidx *t, struct tnode *n);
/* After n->end changed. */
int tidx_update(struct tidx *t, struct tnode *n);
/* Append every item overlapping [s, e) to out. */
int tidx_query(const struct tidx *t, __u64 s, __u64 e, struct ptrvec *out);
/*
 * Forget items that ended before cutoff, and open items whose last event is
 * older than stale_before (their completion was lost).
 */
void tidx_gc(struct tidx *t, __u64 cutoff, __u64 stale_before,
	     tnode_free_fn fn, void *ctx);
void tidx_destroy(struct tidx *t, tnode_free_fn fn, void *ctx);

int ptrvec_push(struct ptrvec *v, void *x);

#endif /* __FSS_TIDX_H */
