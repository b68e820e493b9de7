/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * trace_int.h - internals shared by the tracer's modules (callers use
 * trace.h):
 *
 *   trace.c     open (in named steps) and close, the consumer thread,
 *               per-test windows and live draining
 *   strategy.c  kernel facts from BTF, feature probes, which programs
 *               load, attach layer by layer with fallbacks, the strategy
 *               report
 *   calib.c     calibration syncs (which hooks really fire), hook hits,
 *               lost events
 *   strategy_report.c  the strategy as JSON and as -v lines
 */
#ifndef __FSS_TRACE_INT_H
#define __FSS_TRACE_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <bpf/libbpf.h>
#include "engine/tracer/tracer.h"
#include "engine/attr/attr.h"
#include "engine/attr/clock.h"
#include "engine/blame/blame.h"
#include "engine/blame/comms.h"
#include "engine/tracer/fold.h"
#include "lib/scratch.h"
#include "sys/fsnote.h"
#include "fsyncscope.skel.h"

enum layer { L_SYNC, L_FS, L_JOURNAL, L_BLOCK, L_NVME, L_MAX };
/* "sync", "fs", "journal", "block", "nvme" */
extern const char *const layer_names[L_MAX];

/* Hook sets: which programs a layer can use. */
enum hookset {
	HS_SYSCALL_TP,		/* sync: syscall tracepoints */
	HS_FS_TP, HS_FS_FENTRY, HS_FS_KPROBE,
	HS_JOURNAL_TP,
	HS_BLOCK_BTF, HS_BLOCK_RAW,
	HS_NVME_BTF,
	HS_BLAME,		/* blame.bpf.c: loads only with opts.blame */
	HS_MAX,
};
extern const char *const hookset_names[HS_MAX];

struct prog_info {
	struct bpf_program *prog;
	enum layer layer;
	enum hookset set;
	const char *fs;		/* "ext4", "xfs", "btrfs" or NULL */
	bool required;		/* attach failure is fatal */
	struct bpf_link *link;
	int attach_err;
};

#define MAX_PROGS 96	/* programs of the main object (66 with blame's) */

/* The flight recorder as user space reads it (flightrec.c). */
#define FSS_FR_BUCKETS	496	/* 8 per power of two of ns */

struct fss_fr_state {
	const struct fss_fr_rec *ring;	/* mapped; NULL: off */
	size_t len;
	__u64 next;			/* the next request to read */
	__u64 read, lost;		/* requests read, overwritten unread */
	__u64 blamed, partial;		/* syncs blamed; of them, past a loss */
	__u64 gap_ts;			/* oldest request held after a loss */
	/* every kernel-painted sync's total, by kind: the running p99 */
	__u64 n[FSS_SYNC_KIND_MAX], p99[FSS_SYNC_KIND_MAX];
	__u64 hist[FSS_SYNC_KIND_MAX][FSS_FR_BUCKETS];
};

struct fss_tracer {
	struct fss_trace_opts opts;
	struct fsyncscope_bpf *skel;
	struct ring_buffer *rb;
	struct prog_info progs[MAX_PROGS];
	int nprogs;

