/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * attr_fixture.h - what the attribution engine's unit tests (test_attr.c,
 * test_attr_stress.c) share: event builders for a stream as the kernel
 * sends it, and the harness that feeds a stream to user/engine/attr and
 * checks each painted sync (phases in microseconds, sums exact).  Header
 * only, each test binary is one translation unit (tests/unit/tap.h).
 */
#ifndef FSS_TESTS_ATTR_FIXTURE_H
#define FSS_TESTS_ATTR_FIXTURE_H

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "engine/attr/attr.h"
#include "tap.h"


/* Test hook in attr.c (deliberately not in attr.h). */
void fss_attr__counts(const struct fss_attr *a, size_t *pending, size_t *rqs,
		      size_t *hashed, size_t *journals);

/* ---- event builders ---- */

#define MKDEV(ma, mi)	(((__u32)(ma) << 20) | (__u32)(mi))
#define FS_DEV		MKDEV(259, 1)	/* nvme0n1p1, say */
#define DISK		MKDEV(259, 0)
#define OTHER_DISK	MKDEV(8, 0)
#define BASE_NS		(100ULL * 1000000000ULL)
/* Test timelines are written in microseconds after BASE_NS. */
#define T(us)		(BASE_NS + (__u64)(us) * 1000ULL)
#define US(x)		((__u64)(x) * 1000ULL)

#define W		FSS_RQ_WRITE
#define SY		FSS_RQ_SYNC
#define FL		FSS_RQ_FLUSH
#define PF		FSS_RQ_PREFLUSH
#define FUA		FSS_RQ_FUA
#define META		FSS_RQ_META
#define KT		FSS_RQ_KTHREAD

#define KWORKER		50	/* tid of the kworker that issues flushes */
#define JBD2		77	/* tid of the fs's jbd2 thread */

static inline struct fss_event rq(__u32 type, __u32 tid, __u32 dev, __u64 ts,
			   __u64 id, __u32 flags)
{
	struct fss_event e;

	memset(&e, 0, sizeof(e));
	e.type = type;
	e.tid = e.pid = tid;
	e.dev = dev;
	e.ts = ts;
	e.rq.id = id;
	e.rq.flags = flags;
	snprintf(e.comm, sizeof(e.comm), "t%u", tid);
	return e;
}

#define START(tid, ts, id, fl)		rq(FSS_EV_RQ_START, tid, DISK, ts, id, fl)
#define ISSUE(tid, ts, id, fl)		rq(FSS_EV_RQ_ISSUE, tid, DISK, ts, id, fl)
#define COMPLETE(ts, id, fl)		rq(FSS_EV_RQ_COMPLETE, 0, DISK, ts, id, fl)

/*
 * count short writes of another process (tid 999, ids 0x5000 + i) at ev[n]:
 * one every step us from t0, issued q us after they start, done d us after
 * that.  Returns the new event count.
 */
static inline int other_writes(struct fss_event *ev, int n, int count, __u64 t0,
			__u64 step, __u64 q, __u64 d)
{
	for (int i = 0; i < count; i++) {
		__u64 t = t0 + i * step;

		ev[n++] = START(999, T(t), 0x5000 + i, W);
		ev[n++] = ISSUE(999, T(t + q), 0x5000 + i, W);
		ev[n++] = COMPLETE(T(t + q + d), 0x5000 + i, W);
	}
	return n;
}

static inline struct fss_event nvme(__u32 type, __u64 ts, __u64 id, __u32 opcode)
{
	struct fss_event e = rq(type, 0, DISK, ts, id, 0);

	e.rq.nvme_opcode = opcode;
	return e;
}

static inline struct fss_event sync_ev(__u32 tid, __u32 kind, __u64 s, __u64 e_)
{
	struct fss_event e;

	memset(&e, 0, sizeof(e));
	e.type = FSS_EV_SYNC;
	e.tid = tid;
	e.pid = tid;
	e.dev = FS_DEV;
	e.ts = s;
	e.ts_end = e_;
	e.sync.kind = kind;
	e.sync.ino = 12;
	snprintf(e.comm, sizeof(e.comm), "sync%u", tid);
	return e;
}

static inline struct fss_event with_fs(struct fss_event e, __u64 fs_start, __u64 fs_end)
{
	e.sync.fs_start = fs_start;
	e.sync.fs_end = fs_end;
	return e;
}

