// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * out_text_findings.c - the FINDINGS block of a run or trace text, from
 * the document's "findings" (findings/findings.h made them; this file
 * only prints): most important first, each with its evidence, what to do
 * and where that is documented; a healthy result is one line.
 */
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include "doc/doc.h"
#include "lib/fmt.h"
#include "render/render.h"

static void one(FILE *f, struct json_object *x)
{
	struct json_object *refs = fss_j(x, "refs");
	const char *sev = fss_jstr(x, "severity") ?: "info";
	long long also = fss_jint(x, "also_in", 0);
	struct json_object *ref0 = refs && fss_jlen(refs) ?
				   fss_jidx(refs, 0) : NULL;
	char lead[32], buf[2048];
	size_t n = 0;

	snprintf(lead, sizeof(lead), "  %-8s ", !strcmp(sev, "critical") ?
		 "CRITICAL" : !strcmp(sev, "warning") ? "WARNING" : "info");
	if (!strcmp(sev, "info")) {	/* a note: one line, details in JSON */
		snprintf(buf, sizeof(buf), "%s (%s; %s)",
			 fss_jstr(x, "title") ?: "?",
			 fss_jstr(x, "subject") ?: "?",
			 ref0 ? json_object_get_string(ref0) :
			 "docs/findings.md");
		fss_print_wrapped(f, lead, 11, buf);
		return;
	}
	fss_print_wrapped(f, lead, 11, fss_jstr(x, "title") ?: "?");
	snprintf(buf, sizeof(buf), "%s", fss_jstr(x, "subject") ?: "?");
	if (also > 0)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 " (the worst; %lld more like it)", also);
	fss_print_wrapped(f, "           in:       ", 21, buf);
	fss_print_wrapped(f, "           evidence: ", 21,
			  fss_jstr(x, "evidence") ?: "n/a");
	fss_print_wrapped(f, "           advice:   ", 21,
			  fss_jstr(x, "advice") ?: "n/a");
	buf[0] = 0;
	for (size_t i = 0; refs && i < fss_jlen(refs); i++)
		n += snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? ", " : "",
			      json_object_get_string(
				      fss_jidx(refs, i)));
	if (buf[0])
		fss_print_wrapped(f, "           see:      ", 21, buf);
}

void fss_text_findings(FILE *f, struct json_object *doc)
{
	struct json_object *a = fss_j(doc, "findings"), *x;
	size_t n = a && json_object_is_type(a, json_type_array) ?
		   fss_jlen(a) : 0;
	char buf[512];

	if (!n)
		return;
	x = fss_jidx(a, 0);
	if (!strcmp(fss_jstr(x, "severity") ?: "", "info")) {
		/* healthy: its line, then the notes, if any, a line each */
		snprintf(buf, sizeof(buf), "%s%s", fss_jstr(x, "title") ?: "?",
			 n > 1 ? "; notes:" : ".");
		fss_print_wrapped(f, "FINDINGS: ", 10, buf);
		for (size_t i = 1; i < n; i++)
			one(f, fss_jidx(a, i));
		return;
	}
	fprintf(f, "FINDINGS (%zu, most important first; "
		"docs/findings.md)\n", n);
	for (size_t i = 0; i < n; i++)
		one(f, fss_jidx(a, i));
}
