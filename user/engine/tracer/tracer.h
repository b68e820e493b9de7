/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * trace.h - the tracer: loads and attaches the BPF programs (strategy
 * selection + calibration), consumes the ring buffer in a background thread
 * and feeds the attribution engine.
 *
 * A sink: every attributed sync goes to opts.on_sync, and a window's end
 * gives back only what the tracer itself knows (flush facts, lost events).
 * Collecting, --events lines and metrics are the callers' (report.h,
 * metrics.h); the tracer knows none of them.
 */
#ifndef __FSS_TRACE_H
#define __FSS_TRACE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <json-c/json.h>
#include "engine/attr/attr.h"

enum fss_strategy {
	FSS_STRAT_AUTO = 0,
	FSS_STRAT_FENTRY,
	FSS_STRAT_KPROBE,
	FSS_STRAT_TRACEPOINT,
};

/* "auto", "fentry", "kprobe", "tracepoint" -> 0, or -1 when unknown */
int fss_strategy_parse(const char *s, enum fss_strategy *out);

struct fss_trace_opts {
	enum fss_strategy strategy;
	const char *calib_dir;	/* where calibration syncs are done (target fs) */
	pid_t tgid;		/* only syncs of this process (0: all) */
	__u32 fs_dev;		/* only this filesystem (0: all); kernel dev_t encoding */
	__u32 disk_dev;		/* only requests on this disk (0: all) */
	int verbose;
	/*
	 * Sync kinds to hook, as bits 1 << FSS_SYNC_* (0: all).  A workload
	 * that only calls fdatasync need not pay for the write hooks that
	 * look for O_DSYNC writes.  fsync and fdatasync are always hooked
	 * (calibration uses them).
	 */
	__u32 sync_kinds;
	bool detail;		/* fill fss_sync_result.detail (--events-detail) */
	/*
	 * Blame (docs/blame.md): load the blame programs and give each
	 * attributed sync its fss_sync_result.blame.  Off when false (the
	 * exporter's and compare's default; run and trace turn it on unless
	 * --no-blame).
	 */
	bool blame;
	/*
	 * --sample N: each sync traced in full with probability 1/N, the
	 * others summarized in the kernel (FSS_SUMM_SAMPLED); 0 or 1: all
	 */
	__u32 sample_every;
	/* live mode (fsyncscope trace) */
	const __u32 *tgids;	/* only syncs of these processes (ntgids > 0) */
	int ntgids;
	bool follow_forks;	/* and of every process they fork, as they fork */
	const char *comm;	/* only syncs of tasks with this comm (NULL: any) */
	__u64 cgroup_id;	/* only syncs of tasks in this cgroup v2 (0: any) */
	bool live;		/* collect continuously from open; no begin/end */
	/*
	 * --painter kernel (run, trace, exporter; docs/hotpath.md "The kernel
	 * painter, reporting"): the kernel paints each sync and sends one
	 * record per sync, no request records; its phases are the breakdown,
	 * its flush facts counted there too, and its request counts are n/a
	 * (fss_tracer_kernel_painted), blame
	 * is on demand (opts.blame: the syncs above blame_slower_ns, else
	 * above the running p99 of their kind, from the flight recorder;
	 * docs/blame.md), the consumer runs at normal priority
	 * (FSYNCSCOPE_CONSUMER may say idle).  Where the kernel cannot paint (no tp_btf block
	 * hooks) user space paints, as without it.
	 */
	bool kernel_paint;
	bool blame_slower_set;	/* --slower given: its threshold, not p99 */
	__u64 blame_slower_ns;
	/*
	 * Each attributed sync, in exit order: from the consumer thread, or
	 * inside fss_tracer_end / fss_tracer_live_flush; the tracer's lock is
	 * held (so calls never overlap).  NULL: attributed and dropped.
	 */
	fss_sync_cb on_sync;
	void *on_sync_arg;
	/* live: every record as it is read, before attribution (consumer thread, lock held) */
	void (*on_event)(const struct fss_event *ev, void *arg);
	void *on_event_arg;
};

struct fss_tracer;

/*
 * opts.kernel_paint and the kernel paints: each sync's breakdown is the
 * kernel's, its request counts are n/a but its pure flushes and whether
 * it saw a flush (nr_flush, flush_seen), and the flush facts of
 * fss_tracer_live_flush and of each fss_tracer_end window are the
 * kernel's counts (clock.bpf.h clk_flc; their incomplete is n/a).
 */
bool fss_tracer_kernel_painted(const struct fss_tracer *t);

/*
 * Load, attach, calibrate.  On failure returns NULL and writes one line
 * (no trailing newline) into err.
 */
struct fss_tracer *fss_tracer_open(const struct fss_trace_opts *opts,
				   char *err, size_t errlen);
/* Start collecting for one test: syncs that start after this call count. */
int fss_tracer_begin(struct fss_tracer *t);

/* What a test's window yields besides its syncs (which went to on_sync). */
struct fss_trace_window {
	struct fss_flush_stats flush;	/* flush facts of the window's syncs */
	__u64 drops;			/* events lost in the window */
	/*
	 * Requests were seen issued but none created/inserted: queue time
	 * and creation flags are not measurable (see fss_breakdown).
	 */
	bool no_rq_start;
	/*
	 * No journal hook is attached (no jbd2 or xfs log tracepoint): the
	 * journal phase was not measured (see fss_breakdown).
	 */
	bool no_journal;
	/*
	 * Syncs of the window by kind: traced in full (syncs[0]) or
	 * summarized in the kernel, why, and their totals (fsyncscope.h)
	 */
	struct fss_summ summ[FSS_SYNC_KIND_MAX];
};

/*
 * Stop collecting; attribute everything (handing each sync to on_sync)
 * and fill *out.  0 or -errno.
 */
int fss_tracer_end(struct fss_tracer *t, struct fss_trace_window *out);
/* {"sync":"tracepoint","fs":"...","journal":"...","block":"...","nvme":"...","calibration":{...}} */
struct json_object *fss_tracer_strategy_json(struct fss_tracer *t);
/* One line per layer, for -v. */
void fss_tracer_print_strategy(struct fss_tracer *t, FILE *f);
/*
 * Live mode: attribute everything recorded up to now (syncs still running
 * stay pending) and hand them to opts.on_sync; returns syncs reported.
 * Also fills *flush (may be NULL) with flush facts since the last call.
 */
int fss_tracer_live_flush(struct fss_tracer *t, struct fss_flush_stats *flush);
/* Events lost since open. */
__u64 fss_tracer_drops(struct fss_tracer *t);
/*
 * Syncs traced in full and summarized since open (calibration not
 * counted), by kind: FSS_SYNC_KIND_MAX entries into out.
 */
void fss_tracer_summ(struct fss_tracer *t, struct fss_summ *out);
/*
 * Can this process still read the lost-event counters (0), or -errno: a
 * kernel that checks privilege on every bpf() call refuses map lookups
 * once root is given up.
 */
int fss_tracer_drops_readable(struct fss_tracer *t);
/*
 * Before the process gives up root: the calibration file live mode holds
 * open loses its name now (a named one, where O_TMPFILE was refused), as
 * the user it becomes may not remove it from the directory at close.
 */
void fss_tracer_unname_files(struct fss_tracer *t);
void fss_tracer_close(struct fss_tracer *t);

#endif /* __FSS_TRACE_H */
