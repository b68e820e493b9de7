/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * dbrole.h - a database process's role from its comm and title
 * (/proc/PID/cmdline): PostgreSQL's "postgres: walwriter", "postgres: USER
 * DB CLIENT STATE" and the rest; MariaDB's mariadbd (whose threads all
 * share one comm: their roles need performance_schema, see
 * docs/databases.md).  Pure C apart from fss_dbrole_of_pid and
 * fss_dbrole_comm_hint, which read /proc.
 */
#ifndef __FSS_DBROLE_H
#define __FSS_DBROLE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum fss_db { FSS_DB_NONE = 0, FSS_DB_POSTGRES, FSS_DB_MARIADB };

struct fss_dbrole {
	enum fss_db db;
	char role[32];		/* "backend", "walwriter", ...; "" when none */
	char detail[32];	/* "launcher"/"worker" of autovacuum, else "" */
	char user[64];		/* backend, walsender: the user */
	char database[64];	/* backend, autovacuum worker: the database */
	char client[64];	/* backend, walsender: [local], host(port) */
	char cluster[64];	/* PostgreSQL cluster_name, when set */
	char title[160];	/* the stable part of the title: no state */
};

/* "postgresql", "mariadb" or NULL */
const char *fss_db_name(enum fss_db db);

/*
 * Fill *r from a task's comm and its title (argv joined by spaces).
 * Returns true when the process belongs to a database we know; false
 * (and r->db == FSS_DB_NONE) otherwise.
 */
bool fss_dbrole_from_title(const char *comm, const char *title,
			   struct fss_dbrole *r);

/* The same from /proc/PID/{comm,cmdline}; false when not a database
 * process or gone. */
bool fss_dbrole_of_pid(pid_t pid, struct fss_dbrole *r);

/* A short name for 15 columns: "walwriter", "backend:DB", ... */
void fss_dbrole_label(const struct fss_dbrole *r, char *buf, size_t len);

/*
 * Is NAME a role (as --role takes it)?  The names: the PostgreSQL roles
 * of fss_dbrole_names(); "autovacuum" covers launcher and workers,
 * "autovacuum launcher" / "autovacuum worker" one of them, and "bgwriter"
 * may be spelled "background writer".  Returns the database the role is
 * of, FSS_DB_NONE when NAME is no role.
 */
enum fss_db fss_dbrole_known(const char *name);

/* Does r have role NAME (an fss_dbrole_known name)? */
bool fss_dbrole_match(const struct fss_dbrole *r, const char *name);

/* The role names --role takes, space separated, for messages. */
const char *fss_dbrole_names(void);

/*
 * -c NAME that matches no process but a role: scan /proc; when no task
 * has comm NAME and some process has role NAME, write the hint (no
 * newline) to buf and return true.
 */
bool fss_dbrole_comm_hint(const char *name, char *buf, size_t len);

/*
 * The role object of a process for the document: db, role, detail, user,
 * database, client, cluster, title (the stable part), label; NULL when r
 * is no database process.
 */
struct json_object;
struct json_object *fss_dbrole_json(const struct fss_dbrole *r);

/* Processes that have role NAME now (scan of /proc). */
int fss_dbrole_count(const char *name);

#endif
