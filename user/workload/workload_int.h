/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * workload_int.h - what the workload's two halves share: its files
 * (workload_files.c: the workload object, test files, prefill) and its
 * timed loop (workload.c).  Internal to those two files.
 */
#ifndef __FSS_WORKLOAD_INT_H
#define __FSS_WORKLOAD_INT_H

#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/uio.h>
#include <stddef.h>
#include <linux/types.h>
#include "lib/scratch.h"
#include "workload/workload.h"

#define FILL_LEN	(1u << 20)	/* prefill buffer */
#define BUF_ALIGN	4096

struct fss_wl_file {
	char path[PATH_MAX + 64];	/* what open(2) opens it by */
	const char *name;		/* for messages */
	struct fss_scratch scratch;	/* ours: anonymous, or named (removed) */
	bool created;		/* ours: removed by cleanup */
	bool removed;
	bool blockdev;
	__u64 size;		/* bytes prefilled / preallocated / device size */
	char note[192];		/* set up note, e.g. fallocate refused */
	_Atomic __u64 append_off;
	struct fss_wl_file *next;
};

struct fss_workload {
	char dir[PATH_MAX];
	char user_file[PATH_MAX];	/* "" when none */
	bool force;
	unsigned int seq;
	unsigned int dio_align;		/* O_DIRECT offset alignment, 0 unknown */
	unsigned int dio_mem_align;
	bool dio_probed;
	struct fss_wl_file *files;
	char *fill;			/* FILL_LEN bytes of random data */
	char *zeros;			/* FILL_LEN zero bytes, on demand */
};

static inline __u64 wl__xorshift64s(__u64 *s)
{
	__u64 x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static inline int wl__nospace(int e)
{
	return e == ENOSPC || e == EDQUOT;
}

void wl__fill_random(char *p, size_t n, __u64 seed);
/* "8 MiB", "4 KiB", "512 bytes" */
void wl__size_str(char *buf, size_t len, __u64 v);

/*
 * Create (or, with --file --force, open) one file and make it `size` bytes:
 * random data (PREP_DATA), fallocate or zeros (PREP_ALLOC), or empty
 * (PREP_EMPTY).  It is registered with w, so cleanup removes it.
 */
enum { PREP_DATA = 0, PREP_ALLOC, PREP_EMPTY };
int wl__file_make(struct fss_workload *w, __u64 size, int how,
		  struct fss_wl_file **out, char *err, size_t errlen);
/* Remove a file we created: unlink a name, close an anonymous holder. */
void wl__file_unlink(struct fss_wl_file *f);


/* ---- the timed loop's pieces (workload.c, workload_uring.c) ------------ */

#define LAT_CHUNK	(1u << 16)	/* latencies per chunk */
#define MAX_CHUNKS	4096		/* per test: 256 Mi ops, 2 GiB of latencies */

struct lat_chunk {
	struct lat_chunk *next;
	size_t n;
	__u64 v[LAT_CHUNK];
};

struct lat_buf {
	struct lat_chunk *head, *tail;
};

/* A new chunk, pre-faulted, appended to b: its first slot, or NULL. */
static inline __u64 *wl__lat_grow(struct lat_buf *b)
{
	struct lat_chunk *c = malloc(sizeof(*c));

	if (!c)
		return NULL;
	c->next = NULL;
	c->n = 0;
	/* touch every page now, not inside a timed op */
	memset(c->v, 0, sizeof(c->v));
	if (b->tail)
		b->tail->n = LAT_CHUNK;
	else
		b->head = c;
	if (b->tail)
		b->tail->next = c;
	b->tail = c;
	return c->v;
}

struct run;

struct job {
	struct run *run;
	const struct fss_wl_spec *spec;
	struct fss_wl_file *file;
	unsigned int idx;
	int fd;
	char *buf;
	struct iovec iov;
	__u64 base;		/* overwrite: first offset of this job */
	__u64 nblocks;		/* random: bs blocks in the region */
	__u64 rng;
	struct lat_buf lat;
	__u64 *slot0;		/* first free slot at start */
	__u64 ops, writes, syncs;
	struct fss_hist *shist;	/* io_uring: sync latencies (or NULL) */
	__u64 t_start, t_end;
	int err;		/* errno of the failed call, 0 if none */
	const char *err_op;
	bool short_write;
	bool write_failed;	/* the failed call was a write */
	bool stopped;		/* by a signal */
	bool capped;		/* latency memory limit reached */
	pthread_t tid;
	bool started;
};

struct run {
	const struct fss_wl_spec *spec;
	__u64 dur_ns;
	atomic_int abort;
	atomic_uint chunks;	/* latency chunks allocated by all jobs */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool go;
};

static inline __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

static inline __u64 next_off(struct job *j, unsigned int w)
{
	const struct fss_wl_spec *s = j->spec;

	switch (s->pattern) {
	case FSS_PAT_APPEND:
		return atomic_fetch_add_explicit(&j->file->append_off, s->bs,
						 memory_order_relaxed);
	case FSS_PAT_RANDOM:
		return (wl__xorshift64s(&j->rng) % j->nblocks) * s->bs;
	default:
		return j->base + (__u64)w * s->bs;
	}
}

static inline int fail(struct job *j, int e, const char *what)
{
	j->err = e;
	j->err_op = what;
	return -1;
}

/* io_uring (workload_uring.c): the job's loop with spec->iodepth ops in
 * flight, each a write linked to its sync, timed submit to completion. */
void wl__job_loop_uring(struct job *j);
/* The job's ring for depth io_us (fio's flags where the kernel has them):
 * 0 or -errno.  The struct is liburing's. */
struct io_uring;
int wl__uring_init(struct io_uring *ring, unsigned int depth);

/* io_uring: is each write the sync (no IORING_OP_FSYNC after it)? */
static inline bool wl__uring_dsync(enum fss_method m)
{
	return m == FSS_M_OPEN_DATASYNC || m == FSS_M_OPEN_SYNC ||
	       m == FSS_M_PWRITEV2_DSYNC;
}
/* The same with --sync-batch fio (workload_uring_fio.c). */
void wl__job_loop_uring_fio(struct job *j);

#endif /* __FSS_WORKLOAD_INT_H */
