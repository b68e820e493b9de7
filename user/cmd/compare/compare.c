// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * cmd_compare.c - `fsyncscope compare`: the same sync workloads on several
 * filesystems, each made fresh on a same-size loop image (or, with
 * --scratch-dev DEV --destroy-data, on a real device in turn), traced, and
 * shown side by side: ops/sec, p50/p99, the phase breakdown with the
 * journal highlighted, and ratios against the first filesystem.
 *
 * This file: the options, the workloads, and the driver, one filesystem at
 * a time (compare_fs.c makes, mounts, runs and undoes each); everything it
 * prints is rendered from its document (compare_doc.c) by
 * out_text_compare.c or the other renderers.  Everything made is undone on
 * every path out (errors, SIGINT/SIGTERM/SIGHUP/SIGPIPE); docs/compare.md
 * is the user-facing contract.
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>
#include "cmd/commands.h"
#include "cmd/compare/compare_int.h"
#include "sys/devuse.h"
#include "doc/doc.h"
#include "lib/fmt.h"
#include "lib/parse.h"
#include "render/render.h"
#include "findings/findings.h"

#define PROG		CMP_PROG
#define DEF_SIZE	(1ULL << 30)
#define MIN_SIZE	(64ULL << 20)
#define DEF_FILE_SIZE	(16ULL << 20)

/* ---- options ------------------------------------------------------------ */

enum {
	OPT_FS = 256, OPT_DIR, OPT_SIZE, OPT_MKFS_OPTS, OPT_SCRATCH, OPT_DESTROY,
	OPT_SAVE, OPT_REPEAT, OPT_PAINTER,
};

static const char doc[] =
"Run the same sync workloads on several filesystems and show them side by "
"side.\n\n"
"Each filesystem in --fs is made fresh on its own loop image of --size "
"bytes (a sparse file in a new temporary directory under --dir; default "
"/var/tmp, else the current directory, never tmpfs unless --dir says so), "
"mounted, and given the same workloads (default: fdatasync after an 8 KiB "
"overwrite, fsync after an 8 KiB append, O_DSYNC|O_DIRECT 8 KiB "
"overwrites), each traced so every sync is split into fs, journal, queue, "
"device_write, device_flush and other time (needs root).  One table per "
"workload: ops/sec, p50/p99, each phase's mean and share (journal marked "
"'>'), ratios against the first filesystem.  Images, mounts and loop "
"devices are removed at the end, on errors and on SIGINT/SIGTERM.  "
"--scratch-dev DEV --destroy-data makes the filesystems on DEV instead "
"(its data are destroyed; refused when DEV or a partition of it is "
"mounted or in use)."
"\v"
"EXAMPLES:\n"
"  fsyncscope compare                          ext4 vs xfs in /var/tmp\n"
"  fsyncscope compare --fs ext4,xfs,btrfs -s 10 --dir /srv/scratch\n"
"  fsyncscope compare --fs ext4,xfs --method fdatasync --jobs 4 --json\n"
"  fsyncscope compare --fs ext4,xfs --mkfs-opts 'ext4=-J size=256' "
"--mkfs-opts 'xfs=-l size=128m'\n"
"  fsyncscope compare --fs ext4,xfs --scratch-dev /dev/sdX --destroy-data\n"
"  fsyncscope compare --save cmp.json; fsyncscope report cmp.json -o cmp.html\n"
"\n"
"Exit status: 0 done (n/a cells included), 1 error, 2 usage error,\n"
"130/143 stopped by SIGINT/SIGTERM (what was measured is printed).\n"
"See docs/compare.md for the table and the JSON contract.";

/*
 * Groups 2, 3 and 5 hold the shared options of fss_cli_wl_argp too, group 3
 * those of the workload's shape (fss_cli_shape_argp).
 */
