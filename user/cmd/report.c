// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * cmd_report.c - `fsyncscope report FILE`: render a saved result (any
 * command's --json output) again, as HTML, CSV, JSON or text (with --hist,
 * the histograms too), later and elsewhere; needs no privilege and no tracer.
 */
#include <argp.h>
#include <stdio.h>
#include <stdlib.h>
#include <json-c/json.h>
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "doc/doc.h"
#include "findings/findings.h"
#include "render/render.h"

#define PROG	"fsyncscope report"

struct report_opts {
	const char *in, *out, *events;
	unsigned long long max_syncs;
	enum fss_fmt fmt;
	bool fmt_set, hist;
};

enum { OPT_EVENTS = 256, OPT_HIST, OPT_MAX_SYNCS };

static const char doc[] =
"Render a saved fsyncscope result (the --json output of run, compare, trace "
"or diff) as HTML (one self-contained page: charts of the phases, latency "
"histograms with p50/p99/p99.9, a timeline of the syncs with --events), "
"CSV, JSON, or text (what run, compare, devices or diff printed; --hist "
"adds the histograms).  Needs no privilege and no tracer."
"\v"
"EXAMPLES:\n"
"  fsyncscope run --json --events ev.jsonl /mnt/db > run.json\n"
"  fsyncscope report run.json --format html -o run.html\n"
"  fsyncscope report run.json --events ev.jsonl --format html -o run.html\n"
"  fsyncscope report run.json --format csv -o run.csv\n"
"  fsyncscope report run.json --events ev.jsonl --format csv   (per sync)\n"
"  fsyncscope report --hist run.json\n"
"\n"
"Exit status: 0 done, 1 output could not be written, 2 bad input (not a\n"
"result, wrong schema, newer schema_version, bad option).";

static const struct argp_option options[] = {
	{ "format", 'f', "FMT", 0, "html (default), csv, json, perfetto (with "
	  "--events), text (run, compare, devices, diff: what the command "
	  "printed)", 0 },
	{ "output", 'o', "FILE", 0, "Write to FILE (whole or not at all) instead of stdout", 0 },
	{ "events", OPT_EVENTS, "FILE", 0, "Per-sync records from run --events: the "
	  "timeline (html) or one CSV row per sync", 0 },
	{ "hist", OPT_HIST, NULL, 0, "Text: each test's latency histograms, "
	  "biolatency style", 0 },
	{ "max-syncs", OPT_MAX_SYNCS, "N", 0, "perfetto: draw the first N syncs "
	  "of the events file (default 50000; the trace says how many there were)", 0 },
	{ "json", 'j', NULL, 0, "Same as --format json", 0 },
	{ 0 },
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct report_opts *o = state->input;

	switch (key) {
	case 'f':
		if (fss_fmt_parse(arg, &o->fmt)) {
			argp_error(state, "unknown --format '%s' (html, csv, json, text)", arg);
			return EINVAL;
		}
		o->fmt_set = true;
		break;
	case 'j':
		o->fmt = FSS_FMT_JSON;
		o->fmt_set = true;
		break;
	case 'o':
		o->out = arg;
		break;
	case OPT_EVENTS:
		o->events = arg;
		break;
	case OPT_HIST:
		o->hist = true;
		break;
	case OPT_MAX_SYNCS:
		if (fss_parse_uint(arg, 100000000, &o->max_syncs)) {
			argp_error(state, "bad --max-syncs '%s': 1 to 100000000", arg);
			return EINVAL;
		}
		break;
	case ARGP_KEY_ARG:
		if (o->in) {
			argp_error(state, "too many arguments: '%s' (one FILE)", arg);
			return EINVAL;
		}
		o->in = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = { options, parse_opt, "FILE", doc };

/*
 * A result saved before findings existed has none: report computes them
 * from the document, as the command would have (docs/findings.md).  One
 * saved with findings keeps its own: they are what the command said.
 */
static struct json_object *with_findings(struct json_object *d)
{
	return fss_j(d, "findings") ? d : fss_findings_attach(d);
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = { .fmt = FSS_FMT_HTML };
	struct fss_render_opts ro = { 0 };
	struct json_object *d;
	char err[512];
	int rc;

	if (fss_cli_parse(&argp, argc, argv, &o, PROG, &rc))
		return rc;
	if (!o.in)
		return fss_cli_usage_error(PROG, "no FILE: which saved result "
					   "to render?");
	if (o.hist && !o.fmt_set)
		o.fmt = FSS_FMT_TEXT;
	if (o.hist && o.fmt != FSS_FMT_TEXT)
		return fss_cli_usage_error(PROG, "--hist is a text view: not with "
					   "--format html, csv or json");
	d = fss_doc_load(o.in, err, sizeof(err));
	if (!d) {
		fprintf(stderr, "fsyncscope: %s\n", err);
		return 2;
	}
	d = with_findings(d);
	ro.events_path = o.events;
	ro.lines_path = o.in;		/* trace's text: every record */
	ro.record = with_findings;
	ro.hist = o.hist;
	ro.max_syncs = (size_t)o.max_syncs;
	return fss_emit(d, o.fmt, o.out, &ro);
}
