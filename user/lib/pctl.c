// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * pctl.c - exact nearest-rank percentiles (see pctl.h).
 */
#include <stdlib.h>
#include <string.h>
#include "lib/pctl.h"

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* One 16-bit counting pass of src into dst by the digit at shift. */
static void radix_pass(const __u64 *src, __u64 *dst, size_t n, size_t *cnt,
		       unsigned int shift)
{
	size_t sum = 0, i;

	memset(cnt, 0, 65536 * sizeof(*cnt));
	for (i = 0; i < n; i++)
		cnt[(src[i] >> shift) & 0xffff]++;
	for (i = 0; i < 65536; i++) {
		size_t c = cnt[i];

		cnt[i] = sum;
		sum += c;
	}
	for (i = 0; i < n; i++)
		dst[cnt[(src[i] >> shift) & 0xffff]++] = src[i];
}

/* LSD radix sort, 16 bits a pass, skipping passes above the maximum. */
void fss_pctl_sort(__u64 *v, size_t n)
{
	__u64 *tmp, *src = v, *dst, max = 0;
	size_t *cnt, i;

	for (i = 0; i < n; i++)
		if (v[i] > max)
			max = v[i];
	if (n < 4096)
		goto fallback;
	tmp = malloc(n * sizeof(*tmp));
	cnt = malloc(65536 * sizeof(*cnt));
	if (!tmp || !cnt) {
		free(tmp);
		free(cnt);
		goto fallback;
	}
	dst = tmp;
	for (unsigned int shift = 0; shift < 64 && (max >> shift); shift += 16) {
		__u64 *t;

		radix_pass(src, dst, n, cnt, shift);
		t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
	free(cnt);
	return;
fallback:
	qsort(v, n, sizeof(*v), cmp_u64);
}

__u64 fss_pctl_rank(const __u64 *v, size_t n, __u64 num, __u64 den)
{
	__u64 r = (num * (__u64)n + den - 1) / den;	/* ceil(p * n) */

	if (r < 1)
		r = 1;
	if (r > n)
		r = n;
	return v[r - 1];
}
