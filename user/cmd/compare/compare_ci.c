// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * compare_ci.c - `compare --repeat`: every round's values of each workload
 * on each filesystem, and for every ratio to the first filesystem a 95 %
 * interval and a word (docs/compare.md "Confidence").  Two sources, both
 * from lib/stats.c: the rounds (paired, round k of both filesystems ran
 * side by side: the delta method with Student's t) and the Poisson
 * bootstrap over the histograms of all rounds.  The interval printed is
 * the envelope of the two, so a ratio is called faster or slower only
 * when neither the spread between rounds nor the sampling noise within
 * them reaches back to 1.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "cmd/compare/compare_int.h"
#include "doc/doc.h"
#include "lib/stats.h"

#define jnum		fss_json_num
#define RESAMPLES	1000
#define SEED		1
#define MIN_REL		0.02	/* the histograms' resolution (stats.h) */
#define MIN_ABS_US	1.0	/* a phase moving by less is noise */

enum cmp_metric { M_OPS, M_P50, M_P99, M_TOTAL, M_PHASE };

void cmp_rounds_record(struct cmp_fs_run *r, struct fss_run_test *tests,
		       int nwl, int k)
{
	for (int w = 0; w < nwl && r->rounds && k < CMP_MAX_REPEAT; w++) {
		struct cmp_rounds *c = &r->rounds[w];
		struct fss_run_test *t = &tests[w];
		bool ok = t->ran && t->res.status == FSS_WL_OK &&
			  !t->res.partial;
		bool traced = ok && t->traced && t->b.syncs > 0 && t->hist;

		if (!c->n) {
			fss_hist_init(&c->op);
			fss_hist_init(&c->tot);
			for (int p = 0; p < FSS_PH_MAX; p++)
				fss_hist_init(&c->ph[p]);
		}
		c->ops[k] = ok ? t->res.ops_per_sec : NAN;
		c->p50[k] = ok ? t->res.lat.p50 : NAN;
		c->p99[k] = ok ? t->res.lat.p99 : NAN;
		c->total[k] = traced ? t->b.total_mean_us : NAN;
		for (int p = 0; p < FSS_PH_MAX; p++)
			c->phase[p][k] = traced ? t->b.phase[p].mean_us : NAN;
		if (ok && t->res.lat_hist)
			fss_hist_merge(&c->op, t->res.lat_hist);
		if (traced) {
			fss_hist_merge(&c->tot, &t->hist[0]);
			for (int p = 0; p < FSS_PH_MAX; p++)
				fss_hist_merge(&c->ph[p], &t->hist[1 + p]);
		}
		c->n = k + 1;
		if (k > 0) {	/* the first round's stay in r->tests */
			free(t->hist);
			t->hist = NULL;
			free(t->res.lat_hist);
			t->res.lat_hist = NULL;
		}
	}
}

static const double *values(const struct cmp_rounds *c, int m, int ph)
{
	switch (m) {
	case M_OPS: return c->ops;
	case M_P50: return c->p50;
	case M_P99: return c->p99;
	case M_TOTAL: return c->total;
	default: return c->phase[ph];
	}
}

static struct json_object *arr(const double *v, int n)
{
	struct json_object *a = json_object_new_array();

	for (int k = 0; k < n; k++)
		json_object_array_add(a, isfinite(v[k]) ? jnum(v[k], 3) : NULL);
	return a;
}

struct json_object *cmp_rounds_json(const struct cmp_fs_run *r, int wi)
{
	const struct cmp_rounds *c;
	struct json_object *o, *ph;

	if (!r->rounds || !r->rounds[wi].n)
		return NULL;
	c = &r->rounds[wi];
	o = json_object_new_object();
	json_object_object_add(o, "ops_per_sec", arr(c->ops, c->n));
	json_object_object_add(o, "p50_us", arr(c->p50, c->n));
	json_object_object_add(o, "p99_us", arr(c->p99, c->n));
	json_object_object_add(o, "total_mean_us", arr(c->total, c->n));
	ph = json_object_new_object();
	for (int p = 0; p < FSS_PH_MAX; p++)
		json_object_object_add(ph, fss_phase_name(p),
				       arr(c->phase[p], c->n));
	json_object_object_add(o, "phases", ph);
	return o;
}

/* One metric over the rounds: mean and 95 % interval; NULL if none ran. */
static struct json_object *spread_one(const double *v, int n)
{
	double ok[CMP_MAX_REPEAT];
	struct fss_mean_ci mc;
	struct json_object *o;
	int m = 0;

	for (int k = 0; k < n; k++)
		if (isfinite(v[k]))
			ok[m++] = v[k];
	if (!m)
		return NULL;
	fss_mean_ci(ok, m, &mc);
	o = json_object_new_object();
	json_object_object_add(o, "mean", jnum(mc.mean, 3));
	json_object_object_add(o, "lo", isfinite(mc.lo) ? jnum(mc.lo, 3) : NULL);
	json_object_object_add(o, "hi", isfinite(mc.hi) ? jnum(mc.hi, 3) : NULL);
	json_object_object_add(o, "rounds", json_object_new_int(m));
	json_object_object_add(o, "kind", json_object_new_string(
			       mc.geometric ? "geometric" : "arithmetic"));
	return o;
}

/*
 * A filesystem's own ops/s and p99 over its rounds, each with its 95 %
 * interval (Student's t): what the page's summary chart draws.
 */
struct json_object *cmp_spread_json(const struct cmp_fs_run *r, int wi)
{
	const struct cmp_rounds *c;
	struct json_object *o;

	if (!r->rounds || !r->rounds[wi].n)
		return NULL;
	c = &r->rounds[wi];
	o = json_object_new_object();
	json_object_object_add(o, "level", jnum(0.95, 2));
	json_object_object_add(o, "ops_per_sec", spread_one(c->ops, c->n));
	json_object_object_add(o, "p99_us", spread_one(c->p99, c->n));
	return o;
}

/*
 * The bootstrap's interval of the ratio, relative to its own point (the
 * statistic over all rounds' histograms) and put around r, the ratio
 * shown; false when it has none.
 */
static bool boot_ci(const struct cmp_rounds *a, const struct cmp_rounds *b,
		    int m, int ph, double r, double *lo, double *hi)
{
	const struct fss_hist *ha, *hb;
	struct fss_change ch;
	double q, pt;

	switch (m) {
	case M_OPS: ha = &a->op; hb = &b->op; q = 0; break;
	case M_P50: ha = &a->op; hb = &b->op; q = 0.5; break;
	case M_P99: ha = &a->op; hb = &b->op; q = 0.99; break;
	case M_TOTAL: ha = &a->tot; hb = &b->tot; q = 0; break;
	default: ha = &a->ph[ph]; hb = &b->ph[ph]; q = 0; break;
	}
	if (fss_change_compute(ha, hb, q, RESAMPLES, SEED, MIN_REL,
			       MIN_ABS_US * 1000, &ch) ||
	    !isfinite(ch.rlo) || !isfinite(ch.rhi) || !(ch.a > 0) ||
	    !(ch.b > 0) || !(ch.rlo > 0) || !isfinite(r))
		return false;
	pt = ch.b / ch.a;
	if (m == M_OPS) {	/* ops/sec goes as 1 / mean op latency */
		*lo = r * pt / ch.rhi;
		*hi = r * pt / ch.rlo;
	} else {
		*lo = r * ch.rlo / pt;
		*hi = r * ch.rhi / pt;
	}
	return true;
}

static const char *word_of(int m, double lo, double hi, double ma, double mb)
{
	bool up = lo > 1 + MIN_REL, down = hi < 1 - MIN_REL;

	if (m != M_OPS && fabs(mb - ma) < MIN_ABS_US)
		return "within noise";
	if (m == M_OPS)
		return up ? "faster" : down ? "slower" : "within noise";
	return up ? "slower" : down ? "faster" : "within noise";
}

/* One ratio: means, ratio, interval, sources, word; NULL when n/a. */
static struct json_object *ratio_ci(const struct cmp_rounds *a,
				    const struct cmp_rounds *b, int m, int ph)
{
	const double *va = values(a, m, ph), *vb = values(b, m, ph);
	double pa[CMP_MAX_REPEAT], pb[CMP_MAX_REPEAT], lo = INFINITY;
	double hi = -INFINITY, blo, bhi;
	struct json_object *o, *from;
	struct fss_ratio_ci rc;
	int n = 0, nr = a->n < b->n ? a->n : b->n;

	for (int k = 0; k < nr; k++) {
		if (!isfinite(va[k]) || !isfinite(vb[k]))
			continue;
		pa[n] = va[k];
		pb[n++] = vb[k];
	}
	if (!n)
		return NULL;
	from = json_object_new_array();
	if (!fss_ratio_paired(pa, pb, n, &rc)) {
		lo = rc.lo;
		hi = rc.hi;
		json_object_array_add(from, json_object_new_string("rounds"));
	}
	if (boot_ci(a, b, m, ph, rc.ratio, &blo, &bhi)) {
		lo = fmin(lo, blo);
		hi = fmax(hi, bhi);
		json_object_array_add(from, json_object_new_string("bootstrap"));
	}
	o = json_object_new_object();
	json_object_object_add(o, "a", jnum(rc.mean_a, 3));
	json_object_object_add(o, "b", jnum(rc.mean_b, 3));
	json_object_object_add(o, "rounds", json_object_new_int(n));
	json_object_object_add(o, "mean", json_object_new_string(
			       rc.geometric ? "geometric" : "arithmetic"));
	json_object_object_add(o, "ratio", isfinite(rc.ratio) ?
			       jnum(rc.ratio, 4) : NULL);
	if (!isfinite(rc.ratio) || !json_object_array_length(from)) {
		json_object_object_add(o, "lo", NULL);
		json_object_object_add(o, "hi", NULL);
		json_object_object_add(o, "from", from);
		json_object_object_add(o, "word", fabs(rc.mean_b - rc.mean_a) <
				       MIN_ABS_US && m != M_OPS ?
				       json_object_new_string("within noise") :
				       NULL);
		return o;
	}
	json_object_object_add(o, "lo", jnum(lo, 4));
	json_object_object_add(o, "hi", jnum(hi, 4));
	json_object_object_add(o, "from", from);
	json_object_object_add(o, "word", json_object_new_string(
			       word_of(m, lo, hi, rc.mean_a, rc.mean_b)));
	return o;
}

struct json_object *cmp_confidence_json(const struct cmp_fs_run *r,
					const struct cmp_fs_run *base,
					int wi)
{
	const struct cmp_rounds *a, *b;
	struct json_object *o, *ph;

	if (r == base || !r->rounds || !base->rounds)
		return NULL;
	a = &base->rounds[wi];
	b = &r->rounds[wi];
	if (!a->n || !b->n)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "level", jnum(0.95, 2));
	json_object_object_add(o, "ops_per_sec", ratio_ci(a, b, M_OPS, 0));
	json_object_object_add(o, "p50_us", ratio_ci(a, b, M_P50, 0));
	json_object_object_add(o, "p99_us", ratio_ci(a, b, M_P99, 0));
	json_object_object_add(o, "total_mean_us", ratio_ci(a, b, M_TOTAL, 0));
	ph = json_object_new_object();
	for (int p = 0; p < FSS_PH_MAX; p++) {
		bool na = p == FSS_PH_JOURNAL &&
			  (!cmp_fs_defs[r->kind].journal_traced ||
			   !cmp_fs_defs[base->kind].journal_traced);

		json_object_object_add(ph, fss_phase_name(p), na ? NULL :
				       ratio_ci(a, b, M_PHASE, p));
	}
	json_object_object_add(o, "phases", ph);
	return o;
}
