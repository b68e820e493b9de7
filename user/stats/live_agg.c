// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * live_agg.c - `trace`'s aggregation: groups of syncs by process, file,
 * device and journal, in windows (live_agg.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "stats/live_agg.h"
#include "engine/blame/blame.h"

__u64 live_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * LIVE_NSEC + ts.tv_nsec;
}

__u64 live_quantile_ns(const struct fss_shist *h, double q)
{
	double v = fss_shist_quantile_ns(h, q);

	return isfinite(v) ? (__u64)llround(v) : 0;
}

/* ---- per-group statistics ---- */

static bool saw_flush(const struct fss_sync_result *r)
{
	/* the kernel painter counts flush-class requests, not their kinds */
	if (r->kernel_painted)
		return r->flush_seen || r->phase_ns[FSS_PH_DEV_FLUSH];
	return r->nr_flush || r->nr_preflush || r->nr_fua_emulated ||
	       r->phase_ns[FSS_PH_DEV_FLUSH];
}

void live_gstat_add(struct gstat *g, const struct fss_sync_result *r)
{
	g->syncs++;
	if (r->ret < 0)
		g->errors++;
	g->total_ns += r->total;
	if (r->total > g->max_ns)
		g->max_ns = r->total;
	for (int p = 0; p < FSS_PH_MAX; p++)
		g->phase_ns[p] += r->phase_ns[p];
	if (r->kind < FSS_SYNC_KIND_MAX)
		g->by_kind[r->kind]++;
	if (saw_flush(r))
		g->with_flush++;
	g->nr_flush += r->nr_flush;
	g->nr_preflush += r->nr_preflush;
	g->nr_fua += r->nr_fua;
	g->nr_fua_emulated += r->nr_fua_emulated;
	if (r->journal_seen)
		g->with_journal++;
	g->nr_journal += r->nr_journal;
	g->nr_incomplete += r->nr_incomplete;
	if (r->blame) {
		g->blamed_syncs++;
		g->blame_self_ns += r->blame->self_ns;
		g->blame_others_ns += r->blame->others_ns;
		g->blame_unattributed_ns += r->blame->unattributed_ns;
		g->flush_syncs += r->blame->coal.valid;
		g->coalesced_syncs += r->blame->coal.syncs > 0;
	}
	fss_shist_add(&g->h, r->total);
}

/* The time each cause of r's blame caused in another process's sync. */
static void blamed_add(struct window *w, const struct fss_sync_result *r)
{
	for (size_t i = 0; r->blame && i < r->blame->n; i++) {
		const struct fss_blame_entry *x = &r->blame->e[i];
		struct group *g;

		if (x->reason || x->self || x->pid == r->pid)
			continue;
		g = live_tbl_get(&w->tbl[G_BLAMED],
				 ((__u64)r->dev << 32) | x->pid, x->cgroup_id);
		if (!g)
			continue;
		memcpy(g->comm, x->comm, sizeof(g->comm));
		g->blame_flags = x->flags;
		g->st.phase_ns[x->phase] += x->blamed_ns;
		g->st.total_ns += x->blamed_ns;
		if (g->last_pid != r->tid || g->last_sync != r->start) {
			g->st.syncs++;	/* once per sync */
			g->last_pid = r->tid;
			g->last_sync = r->start;
		}
	}
}

/* A journal commit is a "sync" of the journal thread: same statistics. */
static void gstat_add_interval(struct gstat *g, __u64 ns)
{
	g->syncs++;
	g->total_ns += ns;
	if (ns > g->max_ns)
		g->max_ns = ns;
	fss_shist_add(&g->h, ns);
}

/* ---- a small hash table of groups ---- */

static unsigned int tbl_hash(__u64 k1, __u64 k2)
{
	__u64 h = k1 * 0x9e3779b97f4a7c15ULL ^ (k2 + 0x632be59bd9b4e019ULL) * 0xbf58476d1ce4e5b9ULL;

	return (h >> 32) % TBL_BUCKETS;
}

struct group *live_tbl_get(struct table *t, __u64 k1, __u64 k2)
{
	unsigned int h = tbl_hash(k1, k2);
	struct group *g;

