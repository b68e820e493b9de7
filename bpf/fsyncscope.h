/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * fsyncscope.h - records shared by the BPF programs (bpf/) and user space.
 *
 * The BPF side only records and filters; all attribution happens in user
 * space (user/attr.c) over these records.  Fields are __u32/__u64 so the
 * layout is identical on both sides.
 */
#ifndef __FSYNCSCOPE_H
#define __FSYNCSCOPE_H

#define FSS_COMM_LEN	16
#define FSS_INFLIGHT_SLOTS	4096	/* start times of syncs in flight, by tid (power of 2) */

enum fss_ev_type {
	FSS_EV_SYNC = 1,	/* one finished sync of one thread: [ts, ts_end] */
	FSS_EV_JOURNAL,		/* one jbd2 commit: [ts, ts_end], journal thread */
	FSS_EV_RQ_START,	/* request created (block_io_start) or inserted */
	FSS_EV_RQ_ISSUE,	/* request handed to the driver */
	FSS_EV_RQ_COMPLETE,	/* request (partially) completed */
	FSS_EV_NVME_SETUP,	/* NVMe command set up for a request */
	FSS_EV_NVME_COMPLETE,	/* NVMe command completed */
	FSS_EV_RQ_REQUEUE,	/* request put back to be issued again */
	FSS_EV_JHANDLE,		/* blame: one jbd2 handle stopped (its process) */
	FSS_EV_JSTATS,		/* blame: one jbd2 transaction's run stats */
	FSS_EV_RQ_OWNER,	/* blame: who created a request (submitter);
				 * on the wire a struct fss_owner_event */
	FSS_EV_COMM,		/* blame: the comm of pid (sent when it changes) */
	FSS_EV_XLOG_FORCE,	/* blame: a traced sync forced the xfs log to
				 * CIL sequence blame.id */
	FSS_EV_RQ_START_OWNED,	/* on the wire only: an FSS_EV_RQ_START and its
				 * FSS_EV_RQ_OWNER in one struct
				 * fss_rq_owned_event (user space splits it) */
	FSS_EV_RQ_FOLD,		/* on the wire only: a request's events in
				 * one struct fss_rq_fold_event (user space
				 * unfolds it, engine/tracer/fold.c) */
	FSS_EV_MAX,
};

/* What kind of sync a FSS_EV_SYNC is. */
enum fss_sync_kind {
	FSS_SYNC_FSYNC = 0,
	FSS_SYNC_FDATASYNC,
	FSS_SYNC_SYNC_FILE_RANGE,
	FSS_SYNC_MSYNC,
	FSS_SYNC_SYNCFS,
	FSS_SYNC_DSYNC_WRITE,	/* write/pwrite/pwritev on O_DSYNC/O_SYNC fd, or RWF_DSYNC */
	FSS_SYNC_IOURING_FSYNC,
	FSS_SYNC_KIND_MAX,
};

/*
 * Overload by design (docs/hotpath.md "Overload"): every sync the BPF side
 * sees is either traced in full (its FSS_EV_SYNC record and the records of
 * what it waited for all reached the ring) or summarized: no record of its
 * own, only counted here, in kernel, with its total latency.  Why a sync was
 * summarized (index into fss_summ.syncs; 0 counts the fully traced ones):
 */
enum fss_summ_why {
	FSS_SUMM_TRACED = 0,	/* not summarized: its record was sent */
	FSS_SUMM_RING_HIGH,	/* at entry the ring was over ring_high_pct full */
	FSS_SUMM_LOST_NEAR,	/* a record was lost during it (or just before) */
	FSS_SUMM_RING_FULL,	/* its own record found the ring full at exit */
	FSS_SUMM_LOST_AFTER,	/* user space: painted with a request whose
				 * completion was lost after its exit */
	FSS_SUMM_SAMPLED,	/* at entry: not drawn by --sample 1/N */
	FSS_SUMM_UNPAINTED,	/* user space: the kernel painter alone
				 * (exporter --painter kernel) could not
				 * paint it (its FSS_KP_* flags say why) */
	FSS_SUMM_WHY_MAX,
};

