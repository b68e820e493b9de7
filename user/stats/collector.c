// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * report.c - aggregate attributed syncs into a breakdown and print it.
 *
 * Percentiles are nearest-rank over the integer nanosecond values of the
 * syncs: pN is the smallest value v such that at least N% of the syncs have
 * a value <= v, i.e. the ceil(N * n / 100)-th smallest.  No interpolation,
 * so every percentile is a value that some sync really had.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "doc/doc.h"
#include "lib/fmt.h"
#include "stats/collector.h"
#include "stats/summ.h"
#include "lib/comm.h"
#include "doc/blame_json.h"
#include "lib/cgpath.h"
#include "lib/order_ci.h"
#include "lib/pctl.h"


/*
 * What the breakdown needs of each sync, kept for percentiles: 64 bytes
 * instead of a whole struct fss_sync_result (~150), since a long run at
 * tens of thousands of syncs a second keeps millions of them.
 */
struct coll_rec {
	__u64 total;
	__u64 phase_ns[FSS_PH_MAX];
	__u32 nr_incomplete;
	__u32 kind;
};

#define COLL_BLAMED	32	/* other processes remembered per test */

struct fss_collector {
	struct coll_rec *v;
	size_t n, cap;
	struct fss_hist hist[FSS_COLL_NHIST];	/* total, then each phase */
	struct fss_blame_sum blame;		/* top[] unused: see others */
	struct {
		__u32 pid;
		__u64 cgroup_id;
		char comm[FSS_COMM_LEN];
		__u64 ns;
		bool kthread;
	} others[COLL_BLAMED];
	unsigned int nothers;
};

/* The time other processes caused in this sync, by process. */
static void coll_blame_add(struct fss_collector *c,
			   const struct fss_sync_result *res)
{
	const struct fss_blame_list *l = res->blame;

	c->blame.syncs++;
	c->blame.self_ns += l->self_ns;
	c->blame.others_ns += l->others_ns;
	c->blame.unattributed_ns += l->unattributed_ns;
	for (size_t i = 0; i < l->n; i++) {
		const struct fss_blame_entry *x = &l->e[i];
		unsigned int k;

		if (x->reason || x->self)
			continue;
		for (k = 0; k < c->nothers; k++)
			if (c->others[k].pid == x->pid &&
			    c->others[k].cgroup_id == x->cgroup_id)
				break;
		if (k == c->nothers) {
			if (k == COLL_BLAMED)
				continue;	/* in others_ns, not listed */
			c->nothers++;
			c->others[k].pid = x->pid;
			c->others[k].cgroup_id = x->cgroup_id;
			c->others[k].ns = 0;
			c->others[k].kthread = false;
			memcpy(c->others[k].comm, x->comm, FSS_COMM_LEN);
		}
		c->others[k].ns += x->blamed_ns;
		/* its own I/O, not writeback credited to a dirtier */
		if ((x->flags & FSS_BL_KTHREAD) && !(x->flags & FSS_BL_OWNER))
			c->others[k].kthread = true;
	}
}

/* The FSS_BLAME_TOP other processes that caused the most. */
static void coll_blame_sum(const struct fss_collector *c,
			   struct fss_blame_sum *out)
{
	bool used[COLL_BLAMED] = { false };

	*out = c->blame;
	out->ntop = 0;
	while (out->ntop < FSS_BLAME_TOP) {
		int best = -1;

		for (unsigned int k = 0; k < c->nothers; k++)
			if (!used[k] && c->others[k].ns &&
			    (best < 0 || c->others[k].ns > c->others[best].ns))
				best = k;
		if (best < 0)
			break;
		used[best] = true;
		out->top[out->ntop].pid = c->others[best].pid;
		out->top[out->ntop].cgroup_id = c->others[best].cgroup_id;
		out->top[out->ntop].ns = c->others[best].ns;
		out->top[out->ntop].kthread = c->others[best].kthread;
		memcpy(out->top[out->ntop].comm, c->others[best].comm,
		       FSS_COMM_LEN);
		out->ntop++;
	}
}

