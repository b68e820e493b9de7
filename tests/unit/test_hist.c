// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * test_hist.c - the histogram (user/lib/hist.c) and the bootstrap (user/lib/stats.c):
 * bucket bounds, quantiles against exact nearest rank, merge, JSON round
 * trip, Poisson draws, and the diff word on synthetic samples.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "lib/hist.h"
#include "lib/stats.h"
#include "tap.h"

static int u64cmp(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

static void bounds(void)
{
	unsigned int i;

	/* every bucket is contiguous with the next, and at most 1/64 wide */
	for (i = 0; i + 1 < FSS_HIST_NB; i++) {
		CHECK(fss_hist_hi(i) + 1 == fss_hist_lo(i + 1), "bucket %u", i);
		CHECK(fss_hist_index(fss_hist_lo(i)) == i, "lo of %u", i);
		CHECK(fss_hist_index(fss_hist_hi(i)) == i, "hi of %u", i);
		if (fss_hist_lo(i) >= 64)
			CHECK((double)(fss_hist_hi(i) - fss_hist_lo(i) + 1) <=
			      (double)fss_hist_lo(i) / 64 + 1e-9, "width of %u", i);
	}
	CHECK(fss_hist_index(0) == 0, "0");
	CHECK(fss_hist_index(~0ULL) == FSS_HIST_NB - 1, "huge");
}

static void quantiles(void)
{
	static __u64 v[100000];
	struct fss_hist *h = fss_hist_new();
	uint64_t seed = 7;
	const double qs[] = { 0.5, 0.9, 0.99, 0.999, 1.0 };
	size_t i, n = sizeof(v) / sizeof(v[0]);

	for (i = 0; i < n; i++) {
		/* log-normal-ish latencies from 10 us to tens of ms */
		double u = fss_rand_unit(&seed), w = fss_rand_unit(&seed);

		v[i] = (__u64)(20000.0 * exp(2.0 * sqrt(-2 * log(u)) * cos(6.2831853 * w) / 3));
		fss_hist_add(h, v[i]);
	}
	qsort(v, n, sizeof(v[0]), u64cmp);
	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		size_t rank = (size_t)ceil(qs[i] * n);
		double exact = (double)v[rank - 1], got = fss_hist_quantile_ns(h, qs[i]);

		CHECK(fabs(got - exact) <= 0.008 * exact + 1, "q %.3f: %.0f vs exact %.0f",
		      qs[i], got, exact);
	}
	CHECK(h->count == n, "count");
	CHECK(h->min == v[0] && h->max == v[n - 1], "min/max");
	free(h);
}

static void merge_and_json(void)
{
	struct fss_hist *a = fss_hist_new(), *b = fss_hist_new(), *all = fss_hist_new();
	struct fss_hist *back = fss_hist_new();
	struct json_object *j;
	uint64_t seed = 3;
	int i;

	for (i = 0; i < 5000; i++) {
		__u64 x = fss_rand_next(&seed) % 10000000;

		fss_hist_add(i % 2 ? a : b, x);
		fss_hist_add(all, x);
	}
	fss_hist_merge(a, b);
	CHECK(!memcmp(a, all, sizeof(*a)), "merge equals adding all");
	j = fss_hist_json(all);
	CHECK(fss_hist_from_json(j, back) == 0, "from json");
	CHECK(!memcmp(back, all, sizeof(*all)), "json round trip");
	/* a bucket count that disagrees with count is refused */
	json_object_object_add(j, "count", json_object_new_uint64(all->count + 1));
	CHECK(fss_hist_from_json(j, back) != 0, "inconsistent count refused");
	json_object_put(j);
	/* empty */
	fss_hist_init(b);
	CHECK(isnan(fss_hist_quantile_ns(b, 0.5)), "empty quantile is NAN");
	free(a);
	free(b);
	free(all);
	free(back);
}

static void sparse(void)
{
	struct fss_hist *d = fss_hist_new(), *back = fss_hist_new();
	struct fss_shist s;
	uint64_t seed = 9;
	int i, chunks = 0;

	fss_shist_init(&s);
	for (i = 0; i < 50000; i++) {
		__u64 x = fss_rand_next(&seed) % 50000000;

		fss_hist_add(d, x);
		CHECK(fss_shist_add(&s, x) == 0, "add");
	}
	fss_shist_add(&s, 0);
	fss_hist_add(d, 0);
	fss_shist_to(&s, back);
	CHECK(!memcmp(back, d, sizeof(*d)), "sparse equals dense");
	CHECK(fss_shist_quantile_ns(&s, 0.99) == fss_hist_quantile_ns(d, 0.99), "q99");
	CHECK(fss_shist_quantile_ns(&s, 0.5) == fss_hist_quantile_ns(d, 0.5), "q50");
	CHECK(fss_shist_quantile_ns(&s, 1.0) == fss_hist_quantile_ns(d, 1.0), "q100");
	CHECK(fss_shist_quantile_ns(&s, 1e-9) == fss_hist_quantile_ns(d, 1e-9), "q0+");
	for (i = 0; i < (int)FSS_HIST_NCHUNK; i++)
		chunks += s.chunk[i] != NULL;
	/* values up to 50 ms touch at most 26 powers of two */
	CHECK(chunks <= 27, "%d chunks allocated", chunks);
	fss_shist_free(&s);
	CHECK(s.count == 0 && !s.chunk[1], "freed");
	free(d);
	free(back);
}

