// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Number and list parsers shared by the options and the facts (lib/parse.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/parse.h"

int fss_parse_uint(const char *s, unsigned long long max,
		   unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v == 0 || v > max)
		return -1;
	*out = v;
	return 0;
}

int fss_parse_seconds(const char *s, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || end == s || !(v > 0) || v > max)
		return -1;
	*out = v;
	return 0;
}

int fss_parse_list(const char *arg, int (*lookup)(const char *name),
		   int *out, int *n, int max)
{
	char buf[256], *tok, *save = NULL;
	int k;

	if (strlen(arg) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		k = lookup(tok);
		if (k < 0 || *n >= max)
			return -1;
		for (int i = 0; i < *n; i++)
			if (out[i] == k)
				return -1;
		out[(*n)++] = k;
	}
	return *n ? 0 : -1;
}

bool fss_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v))
		return false;
	*out = v;
	return true;
}

bool fss_parse_long(const char *s, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end)
		return false;
	*out = v;
	return true;
}
