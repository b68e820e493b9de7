// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * findings.c - the findings engine (findings.h, docs/findings.md): the
 * subjects of a document (run tests, a trace record's traced syncs), the
 * list the rules fill, the healthy line, the order and the JSON.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "doc/doc.h"
#include "findings/findings_int.h"

const char *fss_find_sev_name(enum fss_find_sev s)
{
	return s == FSS_SEV_CRITICAL ? "critical" :
	       s == FSS_SEV_WARNING ? "warning" : "info";
}

/* The phases of a run test's "breakdown" or a trace record's "phases". */
static void subj_phases(struct fnd_subj *s, struct json_object *ph)
{
	for (int p = 0; p < NPH; p++) {
		struct json_object *o = fss_j(ph, fss_phase_name(p));

		s->share[p] = fss_jnum(o, "share");
		s->mean_us[p] = fss_jnum(o, "mean_us");
	}
}

/*
 * The target a test ran on: the run's, or in a compare document its
 * filesystem's (the entry of "filesystems" whose fs is the test's).
 */
static struct json_object *test_target(struct json_object *doc,
				       struct json_object *t, const char **wc)
{
	struct json_object *fa = fss_j(doc, "filesystems");
	const char *fs = fss_jstr(t, "fs");

	*wc = fss_jstr(fss_j(doc, "target"), "write_cache");
	if (!fa || !fs || !json_object_is_type(fa, json_type_array))
		return fss_j(doc, "target");
	for (size_t i = 0; i < json_object_array_length(fa); i++) {
		struct json_object *x = json_object_array_get_idx(fa, i);

		if (!strcmp(fss_jstr(x, "fs") ?: "", fs)) {
			*wc = fss_jstr(x, "write_cache");
			return fss_j(x, "target");
		}
	}
	return NULL;
}

static void subj_run(struct fnd_subj *s, struct json_object *doc,
		     struct json_object *t, const char *name)
{
	const char *wc;
	struct json_object *tg = test_target(doc, t, &wc);

	memset(s, 0, sizeof(*s));
	s->name = name;
	s->doc = doc;
	s->obj = t;
	s->syncs = (double)fss_jint(t, "syncs_traced", 0);
	s->sfr = (double)fss_jint(fss_j(t, "syncs_by_kind"),
				  "sync_file_range", 0);
	subj_phases(s, fss_j(t, "breakdown"));
	s->flush_p50_us = fss_jnum(fss_j(fss_j(t, "breakdown"), "device_flush"),
				   "p50_us");
	s->total_mean_us = fss_jnum(fss_j(t, "breakdown_total"), "mean_us");
	s->total_p50_us = fss_jnum(fss_j(t, "breakdown_total"), "p50_us");
	s->fs = fss_jstr(tg, "fstype");
	s->disk = fss_jstr(tg, "disk");
	s->write_cache = fss_jstr(tg, "write_cache") ?: wc;
}

struct run_walk {
	struct fnd_list *l;
	struct json_object *doc;
	double syncs;		/* traced, over every test */
};

static int run_test_fn(const char *key, struct json_object *t, void *arg)
{
	struct run_walk *w = arg;
	struct json_object *fl = fss_j(t, "flush"), *tg;
	struct fnd_subj s;
	const char *wc;
	char name[160];

	if (!fss_j(t, "breakdown") || fss_jint(t, "syncs_traced", 0) <= 0)
		return 0;
	snprintf(name, sizeof(name), "test %s", key);
	subj_run(&s, w->doc, t, name);
	w->syncs += s.syncs;
	fnd_rule_phases(w->l, &s);
	fnd_rule_flush_slow(w->l, &s);
	tg = test_target(w->doc, t, &wc);
	fnd_rule_flush_missing(w->l, &s,
			       (double)fss_jint(fl, "syncs_no_flush", 0),
			       (double)fss_jint(fl, "elided", 0),
			       fss_jstr(tg, "mount_options"));
	fnd_rule_neighbour_run(w->l, &s);
	return 0;
}

/* The syncs of one kind in a trace record's kinds[]. */
static double kind_syncs(struct json_object *doc, const char *kind)
{
	struct json_object *k = fss_j(doc, "kinds");
	size_t n = k && json_object_is_type(k, json_type_array) ?
		   json_object_array_length(k) : 0;

	for (size_t i = 0; i < n; i++) {
		struct json_object *x = json_object_array_get_idx(k, i);

		if (!strcmp(fss_jstr(x, "kind") ?: "", kind))
			return (double)fss_jint(x, "syncs", 0);
	}
	return 0;
}

/* The one device of a trace record the syncs went to, when there is one. */
static struct json_object *trace_one_dev(struct json_object *doc)
{
	struct json_object *d = fss_j(doc, "devices");

	return d && json_object_is_type(d, json_type_array) &&
	       json_object_array_length(d) == 1 ?
	       json_object_array_get_idx(d, 0) : NULL;
}

static void trace_rules(struct fnd_list *l, struct json_object *doc)
{
	struct json_object *all = fss_j(doc, "all");
	struct json_object *devs = fss_j(doc, "devices");
	struct json_object *one = trace_one_dev(doc);
	struct fnd_subj s = { .name = "all traced syncs", .doc = doc,
			      .obj = all, .trace = true };
	size_t n = devs && json_object_is_type(devs, json_type_array) ?
		   json_object_array_length(devs) : 0;

	s.syncs = (double)fss_jint(all, "syncs", 0);
	s.sfr = kind_syncs(doc, "sync_file_range");
	subj_phases(&s, fss_j(all, "phases"));
	s.flush_p50_us = s.mean_us[PH_DFLUSH];
	s.total_mean_us = fss_jnum(all, "mean_us");
	s.total_p50_us = fss_jnum(all, "p50_us");
	s.fs = one ? fss_jstr(one, "fs") : NULL;
	s.disk = one ? fss_jstr(one, "disk") : NULL;
	s.write_cache = one ? fss_jstr(one, "write_cache") : NULL;
	fnd_rule_phases(l, &s);
	fnd_rule_flush_slow(l, &s);
	fnd_rule_neighbour_trace(l, &s);
	fnd_rule_checkpoints(l, &s);
	fnd_rule_log_flush(l, &s);
	fnd_rule_wal_serial(l, &s);
	fnd_rule_innodb_split(l, &s);
	for (size_t i = 0; i < n; i++) {
		struct json_object *d = json_object_array_get_idx(devs, i);
		bool elided = json_object_get_boolean(fss_j(d, "flush_elided"));
		struct fnd_subj ds = s;
		char name[96];

		snprintf(name, sizeof(name), "syncs on %s (%s)",
			 fss_jstr(d, "disk") ?: "?", fss_jstr(d, "dev") ?: "?");
		ds.name = name;
		ds.obj = d;
		ds.syncs = (double)fss_jint(d, "syncs", 0);
		/* by_kind since findings came; before, every one counted */
		ds.sfr = (double)fss_jint(fss_j(d, "by_kind"),
					  "sync_file_range", 0);
		ds.fs = fss_jstr(d, "fs");
		ds.disk = fss_jstr(d, "disk");
		ds.write_cache = fss_jstr(d, "write_cache");
		fnd_rule_flush_missing(l, &ds,
				       (double)fss_jint(d, "syncs_no_flush", 0),
				       elided ? ds.syncs : 0, NULL);
	}
}

/* Traced syncs in the document: the trace record's, or every run test's. */
static double doc_syncs(struct json_object *doc, bool trace, double run_syncs)
{
	return trace ? (double)fss_jint(fss_j(doc, "all"), "syncs", 0) :
		       run_syncs;
}

/* No warning: one info line that says so (first), with what was judged. */
static void healthy(struct fnd_list *l, struct json_object *doc, bool trace,
		    double syncs)
{
	struct fnd_subj s = {
		.name = trace ? "all traced syncs" : "every test"
	};
	struct fnd *f;

	for (int i = 0; i < l->n; i++)
		if (l->v[i].sev > FSS_SEV_INFO)
			return;
	f = fnd_add(l, FSS_SEV_INFO, syncs > 0 ? "healthy" : "nothing_traced",
		    NULL, 2.0, &s);
	if (!f)
		return;
	fnd_fig(f, "syncs", syncs);
	f->refs[0] = "docs/findings.md";
	if (syncs <= 0) {
		bool off = !trace && !json_object_get_boolean(
			fss_j(fss_j(doc, "options"), "trace"));

		FND_SET(f, title, "Nothing to judge: no sync was traced%s",
			off ? " (--no-trace)" : "");
		FND_SET(f, evidence, "0 traced syncs");
		FND_SET(f, advice, "Trace the syncs (run "
			"without --no-trace; trace with filters that match a "
			"syncing process) to get findings.");
		return;
	}
	FND_SET(f, title, "No problem found in %.0f traced "
		"sync%s", syncs, syncs == 1 ? "" : "s");
	FND_SET(f, evidence, "No rule of docs/findings.md "
		"fired on %.0f traced syncs.", syncs);
	FND_SET(f, advice, "Nothing to change.");
}

static int fnd_cmp(const void *a, const void *b)
{
	const struct fnd *x = a, *y = b;

	if (x->sev != y->sev)
		return x->sev > y->sev ? -1 : 1;
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return strcmp(x->key, y->key);
}

static struct json_object *fnd_json(struct fnd *f)
{
	struct json_object *o = json_object_new_object(), *r;

	json_object_object_add(o, "id", json_object_new_string(f->id));
	json_object_object_add(o, "severity", json_object_new_string(
				fss_find_sev_name(f->sev)));
	json_object_object_add(o, "subject", json_object_new_string(
				f->subject));
	json_object_object_add(o, "title", json_object_new_string(f->title));
	json_object_object_add(o, "evidence", json_object_new_string(
				f->evidence));
	json_object_object_add(o, "advice", json_object_new_string(f->advice));
	r = json_object_new_array();
	for (int i = 0; i < 3 && f->refs[i]; i++)
		json_object_array_add(r, json_object_new_string(f->refs[i]));
	json_object_object_add(o, "refs", r);
	json_object_object_add(o, "figures", f->figures);
	f->figures = NULL;
	json_object_object_add(o, "also_in", json_object_new_int(f->also));
	return o;
}

static bool has_findings(struct json_object *doc, bool *trace)
{
	const char *kind = fss_doc_kind(doc), *type = fss_jstr(doc, "type");

	*trace = kind && !strcmp(kind, "trace");
	if (kind && (!strcmp(kind, "run") || !strcmp(kind, "compare")))
		return true;
	return *trace && type && (!strcmp(type, "interval") ||
				  !strcmp(type, "summary"));
}

struct json_object *fss_findings(struct json_object *doc)
{
	struct fnd_list l = { 0 };
	struct json_object *a;
	struct run_walk w = { .l = &l, .doc = doc };
	bool trace;

	if (!doc || !has_findings(doc, &trace))
		return NULL;
	fnd_rule_tool(&l, doc);
	if (trace)
		trace_rules(&l, doc);
	else
		fss_doc_foreach_test(doc, run_test_fn, &w);
	healthy(&l, doc, trace, doc_syncs(doc, trace, w.syncs));
	qsort(l.v, l.n, sizeof(*l.v), fnd_cmp);
	a = json_object_new_array();
	for (int i = 0; i < l.n; i++)
		json_object_array_add(a, fnd_json(&l.v[i]));
	free(l.v);
	return a;
}

struct json_object *fss_findings_attach(struct json_object *doc)
{
	static const char *const head[] = {
		"schema", "schema_version", "type"
	};
	struct json_object *fa = fss_findings(doc), *o, *v;

	if (!fa)
		return doc;
	o = json_object_new_object();
	for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		if (json_object_object_get_ex(doc, head[i], &v))
			json_object_object_add(o, head[i], json_object_get(v));
	json_object_object_add(o, "findings_version",
			       json_object_new_int(FSS_FINDINGS_VERSION));
	json_object_object_add(o, "findings", fa);
	json_object_object_foreach(doc, k, val) {
		if (!json_object_object_get_ex(o, k, NULL))
			json_object_object_add(o, k, json_object_get(val));
	}
	json_object_put(doc);
	return o;
}
