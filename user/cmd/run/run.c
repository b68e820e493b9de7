// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * run.c - `fsyncscope run`: the pg_test_fsync suite, or one fio-style custom
 * test (or a sweep over concurrency), each test optionally wrapped by the
 * tracer so every sync is split into phases.  Plain (80 columns) and JSON
 * output; SIGINT/SIGTERM stop after the current op and print what was
 * measured.  docs/run.md is the user-facing contract.
 */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <json-c/json.h>
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "sys/devinfo.h"
#include "doc/doc.h"
#include "render/render.h"
#include "workload/suite.h"
#include "sys/target.h"
#include "sys/preflight.h"
#include "engine/tracer/tracer.h"
#include "workload/workload.h"
#include "cmd/run/run_int.h"

#define PROG		"fsyncscope run"

enum {
	OPT_EVENTS = 256, OPT_EVENTS_DETAIL, OPT_SAVE, OPT_FILE, OPT_FORCE,
	OPT_SHARED, OPT_SWEEP, OPT_NO_BLAME, OPT_IOENGINE, OPT_IODEPTH,
	OPT_SYNC_BATCH, OPT_PAINTER,
};

static const char doc[] =
"Drive syncs and explain them.\n\n"
"Without custom options: the pg_test_fsync suite (sync methods with one "
"and two 8kB writes, open_sync write sizes, fsync on a second descriptor, "
"non-synced writes) on a fresh 16 MiB temporary file in DIR (default: the "
"current directory), each test for -s seconds.  Any of --method, --bs, "
"--direct, --writes-per-sync, --jobs, --shared-file, --pattern, "
"--file-size or --sweep runs one custom test instead.  Every op is timed "
"(CLOCK_MONOTONIC): ops/sec, usecs/op and p50/p99/p99.9/max per op.  "
"Unless --no-trace, each test is traced and every sync split into fs, "
"journal, queue, device_write, device_flush and other time (needs root)."
"\v"
"EXAMPLES:\n"
"  fsyncscope run /mnt/db               the suite, traced, 5 s per test\n"
"  fsyncscope run --no-trace -s 1 .     the suite only, 1 s per test\n"
"  fsyncscope run --json /mnt/db > out.json\n"
"  fsyncscope run --method fdatasync --bs 16k --jobs 4 -s 10 /mnt/db\n"
"  fsyncscope run --method fsync --pattern random --file-size 1g "
"--direct /mnt/db\n"
"  fsyncscope run --sweep jobs=1,2,4,8,16,32 --method fdatasync /mnt/db\n"
"\n"
"Exit status: 0 done (n/a rows included), 1 error, 2 usage error,\n"
"130/143 stopped by SIGINT/SIGTERM (partial results printed).\n"
"See docs/run.md for the JSON contract.";

/*
 * Groups 2, 3 and 5 hold the shared options of fss_cli_wl_argp too, group 3
 * those of the workload's shape (fss_cli_shape_argp).
 */
