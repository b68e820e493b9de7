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
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <json-c/json.h>
#include "cli.h"
#include "commands.h"
#include "devinfo.h"
#include "doc.h"
#include "progress.h"
#include "render.h"
#include "report.h"
#include "suite.h"
#include "target.h"
#include "preflight.h"
#include "trace.h"
#include "verdict.h"
#include "workload.h"

#define SUITE_FILE_SIZE	(16ULL << 20)	/* pg_test_fsync's WAL segment size */
#define MAX_SWEEP	64
#define PROG		"fsyncscope run"

/* ---- options ---------------------------------------------------------- */

struct run_opts {
	const char *dir;
	struct fss_cli_wl wl;		/* -s, -n, --bs..., tracing, output */
	const char *events;
	bool events_detail;		/* --events-detail (or --format perfetto) */
	bool no_blame;			/* --no-blame */
	const char *save;		/* --save FILE: the document, as JSON */
	const char *file;
	bool force;
	/* custom test */
	bool custom;
	enum fss_method method;
	bool direct;
	bool shared;
	enum fss_pattern pattern;
	unsigned int sweep[MAX_SWEEP];
	int nsweep;
	bool help;
};

enum {
	OPT_EVENTS = 256, OPT_EVENTS_DETAIL, OPT_SAVE, OPT_FILE, OPT_FORCE, OPT_METHOD, OPT_DIRECT,
	OPT_SHARED, OPT_PATTERN, OPT_SWEEP, OPT_USAGE, OPT_NO_BLAME,
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

/* Groups 2, 3 and 5 hold the shared options of fss_cli_wl_argp too. */
static const struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "Test length:", 2 },
	{ NULL, 0, NULL, 0, "Custom test (fio-style; replaces the suite):", 3 },
	{ "method", OPT_METHOD, "M", 0, "open_datasync, open_sync, fdatasync, fsync, "
	  "none, sync_file_range, pwritev2_dsync, fsync_writethrough (default "
	  "fdatasync)", 3 },
	{ "direct", OPT_DIRECT, NULL, 0, "Open with O_DIRECT", 3 },
	{ "shared-file", OPT_SHARED, NULL, 0, "All jobs on one file (default: one each)", 3 },
	{ "pattern", OPT_PATTERN, "P", 0, "overwrite (default), append, random", 3 },
	{ "sweep", OPT_SWEEP, "jobs=LIST", 0, "Run the custom test once per job count "
	  "in LIST (e.g. jobs=1,2,4,8) with a Little's-law check", 3 },
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
	{ "help", 'h', NULL, 0, "Give this help list", -1 },
	{ "usage", OPT_USAGE, NULL, 0, "Give a short usage message", -1 },
	{ 0 },
};

static int parse_sweep(struct run_opts *o, const char *arg)
{
	char buf[512], *tok, *save = NULL;
	unsigned long long v;

	if (strncmp(arg, "jobs=", 5))
		return -1;
	snprintf(buf, sizeof(buf), "%s", arg + 5);
	o->nsweep = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->nsweep >= MAX_SWEEP ||
		    fss_cli_parse_uint(tok, FSS_CLI_MAX_JOBS, &v))
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
		break;
	case 'h':
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);
		o->help = true;
		break;
	case OPT_USAGE:
		argp_state_help(state, stdout, ARGP_HELP_USAGE | ARGP_HELP_EXIT_OK);
		o->help = true;
		break;
	case OPT_EVENTS_DETAIL:
		o->events_detail = true;
		break;
	case OPT_NO_BLAME:
		o->no_blame = true;
		break;
	case OPT_SAVE: {
		char e[512];

		if (fss_out_check(arg, e, sizeof(e))) {
			argp_error(state, "--save: %s", e);
			return EINVAL;
		}
		o->save = arg;
		break;
	}
	case OPT_EVENTS:
		o->events = arg;
		break;
	case OPT_FILE:
		o->file = arg;
		break;
	case OPT_FORCE:
		o->force = true;
		break;
	case OPT_METHOD:
		if (fss_method_parse(arg, &o->method)) {
			argp_error(state, "unknown --method '%s'", arg);
			return EINVAL;
		}
		o->custom = true;
		break;
	case OPT_DIRECT:
		o->direct = true;
		o->custom = true;
		break;
	case OPT_SHARED:
		o->shared = true;
		o->custom = true;
		break;
	case OPT_PATTERN:
		if (fss_pattern_parse(arg, &o->pattern)) {
			argp_error(state, "unknown --pattern '%s' (overwrite, append, "
				   "random)", arg);
			return EINVAL;
		}
		o->custom = true;
		break;
	case OPT_SWEEP:
		if (parse_sweep(o, arg)) {
			argp_error(state, "bad --sweep '%s': jobs=N[,N...], up to %d "
				   "levels, N from 1 to %d", arg, MAX_SWEEP,
				   FSS_CLI_MAX_JOBS);
			return EINVAL;
		}
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
		/* --bs, --writes-per-sync, --jobs, --file-size */
		if (o->wl.workload_set)
			o->custom = true;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {
	{ &fss_cli_wl_argp, 0, NULL, 0 },
	{ 0 },
};

