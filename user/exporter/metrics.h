/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * metrics.h - the metrics model of `fsyncscope exporter`: plain C structs,
 * fixed-size tables allocated once at start, no growth per file, process
 * or sync.  Data flows one way: tracer -> attribution -> this model (via
 * fss_metrics_add_sync and friends, from the tracer's consumer thread) ->
 * a renderer (out_prom.c) that reads only a snapshot of the model.
 *
 * Series: one label set (kind, device+mountpoint, comm, cgroup; the ones not
 * chosen with --labels are left empty) holds a histogram of sync durations
 * and one per phase.  At most max_series label sets: new ones take slots as
 * they come up to max_series - 1 - min(max_series / 4, 64); past that a
 * sync is counted in the label set with comm="other" (cgroup="other") of
 * its kind and device, which use the reserved slots, and when even those
 * are taken, in one catch-all series (the last slot) with every label
 * "other".  Each sync folded is counted (series_folded_total).
 */
#ifndef __FSS_METRICS_H
#define __FSS_METRICS_H

#include <pthread.h>
#include <stdbool.h>
#include <linux/types.h>
#include "engine/attr/attr.h"

/* Upper bounds (seconds) of the histogram buckets: 1-2.5-5 per decade, 1 us to 10 s; then +Inf. */
#define FSS_M_NBOUNDS	22
extern const double fss_m_bounds[FSS_M_NBOUNDS];
extern const __u64 fss_m_bounds_ns[FSS_M_NBOUNDS];

/* --labels: which labels the sync series carry */
enum {
	FSS_ML_KIND	= 1 << 0,
	FSS_ML_DEVICE	= 1 << 1,	/* device and mountpoint */
	FSS_ML_COMM	= 1 << 2,
	FSS_ML_CGROUP	= 1 << 3,
};
#define FSS_ML_DEFAULT	(FSS_ML_KIND | FSS_ML_DEVICE)

/* "kind,device,comm" -> bits; -1 on an unknown name */
int fss_metrics_parse_labels(const char *s, unsigned int *out);

#define FSS_M_MAX_SERIES	100000
#define FSS_M_MAX_DEVS		64	/* filesystems named; more are "other" */
#define FSS_M_LABEL_LEN		128

struct fss_m_hist {
	__u64 bucket[FSS_M_NBOUNDS + 1];	/* not cumulative; last: above 10 s */
	__u64 count;
	__u64 sum_ns;
};

/* A filesystem (fs dev) syncs happen on, with the facts of its disk. */
struct fss_m_dev {
	__u32 dev;				/* fs dev_t, kernel encoding; 0: none (msync) */
	bool used;
	char name[64];				/* "sda1", "loop3", "0:45" for a non-block fs */
	char mountpoint[FSS_M_LABEL_LEN];
	char disk[64];				/* whole disk ("sda"), "" if none */
	int write_cache;			/* 1 write back, 0 write through, -1 unknown */
	int fua;				/* 1 yes, 0 no, -1 unknown */
	/* jbd2 commits of this filesystem's journal */
	struct fss_m_hist jbd2;
	__u64 jbd2_sync_commits;
};

struct fss_m_series {
	bool used;
	__u32 kind;				/* enum fss_sync_kind, or FSS_M_OTHER */
	int devidx;				/* index in devs, or -1: "other" */
	char comm[16];
	char cgroup[FSS_M_LABEL_LEN];
	struct fss_m_hist total;
	struct fss_m_hist phase[FSS_PH_MAX];	/* sum_ns of these add up to total.sum_ns */
};

#define FSS_M_OTHER	0xffffffffu

struct fss_m_info {
	char version[32];
	char kernel[128];
	char layer[8][16];			/* layer names ("sync", "fs", ...) */
	char hooks[8][32];			/* their hook sets, "n/a" when not attached */
	int nlayers;
	unsigned int sample_every;		/* --sample N; 1: every sync */
	/*
	 * who paints the syncs: the kernel (--painter kernel, one record per
	 * sync, its flush facts counted there too), or user space (from the
	 * request records)
	 */
	bool kernel_painter;
};

struct fss_metrics {
	pthread_mutex_t lock;
	unsigned int labels;			/* FSS_ML_* */
	unsigned int max_series;
	unsigned int nseries;
	struct fss_m_series *series;		/* max_series entries */
	__u32 *index;				/* open addressing: series index + 1, 0 empty */
	unsigned int index_size;		/* power of two >= 2 * max_series */
	struct fss_m_dev devs[FSS_M_MAX_DEVS];
	__u64 folded;				/* syncs counted in a folded series */
	struct fss_flush_stats flush;		/* all devices together, since start */
	__u64 events_lost;
	/* syncs traced in full / summarized in the kernel since start */
	struct fss_summ summ[FSS_SYNC_KIND_MAX];
	bool events_lost_na;			/* cannot be read: not exported */
	struct fss_m_info info;
	double start_time;			/* Unix time the exporter started */
};

/* Allocate the tables.  0 or -ENOMEM. */
int fss_metrics_init(struct fss_metrics *m, unsigned int labels, unsigned int max_series);
void fss_metrics_free(struct fss_metrics *m);

/* Facts of the filesystem dev (kernel encoding), looked up once per device. */
typedef void (*fss_m_dev_resolver)(__u32 dev, struct fss_m_dev *out);

/* One attributed sync (cgroup: its cgroup path or NULL).  Takes the lock. */
void fss_metrics_add_sync(struct fss_metrics *m, const struct fss_sync_result *r,
			  const char *cgroup, fss_m_dev_resolver resolve);
/* One jbd2 commit on fs dev, [ts, ts_end].  Takes the lock. */
void fss_metrics_add_commit(struct fss_metrics *m, __u32 dev, __u64 ns, bool sync_commit,
			    fss_m_dev_resolver resolve);
/* Flush facts since the last call, events lost since start.  Takes the lock. */
void fss_metrics_add_flush(struct fss_metrics *m, const struct fss_flush_stats *f, __u64 lost);
/* The tracer's traced / summarized counts since start.  Takes the lock. */
void fss_metrics_set_summ(struct fss_metrics *m, const struct fss_summ *by_kind);

/*
 * A copy of the model for a renderer (the lock is held only for the copy).
 * The copy shares nothing with m; free it with fss_metrics_snapshot_free.
 */
struct fss_metrics *fss_metrics_snapshot(struct fss_metrics *m);
void fss_metrics_snapshot_free(struct fss_metrics *s);

void fss_m_hist_add(struct fss_m_hist *h, __u64 ns);

#endif /* __FSS_METRICS_H */
