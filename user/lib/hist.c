// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * hist.c - log-linear latency histogram (see hist.h).
 *
 * Index of a value v (ns): v itself below 64; above, with e = floor(log2 v)
 * (6..43), the 64 sub-buckets of [2^e, 2^(e+1)) each 2^(e-6) wide:
 * 64 + (e - 6) * 64 + (v >> (e - 6)) - 64.  Values past 2^44 ns go to the
 * last bucket (max still holds the real value).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "lib/hist.h"

void fss_hist_init(struct fss_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

struct fss_hist *fss_hist_new(void)
{
	struct fss_hist *h = malloc(sizeof(*h));

	if (h)
		fss_hist_init(h);
	return h;
}

unsigned int fss_hist_index(__u64 ns)
{
	unsigned int e;

	if (ns < FSS_HIST_SUB)
		return (unsigned int)ns;
	e = 63 - (unsigned int)__builtin_clzll(ns);
	if (e > FSS_HIST_MAX_EXP)
		return FSS_HIST_NB - 1;
	return FSS_HIST_SUB + (e - FSS_HIST_SUB_BITS) * FSS_HIST_SUB +
	       (unsigned int)(ns >> (e - FSS_HIST_SUB_BITS)) - FSS_HIST_SUB;
}

__u64 fss_hist_lo(unsigned int i)
{
	unsigned int e, sub;

	if (i < FSS_HIST_SUB)
		return i;
	e = (i - FSS_HIST_SUB) / FSS_HIST_SUB + FSS_HIST_SUB_BITS;
	sub = (i - FSS_HIST_SUB) % FSS_HIST_SUB;
	return (__u64)(FSS_HIST_SUB + sub) << (e - FSS_HIST_SUB_BITS);
}

__u64 fss_hist_hi(unsigned int i)
{
	unsigned int e;

	if (i < FSS_HIST_SUB)
		return i;
	if (i >= FSS_HIST_NB - 1)
		return UINT64_MAX;
	e = (i - FSS_HIST_SUB) / FSS_HIST_SUB + FSS_HIST_SUB_BITS;
	return fss_hist_lo(i) + ((__u64)1 << (e - FSS_HIST_SUB_BITS)) - 1;
}

void fss_hist_add_n(struct fss_hist *h, __u64 ns, __u64 n)
{
	if (!n)
		return;
	/* the first value sets min: also in a histogram zeroed, not inited */
	if (!h->count || ns < h->min)
		h->min = ns;
	h->b[fss_hist_index(ns)] += n;
	h->count += n;
	h->sum += ns * n;
	if (ns > h->max)
		h->max = ns;
}

void fss_hist_add(struct fss_hist *h, __u64 ns)
{
	fss_hist_add_n(h, ns, 1);
}

void fss_hist_merge(struct fss_hist *dst, const struct fss_hist *src)
{
	unsigned int i;

	if (!src->count)
		return;
	for (i = 0; i < FSS_HIST_NB; i++)
		dst->b[i] += src->b[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

/* The rank of the nearest-rank q-quantile of count values, 0 if none. */
static __u64 quantile_rank(__u64 count, double q)
{
	__u64 rank;

	if (!count || !(q > 0))
		return 0;
	if (q > 1)
		q = 1;
	rank = (__u64)ceil(q * (double)count);
	return rank < 1 ? 1 : rank;
}

/* What a quantile in bucket i reports: its midpoint, within [min, max]. */
static double bucket_value(unsigned int i, __u64 min, __u64 max)
{
	double lo, hi, mid;

	if (i >= FSS_HIST_NB)
		i = FSS_HIST_NB - 1;
	lo = (double)fss_hist_lo(i);
	hi = i >= FSS_HIST_NB - 1 ? (double)max : (double)fss_hist_hi(i);
	mid = (lo + hi) / 2;
	if (mid < (double)min)
		mid = (double)min;
	if (mid > (double)max)
		mid = (double)max;
	return mid;
}

double fss_hist_quantile_ns(const struct fss_hist *h, double q)
{
	__u64 rank = quantile_rank(h->count, q), seen = 0;
	unsigned int i;

	if (!rank)
		return NAN;
	for (i = 0; i < FSS_HIST_NB; i++) {
		seen += h->b[i];
		if (seen >= rank)
			break;
	}
	return bucket_value(i, h->min, h->max);
}

double fss_hist_mean_ns(const struct fss_hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : NAN;
}

void fss_hist_print(FILE *f, const struct fss_hist *h, const char *title,
		    int indent)
{
	__u64 rows[64] = { 0 }, peak = 0;
	int first = -1, last = -1, r;
	unsigned int i;

	if (title)
		fprintf(f, "%*s%s\n", indent, "", title);
	if (!h->count) {
		fprintf(f, "%*s(no samples)\n", indent, "");
		return;
	}
	/* row r holds [2^r, 2^(r+1)) us; row 0 also holds everything < 1 us */
	for (i = 0; i < FSS_HIST_NB; i++) {
		__u64 us;

		if (!h->b[i])
			continue;
		us = fss_hist_lo(i) / 1000;
		r = us ? 63 - __builtin_clzll(us) : 0;
		rows[r] += h->b[i];
	}
	for (r = 0; r < 64; r++) {
		if (!rows[r])
			continue;
		if (first < 0)
			first = r;
		last = r;
		if (rows[r] > peak)
			peak = rows[r];
	}
	fprintf(f, "%*s%20s : %-10s distribution\n", indent, "", "usecs", "count");
	for (r = first; r <= last; r++) {
		char range[48], stars[41];
		int ns = (int)((double)rows[r] * 40 / (double)peak + 0.5);

		snprintf(range, sizeof(range), "%llu -> %llu",
			 r ? 1ULL << r : 0ULL, (1ULL << (r + 1)) - 1);
		memset(stars, '*', (size_t)ns);
		stars[ns] = '\0';
		fprintf(f, "%*s%20s : %-10llu |%-40s|\n", indent, "", range,
			(unsigned long long)rows[r], stars);
	}
}

/* ---- sparse ---- */

void fss_shist_init(struct fss_shist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

int fss_shist_add(struct fss_shist *h, __u64 ns)
{
	unsigned int i = fss_hist_index(ns), c = i / FSS_HIST_SUB;

	if (!h->chunk[c]) {
		h->chunk[c] = calloc(FSS_HIST_SUB, sizeof(__u64));
		if (!h->chunk[c])
			return -ENOMEM;
	}
	if (!h->count || ns < h->min)
		h->min = ns;
	h->chunk[c][i % FSS_HIST_SUB]++;
	h->count++;
	h->sum += ns;
	if (ns > h->max)
		h->max = ns;
	return 0;
}

void fss_shist_free(struct fss_shist *h)
{
	for (unsigned int c = 0; c < FSS_HIST_NCHUNK; c++)
		free(h->chunk[c]);
	fss_shist_init(h);
}

void fss_shist_to(const struct fss_shist *src, struct fss_hist *dst)
{
	unsigned int c, s;

	if (!src->count)
		return;
	for (c = 0; c < FSS_HIST_NCHUNK; c++)
		for (s = 0; src->chunk[c] && s < FSS_HIST_SUB; s++)
			dst->b[c * FSS_HIST_SUB + s] += src->chunk[c][s];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

/* Walks the allocated chunks: no dense copy (live mode asks per group). */
double fss_shist_quantile_ns(const struct fss_shist *h, double q)
{
	__u64 rank = quantile_rank(h->count, q), seen = 0;
	unsigned int c, s;

	if (!rank)
		return NAN;
	for (c = 0; c < FSS_HIST_NCHUNK; c++) {
		for (s = 0; h->chunk[c] && s < FSS_HIST_SUB; s++) {
			seen += h->chunk[c][s];
			if (seen >= rank)
				return bucket_value(c * FSS_HIST_SUB + s, h->min, h->max);
		}
	}
	return bucket_value(FSS_HIST_NB - 1, h->min, h->max);
}

/* ---- JSON: {"count","sum_ns","min_ns","max_ns","buckets":[[lo_ns,n],...]} */

struct json_object *fss_hist_json(const struct fss_hist *h)
{
	struct json_object *o = json_object_new_object(), *bk;
	unsigned int i;

	if (!o)
		return NULL;
	json_object_object_add(o, "count", json_object_new_uint64(h->count));
	json_object_object_add(o, "sum_ns", json_object_new_uint64(h->sum));
	json_object_object_add(o, "min_ns", h->count ?
			       json_object_new_uint64(h->min) : NULL);
	json_object_object_add(o, "max_ns", h->count ?
			       json_object_new_uint64(h->max) : NULL);
	bk = json_object_new_array();
	for (i = 0; bk && i < FSS_HIST_NB; i++) {
		struct json_object *p;

		if (!h->b[i])
			continue;
		p = json_object_new_array_ext(2);
		json_object_array_add(p, json_object_new_uint64(fss_hist_lo(i)));
		json_object_array_add(p, json_object_new_uint64(h->b[i]));
		json_object_array_add(bk, p);
	}
	json_object_object_add(o, "buckets", bk);
	return o;
}

static int juint(struct json_object *o, const char *key, __u64 *out)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_int))
		return -1;
	*out = json_object_get_uint64(v);
	return 0;
}

int fss_hist_from_json(struct json_object *o, struct fss_hist *h)
{
	struct json_object *bk;
	__u64 count, sum, n = 0;
	size_t i, len;

	fss_hist_init(h);
	if (!o || !json_object_is_type(o, json_type_object) ||
	    juint(o, "count", &count) || juint(o, "sum_ns", &sum) ||
	    !json_object_object_get_ex(o, "buckets", &bk) ||
	    !json_object_is_type(bk, json_type_array))
		return -1;
	len = json_object_array_length(bk);
	for (i = 0; i < len; i++) {
		struct json_object *p = json_object_array_get_idx(bk, i);
		__u64 lo, c;

		if (!json_object_is_type(p, json_type_array) ||
		    json_object_array_length(p) != 2)
			return -1;
		lo = json_object_get_uint64(json_object_array_get_idx(p, 0));
		c = json_object_get_uint64(json_object_array_get_idx(p, 1));
		h->b[fss_hist_index(lo)] += c;
		n += c;
	}
	if (n != count)
		return -1;
	h->count = count;
	h->sum = sum;
	if (count && (juint(o, "min_ns", &h->min) || juint(o, "max_ns", &h->max)))
		return -1;
	return 0;
}