static void coll_hist_init(struct fss_collector *c)
{
	int i;

	for (i = 0; i < FSS_COLL_NHIST; i++)
		fss_hist_init(&c->hist[i]);
}

struct fss_collector *fss_collector_new(void)
{
	struct fss_collector *c = calloc(1, sizeof(struct fss_collector));

	if (c)
		coll_hist_init(c);
	return c;
}

void fss_collector_free(struct fss_collector *c)
{
	if (!c)
		return;
	free(c->v);
	free(c);
}

void fss_collector_reset(struct fss_collector *c)
{
	if (!c)
		return;
	c->n = 0;
	coll_hist_init(c);
	memset(&c->blame, 0, sizeof(c->blame));
	c->nothers = 0;
}

void fss_collector_add(const struct fss_sync_result *res, void *arg)
{
	struct fss_collector *c = arg;

	if (!c || !res)
		return;
	struct coll_rec *r;

	if (c->n == c->cap) {
		/* grow by half: less slack than doubling on long runs */
		size_t nc = c->cap ? c->cap + c->cap / 2 : 4096;
		struct coll_rec *p = realloc(c->v, nc * sizeof(*p));

		if (!p)
			return;	/* out of memory: this sync is not counted */
		c->v = p;
		c->cap = nc;
	}
	r = &c->v[c->n++];
	r->total = res->total;
	memcpy(r->phase_ns, res->phase_ns, sizeof(r->phase_ns));
	r->nr_incomplete = res->nr_incomplete;
	r->kind = res->kind;
	if (res->blame)
		coll_blame_add(c, res);
	fss_hist_add(&c->hist[0], res->total);
	for (int ph = 0; ph < FSS_PH_MAX; ph++)
		fss_hist_add(&c->hist[1 + ph], res->phase_ns[ph]);
}

const struct fss_hist *fss_collector_hist(const struct fss_collector *c, int i)
{
	return c && i >= 0 && i < FSS_COLL_NHIST ? &c->hist[i] : NULL;
}

__u64 fss_collector_count(const struct fss_collector *c)
{
	return c ? c->n : 0;
}

/* Ranks (1-based) of the p50 confidence interval; 0 / n + 1: unbounded. */
struct ci_ranks {
	size_t lo, hi;
	bool ok;
};

/* The p50 interval of sorted v[0..n) from the ranks, in us. */
static void p50_ci(const __u64 *v, size_t n, const struct ci_ranks *r,
		   double *lo, double *hi)
{
	*lo = *hi = NAN;
	if (!r->ok)
		return;
	*lo = r->lo >= 1 ? (double)v[r->lo - 1] / 1000.0 : 0.0;
	*hi = r->hi <= n ? (double)v[r->hi - 1] / 1000.0 : INFINITY;
}

/* Fill mean/p50/p99 (us) of vals; sorts vals; returns their sum. */
static __u64 summarize(__u64 *vals, size_t n, double *mean, double *p50,
		       double *p99)
{
	__u64 sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += vals[i];
	fss_pctl_sort(vals, n);
	*mean = (double)sum / (double)n / 1000.0;
	*p50 = (double)fss_pctl_rank(vals, n, 50, 100) / 1000.0;
	*p99 = (double)fss_pctl_rank(vals, n, 99, 100) / 1000.0;
	return sum;
}

void fss_collector_breakdown(const struct fss_collector *c,
			     const struct fss_flush_stats *flush, __u64 drops,
			     struct fss_breakdown *out)
{
	size_t n = c ? c->n : 0, i;
	struct ci_ranks ranks = { 0 };
	__u64 sum_total, *vals;
	int ph;

	if (!out)
		return;
	memset(out, 0, sizeof(*out));
	if (flush)
		out->flush = *flush;
	out->drops = drops;
	for (ph = 0; ph < FSS_PH_MAX; ph++) {
		out->phase[ph].mean_us = NAN;
		out->phase[ph].p50_us = NAN;
		out->phase[ph].p99_us = NAN;
		out->phase[ph].share = NAN;
		out->phase[ph].p50_lo_us = NAN;
		out->phase[ph].p50_hi_us = NAN;
	}
	out->total_mean_us = out->total_p50_us = out->total_p99_us = NAN;
	if (!n)
		return;