static void poisson(void)
{
	const double lams[] = { 0.5, 4, 30, 1000 };
	uint64_t seed = 11;
	size_t k, i;

	for (k = 0; k < sizeof(lams) / sizeof(lams[0]); k++) {
		double s = 0, s2 = 0, n = 20000;

		for (i = 0; i < n; i++) {
			double x = (double)fss_rand_poisson(&seed, lams[k]);

			s += x;
			s2 += x * x;
		}
		double mean = s / n, var = s2 / n - mean * mean;

		/* mean within 4 standard errors, variance within 10 % */
		CHECK(fabs(mean - lams[k]) < 4 * sqrt(lams[k] / n), "lambda %g: mean %g",
		      lams[k], mean);
		CHECK(fabs(var - lams[k]) < 0.1 * lams[k], "lambda %g: var %g", lams[k], var);
	}
}

static void fill(struct fss_hist *h, double center_ns, int n, uint64_t *seed)
{
	int i;

	fss_hist_init(h);
	for (i = 0; i < n; i++)
		fss_hist_add(h, (__u64)(center_ns * (0.8 + 0.4 * fss_rand_unit(seed))));
}

static void change_words(void)
{
	struct fss_hist *a = fss_hist_new(), *b = fss_hist_new();
	struct fss_change c;
	uint64_t seed = 5;

	/* the same histogram: within noise, interval around 0 */
	fill(a, 200000, 2000, &seed);
	CHECK(fss_change_compute(a, a, 0.5, 1000, 1, 0.02, 5000, &c) == 0, "self");
	CHECK(c.word == 0 && c.lo <= 0 && c.hi >= 0 && c.diff == 0, "self: %d [%g, %g]",
	      c.word, c.lo, c.hi);
	/* 4 ms more: slower, interval excludes 0 */
	fill(b, 4200000, 300, &seed);
	CHECK(fss_change_compute(a, b, 0.5, 1000, 1, 0.02, 5000, &c) == 0, "slower");
	CHECK(c.word == 1 && c.lo > 0, "slower: %d [%g, %g]", c.word, c.lo, c.hi);
	CHECK(fss_change_compute(b, a, 0.99, 1000, 1, 0.02, 5000, &c) == 0, "faster");
	CHECK(c.word == -1 && c.hi < 0, "faster: %d", c.word);
	/* 1 % apart with many samples: below the 2 % floor, within noise */
	fill(a, 200000, 20000, &seed);
	fill(b, 202000, 20000, &seed);
	CHECK(fss_change_compute(a, b, 0.5, 1000, 1, 0.02, 5000, &c) == 0, "1 pct");
	CHECK(c.word == 0, "1 %% change is within noise: %d (%g)", c.word, c.diff);
	/* the same inputs and seed give the same interval */
	{
		struct fss_change d;

		fss_change_compute(a, b, 0.99, 500, 42, 0.02, 5000, &c);
		fss_change_compute(a, b, 0.99, 500, 42, 0.02, 5000, &d);
		CHECK(c.lo == d.lo && c.hi == d.hi, "seeded: deterministic");
	}
	fss_hist_init(b);
	CHECK(fss_change_compute(a, b, 0.5, 1000, 1, 0.02, 5000, &c) != 0, "empty B");
	free(a);
	free(b);
}

