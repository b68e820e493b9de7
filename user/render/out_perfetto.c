// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * out_perfetto.c - a timeline for kernel developers in the Chrome JSON
 * trace format (the "Trace Event Format"), which ui.perfetto.dev and
 * chrome://tracing both open: no schema compiler, no library, and a text
 * file that a test can read back with any JSON parser.
 *
 * From the per-sync records of `run --events` (with their paint segments,
 * requests and journal commits):
 *  - a track per syncing thread (pid/tid of the process): one slice per
 *    sync, named by its kind, with child slices per painted stretch, which
 *    cover the sync exactly (phases in time order);
 *  - a process per disk ("disk 7:0"), its requests as slices on lanes
 *    (tid 1, 2, ...; a lane holds requests that do not overlap): write,
 *    flush, fua, preflush;
 *  - a process per filesystem journal ("journal 7:0"): commits on lanes;
 *  - flow arrows from each sync to every request painted into it;
 *  - blame (docs/blame.md): each sync slice's args carry its first causes,
 *    and a process that caused time in another process's sync, when it
 *    has syncs of its own in the trace, gets an instant on its track.
 * Times are microseconds with three decimals: exact nanoseconds.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "render/render.h"

#define DEV_PID_BASE	5000000		/* above any pid_max */
#define JNL_PID_BASE	6000000
#define BLAME_ARGS	8		/* causes of a sync in its args */
#define JSON_OUT	(JSON_C_TO_STRING_PLAIN | \
			 JSON_C_TO_STRING_NOSLASHESCAPE)

struct span {
	char key[64];			/* dedupe: dev/id/start */
	char dev[16];
	char name[16];
	double start, end;		/* ns */
	int lane;
};

struct spans {
	struct span *v;
	size_t n, cap;
	struct json_object *index;	/* key -> position (a hash table) */
};

struct flow {
	unsigned long long id;
	size_t rq;			/* index in pctx.rq */
};

/* an instant on a blamed process's track, drawn if it has a track */
struct blamed {
	long long pid;
	double ts;			/* ns: the sync's start */
	struct json_object *args;
};

struct pctx {
	FILE *f;
	bool first;
	size_t nsync, no_detail;
	unsigned long long flow;
	struct flow *flows;
	size_t nflow, cflow;
	struct spans rq, jnl;
	char devs[64][16];		/* disks and journals seen, pid order */
	int ndev;
	struct json_object *threads;	/* "pid/tid" -> name */
	struct json_object *pids;	/* pids with sync slices */
	struct blamed *bl;
	size_t nbl, cbl;
};

static void ts_us(char *b, size_t len, double ns)
{
	/* exact: integer ns as microseconds with three decimals */
	unsigned long long v = (unsigned long long)llround(ns);

	snprintf(b, len, "%llu.%03llu", v / 1000, v % 1000);
}

static void emit(struct pctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void emit(struct pctx *c, const char *fmt, ...)
{
	va_list ap;

	fputs(c->first ? "\n" : ",\n", c->f);
	c->first = false;
	va_start(ap, fmt);
	vfprintf(c->f, fmt, ap);
	va_end(ap);
}

static int dev_index(struct pctx *c, const char *dev)
{
	int i;

	for (i = 0; i < c->ndev; i++)
		if (!strcmp(c->devs[i], dev))
			return i;
	if (c->ndev >= 64)
		return 63;
	snprintf(c->devs[c->ndev], sizeof(c->devs[0]), "%s", dev);
	return c->ndev++;
}

/* Add a span unless one with the same key is there; its index. */
static size_t span_add(struct spans *s, const char *key, const char *dev,
		       const char *name, double start, double end)
{
	struct json_object *at;

	if (json_object_object_get_ex(s->index, key, &at))
		return (size_t)json_object_get_int64(at);
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 1024;
		struct span *nv = realloc(s->v, nc * sizeof(*nv));

		if (!nv)
			return (size_t)-1;
		s->v = nv;
		s->cap = nc;
	}
	memset(&s->v[s->n], 0, sizeof(s->v[0]));
	snprintf(s->v[s->n].key, sizeof(s->v[0].key), "%s", key);
	snprintf(s->v[s->n].dev, sizeof(s->v[0].dev), "%s", dev);
	snprintf(s->v[s->n].name, sizeof(s->v[0].name), "%s", name);
	s->v[s->n].start = start;
	s->v[s->n].end = end > start ? end : start;
	json_object_object_add(s->index, key, json_object_new_int64((int64_t)s->n));
	return s->n++;
}

static void copy_key(struct json_object *to, struct json_object *from,
		     const char *key)
{
	struct json_object *v;

	if (json_object_object_get_ex(from, key, &v) && v)
		json_object_object_add(to, key, json_object_get(v));
}