	out->syncs = n;
	coll_blame_sum(c, &out->blame);
	for (i = 0; i < n; i++) {
		const struct coll_rec *r = &c->v[i];

		if (r->kind < FSS_SYNC_KIND_MAX)
			out->syncs_by_kind[r->kind]++;
		out->incomplete_rqs += r->nr_incomplete;
		if (r->nr_incomplete)
			out->syncs_incomplete++;
	}
	/* one request painted into several syncs is one request */
	if (flush)
		out->incomplete_rqs = flush->incomplete;

	vals = malloc(n * sizeof(*vals));
	if (!vals) {
		/* leave the statistics as "not known" rather than invent them */
		return;
	}
	for (i = 0; i < n; i++)
		vals[i] = c->v[i].total;
	sum_total = summarize(vals, n, &out->total_mean_us,
			      &out->total_p50_us, &out->total_p99_us);
	/* the same n for every phase: the ranks once */
	ranks.ok = !fss_quantile_ci_ranks(n, 0.5, FSS_CI_LEVEL, &ranks.lo,
					  &ranks.hi);
	for (ph = 0; ph < FSS_PH_MAX; ph++) {
		struct fss_phase_stat *st = &out->phase[ph];
		__u64 sum;

		for (i = 0; i < n; i++)
			vals[i] = c->v[i].phase_ns[ph];
		sum = summarize(vals, n, &st->mean_us, &st->p50_us, &st->p99_us);
		p50_ci(vals, n, &ranks, &st->p50_lo_us, &st->p50_hi_us);
		/* all syncs of zero length: there is nothing to share */
		st->share = sum_total ? (double)sum / (double)sum_total : NAN;
	}
	free(vals);
}

/* ---- JSON ---- */

/* "breakdown_total": the traced syncs' total, as the breakdown's last row */
static struct json_object *total_json(const struct fss_breakdown *b)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "mean_us", fss_json_num(b->total_mean_us, 3));
	json_object_object_add(o, "p50_us", fss_json_num(b->total_p50_us, 3));
	json_object_object_add(o, "p99_us", fss_json_num(b->total_p99_us, 3));
	return o;
}

/* "syncs_by_kind": {"fdatasync": N, ...}, the kinds traced */
static struct json_object *kinds_json(const struct fss_breakdown *b)
{
	struct json_object *o = json_object_new_object();

	for (int k = 0; k < FSS_SYNC_KIND_MAX; k++)
		if (b->syncs_by_kind[k])
			json_object_object_add(o, fss_sync_kind_name(k),
					       json_object_new_uint64(b->syncs_by_kind[k]));
	return o;
}

void fss_breakdown_add_json(struct json_object *o, const struct fss_breakdown *b)
{
	json_object_object_add(o, "breakdown", fss_breakdown_phases_json(b));
	json_object_object_add(o, "flush", fss_breakdown_flush_json(b));
	json_object_object_add(o, "syncs_traced", json_object_new_int64((int64_t)b->syncs));
	json_object_object_add(o, "drops", json_object_new_int64((int64_t)b->drops));
	json_object_object_add(o, "painter", json_object_new_string(
			       b->kernel_painted ? "kernel" : "user"));
	json_object_object_add(o, "incomplete_rqs",
			       fss_rq_count_json(b->kernel_painted, b->incomplete_rqs));
	json_object_object_add(o, "syncs_incomplete",
			       fss_rq_count_json(b->kernel_painted, b->syncs_incomplete));
	json_object_object_add(o, "breakdown_total", total_json(b));
	json_object_object_add(o, "syncs_by_kind", kinds_json(b));
	if (b->has_summ) {
		json_object_object_add(o, "syncs_summarized",
			json_object_new_uint64(fss_summ_summarized(b->summ)));
		json_object_object_add(o, "overload", fss_summ_json(b->summ));
	}
}