static const struct argp run_argp = {
	options, parse_opt, "[DIR]", doc, children,
};

static int usage_error(const char *msg)
{
	return fss_cli_usage_error(PROG, msg);
}

/* ---- results ---------------------------------------------------------- */

struct ctx {
	struct run_opts *o;
	struct target_info ti;
	struct fss_workload *w;
	struct fss_tracer *tr;
	struct fss_run_test *tests;
	int ntests, cap;
	struct fss_run_hook hk;
	struct fss_text_run txt;	/* the plain output (out_text_run.c) */
	char custom_title[256];		/* the custom test's section title */
	FILE *events;			/* --events */
	bool events_created;		/* by us: removed on errors */
};

static struct fss_run_test *rec_new(struct ctx *c)
{
	if (c->ntests == c->cap) {
		int cap = c->cap ? c->cap * 2 : 32;
		struct fss_run_test *n = realloc(c->tests, cap * sizeof(*n));

		if (!n)
			return NULL;
		c->tests = n;
		c->cap = cap;
	}
	memset(&c->tests[c->ntests], 0, sizeof(c->tests[0]));
	return &c->tests[c->ntests++];
}

/* ---- plain output ----------------------------------------------------- */

#define ROW_FMT "  %-20s%12s%10s%8s%8s%8s%8s"

/* microseconds in at most 7 characters */
static void print_footnotes(struct ctx *c)
{
	fss_text_run_section_end(&c->txt);
	fflush(stdout);
}

/* A test's row (and breakdown), rendered from its document. */
static void print_row(struct ctx *c, const struct fss_run_test *r)
{
	struct json_object *tj = fss_run_test_json(r, -1);

	fss_text_run_row(&c->txt, tj, c->o->wl.hist);
	json_object_put(tj);
}

static struct json_object *options_json(const struct run_opts *o);

/* The header, rendered from the document's first parts. */
static void print_header(struct ctx *c)
{
	struct json_object *d = json_object_new_object();

	json_object_object_add(d, "version", json_object_new_string(fss_version));
	json_object_object_add(d, "target", fss_target_info_json(&c->ti));
	json_object_object_add(d, "options", options_json(c->o));
	fss_text_run_header(stdout, d);
	json_object_put(d);
	fflush(stdout);
}

static struct json_object *options_json(const struct run_opts *o)
{
	struct json_object *j = json_object_new_object();

