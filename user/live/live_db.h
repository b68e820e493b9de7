/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * live_db.h - the database view of `trace` (docs/databases.md): roles of
 * the traced processes (--role; MariaDB threads with --mysql), their
 * syncs by file class, PostgreSQL's
 * checkpoints; the document keys "classes", "checkpoints", "roles_note"
 * and "role_filter".  No locking here: the caller serialises (cmd_trace.c's
 * lock), as for live_agg.c and live_names.c.
 */
#ifndef __FSS_LIVE_DB_H
#define __FSS_LIVE_DB_H

#include <argp.h>
#include <stdbool.h>
#include <linux/types.h>
#include "engine/attr/attr.h"

struct json_object;

/* trace's options --role and --pg: an argp child */
extern const struct argp live_db_argp;

/* --role's comm the kernel can filter on ("postgres"), or NULL */
const char *live_db_role_comm(void);
const char *live_db_role(void);

/*
 * Checks before tracing, one line on stderr each: -c NAME that no task
 * has but a role does (the hint; returns 1), --role that no process has
 * now (a warning; tracing goes on, the role may come).
 */
int live_db_check(const char *prog, const char *comm, bool cmd);

/*
 * Before a report: the names of the relation files among the files of
 * the report (a table of live_agg.h), looked up in one batch per database.
 */
struct table;
void live_db_name_relations(const struct table *files);

/* The role filter (user space): keep a sync of pid? */
bool live_db_keep(__u32 pid);

/* A sync record of pid/tid read (--mysql: learn a new thread's role now) */
void live_db_event(__u32 pid, __u32 tid);

/* One sync into the views from first_window on ([0]: the interval, [1]:
 * the whole run), after live_names has named it. */
void live_db_add(const struct fss_sync_result *r, int first_window);

/*
 * The database keys into a report of window w: an interval (0) lists the
 * checkpoints found since the last interval, the whole run (1) all.
 */
void live_db_doc_add(struct json_object *report, int w, __u64 now_mono,
		     __u64 mono_to_wall_ns);
void live_db_reset(int w);
void live_db_free(void);

#endif /* __FSS_LIVE_DB_H */
