// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * out_prom.c - Prometheus text 0.0.4 / OpenMetrics 1.0.0 renderer of the
 * metrics model.  Base units (seconds), counters end in _total, histograms
 * have _bucket{le}, _sum and _count with fixed log-spaced bounds.
 *
 * The two formats differ only in the metadata lines: OpenMetrics names a
 * counter family without its _total suffix, an info family without _info,
 * gives # UNIT, and ends with # EOF.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "exporter/out_prom.h"

struct buf {
	char *p;
	size_t len, cap;
	bool oom;
};

static void bprintf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = true;
			return;
		}
		if ((size_t)n < b->cap - b->len) {
			b->len += n;
			return;
		}
		{
			size_t cap = b->cap * 2 + n + 1;
			char *p = realloc(b->p, cap);

			if (!p) {
				b->oom = true;
				return;
			}
			b->p = p;
			b->cap = cap;
		}
	}
}

/* label value escaping: backslash, double quote, newline */
static void bescape(struct buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			bprintf(b, "\\\\");
		else if (*s == '"')
			bprintf(b, "\\\"");
		else if (*s == '\n')
			bprintf(b, "\\n");
		else
			bprintf(b, "%c", *s);
	}
}

enum mtype { T_COUNTER, T_GAUGE, T_HISTOGRAM, T_INFO };

/*
 * Metadata of one family.  name is the sample name in text format (with
 * _total for a counter, _info for an info metric).
 */
static void family(struct buf *b, enum fss_prom_fmt fmt, const char *name,
		   enum mtype type, const char *unit, const char *help)
{
	static const char *tnames[] = { "counter", "gauge", "histogram", "info" };
	char fam[128];
	size_t n = strlen(name);

	snprintf(fam, sizeof(fam), "%s", name);
	if (fmt == FSS_PROM_OPENMETRICS) {
		if (type == T_COUNTER && n > 6 && !strcmp(name + n - 6, "_total"))
			fam[n - 6] = '\0';
		if (type == T_INFO && n > 5 && !strcmp(name + n - 5, "_info"))
			fam[n - 5] = '\0';
	}
	bprintf(b, "# HELP %s %s\n", fam, help);
	bprintf(b, "# TYPE %s %s\n", fam,
		fmt == FSS_PROM_TEXT && type == T_INFO ? "gauge" : tnames[type]);
	if (fmt == FSS_PROM_OPENMETRICS && unit)
		bprintf(b, "# UNIT %s %s\n", fam, unit);
}

/* A label set ("" or "a=\"x\",b=\"y\"") built up pair by pair. */
struct lset {
	char s[1024];
	size_t n;
};

static void lset_add(struct lset *l, const char *k, const char *v)
{
	struct buf b = { NULL, 0, 0, false };

	bprintf(&b, "%s%s=\"", l->n ? "," : "", k);
	bescape(&b, v);
	bprintf(&b, "\"");
	if (!b.oom && l->n + b.len < sizeof(l->s)) {
		memcpy(l->s + l->n, b.p, b.len + 1);
		l->n += b.len;
	}
	free(b.p);
}

static void sample_u64(struct buf *b, const char *name, const struct lset *l, __u64 v)
{
	bprintf(b, "%s%s%s%s %llu\n", name, l->n ? "{" : "", l->s, l->n ? "}" : "",
		(unsigned long long)v);
}

static void sample_sec(struct buf *b, const char *name, const struct lset *l, __u64 ns)
{
	bprintf(b, "%s%s%s%s %.17g\n", name, l->n ? "{" : "", l->s, l->n ? "}" : "",
		ns / 1e9);
}

static void hist(struct buf *b, const char *name, const struct lset *l,
		 const struct fss_m_hist *h)
{
	__u64 cum = 0;

	for (int i = 0; i <= FSS_M_NBOUNDS; i++) {
		cum += h->bucket[i];
		bprintf(b, "%s_bucket{%s%sle=\"", name, l->s, l->n ? "," : "");
		if (i < FSS_M_NBOUNDS)
			bprintf(b, "%g", fss_m_bounds[i]);
		else
			bprintf(b, "+Inf");
		bprintf(b, "\"} %llu\n", (unsigned long long)cum);
	}
	bprintf(b, "%s_sum%s%s%s %.17g\n", name, l->n ? "{" : "", l->s, l->n ? "}" : "",
		h->sum_ns / 1e9);
	bprintf(b, "%s_count%s%s%s %llu\n", name, l->n ? "{" : "", l->s, l->n ? "}" : "",
		(unsigned long long)h->count);
}

