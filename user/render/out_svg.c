// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * out_svg.c - inline SVG charts (out_svg.h).  Geometry in user units of a
 * viewBox; the page's CSS makes the charts scale with the window.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lib/phase.h"
#include "render/out_svg.h"

/* Okabe-Ito: blue, orange, yellow, bluish green, vermillion, reddish purple */
const char *const svg_phase_colors[SVG_NPH] = {
	"#0072B2", "#E69F00", "#F0E442", "#009E73", "#D55E00", "#CC79A7",
};

#define BINS_PER_DECADE	20

void svg_esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

void svg_fmt_us(char *buf, size_t len, double us)
{
	if (!isfinite(us))
		snprintf(buf, len, "n/a");
	else if (us < 10000)
		snprintf(buf, len, "%.1f µs", us);
	else if (us < 1e7)
		snprintf(buf, len, "%.3f ms", us / 1e3);
	else
		snprintf(buf, len, "%.3f s", us / 1e6);
}

/* "1 µs", "10 ms", "1 s" for a power of ten of ns; else 3 digits. */
static void dur_label(char *buf, size_t len, double ns)
{
	if (ns < 1e3)
		snprintf(buf, len, "%.3g ns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.3g µs", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.3g ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3g s", ns / 1e9);
}

void svg_fig_open(FILE *f, const char *title, int w, int h, const char *cls)
{
	fprintf(f, "<figure class=\"%s\"><figcaption>", cls);
	svg_esc(f, title);
	fprintf(f, "</figcaption>\n<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" "
		"viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
		"aria-label=\"", w, h, w, h);
	svg_esc(f, title);
	fputs("\">\n", f);
}

void svg_fig_close(FILE *f, const char *note)
{
	fputs("</svg>", f);
	if (note && *note) {
		fputs("<p class=\"note\">", f);
		svg_esc(f, note);
		fputs("</p>", f);
	}
	fputs("</figure>\n", f);
}

void svg_phase_legend(FILE *f)
{
	int i;

	fputs("<ul class=\"legend\">", f);
	for (i = 0; i < SVG_NPH; i++)
		fprintf(f, "<li><span class=\"sw\" style=\"background:%s\"></span>%s</li>",
			svg_phase_colors[i], fss_phase_name(i));
	fputs("</ul>\n", f);
}

void svg_legend(FILE *f, const char *const *names, const char *const *colors,
		int n)
{
	fputs("<ul class=\"legend\">", f);
	for (int i = 0; i < n; i++) {
		fprintf(f, "<li><span class=\"sw\" style=\"background:%s\">"
			"</span>", colors[i]);
		svg_esc(f, names[i]);
		fputs("</li>", f);
	}
	fputs("</ul>\n", f);
}

/* x axis of the stacked bars: 0..100 % under rows of height rh */
static void share_axis(FILE *f, int lw, int bw, int y, const char *title)
{
	for (int t = 0; t <= 4; t++) {
		double x = lw + bw * t / 4.0;

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			"class=\"ax\"/><text x=\"%.1f\" y=\"%d\" class=\"tick\" "
			"text-anchor=\"middle\">%d</text>\n", x, y, x, y + 4, x,
			y + 16, t * 25);
	}
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"ax\"/>\n",
		lw, y, lw + bw, y);
	fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"axt\" text-anchor=\"middle\">",
		lw + bw / 2, y + 34);
	svg_esc(f, title);
	fputs("</text>\n", f);
}

