// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * check.c - `fsyncscope check`: what tracing will use on this host and,
 * where it cannot, why.  The host's facts (sys/hostfacts.c) next to what
 * the tracer itself does when it is opened the way `trace` opens it
 * (load, attach layer by layer, calibrate; then closed), what it would
 * see on each filesystem mounted on a block device, and the block devices'
 * write cache and FUA.  Exit 0 when the core breakdown works
 * (the sync and block layers attach), 1 when it cannot, the reason last.
 */
#include <argp.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "doc/doc.h"
#include "engine/tracer/tracer.h"
#include "render/render.h"
#include "sys/devinfo.h"
#include "sys/hostfacts.h"
#include "sys/target.h"

#define PROG "fsyncscope check"

struct check_opts {
	bool json;
	const char *calib_dir;
	enum fss_strategy strategy;
};

static const char doc[] =
"Say what tracing will use on this host, layer by layer, and why not where\n"
"it cannot: the kernel and its BTF, lockdown, unprivileged BPF, tracefs,\n"
"this process's capabilities and RLIMIT_MEMLOCK, which attach strategies\n"
"load (fentry, kprobe probes), what each layer attaches (sync, fs, journal,\n"
"block, nvme, blame; n/a with the reason), the calibration, and every block\n"
"device's write cache and FUA.  The tracer is opened as `trace` opens it:\n"
"a few 4 KiB syncs on a scratch file in --calib-dir (default /var/tmp).\n"
"\n"
"Exit status 0: the core breakdown works (sync and block layers attach);\n"
"1: it cannot, and the last line says why.  Run it as the user and with\n"
"the capabilities the tracer will have (e.g. the exporter's unit).\n"
"\v"
"EXAMPLES:\n"
"  fsyncscope check\n"
"  fsyncscope check --json | jq .tracer.strategy\n"
"  setpriv --inh-caps=-all --bounding-set=-sys_admin fsyncscope check\n";

enum { OPT_CALIB = 0x100, OPT_STRATEGY, OPT_FORMAT };