struct json_object *fss_breakdown_phases_json(const struct fss_breakdown *b)
{
	struct json_object *o;
	int ph;

	if (!b)
		return NULL;
	o = json_object_new_object();
	if (!o)
		return NULL;
	for (ph = 0; ph < FSS_PH_MAX; ph++) {
		const struct fss_phase_stat *st = &b->phase[ph];
		struct json_object *p = json_object_new_object();
		bool none = !b->syncs ||
			    (ph == FSS_PH_QUEUE && b->no_rq_start) ||
			    (ph == FSS_PH_JOURNAL && b->no_journal);

		if (!p) {
			json_object_put(o);
			return NULL;
		}
		json_object_object_add(p, "mean_us", none ? NULL : fss_json_num(st->mean_us, 3));
		json_object_object_add(p, "p50_us", none ? NULL : fss_json_num(st->p50_us, 3));
		json_object_object_add(p, "p99_us", none ? NULL : fss_json_num(st->p99_us, 3));
		json_object_object_add(p, "share", none ? NULL : fss_json_num(st->share, 4));
		if (ph == FSS_PH_QUEUE && b->no_rq_start)
			json_object_object_add(p, "na", json_object_new_string(
				"requests seen only from issue on (no block_io_start tracepoint, no inserts)"));
		if (ph == FSS_PH_JOURNAL && b->no_journal)
			json_object_object_add(p, "na", json_object_new_string(
				"no jbd2 or xfs log tracepoint "
				"was attached; a commit the syncs waited "
				"for is in fs or other"));
		json_object_object_add(o, fss_phase_name(ph), p);
	}
	return o;
}

static struct json_object *json_u64(__u64 v)
{
	return json_object_new_uint64(v);
}

struct json_object *fss_breakdown_flush_json(const struct fss_breakdown *b)
{
	const struct fss_flush_stats *fl;
	struct json_object *o;

	if (!b)
		return NULL;
	fl = &b->flush;
	o = json_object_new_object();
	if (!o)
		return NULL;
	json_object_object_add(o, "flushes", json_u64(fl->flushes));
	json_object_object_add(o, "syncs_per_flush", fl->flushes ?
		fss_json_num((double)fl->flush_sync_refs / (double)fl->flushes, 3) : NULL);
	json_object_object_add(o, "flushes_per_sync", b->syncs ?
		fss_json_num((double)fl->flushes / (double)b->syncs, 3) : NULL);
	json_object_object_add(o, "fua_writes", json_u64(fl->fua_writes));
	json_object_object_add(o, "fua_emulated", b->no_rq_start ? NULL : json_u64(fl->fua_emulated));
	json_object_object_add(o, "preflush", b->no_rq_start ? NULL : json_u64(fl->preflush));
	json_object_object_add(o, "syncs_no_flush", json_u64(fl->syncs_no_flush));
	/*
	 * Whether the missing flushes were elided needs device facts
	 * (write_cache, FUA); this module has none: null until the caller,
	 * which has them, replaces it.
	 */
	json_object_object_add(o, "elided", NULL);
	json_object_object_add(o, "nvme_flush_cmds", json_u64(fl->nvme_flush_cmds));
	return o;
}

/*
 * ,"segments":[[offset_ns,dur_ns,"phase"],...] from the sync's start,
 * covering it exactly; ,"rqs":[...] the requests painted into it;
 * ,"commits":[...] the journal commits it overlapped (absolute
 * CLOCK_MONOTONIC ns).  Numbers and fixed names only: printed directly,
 * it is the hot path of --events.
 */
