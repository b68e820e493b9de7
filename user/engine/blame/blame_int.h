/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * blame_int.h - internals shared by blame.c (input: owners, transactions,
 * commits, request logs) and blame_sync.c (the blame of one sync); callers
 * use blame.h.
 */
#ifndef __FSS_BLAME_INT_H
#define __FSS_BLAME_INT_H

#include "engine/blame/blame.h"
#include "engine/blame/comms.h"

#define BL_NTX		8192	/* transactions, direct-mapped (power of 2) */
#define BL_NCONTRIB	16	/* contributors per transaction */
#define BL_NCOMMIT	8192	/* commits remembered, in end order */
#define BL_NJTHREAD	32	/* journal threads told apart quickly */
#define BL_NDISK	8	/* disks with a request log */
#define BL_NOPEN	16384	/* requests in flight (direct-mapped) */
#define BL_NLOG		32768	/* completed requests per disk */
#define BL_LOGBLK	64	/* log entries per block of blk_issue */
#define BL_NFLUSH	16384	/* flushes per disk (issue times) */
#define BL_NOWNER	4096	/* submitters (index 0: unknown) */
#define BL_NBIO		16384	/* bios by first sector, direct-mapped */
#define BL_NACC		64	/* causes per phase of one sync */
#define BL_NSYNC	16384	/* traced syncs remembered, in arrival order */
#define BL_NFL		16	/* flushes of one sync looked at for coalescing */
#define BL_NXFORCE	32768	/* xfs log forces of traced syncs, ring */
#define OWNER_UNKNOWN	0

struct owner {
	__u32 pid, tid;
	__u64 cgroup;
	__u32 flags;		/* FSS_BL_* */
	__u32 wb_dev;
	__u64 ino;
	char comm[FSS_COMM_LEN];
	bool used;
};

struct contrib {
	__u32 owner;
	__u32 handles;
	__u64 blocks;
};

struct tx {
	__u32 dev, jtid;
	bool used, have_stats;
	__u64 handles, blocks;		/* sums of the handle records */
	__u32 st_handles, st_blocks, st_logged;
	__u32 ncontrib;
	struct contrib c[BL_NCONTRIB];
	__u64 folded_handles, folded_blocks;	/* past the table */
};

struct commit {
	__u32 dev, jtid;
	__u32 thread;			/* journal thread's tid */
	__u64 start, end;
};

enum { D_WRITE = 1, D_FLUSH = 2, D_OWNED = 4, D_META = 8 };

struct done {
	__u64 start, issue, complete;
	__u32 bytes;
	__u32 owner;
	__u32 tid;			/* creating thread (real, or the dirtier) */
	__u32 flags;			/* D_* */
};

struct open_rq {
	__u64 id;
	__u32 dev, owner, tid;
	__u32 rqflags;			/* FSS_RQ_* at issue */
	__u64 start, issue;
	bool used, owned, completed;
};

struct disk_log {
	__u32 dev;
	struct done *log;		/* ring of BL_NLOG */
	__u64 n;			/* appended so far */
	/*
	 * Per block of BL_LOGBLK log entries (ring, like the log): the
	 * earliest non-zero issue time in it (UINT64_MAX: none), so a scan
	 * for requests issued in a window skips blocks (blame_queue).
	 */
	__u64 blk_issue[BL_NLOG / BL_LOGBLK];
	__u64 flush_issue[BL_NFLUSH];	/* issue times of flushes, ring */
	__u64 nflush;
};