#define FSS_SUMM_BUCKETS	40	/* log2 ns buckets: [2^i, 2^(i+1)) ns */

/* Value of the summ map (per CPU, one per enum fss_sync_kind). */
struct fss_summ {
	__u64 syncs[FSS_SUMM_WHY_MAX];
	__u64 total_ns;			/* summarized syncs: sum of totals */
	__u64 hist[FSS_SUMM_BUCKETS];	/* summarized syncs: totals, log2 ns */
};

/* User space: a += sign * b, field by field (sums over CPUs, windows). */
static inline void fss_summ_add(struct fss_summ *a, const struct fss_summ *b,
				int sign)
{
	for (int i = 0; i < FSS_SUMM_WHY_MAX; i++)
		a->syncs[i] += sign * b->syncs[i];
	a->total_ns += sign * b->total_ns;
	for (int i = 0; i < FSS_SUMM_BUCKETS; i++)
		a->hist[i] += sign * b->hist[i];
}

/*
 * Request flags, normalised by the BPF side from the kernel's cmd_flags
 * using BTF enum values (enum req_op, enum req_flag_bits): never literals.
 */
#define FSS_RQ_READ	(1u << 0)
#define FSS_RQ_WRITE	(1u << 1)
#define FSS_RQ_FLUSH	(1u << 2)	/* REQ_OP_FLUSH: a pure cache flush */
#define FSS_RQ_DISCARD	(1u << 3)
#define FSS_RQ_OTHER	(1u << 4)	/* any other op */
#define FSS_RQ_PREFLUSH	(1u << 5)	/* REQ_PREFLUSH */
#define FSS_RQ_FUA	(1u << 6)	/* REQ_FUA */
#define FSS_RQ_SYNC	(1u << 7)	/* REQ_SYNC */
#define FSS_RQ_META	(1u << 8)	/* REQ_META */
#define FSS_RQ_KTHREAD	(1u << 9)	/* submitted by a kernel thread */
#define FSS_RQ_CREATE	(1u << 10)	/* START from block_io_start: a new request */
/* clocks only (clk_rq_event, fss_clk_rq): an NVMe Flush command, opcode 0 */
#define FSS_RQ_NVME_FLUSH (1u << 11)

/* Which hook recorded the filesystem interval of a sync (sync.fs_hook). */
enum fss_fs_hook {
	FSS_FS_NONE = 0,
	FSS_FS_EXT4,
	FSS_FS_XFS,
	FSS_FS_BTRFS,
};

/* Hook ids for the calibration counters (hook_hits map). */
enum fss_hook_id {
	FSS_HOOK_SYS_FSYNC = 0,
	FSS_HOOK_SYS_FDATASYNC,
	FSS_HOOK_SYS_OTHER,	/* sync_file_range, msync, syncfs, O_DSYNC writes */
	FSS_HOOK_FS_TP,		/* ext4/xfs/btrfs tracepoints */
	FSS_HOOK_FS_FENTRY,
	FSS_HOOK_FS_KPROBE,
	FSS_HOOK_JBD2,
	FSS_HOOK_XFS_LOG,
	FSS_HOOK_RQ_START,
	FSS_HOOK_RQ_ISSUE,
	FSS_HOOK_RQ_COMPLETE,
	FSS_HOOK_NVME,
	FSS_HOOK_RQ_REQUEUE,
	FSS_HOOK_MAX,
};

/*
 * In-kernel painting (bpf/clock.bpf.h, docs/hotpath.md "Cumulative phase
 * clocks"): fss_sync_rec.kph holds the phases of enum fss_phase (fs,
 * journal, queue, device_write, device_flush, other); kflags says whether
 * they are there and what the kernel could not see.
 */