	json_object_object_add(j, "mode", json_object_new_string(
		o->nsweep ? "sweep" : o->custom ? "custom" : "suite"));
	json_object_object_add(j, "seconds", o->wl.count ? NULL : fss_json_num(o->wl.seconds, 3));
	json_object_object_add(j, "count", o->wl.count ?
			       json_object_new_int64((int64_t)o->wl.count) : NULL);
	json_object_object_add(j, "trace", json_object_new_boolean(!o->wl.no_trace));
	json_object_object_add(j, "file", o->file ? json_object_new_string(o->file) : NULL);
	json_object_object_add(j, "force", json_object_new_boolean(o->force));
	if (o->custom) {
		struct json_object *sw = NULL;

		json_object_object_add(j, "method",
				       json_object_new_string(fss_method_name(o->method)));
		json_object_object_add(j, "bs", json_object_new_int64((int64_t)o->wl.bs));
		json_object_object_add(j, "direct", json_object_new_boolean(o->direct));
		json_object_object_add(j, "writes_per_sync", json_object_new_int(o->wl.wps));
		json_object_object_add(j, "jobs", json_object_new_int(o->wl.jobs));
		json_object_object_add(j, "shared_file", json_object_new_boolean(o->shared));
		json_object_object_add(j, "pattern",
				       json_object_new_string(fss_pattern_name(o->pattern)));
		json_object_object_add(j, "file_size", o->pattern == FSS_PAT_APPEND ? NULL :
				       json_object_new_int64((int64_t)o->wl.file_size));
		if (o->nsweep) {
			sw = json_object_new_array();
			for (int i = 0; i < o->nsweep; i++)
				json_object_array_add(sw, json_object_new_int(o->sweep[i]));
		}
		json_object_object_add(j, "sweep_jobs", sw);
	}
	return j;
}

/* ---- running ---------------------------------------------------------- */

/* Run one test; prints its row in plain mode.  0, -EINTR or -errno. */
static int run_test(struct ctx *c, struct fss_run_test *r, struct fss_wl_file *file)
{
	struct fss_wl_hooks hooks = { fss_run_hook_before, fss_run_hook_after, &c->hk };
	char err[512];
	int rc;

	c->hk.tr = c->tr;
	c->hk.cur = r;
	if (c->o->wl.verbose)
		fprintf(stderr, "fsyncscope: running %s\n", r->name);
	fss_progress_begin(NULL, r->name, r->spec.seconds, r->spec.count);
	rc = fss_wl_run(c->w, &r->spec, file,
			c->tr && fss_method_syncs(r->spec.method) ? &hooks : NULL,
			&r->res, err, sizeof(err));
	fss_progress_end();
	if (rc == -EINTR && fss_wl_stop) {
		c->ntests--;		/* nothing was measured */
		return rc;
	}
	if (rc) {
		fprintf(stderr, "fsyncscope: %s\n", err);
		c->ntests--;
		return rc;
	}
	r->ran = true;
	if (!c->o->wl.json)
		print_row(c, r);
	return 0;
}

struct suite_sec {
	const char *key, *title, *sub;
};

static const struct suite_sec sections[] = {
	{ "one_8k", "Compare file sync methods using one 8kB write:",
	  "(wal_sync_method order; fdatasync is the Linux default)" },
	{ "two_8k", "Compare file sync methods using two 8kB writes:",
	  "(wal_sync_method order; fdatasync is the Linux default)" },
	{ "open_sync_sizes", "Compare open_sync with different write sizes:",
	  "(16kB per op, written as N writes of 16/N kB each)" },
	{ "fd", "Test if fsync on non-write file descriptor is honored:",
	  "(similar rates mean fsync() on a second descriptor also syncs the "
	  "data written through the first)" },
	{ "non_synced", "Non-synced 8kB writes:", NULL },
};

static struct fss_wl_spec base_spec(const struct run_opts *o)
{
	struct fss_wl_spec s = {
		.method = FSS_M_FDATASYNC,
		.shape = FSS_SHAPE_WRITE_SYNC,
		.pattern = FSS_PAT_OVERWRITE,
		.bs = 8192,
		.writes_per_sync = 1,
		.jobs = 1,
		.file_size = SUITE_FILE_SIZE,
		.seconds = o->wl.seconds,
		.count = o->wl.count,
	};
	return s;
}

static void section_start(struct ctx *c, const struct suite_sec *sec)
{
	if (c->o->wl.json)
		return;
	fss_text_run_section(&c->txt, sec->title, sec->sub);
	fflush(stdout);
}

static void section_end(struct ctx *c)
{
	if (!c->o->wl.json)
		print_footnotes(c);
	fflush(stdout);
}

/* A new test in section sec, with the suite's spec to change; NULL: ENOMEM. */
static struct fss_run_test *suite_test(struct ctx *c, const struct suite_sec *sec)
{
	struct fss_run_test *r = rec_new(c);

