// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * workload_uring_fio.c - the io_uring engine with --sync-batch fio
 * (docs/run.md): syncs issued as fio 3.33 issues them for --ioengine=
 * io_uring --iodepth=N --fdatasync=1, so the two can be put side by side.
 *
 * What fio does (io_u.c get_rw_ddir, should_fsync; backend.c do_io,
 * wait_for_completions; engines/io_uring.c): N io_us in flight, writes and
 * syncs alike, each submitted at once (iodepth_batch=1) and never linked
 * or drained before a sync.  When the queue is full fio waits for a
 * completion and reaps that one (iodepth_batch_complete_max defaults to
 * iodepth_batch_complete_min, 1), then refills the slot it freed.
 * The kind of each new io_u: a sync when a write was issued and the last
 * completion reaped was not a sync's (fio's last_was_sync, set by a
 * sync's completion, cleared by a write's), else a write.  So after a
 * sync completes the free slots fill with writes, after a write completes
 * with syncs.  fio 3.38 changed the rule (a sync right after each write
 * issued); the steady state is the same: about N - 1 syncs in flight and
 * one write per sync completed.
 *
 * An op here is one write.  It is durable when a sync that was issued
 * after it completed completes: its latency is from its submission to
 * that sync's completion.  Every write is covered: when the run stops,
 * a last sync is issued if writes completed after the last sync issued.
 * Overwrites walk block by block through the job's region (the file, or
 * N blocks of a shared file), as fio's --rw=write --overwrite=1 does.
 */
#include <errno.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "workload/workload_int.h"

struct fslot {
	__u64 t_sub;		/* submitted (ns) */
	__u64 upto;		/* a sync: writes completed when issued */
};

struct fio_st {
	struct io_uring ring;
	struct fslot *sl;
	unsigned int *free, nfree;
	__u64 *wt;		/* completed writes' t_sub, in order */
	size_t cap;
	__u64 lo;		/* completion index of wt[0] */
	__u64 done, rec;	/* writes completed; recorded (durable) */
	__u64 covered;		/* the most writes a sync issued covers */
	__u64 issued, blk, nblk;
	unsigned int inflight, winflight;
	bool last_sync, stopping;
	__u64 *slot, *end;	/* latency chunk */
};

/*
 * One op's latency into the job's chunks (it counts as an op whatever
 * follows).  0, or -1 when no chunk is left for the next (capped or
 * ENOMEM).
 */
static int lat_push(struct job *j, struct fio_st *st, __u64 v)
{
	__u64 *nx;

	*st->slot++ = v;
	j->ops++;
	if (st->slot < st->end)
		return 0;
	if (atomic_fetch_add(&j->run->chunks, 1) >= MAX_CHUNKS) {
		j->capped = true;
		return -1;
	}
	nx = wl__lat_grow(&j->lat);
	if (!nx)
		return fail(j, ENOMEM, "allocating latency memory");
	st->slot = nx;
	st->end = nx + LAT_CHUNK;
	return 0;
}

/* A write completed at t_sub: kept until a sync covers it.  0 or -1. */
static int wq_add(struct job *j, struct fio_st *st, __u64 t_sub)
{
	size_t used = (size_t)(st->done - st->lo);

	if (used == st->cap) {
		size_t skip = (size_t)(st->rec - st->lo);

		if (skip) {
			memmove(st->wt, st->wt + skip,
				(used - skip) * sizeof(*st->wt));
			st->lo = st->rec;
		} else {
			__u64 *n = realloc(st->wt, 2 * st->cap * sizeof(*n));

			if (!n)
				return fail(j, ENOMEM, "io_uring write queue");
			st->wt = n;
			st->cap *= 2;
		}
	}
	st->wt[st->done++ - st->lo] = t_sub;
	return 0;
}

/* Queue one io_u, a sync or a write, in a free slot.  0 or -1. */
static int queue(struct job *j, struct fio_st *st, bool sync)
{
	const struct fss_wl_spec *s = j->spec;
	struct io_uring_sqe *e = io_uring_get_sqe(&st->ring);
	unsigned int k;
	__u64 off;

	if (!e || !st->nfree)
		return fail(j, EBUSY, "io_uring_get_sqe");
	k = st->free[--st->nfree];
	if (sync) {
		io_uring_prep_fsync(e, j->fd, s->method == FSS_M_FDATASYNC ?
				    IORING_FSYNC_DATASYNC : 0);
		st->sl[k].upto = st->done;
		st->sl[k].t_sub = now_ns();
		if (st->done > st->covered)
			st->covered = st->done;
	} else {
		off = s->pattern == FSS_PAT_OVERWRITE ?
		      j->base + (st->blk++ % st->nblk) * s->bs :
		      next_off(j, 0);
		io_uring_prep_write(e, j->fd, j->buf, (unsigned int)s->bs, off);
		st->sl[k].t_sub = now_ns();
		st->issued++;
		st->winflight++;
	}
	io_uring_sqe_set_data64(e, ((__u64)k << 1) | sync);
	st->inflight++;
	return io_uring_submit(&st->ring) < 0 ?
	       fail(j, EIO, "io_uring_submit") : 0;
}