static const struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "Filesystems and where they are made:", 1 },
	{ "fs", OPT_FS, "LIST", 0, "Filesystems in order, from ext4, xfs, btrfs "
	  "(default ext4,xfs; one listed twice is FS and FS-2); ratios are "
	  "against the first", 1 },
	{ "dir", OPT_DIR, "DIR", 0, "Make the images in a new temporary "
	  "directory in DIR (default /var/tmp, else .)", 1 },
	{ "size", OPT_SIZE, "SIZE", 0, "Size of every image (default 1g; xfs "
	  "needs more than 300m)", 1 },
	{ "mkfs-opts", OPT_MKFS_OPTS, "FS=OPTS", 0, "mkfs options for FS instead "
	  "of the defaults, split at spaces (repeatable; FS-2= only the "
	  "second FS)", 1 },
	{ "scratch-dev", OPT_SCRATCH, "DEV", 0, "Make the filesystems on the "
	  "block device DEV instead of images (needs --destroy-data)", 1 },
	{ "destroy-data", OPT_DESTROY, NULL, 0, "Confirm that everything on "
	  "--scratch-dev DEV may be destroyed", 1 },
	{ NULL, 0, NULL, 0, "Test length:", 2 },
	{ NULL, 0, NULL, 0, "Confidence:", 4 },
	{ "repeat", OPT_REPEAT, "N", 0, "Rounds of every workload on every "
	  "filesystem, in alternating order (default 3, 1 to 20): the ratios' "
	  "95% intervals", 4 },
	{ NULL, 0, NULL, 0, "Workloads (default: fdatasync overwrite, fsync "
	  "append, open_datasync):", 3 },
	{ NULL, 0, NULL, 0, "Tracing and output:", 5 },
	{ "painter", OPT_PAINTER, "WHO", 0, "user (default) or kernel: each "
	  "sync painted in the kernel, one record per sync (none summarized "
	  "under many jobs; docs/hotpath.md)", 5 },
	{ "save", OPT_SAVE, "FILE", 0, "Also save the result document (JSON) to "
	  "FILE, whatever --format prints: 'fsyncscope report FILE' renders "
	  "it again", 5 },
	{ 0 },
};

/* --fs: up to CMP_MAX_FS names, a name at most CMP_MAX_FS times. */
static int parse_fs(struct cmp_opts *o, const char *arg)
{
	char buf[256], *tok, *save = NULL;
	int k;

	o->nfs = 0;
	if (strlen(arg) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		k = cmp_fs_lookup(tok);
		if (k < 0 || o->nfs >= CMP_MAX_FS)
			return -1;
		o->fs[o->nfs++] = k;
	}
	return o->nfs ? 0 : -1;
}

/* "ext4" (inst 1) or "ext4-2" (inst 2) before eq: the kind, or -1. */
static int mkfs_opts_name(const char *arg, const char *eq, int *inst)
{
	char name[CMP_LABEL_LEN], *dash;
	int k;

	*inst = 1;
	if (eq - arg >= (int)sizeof(name))
		return -1;
	snprintf(name, sizeof(name), "%.*s", (int)(eq - arg), arg);
	dash = strrchr(name, '-');
	if (dash && dash[1] >= '2' && dash[1] <= '0' + CMP_MAX_FS &&
	    !dash[2]) {
		*inst = dash[1] - '0';
		*dash = '\0';
	}
	k = cmp_fs_lookup(name);
	return k;
}

/*
 * Each filesystem's label ("ext4", the second "ext4-2") and its own
 * --mkfs-opts; 0, or 2 after one line for a label not in --fs.
 */
