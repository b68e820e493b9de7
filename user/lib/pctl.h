/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * pctl.h - exact percentiles over integer nanosecond values, the one
 * engine behind run's latency columns (workload.c, fss_lat_compute) and
 * the breakdowns (report.c's collector).  Nearest rank: the p-th
 * percentile is the smallest value with at least p % of the values less
 * than or equal to it, i.e. v[ceil(p/100 * n) - 1] after sorting; no
 * interpolation, so every percentile is a value that some op really had.
 * hist.h's quantiles are the approximate (1.6 % buckets) counterpart.
 * Pure C.
 */
#ifndef __FSS_PCTL_H
#define __FSS_PCTL_H

#include <stddef.h>
#include <linux/types.h>

/* Sort v[0..n) ascending (LSD radix for large n, qsort for small). */
void fss_pctl_sort(__u64 *v, size_t n);

/*
 * The nearest-rank num/den quantile of sorted v[0..n) (n > 0), in ns:
 * v[ceil(num * n / den) - 1], the rank clamped to [1, n].
 */
__u64 fss_pctl_rank(const __u64 *v, size_t n, __u64 num, __u64 den);

#endif /* __FSS_PCTL_H */