/* a cause of a sync's blame as args: its keys that are not null */
static struct json_object *cause_args(struct json_object *x)
{
	static const char *const keys[] = { "pid", "comm", "cgroup", "phase",
		"blamed_ns", "share", "self", "unattributed" };
	struct json_object *o = json_object_new_object();

	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		copy_key(o, x, keys[k]);
	return o;
}

/* x caused time in ev's sync: an instant for its process, kept for later */
static void blamed_add(struct pctx *c, struct json_object *ev,
		       struct json_object *x, double start)
{
	struct json_object *a;

	if (!fss_j(x, "pid") || json_object_get_boolean(fss_j(x, "self")) ||
	    fss_jint(x, "pid", 0) == fss_jint(ev, "pid", 0))
		return;
	if (c->nbl == c->cbl) {
		size_t nc = c->cbl ? c->cbl * 2 : 1024;
		struct blamed *nb = realloc(c->bl, nc * sizeof(*nb));

		if (!nb)
			return;
		c->bl = nb;
		c->cbl = nc;
	}
	a = json_object_new_object();
	json_object_object_add(a, "victim_pid",
			       json_object_get(fss_j(ev, "pid")));
	json_object_object_add(a, "victim_tid",
			       json_object_get(fss_j(ev, "tid")));
	json_object_object_add(a, "victim_comm",
			       json_object_get(fss_j(ev, "comm")));
	copy_key(a, x, "phase");
	copy_key(a, x, "blamed_ns");
	copy_key(a, x, "share");
	c->bl[c->nbl++] = (struct blamed){ fss_jint(x, "pid", 0), start, a };
}

/* the args of a sync slice: what it is, and its blame (docs/blame.md) */
static struct json_object *sync_args(struct pctx *c, struct json_object *ev,
				     double start, double total)
{
	struct json_object *o = json_object_new_object();
	struct json_object *b = fss_j(ev, "blame"), *a;
	size_t i, n;

	json_object_object_add(o, "test", json_object_new_string(
				       fss_jstr(ev, "test") ?: ""));
	json_object_object_add(o, "total_ns",
			       json_object_new_int64(llround(total)));
	json_object_object_add(o, "ino",
			       json_object_new_int64(fss_jint(ev, "ino", 0)));
	json_object_object_add(o, "dev", json_object_new_string(
				       fss_jstr(ev, "dev") ?: ""));
	if (!b || !json_object_is_type(b, json_type_array))
		return o;
	n = fss_jlen(b);
	a = json_object_new_array();
	for (i = 0; i < n && i < BLAME_ARGS; i++) {
		struct json_object *x = fss_jidx(b, i);

		json_object_array_add(a, cause_args(x));
		blamed_add(c, ev, x, start);
	}
	json_object_object_add(o, "blame", a);
	if (n > BLAME_ARGS)
		json_object_object_add(o, "blame_unlisted",
				       json_object_new_int64(n - BLAME_ARGS));
	copy_key(o, ev, "blame_self_ns");
	copy_key(o, ev, "blame_others_ns");
	copy_key(o, ev, "blame_unattributed_ns");
	return o;
}

