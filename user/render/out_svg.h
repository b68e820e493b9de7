/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * out_svg.h - inline SVG charts for the HTML renderer: no script, no
 * network; every chart is <figure><figcaption>TITLE</figcaption><svg
 * class="chart" ...>, with axis titles that carry units and a legend.
 * Colours: one per phase everywhere (Okabe-Ito, colour-blind safe).
 */
#ifndef __FSS_OUT_SVG_H
#define __FSS_OUT_SVG_H

#include <stdbool.h>
#include <stdio.h>
#include "lib/hist.h"

#define SVG_NPH		6	/* fs, journal, queue, device_write, device_flush, other */

extern const char *const svg_phase_colors[SVG_NPH];
#define SVG_TOTAL_COLOR	"#333333"

/* HTML-escaped text. */
void svg_esc(FILE *f, const char *s);

/* A duration given in us: "188.6 µs", "4.321 ms", "1.234 s"; n/a if NAN. */
void svg_fmt_us(char *buf, size_t len, double us);

/*
 * A figure: <figure class=cls><figcaption>title</figcaption><svg ...> of
 * w x h; svg_fig_close ends it with an optional note under it.
 */
void svg_fig_open(FILE *f, const char *title, int w, int h, const char *cls);
void svg_fig_close(FILE *f, const char *note);

/* The next 1, 2 or 5 times a power of ten at or above v (1 if v <= 0). */
double svg_nice_up(double v);

/* A legend of the six phases (HTML, not SVG). */
void svg_phase_legend(FILE *f);

/*
 * 100 % stacked horizontal bars: one per row, segments = shares (0..1) of
 * the six phases (NAN = n/a, drawn as a hatched gap); note is printed
 * at the right of each bar (e.g. the mean total).
 */
struct svg_bar {
	const char *label;
	double share[SVG_NPH];
	char note[48];
};
void svg_stacked_shares(FILE *f, const char *title, const struct svg_bar *bars,
			int n);

/*
 * Stacked horizontal bars of named segments with their own colours (blame:
 * causes rather than phases): shares 0..1 of the row's whole; what is not
 * covered stays blank.  A legend of the names is the caller's
 * (svg_legend).  axis: the x axis title.
 */
#define SVG_NSEG	12
struct svg_seg {
	const char *name;
	double share;
	const char *color;
};
struct svg_cbar {
	const char *label;
	struct svg_seg seg[SVG_NSEG];
	int nseg;
	char note[48];
};
void svg_cause_bars(FILE *f, const char *title, const struct svg_cbar *bars,
		    int n, const char *axis);

/* A legend (HTML) of n names with their colours. */
void svg_legend(FILE *f, const char *const *names, const char *const *colors,
		int n);

/* Marks drawn on a histogram: label and value (ns). */
struct svg_mark {
	const char *label;
	double ns;
};

/*
 * A latency histogram on a log time axis from lo_ns to hi_ns (decades),
 * bars of the share of samples per 1/20 decade; colour; marks as
 * labelled vertical lines.  small: a compact panel for small multiples.
 */
void svg_hist(FILE *f, const char *title, const struct fss_hist *h,
	      double lo_ns, double hi_ns, const char *color,
	      const struct svg_mark *marks, int nmarks, int small);

/*
 * Several histograms overlaid as step lines on shared axes (compare):
 * series names, dash patterns distinguish them.
 */
void svg_hist_overlay(FILE *f, const char *title, const struct fss_hist *hs,
		      const char *const *names, int n, double lo_ns, double hi_ns);

/* Axis range (decades) covering every histogram given. */
void svg_hist_range(const struct fss_hist *const *hs, int n, double *lo_ns,
		    double *hi_ns);

/*
 * Timeline: points (t in s, latency in ns, dominant phase 0..5), y on a
 * log axis.  omitted: how many points were left out by downsampling.
 */
struct svg_point {
	double t_s;
	double ns;
	int phase;
};
void svg_timeline(FILE *f, const char *title, const struct svg_point *p,
		  size_t n, size_t omitted);

/*
 * Intervals of a change in % (diff): one row per label, point and
 * [lo, hi]; colour by verdict (+1 slower, -1 faster, 0 noise).
 */
struct svg_ci {
	const char *label;
	double pct, lo, hi;
	int word;
};
void svg_ci_plot(FILE *f, const char *title, const struct svg_ci *rows, int n);

/*
 * Lines of points against x (out_svg_xy.c): each series a polyline, with
 * circles carrying data-series, data-x and data-y when marks is set; x
 * on a log axis when it spans 4x or more, ticks at the first series' x;
 * y linear from 0 (ticks as durations when ydur: y in us).  NAN points
 * are left out.  A legend above.
 */
#define SVG_XY_MAX	6
struct svg_xy_series {
	const char *key;		/* data-series */
	const char *name;		/* legend */
	const char *color;
	const char *dash;		/* stroke-dasharray, NULL: solid */
	const double *x, *y;
	int n;
	bool marks;
};
void svg_xy_chart(FILE *f, const char *title, const char *xt,
		  const char *yt, bool ydur, const struct svg_xy_series *s,
		  int ns, const char *note);

/*
 * One value per row with its interval (lo, hi; NAN: none) on a linear
 * axis from 0 (log when the intervals span over 20x): circles carry
 * data-key, data-value, data-lo, data-hi.  dur: values are us.
 */
struct svg_irow {
	const char *label, *key, *color;
	double v, lo, hi;
};
void svg_interval_rows(FILE *f, const char *title, const char *axis,
		       bool dur, const struct svg_irow *rows, int n);

#endif /* __FSS_OUT_SVG_H */
