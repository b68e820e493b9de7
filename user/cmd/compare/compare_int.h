/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * compare.h - the pieces of `fsyncscope compare`, for its own files only:
 * cmd_compare.c (options, workloads, the driver), compare_fs.c (where the
 * filesystems are made: images, loop devices, mkfs, mount, the per-fs
 * runs, cleanup) and compare_doc.c (its result document, schema
 * fsyncscope/compare).  The plain text is out_text_compare.c, a renderer
 * of that document.  docs/compare.md is the user-facing contract.
 */
#ifndef __FSS_COMPARE_H
#define __FSS_COMPARE_H

#include <limits.h>
#include <stdbool.h>
#include <linux/types.h>
#include "cmd/cli.h"
#include "sys/devinfo.h"
#include "workload/suite.h"
#include "workload/workload.h"

#define CMP_PROG		"fsyncscope compare"
#define CMP_MAX_FS		3
#define CMP_MAX_WL		8
#define CMP_MAX_MKFS_ARGS	48
#define CMP_FS_KINDS		3

/* compare --method: a workload for each method at most */
_Static_assert(CMP_MAX_WL >= FSS_M_MAX, "a workload for each --method");

struct json_object;

/* ---- filesystems (compare_fs.c) ----------------------------------------- */

struct cmp_fs_def {
	const char *name;
	const char *mkfs;
	const char *force;		/* overwrite an existing signature */
	const char *defaults;		/* default options (--mkfs-opts
					 * replaces them) */
	bool journal_traced;		/* its journal has hooks (model.md) */
	const char *journal_what;
};

extern const struct cmp_fs_def cmp_fs_defs[CMP_FS_KINDS];

/* Index in cmp_fs_defs of "ext4", "xfs", "btrfs"; -1 otherwise. */
int cmp_fs_lookup(const char *name);

/* ---- options (cmd_compare.c) -------------------------------------------- */

struct cmp_opts {
	int fs[CMP_MAX_FS];
	int nfs;
	const char *dir;
	__u64 size;
	bool size_set;
	const char *mkfs_opts[CMP_FS_KINDS];
	const char *scratch_dev;
	bool destroy;
	const char *save;		/* --save FILE: the document, as JSON */
	/* workload: -s, -n, --bs..., tracing, output; --method, --pattern... */
	struct fss_cli_wl wl;
	struct fss_cli_shape shape;
};

/* One workload: the same on every filesystem. */
struct cmp_wl {
	char name[64];
	char title[160];
	struct fss_wl_spec spec;
};

/* ---- one filesystem: make, mount, run, undo (compare_fs.c) -------------- */

enum cmp_fs_status { CMP_FS_NOT_RUN = 0, CMP_FS_OK, CMP_FS_INTERRUPTED,
		     CMP_FS_ERROR };

struct cmp_fs_run {
	int kind;			/* index in cmp_fs_defs */
	enum cmp_fs_status status;
	char error[2 * PATH_MAX + 1024];
	/* what was made (undone by cmp_fs_teardown) */
	char img[PATH_MAX];
	bool img_made;
	char mnt[PATH_MAX];
	bool mnt_made, mounted;
	char dev[64];			/* block device mkfs'd and mounted */
	int loop_fd;			/* loop device we attached (-1: none) */
	char loop_name[32];		/* "loop5" */
	/* facts */
	char *mkfs_argv[CMP_MAX_MKFS_ARGS];
	int mkfs_argc;
	char mkfs_buf[1024];		/* storage for the split options */
	struct fss_target t;
	bool t_ok;
	struct fss_devinfo disk;	/* the whole disk under the mount */
	bool disk_ok;
	double setup_s, run_s;
	struct json_object *strategy;
	__u64 drops;
	struct fss_run_test tests[CMP_MAX_WL];
};

/* Where the filesystems are made. */
struct cmp_place {
	char parent[PATH_MAX];		/* where workdir is made */
	char workdir[PATH_MAX];		/* ours: images and mount points */
	bool workdir_made;
	bool in_memory;			/* parent is tmpfs/ramfs */
	struct fss_target t;		/* the filesystem under parent */
	bool t_ok;
	struct fss_devinfo disk;	/* the disk under parent, or the
					 * scratch device */
	bool disk_ok;
};

/* --dir (or /var/tmp, else .) checked and looked up; -1 after one line. */
int cmp_pick_parent(const struct cmp_opts *o, struct cmp_place *pl);
/* A sparse image of --size in workdir with the filesystem made on it. */
int cmp_fs_make_image(const struct cmp_opts *o, struct cmp_fs_run *r,
		      const char *workdir);
/* Loop-attach the image (or mkfs the scratch device) and mount it. */
int cmp_fs_mount(const struct cmp_opts *o, struct cmp_fs_run *r,
		 const char *workdir);
/* Every workload on r's mounted filesystem; sets r->status. */
void cmp_fs_run(const struct cmp_opts *o, struct cmp_fs_run *r,
		const struct cmp_wl *wl, int nwl);
/* Undo whatever was made for r, in reverse; safe to call repeatedly. */
void cmp_fs_teardown(struct cmp_fs_run *r);

/* ---- the result document (compare_doc.c) -------------------------------- */

/*
 * The document's head, known before anything runs: stamp, version, host,
 * images / scratch_dev, options, an empty "filesystems" and the workloads
 * without their results.  What the header is rendered from.
 */
struct json_object *cmp_doc_new(const struct cmp_opts *o,
				const struct cmp_place *pl,
				const struct cmp_wl *wl, int nwl);
/* Append r's entry to "filesystems"; returns it (owned by doc). */
struct json_object *cmp_doc_add_fs(struct json_object *doc,
				   const struct cmp_opts *o,
				   const struct cmp_fs_run *r, int nwl);
/*
 * The rest: entries of the filesystems not added yet (not run), each
 * workload's "results", "interrupted".
 */
void cmp_doc_finish(struct json_object *doc, const struct cmp_opts *o,
		    const struct cmp_fs_run *runs, int nwl);

#endif /* __FSS_COMPARE_H */
