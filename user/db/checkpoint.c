// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * checkpoint.c - checkpoint sync bursts of PostgreSQL's checkpointer
 * (see checkpoint.h for the rule).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "db/checkpoint.h"

enum { ST_NONE, ST_BURST, ST_TAIL };

void fss_ckpt_init(struct fss_ckpt_det *d)
{
	memset(d, 0, sizeof(*d));
}

void fss_ckpt_free(struct fss_ckpt_det *d)
{
	free(d->keys);
	free(d->done);
	memset(d, 0, sizeof(*d));
}

static __u64 file_key(const struct fss_ckpt_sync *s)
{
	/* never 0 (the empty slot) */
	return ((__u64)s->dev << 40 ^ s->ino * 0x9e3779b97f4a7c15ULL) | 1;
}

/* count a file once per checkpoint: true when new */
static bool file_new(struct fss_ckpt_det *d, __u64 key)
{
	size_t i;

	if (!d->keys) {
		d->keys = calloc(FSS_CKPT_FILES * 2, sizeof(*d->keys));
		if (!d->keys)
			return true;
	}
	if (d->nkeys >= FSS_CKPT_FILES)
		return true;
	for (i = key % (FSS_CKPT_FILES * 2); d->keys[i];
	     i = (i + 1) % (FSS_CKPT_FILES * 2))
		if (d->keys[i] == key)
			return false;
	d->keys[i] = key;
	d->nkeys++;
	return true;
}

static int finish(struct fss_ckpt_det *d, bool complete)
{
	if (d->state == ST_NONE)
		return 0;
	d->cur.complete = complete;
	d->cur.pre_syncs = d->pending_pre;
	d->pending_pre = 0;
	if (d->ndone == FSS_CKPT_MAX) {
		memmove(d->done, d->done + 1,
			(d->ndone - 1) * sizeof(*d->done));
		d->ndone--;
		d->dropped++;
	}
	if (d->ndone == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		struct fss_ckpt *n = realloc(d->done, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		d->done = n;
		d->cap = cap;
	}
	d->done[d->ndone++] = d->cur;
	d->state = ST_NONE;
	return 0;
}

/* the run was early in a write phase, not a sync phase */
static void demote(struct fss_ckpt_det *d)
{
	d->pending_pre += d->cur.syncs + d->cur.tail_syncs;
	d->state = ST_NONE;
}

static void burst_add(struct fss_ckpt_det *d, const struct fss_ckpt_sync *s)
{
	struct fss_ckpt *c = &d->cur;
	__u64 ns = s->end - s->start;

	if (d->state != ST_BURST) {
		memset(c, 0, sizeof(*c));
		c->pid = s->pid;
		c->start = s->start;
		if (d->keys)
			memset(d->keys, 0,
			       FSS_CKPT_FILES * 2 * sizeof(*d->keys));
		d->nkeys = 0;
		d->state = ST_BURST;
	}
	c->end = s->end;
	c->syncs++;
	if (file_new(d, file_key(s)))
		c->files++;
	if (ns > c->longest_ns)
		c->longest_ns = ns;
	c->total_ns += ns;
	for (int p = 0; p < FSS_CKPT_PH; p++)
		c->phase_ns[p] += s->phase_ns[p];
	if (s->fclass < FSS_FC_MAX)
		c->by_class[s->fclass]++;
}

/* after the sync phase: WAL (the checkpoint record, recycled segments)
 * and pg_control */
static bool is_wal(enum fss_fclass c)
{
	return c == FSS_FC_PG_WAL || c == FSS_FC_PG_WAL_INIT ||
	       c == FSS_FC_PG_CONTROL;
}

int fss_ckpt_feed(struct fss_ckpt_det *d, const struct fss_ckpt_sync *s)
{
	bool gap = d->state != ST_NONE &&
		   s->start > d->last_end + FSS_CKPT_GAP_NS;
	int err = 0;

	if (d->state != ST_NONE && (gap || s->pid != d->cur.pid))
		err = finish(d, d->state == ST_TAIL);
	if (s->kind == FSS_SYNC_FSYNC && d->state == ST_TAIL) {
		d->cur.tail_syncs++;		/* pg_control, recycled WAL */
	} else if (s->kind == FSS_SYNC_FSYNC && !is_wal(s->fclass)) {
		burst_add(d, s);
	} else if (s->kind == FSS_SYNC_FDATASYNC ||
		   s->kind == FSS_SYNC_DSYNC_WRITE ||
		   (s->kind == FSS_SYNC_FSYNC && is_wal(s->fclass))) {
		/* a WAL flush: after a burst, the checkpoint record's */
		if (d->state == ST_BURST)
			d->state = ST_TAIL;
		if (d->state == ST_TAIL)
			d->cur.tail_syncs += s->kind == FSS_SYNC_FSYNC;
	} else if (d->state != ST_NONE) {
		/* writeback hints: buffers are being written */
		demote(d);
	}
	d->last_end = s->end;
	return err;
}

int fss_ckpt_tick(struct fss_ckpt_det *d, __u64 now)
{
	if (d->state != ST_NONE && now > d->last_end + FSS_CKPT_GAP_NS)
		return finish(d, d->state == ST_TAIL);
	return 0;
}

const struct fss_ckpt *fss_ckpt_open(const struct fss_ckpt_det *d)
{
	return d->state == ST_BURST ? &d->cur : NULL;
}