static const struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "Test length:", 2 },
	{ NULL, 0, NULL, 0, "Custom test (fio-style; replaces the suite):", 3 },
	{ "shared-file", OPT_SHARED, NULL, 0, "All jobs on one file (default: one each)", 3 },
	{ "sweep", OPT_SWEEP, "KEY=LIST", 0, "Run the custom test once per job "
	  "count (jobs=1,2,4,8) or io_uring depth (iodepth=1,4,16) in LIST, "
	  "with a Little's-law check", 3 },
	{ "ioengine", OPT_IOENGINE, "E", 0, "sync (default: one op at a time "
	  "per job) or io_uring (--iodepth ops in flight per job, each a write "
	  "then its fdatasync/fsync, or one open_datasync, open_sync or "
	  "pwritev2_dsync write)", 3 },
	{ "iodepth", OPT_IODEPTH, "N", 0, "Ops in flight per job with "
	  "--ioengine io_uring (1 to 4096, default 1)", 3 },
	{ "sync-batch", OPT_SYNC_BATCH, "B", 0, "With io_uring: pair (default: "
	  "each op's sync once its write completed) or fio (fio's --fdatasync=1: "
	  "writes and syncs share the depth, an op is durable at the next "
	  "sync; docs/run.md)", 3 },
	{ NULL, 0, NULL, 0, "Files:", 4 },
	{ "file", OPT_FILE, "PATH", 0, "Use PATH instead of a temporary file (it must "
	  "not exist unless --force)", 4 },
	{ "force", OPT_FORCE, NULL, 0, "Allow --file to name an existing file or a "
	  "block device (its data is overwritten)", 4 },
	{ NULL, 0, NULL, 0, "Tracing and output:", 5 },
	{ "events", OPT_EVENTS, "FILE", 0, "Write one JSON line per traced sync", 5 },
	{ "save", OPT_SAVE, "FILE", 0, "Also save the result document (JSON) to "
	  "FILE, whatever --format prints: 'fsyncscope report FILE' renders "
	  "it again", 5 },
	{ "events-detail", OPT_EVENTS_DETAIL, NULL, 0, "With --events: each sync's "
	  "painted stretches, requests and journal commits too (for --format "
	  "perfetto; records ~2.5x larger)", 5 },
	{ "no-blame", OPT_NO_BLAME, NULL, 0, "Do not name who caused the syncs' "
	  "time (blame, docs/blame.md: on by default)", 5 },
	{ "painter", OPT_PAINTER, "WHO", 0, "user (default: from request "
	  "records, with their counts and blame) or kernel (one record per "
	  "sync: none summarized under many jobs; only syncs above the running "
	  "p99 blamed; docs/hotpath.md)",
	  5 },
	{ 0 },
};

static int parse_sweep(struct run_opts *o, const char *arg)
{
	char buf[512], *tok, *save = NULL;
	unsigned long long v, max = FSS_CLI_MAX_JOBS;

	if (!strncmp(arg, "jobs=", 5)) {
		o->sweep_iodepth = false;
		arg += 5;
	} else if (!strncmp(arg, "iodepth=", 8)) {
		o->sweep_iodepth = true;
		max = MAX_IODEPTH;
		arg += 8;
	} else {
		return -1;
	}
	if (strlen(arg) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", arg);
	o->nsweep = 0;
	if (!*buf || buf[strlen(buf) - 1] == ',')
		return -1;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->nsweep >= MAX_SWEEP || fss_parse_uint(tok, max, &v) || !v)
			return -1;
		o->sweep[o->nsweep++] = (unsigned int)v;
	}
	return o->nsweep ? 0 : -1;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct run_opts *o = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &o->wl;
		state->child_inputs[1] = &o->shape;
		break;
	case OPT_EVENTS_DETAIL:
		o->events_detail = true;
		break;
	case OPT_PAINTER:
		return fss_cli_painter_arg(state, arg, &o->kernel_paint);
	case OPT_NO_BLAME:
		o->no_blame = true;
		break;
	case OPT_SAVE:
		return fss_cli_out_arg(state, "--save", arg, &o->save);
	case OPT_EVENTS:
		o->events = arg;
		break;
	case OPT_FILE:
		o->file = arg;
		break;
	case OPT_FORCE:
		o->force = true;
		break;
	case OPT_SHARED:
		o->shared = true;
		o->custom = true;
		break;
	case OPT_SWEEP:
		if (parse_sweep(o, arg)) {
			argp_error(state, "bad --sweep '%s': jobs=N[,N...], up to "
				   "%d levels, N from 1 to %d; or iodepth=N[,N...]"
				   ", N from 1 to %d", arg, MAX_SWEEP,
				   FSS_CLI_MAX_JOBS, MAX_IODEPTH);
			return EINVAL;
		}
		o->custom = true;
		break;
	case OPT_IOENGINE:
		if (strcmp(arg, "sync") && strcmp(arg, "io_uring")) {
			argp_error(state, "bad --ioengine '%s': sync or io_uring",
				   arg);
			return EINVAL;
		}
		o->uring = !strcmp(arg, "io_uring");
		o->custom = true;
		break;
	case OPT_IODEPTH: {
		unsigned long long v;

		if (fss_parse_uint(arg, MAX_IODEPTH, &v) || !v) {
			argp_error(state, "bad --iodepth '%s': 1 to %d", arg,
				   MAX_IODEPTH);
			return EINVAL;
		}
		o->iodepth = (unsigned int)v;
		o->iodepth_set = true;
		o->custom = true;
		break;
	}
	case OPT_SYNC_BATCH:
		if (fss_sync_batch_parse(arg, &o->sync_batch)) {
			argp_error(state, "bad --sync-batch '%s': pair or fio",
				   arg);
			return EINVAL;
		}
		o->sync_batch_set = true;
		o->custom = true;
		break;
	case ARGP_KEY_ARG:
		if (o->dir) {
			argp_error(state, "too many arguments: '%s' (one DIR at most)", arg);
			return EINVAL;
		}
		o->dir = arg;
		break;
	case ARGP_KEY_END:
		/* --bs, --writes-per-sync, --jobs, --file-size; the shape */
		if (o->wl.workload_set || o->shape.set)
			o->custom = true;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {
	{ &fss_cli_wl_argp, 0, NULL, 0 },
	{ &fss_cli_shape_argp[FSS_CLI_SHAPE_ONE], 0, NULL, 0 },
	{ 0 },
};