static const char *dev_name(const struct fss_metrics *s, int i)
{
	return i >= 0 && s->devs[i].name[0] ? s->devs[i].name : "other";
}

static const char *dev_mnt(const struct fss_metrics *s, int i)
{
	return i >= 0 && s->devs[i].mountpoint[0] ? s->devs[i].mountpoint : "other";
}

static void series_labels(const struct fss_metrics *s, const struct fss_m_series *se,
			  struct lset *l)
{
	l->n = 0;
	l->s[0] = '\0';
	if (s->labels & FSS_ML_KIND)
		lset_add(l, "kind", se->kind == FSS_M_OTHER ? "other" : fss_sync_kind_name(se->kind));
	if (s->labels & FSS_ML_DEVICE) {
		lset_add(l, "device", dev_name(s, se->devidx));
		lset_add(l, "mountpoint", dev_mnt(s, se->devidx));
	}
	if (s->labels & FSS_ML_COMM)
		lset_add(l, "comm", se->comm);
	if (s->labels & FSS_ML_CGROUP)
		lset_add(l, "cgroup", se->cgroup);
}

static void render_syncs(struct buf *b, const struct fss_metrics *s, enum fss_prom_fmt fmt)
{
	struct lset l, lp;

	family(b, fmt, "fsyncscope_sync_duration_seconds", T_HISTOGRAM, "seconds",
	       "Duration of each sync (fsync, fdatasync, O_DSYNC write, ...), entry to return.");
	for (unsigned int i = 0; i < s->nseries; i++) {
		series_labels(s, &s->series[i], &l);
		hist(b, "fsyncscope_sync_duration_seconds", &l, &s->series[i].total);
	}
	family(b, fmt, "fsyncscope_phase_seconds_total", T_COUNTER, "seconds",
	       "Sync time spent in each phase; the phases of a sync add up to its duration.");
	for (unsigned int i = 0; i < s->nseries; i++) {
		series_labels(s, &s->series[i], &l);
		for (int p = 0; p < FSS_PH_MAX; p++) {
			lp = l;
			lset_add(&lp, "phase", fss_phase_name(p));
			sample_sec(b, "fsyncscope_phase_seconds_total", &lp,
				   s->series[i].phase[p].sum_ns);
		}
	}
	family(b, fmt, "fsyncscope_phase_duration_seconds", T_HISTOGRAM, "seconds",
	       "Time one sync spent in one phase.");
	for (unsigned int i = 0; i < s->nseries; i++) {
		series_labels(s, &s->series[i], &l);
		for (int p = 0; p < FSS_PH_MAX; p++) {
			lp = l;
			lset_add(&lp, "phase", fss_phase_name(p));
			hist(b, "fsyncscope_phase_duration_seconds", &lp, &s->series[i].phase[p]);
		}
	}
}

