// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * dbview.c - syncs per database file class and role, and checkpoints
 * (see dbview.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>
#include "db/dbview.h"

void fss_dbview_init(struct fss_dbview *v)
{
	memset(v, 0, sizeof(*v));
	fss_ckpt_init(&v->ckpt);
}

void fss_dbview_reset(struct fss_dbview *v)
{
	for (int c = 0; c < FSS_FC_MAX; c++) {
		fss_shist_free(&v->cls[c].h);
		memset(&v->cls[c], 0, sizeof(v->cls[c]));
	}
	memset(v->by_role, 0, sizeof(v->by_role));
	memset(v->roles, 0, sizeof(v->roles));
	v->nroles = 0;
}

void fss_dbview_free(struct fss_dbview *v)
{
	fss_dbview_reset(v);
	fss_ckpt_free(&v->ckpt);
}

static int role_index(struct fss_dbview *v, const char *name)
{
	int i;

	for (i = 0; i < v->nroles; i++)
		if (!strcmp(v->roles[i], name))
			return i;
	if (v->nroles == FSS_DBV_ROLES)
		return FSS_DBV_ROLES - 1;	/* "more" */
	snprintf(v->roles[i], sizeof(v->roles[i]), "%s",
		 v->nroles == FSS_DBV_ROLES - 1 ? "more" : name);
	return v->nroles++;
}

void fss_dbview_add(struct fss_dbview *v, const struct fss_sync_result *r,
		    const char *path, const struct fss_dbrole *role)
{
	fss_dbview_add_class(v, r, fss_fclass_of(r->kind == FSS_SYNC_MSYNC ?
						 NULL : path, r->kind), role);
}

void fss_dbview_add_class(struct fss_dbview *v,
			  const struct fss_sync_result *r, enum fss_fclass c,
			  const struct fss_dbrole *role)
{
	const char *rname = "none";
	int ri;

	if (role && role->db == FSS_DB_MARIADB)
		v->saw_mariadb = true;
	/* a file of a database process that matches no pattern */
	if (c == FSS_FC_OTHER && role && role->db == FSS_DB_POSTGRES)
		c = FSS_FC_PG_OTHER;
	else if (c == FSS_FC_OTHER && role && role->db == FSS_DB_MARIADB)
		c = FSS_FC_MY_OTHER;
	if (role && role->db != FSS_DB_NONE)
		rname = role->role[0] ? role->role :
			role->db == FSS_DB_POSTGRES ? "unknown" :
			fss_db_name(role->db);
	live_gstat_add(&v->cls[c], r);
	ri = role_index(v, rname);
	if (r->kind < FSS_SYNC_KIND_MAX)
		v->by_role[c][ri][r->kind]++;
	if (!v->no_ckpt && role && role->db == FSS_DB_POSTGRES &&
	    !strcmp(role->role, "checkpointer")) {
		struct fss_ckpt_sync s = {
			.start = r->start, .end = r->start + r->total,
			.pid = r->pid, .kind = r->kind, .fclass = c,
			.dev = r->dev, .ino = r->ino,
		};

		memcpy(s.phase_ns, r->phase_ns, sizeof(s.phase_ns));
		fss_ckpt_feed(&v->ckpt, &s);
	}
}

static struct json_object *jus(__u64 ns)
{
	return json_object_new_double(ns / 1000.0);
}

static void add_int(struct json_object *o, const char *key, __u64 v)
{
	json_object_object_add(o, key, json_object_new_int64(v));
}

/* a string, or null */
static void add_str(struct json_object *o, const char *key, const char *v)
{
	json_object_object_add(o, key, v ? json_object_new_string(v) : NULL);
}

static struct json_object *phases_json(const __u64 *phase_ns, __u64 n,
				       __u64 total)
{
	struct json_object *ph = json_object_new_object();

	for (int p = 0; p < FSS_PH_MAX; p++) {
		struct json_object *po = json_object_new_object();
		__u64 ns = phase_ns[p];

		add_int(po, "ns", ns);
		json_object_object_add(po, "mean_us", n ? jus(ns / n) : NULL);
		json_object_object_add(po, "share", !total ? NULL :
				json_object_new_double((double)ns / total));
		json_object_object_add(ph, fss_phase_name(p), po);
	}
	return ph;
}

static struct json_object *q_us(const struct fss_shist *h, double q)
{
	double v = fss_shist_quantile_ns(h, q);

	return isfinite(v) ? jus((__u64)llround(v)) : NULL;
}

static struct json_object *kinds_json(const __u64 *by_kind)
{
	struct json_object *o = json_object_new_object();

	for (int k = 0; k < FSS_SYNC_KIND_MAX; k++)
		if (by_kind[k])
			add_int(o, fss_sync_kind_name(k), by_kind[k]);
	return o;
}

/* the group shape of trace's other tables (live_doc.c gstat_json) */
static struct json_object *stat_json(const struct gstat *g)
{
	struct json_object *o = json_object_new_object();
	bool n = g->syncs > 0;

	add_int(o, "syncs", g->syncs);
	add_int(o, "errors", g->errors);
	add_int(o, "total_ns", g->total_ns);
	json_object_object_add(o, "mean_us", n ? jus(g->total_ns / g->syncs) :
			       NULL);
	json_object_object_add(o, "p50_us", n ? q_us(&g->h, 0.50) : NULL);
	json_object_object_add(o, "p99_us", n ? q_us(&g->h, 0.99) : NULL);
	json_object_object_add(o, "max_us", n ? jus(g->max_ns) : NULL);
	json_object_object_add(o, "phases", phases_json(g->phase_ns, g->syncs,
							g->total_ns));
	json_object_object_add(o, "by_kind", kinds_json(g->by_kind));
	return o;
}

static struct json_object *by_role_json(const struct fss_dbview *v, int c)
{
	struct json_object *o = json_object_new_object();

	for (int i = 0; i < v->nroles; i++) {
		__u64 n = 0;

		for (int k = 0; k < FSS_SYNC_KIND_MAX; k++)
			n += v->by_role[c][i][k];
		if (!n)
			continue;
		struct json_object *ro = kinds_json(v->by_role[c][i]);

		json_object_object_add(ro, "syncs", json_object_new_int64(n));
		json_object_object_add(o, v->roles[i], ro);
	}
	return o;
}

struct json_object *fss_dbview_classes_json(const struct fss_dbview *v)
{
	struct json_object *a = json_object_new_array();
	int order[FSS_FC_MAX], n = 0;

	for (int c = 0; c < FSS_FC_MAX; c++)
		if (v->cls[c].syncs)
			order[n++] = c;
	/* by total time, largest first (insertion sort: a handful) */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v->cls[order[j]].total_ns >
				  v->cls[order[j - 1]].total_ns; j--) {
			int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (int i = 0; i < n; i++) {
		int c = order[i];
		struct json_object *o = stat_json(&v->cls[c]);
		const char *db = fss_fclass_db(c);

		add_str(o, "class", fss_fclass_id(c));
		add_str(o, "label", fss_fclass_label(c));
		add_str(o, "db", db);
		json_object_object_add(o, "by_role", by_role_json(v, c));
		json_object_array_add(a, o);
	}
	return a;
}

static struct json_object *wall_json(__u64 mono, __s64 off)
{
	struct timespec ts;
	struct tm tm;
	char buf[48];
	__s64 ns = (__s64)mono + off;

	ts.tv_sec = ns / 1000000000LL;
	ts.tv_nsec = ns % 1000000000LL;
	localtime_r(&ts.tv_sec, &tm);
	strftime(buf, 24, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ".%03ld",
		 ts.tv_nsec / 1000000);
	strftime(buf + strlen(buf), sizeof(buf) - strlen(buf), "%z", &tm);
	return json_object_new_string(buf);
}

static struct json_object *ckpt_json(const struct fss_ckpt *c, __s64 off)
{
	struct json_object *o = json_object_new_object(), *bc;
	double secs = (c->end - c->start) / 1e9;

	add_int(o, "pid", c->pid);
	json_object_object_add(o, "start", wall_json(c->start, off));
	json_object_object_add(o, "end", wall_json(c->end, off));
	json_object_object_add(o, "seconds", json_object_new_double(secs));
	add_int(o, "files", c->files);
	add_int(o, "syncs", c->syncs);
	add_int(o, "total_ns", c->total_ns);
	json_object_object_add(o, "longest_us", jus(c->longest_ns));
	json_object_object_add(o, "average_us", c->syncs ?
			       jus(c->total_ns / c->syncs) : NULL);
	json_object_object_add(o, "phases", phases_json(c->phase_ns, c->syncs,
							c->total_ns));
	bc = json_object_new_object();
	for (int k = 0; k < FSS_FC_MAX; k++)
		if (c->by_class[k])
			add_int(bc, fss_fclass_id(k), c->by_class[k]);
	json_object_object_add(o, "by_class", bc);
	add_int(o, "tail_syncs", c->tail_syncs);
	add_int(o, "pre_syncs", c->pre_syncs);
	json_object_object_add(o, "complete",
			       json_object_new_boolean(c->complete));
	return o;
}

struct json_object *fss_dbview_ckpts_json(struct fss_dbview *v, size_t *from,
					  __u64 now_mono, __s64 wall_minus_mono)
{
	struct json_object *a = json_object_new_array();

	fss_ckpt_tick(&v->ckpt, now_mono);
	for (size_t i = *from; i < v->ckpt.ndone; i++)
		json_object_array_add(a, ckpt_json(&v->ckpt.done[i],
						   wall_minus_mono));
	*from = v->ckpt.ndone;
	return a;
}

const char *fss_dbview_roles_note(struct fss_dbview *v)
{
	if (!v->saw_mariadb)
		return NULL;
	if (v->my_source) {
		snprintf(v->note, sizeof(v->note), "MariaDB threads' roles "
			 "(by_role) are the server's thread names from %s, "
			 "by OS thread id", v->my_source);
		return v->note;
	}
	return "MariaDB threads all have comm mariadbd and name no role "
	       "in their titles: their syncs are told apart by file "
	       "class alone (--mysql reads the threads' names)";
}
