// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * test_attr.c - the attribution engine (user/engine/attr/attr.c) and the breakdown
 * report (user/stats/collector.c) on synthetic event streams with exact expected
 * nanoseconds per phase.  The streams follow what the kernel was seen to do
 * on a loop device (write-back cache, no FUA): see docs/model.md.
 *
 * Usage: test_attr            run every case, TAP output
 *        test_attr --list     case names, one a line
 *        test_attr NAME...    run only these cases
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>
#include "engine/attr/attr.h"
#include "render/render.h"
#include "stats/collector.h"
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

static struct fss_event rq(__u32 type, __u32 tid, __u32 dev, __u64 ts,
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
static int other_writes(struct fss_event *ev, int n, int count, __u64 t0,
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

static struct fss_event nvme(__u32 type, __u64 ts, __u64 id, __u32 opcode)
{
	struct fss_event e = rq(type, 0, DISK, ts, id, 0);

	e.rq.nvme_opcode = opcode;
	return e;
}

static struct fss_event sync_ev(__u32 tid, __u32 kind, __u64 s, __u64 e_)
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

static struct fss_event with_fs(struct fss_event e, __u64 fs_start, __u64 fs_end)
{
	e.sync.fs_start = fs_start;
	e.sync.fs_end = fs_end;
	return e;
}

static struct fss_event journal(__u32 tid, __u32 dev, __u64 s, __u64 e_)
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

/* ---- harness ---- */

#define MAX_RES 16

struct results {
	struct fss_sync_result r[MAX_RES];
	int n;
	int bad_sums;
};

static __u32 disk_of(__u32 fs_dev, void *arg)
{
	return fs_dev == FS_DEV ? DISK : 0;
}

static struct fss_attr *new_attr(void)
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
static int sum_ok(const struct fss_sync_result *r)
{
	__u64 sum = 0;
	int ph;

	for (ph = 0; ph < FSS_PH_MAX; ph++)
		sum += r->phase_ns[ph];
	return sum == r->total;
}

static void collect(const struct fss_sync_result *r, void *arg)
{
	struct results *res = arg;

	if (!sum_ok(r))
		res->bad_sums++;
	if (res->n < MAX_RES)
		res->r[res->n] = *r;
	res->n++;
}

static void feed(struct fss_attr *a, const struct fss_event *ev, int n)
{
	for (int i = 0; i < n; i++) {
		int rc = fss_attr_add(a, &ev[i]);

		CHECK(rc == 0, "add of event %d (type %u) returned %d", i,
		      ev[i].type, rc);
	}
}

#define FEED(a, arr) feed(a, arr, (int)(sizeof(arr) / sizeof(arr[0])))

/* Feed, drain everything, check the count and the sums. */
static void run_all(struct fss_attr *a, const struct fss_event *ev, int n,
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
static void expect_phases(int line, const struct fss_sync_result *r,
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

/* ---- attribution cases ---- */

/*
 * Fact 1: fdatasync of an overwrite.  The caller's data write; its empty
 * PREFLUSH request (never issued); the pure flush issued by a kworker with
 * no START; then the empty request completes.
 */
static void test_simple_fdatasync(void)
{
	struct fss_event ev[] = {
		START(100, T(1500), 0xa0, W | SY),
		ISSUE(100, T(2000), 0xa0, W | SY),
		COMPLETE(T(4000), 0xa0, W | SY),
		START(100, T(4500), 0xb0, PF | W | SY),
		ISSUE(KWORKER, T(5000), 0xc0, FL | PF | KT),
		COMPLETE(T(8000), 0xc0, FL | PF),
		COMPLETE(T(8200), 0xb0, W | SY),
		with_fs(sync_ev(100, FSS_SYNC_FDATASYNC, T(1000), T(10000)),
			T(1100), T(9900)),
	};
	struct fss_attr *a = new_attr();
	struct fss_flush_stats st;
	struct results res;
	const struct fss_sync_result *r = &res.r[0];

	RUN(a, ev, &res, 1);
	CHECK_EQ(r->total, US(9000));
	CHECK_EQ(r->start, T(1000));
	CHECK_EQ(r->kind, FSS_SYNC_FDATASYNC);
	CHECK_EQ(r->dev, FS_DEV);
	/* other | fs | queue A | dev A | fs | queue B | flush | queue B | fs | other */
	EXPECT_PHASES(r, 400 + 500 + 1700, 0, 500 + 500 + 200, 2000, 3000,
		      100 + 100);
	CHECK_EQ(r->nr_rq, 3);
	CHECK_EQ(r->nr_write, 1);
	CHECK_EQ(r->nr_flush, 1);
	CHECK_EQ(r->nr_preflush, 1);
	CHECK_EQ(r->nr_fua, 0);
	CHECK_EQ(r->nr_fua_emulated, 0);
	CHECK_EQ(r->nr_incomplete, 0);
	CHECK_EQ(r->nr_journal, 0);
	CHECK(!r->journal_seen, "journal seen");
	CHECK(!r->device_flush_from_nvme, "nvme");

	fss_attr_flush_stats(a, &st);
	CHECK_EQ(st.syncs, 1);
	CHECK_EQ(st.flushes, 1);
	CHECK_EQ(st.flush_sync_refs, 1);
	CHECK_EQ(st.preflush, 1);
	CHECK_EQ(st.syncs_with_flush, 1);
	CHECK_EQ(st.syncs_no_flush, 0);
	fss_attr_free(a);
}

/* ---- the opt-in detail (attr_detail.c) ---- */

#define MAX_DETAIL 16

struct detail_copy {
	struct fss_sync_result r;
	struct fss_seg seg[MAX_DETAIL];
	struct fss_rq_span rq[MAX_DETAIL];
	struct fss_jnl_span jnl[MAX_DETAIL];
	size_t nseg, nrq, njnl;
	int n;
	bool had_detail;
};

/* The detail is valid during the callback only: copy it out. */
static void collect_detail(const struct fss_sync_result *r, void *arg)
{
	struct detail_copy *c = arg;
	const struct fss_sync_detail *d = r->detail;

	c->n++;
	c->r = *r;
	c->had_detail = d != NULL;
	if (!d)
		return;
	c->nseg = d->nseg;
	c->nrq = d->nrq;
	c->njnl = d->njnl;
	if (d->nseg <= MAX_DETAIL)
		memcpy(c->seg, d->seg, d->nseg * sizeof(*d->seg));
	if (d->nrq <= MAX_DETAIL)
		memcpy(c->rq, d->rq, d->nrq * sizeof(*d->rq));
	if (d->njnl <= MAX_DETAIL)
		memcpy(c->jnl, d->jnl, d->njnl * sizeof(*d->jnl));
}

static const struct fss_rq_span *span_of(const struct detail_copy *c,
					 __u64 id)
{
	for (size_t i = 0; i < c->nrq && i < MAX_DETAIL; i++)
		if (c->rq[i].id == id)
			return &c->rq[i];
	return NULL;
}

/*
 * simple_fdatasync's stream plus a short commit of its fs near the end,
 * with opts.detail: the segments tile the sync in time order and sum to
 * its phases; each request and the commit are listed with their times.
 * Without opts.detail there is none.
 */
static void test_sync_detail(void)
{
	struct fss_event ev[] = {
		START(100, T(1500), 0xa0, W | SY),
		ISSUE(100, T(2000), 0xa0, W | SY),
		COMPLETE(T(4000), 0xa0, W | SY),
		START(100, T(4500), 0xb0, PF | W | SY),
		ISSUE(KWORKER, T(5000), 0xc0, FL | PF | KT),
		COMPLETE(T(8000), 0xc0, FL | PF),
		COMPLETE(T(8200), 0xb0, W | SY),
		journal(JBD2, FS_DEV, T(9950), T(9990)),
		with_fs(sync_ev(100, FSS_SYNC_FDATASYNC, T(1000), T(10000)),
			T(1100), T(9900)),
	};
	static const struct { __u64 from, to; __u32 ph; } want[] = {
		{ 1000, 1100, FSS_PH_OTHER }, { 1100, 1500, FSS_PH_FS },
		{ 1500, 2000, FSS_PH_QUEUE }, { 2000, 4000, FSS_PH_DEV_WRITE },
		{ 4000, 4500, FSS_PH_FS }, { 4500, 5000, FSS_PH_QUEUE },
		{ 5000, 8000, FSS_PH_DEV_FLUSH }, { 8000, 8200, FSS_PH_QUEUE },
		{ 8200, 9900, FSS_PH_FS }, { 9900, 9950, FSS_PH_OTHER },
		{ 9950, 9990, FSS_PH_JOURNAL }, { 9990, 10000, FSS_PH_OTHER },
	};
	const size_t nwant = sizeof(want) / sizeof(want[0]);
	struct fss_attr_opts o = { .disk_of = disk_of, .detail = true };
	struct fss_attr *a = fss_attr_new(&o);
	__u64 ph_sum[FSS_PH_MAX] = { 0 };
	const struct fss_rq_span *s;
	struct detail_copy c;

	CHECK(a != NULL, "fss_attr_new");
	if (!a)
		return;
	memset(&c, 0, sizeof(c));
	FEED(a, ev);
	CHECK_EQ(fss_attr_drain(a, UINT64_MAX, collect_detail, &c), 1);
	CHECK(c.had_detail, "no detail with opts.detail");
	CHECK_EQ(c.nseg, nwant);
	for (size_t i = 0; i < c.nseg && i < nwant; i++) {
		CHECK_EQ(c.seg[i].from, T(want[i].from));
		CHECK_EQ(c.seg[i].to, T(want[i].to));
		CHECK_EQ(c.seg[i].phase, want[i].ph);
	}
	for (size_t i = 0; i < c.nseg && i < MAX_DETAIL; i++)
		ph_sum[c.seg[i].phase] += c.seg[i].to - c.seg[i].from;
	for (int ph = 0; ph < FSS_PH_MAX; ph++)
		CHECK_EQ(ph_sum[ph], c.r.phase_ns[ph]);

	CHECK_EQ(c.nrq, 3);
	s = span_of(&c, 0xa0);
	CHECK(s && s->cls == FSS_RQC_WRITE && s->start == T(1500) &&
	      s->issue == T(2000) && s->end == T(4000) && s->completed &&
	      s->dev == DISK, "write 0xa0");
	s = span_of(&c, 0xb0);
	CHECK(s && s->cls == FSS_RQC_PREFLUSH && s->start == T(4500) &&
	      s->issue == 0 && s->end == T(8200) && s->completed,
	      "preflush 0xb0 (never issued)");
	s = span_of(&c, 0xc0);
	CHECK(s && s->cls == FSS_RQC_FLUSH && s->start == T(5000) &&
	      s->issue == T(5000) && s->end == T(8000) && s->completed,
	      "flush 0xc0 (no START: starts at its issue)");
	CHECK_EQ(c.njnl, 1);
	CHECK(c.jnl[0].dev == FS_DEV && c.jnl[0].first == T(9950) &&
	      c.jnl[0].end == T(9990), "the commit");
	fss_attr_free(a);

	/* the same stream without opts.detail: same phases, no detail */
	a = new_attr();
	memset(&c.r, 0, sizeof(c.r));
	c.n = 0;
	FEED(a, ev);
	CHECK_EQ(fss_attr_drain(a, UINT64_MAX, collect_detail, &c), 1);
	CHECK(!c.had_detail, "detail without opts.detail");
	for (int ph = 0; ph < FSS_PH_MAX; ph++)
		CHECK_EQ(c.r.phase_ns[ph], ph_sum[ph]);
	fss_attr_free(a);
}

/* Two writes of the caller overlap; the second queues behind the first. */
static void test_overlapping_requests(void)
{
	struct fss_event ev[] = {
		START(100, T(11000), 0xa0, W | SY),
		START(100, T(11500), 0xa1, W | SY),
		ISSUE(100, T(12000), 0xa0, W | SY),
		COMPLETE(T(13000), 0xa0, W | SY),
		ISSUE(100, T(14000), 0xa1, W | SY),
		COMPLETE(T(17000), 0xa1, W | SY),
		ISSUE(KWORKER, T(17500), 0xc0, FL | KT),
		COMPLETE(T(19000), 0xc0, FL),
		sync_ev(100, FSS_SYNC_FSYNC, T(10000), T(20000)),
	};
	struct fss_attr *a = new_attr();
	struct results res;

	RUN(a, ev, &res, 1);
	/* queue [11000,12000] + [13000,14000]; writes [12000,13000] + [14000,17000] */
	EXPECT_PHASES(&res.r[0], 0, 0, 2000, 4000, 1500, 1000 + 500 + 1000);
	CHECK_EQ(res.r[0].nr_rq, 3);
	CHECK_EQ(res.r[0].nr_write, 2);
	fss_attr_free(a);
}

/* Three syncs, each with its own write, all served by one flush. */
static void test_batched_flush(void)
{
	struct fss_event ev[] = {
		START(101, T(1200), 0xa1, W | SY),
		ISSUE(101, T(1300), 0xa1, W | SY),
		START(102, T(2200), 0xa2, W | SY),
		ISSUE(102, T(2300), 0xa2, W | SY),
		COMPLETE(T(2500), 0xa1, W | SY),
		START(103, T(3200), 0xa3, W | SY),
		ISSUE(103, T(3300), 0xa3, W | SY),
		COMPLETE(T(3500), 0xa2, W | SY),
		COMPLETE(T(4500), 0xa3, W | SY),
		ISSUE(KWORKER, T(5000), 0xc0, FL | KT),
		COMPLETE(T(8500), 0xc0, FL),
		/* records arrive in exit order, not start order */
		sync_ev(103, FSS_SYNC_FDATASYNC, T(3000), T(9200)),
		sync_ev(101, FSS_SYNC_FDATASYNC, T(1000), T(9000)),
		sync_ev(102, FSS_SYNC_FDATASYNC, T(2000), T(9100)),
	};
	struct fss_attr *a = new_attr();
	struct fss_collector *c = fss_collector_new();
	struct fss_flush_stats st;
	struct fss_breakdown b;
	struct results res;

	RUN(a, ev, &res, 3);
	/* reported in exit order */
	CHECK_EQ(res.r[0].tid, 101);
	CHECK_EQ(res.r[1].tid, 102);
	CHECK_EQ(res.r[2].tid, 103);
	EXPECT_PHASES(&res.r[0], 0, 0, 100, 1200, 3500, 200 + 2500 + 500);
	EXPECT_PHASES(&res.r[1], 0, 0, 100, 1200, 3500, 200 + 1500 + 600);
	EXPECT_PHASES(&res.r[2], 0, 0, 100, 1200, 3500, 200 + 500 + 700);
	for (int i = 0; i < 3; i++) {
		CHECK_EQ(res.r[i].nr_rq, 2);	/* own write + the flush */
		CHECK_EQ(res.r[i].nr_write, 1);
		CHECK_EQ(res.r[i].nr_flush, 1);
		fss_collector_add(&res.r[i], c);
	}

	fss_attr_flush_stats(a, &st);
	CHECK_EQ(st.flushes, 1);
	CHECK_EQ(st.flush_sync_refs, 3);
	CHECK_EQ(st.syncs, 3);
	CHECK_EQ(st.syncs_with_flush, 3);

	fss_collector_breakdown(c, &st, 0, &b);
	CHECK_EQ(b.syncs, 3);
	CHECK_DBL((double)b.flush.flush_sync_refs / (double)b.flush.flushes, 3.0);
	/* device_flush is 3.5 ms of every sync */
	CHECK_DBL(b.phase[FSS_PH_DEV_FLUSH].mean_us, 3500.0);
	CHECK_DBL(b.phase[FSS_PH_DEV_FLUSH].share, 10500.0 / (8000 + 7100 + 6200));

	/* a new stats epoch counts the same flush again, once */
	fss_attr_reset_stats(a);
	fss_attr_flush_stats(a, &st);
	CHECK_EQ(st.flushes, 0);
	CHECK_EQ(st.syncs, 0);
	fss_collector_free(c);
	fss_attr_free(a);
}

/* Two threads sync at once on one disk: each gets its own write only. */
static void test_concurrent_syncers(void)
{
	struct fss_event ev[] = {
		START(201, T(1200), 0xa1, W | SY),
		START(202, T(1250), 0xa2, W | SY),
		ISSUE(201, T(1300), 0xa1, W | SY),
		ISSUE(202, T(1400), 0xa2, W | SY),
		COMPLETE(T(3000), 0xa1, W | SY),
		COMPLETE(T(4000), 0xa2, W | SY),
		ISSUE(KWORKER, T(4500), 0xc0, FL | KT),
		COMPLETE(T(7500), 0xc0, FL),
		sync_ev(201, FSS_SYNC_FDATASYNC, T(1000), T(8000)),
		sync_ev(202, FSS_SYNC_FDATASYNC, T(1100), T(8100)),
	};
	struct fss_attr *a = new_attr();
	struct fss_flush_stats st;
	struct results res;

	RUN(a, ev, &res, 2);
	CHECK_EQ(res.r[0].tid, 201);
	EXPECT_PHASES(&res.r[0], 0, 0, 100, 1700, 3000, 200 + 1500 + 500);
	EXPECT_PHASES(&res.r[1], 0, 0, 150, 2600, 3000, 150 + 500 + 600);
	CHECK_EQ(res.r[0].nr_write, 1);
	CHECK_EQ(res.r[1].nr_write, 1);
	CHECK_EQ(res.r[0].nr_flush, 1);
	CHECK_EQ(res.r[1].nr_flush, 1);
	fss_attr_flush_stats(a, &st);
	CHECK_EQ(st.flushes, 1);
	CHECK_EQ(st.flush_sync_refs, 2);
	fss_attr_free(a);
}

/* The write's completion was lost: clipped at the sync's exit. */
static void test_missing_completion(void)
{
	struct fss_event ev[] = {
		START(300, T(1500), 0xa0, W | SY),
		ISSUE(300, T(2000), 0xa0, W | SY),
		sync_ev(300, FSS_SYNC_FSYNC, T(1000), T(5000)),
	};
	struct fss_attr *a = new_attr();
	struct fss_collector *c = fss_collector_new();
	struct fss_breakdown b;
	struct results res;

	RUN(a, ev, &res, 1);
	EXPECT_PHASES(&res.r[0], 0, 0, 500, 3000, 0, 500);
	CHECK_EQ(res.r[0].nr_incomplete, 1);
	CHECK_EQ(res.r[0].nr_rq, 1);
	fss_collector_add(&res.r[0], c);
	fss_collector_breakdown(c, NULL, 0, &b);
	CHECK_EQ(b.incomplete_rqs, 1);
	fss_collector_free(c);
	fss_attr_free(a);
}

/* An O_DSYNC write on a FUA-capable device: the FUA survives to issue. */
static void test_dsync_write_native_fua(void)
{
	struct fss_event ev[] = {
		START(400, T(1500), 0xa0, W | SY | FUA),
		ISSUE(400, T(1700), 0xa0, W | SY | FUA),
		COMPLETE(T(3500), 0xa0, W | SY | FUA),
		with_fs(sync_ev(400, FSS_SYNC_DSYNC_WRITE, T(1000), T(4000)),
			T(1100), T(3900)),
	};
	struct fss_attr *a = new_attr();
	struct fss_flush_stats st;
	struct results res;

	RUN(a, ev, &res, 1);
	CHECK_EQ(res.r[0].kind, FSS_SYNC_DSYNC_WRITE);
	EXPECT_PHASES(&res.r[0], 400 + 400, 0, 200, 0, 1800, 200);
	CHECK_EQ(res.r[0].nr_fua, 1);
	CHECK_EQ(res.r[0].nr_fua_emulated, 0);
	CHECK_EQ(res.r[0].nr_write, 0);
	CHECK_EQ(res.r[0].nr_flush, 0);
	fss_attr_flush_stats(a, &st);
	CHECK_EQ(st.fua_writes, 1);
	CHECK_EQ(st.fua_emulated, 0);
	CHECK_EQ(st.flushes, 0);
	CHECK_EQ(st.syncs_with_flush, 1);
	CHECK_EQ(st.syncs_no_flush, 0);
	fss_attr_free(a);
}

/* Another process's writes in the window, and the caller's on another disk. */
static void test_unrelated_write(void)
{
	struct fss_event ev[] = {
		START(999, T(1200), 0xe0, W | SY),		/* other process */
		START(500, T(1500), 0xa0, W | SY),
		ISSUE(500, T(1600), 0xa0, W | SY),
		COMPLETE(T(2600), 0xa0, W | SY),
		ISSUE(999, T(2700), 0xe0, W | SY),
		rq(FSS_EV_RQ_START, 500, OTHER_DISK, T(2800), 0xd0, W),
		rq(FSS_EV_RQ_ISSUE, 500, OTHER_DISK, T(2850), 0xd0, W),
		START(998, T(3000), 0xe1, W | SY | FUA),	/* user FUA write */
		ISSUE(998, T(3100), 0xe1, W | SY | FUA),
		COMPLETE(T(3500), 0xe1, W | SY | FUA),
		START(60, T(3600), 0xe2, W | KT),		/* writeback kthread */
		ISSUE(60, T(3650), 0xe2, W | KT),
		COMPLETE(T(3900), 0xe2, W),
		rq(FSS_EV_RQ_COMPLETE, 0, OTHER_DISK, T(3950), 0xd0, W),
		COMPLETE(T(4000), 0xe0, W | SY),
		sync_ev(500, FSS_SYNC_FSYNC, T(1000), T(5000)),
	};
	struct fss_attr *a = new_attr();
	struct fss_flush_stats st;
	struct results res;

	RUN(a, ev, &res, 1);
	EXPECT_PHASES(&res.r[0], 0, 0, 100, 1000, 0, 500 + 2400);
	CHECK_EQ(res.r[0].nr_rq, 1);
	fss_attr_flush_stats(a, &st);
	CHECK_EQ(st.fua_writes, 0);
	CHECK_EQ(st.syncs_no_flush, 1);
	fss_attr_free(a);
}

/*
 * Fact 2: ext4 fsync after an append.  Data write by the caller, then the
 * jbd2 commit: journal blocks, a commit block asked PREFLUSH|FUA that the
 * kernel splits into pre-flush, the write without FUA, a post-flush, and a
 * second completion of the commit block.
 */
static void test_ext4_journal(void)
{
	struct fss_event ev[] = {
		START(600, T(10500), 0xa0, W | SY),
		ISSUE(600, T(10600), 0xa0, W | SY),
		COMPLETE(T(12000), 0xa0, W | SY),
		START(JBD2, T(13000), 0xb0, W | SY | META | KT),
		ISSUE(JBD2, T(13200), 0xb0, W | SY | META | KT),
		COMPLETE(T(15000), 0xb0, W | SY | META),
		START(JBD2, T(15500), 0xb1, W | SY | META | PF | FUA | KT),
		ISSUE(KWORKER, T(16000), 0xc0, FL | PF | KT),
		COMPLETE(T(19000), 0xc0, FL | PF),
		ISSUE(KWORKER, T(19200), 0xb1, W | SY | META | KT),
		COMPLETE(T(21000), 0xb1, W | SY | META),
		ISSUE(KWORKER, T(21200), 0xc0, FL | KT),	/* id reused */
		COMPLETE(T(25000), 0xc0, FL),
		COMPLETE(T(25200), 0xb1, W | SY | META),	/* 0 bytes */
		journal(JBD2, FS_DEV, T(12500), T(28000)),
		with_fs(sync_ev(600, FSS_SYNC_FSYNC, T(10000), T(30000)),
			T(10100), T(29900)),
	};
	struct fss_attr *a = new_attr();
	struct fss_flush_stats st;
	struct results res;
	const struct fss_sync_result *r = &res.r[0];

	RUN(a, ev, &res, 1);
	EXPECT_PHASES(r, 400 + 500 + 1900, 500 + 500 + 200 + 3000,
		      100 + 200 + 500 + 200, 1400 + 1800 + 1800, 3000 + 3800,
		      100 + 100);
	CHECK_EQ(r->nr_rq, 5);
	CHECK_EQ(r->nr_write, 2);
	CHECK_EQ(r->nr_flush, 2);
	CHECK_EQ(r->nr_preflush, 1);
	CHECK_EQ(r->nr_fua, 0);
	CHECK_EQ(r->nr_fua_emulated, 1);
	CHECK_EQ(r->nr_journal, 1);
	CHECK(r->journal_seen, "journal not seen");
	fss_attr_flush_stats(a, &st);
	CHECK_EQ(st.flushes, 2);
	CHECK_EQ(st.flush_sync_refs, 2);
	CHECK_EQ(st.fua_emulated, 1);
	CHECK_EQ(st.preflush, 1);
	fss_attr_free(a);
}

/* A jbd2 commit of another filesystem does not count. */
static void test_journal_other_fs(void)
{
	struct fss_event ev[] = {
		journal(JBD2 + 1, MKDEV(259, 2), T(1500), T(3000)),
		START(JBD2 + 1, T(1600), 0xb0, W | SY | META | KT),
		ISSUE(JBD2 + 1, T(1700), 0xb0, W | SY | META | KT),
		COMPLETE(T(2000), 0xb0, W | SY | META),
		sync_ev(601, FSS_SYNC_FSYNC, T(1000), T(4000)),
	};
	struct fss_attr *a = new_attr();
	struct results res;

	RUN(a, ev, &res, 1);
	EXPECT_PHASES(&res.r[0], 0, 0, 0, 0, 0, 3000);
	CHECK_EQ(res.r[0].nr_journal, 0);
	CHECK_EQ(res.r[0].nr_rq, 0);
	CHECK(!res.r[0].journal_seen, "journal seen");
	fss_attr_free(a);
}

/* Fact 3: xfs fsync: the caller forces the log and writes it itself. */
static void test_xfs_log(void)
{
	struct fss_event s = with_fs(sync_ev(700, FSS_SYNC_FSYNC, T(10000),
					     T(20000)), T(10050), T(19950));
	struct fss_event ev[] = {
		START(700, T(10200), 0xa0, W | SY),
		ISSUE(700, T(10300), 0xa0, W | SY),
		COMPLETE(T(11500), 0xa0, W | SY),
		START(700, T(12500), 0xb0, W | SY | META | PF | FUA),
		ISSUE(KWORKER, T(13000), 0xc0, FL | PF | KT),
		COMPLETE(T(15000), 0xc0, FL | PF),
		ISSUE(KWORKER, T(15100), 0xb0, W | SY | META | KT),
		COMPLETE(T(16500), 0xb0, W | SY | META),
		ISSUE(KWORKER, T(16600), 0xc1, FL | KT),
		COMPLETE(T(18500), 0xc1, FL),
		COMPLETE(T(18600), 0xb0, W | SY | META),
		s,
	};
	struct fss_attr *a = new_attr();
	struct results res;
	const struct fss_sync_result *r = &res.r[0];

	ev[11].sync.log_start = T(12000);
	RUN(a, ev, &res, 1);
	EXPECT_PHASES(r, 150 + 500, 500 + 100 + 1500, 100 + 500 + 100,
		      1200 + 1400, 2000 + 1900, 50);
	CHECK(r->journal_seen, "journal not seen");
	CHECK_EQ(r->nr_journal, 0);
	CHECK_EQ(r->nr_rq, 4);
	CHECK_EQ(r->nr_flush, 2);
	CHECK_EQ(r->nr_preflush, 1);
	CHECK_EQ(r->nr_fua_emulated, 1);
	CHECK_EQ(r->nr_write, 1);
	fss_attr_free(a);
}

/*
 * A log write asked PREFLUSH|FUA by a kernel worker (xfs CIL push) belongs
 * to the sync; a kernel thread's plain write (writeback) does not.
 */
static void test_kthread_log_write(void)
{
	struct fss_event ev[] = {
		START(88, T(1200), 0xb0, W | SY | META | FUA | KT),
		ISSUE(88, T(1300), 0xb0, W | SY | META | FUA | KT),
		COMPLETE(T(2300), 0xb0, W | SY | META | FUA),
		START(89, T(2400), 0xb1, W | KT),
		ISSUE(89, T(2500), 0xb1, W | KT),
		COMPLETE(T(2900), 0xb1, W),
		sync_ev(701, FSS_SYNC_FSYNC, T(1000), T(3000)),
	};
	struct fss_attr *a = new_attr();
	struct results res;

	RUN(a, ev, &res, 1);
	EXPECT_PHASES(&res.r[0], 0, 0, 100, 0, 1000, 200 + 700);
	CHECK_EQ(res.r[0].nr_rq, 1);
	CHECK_EQ(res.r[0].nr_fua, 1);
	fss_attr_free(a);
}

/* One struct request pointer, three requests. */
static void test_rq_id_reuse(void)
{
	struct fss_event ev[] = {
		START(800, T(1000), 0x77, W | SY),	/* before the sync */
		ISSUE(800, T(1100), 0x77, W | SY),
		COMPLETE(T(1500), 0x77, W | SY),
		START(800, T(2500), 0x77, W | SY),	/* new START: new rq */
		ISSUE(800, T(2600), 0x77, W | SY),
		COMPLETE(T(3000), 0x77, W | SY),
		ISSUE(KWORKER, T(3500), 0x77, FL | KT),	/* ISSUE after done */
		COMPLETE(T(5000), 0x77, FL),
		sync_ev(800, FSS_SYNC_FDATASYNC, T(2000), T(6000)),
	};
	struct fss_attr *a = new_attr();
	struct fss_flush_stats st;
	struct results res;

	RUN(a, ev, &res, 1);
	EXPECT_PHASES(&res.r[0], 0, 0, 100, 400, 1500, 500 + 500 + 1000);
	CHECK_EQ(res.r[0].nr_rq, 2);
	CHECK_EQ(res.r[0].nr_write, 1);
	CHECK_EQ(res.r[0].nr_flush, 1);
	CHECK_EQ(res.r[0].nr_incomplete, 0);
	fss_attr_flush_stats(a, &st);
	CHECK_EQ(st.flushes, 1);
	fss_attr_free(a);
}

#define CR		FSS_RQ_CREATE
#define REQUEUE(ts, id, fl)		rq(FSS_EV_RQ_REQUEUE, 0, DISK, ts, id, fl)

/*
 * A completion was lost (0x55, the first sync's write), then its pointer
 * was created again by another process at 5000.  The first sync is
 * painted with the write to its exit; the second, which began after the
 * write did, is not painted with it at all (the first sync returned, so
 * the write was done), and the reuse is a new request of another process.
 */
static void test_lost_completion_reuse(void)
{
	struct fss_event ev[] = {
		START(800, T(1000), 0x55, W | SY | CR),
		ISSUE(800, T(1100), 0x55, W | SY),
		/* its COMPLETE never came */
		sync_ev(800, FSS_SYNC_FDATASYNC, T(900), T(2000)),
		START(800, T(3100), 0x66, W | SY | CR),
		ISSUE(800, T(3200), 0x66, W | SY),
		COMPLETE(T(3600), 0x66, W | SY),
		START(999, T(5000), 0x55, W | CR),	/* reused */
		ISSUE(999, T(5100), 0x55, W),
		COMPLETE(T(5300), 0x55, W),
		sync_ev(800, FSS_SYNC_FDATASYNC, T(3000), T(6000)),
	};
	struct fss_attr *a = new_attr();
	struct results res;

	RUN(a, ev, &res, 2);
	/* first sync: queue 1000-1100, then the write to the sync's end */
	EXPECT_PHASES(&res.r[0], 0, 0, 100, 900, 0, 100);
	CHECK_EQ(res.r[0].nr_incomplete, 1);
	/* second: only its own write (queue 3100-3200, device 3200-3600) */
	EXPECT_PHASES(&res.r[1], 0, 0, 100, 400, 0, 2500);
	CHECK_EQ(res.r[1].nr_incomplete, 0);
	CHECK_EQ(res.r[1].nr_rq, 1);
	CHECK_EQ(res.r[1].nr_write, 1);
	fss_attr_free(a);
}

/*
 * A lost completion with no reuse of the pointer (the kernel's
 * block_rq_complete did not fire for it: seen on loop devices, also by
 * bpftrace): the write stays with the sync it began in, the three syncs
 * after it are not painted with it, and the breakdown counts it once.
 */
static void test_lost_completion_once(void)
{
	struct fss_event ev[] = {
		START(820, T(1000), 0x5a, W | SY | CR),
		ISSUE(820, T(1100), 0x5a, W | SY),
		/* its COMPLETE never came, its id is never reused */
		sync_ev(820, FSS_SYNC_FDATASYNC, T(900), T(2000)),
		START(820, T(2100), 0x5b, W | SY | CR),
		ISSUE(820, T(2200), 0x5b, W | SY),
		COMPLETE(T(2500), 0x5b, W | SY),
		sync_ev(820, FSS_SYNC_FDATASYNC, T(2050), T(2600)),
		sync_ev(820, FSS_SYNC_FDATASYNC, T(2700), T(2800)),
		ISSUE(KWORKER, T(2950), 0xf1, FL | KT),
		sync_ev(820, FSS_SYNC_FDATASYNC, T(2900), T(3000)),
	};
	struct fss_attr *a = new_attr();
	struct fss_collector *c = fss_collector_new();
	struct fss_flush_stats st;
	struct fss_breakdown b;
	struct results res;

	RUN(a, ev, &res, 4);
	EXPECT_PHASES(&res.r[0], 0, 0, 100, 900, 0, 100);
	CHECK_EQ(res.r[0].nr_incomplete, 1);
	EXPECT_PHASES(&res.r[1], 0, 0, 100, 300, 0, 150);
	CHECK_EQ(res.r[1].nr_incomplete, 0);
	CHECK_EQ(res.r[1].nr_rq, 1);
	EXPECT_PHASES(&res.r[2], 0, 0, 0, 0, 0, 100);
	CHECK_EQ(res.r[2].nr_rq, 0);
	/* a flush that began inside the last sync, still running at its exit */
	EXPECT_PHASES(&res.r[3], 0, 0, 0, 0, 50, 50);
	CHECK_EQ(res.r[3].nr_incomplete, 1);
	fss_attr_flush_stats(a, &st);
	CHECK_EQ(st.incomplete, 2);
	for (int i = 0; i < 4; i++)
		fss_collector_add(&res.r[i], c);
	fss_collector_breakdown(c, &st, 0, &b);
	CHECK_EQ(b.incomplete_rqs, 2);
	CHECK_EQ(b.syncs_incomplete, 2);
	fss_collector_free(c);
	fss_attr_free(a);
}

/*
 * The same pointer issued twice: with a requeue between, one request that
 * keeps its first issue; without one (a flush whose completion was lost),
 * two requests, the first ending where the second was issued.
 */
static void test_requeue_vs_lost(void)
{
	struct fss_event ev[] = {
		START(810, T(1100), 0x70, W | SY | CR),
		ISSUE(810, T(1200), 0x70, W | SY),
		REQUEUE(T(1300), 0x70, W | SY),
		START(810, T(1400), 0x70, W | SY),	/* re-inserted */
		ISSUE(810, T(1500), 0x70, W | SY),
		COMPLETE(T(1900), 0x70, W | SY),
		ISSUE(KWORKER, T(2000), 0xc0, FL | KT),
		/* that flush's COMPLETE never came */
		ISSUE(KWORKER, T(2600), 0xc0, FL | KT),
		COMPLETE(T(2900), 0xc0, FL),
		sync_ev(810, FSS_SYNC_FDATASYNC, T(1000), T(3000)),
	};
	struct fss_attr *a = new_attr();
	struct fss_flush_stats st;
	struct results res;

	RUN(a, ev, &res, 1);
	/* queue 1100-1200, write 1200-1900 (first issue kept), the flushes
	 * 2000-2600 (no completion: to the reuse) and 2600-2900 */
	EXPECT_PHASES(&res.r[0], 0, 0, 100, 700, 900, 100 + 100 + 100);
	CHECK_EQ(res.r[0].nr_rq, 3);
	CHECK_EQ(res.r[0].nr_write, 1);
	CHECK_EQ(res.r[0].nr_flush, 2);
	CHECK_EQ(res.r[0].nr_incomplete, 1);
	fss_attr_flush_stats(a, &st);
	CHECK_EQ(st.flushes, 2);
	fss_attr_free(a);
}

/* NVMe: device time of the flush comes from the Flush command. */
static void test_nvme_flush(void)
{
	struct fss_event ev[] = {
		START(900, T(1100), 0xa0, W | SY),
		ISSUE(900, T(1200), 0xa0, W | SY),
		nvme(FSS_EV_NVME_SETUP, T(1250), 0xa0, 1),
		nvme(FSS_EV_NVME_COMPLETE, T(1900), 0xa0, 1),
		COMPLETE(T(2000), 0xa0, W | SY),
		ISSUE(KWORKER, T(2100), 0xc0, FL | KT),
		nvme(FSS_EV_NVME_SETUP, T(2200), 0xc0, 0),
		nvme(FSS_EV_NVME_COMPLETE, T(2800), 0xc0, 0),
		COMPLETE(T(2900), 0xc0, FL),
		sync_ev(900, FSS_SYNC_FDATASYNC, T(1000), T(3000)),
	};
	struct fss_attr *a = new_attr();
	struct fss_flush_stats st;
	struct results res;

	RUN(a, ev, &res, 1);
	/* queue [1100,1200]; write cmd [1250,1900]; flush cmd [2200,2800] */
	EXPECT_PHASES(&res.r[0], 0, 0, 100, 650, 600, 100 + 50 + 300 + 200);
	CHECK(res.r[0].device_flush_from_nvme, "flush not from nvme");
	fss_attr_flush_stats(a, &st);
	CHECK_EQ(st.nvme_flush_cmds, 1);
	CHECK_EQ(st.flushes, 1);
	fss_attr_free(a);
}

/* Write-through cache: no flush at all; the sync is an "elided" candidate. */
static void test_write_through_no_flush(void)
{
	struct fss_event ev[] = {
		START(901, T(1100), 0xa0, W | SY),
		ISSUE(901, T(1200), 0xa0, W | SY),
		COMPLETE(T(1800), 0xa0, W | SY),
		sync_ev(901, FSS_SYNC_FDATASYNC, T(1000), T(2000)),
	};
	struct fss_attr *a = new_attr();
	struct fss_flush_stats st;
	struct results res;

	RUN(a, ev, &res, 1);
	EXPECT_PHASES(&res.r[0], 0, 0, 100, 600, 0, 300);
	fss_attr_flush_stats(a, &st);
	CHECK_EQ(st.syncs_no_flush, 1);
	CHECK_EQ(st.syncs_with_flush, 0);
	CHECK_EQ(st.flushes, 0);
	fss_attr_free(a);
}

/* When the fs's disk is not known, requests on any disk are accepted. */
static void test_unknown_disk(void)
{
	struct fss_event ev[] = {
		rq(FSS_EV_RQ_START, 902, OTHER_DISK, T(1100), 0xa0, W),
		rq(FSS_EV_RQ_ISSUE, 902, OTHER_DISK, T(1200), 0xa0, W),
		rq(FSS_EV_RQ_COMPLETE, 0, OTHER_DISK, T(1800), 0xa0, W),
		sync_ev(902, FSS_SYNC_FSYNC, T(1000), T(2000)),
	};
	struct fss_attr *a = fss_attr_new(NULL);
	struct results res;

	ev[3].dev = MKDEV(7, 3);
	RUN(a, ev, &res, 1);
	EXPECT_PHASES(&res.r[0], 0, 0, 100, 600, 0, 300);
	fss_attr_free(a);
}

/* Records of different requests arrive out of order; the sync first. */
static void test_out_of_order_arrival(void)
{
	struct fss_event ev[] = {
		with_fs(sync_ev(100, FSS_SYNC_FDATASYNC, T(1000), T(10000)),
			T(1100), T(9900)),
		START(100, T(4500), 0xb0, PF | W | SY),
		ISSUE(KWORKER, T(5000), 0xc0, FL | KT),
		START(100, T(1500), 0xa0, W | SY),
		COMPLETE(T(8000), 0xc0, FL),
		ISSUE(100, T(2000), 0xa0, W | SY),
		COMPLETE(T(8200), 0xb0, W | SY),
		COMPLETE(T(4000), 0xa0, W | SY),
	};
	struct fss_attr *a = new_attr();
	struct results res;

	RUN(a, ev, &res, 1);
	/* exactly as in simple_fdatasync */
	EXPECT_PHASES(&res.r[0], 400 + 500 + 1700, 0, 500 + 500 + 200, 2000,
		      3000, 100 + 100);
	CHECK_EQ(res.r[0].nr_rq, 3);
	fss_attr_free(a);
}

/*
 * Requests that began long before the sync (a flush 50 ms earlier, a write
 * queued 30 ms earlier), with many short unrelated requests in between.
 */
static void test_long_requests(void)
{
	struct fss_event ev[512];
	struct fss_attr *a = new_attr();
	struct results res;
	int n = 0;

	ev[n++] = ISSUE(KWORKER, T(50000), 0xc0, FL | KT);
	ev[n++] = START(100, T(70000), 0xa0, W | SY);
	n = other_writes(ev, n, 100, 60000, 390, 10, 90);
	ev[n++] = COMPLETE(T(110000), 0xc0, FL);
	ev[n++] = ISSUE(100, T(112000), 0xa0, W | SY);
	ev[n++] = COMPLETE(T(115000), 0xa0, W | SY);
	ev[n++] = sync_ev(100, FSS_SYNC_FSYNC, T(100000), T(120000));
	run_all(a, ev, n, &res, 1);
	EXPECT_PHASES(&res.r[0], 0, 0, 2000, 3000, 10000, 5000);
	CHECK_EQ(res.r[0].nr_rq, 2);
	fss_attr_free(a);
}

/*
 * The time index walks back only while an earlier closed request can still
 * reach the sync: an 8 ms write among 200 short requests of another
 * process must still be found by a sync that overlaps only its last 100 us.
 */
static void test_lookback(void)
{
	struct fss_event ev[700];
	struct fss_attr *a = new_attr();
	struct results res;
	int n = 0;

	ev[n++] = START(100, T(0), 0xa0, W | SY);
	ev[n++] = ISSUE(100, T(10), 0xa0, W | SY);
	n = other_writes(ev, n, 200, 20, 39, 5, 25);
	ev[n++] = COMPLETE(T(8000), 0xa0, W | SY);
	ev[n++] = sync_ev(100, FSS_SYNC_FDATASYNC, T(7900), T(8100));
	run_all(a, ev, n, &res, 1);
	EXPECT_PHASES(&res.r[0], 0, 0, 0, 100, 0, 100);
	CHECK_EQ(res.r[0].nr_rq, 1);
	fss_attr_free(a);
}

/*
 * Randomized cross-check: a stream of 3 s with thousands of requests (ids
 * reused, long ones, lost completions, kernel threads, other disks) and
 * syncs, fed in time order with small local disorder and drained as a
 * tracer would, must paint every sync exactly as a naive reference does:
 * per microsecond, straight from the generator's ground truth, with no
 * index, hash, state machine or garbage collection.
 */
#define RX_SPAN		3000000	/* us */
#define RX_NRQ		6000
#define RX_NSYNC	1500
#define RX_NJNL		200
/*
 * Drain this far behind the newest record, as the tracer does (300 ms
 * there): longer than any request here lasts (at most ~43 ms), so every
 * completion that exists has been fed when a sync is painted.
 */
#define RX_LAG		50000	/* us */

struct rx_rq {
	__u32 tid, dev, asked, issued_flags, kind;
	__u64 id;
	long start, issue, complete, final;	/* us; -1 = none */
	bool lost;
};

struct rx_ev {
	long ts;
	long seq;
	struct fss_event ev;
};

static unsigned long long rx_state = 88172645463325252ULL;

static long rx_rand(long n)
{
	rx_state ^= rx_state << 13;
	rx_state ^= rx_state >> 7;
	rx_state ^= rx_state << 17;
	return (long)(rx_state % (unsigned long long)n);
}

static int rx_ev_cmp(const void *x, const void *y)
{
	const struct rx_ev *a = x, *b = y;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int rx_rq_cmp(const void *x, const void *y)
{
	const struct rx_rq *a = x, *b = y;
	long fa = a->start >= 0 ? a->start : a->issue;
	long fb = b->start >= 0 ? b->start : b->issue;

	return fa < fb ? -1 : fa > fb;
}

static long rx_first(const struct rx_rq *r)
{
	return r->start >= 0 ? r->start : r->issue;
}

/* Reference painting of one sync, straight from the model. */
static void rx_reference(const struct rx_rq *rqs, int nrq,
			 const struct fss_event *s, long *jn, int njn,
			 __u64 out[FSS_PH_MAX], __u32 *nr_rq)
{
	long ss = (long)((s->ts - BASE_NS) / 1000);
	long ee = (long)((s->ts_end - BASE_NS) / 1000);
	long len = ee - ss;
	signed char *cell = malloc(len ? len : 1);
	long t;
	int i;

	memset(cell, -1, len ? len : 1);
#define RX_PAINT(ph, from, to) do {					\
	long _f = (from) < ss ? ss : (from), _t = (to) > ee ? ee : (to); \
	for (long _x = _f; _x < _t; _x++)				\
		if (cell[_x - ss] < (ph))				\
			cell[_x - ss] = (ph);				\
} while (0)
	if (s->sync.fs_start)
		RX_PAINT(FSS_PH_FS, (long)((s->sync.fs_start - BASE_NS) / 1000),
			 (long)((s->sync.fs_end - BASE_NS) / 1000));
	if (s->sync.log_start)
		RX_PAINT(FSS_PH_JOURNAL,
			 (long)((s->sync.log_start - BASE_NS) / 1000), ee);
	for (i = 0; i < njn; i++)
		RX_PAINT(FSS_PH_JOURNAL, jn[2 * i], jn[2 * i + 1]);
	*nr_rq = 0;
	for (i = 0; i < nrq; i++) {
		const struct rx_rq *r = &rqs[i];
		long first = rx_first(r), end = r->lost ? LONG_MAX : r->final;
		bool flushy;

		if (r->dev != DISK || !(first < ee && end > ss))
			continue;
		/* no completion: only the syncs it began in */
		if (r->lost && first < ss)
			continue;
		if (!(r->tid == s->tid || r->kind == 5 || r->tid == JBD2 ||
		      ((r->asked & (PF | FUA)) && (r->asked & KT))))
			continue;
		(*nr_rq)++;
		if (r->start >= 0)
			RX_PAINT(FSS_PH_QUEUE, r->start,
				 r->issue >= 0 ? r->issue :
				 (r->lost ? ee : r->final));
		flushy = r->kind == 5 || (r->issued_flags & FUA);
		if (r->issue >= 0)
			RX_PAINT(flushy ? FSS_PH_DEV_FLUSH : FSS_PH_DEV_WRITE,
				 r->issue, r->lost ? ee : r->complete);
	}
	memset(out, 0, sizeof(__u64) * FSS_PH_MAX);
	for (t = 0; t < len; t++)
		out[cell[t] < 0 ? FSS_PH_OTHER : cell[t]] += 1000;
	free(cell);
#undef RX_PAINT
}

static void test_random_vs_reference(void)
{
	struct rx_rq *rqs = calloc(RX_NRQ, sizeof(*rqs));
	struct fss_event *syncs = calloc(RX_NSYNC, sizeof(*syncs));
	long *jn = calloc(2 * RX_NJNL, sizeof(*jn));
	struct rx_ev *evs = calloc(RX_NRQ * 5 + RX_NSYNC + RX_NJNL + 64,
				   sizeof(*evs));
	struct fss_sync_result *got = calloc(RX_NSYNC, sizeof(*got));
	bool *seen = calloc(RX_NSYNC, sizeof(*seen));
	struct results res;
	struct fss_attr *a = new_attr();
	__u64 pool_free[32];
	long nev = 0, seq = 0, next_id = 0x100000;
	int i, k, mismatches = 0, reported = 0, njn = 0;

	/* requests: ground truth */
	for (i = 0; i < RX_NRQ; i++) {
		struct rx_rq *r = &rqs[i];
		long a0 = 1 + rx_rand(RX_SPAN), q = rx_rand(300);
		long d = rx_rand(100) ? 1 + rx_rand(2000) : 1 + rx_rand(40000);

		r->kind = rx_rand(8);
		r->dev = rx_rand(20) ? DISK : OTHER_DISK;
		r->lost = !rx_rand(100);
		r->start = a0;
		r->issue = a0 + q;
		r->complete = r->final = a0 + q + d;
		switch (r->kind) {
		case 0:	/* the syncing thread's write */
			r->tid = 1 + rx_rand(6);
			r->asked = r->issued_flags = W | SY;
			break;
		case 1:	/* another process */
			r->tid = 9999;
			r->asked = r->issued_flags = W;
			break;
		case 2:	/* writeback kthread */
			r->tid = 60;
			r->asked = r->issued_flags = W | KT;
			break;
		case 3:	/* journal thread */
			r->tid = JBD2;
			r->asked = r->issued_flags = W | META | KT;
			break;
		case 4:	/* kthread log write, FUA emulated: 2 completions */
			r->tid = 88;
			r->asked = W | PF | FUA | KT;
			r->issued_flags = W | KT;
			r->final = r->complete + rx_rand(500);
			break;
		case 5:	/* pure flush: no START */
			r->tid = KWORKER;
			r->start = -1;
			r->asked = r->issued_flags = FL | PF | KT;
			break;
		case 6:	/* empty preflush: never issued */
			r->tid = 1 + rx_rand(6);
			r->issue = -1;
			r->asked = PF | W | SY;
			break;
		default: /* native FUA write by a syncer */
			r->tid = 1 + rx_rand(6);
			r->asked = r->issued_flags = W | SY | FUA;
			break;
		}
		if (r->lost)
			r->complete = r->final = -1;
	}
	/* ids: a small pool, reused only after the previous owner finished */
	qsort(rqs, RX_NRQ, sizeof(*rqs), rx_rq_cmp);
	for (k = 0; k < 32; k++)
		pool_free[k] = 0;
	for (i = 0; i < RX_NRQ; i++) {
		struct rx_rq *r = &rqs[i];

		r->id = 0;
		for (k = 0; k < 32 && !r->lost; k++) {
			if ((long)pool_free[k] < rx_first(r) && pool_free[k] != ~0ULL) {
				r->id = 0x1000 + k * 0x40;
				pool_free[k] = r->final;
				break;
			}
		}
		if (!r->id)
			r->id = next_id++;
	}
	/* journal commits of our fs (and one thread of another fs) */
	for (i = 0; i < RX_NJNL; i++) {
		long a0 = 1 + rx_rand(RX_SPAN), d = 1 + rx_rand(3000);
		bool ours = i == 0 || rx_rand(4);
		struct rx_ev *e = &evs[nev++];

		if (i == 0)
			a0 = 0;	/* the journal thread is known from the start */
		e->ts = a0 + d;
		e->seq = seq++;
		e->ev = journal(ours ? JBD2 : JBD2 + 1,
				ours ? FS_DEV : MKDEV(259, 2), T(a0), T(a0 + d));
		if (ours) {
			jn[2 * njn] = a0;
			jn[2 * njn + 1] = a0 + d;
			njn++;
		}
	}
	for (i = 0; i < RX_NRQ; i++) {
		struct rx_rq *r = &rqs[i];
		struct fss_event e;

#define RX_PUSH(ts_us, ev_) do {					\
	evs[nev].ts = (ts_us);						\
	evs[nev].seq = seq++;						\
	evs[nev].ev = (ev_);						\
	nev++;								\
} while (0)
		if (r->start >= 0) {
			e = rq(FSS_EV_RQ_START, r->tid, r->dev, T(r->start), r->id,
			       r->asked);
			RX_PUSH(r->start, e);
		}
		if (r->issue >= 0) {
			e = rq(FSS_EV_RQ_ISSUE, r->kind == 4 ? KWORKER : r->tid,
			       r->dev, T(r->issue), r->id, r->issued_flags);
			RX_PUSH(r->issue, e);
		}
		if (!r->lost) {
			e = rq(FSS_EV_RQ_COMPLETE, 0, r->dev, T(r->complete),
			       r->id, r->issued_flags & ~KT);
			RX_PUSH(r->complete, e);
			if (r->final != r->complete) {
				e.ts = T(r->final);
				RX_PUSH(r->final, e);
			}
		}
	}
	for (i = 0; i < RX_NSYNC; i++) {
		long s0 = 1 + rx_rand(RX_SPAN), d = 1 + rx_rand(8000);
		struct fss_event *s = &syncs[i];

		*s = sync_ev(1 + rx_rand(6), FSS_SYNC_FDATASYNC, T(s0), T(s0 + d));
		s->sync.ino = i;
		if (rx_rand(3) == 0)
			*s = with_fs(*s, T(s0 + rx_rand(d)), 0);
		if (s->sync.fs_start) {
			long fs0 = (long)((s->sync.fs_start - BASE_NS) / 1000);

			s->sync.fs_end = T(fs0 + rx_rand(s0 + d - fs0 + 1));
		}
		if (rx_rand(10) == 0)
			s->sync.log_start = T(s0 + rx_rand(d));
		RX_PUSH(s0 + d, *s);
	}
#undef RX_PUSH
	qsort(evs, nev, sizeof(*evs), rx_ev_cmp);
	/* local disorder between different requests' events */
	for (i = 0; i + 1 < nev; i++) {
		struct rx_ev *x = &evs[i], *y = &evs[i + 1], tmp;

		if (rx_rand(10) || y->ts - x->ts > 20 ||
		    x->ev.type == FSS_EV_SYNC || y->ev.type == FSS_EV_SYNC ||
		    x->ev.type == FSS_EV_JOURNAL || y->ev.type == FSS_EV_JOURNAL ||
		    x->ev.rq.id == y->ev.rq.id)
			continue;
		tmp = *x;
		*x = *y;
		*y = tmp;
		i++;
	}

	memset(&res, 0, sizeof(res));
	for (i = 0; i < nev; i++) {
		if (fss_attr_add(a, &evs[i].ev) != 0)
			mismatches++;
		if (i % 37 == 0 && evs[i].ts > RX_LAG) {
			res.n = 0;
			reported += fss_attr_drain(a, T(evs[i].ts - RX_LAG), collect, &res);
			for (k = 0; k < res.n && k < MAX_RES; k++) {
				got[res.r[k].ino] = res.r[k];
				seen[res.r[k].ino] = true;
			}
			CHECK(res.n <= MAX_RES, "drain batch %d too big", res.n);
		}
	}
	/* the last RX_LAG: in steps, so that no batch overflows res */
	for (long h = evs[nev - 1].ts - RX_LAG; ; h += 500) {
		bool last = h >= evs[nev - 1].ts + RX_SPAN;

		res.n = 0;
		reported += fss_attr_drain(a, last ? UINT64_MAX : T(h),
					   collect, &res);
		for (k = 0; k < res.n && k < MAX_RES; k++) {
			got[res.r[k].ino] = res.r[k];
			seen[res.r[k].ino] = true;
		}
		CHECK(res.n <= MAX_RES, "last drain batch %d too big", res.n);
		if (last)
			break;
	}
	CHECK_EQ(reported, RX_NSYNC);
	CHECK_EQ(res.bad_sums, 0);

	for (i = 0; i < RX_NSYNC; i++) {
		__u64 want[FSS_PH_MAX];
		__u32 want_rq;
		int ph;

		CHECK(seen[i], "sync %d never reported", i);
		rx_reference(rqs, RX_NRQ, &syncs[i], jn, njn, want, &want_rq);
		for (ph = 0; ph < FSS_PH_MAX; ph++)
			if (got[i].phase_ns[ph] != want[ph])
				break;
		if (ph < FSS_PH_MAX || got[i].nr_rq != want_rq) {
			if (mismatches++ < 5)
				printf("#   sync %d: %s got %llu want %llu, nr_rq %u want %u\n",
				       i, ph < FSS_PH_MAX ? fss_phase_name(ph) : "-",
				       ph < FSS_PH_MAX ? (unsigned long long)got[i].phase_ns[ph] : 0ULL,
				       ph < FSS_PH_MAX ? (unsigned long long)want[ph] : 0ULL,
				       got[i].nr_rq, want_rq);
		}
	}
	CHECK(mismatches == 0, "%d syncs differ from the reference", mismatches);
	printf("# %d syncs, %d requests, %ld events cross-checked\n", RX_NSYNC,
	       RX_NRQ, nev);
	fss_attr_free(a);
	free(rqs);
	free(syncs);
	free(jn);
	free(evs);
	free(got);
	free(seen);
}

/* Only syncs that ended by the horizon are reported; GC keeps what matters. */
static void test_drain_horizon(void)
{
	/* S3 is long: [5000 us, 3 s]; the horizon passes 1 s beyond its start */
	struct fss_event ev[] = {
		START(1, T(100), 0x10, W),		/* old, unrelated */
		ISSUE(1, T(150), 0x10, W),
		COMPLETE(T(200), 0x10, W),
		START(11, T(1100), 0xa1, W),
		ISSUE(11, T(1200), 0xa1, W),
		COMPLETE(T(1300), 0xa1, W),
		ISSUE(KWORKER, T(4000), 0xc0, FL | KT),	/* spans S3's start */
		COMPLETE(T(6000), 0xc0, FL),
		START(13, T(6100), 0xa3, W),
		ISSUE(13, T(6200), 0xa3, W),
		COMPLETE(T(6300), 0xa3, W),
		sync_ev(12, FSS_SYNC_FSYNC, T(3000), T(4000)),	/* S2 first */
		sync_ev(11, FSS_SYNC_FSYNC, T(1000), T(2000)),
		sync_ev(13, FSS_SYNC_FSYNC, T(5000), T(3000000)),
	};
	struct fss_attr *a = new_attr();
	size_t pend, rqs, hashed, jn;
	struct results res = { 0 };
	int got;

	FEED(a, ev);
	fss_attr__counts(a, &pend, &rqs, &hashed, &jn);
	CHECK_EQ(pend, 3);
	CHECK_EQ(rqs, 4);

	got = fss_attr_drain(a, T(2500000), collect, &res);
	CHECK(got == 2, "first drain reported %d", got);
	CHECK_EQ(res.n, 2);
	CHECK_EQ(res.r[0].tid, 11);	/* ts_end order */
	CHECK_EQ(res.r[1].tid, 12);
	EXPECT_PHASES(&res.r[0], 0, 0, 100, 100, 0, 800);
	EXPECT_PHASES(&res.r[1], 0, 0, 0, 0, 0, 1000);
	fss_attr__counts(a, &pend, &rqs, &hashed, &jn);
	CHECK_EQ(pend, 1);
	/* both requests before S3's start are gone; S3's two remain */
	CHECK_EQ(rqs, 2);

	got = fss_attr_drain(a, T(2500000), collect, &res);
	CHECK(got == 0, "second drain at the same horizon reported %d", got);

	got = fss_attr_drain(a, UINT64_MAX, collect, &res);
	CHECK(got == 1, "last drain reported %d", got);
	CHECK_EQ(res.n, 3);
	CHECK_EQ(res.r[2].tid, 13);
	/* flush [5000, 6000] (issued before S3), queue 100, write 100 */
	EXPECT_PHASES(&res.r[2], 0, 0, 100, 100, 1000,
		      3000000 - 5000 - 1000 - 100 - 100);
	CHECK_EQ(res.r[2].nr_rq, 2);
	CHECK_EQ(res.bad_sums, 0);
	fss_attr_free(a);
}

/*
 * A sync whose record has not come yet, 2 s long, while another disk keeps
 * records coming (so the newest record seen moves on): drained every
 * 100 ms of event time as the tracer does, with the horizon 300 ms behind.
 * Its data write ends 0.3 ms after it starts.  Held (fss_attr_hold with the
 * sync's start, as the tracer does from the BPF side's in-flight stamps),
 * the write is still there when the record arrives; not held, the slack
 * (about 1 s) runs out first and the write is forgotten.
 */
static void hold_case(bool hold, struct results *res)
{
	struct fss_event own[] = {
		START(13, T(1100), 0xa1, W),
		ISSUE(13, T(1200), 0xa1, W),
		COMPLETE(T(1300), 0xa1, W),
		ISSUE(KWORKER, T(1400), 0xc0, FL | KT),
	};
	struct fss_attr *a = new_attr();
	__u64 t;
	__u64 id = 0x5000;

	FEED(a, own);
	for (t = T(100000); t <= T(2001400); t += US(100000)) {
		struct fss_event other[] = {
			rq(FSS_EV_RQ_START, 99, OTHER_DISK, t, id, W),
			rq(FSS_EV_RQ_ISSUE, 99, OTHER_DISK, t + US(10), id, W),
			rq(FSS_EV_RQ_COMPLETE, 0, OTHER_DISK, t + US(50), id, W),
		};

		id++;
		FEED(a, other);
		fss_attr_hold(a, hold ? T(1000) : 0);
		fss_attr_drain(a, t - US(300000), collect, res);
	}
	{
		struct fss_event end[] = {
			COMPLETE(T(2001400), 0xc0, FL),
			sync_ev(13, FSS_SYNC_FDATASYNC, T(1000), T(2001500)),
		};

		FEED(a, end);
	}
	fss_attr_hold(a, 0);
	fss_attr_drain(a, UINT64_MAX, collect, res);
	fss_attr_free(a);
}

static void test_hold_inflight(void)
{
	struct results held = { 0 }, not_held = { 0 };

	hold_case(true, &held);
	CHECK_EQ(held.n, 1);
	/* queue 100, write 100, flush [1400, 2001400], the rest other */
	EXPECT_PHASES(&held.r[0], 0, 0, 100, 100, 2000000, 300);
	CHECK_EQ(held.r[0].nr_write, 1);
	CHECK_EQ(held.bad_sums, 0);

	hold_case(false, &not_held);
	CHECK_EQ(not_held.n, 1);
	CHECK_EQ(not_held.r[0].nr_write, 0);	/* what the hold prevents */
	CHECK_EQ(not_held.bad_sums, 0);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * A long live session: 200k syncs, 1 ms apart (200 s), drained as a tracer
 * would.  Memory must follow the retention window, not the session.
 */
static void test_gc_bounded(void)
{
	const int nsync = 200000, batch = 1000;
	size_t pend, rqs, hashed, jn;
	size_t max_pend = 0, max_rqs = 0, max_hashed = 0, max_jn = 0;
	struct fss_attr *a = new_attr();
	struct fss_flush_stats st;
	struct results res = { 0 };
	long reported = 0, wrong = 0;
	double t0 = now_ms();

	for (int i = 0; i < nsync; i++) {
		__u64 s = T((__u64)i * 1000);	/* 1 ms apart */
		__u32 tid = 1000 + i % 4;
		__u64 wid = 0x1000 + (i % 64) * 0x100;
		__u64 fid = 0x9000 + (i % 8) * 0x100;
		struct fss_event ev[8];
		int n = 0;

		ev[n++] = START(tid, s + US(50), wid, W | SY);
		ev[n++] = ISSUE(tid, s + US(100), wid, W | SY);
		ev[n++] = COMPLETE(s + US(400), wid, W | SY);
		ev[n++] = ISSUE(KWORKER, s + US(450), fid, FL | KT);
		ev[n++] = COMPLETE(s + US(700), fid, FL);
		if (i % 10 == 0)
			ev[n++] = journal(JBD2, FS_DEV, s + US(420), s + US(750));
		if (i % 100 == 0)	/* another process; completion lost */
			ev[n++] = START(9999, s + US(10), 0x100000 + i, W);
		ev[n++] = sync_ev(tid, FSS_SYNC_FDATASYNC, s, s + US(800));
		for (int k = 0; k < n; k++)
			if (fss_attr_add(a, &ev[k]) != 0)
				wrong++;

		if (i % batch == batch - 1) {
			int got;

			res.n = 0;
			/* a tracer drains a little behind the newest record */
			got = fss_attr_drain(a, s - US(2000), collect, &res);
			if (got < 0)
				wrong++;
			else
				reported += got;
			fss_attr__counts(a, &pend, &rqs, &hashed, &jn);
#define MAXOF(m, v) do { if ((v) > (m)) (m) = (v); } while (0)
			MAXOF(max_pend, pend);
			MAXOF(max_rqs, rqs);
			MAXOF(max_hashed, hashed);
			MAXOF(max_jn, jn);
			for (int k = 0; k < res.n && k < MAX_RES; k++) {
				const struct fss_sync_result *r = &res.r[k];
				bool j = (r->start - BASE_NS) / 1000000 % 10 == 0;

				/* the first 16 of each batch, exactly */
				if (r->phase_ns[FSS_PH_QUEUE] != US(50) ||
				    r->phase_ns[FSS_PH_DEV_WRITE] != US(300) ||
				    r->phase_ns[FSS_PH_DEV_FLUSH] != US(250) ||
				    r->phase_ns[FSS_PH_JOURNAL] != (j ? US(80) : 0) ||
				    r->phase_ns[FSS_PH_OTHER] != (j ? US(120) : US(200)))
					wrong++;
			}
		}
	}
	res.n = 0;
	reported += fss_attr_drain(a, UINT64_MAX, collect, &res);
	printf("# %d syncs, %d events each on average, in %.0f ms\n", nsync,
	       7, now_ms() - t0);
	printf("# peak held: %zu pending syncs, %zu requests (%zu hashed), %zu journal records\n",
	       max_pend, max_rqs, max_hashed, max_jn);

	CHECK_EQ(reported, nsync);
	CHECK_EQ(wrong, 0);
	CHECK_EQ(res.bad_sums, 0);
	/* 1 s of retention at 1 sync/ms, 2 requests a sync, + one batch + lost */
	CHECK(max_rqs < 6000, "peak requests %zu", max_rqs);
	CHECK(max_hashed < 1000, "peak hashed %zu", max_hashed);
	CHECK(max_jn < 400, "peak journal records %zu", max_jn);
	CHECK(max_pend <= (size_t)batch + 10, "peak pending %zu", max_pend);
	fss_attr__counts(a, &pend, &rqs, &hashed, &jn);
	CHECK_EQ(pend, 0);
	fss_attr_flush_stats(a, &st);
	CHECK_EQ(st.syncs, nsync);
	CHECK_EQ(st.flushes, nsync);
	CHECK_EQ(st.flush_sync_refs, nsync);
	CHECK_EQ(st.syncs_no_flush, 0);
	fss_attr_free(a);
}

static void test_invalid_input(void)
{
	struct fss_attr *a = new_attr();
	struct fss_event e = sync_ev(1, FSS_SYNC_FSYNC, T(10), T(20));
	struct results res = { 0 };

	CHECK_EQ(fss_attr_add(a, NULL), -EINVAL);
	CHECK_EQ(fss_attr_add(NULL, &e), -EINVAL);
	e.type = 0;
	CHECK_EQ(fss_attr_add(a, &e), -EINVAL);
	e.type = FSS_EV_MAX;
	CHECK_EQ(fss_attr_add(a, &e), -EINVAL);
	e.type = 0xdead;
	CHECK_EQ(fss_attr_add(a, &e), -EINVAL);
	e = sync_ev(1, FSS_SYNC_FSYNC, T(20), T(10));	/* ends before start */
	CHECK_EQ(fss_attr_add(a, &e), -EINVAL);
	e = sync_ev(1, FSS_SYNC_KIND_MAX, T(10), T(20));
	CHECK_EQ(fss_attr_add(a, &e), -EINVAL);
	e = journal(JBD2, FS_DEV, T(30), T(29));
	CHECK_EQ(fss_attr_add(a, &e), -EINVAL);
	CHECK_EQ(fss_attr_drain(NULL, UINT64_MAX, collect, &res), -EINVAL);
	/* nothing of the rejected records was kept */
	CHECK_EQ(fss_attr_drain(a, UINT64_MAX, collect, &res), 0);
	CHECK_EQ(res.n, 0);
	/* a zero-length sync is valid: total 0, all phases 0 */
	e = sync_ev(1, FSS_SYNC_FSYNC, T(10), T(10));
	CHECK_EQ(fss_attr_add(a, &e), 0);
	CHECK_EQ(fss_attr_drain(a, UINT64_MAX, collect, &res), 1);
	CHECK_EQ(res.r[0].total, 0);
	CHECK_EQ(res.bad_sums, 0);
	fss_attr_free(a);
	fss_attr_free(NULL);
}

/* ---- report cases ---- */

static struct fss_sync_result mk_result(__u64 total, __u64 fs, __u64 df,
					__u32 kind)
{
	struct fss_sync_result r;

	memset(&r, 0, sizeof(r));
	r.total = total;
	r.phase_ns[FSS_PH_FS] = fs;
	r.phase_ns[FSS_PH_DEV_FLUSH] = df;
	r.phase_ns[FSS_PH_OTHER] = total - fs - df;
	r.kind = kind;
	return r;
}

static void test_report_percentiles(void)
{
	struct fss_collector *c = fss_collector_new();
	struct fss_breakdown b;

	/* sync i (1..100): total i us, fs i/10 us, device_flush 9i/10 us */
	for (int i = 1; i <= 100; i++) {
		struct fss_sync_result r = mk_result(US(i), i * 100, i * 900,
			i <= 30 ? FSS_SYNC_FSYNC : FSS_SYNC_FDATASYNC);

		r.nr_incomplete = i == 7;
		fss_collector_add(&r, c);
	}
	CHECK_EQ(fss_collector_count(c), 100);
	fss_collector_breakdown(c, NULL, 5, &b);
	CHECK_EQ(b.syncs, 100);
	CHECK_EQ(b.syncs_by_kind[FSS_SYNC_FSYNC], 30);
	CHECK_EQ(b.syncs_by_kind[FSS_SYNC_FDATASYNC], 70);
	CHECK_EQ(b.incomplete_rqs, 1);
	CHECK_EQ(b.drops, 5);
	CHECK_DBL(b.total_mean_us, 50.5);
	CHECK_DBL(b.total_p50_us, 50.0);	/* rank ceil(50) = 50 */
	CHECK_DBL(b.total_p99_us, 99.0);	/* rank ceil(99) = 99 */
	CHECK_DBL(b.phase[FSS_PH_FS].mean_us, 5.05);
	CHECK_DBL(b.phase[FSS_PH_FS].p50_us, 5.0);
	CHECK_DBL(b.phase[FSS_PH_FS].p99_us, 9.9);
	CHECK_DBL(b.phase[FSS_PH_FS].share, 0.1);
	CHECK_DBL(b.phase[FSS_PH_DEV_FLUSH].share, 0.9);
	CHECK_DBL(b.phase[FSS_PH_OTHER].share, 0.0);
	CHECK_DBL(b.phase[FSS_PH_OTHER].p99_us, 0.0);

	/* three values: p50 is the 2nd, p99 the 3rd; one value: itself */
	fss_collector_reset(c);
	CHECK_EQ(fss_collector_count(c), 0);
	{
		struct fss_sync_result r3 = mk_result(US(3), 0, 0, 0);
		struct fss_sync_result r1 = mk_result(US(1), 0, 0, 0);
		struct fss_sync_result r2 = mk_result(US(2), 0, 0, 0);

		fss_collector_add(&r3, c);
		fss_collector_add(&r1, c);
		fss_collector_add(&r2, c);
		fss_collector_breakdown(c, NULL, 0, &b);
		CHECK_DBL(b.total_p50_us, 2.0);
		CHECK_DBL(b.total_p99_us, 3.0);
		CHECK_DBL(b.total_mean_us, 2.0);
		fss_collector_reset(c);
		fss_collector_add(&r2, c);
		fss_collector_breakdown(c, NULL, 0, &b);
		CHECK_DBL(b.total_p50_us, 2.0);
		CHECK_DBL(b.total_p99_us, 2.0);
	}

	/* nothing collected: no numbers at all */
	fss_collector_reset(c);
	fss_collector_breakdown(c, NULL, 0, &b);
	CHECK_EQ(b.syncs, 0);
	CHECK(b.phase[FSS_PH_FS].mean_us != b.phase[FSS_PH_FS].mean_us,
	      "mean of no syncs is %g, not NaN", b.phase[FSS_PH_FS].mean_us);
	fss_collector_free(c);
}

/* the breakdown's text as run prints it: through its test's JSON */
static void breakdown_print(FILE *f, const struct fss_breakdown *b, int indent)
{
	struct json_object *t = json_object_new_object();

	fss_breakdown_add_json(t, b);
	fss_text_breakdown(f, t, indent);
	json_object_put(t);
}

static char *print_to_string(const struct fss_breakdown *b, int indent)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	breakdown_print(f, b, indent);
	fclose(f);
	return buf;
}

static void check_width(const char *text, int line)
{
	const char *p = text;
	int n = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		n++;
		if (len > 80) {
			failures++;
			printf("#   FAIL %s:%d: line %d is %zu columns: %.*s\n",
			       __FILE__, line, n, len, (int)len, p);
		}
		if (!nl) {
			failures++;
			printf("#   FAIL %s:%d: last line not terminated\n",
			       __FILE__, line);
			break;
		}
		p = nl + 1;
	}
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_report_print(void)
{
	struct fss_collector *c = fss_collector_new();
	struct fss_flush_stats fl = {
		.flushes = 123456789, .flush_sync_refs = 246913578,
		.syncs = 4000000000ULL, .syncs_no_flush = 3999999999ULL,
		.fua_writes = 4000000000ULL, .fua_emulated = 4000000000ULL,
		.preflush = 4000000000ULL, .nvme_flush_cmds = 4000000000ULL,
	};
	struct fss_breakdown b;
	char *out;

	/* durations across the units: 12.3 us, 4.56 ms, 2.5 s */
	struct fss_sync_result r1 = mk_result(12300, 12300, 0, FSS_SYNC_FSYNC);
	struct fss_sync_result r2 = mk_result(4560000, 0, 4560000, FSS_SYNC_MSYNC);
	struct fss_sync_result r3 = mk_result(2500000000ULL, 0, 0,
					      FSS_SYNC_IOURING_FSYNC);

	for (int k = 0; k < FSS_SYNC_KIND_MAX; k++) {
		struct fss_sync_result r = mk_result(US(1), 0, 0, k);

		fss_collector_add(&r, c);
	}
	fss_collector_add(&r1, c);
	fss_collector_add(&r2, c);
	fss_collector_add(&r3, c);
	fss_collector_breakdown(c, &fl, 77, &b);
	b.incomplete_rqs = 4000000000ULL;
	b.syncs_incomplete = 3999999999ULL;
	for (int indent = 0; indent <= 12; indent += 4) {
		out = print_to_string(&b, indent);
		check_width(out, __LINE__);
		if (indent == 4) {
			printf("# sample (extreme counts, indent 4):\n");
			for (char *p = out, *nl; *p; p = nl + 1) {
				nl = strchr(p, '\n');
				printf("# |%.*s\n", (int)(nl - p), p);
			}
			CHECK(strstr(out, "2.50s") != NULL, "no 2.50s");
			CHECK(strstr(out, "4.56ms") != NULL, "no 4.56ms");
			CHECK(strstr(out, "12.3us") != NULL, "no 12.3us");
			CHECK(strstr(out, "device_flush") != NULL, "no phase");
			CHECK(strstr(out, "2.00 syncs/flush") != NULL,
			      "no syncs/flush");
			CHECK(strstr(out, "77 events lost") != NULL, "no drops");
		}
		free(out);
	}

	/* no flush at all: the ratio is not known, not 0 */
	fl.flushes = fl.flush_sync_refs = 0;
	fss_collector_breakdown(c, &fl, 0, &b);
	out = print_to_string(&b, 4);
	CHECK(strstr(out, "syncs/flush n/a") != NULL, "ratio not n/a:\n%s", out);
	CHECK(strstr(out, "events lost") == NULL, "drops shown when 0");
	free(out);

	/* no syncs: one line, no table */
	fss_collector_reset(c);
	fss_collector_breakdown(c, NULL, 0, &b);
	out = print_to_string(&b, 4);
	CHECK(strcmp(out, "    no syncs were traced\n") == 0, "got '%s'", out);
	CHECK_EQ(count_lines(out), 1);
	free(out);
	fss_collector_free(c);
}

static void test_report_json(void)
{
	struct fss_collector *c = fss_collector_new();
	struct fss_flush_stats fl = {
		.flushes = 2, .flush_sync_refs = 3, .syncs = 3,
		.syncs_no_flush = 1, .fua_writes = 4, .fua_emulated = 5,
		.preflush = 6, .nvme_flush_cmds = 7,
	};
	struct fss_breakdown b;
	struct json_object *ph, *flj, *parsed, *o, *v;
	const char *s;

	for (int i = 1; i <= 3; i++) {
		struct fss_sync_result r = mk_result(US(i), 0, US(i), 0);

		fss_collector_add(&r, c);
	}
	fss_collector_breakdown(c, &fl, 0, &b);

	ph = fss_breakdown_phases_json(&b);
	CHECK(ph != NULL, "no phases json");
	s = json_object_to_json_string_ext(ph, JSON_C_TO_STRING_PLAIN);
	parsed = json_tokener_parse(s);
	CHECK(parsed != NULL, "phases JSON does not parse: %s", s);
	for (int p = 0; parsed && p < FSS_PH_MAX; p++) {
		CHECK(json_object_object_get_ex(parsed, fss_phase_name(p), &o),
		      "no phase %s in %s", fss_phase_name(p), s);
		CHECK(json_object_object_get_ex(o, "mean_us", &v) &&
		      json_object_is_type(v, json_type_double), "mean_us");
		CHECK(json_object_object_get_ex(o, "p50_us", &v), "p50_us");
		CHECK(json_object_object_get_ex(o, "p99_us", &v), "p99_us");
		CHECK(json_object_object_get_ex(o, "share", &v), "share");
	}
	if (parsed && json_object_object_get_ex(parsed, "device_flush", &o)) {
		json_object_object_get_ex(o, "mean_us", &v);
		CHECK_DBL(json_object_get_double(v), 2.0);
		json_object_object_get_ex(o, "share", &v);
		CHECK_DBL(json_object_get_double(v), 1.0);
		json_object_object_get_ex(o, "p99_us", &v);
		CHECK_DBL(json_object_get_double(v), 3.0);
	}
	json_object_put(parsed);
	json_object_put(ph);

	flj = fss_breakdown_flush_json(&b);
	s = json_object_to_json_string_ext(flj, JSON_C_TO_STRING_PLAIN);
	parsed = json_tokener_parse(s);
	CHECK(parsed != NULL, "flush JSON does not parse: %s", s);
	if (parsed) {
		static const char *const keys[] = { "flushes", "fua_writes",
			"fua_emulated", "preflush", "syncs_no_flush",
			"nvme_flush_cmds" };
		static const long long want[] = { 2, 4, 5, 6, 1, 7 };

		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			CHECK(json_object_object_get_ex(parsed, keys[k], &v),
			      "no %s", keys[k]);
			CHECK_EQ(json_object_get_int64(v), want[k]);
		}
		json_object_object_get_ex(parsed, "syncs_per_flush", &v);
		CHECK_DBL(json_object_get_double(v), 1.5);
		json_object_object_get_ex(parsed, "flushes_per_sync", &v);
		CHECK(v && json_object_get_double(v) > 0.666 &&
		      json_object_get_double(v) < 0.6675, "flushes_per_sync");
		CHECK(json_object_object_get_ex(parsed, "elided", &v) && !v,
		      "elided should be null here");
	}
	json_object_put(parsed);
	json_object_put(flj);

	/* no flushes: syncs_per_flush is null, not 0 */
	fl.flushes = fl.flush_sync_refs = 0;
	fss_collector_breakdown(c, &fl, 0, &b);
	flj = fss_breakdown_flush_json(&b);
	CHECK(json_object_object_get_ex(flj, "syncs_per_flush", &v) && !v,
	      "syncs_per_flush not null");
	json_object_put(flj);

	/* no syncs: every statistic is null */
	fss_collector_reset(c);
	fss_collector_breakdown(c, NULL, 0, &b);
	ph = fss_breakdown_phases_json(&b);
	CHECK(json_object_object_get_ex(ph, "fs", &o) &&
	      json_object_object_get_ex(o, "mean_us", &v) && !v,
	      "mean of no syncs not null");
	json_object_put(ph);
	fss_collector_free(c);
}

/*
 * A kernel that shows requests only from issue on: queue and the creation
 * flags are n/a (null with a reason), never 0, in JSON and in text.
 */
static void test_report_no_rq_start(void)
{
	struct fss_collector *c = fss_collector_new();
	struct fss_flush_stats fl = { .flushes = 1, .flush_sync_refs = 1, .syncs = 1 };
	struct fss_sync_result r = mk_result(US(1), 0, US(1), 0);
	struct fss_breakdown b;
	struct json_object *ph, *flj, *o, *v;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	fss_collector_add(&r, c);
	fss_collector_breakdown(c, &fl, 0, &b);
	b.no_rq_start = true;

	ph = fss_breakdown_phases_json(&b);
	CHECK(json_object_object_get_ex(ph, "queue", &o), "no queue");
	CHECK(json_object_object_get_ex(o, "mean_us", &v) && v == NULL, "queue mean not null");
	CHECK(json_object_object_get_ex(o, "share", &v) && v == NULL, "queue share not null");
	CHECK(json_object_object_get_ex(o, "na", &v) && json_object_is_type(v, json_type_string),
	      "queue has no n/a reason");
	CHECK(json_object_object_get_ex(ph, "device_flush", &o) &&
	      json_object_object_get_ex(o, "mean_us", &v) && v != NULL, "other phases stay measured");
	json_object_put(ph);

	flj = fss_breakdown_flush_json(&b);
	CHECK(json_object_object_get_ex(flj, "preflush", &v) && v == NULL, "preflush not null");
	CHECK(json_object_object_get_ex(flj, "fua_emulated", &v) && v == NULL, "fua_emulated not null");
	CHECK(json_object_object_get_ex(flj, "fua_writes", &v) && v != NULL, "fua_writes must stay");
	json_object_put(flj);

	f = open_memstream(&buf, &len);
	breakdown_print(f, &b, 4);
	fclose(f);
	CHECK(strstr(buf, "queue              n/a       n/a") != NULL, "text has no queue n/a row: %s", buf);
	CHECK(strstr(buf, "preflush requests n/a") != NULL, "text has no preflush n/a: %s", buf);
	/* the reason under it is the document's own */
	CHECK(strstr(buf, "queue and preflush n/a: requests seen only from "
		     "issue on (no") != NULL, "text does not say why: %s", buf);
	free(buf);
	fss_collector_free(c);
}

/*
 * No journal hook (jbd2 and xfs not in the kernel): the journal phase is
 * n/a (null with a reason), never 0, in JSON and in text; the others stay.
 */
static void test_report_no_journal(void)
{
	struct fss_collector *c = fss_collector_new();
	struct fss_flush_stats fl = {
		.flushes = 1, .flush_sync_refs = 1, .syncs = 1
	};
	struct fss_sync_result r = mk_result(US(1), 0, US(1), 0);
	struct fss_breakdown b;
	struct json_object *ph, *o, *v;
	char *buf;

	fss_collector_add(&r, c);
	fss_collector_breakdown(c, &fl, 0, &b);
	b.no_journal = true;
	ph = fss_breakdown_phases_json(&b);
	CHECK(json_object_object_get_ex(ph, "journal", &o), "no journal");
	CHECK(json_object_object_get_ex(o, "mean_us", &v) && v == NULL,
	      "journal mean not null");
	CHECK(json_object_object_get_ex(o, "share", &v) && v == NULL,
	      "journal share not null");
	CHECK(json_object_object_get_ex(o, "na", &v) &&
	      json_object_is_type(v, json_type_string),
	      "journal has no n/a reason");
	CHECK(json_object_object_get_ex(ph, "queue", &o) &&
	      json_object_object_get_ex(o, "mean_us", &v) && v != NULL,
	      "other phases stay measured");
	json_object_put(ph);
	buf = print_to_string(&b, 4);
	CHECK(strstr(buf, "journal            n/a       n/a") != NULL,
	      "text has no journal n/a row: %s", buf);
	CHECK(strstr(buf, "journal n/a: no jbd2 or xfs log tracepoint") != NULL,
	      "text does not say why: %s", buf);
	check_width(buf, __LINE__);
	free(buf);
	fss_collector_free(c);
}

static void test_report_sync_json_escaping(void)
{
	struct fss_sync_result r = mk_result(US(30), US(10), US(15),
					     FSS_SYNC_FDATASYNC);
	struct json_object *o, *v;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	r.tid = 4242;
	r.pid = 4240;
	r.dev = MKDEV(259, 3);
	r.ino = 1234567890123ULL;
	r.start = T(1);
	r.ret = -5;
	r.nr_flush = 2;
	r.nr_fua = 1;
	/* quote, backslash, newline, control byte, a lone 0xff, é */
	memcpy(r.comm, "a\"b\\c\nd\x01\xff\xc3\xa9z", 12);

	f = open_memstream(&buf, &len);
	rc = fss_sync_result_write_json(f, "fdatasync \"8k\"", &r);
	fclose(f);
	CHECK_EQ(rc, 0);
	CHECK(len > 0 && buf[len - 1] == '\n', "not newline-terminated");
	CHECK(strchr(buf, '\n') == buf + len - 1, "more than one line: %s", buf);
	o = json_tokener_parse(buf);
	CHECK(o != NULL, "does not parse: %s", buf);
	if (o) {
		json_object_object_get_ex(o, "comm", &v);
		CHECK(v && strcmp(json_object_get_string(v),
				  "a\"b\\c\nd\x01\xef\xbf\xbd\xc3\xa9z") == 0,
		      "comm round trip: %s", buf);
		json_object_object_get_ex(o, "test", &v);
		CHECK(v && strcmp(json_object_get_string(v), "fdatasync \"8k\"") == 0,
		      "test name");
		json_object_object_get_ex(o, "dev", &v);
		CHECK(v && strcmp(json_object_get_string(v), "259:3") == 0,
		      "dev %s", v ? json_object_get_string(v) : "missing");
		json_object_object_get_ex(o, "kind", &v);
		CHECK(v && strcmp(json_object_get_string(v), "fdatasync") == 0,
		      "kind");
		json_object_object_get_ex(o, "total_ns", &v);
		CHECK_EQ(json_object_get_int64(v), US(30));
		json_object_object_get_ex(o, "device_flush_ns", &v);
		CHECK_EQ(json_object_get_int64(v), US(15));
		json_object_object_get_ex(o, "other_ns", &v);
		CHECK_EQ(json_object_get_int64(v), US(5));
		json_object_object_get_ex(o, "ino", &v);
		CHECK_EQ(json_object_get_int64(v), 1234567890123ULL);
		json_object_object_get_ex(o, "ret", &v);
		CHECK(v && json_object_get_int64(v) == -5, "ret");
		json_object_object_get_ex(o, "nr_flush", &v);
		CHECK_EQ(json_object_get_int64(v), 2);
		for (int p = 0; p < FSS_PH_MAX; p++) {
			char key[32];

			snprintf(key, sizeof(key), "%s_ns", fss_phase_name(p));
			CHECK(json_object_object_get_ex(o, key, &v), "no %s", key);
		}
		json_object_put(o);
	}
	free(buf);

	/* a comm that fills all 16 bytes (no NUL) stays inside its bytes */
	memset(r.comm, 'x', sizeof(r.comm));
	buf = NULL;
	f = open_memstream(&buf, &len);
	fss_sync_result_write_json(f, NULL, &r);
	fclose(f);
	o = json_tokener_parse(buf);
	CHECK(o != NULL, "does not parse: %s", buf);
	if (o) {
		json_object_object_get_ex(o, "comm", &v);
		CHECK(v && strlen(json_object_get_string(v)) == FSS_COMM_LEN,
		      "comm %s", v ? json_object_get_string(v) : "missing");
		CHECK(json_object_object_get_ex(o, "test", &v) && !v,
		      "NULL test not null");
		json_object_put(o);
	}
	free(buf);
	CHECK_EQ(fss_sync_result_write_json(NULL, "x", &r), -EINVAL);
}

static void test_names(void)
{
	CHECK(strcmp(fss_phase_name(FSS_PH_DEV_FLUSH), "device_flush") == 0, "name mismatch");
	CHECK(strcmp(fss_phase_name(FSS_PH_OTHER), "other") == 0, "name mismatch");
	CHECK(strcmp(fss_phase_name(FSS_PH_MAX), "?") == 0, "name mismatch");
	CHECK(strcmp(fss_sync_kind_name(FSS_SYNC_DSYNC_WRITE), "dsync_write") == 0, "name mismatch");
	CHECK(strcmp(fss_sync_kind_name(FSS_SYNC_IOURING_FSYNC), "io_uring_fsync") == 0, "name mismatch");
	CHECK(strcmp(fss_sync_kind_name(FSS_SYNC_KIND_MAX), "?") == 0, "name mismatch");
}

/* ---- runner ---- */

static const struct tap_case cases[] = {
#define CASE(n) { #n, test_##n }
	CASE(simple_fdatasync),
	CASE(overlapping_requests),
	CASE(batched_flush),
	CASE(concurrent_syncers),
	CASE(missing_completion),
	CASE(dsync_write_native_fua),
	CASE(unrelated_write),
	CASE(ext4_journal),
	CASE(journal_other_fs),
	CASE(xfs_log),
	CASE(kthread_log_write),
	CASE(rq_id_reuse),
	CASE(lost_completion_reuse),
	CASE(requeue_vs_lost),
	CASE(nvme_flush),
	CASE(write_through_no_flush),
	CASE(unknown_disk),
	CASE(out_of_order_arrival),
	CASE(long_requests),
	CASE(lookback),
	CASE(random_vs_reference),
	CASE(lost_completion_once),
	CASE(drain_horizon),
	CASE(hold_inflight),
	CASE(gc_bounded),
	CASE(invalid_input),
	CASE(report_percentiles),
	CASE(report_print),
	CASE(report_json),
	CASE(report_no_rq_start),
	CASE(report_no_journal),
	CASE(report_sync_json_escaping),
	CASE(names),
	CASE(sync_detail),
#undef CASE
};


TAP_MAIN(cases)
