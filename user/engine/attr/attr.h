/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * attr.h - attribution ("painting") of sync timelines into phases.
 *
 * Pure C over struct fss_event records: no libbpf, no I/O, so it is unit
 * tested with synthetic event streams (tests/unit/test_attr.c).
 *
 * Model (docs/model.md): one sync = one interval [ts, ts_end] of one thread.
 * Every instant of it is painted with the highest-priority phase active
 * then: device_flush > device_write > queue > journal > fs; what is left is
 * "other".  The phases of a sync therefore add up exactly to its total.
 */
#ifndef __FSS_ATTR_H
#define __FSS_ATTR_H

#include <stdbool.h>
#include <linux/types.h>
#include "fsyncscope.h"
#include "lib/phase.h"


/* "fsync", "fdatasync", "sync_file_range", "msync", "syncfs", "dsync_write", "io_uring_fsync" */
const char *fss_sync_kind_name(enum fss_sync_kind kind);
/* why a sync was summarized: "traced", "ring_high", ... ("?" out of range) */
const char *fss_summ_why_name(enum fss_summ_why why);

/*
 * What a sync was made of, when fss_attr_opts.detail asks for it (the
 * --events records, for timelines): the painted stretches in time order
 * (they cover [start, start + total) exactly), the requests painted into
 * it and the journal commits it overlapped.  Valid during the callback.
 */
struct fss_seg {
	__u64 from, to;			/* CLOCK_MONOTONIC ns */
	__u32 phase;			/* enum fss_phase */
};

enum fss_rq_class { FSS_RQC_WRITE, FSS_RQC_FLUSH, FSS_RQC_FUA, FSS_RQC_PREFLUSH };

struct fss_rq_span {
	__u64 id;			/* the kernel's request pointer */
	__u32 dev;			/* disk dev_t (kernel encoding) */
	__u32 cls;			/* enum fss_rq_class */
	__u64 start;			/* created/inserted, else issued */
	__u64 issue;			/* 0: not seen issued */
	__u64 end;			/* completed, else where painting stopped */
	bool completed;
};

struct fss_jnl_span {
	__u32 dev;			/* fs dev_t */
	__u64 first, end;
};

struct fss_sync_detail {
	const struct fss_seg *seg;
	size_t nseg;
	const struct fss_rq_span *rq;
	size_t nrq;
	const struct fss_jnl_span *jnl;
	size_t njnl;
};

struct fss_blame_list;

struct fss_sync_result {
	__u64 start;			/* sync entry, CLOCK_MONOTONIC ns */
	__u64 total;			/* ts_end - ts */
	__u64 phase_ns[FSS_PH_MAX];	/* sums exactly to total */
	__u32 tid, pid;
	__u32 kind;			/* enum fss_sync_kind */
	__u32 dev;			/* fs dev_t (kernel encoding) */
	__u64 ino;
	__s32 ret;
	/* requests attributed to this sync */
	__u32 nr_rq;			/* all attributed requests */
	__u32 nr_write;			/* write requests (non-flush class) */
	__u32 nr_flush;			/* REQ_OP_FLUSH requests (pure flushes) */
	__u32 nr_preflush;		/* requests that asked for PREFLUSH at start */
	__u32 nr_fua;			/* writes issued with FUA (native FUA) */
	__u32 nr_fua_emulated;		/* asked FUA at start, issued without: post-flush */
	__u32 nr_incomplete;		/* requests with no completion seen; clipped at sync exit */
	__u32 nr_started;		/* requests whose creation/insert was seen (their queue
					 * time and creation flags are known) */
	__u32 nr_journal;		/* journal commits overlapping this sync */
	bool journal_seen;		/* a journal interval was painted */
	bool device_flush_from_nvme;	/* flush time came from NVMe Flush commands */
	bool flush_seen;		/* a flush-class request was painted
					 * (fss_flush_stats.syncs_with_flush) */
	/*
	 * its breakdown, nr_flush and flush_seen are the kernel's (--painter
	 * kernel): no request record, so the other request and commit
	 * counts are n/a, not 0
	 */
	bool kernel_painted;
	/* the kernel's painter (FSYNCSCOPE_KPAINT), when kflags & FSS_KP_VALID */
	__u32 kflags;			/* FSS_KP_* */
	__u64 kphase_ns[FSS_PH_MAX];
	/* and its flush facts: pure flushes, flush-class requests overlapped */
	__u32 knflush, kflushy;
	char comm[FSS_COMM_LEN];
	const struct fss_sync_detail *detail;	/* NULL unless opts.detail */
	/* who caused its time (blame.h), set by the tracer; NULL: no blame */
	const struct fss_blame_list *blame;
};

