// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * fold.c - folded request records back into events, and the requests in
 * flight handed on in time (see fold.h; the BPF side is fold_add() in
 * bpf/common.bpf.h, the transport is described in docs/hotpath.md "One
 * record per request").
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "engine/tracer/fold.h"

#define FOLD_BATCH	128	/* map entries read per system call */
#define FOLD_INJ_MAX	4096	/* requests partly handed on, at most */
#define FOLD_INJ_KEEP_NS	(60ULL * 1000 * 1000 * 1000)

/* One request life (chunk) by its pointer and its first event's time. */
struct fold_key {
	__u64 id, first;
};

struct fold_inj {
	struct fold_key k;
	unsigned int done;	/* slots handed on */
};

struct fss_fold {
	__u64 horizon, now;
	/*
	 * Every entry in flight began at or after bound (the last snapshot's
	 * oldest, or its poll's clock): until the horizon passes it, no
	 * entry can be old enough to hand on, and the map is not read.
	 */
	__u64 bound;
	bool armed;
	struct fold_inj *inj;
	size_t ninj;
	struct fold_key *seen;	/* old records arrived this poll */
	size_t nseen, cseen;
	/* the last snapshot's entries old enough to hand on */
	struct fss_rq_fold_event *snap;
	size_t nsnap, csnap, inflight;
	__u64 lo;		/* the snapshot being read: its oldest */
	__u64 keys[FOLD_BATCH];
	struct fss_rq_fold_event vals[FOLD_BATCH];
};

int fss_fold_read(const void *data, size_t size,
		  struct fss_rq_fold_event *out)
{
	const size_t head = offsetof(struct fss_rq_fold_event, ev);
	__u32 n;

	if (size < head)
		return -EINVAL;
	memcpy(&n, (const char *)data + offsetof(struct fss_rq_fold_event, n),
	       sizeof(n));
	if (n < 1 || n > FSS_FOLD_SLOTS ||
	    size < head + n * sizeof(struct fss_fold_slot))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	memcpy(out, data, head + n * sizeof(struct fss_fold_slot));
	return 0;
}

static void slot_event(const struct fss_rq_fold_event *f,
		       const struct fss_fold_slot *s, struct fss_event *ev)
{
	bool nvme = s->type == FSS_EV_NVME_SETUP ||
		    s->type == FSS_EV_NVME_COMPLETE;

	memset(ev, 0, sizeof(*ev));
	ev->type = s->type;
	ev->tid = s->tid;
	ev->dev = f->dev;
	ev->ts = s->ts;
	ev->rq.id = f->id;
	ev->rq.sector = s->sector;
	ev->rq.bytes = s->bytes;
	ev->rq.flags = nvme ? 0 : s->flags;
	ev->rq.nvme_opcode = nvme ? s->flags : 0;
}

int fss_fold_unfold(const struct fss_rq_fold_event *f, unsigned int skip,
		    struct fss_event *out)
{
	unsigned int n = f->n < FSS_FOLD_SLOTS ? f->n : FSS_FOLD_SLOTS;
	int k = 0;

	for (unsigned int i = skip; i < n; i++) {
		slot_event(f, &f->ev[i], &out[k++]);
		if (i == 0 && f->owned && f->ev[0].type == FSS_EV_RQ_START)
			fss_owner_of(&f->own, f->dev, f->id, f->ev[0].ts,
				     f->ev[0].bytes, &out[k++]);
	}
	return k;
}

struct fss_fold *fss_fold_new(void)
{
	struct fss_fold *fo = calloc(1, sizeof(*fo));

	if (!fo)
		return NULL;
	fo->inj = calloc(FOLD_INJ_MAX, sizeof(*fo->inj));
	if (!fo->inj) {
		free(fo);
		return NULL;
	}
	return fo;
}

void fss_fold_free(struct fss_fold *fo)
{
	if (!fo)
		return;
	free(fo->inj);
	free(fo->seen);
	free(fo->snap);
	free(fo);
}

void fss_fold_reset(struct fss_fold *fo)
{
	fo->ninj = 0;
	fo->nseen = 0;
	fo->nsnap = 0;
	fo->armed = false;
}

static struct fold_inj *inj_find(struct fss_fold *fo, __u64 id, __u64 first)
{
	for (size_t i = 0; i < fo->ninj; i++)
		if (fo->inj[i].k.id == id && fo->inj[i].k.first == first)
			return &fo->inj[i];
	return NULL;
}

unsigned int fss_fold_arrived(struct fss_fold *fo,
			      const struct fss_rq_fold_event *f)
{
	__u64 first = f->ev[0].ts;
	struct fold_inj *j;
	unsigned int done = 0;

	if (fo->armed && first <= fo->horizon) {
		if (fo->nseen == fo->cseen) {
			size_t nc = fo->cseen ? fo->cseen * 2 : 64;
			struct fold_key *p = realloc(fo->seen, nc * sizeof(*p));

			if (p) {
				fo->seen = p;
				fo->cseen = nc;
			}
		}
		if (fo->nseen < fo->cseen)
			fo->seen[fo->nseen++] =
				(struct fold_key){ f->id, first };
	}
	j = fo->ninj ? inj_find(fo, f->id, first) : NULL;
	if (j) {
		done = j->done;
		*j = fo->inj[--fo->ninj];
	}
	return done;
}

void fss_fold_arm(struct fss_fold *fo, __u64 horizon, __u64 now)
{
	fo->horizon = horizon;
	fo->now = now;
	fo->armed = true;
	fo->nseen = 0;
	fo->nsnap = 0;
}

static int snap_keep(struct fss_fold *fo, const struct fss_rq_fold_event *v)
{
	if (v->n < 1 || v->n > FSS_FOLD_SLOTS || v->ev[0].ts > fo->horizon)
		return 0;
	if (fo->nsnap == fo->csnap) {
		size_t nc = fo->csnap ? fo->csnap * 2 : 64;
		struct fss_rq_fold_event *p;

		p = realloc(fo->snap, nc * sizeof(*p));
		if (!p)
			return -ENOMEM;
		fo->snap = p;
		fo->csnap = nc;
	}
	fo->snap[fo->nsnap++] = *v;
	return 0;
}

bool fss_fold_due(const struct fss_fold *fo)
{
	return fo->horizon >= fo->bound;
}

static void snap_begin(struct fss_fold *fo)
{
	fo->nsnap = 0;
	fo->inflight = 0;
	fo->bound = 0;		/* until this snapshot is whole */
	fo->lo = fo->now;
}

/* One entry of the map: counted, kept if old enough, its age noted. */
static int snap_entry(struct fss_fold *fo, const struct fss_rq_fold_event *v)
{
	if (!v->n)		/* idle, kept for the next request there */
		return 0;
	fo->inflight++;
	if (v->ev[0].ts < fo->lo)
		fo->lo = v->ev[0].ts;
	return snap_keep(fo, v);
}

int fss_fold_snapshot(struct fss_fold *fo, int map_fd)
{
	__u32 in = 0, out = 0;
	bool first = true;
	int err = 0;

	snap_begin(fo);
	for (;;) {
		__u32 count = FOLD_BATCH;

		err = bpf_map_lookup_batch(map_fd, first ? NULL : &in, &out,
					   fo->keys, fo->vals, &count, NULL);
		if (err && errno != ENOENT)
			return -errno;
		for (__u32 i = 0; i < count; i++)
			if (snap_entry(fo, &fo->vals[i]))
				return -ENOMEM;
		if (err) {	/* ENOENT: that was the last batch */
			fo->bound = fo->lo;
			return 0;
		}
		in = out;
		first = false;
	}
}

size_t fss_fold_inflight(const struct fss_fold *fo)
{
	return fo->inflight;
}

static bool seen(const struct fss_fold *fo, __u64 id, __u64 first)
{
	for (size_t i = 0; i < fo->nseen; i++)
		if (fo->seen[i].id == id && fo->seen[i].first == first)
			return true;
	return false;
}

/* Room in the table: forget entries of requests lost long ago. */
static bool inj_room(struct fss_fold *fo)
{
	for (size_t i = 0; fo->ninj == FOLD_INJ_MAX && i < fo->ninj;)
		if (fo->inj[i].k.first + FOLD_INJ_KEEP_NS < fo->horizon)
			fo->inj[i] = fo->inj[--fo->ninj];
		else
			i++;
	return fo->ninj < FOLD_INJ_MAX;
}

void fss_fold_inject(struct fss_fold *fo, fss_fold_emit_fn emit, void *arg)
{
	struct fss_event evs[FSS_FOLD_MAX_EVENTS];

	for (size_t i = 0; i < fo->nsnap; i++) {
		struct fss_rq_fold_event f = fo->snap[i];
		struct fold_inj *j;
		unsigned int k = 0, done;
		int n;

		if (seen(fo, f.id, f.ev[0].ts))
			continue;	/* its record came after all */
		j = inj_find(fo, f.id, f.ev[0].ts);
		done = j ? j->done : 0;
		/* up to the horizon: later slots may be half written */
		while (k < f.n && f.ev[k].ts <= fo->horizon)
			k++;
		if (k <= done)
			continue;
		if (!j) {
			if (!inj_room(fo))
				continue;	/* table full: not handed on */
			j = &fo->inj[fo->ninj++];
			j->k = (struct fold_key){ f.id, f.ev[0].ts };
		}
		f.n = k;
		n = fss_fold_unfold(&f, done, evs);
		j->done = k;
		for (int e = 0; e < n; e++)
			emit(&evs[e], arg);
	}
	fo->armed = false;
	fo->nseen = 0;
	fo->nsnap = 0;
}

/*
 * Test hook (tests/unit/test_fold.c declares it itself; not part of
 * fold.h): a snapshot of a map that held these n entries.
 */
void fss_fold__snap_set(struct fss_fold *fo,
			const struct fss_rq_fold_event *v, size_t n);

void fss_fold__snap_set(struct fss_fold *fo,
			const struct fss_rq_fold_event *v, size_t n)
{
	snap_begin(fo);
	for (size_t i = 0; i < n; i++)
		snap_entry(fo, &v[i]);
	fo->bound = fo->lo;
}
