// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * out_svg_xy.c - two more inline SVG charts for the HTML renderer
 * (out_svg.h): lines of points against a level (a sweep's IOPS, latency
 * and L against jobs or depth, the seed's Little's-law figures), and one
 * value per row with its interval (compare's summary).  Every point
 * drawn carries its value (data-x, data-y, data-value, data-lo, data-hi,
 * printed exactly) so that a test reads the page back against the JSON.
 */
#include <math.h>
#include <stdio.h>
#include "render/out_svg.h"

struct xyframe {
	int x0, y0, w, h;
	double xlo, xhi, ymax;
	bool xlog;
};

/* A tick: 3 digits, thousands as k; a duration when dur (us). */
static void tick(char *b, size_t len, double v, bool dur)
{
	if (dur && v > 0 && v < 1e3)
		snprintf(b, len, "%.3g µs", v);
	else if (dur && v > 0 && v < 1e6)
		snprintf(b, len, "%.3g ms", v / 1e3);
	else if (dur && v > 0)
		snprintf(b, len, "%.3g s", v / 1e6);
	else if (v >= 1e3)
		snprintf(b, len, "%.3gk", v / 1e3);
	else
		snprintf(b, len, "%.3g", v);
}

static double xpos(const struct xyframe *fr, double x)
{
	double t;

	if (fr->xhi <= fr->xlo)
		return fr->x0 + fr->w / 2.0;
	t = fr->xlog ? log(x / fr->xlo) / log(fr->xhi / fr->xlo) :
		       (x - fr->xlo) / (fr->xhi - fr->xlo);
	return fr->x0 + fr->w * t;
}

static double ypos(const struct xyframe *fr, double y)
{
	return fr->y0 + fr->h - fr->h * fmax(y, 0) / fr->ymax;
}

/* The range of x and the top of y over every series' finite points. */
static void xy_range(struct xyframe *fr, const struct svg_xy_series *s,
		     int ns)
{
	double ymax = 0;

	fr->xlo = INFINITY;
	fr->xhi = -INFINITY;
	for (int i = 0; i < ns; i++)
		for (int k = 0; k < s[i].n; k++) {
			if (!isfinite(s[i].x[k]) || !isfinite(s[i].y[k]))
				continue;
			fr->xlo = fmin(fr->xlo, s[i].x[k]);
			fr->xhi = fmax(fr->xhi, s[i].x[k]);
			ymax = fmax(ymax, s[i].y[k]);
		}
	if (!isfinite(fr->xlo))
		fr->xlo = fr->xhi = 1;
	fr->xlog = fr->xlo > 0 && fr->xhi / fr->xlo >= 4;
	fr->ymax = svg_nice_up(ymax * 1.05);
}

static void xy_axes(FILE *f, const struct xyframe *fr,
		    const struct svg_xy_series *s, const char *xt,
		    const char *yt, bool dur)
{
	int bottom = fr->y0 + fr->h;
	char b[48];

	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"ax\"/>"
		"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"ax\"/>\n",
		fr->x0, bottom, fr->x0 + fr->w, bottom, fr->x0, fr->y0, fr->x0,
		bottom);
	for (int t = 0; t <= 4; t++) {
		double v = fr->ymax * t / 4, y = ypos(fr, v);

		tick(b, sizeof(b), v, dur);
		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			"class=\"grid\"/><text x=\"%d\" y=\"%.1f\" class=\"tick\" "
			"text-anchor=\"end\">%s</text>\n", fr->x0 + 1, y,
			fr->x0 + fr->w, y, fr->x0 - 4, y + 4, b);
	}
	/* ticks at the first series' x values: the levels of the sweep */
	for (int k = 0; k < s[0].n; k++) {
		double x;

		if (!isfinite(s[0].x[k]))
			continue;
		x = xpos(fr, s[0].x[k]);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			"class=\"ax\"/><text x=\"%.1f\" y=\"%d\" class=\"tick\" "
			"text-anchor=\"middle\">%.4g</text>\n", x, bottom, x,
			bottom + 4, x, bottom + 15, s[0].x[k]);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"axt\" text-anchor=\"middle\">",
		fr->x0 + fr->w / 2, bottom + 30);
	svg_esc(f, xt);
	fprintf(f, "%s</text>\n<text transform=\"translate(14,%d) rotate(-90)\" "
		"class=\"axt\" text-anchor=\"middle\">", fr->xlog ? " (log)" : "",
		fr->y0 + fr->h / 2);
	svg_esc(f, yt);
	fputs("</text>\n", f);
}

