/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * checkpoint.h - PostgreSQL checkpoints seen in the checkpointer's syncs.
 * Pure C over per-sync records, fed in time order.
 *
 * A checkpoint (CreateCheckPoint, PostgreSQL 15) syncs in this order: the
 * write phase (buffer writes; sync_file_range writeback hints; WAL
 * fdatasyncs before dirty pages whose WAL is not yet flushed), then the
 * sync phase (ProcessSyncRequests: one fsync per file written since the
 * last checkpoint; what log_checkpoints counts as "sync files=N,
 * longest=, average="), then the checkpoint record's WAL flush (an
 * fdatasync), pg_control (fsync) and recycled WAL segments (fsyncs).
 *
 * So a checkpoint's sync burst is a run of the checkpointer's fsyncs of
 * anything but WAL segments and pg_control, ended by its fdatasync of the
 * checkpoint record or, when a backend flushed the WAL past that record
 * first, by the fsync of pg_control (the checkpoint is then "complete").
 * Syncs after that are its tail (pg_control, recycled segments), not the
 * burst.  The
 * checkpoint is listed when the checkpointer has been quiet for GAP.
 * A run followed by writeback hints (sync_file_range) instead belongs to
 * the start of the write phase (the relation map, replication origins,
 * ... are fsynced before the buffers are written): it is not listed, and
 * counted as the next checkpoint's pre_syncs.  A run with no WAL flush
 * after it, cut by a gap over GAP or by the end of the trace, is listed
 * with complete = false.
 */
#ifndef __FSS_CHECKPOINT_H
#define __FSS_CHECKPOINT_H

#include <stdbool.h>
#include <linux/types.h>
#include "db/fileclass.h"
#include "fsyncscope.h"

#define FSS_CKPT_PH	6	/* = FSS_PH_MAX of attr.h */
#define FSS_CKPT_GAP_NS	1000000000ULL	/* 1 s */
#define FSS_CKPT_MAX	4096	/* checkpoints kept; older ones are dropped */
#define FSS_CKPT_FILES	65536	/* distinct files counted per checkpoint */

struct fss_ckpt_sync {
	__u64 start, end;		/* CLOCK_MONOTONIC ns */
	__u32 pid;
	unsigned int kind;		/* enum fss_sync_kind */
	enum fss_fclass fclass;
	__u32 dev;
	__u64 ino;
	__u64 phase_ns[FSS_CKPT_PH];
};

struct fss_ckpt {
	__u32 pid;
	__u64 start, end;		/* first sync's start, last's end */
	__u64 syncs, files;
	__u64 longest_ns, total_ns;
	__u64 phase_ns[FSS_CKPT_PH];
	__u64 by_class[FSS_FC_MAX];
	__u64 tail_syncs;		/* pg_control, recycled WAL */
	__u64 pre_syncs;		/* fsyncs early in the write phase */
	bool complete;			/* its record's flush was seen */
};

struct fss_ckpt_det {
	int state;			/* 0 none, 1 burst, 2 tail */
	__u64 last_end;
	struct fss_ckpt cur;
	__u64 pending_pre;		/* pre_syncs of the next checkpoint */
	/* distinct files of the current burst (open addressing) */
	__u64 *keys;
	size_t nkeys;
	/* finished checkpoints, oldest first */
	struct fss_ckpt *done;
	size_t ndone, cap;
	__u64 dropped;			/* beyond FSS_CKPT_MAX */
};

void fss_ckpt_init(struct fss_ckpt_det *d);
void fss_ckpt_free(struct fss_ckpt_det *d);
/* one sync of a checkpointer process, in time order; 0 or -ENOMEM */
int fss_ckpt_feed(struct fss_ckpt_det *d, const struct fss_ckpt_sync *s);
/* no sync since NOW - GAP: close what is open (0 or -ENOMEM) */
int fss_ckpt_tick(struct fss_ckpt_det *d, __u64 now);
/* the burst being collected (state 1), or NULL */
const struct fss_ckpt *fss_ckpt_open(const struct fss_ckpt_det *d);

#endif
