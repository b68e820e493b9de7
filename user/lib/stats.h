/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * stats.h - statistics over histograms (hist.h): a bootstrap confidence
 * interval for the change of a quantile or of the mean between two
 * independent samples A and B.  Pure C.
 *
 * Resampling is the Poisson bootstrap over buckets: each resample draws
 * every bucket's count from Poisson(count), which approximates drawing n
 * values with replacement and needs no per-sync records.  Values are the
 * bucket midpoints (1.6 % wide), so differences below ~2 % are below the
 * histograms' resolution.
 */
#ifndef __FSS_STATS_H
#define __FSS_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/hist.h"

struct fss_change {
	double a, b;		/* the statistic in A and B (ns) */
	double diff;		/* b - a (ns) */
	double lo, hi;		/* 95 % CI of b - a (ns) */
	int word;		/* +1 slower, -1 faster, 0 within noise */
	double rlo, rhi;	/* 95 % CI of b / a from the same resamples
				 * (NAN when a resample of A was 0) */
};

/*
 * q in (0, 1]: that quantile; q == 0: the mean.  resamples: e.g. 1000.
 * The change is "slower" (+1) when the whole interval lies above
 * max(min_rel * a, min_abs_ns), "faster" (-1) when below minus that, else
 * within noise.  Returns 0, or -1 if A or B is empty.
 */
int fss_change_compute(const struct fss_hist *a, const struct fss_hist *b,
		       double q, int resamples, uint64_t seed, double min_rel,
		       double min_abs_ns, struct fss_change *out);

/*
 * The ratio b / a from n paired repeats (a[k], b[k] measured side by side
 * in round k), with its 95 % interval from Student's t with n - 1
 * degrees of freedom over the pairs, so that a drift common to both
 * cancels.  When every value is > 0: on the log scale (mean_a, mean_b
 * geometric means, ratio = mean_b / mean_a = the geometric mean of the
 * rounds' ratios, an interval that never reaches 0); otherwise arithmetic
 * means and the delta method with the pairs' covariance.  Returns 0, or
 * -1 when n < 2 or mean_a is 0 (ratio is still set when it can be).
 */
struct fss_ratio_ci {
	int n;
	bool geometric;		/* log scale (else arithmetic, delta) */
	double mean_a, mean_b;
	double ratio;
	double lo, hi;
};

int fss_ratio_paired(const double *a, const double *b, int n,
		     struct fss_ratio_ci *out);

/*
 * The mean of n repeats with its 95 % interval (Student's t, n - 1
 * degrees of freedom): on the log scale when every value is > 0 (mean =
 * the geometric mean, an interval that never reaches 0, as
 * fss_ratio_paired), else arithmetic.  Returns 0, or -1 when n < 2 (mean
 * is still set when n is 1; lo and hi are NAN).
 */
struct fss_mean_ci {
	int n;
	bool geometric;
	double mean, lo, hi;
};

int fss_mean_ci(const double *v, int n, struct fss_mean_ci *out);

/* Student's t quantile 0.975 for df degrees of freedom (df >= 1). */
double fss_t975(int df);

/* Deterministic generator (splitmix64) and Poisson draws, exposed for tests. */
uint64_t fss_rand_next(uint64_t *state);
double fss_rand_unit(uint64_t *state);		/* (0, 1) */
uint64_t fss_rand_poisson(uint64_t *state, double lambda);

#endif /* __FSS_STATS_H */
