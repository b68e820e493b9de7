// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * flightrec.c - blame on demand under the kernel painter (docs/blame.md,
 * "What blame covers, by mode").  The kernel sends one record per sync and
 * none per request; it writes each completed request of a traced disk into
 * a ring (the flight recorder, fsyncscope.h fss_fr_rec) that this maps.
 * Only for a sync slow enough (--slower, else above the running p99 of its
 * kind) are the requests written since the last look read back, handed to
 * blame as the records it would have had, and the sync blamed: fast syncs
 * cost the consumer nothing here.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include "engine/tracer/tracer_int.h"

/* fewer syncs of a kind than this seen: every one is blamed */
#define FR_WARMUP	100
/* the running p99 is worked out again after this many syncs of a kind */
#define FR_REFRESH	64
/* gap_ts after a loss, until the next request is read: all is before it */
#define FR_GAP		(~0ull)

int fr_open(struct fss_tracer *t)
{
	struct fss_fr_state *fr = &t->fr;
	size_t len = sizeof(struct fss_fr_rec) * FSS_FR_SLOTS;
	void *p;

	if (!t->skel || !t->skel->rodata->kp_fr)
		return 0;
	p = mmap(NULL, len, PROT_READ, MAP_SHARED,
		 bpf_map__fd(t->skel->maps.fr_ring), 0);
	if (p == MAP_FAILED)
		return -errno;
	fr->ring = p;
	fr->len = len;
	fr->next = t->skel->bss->fr_head;
	return 0;
}

void fr_close(struct fss_tracer *t)
{
	if (t->fr.ring)
		munmap((void *)t->fr.ring, t->fr.len);
	t->fr.ring = NULL;
}

/* Histogram buckets: 8 per power of two (the upper bound within 12.5 %). */
static unsigned int fr_bucket(__u64 v)
{
	unsigned int msb;

	if (v < 8)
		return (unsigned int)v;
	msb = 63 - __builtin_clzll(v);
	return (msb - 2) * 8 + (unsigned int)((v >> (msb - 3)) & 7);
}

static __u64 fr_bucket_top(unsigned int b)
{
	unsigned int msb = b / 8 + 2;

	if (b < 8)
		return b;
	return ((8ull + b % 8 + 1) << (msb - 3)) - 1;
}

/* The running p99 of kind k: the top of the bucket that holds it. */
static void fr_refresh(struct fss_fr_state *fr, unsigned int k)
{
	__u64 want = (fr->n[k] * 99 + 99) / 100, sum = 0;

	for (unsigned int b = 0; b < FSS_FR_BUCKETS; b++) {
		sum += fr->hist[k][b];
		if (sum >= want) {
			fr->p99[k] = fr_bucket_top(b);
			return;
		}
	}
}

/* Is this kernel-painted sync blamed?  Every sync goes in the p99's count. */
static bool fr_wants(struct fss_fr_state *fr, const struct fss_trace_opts *o,
		     const struct fss_sync_result *r)
{
	unsigned int k = r->kind < FSS_SYNC_KIND_MAX ? r->kind : 0;
	unsigned int b = fr_bucket(r->total);

	fr->hist[k][b < FSS_FR_BUCKETS ? b : FSS_FR_BUCKETS - 1]++;
	fr->n[k]++;
	if (o->blame_slower_set)
		return r->total >= o->blame_slower_ns;
	if (fr->n[k] < FR_WARMUP)
		return true;
	if (fr->n[k] == FR_WARMUP || fr->n[k] % FR_REFRESH == 0)
		fr_refresh(fr, k);
	return r->total > fr->p99[k];
}

/* One request, whole, to blame: as its owner, start, issue, completion. */
static void fr_feed(struct fss_tracer *t, const struct fss_fr_rec *x)
{
	struct fss_blame_rq q = { .dev = x->dev, .start = x->start,
		.issue = x->issue, .complete = x->complete, .bytes = x->bytes,
		.rqflags = x->rqflags };
	struct fss_event own;

	if (x->own.pid)
		fss_owner_of(&x->own, x->dev, 0, x->start ? x->start : x->issue,
			     0, &own);
	fss_blame_add_done(t->blame, &q, x->own.pid ? &own : NULL);
}

/*
 * The requests written since the last look, to blame, oldest first.  What
 * the ring no longer holds, or overwrote while it was read, is counted
 * (lost) and the oldest time still held after it kept (gap_ts, FR_GAP
 * until a request is read): a sync that began before it may miss
 * requests.  A slot still being written (seq 0 or behind) ends the look:
 * it is read next time.
 */
static void fr_drain(struct fss_tracer *t)
{
	struct fss_fr_state *fr = &t->fr;
	__u64 head = __atomic_load_n(&t->skel->bss->fr_head, __ATOMIC_ACQUIRE);
	struct fss_fr_rec x;

	if (head - fr->next > FSS_FR_SLOTS) {
		fr->lost += head - FSS_FR_SLOTS - fr->next;
		fr->next = head - FSS_FR_SLOTS;
		fr->gap_ts = FR_GAP;
	}
	for (; fr->next < head; fr->next++) {
		const struct fss_fr_rec *e =
			&fr->ring[fr->next & (FSS_FR_SLOTS - 1)];
		__u64 want = fr->next + 1;

		if (__atomic_load_n(&e->seq, __ATOMIC_ACQUIRE) != want)
			break;
		memcpy(&x, e, sizeof(x));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&e->seq, __ATOMIC_RELAXED) != want) {
			fr->lost++;	/* overwritten while read */
			fr->gap_ts = FR_GAP;
			continue;
		}
		if (fr->gap_ts == FR_GAP)
			fr->gap_ts = x.complete;
		fr_feed(t, &x);
		fr->read++;
	}
}

/*
 * A sync the kernel painted, about to be handed on: blamed when it is slow
 * enough, from the flight recorder (r->blame set), else left without.
 */
void fr_blame(struct fss_tracer *t, struct fss_sync_result *r)
{
	struct fss_fr_state *fr = &t->fr;

	if (!fr->ring || !t->blame || !fr_wants(fr, &t->opts, r))
		return;
	fr_drain(t);
	if (r->start < fr->gap_ts)
		fr->partial++;
	if (fss_blame_sync(t->blame, r, &t->blame_list))
		return;
	r->blame = &t->blame_list;
	fr->blamed++;
}

/* -v and at exit: what the flight recorder did, and what blame missed. */
void fr_warn(const struct fss_tracer *t)
{
	const struct fss_fr_state *fr = &t->fr;

	if (!fr->ring)
		return;
	if (t->opts.verbose)
		fprintf(stderr, "fsyncscope: flight recorder: %llu syncs "
			"blamed on demand, %llu requests read back\n",
			(unsigned long long)fr->blamed,
			(unsigned long long)fr->read);
	if (fr->partial)
		fprintf(stderr, "fsyncscope: blame: %llu slow syncs began "
			"before the oldest request the flight recorder still "
			"held (%llu requests overwritten unread): their blame "
			"is partial\n", (unsigned long long)fr->partial,
			(unsigned long long)fr->lost);
}
