/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * live_doc.h - `trace`'s result documents (schema fsyncscope/trace), one
 * JSON object per line: "start", "interval", "summary" and, with
 * --slower, "sync".  Renderers (out_text_trace.c, html, ...) read these.
 */
#ifndef __FSS_LIVE_DOC_H
#define __FSS_LIVE_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "stats/live_agg.h"

struct json_object;

/* what trace was asked to look at */
struct live_filters {
	const __u32 *tgids;
	int ntgids;
	const char *comm, *cgroup, *mount, *dev;
	const char *role;	/* --role (docs/databases.md), NULL: none */
	__u64 cgroup_id;
	__u32 fs_dev, disk_dev;
};

/* the start record: filters, -- CMD, timing options, attach strategy */
struct live_start {
	struct live_filters filters;
	char *const *cmd;	/* -- CMD ARGS, NULL-terminated, or NULL */
	double interval_s;	/* 0: none */
	double duration_s;	/* 0: none */
	double slower_ms;	/* < 0: off */
};

/* takes the reference to strategy (fss_tracer_strategy_json) */
struct json_object *live_doc_start(const struct live_start *s,
				   struct json_object *strategy);

/* what is traced, in words: "pid 42, comm x" or "every sync on the host" */
void live_doc_describe(const struct live_start *s, char *buf, size_t len);

struct live_report_ctx {
	const char *type;	/* "interval" or "summary" */
	int index;		/* interval number, from 1; 0: summary */
	double seconds;
	__u64 drops;
	int cmd_status;		/* summary of -- CMD: its exit status, -1 none */
	int top;		/* processes and files listed */
	bool journal_na;	/* no jbd2/xfs log tracepoint attached */
	bool cmd;		/* -- CMD: the summary has "command_status" */
	const char *blame;	/* the strategy's blame ("off (--no-blame)", ...) */
	bool has_summ;		/* summ is filled (a tracer ran) */
	__u32 sample_every;	/* --sample N (0: every sync traced) */
	/* --painter kernel, painting: counts over request records are n/a */
	bool kernel_painter;
	struct fss_summ summ[FSS_SYNC_KIND_MAX];	/* traced / summarized */
};

/* an interval or the summary from window w */
struct json_object *live_doc_report(const struct window *w,
				    const struct live_report_ctx *rc);

/* one sync (--slower) that ended at wall time wall_ns */
struct json_object *live_doc_sync(const struct fss_sync_result *r,
				  __u64 wall_ns);

#endif /* __FSS_LIVE_DOC_H */