static const struct argp run_argp = {
	options, parse_opt, "[DIR]", doc, children,
};

static int usage_error(const char *msg)
{
	return fss_cli_usage_error(PROG, msg);
}

/* ---- the command ------------------------------------------------------ */

static int check_combinations(struct run_opts *o)
{
	__u64 need;

	if (o->wl.count && o->wl.seconds_set)
		return usage_error("use either -s/--runtime or --count, not both");
	if (o->wl.format == FSS_FMT_PERFETTO && !o->events)
		return usage_error("--format perfetto draws the traced syncs: it "
				   "needs --events FILE");
	if (o->events_detail && !o->events)
		return usage_error("--events-detail adds to --events FILE: give both");
	if (o->kernel_paint && (o->events_detail ||
				o->wl.format == FSS_FMT_PERFETTO))
		return usage_error("--events-detail and perfetto draw each "
				   "sync's requests: not with --painter kernel "
				   "(none is recorded)");
	if (o->kernel_paint && o->wl.no_trace)
		return usage_error("--painter kernel paints traced syncs: drop "
				   "--no-trace");
	if (o->wl.format == FSS_FMT_PERFETTO)
		o->events_detail = true;
	if (o->wl.no_trace && (o->wl.strategy || o->events))
		return usage_error("--strategy and --events need tracing "
				   "(drop --no-trace)");
	if (o->nsweep && !o->sweep_iodepth && o->wl.jobs_set)
		return usage_error("--sweep jobs=... and --jobs cannot be combined");
	if (o->nsweep && o->sweep_iodepth && !o->uring)
		return usage_error("--sweep iodepth=... needs --ioengine io_uring");
	if (o->nsweep && o->sweep_iodepth && o->iodepth_set)
		return usage_error("--sweep iodepth=... and --iodepth cannot be "
				   "combined");
	if (o->force && !o->file)
		return usage_error("--force only applies to --file PATH");
	if (o->iodepth_set && !o->uring)
		return usage_error("--iodepth needs --ioengine io_uring (the sync "
				   "engine has one op in flight per job)");
	if (o->sync_batch_set && !o->uring)
		return usage_error("--sync-batch needs --ioengine io_uring");
	if (o->uring && !fss_wl_uring_method(o->shape.methods[0],
					     o->sync_batch))
		return usage_error(o->sync_batch == FSS_SB_FIO ?
				   "--sync-batch fio runs --method fdatasync or "
				   "fsync" : "--ioengine io_uring runs --method "
				   "fdatasync, fsync (a write, then its sync), "
				   "open_datasync, open_sync or pwritev2_dsync "
				   "(one write that is the sync)");
	if (o->uring && o->wl.wps != 1)
		return usage_error("--ioengine io_uring does one write per sync "
				   "(drop --writes-per-sync)");
	if (o->uring && !o->iodepth)
		o->iodepth = 1;
	for (int i = 0; o->sweep_iodepth && i < o->nsweep; i++)
		if (o->sweep[i] > o->iodepth)
			o->iodepth = o->sweep[i];	/* the deepest, for sizes */
	if (o->shape.pattern == FSS_PAT_APPEND && o->wl.file_size_set)
		return usage_error("--file-size does not apply to --pattern append "
				   "(the file starts empty and grows)");
	need = o->wl.bs * o->wl.wps * (o->uring ? o->iodepth : 1);
	if (o->shape.pattern == FSS_PAT_OVERWRITE && (o->shared || o->file))
		need *= o->nsweep && !o->sweep_iodepth ? 1 : o->wl.jobs;
	if (o->custom && o->shape.pattern == FSS_PAT_OVERWRITE &&
	    o->wl.file_size_set &&
	    o->wl.file_size < need)
		return usage_error("--file-size is smaller than --bs x "
				   "--writes-per-sync (x --iodepth, x --jobs on a "
				   "shared file)");
	if (o->custom && o->shape.pattern == FSS_PAT_RANDOM &&
	    o->wl.file_size < o->wl.bs)
		return usage_error("--file-size is smaller than --bs");
	if (o->wl.strategy) {
		enum fss_strategy st;

		if (fss_strategy_parse(o->wl.strategy, &st))
			return usage_error("unknown --strategy (auto, fentry, kprobe, "
					   "tracepoint)");
	}
	return 0;
}

