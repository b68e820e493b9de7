// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * stats.c - bootstrap intervals over histograms (stats.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lib/stats.h"

uint64_t fss_rand_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

double fss_rand_unit(uint64_t *s)
{
	/* 53 random bits, never 0 */
	return ((double)(fss_rand_next(s) >> 11) + 0.5) / 9007199254740992.0;
}

/*
 * Small means: multiply uniforms until below e^-lambda (Knuth).  Large
 * means: Hörmann's transformed rejection with squeeze (PTRS, 1993).
 */
uint64_t fss_rand_poisson(uint64_t *s, double lam)
{
	if (lam <= 0)
		return 0;
	if (lam < 10) {
		double l = exp(-lam), p = 1.0;
		uint64_t k = 0;

		for (;;) {
			p *= fss_rand_unit(s);
			if (p <= l)
				return k;
			k++;
		}
	}
	double slam = sqrt(lam), loglam = log(lam);
	double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
	double invalpha = 1.1239 + 1.1328 / (b - 3.4);
	double vr = 0.9277 - 3.6224 / (b - 2);

	for (;;) {
		double u = fss_rand_unit(s) - 0.5, v = fss_rand_unit(s);
		double us = 0.5 - fabs(u);
		double k = floor((2 * a / us + b) * u + lam + 0.43);

		if (us >= 0.07 && v <= vr)
			return (uint64_t)k;
		if (k < 0 || (us < 0.013 && v > us))
			continue;
		if (log(v) + log(invalpha) - log(a / (us * us) + b) <=
		    -lam + k * loglam - lgamma(k + 1))
			return (uint64_t)k;
	}
}

/* The non-empty buckets of a histogram: midpoints and counts. */
struct compact {
	double *mid;
	double *cnt;
	unsigned int n;
	double total;
};

static int compact_make(const struct fss_hist *h, struct compact *c)
{
	unsigned int i, k = 0;

	for (i = 0; i < FSS_HIST_NB; i++)
		k += h->b[i] != 0;
	c->mid = malloc((k + 1) * sizeof(double));
	c->cnt = malloc((k + 1) * sizeof(double));
	if (!c->mid || !c->cnt)
		return -1;
	c->n = 0;
	c->total = 0;
	for (i = 0; i < FSS_HIST_NB; i++) {
		double lo, hi;

		if (!h->b[i])
			continue;
		lo = (double)fss_hist_lo(i);
		hi = i == FSS_HIST_NB - 1 ? (double)h->max : (double)fss_hist_hi(i);
		c->mid[c->n] = (lo + hi) / 2;
		c->cnt[c->n++] = (double)h->b[i];
		c->total += (double)h->b[i];
	}
	return 0;
}

static void compact_free(struct compact *c)
{
	free(c->mid);
	free(c->cnt);
}

/* The statistic of counts w over c's midpoints; NAN if all are 0. */
static double stat_of(const struct compact *c, const double *w, double q)
{
	double tot = 0, acc = 0, rank;
	unsigned int i;

	for (i = 0; i < c->n; i++)
		tot += w[i];
	if (tot <= 0)
		return NAN;
	if (q <= 0) {
		for (i = 0; i < c->n; i++)
			acc += w[i] * c->mid[i];
		return acc / tot;
	}
	rank = ceil(q * tot);
	for (i = 0; i < c->n; i++) {
		acc += w[i];
		if (acc >= rank)
			return c->mid[i];
	}
	return c->mid[c->n - 1];
}

static double resample(const struct compact *c, double *w, double q,
		       uint64_t *seed)
{
	unsigned int i;

	for (i = 0; i < c->n; i++)
		w[i] = (double)fss_rand_poisson(seed, c->cnt[i]);
	return stat_of(c, w, q);
}

static int dbl_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

int fss_change_compute(const struct fss_hist *a, const struct fss_hist *b,
		       double q, int resamples, uint64_t seed, double min_rel,
		       double min_abs_ns, struct fss_change *out)
{
	struct compact ca = { 0 }, cb = { 0 };
	double *wa = NULL, *wb = NULL, *d = NULL, floor_ns;
	int i, nd = 0, rc = -1;

	memset(out, 0, sizeof(*out));
	if (!a->count || !b->count || resamples < 10)
		return -1;
	if (compact_make(a, &ca) || compact_make(b, &cb))
		goto out;
	wa = malloc((ca.n + 1) * sizeof(double));
	wb = malloc((cb.n + 1) * sizeof(double));
	d = malloc((size_t)resamples * sizeof(double));
	if (!wa || !wb || !d)
		goto out;
	out->a = q > 0 ? fss_hist_quantile_ns(a, q) : fss_hist_mean_ns(a);
	out->b = q > 0 ? fss_hist_quantile_ns(b, q) : fss_hist_mean_ns(b);
	out->diff = out->b - out->a;
	for (i = 0; i < resamples; i++) {
		double sa = resample(&ca, wa, q, &seed);
		double sb = resample(&cb, wb, q, &seed);

		if (!isnan(sa) && !isnan(sb))
			d[nd++] = sb - sa;
	}
	if (nd < 10)
		goto out;
	qsort(d, (size_t)nd, sizeof(double), dbl_cmp);
	/* percentile interval, nearest rank */
	out->lo = d[(int)floor(0.025 * (nd - 1) + 0.5)];
	out->hi = d[(int)floor(0.975 * (nd - 1) + 0.5)];
	floor_ns = fmax(min_rel * out->a, min_abs_ns);
	out->word = out->lo > floor_ns ? 1 : out->hi < -floor_ns ? -1 : 0;
	rc = 0;
out:
	compact_free(&ca);
	compact_free(&cb);
	free(wa);
	free(wb);
	free(d);
	return rc;
}
