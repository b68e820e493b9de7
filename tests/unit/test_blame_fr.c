// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * test_blame_fr.c - fss_blame_add_done (a request fed whole, as the
 * flight recorder hands it on: user/engine/tracer/flightrec.c) against the
 * records it stands for (owner, start, issue, completion through
 * fss_blame_add): on random schedules of writes and flushes from a few
 * submitters, every sync's blame is the same, entry by entry.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/blame/blame.h"
#include "tap.h"

#define FSDEV	((8u << 20) | 1)
#define DISK	(7u << 20)
#define NRQ	400

static __u32 disk_of(__u32 fs, void *arg)
{
	(void)arg;
	return fs == FSDEV ? DISK : 0;
}

static __u64 seed = 88172645463325252ull;

static __u64 rnd(__u64 n)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed % n;
}

struct req {
	struct fss_blame_rq q;
	struct fss_credited own;
	__u64 id;
};

/* The records of one request, as the per-request programs send them. */
static void feed_records(struct fss_blame *b, const struct req *x)
{
	struct fss_event ev;

	if (x->own.pid) {
		fss_owner_of(&x->own, DISK, x->id,
			     x->q.start ? x->q.start : x->q.issue, 0, &ev);
		fss_blame_add(b, &ev);
	}
	memset(&ev, 0, sizeof(ev));
	ev.dev = DISK;
	ev.rq.id = x->id;
	if (x->q.start) {
		ev.type = FSS_EV_RQ_START;
		ev.ts = x->q.start;
		fss_blame_add(b, &ev);
	}
	if (x->q.issue) {
		ev.type = FSS_EV_RQ_ISSUE;
		ev.ts = x->q.issue;
		ev.rq.flags = x->q.rqflags;
		fss_blame_add(b, &ev);
	}
	ev.type = FSS_EV_RQ_COMPLETE;
	ev.ts = x->q.complete;
	ev.rq.bytes = x->q.bytes;
	fss_blame_add(b, &ev);
}

static void feed_whole(struct fss_blame *b, const struct req *x)
{
	struct fss_event ev;

	if (x->own.pid)
		fss_owner_of(&x->own, DISK, x->id,
			     x->q.start ? x->q.start : x->q.issue, 0, &ev);
	fss_blame_add_done(b, &x->q, x->own.pid ? &ev : NULL);
}

static void mk_req(struct req *x, int i, __u64 *t)
{
	static const __u32 pids[] = { 0, 100, 200, 300 };

	memset(x, 0, sizeof(*x));
	*t += 1 + rnd(40);
	x->id = 0x1000 + (__u64)i * 64;
	x->q.dev = DISK;
	x->q.start = rnd(10) ? *t : 0;		/* created before we looked */
	x->q.issue = rnd(20) ? *t + rnd(30) : 0;
	x->q.complete = (x->q.issue ? x->q.issue : *t) + 1 + rnd(200);
	if (rnd(6) == 0) {
		x->q.rqflags = FSS_RQ_FLUSH;
	} else {
		x->q.rqflags = FSS_RQ_WRITE | (rnd(8) ? 0 : FSS_RQ_META);
		x->q.bytes = 4096 * (1 + rnd(16));
	}
	x->own.pid = pids[rnd(4)];
	x->own.tid = x->own.pid + (__u32)rnd(2);
	x->own.cgroup = x->own.pid ? x->own.pid / 100 : 0;
}

static void same_lists(const struct fss_blame_list *a,
		       const struct fss_blame_list *b, int s)
{
	CHECK(a->n == b->n && a->self_ns == b->self_ns &&
	      a->others_ns == b->others_ns &&
	      a->unattributed_ns == b->unattributed_ns,
	      "sync %d: %zu/%zu entries", s, a->n, b->n);
	for (size_t i = 0; i < a->n && i < b->n; i++) {
		const struct fss_blame_entry *x = &a->e[i], *y = &b->e[i];

		CHECK(x->phase == y->phase && x->pid == y->pid &&
		      x->cgroup_id == y->cgroup_id &&
		      x->blamed_ns == y->blamed_ns && x->share == y->share &&
		      x->self == y->self && x->flags == y->flags &&
		      x->ev.units == y->ev.units &&
		      x->ev.units_total == y->ev.units_total &&
		      x->ev.count == y->ev.count &&
		      x->ev.count_total == y->ev.count_total &&
		      x->ev.nflush == y->ev.nflush &&
		      !strcmp(x->comm, y->comm) &&
		      (x->reason == y->reason ||
		       (x->reason && y->reason && !strcmp(x->reason, y->reason))),
		      "sync %d entry %zu differs", s, i);
	}
}

static void random_schedules(void)
{
	struct fss_blame_opts o = { .disk_of = disk_of };
	static struct req rq[NRQ];
	struct fss_blame_list la, lb;
	int entries = 0;

	for (int round = 0; round < 20; round++) {
		struct fss_blame *a = fss_blame_new(&o), *b = fss_blame_new(&o);
		__u64 t = 1000;

		for (int i = 0; i < NRQ; i++) {
			mk_req(&rq[i], i, &t);
			feed_records(a, &rq[i]);
			feed_whole(b, &rq[i]);
		}
		for (int s = 0; s < 30; s++) {
			__u64 from = 1000 + rnd(t - 1000), len = 20 + rnd(2000);
			struct fss_sync_result r = { .start = from, .total = len,
				.pid = 100, .tid = 100, .dev = FSDEV };

			r.phase_ns[FSS_PH_QUEUE] = len / 5;
			r.phase_ns[FSS_PH_DEV_WRITE] = len / 5;
			r.phase_ns[FSS_PH_DEV_FLUSH] = len / 2;
			r.phase_ns[FSS_PH_OTHER] = len - len / 5 * 2 - len / 2;
			CHECK(!fss_blame_sync(a, &r, &la), "records: blamed");
			CHECK(!fss_blame_sync(b, &r, &lb), "whole: blamed");
			same_lists(&la, &lb, s);
			entries += (int)la.n;
		}
		fss_blame_free(a);
		fss_blame_free(b);
	}
	/* the schedules made blame with names, not only "unattributed" */
	CHECK(entries > 1000, "%d entries compared", entries);
}

static const struct tap_case cases[] = {
	{ "random_schedules", random_schedules },
};
TAP_MAIN(cases)
