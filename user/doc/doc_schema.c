// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * doc_schema.c - what a loaded document must be before a renderer sees it
 * (doc.h, fss_doc_check): one table of rules per document kind (and per
 * record of trace's JSON Lines, and for run's --events lines).
 *
 * A rule is a path and a type.  Path segments are keys, "[]" (every
 * element of an array) and "*" (every member of an object); a value that
 * is absent or null passes (renderers print n/a for it), one of another
 * type does not.  Types: o object, a array, s string, b boolean, n number,
 * u number >= 0, h histogram (hist.c's JSON: counts >= 0, buckets
 * [lower_ns, count] whose counts add up to "count"), T an object that
 * the sub-table given describes.  Besides the tables, no number anywhere
 * may be NaN or infinite.  The error names the first bad value:
 * "tests[3].breakdown.fs: expected an object".  docs/report.md ("Exit
 * status and errors") and docs/hardening.md say the same in words.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include "doc/doc.h"

struct rule {
	const char *path;
	char type;
	const struct rule *sub;
};

/* A phase row ("fs": {mean_us, p50_us, p99_us, share}) and its kin. */
static const struct rule phase_rules[] = {
	{ "mean_us", 'u' }, { "p50_us", 'u' }, { "p99_us", 'u' },
	{ "share", 'u' }, { "na", 's' }, { 0 },
};

/* A finding (docs/findings.md): run, compare, devices, trace summaries. */
static const struct rule finding_rules[] = {
	{ "id", 's' }, { "severity", 's' }, { "subject", 's' },
	{ "title", 's' },
	{ "evidence", 's' }, { "advice", 's' }, { "refs", 'a' },
	{ "refs.[]", 's' }, { "figures", 'o' }, { "also_in", 'u' },
	{ 0 },
};

/* A test: run's tests[], compare's results[], the probe's test. */
static const struct rule test_rules[] = {
	{ "name", 's' }, { "label", 's' }, { "status", 's' }, { "reason", 's' },
	{ "method", 's' }, { "section", 's' }, { "section_title", 's' },
	{ "section_note", 's' }, { "note", 's' }, { "pattern", 's' },
	{ "fs", 's' }, { "ops", 'u' }, { "writes", 'u' }, { "jobs", 'u' },
	{ "bs", 'u' }, { "elapsed_s", 'u' }, { "ops_per_sec", 'u' },
	{ "usecs_per_op", 'u' }, { "writes_per_sync", 'u' },
	{ "syncs_traced", 'u' }, { "syncs_incomplete", 'u' },
	{ "drops", 'u' }, { "incomplete_rqs", 'u' }, { "partial", 'b' },
	{ "painter", 's' },
	{ "latency_us", 'o' }, { "latency_us.*", 'u' },
	{ "breakdown", 'o' }, { "breakdown.*", 'T', phase_rules },
	{ "breakdown_total", 'o' }, { "breakdown_total.*", 'u' },
	{ "flush", 'o' }, { "flush.*", 'u' },
	{ "syncs_by_kind", 'o' }, { "syncs_by_kind.*", 'u' },
	{ "hist", 'o' }, { "hist.scheme", 's' }, { "hist.unit", 's' },
	{ "hist.op", 'h' }, { "hist.total", 'h' }, { "hist.fs", 'h' },
	{ "hist.journal", 'h' }, { "hist.queue", 'h' },
	{ "hist.device_write", 'h' }, { "hist.device_flush", 'h' },
	{ "hist.other", 'h' },
	{ "blame", 'o' }, { "blame.strategy", 's' }, { "blame.syncs", 'u' },
	{ "blame.self_ns", 'u' }, { "blame.others_ns", 'u' },
	{ "blame.unattributed_ns", 'u' }, { "blame.others", 'a' },
	{ "blame.others.[]", 'o' }, { "blame.others.[].comm", 's' },
	{ "blame.others.[].cgroup", 's' }, { "blame.others.[].blamed_ns", 'u' },
	{ "blame.others.[].pid", 'n' },
	{ 0 },
};

static const struct rule head_rules[] = {
	{ "version", 's' }, { "host", 'o' }, { "options", 'o' },
	{ "target", 'o' }, { "strategy", 'o' }, { "strategy.layers", 'o' },
	{ "strategy.layers.*", 'o' }, { "strategy.calibration", 'o' },
	{ "strategy.calibration.hits", 'o' },
	{ "strategy.calibration.hits.*", 'u' },
	{ "strategy.calibration.dropped_hooks", 'a' },
	{ "verdict", 'o' }, { "verdict.code", 's' },
	{ "verdict.headline", 's' },
	{ "verdict.basis", 's' }, { "verdict.confidence", 's' },
	/* an object (docs/run.md): a real device's run was refused */
	{ "verdict.interval", 'o' }, { "verdict.interval.p50_us", 'u' },
	{ "verdict.interval.low_us", 'u' }, { "verdict.interval.high_us", 'u' },
	{ "verdict.interval.samples", 'u' },
	{ "findings", 'a' }, { "findings.[]", 'T', finding_rules },
	{ 0 },
};

static const struct rule device_rules[] = {
	{ "name", 's' }, { "members", 'a' }, { "members.[]", 's' },
	{ "nvme", 'o' }, { "backing_target", 'o' }, { "write_cache", 's' },
	{ "scheduler", 's' }, { "model", 's' }, { 0 },
};

/* A level of a sweep: "sweep"'s rows and "little"'s points. */
static const struct rule level_rules[] = {
	{ "level", 'u' }, { "jobs", 'u' }, { "iodepth", 'u' },
	{ "concurrency", 'u' }, { "name", 's' }, { "status", 's' },
	{ "ops_per_sec", 'u' }, { "mean_us", 'u' }, { "p50_us", 'u' },
	{ "p99_us", 'u' }, { "L", 'u' }, { "littles_law_concurrency", 'u' },
	{ "little_iops", 'u' }, { "naive_capacity", 'u' },
	{ "naive_iops", 'u' }, { "base_jobs", 'u' }, { "speedup", 'u' },
	{ "vs_naive", 'u' }, { 0 },
};

static const struct rule run_rules[] = {
	{ "", 'T', head_rules },
	{ "tests", 'a' }, { "tests.[]", 'T', test_rules },
	{ "sweep", 'a' }, { "sweep.[]", 'o' }, { "sweep.[]", 'T', level_rules },
	{ "little", 'o' }, { "little.axis", 's' }, { "little.base_level", 'u' },
	{ "little.base_concurrency", 'u' }, { "little.base_mean_us", 'u' },
	{ "little.naive_capacity", 'u' }, { "little.points", 'a' },
	{ "little.points.[]", 'o' }, { "little.points.[]", 'T', level_rules },
	{ 0 },
};

/* compare: one filesystem's metric over its rounds (docs/compare.md). */
static const struct rule spread_rules[] = {
	{ "mean", 'u' }, { "lo", 'u' }, { "hi", 'u' }, { "rounds", 'u' },
	{ 0 },
};

static const struct rule compare_rules[] = {
	{ "", 'T', head_rules },
	{ "filesystems", 'a' }, { "filesystems.[]", 'o' },
	{ "filesystems.[].fs", 's' }, { "filesystems.[].status", 's' },
	{ "filesystems.[].mkfs", 'a' }, { "filesystems.[].mkfs.[]", 's' },
	{ "filesystems.[].target", 'o' }, { "filesystems.[].strategy", 'o' },
	{ "workloads", 'a' }, { "workloads.[]", 'o' },
	{ "workloads.[].name", 's' }, { "workloads.[].title", 's' },
	{ "workloads.[].results", 'a' }, { "workloads.[].results.[]", 'o' },
	{ "workloads.[].results.[]", 'T', test_rules },
	{ "workloads.[].results.[].spread", 'o' },
	{ "workloads.[].results.[].spread.ops_per_sec", 'T', spread_rules },
	{ "workloads.[].results.[].spread.p99_us", 'T', spread_rules },
	{ "images", 'o' }, { "images.disk", 'o' },
	{ "images.disk", 'T', device_rules }, { "images.on", 'o' },
	{ 0 },
};

static const struct rule devices_rules[] = {
	{ "", 'T', head_rules },
	{ "devices", 'a' }, { "devices.[]", 'o' },
	{ "devices.[]", 'T', device_rules },
	{ "probe", 'o' }, { "probe.test", 'T', test_rules },
	{ "probe.strategy", 'o' }, { "probe.count", 'u' },
	{ "probe.drops", 'u' },
	{ 0 },
};

static const struct rule diff_rules[] = {
	{ "a", 'o' }, { "b", 'o' }, { "method", 'o' },
	{ "only_in_a", 'a' }, { "only_in_b", 'a' }, { "gate_failures", 'u' },
	{ "tests", 'a' }, { "tests.[]", 'o' }, { "tests.[].test", 's' },
	{ "tests.[].a_count", 'u' }, { "tests.[].b_count", 'u' },
	{ "tests.[].rows", 'a' }, { "tests.[].rows.[]", 'o' },
	{ "tests.[].rows.[].series", 's' }, { "tests.[].rows.[].stat", 's' },
	{ "tests.[].rows.[].verdict", 's' },
	{ "tests.[].rows.[].a_us", 'u' }, { "tests.[].rows.[].b_us", 'u' },
	{ "tests.[].rows.[].change_us", 'n' },
	{ "tests.[].rows.[].change_pct", 'n' },
	{ "tests.[].rows.[].ci95_us", 'a' },
	{ "tests.[].rows.[].ci95_us.[]", 'n' },
	{ "tests.[].rows.[].ci95_pct", 'a' },
	{ "tests.[].rows.[].ci95_pct.[]", 'n' },
	{ 0 },
};

/* A group of trace's syncs: all, kinds[], processes[], files[], classes[]. */
static const struct rule group_rules[] = {
	{ "syncs", 'u' }, { "errors", 'u' }, { "total_ns", 'u' },
	{ "mean_us", 'u' }, { "p50_us", 'u' }, { "p99_us", 'u' },
	{ "max_us", 'u' }, { "hist", 'h' },
	{ "phases", 'o' }, { "phases.*", 'o' }, { "phases.*.*", 'n' },
	{ "by_kind", 'o' }, { "by_kind.*", 'u' },
	{ "by_role", 'o' }, { "by_role.*", 'o' }, { "by_role.*.*", 'u' },
	{ "kind", 's' }, { "comm", 's' }, { "name", 's' }, { "role", 'o' },
	{ "cmdline", 's' }, { "path", 's' }, { "path_note", 's' },
	{ "dev", 's' }, { "class", 's' }, { "label", 's' },
	{ "blame", 'o' }, { "blame.*", 'u' },
	{ 0 },
};

/* One attributed sync: trace's "sync" records, run's --events lines. */
static const struct rule sync_rules[] = {
	{ "test", 's' }, { "kind", 's' }, { "comm", 's' }, { "name", 's' },
	{ "dev", 's' }, { "time", 's' }, { "pid", 'n' }, { "tid", 'n' },
	{ "start_ns", 'u' }, { "total_ns", 'u' }, { "fs_ns", 'u' },
	{ "journal_ns", 'u' }, { "queue_ns", 'u' }, { "device_write_ns", 'u' },
	{ "device_flush_ns", 'u' }, { "other_ns", 'u' },
	{ "kernel_phases", 'o' }, { "kernel_phases.*", 'u' },
	{ "flush_seen", 'b' }, { "painter", 's' },
	{ "segments", 'a' }, { "segments.[]", 'a' },
	{ "rqs", 'a' }, { "rqs.[]", 'o' }, { "rqs.[].start_ns", 'u' },
	{ "rqs.[].issue_ns", 'u' }, { "rqs.[].end_ns", 'u' },
	{ "rqs.[].class", 's' }, { "rqs.[].dev", 's' },
	{ "commits", 'a' }, { "commits.[]", 'o' },
	{ "blame", 'a' }, { "blame.[]", 'o' }, { "blame.[].comm", 's' },
	{ "blame.[].phase", 's' }, { "blame.[].cgroup", 's' },
	{ "blame.[].blamed_ns", 'u' }, { "blame.[].share", 'u' },
	{ "blame.[].evidence", 'o' }, { "blame.[].evidence.coalesced", 'o' },
	{ "blame.[].evidence.coalesced.by", 'a' },
	{ 0 },
};

static const struct rule trace_rules[] = {
	{ "type", 's' }, { "strategy", 'o' }, { "filters", 'o' },
	{ "filters.pids", 'a' }, { "painter", 's' },
	{ "all", 'T', group_rules },
	{ "kinds", 'a' }, { "kinds.[]", 'T', group_rules },
	{ "processes", 'a' }, { "processes.[]", 'o' },
	{ "processes.[]", 'T', group_rules },
	{ "files", 'a' }, { "files.[]", 'T', group_rules },
	{ "classes", 'a' }, { "classes.[]", 'o' },
	{ "classes.[]", 'T', group_rules },
	{ "roles", 'a' }, { "roles.[]", 'T', group_rules },
	{ "checkpoints", 'a' }, { "checkpoints.[]", 'o' },
	{ "devices", 'a' }, { "devices.[]", 'o' },
	{ "journal_notes", 'a' }, { "journal_notes.[]", 'o' },
	{ "flush", 'o' }, { "flush.*", 'u' }, { "by_kind", 'o' },
	{ "by_kind.*", 'u' }, { "blame", 'o' }, { "blame.*", 'u' },
	{ "blamed", 'a' }, { "blamed.[]", 'o' }, { "blamed.[].comm", 's' },
	{ "blamed.[].blamed_ns", 'u' },
	{ "findings", 'a' }, { "findings.[]", 'T', finding_rules },
	{ 0 },
};

static const struct {
	const char *kind;
	const struct rule *rules;
} kinds[] = {
	{ "run", run_rules }, { "compare", compare_rules },
	{ "devices", devices_rules }, { "diff", diff_rules },
	{ "trace", trace_rules }, { "events", sync_rules },
};

/* json-c's accessors, safe on any value (doc.c has the same for others). */
static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_is_type(o, json_type_object) &&
	       json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static size_t len_of(struct json_object *o)
{
	return json_object_is_type(o, json_type_array) ?
	       json_object_array_length(o) : 0;
}

static struct json_object *idx(struct json_object *o, size_t i)
{
	return i < len_of(o) ? json_object_array_get_idx(o, i) : NULL;
}

static const char *type_word(char t)
{
	switch (t) {
	case 'o': return "an object";
	case 'a': return "an array";
	case 's': return "a string";
	case 'b': return "true or false";
	case 'n': return "a number";
	case 'u': return "a number >= 0";
	default:  return "a histogram (count, sum_ns, buckets adding up to "
			 "count)";
	}
}

static bool is_num(struct json_object *v)
{
	return json_object_is_type(v, json_type_int) ||
	       json_object_is_type(v, json_type_double);
}

static bool is_count(struct json_object *v)
{
	return json_object_is_type(v, json_type_int) &&
	       json_object_get_int64(v) >= 0;
}

static bool hist_ok(struct json_object *h)
{
	struct json_object *b = get(h, "buckets");
	unsigned long long n = 0, c;

	if (!json_object_is_type(h, json_type_object) ||
	    !is_count(get(h, "count")) || !is_count(get(h, "sum_ns")) ||
	    !json_object_is_type(b, json_type_array))
		return false;
	for (size_t i = 0; i < len_of(b); i++) {
		struct json_object *p = idx(b, i);

		if (len_of(p) != 2 || !is_count(idx(p, 0)) ||
		    !is_count(idx(p, 1)))
			return false;
		c = json_object_get_uint64(idx(p, 1));
		if (n + c < n)
			return false;
		n += c;
	}
	return n == json_object_get_uint64(get(h, "count"));
}

static bool type_ok(struct json_object *v, char t)
{
	switch (t) {
	case 'o': return json_object_is_type(v, json_type_object);
	case 'a': return json_object_is_type(v, json_type_array);
	case 's': return json_object_is_type(v, json_type_string);
	case 'b': return json_object_is_type(v, json_type_boolean);
	case 'n': return is_num(v);
	case 'u': return is_num(v) && json_object_get_double(v) >= 0;
	case 'h': return hist_ok(v);
	}
	return true;
}

struct walk {
	char *err;
	size_t errlen;
	const char *where;	/* "file" or "file: line N" */
};

static int check_rules(struct walk *w, struct json_object *o,
		       const struct rule *r, char *at, size_t atlen);

/* at + the segment for key / index, in the error's spelling. */
static void at_push(char *at, size_t atlen, size_t len, const char *key,
		    long idx)
{
	if (key)
		snprintf(at + len, atlen - len, "%s%s", len ? "." : "", key);
	else
		snprintf(at + len, atlen - len, "[%ld]", idx);
}

/* Apply one rule's remaining path (p) from v. */
static int check_path(struct walk *w, struct json_object *v, const char *p,
		      const struct rule *r, char *at, size_t atlen)
{
	size_t len = strlen(at), seg = strcspn(p, ".");
	char key[64];
	int rc = 0;

	if (!v || json_object_is_type(v, json_type_null))
		return 0;
	if (!*p) {
		if (!type_ok(v, r->type == 'T' ? 'o' : r->type)) {
			snprintf(w->err, w->errlen, "%s: %s: expected %s",
				 w->where, *at ? at : "(document)",
				 type_word(r->type == 'T' ? 'o' : r->type));
			return -1;
		}
		if (r->type != 'T')
			return 0;
		return check_rules(w, v, r->sub, at, atlen);
	}
	if (seg == 2 && !strncmp(p, "[]", 2)) {
		for (size_t i = 0; !rc && i < len_of(v); i++) {
			at_push(at, atlen, len, NULL, (long)i);
			rc = check_path(w, idx(v, i), p + 2 + !!p[2], r,
					at, atlen);
		}
	} else if (seg == 1 && *p == '*') {
		if (json_object_is_type(v, json_type_object)) {
			json_object_object_foreach(v, k, m) {
				at_push(at, atlen, len, k, 0);
				rc = check_path(w, m, p + 1 + !!p[1], r, at,
						atlen);
				if (rc)
					break;
			}
		}
	} else if (seg < sizeof(key)) {
		memcpy(key, p, seg);
		key[seg] = '\0';
		at_push(at, atlen, len, key, 0);
		rc = check_path(w, get(v, key), p + seg + !!p[seg], r, at,
				atlen);
	}
	at[len] = '\0';
	return rc;
}

static int check_rules(struct walk *w, struct json_object *o,
		       const struct rule *r, char *at, size_t atlen)
{
	for (; r->path; r++)
		if (check_path(w, o, r->path, r, at, atlen))
			return -1;
	return 0;
}

/* No NaN or infinity anywhere (json-c reads them; no writer makes them). */
static int check_finite(struct walk *w, struct json_object *v, char *at,
			size_t atlen)
{
	size_t len = strlen(at);
	int rc = 0;

	if (json_object_is_type(v, json_type_double) &&
	    !isfinite(json_object_get_double(v))) {
		snprintf(w->err, w->errlen, "%s: %s: not a finite number",
			 w->where, *at ? at : "(document)");
		return -1;
	}
	if (json_object_is_type(v, json_type_array)) {
		for (size_t i = 0; !rc && i < len_of(v); i++) {
			at_push(at, atlen, len, NULL, (long)i);
			rc = check_finite(w, idx(v, i), at, atlen);
		}
	} else if (json_object_is_type(v, json_type_object)) {
		json_object_object_foreach(v, k, m) {
			at_push(at, atlen, len, k, 0);
			if ((rc = check_finite(w, m, at, atlen)))
				break;
		}
	}
	at[len] = '\0';
	return rc;
}

int fss_doc_check(struct json_object *o, const char *kind, const char *where,
		  char *err, size_t errlen)
{
	struct walk w = { err, errlen, where };
	char at[512] = "";

	if (!json_object_is_type(o, json_type_object)) {
		snprintf(err, errlen, "%s: expected a JSON object", where);
		return -1;
	}
	if (check_finite(&w, o, at, sizeof(at)))
		return -1;
	/* trace's JSON Lines: a "sync" record is a sync, like --events' */
	if (kind && !strcmp(kind, "trace") &&
	    json_object_is_type(get(o, "type"), json_type_string) &&
	    !strcmp(json_object_get_string(get(o, "type")), "sync"))
		kind = "events";
	for (size_t i = 0; kind && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kind, kinds[i].kind))
			return check_rules(&w, o, kinds[i].rules, at,
					   sizeof(at));
	return 0;
}
