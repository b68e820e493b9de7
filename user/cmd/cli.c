// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * cli.c - command-line pieces shared by the subcommands (cli.h): one-line
 * argp errors and every command's -h/--help and --usage, number parsers,
 * and the argp children of options several commands take: the workload
 * and tracing options of `run` and `compare`, the workload's shape of both,
 * the live options of `trace` and `exporter`.
 */
#include <argp.h>
#include <errno.h>
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cli.h"
#include "lib/parse.h"
#include "engine/tracer/tracer.h"
#include "workload/workload.h"

/* ---- -h/--help and -u/--usage of every command ------------------------ */

/* every command: -h/--help and -u/--usage (help group -1, last) */
static const struct argp_option help_options[] = {
	{ "help", 'h', NULL, 0, "Show this help", -1 },
	{ "usage", 'u', NULL, 0, "Show a short usage message", -1 },
	{ 0 },
};

/* what was asked for (ARGP_HELP_*), 0: nothing; one parse at a time */
static unsigned int help_asked;

static error_t help_parse(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	(void)state;
	switch (key) {
	case 'h':
		help_asked = ARGP_HELP_STD_HELP;	/* wins over --usage */
		break;
	case 'u':
		if (!help_asked)
			help_asked = ARGP_HELP_USAGE;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp help_argp = {
	.options = help_options,
	.parser = help_parse,
};

/* ---- parsing ----------------------------------------------------------- */

/* argp_parse() with argp's and getopt's messages in memory (*msg) */
static error_t cli__argp_parse(const struct argp *argp, int argc, char **argv,
			       void *input, const char *prog, char **msg)
{
	size_t len = 0;
	FILE *saved = stderr, *mem;
	char **av;
	error_t err;

	*msg = NULL;
	av = calloc(argc + 1, sizeof(*av));
	if (!av)
		return ENOMEM;
	for (int i = 0; i < argc; i++)
		av[i] = argv[i];
	av[0] = (char *)prog;
	mem = open_memstream(msg, &len);
	if (mem)
		stderr = mem;
	err = argp_parse(argp, argc, av, ARGP_NO_EXIT | ARGP_NO_HELP, NULL,
			 input);
	if (mem) {
		stderr = saved;
		fclose(mem);
	}
	free(av);
	return err;
}

/* the first line of what argp said, or why it stopped */
static void cli__bad_line(const char *prog, char *msg, error_t err)
{
	char *nl;

	if (msg && msg[0]) {
		nl = strchr(msg, '\n');
		if (nl)
			*nl = '\0';
		fprintf(stderr, "%s (try '%s --help')\n", msg, prog);
	} else {
		fprintf(stderr, "%s: bad arguments (%s) (try '%s --help')\n",
			prog, strerror(err), prog);
	}
}

bool fss_cli_parse(const struct argp *argp, int argc, char **argv,
		   void *input, const char *prog, int *rc)
{
	struct argp root = *argp;
	struct argp_child *kids;
	char *msg = NULL;
	error_t err;
	int n = 0;

	/* the command's argp with the help options as one more child */
	while (argp->children && argp->children[n].argp)
		n++;
	kids = calloc(n + 2, sizeof(*kids));
	if (!kids) {
		fprintf(stderr, "%s: out of memory\n", prog);
		*rc = 2;
		return true;
	}
	if (n)
		memcpy(kids, argp->children, n * sizeof(*kids));
	kids[n].argp = &help_argp;
	root.children = kids;
	help_asked = 0;
	err = cli__argp_parse(&root, argc, argv, input, prog, &msg);
	*rc = 0;
	if (err || (msg && msg[0])) {
		cli__bad_line(prog, msg, err);
		*rc = 2;
	} else if (help_asked) {
		argp_help(&root, stdout, help_asked, (char *)prog);
	}
	free(msg);
	free(kids);
	return *rc || help_asked;
}

int fss_cli_usage_error(const char *prog, const char *msg)
{
	fprintf(stderr, "%s: %s (try '%s --help')\n", prog, msg, prog);
	return 2;
}

int fss_cli_out_arg(struct argp_state *state, const char *opt,
		    const char *arg, const char **out)
{
	char err[512];

	/* a result must not be lost at the end of a long run */
	if (fss_out_check(arg, err, sizeof(err))) {
		argp_error(state, "%s: %s", opt, err);
		return EINVAL;
	}
	*out = arg;
	return 0;
}

/* ---- the workload and tracing options of run and compare -------------- */

enum {
	CLI_BS = 0x1000, CLI_WPS, CLI_JOBS, CLI_FILE_SIZE, CLI_NO_TRACE,
	CLI_STRATEGY, CLI_FORMAT, CLI_HIST,
};

static const struct argp_option wl_options[] = {
	{ "seconds", 's', "SECS", 0, "Run each test SECS seconds (default 5)", 2 },
	{ "runtime", 0, NULL, OPTION_ALIAS, NULL, 2 },
	{ "count", 'n', "N", 0, "Run N ops per test (per job) instead", 2 },
	{ "bs", CLI_BS, "SIZE", 0, "Write size, 512 to 2m (default 8k)", 3 },
	{ "writes-per-sync", CLI_WPS, "N", 0, "Writes per sync (default 1)", 3 },
	{ "jobs", CLI_JOBS, "N", 0, "Concurrent syncing threads (default 1)", 3 },
	{ "file-size", CLI_FILE_SIZE, "SIZE", 0, "File size to prefill "
	  "(overwrite) or preallocate (random); default 16m", 3 },
	{ "no-trace", CLI_NO_TRACE, NULL, 0, "Time the workloads only (no "
	  "phases)", 5 },
	{ "strategy", CLI_STRATEGY, "S", 0, "Attach strategy: auto (default), "
	  "fentry, kprobe, tracepoint", 5 },
	{ "json", 'j', NULL, 0, "One JSON document on stdout (same as "
	  "--format json)", 5 },
	{ "hist", CLI_HIST, NULL, 0, "Text: under each row, biolatency-style "
	  "histograms of its latency per op and (traced) of each phase", 5 },
	{ "format", CLI_FORMAT, "FMT", 0, "text (default), json, html, csv: the "
	  "result rendered once it is complete (fsyncscope report renders a "
	  "saved JSON later)", 5 },
	{ "output", 'o', "FILE", 0, "Write the result to FILE (whole or not at "
	  "all) instead of stdout", 5 },
	{ "verbose", 'v', NULL, 0, "Attach strategy and progress on stderr", 5 },
	{ 0 },
};

void fss_cli_wl_defaults(struct fss_cli_wl *w)
{
	memset(w, 0, sizeof(*w));
	w->seconds = 5;
	w->bs = 8192;
	w->wps = 1;
	w->jobs = 1;
	w->file_size = 16ULL << 20;
}

static error_t wl_parse(int key, char *arg, struct argp_state *state)
{
	struct fss_cli_wl *w = state->input;
	unsigned long long v;

	switch (key) {
	case 's':
		if (fss_parse_seconds(arg, 86400, &w->seconds)) {
			argp_error(state, "bad -s '%s': seconds, more than 0 and at "
				   "most 86400 (e.g. 0.5, 30)", arg);
			return EINVAL;
		}
		w->seconds_set = true;
		break;
	case 'n':
		if (fss_parse_uint(arg, 1ULL << 40, &v)) {
			argp_error(state, "bad --count '%s': a whole number from 1 to "
				   "%llu", arg, 1ULL << 40);
			return EINVAL;
		}
		w->count = v;
		break;
	case CLI_BS:
		if (fss_size_parse(arg, &w->bs) || w->bs < 512 || w->bs > (2 << 20)) {
			argp_error(state, "bad --bs '%s': a size from 512 to 2m "
				   "(suffixes k, m; e.g. 4k, 8k)", arg);
			return EINVAL;
		}
		w->workload_set = true;
		break;
	case CLI_WPS:
		if (fss_parse_uint(arg, 4096, &v)) {
			argp_error(state, "bad --writes-per-sync '%s': 1 to 4096", arg);
			return EINVAL;
		}
		w->wps = (unsigned int)v;
		w->workload_set = true;
		break;
	case CLI_JOBS:
		if (fss_parse_uint(arg, FSS_CLI_MAX_JOBS, &v)) {
			argp_error(state, "bad --jobs '%s': 1 to %d", arg,
				   FSS_CLI_MAX_JOBS);
			return EINVAL;
		}
		w->jobs = (unsigned int)v;
		w->jobs_set = true;
		w->workload_set = true;
		break;
	case CLI_FILE_SIZE:
		if (fss_size_parse(arg, &w->file_size) || w->file_size < 512 ||
		    w->file_size > (1ULL << 50)) {
			argp_error(state, "bad --file-size '%s': a size from 512 to "
				   "1024t (suffixes k, m, g, t; e.g. 16m, 1g)", arg);
			return EINVAL;
		}
		w->file_size_set = true;
		w->workload_set = true;
		break;
	case CLI_NO_TRACE:
		w->no_trace = true;
		break;
	case CLI_STRATEGY:
		w->strategy = arg;
		break;
	case 'j':
		w->json = true;
		w->format = FSS_FMT_JSON;
		break;
	case CLI_HIST:
		w->hist = true;
		break;
	case CLI_FORMAT:
		if (fss_fmt_parse(arg, &w->format)) {
			argp_error(state, "unknown --format '%s' (text, json, html, csv)",
				   arg);
			return EINVAL;
		}
		/* everything but text is rendered from the result document */
		w->json = w->format != FSS_FMT_TEXT;
		break;
	case 'o':
		return fss_cli_out_arg(state, "-o", arg, &w->output);
	case 'v':
		w->verbose++;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp fss_cli_wl_argp = {
	.options = wl_options,
	.parser = wl_parse,
};

/* ---- the workload's shape (run, compare) ------------------------------ */

enum { CLI_METHOD = 0x1300, CLI_PATTERN, CLI_DIRECT };

/* run: one custom test */
static const struct argp_option shape_one_options[] = {
	{ "method", CLI_METHOD, "M", 0, "open_datasync, open_sync, fdatasync, "
	  "fsync, none, sync_file_range, pwritev2_dsync, fsync_writethrough "
	  "(default fdatasync)", 3 },
	{ "direct", CLI_DIRECT, NULL, 0, "Open with O_DIRECT", 3 },
	{ "pattern", CLI_PATTERN, "P", 0, "overwrite (default), append, random",
	  3 },
	{ 0 },
};

/* compare: the same workloads on every filesystem */
static const struct argp_option shape_list_options[] = {
	{ "method", CLI_METHOD, "M[,M...]", 0, "Only these methods "
	  "(open_datasync, open_sync, fdatasync, fsync, pwritev2_dsync, "
	  "sync_file_range, none), one workload each with --pattern", 3 },
	{ "direct", CLI_DIRECT, NULL, 0, "O_DIRECT for every workload "
	  "(open_datasync always uses it)", 3 },
	{ "pattern", CLI_PATTERN, "P", 0, "overwrite, append or random for "
	  "every workload (default: each workload's own)", 3 },
	{ 0 },
};

void fss_cli_shape_defaults(struct fss_cli_shape *s)
{
	memset(s, 0, sizeof(*s));
	s->methods[0] = FSS_M_FDATASYNC;
	s->pattern = FSS_PAT_OVERWRITE;
}

/* a method of a list (fsync_writethrough is none), or -1 */
static int shape__list_method(const char *name)
{
	enum fss_method m;

	if (fss_method_parse(name, &m) || m == FSS_M_FSYNC_WRITETHROUGH)
		return -1;
	return m;
}

static error_t shape__method(struct fss_cli_shape *s, bool list,
			     const char *arg, struct argp_state *state)
{
	enum fss_method m;

	if (!list) {
		if (fss_method_parse(arg, &m)) {
			argp_error(state, "unknown --method '%s'", arg);
			return EINVAL;
		}
		s->methods[0] = m;
		s->nmethods = 1;
	} else if (fss_parse_list(arg, shape__list_method, s->methods,
				      &s->nmethods, FSS_M_MAX)) {
		argp_error(state, "bad --method '%s': different methods from "
			   "open_datasync, open_sync, fdatasync, fsync, "
			   "pwritev2_dsync, sync_file_range, none", arg);
		return EINVAL;
	}
	return 0;
}

static error_t shape__parse(int key, char *arg, struct argp_state *state,
			    bool list)
{
	struct fss_cli_shape *s = state->input;
	error_t err;

	switch (key) {
	case CLI_METHOD:
		err = shape__method(s, list, arg, state);
		if (err)
			return err;
		break;
	case CLI_DIRECT:
		s->direct = true;
		break;
	case CLI_PATTERN:
		if (fss_pattern_parse(arg, &s->pattern)) {
			argp_error(state, "unknown --pattern '%s' (overwrite, "
				   "append, random)", arg);
			return EINVAL;
		}
		s->pattern_set = true;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	s->set = true;
	return 0;
}

static error_t shape_one_parse(int key, char *arg, struct argp_state *state)
{
	return shape__parse(key, arg, state, false);
}

static error_t shape_list_parse(int key, char *arg, struct argp_state *state)
{
	return shape__parse(key, arg, state, true);
}

const struct argp fss_cli_shape_argp[] = {
	[FSS_CLI_SHAPE_ONE] = { .options = shape_one_options,
				.parser = shape_one_parse },
	[FSS_CLI_SHAPE_LIST] = { .options = shape_list_options,
				 .parser = shape_list_parse },
};

/* ---- the live commands' options (trace, exporter) ---- */

enum {
	CLI_MOUNT = 0x1100, CLI_LIVE_STRATEGY, CLI_CALIB_DIR, CLI_SAMPLE,
	CLI_PAINTER,
};

static const struct argp_option live_options[] = {
	{ "pid", 'p', "PID", 0, "Only syncs of this process (all its threads); "
	  "repeatable", 1 },
	{ "comm", 'c', "COMM", 0, "Only syncs of tasks whose comm is exactly COMM", 1 },
	{ "mount", CLI_MOUNT, "DIR", 0, "Only syncs on the filesystem mounted "
	  "at/under DIR", 1 },
	{ "sample", CLI_SAMPLE, "N", 0, "Trace 1 in N syncs in full (drawn at "
	  "random); count the others with their totals in the kernel (default "
	  "1: all)", 2 },
	{ "painter", CLI_PAINTER, "WHO", 0, "user (default: from request "
	  "records, with their counts and blame) or kernel (one record per "
	  "sync: no sync lost to a full ring; blame of the slow ones only; "
	  "docs/hotpath.md)", 2 },
	{ "strategy", CLI_LIVE_STRATEGY, "auto|fentry|kprobe|tracepoint", 0,
	  "Force an attach strategy (default auto)", 6 },
	{ "calib-dir", CLI_CALIB_DIR, "DIR", 0, "Where the start-up calibration "
	  "does its 4 KiB scratch syncs", 6 },
	{ "verbose", 'v', NULL, 0, "Show the attach strategy (-vv: libbpf "
	  "messages)", 6 },
	{ 0 },
};

static error_t live_parse(int key, char *arg, struct argp_state *state)
{
	struct fss_cli_live *l = state->input;
	enum fss_strategy st;
	unsigned long long v;

	switch (key) {
	case 'p':
		if (fss_parse_uint(arg, INT_MAX, &v)) {
			argp_error(state, "-p: not a process id: '%s'", arg);
			return EINVAL;
		}
		if (l->ntgids >= FSS_CLI_MAX_PIDS) {
			argp_error(state, "-p: at most %d processes (got more at "
				   "'%s')", FSS_CLI_MAX_PIDS, arg);
			return EINVAL;
		}
		l->tgids[l->ntgids++] = (__u32)v;
		break;
	case 'c':
		if (!arg[0] || strlen(arg) >= FSS_COMM_LEN) {
			argp_error(state, "-c: a comm is 1 to 15 characters (got "
				   "'%s')%s", arg, strchr(arg, ':') ? "; a process "
				   "title is no comm: see trace --role" : "");
			return EINVAL;
		}
		l->comm = arg;
		break;
	case CLI_MOUNT:
		l->mount = arg;
		break;
	case CLI_LIVE_STRATEGY:
		if (fss_strategy_parse(arg, &st)) {
			argp_error(state, "--strategy: unknown strategy '%s' (auto, "
				   "fentry, kprobe, tracepoint)", arg);
			return EINVAL;
		}
		l->strategy = st;
		break;
	case CLI_CALIB_DIR:
		l->calib_dir = arg;
		break;
	case CLI_SAMPLE:
		if (fss_parse_uint(arg, 1000000, &v) || !v) {
			argp_error(state, "--sample '%s': a whole number from 1 "
				   "to 1000000 (1 in N syncs traced in full)",
				   arg);
			return EINVAL;
		}
		l->sample = (__u32)v;
		break;
	case CLI_PAINTER:
		return fss_cli_painter_arg(state, arg, &l->kernel_paint);
	case 'v':
		l->verbose++;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp fss_cli_live_argp = {
	.options = live_options,
	.parser = live_parse,
};

error_t fss_cli_painter_arg(struct argp_state *state, const char *arg,
			    bool *kernel)
{
	if (strcmp(arg, "user") && strcmp(arg, "kernel")) {
		argp_error(state, "--painter: '%s' is not user or kernel", arg);
		return EINVAL;
	}
	*kernel = !strcmp(arg, "kernel");
	return 0;
}

void fss_cli_painter_note(const char *prog, bool asked, bool painted)
{
	if (asked && !painted)
		fprintf(stderr, "%s: --painter kernel: n/a here (the kernel "
			"painter needs the tp_btf block hooks): user space "
			"paints\n", prog);
}