static inline struct fss_event journal(__u32 tid, __u32 dev, __u64 s, __u64 e_)
{
	struct fss_event e;

	memset(&e, 0, sizeof(e));
	e.type = FSS_EV_JOURNAL;
	e.tid = e.pid = tid;
	e.dev = dev;
	e.ts = s;
	e.ts_end = e_;
	snprintf(e.comm, sizeof(e.comm), "jbd2/p1-8");
	return e;
}

/* A xorshift draw in [0, n) from *state: the random streams' dice. */
static inline long fx_rand(unsigned long long *state, long n)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return (long)(*state % (unsigned long long)n);
}

/* ---- harness ---- */

#define MAX_RES 16

struct results {
	struct fss_sync_result r[MAX_RES];
	int n;
	int bad_sums;
};

static inline __u32 disk_of(__u32 fs_dev, void *arg)
{
	return fs_dev == FS_DEV ? DISK : 0;
}

static inline struct fss_attr *new_attr(void)
{
	struct fss_attr_opts o = { .disk_of = disk_of };
	struct fss_attr *a = fss_attr_new(&o);

	if (!a) {
		printf("# fss_attr_new failed\n");
		exit(2);
	}
	return a;
}

/* Every result, in every case: the phases add up exactly to the total. */
static inline int sum_ok(const struct fss_sync_result *r)
{
	__u64 sum = 0;
	int ph;

	for (ph = 0; ph < FSS_PH_MAX; ph++)
		sum += r->phase_ns[ph];
	return sum == r->total;
}

static inline void collect(const struct fss_sync_result *r, void *arg)
{
	struct results *res = arg;

	if (!sum_ok(r))
		res->bad_sums++;
	if (res->n < MAX_RES)
		res->r[res->n] = *r;
	res->n++;
}

static inline void feed(struct fss_attr *a, const struct fss_event *ev, int n)
{
	for (int i = 0; i < n; i++) {
		int rc = fss_attr_add(a, &ev[i]);

		CHECK(rc == 0, "add of event %d (type %u) returned %d", i,
		      ev[i].type, rc);
	}
}

#define FEED(a, arr) feed(a, arr, (int)(sizeof(arr) / sizeof(arr[0])))

/* Feed, drain everything, check the count and the sums. */
static inline void run_all(struct fss_attr *a, const struct fss_event *ev, int n,
		    struct results *res, int want)
{
	int got;

	memset(res, 0, sizeof(*res));
	feed(a, ev, n);
	got = fss_attr_drain(a, UINT64_MAX, collect, res);
	CHECK(got == want, "drain reported %d syncs, expected %d", got, want);
	CHECK(res->n == want, "callback saw %d syncs, expected %d", res->n, want);
	CHECK(res->bad_sums == 0, "%d syncs whose phases do not add up",
	      res->bad_sums);
}

#define RUN(a, arr, res, want) \
	run_all(a, arr, (int)(sizeof(arr) / sizeof(arr[0])), res, want)

/* Phases in microseconds: fs, journal, queue, device_write, device_flush, other. */
static inline void expect_phases(int line, const struct fss_sync_result *r,
			  __u64 fs, __u64 jn, __u64 q, __u64 dw, __u64 df,
			  __u64 other)
{
	__u64 want[FSS_PH_MAX] = { US(fs), US(jn), US(q), US(dw), US(df),
				   US(other) };
	int ph;

	for (ph = 0; ph < FSS_PH_MAX; ph++) {
		if (r->phase_ns[ph] != want[ph]) {
			failures++;
			printf("#   FAIL %s:%d: tid %u %s = %llu ns, expected %llu\n",
			       __FILE__, line, r->tid, fss_phase_name(ph),
			       (unsigned long long)r->phase_ns[ph],
			       (unsigned long long)want[ph]);
		}
	}
	if (!sum_ok(r)) {
		failures++;
		printf("#   FAIL %s:%d: phases do not add up to %llu\n",
		       __FILE__, line, (unsigned long long)r->total);
	}
}

#define EXPECT_PHASES(r, fs, jn, q, dw, df, other) \
	expect_phases(__LINE__, r, fs, jn, q, dw, df, other)

#endif /* FSS_TESTS_ATTR_FIXTURE_H */
