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
	double *wa = NULL, *wb = NULL, *d = NULL, *r = NULL, floor_ns;
	int i, nd = 0, nr = 0, rc = -1;

	memset(out, 0, sizeof(*out));
	if (!a->count || !b->count || resamples < 10)
		return -1;
	if (compact_make(a, &ca) || compact_make(b, &cb))
		goto out;
	wa = malloc((ca.n + 1) * sizeof(double));
	wb = malloc((cb.n + 1) * sizeof(double));
	d = malloc((size_t)resamples * sizeof(double));
	r = malloc((size_t)resamples * sizeof(double));
	if (!wa || !wb || !d || !r)
		goto out;
	out->a = q > 0 ? fss_hist_quantile_ns(a, q) : fss_hist_mean_ns(a);
	out->b = q > 0 ? fss_hist_quantile_ns(b, q) : fss_hist_mean_ns(b);
	out->diff = out->b - out->a;
	for (i = 0; i < resamples; i++) {
		double sa = resample(&ca, wa, q, &seed);
		double sb = resample(&cb, wb, q, &seed);

		if (!isnan(sa) && !isnan(sb))
			d[nd++] = sb - sa;
		if (!isnan(sa) && !isnan(sb) && sa > 0)
			r[nr++] = sb / sa;
	}
	if (nd < 10)
		goto out;
	qsort(d, (size_t)nd, sizeof(double), dbl_cmp);
	/* percentile interval, nearest rank */
	out->lo = d[(int)floor(0.025 * (nd - 1) + 0.5)];
	out->hi = d[(int)floor(0.975 * (nd - 1) + 0.5)];
	floor_ns = fmax(min_rel * out->a, min_abs_ns);
	out->word = out->lo > floor_ns ? 1 : out->hi < -floor_ns ? -1 : 0;
	out->rlo = out->rhi = NAN;
	if (nr >= 10 && nr == nd) {
		qsort(r, (size_t)nr, sizeof(double), dbl_cmp);
		out->rlo = r[(int)floor(0.025 * (nr - 1) + 0.5)];
		out->rhi = r[(int)floor(0.975 * (nr - 1) + 0.5)];
	}
	rc = 0;
out:
	compact_free(&ca);
	compact_free(&cb);
	free(wa);
	free(wb);
	free(d);
	free(r);
	return rc;
}

double fss_t975(int df)
{
	static const double t[] = {
		0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
		2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110,
		2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
		2.052, 2.048, 2.045, 2.042,
	};

	if (df < 1)
		return NAN;
	if (df < (int)(sizeof(t) / sizeof(t[0])))
		return t[df];
	return 1.96 + 2.4 / df;	/* within 0.003 of the exact value */
}

/* All of the n values are > 0 (and finite). */
static bool all_pos(const double *v, int n)
{
	for (int k = 0; k < n; k++)
		if (!(v[k] > 0) || !isfinite(v[k]))
			return false;
	return true;
}

/* Paired ratios on the log scale: geometric means, t interval. */
static int ratio_log(const double *a, const double *b, int n,
		     struct fss_ratio_ci *out)
{
	double la = 0, lb = 0, md = 0, vd = 0, h;

	for (int k = 0; k < n; k++) {
		la += log(a[k]);
		lb += log(b[k]);
	}
	la /= n;
	lb /= n;
	md = lb - la;
	out->mean_a = exp(la);
	out->mean_b = exp(lb);
	out->ratio = exp(md);
	out->geometric = true;
	if (n < 2)
		return -1;
	for (int k = 0; k < n; k++) {
		double d = log(b[k] / a[k]) - md;

		vd += d * d;
	}
	h = fss_t975(n - 1) * sqrt(vd / (n - 1) / n);
	out->lo = exp(md - h);
	out->hi = exp(md + h);
	return 0;
}

/* Arithmetic means, delta method (a value of 0 among them). */
static int ratio_delta(const double *a, const double *b, int n,
		       struct fss_ratio_ci *out)
{
	double ma = 0, mb = 0, va = 0, vb = 0, cab = 0, rel, se;

	for (int k = 0; k < n; k++) {
		ma += a[k];
		mb += b[k];
	}
	ma /= n;
	mb /= n;
	out->mean_a = ma;
	out->mean_b = mb;
	if (!(ma > 0))
		return -1;
	out->ratio = mb / ma;
	if (n < 2)
		return -1;
	for (int k = 0; k < n; k++) {
		va += (a[k] - ma) * (a[k] - ma);
		vb += (b[k] - mb) * (b[k] - mb);
		cab += (a[k] - ma) * (b[k] - mb);
	}
	va /= n - 1;
	vb /= n - 1;
	cab /= n - 1;
	/* Var(mb/ma) ~ (Var b - 2 R Cov + R^2 Var a) / (n ma^2) */
	rel = vb - 2 * out->ratio * cab + out->ratio * out->ratio * va;
	se = sqrt(fmax(rel, 0) / n) / ma;
	out->lo = fmax(out->ratio - fss_t975(n - 1) * se, 0);
	out->hi = out->ratio + fss_t975(n - 1) * se;
	return 0;
}

int fss_ratio_paired(const double *a, const double *b, int n,
		     struct fss_ratio_ci *out)
{
	memset(out, 0, sizeof(*out));
	out->n = n;
	out->ratio = out->lo = out->hi = NAN;
	if (n < 1)
		return -1;
	if (all_pos(a, n) && all_pos(b, n))
		return ratio_log(a, b, n, out);
	return ratio_delta(a, b, n, out);
}

int fss_mean_ci(const double *v, int n, struct fss_mean_ci *out)
{
	double s = 0, ss = 0, m, sd, h;
	bool lg;

	memset(out, 0, sizeof(*out));
	out->n = n;
	out->mean = out->lo = out->hi = NAN;
	if (n < 1)
		return -1;
	lg = all_pos(v, n);
	out->geometric = lg;
	for (int k = 0; k < n; k++)
		s += lg ? log(v[k]) : v[k];
	m = s / n;
	out->mean = lg ? exp(m) : m;
	if (n < 2)
		return -1;
	for (int k = 0; k < n; k++) {
		double d = (lg ? log(v[k]) : v[k]) - m;

		ss += d * d;
	}
	sd = sqrt(ss / (n - 1));
	h = fss_t975(n - 1) * sd / sqrt(n);
	out->lo = lg ? exp(m - h) : m - h;
	out->hi = lg ? exp(m + h) : m + h;
	return 0;
}
