// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * summ.c - the kernel's count of syncs traced in full and summarized
 * (overload by design, docs/hotpath.md "Overload") as JSON: why each was
 * summarized and the distribution of their totals (log2 buckets, so
 * percentiles are upper bounds: "p99_le").
 */
#include <string.h>
#include "stats/summ.h"
#include "engine/attr/attr.h"

__u64 fss_summ_count(const struct fss_summ *by_kind, enum fss_summ_why why)
{
	__u64 n = 0;

	for (int k = 0; k < FSS_SYNC_KIND_MAX; k++)
		n += by_kind[k].syncs[why];
	return n;
}

__u64 fss_summ_summarized(const struct fss_summ *by_kind)
{
	__u64 n = 0;

	for (int w = FSS_SUMM_RING_HIGH; w < FSS_SUMM_WHY_MAX; w++)
		n += fss_summ_count(by_kind, w);
	return n;
}

/* Upper bound (us) of the bucket holding the rank-th total (1-based). */
static double bucket_le_us(const __u64 *hist, __u64 rank)
{
	__u64 seen = 0;

	for (int i = 0; i < FSS_SUMM_BUCKETS; i++) {
		seen += hist[i];
		if (seen >= rank)
			return (double)(1ULL << (i + 1)) / 1000.0;
	}
	return (double)(1ULL << FSS_SUMM_BUCKETS) / 1000.0;
}

static struct json_object *totals_json(const struct fss_summ *all, __u64 n)
{
	struct json_object *o = json_object_new_object();
	__u64 r50 = (n * 50 + 99) / 100, r99 = (n * 99 + 99) / 100;

	json_object_object_add(o, "mean", json_object_new_double(
		(double)all->total_ns / (double)n / 1000.0));
	json_object_object_add(o, "p50_le", json_object_new_double(
		bucket_le_us(all->hist, r50 ? r50 : 1)));
	json_object_object_add(o, "p99_le", json_object_new_double(
		bucket_le_us(all->hist, r99 ? r99 : 1)));
	json_object_object_add(o, "max_le", json_object_new_double(
		bucket_le_us(all->hist, n)));
	return o;
}

struct json_object *fss_summ_json(const struct fss_summ *by_kind)
{
	struct json_object *o = json_object_new_object();
	struct json_object *why = json_object_new_object();
	struct json_object *kinds = json_object_new_object();
	struct json_object *hist = json_object_new_array();
	__u64 n = fss_summ_summarized(by_kind);
	struct fss_summ all;
	int last = -1;

	memset(&all, 0, sizeof(all));
	for (int k = 0; k < FSS_SYNC_KIND_MAX; k++) {
		struct fss_summ one = by_kind[k];
		struct json_object *ko;
		__u64 s = 0;

		for (int w = FSS_SUMM_RING_HIGH; w < FSS_SUMM_WHY_MAX; w++)
			s += one.syncs[w];
		fss_summ_add(&all, &one, 1);
		if (!one.syncs[FSS_SUMM_TRACED] && !s)
			continue;
		ko = json_object_new_object();
		json_object_object_add(ko, "traced", json_object_new_uint64(
			one.syncs[FSS_SUMM_TRACED]));
		json_object_object_add(ko, "summarized", json_object_new_uint64(s));
		json_object_object_add(kinds, fss_sync_kind_name(k), ko);
	}
	json_object_object_add(o, "traced", json_object_new_uint64(
		all.syncs[FSS_SUMM_TRACED]));
	json_object_object_add(o, "summarized", json_object_new_uint64(n));
	for (int w = FSS_SUMM_RING_HIGH; w < FSS_SUMM_WHY_MAX; w++)
		json_object_object_add(why, fss_summ_why_name(w),
				       json_object_new_uint64(all.syncs[w]));
	json_object_object_add(o, "why", why);
	json_object_object_add(o, "by_kind", kinds);
	json_object_object_add(o, "summarized_total_us",
			       n ? totals_json(&all, n) : NULL);
	for (int i = 0; i < FSS_SUMM_BUCKETS; i++)
		if (all.hist[i])
			last = i;
	for (int i = 0; i <= last; i++)
		json_object_array_add(hist, json_object_new_uint64(all.hist[i]));
	json_object_object_add(o, "summarized_hist_log2_ns", hist);
	return o;
}
