// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * test_fold.c - folded request records (user/engine/tracer/fold.c): a
 * record unfolds into exactly the events the per-event transport sends,
 * and attribution over the folded transport (records at completion,
 * requests in flight handed on from the map before each drain) paints
 * every sync exactly as over the per-event one, on random schedules.
 *
 * fold_ref() below applies the rules of the BPF side (fold_add() in
 * bpf/common.bpf.h) to an event stream; keep the two in step.
 */
#include <stdint.h>
#include <stdlib.h>
#include "tap.h"
#include "engine/tracer/fold.h"
#include "engine/attr/attr.h"

void fss_fold__snap_set(struct fss_fold *fo,
			const struct fss_rq_fold_event *v, size_t n);

#define DISK	((8u << 20) | 0)
#define FS_DEV	((7u << 20) | 1)

static struct fss_fold_slot slot(__u32 type, __u64 ts, __u32 tid,
				 __u32 flags, __u32 bytes)
{
	return (struct fss_fold_slot){ .ts = ts, .sector = 2048 + ts % 7,
		.type = type, .tid = tid, .bytes = bytes, .flags = flags };
}

/* The per-event record of a slot, widened as the tracer widens it. */
static struct fss_event per_event(__u64 id, const struct fss_fold_slot *s)
{
	struct fss_rq_event w = { .type = s->type, .tid = s->tid, .ts = s->ts,
				  .id = id, .sector = s->sector, .dev = DISK,
				  .bytes = s->bytes };
	struct fss_event ev;

	if (s->type == FSS_EV_NVME_SETUP || s->type == FSS_EV_NVME_COMPLETE)
		w.nvme_opcode = s->flags;
	else
		w.flags = s->flags;
	fss_rq_event_widen(&w, &ev);
	return ev;
}

static void test_unfold_exact(void)
{
	struct fss_rq_fold_event f = { .type = FSS_EV_RQ_FOLD, .n = 6,
		.id = 0xffff888812345600ULL, .dev = DISK, .owned = 1,
		.own = { .cgroup = 77, .ino = 12, .pid = 500, .tid = 501,
			 .wb_dev = FS_DEV, .flags = FSS_BL_WB } };
	struct fss_rq_owned_event ow = { 0 };
	struct fss_event out[FSS_FOLD_MAX_EVENTS], s0, o0, e;
	int n;

	f.ev[0] = slot(FSS_EV_RQ_START, 100, 501,
		       FSS_RQ_WRITE | FSS_RQ_CREATE, 8192);
	f.ev[1] = slot(FSS_EV_RQ_START, 110, 501, FSS_RQ_WRITE, 8192);
	f.ev[2] = slot(FSS_EV_RQ_ISSUE, 120, 9, FSS_RQ_WRITE, 8192);
	f.ev[3] = slot(FSS_EV_NVME_SETUP, 119, 0, 1, 8192);
	f.ev[4] = slot(FSS_EV_NVME_COMPLETE, 150, 0, (__u32)-1, 8192);
	f.ev[5] = slot(FSS_EV_RQ_COMPLETE, 151, 0, FSS_RQ_WRITE, 8192);
	n = fss_fold_unfold(&f, 0, out);
	CHECK_EQ(n, 7);
	/* the creation and its owner: as an fss_rq_owned_event gives them */
	ow.rq = (struct fss_rq_event){ .type = FSS_EV_RQ_START_OWNED,
		.tid = 501, .ts = 100, .id = f.id, .sector = f.ev[0].sector,
		.dev = DISK, .bytes = 8192,
		.flags = FSS_RQ_WRITE | FSS_RQ_CREATE };
	ow.own = (struct fss_credited){ .cgroup = 77, .ino = 12, .pid = 500,
		.tid = 501, .wb_dev = FS_DEV, .flags = FSS_BL_WB };
	fss_rq_owned_widen(&ow, &s0, &o0);
	CHECK(!memcmp(&out[0], &s0, sizeof(s0)), "creation differs");
	CHECK(!memcmp(&out[1], &o0, sizeof(o0)), "owner differs");
	for (int i = 1; i < 6; i++) {
		e = per_event(f.id, &f.ev[i]);
		CHECK(!memcmp(&out[i + 1], &e, sizeof(e)),
		      "slot %d differs from its per-event record", i);
	}
	CHECK_EQ(out[4].rq.nvme_opcode, 1);
	CHECK_EQ(out[4].rq.flags, 0);
	/* handed on up to slot 2 already: the rest only, no owner again */
	n = fss_fold_unfold(&f, 2, out);
	CHECK_EQ(n, 4);
	CHECK_EQ(out[0].type, FSS_EV_RQ_ISSUE);
	CHECK_EQ(out[3].type, FSS_EV_RQ_COMPLETE);
	f.owned = 0;
	CHECK_EQ(fss_fold_unfold(&f, 0, out), 6);
}

