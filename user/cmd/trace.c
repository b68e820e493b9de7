// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * cmd_trace.c - `fsyncscope trace`: attach to a running host and explain
 * its syncs, per kind, per process, per file and per device, with the
 * journal commits of the kernel threads shown on their own.
 *
 * The tracer (trace.c) filters in the kernel (pids, comm, cgroup, fs and
 * disk), collects continuously and hands every attributed sync to
 * on_sync() from its consumer thread.  Here: the options, the targets, the
 * main loop and its signals.  The syncs go into live_agg.c's two windows
 * (the current interval and the whole run), named by live_names.c; each
 * report is a document (live_doc.c) printed as JSON or rendered as text
 * (out_text_trace.c).
 */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>
#include "engine/attr/attr.h"
#include "lib/child.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "doc/doc.h"
#include "stats/live_agg.h"
#include "live/live_db.h"
#include "live/live_doc.h"
#include "live/live_names.h"
#include "render/render.h"
#include "stats/collector.h"
#include "sys/target.h"
#include "engine/tracer/tracer.h"
#include "findings/findings.h"

#define PROG		"fsyncscope trace"
#define NSEC		LIVE_NSEC

/* ---- options ---- */

static struct {
	struct fss_cli_live live;	/* -p, -c, --mount, --strategy, ... */
	const char *cgroup;
	const char *dev;
	double interval;	/* seconds, 0: no interval reports */
	long count;		/* interval reports, 0: unlimited */
	double duration;	/* seconds, 0: until Ctrl-C */
	int top;
	double slower_ms;	/* < 0: off */
	bool json;
	int npos;
	char **cmd;		/* -- CMD ARGS...: NULL-terminated, or NULL */
	enum fss_fmt format;	/* --format: text, json, html, perfetto */
	const char *output;	/* -o FILE */
	const char *events;	/* --events FILE */
	bool events_detail;	/* --events-detail */
	const char *save;	/* --save FILE: the JSON Lines, whatever is printed */
	bool no_blame;		/* --no-blame */
} env;

/* The windows a sync goes into: [0] the interval (if any), [1] the run. */
static int first_window(void)
{
	return env.interval ? 0 : 1;
}

/* html and perfetto: rendered once, from the summary, at the end */
static bool at_end_only(void)
{
	return env.format == FSS_FMT_HTML || env.format == FSS_FMT_PERFETTO;
}

static const char doc[] =
"Attach to the running host and explain why its syncs are slow: every\n"
"fsync, fdatasync, sync_file_range, msync, syncfs, write on an O_DSYNC or\n"
"O_SYNC descriptor and io_uring fsync request of the traced processes is\n"
"split into fs, journal, queue, device_write, device_flush and other time\n"
"(they add up exactly to the sync's total), and reported per kind, per\n"
"process, per file and per device, with the journal commits of the kernel\n"
"threads (jbd2) on their own.\n"
"\n"
"-- CMD [ARG...]: run CMD and trace exactly it and the processes it forks\n"
"until it exits; fsyncscope then exits with CMD's status.\n"
"\n"
"INTERVAL [COUNT]: a report every INTERVAL seconds (COUNT times), then a\n"
"summary of the whole run.  Without INTERVAL: one summary at the end (-d,\n"
"or Ctrl-C).  Filters are ANDed and applied in the kernel; nothing given =\n"
"every sync on the host.  Needs root.\n"
"\v"
"The phase columns (fs jrn que dwr dfl oth) are each phase's share of the\n"
"group's sync time, in percent: fs, journal, queue, device_write,\n"
"device_flush, other.  P50/P99 come from a histogram: within 0.8%.\n"
"\n"
"--painter kernel: the kernel splits each sync and sends one record per\n"
"sync (the fastest hosts: none summarized for a full ring); counts over\n"
"requests are n/a, and only the syncs at or above --slower (else above\n"
"the running p99) are blamed, from a flight recorder of recent requests.\n"
"It needs the tp_btf block hooks; without them user space paints.  See\n"
"docs/hotpath.md and docs/blame.md.\n"
"\n"
"EXAMPLES:\n"
"  fsyncscope trace                      # every sync on the host, Ctrl-C\n"
"  fsyncscope trace -c postgres 5        # PostgreSQL, a report every 5 s\n"
"  fsyncscope trace -p 4242 -d 30        # one process for 30 s, then summary\n"
"  fsyncscope trace --mount /var/lib/postgresql --slower 10\n"
"                                        # each sync over 10 ms, with why\n"
"  fsyncscope trace --cgroup system.slice/etcd.service --json 10 6\n"
"  fsyncscope trace --dev nvme0n1 --top 5 -d 60\n"
"  fsyncscope trace --painter kernel --mount /var/lib/kafka 10\n"
"  fsyncscope trace -- fio --name=x --rw=write --fdatasync=1 --size=8m\n"
"                                        # one command and its children\n";