void svg_cause_bars(FILE *f, const char *title, const struct svg_cbar *bars,
		    int n, const char *axis)
{
	const int lw = 190, bw = 400, rh = 22, top = 8, w = lw + bw + 120;

	svg_fig_open(f, title, w, top + n * rh + 42, "shares causes");
	for (int i = 0; i < n; i++) {
		double x = lw, y = top + i * rh;

		fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"lbl\" "
			"text-anchor=\"end\">", lw - 6, y + 15);
		svg_esc(f, bars[i].label);
		fputs("</text>\n", f);
		for (int s = 0; s < bars[i].nseg && s < SVG_NSEG; s++) {
			const struct svg_seg *g = &bars[i].seg[s];
			double wd = fmin(g->share, 1.0 - (x - lw) / bw) * bw;

			if (!isfinite(g->share) || g->share <= 0 || wd <= 0)
				continue;
			fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
				"height=\"%d\" fill=\"%s\" stroke=\"#888\" "
				"stroke-width=\"0.3\"><title>", x, y + 3, wd,
				rh - 6, g->color);
			svg_esc(f, g->name);
			fprintf(f, " %.1f %%</title></rect>\n", g->share * 100);
			x += wd;
		}
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"lbl\">",
			lw + bw + 6, y + 15);
		svg_esc(f, bars[i].note);
		fputs("</text>\n", f);
	}
	share_axis(f, lw, bw, top + n * rh, axis);
	svg_fig_close(f, NULL);
}

void svg_stacked_shares(FILE *f, const char *title, const struct svg_bar *bars,
			int n)
{
	const int lw = 190, bw = 400, rh = 22, top = 8, w = lw + bw + 120;
	int h = top + n * rh + 42, i, p, t;

	svg_fig_open(f, title, w, h, "shares");
	for (i = 0; i < n; i++) {
		double x = lw, y = top + i * rh;

		fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"lbl\" text-anchor=\"end\">",
			lw - 6, y + 15);
		svg_esc(f, bars[i].label);
		fputs("</text>\n", f);
		for (p = 0; p < SVG_NPH; p++) {
			double s = bars[i].share[p], wd;

			if (!isfinite(s) || s <= 0)
				continue;
			wd = s * bw;
			fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" "
				"fill=\"%s\"><title>%s %.1f %%</title></rect>\n", x, y + 3,
				wd, rh - 6, svg_phase_colors[p], fss_phase_name(p), s * 100);
			x += wd;
		}
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"lbl\">", lw + bw + 6, y + 15);
		svg_esc(f, bars[i].note);
		fputs("</text>\n", f);
	}
	for (t = 0; t <= 4; t++) {
		double x = lw + bw * t / 4.0;

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" class=\"ax\"/>"
			"<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%d</text>\n",
			x, top + n * rh, x, top + n * rh + 4, x, top + n * rh + 16, t * 25);
	}
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"ax\"/>\n",
		lw, top + n * rh, lw + bw, top + n * rh);
	fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"axt\" text-anchor=\"middle\">"
		"share of sync time (%%)</text>\n", lw + bw / 2, top + n * rh + 34);
	svg_fig_close(f, NULL);
}

void svg_hist_range(const struct fss_hist *const *hs, int n, double *lo_ns,
		    double *hi_ns)
{
	double lo = INFINITY, hi = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (!hs[i] || !hs[i]->count)
			continue;
		if (hs[i]->min < lo)
			lo = (double)hs[i]->min;
		if (hs[i]->max > hi)
			hi = (double)hs[i]->max;
	}
	if (!isfinite(lo) || hi <= 0) {
		*lo_ns = 1e3;
		*hi_ns = 1e6;
		return;
	}
	lo = fmax(lo, 100);		/* 0 ns phases: start at 100 ns */
	*lo_ns = pow(10, floor(log10(lo)));
	*hi_ns = pow(10, ceil(log10(fmax(hi, lo * 10))));
	if (*hi_ns <= *lo_ns)
		*hi_ns = *lo_ns * 10;
}

/* Share of samples (%) per 1/20-decade bin over [lo, hi); below lo in bin 0. */
static int bin_shares(const struct fss_hist *h, double lo, double hi, double *out)
{
	int nb = (int)lround(log10(hi / lo) * BINS_PER_DECADE), k;
	unsigned int i;

	for (k = 0; k < nb; k++)
		out[k] = 0;
	if (!h->count)
		return nb;
	for (i = 0; i < FSS_HIST_NB; i++) {
		double mid;

		if (!h->b[i])
			continue;
		mid = ((double)fss_hist_lo(i) + (double)fss_hist_hi(i == FSS_HIST_NB - 1 ?
			i - 1 : i)) / 2;
		k = mid <= lo ? 0 : (int)floor(log10(mid / lo) * BINS_PER_DECADE);
		if (k >= nb)
			k = nb - 1;
		out[k] += 100.0 * (double)h->b[i] / (double)h->count;
	}
	return nb;
}

