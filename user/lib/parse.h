/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Whole-string number and list parsers: no trailing bytes, no overflow. */
#ifndef FSS_LIB_PARSE_H
#define FSS_LIB_PARSE_H

#include <stdbool.h>

/* A decimal integer from 1 to max, nothing else.  0 or -1. */
int fss_parse_uint(const char *s, unsigned long long max,
		   unsigned long long *out);

/* Seconds: a number above 0 and at most max.  0 or -1. */
int fss_parse_seconds(const char *s, double max, double *out);

/*
 * NAME[,NAME...], different names, each an index by lookup (0 and up, or
 * -1: no name), added to out[*n...] (max in all; what out holds counts as
 * given).  0, or -1: none, too long, no name, twice, too many.
 */
int fss_parse_list(const char *arg, int (*lookup)(const char *name),
		   int *out, int *n, int max);

/* A whole string as a finite double / a base-10 long: true when it is. */
bool fss_parse_double(const char *s, double *out);
bool fss_parse_long(const char *s, long *out);

#endif