static void ratio_paired(void)
{
	static const double a[] = { 100, 200, 150 }, b[] = { 110, 220, 165 };
	static const double c[] = { 300, 100, 200 }, z[] = { 0, 0, 0 };
	static const double ca[] = { 10, 0, 20 }, cb[] = { 5, 0, 10 };
	struct fss_ratio_ci r;

	/* the same 1.1 in every round: drift cancels, a zero-width interval */
	CHECK(fss_ratio_paired(a, b, 3, &r) == 0 && r.geometric, "paired");
	CHECK(fabs(r.ratio - (1.1)) < 1e-9, "r.ratio, 1.1");
	CHECK(fabs(r.lo - 1.1) < 1e-9 && fabs(r.hi - 1.1) < 1e-9,
	      "[%g, %g]", r.lo, r.hi);
	CHECK(fabs(r.mean_a - cbrt(100.0 * 200 * 150)) < 1e-9, "mean_a");
	/* ratios 3, 0.5, 4/3: the geometric mean 1.26, t(2) = 4.303 */
	CHECK(fss_ratio_paired(a, c, 3, &r) == 0, "spread");
	CHECK(fabs(r.ratio - cbrt(3 * 0.5 * 4.0 / 3)) < 1e-9, "ratio");
	CHECK(r.lo < 1 && r.hi > 1 && r.lo > 0, "spread: [%g, %g]", r.lo, r.hi);
	{
		double d[3] = { log(3), log(0.5), log(4.0 / 3) }, m = 0, v = 0;

		for (int k = 0; k < 3; k++)
			m += d[k] / 3;
		for (int k = 0; k < 3; k++)
			v += (d[k] - m) * (d[k] - m) / 2;
		CHECK(fabs(r.hi - exp(m + 4.303 * sqrt(v / 3))) < 1e-6, "hi %g", r.hi);
	}
	/* a 0 among the values: arithmetic means, the delta method */
	CHECK(fss_ratio_paired(ca, cb, 3, &r) == 0 && !r.geometric, "delta");
	CHECK(fabs(r.ratio - (0.5)) < 1e-9, "r.ratio, 0.5");
	CHECK(fabs(r.lo - 0.5) < 1e-9 && fabs(r.hi - 0.5) < 1e-9,
	      "proportional: [%g, %g]", r.lo, r.hi);
	CHECK(fss_ratio_paired(a, z, 3, &r) == 0, "b all 0");
	CHECK(r.ratio == 0 && r.hi == 0, "b all 0: %g [%g, %g]", r.ratio,
	      r.lo, r.hi);
	/* nothing to divide by, one round: no interval */
	CHECK(fss_ratio_paired(z, a, 3, &r) != 0 && isnan(r.ratio), "a all 0");
	CHECK(fss_ratio_paired(a, b, 1, &r) != 0 && fabs(r.ratio - 1.1) < 1e-9,
	      "one round: ratio %g, no interval", r.ratio);
	CHECK(fabs(fss_t975(1) - (12.706)) < 1e-9, "fss_t975(1), 12.706");
	CHECK(fabs(fss_t975(60) - 2.000) < 0.003, "t(60) %g", fss_t975(60));
}

static void mean_ci(void)
{
	static const double a[] = { 100, 400, 200 }, s[] = { 5, 5, 5 };
	static const double z[] = { 0, 2, 4 };
	struct fss_mean_ci m;
	double d = 0, l[3] = { log(100), log(400), log(200) }, mu;

	/* all > 0: the geometric mean 200, t(2) on the logs */
	CHECK(fss_mean_ci(a, 3, &m) == 0 && m.geometric, "geometric");
	CHECK(fabs(m.mean - 200) < 1e-9, "mean %g", m.mean);
	mu = (l[0] + l[1] + l[2]) / 3;
	for (int k = 0; k < 3; k++)
		d += (l[k] - mu) * (l[k] - mu) / 2;
	CHECK(fabs(m.hi - exp(mu + 4.303 * sqrt(d / 3))) < 1e-6, "hi %g", m.hi);
	CHECK(fabs(m.lo * m.hi - 200.0 * 200) < 1e-6, "symmetric in logs");
	/* the same value every round: a zero-width interval */
	CHECK(fss_mean_ci(s, 3, &m) == 0 && fabs(m.lo - 5) < 1e-9 &&
	      fabs(m.hi - 5) < 1e-9, "flat");
	/* a 0: arithmetic, mean 2 +- 4.303 * 2 / sqrt(3) */
	CHECK(fss_mean_ci(z, 3, &m) == 0 && !m.geometric, "arithmetic");
	CHECK(fabs(m.mean - 2) < 1e-9 && fabs(m.hi - (2 + 4.303 * 2 /
	      sqrt(3))) < 1e-6, "[%g, %g]", m.lo, m.hi);
	/* one round: a mean, no interval */
	CHECK(fss_mean_ci(a, 1, &m) != 0 && fabs(m.mean - 100) < 1e-9 &&
	      isnan(m.lo) &&
	      isnan(m.hi), "one round");
	CHECK(fss_mean_ci(a, 0, &m) != 0 && isnan(m.mean), "none");
}

static void change_ratio(void)
{
	struct fss_hist *a = fss_hist_new(), *b = fss_hist_new();
	struct fss_change c;
	uint64_t seed = 9;

	/* B twice A: the ratio's interval holds 2, not 1 */
	fill(a, 200000, 3000, &seed);
	fill(b, 400000, 3000, &seed);
	CHECK(fss_change_compute(a, b, 0, 1000, 1, 0.02, 1000, &c) == 0, "mean");
	CHECK(c.rlo < 2 && c.rhi > 2 && c.rlo > 1.9 && c.rhi < 2.1,
	      "ratio of means [%g, %g]", c.rlo, c.rhi);
	CHECK(fss_change_compute(a, a, 0.5, 1000, 1, 0.02, 1000, &c) == 0, "self");
	CHECK(c.rlo <= 1 && c.rhi >= 1, "self [%g, %g]", c.rlo, c.rhi);
	free(a);
	free(b);
}

static const struct tap_case cases[] = {
	{ "bounds", bounds },
	{ "quantiles", quantiles },
	{ "merge_and_json", merge_and_json },
	{ "sparse", sparse },
	{ "poisson", poisson },
	{ "change_words", change_words },
	{ "ratio_paired", ratio_paired },
	{ "mean_ci", mean_ci },
	{ "change_ratio", change_ratio },
};

TAP_MAIN(cases)