static int label_fs(struct cmp_opts *o)
{
	int seen[CMP_FS_KINDS] = { 0 };

	for (int i = 0; i < o->nfs; i++) {
		int k = o->fs[i], n = ++seen[k];

		if (n == 1)
			snprintf(o->label[i], sizeof(o->label[i]), "%s",
				 cmp_fs_defs[k].name);
		else
			snprintf(o->label[i], sizeof(o->label[i]), "%s-%d",
				 cmp_fs_defs[k].name, n);
		o->mkfs_label_opts[i] = n > 1 ? o->mkfs_inst_opts[k][n] : NULL;
	}
	for (int k = 0; k < CMP_FS_KINDS; k++)
		for (int n = 2; n <= CMP_MAX_FS; n++)
			if (o->mkfs_inst_opts[k][n] && seen[k] < n) {
				fprintf(stderr, PROG ": --mkfs-opts for %s-%d, "
					"which is not in --fs (try '" PROG
					" --help')\n", cmp_fs_defs[k].name, n);
				return 2;
			}
	return 0;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct cmp_opts *o = state->input;
	const char **slot;
	const char *eq;
	int k, inst;
	long lv;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &o->wl;
		state->child_inputs[1] = &o->shape;
		break;
	case OPT_FS:
		if (parse_fs(o, arg)) {
			argp_error(state, "bad --fs '%s': up to 3 of ext4, xfs, "
				   "btrfs, comma-separated", arg);
			return EINVAL;
		}
		break;
	case OPT_REPEAT:
		if (!fss_parse_long(arg, &lv) || lv < 1 ||
		    lv > CMP_MAX_REPEAT) {
			argp_error(state, "bad --repeat '%s': a number of rounds "
				   "from 1 to %d", arg, CMP_MAX_REPEAT);
			return EINVAL;
		}
		o->repeat = (int)lv;
		break;
	case OPT_DIR:
		if (!arg[0]) {
			argp_error(state, "empty --dir");
			return EINVAL;
		}
		o->dir = arg;
		break;
	case OPT_SIZE:
		if (fss_size_parse(arg, &o->size) || o->size < MIN_SIZE ||
		    o->size > (1ULL << 44)) {
			argp_error(state, "bad --size '%s': a size from 64m to 16t "
				   "(suffixes k, m, g, t)", arg);
			return EINVAL;
		}
		o->size_set = true;
		break;
	case OPT_MKFS_OPTS:
		eq = strchr(arg, '=');
		k = eq ? mkfs_opts_name(arg, eq, &inst) : -1;
		if (k < 0) {
			argp_error(state, "bad --mkfs-opts '%s': FS=OPTIONS with FS "
				   "one of ext4, xfs, btrfs (or FS-2, FS-3)", arg);
			return EINVAL;
		}
		slot = inst > 1 ? &o->mkfs_inst_opts[k][inst] : &o->mkfs_opts[k];
		if (*slot) {
			argp_error(state, "--mkfs-opts for %.*s given twice",
				   (int)(eq - arg), arg);
			return EINVAL;
		}
		*slot = eq + 1;
		break;
	case OPT_SCRATCH:
		if (!arg[0]) {
			argp_error(state, "empty --scratch-dev");
			return EINVAL;
		}
		o->scratch_dev = arg;
		break;
	case OPT_PAINTER:
		return fss_cli_painter_arg(state, arg, &o->kernel_paint);
	case OPT_SAVE:
		return fss_cli_out_arg(state, "--save", arg, &o->save);
	case OPT_DESTROY:
		o->destroy = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s' (images go in --dir DIR)",
			   arg);
		return EINVAL;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {
	{ &fss_cli_wl_argp, 0, NULL, 0 },
	{ &fss_cli_shape_argp[FSS_CLI_SHAPE_LIST], 0, NULL, 0 },
	{ 0 },
};

static const struct argp cmp_argp = { options, parse_opt, NULL, doc, children };

static int usage_error(const char *msg)
{
	return fss_cli_usage_error(PROG, msg);
}

static int check_combinations(struct cmp_opts *o)
{
	enum fss_strategy st;

	if (o->wl.count && o->wl.seconds_set)
		return usage_error("use either -s/--runtime or --count, not both");
	if (o->wl.format == FSS_FMT_PERFETTO)
		return usage_error("--format perfetto is for run --events (compare "
				   "keeps no per-sync records)");
	if (o->wl.no_trace && o->wl.strategy)
		return usage_error("--strategy needs tracing (drop --no-trace)");
	if (o->wl.no_trace && o->kernel_paint)
		return usage_error("--painter kernel paints traced syncs: drop "
				   "--no-trace");
	if (o->wl.strategy && fss_strategy_parse(o->wl.strategy, &st))
		return usage_error("unknown --strategy (auto, fentry, kprobe, "
				   "tracepoint)");
	if (o->scratch_dev && !o->destroy)
		return usage_error("--scratch-dev erases everything on the device: "
				   "add --destroy-data to confirm");
	if (o->destroy && !o->scratch_dev)
		return usage_error("--destroy-data only applies to --scratch-dev DEV");
	if (o->scratch_dev && o->size_set)
		return usage_error("--size does not apply to --scratch-dev (the "
				   "whole device is used)");
	for (int k = 0; k < CMP_FS_KINDS; k++) {
		bool listed = false;

		for (int i = 0; i < o->nfs; i++)
			listed |= o->fs[i] == k;
		if (o->mkfs_opts[k] && !listed) {
			fprintf(stderr, PROG ": --mkfs-opts for %s, which is not in "
				"--fs (try '" PROG " --help')\n", cmp_fs_defs[k].name);
			return 2;
		}
	}
	if (label_fs(o))
		return 2;
	if (o->shape.pattern_set && o->shape.pattern == FSS_PAT_APPEND &&
	    o->wl.file_size_set)
		return usage_error("--file-size does not apply to --pattern append");
	if (o->wl.file_size_set && o->wl.file_size < o->wl.bs * o->wl.wps)
		return usage_error("--file-size is smaller than --bs x "
				   "--writes-per-sync");
	return 0;
}

