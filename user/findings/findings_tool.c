// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * findings_tool.c - the rules about what the tool itself did not see
 * (events lost, syncs cut short, layers not traced), so that no finding
 * rests on data the tool missed without saying so (docs/findings.md).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include "doc/doc.h"
#include "findings/findings_int.h"

#define REF "docs/findings.md"

/* tests[].syncs_summarized added up (fss_doc_foreach_test) */
static int summ_fn(const char *key, struct json_object *t, void *arg)
{
	(void)key;
	*(double *)arg += (double)fss_jint(t, "syncs_summarized", 0);
	return 0;
}

static void lost(struct fnd_list *l, double n, const char *where,
		 double summarized)
{
	struct fnd_subj s = { .name = where };
	struct fnd *f = fnd_add(l, FSS_SEV_WARNING, "events_lost", NULL, 1.0,
				&s);

	if (!f)
		return;
	FND_SET(f, title, "%.0f trace events were lost: the "
		"numbers below under-count what they miss", n);
	if (summarized > 0)
		FND_SET(f, evidence, "%.0f events of %s did not reach user "
			"space (ring buffer full). %.0f syncs were summarized "
			"in the kernel instead: counted, with their total "
			"times, but without a breakdown or blame; the phases "
			"cover the syncs traced in full.", n, where,
			summarized);
	else
		FND_SET(f, evidence, "%.0f events of %s did not reach user "
			"space (ring buffer full); the syncs and requests "
			"they carried are missing from the breakdown and the "
			"blame.", n, where);
	fnd_fig(f, "events_lost", n);
	fnd_fig(f, "syncs_summarized", summarized);
	FND_SET(f, advice, "Trace less at once: filter by "
		"process, comm or mount (-p, -c, --mount), trace fewer "
		"seconds, or leave --events off; then compare the findings.");
	f->refs[0] = REF "#events_lost";
	f->refs[1] = "docs/model.md";
}

struct inc_walk {
	struct fnd_list *l;
};

static int incomplete_fn(const char *key, struct json_object *t, void *arg)
{
	struct inc_walk *w = arg;
	double n = (double)fss_jint(t, "syncs_incomplete", 0);
	double syncs = (double)fss_jint(t, "syncs_traced", 0);
	long long rqs = fss_jint(t, "incomplete_rqs", 0);
	struct fnd_subj s;
	char name[160];
	struct fnd *f;

	if (!(syncs > 0) || n < FSS_FIND_INCOMPLETE_SHARE * syncs)
		return 0;
	snprintf(name, sizeof(name), "test %s", key);
	s = (struct fnd_subj){ .name = name };
	f = fnd_add(w->l, FSS_SEV_INFO, "syncs_incomplete", NULL, n / syncs,
		    &s);
	if (!f)
		return 0;
	FND_SET(f, title, "%.1f %% of the traced syncs lack "
		"some of their requests", 100 * n / syncs);
	FND_SET(f, evidence, "%.0f of %.0f syncs of %s were "
		"painted without all their requests (%lld request%s never "
		"completed in the window).", n, syncs, name, rqs,
		rqs == 1 ? "" : "s");
	fnd_fig(f, "syncs_incomplete", n);
	fnd_fig(f, "syncs", syncs);
	FND_SET(f, advice, "Their device phases are short by "
		"what is missing; a longer test makes the edge of the window "
		"matter less.");
	f->refs[0] = REF "#syncs_incomplete";
	f->refs[1] = "docs/model.md";
	return 0;
}

static void layer_na(struct fnd_list *l, const char *layer, const char *why)
{
	struct fnd_subj s = { .name = "the tracer" };
	char key[64];
	struct fnd *f;

	snprintf(key, sizeof(key), "layer_na:%s", layer);
	f = fnd_add(l, FSS_SEV_INFO, "layer_na", key, 0.5, &s);
	if (!f)
		return;
	FND_SET(f, title, "The %s layer was not traced", layer);
	FND_SET(f, evidence, "%s: %s.", layer,
		why ? why : "n/a");
	fnd_figs(f, "layer", layer);
	FND_SET(f, advice, "Its time shows in a lower phase "
		"(%s), and no rule about it can fire; 'fsyncscope check' and "
		"-v "
		"say why it did not load.", !strcmp(layer, "journal") ?
		"fs or other" : "other");
	f->refs[0] = REF "#layer_na";
	f->refs[1] = "docs/model.md";
}

static void run_layers(struct fnd_list *l, struct json_object *doc)
{
	static const char *const layers[] = {
		"sync", "fs", "journal", "block"
	};
	struct json_object *ly = fss_j(fss_j(doc, "strategy"), "layers");

	if (!ly)
		return;
	for (size_t i = 0; i < sizeof(layers) / sizeof(layers[0]); i++) {
		struct json_object *x = fss_j(ly, layers[i]);

		if (x && !fss_jstr(x, "hooks"))
			layer_na(l, layers[i], fss_jstr(x, "detail"));
	}
}

void fnd_rule_tool(struct fnd_list *l, struct json_object *doc)
{
	const char *kind = fss_doc_kind(doc);
	struct inc_walk w = { .l = l };
	double n;

	if (kind && !strcmp(kind, "trace")) {
		n = (double)fss_jint(doc, "events_lost", 0);
		if (n > 0)
			lost(l, n, "this trace", (double)fss_jint(doc,
			     "syncs_summarized", 0));
		if (fss_j(doc, "journal_traced") &&
		    !json_object_get_boolean(fss_j(doc, "journal_traced")))
			layer_na(l, "journal", "no journal hook loaded");
		return;
	}
	n = (double)fss_jint(doc, "drops", 0);
	if (kind && !strcmp(kind, "compare")) {	/* each filesystem's */
		struct json_object *fa = fss_j(doc, "filesystems");
		size_t nfs = fa && json_object_is_type(fa, json_type_array) ?
			     json_object_array_length(fa) : 0;

		for (size_t i = 0; i < nfs; i++)
			n += (double)fss_jint(json_object_array_get_idx(fa, i),
					      "drops", 0);
	}
	if (n > 0) {
		double summ = 0;

		fss_doc_foreach_test(doc, summ_fn, &summ);
		lost(l, n, kind && !strcmp(kind, "compare") ? "this compare" :
		     "this run", summ);
	}
	fss_doc_foreach_test(doc, incomplete_fn, &w);
	run_layers(l, doc);
}
