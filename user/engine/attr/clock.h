/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * clock.h - cumulative phase clocks: the painter of docs/model.md in its
 * online form, one step per event and no per-request records kept after
 * the request ends (issue 33; docs/hotpath.md "Cumulative phase clocks").
 *
 * What a sync waits for has two parts:
 *  - a shared one, per filesystem on its disk (a "key"): pure flushes and
 *    kernel threads' PREFLUSH/FUA writes on the disk, the journal
 *    thread's requests, the open jbd2 commits;
 *  - its own thread's: the thread's requests on the disk, the fs hook,
 *    the xfs log force.
 * Painting gives every instant the higher of the two levels.  A key keeps
 * a clock per level (the time spent at each, advanced at each of its
 * changes), so a sync needs only a snapshot of its key's clocks when its
 * own level changes: over a stretch where its own level is c, the time
 * the key spent at a level above c is that level's, the rest is c's.
 * That is exact whatever overlaps, O(levels) per own change and O(1) per
 * shared one, with no walk over the syncs in flight.
 *
 * Written as the BPF side would hold it: fixed tables, no allocation.
 * Pure C for now, checked against the reference painter (attr.c) by
 * tests/unit/test_clock.c; not yet used by the tracer.
 */
#ifndef FSS_ENGINE_ATTR_CLOCK_H
#define FSS_ENGINE_ATTR_CLOCK_H

#include <linux/types.h>
#include "fsyncscope.h"
#include "lib/phase.h"

#define FSS_CLK_KEYS	8	/* filesystems */
#define FSS_CLK_OWNS	64	/* (thread, disk) with requests in flight */
#define FSS_CLK_SYNCS	64	/* syncs in flight */
#define FSS_CLK_RQS	1024	/* requests in flight */
/* levels: 0 = nothing, 1 + phase for fs .. device_flush */
#define FSS_CLK_LVLS	(FSS_PH_OTHER + 1)

struct fss_clk_key {
	__u32 fs, disk, jtid;		/* jtid: its journal thread, 0: none */
	__u32 n[FSS_CLK_LVLS];		/* shared contributors per level */
	__u64 last;			/* when cum was last advanced */
	__u64 cum[FSS_CLK_LVLS];	/* ns at each level so far */
};

struct fss_clk_own {
	__u32 tid, disk;
	__u32 n[FSS_CLK_LVLS];		/* the thread's requests per level */
};

struct fss_clk_sync {
	__u32 tid;
	int key;			/* index in keys[], -1: slot free */
	int lvl;			/* own level since the snapshot */
	int fs_open, log_open;
	__u64 snap[FSS_CLK_LVLS];
	__u64 acc[FSS_PH_MAX];
};

struct fss_clk_rq {
	__u64 id;			/* 0: slot free */
	__u32 disk, tid;		/* tid: of its first event */
	int lvl;			/* now: 0, queue, write or flush */
	int shared;			/* -1: only its thread's; else a key or
					 * FSS_CLK_KEYS: every key on disk */
	int issued, pure_flush;
	int nvme;			/* its NVMe command set up: the
					 * device time is the command's */
};

struct fss_clk {
	struct fss_clk_key keys[FSS_CLK_KEYS];
	int nkeys;
	struct fss_clk_own owns[FSS_CLK_OWNS];
	struct fss_clk_sync syncs[FSS_CLK_SYNCS];
	struct fss_clk_rq rqs[FSS_CLK_RQS];
	__u64 full;			/* events a full table could not take */
};

void fss_clk_init(struct fss_clk *c);
/* A filesystem and its disk.  0, or -ENOSPC. */
int fss_clk_add_fs(struct fss_clk *c, __u32 fs, __u32 disk);

/* Journal: a jbd2 commit of fs starts (in thread jtid) / ends. */
void fss_clk_commit_start(struct fss_clk *c, __u32 fs, __u32 jtid, __u64 t);
void fss_clk_commit_end(struct fss_clk *c, __u32 fs, __u64 t);

/*
 * A block request event (FSS_EV_RQ_START / _ISSUE / _COMPLETE) of
 * request id on disk, fired by thread tid, with its FSS_RQ_* flags then;
 * or its NVMe command's (FSS_EV_NVME_SETUP, before the issue, with the
 * request's flags and FSS_RQ_NVME_FLUSH for a Flush command; _COMPLETE,
 * before the request's): the device time is then the command's.
 */
void fss_clk_rq(struct fss_clk *c, __u32 type, __u64 id, __u32 disk,
		__u32 tid, __u32 flags, __u64 t);

/* A sync of thread tid on fs: entry, the fs hook, the log force, exit. */
int fss_clk_sync_enter(struct fss_clk *c, __u32 tid, __u32 fs, __u64 t);
void fss_clk_fs_enter(struct fss_clk *c, __u32 tid, __u64 t);
void fss_clk_fs_exit(struct fss_clk *c, __u32 tid, __u64 t);
void fss_clk_log_force(struct fss_clk *c, __u32 tid, __u64 t);
/* Exit: its phases (ns, adding up to exit - entry).  0, or -ENOENT. */
int fss_clk_sync_exit(struct fss_clk *c, __u32 tid, __u64 t,
		      __u64 phase_ns[FSS_PH_MAX]);

/*
 * The kernel's painter (bpf/clock.bpf.h, FSYNCSCOPE_KPAINT=1) against
 * this engine's, sync by sync: each attributed sync whose record carries
 * kernel phases (fss_sync_result.kflags) is noted here.
 */
struct fss_kp_stats {
	__u64 syncs;			/* syncs noted */
	__u64 painted;			/* painted by the kernel in full */
	__u64 compared;			/* of those: compared with this engine's */
	__u64 identical;		/* of those: every phase to the ns */
	__u64 clamped;			/* of those: an end clamped (FSS_KP_CLAMPED) */
	__u64 not_painted[5];		/* not painted: no key (no disk), two
					 * disks, a full table, a race, other
					 * (off, or not sent) */
	__u64 flush_differ;		/* of those compared: flush facts apart
					 * (nr_flush, or flush seen or not) */
	/*
	 * the distinct flush facts of the windows (enum fss_kfl): the
	 * kernel's clk_flc[], and attribution's fss_flush_stats
	 */
	__u64 kflc[FSS_KFL_MAX], uflc[FSS_KFL_MAX];
	__u64 diff_ns;			/* time painted differently, all syncs */
	__u64 max_diff_ns;		/* the most in one sync */
	__u64 total_ns;			/* total time of the syncs compared */
};

struct fss_sync_result;
void fss_kp_note(struct fss_kp_stats *st, const struct fss_sync_result *r);
/*
 * The kernel painter alone (FSYNCSCOPE_KPAINT=only, exporter --painter
 * kernel): a sync record's FSS_KP_* flags alone (no request records,
 * nothing attributed): painted in full (true), or counted why not.
 */
bool fss_kp_note_kernel(struct fss_kp_stats *st, __u32 kflags);

#endif
