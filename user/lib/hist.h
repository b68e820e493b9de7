/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * hist.h - the one latency histogram of fsyncscope: log-linear buckets over
 * nanoseconds (values below 64 exact, then 64 buckets per power of two, so
 * a bucket is at most 1/64 = 1.6 % wide), 64-bit counts, mergeable, with a
 * sparse JSON form other tools can redraw ("scheme": "log2-64").  Pure C.
 */
#ifndef __FSS_HIST_H
#define __FSS_HIST_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#define FSS_HIST_SUB_BITS	6
#define FSS_HIST_SUB		(1u << FSS_HIST_SUB_BITS)	/* 64 */
#define FSS_HIST_MAX_EXP	43	/* last power of two: 2^44 ns ~ 4.9 h */
#define FSS_HIST_NB		(FSS_HIST_SUB + \
				 (FSS_HIST_MAX_EXP - FSS_HIST_SUB_BITS + 1) * FSS_HIST_SUB)
#define FSS_HIST_SCHEME		"log2-64"

struct fss_hist {
	__u64 count;
	__u64 sum;			/* ns */
	__u64 min, max;			/* ns; min = UINT64_MAX when empty */
	__u64 b[FSS_HIST_NB];
};

void fss_hist_init(struct fss_hist *h);
struct fss_hist *fss_hist_new(void);	/* initialised, or NULL */
void fss_hist_add(struct fss_hist *h, __u64 ns);
void fss_hist_add_n(struct fss_hist *h, __u64 ns, __u64 n);
void fss_hist_merge(struct fss_hist *dst, const struct fss_hist *src);

unsigned int fss_hist_index(__u64 ns);
/* [lo, hi] of bucket i, in ns (both inclusive). */
__u64 fss_hist_lo(unsigned int i);
__u64 fss_hist_hi(unsigned int i);

/*
 * Nearest-rank quantile (0 < q <= 1): the bucket holding the
 * ceil(q * count)-th smallest value, reported as that bucket's midpoint
 * clamped to [min, max].  NAN when empty.  Within 0.8 % of the exact
 * nearest-rank value above 64 ns.
 */
double fss_hist_quantile_ns(const struct fss_hist *h, double q);
double fss_hist_mean_ns(const struct fss_hist *h);

/*
 * Biolatency-style view: one row per power of two of microseconds,
 * "     usecs    : count    distribution", stars scaled to 40.
 */
void fss_hist_print(FILE *f, const struct fss_hist *h, const char *title,
		    int indent);

/*
 * The same buckets, allocated 64 at a time as values arrive: for the many
 * small histograms of live mode (one per process, file, kind...), a few
 * hundred bytes each instead of 20 KB.  Converts to the dense form for
 * quantiles, JSON and everything else.
 */
#define FSS_HIST_NCHUNK	(FSS_HIST_NB / FSS_HIST_SUB)

struct fss_shist {
	__u64 count, sum, min, max;
	__u64 *chunk[FSS_HIST_NCHUNK];	/* chunk c: buckets 64c .. 64c+63 */
};

void fss_shist_init(struct fss_shist *h);
int fss_shist_add(struct fss_shist *h, __u64 ns);	/* 0 or -ENOMEM */
void fss_shist_free(struct fss_shist *h);
/* dst += src (dst dense) */
void fss_shist_to(const struct fss_shist *src, struct fss_hist *dst);
double fss_shist_quantile_ns(const struct fss_shist *h, double q);

struct json_object;
/*
 * {"count", "sum_ns", "min_ns", "max_ns", "buckets": [[lo_ns, n], ...]}:
 * the non-empty buckets, each named by its lowest value (scheme log2-64:
 * it runs to the next bucket's lowest value).
 */
struct json_object *fss_hist_json(const struct fss_hist *h);
/* The reverse; 0, or -1 if o is not such an object (counts must agree). */
int fss_hist_from_json(struct json_object *o, struct fss_hist *h);

#endif /* __FSS_HIST_H */