static void test_read(void)
{
	struct fss_rq_fold_event f = { .type = FSS_EV_RQ_FOLD, .n = 2 }, g;
	size_t head = offsetof(struct fss_rq_fold_event, ev);

	f.ev[0] = slot(FSS_EV_RQ_ISSUE, 5, 1, FSS_RQ_FLUSH, 0);
	f.ev[1] = slot(FSS_EV_RQ_COMPLETE, 9, 1, FSS_RQ_FLUSH, 0);
	/* the kernel sends only the slots used */
	CHECK_EQ(fss_fold_read(&f, head + 2 * sizeof(f.ev[0]), &g), 0);
	CHECK_EQ(g.n, 2);
	CHECK_EQ(g.ev[1].ts, 9);
	CHECK_EQ(g.ev[2].ts, 0);
	CHECK(fss_fold_read(&f, head + sizeof(f.ev[0]), &g) < 0, "short");
	CHECK(fss_fold_read(&f, 8, &g) < 0, "no header");
	f.n = 0;
	CHECK(fss_fold_read(&f, sizeof(f), &g) < 0, "n = 0");
	f.n = FSS_FOLD_SLOTS + 1;
	CHECK(fss_fold_read(&f, sizeof(f), &g) < 0, "n too big");
}

/* ---- random schedules: per-event vs folded, through attribution ---- */

#define MAXEV	4096
#define NIDS	5
#define LAG	3000		/* ns of synthetic time */
#define POLL	1000

struct item {
	struct fss_event ev;
};

static struct item stream[MAXEV];
static int nstream;

static unsigned int rnd_state;
static unsigned int rnd(unsigned int n)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (rnd_state >> 16) % n;
}

static void push_rq(__u32 type, __u64 ts, __u32 tid, __u64 id, __u32 flags)
{
	struct fss_fold_slot s = slot(type, ts, tid, flags, 4096);

	if (nstream < MAXEV)
		stream[nstream++].ev = per_event(id, &s);
}

