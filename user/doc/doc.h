/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * doc.h - the result document: the one model every renderer reads.
 *
 * Each command (run, trace, compare, devices, diff) fills a JSON document
 * (json-c tree) whose shape is its contract (docs/run.md, live.md,
 * compare.md, devices.md, report.md); it carries "schema":
 * "fsyncscope/<kind>" and "schema_version".  Renderers (text, json, html,
 * csv) take that tree and nothing else, so `fsyncscope report saved.json`
 * gives what the command gave.  Output files are written whole or not at
 * all (temp file + rename).
 */
#ifndef __FSS_DOC_H
#define __FSS_DOC_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>

struct json_object;

#define FSS_SCHEMA_VERSION	1

/* The largest saved result fss_doc_load reads (memory stays bounded). */
#define FSS_DOC_MAX_BYTES	(256ULL << 20)
#define FSS_DOC_MAX_TEXT	"256 MiB"

/* Adds "schema": "fsyncscope/<kind>" and "schema_version" to doc. */
void fss_doc_stamp(struct json_object *doc, const char *kind);

/* "run", "compare", ... of a stamped document, or NULL. */
const char *fss_doc_kind(struct json_object *doc);

/*
 * Read a saved result: a JSON document, or JSON Lines from `trace --json`
 * (then the last line whose "type" is "summary", else the last "interval").
 * Checks schema and schema_version, then the document (fss_doc_check).
 * Refuses a directory, a file over FSS_DOC_MAX_BYTES, or bytes that do
 * not start as a JSON object, before reading them all.  Returns the tree
 * (caller puts it) or NULL with one line in err.
 */
struct json_object *fss_doc_load(const char *path, char *err, size_t errlen);

/*
 * Is o a document of this kind that renderers can take: every key they
 * read of the type they read it as, counts >= 0, histograms whose buckets
 * add up, no NaN or infinity (doc_schema.c has the rules).  kind is
 * fss_doc_kind()'s word, or "events" for a line of run's --events file.
 * Returns 0, or -1 with "WHERE: KEY: expected ..." in err.
 */
int fss_doc_check(struct json_object *o, const char *kind, const char *where,
		  char *err, size_t errlen);

/*
 * The tests of a run or compare document, each with a key unique in the
 * document: the test name (run), "FS/name" (compare).  fn returns
 * non-zero to stop.  Returns the number of tests visited.
 */
typedef int (*fss_doc_test_fn)(const char *key, struct json_object *test,
			       void *arg);
int fss_doc_foreach_test(struct json_object *doc, fss_doc_test_fn fn, void *arg);

/*
 * Why a document has no blame, for its renderers: the blame strategy it
 * recorded when that says "off ..." or "n/a ...", else "n/a: no traced
 * sync" when it had none (synced false), else the generic reason (older
 * documents record no strategy).
 */
const char *fss_doc_blame_na(const char *strategy, bool synced);

/*
 * A number with a fixed number of decimals, its value what the text says;
 * NaN or infinity (not known) is null.
 */
struct json_object *fss_json_num(double v, int decimals);

/* Small typed getters: NULL / NAN / def when absent or of another type. */
struct json_object *fss_j(struct json_object *o, const char *key);
const char *fss_jstr(struct json_object *o, const char *key);
double fss_jnum(struct json_object *o, const char *key);
long long fss_jint(struct json_object *o, const char *key, long long def);
/* a count: the integer at key, 0 when absent, negative or not an integer */
unsigned long long fss_jcount(struct json_object *o, const char *key);

/*
 * An array's length and its element i, whatever the document holds: 0 and
 * NULL when o is not an array (json-c's own accessors assert the type).
 */
size_t fss_jlen(struct json_object *o);
struct json_object *fss_jidx(struct json_object *o, size_t i);

/*
 * The name to show for a blame cause (a sync's blame entry or a trace's
 * "blamed" row): "fsyncscope itself" when "tool" is true (the tracer's
 * own process, docs/live.md), else its comm, else "?".
 */
const char *fss_cause_name(struct json_object *x);

/* Output formats. */
enum fss_fmt { FSS_FMT_TEXT, FSS_FMT_JSON, FSS_FMT_HTML, FSS_FMT_CSV,
	       FSS_FMT_PERFETTO };
int fss_fmt_parse(const char *s, enum fss_fmt *out);
const char *fss_fmt_name(enum fss_fmt f);

/*
 * An output destination: stdout, or PATH written through PATH.tmp.XXXXXX
 * and renamed over PATH by fss_out_commit (fss_out_abort removes it); a
 * symbolic link's file is replaced, not the link; a PATH that is not a
 * regular file (/dev/null, a FIFO, a terminal) is written in place (tmp
 * NULL), never replaced.
 */
struct fss_out {
	FILE *f;
	char *path, *tmp;
};
int fss_out_open(struct fss_out *o, const char *path, char *err, size_t errlen);
/* Can PATH be written (a temporary file made and removed next to it)? */
int fss_out_check(const char *path, char *err, size_t errlen);
int fss_out_commit(struct fss_out *o, char *err, size_t errlen);
void fss_out_abort(struct fss_out *o);

#endif /* __FSS_DOC_H */
