/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * pgnames.h - PostgreSQL relation names of relation files (base/DB/NODE)
 * from the catalog, over libpq (trace --pg CONNINFO).  Looked up in
 * batches before a report, one query per database, and cached; never
 * per sync.
 */
#ifndef __FSS_PGNAMES_H
#define __FSS_PGNAMES_H

#include <stdbool.h>
#include <stddef.h>

struct fss_pgnames;

/* connect (connect_timeout 3 s) and read pg_database; NULL + err on failure */
struct fss_pgnames *fss_pgnames_open(const char *conninfo, char *err,
				     size_t errlen);
void fss_pgnames_close(struct fss_pgnames *p);

/* ask for the name of a relation file (queued until fss_pgnames_resolve) */
void fss_pgnames_want(struct fss_pgnames *p, unsigned long dboid,
		      unsigned long relfilenode);
/* look up everything asked for and not known yet: 0, or -1 when a query
 * failed (then err says why, once; what was known stays known) */
int fss_pgnames_resolve(struct fss_pgnames *p, char *err, size_t errlen);
/* "schema.name", NULL when not known (yet); *kind: "table", "index", ... */
const char *fss_pgnames_get(const struct fss_pgnames *p, unsigned long dboid,
			    unsigned long relfilenode, const char **kind);

#endif