static void sync_event(struct json_object *ev, void *arg)
{
	struct pctx *c = arg;
	struct json_object *segs = fss_j(ev, "segments"), *rqs = fss_j(ev, "rqs");
	struct json_object *cm = fss_j(ev, "commits");
	long long pid = fss_jint(ev, "pid", 0), tid = fss_jint(ev, "tid", 0);
	double start = fss_jnum(ev, "start_ns"), total = fss_jnum(ev, "total_ns");
	char ts[32], dur[32], key[48], tname[64];
	struct json_object *args;
	size_t i;

	if (!segs || !isfinite(start) || !isfinite(total)) {
		c->no_detail++;
		return;
	}
	c->nsync++;
	snprintf(key, sizeof(key), "%lld/%lld", pid, tid);
	snprintf(tname, sizeof(tname), "%s %lld", fss_jstr(ev, "comm") ?: "?", tid);
	json_object_object_add(c->threads, key, json_object_new_string(tname));
	snprintf(key, sizeof(key), "%lld", pid);
	json_object_object_add(c->pids, key, NULL);
	ts_us(ts, sizeof(ts), start);
	ts_us(dur, sizeof(dur), total);
	args = sync_args(c, ev, start, total);
	emit(c, "{\"ph\":\"X\",\"cat\":\"sync\",\"name\":\"%s\",\"pid\":%lld,"
	     "\"tid\":%lld,\"ts\":%s,\"dur\":%s,\"args\":%s}",
	     fss_jstr(ev, "kind") ?: "sync", pid, tid, ts, dur,
	     json_object_to_json_string_ext(args, JSON_OUT));
	json_object_put(args);
	for (i = 0; i < fss_jlen(segs); i++) {
		struct json_object *s = fss_jidx(segs, i);
		double off = json_object_get_double(fss_jidx(s, 0));
		double d = json_object_get_double(fss_jidx(s, 1));

		ts_us(ts, sizeof(ts), start + off);
		ts_us(dur, sizeof(dur), d);
		emit(c, "{\"ph\":\"X\",\"cat\":\"phase\",\"name\":\"%s\",\"pid\":%lld,"
		     "\"tid\":%lld,\"ts\":%s,\"dur\":%s}", json_object_get_string(
		     fss_jidx(s, 2)), pid, tid, ts, dur);
	}
	for (i = 0; rqs && i < fss_jlen(rqs); i++) {
		struct json_object *q = fss_jidx(rqs, i);
		const char *dev = fss_jstr(q, "dev") ?: "?";
		char k[64];
		size_t at;

		snprintf(k, sizeof(k), "%s/%s/%.0f", dev, fss_jstr(q, "id") ?: "",
			 fss_jnum(q, "start_ns"));
		at = span_add(&c->rq, k, dev, fss_jstr(q, "class") ?: "rq",
			      fss_jnum(q, "start_ns"), fss_jnum(q, "end_ns"));
		if (at == (size_t)-1)
			continue;
		dev_index(c, dev);
		/* the flow leaves the sync at its start; its end is bound later */
		ts_us(ts, sizeof(ts), start);
		emit(c, "{\"ph\":\"s\",\"cat\":\"flow\",\"name\":\"served by\",\"id\":%llu,"
		     "\"pid\":%lld,\"tid\":%lld,\"ts\":%s}", ++c->flow, pid, tid, ts);
		if (c->nflow == c->cflow) {
			size_t nc = c->cflow ? c->cflow * 2 : 1024;
			struct flow *nf = realloc(c->flows, nc * sizeof(*nf));

			if (!nf)
				continue;
			c->flows = nf;
			c->cflow = nc;
		}
		c->flows[c->nflow++] = (struct flow){ c->flow, at };
	}
	for (i = 0; cm && i < fss_jlen(cm); i++) {
		struct json_object *j = fss_jidx(cm, i);
		const char *dev = fss_jstr(j, "dev") ?: "?";
		char k[64];

		snprintf(k, sizeof(k), "j%s/%.0f", dev, fss_jnum(j, "start_ns"));
		span_add(&c->jnl, k, dev, "commit", fss_jnum(j, "start_ns"),
			 fss_jnum(j, "end_ns"));
	}
}

static int span_cmp(const void *x, const void *y)
{
	const struct span *a = *(const struct span *const *)x;
	const struct span *b = *(const struct span *const *)y;

	return a->start < b->start ? -1 : a->start > b->start;
}

/*
 * Lanes: per device, requests sorted by start, each on the first lane
 * whose last span has ended (interval partitioning: as few lanes as the
 * most requests in flight at once).
 */
static int assign_lanes(struct spans *s)
{
	struct span **o = malloc((s->n + 1) * sizeof(*o));
	double ends[256];
	size_t i, k;
	int nl = 0, l;

	if (!o)
		return -1;
	for (i = 0; i < s->n; i++)
		o[i] = &s->v[i];
	qsort(o, s->n, sizeof(*o), span_cmp);
	for (i = 0; i < s->n; i++) {
		const char *dev = o[i]->dev;

		if (o[i]->lane)
			continue;
		nl = 0;
		for (k = i; k < s->n; k++) {
			if (strcmp(o[k]->dev, dev) || o[k]->lane)
				continue;
			for (l = 0; l < nl && ends[l] > o[k]->start; l++)
				;
			if (l == nl) {
				if (nl == 256)
					l = 255;
				else
					nl++;
			}
			ends[l] = o[k]->end;
			o[k]->lane = l + 1;
		}
	}
	free(o);
	return 0;
}

static void emit_spans(struct pctx *c, const struct spans *s, int base,
		       const char *cat, const char *what)
{
	char ts[32], dur[32];
	int seen[64] = { 0 };
	size_t i;

	for (i = 0; i < s->n; i++) {
		const struct span *sp = &s->v[i];
		int pid = base + dev_index(c, sp->dev);

		if (!seen[pid - base]) {
			seen[pid - base] = 1;
			emit(c, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,"
			     "\"args\":{\"name\":\"%s %s\"}}", pid, what, sp->dev);
			emit(c, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%d,"
			     "\"args\":{\"sort_index\":%d}}", pid, pid);
		}
		ts_us(ts, sizeof(ts), sp->start);
		ts_us(dur, sizeof(dur), sp->end - sp->start);
		emit(c, "{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":%d,"
		     "\"tid\":%d,\"ts\":%s,\"dur\":%s}", cat, sp->name, pid, sp->lane,
		     ts, dur);
	}
}

