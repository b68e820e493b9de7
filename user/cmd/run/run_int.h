/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * run_int.h - what the three files of `fsyncscope run` share: run.c (the
 * options and the command), run_tests.c (the suite's and the custom
 * test's plans, each test run and printed as it finishes) and run_doc.c
 * (the run's result document and the parts of it the plain text prints
 * early).  Internal to those files.
 */
#ifndef __FSS_RUN_INT_H
#define __FSS_RUN_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>
#include "cmd/cli.h"
#include "sys/devinfo.h"
#include "render/render.h"
#include "workload/suite.h"
#include "sys/target.h"
#include "sys/verdict.h"
#include "workload/workload.h"

#define SUITE_FILE_SIZE	(16ULL << 20)	/* pg_test_fsync's WAL segment size */
#define MAX_SWEEP	64
#define MAX_IODEPTH	4096	/* --iodepth, --sweep iodepth= */

/* The parsed options (run.c). */
struct run_opts {
	const char *dir;
	struct fss_cli_wl wl;		/* -s, -n, --bs..., tracing, output */
	const char *events;
	bool events_detail;		/* --events-detail (or --format perfetto) */
	bool no_blame;			/* --no-blame */
	bool kernel_paint;		/* --painter kernel */
	const char *save;		/* --save FILE: the document, as JSON */
	const char *file;
	bool force;
	/* custom test */
	bool custom;
	struct fss_cli_shape shape;	/* --method, --pattern, --direct */
	bool shared;
	unsigned int sweep[MAX_SWEEP];
	int nsweep;
	bool sweep_iodepth;		/* --sweep iodepth=: sweep holds depths */
	bool uring;			/* --ioengine io_uring */
	unsigned int iodepth;		/* --iodepth (io_uring; default 1) */
	bool iodepth_set;
	enum fss_sync_batch sync_batch;	/* --sync-batch (io_uring) */
	bool sync_batch_set;
};

/* One run while it goes: its target, workload, tracer and tests. */
struct ctx {
	struct run_opts *o;
	struct target_info ti;
	struct fss_workload *w;
	struct fss_tracer *tr;
	struct fss_run_test *tests;
	int ntests, cap;
	struct fss_run_hook hk;
	char custom_title[256];		/* the custom test's section title */
	FILE *events;			/* --events */
	bool events_created;		/* by us: removed on errors */
};

/* One level of a sweep: jobs x iodepth ops asked to be in flight. */
struct sweep_row {
	unsigned int jobs;
	unsigned int iodepth;		/* 1 for the sync engine */
	const struct fss_run_test *r;
};

struct run_verdict {
	bool have;			/* there is a device to judge */
	char why[PATH_MAX + 128];	/* no verdict: why */
	struct fss_devinfo dev;		/* the whole disk under the target */
	struct fss_verdict v;
	int idx;			/* test measured (-1: facts only) */
};

/* run_tests.c */
struct fss_run_test *run_rec_new(struct ctx *c);
int run_suite(struct ctx *c);
int run_custom(struct ctx *c, struct sweep_row *rows, int *nrows);

/* run_doc.c */
struct json_object *run_options_json(const struct run_opts *o);
struct json_object *run_sweep_json(const struct sweep_row *rows, int n);
struct json_object *run_little_json(const struct run_opts *o,
				    const struct sweep_row *rows, int n);
void run_print_header(struct ctx *c);
void run_verdict_get(struct ctx *c, struct run_verdict *rv);
struct json_object *run_doc(struct ctx *c, __u64 drops,
			    const struct sweep_row *rows, int nrows,
			    const struct run_verdict *rv);

#endif /* __FSS_RUN_INT_H */
