/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * dbview.h - the database view of a trace: syncs per file class (with
 * their roles), and the checkpoints of PostgreSQL's checkpointer.  Fed one
 * attributed sync at a time; gives the JSON keys "classes" and
 * "checkpoints" of trace's result document (docs/databases.md).
 */
#ifndef __FSS_DBVIEW_H
#define __FSS_DBVIEW_H

#include <stdbool.h>
#include <linux/types.h>
#include "engine/attr/attr.h"
#include "db/checkpoint.h"
#include "db/dbrole.h"
#include "db/fileclass.h"
#include "lib/hist.h"
#include "stats/live_agg.h"

#define FSS_DBV_ROLES	24	/* roles counted per class; more go to "more" */

/*
 * A class's syncs are a group of trace's other tables: a gstat of
 * live_agg.h, summed by live_gstat_add (the JSON shows its syncs, errors,
 * times, phases, kinds and histogram).
 */
struct fss_dbview {
	struct gstat cls[FSS_FC_MAX];
	char roles[FSS_DBV_ROLES][32];
	int nroles;
	__u64 by_role[FSS_FC_MAX][FSS_DBV_ROLES][FSS_SYNC_KIND_MAX];
	struct fss_ckpt_det ckpt;	/* the checkpointer's syncs */
	bool saw_mariadb;
	const char *my_source;		/* --mysql: where roles came from */
	char note[200];
	bool no_ckpt;			/* no checkpoint detection here */
};

void fss_dbview_init(struct fss_dbview *v);
void fss_dbview_free(struct fss_dbview *v);
/* forget the class counts (a new interval); checkpoints are kept */
void fss_dbview_reset(struct fss_dbview *v);

/*
 * One sync: r, the path of its file as known now (NULL: unresolved) and
 * its process's role (NULL: not a database process).
 */
void fss_dbview_add(struct fss_dbview *v, const struct fss_sync_result *r,
		    const char *path, const struct fss_dbrole *role);

/* The same with its file's class known (fss_fclass_of of its path). */
void fss_dbview_add_class(struct fss_dbview *v,
			  const struct fss_sync_result *r, enum fss_fclass c,
			  const struct fss_dbrole *role);

/* "classes": non-empty classes by total time, each a group (syncs,
 * total_ns, p50_us, ..., phases) with class, label, db, by_kind, by_role */
struct json_object *fss_dbview_classes_json(const struct fss_dbview *v);

/*
 * "checkpoints": those found from the *from-th on (a checkpoint is found
 * once the checkpointer has been quiet for a second after it; *from is
 * then moved past the last); times are given as wall clock by adding
 * wall_minus_mono (ns).
 */
struct json_object *fss_dbview_ckpts_json(struct fss_dbview *v, size_t *from,
					  __u64 now_mono,
					  __s64 wall_minus_mono);

/* the note on roles for the document (NULL when there is none to make) */
const char *fss_dbview_roles_note(struct fss_dbview *v);

#endif