static void render_devs(struct buf *b, const struct fss_metrics *s, enum fss_prom_fmt fmt)
{
	struct lset l;

	family(b, fmt, "fsyncscope_jbd2_commit_duration_seconds", T_HISTOGRAM, "seconds",
	       "Duration of each jbd2 journal commit of an ext4 filesystem.");
	for (int i = 0; i < FSS_M_MAX_DEVS; i++) {
		if (!s->devs[i].used || !s->devs[i].jbd2.count)
			continue;
		l.n = 0;
		l.s[0] = '\0';
		lset_add(&l, "device", dev_name(s, i));
		lset_add(&l, "mountpoint", dev_mnt(s, i));
		hist(b, "fsyncscope_jbd2_commit_duration_seconds", &l, &s->devs[i].jbd2);
	}
	family(b, fmt, "fsyncscope_jbd2_sync_commits_total", T_COUNTER, NULL,
	       "jbd2 commits started for a sync (sync_commit set).");
	for (int i = 0; i < FSS_M_MAX_DEVS; i++) {
		if (!s->devs[i].used || !s->devs[i].jbd2.count)
			continue;
		l.n = 0;
		l.s[0] = '\0';
		lset_add(&l, "device", dev_name(s, i));
		lset_add(&l, "mountpoint", dev_mnt(s, i));
		sample_u64(b, "fsyncscope_jbd2_sync_commits_total", &l, s->devs[i].jbd2_sync_commits);
	}
	family(b, fmt, "fsyncscope_device_info", T_INFO, NULL,
	       "A filesystem syncs were seen on, its disk, the disk's write cache and FUA.");
	for (int i = 0; i < FSS_M_MAX_DEVS; i++) {
		const struct fss_m_dev *d = &s->devs[i];

		if (!d->used || !d->dev)
			continue;
		l.n = 0;
		l.s[0] = '\0';
		lset_add(&l, "device", dev_name(s, i));
		lset_add(&l, "mountpoint", dev_mnt(s, i));
		lset_add(&l, "disk", d->disk[0] ? d->disk : "none");
		lset_add(&l, "write_cache", d->write_cache < 0 ? "unknown" :
			 d->write_cache ? "write back" : "write through");
		lset_add(&l, "fua", d->fua < 0 ? "unknown" : d->fua ? "yes" : "no");
		sample_u64(b, "fsyncscope_device_info", &l, 1);
	}
}

static void counter(struct buf *b, enum fss_prom_fmt fmt, const char *name,
		    const char *help, __u64 v)
{
	struct lset none = { "", 0 };

	family(b, fmt, name, T_COUNTER, NULL, help);
	sample_u64(b, name, &none, v);
}

static void render_flush(struct buf *b, const struct fss_metrics *s, enum fss_prom_fmt fmt)
{
	const struct fss_flush_stats *f = &s->flush;

	counter(b, fmt, "fsyncscope_flushes_total",
		"Distinct cache flush requests that served at least one sync.", f->flushes);
	counter(b, fmt, "fsyncscope_flush_syncs_served_total",
		"Sum over flushes of the syncs each served (divide by flushes: syncs per flush).",
		f->flush_sync_refs);
	counter(b, fmt, "fsyncscope_syncs_without_flush_total",
		"Syncs that saw no flush request.", f->syncs_no_flush);
	counter(b, fmt, "fsyncscope_fua_writes_total",
		"Distinct writes issued with native FUA for a sync.", f->fua_writes);
	counter(b, fmt, "fsyncscope_fua_emulated_writes_total",
		"Distinct FUA writes the block layer emulated with a post-flush.", f->fua_emulated);
	counter(b, fmt, "fsyncscope_preflush_requests_total",
		"Distinct requests that asked for a preflush.", f->preflush);
	counter(b, fmt, "fsyncscope_nvme_flush_commands_total",
		"Distinct NVMe Flush commands seen for syncs.", f->nvme_flush_cmds);
}

/*
 * Overload by design (docs/hotpath.md): syncs traced in full, and syncs
 * summarized in the kernel, by kind and why (fixed label sets, only the
 * kinds seen; the summarized are not in the histograms)
 */
static void render_summ(struct buf *b, const struct fss_metrics *s,
			enum fss_prom_fmt fmt)
{
	struct lset l = { "", 0 };

	family(b, fmt, "fsyncscope_syncs_traced_in_full_total", T_COUNTER, NULL,
	       "Syncs whose record the kernel sent, by kind.");
	for (int k = 0; k < FSS_SYNC_KIND_MAX; k++) {
		if (!s->summ[k].syncs[FSS_SUMM_TRACED])
			continue;
		l.n = 0;
		l.s[0] = '\0';
		lset_add(&l, "kind", fss_sync_kind_name(k));
		sample_u64(b, "fsyncscope_syncs_traced_in_full_total", &l,
			   s->summ[k].syncs[FSS_SUMM_TRACED]);
	}
	family(b, fmt, "fsyncscope_syncs_summarized_total", T_COUNTER, NULL,
	       "Syncs not in the histograms: only counted in the kernel under "
	       "overload or --sample, or not painted by it (--painter kernel), "
	       "by kind and reason.");
	for (int k = 0; k < FSS_SYNC_KIND_MAX; k++)
		for (int w = FSS_SUMM_RING_HIGH; w < FSS_SUMM_WHY_MAX; w++) {
			if (!s->summ[k].syncs[w])
				continue;
			l.n = 0;
			l.s[0] = '\0';
			lset_add(&l, "kind", fss_sync_kind_name(k));
			lset_add(&l, "reason", fss_summ_why_name(w));
			sample_u64(b, "fsyncscope_syncs_summarized_total", &l,
				   s->summ[k].syncs[w]);
		}
}

