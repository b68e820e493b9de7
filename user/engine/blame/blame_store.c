// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Blame's stores: the per-cause accumulators, the journal transactions,
 * the ring of commits (with the journal threads that ran them) and the
 * per-disk request logs.  blame.c fills them from events; blame_sync.c
 * and blame_xfs.c read them to share a sync's time out.
 */
#include <stdlib.h>
#include <string.h>
#include "engine/blame/blame_int.h"

void fss_blame__acc_add(struct acc *a, __u32 owner, double weight,
			__u64 units, __u64 count)
{
	unsigned int i;

	a->units_total += weight;
	for (i = 0; i < a->n; i++)
		if (a->it[i].owner == owner)
			break;
	if (i == a->n) {
		if (a->n == BL_NACC) {
			a->folded += weight;
			return;
		}
		memset(&a->it[i], 0, sizeof(a->it[i]));
		a->it[i].owner = owner;
		a->n++;
	}
	a->it[i].weight += weight;
	a->it[i].units += units;
	a->it[i].count += count;
}

struct tx *fss_blame__tx_find(struct fss_blame *b, __u32 dev, __u32 jtid,
			      bool create)
{
	/* a journal's tids are consecutive: they take consecutive slots */
	struct tx *t = &b->tx[(jtid + dev * 2654435761u) & (BL_NTX - 1)];

	if (t->used && t->dev == dev && t->jtid == jtid)
		return t;
	if (!create)
		return NULL;
	if (t->used)
		b->st.tx_evicted++;
	memset(t, 0, sizeof(*t));
	t->used = true;
	t->dev = dev;
	t->jtid = jtid;
	return t;
}

void fss_blame__jthread_note(struct fss_blame *b, __u32 tid)
{
	for (unsigned int i = 0; i < b->njthreads && i < BL_NJTHREAD; i++)
		if (b->jthreads[i] == tid)
			return;
	if (b->njthreads < BL_NJTHREAD)
		b->jthreads[b->njthreads] = tid;
	if (b->njthreads <= BL_NJTHREAD)
		b->njthreads++;	/* past BL_NJTHREAD: the list is not used */
}

/* Can tid be a journal thread of a commit seen? */
static bool jthread_maybe(const struct fss_blame *b, __u32 tid)
{
	if (b->njthreads > BL_NJTHREAD)
		return true;
	for (unsigned int i = 0; i < b->njthreads; i++)
		if (b->jthreads[i] == tid)
			return true;
	return false;
}

static __u64 commits_first(const struct fss_blame *b)
{
	return b->ncommits > BL_NCOMMIT ? b->ncommits - BL_NCOMMIT : 0;
}

__u64 fss_blame__commit_lower(const struct fss_blame *b, __u64 ts)
{
	__u64 lo = commits_first(b), hi = b->ncommits;

	while (lo < hi) {
		__u64 mid = lo + (hi - lo) / 2;

		if (b->commits[mid % BL_NCOMMIT].end < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The commit whose journal thread made a request at ts, or NULL: among
 * the first commits (of any journal) that end at or after ts.
 */
const struct commit *fss_blame__commit_of_rq(const struct fss_blame *b,
					     __u32 tid, __u64 ts)
{
	__u64 i;

	if (!jthread_maybe(b, tid))
		return NULL;
	i = fss_blame__commit_lower(b, ts);
	for (__u64 k = 0; k < 64 && i + k < b->ncommits; k++) {
		const struct commit *c = &b->commits[(i + k) % BL_NCOMMIT];

		if (c->thread == tid && c->start <= ts && ts <= c->end)
			return c;
	}
	return NULL;
}

struct disk_log *fss_blame__disk(struct fss_blame *b, __u32 dev, bool create)
{
	unsigned int i;

	for (i = 0; i < b->ndisks; i++)
		if (b->disks[i].dev == dev)
			return &b->disks[i];
	if (!create || b->ndisks == BL_NDISK)
		return NULL;
	b->disks[i].log = calloc(BL_NLOG, sizeof(struct done));
	if (!b->disks[i].log)
		return NULL;
	b->disks[i].dev = dev;
	b->ndisks++;
	return &b->disks[i];
}