#define FSS_KP_PHASES	6
#define FSS_KP_VALID	(1u << 0)	/* kph painted by the kernel */
#define FSS_KP_NOKEY	(1u << 1)	/* its filesystem has no disk (or the
					 * disk/filesystem table was full) */
#define FSS_KP_TWODISK	(1u << 2)	/* its thread had requests in flight on
					 * another disk: own counts not kept */
#define FSS_KP_FULL	(1u << 3)	/* a request or thread table was full */
#define FSS_KP_CLAMPED	(1u << 4)	/* an end clamped to another CPU's
					 * later change: off by that much */
#define FSS_KP_RACE	(1u << 5)	/* its stretch was written by two CPUs
					 * at once (or its disk's clocks kept
					 * changing while read): not painted */

struct fss_sync_rec {
	__u64 fs_start;		/* filesystem fsync entered (0: not seen) */
	__u64 fs_end;		/* filesystem fsync returned (0: not seen) */
	__u64 log_start;	/* xfs: first log force in this sync (0: none) */
	__u64 ino;		/* inode of the synced file (0: n/a, e.g. syncfs) */
	__u32 kind;		/* enum fss_sync_kind */
	__u32 fs_hook;		/* enum fss_fs_hook */
	__s32 ret;		/* syscall return value */
	__u32 fd;
	__u64 bytes;		/* for O_DSYNC writes: bytes requested */
	/*
	 * The in-kernel painter's phases (FSYNCSCOPE_KPAINT, bpf/clock.bpf.h),
	 * in enum fss_phase order, when kflags has FSS_KP_VALID
	 */
	__u64 kph[FSS_KP_PHASES];
	__u32 kflags;		/* FSS_KP_* */
	/*
	 * and its flush facts, counted as attribution's paint_rq counts them
	 * (capped at 65535): the pure flushes it overlapped (its nr_flush),
	 * and its flush-class requests (a flush, a preflush, a FUA write, an
	 * NVMe Flush; 0: "saw no flush")
	 */
	__u16 knflush;
	__u16 kflushy;
};

/*
 * A filesystem with no disk of its own whose syncs go to another's: an
 * overlayfs mount and its upper filesystem (ovl_fsync syncs the upper
 * file).  fs_alias map (bpf/common.bpf.h), by the overlay's dev, filled
 * by user space from mountinfo (user/sys/fsnote.c fss_overlays).
 */
struct fss_fs_alias {
	__u32 fs;		/* the upper filesystem's dev_t */
	__u32 disk;		/* its disk's dev_t */
};

/*
 * The in-kernel painter's distinct flush facts (bpf/clock.bpf.h
 * clk_flc[]), cumulative since load: each request counted once, at its
 * completion, when a traced sync of its scope overlapped it (the
 * counts of attribution's struct fss_flush_stats).
 */
enum fss_kfl {
	FSS_KFL_FLUSHES,	/* pure flushes */
	FSS_KFL_PREFLUSH,	/* requests that asked for a preflush */
	FSS_KFL_FUA,		/* writes issued with FUA */
	FSS_KFL_FUA_EMU,	/* FUA asked, issued without: emulated */
	FSS_KFL_NVME_FLUSH,	/* NVMe Flush commands */
	FSS_KFL_MAX,
};

struct fss_journal_rec {
	__u64 locking;		/* jbd2_commit_locking (0: not seen) */
	__u64 flushing;		/* jbd2_commit_flushing */
	__u64 logging;		/* jbd2_commit_logging */
	__u32 transaction;	/* jbd2 tid */
	__u32 sync_commit;	/* jbd2 start_commit's sync_commit flag */
};

/* fss_blame_rec.flags */
#define FSS_BL_SYNC	(1u << 0)	/* JHANDLE: the handle asked for a sync commit */
#define FSS_BL_KTHREAD	(1u << 1)	/* the recording task is a kernel thread */
#define FSS_BL_WB	(1u << 2)	/* in writeback of inode (wb_dev, ino) */
#define FSS_BL_OWNER	(1u << 3)	/* pid/comm/cgroup are the inode's dirtier,
					 * not the (kernel) thread that recorded */