enum {
	OPT_FORMAT = 0x80, OPT_EVENTS, OPT_EVENTS_DETAIL, OPT_SAVE,
	OPT_CGROUP = 0x100,
	OPT_DEV,
	OPT_TOP,
	OPT_SLOWER,
	OPT_NO_BLAME,
};

static const struct argp_option opts[] = {
	{ "cgroup", OPT_CGROUP, "PATH|ID", 0, "Trace tasks in this cgroup v2 (path, relative to the cgroup2 mount, or id)", 1 },
	{ "dev", OPT_DEV, "DEV", 0, "Only syncs on filesystems of this block device (/dev/X, X or MAJ:MIN)", 1 },
	{ "duration", 'd', "SECS", 0, "Stop after SECS seconds", 2 },
	{ "top", OPT_TOP, "N", 0, "Processes and files shown (by total sync time; default 10)", 2 },
	{ "slower", OPT_SLOWER, "MS", 0, "Print each sync slower than MS ms as it happens, with its breakdown", 2 },
	{ "json", 'j', NULL, 0, "JSON Lines output (one object per report / slow sync)", 2 },
	{ "format", OPT_FORMAT, "FMT", 0, "text (default), json (= -j), html (a page of "
	  "the summary at the end), perfetto (the --events records at the end)", 2 },
	{ "output", 'o', "FILE", 0, "Write the output to FILE (whole, at the end) "
	  "instead of stdout", 2 },
	{ "save", OPT_SAVE, "FILE", 0, "Also write the JSON Lines (as -j) to FILE, "
	  "whatever is printed: 'report FILE --format text' prints the text again", 2 },
	{ "events", OPT_EVENTS, "FILE", 0, "Write one JSON line per traced sync", 2 },
	{ "events-detail", OPT_EVENTS_DETAIL, NULL, 0, "With --events: each sync's "
	  "painted stretches, requests and commits (for perfetto)", 2 },
	{ "no-blame", OPT_NO_BLAME, NULL, 0, "Do not name who caused each sync's "
	  "time (blame: on by default; off costs the least)", 2 },
	{},
};