static const struct argp_option opts[] = {
	{ "json", 'j', NULL, 0, "JSON output", 0 },
	{ "format", OPT_FORMAT, "FMT", 0, "text (default) or json (= -j)", 0 },
	{ "calib-dir", OPT_CALIB, "DIR", 0, "Where the tracer's calibration "
	  "syncs go (default /var/tmp)", 0 },
	{ "strategy", OPT_STRATEGY, "auto|fentry|kprobe|tracepoint", 0,
	  "Check one attach strategy (default auto)", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct check_opts *o = state->input;

	switch (key) {
	case 'j':
		o->json = true;
		break;
	case OPT_FORMAT:
		if (strcmp(arg, "text") && strcmp(arg, "json")) {
			argp_error(state, "--format '%s': text or json", arg);
			return EINVAL;
		}
		o->json = !strcmp(arg, "json");
		break;
	case OPT_CALIB:
		if (!arg[0]) {
			argp_error(state, "empty --calib-dir");
			return EINVAL;
		}
		o->calib_dir = arg;
		break;
	case OPT_STRATEGY:
		if (fss_strategy_parse(arg, &o->strategy)) {
			argp_error(state, "--strategy: unknown strategy '%s' "
				   "(auto, fentry, kprobe, tracepoint)", arg);
			return EINVAL;
		}
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "no arguments (got '%s')", arg);
		return EINVAL;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = {
	.options = opts,
	.parser = parse_arg,
	.doc = doc,
};

/* The tracer opened as trace opens it, then closed: its strategy or error. */
static struct json_object *tracer_json(const struct check_opts *o,
				       bool *core_ok, char *err, size_t len)
{
	struct json_object *j = json_object_new_object(), *st, *v;
	struct fss_trace_opts to = {
		.strategy = o->strategy,
		.calib_dir = o->calib_dir,
		.blame = true,
		.live = true,
	};
	struct fss_tracer *t;

	err[0] = '\0';
	*core_ok = false;
	t = fss_tracer_open(&to, err, len);
	json_object_object_add(j, "loaded", json_object_new_boolean(t != NULL));
	json_object_object_add(j, "error", err[0] ?
			       json_object_new_string(err) : NULL);
	if (!t) {
		json_object_object_add(j, "strategy", NULL);
		return j;
	}
	st = fss_tracer_strategy_json(t);
	fss_tracer_close(t);
	*core_ok = json_object_object_get_ex(st, "sync", &v) &&
		   strcmp(json_object_get_string(v), "n/a") &&
		   json_object_object_get_ex(st, "block", &v) &&
		   strcmp(json_object_get_string(v), "n/a");
	if (!*core_ok)
		snprintf(err, len, "the %s layer does not attach",
			 json_object_object_get_ex(st, "sync", &v) &&
			 strcmp(json_object_get_string(v), "n/a") ?
			 "block" : "sync");
	json_object_object_add(j, "strategy", st);
	return j;
}

/*
 * Why tracing cannot work, from the facts first (they name the cause),
 * else the tracer's own line.
 */
static void reason(const struct fss_hostfacts *h, const char *terr,
		   char *out, size_t len)
{
	char missing[256];

	if (!h->btf_vmlinux)
		snprintf(out, len, "the kernel has no BTF "
			 "(/sys/kernel/btf/vmlinux): fsyncscope needs "
			 "CONFIG_DEBUG_INFO_BTF");
	else if (fss_hostfacts_missing(h, missing, sizeof(missing)))
		snprintf(out, len, "missing %s (run as root or grant them; "
			 "the tracer said: %s)", missing, terr);
	else if (!strcmp(h->lockdown, "confidentiality"))
		snprintf(out, len, "kernel lockdown=confidentiality forbids "
			 "reading kernel memory from BPF (the tracer said: %s)",
			 terr);
	else
		snprintf(out, len, "%s", terr);
}

static struct json_object *devices_json(void)
{
	struct json_object *arr = json_object_new_array();
	struct fss_devinfo *d;
	int n;

	if (fss_devinfo_list(&d, &n))
		return arr;
	for (int i = 0; i < n; i++)
		json_object_array_add(arr, fss_devinfo_json(&d[i]));
	free(d);
	return arr;
}

/*
 * What trace sees on each block-backed filesystem: every sync (syscall
 * tracepoints) and its block requests whenever the tracer loaded; the fs
 * phase and the journal where the strategy says this fstype is hooked.
 */
static struct json_object *mounts_json(struct json_object *tracer)
{
	struct json_object *arr = fss_block_mounts_json(64);
	struct json_object *st = fss_j(tracer, "strategy");
	struct json_object *fss = fss_j(st, "filesystems");
	bool block = st && strcmp(fss_jstr(st, "block") ?
				  fss_jstr(st, "block") : "n/a", "n/a");
	size_t n = json_object_array_length(arr);

	for (size_t i = 0; i < n; i++) {
		struct json_object *m = json_object_array_get_idx(arr, i);
		struct json_object *f = fss_j(fss, fss_jstr(m, "fstype"));
		struct json_object *sees = json_object_new_object();
		const char *j = fss_jstr(f, "journal");

		json_object_object_add(sees, "syncs",
				       json_object_new_boolean(st != NULL));
		json_object_object_add(sees, "block",
				       json_object_new_boolean(block));
		json_object_object_add(sees, "fs", json_object_new_boolean(
			json_object_get_boolean(fss_j(f, "fs"))));
		json_object_object_add(sees, "journal", j ?
				       json_object_new_string(j) : NULL);
		json_object_object_add(m, "trace_sees", sees);
	}
	return arr;
}

static struct json_object *check_doc(const struct check_opts *o, int *rc)
{
	struct json_object *doc = json_object_new_object(), *tr;
	struct fss_hostfacts h;
	char terr[512], why[768];
	bool core_ok;

	fss_hostfacts_read(&h);
	fss_doc_stamp(doc, "check");
	json_object_object_add(doc, "host", fss_hostfacts_json(&h));
	json_object_object_add(doc, "calib_dir",
			       json_object_new_string(o->calib_dir));
	tr = tracer_json(o, &core_ok, terr, sizeof(terr));
	json_object_object_add(doc, "tracer", tr);
	json_object_object_add(doc, "mounts", mounts_json(tr));
	json_object_object_add(doc, "devices", devices_json());
	json_object_object_add(doc, "ok", json_object_new_boolean(core_ok));
	if (!core_ok)
		reason(&h, terr, why, sizeof(why));
	json_object_object_add(doc, "reason", core_ok ? NULL :
			       json_object_new_string(why));
	*rc = core_ok ? 0 : 1;
	return doc;
}

int cmd_check(int argc, char **argv)
{
	struct check_opts o = { .strategy = FSS_STRAT_AUTO };
	struct json_object *doc;
	int rc, erc;

	if (fss_cli_parse(&argp, argc, argv, &o, PROG, &rc))
		return rc;
	if (!o.calib_dir)
		o.calib_dir = fss_calib_dir_default();
	doc = check_doc(&o, &rc);
	erc = fss_emit(doc, o.json ? FSS_FMT_JSON : FSS_FMT_TEXT, NULL, NULL);
	return erc ? erc : rc;
}
