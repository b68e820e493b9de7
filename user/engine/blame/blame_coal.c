// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * blame_coal.c - which other syncs' flushes coalesced with a sync's
 * (docs/blame.md, device_flush).
 *
 * The traced syncs (FSS_EV_SYNC, sent when each ends) are kept in a ring
 * in arrival order, which is end order but for records of different CPUs.
 * A flush that completed within a sync served it (as the attribution
 * paints it, and as blame_sync.c counts the flushes a sync waited for);
 * another sync served by one of the same flushes coalesced with it.  A
 * sync is blamed when its attribution is final (300 ms after it ends):
 * syncs still running then are not seen.
 */
#include <string.h>
#include "engine/blame/blame_int.h"

/* ring entries looked at past the last flush (arrival is not end order) */
#define COAL_SLACK	64

void fss_blame__sync_add(struct fss_blame *b, const struct fss_event *ev)
{
	struct bsync *s = &b->syncs[b->nsyncs++ % BL_NSYNC];

	s->start = ev->ts;
	s->end = ev->ts_end;
	s->pid = ev->pid;
	s->tid = ev->tid;
	s->dev = ev->dev;
	s->disk = b->opts.disk_of ? b->opts.disk_of(ev->dev,
						    b->opts.disk_of_arg) : 0;
	memcpy(s->comm, ev->comm, FSS_COMM_LEN);
}

static __u64 syncs_first(const struct fss_blame *b)
{
	return b->nsyncs > BL_NSYNC ? b->nsyncs - BL_NSYNC : 0;
}

/* First logical index of a sync ending at or after ts (nearly sorted). */
static __u64 syncs_lower(const struct fss_blame *b, __u64 ts)
{
	__u64 first = syncs_first(b), lo = first, hi = b->nsyncs;

	while (lo < hi) {
		__u64 mid = lo + (hi - lo) / 2;

		if (b->syncs[mid % BL_NSYNC].end < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > first + COAL_SLACK ? lo - COAL_SLACK : first;
}

static bool served(const struct bsync *t, const __u64 *fl, unsigned int nfl)
{
	for (unsigned int k = 0; k < nfl; k++)
		if (t->start <= fl[k] && fl[k] <= t->end)
			return true;
	return false;
}

static void coal_count(struct fss_blame_coal *out, const struct bsync *t)
{
	unsigned int i;

	out->syncs++;
	for (i = 0; i < out->n; i++)
		if (out->by[i].pid == t->pid)
			break;
	if (i == out->n) {
		if (out->n == FSS_BLAME_COAL_MAX) {
			out->unlisted++;
			return;
		}
		out->n++;
		out->by[i].pid = t->pid;
		out->by[i].syncs = 0;
		memcpy(out->by[i].comm, t->comm, FSS_COMM_LEN);
	}
	out->by[i].syncs++;
}

/* most syncs first (a few entries: insertion sort) */
static void coal_sort(struct fss_blame_coal *out)
{
	for (unsigned int i = 1; i < out->n; i++)
		for (unsigned int j = i; j > 0 &&
		     out->by[j].syncs > out->by[j - 1].syncs; j--) {
			__typeof__(out->by[0]) x = out->by[j];

			out->by[j] = out->by[j - 1];
			out->by[j - 1] = x;
		}
}

void fss_blame__coalesced(const struct fss_blame *b,
			  const struct fss_sync_result *res,
			  const __u64 *fl, unsigned int nfl,
			  struct fss_blame_coal *out)
{
	__u32 disk = b->opts.disk_of ? b->opts.disk_of(res->dev,
						       b->opts.disk_of_arg) : 0;
	__u64 lo = UINT64_MAX, hi = 0;
	unsigned int after = 0;

	memset(out, 0, sizeof(*out));
	if (!nfl)
		return;
	out->valid = true;
	for (unsigned int k = 0; k < nfl; k++) {
		lo = fl[k] < lo ? fl[k] : lo;
		hi = fl[k] > hi ? fl[k] : hi;
	}
	for (__u64 i = syncs_lower(b, lo); i < b->nsyncs && after < COAL_SLACK;
	     i++) {
		const struct bsync *t = &b->syncs[i % BL_NSYNC];

		if (t->end > hi)
			after++;
		if (t->tid == res->tid && t->start == res->start)
			continue;		/* the sync itself */
		if (disk ? t->disk != disk : t->dev != res->dev)
			continue;
		if (served(t, fl, nfl))
			coal_count(out, t);
	}
	coal_sort(out);
}