/* A bad value: argp_error's one line (see fss_cli_parse), then EINVAL. */
#define bad(state, ...)	(argp_error(state, __VA_ARGS__), EINVAL)

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	long l;
	double d;

	switch (key) {
	case ARGP_KEY_INIT:
		/* -p pids for now; fss_pids_to_tgids() looks them up */
		state->child_inputs[0] = &env.live;
		break;
	case OPT_CGROUP:
		if (!arg[0])
			return bad(state, "--cgroup: empty path");
		env.cgroup = arg;
		break;
	case OPT_DEV:
		env.dev = arg;
		break;

	case OPT_FORMAT:
		if (fss_fmt_parse(arg, &env.format) || env.format == FSS_FMT_CSV)
			return bad(state, "--format '%s': text, json, html or perfetto", arg);
		if (env.format == FSS_FMT_JSON)
			env.json = true;
		break;
	case 'o':
		return fss_cli_out_arg(state, "-o", arg, &env.output);
	case OPT_SAVE:
		return fss_cli_out_arg(state, "--save", arg, &env.save);
	case OPT_EVENTS:
		env.events = arg;
		break;
	case OPT_EVENTS_DETAIL:
		env.events_detail = true;
		break;
	case OPT_NO_BLAME:
		env.no_blame = true;
		break;
	case 'd':
		if (!fss_parse_double(arg, &d) || d <= 0 || d > 1e7)
			return bad(state, "-d '%s': seconds, more than 0 and at most 10000000", arg);
		env.duration = d;
		break;
	case OPT_TOP:
		if (!fss_parse_long(arg, &l) || l <= 0 || l > 100000)
			return bad(state, "--top '%s': a whole number from 1 to 100000", arg);
		env.top = l;
		break;
	case OPT_SLOWER:
		if (!fss_parse_double(arg, &d) || d < 0 || d > 1e9)
			return bad(state, "--slower '%s': milliseconds, 0 to 1000000000", arg);
		env.slower_ms = d;
		break;
	case 'j':
		env.json = true;
		break;
	case ARGP_KEY_ARG:
		if (env.npos == 0) {
			if (!fss_parse_double(arg, &d) || d <= 0 || d > 1e7)
				return bad(state, "INTERVAL '%s': seconds, more than 0 and at most 10000000", arg);
			env.interval = d;
		} else if (env.npos == 1) {
			if (!fss_parse_long(arg, &l) || l <= 0)
				return bad(state, "COUNT '%s': a whole number from 1 to %ld", arg, LONG_MAX);
			env.count = l;
		} else {
			return bad(state, "too many arguments at '%s' (INTERVAL [COUNT])", arg);
		}
		env.npos++;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {
	{ &fss_cli_live_argp, 0, NULL, 0 },
	{ &live_db_argp, 0, NULL, 1 },		/* --role, --pg */
	{ 0 },
};

static const struct argp argp = {
	.options = opts,
	.parser = parse_arg,
	.children = children,
	.args_doc = "[INTERVAL [COUNT]]\n[INTERVAL] -- CMD [ARG...]",
	.doc = doc,
};

/* ---- state shared with the tracer's consumer thread ---- */

static struct {
	pthread_mutex_t lock;		/* everything below, and live_names */
	struct window win[2];		/* [0]: interval, [1]: whole run */
	__u64 mono_to_wall_ns;		/* CLOCK_REALTIME - CLOCK_MONOTONIC */
	__u64 slower_ns;
	bool slower;
	__u32 only_disk;		/* --dev on a whole disk: its fs devs only */
	bool journal_na;		/* no jbd2/xfs log tracepoint attached */
	bool kernel_painter;		/* --painter kernel, and it paints */
	char blame[384];		/* strategy.blame, for the reports */
	FILE *out;
	FILE *events;			/* --events */
	struct fss_out save;		/* --save */
	bool saved_summary;		/* the summary is in --save's file */
	bool emit_failed;		/* --format html/perfetto not written */
} L = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* ---- tracer callbacks (consumer thread, tracer lock held) ---- */

/*
 * A record of the trace (a document, or a --slower sync) as a JSON line
 * (-j) or as text (through text, NULL: none), and into --save's file.
 */
static void print_record(struct json_object *o,
			 void (*text)(FILE *, struct json_object *))
{
	const char *line = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);

	if (L.save.f)
		fprintf(L.save.f, "%s\n", line);
	if (env.json)
		fprintf(L.out, "%s\n", line);
	else if (text)
		text(L.out, o);
	fflush(L.out);
}

static void text_report(FILE *f, struct json_object *doc)
{
	fss_text_trace(f, doc);
}

/* --slower: one sync as it happens, a JSON line or its text */
static void print_slow(const struct fss_sync_result *r)
{
	struct json_object *o = live_doc_sync(r, r->start + r->total +
					      L.mono_to_wall_ns);

	print_record(o, fss_text_trace_sync);
	json_object_put(o);
}

static void on_sync(const struct fss_sync_result *r, void *arg)
{
	struct dev_facts *d;

	if (L.events)	/* --events: every sync, filtered or not */
		fss_sync_result_write_json(L.events, "live", r);
	pthread_mutex_lock(&L.lock);
	d = live_names_dev(r->dev);
	if (L.only_disk && (!d || d->disk != L.only_disk)) {
		pthread_mutex_unlock(&L.lock);
		return;
	}
	live_names_proc(r->pid, r->comm);
	if (!live_db_keep(r->pid)) {		/* --role, in user space */
		pthread_mutex_unlock(&L.lock);
		return;
	}
	live_names_resolve_file(r->pid, r->dev, r->ino, false);
	/* without INTERVAL only the whole run's window is reported */
	for (int w = first_window(); w < 2; w++)
		live_window_add_sync(&L.win[w], r);
	live_db_add(r, first_window());
	if (L.slower && r->total >= L.slower_ns)
		print_slow(r);
	pthread_mutex_unlock(&L.lock);
}

