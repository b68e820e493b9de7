// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * fileclass.c - database file classes from paths (see fileclass.h).
 */
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include "fsyncscope.h"
#include "db/fileclass.h"

static const struct {
	const char *id, *label, *db;
} classes[FSS_FC_MAX] = {
	[FSS_FC_PG_WAL] = { "pg_wal", "WAL segment", "postgresql" },
	[FSS_FC_PG_WAL_INIT] = { "pg_wal_init", "WAL segment creation",
				 "postgresql" },
	[FSS_FC_PG_REL] = { "pg_relation", "relation data", "postgresql" },
	[FSS_FC_PG_FSM] = { "pg_fsm", "relation fsm", "postgresql" },
	[FSS_FC_PG_VM] = { "pg_vm", "relation vm", "postgresql" },
	[FSS_FC_PG_SLRU] = { "pg_slru", "SLRU (pg_xact, ...)", "postgresql" },
	[FSS_FC_PG_TEMP] = { "pg_temp", "temp", "postgresql" },
	[FSS_FC_PG_CONTROL] = { "pg_control", "pg_control", "postgresql" },
	[FSS_FC_PG_OTHER] = { "pg_other", "PostgreSQL other", "postgresql" },
	[FSS_FC_MY_REDO] = { "innodb_redo", "InnoDB redo log", "mariadb" },
	[FSS_FC_MY_UNDO] = { "innodb_undo", "InnoDB undo", "mariadb" },
	[FSS_FC_MY_DBLWR] = { "innodb_doublewrite", "doublewrite/ibdata",
			      "mariadb" },
	[FSS_FC_MY_DATA] = { "innodb_data", "InnoDB data (.ibd)", "mariadb" },
	[FSS_FC_MY_BINLOG] = { "binlog", "binary log", "mariadb" },
	[FSS_FC_MY_OTHER] = { "mariadb_other", "MariaDB other", "mariadb" },
	[FSS_FC_OTHER] = { "other", "other", NULL },
	[FSS_FC_UNRESOLVED] = { "unresolved", "unresolved (dev:ino)", NULL },
};

const char *fss_fclass_id(enum fss_fclass c)
{
	return c < FSS_FC_MAX ? classes[c].id : "other";
}

const char *fss_fclass_label(enum fss_fclass c)
{
	return c < FSS_FC_MAX ? classes[c].label : "other";
}

const char *fss_fclass_db(enum fss_fclass c)
{
	return c < FSS_FC_MAX ? classes[c].db : NULL;
}

/* s is N digits (N >= 1) followed by end or one of the stop characters */
static size_t digits(const char *s)
{
	size_t n = 0;

	while (s[n] >= '0' && s[n] <= '9')
		n++;
	return n;
}

static bool all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strchr("0123456789ABCDEF", s[i]) || !s[i])
			return false;
	return s[n] == '\0';
}

/* the file name after "/DIR/" in path, or NULL */
static const char *after_dir(const char *path, const char *dir)
{
	const char *p = strstr(path, dir);

	return p ? p + strlen(dir) : NULL;
}

/*
 * RELFILENODE[_fsm|_vm|_init][.N] (or tNNN_RELFILENODE...); *fork: 0
 * main, 'f' fsm, 'v' vm, 'i' init; 't' marks a temp relation.
 */
static bool relname(const char *s, unsigned long *node, int *fork, bool *temp)
{
	size_t n;

	*temp = false;
	if (*s == 't') {
		n = digits(s + 1);
		if (!n || s[1 + n] != '_')
			return false;
		*temp = true;
		s += n + 2;
	}
	n = digits(s);
	if (!n)
		return false;
	*node = strtoul(s, NULL, 10);
	s += n;
	*fork = 0;
	if (!strncmp(s, "_fsm", 4))
		*fork = 'f', s += 4;
	else if (!strncmp(s, "_vm", 3))
		*fork = 'v', s += 3;
	else if (!strncmp(s, "_init", 5))
		*fork = 'i', s += 5;
	if (*s == '.') {
		n = digits(s + 1);
		if (!n)
			return false;
		s += n + 1;
	}
	return *s == '\0';
}

/* base/DB/FILE or pg_tblspc/N/PG_VER_CAT/DB/FILE: DB and FILE */
static bool rel_parts(const char *path, unsigned long *db, const char **file)
{
	const char *p = after_dir(path, "/base/");
	const char *t = after_dir(path, "/pg_tblspc/");
	size_t n;

	if (!p && t) {
		/* N/PG_15_202209061/DB/FILE */
		n = digits(t);
		if (!n || t[n] != '/' || strncmp(t + n + 1, "PG_", 3))
			return false;
		p = strchr(t + n + 1, '/');
		if (!p)
			return false;
		p++;
	}
	if (!p)
		return false;
	n = digits(p);
	if (!n || p[n] != '/')
		return false;
	*db = strtoul(p, NULL, 10);
	*file = p + n + 1;
	return !strchr(*file, '/');
}

