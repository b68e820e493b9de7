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
#include "lib/hist.h"
#include "lib/phase.h"
#include "sys/devinfo.h"
#include "workload/suite.h"
#include "workload/workload.h"

#define CMP_PROG		"fsyncscope compare"
#define CMP_MAX_FS		3
#define CMP_MAX_WL		8
#define CMP_MAX_MKFS_ARGS	48
#define CMP_FS_KINDS		3
#define CMP_MAX_REPEAT		20
#define CMP_DEF_REPEAT		3
#define CMP_LABEL_LEN		16

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
	/* a filesystem listed twice: "ext4" and "ext4-2", --mkfs-opts by label */
	char label[CMP_MAX_FS][CMP_LABEL_LEN];
	const char *mkfs_label_opts[CMP_MAX_FS];
	const char *mkfs_inst_opts[CMP_FS_KINDS][CMP_MAX_FS + 1];
	int repeat;			/* --repeat: rounds (CMP_DEF_REPEAT) */
	const char *scratch_dev;
	bool destroy;
	const char *save;		/* --save FILE: the document, as JSON */
	bool kernel_paint;		/* --painter kernel */
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

/*
 * One workload on one filesystem over the rounds (compare_ci.c): each
 * round's values (NAN: not measured, partial or not traced) and the
 * histograms of every round merged, for the intervals.
 */
struct cmp_rounds {
	int n;				/* rounds recorded */
	double ops[CMP_MAX_REPEAT];	/* ops/sec */
	double p50[CMP_MAX_REPEAT], p99[CMP_MAX_REPEAT];	/* us */
	double total[CMP_MAX_REPEAT];	/* breakdown total mean, us */
	double phase[FSS_PH_MAX][CMP_MAX_REPEAT];	/* phase means, us */
	struct fss_hist op;		/* per-op latency */
	struct fss_hist tot;		/* traced sync total */
	struct fss_hist ph[FSS_PH_MAX];
};

struct cmp_fs_run {
	int kind;			/* index in cmp_fs_defs */
	int idx;			/* position in --fs */
	const char *label;		/* "ext4", or "ext4-2" for a second */
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
	bool kernel_painted;		/* its syncs painted in the kernel */
	struct fss_run_test tests[CMP_MAX_WL];	/* the first round's */
	struct cmp_rounds *rounds;	/* [CMP_MAX_WL], every round's */
	int rounds_done;
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
/* Every workload on r's mounted filesystem into tests[0..nwl) (one
 * round); sets r->status. */
void cmp_fs_run(const struct cmp_opts *o, struct cmp_fs_run *r,
		const struct cmp_wl *wl, int nwl, struct fss_run_test *tests);
/* Unmount r and detach its loop device, keeping its image for the next
 * round; safe to call repeatedly. */
void cmp_fs_unmount(struct cmp_fs_run *r);
/* Undo whatever was made for r, in reverse; safe to call repeatedly. */
void cmp_fs_teardown(struct cmp_fs_run *r);

/* ---- rounds and intervals (compare_ci.c) -------------------------------- */

/*
 * Record round k of r (every workload's values, histograms merged); frees
 * the round's histograms unless it is the first (kept in r->tests).
 */
void cmp_rounds_record(struct cmp_fs_run *r, struct fss_run_test *tests,
		       int nwl, int k);
/* "rounds": every round's values of workload wi on r. */
struct json_object *cmp_rounds_json(const struct cmp_fs_run *r, int wi);
struct json_object *cmp_spread_json(const struct cmp_fs_run *r, int wi);
/*
 * "confidence" of workload wi on r against base (the first filesystem):
 * per ratio its mean values, ratio, 95 % interval, its sources and a
 * word; NULL for the first filesystem itself.
 */
struct json_object *cmp_confidence_json(const struct cmp_fs_run *r,
					const struct cmp_fs_run *base,
					int wi);

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
