// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * test_workload.c - pure checks of the workload engine's helpers:
 * nearest-rank percentiles (both sort paths, against a naive reference),
 * size parsing, method/pattern names.  Built and run by tests/run.bats.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "workload/workload.h"
#include "tap.h"

static int cmp(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* naive nearest rank on a sorted copy: smallest v with >= p% at or below */
static double ref_rank(const __u64 *sorted, size_t n, double p)
{
	for (size_t i = 0; i < n; i++)
		if ((double)(i + 1) * 100.0 >= p * (double)n - 1e-9)
			return (double)sorted[i] / 1000.0;
	return (double)sorted[n - 1] / 1000.0;
}

static void check_against_ref(__u64 *v, size_t n, const char *what)
{
	__u64 *ref = malloc(n * sizeof(*ref));
	struct fss_lat l;
	long double sum = 0;

	memcpy(ref, v, n * sizeof(*ref));
	qsort(ref, n, sizeof(*ref), cmp);
	for (size_t i = 0; i < n; i++)
		sum += ref[i];
	fss_lat_compute(v, n, &l);
	for (size_t i = 1; i < n; i++)
		if (v[i - 1] > v[i]) {
			CHECK(0, "%s: not sorted at %zu", what, i);
			break;
		}
	CHECK(l.p50 == ref_rank(ref, n, 50), "%s: p50 %f vs %f", what, l.p50,
	      ref_rank(ref, n, 50));
	CHECK(l.p90 == ref_rank(ref, n, 90), "%s: p90", what);
	CHECK(l.p99 == ref_rank(ref, n, 99), "%s: p99", what);
	CHECK(l.p99_9 == ref_rank(ref, n, 99.9), "%s: p99.9 %f vs %f", what,
	      l.p99_9, ref_rank(ref, n, 99.9));
	CHECK(l.max == (double)ref[n - 1] / 1000.0, "%s: max", what);
	CHECK(fabs(l.mean - (double)(sum / n) / 1000.0) < 1e-6, "%s: mean", what);
	free(ref);
}

static void test_percentiles(void)
{
	__u64 v[1000];
	struct fss_lat l;
	size_t i;

	/* 1..100 us: the textbook nearest-rank answers */
	for (i = 0; i < 100; i++)
		v[i] = (100 - i) * 1000;
	fss_lat_compute(v, 100, &l);
	CHECK(l.p50 == 50 && l.p90 == 90 && l.p99 == 99, "1..100: %f %f %f",
	      l.p50, l.p90, l.p99);
	CHECK(l.p99_9 == 100 && l.max == 100, "1..100: p99.9 %f max %f",
	      l.p99_9, l.max);
	CHECK(fabs(l.mean - 50.5) < 1e-9, "1..100: mean %f", l.mean);

	/* one value */
	v[0] = 1234;
	fss_lat_compute(v, 1, &l);
	CHECK(l.p50 == 1.234 && l.p99_9 == 1.234 && l.max == 1.234 &&
	      l.mean == 1.234, "n=1");

	/* 1000 values: p99.9 is the 999th */
	for (i = 0; i < 1000; i++)
		v[i] = (i * 7919 % 1000 + 1) * 1000;
	fss_lat_compute(v, 1000, &l);
	CHECK(l.p99_9 == 999 && l.max == 1000 && l.p50 == 500, "n=1000: %f %f",
	      l.p99_9, l.p50);

	/* empty: all zero, nothing read */
	memset(&l, 0xff, sizeof(l));
	fss_lat_compute(v, 0, &l);
	CHECK(l.p50 == 0 && l.max == 0, "n=0");
}

static void test_radix(void)
{
	size_t sizes[] = { 4095, 4096, 100000, 1000003 };
	__u64 s = 88172645463325252ULL;

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k];
		__u64 *v = malloc(n * sizeof(*v));
		char what[64];

		for (size_t i = 0; i < n; i++) {
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			/* mostly small latencies, some huge (bits above 32 and 48) */
			v[i] = (i % 97 == 0) ? s : (s % 5000000);
		}
		snprintf(what, sizeof(what), "random n=%zu", n);
		check_against_ref(v, n, what);
		/* many duplicates */
		for (size_t i = 0; i < n; i++)
			v[i] = 1000 * (i % 3);
		snprintf(what, sizeof(what), "dups n=%zu", n);
		check_against_ref(v, n, what);
		free(v);
	}
}

static void test_sizes(void)
{
	static const struct { const char *s; __u64 v; } ok[] = {
		{ "512", 512 }, { "8k", 8192 }, { "8K", 8192 }, { "16KiB", 16384 },
		{ "2m", 2 << 20 }, { "2M", 2 << 20 }, { "1g", 1ULL << 30 },
		{ "4kb", 4096 }, { "100b", 100 }, { "16t", 16ULL << 40 },
		{ "1TiB", 1ULL << 40 },
	};
	static const char *const bad[] = {
		"", "k", "8x", "-1", "8 k", "1.5m", "18446744073709551616",
		"17179869184g", "16777216t", "8kk", "1tt",
	};
	__u64 v;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		CHECK(fss_size_parse(ok[i].s, &v) == 0 && v == ok[i].v,
		      "size '%s'", ok[i].s);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(fss_size_parse(bad[i], &v) != 0, "bad size '%s' accepted", bad[i]);
}

static void test_names(void)
{
	enum fss_method m;
	enum fss_pattern p;

	for (int i = 0; i < FSS_M_MAX; i++)
		CHECK(fss_method_parse(fss_method_name(i), &m) == 0 && (int)m == i,
		      "method %d", i);
	CHECK(fss_method_parse("fsync_data", &m) != 0, "bad method accepted");
	CHECK(!fss_method_syncs(FSS_M_NONE) && fss_method_syncs(FSS_M_FSYNC),
	      "method_syncs");
	for (int i = 0; i <= FSS_PAT_RANDOM; i++)
		CHECK(fss_pattern_parse(fss_pattern_name(i), &p) == 0 && (int)p == i,
		      "pattern %d", i);
	CHECK(fss_pattern_parse("seq", &p) != 0, "bad pattern accepted");
}

static const struct tap_case cases[] = {
	{ "percentiles", test_percentiles },
	{ "radix", test_radix },
	{ "sizes", test_sizes },
	{ "names", test_names },
};

TAP_MAIN(cases)
