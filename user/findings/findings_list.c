// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * findings_list.c - the list of findings the rules fill (one per key, the
 * heaviest kept) and the small helpers they share: fields, figures,
 * durations in words.  The bottom of the findings layer: it calls nothing
 * of findings.c or the rules.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "doc/doc.h"
#include "findings/findings_int.h"

void fnd_set(char *dst, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, n, fmt, ap);
	va_end(ap);
}

void fnd_cat(char *dst, size_t n, const char *fmt, ...)
{
	size_t len = strlen(dst);
	va_list ap;

	if (len + 1 >= n)
		return;
	va_start(ap, fmt);
	vsnprintf(dst + len, n - len, fmt, ap);
	va_end(ap);
}

void fnd_fig(struct fnd *f, const char *name, double v)
{
	json_object_object_add(f->figures, name, fss_json_num(v, 6));
}

void fnd_figs(struct fnd *f, const char *name, const char *v)
{
	json_object_object_add(f->figures, name,
			       v ? json_object_new_string(v) : NULL);
}

const char *fnd_dur(char *buf, size_t n, double us)
{
	if (!isfinite(us))
		snprintf(buf, n, "n/a");
	else if (us < 1000)
		snprintf(buf, n, "%.0f us", us);
	else if (us < 1e6)
		snprintf(buf, n, "%.2f ms", us / 1e3);
	else
		snprintf(buf, n, "%.3f s", us / 1e6);
	return buf;
}

bool fnd_is_loop(const char *disk)
{
	return disk && !strncmp(disk, "loop", 4);
}

static void fnd_reset(struct fnd *f, enum fss_find_sev sev, const char *id,
		      const char *key, double weight, const struct fnd_subj *s)
{
	int also = f->also;

	if (f->figures)
		json_object_put(f->figures);
	memset(f, 0, sizeof(*f));
	f->also = also;
	f->sev = sev;
	f->id = id;
	snprintf(f->key, sizeof(f->key), "%s", key ? key : id);
	f->weight = weight;
	snprintf(f->subject, sizeof(f->subject), "%s",
		 s && s->name ? s->name : "the result");
	f->figures = json_object_new_object();
}

struct fnd *fnd_add(struct fnd_list *l, enum fss_find_sev sev, const char *id,
		    const char *key, double weight, const struct fnd_subj *s)
{
	const char *k = key ? key : id;
	struct fnd *f;

	for (int i = 0; i < l->n; i++) {
		f = &l->v[i];
		if (strcmp(f->key, k))
			continue;
		f->also++;
		if (weight <= f->weight && sev <= f->sev)
			return NULL;
		fnd_reset(f, sev, id, k, weight, s);
		return f;
	}
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 8;
		struct fnd *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		l->v = v;
		l->cap = cap;
	}
	f = &l->v[l->n++];
	memset(f, 0, sizeof(*f));
	fnd_reset(f, sev, id, k, weight, s);
	return f;
}