/* One life of request id from t on; returns when its id is free again. */
static __u64 gen_life(__u64 id, __u64 t, __u32 tid)
{
	unsigned int kind = rnd(7);
	__u32 w = FSS_RQ_WRITE;

	switch (kind) {
	case 0:		/* data write, maybe inserted, maybe an extra completion */
		push_rq(FSS_EV_RQ_START, t, tid, id, w | FSS_RQ_CREATE);
		if (rnd(2))
			push_rq(FSS_EV_RQ_START, t += 1 + rnd(50), tid, id, w);
		push_rq(FSS_EV_RQ_ISSUE, t += 1 + rnd(500), tid, id, w);
		push_rq(FSS_EV_RQ_COMPLETE, t += 1 + rnd(6000), 0, id, w);
		if (rnd(3) == 0)
			push_rq(FSS_EV_RQ_COMPLETE, t += 1 + rnd(300), 0, id, w);
		break;
	case 1:		/* the empty PREFLUSH request: never issued */
		push_rq(FSS_EV_RQ_START, t, tid, id,
			w | FSS_RQ_PREFLUSH | FSS_RQ_CREATE);
		push_rq(FSS_EV_RQ_COMPLETE, t += 1 + rnd(4000), 0, id,
			w | FSS_RQ_PREFLUSH);
		break;
	case 2:		/* a kworker's flush: issue only */
		push_rq(FSS_EV_RQ_ISSUE, t, 40, id,
			FSS_RQ_FLUSH | FSS_RQ_KTHREAD);
		push_rq(FSS_EV_RQ_COMPLETE, t += 1 + rnd(5000), 0, id,
			FSS_RQ_FLUSH);
		break;
	case 3:		/* requeued once */
		push_rq(FSS_EV_RQ_START, t, tid, id, w | FSS_RQ_CREATE);
		push_rq(FSS_EV_RQ_ISSUE, t += 1 + rnd(100), tid, id, w);
		push_rq(FSS_EV_RQ_REQUEUE, t += 1 + rnd(100), 0, id, w);
		push_rq(FSS_EV_RQ_START, t += 1 + rnd(100), 41, id, w);
		push_rq(FSS_EV_RQ_ISSUE, t += 1 + rnd(100), 41, id, w);
		push_rq(FSS_EV_RQ_COMPLETE, t += 1 + rnd(3000), 0, id, w);
		break;
	case 4:		/* completion lost: the id's next request ends it */
		push_rq(FSS_EV_RQ_START, t, tid, id, w | FSS_RQ_CREATE);
		push_rq(FSS_EV_RQ_ISSUE, t += 1 + rnd(100), tid, id, w);
		t += 1 + rnd(8000);
		break;
	case 5:		/* NVMe: the command's two records before completion */
		push_rq(FSS_EV_RQ_START, t, tid, id,
			w | FSS_RQ_FUA | FSS_RQ_CREATE);
		push_rq(FSS_EV_RQ_ISSUE, t += 1 + rnd(100), tid, id,
			w | FSS_RQ_FUA);
		push_rq(FSS_EV_NVME_SETUP, t - 1, 0, id, 1);
		push_rq(FSS_EV_NVME_COMPLETE, t += 1 + rnd(2000), 0, id,
			(__u32)-1);
		push_rq(FSS_EV_RQ_COMPLETE, t += 1, 0, id, w | FSS_RQ_FUA);
		break;
	default:	/* a slow flush (longer than the lag) */
		push_rq(FSS_EV_RQ_ISSUE, t, 40, id,
			FSS_RQ_FLUSH | FSS_RQ_KTHREAD);
		push_rq(FSS_EV_RQ_COMPLETE, t += LAG + rnd(3 * LAG), 0, id,
			FSS_RQ_FLUSH);
		break;
	}
	return t + 1 + rnd(400);
}

static int ev_cmp(const void *x, const void *y)
{
	const struct item *a = x, *b = y;
	__u64 ta = a->ev.type == FSS_EV_SYNC ? a->ev.ts_end : a->ev.ts;
	__u64 tb = b->ev.type == FSS_EV_SYNC ? b->ev.ts_end : b->ev.ts;

	return ta < tb ? -1 : ta > tb;
}

/* A random schedule: request lives on NIDS ids, syncs of two threads. */
static void gen(unsigned int seed, __u64 *end)
{
	rnd_state = seed;
	nstream = 0;
	*end = 0;
	for (int i = 0; i < NIDS; i++) {
		__u64 t = 1000 + rnd(2000), id = 0xffff888800001000ULL + i * 512;

		for (int k = 0; k < 12; k++)
			t = gen_life(id, t, 100 + rnd(2));
		/* the last one: issued, never completed */
		if (rnd(2))
			push_rq(FSS_EV_RQ_ISSUE, t, 100, id, FSS_RQ_WRITE);
		if (t > *end)
			*end = t;
	}
	for (__u32 tid = 100; tid < 102; tid++)
		for (__u64 t = 500 + rnd(500); t < *end;) {
			struct fss_event s = { .type = FSS_EV_SYNC, .tid = tid,
				.pid = tid, .dev = FS_DEV, .ts = t };

			s.ts_end = t + 200 + rnd(9000);
			s.sync.kind = FSS_SYNC_FDATASYNC;
			if (nstream < MAXEV)
				stream[nstream++].ev = s;
			t = s.ts_end + 1 + rnd(800);
		}
	qsort(stream, nstream, sizeof(stream[0]), ev_cmp);
}

