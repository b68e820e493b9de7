// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * out_html_findings.c - the findings of a run or trace page, first on it
 * (docs/findings.md): a list from the document's "findings", each with
 * its severity, evidence, advice and references; a healthy result is one
 * line.  Only reads the document.
 */
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include "doc/doc.h"
#include "render/render.h"
#include "render/out_svg.h"

static void esc(FILE *f, const char *s)
{
	svg_esc(f, s ? s : "n/a");
}

static const char *colour(const char *sev)
{
	return !strcmp(sev, "critical") ? "#b00020" :
	       !strcmp(sev, "warning") ? "#D55E00" : "#0072B2";
}

static void item(FILE *f, struct json_object *x)
{
	const char *sev = fss_jstr(x, "severity") ?: "info";
	struct json_object *refs = fss_j(x, "refs");

	fprintf(f, "<li class=\"finding\" data-id=\"");
	esc(f, fss_jstr(x, "id"));
	fprintf(f, "\" data-severity=\"%s\" style=\"border-left:4px solid %s;"
		"padding:.3em .8em;margin:.4em 0;list-style:none\">"
		"<strong>%s</strong> ", sev, colour(sev),
		!strcmp(sev, "critical") ? "CRITICAL" :
		!strcmp(sev, "warning") ? "WARNING" : "info");
	esc(f, fss_jstr(x, "title"));
	fputs("<br><span class=\"note\">in ", f);
	esc(f, fss_jstr(x, "subject"));
	if (fss_jint(x, "also_in", 0) > 0)
		fprintf(f, " (the worst; %lld more like it)",
			fss_jint(x, "also_in", 0));
	fputs("</span><br><b>Evidence:</b> ", f);
	esc(f, fss_jstr(x, "evidence"));
	fputs("<br><b>What to do:</b> ", f);
	esc(f, fss_jstr(x, "advice"));
	for (size_t i = 0; refs && i < fss_jlen(refs); i++) {
		fputs(i ? ", " : "<br><span class=\"note\">See ", f);
		esc(f, json_object_get_string(
			    fss_jidx(refs, i)));
	}
	fputs(refs && fss_jlen(refs) ? "</span></li>\n" :
	      "</li>\n", f);
}

void fss_html_findings(FILE *f, struct json_object *doc)
{
	struct json_object *a = fss_j(doc, "findings");
	size_t n = a && json_object_is_type(a, json_type_array) ?
		   fss_jlen(a) : 0;

	if (!n)
		return;
	fputs("<section id=\"findings\"><h2>Findings</h2>\n"
	      "<ul style=\"padding:0\">\n", f);
	for (size_t i = 0; i < n; i++)
		item(f, fss_jidx(a, i));
	fputs("</ul></section>\n", f);
}