double svg_nice_up(double v)
{
	double e, m;

	if (!(v > 0))
		return 1;
	e = pow(10, floor(log10(v)));
	m = v / e;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * e;
}

struct frame {
	int x0, y0, w, h;		/* plot area */
	double lo, hi;			/* x: ns, log */
	double ymax;
};

static double fx(const struct frame *fr, double ns)
{
	return fr->x0 + fr->w * log10(fmax(ns, fr->lo) / fr->lo) / log10(fr->hi / fr->lo);
}

static void log_x_axis(FILE *f, const struct frame *fr, const char *title)
{
	char l[32];
	double d;

	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"ax\"/>\n",
		fr->x0, fr->y0 + fr->h, fr->x0 + fr->w, fr->y0 + fr->h);
	for (d = fr->lo; d <= fr->hi * 1.001; d *= 10) {
		double x = fx(fr, d);

		dur_label(l, sizeof(l), d);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" class=\"ax\"/>"
			"<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%s</text>\n",
			x, fr->y0 + fr->h, x, fr->y0 + fr->h + 4, x, fr->y0 + fr->h + 15, l);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"axt\" text-anchor=\"middle\">%s</text>\n",
		fr->x0 + fr->w / 2, fr->y0 + fr->h + 29, title);
}

static void lin_y_axis(FILE *f, const struct frame *fr, const char *title)
{
	int t;

	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"ax\"/>\n",
		fr->x0, fr->y0, fr->x0, fr->y0 + fr->h);
	for (t = 0; t <= 2; t++) {
		double y = fr->y0 + fr->h - fr->h * t / 2.0;

		fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%.3g</text>\n",
			fr->x0 - 4, y + 4, fr->ymax * t / 2);
	}
	fprintf(f, "<text transform=\"translate(12,%d) rotate(-90)\" class=\"axt\" "
		"text-anchor=\"middle\">%s</text>\n", fr->y0 + fr->h / 2, title);
}

void svg_hist(FILE *f, const char *title, const struct fss_hist *h,
	      double lo_ns, double hi_ns, const char *color,
	      const struct svg_mark *marks, int nmarks, int small)
{
	struct frame fr = { 48, 22, small ? 250 : 560, small ? 80 : 150, lo_ns, hi_ns, 0 };
	double sh[BINS_PER_DECADE * 24], peak = 0, bw;
	int nb, k, m;
	char l[32], note[96] = "";

	if (log10(hi_ns / lo_ns) > 20)
		fr.hi = hi_ns = lo_ns * 1e20;
	nb = bin_shares(h, lo_ns, hi_ns, sh);
	for (k = 0; k < nb; k++)
		peak = fmax(peak, sh[k]);
	fr.ymax = svg_nice_up(peak);
	svg_fig_open(f, title, fr.x0 + fr.w + 28, fr.y0 + fr.h + 36, small ? "hist small" : "hist");
	lin_y_axis(f, &fr, "% of syncs");
	bw = (double)fr.w / nb;
	for (k = 0; k < nb; k++) {
		double hh = fr.h * sh[k] / fr.ymax;

		if (sh[k] <= 0)
			continue;
		fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n",
			fr.x0 + k * bw, fr.y0 + fr.h - hh, fmax(bw - 0.5, 0.5), hh, color);
	}
	for (m = 0; m < nmarks; m++) {
		double x;

		if (!isfinite(marks[m].ns))
			continue;
		x = fx(&fr, marks[m].ns);
		dur_label(l, sizeof(l), marks[m].ns);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" class=\"mark\">"
			"<title>%s %s</title></line><text x=\"%.1f\" y=\"%d\" class=\"mk\">%s</text>\n",
			x, fr.y0, x, fr.y0 + fr.h, marks[m].label, l, x + 2,
			fr.y0 + 9 + 10 * m, marks[m].label);
	}
	log_x_axis(f, &fr, "latency (log scale)");
	if (!h->count)
		snprintf(note, sizeof(note), "no samples");
	else if (h->b[0] == h->count)
		snprintf(note, sizeof(note), "all %llu at 0 ns: no time in this phase",
			 (unsigned long long)h->count);
	else if (h->b[0])
		snprintf(note, sizeof(note), "%llu of %llu at 0 ns (drawn at the left "
			 "edge)", (unsigned long long)h->b[0],
			 (unsigned long long)h->count);
	svg_fig_close(f, note);
}

