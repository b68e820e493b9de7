/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * order_ci.h - the uncertainty of a sample quantile, distribution-free.
 * Pure C (libm only).
 */
#ifndef __FSS_ORDER_CI_H
#define __FSS_ORDER_CI_H

#include <stddef.h>

/* Coverage of the verdict's intervals. */
#define FSS_CI_LEVEL	0.95

/*
 * Order-statistic confidence interval of the q-quantile (0 < q < 1) of n
 * samples: the ranks (1-based, of the sorted samples) *lo and *hi such that
 * [x(lo), x(hi)] holds the population q-quantile with probability at least
 * `level`, for any continuous distribution (the count of samples below the
 * quantile is Binomial(n, q)); with ties it is conservative.  Each tail gets
 * at most (1 - level) / 2.  When n is too small for a tail, *lo is 0 (no
 * lower bound) or *hi is n + 1 (no upper bound).  -1 on bad arguments.
 */
int fss_quantile_ci_ranks(size_t n, double q, double level, size_t *lo,
			  size_t *hi);

#endif /* __FSS_ORDER_CI_H */
