/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * suite.h - the engine behind `fsyncscope run`, shared with `compare` and
 * `devices --probe`: run a list of workload tests in a directory, each
 * wrapped by the tracer, and turn what was measured into the JSON test
 * object of docs/run.md and into a verdict.
 */
#ifndef __FSS_SUITE_H
#define __FSS_SUITE_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>
#include "sys/devinfo.h"
#include "lib/fmt.h"
#include "stats/collector.h"
#include "engine/tracer/tracer.h"
#include "sys/verdict.h"
#include "workload/workload.h"

/* One test: what to run (name, label, spec) and what it gave. */
struct fss_run_test {
	char name[64];			/* unique, JSON "name" */
	const char *section;		/* JSON "section" (static string) */
	char label[32];			/* plain row label */
	struct fss_wl_spec spec;	/* spec.name is set to name when run */
	struct fss_wl_result res;
	bool traced;			/* b is valid */
	struct fss_breakdown b;
	struct fss_hist *hist;		/* traced: [FSS_COLL_NHIST], else NULL */
	const char *section_title;	/* the plain section it is printed in */
	const char *section_note;	/* its one-line explanation, or NULL */
	bool ran;			/* res is valid */
};

struct fss_run_cfg {
	const char *dir;		/* where the test files go: the target */
	bool trace;			/* wrap every syncing test in the tracer */
	enum fss_strategy strategy;
	int verbose;			/* progress (and strategy) on stderr */
	const char *tag;		/* prefix of progress lines, or NULL */
	bool kernel_paint;		/* --painter kernel: ask the kernel */
};

struct fss_run_out {
	struct json_object *strategy;	/* tracer's strategy JSON (trace only;
					 * the caller owns it), else NULL */
	__u64 drops;			/* events lost in all tests */
	bool kernel_painted;		/* the kernel painted (trace only) */
};

/*
 * Open the workload engine (and the tracer, filtered to this process and
 * dir's filesystem and disk) on cfg->dir, run tests[0..n) in order, close
 * everything and remove the test files.  Stops early when fss_wl_stop is
 * set (the caller's signal handler): returns -EINTR then, and tests[i].ran
 * tells what was measured.  Other failures: -errno with one line in err.
 */
int fss_run_tests(const struct fss_run_cfg *cfg, struct fss_run_test *tests,
		  int n, struct fss_run_out *out, char *err, size_t errlen);

/*
 * The JSON object of one test (docs/run.md).  write_cache is the facts of
 * the device under the target (1 write back, 0 write through, -1 unknown):
 * it decides flush.elided (syncs_no_flush, 0 or null).
 */
/* What a test's run allocated (its histograms); the tests stay. */
void fss_run_tests_free(struct fss_run_test *tests, int n);

struct json_object *fss_run_test_json(const struct fss_run_test *r,
				      int write_cache);

/*
 * Which test's measurements a verdict rests on: the traced, ok test with
 * the most syncs among fdatasync tests, else among other durable methods
 * (fsync, open_datasync, open_sync, pwritev2_dsync).  -1 if none.
 */
int fss_run_verdict_test(const struct fss_run_test *tests, int n);

/*
 * Verdict from the facts of dev (the whole disk under the target) and the
 * measurements of tests[idx] (idx < 0: facts only, nothing measured).
 * retry_hint: what a borderline verdict tells the user to do (NULL: run
 * longer or use devices --probe).
 */
void fss_run_verdict(const struct fss_devinfo *dev, const char *retry_hint,
		     const struct fss_run_test *tests, int idx,
		     struct fss_verdict *v);

/* fss_verdict_json plus "device" and "measured_in" (test name or null). */
struct json_object *fss_run_verdict_json(const struct fss_verdict *v,
					 const struct fss_devinfo *dev,
					 const struct fss_run_test *tests,
					 int idx);

/*
 * Stopping: SIGINT, SIGTERM, SIGHUP and SIGPIPE set fss_wl_stop to the
 * first of them (SA_RESTART), so fss_run_tests() stops after the current
 * op.  catch clears fss_wl_stop and installs the handler; restore puts
 * back what was there before.
 */
struct fss_run_sigs {
	struct sigaction old[4];
};

void fss_run_signals_catch(struct fss_run_sigs *s);
void fss_run_signals_restore(const struct fss_run_sigs *s);

/* "SIGINT", "SIGTERM", "SIGHUP", "SIGPIPE", else "a signal". */
const char *fss_run_sig_name(int sig);

/* JSON "interrupted": the name of the signal that stopped us, or null. */
struct json_object *fss_run_interrupted_json(void);

/* {"kernel", "machine", "hostname", "cpus"} */
struct json_object *fss_run_host_json(void);

/* The shared text helpers (fmt.h), under the names the commands use. */
#define fss_run_fmt_us		fss_fmt_us
#define fss_run_print_wrapped	fss_print_wrapped

/* What the tracer hooks around a test's timed loop need. */
struct fss_run_hook {
	struct fss_tracer *tr;
	struct fss_run_test *cur;	/* test being run */
	bool begun;
	FILE *events;			/* --events: one JSON line per sync */
	struct fss_collector *coll;	/* the test's syncs (before -> after) */
};

/*
 * fss_wl_hooks around a test's timed loop: begin/end the tracer on h->cur
 * (its breakdown and histograms come from h's collector).
 */
void fss_run_hook_before(void *arg);
void fss_run_hook_after(void *arg);
/*
 * The tracer's on_sync (fss_trace_opts, with h as its arg): into the
 * test's collector, and its --events line when h->events is set.
 */
void fss_run_hook_sync(const struct fss_sync_result *res, void *arg);

/* The sync kinds (1 << FSS_SYNC_*) a method's ops are traced as. */
__u32 fss_method_sync_kinds(enum fss_method m);

#endif /* __FSS_SUITE_H */