/*
 * A sync record's own facts (times, who, what, the kernel's phases when
 * it painted them) into res, the rest zero: no phase, no request.
 */
void fss_sync_result_of(const struct fss_event *ev, struct fss_sync_result *res);

/* Per-device flush facts accumulated over all drained syncs. */
struct fss_flush_stats {
	__u64 flushes;			/* distinct pure flush requests attributed to >= 1 sync */
	__u64 flush_sync_refs;		/* sum over those flushes of syncs served */
	__u64 syncs;			/* syncs drained */
	__u64 syncs_with_flush;		/* syncs that saw >= 1 flush-class request */
	__u64 syncs_no_flush;		/* syncs with no flush request seen ("elided" candidates) */
	__u64 fua_writes;		/* distinct native FUA writes */
	__u64 fua_emulated;		/* distinct FUA writes emulated by post-flush */
	__u64 preflush;			/* distinct requests that asked for PREFLUSH */
	__u64 nvme_flush_cmds;		/* distinct NVMe Flush commands (opcode 0) */
	__u64 incomplete;		/* distinct requests attributed with no completion seen */
};

struct fss_attr_opts {
	/*
	 * Disk dev_t (kernel encoding) that each fs dev maps to, for joining
	 * syncs (fs dev) with requests (disk dev).  Called for a sync's dev;
	 * return 0 if unknown (then any request dev is accepted for that sync).
	 */
	__u32 (*disk_of)(__u32 fs_dev, void *arg);
	void *disk_of_arg;
	bool detail;		/* fill fss_sync_result.detail */
};

struct fss_attr;

typedef void (*fss_sync_cb)(const struct fss_sync_result *res, void *arg);

struct fss_attr *fss_attr_new(const struct fss_attr_opts *opts);
void fss_attr_free(struct fss_attr *a);

/* Feed one record (any order within reason; records are copied). 0 or -errno */
int fss_attr_add(struct fss_attr *a, const struct fss_event *ev);

/*
 * Attribute and report every sync whose ts_end <= horizon (use UINT64_MAX
 * at the end of a run), calling cb once per sync in ts_end order; then
 * forget events that can no longer matter to a later sync.  Returns the
 * number of syncs reported or -errno.
 */
int fss_attr_drain(struct fss_attr *a, __u64 horizon, fss_sync_cb cb, void *arg);

/*
 * A sync began at ts and has not returned yet (its record comes at its
 * exit): keep everything that overlaps [ts, now) until told otherwise.
 * 0: no sync known to be in flight.  Without it, events that ended more
 * than the slack (250 ms) before the horizon are forgotten, and a longer
 * sync would lose its early requests.
 */
void fss_attr_hold(struct fss_attr *a, __u64 ts);

/*
 * Requests whose beginning was seen and whose completion was not (yet),
 * not counting those ended by a reuse of their id: what a caller about to
 * drain everything may wait a little for.
 */
size_t fss_attr_open_rqs(const struct fss_attr *a);

/* Flush facts so far (all devices together). */
void fss_attr_flush_stats(const struct fss_attr *a, struct fss_flush_stats *st);
void fss_attr_reset_stats(struct fss_attr *a);

#endif /* __FSS_ATTR_H */