void svg_hist_overlay(FILE *f, const char *title, const struct fss_hist *hs,
		      const char *const *names, int n, double lo_ns, double hi_ns)
{
	static const char *const dash[] = { "", "7 3", "2 2", "9 3 2 3" };
	static const char *const col[] = { "#000000", "#0072B2", "#D55E00", "#009E73" };
	struct frame fr = { 48, 22, 560, 170, lo_ns, hi_ns, 0 };
	double sh[4][BINS_PER_DECADE * 24], peak = 0, bw;
	int nb = 0, k, s;

	if (n > 4)
		n = 4;
	for (s = 0; s < n; s++) {
		nb = bin_shares(&hs[s], lo_ns, hi_ns, sh[s]);
		for (k = 0; k < nb; k++)
			peak = fmax(peak, sh[s][k]);
	}
	fr.ymax = svg_nice_up(peak);
	svg_fig_open(f, title, fr.x0 + fr.w + 28, fr.y0 + fr.h + 36, "hist overlay");
	lin_y_axis(f, &fr, "% of syncs");
	bw = nb ? (double)fr.w / nb : 1;
	for (s = 0; s < n; s++) {
		fprintf(f, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\" "
			"stroke-dasharray=\"%s\" d=\"M%d %d", col[s], dash[s], fr.x0,
			fr.y0 + fr.h);
		for (k = 0; k < nb; k++) {
			double y = fr.y0 + fr.h - fr.h * sh[s][k] / fr.ymax;

			fprintf(f, " L%.1f %.1f L%.1f %.1f", fr.x0 + k * bw, y,
				fr.x0 + (k + 1) * bw, y);
		}
		fputs("\"/>\n", f);
		fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
			"stroke-width=\"1.6\" stroke-dasharray=\"%s\"/><text x=\"%d\" y=\"%d\" "
			"class=\"lbl\">", fr.x0 + fr.w - 120, fr.y0 + 4 + s * 14,
			fr.x0 + fr.w - 96, fr.y0 + 4 + s * 14, col[s], dash[s],
			fr.x0 + fr.w - 90, fr.y0 + 8 + s * 14);
		svg_esc(f, names[s]);
		fputs("</text>\n", f);
	}
	log_x_axis(f, &fr, "sync latency (log scale)");
	svg_fig_close(f, NULL);
}