static void detail_write(FILE *f, const struct fss_sync_result *r)
{
	static const char *const cls[] = { "write", "flush", "fua", "preflush" };
	const struct fss_sync_detail *d = r->detail;
	size_t i;

	fputs(",\"segments\":[", f);
	for (i = 0; i < d->nseg; i++)
		fprintf(f, "%s[%llu,%llu,\"%s\"]", i ? "," : "",
			(unsigned long long)(d->seg[i].from - r->start),
			(unsigned long long)(d->seg[i].to - d->seg[i].from),
			fss_phase_name((enum fss_phase)d->seg[i].phase));
	fputs("],\"rqs\":[", f);
	for (i = 0; i < d->nrq; i++) {
		const struct fss_rq_span *q = &d->rq[i];

		fprintf(f, "%s{\"dev\":\"%u:%u\",\"id\":\"%llx\",\"class\":\"%s\","
			"\"start_ns\":%llu,\"issue_ns\":", i ? "," : "", q->dev >> 20,
			q->dev & 0xfffff, (unsigned long long)q->id,
			q->cls < 4 ? cls[q->cls] : "?", (unsigned long long)q->start);
		if (q->issue)
			fprintf(f, "%llu", (unsigned long long)q->issue);
		else
			fputs("null", f);
		fprintf(f, ",\"end_ns\":%llu,\"completed\":%s}",
			(unsigned long long)q->end, q->completed ? "true" : "false");
	}
	fputs("],\"commits\":[", f);
	for (i = 0; i < d->njnl; i++)
		fprintf(f, "%s{\"dev\":\"%u:%u\",\"start_ns\":%llu,\"end_ns\":%llu}",
			i ? "," : "", d->jnl[i].dev >> 20, d->jnl[i].dev & 0xfffff,
			(unsigned long long)d->jnl[i].first,
			(unsigned long long)d->jnl[i].end);
	fputc(']', f);
}

struct json_object *fss_blame_sum_json(const struct fss_blame_sum *b)
{
	struct json_object *o, *a;
	char comm[FSS_COMM_UTF8_LEN(FSS_COMM_LEN)];

	if (!b->syncs)
		return NULL;
	o = json_object_new_object();
	a = json_object_new_array();
	json_object_object_add(o, "syncs", json_u64(b->syncs));
	json_object_object_add(o, "self_ns", json_u64(b->self_ns));
	json_object_object_add(o, "others_ns", json_u64(b->others_ns));
	json_object_object_add(o, "unattributed_ns", json_u64(b->unattributed_ns));
	for (unsigned int i = 0; i < b->ntop; i++) {
		struct json_object *x = json_object_new_object();
		const char *cg = fss_cgroup_path(b->top[i].cgroup_id, NULL);

		fss_comm_utf8(comm, sizeof(comm), b->top[i].comm, FSS_COMM_LEN);
		json_object_object_add(x, "pid", json_u64(b->top[i].pid));
		json_object_object_add(x, "comm", json_object_new_string(comm));
		json_object_object_add(x, "cgroup_id", b->top[i].cgroup_id ?
				       json_u64(b->top[i].cgroup_id) : NULL);
		json_object_object_add(x, "cgroup", cg ? json_object_new_string(cg) : NULL);
		json_object_object_add(x, "blamed_ns", json_u64(b->top[i].ns));
		json_object_object_add(x, "kernel_thread",
				       json_object_new_boolean(b->top[i].kthread));
		json_object_array_add(a, x);
	}
	json_object_object_add(o, "others", a);
	return o;
}

struct json_object *fss_rq_count_json(bool kernel_painted, __u64 v)
{
	return kernel_painted ? NULL : json_object_new_int64(v);
}