static void on_event(const struct fss_event *ev, void *arg)
{
	if (ev->type == FSS_EV_SYNC) {
		/* name the process and file now, while they are still there */
		pthread_mutex_lock(&L.lock);
		live_names_proc(ev->pid, ev->comm);
		live_names_resolve_file(ev->pid, ev->dev, ev->sync.ino, false);
		live_db_event(ev->pid, ev->tid);
		pthread_mutex_unlock(&L.lock);
	} else if (ev->type == FSS_EV_JOURNAL && ev->ts_end >= ev->ts) {
		pthread_mutex_lock(&L.lock);
		for (int w = first_window(); w < 2; w++)
			live_window_add_commit(&L.win[w], ev->dev,
					       ev->ts_end - ev->ts,
					       ev->journal.sync_commit);
		pthread_mutex_unlock(&L.lock);
	}
}

/* ---- the command ---- */

/* An interval or the summary: printed, rendered (html, perfetto), saved. */
static void emit_report(int w, const struct live_report_ctx *rc)
{
	struct fss_render_opts ro = { .events_path = env.events };
	struct json_object *o;

	/* html, perfetto: only the summary is drawn */
	if (at_end_only() && rc->index && !L.save.f)
		return;
	o = live_doc_report(&L.win[w], rc);
	live_db_doc_add(o, w, live_mono_ns(), L.mono_to_wall_ns);
	o = fss_findings_attach(o);	/* docs/findings.md: first */
	if (!at_end_only()) {
		print_record(o, text_report);
	} else if (L.save.f) {
		fprintf(L.save.f, "%s\n",
			json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	}
	L.saved_summary = !rc->index;
	if (at_end_only() && !rc->index) {
		if (L.events)
			fflush(L.events);
		if (fss_emit(o, env.format, env.output, &ro))
			L.emit_failed = true;
		return;
	}
	json_object_put(o);
}

/* Attribute what the kernel recorded up to now; fold the flush facts in. */
static void live_flush(struct fss_tracer *t)
{
	struct fss_flush_stats fst = {};

	if (fss_tracer_live_flush(t, &fst) < 0)
		return;
	if (L.events)
		fflush(L.events);
	pthread_mutex_lock(&L.lock);
	live_flush_add(&L.win[0].flush, &fst);
	live_flush_add(&L.win[1].flush, &fst);
	pthread_mutex_unlock(&L.lock);
}

/*
 * Before a report: look at the open files of the processes that synced
 * once more (each process once), so that files renamed since (recycled
 * WAL segments) show their current name and unnamed ones get one.
 */
static void resolve_late(int w)
{
	struct table *ft = &L.win[w].tbl[G_FILE];
	__u32 done[256];
	int ndone = 0;

	for (int i = 0; i < ft->n; i++) {
		struct group *g = ft->all[i];
		bool seen = false;

		if (!g->k2 || !g->last_pid)
			continue;
		for (int j = 0; j < ndone && !seen; j++)
			seen = done[j] == g->last_pid;
		if (seen)
			continue;
		if (ndone == (int)(sizeof(done) / sizeof(done[0])))
			break;
		done[ndone++] = g->last_pid;
		live_names_resolve_file(g->last_pid, g->k1, g->k2, true);
	}
}

/* Options that do not go together: usage errors (2), before anything else. */
static int check_usage(void)
{
	if (env.cmd && env.live.ntgids)
		return fss_cli_usage_error(PROG, "-p and -- CMD: give one of them");
	if (env.cmd && (env.duration || env.count))
		return fss_cli_usage_error(PROG, "-d and COUNT do not apply to "
					   "-- CMD: the trace ends when CMD exits");
	if (env.live.mount && env.dev)
		return fss_cli_usage_error(PROG, "--mount and --dev: give one of them");
	if (env.format == FSS_FMT_PERFETTO && !env.events)
		return fss_cli_usage_error(PROG, "--format perfetto draws the --events "
					   "records: give --events FILE");
	if (env.events_detail && !env.events)
		return fss_cli_usage_error(PROG, "--events-detail adds to --events FILE");
	if (env.live.kernel_paint &&
	    (env.events_detail || env.format == FSS_FMT_PERFETTO))
		return fss_cli_usage_error(PROG, "--events-detail and perfetto "
					   "draw each sync's requests: not with "
					   "--painter kernel (none is recorded)");
	if (env.format == FSS_FMT_PERFETTO)
		env.events_detail = true;
	if (at_end_only() && (env.slower_ms >= 0 || env.json))
		return fss_cli_usage_error(PROG, "--format html/perfetto render the "
					   "summary: not with --slower or -j");
	if (env.interval && env.duration && env.count)
		return fss_cli_usage_error(PROG, "give -d or COUNT, not both");
	return 0;
}

/*
 * The targets, all checked before anything is loaded: processes, cgroup,
 * filesystem and disk, and where calibration syncs.  0, or 1 after one
 * line on stderr.
 */
static int resolve_targets(__u64 *cg, __u32 *fs_dev, __u32 *disk_dev)
{
	static char calib_buf[PATH_MAX];
	bool whole_disk_dev = false;
	char err[512];
	__u32 missing;

	if (fss_pids_to_tgids(env.live.tgids, &env.live.ntgids, &missing)) {
		fprintf(stderr, PROG ": -p %u: no such process\n", missing);
		return 1;
	}
	if (env.cgroup && fss_cgroup_id(env.cgroup, cg, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	if (env.live.mount) {
		if (fss_mount_filter(env.live.mount, fs_dev, disk_dev, err, sizeof(err))) {
			fprintf(stderr, PROG ": %s\n", err);
			return 1;
		}
		if (!env.live.calib_dir)
			env.live.calib_dir = env.live.mount;
	}
	if (env.dev) {
		if (fss_dev_filter(env.dev, fs_dev, disk_dev, &whole_disk_dev,
				   calib_buf, sizeof(calib_buf), err,
				   sizeof(err))) {
			fprintf(stderr, PROG ": %s\n", err);
			return 1;
		}
		if (!env.live.calib_dir)
			env.live.calib_dir = calib_buf;
	}
	/* a whole disk under several filesystems: syncs are filtered here */
	L.only_disk = whole_disk_dev ? *disk_dev : 0;
	if (!env.live.calib_dir)
		env.live.calib_dir = fss_calib_dir_default();
	return 0;
}

/*
 * --events FILE (into the tracer's options) and -o FILE for text and JSON
 * Lines (stdout itself, renamed over FILE at the end): 0, or 1 after one
 * line on stderr.
 */
static int open_outputs(struct fss_trace_opts *to)
{
	if (env.events) {
		L.events = fopen(env.events, "w");
		if (!L.events) {
			fprintf(stderr, PROG ": cannot write %s: %s\n", env.events,
				strerror(errno));
			return 1;
		}
		to->detail = env.events_detail;
	}
	if (env.save) {
		char err[512];

		if (fss_out_open(&L.save, env.save, err, sizeof(err))) {
			fprintf(stderr, PROG ": %s\n", err);
			return 1;
		}
	}
	if (env.output && !at_end_only() && fss_stdout_to_begin(env.output))
		return 1;
	return 0;
}

/* The end of open_outputs' files; rc, or 1 if one could not be written. */
static int close_outputs(int rc)
{
	if (L.events)
		fclose(L.events);
	L.events = NULL;
	if (L.save.f && L.saved_summary) {
		char err[512];

		if (fss_out_commit(&L.save, err, sizeof(err))) {
			fprintf(stderr, PROG ": %s\n", err);
			if (!rc)
				rc = 1;
		}
	} else if (L.save.f) {
		fss_out_abort(&L.save);	/* no trace: no file */
	}
	memset(&L.save, 0, sizeof(L.save));
	L.saved_summary = false;
	if (fss_stdout_to_end(rc != 1) && !rc)
		rc = 1;
	if (L.emit_failed && !rc)
		rc = 1;
	L.emit_failed = false;
	return rc;
}

/* everything one trace holds between its steps */
struct trace_run {
	struct fss_trace_opts to;
	struct fss_tracer *t;
	struct fss_child child;
	sigset_t sigs, oldmask;
	__u64 cg;
	__u32 fs_dev, disk_dev;
	__u64 start, end, next;	/* monotonic ns; end, next 0: none */
	int index, nsig;
};

/* the options into env: -1 to go on, else the exit code */
static int trace_parse(int argc, char **argv)
{
	int rc;

	memset(&env, 0, sizeof(env));
	env.top = 10;
	env.slower_ms = -1;
	/* -- CMD ARGS...: the options end at the first "--" */
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--"))
			continue;
		if (i + 1 == argc)
			return fss_cli_usage_error(PROG, "-- needs a command");
		env.cmd = argv + i + 1;
		argc = i;
		break;
	}
	if (fss_cli_parse(&argp, argc, argv, NULL, PROG, &rc))
		return rc;
	return -1;
}

/*
 * Ctrl-C and SIGTERM are taken synchronously, in every thread; with
 * -- CMD, SIGCHLD too (CMD's end ends the trace), and CMD is started,
 * waiting before exec until the filter has its pid.  0, or 1.
 */
static int trace_signals_and_cmd(struct trace_run *r)
{
	char err[512];

	sigemptyset(&r->sigs);
	sigaddset(&r->sigs, SIGINT);
	sigaddset(&r->sigs, SIGTERM);
	if (env.cmd)
		sigaddset(&r->sigs, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &r->sigs, &r->oldmask);
	signal(SIGPIPE, SIG_IGN);
	if (!env.cmd)
		return 0;
	if (fss_child_spawn(&r->child, env.cmd, &r->oldmask, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	env.live.tgids[0] = r->child.pid;
	env.live.ntgids = 1;
	r->to.follow_forks = true;
	return 0;
}

/* Window w starts at now, with the tracer's drop and sync counts so far. */
static void window_start(struct trace_run *r, int w, __u64 now)
{
	live_window_reset(&L.win[w], now, r->t ? fss_tracer_drops(r->t) : 0);
	if (r->t)
		fss_tracer_summ(r->t, L.win[w].summ_at_start);
}

/* The syncs traced and summarized in window w (docs/hotpath.md). */
static void window_summ(struct trace_run *r, int w, struct live_report_ctx *rc)
{
	rc->has_summ = r->t != NULL;
	if (!r->t)
		return;
	fss_tracer_summ(r->t, rc->summ);
	for (int k = 0; k < FSS_SYNC_KIND_MAX; k++)
		fss_summ_add(&rc->summ[k], &L.win[w].summ_at_start[k], -1);
}

/* Both windows start now. */
static void windows_start(struct trace_run *r)
{
	r->start = live_mono_ns();
	pthread_mutex_lock(&L.lock);
	window_start(r, 0, r->start);
	window_start(r, 1, r->start);
	pthread_mutex_unlock(&L.lock);
}

/* The tracer's options, the outputs, the tracer, then CMD released. */
static int trace_open(struct trace_run *r)
{
	struct fss_trace_opts *to = &r->to;
	char err[512];
	int rc;

	to->strategy = env.live.strategy;
	to->calib_dir = env.live.calib_dir;
	to->fs_dev = r->fs_dev;
	to->disk_dev = r->disk_dev;
	to->verbose = env.live.verbose;
	to->tgids = env.live.tgids;
	to->ntgids = env.live.ntgids;
	/* --role: the kernel keeps the role's comm, user space the role */
	to->comm = env.live.comm ? env.live.comm : live_db_role_comm();
	to->cgroup_id = r->cg;
	to->live = true;
	to->blame = !env.no_blame;
	to->kernel_paint = env.live.kernel_paint;
	/* --painter kernel blames the syncs --slower prints (flightrec.c) */
	to->blame_slower_set = env.slower_ms >= 0;
	to->blame_slower_ns = env.slower_ms >= 0 ?
			      (__u64)(env.slower_ms * 1e6) : 0;
	to->sample_every = env.live.sample;
	to->on_sync = on_sync;
	to->on_event = on_event;
	if (open_outputs(to))
		return 1;
	windows_start(r);
	r->t = fss_tracer_open(to, err, sizeof(err));
	if (!r->t) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	windows_start(r);
	if (env.cmd && (rc = fss_child_release(&r->child, err, sizeof(err)))) {
		fprintf(stderr, PROG ": %s\n", err);
		return fss_child_exec_code(-rc);
	}
	return 0;
}

/* What is traced and how: the start record (-j) or the --slower header. */
static void trace_announce(struct trace_run *r)
{
	struct json_object *st = fss_tracer_strategy_json(r->t), *jv;
	struct live_start ls = {
		.filters = {
			.tgids = env.live.tgids, .ntgids = env.live.ntgids,
			.comm = env.live.comm, .role = live_db_role(),
			.cgroup = env.cgroup,
			.mount = env.live.mount, .dev = env.dev,
			.cgroup_id = r->cg, .fs_dev = r->fs_dev,
			.disk_dev = r->disk_dev,
		},
		.cmd = env.cmd, .interval_s = env.interval,
		.duration_s = env.duration,
		.slower_ms = L.slower ? env.slower_ms : -1,
	};
	char what[512];

	L.kernel_painter = fss_tracer_kernel_painted(r->t);
	fss_cli_painter_note(PROG, env.live.kernel_paint, L.kernel_painter);
	L.journal_na = json_object_object_get_ex(st, "journal", &jv) &&
		       !strcmp(json_object_get_string(jv), "n/a");
	if (json_object_object_get_ex(st, "blame", &jv))
		snprintf(L.blame, sizeof(L.blame), "%s",
			 json_object_get_string(jv));
	if (env.live.verbose)
		fss_tracer_print_strategy(r->t, stderr);
	if (env.json || L.save.f) {
		struct json_object *o = live_doc_start(&ls, st);

		print_record(o, NULL);
		json_object_put(o);
	} else {
		json_object_put(st);
	}
	if (!env.json && L.slower) {
		printf("TIME PID NAME KIND TOTAL FILE (on its own line when long)\n");
		printf("%8s ms per phase: fs, journal, queue, device_write, "
		       "device_flush, other\n", "");
	}
	fflush(L.out);
	live_doc_describe(&ls, what, sizeof(what));
	fprintf(stderr, "fsyncscope: tracing %s (%s)\n", what, env.cmd ?
		"until it exits" : "Ctrl-C to stop");
}

static struct live_report_ctx report_ctx(const char *type, int index)
{
	struct live_report_ctx rc = {
		.type = type, .index = index, .cmd_status = -1,
		.top = env.top, .journal_na = L.journal_na,
		.kernel_painter = L.kernel_painter,
		.cmd = env.cmd != NULL, .blame = L.blame[0] ? L.blame : NULL,
		.sample_every = env.live.sample > 1 ? env.live.sample : 0,
	};

	return rc;
}

/* The interval that ends now: report it (if it is one), start the next. */
static void trace_interval(struct trace_run *r, __u64 now, bool stop)
{
	struct live_report_ctx rc = report_ctx("interval", ++r->index);

	live_flush(r->t);
	pthread_mutex_lock(&L.lock);
	if (!stop || L.win[0].all.syncs || now >= r->next) {
		resolve_late(0);
		live_db_name_relations(&L.win[0].tbl[G_FILE]);
		rc.seconds = (now - L.win[0].start_ns) / 1e9;
		rc.drops = fss_tracer_drops(r->t) - L.win[0].drops_at_start;
		window_summ(r, 0, &rc);
		emit_report(0, &rc);
	}
	window_start(r, 0, now);
	live_db_reset(0);
	pthread_mutex_unlock(&L.lock);
	while (r->next <= now)
		r->next += (__u64)(env.interval * 1e9);
}

/* Wait for a signal or the next deadline; true: stop (exit code in *rc). */
static bool trace_wait(struct trace_run *r, int *rc)
{
	__u64 wake = r->next, now = live_mono_ns();
	struct timespec ts;
	siginfo_t si;
	int sig;

	if (r->end && (!wake || r->end < wake))
		wake = r->end;
	if (wake) {
		__u64 d = wake > now ? wake - now : 0;

		ts.tv_sec = d / NSEC;
		ts.tv_nsec = d % NSEC;
		sig = sigtimedwait(&r->sigs, &si, &ts);
	} else {
		sig = sigwaitinfo(&r->sigs, &si);
	}
	if (sig > 0 && env.cmd) {
		r->nsig += sig != SIGCHLD;
		return fss_child_on_signal(&r->child, sig, &si, r->nsig, rc);
	}
	return sig > 0;
}

/* Until a signal, -d, COUNT intervals or CMD's end; the exit code. */
static int trace_loop(struct trace_run *r)
{
	bool stop = false;
	int rc = 0;

	if (env.duration)
		r->end = r->start + (__u64)(env.duration * 1e9);
	if (env.interval)
		r->next = r->start + (__u64)(env.interval * 1e9);
	while (!stop) {
		__u64 now;

		errno = 0;
		stop = trace_wait(r, &rc);
		if (!stop && errno == EINTR)
			continue;
		now = live_mono_ns();
		if (r->end && now >= r->end)
			stop = true;
		if (r->next && (now >= r->next || stop)) {
			trace_interval(r, now, stop);
			if (env.count && r->index >= env.count)
				stop = true;
		}
	}
	return rc;
}

/* The summary of the whole run; rc: the exit code so far (CMD's). */
static void trace_summary(struct trace_run *r, int rc)
{
	struct live_report_ctx rs = report_ctx("summary", 0);
	__u64 now;

	if (env.cmd && !r->child.pid)
		rs.cmd_status = rc;
	live_flush(r->t);
	now = live_mono_ns();
	pthread_mutex_lock(&L.lock);
	resolve_late(1);
	live_db_name_relations(&L.win[1].tbl[G_FILE]);
	rs.seconds = (now - L.win[1].start_ns) / 1e9;
	rs.drops = fss_tracer_drops(r->t) - L.win[1].drops_at_start;
	window_summ(r, 1, &rs);
	emit_report(1, &rs);
	pthread_mutex_unlock(&L.lock);
}

/* CMD, the tracer, the windows, the names, the outputs; the exit code. */
static int trace_close(struct trace_run *r, int rc)
{
	if (r->child.pid && (r->child.go_fd >= 0 || !r->t))
		fss_child_abort(&r->child);	/* never released: not run */
	else if (r->child.pid)
		fprintf(stderr, PROG ": %s (pid %d) still runs, no longer traced\n",
			env.cmd[0], (int)r->child.pid);
	fss_tracer_close(r->t);
	pthread_mutex_lock(&L.lock);
	live_window_reset(&L.win[0], 0, 0);
	live_window_reset(&L.win[1], 0, 0);
	live_names_free();
	live_db_free();
	pthread_mutex_unlock(&L.lock);
	rc = close_outputs(rc);
	pthread_sigmask(SIG_UNBLOCK, &r->sigs, NULL);
	return rc;
}

int cmd_trace(int argc, char **argv)
{
	struct trace_run r = {};
	struct timespec rt, mt;
	int rc;

	rc = trace_parse(argc, argv);
	if (rc >= 0)
		return rc;
	rc = check_usage();
	if (!rc)
		rc = resolve_targets(&r.cg, &r.fs_dev, &r.disk_dev);
	if (!rc)
		rc = live_db_check(PROG, env.live.comm, env.cmd != NULL);
	if (rc)
		return rc;
	if (geteuid() != 0) {
		fprintf(stderr, PROG ": needs root (CAP_BPF and CAP_PERFMON to load the tracer)\n");
		return 1;
	}

	L.out = stdout;
	L.slower = env.slower_ms >= 0;
	L.slower_ns = env.slower_ms >= 0 ? (__u64)(env.slower_ms * 1e6) : 0;
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mt);
	L.mono_to_wall_ns = ((__u64)rt.tv_sec * NSEC + rt.tv_nsec) -
			    ((__u64)mt.tv_sec * NSEC + mt.tv_nsec);

	rc = trace_signals_and_cmd(&r);
	if (!rc)
		rc = trace_open(&r);
	if (!rc) {
		trace_announce(&r);
		rc = trace_loop(&r);
		trace_summary(&r, rc);
	}
	return trace_close(&r, rc);
}