#define FSS_BL_BIO	(1u << 4)	/* RQ_OWNER of a bio (block_bio_queue, for
					 * kernels without block_io_start): its id
					 * is the bio's first sector */
#define FSS_BL_XFS	(1u << 5)	/* JHANDLE of an xfs transaction: jtid and
					 * id are its CIL sequence, blocks the
					 * log bytes it used */

/*
 * Blame records (bpf/blame.bpf.c): who made the work a sync waited for.
 * pid, tid and comm of the event are the process credited (the inode's
 * dirtier when FSS_BL_OWNER), cgroup its cgroup v2 id.
 */
struct fss_blame_rec {
	__u64 cgroup;		/* cgroup v2 id (0: unknown) */
	__u64 id;		/* RQ_OWNER: struct request *; FSS_BL_XFS,
				 * XLOG_FORCE: CIL sequence */
	__u64 ino;		/* FSS_BL_WB: inode under writeback */
	__u32 jtid;		/* JHANDLE, JSTATS: jbd2 transaction id */
	__u32 blocks;		/* JHANDLE: blocks dirtied; JSTATS: blocks;
				 * RQ_OWNER: bytes at creation */
	__u32 handles;		/* JHANDLE: 1; JSTATS: handle_count */
	__u32 logged;		/* JSTATS: blocks_logged */
	__u32 wb_dev;		/* FSS_BL_WB: fs dev_t of that inode */
	__u32 flags;		/* FSS_BL_* */
};

struct fss_rq_rec {
	__u64 id;		/* request identity: struct request * */
	__u64 sector;
	__u32 bytes;
	__u32 flags;		/* FSS_RQ_* */
	__u32 nvme_opcode;	/* NVMe events: command opcode (0 = Flush) */
	__u32 pad;
};

struct fss_event {
	__u32 type;		/* enum fss_ev_type */
	__u32 tid;		/* thread that recorded the event */
	__u32 pid;		/* its tgid */
	__u32 dev;		/* sync/journal: fs dev_t; rq/nvme: disk dev_t (kernel encoding MAJOR<<20|MINOR) */
	__u64 ts;		/* CLOCK_MONOTONIC ns: event time, or interval start */
	__u64 ts_end;		/* interval end (SYNC, JOURNAL); 0 otherwise */
	union {
		struct fss_sync_rec sync;
		struct fss_journal_rec journal;
		struct fss_rq_rec rq;
		struct fss_blame_rec blame;
	};
	char comm[FSS_COMM_LEN];	/* SYNC, JOURNAL and blame records only ("" otherwise) */
};

/*
 * On the wire, request and NVMe events (FSS_EV_RQ_*, FSS_EV_NVME_*) are
 * this compact record instead: several come per sync, and 48 bytes that
 * the program fills field by field (56 with the ring buffer's header)
 * cost less than a zeroed 104-byte struct fss_event.  type comes first in both
 * layouts; user space widens it (fss_rq_event_widen) before attribution.
 */
struct fss_rq_event {
	__u32 type;		/* enum fss_ev_type */
	__u32 tid;		/* thread that recorded the event */
	__u64 ts;		/* CLOCK_MONOTONIC ns */
	__u64 id;		/* struct request * */
	__u64 sector;
	__u32 dev;		/* disk dev_t (MAJOR<<20|MINOR) */
	__u32 bytes;
	__u32 flags;		/* FSS_RQ_* */
	__u32 nvme_opcode;	/* NVMe events: command opcode (0 = Flush) */
};

static inline void fss_rq_event_widen(const struct fss_rq_event *w, struct fss_event *ev)
{
	__builtin_memset(ev, 0, sizeof(*ev));
	ev->type = w->type;
	ev->tid = w->tid;
	ev->dev = w->dev;
	ev->ts = w->ts;
	ev->rq.id = w->id;
	ev->rq.sector = w->sector;
	ev->rq.bytes = w->bytes;
	ev->rq.flags = w->flags;
	ev->rq.nvme_opcode = w->nvme_opcode;
}