/* Refill the free slots by fio's rule, then the last sync a stop needs. */
static int refill(struct job *j, struct fio_st *st)
{
	const struct fss_wl_spec *s = j->spec;

	while (st->inflight < s->iodepth) {
		bool sync = st->issued && !st->last_sync;

		if (!sync && st->stopping)
			break;
		if (queue(j, st, sync))
			return -1;
	}
	if (st->stopping && !st->winflight && st->done > st->covered &&
	    st->inflight < s->iodepth)
		return queue(j, st, true);
	return 0;
}

/* One completion.  0, or -1 on an error. */
static int reap_one(struct job *j, struct fio_st *st, struct io_uring_cqe *cqe)
{
	__u64 d = io_uring_cqe_get_data64(cqe), t;
	unsigned int k = (unsigned int)(d >> 1);
	int res = cqe->res;

	st->free[st->nfree++] = k;
	st->inflight--;
	if (!(d & 1)) {
		st->winflight--;
		if (res != (int)j->spec->bs) {
			j->write_failed = true;
			j->short_write = res >= 0;
			return fail(j, res < 0 ? -res : EIO, "io_uring write");
		}
		j->writes++;
		st->last_sync = false;
		return wq_add(j, st, st->sl[k].t_sub);
	}
	if (res < 0)
		return fail(j, -res, j->spec->method == FSS_M_FDATASYNC ?
			    "io_uring fdatasync" : "io_uring fsync");
	j->syncs++;
	st->last_sync = true;
	t = now_ns();
	fss_hist_add(j->shist, t - st->sl[k].t_sub);
	for (; st->rec < st->sl[k].upto; st->rec++) {
		j->t_end = t;
		if (lat_push(j, st, t - st->wt[st->rec - st->lo])) {
			st->rec++;
			return -1;
		}
	}
	return 0;
}

/*
 * Wait for a completion and reap that one, as fio does by default
 * (iodepth_batch_complete_min = max = 1, iodepth_low = iodepth): one
 * completion, then the slot it freed is refilled.
 */
static int reap(struct job *j, struct fio_st *st)
{
	struct io_uring_cqe *cqe;
	int rc = io_uring_wait_cqe(&st->ring, &cqe);

	if (rc == -EINTR)
		return 0;
	if (rc < 0)
		return fail(j, -rc, "io_uring_wait_cqe");
	rc = reap_one(j, st, cqe);
	io_uring_cqe_seen(&st->ring, cqe);
	return rc;
}

static int st_init(struct job *j, struct fio_st *st)
{
	const struct fss_wl_spec *s = j->spec;
	unsigned int n = s->iodepth;
	int rc;

	st->sl = calloc(n, sizeof(*st->sl));
	st->free = calloc(n, sizeof(*st->free));
	st->cap = 4 * (size_t)n;
	st->wt = calloc(st->cap, sizeof(*st->wt));
	j->shist = fss_hist_new();
	if (!st->sl || !st->free || !st->wt || !j->shist)
		return fail(j, ENOMEM, "io_uring op table");
	for (unsigned int i = 0; i < n; i++)
		st->free[st->nfree++] = n - 1 - i;
	st->nblk = s->shared_file || j->file->size < s->bs ? n :
		   j->file->size / s->bs;
	rc = wl__uring_init(&st->ring, n);
	if (rc < 0)
		return fail(j, -rc, "io_uring_queue_init");
	return 0;
}

void wl__job_loop_uring_fio(struct job *j)
{
	const struct fss_wl_spec *s = j->spec;
	struct run *r = j->run;
	struct io_uring_cqe *cqe;
	struct fio_st st = { 0 };
	__u64 deadline;
	bool ring = false;

	j->t_start = j->t_end = now_ns();
	st.slot = j->slot0;
	st.end = j->lat.tail->v + LAT_CHUNK;
	if (st_init(j, &st))
		goto out;
	ring = true;
	j->t_start = j->t_end = now_ns();
	deadline = j->t_start + r->dur_ns;
	while (!j->err && !j->capped) {
		if (s->count ? st.issued >= s->count : now_ns() >= deadline)
			st.stopping = true;
		if (fss_wl_stop) {
			j->stopped = true;
			st.stopping = true;
		}
		if (atomic_load_explicit(&r->abort, memory_order_relaxed))
			st.stopping = true;
		if (refill(j, &st) || !st.inflight || reap(j, &st))
			break;
	}
	while (st.inflight && !io_uring_wait_cqe(&st.ring, &cqe)) {
		io_uring_cqe_seen(&st.ring, cqe);	/* after an error */
		st.inflight--;
	}
out:
	if (ring)
		io_uring_queue_exit(&st.ring);
	free(st.sl);
	free(st.free);
	free(st.wt);
	j->lat.tail->n = (size_t)(st.slot - j->lat.tail->v);
	if (j->err)
		atomic_store(&r->abort, 1);
}