	enum hookset layer_set[L_MAX];
	char layer_desc[L_MAX][160];	/* what is used, or "n/a: why" */
	bool layer_ok[L_MAX];
	char probe_fentry[128], probe_kprobe[128];
	struct json_object *calib;
	/*
	 * live: the calibration's scratch file, held open until close, so
	 * that freeing it (a journal transaction) happens after the trace,
	 * not in it (calib.c)
	 */
	struct fss_scratch calib_file;
	bool calib_kept;
	double setup_ms;		/* open: launch of the tracer -> calibrated */
	bool floor_only;		/* FSYNCSCOPE_FLOOR=1: programs only count */
	__u32 ring_bytes;		/* FSYNCSCOPE_RING_KB (0: the default) */
	__u32 ring_high_pct;		/* FSYNCSCOPE_RING_HIGH (101: default) */
	/* one record per request (FSYNCSCOPE_RQ_RECORDS, fold.h); NULL: off */
	struct fss_fold *fold;
	bool rq_events;			/* FSYNCSCOPE_RQ_RECORDS=events */
	/* FSYNCSCOPE_KPAINT=1: the kernel paints too (bpf/clock.bpf.h) */
	bool kpaint;
	/* FSYNCSCOPE_KPAINT=only: it alone, no request records (a benchmark) */
	bool kp_only;
	/* opts.kernel_paint: kp_only, and its syncs reported (tracer.c) */
	bool kp_report;
	/* FSYNCSCOPE_CONSUMER=normal: not SCHED_IDLE (knobs.c) */
	bool consumer_normal;
	bool consumer_set;		/* FSYNCSCOPE_CONSUMER given */
	struct fss_kp_stats kp;		/* its phases against attr's */
	/*
	 * opts.kernel_paint: the flush facts of the syncs it reported since
	 * the last fss_tracer_live_flush, and the kernel's distinct counts
	 * (clk_flc[], cumulative) as of then
	 */
	struct fss_flush_stats kflush;
	__u64 kflc_seen[FSS_KFL_MAX];
	__u64 kflc_begin[FSS_KFL_MAX];	/* FSYNCSCOPE_KPAINT=1: at the window's begin */
	__u64 records;			/* ring records read since open */
	/* the summ map at the window's begin: a window's syncs are the rest */
	struct fss_summ summ_at_begin[FSS_SYNC_KIND_MAX];
	struct fss_summ summ_at_open[FSS_SYNC_KIND_MAX];	/* after calibration */
	/* traced syncs user space summarized after all (FSS_SUMM_LOST_AFTER) */
	struct fss_summ demoted[FSS_SYNC_KIND_MAX];
	bool has_iouring;		/* enum io_uring_op in the kernel's BTF */

	pthread_t thread;
	bool thread_started;
	volatile bool stop;
	pthread_mutex_t lock;		/* rb consumption, attr, on_sync */
	bool collecting;
	__u64 window_start;
	struct fss_attr *attr;
	struct fss_blame *blame;	/* NULL: blame off or n/a */
	/* every comm any record carried, for the whole run (comms.h) */
	struct fss_comms *comms;
	bool blame_on;			/* its programs load (and attached) */
	char blame_desc[384];		/* what blame uses, or "n/a: why" */
	struct fss_blame_list blame_list;	/* of the sync being handed on */
	struct fss_fr_state fr;		/* blame on demand (--painter kernel) */
	__u32 blame_devs[64];		/* fs and disk devs put in the blame_devs
					 * map (unfiltered tracing only) */
	int nblame_devs;
	__u32 rq_devs[64];		/* fs devs whose disk is in the rq_devs
					 * map (unfiltered tracing only) */
	int nrq_devs;
	__u64 drops_at_begin;
	__u64 hits_at_begin[FSS_HOOK_MAX];
	int add_errors;

	/* fs dev -> disk dev cache for the attribution engine */
	struct { __u32 fs, disk; } disk_cache[32];
	int ndisk_cache;

	/* overlayfs mounts and their upper filesystems (fsalias.c) */
	struct fss_ovl ovl[64];
	int novl;
	__u32 not_ovl[64];		/* sync devs checked: no overlay */
	int nnot_ovl;
	__u64 ovl_scan_ns;		/* when mountinfo was last read */
};

/* What strat_plan() decided to try, for strat_load() and strat_attach(). */
struct strat_plan {
	enum hookset fs_try[3];		/* filesystem hook sets, best first */
	int nfs;
	enum hookset blk_set;		/* tp_btf, or raw_tp */
	bool nvme;			/* nvme_core tracepoints in BTF */
	bool nvme_refused;		/* in BTF, but the load left them out */
};

/* strategy.c: the open steps */

/* tracefs, probes, --strategy, the env knobs, BTF questions. 0 or -errno */
int strat_plan(struct fss_tracer *t, struct strat_plan *p, char *err,
	       size_t errlen);
/* knobs.c: FSYNCSCOPE_FLOOR, _BLOCK_HOOKS, _RQ_RECORDS, _RING_KB, _RING_HIGH */
int strat_knobs(struct fss_tracer *t, struct strat_plan *p, char *err,
		size_t errlen);
