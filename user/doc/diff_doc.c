// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * diff.c - build the "diff" result document from two saved results.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "lib/phase.h"
#include "doc/diff_doc.h"
#include "doc/doc.h"
#include "lib/fmt.h"
#include "lib/hist.h"
#include "lib/stats.h"


static const struct {
	const char *name;
	double q;			/* 0: the mean */
} stats[] = { { "p50", 0.50 }, { "p99", 0.99 }, { "mean", 0 } };

void fss_diff_defaults(struct fss_diff_opts *o)
{
	o->resamples = 1000;
	o->seed = 1;
	o->min_change_pct = 2;
	o->min_change_us = 5;
	o->fail_if_slower_pct = -1;
}


static struct json_object *side_json(struct json_object *doc, const char *path)
{
	struct json_object *o = json_object_new_object();
	struct json_object *h = fss_j(doc, "host"), *t = fss_j(doc, "target");

	json_object_object_add(o, "path", json_object_new_string(path));
	json_object_object_add(o, "kind", json_object_new_string(fss_doc_kind(doc)));
	json_object_object_add(o, "version", fss_jstr(doc, "version") ?
			       json_object_new_string(fss_jstr(doc, "version")) : NULL);
	json_object_object_add(o, "hostname", fss_jstr(h, "hostname") ?
			       json_object_new_string(fss_jstr(h, "hostname")) : NULL);
	json_object_object_add(o, "kernel", fss_jstr(h, "kernel") ?
			       json_object_new_string(fss_jstr(h, "kernel")) : NULL);
	json_object_object_add(o, "target", fss_jstr(t, "path") ?
			       json_object_new_string(fss_jstr(t, "path")) : NULL);
	return o;
}

struct build {
	struct json_object *b_doc;
	const struct fss_diff_opts *o;
	struct json_object *tests;	/* array of per-test objects */
	struct json_object *only_a;
	int common, failed;
};

struct find {
	const char *key;
	struct json_object *found;
};

static int find_fn(const char *key, struct json_object *t, void *arg)
{
	struct find *f = arg;

	if (strcmp(key, f->key))
		return 0;
	f->found = t;
	return 1;
}

/* One row: series x statistic. */
static struct json_object *row_json(const char *series, const char *stat,
				    const struct fss_change *c, int *gate,
				    const struct fss_diff_opts *o)
{
	struct json_object *r = json_object_new_object(), *ci;
	double pct = c->a > 0 ? 100.0 * c->diff / c->a : NAN;
	const char *word = c->word > 0 ? "slower" : c->word < 0 ? "faster" :
			   "within noise";

	json_object_object_add(r, "series", json_object_new_string(series));
	json_object_object_add(r, "stat", json_object_new_string(stat));
	json_object_object_add(r, "a_us", fss_json_num(c->a / 1000, 3));
	json_object_object_add(r, "b_us", fss_json_num(c->b / 1000, 3));
	json_object_object_add(r, "change_us", fss_json_num(c->diff / 1000, 3));
	json_object_object_add(r, "change_pct", fss_json_num(pct, 2));
	ci = json_object_new_array();
	json_object_array_add(ci, fss_json_num(c->lo / 1000, 3));
	json_object_array_add(ci, fss_json_num(c->hi / 1000, 3));
	json_object_object_add(r, "ci95_us", ci);
	ci = json_object_new_array();
	json_object_array_add(ci, c->a > 0 ? fss_json_num(100.0 * c->lo / c->a, 2) : NULL);
	json_object_array_add(ci, c->a > 0 ? fss_json_num(100.0 * c->hi / c->a, 2) : NULL);
	json_object_object_add(r, "ci95_pct", ci);
	json_object_object_add(r, "verdict", json_object_new_string(word));
	*gate = 0;
	if (o->fail_if_slower_pct >= 0 && c->word > 0 && strcmp(stat, "mean") &&
	    (!strcmp(series, "total") || !strcmp(series, "op")) &&
	    c->a > 0 && 100.0 * c->lo / c->a > o->fail_if_slower_pct)
		*gate = 1;
	json_object_object_add(r, "gate_failed", o->fail_if_slower_pct >= 0 ?
			       json_object_new_boolean(*gate) : NULL);
	return r;
}

/* Rows of one series present in both tests' "hist"; 0 or -1 (absent). */
static int series_rows(struct build *b, struct json_object *ha,
		       struct json_object *hb, const char *series,
		       struct json_object *rows)
{
	static struct fss_hist x, y;
	size_t i;

	if (fss_hist_from_json(fss_j(ha, series), &x) ||
	    fss_hist_from_json(fss_j(hb, series), &y) || !x.count || !y.count)
		return -1;
	for (i = 0; i < sizeof(stats) / sizeof(stats[0]); i++) {
		struct fss_change c;
		int gate;

		if (fss_change_compute(&x, &y, stats[i].q, b->o->resamples,
				       b->o->seed, b->o->min_change_pct / 100,
				       b->o->min_change_us * 1000, &c))
			continue;
		json_object_array_add(rows, row_json(series, stats[i].name, &c,
						     &gate, b->o));
		b->failed += gate;
	}
	return 0;
}

