/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Blame results (engine/blame/blame.h) as JSON and as a one-line brief. */
#ifndef FSS_DOC_BLAME_JSON_H
#define FSS_DOC_BLAME_JSON_H

#include <json-c/json.h>
#include "engine/blame/blame.h"

/*
 * cgroup path of an id (NULL: unknown), for the JSON; the callers pass
 * fss_cgroup_path (lib/cgpath.h), which reads /sys/fs/cgroup.
 */
typedef const char *(*fss_cgroup_path_fn)(__u64 id, void *arg);

/* [{pid, comm, cgroup_id, cgroup, phase, blamed_ns, share, self, evidence}] */
struct json_object *fss_blame_json(const struct fss_blame_list *l,
				   fss_cgroup_path_fn path, void *arg);

/*
 * Into a sync's JSON object: "blame" (fss_blame_json with cgroup paths
 * from path) and "blame_self_ns", "blame_others_ns",
 * "blame_unattributed_ns".
 */
void fss_blame_add_json(struct json_object *o, const struct fss_blame_list *l,
			fss_cgroup_path_fn path, void *arg);

/* "journal 18.2 ms 96 % pid 8123 rsync; ..." (at most n bytes) */
void fss_blame_brief(const struct fss_blame_list *l, char *buf, size_t n);

#endif