/*
 * Bytes of test files a run holds at once (files go at the end of each
 * test), and how they add up.  Append files grow: with --count by exactly
 * count x bs x writes-per-sync per job, with -s by an unknown amount, of
 * which one sync's writes per job are counted.
 */
static __u64 files_needed(const struct run_opts *o, char *what, size_t len)
{
	__u64 one = o->wl.bs * o->wl.wps, per, jobs = o->wl.jobs, nfiles;
	char a[32];

	if (!o->custom) {
		fss_preflight_size(a, sizeof(a), SUITE_FILE_SIZE);
		snprintf(what, len, "one %s file", a);
		return SUITE_FILE_SIZE;
	}
	for (int i = 0; !o->sweep_iodepth && i < o->nsweep; i++)
		if (i == 0 || o->sweep[i] > jobs)
			jobs = o->sweep[i];
	nfiles = o->shared || o->file ? 1 : jobs;
	if (o->shape.pattern == FSS_PAT_APPEND) {
		per = (o->wl.count ? o->wl.count : 1) * one * jobs / nfiles;
		fss_preflight_size(a, sizeof(a), per);
		snprintf(what, len, "%llu file%s growing to %s%s",
			 (unsigned long long)nfiles, nfiles == 1 ? "" : "s", a,
			 o->wl.count ? "" : " at least");
	} else {
		per = o->wl.file_size;
		if (nfiles == 1 && o->shape.pattern == FSS_PAT_OVERWRITE)
			one *= jobs;
		if (per < one)
			per = one;
		fss_preflight_size(a, sizeof(a), per);
		snprintf(what, len, "%llu job%s x %s", (unsigned long long)nfiles,
			 nfiles == 1 ? "" : "s", a);
		if (nfiles == 1)
			snprintf(what, len, "one %s file", a);
	}
	return per * nfiles;
}