	if (r) {
		r->section = sec->title;
		r->section_title = sec->title;
		r->section_note = sec->sub;
		r->spec = base_spec(c->o);
	}
	return r;
}

/* Run one test of the suite: 0, -errno, or -EINTR once a signal came. */
static int suite_run(struct ctx *c, struct fss_run_test *r,
		     struct fss_wl_file *file)
{
	int rc;

	r->spec.name = r->name;
	rc = run_test(c, r, file);
	if (rc)
		return rc;
	return fss_wl_stop ? -EINTR : 0;
}

static int run_suite(struct ctx *c)
{
	static const enum fss_method methods[] = {
		FSS_M_OPEN_DATASYNC, FSS_M_FDATASYNC, FSS_M_FSYNC,
		FSS_M_FSYNC_WRITETHROUGH, FSS_M_OPEN_SYNC,
	};
	struct fss_wl_file *file;
	struct fss_run_test *r;
	char err[512];
	int rc, s, i;

	rc = fss_wl_file_prepare(c->w, SUITE_FILE_SIZE, &file, err, sizeof(err));
	if (rc) {
		if (rc != -EINTR || !fss_wl_stop)
			fprintf(stderr, "fsyncscope: %s\n", err);
		return rc;
	}
	/* 1, 2: sync methods with one and two 8kB writes */
	for (s = 0; s < 2; s++) {
		section_start(c, &sections[s]);
		for (i = 0; i < 5; i++) {
			if (!(r = suite_test(c, &sections[s])))
				return -ENOMEM;
			r->spec.method = methods[i];
			r->spec.writes_per_sync = s + 1;
			r->spec.direct = methods[i] == FSS_M_OPEN_DATASYNC ||
					 methods[i] == FSS_M_OPEN_SYNC;
			snprintf(r->name, sizeof(r->name), "%s.%s", sections[s].key,
				 fss_method_name(methods[i]));
			snprintf(r->label, sizeof(r->label), "%s",
				 fss_method_name(methods[i]));
			if ((rc = suite_run(c, r, file)))
				return rc;
		}
		section_end(c);
	}
	/* 3: open_sync, 16kB per op in 1, 2, 4, 8, 16 writes */
	section_start(c, &sections[2]);
	for (i = 1; i <= 16; i *= 2) {
		if (!(r = suite_test(c, &sections[2])))
			return -ENOMEM;
		r->spec.method = FSS_M_OPEN_SYNC;
		r->spec.direct = true;
		r->spec.writes_per_sync = i;
		r->spec.bs = 16384 / i;
		snprintf(r->name, sizeof(r->name), "%s.%dx%dk", sections[2].key, i, 16 / i);
		snprintf(r->label, sizeof(r->label), "%2d * %2dkB write%s", i, 16 / i,
			 i > 1 ? "s" : "");
		if ((rc = suite_run(c, r, file)))
			return rc;
	}
	section_end(c);
	/* 4: fsync on the writing descriptor vs on a second one */
	section_start(c, &sections[3]);
	for (i = 0; i < 2; i++) {
		if (!(r = suite_test(c, &sections[3])))
			return -ENOMEM;
		r->spec.method = FSS_M_FSYNC;
		r->spec.shape = i ? FSS_SHAPE_WRITE_CLOSE_FSYNC :
				    FSS_SHAPE_WRITE_FSYNC_CLOSE;
		snprintf(r->name, sizeof(r->name), "%s.%s", sections[3].key,
			 i ? "write_close_fsync" : "write_fsync_close");
		snprintf(r->label, sizeof(r->label), "%s",
			 i ? "write, close, fsync" : "write, fsync, close");
		if ((rc = suite_run(c, r, file)))
			return rc;
	}
	section_end(c);
	/* 5: writes without sync */
	section_start(c, &sections[4]);
	if (!(r = suite_test(c, &sections[4])))
		return -ENOMEM;
	r->spec.method = FSS_M_NONE;
	snprintf(r->name, sizeof(r->name), "%s.write", sections[4].key);
	snprintf(r->label, sizeof(r->label), "write");
	r->spec.name = r->name;
	if ((rc = run_test(c, r, file)))
		return rc;
	section_end(c);
	return fss_wl_stop ? -EINTR : 0;
}

