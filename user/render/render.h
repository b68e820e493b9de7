/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * render.h - renderers over a result document (doc.h) and nothing else:
 * json, html, csv, and the text of a diff / the --hist view.  Each takes
 * the tree and a FILE; none knows the tracer or the workload.
 */
#ifndef __FSS_RENDER_H
#define __FSS_RENDER_H

#include <stdbool.h>
#include <stdio.h>
#include "doc/doc.h"
#include "doc/events.h"

struct json_object;

struct fss_render_opts {
	const char *events_path;	/* per-sync JSON lines (run --events) */
	int hist;			/* text: add the --hist view */
	size_t max_syncs;		/* perfetto: the first N (0: default) */
	const char *lines_path;		/* text of a trace: the JSON Lines file
					 * doc came from, every record of it */
	/*
	 * Each record of lines_path goes through this first (NULL: as
	 * read); it takes the record and returns the one to print.
	 * report: the findings of a record saved without them.
	 */
	struct json_object *(*record)(struct json_object *o);
};

#define FSS_PERFETTO_MAX_SYNCS	50000

/*
 * Render doc as fmt to f.  Returns 0, or -1 with one line in err (the
 * format does not apply to this kind, the events file is unreadable...).
 */
int fss_render(struct json_object *doc, enum fss_fmt fmt, FILE *f,
	       const struct fss_render_opts *ro, char *err, size_t errlen);

/*
 * What a command does with its finished result document: render it as fmt
 * to path (NULL or "-": stdout; else whole or not at all).  Puts doc.
 * Returns 0; 2 when path cannot be created or fmt does not apply to this
 * result (bad input); 1 when writing failed; each after one line on stderr.
 */
int fss_emit(struct json_object *doc, enum fss_fmt fmt, const char *path,
	     const struct fss_render_opts *ro);

/*
 * Text output to -o FILE: stdout itself is sent to a temporary file next
 * to FILE from begin on, and renamed over FILE by end(ok) (removed when
 * !ok).  Both return 0, or 1 after one line on stderr.
 */
int fss_stdout_to_begin(const char *path);
int fss_stdout_to_end(bool ok);

/* out_html_findings.c: the document's findings, first on its page */
void fss_html_findings(FILE *f, struct json_object *doc);

/* The renderers behind it. */
int fss_render_html(struct json_object *doc, FILE *f,
		    const struct fss_render_opts *ro, char *err, size_t errlen);
int fss_render_csv(struct json_object *doc, FILE *f,
		   const struct fss_render_opts *ro, char *err, size_t errlen);
int fss_render_text(struct json_object *doc, FILE *f,
		    const struct fss_render_opts *ro, char *err, size_t errlen);
/*
 * The plain text of a run result, in parts (run prints the header before
 * the tests, the body once the document is complete) and whole (report).
 * Footnotes are kept per section in c.
 */
struct fss_text_run {
	FILE *f;
	char notes[16][256];
	int nnotes;
};
void fss_text_run_header(FILE *f, struct json_object *doc);
void fss_text_run_section(struct fss_text_run *c, const char *title,
			  const char *note);
void fss_text_run_row(struct fss_text_run *c, struct json_object *test, bool hist);
void fss_text_run_section_end(struct fss_text_run *c);
/* A sweep's Little's-law table: its "little" object, or an old "sweep". */
void fss_text_run_little(FILE *f, struct json_object *little);
void fss_text_run_verdict(FILE *f, struct json_object *doc);
/* all of the text after the header: findings, rows, sweep, verdict */
void fss_text_run_body(FILE *f, struct json_object *doc, bool hist);
int fss_text_run(FILE *f, struct json_object *doc, bool hist);

/* A traced test's breakdown (its "breakdown", "flush"... keys), indented. */
void fss_text_breakdown(FILE *f, struct json_object *test, int indent);
/*
 * Overload by design (docs/hotpath.md): the syncs an "overload" object
 * counts as summarized in the kernel, why, their totals (log2 bucket upper
 * bounds; the max too when with_max) and what "covers" the syncs traced
 * in full.  Quiet when none was.
 */
void fss_text_overload(FILE *f, int indent, struct json_object *o,
		       bool with_max, const char *covers);
/* The plain text of a devices result (--probe too): what devices prints. */
int fss_text_devices(FILE *f, struct json_object *doc, char *err, size_t errlen);
/* Its table of devices, from a "devices" array. */
void fss_text_devices_table(FILE *f, struct json_object *arr);
/* The plain text of a check result (out_text_check.c). */
int fss_text_check(FILE *f, struct json_object *doc);
/* out_text_trace.c: trace's interval or summary, from its document */
int fss_text_trace(FILE *f, struct json_object *doc);
/*
 * What trace printed, from its JSON Lines at path (--save, -j): the
 * --slower header, every interval, --slower sync and the summary, in
 * order, each record through record() first when it is not NULL.  1: path
 * is not JSON Lines (one document: render doc alone).
 */
int fss_text_trace_lines(FILE *f, const char *path,
			 struct json_object *(*record)(struct json_object *));
/* out_text_trace.c: a --slower sync of trace from its "sync" record */
void fss_text_trace_sync(FILE *f, struct json_object *sync);
/* out_text_db.c: FILE CLASSES and CHECKPOINTS of a trace interval or
 * summary (docs/databases.md); nothing when it saw no database file */
void fss_text_db_sections(FILE *f, struct json_object *report);

/*
 * out_text_findings.c: the FINDINGS block of a document's "findings"
 * (run, trace interval / summary); one line when healthy, nothing when
 * the document has none.
 */
void fss_text_findings(FILE *f, struct json_object *doc);

/* The --hist view of one test object (its "hist"), indented. */
void fss_text_hists(FILE *f, struct json_object *test, int indent);

/*
 * The plain text of a compare result, in parts (compare prints the header
 * before anything runs, the body once the document is complete) and whole
 * (report).  fs: one entry of the document's "filesystems".
 */
void fss_text_compare_header(FILE *f, struct json_object *doc);
void fss_text_compare_fs(FILE *f, struct json_object *doc, struct json_object *fs);
void fss_text_compare_results(FILE *f, struct json_object *doc, bool hist);
/* after the header: findings, a line per filesystem, tables, notes */
void fss_text_compare_body(FILE *f, struct json_object *doc, bool hist);
int fss_text_compare(FILE *f, struct json_object *doc, bool hist);
/* The plain text of a diff document. */
void fss_text_diff(FILE *f, struct json_object *doc);

/* Chrome JSON trace (ui.perfetto.dev, chrome://tracing) from ro->events_path. */
int fss_render_perfetto(struct json_object *doc, FILE *f,
			const struct fss_render_opts *ro, char *err, size_t errlen);

#endif /* __FSS_RENDER_H */
