// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * attr_rq.c - block requests for the attribution (see attr_int.h).
 *
 * One struct rq per life of a (disk, struct request *) pair, found by a
 * hash on the id while it is the current owner of that id, and kept in
 * its disk's time index for the painting.  An id used again before its
 * request was seen completing ends that request there (rq_lost).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "engine/attr/attr_int.h"

struct tidx *attr_rq_index(struct fss_attr *a, __u32 dev, bool create)
{
	struct disk_idx *d;
	size_t i;

	if (a->last_disk < a->ndisks && a->disks[a->last_disk].dev == dev)
		return &a->disks[a->last_disk].t;
	for (i = 0; i < a->ndisks; i++) {
		if (a->disks[i].dev == dev) {
			a->last_disk = i;
			return &a->disks[i].t;
		}
	}
	if (!create)
		return NULL;
	if (a->ndisks == a->cdisks) {
		size_t nc = a->cdisks ? a->cdisks * 2 : 4;

		d = realloc(a->disks, nc * sizeof(*d));
		if (!d)
			return NULL;
		a->disks = d;
		a->cdisks = nc;
	}
	d = &a->disks[a->ndisks];
	memset(d, 0, sizeof(*d));
	d->dev = dev;
	a->last_disk = a->ndisks++;
	return &d->t;
}

static __u64 hash_id(__u64 id)
{
	return id * 0x9e3779b97f4a7c15ULL;
}

static struct rq **hash_slot(struct fss_attr *a, __u64 id)
{
	return &a->hash[hash_id(id) >> (64 - a->hash_bits)];
}

static int hash_grow(struct fss_attr *a)
{
	unsigned int bits = a->hash_bits + 1;
	size_t i, n = (size_t)1 << a->hash_bits;
	struct rq **nh = calloc((size_t)1 << bits, sizeof(*nh));

	if (!nh)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct rq *r = a->hash[i], *next;

		for (; r; r = next) {
			struct rq **slot = &nh[hash_id(r->id) >> (64 - bits)];

			next = r->hnext;
			r->hnext = *slot;
			*slot = r;
		}
	}
	free(a->hash);
	a->hash = nh;
	a->hash_bits = bits;
	return 0;
}

/* The current request with this id on this disk (any disk if anydev). */
static struct rq *hash_find(struct fss_attr *a, __u32 dev, __u64 id,
			    bool anydev)
{
	struct rq *r;

	for (r = *hash_slot(a, id); r; r = r->hnext)
		if (r->id == id && (anydev || r->dev == dev))
			return r;
	return NULL;
}

static void hash_del(struct fss_attr *a, struct rq *r)
{
	struct rq **p;

	if (!r->in_hash)
		return;
	for (p = hash_slot(a, r->id); *p; p = &(*p)->hnext) {
		if (*p == r) {
			*p = r->hnext;
			break;
		}
	}
	r->hnext = NULL;
	r->in_hash = false;
	a->nhashed--;
}

static void hash_add(struct fss_attr *a, struct rq *r)
{
	struct rq **slot;

	/* a failed grow only makes chains longer */
	if (a->nhashed >= ((size_t)1 << a->hash_bits) && a->hash_bits < 30)
		hash_grow(a);
	slot = hash_slot(a, r->id);
	r->hnext = *slot;
	*slot = r;
	r->in_hash = true;
	a->nhashed++;
}

void attr_rq_free(struct tnode *n, void *ctx)
{
	struct fss_attr *a = ctx;
	struct rq *r = (struct rq *)n;

	hash_del(a, r);
	a->nrqs--;
	if (!(r->has & (RQ_HAS_COMPLETE | RQ_HAS_LOST)))
		a->nopen--;
	if (a->nfree < RQ_FREE_MAX) {
		r->hnext = a->free_rqs;
		a->free_rqs = r;
		a->nfree++;
	} else {
		free(r);
	}
}

static int rq_new(struct fss_attr *a, const struct fss_event *ev, struct rq **out)
{
	struct rq *r = a->free_rqs, *old;
	struct tidx *t;

	if (r) {
		a->free_rqs = r->hnext;
		a->nfree--;
	} else {
		r = malloc(sizeof(*r));
		if (!r)
			return -ENOMEM;
	}
	memset(r, 0, sizeof(*r));
	r->id = ev->rq.id;
	r->dev = ev->dev;
	r->first_tid = ev->tid;
	r->first_flags = ev->rq.flags;
	r->n.first = ev->ts;
	r->n.end = OPEN_END;
	r->n.last = ev->ts;
	t = attr_rq_index(a, ev->dev, true);
	if (!t || tidx_insert(t, &r->n)) {
		free(r);
		return -ENOMEM;
	}
	a->nrqs++;
	a->nopen++;
	/* the id now names this request; an older one keeps its history */
	old = hash_find(a, ev->dev, ev->rq.id, false);
	if (old)
		hash_del(a, old);
	hash_add(a, r);
	*out = r;
	return 0;
}