/* Load the main object, falling back along the plan (which it updates). */
int strat_load(struct fss_tracer *t, struct strat_plan *p, char *err,
	       size_t errlen);
/* Attach layer by layer; layer_set/ok/desc filled.  0 or -errno */
int strat_attach(struct fss_tracer *t, const struct strat_plan *p, char *err,
		 size_t errlen);

/* strategy.c: (re)attach for calibration */

int strat_attach_set(struct fss_tracer *t, enum layer layer, enum hookset set,
		     int *attached);
void strat_detach_set(struct fss_tracer *t, enum layer layer,
		      enum hookset set);

/* calib.c */

/* Blame records lost (ring buffer full) since open. */
__u64 calib_blame_lost(struct fss_tracer *t);

/* Calibration syncs in opts.calib_dir; drops hooks that never fired. */
int calib_run(struct fss_tracer *t, char *err, size_t errlen);
/* Hits of each hook so far (FSS_HOOK_MAX counters). */
void calib_read_hits(struct fss_tracer *t, __u64 *hits);
/* The summ map summed over CPUs, FSS_SYNC_KIND_MAX entries. */
void calib_read_summ(struct fss_tracer *t, struct fss_summ *out);
/* A sync the kernel sent, counted as summarized after all (why). */
void summ_demote(struct fss_tracer *t, __u32 kind, __u32 why, __u64 total);

/* kpreport.c: the in-kernel painter's reports (docs/hotpath.md) */

/* Its painted sync to opts.on_sync, or counted as unpainted. */
void kp_report_sync(struct fss_tracer *t, const struct fss_event *ev,
		    bool painted);
/* Its distinct flush facts so far (clk_flc[], .bss). */
void kp_flc_now(const struct fss_tracer *t, __u64 *out);
/* enum fss_kfl i's name: its struct fss_flush_stats counter's */
const char *kp_kfl_name(int i);
/* FSYNCSCOPE_KPAINT=1: a window's flush facts, both painters'. */
void kp_flc_window(struct fss_tracer *t, const struct fss_flush_stats *f);
/* opts.kernel_paint: its flush facts since the last call. */
void kp_flush_stats(struct fss_tracer *t, struct fss_flush_stats *f);
/* -v: its line at exit. */
void kp_print(const struct fss_tracer *t);

/* fsalias.c */

/*
 * Read the overlayfs mounts (mountinfo) into t->ovl and the fs_alias
 * map: the kernel keys an overlay's syncs to its upper filesystem.
 */
void alias_scan(struct fss_tracer *t);
/*
 * The filesystem a sync on fs dev (one with no disk) goes to: its
 * overlay's upper, or dev.
 */
__u32 alias_of(struct fss_tracer *t, __u32 dev);
/* Is dev an overlay known to have an upper filesystem? */
bool alias_known(const struct fss_tracer *t, __u32 dev);
/* Before load: the upper filesystem of target overlay fs_dev, or 0. */
__u32 alias_target(struct fss_tracer *t, __u32 fs_dev);
/* Live: mountinfo read again now and then (mounts come and go). */
void alias_refresh(struct fss_tracer *t, __u64 now);

/* flightrec.c: blame on demand from the flight recorder (kp_fr) */
int fr_open(struct fss_tracer *t);
void fr_close(struct fss_tracer *t);
void fr_blame(struct fss_tracer *t, struct fss_sync_result *r);
void fr_warn(const struct fss_tracer *t);

/*
 * The in-kernel painter paints only with the tp_btf block hooks: raw_tp
 * programs may not use the map that holds its lock (bpf/clock.bpf.h).
 */
static inline bool kp_live(const struct fss_tracer *t)
{
	return t->kpaint && t->skel && t->skel->rodata->kpaint &&
	       t->layer_ok[L_BLOCK] && t->layer_set[L_BLOCK] == HS_BLOCK_BTF;
}

/* FSYNCSCOPE_KPAINT=only, painting: no request record is sent. */
static inline bool kp_alone(const struct fss_tracer *t)
{
	return t->kp_only && kp_live(t);
}

#endif /* __FSS_TRACE_INT_H */
