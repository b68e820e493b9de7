/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * fmt.h - the plain-text formatting every text output shares: durations in
 * at most 7 characters and 80-column word wrapping.
 */
#ifndef __FSS_FMT_H
#define __FSS_FMT_H

#include <stddef.h>
#include <stdio.h>

/* Microseconds in at most 7 characters ("71.3", "969", "12.3s"). */
const char *fss_fmt_us(char *buf, size_t len, double us);

/*
 * A duration given in us, with a unit that keeps 3 significant digits
 * ("12.3us", "4.56ms", "1.23s"); "n/a" when not known (NaN, infinite).
 */
void fss_fmt_dur(char *buf, size_t len, double us);

/* A size as "1 GiB", "8 KiB", "4097 bytes": the largest exact unit. */
void fss_fmt_size(char *buf, size_t len, unsigned long long v);

/*
 * An error message made one line: every control byte (a newline or tab in
 * a key, string or file name it quotes from the input) becomes '?'.
 * Returns s.
 */
char *fss_err_oneline(char *s);

/* text wrapped at 80 columns, first line after lead, then indented. */
void fss_print_wrapped(FILE *f, const char *lead, int indent, const char *text);

#endif /* __FSS_FMT_H */