static void emit_flow_ends(struct pctx *c)
{
	char ts[32];
	size_t i;

	for (i = 0; i < c->nflow; i++) {
		const struct span *sp = &c->rq.v[c->flows[i].rq];

		ts_us(ts, sizeof(ts), sp->start);
		emit(c, "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"flow\",\"name\":"
		     "\"served by\",\"id\":%llu,\"pid\":%d,\"tid\":%d,\"ts\":%s}",
		     c->flows[i].id, DEV_PID_BASE + dev_index(c, sp->dev), sp->lane, ts);
	}
}

/* the instants of blamed processes that have a track (syncs of their own) */
static void emit_blamed(struct pctx *c)
{
	char ts[32], key[32];

	for (size_t i = 0; i < c->nbl; i++) {
		struct blamed *b = &c->bl[i];

		snprintf(key, sizeof(key), "%lld", b->pid);
		if (json_object_object_get_ex(c->pids, key, NULL)) {
			ts_us(ts, sizeof(ts), b->ts);
			emit(c, "{\"ph\":\"i\",\"s\":\"p\",\"cat\":\"blame\","
			     "\"name\":\"blamed: %s\",\"pid\":%lld,"
			     "\"tid\":%lld,\"ts\":%s,\"args\":%s}",
			     fss_jstr(b->args, "phase") ?: "?", b->pid, b->pid,
			     ts, json_object_to_json_string_ext(b->args,
								JSON_OUT));
		}
		json_object_put(b->args);
	}
	c->nbl = 0;
}

static void emit_names(struct pctx *c)
{
	json_object_object_foreach(c->threads, key, val) {
		long long pid = 0, tid = 0;

		if (sscanf(key, "%lld/%lld", &pid, &tid) != 2)
			continue;
		emit(c, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%lld,"
		     "\"tid\":%lld,\"args\":{\"name\":%s}}", pid, tid,
		     json_object_to_json_string(val));
		if (pid == tid)
			emit(c, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%lld,"
			     "\"args\":{\"name\":%s}}", pid, json_object_to_json_string(val));
	}
}

int fss_render_perfetto(struct json_object *doc, FILE *f,
			const struct fss_render_opts *ro, char *err, size_t errlen)
{
	struct pctx c = { .f = f, .first = true };
	int rc;

	if (!ro || !ro->events_path) {
		snprintf(err, errlen, "the Perfetto trace is drawn from per-sync "
			 "records: give --events FILE (written by run --events)");
		return -1;
	}
	c.threads = json_object_new_object();
	c.pids = json_object_new_object();
	c.rq.index = json_object_new_object();
	c.jnl.index = json_object_new_object();
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":"
	      "\"fsyncscope\",\"schema\":", f);
	fputs(json_object_to_json_string(fss_j(doc, "schema")), f);
	fputs("},\"traceEvents\":[", f);
	rc = fss_events_some(ro->events_path, 1, ro->max_syncs ? ro->max_syncs :
			     FSS_PERFETTO_MAX_SYNCS, sync_event, &c, err, errlen);
	if (!rc && !c.nsync && c.no_detail) {
		snprintf(err, errlen, "%s has no per-sync detail (segments): record "
			 "it with run --events FILE --events-detail", ro->events_path);
		rc = -1;
	}
	if (!rc && (assign_lanes(&c.rq) || assign_lanes(&c.jnl))) {
		snprintf(err, errlen, "out of memory");
		rc = -1;
	}
	if (!rc) {
		emit_spans(&c, &c.rq, DEV_PID_BASE, "rq", "disk");
		emit_spans(&c, &c.jnl, JNL_PID_BASE, "commit", "journal");
		emit_flow_ends(&c);
		emit_blamed(&c);
		emit_names(&c);
		fprintf(f, "\n],\"fsyncscope\":{\"syncs_drawn\":%zu,\"syncs_in_events\":%lld}}\n",
			c.nsync, fss_events_count(ro->events_path, err, errlen));
	}
	for (size_t i = 0; i < c.nbl; i++)
		json_object_put(c.bl[i].args);
	free(c.bl);
	json_object_put(c.threads);
	json_object_put(c.pids);
	json_object_put(c.rq.index);
	json_object_put(c.jnl.index);
	free(c.rq.v);
	free(c.jnl.v);
	free(c.flows);
	return rc;
}
