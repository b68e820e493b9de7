// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * attr_detail.c - what a sync was made of, when fss_attr_opts.detail asks
 * for it (struct fss_sync_detail: the --events records): the painted
 * stretches in time order, the requests painted into it and the journal
 * commits it overlapped.  The buffers are reused from sync to sync.
 */
#include <errno.h>
#include <stdlib.h>
#include "engine/attr/attr_int.h"

/* Grow *v (of elem bytes each) to hold n + 1; false on ENOMEM. */
static bool grow(void **v, size_t *cap, size_t n, size_t elem)
{
	void *p;
	size_t nc;

	if (n < *cap)
		return true;
	nc = *cap ? *cap * 2 : 16;
	p = realloc(*v, nc * elem);
	if (!p)
		return false;
	*v = p;
	*cap = nc;
	return true;
}

void attr_detail_seg(struct fss_attr *a, __u64 from, __u64 to, int ph)
{
	struct fss_sync_detail *d = &a->detail;

	if (!a->opts.detail)
		return;
	if (d->nseg && a->seg[d->nseg - 1].phase == (__u32)ph &&
	    a->seg[d->nseg - 1].to == from) {
		a->seg[d->nseg - 1].to = to;
		return;
	}
	if (!grow((void **)&a->seg, &a->cseg, d->nseg, sizeof(*a->seg))) {
		a->detail_err = -ENOMEM;
		return;
	}
	a->seg[d->nseg++] = (struct fss_seg){ from, to, (__u32)ph };
	d->seg = a->seg;
}

void attr_detail_rq(struct fss_attr *a, const struct rq *r, __u32 cls,
		      __u64 end)
{
	struct fss_sync_detail *d = &a->detail;

	if (!a->opts.detail)
		return;
	if (!grow((void **)&a->rqd, &a->crqd, d->nrq, sizeof(*a->rqd))) {
		a->detail_err = -ENOMEM;
		return;
	}
	a->rqd[d->nrq++] = (struct fss_rq_span){
		.id = r->id, .dev = r->dev, .cls = cls,
		.start = (r->has & RQ_HAS_START) ? r->start :
			 (r->has & RQ_HAS_ISSUE) ? r->issue : r->n.first,
		.issue = (r->has & RQ_HAS_ISSUE) ? r->issue : 0,
		.end = end, .completed = r->has & RQ_HAS_COMPLETE,
	};
	d->rq = a->rqd;
}

void attr_detail_jnl(struct fss_attr *a, const struct jrec *j)
{
	struct fss_sync_detail *d = &a->detail;

	if (!a->opts.detail)
		return;
	if (!grow((void **)&a->jd, &a->cjd, d->njnl, sizeof(*a->jd))) {
		a->detail_err = -ENOMEM;
		return;
	}
	a->jd[d->njnl++] = (struct fss_jnl_span){ j->dev, j->n.first, j->n.end };
	d->jnl = a->jd;
}


void attr_detail_free(struct fss_attr *a)
{
	free(a->seg);
	free(a->rqd);
	free(a->jd);
	a->seg = NULL;
	a->rqd = NULL;
	a->jd = NULL;
	a->cseg = a->crqd = a->cjd = 0;
}