static void size_label(char *buf, size_t len, __u64 v)
{
	if (v >= (1 << 20) && !(v % (1 << 20)))
		snprintf(buf, len, "%lluMB", (unsigned long long)(v >> 20));
	else if (v >= 1024 && !(v % 1024))
		snprintf(buf, len, "%llukB", (unsigned long long)(v >> 10));
	else
		snprintf(buf, len, "%lluB", (unsigned long long)v);
}

static struct fss_wl_spec custom_spec(const struct run_opts *o, unsigned int jobs)
{
	struct fss_wl_spec s = base_spec(o);

	s.method = o->method;
	s.bs = o->wl.bs;
	s.direct = o->direct;
	s.writes_per_sync = o->wl.wps;
	s.jobs = jobs;
	s.shared_file = o->shared || o->file;
	s.pattern = o->pattern;
	s.file_size = o->wl.file_size;
	return s;
}

static const char *custom_title(const struct run_opts *o, char *buf, size_t len,
				bool sweep)
{
	char bs[32];

	size_label(bs, sizeof(bs), o->wl.bs);
	snprintf(buf, len, "%s: %s, %s x%u per %s, %s%s, %s I/O, %s:",
		 sweep ? "Sweep over jobs" : "Custom test",
		 fss_method_name(o->method), bs, o->wl.wps,
		 fss_method_syncs(o->method) ? "sync" : "op",
		 fss_pattern_name(o->pattern),
		 o->pattern == FSS_PAT_APPEND ? "" : " writes",
		 o->direct ? "O_DIRECT" : "buffered",
		 o->shared || o->file ? "one shared file" :
		 (sweep || o->wl.jobs > 1) ? "one file per job" : "one file");
	return buf;
}

struct sweep_row {
	unsigned int jobs;
	const struct fss_run_test *r;
};

static void sweep_stats(const struct sweep_row *rows, int n, int i, double *naive,
			double *speedup, double *vs_naive, double *conc)
{
	const struct fss_wl_result *b = NULL, *x = &rows[i].r->res;
	int base = -1;

	for (int k = 0; k < n; k++)
		if (rows[k].r->res.status == FSS_WL_OK &&
		    (base < 0 || rows[k].jobs < rows[base].jobs))
			base = k;
	*naive = *speedup = *vs_naive = *conc = NAN;
	if (x->status != FSS_WL_OK)
		return;
	*conc = x->ops_per_sec * x->lat.mean / 1e6;
	if (base < 0)
		return;
	b = &rows[base].r->res;
	if (b->ops_per_sec > 0)
		*speedup = x->ops_per_sec / b->ops_per_sec;
	if (b->lat.mean > 0) {
		*naive = 1e6 / b->lat.mean;
		*vs_naive = x->ops_per_sec / *naive;
	}
}

static int sweep_base_jobs(const struct sweep_row *rows, int n)
{
	int base = -1;

	for (int k = 0; k < n; k++)
		if (rows[k].r->res.status == FSS_WL_OK &&
		    (base < 0 || rows[k].jobs < rows[base].jobs))
			base = k;
	return base < 0 ? 0 : (int)rows[base].jobs;
}

static struct json_object *sweep_json(const struct sweep_row *rows, int n)
{
	struct json_object *arr = json_object_new_array();
	double naive, speedup, vs_naive, conc;
	int bj = sweep_base_jobs(rows, n);