/* The BPF side's folding (fold_add, fold_done) over the stream. */
struct ref_map {
	struct fss_rq_fold_event e[NIDS * 2];
	bool used[NIDS * 2];
};

static struct fss_rq_fold_event *ref_find(struct ref_map *m, __u64 id)
{
	for (int i = 0; i < NIDS * 2; i++)
		if (m->used[i] && m->e[i].id == id)
			return &m->e[i];
	return NULL;
}

/* Folded arrivals: a record, or an event sent alone. */
struct arrival {
	bool rec;
	__u64 at;
	struct fss_rq_fold_event f;
	struct fss_event ev;
};

static struct arrival arr[MAXEV];
static int narr;
static bool arr_off;	/* fold_ref only rebuilds a map: nothing arrives */

static void arrive(const struct arrival *a)
{
	if (!arr_off && narr < MAXEV)
		arr[narr++] = *a;
}

static void send_rec(const struct fss_rq_fold_event *f, __u64 at)
{
	arrive(&(struct arrival){ .rec = true, .at = at, .f = *f });
}

static void fold_ref(struct ref_map *m, const struct fss_event *ev)
{
	struct fss_rq_fold_event *f;
	bool create = ev->type == FSS_EV_RQ_START ||
		      ev->type == FSS_EV_RQ_ISSUE;
	struct fss_fold_slot s = { .ts = ev->ts, .sector = ev->rq.sector,
		.type = ev->type, .tid = ev->tid, .bytes = ev->rq.bytes,
		.flags = ev->rq.flags | ev->rq.nvme_opcode };
	__u64 at = ev->type == FSS_EV_NVME_SETUP ? ev->ts + 1 : ev->ts;

	if (ev->type == FSS_EV_SYNC) {
		arrive(&(struct arrival){ .at = ev->ts_end, .ev = *ev });
		return;
	}
	f = ref_find(m, ev->rq.id);
	if (!f && create) {
		for (int i = 0; i < NIDS * 2 && !f; i++)
			if (!m->used[i]) {
				m->used[i] = true;
				f = &m->e[i];
				memset(f, 0, sizeof(*f));
				f->type = FSS_EV_RQ_FOLD;
				f->id = ev->rq.id;
				f->dev = ev->dev;
			}
	} else if (f && (f->n >= FSS_FOLD_SLOTS ||
		   (ev->type == FSS_EV_RQ_START &&
		    (ev->rq.flags & FSS_RQ_CREATE)))) {
		send_rec(f, at);
		f->n = 0;
	}
	if (!f) {
		arrive(&(struct arrival){ .at = at, .ev = *ev });
		return;
	}
	f->ev[f->n++] = s;
	if (ev->type == FSS_EV_RQ_COMPLETE) {
		send_rec(f, at);
		m->used[f - m->e] = false;
	}
}

struct results {
	struct fss_sync_result r[512];
	int n;
};

static void collect(const struct fss_sync_result *r, void *arg)
{
	struct results *res = arg;

	if (res->n < 512)
		res->r[res->n++] = *r;
}

static __u32 disk_of(__u32 fs_dev, void *arg)
{
	return fs_dev == FS_DEV ? DISK : 0;
}

static void emit(const struct fss_event *ev, void *arg)
{
	CHECK_EQ(fss_attr_add(arg, ev), 0);
}

static int total_snaps, total_polls;