struct fss_blame {
	struct fss_blame_opts opts;
	struct owner owners[BL_NOWNER];
	struct tx tx[BL_NTX];
	struct commit commits[BL_NCOMMIT];
	__u64 ncommits;
	/*
	 * The journal threads of the commits seen (BL_NJTHREAD; more: the
	 * list is not used), so a request of any other thread is known to be
	 * no commit's without a search.
	 */
	__u32 jthreads[BL_NJTHREAD];
	unsigned int njthreads;
	struct open_rq *open;		/* BL_NOPEN */
	struct disk_log disks[BL_NDISK];
	unsigned int ndisks;
	struct fss_blame_stats st;
	void *scratch;			/* blame_sync.c's, made at first use */
	/* FSS_EV_COMM and records with a comm: opts.comms, or blame's own */
	struct fss_comms *comms;
	bool own_comms;
	struct bsync {
		__u64 start, end;
		__u32 pid, tid, dev, disk;
		char comm[FSS_COMM_LEN];
	} *syncs;			/* FSS_EV_SYNC records, ring of BL_NSYNC */
	__u64 nsyncs;
	struct bio_own {
		__u64 sector;
		__u32 dev, owner, tid;
		bool used;
	} *bios;			/* FSS_BL_BIO owner records, BL_NBIO */
	struct xforce {
		__u64 ts, seq;
		__u32 dev, tid;
	} xforces[BL_NXFORCE];		/* FSS_EV_XLOG_FORCE, arrival order */
	__u64 nxforces;
	struct {			/* the sync being blamed, on xfs */
		__u32 dev, n;
		__u64 from;		/* its first log force */
		__u64 seq[8];		/* the checkpoints it forced */
	} xsplit;
};

/* One cause's part of one phase while a sync is blamed. */
struct acc_item {
	__u32 owner;
	double weight;			/* what its share is computed from */
	__u64 units;			/* journal: blocks; others: bytes */
	__u64 count;			/* journal: handles; others: requests */
};

struct acc {
	unsigned int n;
	double units_total;		/* weight of every cause, folded too */
	__u64 units_total_raw;		/* blocks or bytes behind it */
	__u64 count_total;		/* handles or requests behind it */
	double folded;			/* weight nobody is named for */
	const char *reason;		/* when nothing could be split */
	__u32 jtid, ntx, nflush;
	__u64 tx_blocks_logged, tx_handles_stats;	/* jbd2_run_stats */
	bool xfs;			/* journal: xfs checkpoints (blame_xfs.c) */
	struct acc_item it[BL_NACC];	/* last: a reset clears what is above */
};

/* blame.c */
const struct commit *fss_blame__commit_of_rq(const struct fss_blame *b,
					     __u32 tid, __u64 ts);
struct tx *fss_blame__tx_find(struct fss_blame *b, __u32 dev, __u32 jtid,
			      bool create);
/* First logical index of a commit ending at or after ts. */
__u64 fss_blame__commit_lower(const struct fss_blame *b, __u64 ts);
struct disk_log *fss_blame__disk(struct fss_blame *b, __u32 dev, bool create);

/* blame_coal.c */
void fss_blame__sync_add(struct fss_blame *b, const struct fss_event *ev);
/*
 * The other traced syncs served by the flushes completed at fl[0..nfl)
 * (on res's disk) into *out.
 */
void fss_blame__coalesced(const struct fss_blame *b,
			  const struct fss_sync_result *res,
			  const __u64 *fl, unsigned int nfl,
			  struct fss_blame_coal *out);
/* blame_sync.c */
void fss_blame__jthread_note(struct fss_blame *b, __u32 tid);
void fss_blame__acc_add(struct acc *a, __u32 owner, double weight,
			__u64 units, __u64 count);

/* blame_xfs.c: the xfs log */
void fss_blame__xfs_force(struct fss_blame *b, const struct fss_event *ev);
/* The journal time of a sync on xfs, by its log forces; false: none seen. */
bool fss_blame__xfs_journal(struct fss_blame *b,
			    const struct fss_sync_result *res, struct acc *a);
/* The checkpoints the sync forced, into b->xsplit (n 0: none). */
void fss_blame__xfs_prepare(struct fss_blame *b,
			    const struct fss_sync_result *res);
/*
 * A kernel thread's metadata write (the CIL push's log writes) made after
 * the blamed sync's first log force: its bytes split among the forced
 * checkpoints' contributors into a; false: not one, credit it as usual.
 */
bool fss_blame__xfs_credit_rq(struct fss_blame *b, struct acc *a,
			      const struct done *x);

#endif /* __FSS_BLAME_INT_H */
