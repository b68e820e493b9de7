// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * workload_uring.c - the io_uring engine of the workload (--ioengine
 * io_uring --iodepth N, docs/run.md): each job keeps N ops in flight on
 * its own ring.  One op is a write (IORING_OP_WRITE) of its own block
 * (overwrite slot k writes at base + k * bs; append takes the next block
 * of the file) and, once that write completed, its sync (IORING_OP_FSYNC,
 * with IORING_FSYNC_DATASYNC for fdatasync), as fio issues a sync after
 * a write.  An op is timed from its write's submission to its sync's
 * completion; a finished op's slot is refilled at once, so N stay in
 * flight.
 */
#include <errno.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "workload/workload_int.h"

struct uop {
	__u64 t_sub;		/* its write submitted (ns) */
	__u64 t_sync;		/* its sync submitted (ns) */
	bool write_done;
};

/* Queue op k's write; the caller submits.  0 or -1. */
static int queue_op(struct job *j, struct io_uring *ring, struct uop *u,
		    unsigned int k)
{
	const struct fss_wl_spec *s = j->spec;
	struct io_uring_sqe *w = io_uring_get_sqe(ring);
	__u64 off;

	if (!w)
		return fail(j, EBUSY, "io_uring_get_sqe");
	off = s->pattern == FSS_PAT_OVERWRITE ? j->base + (__u64)k * s->bs :
	      next_off(j, 0);
	io_uring_prep_write(w, j->fd, j->buf, (unsigned int)s->bs, off);
	if (s->method == FSS_M_PWRITEV2_DSYNC)
		w->rw_flags = RWF_DSYNC;
	io_uring_sqe_set_data64(w, (__u64)k << 1);
	u[k].t_sub = now_ns();
	u[k].write_done = false;
	return 0;
}

/* Queue op k's sync, once its write completed.  0 or -1. */
static int queue_sync(struct job *j, struct io_uring *ring, struct uop *u,
		      unsigned int k)
{
	struct io_uring_sqe *f = io_uring_get_sqe(ring);

	if (!f)
		return fail(j, EBUSY, "io_uring_get_sqe");
	io_uring_prep_fsync(f, j->fd, j->spec->method == FSS_M_FDATASYNC ?
			    IORING_FSYNC_DATASYNC : 0);
	io_uring_sqe_set_data64(f, ((__u64)k << 1) | 1);
	u[k].t_sync = now_ns();
	return 0;
}

/* One completion: a write's (checked) or a sync's (an op done).  The
 * slot of a finished op, -1 for a write, -2 on an error. */
static int reap(struct job *j, struct io_uring_cqe *cqe, struct uop *u)
{
	__u64 d = io_uring_cqe_get_data64(cqe);
	unsigned int k = (unsigned int)(d >> 1);

	if (!(d & 1)) {
		if (cqe->res != (int)j->spec->bs) {
			j->write_failed = true;
			j->short_write = cqe->res >= 0;
			fail(j, cqe->res < 0 ? -cqe->res : EIO, "io_uring write");
			return -2;
		}
		j->writes++;
		u[k].write_done = true;
		if (!wl__uring_dsync(j->spec->method))
			return -1;
		/* the write was the sync (O_DSYNC, O_SYNC, RWF_DSYNC) */
		j->syncs++;
		fss_hist_add(j->shist, now_ns() - u[k].t_sub);
		return (int)k;
	}
	if (cqe->res < 0) {
		fail(j, -cqe->res, j->spec->method == FSS_M_FDATASYNC ?
		     "io_uring fdatasync" : "io_uring fsync");
		return -2;
	}
	j->syncs++;
	fss_hist_add(j->shist, now_ns() - u[k].t_sync);
	return (int)k;
}

/*
 * Wait for every op still in flight (after an error): nothing more is
 * queued, so each op ends with its next completion (its write's, or the
 * sync's that was already in flight).
 */
static void drain(struct io_uring *ring, unsigned int inflight)
{
	struct io_uring_cqe *cqe;

	while (inflight && !io_uring_wait_cqe(ring, &cqe)) {
		inflight--;
		io_uring_cqe_seen(ring, cqe);
	}
}

/*
 * The io-wq workers that run this thread's punted writes and syncs (a
 * buffered write or an fsync cannot complete without blocking, so io_uring
 * hands it to a worker): as many as a fresh thread's first ring of depth
 * entries gets, min(depth, 4 x CPUs).  The kernel sizes a thread's io-wq
 * once, from the first ring it made: the thread that ran
 * fss_wl_uring_check()'s one-entry ring would otherwise have a single
 * worker, and every sync would wait for the one before it (one flush each,
 * never shared).  Best effort: an old kernel keeps its own limit.
 */
static void iowq_workers(struct io_uring *ring, unsigned int depth)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int v[2] = { depth, 0 };	/* bounded; unbound as is */

	if (cpus > 0 && v[0] > 4 * (unsigned long)cpus)
		v[0] = 4 * (unsigned int)cpus;
	io_uring_register_iowq_max_workers(ring, v);
}