/*
 * DIR, or --file's directory, as o->dir (fdir holds the latter), then
 * everything about it that can be checked before anything is printed or
 * attached.  0, 2 (usage) or 1 (a refusal, said on stderr).
 */
static int target_resolve(struct run_opts *o, char *fdir, size_t len)
{
	char err[PATH_MAX + 256], what[96];
	__u64 need;

	if (o->file && o->dir)
		return usage_error("give either DIR or --file PATH, not both");
	if (o->file) {
		/* the target is where the named file lives */
		const char *slash = strrchr(o->file, '/');

		if (!slash)
			snprintf(fdir, len, ".");
		else if (slash == o->file)
			snprintf(fdir, len, "/");
		else
			snprintf(fdir, len, "%.*s", (int)(slash - o->file), o->file);
		o->dir = fdir;
	}
	if (!o->dir)
		o->dir = ".";
	need = files_needed(o, what, sizeof(what));
	if (fss_preflight_target(o->dir, o->file, o->force, need, what, err,
				 sizeof(err))) {
		fprintf(stderr, "fsyncscope: %s\n", err);
		return 1;
	}
	return 0;
}

/*
 * Open the tracer on the target, filtered to this process, with the
 * events file: 0, or 1 after one line on stderr.
 */
static int tracer_start(struct ctx *c)
{
	const struct run_opts *o = c->o;
	struct fss_trace_opts to = {
		.strategy = FSS_STRAT_AUTO,
		.calib_dir = c->ti.t.path,
		.tgid = getpid(),
		.fs_dev = c->ti.t.fs_kdev,
		.disk_dev = c->ti.t.disk_kdev,
		.verbose = o->wl.verbose,
		.blame = !o->no_blame,
		.kernel_paint = o->kernel_paint,
		.on_sync = fss_run_hook_sync,
		.on_sync_arg = &c->hk,
	};
	char err[PATH_MAX + 256];
	struct stat fst;

	if (o->wl.strategy)
		fss_strategy_parse(o->wl.strategy, &to.strategy);
	/* a custom test makes one kind of sync; the suite all of them */
	if (o->custom)
		to.sync_kinds = o->uring ? 1u << FSS_SYNC_IOURING_FSYNC :
				fss_method_sync_kinds(o->shape.methods[0]);
	if (o->file && !stat(o->file, &fst) && S_ISBLK(fst.st_mode)) {
		/* syncs on the device node itself: filter by disk only */
		__u32 k = fss_kdev(major(fst.st_rdev), minor(fst.st_rdev));

		to.fs_dev = 0;
		to.disk_dev = fss_disk_of(k) ? fss_disk_of(k) : k;
	}
	if (o->events) {
		c->events_created = access(o->events, F_OK) != 0;
		c->events = fopen(o->events, "w");
		if (!c->events) {
			fprintf(stderr, "fsyncscope: cannot write %s: %s\n",
				o->events, strerror(errno));
			c->events_created = false;
			return 1;
		}
		c->hk.events = c->events;
		to.detail = o->events_detail;
	}
	c->tr = fss_tracer_open(&to, err, sizeof(err));
	if (!c->tr) {
		fprintf(stderr, "fsyncscope: %s\n", err);
		return 1;
	}
	fss_cli_painter_note(PROG, o->kernel_paint,
			     fss_tracer_kernel_painted(c->tr));
	/* the document's options.painter: who paints, as said just now */
	c->o->kernel_paint = fss_tracer_kernel_painted(c->tr);
	if (o->wl.verbose)
		fss_tracer_print_strategy(c->tr, stderr);
	return 0;
}

/*
 * The result: the text after the header (findings, rows, verdict), or the
 * document rendered as --format asks, and --save.  0, or 1 when output failed.
 */
