/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * summ.h - syncs traced in full and syncs summarized in the kernel under
 * overload (bpf/fsyncscope.h struct fss_summ, docs/hotpath.md
 * "Overload"): totals and the JSON every output carries.
 */
#ifndef FSS_STATS_SUMM_H
#define FSS_STATS_SUMM_H

#include <linux/types.h>
#include <json-c/json.h>
#include "fsyncscope.h"

/* Over all kinds (FSS_SYNC_KIND_MAX entries): syncs[why]. */
__u64 fss_summ_count(const struct fss_summ *by_kind, enum fss_summ_why why);
/* Over all kinds: every summarized sync (why 1 and up). */
__u64 fss_summ_summarized(const struct fss_summ *by_kind);

/*
 * {"traced": N, "summarized": N, "why": {"ring_high", "lost_near",
 * "ring_full", "lost_after", "sampled", "unpainted"}, "by_kind": {KIND: {"traced", "summarized"}},
 * "summarized_total_us": {"mean", "p50_le", "p99_le", "max_le"} (null when
 * none), "summarized_hist_log2_ns": [count of [2^i, 2^(i+1)) ns, ...]}.
 * "traced" is the kernel's count of syncs whose record it sent.
 */
struct json_object *fss_summ_json(const struct fss_summ *by_kind);

#endif