	for (int i = 0; i < n; i++) {
		const struct fss_wl_result *x = &rows[i].r->res;
		struct json_object *o = json_object_new_object();
		bool ok = x->status == FSS_WL_OK;

		sweep_stats(rows, n, i, &naive, &speedup, &vs_naive, &conc);
		json_object_object_add(o, "jobs", json_object_new_int(rows[i].jobs));
		json_object_object_add(o, "name", json_object_new_string(rows[i].r->name));
		json_object_object_add(o, "status", json_object_new_string(ok ? "ok" : "n/a"));
		json_object_object_add(o, "ops_per_sec", ok ? fss_json_num(x->ops_per_sec, 3) : NULL);
		json_object_object_add(o, "mean_us", ok ? fss_json_num(x->lat.mean, 3) : NULL);
		json_object_object_add(o, "p50_us", ok ? fss_json_num(x->lat.p50, 3) : NULL);
		json_object_object_add(o, "p99_us", ok ? fss_json_num(x->lat.p99, 3) : NULL);
		json_object_object_add(o, "littles_law_concurrency", fss_json_num(conc, 3));
		json_object_object_add(o, "concurrency_per_job",
				       fss_json_num(conc / rows[i].jobs, 3));
		json_object_object_add(o, "base_jobs", bj ? json_object_new_int(bj) : NULL);
		json_object_object_add(o, "speedup", fss_json_num(speedup, 3));
		json_object_object_add(o, "naive_iops", fss_json_num(naive, 3));
		json_object_object_add(o, "vs_naive", fss_json_num(vs_naive, 3));
		json_object_array_add(arr, o);
	}
	return arr;
}

static int run_custom(struct ctx *c, struct sweep_row *rows, int *nrows)
{
	struct run_opts *o = c->o;
	unsigned int one[1] = { o->wl.jobs };
	const unsigned int *levels = o->nsweep ? o->sweep : one;
	int n = o->nsweep ? o->nsweep : 1, rc = 0;

	*nrows = 0;
	custom_title(o, c->custom_title, sizeof(c->custom_title), o->nsweep > 0);
	if (!o->wl.json) {
		fss_text_run_section(&c->txt, c->custom_title, NULL);
		fflush(stdout);
	}
	for (int i = 0; i < n; i++) {
		struct fss_run_test *r = rec_new(c);

		if (!r)
			return -ENOMEM;
		r->section = o->nsweep ? "sweep" : "custom";
		r->section_title = c->custom_title;
		r->spec = custom_spec(o, levels[i]);
		if (o->nsweep) {
			snprintf(r->name, sizeof(r->name), "sweep.jobs%u", levels[i]);
			snprintf(r->label, sizeof(r->label), "jobs=%u", levels[i]);
		} else {
			snprintf(r->name, sizeof(r->name), "custom.%s",
				 fss_method_name(o->method));
			snprintf(r->label, sizeof(r->label), "%s",
				 fss_method_name(o->method));
		}
		r->spec.name = r->name;
		rc = run_test(c, r, NULL);
		if (rc)
			break;
		rows[(*nrows)++] = (struct sweep_row){ levels[i], r };
		if (fss_wl_stop) {
			rc = -EINTR;
			break;
		}
	}
	if (!o->wl.json)
		print_footnotes(c);
	/* rows point into c->tests: fix them up after any realloc */
	for (int i = 0, k = 0; i < c->ntests && k < *nrows; i++)
		if (c->tests[i].ran)
			rows[k++].r = &c->tests[i];
	if (o->nsweep && *nrows && !o->wl.json) {
		struct json_object *sj = sweep_json(rows, *nrows);

		fss_text_run_sweep(stdout, sj);
		json_object_put(sj);
	}
	return rc;
}

/* ---- the verdict ------------------------------------------------------ */

struct run_verdict {
	bool have;			/* there is a device to judge */
	char why[PATH_MAX + 128];	/* no verdict: why */
	struct fss_devinfo dev;		/* the whole disk under the target */
	struct fss_verdict v;
	int idx;			/* test measured (-1: facts only) */
};

/* Facts of a device that could not be read: all unknown. */
static void dev_unknown(struct fss_devinfo *d, const char *name)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->write_cache = d->fua = -1;
	d->nvme_vwc_present = d->nvme_vwc_enabled = -1;
}

/*
 * The disk the syncs went to: --file's whole disk when it names a block
 * device, else the whole disk under DIR.  None (rv->have false, rv->why)
 * when DIR's filesystem has no block device.
 */
