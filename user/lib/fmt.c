// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * fmt.c - plain-text formatting shared by every text output (fmt.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "lib/fmt.h"

const char *fss_fmt_us(char *buf, size_t len, double us)
{
	if (us < 100)
		snprintf(buf, len, "%.1f", us);
	else if (us < 1e7)
		snprintf(buf, len, "%.0f", us);
	else
		snprintf(buf, len, "%.1fs", us / 1e6);
	return buf;
}

void fss_fmt_size(char *buf, size_t len, unsigned long long v)
{
	if (v >= (1ULL << 30) && !(v % (1ULL << 30)))
		snprintf(buf, len, "%llu GiB", v >> 30);
	else if (v >= (1 << 20) && !(v % (1 << 20)))
		snprintf(buf, len, "%llu MiB", v >> 20);
	else if (v >= 1024 && !(v % 1024))
		snprintf(buf, len, "%llu KiB", v >> 10);
	else
		snprintf(buf, len, "%llu bytes", v);
}

char *fss_err_oneline(char *s)
{
	for (unsigned char *p = (unsigned char *)s; p && *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			*p = '?';
	return s;
}

/* Print text wrapped at 80 columns, first line after `lead`. */
void fss_print_wrapped(FILE *f, const char *lead, int indent, const char *text)
{
	int col = fprintf(f, "%s", lead), start = col;
	const char *p = text;

	while (*p == ' ')
		p++;
	while (*p) {
		const char *sp = strchr(p, ' ');
		int wl = sp ? (int)(sp - p) : (int)strlen(p);
		int gap = col > start ? 1 : 0;

		if (col + gap + wl > 80 && col > start) {
			fprintf(f, "\n%*s", indent, "");
			col = start = indent;
			gap = 0;
		}
		col += fprintf(f, "%*s%.*s", gap, "", wl, p);
		p += wl;
		while (*p == ' ')
			p++;
	}
	fprintf(f, "\n");
}

void fss_fmt_dur(char *buf, size_t len, double us)
{
	if (!isfinite(us))
		snprintf(buf, len, "n/a");
	else if (us < 1000.0)
		snprintf(buf, len, "%.1fus", us);
	else if (us < 1000000.0)
		snprintf(buf, len, "%.2fms", us / 1000.0);
	else
		snprintf(buf, len, "%.2fs", us / 1000000.0);
}
