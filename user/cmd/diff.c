// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * cmd_diff.c - `fsyncscope diff A.json B.json`: is B slower than A, per
 * test and per phase, beyond noise?  A CI gate with --fail-if-slower.
 */
#include <argp.h>
#include <stdio.h>
#include <stdlib.h>
#include <json-c/json.h>
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "doc/diff_doc.h"
#include "doc/doc.h"
#include "render/render.h"

#define PROG	"fsyncscope diff"

struct diff_cli {
	const char *a, *b, *out;
	enum fss_fmt fmt;
	struct fss_diff_opts d;
};

enum { OPT_FAIL = 256, OPT_RESAMPLES, OPT_SEED, OPT_MIN_PCT, OPT_MIN_US };

static const char doc[] =
"Compare two saved results of one kind (run, compare or trace --json): for each "
"test in both and each series (the traced sync total, or the per-op latency "
"when untraced, and each phase) p50, p99 and mean of A and B, the change, "
"its 95 % bootstrap interval (resampling the histograms), and one word: "
"slower, faster or within noise."
"\v"
"EXAMPLES:\n"
"  fsyncscope diff before.json after.json\n"
"  fsyncscope diff --fail-if-slower 5 base.json new.json   (CI gate)\n"
"  fsyncscope diff -f html -o diff.html a.json b.json\n"
"\n"
"Exit status: 0 done, 1 --fail-if-slower tripped (or output not written),\n"
"2 bad input (not a result, different kinds, nothing in common, bad option).";

static const struct argp_option options[] = {
	{ "format", 'f', "FMT", 0, "text (default), json, html, csv", 0 },
	{ "output", 'o', "FILE", 0, "Write to FILE (whole or not at all)", 0 },
	{ "json", 'j', NULL, 0, "Same as --format json", 0 },
	{ "fail-if-slower", OPT_FAIL, "PCT", 0, "Exit 1 when a total (or per-op) p50 "
	  "or p99 is slower with its whole 95 % interval beyond PCT %", 0 },
	{ "min-change", OPT_MIN_PCT, "PCT", 0, "Noise floor: smaller changes are "
	  "within noise (default 2, the histograms' resolution)", 0 },
	{ "min-change-us", OPT_MIN_US, "US", 0, "Absolute noise floor in "
	  "microseconds (default 5, the tracer's cost per sync)", 0 },
	{ "resamples", OPT_RESAMPLES, "N", 0, "Bootstrap resamples (default 1000)", 0 },
	{ "seed", OPT_SEED, "N", 0, "Generator seed (default 1; same seed, same result)", 0 },
	{ 0 },
};

static int parse_pct(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= 0) || v > 1e6)
		return -1;
	*out = v;
	return 0;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct diff_cli *o = state->input;
	unsigned long long v;

	switch (key) {
	case 'f':
		if (fss_fmt_parse(arg, &o->fmt)) {
			argp_error(state, "unknown --format '%s' (text, json, html, csv)", arg);
			return EINVAL;
		}
		break;
	case 'j':
		o->fmt = FSS_FMT_JSON;
		break;
	case 'o':
		o->out = arg;
		break;
	case OPT_FAIL:
		if (parse_pct(arg, &o->d.fail_if_slower_pct)) {
			argp_error(state, "bad --fail-if-slower '%s': a percentage from 0 to 1000000", arg);
			return EINVAL;
		}
		break;
	case OPT_MIN_PCT:
		if (parse_pct(arg, &o->d.min_change_pct)) {
			argp_error(state, "bad --min-change '%s': a percentage from 0 to 1000000", arg);
			return EINVAL;
		}
		break;
	case OPT_MIN_US:
		if (parse_pct(arg, &o->d.min_change_us)) {
			argp_error(state, "bad --min-change-us '%s': microseconds from 0 to 1000000", arg);
			return EINVAL;
		}
		break;
	case OPT_RESAMPLES:
		if (fss_parse_uint(arg, 100000, &v) || v < 100) {
			argp_error(state, "bad --resamples '%s': 100 to 100000", arg);
			return EINVAL;
		}
		o->d.resamples = (int)v;
		break;
	case OPT_SEED:
		if (fss_parse_uint(arg, ~0ULL, &v)) {
			argp_error(state, "bad --seed '%s': a positive integer", arg);
			return EINVAL;
		}
		o->d.seed = v;
		break;
	case ARGP_KEY_ARG:
		if (!o->a) {
			o->a = arg;
		} else if (!o->b) {
			o->b = arg;
		} else {
			argp_error(state, "too many arguments: '%s' (two files)", arg);
			return EINVAL;
		}
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = { options, parse_opt, "A.json B.json", doc };

int cmd_diff(int argc, char **argv)
{
	struct diff_cli o = { .fmt = FSS_FMT_TEXT };
	struct json_object *a = NULL, *b = NULL, *d = NULL;
	char err[768];
	int rc, failed;

	fss_diff_defaults(&o.d);
	if (fss_cli_parse(&argp, argc, argv, &o, PROG, &rc))
		return rc;
	if (!o.b)
		return fss_cli_usage_error(PROG, "two saved results are needed: "
					   "A.json B.json");
	rc = 2;
	if (!(a = fss_doc_load(o.a, err, sizeof(err))) ||
	    !(b = fss_doc_load(o.b, err, sizeof(err))) ||
	    !(d = fss_diff_build(a, o.a, b, o.b, &o.d, err, sizeof(err))))
		goto fail;
	failed = fss_diff_failed(d);
	rc = fss_emit(d, o.fmt, o.out, NULL);	/* puts d */
	d = NULL;
	if (!rc && failed) {
		fprintf(stderr, "fsyncscope: %d row(s) slower than A by more than "
			"%.3g%% (--fail-if-slower)\n", failed, o.d.fail_if_slower_pct);
		rc = 1;
	}
	goto out;
fail:
	fprintf(stderr, "fsyncscope: %s\n", err);
out:
	json_object_put(a);
	json_object_put(b);
	json_object_put(d);
	return rc;
}