static void verdict_get(struct ctx *c, struct run_verdict *rv)
{
	const struct fss_target *t = &c->ti.t;
	struct stat st;

	memset(rv, 0, sizeof(*rv));
	rv->idx = -1;
	if (c->o->file && !stat(c->o->file, &st) && S_ISBLK(st.st_mode)) {
		char parent[sizeof(rv->dev.parent)];

		if (fss_devinfo_read(c->o->file, &rv->dev)) {
			dev_unknown(&rv->dev, c->o->file);
		} else if (rv->dev.is_partition && rv->dev.parent[0]) {
			snprintf(parent, sizeof(parent), "%s", rv->dev.parent);
			if (fss_devinfo_read(parent, &rv->dev))
				dev_unknown(&rv->dev, parent);
		}
	} else if (!t->has_disk || !t->disk[0]) {
		snprintf(rv->why, sizeof(rv->why), "%s is on %s, not on a block "
			 "device: there is no device cache to judge", t->path,
			 t->fstype[0] ? t->fstype : "a filesystem");
		return;
	} else if (c->ti.dev_ok) {
		rv->dev = c->ti.dev;
	} else {
		dev_unknown(&rv->dev, t->disk);
	}
	rv->idx = fss_run_verdict_test(c->tests, c->ntests);
	fss_run_verdict(&rv->dev, NULL, c->tests, rv->idx, &rv->v);
	rv->have = true;
}

/* The verdict, rendered from the document's verdict and measured test. */
static void verdict_print(struct ctx *c, const struct run_verdict *rv)
{
	struct json_object *d = json_object_new_object(), *tests;

	fss_doc_stamp(d, "run");
	json_object_object_add(d, "options", options_json(c->o));
	tests = json_object_new_array();
	if (rv->have && rv->idx >= 0)
		json_object_array_add(tests, fss_run_test_json(&c->tests[rv->idx], -1));
	json_object_object_add(d, "tests", tests);
	json_object_object_add(d, "verdict", rv->have ?
			       fss_run_verdict_json(&rv->v, &rv->dev, c->tests,
						    rv->idx) : NULL);
	json_object_object_add(d, "verdict_reason", rv->have ? NULL :
			       json_object_new_string(rv->why));
	fss_text_run_verdict(stdout, d);
	json_object_put(d);
}

/* ---- the command ------------------------------------------------------ */

