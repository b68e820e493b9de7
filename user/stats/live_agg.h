/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * live_agg.h - the aggregation of `trace`: attributed syncs (and journal
 * commits) into groups, by process, file, device and journal, in windows
 * (the current interval and the whole run).  Each group keeps exact sums
 * (nanoseconds) and hist.c's sparse histogram of its sync times.
 *
 * A new way of grouping syncs is a gtype with its key in (k1, k2), filled
 * in live_window_add_sync(); live_doc.c turns the groups into the document.
 * No locking here: the caller serialises (cmd_trace.c's lock).
 */
#ifndef __FSS_LIVE_AGG_H
#define __FSS_LIVE_AGG_H

#include <stdbool.h>
#include <time.h>
#include <linux/types.h>
#include "engine/attr/attr.h"
#include "lib/hist.h"

#define LIVE_NSEC	1000000000ULL

/* CLOCK_MONOTONIC in ns */
__u64 live_mono_ns(void);

/* statistics of a group of syncs */
struct gstat {
	__u64 syncs, errors;
	__u64 total_ns, max_ns;
	__u64 phase_ns[FSS_PH_MAX];
	__u64 by_kind[FSS_SYNC_KIND_MAX];
	__u64 with_flush;	/* syncs that saw a flush-class request */
	__u64 nr_flush, nr_preflush, nr_fua, nr_fua_emulated;
	__u64 with_journal;	/* syncs that waited for journal work */
	__u64 nr_journal;
	__u64 nr_incomplete;
	/* blame of these syncs (blame.h): caused by themselves, by others */
	__u64 blamed_syncs;	/* syncs that carried a blame list */
	__u64 blame_self_ns, blame_others_ns, blame_unattributed_ns;
	/* device_flush: syncs that waited for a flush seen, and of those the
	 * ones whose flushes served other traced syncs too (coalesced) */
	__u64 flush_syncs, coalesced_syncs;
	struct fss_shist h;
};

/* one attributed sync into g: every sum above and the histogram */
void live_gstat_add(struct gstat *g, const struct fss_sync_result *r);

/*
 * A quantile of a group's sync times in ns (0: none).  Percentiles come
 * from hist.c's histogram in its sparse form (64 buckets per power of two,
 * allocated as values arrive, 64-bit counts): the value reported is the
 * midpoint of its bucket, within 0.8 % of the true one and never above the
 * largest sync seen.
 */
__u64 live_quantile_ns(const struct fss_shist *h, double q);

/*
 * G_BLAMED: (fs dev << 32 | pid, cgroup id): a process that caused time in
 * others' syncs on one filesystem; its gstat's phase_ns is that time per
 * phase, total_ns the sum, syncs the syncs it was blamed in.
 */
enum gtype { G_PROC, G_FILE, G_DEV, G_JOURNAL, G_BLAMED, G_MAX };

struct group {
	__u64 k1, k2;		/* PROC: pid; FILE: dev, ino; DEV, JOURNAL: dev */
	struct gstat st;
	__u32 last_pid;		/* FILE: a process that synced it */
	__u64 sync_commits;	/* JOURNAL: commits a sync asked for */
	char comm[16];		/* BLAMED: its comm (or kernel thread's) */
	__u32 blame_flags;	/* BLAMED: FSS_BL_* (writeback) */
	__u64 last_sync;	/* BLAMED: start of the last sync counted */
	struct group *next;
};

#define TBL_BUCKETS 1024

/* a small hash table of groups */
struct table {
	struct group *b[TBL_BUCKETS];
	struct group **all;	/* insertion order, for iteration */
	int n, cap;
};

struct group *live_tbl_get(struct table *t, __u64 k1, __u64 k2);
struct group *live_tbl_find(const struct table *t, __u64 k1, __u64 k2);
/* groups of a table sorted by total sync time (caller frees the array) */
struct group **live_tbl_sorted(const struct table *t);

/* a window: the current interval, or the whole run */
struct window {
	struct gstat all;
	struct gstat kind[FSS_SYNC_KIND_MAX];
	struct table tbl[G_MAX];
	struct fss_flush_stats flush;	/* distinct flush facts, all devices */
	__u64 start_ns;			/* CLOCK_MONOTONIC */
	struct timespec start_wall;
	__u64 drops_at_start;
	/* the tracer's traced / summarized counts at the start (summ.h) */
	struct fss_summ summ_at_start[FSS_SYNC_KIND_MAX];
};

/* empty the window (freeing its groups); it starts at now (monotonic) */
void live_window_reset(struct window *w, __u64 now, __u64 drops);
/* one attributed sync into the window's totals and groups */
void live_window_add_sync(struct window *w, const struct fss_sync_result *r);
/* one journal commit on dev, of ns; sync_commit: a sync asked for it */
void live_window_add_commit(struct window *w, __u32 dev, __u64 ns,
			    bool sync_commit);
/* the flush facts the tracer counted since the last call */
void live_flush_add(struct fss_flush_stats *a, const struct fss_flush_stats *b);

#endif /* __FSS_LIVE_AGG_H */
