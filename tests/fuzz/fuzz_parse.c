// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * fuzz_parse.c - libFuzzer target: the option parsers every command uses
 * on its arguments (lib/parse.c's numbers, seconds and lists; sizes,
 * methods and patterns of the workload; --format, --strategy, the
 * exporter's --labels), each on the input as one argument, with what a
 * taken value must be (in its range, finite, a list without repeats).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lib/parse.h"
#include "doc/doc.h"
#include "workload/workload.h"
#include "engine/tracer/tracer.h"
#include "exporter/metrics.h"

static int lookup(const char *name)
{
	static const char *const names[] = { "ext4", "xfs", "btrfs", "jobs" };

	for (int i = 0; i < 4; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

static void check_numbers(const char *s)
{
	unsigned long long u;
	double d;
	long l;
	__u64 sz;

	if (!fss_parse_uint(s, 100000, &u) && (u < 1 || u > 100000))
		abort();
	if (!fss_parse_uint(s, ~0ULL, &u) && u < 1)
		abort();
	if (!fss_parse_seconds(s, 86400, &d) && !(d > 0 && d <= 86400))
		abort();
	if (fss_parse_double(s, &d) && !isfinite(d))
		abort();
	fss_parse_long(s, &l);
	fss_size_parse(s, &sz);
}

static void check_words(const char *s)
{
	int out[8], n = 0;
	unsigned int bits;
	enum fss_fmt fmt;
	enum fss_method m;
	enum fss_pattern p;
	enum fss_strategy st;

	if (!fss_parse_list(s, lookup, out, &n, 4)) {
		if (n < 1 || n > 4)
			abort();
		for (int i = 0; i < n; i++)
			for (int j = 0; j < i; j++)
				if (out[i] == out[j] || out[i] < 0 ||
				    out[i] > 3)
					abort();
	}
	if (!fss_fmt_parse(s, &fmt) && strcmp(fss_fmt_name(fmt), s))
		abort();
	fss_method_parse(s, &m);
	fss_pattern_parse(s, &p);
	fss_strategy_parse(s, &st);
	if (!fss_metrics_parse_labels(s, &bits) && (bits & ~0xfu))
		abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	check_numbers(s);
	check_words(s);
	free(s);
	return 0;
}
