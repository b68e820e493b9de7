// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * out_text_db.c - FILE CLASSES and CHECKPOINTS of trace's plain text,
 * read from the document only (keys "classes", "checkpoints",
 * "roles_note"; docs/databases.md).  A trace that saw no database file
 * gets neither section.
 */
#include <stdbool.h>
#include <string.h>
#include <json-c/json.h>
#include "doc/doc.h"
#include "lib/fmt.h"
#include "lib/phase.h"
#include "render/render.h"

#define NPH FSS_PH_MAX

static void print_shares(FILE *f, struct json_object *g)
{
	struct json_object *ph = fss_j(g, "phases");
	double total = fss_jnum(g, "total_ns");

	for (int p = 0; p < NPH; p++) {
		double ns = fss_jnum(fss_j(ph, fss_phase_name(p)), "ns");

		fprintf(f, " %3.0f", total > 0 ? 100.0 * ns / total : 0.0);
	}
	fprintf(f, "\n");
}

static void print_phase_header(FILE *f)
{
	for (int p = 0; p < NPH; p++)
		fprintf(f, " %3s", fss_phase_abbr(p));
	fprintf(f, "\n");
}

/* a value in us in a 7-column cell: "n/a" when null */
static void cell_us(FILE *f, struct json_object *g, const char *key)
{
	struct json_object *v = fss_j(g, key);

	if (!v)
		fprintf(f, " %7s", "n/a");
	else if (json_object_get_double(v) < 9999999.5)
		fprintf(f, " %7.0f", json_object_get_double(v));
	else
		fprintf(f, " %6.0fs", json_object_get_double(v) / 1e6);
}

/* does any class belong to a database? */
static bool any_db(struct json_object *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fss_jstr(fss_jidx(a, i), "db"))
			return true;
	return false;
}

static void classes(FILE *f, struct json_object *a)
{
	size_t n = a ? fss_jlen(a) : 0;

	if (!any_db(a, n))	/* no database's files: nothing to add */
		return;
	fprintf(f, "\nFILE CLASSES (databases' files by role; "
		"docs/databases.md)\n");
	fprintf(f, "%-23s %6s %8s %7s %7s", "CLASS", "SYNCS", "TOTAL_s",
		"P50_us", "P99_us");
	print_phase_header(f);
	for (size_t i = 0; i < n; i++) {
		struct json_object *g = fss_jidx(a, i);

		fprintf(f, "%-23.23s %6lld %8.3f", fss_jstr(g, "label"),
			fss_jint(g, "syncs", 0), fss_jnum(g, "total_ns") / 1e9);
		cell_us(f, g, "p50_us");
		cell_us(f, g, "p99_us");
		print_shares(f, g);
	}
}

static void checkpoints(FILE *f, struct json_object *a)
{
	size_t n = a ? fss_jlen(a) : 0;

	if (!n)
		return;
	fprintf(f, "\nCHECKPOINTS (checkpointer's sync phase; cf. "
		"log_checkpoints \"sync files=\")\n");
	fprintf(f, "%-8s %7s %5s %5s %7s %7s %7s", "START", "PID", "FILES",
		"SYNCS", "SECS", "LONG_s", "AVG_s");
	print_phase_header(f);
	for (size_t i = 0; i < n; i++) {
		struct json_object *c = fss_jidx(a, i);
		const char *start = fss_jstr(c, "start");
		const char *t = start ? strchr(start, 'T') : NULL;

		fprintf(f, "%-8.8s %7lld %5lld %5lld %7.3f %7.3f %7.3f",
			t ? t + 1 : "?", fss_jint(c, "pid", 0),
			fss_jint(c, "files", 0), fss_jint(c, "syncs", 0),
			fss_jnum(c, "seconds"), fss_jnum(c, "longest_us") / 1e6,
			fss_jnum(c, "average_us") / 1e6);
		print_shares(f, c);
		if (!json_object_get_boolean(fss_j(c, "complete")))
			fprintf(f, "  (no checkpoint record flush seen: "
				"cut short)\n");
	}
}

void fss_text_db_sections(FILE *f, struct json_object *report)
{
	const char *note = fss_jstr(report, "roles_note");

	classes(f, fss_j(report, "classes"));
	checkpoints(f, fss_j(report, "checkpoints"));
	if (note)
		fss_print_wrapped(f, "note: ", 6, note);
}
