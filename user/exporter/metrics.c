// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * metrics.c - the metrics model of `fsyncscope exporter` (see metrics.h):
 * fixed tables filled from the tracer's consumer thread, copied out for
 * the renderers.  No I/O here except through the caller's device resolver.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "exporter/metrics.h"

const double fss_m_bounds[FSS_M_NBOUNDS] = {
	1e-6, 2.5e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4,
	1e-3, 2.5e-3, 5e-3, 1e-2, 2.5e-2, 5e-2, 0.1, 0.25, 0.5,
	1, 2.5, 5, 10,
};

const __u64 fss_m_bounds_ns[FSS_M_NBOUNDS] = {
	1000ULL, 2500ULL, 5000ULL, 10000ULL, 25000ULL, 50000ULL,
	100000ULL, 250000ULL, 500000ULL, 1000000ULL, 2500000ULL, 5000000ULL,
	10000000ULL, 25000000ULL, 50000000ULL, 100000000ULL, 250000000ULL,
	500000000ULL, 1000000000ULL, 2500000000ULL, 5000000000ULL,
	10000000000ULL,
};

int fss_metrics_parse_labels(const char *s, unsigned int *out)
{
	static const struct { const char *name; unsigned int bit; } names[] = {
		{ "kind", FSS_ML_KIND }, { "device", FSS_ML_DEVICE },
		{ "comm", FSS_ML_COMM }, { "cgroup", FSS_ML_CGROUP },
	};
	unsigned int bits = 0;
	const char *p = s;

	while (*p) {
		size_t n = strcspn(p, ",");
		bool found = false;

		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			if (strlen(names[i].name) == n && !strncmp(p, names[i].name, n)) {
				bits |= names[i].bit;
				found = true;
			}
		}
		if (!found)
			return -1;
		p += n;
		if (*p == ',' && *++p == '\0')
			return -1;
	}
	*out = bits;
	return 0;
}

int fss_metrics_init(struct fss_metrics *m, unsigned int labels, unsigned int max_series)
{
	memset(m, 0, sizeof(*m));
	pthread_mutex_init(&m->lock, NULL);
	m->labels = labels;
	m->max_series = max_series;
	m->index_size = 16;
	while (m->index_size < 2 * max_series)
		m->index_size <<= 1;
	m->series = calloc(max_series, sizeof(*m->series));
	m->index = calloc(m->index_size, sizeof(*m->index));
	if (!m->series || !m->index) {
		fss_metrics_free(m);
		return -ENOMEM;
	}
	return 0;
}

void fss_metrics_free(struct fss_metrics *m)
{
	free(m->series);
	free(m->index);
	m->series = NULL;
	m->index = NULL;
	pthread_mutex_destroy(&m->lock);
}

void fss_m_hist_add(struct fss_m_hist *h, __u64 ns)
{
	int lo = 0, hi = FSS_M_NBOUNDS;

	/* first bound >= ns ("le" is inclusive); FSS_M_NBOUNDS: +Inf */
	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (fss_m_bounds_ns[mid] >= ns)
			hi = mid;
		else
			lo = mid + 1;
	}
	h->bucket[lo]++;
	h->count++;
	h->sum_ns += ns;
}

/* Index in devs of fs dev, resolving it the first time; -1: table full. */
static int dev_index(struct fss_metrics *m, __u32 dev, fss_m_dev_resolver resolve)
{
	for (int i = 0; i < FSS_M_MAX_DEVS; i++) {
		struct fss_m_dev *d = &m->devs[i];

		if (d->used && d->dev == dev)
			return i;
		if (!d->used) {
			memset(d, 0, sizeof(*d));
			d->dev = dev;
			d->write_cache = -1;
			d->fua = -1;
			if (!dev) {	/* msync records carry no file */
				snprintf(d->name, sizeof(d->name), "none");
				snprintf(d->mountpoint, sizeof(d->mountpoint), "none");
			} else if (resolve) {
				resolve(dev, d);
			}
			d->used = true;
			return i;
		}
	}
	return -1;
}

struct key {
	__u32 kind;
	int devidx;
	const char *comm;
	const char *cgroup;
};