bool fss_fclass_relfile(const char *path, unsigned long *dboid,
			unsigned long *relfilenode)
{
	const char *file;
	int fork;
	bool temp;

	if (!path || !rel_parts(path, dboid, &file))
		return false;
	return relname(file, relfilenode, &fork, &temp) && !temp;
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static enum fss_fclass pg_rel_class(const char *file)
{
	unsigned long node;
	int fork;
	bool temp;

	if (!relname(file, &node, &fork, &temp))
		return FSS_FC_PG_OTHER;
	if (temp)
		return FSS_FC_PG_TEMP;
	return fork == 'f' ? FSS_FC_PG_FSM : fork == 'v' ? FSS_FC_PG_VM :
	       FSS_FC_PG_REL;
}

static int pg_class(const char *path, unsigned int kind)
{
	static const char *const slru[] = {
		"/pg_xact/", "/pg_multixact/", "/pg_subtrans/",
		"/pg_commit_ts/", "/pg_serial/", "/pg_notify/", "/pg_clog/",
	};
	const char *f = after_dir(path, "/pg_wal/"), *file;
	unsigned long db;

	if (f && !strchr(f, '/')) {
		if (!strncmp(f, "xlogtemp.", 9))
			return FSS_FC_PG_WAL_INIT;
		if (strlen(f) == 24 && all_hex(f, 24))
			return kind == FSS_SYNC_FSYNC ? FSS_FC_PG_WAL_INIT :
			       FSS_FC_PG_WAL;
		return FSS_FC_PG_OTHER;	/* .partial, .history, archive_status */
	}
	if (strstr(path, "/pgsql_tmp"))
		return FSS_FC_PG_TEMP;
	if (rel_parts(path, &db, &file))
		return pg_rel_class(file);
	f = after_dir(path, "/global/");
	if (f && !strchr(f, '/')) {
		if (!strcmp(f, "pg_control"))
			return FSS_FC_PG_CONTROL;
		return pg_rel_class(f);
	}
	for (size_t i = 0; i < sizeof(slru) / sizeof(slru[0]); i++)
		if (strstr(path, slru[i]))
			return FSS_FC_PG_SLRU;
	if (strstr(path, "/pg_wal") || strstr(path, "/base/") ||
	    strstr(path, "/pg_stat") || strstr(path, "/pg_logical/") ||
	    strstr(path, "/pg_replslot/") || strstr(path, "/pg_twophase/") ||
	    strstr(path, "/pg_snapshots/") || strstr(path, "/pg_dynshmem/") ||
	    strstr(path, "postgresql.auto.conf") ||
	    strstr(path, "/pg_filenode.map"))
		return FSS_FC_PG_OTHER;
	return -1;
}

/* NAME.NNNNNN (six digits or more) or NAME.index of a *-bin name */
static bool binlog_name(const char *b)
{
	const char *dot = strrchr(b, '.');

	if (!dot || dot - b < 4 || strncmp(dot - 4, "-bin", 4))
		return false;
	return !strcmp(dot, ".index") || (digits(dot + 1) >= 6 &&
					  dot[1 + digits(dot + 1)] == '\0');
}

static bool ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n > m && !strcmp(s + n - m, suf);
}

static int my_class(const char *path)
{
	const char *b = base(path);
	size_t n;

	if (!strncmp(b, "ib_logfile", 10) && digits(b + 10) &&
	    !b[10 + digits(b + 10)])
		return FSS_FC_MY_REDO;
	if (!strncmp(b, "undo", 4) && (n = digits(b + 4)) == 3 && !b[7])
		return FSS_FC_MY_UNDO;
	if ((!strncmp(b, "ibdata", 6) && digits(b + 6) &&
	     !b[6 + digits(b + 6)]) ||
	    (!strncmp(b, "#ib_", 4) && ends_with(b, ".dblwr")) ||
	    !strcmp(b, "ib_doublewrite"))
		return FSS_FC_MY_DBLWR;
	if (ends_with(b, ".ibd"))
		return FSS_FC_MY_DATA;
	if (binlog_name(b))
		return FSS_FC_MY_BINLOG;
	if (!strncmp(b, "aria_log", 8) || !strcmp(b, "ibtmp1") ||
	    ends_with(b, ".MAI") || ends_with(b, ".MAD") ||
	    !strcmp(b, "ddl_recovery.log") || !strcmp(b, "ib_buffer_pool") ||
	    !strcmp(b, "tc.log"))
		return FSS_FC_MY_OTHER;
	return -1;
}

enum fss_fclass fss_fclass_of(const char *path, unsigned int kind)
{
	int c;

	if (!path || !*path)
		return FSS_FC_UNRESOLVED;
	c = pg_class(path, kind);
	if (c < 0)
		c = my_class(path);
	return c < 0 ? FSS_FC_OTHER : (enum fss_fclass)c;
}