/* ---- workloads ---------------------------------------------------------- */

static void wl_fill(const struct cmp_opts *o, struct cmp_wl *w,
		    enum fss_method m, enum fss_pattern p, bool direct)
{
	char bs[32], what[64];
	const char *pat;
	size_t l;

	if (o->shape.pattern_set)
		p = o->shape.pattern;
	direct = direct || o->shape.direct;
	memset(w, 0, sizeof(*w));
	w->spec = (struct fss_wl_spec){
		.method = m,
		.shape = FSS_SHAPE_WRITE_SYNC,
		.pattern = p,
		.bs = o->wl.bs,
		.writes_per_sync = o->wl.wps,
		.jobs = o->wl.jobs,
		.direct = direct,
		.file_size = o->wl.file_size,
		.seconds = o->wl.seconds,
		.count = o->wl.count,
	};
	snprintf(w->name, sizeof(w->name), "%s_%s%s", fss_method_name(m),
		 fss_pattern_name(p), direct ? "_direct" : "");
	fss_fmt_size(bs, sizeof(bs), o->wl.bs);
	pat = p == FSS_PAT_APPEND ? "append" : p == FSS_PAT_RANDOM ?
	      "random write" : "overwrite";
	if (o->wl.wps > 1)
		snprintf(what, sizeof(what), "%u x %s %ss", o->wl.wps, bs, pat);
	else
		snprintf(what, sizeof(what), "%s %s", bs, pat);
	switch (m) {
	case FSS_M_OPEN_DATASYNC:
	case FSS_M_OPEN_SYNC:
	case FSS_M_PWRITEV2_DSYNC:
		snprintf(w->title, sizeof(w->title), "%s: %s, each write %s",
			 w->name, what, m == FSS_M_OPEN_DATASYNC ? "O_DSYNC" :
			 m == FSS_M_OPEN_SYNC ? "O_SYNC" : "RWF_DSYNC");
		break;
	case FSS_M_NONE:
		snprintf(w->title, sizeof(w->title), "%s: %s, no sync", w->name,
			 what);
		break;
	default:
		snprintf(w->title, sizeof(w->title), "%s: %s after each %s",
			 w->name, fss_method_name(m), what);
		break;
	}
	l = strlen(w->title);
	snprintf(w->title + l, sizeof(w->title) - l, "%s", direct ?
		 ", O_DIRECT" : "");
	if (o->wl.jobs > 1) {
		l = strlen(w->title);
		snprintf(w->title + l, sizeof(w->title) - l, ", %u jobs", o->wl.jobs);
	}
}

static int wl_build(const struct cmp_opts *o, struct cmp_wl *w)
{
	int n = 0;

	if (o->shape.nmethods) {
		for (int i = 0; i < o->shape.nmethods; i++)
			wl_fill(o, &w[n++], o->shape.methods[i],
				FSS_PAT_OVERWRITE, false);
		return n;
	}
	wl_fill(o, &w[n++], FSS_M_FDATASYNC, FSS_PAT_OVERWRITE, false);
	wl_fill(o, &w[n++], FSS_M_FSYNC, FSS_PAT_APPEND, false);
	/* O_DIRECT, as pg_test_fsync's open_datasync test */
	wl_fill(o, &w[n++], FSS_M_OPEN_DATASYNC, FSS_PAT_OVERWRITE, true);
	return n;
}

/* ---- helpers ------------------------------------------------------------ */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}


/* ---- the command: one step at a time ------------------------------------ */

struct cmp_ctx {
	struct cmp_opts o;
	struct cmp_wl wl[CMP_MAX_WL];
	int nwl;
	struct cmp_fs_run *runs;
	struct cmp_place *pl;
	struct json_object *doc;
	bool measured;
	int nadded;			/* filesystems in the document */
	struct fss_run_test round_tests[CMP_MAX_WL];	/* rounds 2.. */
};

