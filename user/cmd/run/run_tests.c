// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * run_tests.c - what `fsyncscope run` runs: the pg_test_fsync suite's five
 * sections, or one custom test (or a sweep over its job counts), each test
 * through the workload (wrapped by the tracer's hooks) and printed as a
 * row when it finishes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "lib/progress.h"
#include "cmd/run/run_int.h"

struct fss_run_test *run_rec_new(struct ctx *c)
{
	if (c->ntests == c->cap) {
		int cap = c->cap ? c->cap * 2 : 32;
		struct fss_run_test *n = realloc(c->tests, cap * sizeof(*n));

		if (!n)
			return NULL;
		c->tests = n;
		c->cap = cap;
	}
	memset(&c->tests[c->ntests], 0, sizeof(c->tests[0]));
	return &c->tests[c->ntests++];
}

/*
 * Run one test (its row is printed with the rest of the document at the
 * end, after the findings: docs/findings.md).  0, -EINTR or -errno.
 */
static int run_test(struct ctx *c, struct fss_run_test *r, struct fss_wl_file *file)
{
	struct fss_wl_hooks hooks = { fss_run_hook_before, fss_run_hook_after, &c->hk };
	char err[512];
	int rc;

	c->hk.tr = c->tr;
	c->hk.cur = r;
	if (c->o->wl.verbose)
		fprintf(stderr, "fsyncscope: running %s\n", r->name);
	fss_progress_begin(NULL, r->name, r->spec.seconds, r->spec.count);
	rc = fss_wl_run(c->w, &r->spec, file,
			c->tr && fss_method_syncs(r->spec.method) ? &hooks : NULL,
			&r->res, err, sizeof(err));
	fss_progress_end();
	if (rc == -EINTR && fss_wl_stop) {
		c->ntests--;		/* nothing was measured */
		return rc;
	}
	if (rc) {
		fprintf(stderr, "fsyncscope: %s\n", err);
		c->ntests--;
		return rc;
	}
	r->ran = true;
	return 0;
}

struct suite_sec {
	const char *key, *title, *sub;
};

static const struct suite_sec sections[] = {
	{ "one_8k", "Compare file sync methods using one 8kB write:",
	  "(wal_sync_method order; fdatasync is the Linux default)" },
	{ "two_8k", "Compare file sync methods using two 8kB writes:",
	  "(wal_sync_method order; fdatasync is the Linux default)" },
	{ "open_sync_sizes", "Compare open_sync with different write sizes:",
	  "(16kB per op, written as N writes of 16/N kB each)" },
	{ "fd", "Test if fsync on non-write file descriptor is honored:",
	  "(similar rates mean fsync() on a second descriptor also syncs the "
	  "data written through the first)" },
	{ "non_synced", "Non-synced 8kB writes:", NULL },
};

static struct fss_wl_spec base_spec(const struct run_opts *o)
{
	struct fss_wl_spec s = {
		.method = FSS_M_FDATASYNC,
		.shape = FSS_SHAPE_WRITE_SYNC,
		.pattern = FSS_PAT_OVERWRITE,
		.bs = 8192,
		.writes_per_sync = 1,
		.jobs = 1,
		.file_size = SUITE_FILE_SIZE,
		.seconds = o->wl.seconds,
		.count = o->wl.count,
	};
	return s;
}

/* A new test in section sec, with the suite's spec to change; NULL: ENOMEM. */
static struct fss_run_test *suite_test(struct ctx *c, const struct suite_sec *sec)
{
	struct fss_run_test *r = run_rec_new(c);

	if (r) {
		r->section = sec->title;
		r->section_title = sec->title;
		r->section_note = sec->sub;
		r->spec = base_spec(c->o);
	}
	return r;
}

/* Run one test of the suite: 0, -errno, or -EINTR once a signal came. */
static int suite_run(struct ctx *c, struct fss_run_test *r,
		     struct fss_wl_file *file)
{
	int rc;

	r->spec.name = r->name;
	rc = run_test(c, r, file);
	if (rc)
		return rc;
	return fss_wl_stop ? -EINTR : 0;
}

int run_suite(struct ctx *c)
{
	static const enum fss_method methods[] = {
		FSS_M_OPEN_DATASYNC, FSS_M_FDATASYNC, FSS_M_FSYNC,
		FSS_M_FSYNC_WRITETHROUGH, FSS_M_OPEN_SYNC,
	};
	struct fss_wl_file *file;
	struct fss_run_test *r;
	char err[512];
	int rc, s, i;

	rc = fss_wl_file_prepare(c->w, SUITE_FILE_SIZE, &file, err, sizeof(err));
	if (rc) {
		if (rc != -EINTR || !fss_wl_stop)
			fprintf(stderr, "fsyncscope: %s\n", err);
		return rc;
	}
	/* 1, 2: sync methods with one and two 8kB writes */
	for (s = 0; s < 2; s++) {
		for (i = 0; i < 5; i++) {
			if (!(r = suite_test(c, &sections[s])))
				return -ENOMEM;
			r->spec.method = methods[i];
			r->spec.writes_per_sync = s + 1;
			r->spec.direct = methods[i] == FSS_M_OPEN_DATASYNC ||
					 methods[i] == FSS_M_OPEN_SYNC;
			snprintf(r->name, sizeof(r->name), "%s.%s", sections[s].key,
				 fss_method_name(methods[i]));
			snprintf(r->label, sizeof(r->label), "%s",
				 fss_method_name(methods[i]));
			if ((rc = suite_run(c, r, file)))
				return rc;
		}
	}
	/* 3: open_sync, 16kB per op in 1, 2, 4, 8, 16 writes */
	for (i = 1; i <= 16; i *= 2) {
		if (!(r = suite_test(c, &sections[2])))
			return -ENOMEM;
		r->spec.method = FSS_M_OPEN_SYNC;
		r->spec.direct = true;
		r->spec.writes_per_sync = i;
		r->spec.bs = 16384 / i;
		snprintf(r->name, sizeof(r->name), "%s.%dx%dk", sections[2].key, i, 16 / i);
		snprintf(r->label, sizeof(r->label), "%2d * %2dkB write%s", i, 16 / i,
			 i > 1 ? "s" : "");
		if ((rc = suite_run(c, r, file)))
			return rc;
	}
	/* 4: fsync on the writing descriptor vs on a second one */
	for (i = 0; i < 2; i++) {
		if (!(r = suite_test(c, &sections[3])))
			return -ENOMEM;
		r->spec.method = FSS_M_FSYNC;
		r->spec.shape = i ? FSS_SHAPE_WRITE_CLOSE_FSYNC :
				    FSS_SHAPE_WRITE_FSYNC_CLOSE;
		snprintf(r->name, sizeof(r->name), "%s.%s", sections[3].key,
			 i ? "write_close_fsync" : "write_fsync_close");
		snprintf(r->label, sizeof(r->label), "%s",
			 i ? "write, close, fsync" : "write, fsync, close");
		if ((rc = suite_run(c, r, file)))
			return rc;
	}
	/* 5: writes without sync */
	if (!(r = suite_test(c, &sections[4])))
		return -ENOMEM;
	r->spec.method = FSS_M_NONE;
	snprintf(r->name, sizeof(r->name), "%s.write", sections[4].key);
	snprintf(r->label, sizeof(r->label), "write");
	r->spec.name = r->name;
	if ((rc = run_test(c, r, file)))
		return rc;
	return fss_wl_stop ? -EINTR : 0;
}

static void size_label(char *buf, size_t len, __u64 v)
{
	if (v >= (1 << 20) && !(v % (1 << 20)))
		snprintf(buf, len, "%lluMB", (unsigned long long)(v >> 20));
	else if (v >= 1024 && !(v % 1024))
		snprintf(buf, len, "%llukB", (unsigned long long)(v >> 10));
	else
		snprintf(buf, len, "%lluB", (unsigned long long)v);
}

/* The custom test's spec at one level (a job count, or a depth). */
static struct fss_wl_spec custom_spec(const struct run_opts *o,
				      unsigned int level)
{
	struct fss_wl_spec s = base_spec(o);
	unsigned int jobs = o->sweep_iodepth ? o->wl.jobs : level;

	s.method = o->shape.methods[0];
	s.bs = o->wl.bs;
	s.direct = o->shape.direct;
	s.writes_per_sync = o->wl.wps;
	s.jobs = jobs;
	s.shared_file = o->shared || o->file;
	s.pattern = o->shape.pattern;
	s.file_size = o->wl.file_size;
	s.iodepth = !o->uring ? 0 : o->sweep_iodepth ? level : o->iodepth;
	s.sync_batch = o->sync_batch;
	return s;
}

static const char *custom_title(const struct run_opts *o, char *buf, size_t len,
				bool sweep)
{
	char bs[32], eng[48] = "";

	size_label(bs, sizeof(bs), o->wl.bs);
	if (o->uring && o->sweep_iodepth && sweep)
		snprintf(eng, sizeof(eng), ", io_uring, %u job%s", o->wl.jobs,
			 o->wl.jobs == 1 ? "" : "s");
	else if (o->uring)
		snprintf(eng, sizeof(eng), ", io_uring depth %u", o->iodepth);
	if (o->uring && o->sync_batch == FSS_SB_FIO)
		snprintf(eng + strlen(eng), sizeof(eng) - strlen(eng),
			 ", fio's syncs");
	snprintf(buf, len, "%s: %s, %s x%u per %s, %s%s, %s I/O, %s%s:",
		 !sweep ? "Custom test" : o->sweep_iodepth ?
		 "Sweep over io_uring depth" : "Sweep over jobs",
		 fss_method_name(o->shape.methods[0]), bs, o->wl.wps,
		 fss_method_syncs(o->shape.methods[0]) ? "sync" : "op",
		 fss_pattern_name(o->shape.pattern),
		 o->shape.pattern == FSS_PAT_APPEND ? "" : " writes",
		 o->shape.direct ? "O_DIRECT" : "buffered",
		 o->shared || o->file ? "one shared file" :
		 (sweep && !o->sweep_iodepth) || o->wl.jobs > 1 ?
		 "one file per job" : "one file",
		 eng);
	return buf;
}

int run_custom(struct ctx *c, struct sweep_row *rows, int *nrows)
{
	struct run_opts *o = c->o;
	unsigned int one[1] = { o->wl.jobs };
	const unsigned int *levels = o->nsweep ? o->sweep : one;
	int n = o->nsweep ? o->nsweep : 1, rc = 0;

	*nrows = 0;
	custom_title(o, c->custom_title, sizeof(c->custom_title), o->nsweep > 0);
	for (int i = 0; i < n; i++) {
		struct fss_run_test *r = run_rec_new(c);

		if (!r)
			return -ENOMEM;
		r->section = o->nsweep ? "sweep" : "custom";
		r->section_title = c->custom_title;
		r->spec = custom_spec(o, levels[i]);
		if (o->nsweep) {
			const char *k = o->sweep_iodepth ? "iodepth" : "jobs";

			snprintf(r->name, sizeof(r->name), "sweep.%s%u", k,
				 levels[i]);
			snprintf(r->label, sizeof(r->label), "%s=%u", k,
				 levels[i]);
		} else {
			snprintf(r->name, sizeof(r->name), "custom.%s",
				 fss_method_name(o->shape.methods[0]));
			snprintf(r->label, sizeof(r->label), "%s",
				 fss_method_name(o->shape.methods[0]));
		}
		r->spec.name = r->name;
		rc = run_test(c, r, NULL);
		if (rc)
			break;
		rows[(*nrows)++] = (struct sweep_row){
			r->spec.jobs, r->spec.iodepth ? r->spec.iodepth : 1, r };
		if (fss_wl_stop) {
			rc = -EINTR;
			break;
		}
	}
	/* rows point into c->tests: fix them up after any realloc */
	for (int i = 0, k = 0; i < c->ntests && k < *nrows; i++)
		if (c->tests[i].ran)
			rows[k++].r = &c->tests[i];
	return rc;
}
