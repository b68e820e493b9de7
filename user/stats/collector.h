/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * report.h - aggregate attributed syncs into a per-test breakdown and print
 * it (plain 80-column text and JSON twins).  Pure C (json-c only).
 */
#ifndef __FSS_REPORT_H
#define __FSS_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>
#include "engine/attr/attr.h"
#include "lib/hist.h"

struct fss_phase_stat {
	double mean_us, p50_us, p99_us;
	/*
	 * 95 % distribution-free confidence interval of p50 (order_ci.h): NAN
	 * when not known; p50_lo_us 0 / p50_hi_us INFINITY when there are too
	 * few syncs for that side (fewer than 6 for either).
	 */
	double p50_lo_us, p50_hi_us;
	double share;			/* phase total / sum of sync totals, 0..1 */
};

/* Blame of a test's syncs (blame.h), summed; syncs == 0: blame off. */
#define FSS_BLAME_TOP	3
struct fss_blame_sum {
	__u64 syncs;			/* syncs that carried a blame list */
	__u64 self_ns, others_ns, unattributed_ns;
	struct {
		__u32 pid;
		__u64 cgroup_id;
		char comm[FSS_COMM_LEN];
		__u64 ns;		/* time caused in these syncs */
		bool kthread;		/* a kernel thread's own I/O */
	} top[FSS_BLAME_TOP];		/* other processes, most first */
	unsigned int ntop;
};

struct fss_breakdown {
	__u64 syncs;			/* syncs attributed */
	double total_mean_us, total_p50_us, total_p99_us;
	struct fss_phase_stat phase[FSS_PH_MAX];
	struct fss_flush_stats flush;
	__u64 syncs_by_kind[FSS_SYNC_KIND_MAX];
	/*
	 * Requests with no completion seen: distinct ones (flush stats) when
	 * flush stats are given, else the sum over syncs of nr_incomplete.
	 */
	__u64 incomplete_rqs;
	__u64 syncs_incomplete;		/* syncs painted with such a request */
	__u64 drops;			/* events lost (ring buffer full etc.) */
	/*
	 * Requests were seen issued but never created/inserted (kernels
	 * without block_io_start, requests issued directly): queue time and
	 * the flags requests were created with (PREFLUSH, emulated FUA) are
	 * not measurable; they are reported as n/a, never as 0.
	 */
	bool no_rq_start;
	/*
	 * The journal layer had no hook (docs/model.md): a commit the syncs
	 * waited for is painted fs or other, so the journal phase is n/a,
	 * never 0.
	 */
	bool no_journal;
	struct fss_blame_sum blame;
	/*
	 * The kernel's count of the test's syncs (stats/summ.h): traced in
	 * full, or summarized under overload; syncs above is the traced ones
	 * attributed.  has_summ: filled (a tracer ran the test).
	 */
	bool has_summ;
	struct fss_summ summ[FSS_SYNC_KIND_MAX];
	/*
	 * --painter kernel: the kernel painted the syncs (one record each,
	 * no request records), so incomplete_rqs and syncs_incomplete are
	 * n/a ("painter": "kernel"), never 0.
	 */
	bool kernel_painted;
};

/* Collects sync results (in memory) for one test / one report interval. */
struct fss_collector;

struct fss_collector *fss_collector_new(void);
void fss_collector_free(struct fss_collector *c);
void fss_collector_reset(struct fss_collector *c);
/* Has the signature of fss_sync_cb: pass it (with c as arg) to fss_attr_drain. */
void fss_collector_add(const struct fss_sync_result *res, void *c);
__u64 fss_collector_count(const struct fss_collector *c);
/* Histograms of what was collected: 0 the sync totals, 1 + ph phase ph. */
#define FSS_COLL_NHIST	(1 + FSS_PH_MAX)
const struct fss_hist *fss_collector_hist(const struct fss_collector *c, int i);
/* Fill *out from what was collected; flush stats and drops are copied in. */
void fss_collector_breakdown(const struct fss_collector *c,
			     const struct fss_flush_stats *flush, __u64 drops,
			     struct fss_breakdown *out);

/*
 * {"syncs", "self_ns", "others_ns", "unattributed_ns", "others": [{pid,
 * comm, cgroup_id, cgroup, blamed_ns}]}, or NULL when no sync carried a
 * blame list (blame off).
 */
struct json_object *fss_blame_sum_json(const struct fss_blame_sum *b);

/* {"fs":{"mean_us","p50_us","p99_us","share"},...,"other":{...}} */
/*
 * A traced test's breakdown keys, added to its JSON object o: "breakdown"
 * (the phases), "flush" (elided unknown: null), "syncs_traced", "drops",
 * "incomplete_rqs", "syncs_incomplete", "breakdown_total",
 * "syncs_by_kind", and with has_summ "syncs_summarized" and "overload"
 * (fss_summ_json).  The text renderer (fss_text_breakdown) reads these.
 */
void fss_breakdown_add_json(struct json_object *o, const struct fss_breakdown *b);
struct json_object *fss_breakdown_phases_json(const struct fss_breakdown *b);
/* {"flushes","syncs_per_flush","flushes_per_sync","fua_writes","fua_emulated","preflush","syncs_no_flush","elided","nvme_flush_cmds"} */
struct json_object *fss_breakdown_flush_json(const struct fss_breakdown *b);

/* One JSON line for --events: {"test","tid","pid","comm","kind","start_ns","total_ns","fs_ns",...,"other_ns",...} */
int fss_sync_result_write_json(FILE *f, const char *test, const struct fss_sync_result *r);

/*
 * A count over request records as JSON: null when there were none to
 * count (kernel_painted: --painter kernel), never a made-up 0.
 */
struct json_object *fss_rq_count_json(bool kernel_painted, __u64 v);

#endif /* __FSS_REPORT_H */
