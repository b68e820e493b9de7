// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * pgnames.c - relation names from PostgreSQL's catalog (see pgnames.h).
 *
 * A relation file base/DBOID/FILENODE belongs to the database with that
 * oid: its name is in that database's pg_class, so each database is asked
 * over its own connection (the CONNINFO given, with dbname replaced), with
 * pg_filenode_relation(0, FILENODE) (0: the database's default
 * tablespace), which also finds mapped catalogs whose relfilenode is 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libpq-fe.h>
#include "db/pgnames.h"

struct rel {
	unsigned long db, node;
	char *name;		/* NULL: not found (or not asked yet) */
	char kind[12];
	bool asked;
};

struct dbconn {
	unsigned long oid;
	char *name;
	PGconn *c;		/* NULL: not connected (yet) */
	bool failed;
};

struct fss_pgnames {
	char *conninfo;
	struct dbconn *dbs;
	size_t ndbs;
	struct rel *rels;
	size_t nrels, cap;
};

static PGconn *connect_db(const char *conninfo, const char *dbname)
{
	const char *keys[] = { "dbname", "dbname", "connect_timeout",
			       "application_name", NULL };
	const char *vals[] = { conninfo, dbname, "3", "fsyncscope", NULL };

	if (!dbname)
		keys[1] = NULL;
	return PQconnectdbParams(keys, vals, 1);
}

/* the first line of libpq's message */
static void pq_err(char *err, size_t len, const char *what, const char *msg)
{
	size_t n = strcspn(msg, "\n");

	snprintf(err, len, "%s: %.*s", what, (int)n, msg);
}

struct fss_pgnames *fss_pgnames_open(const char *conninfo, char *err,
				     size_t errlen)
{
	struct fss_pgnames *p = calloc(1, sizeof(*p));
	PGconn *c = connect_db(conninfo, NULL);
	PGresult *r;

	if (!p || !c || PQstatus(c) != CONNECTION_OK) {
		pq_err(err, errlen, "connection failed",
		       c ? PQerrorMessage(c) : "no memory");
		PQfinish(c);
		free(p);
		return NULL;
	}
	r = PQexec(c, "select oid, datname, datname = current_database() "
		   "from pg_database where datallowconn");
	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		pq_err(err, errlen, "pg_database", PQerrorMessage(c));
		PQclear(r);
		PQfinish(c);
		free(p);
		return NULL;
	}
	p->conninfo = strdup(conninfo);
	p->ndbs = PQntuples(r);
	p->dbs = calloc(p->ndbs ? p->ndbs : 1, sizeof(*p->dbs));
	for (size_t i = 0; p->dbs && i < p->ndbs; i++) {
		p->dbs[i].oid = strtoul(PQgetvalue(r, i, 0), NULL, 10);
		p->dbs[i].name = strdup(PQgetvalue(r, i, 1));
		if (!strcmp(PQgetvalue(r, i, 2), "t")) {
			p->dbs[i].c = c;
			c = NULL;
		}
	}
	PQclear(r);
	PQfinish(c);
	return p;
}

void fss_pgnames_close(struct fss_pgnames *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->ndbs; i++) {
		PQfinish(p->dbs[i].c);
		free(p->dbs[i].name);
	}
	for (size_t i = 0; i < p->nrels; i++)
		free(p->rels[i].name);
	free(p->dbs);
	free(p->rels);
	free(p->conninfo);
	free(p);
}

static struct rel *find(const struct fss_pgnames *p, unsigned long db,
			unsigned long node)
{
	for (size_t i = 0; i < p->nrels; i++)
		if (p->rels[i].db == db && p->rels[i].node == node)
			return &p->rels[i];
	return NULL;
}

void fss_pgnames_want(struct fss_pgnames *p, unsigned long db,
		      unsigned long node)
{
	if (!p || find(p, db, node))
		return;
	if (p->nrels == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		struct rel *n = realloc(p->rels, cap * sizeof(*n));

		if (!n)
			return;
		p->rels = n;
		p->cap = cap;
	}
	memset(&p->rels[p->nrels], 0, sizeof(p->rels[0]));
	p->rels[p->nrels].db = db;
	p->rels[p->nrels++].node = node;
}

static const char *kind_name(char k)
{
	switch (k) {
	case 'r': return "table";
	case 'i': return "index";
	case 'S': return "sequence";
	case 't': return "toast";
	case 'm': return "matview";
	case 'p': return "partitioned";
	case 'I': return "index";
	default: return "relation";
	}
}

static const char q[] =
	"select f, n.nspname || '.' || c.relname, c.relkind "
	"from unnest($1::oid[]) f "
	"join pg_class c on c.oid = pg_filenode_relation(0, f) "
	"join pg_namespace n on n.oid = c.relnamespace";

/* one database's unasked files; -1 on a failed query */
static int resolve_db(struct fss_pgnames *p, struct dbconn *d, char *err,
		      size_t errlen)
{
	size_t len = 2, n = 0;
	char *arr;
	const char *params[1];
	PGresult *r;
	int rc = 0;

	for (size_t i = 0; i < p->nrels; i++)
		if (p->rels[i].db == d->oid && !p->rels[i].asked)
			n++;
	if (!n)
		return 0;
	if (!d->c && !d->failed) {
		d->c = connect_db(p->conninfo, d->name);
		if (PQstatus(d->c) != CONNECTION_OK) {
			pq_err(err, errlen, d->name, PQerrorMessage(d->c));
			PQfinish(d->c);
			d->c = NULL;
			d->failed = true;
			return -1;
		}
	}
	if (!d->c)
		return 0;
	arr = malloc(n * 21 + 3);
	if (!arr)
		return -1;
	arr[0] = '{';
	arr[1] = '\0';
	for (size_t i = 0; i < p->nrels; i++) {
		struct rel *e = &p->rels[i];

		if (e->db != d->oid || e->asked)
			continue;
		len += sprintf(arr + len - 1, "%s%lu", len > 2 ? "," : "",
			       e->node);
		e->asked = true;
	}
	strcpy(arr + len - 1, "}");
	params[0] = arr;
	r = PQexecParams(d->c, q, 1, NULL, params, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		pq_err(err, errlen, d->name, PQerrorMessage(d->c));
		rc = -1;
	}
	for (int i = 0; rc == 0 && i < PQntuples(r); i++) {
		unsigned long node = strtoul(PQgetvalue(r, i, 0), NULL, 10);
		struct rel *e = find(p, d->oid, node);

		if (!e || e->name)
			continue;
		e->name = strdup(PQgetvalue(r, i, 1));
		snprintf(e->kind, sizeof(e->kind), "%s",
			 kind_name(PQgetvalue(r, i, 2)[0]));
	}
	PQclear(r);
	free(arr);
	return rc;
}

int fss_pgnames_resolve(struct fss_pgnames *p, char *err, size_t errlen)
{
	int rc = 0;

	if (!p)
		return 0;
	for (size_t i = 0; i < p->ndbs; i++)
		if (resolve_db(p, &p->dbs[i], err, errlen))
			rc = -1;
	/* files of databases we cannot connect to: asked, unknown */
	for (size_t i = 0; i < p->nrels; i++)
		p->rels[i].asked = true;
	return rc;
}

const char *fss_pgnames_get(const struct fss_pgnames *p, unsigned long db,
			    unsigned long node, const char **kind)
{
	const struct rel *e = p ? find(p, db, node) : NULL;

	if (kind)
		*kind = e && e->name ? e->kind : NULL;
	return e ? e->name : NULL;
}
