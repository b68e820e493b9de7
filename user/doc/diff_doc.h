/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * diff.h - the model of `fsyncscope diff`: two saved results of the same
 * kind (run or compare) turned into a result document of kind "diff"
 * (docs/report.md): per test and per series (the sync total, or the per-op
 * latency when a side was not traced, and each phase), p50, p99 and mean
 * of A and B, the change, its 95 % bootstrap interval and one word.
 */
#ifndef __FSS_DIFF_H
#define __FSS_DIFF_H

#include <stddef.h>
#include <stdint.h>

struct json_object;

struct fss_diff_opts {
	int resamples;			/* bootstrap resamples (1000) */
	uint64_t seed;			/* generator seed (1) */
	double min_change_pct;		/* noise floor, relative (2) */
	double min_change_us;		/* noise floor, absolute (1) */
	double fail_if_slower_pct;	/* < 0: no gate */
};

void fss_diff_defaults(struct fss_diff_opts *o);

/*
 * Build the diff document; NULL with one line in err when the two cannot
 * be compared (different kinds, a kind without tests, no test in common).
 */
struct json_object *fss_diff_build(struct json_object *a, const char *a_path,
				   struct json_object *b, const char *b_path,
				   const struct fss_diff_opts *o,
				   char *err, size_t errlen);

/* Rows of a diff document that fail its gate (0 when it has none). */
int fss_diff_failed(struct json_object *diff);

#endif /* __FSS_DIFF_H */
