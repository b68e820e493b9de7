// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * live_db.c - the database view of `trace`: --role, the -c hint, and the
 * classes / checkpoints of dbview.c fed from trace's names (live_names.c).
 *
 * --role filters in user space: the kernel's pid filter is fixed when the
 * tracer loads and a role is a property of a process title, which changes
 * after fork.  What the kernel can do, it does: a PostgreSQL role narrows
 * the kernel's comm filter to "postgres" (unless -c says otherwise), so
 * other processes' syncs are never recorded; among the postgres processes,
 * each new pid's role is read from its title when its first sync is seen
 * (so new backends and autovacuum workers are picked up as they come).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include "db/dbrole.h"
#include "db/dbview.h"
#include "doc/doc.h"
#include "live/live_db.h"
#include "stats/live_agg.h"
#include "live/live_names.h"
#include "db/pgnames.h"
#include "db/datadir.h"
#include "db/myroles.h"

static struct {
	const char *role;		/* --role, NULL: none */
	const char *conninfo;		/* --pg */
	struct fss_pgnames *pg;		/* NULL: no --pg, or it failed */
	bool pg_said;			/* a failed lookup was reported */
	bool mysql;			/* --mysql[=OPTFILE] */
	const char *my_optfile;
	struct fss_myroles *my;		/* NULL: no --mysql, or it failed */
	__u64 my_refreshed;		/* CLOCK_MONOTONIC ns */
	struct fss_dbview v[2];		/* [0] interval, [1] whole run */
	size_t ckpt_listed;		/* checkpoints in interval reports */
	bool init;
} D;

static void db_init(void)
{
	if (D.init)
		return;
	fss_dbview_init(&D.v[0]);
	fss_dbview_init(&D.v[1]);
	D.v[0].no_ckpt = true;		/* the run's detector sees them all */
	D.init = true;
}

enum { OPT_ROLE = 0x180, OPT_PG, OPT_MYSQL };

static const struct argp_option db_opts[] = {
	{ "role", OPT_ROLE, "ROLE", 0, "Only syncs of database processes of "
	  "this role (walwriter, checkpointer, backend, ...: "
	  "docs/databases.md)", 1 },
	{ "pg", OPT_PG, "CONNINFO", 0, "Name relation files (schema.table) "
	  "from this PostgreSQL server's catalog (libpq conninfo)", 1 },
	{ "mysql", OPT_MYSQL, "OPTFILE", OPTION_ARG_OPTIONAL, "MariaDB thread "
	  "roles from the server (its client config, or OPTFILE)", 1 },
	{ 0 },
};

static error_t db_parse(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case OPT_ROLE:
		if (fss_dbrole_known(arg) == FSS_DB_NONE) {
			argp_error(state, "--role '%s': not a role; roles: %s",
				   arg, fss_dbrole_names());
			return EINVAL;
		}
		D.role = arg;
		return 0;
	case OPT_PG:
		D.conninfo = arg;
		return 0;
	case OPT_MYSQL:
		D.mysql = true;
		D.my_optfile = arg;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct argp live_db_argp = { .options = db_opts, .parser = db_parse };

const char *live_db_role(void)
{
	return D.role;
}

const char *live_db_role_comm(void)
{
	return D.role && fss_dbrole_known(D.role) == FSS_DB_POSTGRES ?
	       "postgres" : NULL;
}

int live_db_check(const char *prog, const char *comm, bool cmd)
{
	char hint[256], err[512];

	if (D.conninfo) {
		D.pg = fss_pgnames_open(D.conninfo, err, sizeof(err));
		if (!D.pg)
			fprintf(stderr, "%s: --pg: %s; relation files keep "
				"their paths\n", prog, err);
	}
	if (D.mysql) {
		D.my = fss_myroles_open(D.my_optfile, err, sizeof(err));
		if (!D.my)
			fprintf(stderr, "%s: --mysql: %s; MariaDB syncs are "
				"told apart by file class alone\n", prog, err);
		D.my_refreshed = live_mono_ns();
	}
	if (comm && !cmd && fss_dbrole_comm_hint(comm, hint, sizeof(hint))) {
		fprintf(stderr, "%s: %s\n", prog, hint);
		return 1;
	}
	if (D.role && !cmd && !fss_dbrole_count(D.role))
		fprintf(stderr, "%s: --role %s: no process has this role now; "
			"tracing the ones that take it\n", prog, D.role);
	return 0;
}

bool live_db_keep(__u32 pid)
{
	struct proc_name *p;

	if (!D.role)
		return true;
	p = live_names_proc_find(pid);
	return p && fss_dbrole_match(&p->role, D.role);
}

void live_db_name_relations(const struct table *files)
{
	unsigned long db, node;
	char err[512];

	if (!D.pg)
		return;
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < files->n; i++) {
			const struct group *g = files->all[i];
			struct file_name *f;
			const char *name, *kind;

			f = live_names_file(g->k1, g->k2, false);
			if (!f || !f->path || f->relation ||
			    !fss_fclass_relfile(f->path, &db, &node))
				continue;
			if (!pass) {
				fss_pgnames_want(D.pg, db, node);
				continue;
			}
			name = fss_pgnames_get(D.pg, db, node, &kind);
			if (name) {
				f->relation = strdup(name);
				f->relkind = kind;
			}
		}
		if (!pass && fss_pgnames_resolve(D.pg, err, sizeof(err)) &&
		    !D.pg_said) {
			fprintf(stderr, "fsyncscope trace: --pg: %s\n", err);
			D.pg_said = true;
		}
	}
}

