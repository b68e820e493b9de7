// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * test_attr.c - the attribution engine (user/engine/attr/attr.c) on
 * synthetic event streams with exact expected nanoseconds per phase, one
 * case per behaviour of the kernel.  The streams follow what the kernel
 * was seen to do on a loop device (write-back cache, no FUA): see
 * docs/model.md.  The randomized and scale cases are in
 * test_attr_stress.c, the breakdown report's in test_report.c.
 *
 * Usage: test_attr            run every case, TAP output
 *        test_attr --list     case names, one a line
 *        test_attr NAME...    run only these cases
 */
#include <json-c/json.h>
#include "attr_fixture.h"
#include "render/render.h"
#include "stats/collector.h"

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
	CASE(lost_completion_once),
	CASE(sync_detail),
#undef CASE
};

TAP_MAIN(cases)