/*
 * Does this START or ISSUE of an open (not completed) request r begin a
 * new request with the same id?  Yes for a creation (block_io_start comes
 * once per request), and for an insert or issue after r was issued with no
 * requeue since: a request is only issued again after it was put back.
 * Then r's completion was lost.
 */
static bool rq_reused(const struct rq *r, const struct fss_event *ev)
{
	if (ev->type == FSS_EV_RQ_START && (ev->rq.flags & FSS_RQ_CREATE))
		return true;
	return (r->has & RQ_HAS_ISSUE) && !(r->has & RQ_HAS_REQUEUED);
}

/*
 * r ended before ts without a completion we saw (ts: its id in use again).
 * It stays a request with no completion (nr_incomplete), but its paint now
 * ends at ts instead of at the end of every sync that comes after it.
 */
static int rq_lost(struct fss_attr *a, struct rq *r, __u64 ts)
{
	r->has |= RQ_HAS_LOST;
	a->nopen--;
	r->lost_at = ts > r->n.first ? ts : r->n.first;
	r->n.end = r->lost_at;
	hash_del(a, r);
	return tidx_update(attr_rq_index(a, r->dev, false), &r->n);
}

int attr_rq_event(struct fss_attr *a, const struct fss_event *ev)
{
	bool nvme = ev->type == FSS_EV_NVME_SETUP ||
		    ev->type == FSS_EV_NVME_COMPLETE;
	/* NVMe events that carry no disk dev_t are joined on the id alone */
	struct rq *r = hash_find(a, ev->dev, ev->rq.id, nvme && !ev->dev);
	bool done = r && (r->has & RQ_HAS_COMPLETE);
	int err;

	if ((ev->type == FSS_EV_RQ_START || ev->type == FSS_EV_RQ_ISSUE) &&
	    r && !done && rq_reused(r, ev)) {
		err = rq_lost(a, r, ev->ts);
		if (err)
			return err;
		r = NULL;
	}

	switch (ev->type) {
	case FSS_EV_RQ_START:
		if (!r || done) {
			err = rq_new(a, ev, &r);
			if (err)
				return err;
		}
		/* a second START (insert after block_io_start) is the same one */
		if (!(r->has & (RQ_HAS_START | RQ_HAS_ISSUE))) {
			r->has |= RQ_HAS_START;
			r->start = ev->ts;
			r->start_flags = ev->rq.flags;
		}
		break;
	case FSS_EV_RQ_ISSUE:
		if (!r || done) {
			err = rq_new(a, ev, &r);
			if (err)
				return err;
		}
		/* a requeued request is issued again: keep the first issue */
		r->has &= ~RQ_HAS_REQUEUED;
		if (!(r->has & RQ_HAS_ISSUE)) {
			r->has |= RQ_HAS_ISSUE;
			r->issue = ev->ts;
			r->issue_flags = ev->rq.flags;
		}
		break;
	case FSS_EV_RQ_COMPLETE:
		if (!r) {
			a->orphans++;
			return 0;
		}
		if (!(r->has & RQ_HAS_COMPLETE)) {
			if (!(r->has & RQ_HAS_LOST))
				a->nopen--;
			r->has |= RQ_HAS_COMPLETE;
			r->complete = ev->ts;
			r->final = ev->ts;
		} else if (ev->ts > r->final) {
			r->final = ev->ts;	/* e.g. after the post-flush */
		}
		r->n.end = r->final > r->n.first ? r->final : r->n.first;
		break;
	case FSS_EV_RQ_REQUEUE:
		if (!r)
			a->orphans++;
		if (!r || done)
			return 0;	/* after a partial completion: a new one */
		r->has |= RQ_HAS_REQUEUED;
		break;
	case FSS_EV_NVME_SETUP:
		if (!r || done || (r->has & RQ_HAS_NVME_SETUP)) {
			a->orphans++;
			return 0;
		}
		r->has |= RQ_HAS_NVME_SETUP;
		r->nvme_setup = ev->ts;
		r->nvme_opcode = ev->rq.nvme_opcode;
		break;
	case FSS_EV_NVME_COMPLETE:
		if (!r || !(r->has & RQ_HAS_NVME_SETUP) ||
		    (r->has & RQ_HAS_NVME_COMPLETE)) {
			a->orphans++;
			return 0;
		}
		r->has |= RQ_HAS_NVME_COMPLETE;
		r->nvme_complete = ev->ts;
		break;
	}
	r->all_flags |= ev->rq.flags;
	if (ev->ts > r->n.last)
		r->n.last = ev->ts;
	return tidx_update(attr_rq_index(a, r->dev, false), &r->n);
}

