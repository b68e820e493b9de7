// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * tidx.c - the time index of the attribution engine: see tidx.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "engine/attr/tidx.h"

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

int tidx_insert(struct tidx *t, struct tnode *n)
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
int tidx_update(struct tidx *t, struct tnode *n)
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

int ptrvec_push(struct ptrvec *v, void *x)
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
int tidx_query(const struct tidx *t, __u64 s, __u64 e,
	       struct ptrvec *out)
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
void tidx_gc(struct tidx *t, __u64 cutoff, __u64 stale_before,
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

void tidx_destroy(struct tidx *t, tnode_free_fn fn, void *ctx)
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