static void render_self(struct buf *b, const struct fss_metrics *s, enum fss_prom_fmt fmt)
{
	struct lset l = { "", 0 };

	if (!s->events_lost_na)		/* unreadable: absent, never a made-up 0 */
		counter(b, fmt, "fsyncscope_events_lost_total",
			"Tracer events lost (ring buffer full or programs skipped) since start.",
			s->events_lost);
	render_summ(b, s, fmt);
	family(b, fmt, "fsyncscope_sample_every", T_GAUGE, NULL,
	       "1 in this many syncs is traced in full (--sample; 1: every "
	       "sync); the others count only in "
	       "fsyncscope_syncs_summarized_total{reason=\"sampled\"}.");
	sample_u64(b, "fsyncscope_sample_every", &l, s->info.sample_every ?
		   s->info.sample_every : 1);
	counter(b, fmt, "fsyncscope_series_folded_total",
		"Syncs counted in a folded series (comm=\"other\") because --max-series was reached.",
		s->folded);
	family(b, fmt, "fsyncscope_series", T_GAUGE, NULL,
	       "Label sets in use by the sync histograms (at most --max-series).");
	sample_u64(b, "fsyncscope_series", &l, s->nseries);
	family(b, fmt, "fsyncscope_start_time_seconds", T_GAUGE, "seconds",
	       "Unix time the exporter started.");
	bprintf(b, "fsyncscope_start_time_seconds %.3f\n", s->start_time);
	family(b, fmt, "fsyncscope_build_info", T_INFO, NULL,
	       "fsyncscope version and the running kernel.");
	lset_add(&l, "version", s->info.version);
	lset_add(&l, "kernel", s->info.kernel);
	sample_u64(b, "fsyncscope_build_info", &l, 1);
	l.n = 0;
	l.s[0] = '\0';
	family(b, fmt, "fsyncscope_painter_info", T_INFO, NULL,
	       "Who splits the syncs into phases and counts their flushes: "
	       "user (from the request records) or kernel (--painter kernel, "
	       "one record per sync).");
	lset_add(&l, "painter", s->info.kernel_painter ? "kernel" : "user");
	sample_u64(b, "fsyncscope_painter_info", &l, 1);
	l.n = 0;
	l.s[0] = '\0';
	family(b, fmt, "fsyncscope_attach_info", T_INFO, NULL,
	       "How each tracer layer is attached (hooks \"n/a\": not attached).");
	for (int i = 0; i < s->info.nlayers; i++) {
		l.n = 0;
		l.s[0] = '\0';
		lset_add(&l, "layer", s->info.layer[i]);
		lset_add(&l, "hooks", s->info.hooks[i]);
		sample_u64(b, "fsyncscope_attach_info", &l, 1);
	}
}

char *fss_prom_render(const struct fss_metrics *s, enum fss_prom_fmt fmt, size_t *len)
{
	struct buf b = { NULL, 0, 0, false };

	b.cap = 65536;
	b.p = malloc(b.cap);
	if (!b.p)
		return NULL;
	b.p[0] = '\0';
	render_syncs(&b, s, fmt);
	render_devs(&b, s, fmt);
	render_flush(&b, s, fmt);
	render_self(&b, s, fmt);
	if (fmt == FSS_PROM_OPENMETRICS)
		bprintf(&b, "# EOF\n");
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	*len = b.len;
	return b.p;
}

enum fss_prom_fmt fss_prom_negotiate(const char *accept)
{
	return accept && strstr(accept, "application/openmetrics-text") ?
	       FSS_PROM_OPENMETRICS : FSS_PROM_TEXT;
}

const char *fss_prom_content_type(enum fss_prom_fmt fmt)
{
	return fmt == FSS_PROM_OPENMETRICS ?
	       "application/openmetrics-text; version=1.0.0; charset=utf-8" :
	       "text/plain; version=0.0.4; charset=utf-8";
}