/*
 * FSS_EV_RQ_OWNER on the wire: one per request created, so compact and
 * without a comm (the comm of pid came before it in an FSS_EV_COMM record
 * when this CPU had not sent it last).  User space widens it.
 */
struct fss_owner_event {
	__u32 type;		/* FSS_EV_RQ_OWNER */
	__u32 tid;		/* thread credited */
	__u64 ts;
	__u64 id;		/* struct request * (FSS_BL_BIO: first sector) */
	__u64 cgroup;		/* cgroup v2 id of the process credited */
	__u64 ino;		/* FSS_BL_WB: inode under writeback */
	__u32 dev;		/* disk dev_t */
	__u32 pid;		/* process credited */
	__u32 wb_dev;		/* FSS_BL_WB: its fs dev_t */
	__u32 flags;		/* FSS_BL_* */
	__u32 bytes;		/* bytes at creation */
	__u32 pad;
};

/*
 * A request's creation with its owner (blame on, tp_btf block_io_start):
 * one ring record instead of an fss_rq_event and an fss_owner_event.  rq
 * is the creation as recorded (rq.type FSS_EV_RQ_START_OWNED, rq.tid the
 * creating thread); the owner fields are an fss_owner_event's, with the
 * same time, request, disk and bytes.
 */
/*
 * Whom a request is credited to, as blame's owner record has it
 * (docs/blame.md): filled by owner_fill (bpf/blame_owner.bpf.h) in the
 * submitter, read back as one FSS_EV_RQ_OWNER by fss_owner_of.
 */
struct fss_credited {
	__u64 cgroup;		/* cgroup v2 id of the process credited */
	__u64 ino;		/* FSS_BL_WB: inode under writeback */
	__u32 pid;		/* process credited; 0: nobody */
	__u32 tid;		/* thread credited */
	__u32 wb_dev;		/* FSS_BL_WB: its fs dev_t */
	__u32 flags;		/* FSS_BL_* */
};

struct fss_rq_owned_event {
	struct fss_rq_event rq;
	struct fss_credited own;
};

/*
 * Folded requests (docs/hotpath.md "One record per request"): the BPF
 * side keeps a request's events (start, insert, issue, requeue, NVMe
 * setup and completion) in the rq_fold map, keyed by the struct request
 * pointer, in the order they happened, and sends them as one record at
 * the request's first completion (or when FSS_FOLD_SLOTS are used, or its
 * pointer begins a new request).  User space turns the record back into
 * exactly the events the per-event transport would have sent for that
 * request, in the same order.  One slot is one such event.
 */
#define FSS_FOLD_SLOTS	6

struct fss_fold_slot {
	__u64 ts;
	__u64 sector;
	__u32 type;		/* enum fss_ev_type of the event */
	__u32 tid;
	__u32 bytes;
	__u32 flags;		/* FSS_RQ_*; NVMe events: the opcode */
};