static unsigned int key_hash(const struct key *k)
{
	unsigned int h = 2166136261u;
	const char *s;

	h = (h ^ k->kind) * 16777619u;
	h = (h ^ (unsigned int)k->devidx) * 16777619u;
	for (s = k->comm; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	h = (h ^ 0xff) * 16777619u;
	for (s = k->cgroup; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static bool key_eq(const struct fss_m_series *s, const struct key *k)
{
	return s->kind == k->kind && s->devidx == k->devidx &&
	       !strcmp(s->comm, k->comm) && !strcmp(s->cgroup, k->cgroup);
}

/* The series of key k, created if there is room below limit; NULL if not. */
static struct fss_m_series *series_get(struct fss_metrics *m, const struct key *k,
				       unsigned int limit)
{
	unsigned int mask = m->index_size - 1, i = key_hash(k) & mask;
	struct fss_m_series *s;

	for (;; i = (i + 1) & mask) {
		__u32 v = m->index[i];

		if (!v)
			break;
		if (key_eq(&m->series[v - 1], k))
			return &m->series[v - 1];
	}
	if (m->nseries >= limit)
		return NULL;
	s = &m->series[m->nseries];
	s->used = true;
	s->kind = k->kind;
	s->devidx = k->devidx;
	snprintf(s->comm, sizeof(s->comm), "%s", k->comm);
	snprintf(s->cgroup, sizeof(s->cgroup), "%s", k->cgroup);
	m->index[i] = ++m->nseries;
	return s;
}

void fss_metrics_add_sync(struct fss_metrics *m, const struct fss_sync_result *r,
			  const char *cgroup, fss_m_dev_resolver resolve)
{
	struct fss_m_series *s;
	struct key k = { 0, -1, "", "" };
	/*
	 * New label sets take slots as they come up to max - 1 - reserve; the
	 * reserve (a quarter, at most 64) is for the folded comm="other"
	 * series of each kind and device, the last slot for the catch-all.
	 */
	unsigned int reserve = m->max_series / 4 < 64 ? m->max_series / 4 : 64;
	unsigned int room = m->max_series - 1 - reserve;
	char comm[sizeof(r->comm) + 1];

	pthread_mutex_lock(&m->lock);
	if (m->labels & FSS_ML_KIND)
		k.kind = r->kind;
	if (m->labels & FSS_ML_DEVICE)
		k.devidx = dev_index(m, r->dev, resolve);
	if (m->labels & FSS_ML_COMM) {
		snprintf(comm, sizeof(comm), "%.*s", (int)sizeof(r->comm), r->comm);
		k.comm = comm;
	}
	if (m->labels & FSS_ML_CGROUP)
		k.cgroup = cgroup && *cgroup ? cgroup : "unknown";
	s = series_get(m, &k, room);
	if (!s) {
		m->folded++;
		if (m->labels & FSS_ML_COMM)
			k.comm = "other";
		if (m->labels & FSS_ML_CGROUP)
			k.cgroup = "other";
		s = series_get(m, &k, m->max_series - 1);
	}
	if (!s) {
		struct key all = { FSS_M_OTHER, -1, "other", "other" };

		s = series_get(m, &all, m->max_series);
	}
	if (s) {
		fss_m_hist_add(&s->total, r->total);
		for (int p = 0; p < FSS_PH_MAX; p++)
			fss_m_hist_add(&s->phase[p], r->phase_ns[p]);
	}
	pthread_mutex_unlock(&m->lock);
}

void fss_metrics_add_commit(struct fss_metrics *m, __u32 dev, __u64 ns, bool sync_commit,
			    fss_m_dev_resolver resolve)
{
	int i;

	pthread_mutex_lock(&m->lock);
	i = dev_index(m, dev, resolve);
	if (i >= 0) {
		fss_m_hist_add(&m->devs[i].jbd2, ns);
		if (sync_commit)
			m->devs[i].jbd2_sync_commits++;
	}
	pthread_mutex_unlock(&m->lock);
}

void fss_metrics_add_flush(struct fss_metrics *m, const struct fss_flush_stats *f, __u64 lost)
{
	pthread_mutex_lock(&m->lock);
	m->flush.flushes += f->flushes;
	m->flush.flush_sync_refs += f->flush_sync_refs;
	m->flush.syncs += f->syncs;
	m->flush.syncs_with_flush += f->syncs_with_flush;
	m->flush.syncs_no_flush += f->syncs_no_flush;
	m->flush.fua_writes += f->fua_writes;
	m->flush.fua_emulated += f->fua_emulated;
	m->flush.preflush += f->preflush;
	m->flush.nvme_flush_cmds += f->nvme_flush_cmds;
	m->events_lost = lost;
	pthread_mutex_unlock(&m->lock);
}

void fss_metrics_set_summ(struct fss_metrics *m, const struct fss_summ *by_kind)
{
	pthread_mutex_lock(&m->lock);
	memcpy(m->summ, by_kind, sizeof(m->summ));
	pthread_mutex_unlock(&m->lock);
}

struct fss_metrics *fss_metrics_snapshot(struct fss_metrics *m)
{
	struct fss_metrics *s = malloc(sizeof(*s));

	if (!s)
		return NULL;
	pthread_mutex_lock(&m->lock);
	*s = *m;
	s->index = NULL;
	s->series = malloc((m->nseries ? m->nseries : 1) * sizeof(*s->series));
	if (s->series)
		memcpy(s->series, m->series, m->nseries * sizeof(*s->series));
	pthread_mutex_unlock(&m->lock);
	if (!s->series) {
		free(s);
		return NULL;
	}
	return s;
}

void fss_metrics_snapshot_free(struct fss_metrics *s)
{
	if (!s)
		return;
	free(s->series);
	free(s);
}
