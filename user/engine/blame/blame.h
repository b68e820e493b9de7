/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * blame.h - who made each sync slow (docs/blame.md).
 *
 * Pure C over struct fss_event records (no libbpf, no I/O), unit tested
 * with synthetic streams (tests/unit/test_blame.c).  The tracer feeds it
 * every blame, journal and request record; for each attributed sync
 * (struct fss_sync_result from attr.c) it splits the sync's journal,
 * queue, device_write and device_flush time among the processes that
 * caused the work, each share with the counts it came from.  What cannot
 * be split is "unattributed" with a reason, never a made-up share.
 *
 * Memory is bounded: a fixed number of transactions, devices, submitters
 * and completed requests are remembered; what falls out is counted and
 * shows up as an unattributed reason.
 */
#ifndef __FSS_BLAME_H
#define __FSS_BLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <json-c/json.h>
#include "engine/attr/attr.h"

/* Most causes (processes + unattributed) reported per sync. */
#define FSS_BLAME_MAX	24

/* What the share of one cause in one phase was computed from. */
struct fss_blame_evidence {
	__u64 units;		/* journal: blocks; others: bytes */
	__u64 units_total;	/* ...of every cause in this phase */
	__u64 count;		/* journal: handles; others: requests */
	__u64 count_total;
	__u32 jtid;		/* journal: (first) jbd2 transaction */
	__u32 ntx;		/* journal: transactions waited for */
	__u32 nflush;		/* device_flush: flushes waited for */
	__u32 xfs;		/* journal: xfs checkpoints (jtid: CIL seq,
				 * units: log bytes, count: transactions) */
	__u64 tx_blocks_logged;	/* journal: jbd2_run_stats of those (0: unseen) */
	__u64 tx_handles;
};

struct fss_blame_entry {
	__u32 phase;		/* enum fss_phase */
	__u32 pid;		/* 0 with reason != NULL: unattributed */
	__u64 cgroup_id;
	__u64 blamed_ns;
	double share;		/* of the phase's time; a phase's shares sum <= 1 */
	bool self;		/* the syncing process itself */
	bool tool;		/* fsyncscope's own process (FSS_BL_TOOL) */
	__u32 flags;		/* FSS_BL_* (writeback, dirtier) */
	__u32 wb_dev;		/* FSS_BL_WB: the inode written back */
	__u64 ino;
	char comm[FSS_COMM_LEN];
	const char *reason;	/* unattributed: why (static string) */
	struct fss_blame_evidence ev;
};

/* Processes listed in a sync's coalesced flushes (the rest is counted). */
#define FSS_BLAME_COAL_MAX	8

/*
 * device_flush: the other traced syncs (of the same disk) that the flushes
 * this sync waited for served too: a flush that completed within both
 * syncs.  by[] is by process, most syncs first.
 */
struct fss_blame_coal {
	bool valid;		/* the sync waited for a flush seen */
	__u32 syncs;		/* other syncs served by the same flushes */
	__u32 n;		/* by[] used */
	__u32 unlisted;		/* syncs of processes past by[] */
	struct {
		__u32 pid, syncs;
		char comm[FSS_COMM_LEN];
	} by[FSS_BLAME_COAL_MAX];
};

struct fss_blame_list {
	struct fss_blame_entry e[FSS_BLAME_MAX];
	size_t n;		/* sorted by blamed_ns, largest first */
	__u64 self_ns, others_ns, unattributed_ns;
	struct fss_blame_coal coal;	/* device_flush entries' evidence */
};

/*
 * User space's own FSS_BL_* bit: the cause is fsyncscope's own process
 * (opts.tool_pid), shown as "fsyncscope itself", never as a neighbour.
 */
#define FSS_BL_TOOL	(1u << 16)

struct fss_comms;

struct fss_blame_opts {
	/* disk dev_t of a fs dev_t (0: unknown), as for attr */
	__u32 (*disk_of)(__u32 fs_dev, void *arg);
	void *disk_of_arg;
	/*
	 * The comm of each pid, kept by the caller across blame objects (the
	 * BPF side sends a comm once; a later test's blame still needs it);
	 * NULL: blame keeps its own.  comm_fallback (may be NULL): a name
	 * for a pid no record named, e.g. from /proc; 0 when found.
	 */
	struct fss_comms *comms;
	int (*comm_fallback)(__u32 pid, __u32 tid, char *comm, void *arg);
	void *comm_fallback_arg;
	__u32 tool_pid;		/* fsyncscope's own process (0: none) */
};

/* Counters for the warning at exit. */
struct fss_blame_stats {
	__u64 records;		/* blame records taken */
	__u64 tx_evicted;	/* transactions forgotten before use */
	__u64 contrib_folded;	/* handles of contributors past the table */
	__u64 rq_unknown;	/* completed requests with no submitter seen */
	__u64 log_overrun;	/* syncs older than the request history */
};

struct fss_blame;

struct fss_blame *fss_blame_new(const struct fss_blame_opts *opts);
void fss_blame_free(struct fss_blame *b);

/*
 * Feed one record (any type; others are ignored).  0 or -errno.  Traced
 * syncs (FSS_EV_SYNC) are remembered for the coalesced flushes.
 */
int fss_blame_add(struct fss_blame *b, const struct fss_event *ev);

/* A completed request, whole (the flight recorder's: times 0 not seen). */
struct fss_blame_rq {
	__u32 dev;			/* its disk */
	__u64 start, issue, complete;
	__u32 bytes;			/* completed */
	__u32 rqflags;			/* FSS_RQ_* at issue (0: no issue) */
};

/*
 * Feed a completed request at once, as its owner (owner: its
 * FSS_EV_RQ_OWNER, or NULL: nobody credited), start, issue and
 * completion records would, without the table of requests in flight.
 */
void fss_blame_add_done(struct fss_blame *b, const struct fss_blame_rq *q,
			const struct fss_event *owner);

/* Blame of one attributed sync into *out (overwritten).  0 or -errno. */
int fss_blame_sync(struct fss_blame *b, const struct fss_sync_result *res,
		   struct fss_blame_list *out);

void fss_blame_stats(const struct fss_blame *b, struct fss_blame_stats *st);

#endif /* __FSS_BLAME_H */