int fss_sync_result_write_json(FILE *f, const char *test, const struct fss_sync_result *r)
{
	char comm[FSS_COMM_UTF8_LEN(FSS_COMM_LEN)], dev[24], key[32];
	bool known, kp = r && r->kernel_painted;
	struct json_object *o;
	const char *s;
	int ph, rc = 0;

	if (!f || !r)
		return -EINVAL;
	o = json_object_new_object();
	if (!o)
		return -ENOMEM;
	fss_comm_utf8(comm, sizeof(comm), r->comm, sizeof(r->comm));
	snprintf(dev, sizeof(dev), "%u:%u", r->dev >> 20, r->dev & 0xfffff);

	json_object_object_add(o, "test", test ? json_object_new_string(test) : NULL);
	json_object_object_add(o, "tid", json_object_new_int64(r->tid));
	json_object_object_add(o, "pid", json_object_new_int64(r->pid));
	json_object_object_add(o, "comm", json_object_new_string(comm));
	json_object_object_add(o, "kind", json_object_new_string(fss_sync_kind_name(r->kind)));
	json_object_object_add(o, "dev", json_object_new_string(dev));
	json_object_object_add(o, "ino", json_u64(r->ino));
	json_object_object_add(o, "start_ns", json_u64(r->start));
	json_object_object_add(o, "total_ns", json_u64(r->total));
	for (ph = 0; ph < FSS_PH_MAX; ph++) {
		snprintf(key, sizeof(key), "%s_ns", fss_phase_name(ph));
		json_object_object_add(o, key, json_u64(r->phase_ns[ph]));
	}
	if (r->kflags & FSS_KP_VALID) {	/* FSYNCSCOPE_KPAINT=1 */
		struct json_object *k = json_object_new_object();

		for (ph = 0; ph < FSS_PH_MAX; ph++) {
			snprintf(key, sizeof(key), "%s_ns", fss_phase_name(ph));
			json_object_object_add(k, key, json_u64(r->kphase_ns[ph]));
		}
		json_object_object_add(k, "flags", json_u64(r->kflags));
		/* its flush facts, as attribution's nr_flush and flush_seen */
		json_object_object_add(k, "nr_flush", json_u64(r->knflush));
		json_object_object_add(k, "flush_class", json_u64(r->kflushy));
		json_object_object_add(o, "kernel_phases", k);
	}
	/* the kernel painted it (--painter kernel): no request was seen */
	json_object_object_add(o, "painter", json_object_new_string(kp ?
			       "kernel" : "user"));
	json_object_object_add(o, "nr_rq", fss_rq_count_json(kp, r->nr_rq));
	json_object_object_add(o, "nr_write", fss_rq_count_json(kp, r->nr_write));
	json_object_object_add(o, "nr_flush", json_object_new_int64(r->nr_flush));
	json_object_object_add(o, "flush_seen", json_object_new_boolean(r->flush_seen));
	/*
	 * PREFLUSH and FUA emulation are known from a request's creation
	 * flags: when none of the sync's own requests was seen created (the
	 * kernel shows them only from issue on), they are unknown, not 0.
	 * Pure flushes are created by the kernel itself and never have a
	 * creation event, so only the non-flush requests are asked.
	 */
	known = !kp && (r->nr_started > 0 || r->nr_rq == r->nr_flush);
	json_object_object_add(o, "creation_seen", kp ? NULL :
			       json_object_new_boolean(known));
	json_object_object_add(o, "nr_preflush", known ? json_object_new_int64(r->nr_preflush) : NULL);
	json_object_object_add(o, "nr_fua", fss_rq_count_json(kp, r->nr_fua));
	json_object_object_add(o, "nr_fua_emulated", known ? json_object_new_int64(r->nr_fua_emulated) : NULL);
	json_object_object_add(o, "nr_incomplete", fss_rq_count_json(kp, r->nr_incomplete));
	json_object_object_add(o, "nr_journal", fss_rq_count_json(kp, r->nr_journal));
	json_object_object_add(o, "device_flush_from_nvme", kp ? NULL :
			       json_object_new_boolean(r->device_flush_from_nvme));
	json_object_object_add(o, "ret", json_object_new_int64(r->ret));
	if (r->blame)
		fss_blame_add_json(o, r->blame, fss_cgroup_path, NULL);

	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!s) {
		rc = -ENOMEM;
	} else if (!r->detail) {
		if (fputs(s, f) == EOF || fputc('\n', f) == EOF)
			rc = -EIO;
	} else {	/* the object without its closing brace, then the detail */
		if (fwrite(s, 1, strlen(s) - 1, f) != strlen(s) - 1)
			rc = -EIO;
		detail_write(f, r);
		if (fputs("}\n", f) == EOF)
			rc = -EIO;
	}
	json_object_put(o);
	return rc;
}