struct fss_rq_fold_event {
	__u32 type;		/* FSS_EV_RQ_FOLD */
	__u32 n;		/* slots used, 1..FSS_FOLD_SLOTS */
	__u64 id;		/* struct request * */
	__u32 dev;		/* disk dev_t */
	__u32 owned;		/* 1: slot 0 is a creation with the owner
				 * below (what an fss_rq_owned_event had);
				 * 2 only in the map, never sent: an idle
				 * entry whose request is muted */
	struct fss_credited own;	/* of slot 0's request (owned) */
	struct fss_fold_slot ev[FSS_FOLD_SLOTS];
	/*
	 * In the map only, never sent (a record ends at its last slot): the
	 * in-kernel painter's state of the request (bpf/clock.bpf.c), kept
	 * in its rq_folds entry so that one lookup serves both.
	 */
	struct fss_fold_clk {
		__u32 tid;		/* of its first event */
		__u8 dslot;		/* disk slot + 1, 0: idle */
		__u8 lvl;
		__u8 shared;		/* a key, CLK_OWN or CLK_ALL */
		__u8 issued;
		__u8 pure_flush;
		__u8 own;		/* counted in its thread's n[] */
		__u8 muted;		/* a summarized sync's (fold_mute) */
		__u8 nvme;		/* its NVMe command set up */
		__u32 gen;		/* its thread's generation of n[] */
		__u16 fl;		/* CLKF_* (bpf/clock.bpf.c): its flush
					 * facts and how they are counted */
		__u16 fpad;
		__u32 sv;		/* its scope's syncs entered, at its
					 * first event */
	} clk;
	/*
	 * In the map only: what the flight recorder will hold of the request
	 * (kp_fr, bpf/block.bpf.c): times so far and who it is credited to
	 */
	struct fss_fr_note {
		__u64 start, issue;	/* 0: not seen (yet) */
		struct fss_credited own;
		__u32 rqflags;		/* FSS_RQ_* at issue */
		__u32 pad;
	} fr;
};

/*
 * The flight recorder (--painter kernel with blame, docs/blame.md): the
 * kernel painter sends no request record, so each completed request of a
 * traced disk is written here instead, a ring of FSS_FR_SLOTS in a BPF
 * array that user space maps and reads back only when a sync it was told
 * of is slow enough to blame.  Request fr_head (a .bss counter, bumped
 * by the writer) goes to slot fr_head % FSS_FR_SLOTS; seq is 0 while it is
 * written and its index + 1 after, so a reader that sees the same seq
 * before and after copying it has it whole.
 */
#define FSS_FR_SLOTS	16384

struct fss_fr_rec {
	__u64 seq;
	__u64 start, issue, complete;	/* 0: not seen */
	struct fss_credited own;	/* own.pid 0: nobody */
	__u32 dev, bytes;		/* disk dev_t; bytes completed */
	__u32 rqflags, pad;		/* FSS_RQ_* at issue */
};

static inline void fss_owner_event_widen(const struct fss_owner_event *w,
					 struct fss_event *ev)
{
	__builtin_memset(ev, 0, sizeof(*ev));
	ev->type = w->type;
	ev->tid = w->tid;
	ev->pid = w->pid;
	ev->dev = w->dev;
	ev->ts = w->ts;
	ev->blame.cgroup = w->cgroup;
	ev->blame.id = w->id;
	ev->blame.ino = w->ino;
	ev->blame.blocks = w->bytes;
	ev->blame.wb_dev = w->wb_dev;
	ev->blame.flags = w->flags;
}

/* The owner record of request id on disk dev, created at ts: o's. */
static inline void fss_owner_of(const struct fss_credited *o, __u32 dev,
				__u64 id, __u64 ts, __u32 bytes,
				struct fss_event *ev)
{
	__builtin_memset(ev, 0, sizeof(*ev));
	ev->type = FSS_EV_RQ_OWNER;
	ev->tid = o->tid;
	ev->pid = o->pid;
	ev->dev = dev;
	ev->ts = ts;
	ev->blame.cgroup = o->cgroup;
	ev->blame.id = id;
	ev->blame.ino = o->ino;
	ev->blame.blocks = bytes;
	ev->blame.wb_dev = o->wb_dev;
	ev->blame.flags = o->flags;
}

/* The two events of an fss_rq_owned_event: the creation, then the owner. */
static inline void fss_rq_owned_widen(const struct fss_rq_owned_event *w,
				      struct fss_event *start,
				      struct fss_event *owner)
{
	fss_rq_event_widen(&w->rq, start);
	start->type = FSS_EV_RQ_START;
	fss_owner_of(&w->own, w->rq.dev, w->rq.id, w->rq.ts, w->rq.bytes,
		     owner);
}

#endif /* __FSYNCSCOPE_H */