/* The result document of the run (docs/run.md). */
static struct json_object *run_doc(struct ctx *c, __u64 drops,
				   const struct sweep_row *rows, int nrows,
				   const struct run_verdict *rv)
{
	struct json_object *doc = json_object_new_object(), *tests;

	fss_doc_stamp(doc, "run");
	json_object_object_add(doc, "version", json_object_new_string(fss_version));
	json_object_object_add(doc, "host", fss_run_host_json());
	json_object_object_add(doc, "target", fss_target_info_json(&c->ti));
	json_object_object_add(doc, "options", options_json(c->o));
	json_object_object_add(doc, "strategy", c->tr ?
			       fss_tracer_strategy_json(c->tr) : NULL);
	json_object_object_add(doc, "drops", c->tr ?
			       json_object_new_int64((int64_t)drops) : NULL);
	tests = json_object_new_array();
	for (int i = 0; i < c->ntests; i++)
		if (c->tests[i].ran)
			json_object_array_add(tests, fss_run_test_json(&c->tests[i],
					rv->have ? rv->dev.write_cache : -1));
	json_object_object_add(doc, "tests", tests);
	if (c->o->nsweep)
		json_object_object_add(doc, "sweep", sweep_json(rows, nrows));
	json_object_object_add(doc, "verdict", rv->have ?
			       fss_run_verdict_json(&rv->v, &rv->dev, c->tests,
						    rv->idx) : NULL);
	json_object_object_add(doc, "verdict_reason", rv->have ? NULL :
			       json_object_new_string(rv->why));
	json_object_object_add(doc, "interrupted", fss_run_interrupted_json());
	return doc;
}

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
	if (o->wl.format == FSS_FMT_PERFETTO)
		o->events_detail = true;
	if (o->wl.no_trace && (o->wl.strategy || o->events))
		return usage_error("--strategy and --events need tracing "
				   "(drop --no-trace)");
	if (o->nsweep && o->wl.jobs_set)
		return usage_error("--sweep jobs=... and --jobs cannot be combined");
	if (o->force && !o->file)
		return usage_error("--force only applies to --file PATH");
	if (o->pattern == FSS_PAT_APPEND && o->wl.file_size_set)
		return usage_error("--file-size does not apply to --pattern append "
				   "(the file starts empty and grows)");
	need = o->wl.bs * o->wl.wps;
	if (o->pattern == FSS_PAT_OVERWRITE && (o->shared || o->file))
		need *= o->nsweep ? 1 : o->wl.jobs;
	if (o->custom && o->pattern == FSS_PAT_OVERWRITE && o->wl.file_size_set &&
	    o->wl.file_size < need)
		return usage_error("--file-size is smaller than --bs x "
				   "--writes-per-sync (x --jobs on a shared file)");
	if (o->custom && o->pattern == FSS_PAT_RANDOM && o->wl.file_size < o->wl.bs)
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
	for (int i = 0; i < o->nsweep; i++)
		if (i == 0 || o->sweep[i] > jobs)
			jobs = o->sweep[i];
	nfiles = o->shared || o->file ? 1 : jobs;
	if (o->pattern == FSS_PAT_APPEND) {
		per = (o->wl.count ? o->wl.count : 1) * one * jobs / nfiles;
		fss_preflight_size(a, sizeof(a), per);
		snprintf(what, len, "%llu file%s growing to %s%s",
			 (unsigned long long)nfiles, nfiles == 1 ? "" : "s", a,
			 o->wl.count ? "" : " at least");
	} else {
		per = o->wl.file_size;
		if (nfiles == 1 && o->pattern == FSS_PAT_OVERWRITE)
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
	};
	char err[PATH_MAX + 256];
	struct stat fst;

	if (o->wl.strategy)
		fss_strategy_parse(o->wl.strategy, &to.strategy);
	/* a custom test makes one kind of sync; the suite all of them */
	if (o->custom)
		to.sync_kinds = fss_method_sync_kinds(o->method);
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
		to.events_out = c->events;
		to.events_detail = o->events_detail;
	}
	c->tr = fss_tracer_open(&to, err, sizeof(err));
	if (!c->tr) {
		fprintf(stderr, "fsyncscope: %s\n", err);
		return 1;
	}
	if (o->wl.verbose)
		fss_tracer_print_strategy(c->tr, stderr);
	return 0;
}

/*
 * The verdict, then the result: the plain verdict, or the document
 * rendered as --format asks, and --save.  0, or 1 when output failed.
 */
static int finish(struct ctx *c, __u64 drops, const struct sweep_row *rows,
		  int nrows)
{
	const struct run_opts *o = c->o;
	struct fss_render_opts ro = { .events_path = o->events };
	struct json_object *doc;
	struct run_verdict rv;
	int ret = 0;

	verdict_get(c, &rv);
	if (!o->wl.json)
		verdict_print(c, &rv);
	if (!o->wl.json && !o->save)
		return 0;
	doc = run_doc(c, drops, rows, nrows, &rv);
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
	struct run_opts o = {
		.method = FSS_M_FDATASYNC,
		.pattern = FSS_PAT_OVERWRITE,
	};
	struct fss_run_sigs sigs;
	struct sweep_row rows[MAX_SWEEP];
	struct ctx c = { .o = &o, .txt = { .f = stdout } };
	char err[PATH_MAX + 256], fdir[PATH_MAX];
	int rc, nrows = 0, ret = 0;
	__u64 drops = 0;

	fss_cli_wl_defaults(&o.wl);
	o.wl.file_size = SUITE_FILE_SIZE;
	rc = fss_cli_parse(&run_argp, argc, argv, &o, PROG, 2);
	if (rc || o.help)
		return rc;
	rc = check_combinations(&o);
	if (rc)
		return rc;
	rc = target_resolve(&o, fdir, sizeof(fdir));
	if (rc)
		return rc;

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
		print_header(&c);
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
		fprintf(stderr, "fsyncscope: warning: %llu events lost; breakdowns "
			"are incomplete\n", (unsigned long long)drops);
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
	free(c.tests);
	fss_run_signals_restore(&sigs);
	return ret;
}