	for (g = t->b[h]; g; g = g->next)
		if (g->k1 == k1 && g->k2 == k2)
			return g;
	if (t->n == t->cap) {
		int cap = t->cap ? t->cap * 2 : 64;
		struct group **a = realloc(t->all, cap * sizeof(*a));

		if (!a)
			return NULL;
		t->all = a;
		t->cap = cap;
	}
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->k1 = k1;
	g->k2 = k2;
	g->next = t->b[h];
	t->b[h] = g;
	t->all[t->n++] = g;
	return g;
}

struct group *live_tbl_find(const struct table *t, __u64 k1, __u64 k2)
{
	struct group *g;

	for (g = t->b[tbl_hash(k1, k2)]; g; g = g->next)
		if (g->k1 == k1 && g->k2 == k2)
			return g;
	return NULL;
}

static void tbl_free(struct table *t)
{
	for (int i = 0; i < t->n; i++) {
		fss_shist_free(&t->all[i]->st.h);
		free(t->all[i]);
	}
	free(t->all);
	memset(t, 0, sizeof(*t));
}

/* ---- windows: the current interval, and the whole run ---- */

void live_window_reset(struct window *w, __u64 now, __u64 drops)
{
	fss_shist_free(&w->all.h);
	for (int k = 0; k < FSS_SYNC_KIND_MAX; k++)
		fss_shist_free(&w->kind[k].h);
	for (int i = 0; i < G_MAX; i++)
		tbl_free(&w->tbl[i]);
	memset(w, 0, sizeof(*w));
	w->start_ns = now;
	clock_gettime(CLOCK_REALTIME, &w->start_wall);
	w->drops_at_start = drops;
}

void live_flush_add(struct fss_flush_stats *a, const struct fss_flush_stats *b)
{
	a->flushes += b->flushes;
	a->flush_sync_refs += b->flush_sync_refs;
	a->syncs += b->syncs;
	a->syncs_with_flush += b->syncs_with_flush;
	a->syncs_no_flush += b->syncs_no_flush;
	a->fua_writes += b->fua_writes;
	a->fua_emulated += b->fua_emulated;
	a->preflush += b->preflush;
	a->nvme_flush_cmds += b->nvme_flush_cmds;
}
/* ---- order ---- */

static int cmp_total(const void *a, const void *b)
{
	const struct group *x = *(const struct group **)a, *y = *(const struct group **)b;

	if (x->st.total_ns != y->st.total_ns)
		return x->st.total_ns < y->st.total_ns ? 1 : -1;
	if (x->k1 != y->k1)
		return x->k1 < y->k1 ? -1 : 1;
	return x->k2 < y->k2 ? -1 : x->k2 > y->k2;
}

struct group **live_tbl_sorted(const struct table *t)
{
	struct group **a;

	if (!t->n)
		return NULL;
	a = malloc(t->n * sizeof(*a));
	if (!a)
		return NULL;
	memcpy(a, t->all, t->n * sizeof(*a));
	qsort(a, t->n, sizeof(*a), cmp_total);
	return a;
}

/* One attributed sync into the window: its totals, kind and groups. */
void live_window_add_sync(struct window *w, const struct fss_sync_result *r)
{
	struct group *g;

	live_gstat_add(&w->all, r);
	if (r->kind < FSS_SYNC_KIND_MAX)
		live_gstat_add(&w->kind[r->kind], r);
	g = live_tbl_get(&w->tbl[G_PROC], r->pid, 0);
	if (g)
		live_gstat_add(&g->st, r);
	blamed_add(w, r);
	g = live_tbl_get(&w->tbl[G_FILE], r->dev, r->ino);
	if (g) {
		live_gstat_add(&g->st, r);
		g->last_pid = r->pid;
	}
	/* msync records carry no file, hence no device */
	g = r->dev ? live_tbl_get(&w->tbl[G_DEV], r->dev, 0) : NULL;
	if (g)
		live_gstat_add(&g->st, r);
}

void live_window_add_commit(struct window *w, __u32 dev, __u64 ns,
			    bool sync_commit)
{
	struct group *g = live_tbl_get(&w->tbl[G_JOURNAL], dev, 0);

	if (!g)
		return;
	gstat_add_interval(&g->st, ns);
	if (sync_commit)
		g->sync_commits++;
}
