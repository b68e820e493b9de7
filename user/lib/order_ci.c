// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * order_ci.c - distribution-free confidence intervals of sample quantiles.
 *
 * Why order statistics and not a bootstrap: the interval is exact (its
 * coverage is at least the level for any continuous distribution, with no
 * assumption about the shape of the latency distribution), deterministic
 * (the same samples always give the same interval, no random resampling),
 * costs one pass over the binomial after the sort the percentiles already
 * do, and stays valid with the heavy ties of integer nanosecond phase times
 * (many syncs have exactly 0 ns of flush), where a bootstrap of the median
 * is known to behave badly.
 */
#include <math.h>
#include "lib/order_ci.h"

/* log of the Binomial(n, q) probability of k. */
static double log_pmf(size_t n, size_t k, double q)
{
	return lgamma((double)n + 1) - lgamma((double)k + 1) -
	       lgamma((double)(n - k) + 1) + (double)k * log(q) +
	       (double)(n - k) * log1p(-q);
}

int fss_quantile_ci_ranks(size_t n, double q, double level, size_t *lo,
			  size_t *hi)
{
	double tail, cdf = 0.0;
	size_t k;

	if (!lo || !hi || !(q > 0.0 && q < 1.0) || !(level > 0.0 && level < 1.0))
		return -1;
	tail = (1.0 - level) / 2.0;
	*lo = 0;
	*hi = n + 1;
	/*
	 * B = number of samples below the quantile.  x(k) <= quantile unless
	 * B <= k - 1, so lo is the largest k with P(B <= k - 1) <= tail; and
	 * x(k) >= quantile unless B >= k, so hi is the smallest k with
	 * P(B >= k) <= tail, i.e. P(B <= k - 1) >= 1 - tail.
	 */
	for (k = 0; k < n; k++) {
		/* here cdf = P(B <= k - 1) */
		if (cdf <= tail)
			*lo = k;	/* rank k; k = 0 means "none" */
		cdf += exp(log_pmf(n, k, q));
		/* now cdf = P(B <= k) = P(B <= (k + 1) - 1) */
		if (cdf >= 1.0 - tail) {
			*hi = k + 1;
			break;
		}
	}
	/* the cdf of rank n (P(B <= n - 1)) is checked for lo too */
	if (k == n && cdf <= tail)
		*lo = n;
	return 0;
}