/* Root, memory, the scratch device's checks, where things go.  0 or 1. */
static int prepare(struct cmp_ctx *c)
{
	const struct cmp_opts *o = &c->o;
	char err[2 * PATH_MAX + 256], whole[64];

	if (geteuid() != 0) {
		fprintf(stderr, PROG ": needs root (loop devices, mkfs, "
			"mount%s)\n", o->wl.no_trace ? "" : " and BPF for tracing");
		return 1;
	}
	c->runs = calloc(CMP_MAX_FS, sizeof(*c->runs));
	c->pl = calloc(1, sizeof(*c->pl));
	if (!c->runs || !c->pl) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	for (int i = 0; i < o->nfs; i++) {
		c->runs[i].kind = o->fs[i];
		c->runs[i].idx = i;
		c->runs[i].label = o->label[i];
		c->runs[i].loop_fd = -1;
		c->runs[i].rounds = calloc(CMP_MAX_WL,
					   sizeof(*c->runs[i].rounds));
		if (!c->runs[i].rounds) {
			fprintf(stderr, PROG ": out of memory\n");
			return 1;
		}
	}
	if (o->scratch_dev) {
		if (fss_dev_check_unused(o->scratch_dev, whole, sizeof(whole),
					 err, sizeof(err))) {
			fprintf(stderr, PROG ": --scratch-dev %s\n", err);
			return 1;
		}
		c->pl->disk_ok = !fss_devinfo_read(whole, &c->pl->disk);
	}
	return cmp_pick_parent(o, c->pl) ? 1 : 0;
}

/*
 * Our directory, then the images: a bad --mkfs-opts fails before anything
 * is measured, and before the header, so that its error is the only
 * output.  0 or 1.
 */
static int make_images(struct cmp_ctx *c)
{
	struct cmp_place *pl = c->pl;

	snprintf(pl->workdir, sizeof(pl->workdir),
		 "%.4000s/fsyncscope-compare.XXXXXX", pl->parent);
	if (!mkdtemp(pl->workdir)) {
		fprintf(stderr, PROG ": cannot make a directory in %s: %s\n",
			pl->parent, strerror(errno));
		return 1;
	}
	pl->workdir_made = true;
	if (c->o.scratch_dev)
		return 0;
	for (int i = 0; i < c->o.nfs && !fss_wl_stop; i++) {
		if (cmp_fs_make_image(&c->o, &c->runs[i], pl->workdir) &&
		    !fss_wl_stop) {
			fprintf(stderr, PROG ": %s\n", c->runs[i].error);
			return 1;
		}
	}
	return 0;
}

/* The document's head; the plain header rendered from it.  0 or 1. */
static int begin_output(struct cmp_ctx *c)
{
	const struct cmp_opts *o = &c->o;

	if (!o->wl.json && o->wl.output && fss_stdout_to_begin(o->wl.output))
		return 1;
	c->doc = cmp_doc_new(o, c->pl, c->wl, c->nwl);
	if (!o->wl.json && !fss_wl_stop)
		fss_text_compare_header(stdout, c->doc);
	return 0;
}

/*
 * Add the entries of the filesystems that are done (the text prints them
 * at the end, after the findings: docs/findings.md), in --fs
 * order: all rounds run, or every one that ran at all when stopped.
 */
static void add_done(struct cmp_ctx *c)
{
	const struct cmp_opts *o = &c->o;
	while (c->nadded < o->nfs) {
		struct cmp_fs_run *r = &c->runs[c->nadded];

		if (!(r->rounds_done == o->repeat ||
		      (fss_wl_stop && r->rounds_done > 0)))
			break;
		cmp_doc_add_fs(c->doc, o, r, c->nwl);
		c->nadded++;
	}
}

/* Round k on r: mount, every workload, unmount.  0, 1 error, -1 stop. */
static int run_round(struct cmp_ctx *c, struct cmp_fs_run *r, int k)
{
	const struct cmp_opts *o = &c->o;
	struct fss_run_test *tests = k ? c->round_tests : r->tests;
	double t0 = now_s();

	if (cmp_fs_mount(o, r, c->pl->workdir)) {
		cmp_fs_unmount(r);
		if (fss_wl_stop)
			return -1;
		fprintf(stderr, PROG ": %s\n", r->error);
		return 1;
	}
	r->setup_s += now_s() - t0;
	t0 = now_s();
	cmp_fs_run(o, r, c->wl, c->nwl, tests);
	r->run_s += now_s() - t0;
	cmp_fs_unmount(r);
	if (r->status == CMP_FS_ERROR) {
		fprintf(stderr, PROG ": %s\n", r->error);
		return 1;
	}
	cmp_rounds_record(r, tests, c->nwl, k);
	r->rounds_done++;
	c->measured = true;
	return r->status == CMP_FS_INTERRUPTED ? -1 : 0;
}

/*
 * --repeat rounds of every filesystem, in --fs order in even rounds and
 * the reverse in odd ones (A B, B A, A B: a drift of the machine lands on
 * both alike); each filesystem's line once it is done.  0 or 1.
 */
