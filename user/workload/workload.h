/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * workload.h - the sync workload engine behind `fsyncscope run`.
 *
 * One test = N jobs (threads) that each repeat one "op" until a deadline
 * or a count: an op is writes_per_sync writes of bs bytes followed by the
 * method's sync (or none).  Every op is timed with CLOCK_MONOTONIC (the
 * clock of bpf_ktime_get_ns) and its latency kept, so percentiles are
 * exact (nearest rank) and traced sync totals can be compared with them.
 *
 * Files are fresh temporary files in the target directory: anonymous
 * (O_TMPFILE) where the filesystem allows it, else `.fsyncscope.<pid>.<n>`
 * created O_EXCL (scratch.h); removed by fss_wl_cleanup(); an existing
 * file or a block device is written only when the user named it with
 * --file and allowed it with --force.
 */
#ifndef __FSS_WORKLOAD_H
#define __FSS_WORKLOAD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "lib/hist.h"

/* How each op syncs. */
enum fss_method {
	FSS_M_OPEN_DATASYNC = 0,	/* O_DSYNC open, no sync call */
	FSS_M_FDATASYNC,
	FSS_M_FSYNC,
	FSS_M_FSYNC_WRITETHROUGH,	/* n/a on Linux */
	FSS_M_OPEN_SYNC,		/* O_SYNC open, no sync call */
	FSS_M_NONE,			/* writes only */
	FSS_M_SYNC_FILE_RANGE,		/* WAIT_BEFORE|WRITE|WAIT_AFTER */
	FSS_M_PWRITEV2_DSYNC,		/* pwritev2(..., RWF_DSYNC) */
	FSS_M_MAX,
};

/* What one op does (the suite's descriptor tests need their own shapes). */
enum fss_shape {
	FSS_SHAPE_WRITE_SYNC = 0,	/* writes on an open fd, then the method */
	FSS_SHAPE_WRITE_FSYNC_CLOSE,	/* open, write, fsync, close */
	FSS_SHAPE_WRITE_CLOSE_FSYNC,	/* open, write, close, open, fsync, close */
};

enum fss_pattern {
	FSS_PAT_OVERWRITE = 0,	/* offsets 0, bs, 2*bs... every op */
	FSS_PAT_APPEND,		/* file grows; starts empty */
	FSS_PAT_RANDOM,		/* bs-aligned random offsets in file_size */
};

const char *fss_method_name(enum fss_method m);
int fss_method_parse(const char *s, enum fss_method *out);	/* 0 or -1 */
bool fss_method_syncs(enum fss_method m);
const char *fss_pattern_name(enum fss_pattern p);
int fss_pattern_parse(const char *s, enum fss_pattern *out);	/* 0 or -1 */

/* "8k", "2M", "512", "1g", "1t" -> bytes (binary units).  0 or -1. */
int fss_size_parse(const char *s, __u64 *out);

/*
 * How the io_uring engine issues its syncs (--sync-batch, docs/run.md):
 * PAIR, each op's own sync once its write completed (N write+sync pairs
 * in flight); FIO, fio 3.33's --fdatasync=1 rule (N writes and syncs in
 * flight together; an op is durable at the first sync issued after its
 * write completed).
 */
enum fss_sync_batch { FSS_SB_PAIR = 0, FSS_SB_FIO };
const char *fss_sync_batch_name(enum fss_sync_batch b);	/* "pair", "fio" */
/*
 * Can the io_uring engine run method m with rule b: fdatasync and fsync
 * (a write, then the sync) with either; open_datasync, open_sync and
 * pwritev2_dsync (one write that is the sync: O_DSYNC / O_SYNC, RWF_DSYNC)
 * with pair only.
 */
bool fss_wl_uring_method(enum fss_method m, enum fss_sync_batch b);
int fss_sync_batch_parse(const char *s, enum fss_sync_batch *out); /* 0/-1 */

struct fss_wl_spec {
	const char *name;
	enum fss_method method;
	enum fss_shape shape;
	enum fss_pattern pattern;
	size_t bs;
	unsigned int writes_per_sync;
	unsigned int jobs;
	bool direct;			/* ask for O_DIRECT */
	bool shared_file;		/* all jobs on one file */
	__u64 file_size;		/* prefill / random region (bytes) */
	double seconds;			/* per test, when count == 0 */
	__u64 count;			/* ops per job (0: run for seconds) */
	unsigned int iodepth;		/* io_uring: ops in flight per job,
					 * each a write linked to its
					 * sync; 0: the sync engine */
	enum fss_sync_batch sync_batch;	/* io_uring: how syncs are issued */
};