void svg_timeline(FILE *f, const char *title, const struct svg_point *p,
		  size_t n, size_t omitted)
{
	struct frame fr = { 56, 12, 620, 200, 0, 0, 0 };
	double tmax = 0, lo = INFINITY, hi = 0, d;
	char note[160] = "", l[32];
	size_t i;

	for (i = 0; i < n; i++) {
		tmax = fmax(tmax, p[i].t_s);
		lo = fmin(lo, fmax(p[i].ns, 100));
		hi = fmax(hi, p[i].ns);
	}
	if (!n) {
		lo = 1e3;
		hi = 1e6;
	}
	fr.lo = pow(10, floor(log10(lo)));
	fr.hi = pow(10, ceil(log10(fmax(hi, fr.lo * 10))));
	if (tmax <= 0)
		tmax = 1;
	svg_fig_open(f, title, fr.x0 + fr.w + 12, fr.y0 + fr.h + 40, "timeline");
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"ax\"/>\n",
		fr.x0, fr.y0, fr.x0, fr.y0 + fr.h);
	for (d = fr.lo; d <= fr.hi * 1.001; d *= 10) {
		double y = fr.y0 + fr.h - fr.h * log10(d / fr.lo) / log10(fr.hi / fr.lo);

		dur_label(l, sizeof(l), d);
		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" class=\"grid\"/>"
			"<text x=\"%d\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%s</text>\n",
			fr.x0, y, fr.x0 + fr.w, y, fr.x0 - 4, y + 4, l);
	}
	for (i = 0; i < n; i++) {
		double x = fr.x0 + fr.w * p[i].t_s / tmax;
		double y = fr.y0 + fr.h - fr.h * log10(fmax(p[i].ns, fr.lo) / fr.lo) /
			   log10(fr.hi / fr.lo);
		int ph = p[i].phase >= 0 && p[i].phase < SVG_NPH ? p[i].phase : 5;

		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"1.6\" fill=\"%s\"/>\n",
			x, y, svg_phase_colors[ph]);
	}
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"ax\"/>\n",
		fr.x0, fr.y0 + fr.h, fr.x0 + fr.w, fr.y0 + fr.h);
	for (int t = 0; t <= 4; t++) {
		double x = fr.x0 + fr.w * t / 4.0;

		fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%.3g</text>\n",
			x, fr.y0 + fr.h + 15, tmax * t / 4);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"axt\" text-anchor=\"middle\">"
		"time since the first sync (s)</text>\n", fr.x0 + fr.w / 2, fr.y0 + fr.h + 30);
	fprintf(f, "<text transform=\"translate(12,%d) rotate(-90)\" class=\"axt\" "
		"text-anchor=\"middle\">sync latency (log)</text>\n", fr.y0 + fr.h / 2);
	snprintf(note, sizeof(note), "%zu syncs drawn, colour = the phase that took "
		 "most of each; %zu not drawn (downsampled to at most 20000 points)",
		 n, omitted);
	svg_fig_close(f, note);
}

void svg_ci_plot(FILE *f, const char *title, const struct svg_ci *rows, int n)
{
	const int lw = 230, pw = 420, rh = 20, top = 8;
	double m = 5;
	int i, t;

	for (i = 0; i < n; i++)
		if (isfinite(rows[i].lo) && isfinite(rows[i].hi))
			m = fmax(m, fmax(fabs(rows[i].lo), fabs(rows[i].hi)));
	m = svg_nice_up(m * 1.05);
	svg_fig_open(f, title, lw + pw + 20, top + n * rh + 44, "ci");
#define CX(v) (lw + pw * ((v) + m) / (2 * m))
	fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" class=\"zero\"/>\n",
		CX(0), top, CX(0), top + n * rh);
	for (i = 0; i < n; i++) {
		const char *c = rows[i].word > 0 ? "#D55E00" : rows[i].word < 0 ?
				"#0072B2" : "#777777";
		double y = top + i * rh + rh / 2.0;

		fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"lbl\" text-anchor=\"end\">",
			lw - 6, y + 4);
		svg_esc(f, rows[i].label);
		fputs("</text>\n", f);
		if (!isfinite(rows[i].pct) || !isfinite(rows[i].lo) || !isfinite(rows[i].hi))
			continue;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"2\"/><circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>\n",
			CX(fmax(rows[i].lo, -m)), y, CX(fmin(rows[i].hi, m)), y, c,
			CX(fmax(fmin(rows[i].pct, m), -m)), y, c);
	}
	for (t = -2; t <= 2; t++)
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%+.3g</text>\n",
			CX(m * t / 2), top + n * rh + 15, m * t / 2);
	fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"axt\" text-anchor=\"middle\">"
		"change B vs A (%%), 95 %% interval</text>\n", CX(0), top + n * rh + 32);
#undef CX
	svg_fig_close(f, NULL);
}