/*
 * A ring for depth io_us, set up as fio sets its own (engines/io_uring.c):
 * completions run as task work only when this thread waits for them
 * (DEFER_TASKRUN, one issuer), not by interrupting it each time; where
 * the kernel has not those flags, without them.  0 or -errno.
 */
int wl__uring_init(struct io_uring *ring, unsigned int depth)
{
	struct io_uring_params p = {
		.flags = IORING_SETUP_CQSIZE | IORING_SETUP_COOP_TASKRUN |
			 IORING_SETUP_SINGLE_ISSUER |
			 IORING_SETUP_DEFER_TASKRUN,
		.cq_entries = 2 * depth,
	};
	int rc = io_uring_queue_init_params(depth, ring, &p);

	if (rc == -EINVAL)
		rc = io_uring_queue_init(2 * depth, ring, 0);
	if (rc)
		return rc;
	iowq_workers(ring, depth);
	return 0;
}

void wl__job_loop_uring(struct job *j)
{
	const struct fss_wl_spec *s = j->spec;
	struct run *r = j->run;
	unsigned int depth = s->iodepth, inflight = 0;
	__u64 *slot = j->slot0, *end = j->lat.tail->v + LAT_CHUNK;
	__u64 t, deadline, n = 0, queued = 0;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	struct uop *u = calloc(depth, sizeof(*u));
	bool stop = false;
	int rc, k;

	j->t_start = j->t_end = now_ns();
	j->shist = fss_hist_new();
	if (!u || !j->shist) {
		fail(j, ENOMEM, "io_uring op table");
		goto out;
	}
	rc = wl__uring_init(&ring, depth);
	if (rc < 0) {
		fail(j, -rc, "io_uring_queue_init");
		goto out;
	}
	j->t_start = now_ns();
	deadline = j->t_start + r->dur_ns;
	for (unsigned int i = 0; i < depth && (!s->count || queued < s->count);
	     i++, queued++)
		if (queue_op(j, &ring, u, i))
			goto done;
	inflight = (unsigned int)queued;
	rc = io_uring_submit(&ring);
	if (rc < 0) {
		fail(j, -rc, "io_uring_submit");
		goto done;
	}
	while (inflight) {
		rc = io_uring_wait_cqe(&ring, &cqe);
		if (rc < 0) {
			if (rc == -EINTR)
				continue;
			fail(j, -rc, "io_uring_wait_cqe");
			break;
		}
		k = reap(j, cqe, u);
		if (k == -1) {		/* a write: now its sync */
			k = (int)(io_uring_cqe_get_data64(cqe) >> 1);
			io_uring_cqe_seen(&ring, cqe);
			if (queue_sync(j, &ring, u, (unsigned int)k))
				break;
			rc = io_uring_submit(&ring);
			if (rc < 0) {
				fail(j, -rc, "io_uring_submit");
				break;
			}
			continue;
		}
		io_uring_cqe_seen(&ring, cqe);
		if (k == -2)
			break;
		t = now_ns();
		*slot++ = t - u[k].t_sub;
		j->t_end = t;
		n++;
		inflight--;
		if (s->count ? queued >= s->count : t >= deadline)
			stop = true;
		if (fss_wl_stop) {
			j->stopped = true;
			stop = true;
		}
		if (atomic_load_explicit(&r->abort, memory_order_relaxed))
			stop = true;
		if (slot == end) {
			__u64 *nx;

			if (atomic_fetch_add(&r->chunks, 1) >= MAX_CHUNKS) {
				j->capped = true;
				break;	/* no room for the others */
			}
			nx = wl__lat_grow(&j->lat);
			if (!nx) {
				fail(j, ENOMEM, "allocating latency memory");
				break;
			}
			slot = nx;
			end = slot + LAT_CHUNK;
		}
		if (stop)
			continue;	/* let the others finish */
		if (queue_op(j, &ring, u, (unsigned int)k))
			break;
		queued++;
		inflight++;
		rc = io_uring_submit(&ring);
		if (rc < 0) {
			fail(j, -rc, "io_uring_submit");
			break;
		}
	}
done:
	drain(&ring, inflight);
	io_uring_queue_exit(&ring);
out:
	free(u);
	j->lat.tail->n = (size_t)(slot - j->lat.tail->v);
	j->ops = n;
	if (j->err)
		atomic_store(&r->abort, 1);
}

int fss_wl_uring_check(char *err, size_t errlen)
{
	struct io_uring ring;
	int rc = io_uring_queue_init(1, &ring, 0);

	if (!rc) {
		io_uring_queue_exit(&ring);
		return 0;
	}
	snprintf(err, errlen, "--ioengine io_uring: cannot set up an io_uring: "
		 "%s%s", strerror(-rc), rc == -EPERM || rc == -ENOSYS ?
		 " (kernel.io_uring_disabled, seccomp or an LSM forbids it)" :
		 "");
	return -1;
}