static int test_fn(const char *key, struct json_object *ta, void *arg)
{
	struct build *b = arg;
	struct find f = { key, NULL };
	struct json_object *ha, *hb, *t, *rows;
	int ph;

	fss_doc_foreach_test(b->b_doc, find_fn, &f);
	if (!f.found) {
		json_object_array_add(b->only_a, json_object_new_string(key));
		return 0;
	}
	ha = fss_j(ta, "hist");
	hb = fss_j(f.found, "hist");
	if (!ha || !hb)
		return 0;	/* n/a in either: nothing to compare */
	b->common++;
	t = json_object_new_object();
	rows = json_object_new_array();
	json_object_object_add(t, "test", json_object_new_string(key));
	json_object_object_add(t, "a_count", json_object_new_int64(
		fss_jint(fss_j(ha, fss_j(ha, "total") && fss_j(hb, "total") ?
			       "total" : "op"), "count", 0)));
	json_object_object_add(t, "b_count", json_object_new_int64(
		fss_jint(fss_j(hb, fss_j(ha, "total") && fss_j(hb, "total") ?
			       "total" : "op"), "count", 0)));
	/* the traced sync totals when both sides have them, else per op */
	if (series_rows(b, ha, hb, "total", rows))
		series_rows(b, ha, hb, "op", rows);
	for (ph = 0; ph < FSS_PH_MAX; ph++)
		series_rows(b, ha, hb, fss_phase_name(ph), rows);
	json_object_object_add(t, "rows", rows);
	json_object_array_add(b->tests, t);
	return 0;
}

static int collect_fn(const char *key, struct json_object *t, void *arg)
{
	struct find f = { key, NULL };
	struct json_object **pair = arg;

	fss_doc_foreach_test(pair[0], find_fn, &f);
	if (!f.found)
		json_object_array_add(pair[1], json_object_new_string(key));
	return 0;
}

static struct json_object *method_json(const struct fss_diff_opts *o)
{
	struct json_object *m = json_object_new_object();

	json_object_object_add(m, "ci", fss_json_num(0.95, 2));
	json_object_object_add(m, "bootstrap", json_object_new_string(
		"Poisson bootstrap over histogram buckets (" FSS_HIST_SCHEME "), "
		"percentile interval of B - A"));
	json_object_object_add(m, "resamples", json_object_new_int(o->resamples));
	json_object_object_add(m, "seed", json_object_new_uint64(o->seed));
	json_object_object_add(m, "min_change_pct", fss_json_num(o->min_change_pct, 2));
	json_object_object_add(m, "min_change_us", fss_json_num(o->min_change_us, 3));
	json_object_object_add(m, "fail_if_slower_pct", o->fail_if_slower_pct >= 0 ?
			       fss_json_num(o->fail_if_slower_pct, 2) : NULL);
	return m;
}

struct json_object *fss_diff_build(struct json_object *a, const char *a_path,
				   struct json_object *b, const char *b_path,
				   const struct fss_diff_opts *o,
				   char *err, size_t errlen)
{
	const char *ka = fss_doc_kind(a), *kb = fss_doc_kind(b);
	struct build bd = { .b_doc = b, .o = o };
	struct json_object *doc, *only_b, *pair[2];

	if (strcmp(ka, kb)) {
		snprintf(err, errlen, "%s is a %s result, %s a %s result: diff "
			 "compares two results of one kind", a_path, ka, b_path, kb);
		fss_err_oneline(err);
		return NULL;
	}
	if (strcmp(ka, "run") && strcmp(ka, "compare") && strcmp(ka, "trace")) {
		snprintf(err, errlen, "diff compares run, compare or trace results, not "
			 "%s", ka);
		return NULL;
	}
	doc = json_object_new_object();
	fss_doc_stamp(doc, "diff");
	json_object_object_add(doc, "of", json_object_new_string(ka));
	json_object_object_add(doc, "a", side_json(a, a_path));
	json_object_object_add(doc, "b", side_json(b, b_path));
	json_object_object_add(doc, "method", method_json(o));
	bd.tests = json_object_new_array();
	bd.only_a = json_object_new_array();
	only_b = json_object_new_array();
	fss_doc_foreach_test(a, test_fn, &bd);
	pair[0] = a;
	pair[1] = only_b;
	fss_doc_foreach_test(b, collect_fn, pair);
	json_object_object_add(doc, "tests", bd.tests);
	json_object_object_add(doc, "only_in_a", bd.only_a);
	json_object_object_add(doc, "only_in_b", only_b);
	json_object_object_add(doc, "gate_failures", json_object_new_int(bd.failed));
	if (!bd.common) {
		snprintf(err, errlen, "%s and %s have no measured test in common%s",
			 a_path, b_path, fss_j(a, "tests") ? "" : "");
		json_object_put(doc);
		return NULL;
	}
	return doc;
}

int fss_diff_failed(struct json_object *diff)
{
	return (int)fss_jint(diff, "gate_failures", 0);
}
