// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * test_attr_stress.c - the attribution engine (user/engine/attr/attr.c)
 * at scale and at its edges: a randomized stream painted against a naive
 * reference, the drain horizon, requests held in flight, bounded memory
 * over a long stream, and invalid input.  Usage as test_attr.
 */
#include <stdbool.h>
#include <json-c/json.h>
#include "attr_fixture.h"
#include "render/render.h"
#include "stats/collector.h"

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
	return fx_rand(&rx_state, n);
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

/* ---- runner ---- */

static const struct tap_case cases[] = {
#define CASE(n) { #n, test_##n }
	CASE(random_vs_reference),
	CASE(drain_horizon),
	CASE(hold_inflight),
	CASE(gc_bounded),
	CASE(invalid_input),
#undef CASE
};

TAP_MAIN(cases)
