// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * myroles.c - MariaDB thread roles over the client library (see myroles.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mysql.h>
#include "db/myroles.h"

struct role {
	__u32 tid;
	char name[32];
};

struct fss_myroles {
	MYSQL *c;
	struct role *r;
	size_t n, cap;
	const char *source;
};

void fss_myroles_name(const char *ps, char *buf, size_t len)
{
	const char *s = strrchr(ps, '/');
	size_t n;

	s = s ? s + 1 : ps;
	if (!strcmp(s, "one_connection"))
		s = "connection";
	n = strlen(s);
	if (n > 7 && !strcmp(s + n - 7, "_thread"))
		n -= 7;
	snprintf(buf, len, "%.*s", (int)n, s);
}

static void my_err(char *err, size_t len, const char *what, MYSQL *c)
{
	const char *m = c ? mysql_error(c) : "no memory";

	snprintf(err, len, "%s: %.*s", what, (int)strcspn(m, "\n"), m);
}

/* learn (or relearn) thread tid's role; roles of threads gone are kept */
static int add(struct fss_myroles *m, __u32 tid, const char *name)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->r[i].tid == tid) {
			fss_myroles_name(name, m->r[i].name,
					 sizeof(m->r[i].name));
			return 0;
		}
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		struct role *r = realloc(m->r, cap * sizeof(*r));

		if (!r)
			return -1;
		m->r = r;
		m->cap = cap;
	}
	m->r[m->n].tid = tid;
	fss_myroles_name(name, m->r[m->n].name, sizeof(m->r[0].name));
	m->n++;
	return 0;
}

/* one query's rows (tid, name) into the map; -1: the query failed */
static int load(struct fss_myroles *m, const char *q)
{
	MYSQL_RES *res;
	MYSQL_ROW row;
	int rows = 0;

	if (mysql_query(m->c, q) || !(res = mysql_store_result(m->c)))
		return -1;
	while ((row = mysql_fetch_row(res)))
		if (row[0] && row[1] &&
		    !add(m, (__u32)strtoul(row[0], NULL, 10), row[1]))
			rows++;
	mysql_free_result(res);
	return rows;
}

int fss_myroles_refresh(struct fss_myroles *m, char *err, size_t errlen)
{
	if (load(m, "select THREAD_OS_ID, NAME from performance_schema.threads "
		  "where THREAD_OS_ID is not null") > 0) {
		m->source = "performance_schema.threads";
		return 0;
	}
	/* performance_schema off: only the connection threads have a TID */
	if (load(m, "select TID, if(COMMAND = 'Daemon', 'daemon', "
		  "'one_connection') from information_schema.processlist "
		  "where TID is not null") >= 0) {
		m->source = "information_schema.processlist";
		return 0;
	}
	my_err(err, errlen, "threads", m->c);
	return -1;
}

struct fss_myroles *fss_myroles_open(const char *optfile, char *err,
				     size_t errlen)
{
	struct fss_myroles *m = calloc(1, sizeof(*m));
	unsigned int timeout = 3;

	if (!m || !(m->c = mysql_init(NULL))) {
		my_err(err, errlen, "connection failed", NULL);
		free(m);
		return NULL;
	}
	mysql_options(m->c, MYSQL_READ_DEFAULT_GROUP, "client");
	if (optfile)
		mysql_options(m->c, MYSQL_READ_DEFAULT_FILE, optfile);
	mysql_options(m->c, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
	if (!mysql_real_connect(m->c, NULL, NULL, NULL, NULL, 0, NULL, 0)) {
		my_err(err, errlen, "connection failed", m->c);
		fss_myroles_close(m);
		return NULL;
	}
	if (fss_myroles_refresh(m, err, errlen)) {
		fss_myroles_close(m);
		return NULL;
	}
	return m;
}

void fss_myroles_close(struct fss_myroles *m)
{
	if (!m)
		return;
	if (m->c)
		mysql_close(m->c);
	free(m->r);
	free(m);
}

const char *fss_myroles_get(const struct fss_myroles *m, __u32 tid)
{
	for (size_t i = 0; m && i < m->n; i++)
		if (m->r[i].tid == tid)
			return m->r[i].name;
	return NULL;
}

const char *fss_myroles_source(const struct fss_myroles *m)
{
	return m ? m->source : NULL;
}