static int run_all(struct cmp_ctx *c)
{
	const struct cmp_opts *o = &c->o;
	int rc = 0;

	for (int k = 0; k < o->repeat && !rc && !fss_wl_stop; k++) {
		for (int j = 0; j < o->nfs && !rc && !fss_wl_stop; j++) {
			int i = k % 2 ? o->nfs - 1 - j : j;

			rc = run_round(c, &c->runs[i], k);
			if (rc <= 0)
				add_done(c);
		}
	}
	if (rc > 0)
		return 1;
	add_done(c);
	return 0;
}

/* Undo everything made, whatever happened. */
static void cleanup(struct cmp_ctx *c)
{
	struct cmp_place *pl = c->pl;

	if (!c->runs || !pl)
		return;
	for (int i = 0; i < c->o.nfs; i++)
		cmp_fs_teardown(&c->runs[i]);
	if (pl->workdir_made) {
		if (rmdir(pl->workdir))
			fprintf(stderr, PROG ": warning: cannot remove %s: "
				"%s\n", pl->workdir, strerror(errno));
		else
			pl->workdir_made = false;
	}
}

/*
 * The finished document: --save, then the tables rendered from it (or the
 * whole document as --format asks); lost events and a stop said on
 * stderr.  The exit status.
 */
static int finish(struct cmp_ctx *c)
{
	const struct cmp_opts *o = &c->o;
	__u64 drops = 0;
	int ret = 0;

	for (int i = 0; i < o->nfs; i++)
		drops += c->runs[i].drops;
	if (!c->measured) {
		fprintf(stderr, PROG ": stopped by %s before anything was "
			"measured\n", fss_run_sig_name(fss_wl_stop));
		return 128 + fss_wl_stop;
	}
	cmp_doc_finish(c->doc, o, c->runs, c->nwl);
	c->doc = fss_findings_attach(c->doc);	/* docs/findings.md */
	if (o->save && fss_emit(json_object_get(c->doc), FSS_FMT_JSON, o->save,
				NULL))
		ret = 1;
	if (o->wl.json) {
		if (fss_emit(json_object_get(c->doc), o->wl.format,
			     o->wl.output, NULL))
			ret = 1;
	} else {
		fss_text_compare_body(stdout, c->doc, o->wl.hist);
	}
	fflush(stdout);
	if (drops)
		fprintf(stderr, PROG ": warning: %llu events lost; the "
			"syncs near them were summarized, not painted\n",
			(unsigned long long)drops);
	if (fss_wl_stop) {
		fprintf(stderr, PROG ": stopped by %s; results above are "
			"partial\n", fss_run_sig_name(fss_wl_stop));
		ret = 128 + fss_wl_stop;
	}
	return ret;
}

int cmd_compare(int argc, char **argv)
{
	struct cmp_ctx *c = calloc(1, sizeof(*c));
	struct fss_run_sigs sigs;
	bool sigs_set = false;
	int rc, ret;

	if (!c) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	c->o = (struct cmp_opts){
		.fs = { 0, 1 },
		.nfs = 2,
		.size = DEF_SIZE,
		.repeat = CMP_DEF_REPEAT,
	};
	fss_cli_wl_defaults(&c->o.wl);
	fss_cli_shape_defaults(&c->o.shape);
	c->o.wl.file_size = DEF_FILE_SIZE;
	if (fss_cli_parse(&cmp_argp, argc, argv, &c->o, PROG, &rc))
		goto done;
	rc = check_combinations(&c->o);
	if (rc)
		goto done;
	c->nwl = wl_build(&c->o, c->wl);
	ret = prepare(c);
	if (!ret) {
		fss_run_signals_catch(&sigs);
		sigs_set = true;
		ret = make_images(c);
	}
	if (!ret)
		ret = begin_output(c);
	if (!ret)
		ret = run_all(c);
	cleanup(c);
	if (!ret)
		ret = finish(c);
	if (fss_stdout_to_end(ret != 1) && !ret)
		ret = 1;
	rc = ret;
done:
	for (int i = 0; c->runs && i < CMP_MAX_FS; i++) {
		json_object_put(c->runs[i].strategy);
		fss_run_tests_free(c->runs[i].tests, CMP_MAX_WL);
		free(c->runs[i].rounds);
	}
	fss_run_tests_free(c->round_tests, CMP_MAX_WL);
	if (sigs_set)
		fss_run_signals_restore(&sigs);
	json_object_put(c->doc);
	free(c->runs);
	free(c->pl);
	free(c);
	return rc;
}
