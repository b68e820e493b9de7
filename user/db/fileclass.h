/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * fileclass.h - what a synced file is to its database, from its path (and,
 * for a WAL segment, the kind of sync): PostgreSQL WAL, relation data,
 * SLRU, ...; MariaDB/InnoDB redo, undo, doublewrite, data, binlog.  Pure C.
 */
#ifndef __FSS_FILECLASS_H
#define __FSS_FILECLASS_H

#include <stdbool.h>

enum fss_fclass {
	FSS_FC_PG_WAL = 0,	/* pg_wal/<24 hex>, as PostgreSQL flushes WAL */
	FSS_FC_PG_WAL_INIT,	/* a WAL segment fsync'ed: created, recycled */
	FSS_FC_PG_REL,		/* base/DB/RELFILENODE[.N], global/N, ... */
	FSS_FC_PG_FSM,		/* ..._fsm */
	FSS_FC_PG_VM,		/* ..._vm */
	FSS_FC_PG_SLRU,		/* pg_xact, pg_multixact, pg_subtrans, ... */
	FSS_FC_PG_TEMP,		/* pgsql_tmp, temp relations tNNN_NNN */
	FSS_FC_PG_CONTROL,	/* global/pg_control */
	FSS_FC_PG_OTHER,	/* anything else in a data directory */
	FSS_FC_MY_REDO,		/* ib_logfile0 */
	FSS_FC_MY_UNDO,		/* undo001 ... */
	FSS_FC_MY_DBLWR,	/* ibdata1 (system tablespace, the doublewrite
				 * buffer of MariaDB 10.11), #ib_*.dblwr */
	FSS_FC_MY_DATA,		/* *.ibd */
	FSS_FC_MY_BINLOG,	/* *-bin.NNNNNN, *-bin.index */
	FSS_FC_MY_OTHER,	/* aria logs, ibtmp1, ... */
	FSS_FC_OTHER,		/* no database file we know */
	FSS_FC_UNRESOLVED,	/* no path (closed before it was resolved) */
	FSS_FC_MAX,
};

/*
 * The class of a sync of PATH (NULL: unresolved) of kind KIND (enum
 * fss_sync_kind).  A WAL segment synced by fsync(2) is FSS_FC_PG_WAL_INIT:
 * PostgreSQL flushes WAL with fdatasync (wal_sync_method's Linux default)
 * or O_DSYNC writes, and fsyncs a segment only when it creates one
 * (XLogFileInit: the zero-filled pg_wal/xlogtemp.PID, then durable_rename)
 * or recycles one at a checkpoint (durable_rename of an old segment).
 * With wal_sync_method = fsync every WAL flush is an fsync too, and the
 * split no longer holds (docs/databases.md).
 */
enum fss_fclass fss_fclass_of(const char *path, unsigned int kind);

const char *fss_fclass_id(enum fss_fclass c);	/* "pg_wal", ... */
const char *fss_fclass_label(enum fss_fclass c);	/* "WAL segment", ... */
/* "postgresql", "mariadb" or NULL (other, unresolved) */
const char *fss_fclass_db(enum fss_fclass c);

/*
 * Relation data file of PATH: its database oid and relfilenode (the
 * number before _fsm/_vm/.N); false when PATH is no relation file.
 */
bool fss_fclass_relfile(const char *path, unsigned long *dboid,
			unsigned long *relfilenode);

#endif