static int finish(struct ctx *c, __u64 drops, const struct sweep_row *rows,
		  int nrows)
{
	const struct run_opts *o = c->o;
	struct fss_render_opts ro = { .events_path = o->events };
	struct json_object *doc;
	struct run_verdict rv;
	int ret = 0;

	run_verdict_get(c, &rv);
	doc = run_doc(c, drops, rows, nrows, &rv);
	/* the text after the header: findings first (docs/findings.md) */
	if (!o->wl.json)
		fss_text_run_body(stdout, doc, o->wl.hist);
	if (!o->wl.json && !o->save) {
		json_object_put(doc);
		return 0;
	}
	if (c->events)
		fflush(c->events);
	/* --save: the document as JSON, whatever --format prints */
	if (o->save && fss_emit(json_object_get(doc), FSS_FMT_JSON, o->save, NULL))
		ret = 1;
	if (o->wl.json && fss_emit(json_object_get(doc), o->wl.format,
				   o->wl.output, &ro))
		ret = 1;
	json_object_put(doc);
	return ret;
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o = { 0 };
	struct fss_run_sigs sigs;
	struct sweep_row rows[MAX_SWEEP];
	struct ctx c = { .o = &o };
	char err[PATH_MAX + 256], fdir[PATH_MAX];
	int rc, nrows = 0, ret = 0;
	__u64 drops = 0;

	fss_cli_wl_defaults(&o.wl);
	o.wl.file_size = SUITE_FILE_SIZE;
	fss_cli_shape_defaults(&o.shape);
	if (fss_cli_parse(&run_argp, argc, argv, &o, PROG, &rc))
		return rc;
	rc = check_combinations(&o);
	if (rc)
		return rc;
	rc = target_resolve(&o, fdir, sizeof(fdir));
	if (rc)
		return rc;
	if (o.uring && fss_wl_uring_check(err, sizeof(err))) {
		fprintf(stderr, "fsyncscope: %s\n", err);
		return 1;
	}

	fss_run_signals_catch(&sigs);

	c.w = fss_wl_new(o.dir, o.file, o.force, err, sizeof(err));
	if (!c.w) {
		fprintf(stderr, "fsyncscope: %s\n", err);
		ret = 1;
		goto out;
	}
	fss_target_get(o.dir, &c.ti);

	if (!o.wl.no_trace && tracer_start(&c)) {
		ret = 1;
		goto out;
	}

	if (!o.wl.json && o.wl.output && fss_stdout_to_begin(o.wl.output)) {
		ret = 1;
		goto out;
	}
	if (!o.wl.json)
		run_print_header(&c);
	if (fss_wl_stop)
		rc = -EINTR;
	else if (o.custom)
		rc = run_custom(&c, rows, &nrows);
	else
		rc = run_suite(&c);

	if (rc && rc != -EINTR) {
		ret = 1;
		goto out;
	}
	if (rc == -EINTR && !fss_wl_stop) {
		ret = 1;
		goto out;
	}
	if (c.tr)
		drops = fss_tracer_drops(c.tr);
	ret = finish(&c, drops, rows, nrows);
	fflush(stdout);
	if (drops)
		fprintf(stderr, "fsyncscope: warning: %llu events lost; the "
			"syncs near them were summarized, not painted\n",
			(unsigned long long)drops);
	if (fss_wl_stop) {
		fprintf(stderr, "fsyncscope: stopped by %s; results above are partial\n",
			fss_run_sig_name(fss_wl_stop));
		ret = 128 + fss_wl_stop;
	}
out:
	if (c.tr)
		fss_tracer_close(c.tr);
	if (c.events) {
		fclose(c.events);
		if (ret == 1 && c.events_created)
			unlink(o.events);
	}
	if (fss_stdout_to_end(ret != 1) && !ret)
		ret = 1;
	fss_wl_free(c.w);
	fss_run_tests_free(c.tests, c.ntests);
	free(c.tests);
	fss_run_signals_restore(&sigs);
	return ret;
}