/*
 * A database's file that its process closed before /proc/PID/fd showed it
 * (pg_control, SLRU segments, ...): found by inode in its data directory
 * (the process's cwd), and named for good.
 */
static struct file_name *name_from_datadir(const struct fss_sync_result *r,
					   const struct proc_name *p)
{
	const char *path;
	struct file_name *f;

	if (!p || p->role.db == FSS_DB_NONE || !r->ino ||
	    r->kind == FSS_SYNC_MSYNC || r->kind == FSS_SYNC_SYNCFS)
		return NULL;
	path = fss_datadir_lookup(fss_datadir_of_pid(r->pid), r->dev, r->ino,
				  live_mono_ns());
	f = path ? live_names_file(r->dev, r->ino, true) : NULL;
	if (f && !f->path)
		live_names_set_path(f, strdup(path));
	return f;
}

/*
 * --mysql: when a MariaDB thread not known yet records a sync, the
 * server's threads are read again (at most every 100 ms), while the
 * thread still serves its connection.
 */
void live_db_event(__u32 pid, __u32 tid)
{
	struct proc_name *p = live_names_proc_find(pid);
	__u64 now;
	char err[512];

	if (!D.my || !p || p->role.db != FSS_DB_MARIADB ||
	    fss_myroles_get(D.my, tid))
		return;
	now = live_mono_ns();
	if (now < D.my_refreshed + LIVE_NSEC / 10)
		return;
	D.my_refreshed = now;
	fss_myroles_refresh(D.my, err, sizeof(err));
}

/* The class of a sync of kind on f (NULL: unresolved), once per path. */
static enum fss_fclass file_class(struct file_name *f, unsigned int kind)
{
	const char *path = kind == FSS_SYNC_MSYNC || !f ? NULL : f->path;

	if (!path)
		return fss_fclass_of(NULL, kind);
	if (f->fclass < 0 || f->fclass_kind != kind) {
		f->fclass = fss_fclass_of(path, kind);
		f->fclass_kind = kind;
	}
	return (enum fss_fclass)f->fclass;
}

void live_db_add(const struct fss_sync_result *r, int first_window)
{
	struct proc_name *p = live_names_proc_find(r->pid);
	struct file_name *f = NULL;
	const struct fss_dbrole *role = p ? &p->role : NULL;
	struct fss_dbrole thread;

	db_init();
	if (r->ino)
		f = live_names_file(r->dev, r->ino, false);
	if (!f || !f->path)
		f = name_from_datadir(r, p);
	if (D.my && role && role->db == FSS_DB_MARIADB) {
		const char *name = fss_myroles_get(D.my, r->tid);

		thread = *role;
		snprintf(thread.role, sizeof(thread.role), "%s",
			 name ? name : "");
		role = &thread;
		D.v[0].my_source = D.v[1].my_source = fss_myroles_source(D.my);
	}
	for (int w = first_window; w < 2; w++)
		fss_dbview_add_class(&D.v[w], r, file_class(f, r->kind), role);
}

void live_db_doc_add(struct json_object *o, int w, __u64 now_mono,
		     __u64 mono_to_wall_ns)
{
	size_t all = 0;
	const char *note;

	db_init();
	note = fss_dbview_roles_note(&D.v[1]);
	json_object_object_add(o, "classes", fss_dbview_classes_json(&D.v[w]));
	json_object_object_add(o, "checkpoints",
			       fss_dbview_ckpts_json(&D.v[1],
						     w ? &all : &D.ckpt_listed,
						     now_mono,
						     (__s64)mono_to_wall_ns));
	json_object_object_add(o, "roles_note",
			       note ? json_object_new_string(note) : NULL);
	json_object_object_add(o, "role_filter", D.role ?
			       json_object_new_string(D.role) : NULL);
}

void live_db_reset(int w)
{
	db_init();
	fss_dbview_reset(&D.v[w]);
}

void live_db_free(void)
{
	if (!D.init) {
		fss_pgnames_close(D.pg);
		fss_myroles_close(D.my);
		D.pg = NULL;
		D.my = NULL;
		return;
	}
	fss_dbview_free(&D.v[0]);
	fss_dbview_free(&D.v[1]);
	D.init = false;
	fss_pgnames_close(D.pg);
	D.pg = NULL;
	fss_myroles_close(D.my);
	D.my = NULL;
	fss_datadir_free();
}
