// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * doc.c - result documents: stamp, load and check, and whole-or-nothing
 * output files (doc.h).
 */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <json-c/json.h>
#include "doc/doc.h"
#include "lib/fmt.h"
#include "lib/version.h"

#define SCHEMA_PREFIX	"fsyncscope/"

void fss_doc_stamp(struct json_object *doc, const char *kind)
{
	char s[64];

	snprintf(s, sizeof(s), SCHEMA_PREFIX "%s", kind);
	json_object_object_add(doc, "schema", json_object_new_string(s));
	json_object_object_add(doc, "schema_version",
			       json_object_new_int(FSS_SCHEMA_VERSION));
	json_object_object_add(doc, "version",
			       json_object_new_string(FSS_VERSION));
}

const char *fss_doc_blame_na(const char *strategy, bool synced)
{
	if (strategy && (!strncmp(strategy, "off", 3) ||
			 !strncmp(strategy, "n/a", 3)))
		return strategy;
	if (!synced)
		return "n/a: no traced sync";
	return "n/a (blame off: --no-blame, or its hooks did not attach)";
}

const char *fss_doc_kind(struct json_object *doc)
{
	struct json_object *v;
	const char *s;

	if (!json_object_object_get_ex(doc, "schema", &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	s = json_object_get_string(v);
	if (strncmp(s, SCHEMA_PREFIX, strlen(SCHEMA_PREFIX)))
		return NULL;
	return s + strlen(SCHEMA_PREFIX);
}

/*
 * Why the bytes read so far (n of them, more to come when more) cannot be
 * a document, or NULL: too many, or not starting as a JSON object does
 * (so /dev/zero or a 2 GB binary is refused after its first block).
 */
static const char *slurp_refuse(const char *buf, size_t n)
{
	size_t ws = strspn(buf, " \t\r\n");

	if (n > FSS_DOC_MAX_BYTES)
		return "too large for a saved result (more than "
		       FSS_DOC_MAX_TEXT ")";
	if (ws < n && buf[ws] != '{')
		return "not an fsyncscope result (not a JSON object)";
	return NULL;
}

static char *slurp(const char *path, size_t *len, char *err, size_t errlen)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	size_t cap = 1 << 16, n = 0;
	char *buf = NULL, *p;
	const char *why = NULL;
	struct stat st;

	if (!f) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	if (!fstat(fileno(f), &st) && S_ISDIR(st.st_mode))
		why = "a directory, not a saved result";
	else if (!fstat(fileno(f), &st) && S_ISREG(st.st_mode) &&
		 (unsigned long long)st.st_size > FSS_DOC_MAX_BYTES)
		why = slurp_refuse("", FSS_DOC_MAX_BYTES + 1);
	while (!why) {
		if (!(p = realloc(buf, cap + 1))) {
			why = "out of memory";
			break;
		}
		buf = p;
		n += fread(buf + n, 1, cap - n, f);
		buf[n] = '\0';
		if (n < cap && ferror(f)) {
			snprintf(err, errlen, "cannot read %s: %s", path,
				 strerror(errno));
			free(buf);
			buf = NULL;
			break;
		}
		if ((why = slurp_refuse(buf, n)) || n < cap)
			break;
		cap *= 2;
	}
	if (f != stdin)
		fclose(f);
	if (why) {
		snprintf(err, errlen, "%s: %s", path, why);
		free(buf);
		return NULL;
	}
	if (buf)
		*len = n;
	return buf;
}

/* Parse one JSON value from s[0..len); NULL with the parser's reason. */
static struct json_object *parse(const char *s, size_t len, const char *path,
				 int line, char *err, size_t errlen)
{
	struct json_tokener *tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);
	struct json_object *o;
	enum json_tokener_error e;

	if (!tok) {
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	o = json_tokener_parse_ex(tok, s, (int)len);
	e = json_tokener_get_error(tok);
	if (!o && e == json_tokener_continue)
		snprintf(err, errlen, "%s%s%.0d: not a whole JSON document "
			 "(truncated?)", path, line ? ": line " : "", line);
	else if (!o)
		snprintf(err, errlen, "%s%s%.0d: not JSON: %s", path,
			 line ? ": line " : "", line, json_tokener_error_desc(e));
	else if (tok->char_offset < (int)len &&
		 strspn(s + tok->char_offset, " \t\r\n") != len - (size_t)tok->char_offset) {
		snprintf(err, errlen, "%s: trailing data after the JSON document",
			 path);
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	return o;
}

/* JSON Lines of `trace --json`: the last summary, else the last interval. */
static struct json_object *pick_lines(char *buf, const char *path, char *err,
				      size_t errlen)
{
	struct json_object *best = NULL, *o, *t;
	bool best_summary = false;
	char *line = buf, *nl, where[PATH_MAX + 32];
	int ln = 0;

	for (; *line; line = nl ? nl + 1 : line + strlen(line)) {
		nl = strchr(line, '\n');
		ln++;
		if (strspn(line, " \t\r") == (size_t)(nl ? nl - line : (long)strlen(line)))
			continue;
		o = parse(line, nl ? (size_t)(nl - line) : strlen(line), path, ln,
			  err, errlen);
		snprintf(where, sizeof(where), "%s: line %d", path, ln);
		if (o && fss_doc_check(o, "trace", where, err, errlen)) {
			json_object_put(o);
			o = NULL;
		}
		if (!o) {
			json_object_put(best);
			return NULL;
		}
		if (json_object_object_get_ex(o, "type", &t) &&
		    json_object_is_type(t, json_type_string) &&
		    (!strcmp(json_object_get_string(t), "summary") ||
		     (!best_summary && !strcmp(json_object_get_string(t), "interval")))) {
			json_object_put(best);
			best = o;
			best_summary = !strcmp(json_object_get_string(t), "summary");
			continue;
		}
		json_object_put(o);
	}
	if (!best)
		snprintf(err, errlen, "%s: JSON Lines with no summary or interval "
			 "record", path);
	return best;
}

static int check_schema(struct json_object *o, const char *path, char *err,
			size_t errlen)
{
	struct json_object *v;
	int64_t ver;

	if (!json_object_is_type(o, json_type_object)) {
		snprintf(err, errlen, "%s: not an fsyncscope result (not a JSON "
			 "object)", path);
		return -1;
	}
	if (!json_object_object_get_ex(o, "schema", &v)) {
		snprintf(err, errlen, "%s: not an fsyncscope result (no \"schema\"; "
			 "saved by a version before 0.2?)", path);
		return -1;
	}
	if (!fss_doc_kind(o)) {
		snprintf(err, errlen, "%s: schema '%s' is not an fsyncscope result",
			 path, json_object_get_string(v));
		return -1;
	}
	if (!json_object_object_get_ex(o, "schema_version", &v) ||
	    !json_object_is_type(v, json_type_int)) {
		snprintf(err, errlen, "%s: no schema_version", path);
		return -1;
	}
	ver = json_object_get_int64(v);
	if (ver > FSS_SCHEMA_VERSION || ver < 1) {
		snprintf(err, errlen, "%s: schema_version %lld; this fsyncscope "
			 "reads %d (newer tool needed)", path, (long long)ver,
			 FSS_SCHEMA_VERSION);
		return -1;
	}
	return 0;
}

static struct json_object *doc_load(const char *path, char *err,
				    size_t errlen)
{
	struct json_object *o;
	size_t len = 0, skip;
	char *buf = slurp(path, &len, err, errlen);
	const char *nl;

	if (!buf)
		return NULL;
	skip = strspn(buf, " \t\r\n");
	if (skip == len) {
		snprintf(err, errlen, "%s: empty file", path);
		free(buf);
		return NULL;
	}
	/*
	 * One document, or JSON Lines (trace --json): a first line that is
	 * a whole object followed by more lines.
	 */
	nl = memchr(buf + skip, '\n', len - skip);
	if (nl && nl[strspn(nl, " \t\r\n")] == '{' &&
	    (o = parse(buf + skip, (size_t)(nl - buf - skip), path, 1, err, errlen))) {
		json_object_put(o);
		o = pick_lines(buf, path, err, errlen);
	} else {
		o = parse(buf, len, path, 0, err, errlen);
	}
	free(buf);
	if (o && (check_schema(o, path, err, errlen) ||
		  fss_doc_check(o, fss_doc_kind(o), path, err, errlen))) {
		json_object_put(o);
		o = NULL;
	}
	return o;
}

struct json_object *fss_doc_load(const char *path, char *err, size_t errlen)
{
	struct json_object *o = doc_load(path, err, errlen);

	if (!o)	/* one line, whatever key or name it quotes */
		fss_err_oneline(err);
	return o;
}

static const char *const fmt_names[] = { "text", "json", "html", "csv", "perfetto" };

int fss_fmt_parse(const char *s, enum fss_fmt *out)
{
	for (size_t i = 0; i < sizeof(fmt_names) / sizeof(fmt_names[0]); i++)
		if (!strcmp(s, fmt_names[i])) {
			*out = (enum fss_fmt)i;
			return 0;
		}
	return -1;
}

const char *fss_fmt_name(enum fss_fmt f)
{
	return (unsigned)f < sizeof(fmt_names) / sizeof(fmt_names[0]) ?
	       fmt_names[f] : "?";
}

/*
 * Not a regular file (/dev/null, /dev/stdout, a FIFO, a terminal): written
 * in place, never replaced by a renamed file.  1 yes, 0 no, -1 (errno) an
 * existing path that cannot be looked up.
 */
static int out_special(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return errno == ENOENT ? 0 : -1;
	return !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/*
 * A symbolic link to a regular file: the file it names, so that the rename
 * replaces that file, not the link.  NULL: path itself (or out of memory).
 */
static char *out_target(const char *path)
{
	struct stat st;

	if (lstat(path, &st) || !S_ISLNK(st.st_mode))
		return strdup(path);
	return realpath(path, NULL) ?: strdup(path);
}

int fss_out_open(struct fss_out *o, const char *path, char *err, size_t errlen)
{
	int fd, sp;

	memset(o, 0, sizeof(*o));
	if (!path || !strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	sp = out_special(path);
	if (sp < 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	if (sp) {
		o->f = fopen(path, "w");
		if (!o->f) {
			snprintf(err, errlen, "cannot write %s: %s", path,
				 strerror(errno));
			return -1;
		}
		o->path = strdup(path);		/* o->tmp NULL: in place */
		return 0;
	}
	o->path = out_target(path);
	if (!o->path || asprintf(&o->tmp, "%s.tmp.XXXXXX", o->path) < 0) {
		snprintf(err, errlen, "out of memory");
		free(o->path);
		o->path = NULL;
		return -1;
	}
	fd = mkstemp(o->tmp);
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(o->tmp);
		}
		free(o->path);
		free(o->tmp);
		o->path = o->tmp = NULL;
		return -1;
	}
	fchmod(fd, 0644);
	return 0;
}

int fss_out_check(const char *path, char *err, size_t errlen)
{
	struct fss_out o;
	int sp = path && strcmp(path, "-") ? out_special(path) : 0;

	/* in place: opening a FIFO would wait for its reader */
	if (sp > 0 && access(path, W_OK)) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	if (sp > 0)
		return 0;
	if (fss_out_open(&o, path, err, errlen))
		return -1;
	fss_out_abort(&o);
	return 0;
}

int fss_out_commit(struct fss_out *o, char *err, size_t errlen)
{
	int rc = 0;

	if (o->f == stdout) {
		if (fflush(stdout) == EOF) {
			snprintf(err, errlen, "cannot write output: %s", strerror(errno));
			rc = -1;
		}
		o->f = NULL;
		return rc;
	}
	if (!o->f)
		return -1;
	if (ferror(o->f) | (fclose(o->f) == EOF)) {
		snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(errno));
		rc = -1;
	} else if (o->tmp && rename(o->tmp, o->path)) {
		snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(errno));
		rc = -1;
	}
	if (rc && o->tmp)
		unlink(o->tmp);
	o->f = NULL;
	free(o->path);
	free(o->tmp);
	o->path = o->tmp = NULL;
	return rc;
}

void fss_out_abort(struct fss_out *o)
{
	if (o->f && o->f != stdout) {
		fclose(o->f);
		if (o->tmp)
			unlink(o->tmp);
	}
	o->f = NULL;
	free(o->path);
	free(o->tmp);
	o->path = o->tmp = NULL;
}

struct json_object *fss_json_num(double v, int decimals)
{
	char buf[64];

	if (!isfinite(v))
		return NULL;
	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	return json_object_new_double_s(strtod(buf, NULL), buf);
}

struct json_object *fss_j(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

const char *fss_jstr(struct json_object *o, const char *key)
{
	struct json_object *v = fss_j(o, key);

	return v && json_object_is_type(v, json_type_string) ?
	       json_object_get_string(v) : NULL;
}

const char *fss_cause_name(struct json_object *x)
{
	if (json_object_get_boolean(fss_j(x, "tool")))
		return "fsyncscope itself";
	return fss_jstr(x, "comm") ?: "?";
}

double fss_jnum(struct json_object *o, const char *key)
{
	struct json_object *v = fss_j(o, key);

	if (v && (json_object_is_type(v, json_type_double) ||
		  json_object_is_type(v, json_type_int)))
		return json_object_get_double(v);
	return NAN;
}

long long fss_jint(struct json_object *o, const char *key, long long def)
{
	struct json_object *v = fss_j(o, key);

	return v && json_object_is_type(v, json_type_int) ?
	       (long long)json_object_get_int64(v) : def;
}

unsigned long long fss_jcount(struct json_object *o, const char *key)
{
	long long v = fss_jint(o, key, 0);

	return v > 0 ? (unsigned long long)v : 0;
}

size_t fss_jlen(struct json_object *o)
{
	return json_object_is_type(o, json_type_array) ?
	       json_object_array_length(o) : 0;
}

struct json_object *fss_jidx(struct json_object *o, size_t i)
{
	return i < fss_jlen(o) ? json_object_array_get_idx(o, i) : NULL;
}

int fss_doc_foreach_test(struct json_object *doc, fss_doc_test_fn fn, void *arg)
{
	const char *kind = fss_doc_kind(doc);
	struct json_object *arr;
	char key[256];
	size_t i, j;
	int n = 0;

	/*
	 * A trace summary: one "test", all its syncs with their histogram,
	 * kept in the (loaded) document so callers may hold on to it.
	 */
	if (kind && !strcmp(kind, "trace") && !fss_j(doc, "tests") &&
	    fss_j(fss_j(doc, "all"), "hist")) {
		struct json_object *t = json_object_new_object(), *h = json_object_new_object();
		struct json_object *a = json_object_new_array();

		json_object_object_add(h, "total", json_object_get(fss_j(fss_j(doc, "all"), "hist")));
		json_object_object_add(t, "name", json_object_new_string("all syncs"));
		json_object_object_add(t, "status", json_object_new_string("ok"));
		json_object_object_add(t, "hist", h);
		json_object_array_add(a, t);
		json_object_object_add(doc, "tests", a);
	}
	if (kind && (!strcmp(kind, "run") || !strcmp(kind, "trace")) &&
	    (arr = fss_j(doc, "tests")) && json_object_is_type(arr, json_type_array)) {
		for (i = 0; i < json_object_array_length(arr); i++) {
			struct json_object *t = json_object_array_get_idx(arr, i);
			const char *name = fss_jstr(t, "name");

			n++;
			if (name && fn(name, t, arg))
				break;
		}
		return n;
	}
	if (!kind || strcmp(kind, "compare") ||
	    !(arr = fss_j(doc, "workloads")) || !json_object_is_type(arr, json_type_array))
		return 0;
	for (i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *res = fss_j(json_object_array_get_idx(arr, i), "results");

		if (!res || !json_object_is_type(res, json_type_array))
			continue;
		for (j = 0; j < json_object_array_length(res); j++) {
			struct json_object *t = json_object_array_get_idx(res, j);
			/* compare: "label" tells a second ext4 ("ext4-2") */
			const char *fs = fss_jstr(t, "label") ?: fss_jstr(t, "fs");
			const char *name = fss_jstr(t, "name");

			if (!fs || !name)
				continue;
			snprintf(key, sizeof(key), "%s/%s", fs, name);
			n++;
			if (fn(key, t, arg))
				return n;
		}
	}
	return n;
}