struct fss_lat {
	double p50, p90, p99, p99_9, max, mean;	/* microseconds */
};

enum fss_wl_status { FSS_WL_OK = 0, FSS_WL_NA };

struct fss_wl_result {
	enum fss_wl_status status;
	char reason[256];		/* n/a: why */
	char note[256];			/* ok rows: footnote ("" if none) */
	bool direct_used;		/* O_DIRECT really in effect */
	bool partial;			/* stopped by a signal */
	__u64 ops;			/* ops of all jobs (one op = one sync) */
	__u64 writes;			/* write calls of all jobs */
	__u64 syncs;			/* io_uring: sync calls of all jobs */
	struct fss_lat sync_lat;	/* io_uring: each sync, submission to
					 * completion (p50, p99, mean from a
					 * histogram; 0 when none) */
	double elapsed_s;		/* first job start to last job end */
	double ops_per_sec;		/* ops / elapsed_s */
	double usecs_per_op;		/* 1e6 / ops_per_sec */
	struct fss_lat lat;		/* per-op latency over all jobs */
	struct fss_hist *lat_hist;	/* the same as a histogram (caller frees) */
};

/* Called right before the timed loop starts and right after it ends. */
struct fss_wl_hooks {
	void (*before)(void *arg);
	void (*after)(void *arg);
	void *arg;
};

/*
 * Set (to the signal number) by the caller's SIGINT/SIGTERM handler: the
 * running ops finish, the test is marked partial, nothing else starts.
 */
extern volatile sig_atomic_t fss_wl_stop;

struct fss_workload;
struct fss_wl_file;

/*
 * dir: where temporary files go.  user_file (or NULL): the one file to use
 * instead; it must not exist unless force is set (then it may be an
 * existing regular file or a block device, and it is never removed).
 * On failure returns NULL with one line in err.
 */
struct fss_workload *fss_wl_new(const char *dir, const char *user_file,
				bool force, char *err, size_t errlen);

/*
 * A prepared (created, prefilled with `size` bytes of random data and
 * fsynced) file that several tests can share, as pg_test_fsync's suite
 * does.  0, or -errno with one line in err (-EINTR when stopped).
 */
int fss_wl_file_prepare(struct fss_workload *w, __u64 size,
			struct fss_wl_file **out, char *err, size_t errlen);

/*
 * Run one test.  file: a prepared file for all jobs, or NULL to create
 * fresh files for this run (one per job, or one if shared_file) and
 * remove them afterwards.  Unsupported combinations give status n/a with
 * a reason and return 0; a fatal error returns -errno with one line in err
 * (-EINTR when stopped before the timed loop).
 */
int fss_wl_run(struct fss_workload *w, const struct fss_wl_spec *spec,
	       struct fss_wl_file *file, const struct fss_wl_hooks *hooks,
	       struct fss_wl_result *res, char *err, size_t errlen);

/*
 * Can this process set up an io_uring (not disabled by the
 * kernel.io_uring_disabled sysctl, seccomp or an LSM)?  0, or -1 with
 * one line in err (workload_uring.c).
 */
int fss_wl_uring_check(char *err, size_t errlen);

/* Logical block / O_DIRECT alignment of the target (0 if unknown). */
unsigned int fss_wl_dio_align(struct fss_workload *w);

/* Remove every temporary file created so far (safe to call repeatedly). */
void fss_wl_cleanup(struct fss_workload *w);
void fss_wl_free(struct fss_workload *w);

/*
 * Percentiles over n latencies (ns); sorts v in place.  Nearest rank: the
 * p-th percentile is the smallest value with at least p% of the values
 * less than or equal to it, i.e. v[ceil(p/100 * n) - 1] after sorting
 * (pctl.h, the engine report.c's collector uses too).
 */
void fss_lat_compute(__u64 *v, size_t n, struct fss_lat *out);

#endif /* __FSS_WORKLOAD_H */