static void xy_series(FILE *f, const struct xyframe *fr,
		      const struct svg_xy_series *s)
{
	fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s%s%s "
		"data-series=\"%s\" points=\"", s->color, s->dash ?
		" stroke-dasharray=\"" : "", s->dash ? s->dash : "",
		s->dash ? "\"" : "", s->key);
	for (int k = 0; k < s->n; k++)
		if (isfinite(s->x[k]) && isfinite(s->y[k]))
			fprintf(f, "%.1f,%.1f ", xpos(fr, s->x[k]),
				ypos(fr, s->y[k]));
	fputs("\"/>\n", f);
	for (int k = 0; s->marks && k < s->n; k++) {
		if (!isfinite(s->x[k]) || !isfinite(s->y[k]))
			continue;
		fprintf(f, "<circle class=\"pt\" data-series=\"%s\" "
			"data-x=\"%.17g\" data-y=\"%.17g\" cx=\"%.1f\" cy=\"%.1f\" "
			"r=\"3\" fill=\"%s\"><title>", s->key, s->x[k], s->y[k],
			xpos(fr, s->x[k]), ypos(fr, s->y[k]), s->color);
		svg_esc(f, s->name);
		fprintf(f, ": %.4g at %.4g</title></circle>\n", s->y[k],
			s->x[k]);
	}
}

void svg_xy_chart(FILE *f, const char *title, const char *xt,
		  const char *yt, bool ydur, const struct svg_xy_series *s,
		  int ns, const char *note)
{
	struct xyframe fr = { .x0 = 70, .y0 = 10, .w = 560, .h = 220 };
	const char *names[SVG_XY_MAX], *colors[SVG_XY_MAX];

	if (ns < 1 || ns > SVG_XY_MAX)
		return;
	xy_range(&fr, s, ns);
	for (int i = 0; i < ns; i++) {
		names[i] = s[i].name;
		colors[i] = s[i].color;
	}
	svg_legend(f, names, colors, ns);
	svg_fig_open(f, title, fr.x0 + fr.w + 20, fr.y0 + fr.h + 40, "xy");
	xy_axes(f, &fr, s, xt, yt, ydur);
	for (int i = 0; i < ns; i++)
		xy_series(f, &fr, &s[i]);
	svg_fig_close(f, note);
}

void svg_interval_rows(FILE *f, const char *title, const char *axis,
		       bool dur, const struct svg_irow *rows, int n)
{
	const int lw = 160, pw = 440, rh = 22, top = 8;
	double m = 0, lo = INFINITY, l0;
	char b[48];
	bool lg;

	for (int i = 0; i < n; i++) {
		m = fmax(m, fmax(isfinite(rows[i].hi) ? rows[i].hi : 0,
				 isfinite(rows[i].v) ? rows[i].v : 0));
		if (isfinite(rows[i].v) && rows[i].v > 0)
			lo = fmin(lo, isfinite(rows[i].lo) && rows[i].lo > 0 ?
				  rows[i].lo : rows[i].v);
	}
	m = svg_nice_up(m * 1.05);
	/* intervals spanning decades: a log axis, or the means vanish */
	lg = isfinite(lo) && m / lo > 20;
	l0 = lg ? pow(10, floor(log10(lo))) : 0;
	svg_fig_open(f, title, lw + pw + 30, top + n * rh + 44, "irows");
#define IX(v) (lg ? lw + pw * log10(fmax(v, l0) / l0) / log10(m / l0) : \
	       lw + pw * fmax(v, 0) / m)
	for (int t = 0; t <= 4; t++) {
		double v = lg ? l0 * pow(m / l0, t / 4.0) : m * t / 4;

		tick(b, sizeof(b), v, dur);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			"class=\"grid\"/><text x=\"%.1f\" y=\"%d\" class=\"tick\" "
			"text-anchor=\"middle\">%s</text>\n", IX(v), top, IX(v),
			top + n * rh, IX(v), top + n * rh + 15, b);
	}
	for (int i = 0; i < n; i++) {
		const struct svg_irow *r = &rows[i];
		double y = top + i * rh + rh / 2.0;
		bool ci = isfinite(r->lo) && isfinite(r->hi);

		fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"lbl\" "
			"text-anchor=\"end\">", lw - 6, y + 4);
		svg_esc(f, r->label);
		fputs("</text>\n", f);
		if (!isfinite(r->v))
			continue;
		if (ci)
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				"y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n",
				IX(r->lo), y, IX(r->hi), y, r->color);
		fprintf(f, "<circle class=\"iv\" data-key=\"");
		svg_esc(f, r->key);
		fprintf(f, "\" data-value=\"%.17g\"", r->v);
		if (ci)
			fprintf(f, " data-lo=\"%.17g\" data-hi=\"%.17g\"", r->lo,
				r->hi);
		fprintf(f, " cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n",
			IX(r->v), y, r->color);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"axt\" text-anchor=\"middle\">",
		lw + pw / 2, top + n * rh + 32);
	svg_esc(f, axis);
	fputs(lg ? " (log)</text>\n" : "</text>\n", f);
#undef IX
	svg_fig_close(f, "dot: mean over the rounds; bar: its 95 % interval "
		      "(none with one round)");
}