/* One schedule, both ways; 1 when every sync was painted the same. */
static int compare_one(unsigned int seed)
{
	static struct results ra, rb;
	struct fss_attr_opts o = { .disk_of = disk_of };
	struct fss_attr *a = fss_attr_new(&o), *b = fss_attr_new(&o);
	struct fss_fold *fo = fss_fold_new();
	struct ref_map m = { 0 };
	struct fss_flush_stats sa, sb;
	struct fss_event evs[FSS_FOLD_MAX_EVENTS];
	int ia = 0, ib = 0, same = 1, snaps = 0, polls = 0;
	__u64 end;

	gen(seed, &end);
	ra.n = rb.n = 0;
	narr = 0;
	for (int i = 0; i < nstream; i++)
		fold_ref(&m, &stream[i].ev);
	for (__u64 p = POLL; p < end + 4 * LAG; p += POLL) {
		/* per event: everything recorded up to p */
		for (; ia < nstream; ia++) {
			const struct fss_event *e = &stream[ia].ev;

			if ((e->type == FSS_EV_SYNC ? e->ts_end : e->ts) > p)
				break;
			CHECK_EQ(fss_attr_add(a, e), 0);
		}
		fss_attr_drain(a, p - LAG, collect, &ra);
		/* folded: what arrived up to p, then the map's old entries */
		fss_fold_arm(fo, p - LAG, p);
		for (; ib < narr && arr[ib].at <= p; ib++) {
			if (!arr[ib].rec) {
				CHECK_EQ(fss_attr_add(b, &arr[ib].ev), 0);
				continue;
			}
			int n = fss_fold_unfold(&arr[ib].f,
				fss_fold_arrived(fo, &arr[ib].f), evs);
			for (int k = 0; k < n; k++)
				CHECK_EQ(fss_attr_add(b, &evs[k]), 0);
		}
		/* the map as it was at p: slots recorded up to p */
		struct ref_map at = { 0 };
		struct fss_rq_fold_event live[NIDS * 2];
		size_t nlive = 0;
		arr_off = true;
		for (int j = 0; j < nstream; j++) {
			const struct fss_event *e = &stream[j].ev;
			if ((e->type == FSS_EV_SYNC ? e->ts_end : e->ts) > p)
				break;
			fold_ref(&at, e);
		}
		arr_off = false;
		for (int j = 0; j < NIDS * 2; j++)
			if (at.used[j] && at.e[j].n)
				live[nlive++] = at.e[j];
		/* read only when an entry can be old enough */
		if (fss_fold_due(fo)) {
			fss_fold__snap_set(fo, live, nlive);
			snaps++;
		}
		polls++;
		fss_fold_inject(fo, emit, b);
		fss_attr_drain(b, p - LAG, collect, &rb);
	}
	fss_attr_drain(a, UINT64_MAX, collect, &ra);
	fss_attr_drain(b, UINT64_MAX, collect, &rb);
	CHECK(ra.n == rb.n && ra.n > 5, "seed %u: %d syncs vs %d", seed,
	      ra.n, rb.n);
	for (int i = 0; i < ra.n && i < rb.n; i++) {
		const struct fss_sync_result *x = &ra.r[i], *y = &rb.r[i];

		if (memcmp(x->phase_ns, y->phase_ns, sizeof(x->phase_ns)) ||
		    x->start != y->start || x->nr_rq != y->nr_rq ||
		    x->nr_incomplete != y->nr_incomplete ||
		    x->nr_flush != y->nr_flush || x->nr_fua != y->nr_fua ||
		    x->nr_preflush != y->nr_preflush) {
			same = 0;
			CHECK(0, "seed %u: sync %d (tid %u, %llu) painted "
			      "differently", seed, i, x->tid,
			      (unsigned long long)x->start);
		}
	}
	fss_attr_flush_stats(a, &sa);
	fss_attr_flush_stats(b, &sb);
	CHECK(!memcmp(&sa, &sb, sizeof(sa)), "seed %u: flush stats differ",
	      seed);
	/* the map is not read at every poll */
	CHECK(snaps < polls, "seed %u: %d snapshots in %d polls", seed, snaps,
	      polls);
	total_snaps += snaps;
	total_polls += polls;
	fss_attr_free(a);
	fss_attr_free(b);
	fss_fold_free(fo);
	return same;
}

static void test_random_schedules(void)
{
	int same = 0;

	narr = 0;
	for (unsigned int seed = 1; seed <= 200; seed++)
		same += compare_one(seed);
	CHECK_EQ(same, 200);
	printf("# map read at %d of %d polls\n", total_snaps, total_polls);
}

static const struct tap_case cases[] = {
	{ "unfold_exact", test_unfold_exact },
	{ "read", test_read },
	{ "random_schedules", test_random_schedules },
};

TAP_MAIN(cases)
