// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * workload.c - the sync workload engine (see workload.h).
 *
 * The timed loop does, per op: the op's system calls, one clock_gettime()
 * and one store into a preallocated latency chunk.  Chunks (512 KiB) are
 * allocated and pre-faulted outside the op being timed; the clock is read
 * again after such an allocation so no op's latency includes it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include "lib/pctl.h"
#include "workload/workload_int.h"


static const char *const method_names[FSS_M_MAX] = {
	[FSS_M_OPEN_DATASYNC]		= "open_datasync",
	[FSS_M_FDATASYNC]		= "fdatasync",
	[FSS_M_FSYNC]			= "fsync",
	[FSS_M_FSYNC_WRITETHROUGH]	= "fsync_writethrough",
	[FSS_M_OPEN_SYNC]		= "open_sync",
	[FSS_M_NONE]			= "none",
	[FSS_M_SYNC_FILE_RANGE]		= "sync_file_range",
	[FSS_M_PWRITEV2_DSYNC]		= "pwritev2_dsync",
};

const char *fss_method_name(enum fss_method m)
{
	return (unsigned int)m < FSS_M_MAX ? method_names[m] : "?";
}

int fss_method_parse(const char *s, enum fss_method *out)
{
	for (int i = 0; i < FSS_M_MAX; i++) {
		if (!strcmp(s, method_names[i])) {
			*out = i;
			return 0;
		}
	}
	return -1;
}

bool fss_method_syncs(enum fss_method m)
{
	return m != FSS_M_NONE;
}

static const char *const pattern_names[] = {
	[FSS_PAT_OVERWRITE]	= "overwrite",
	[FSS_PAT_APPEND]	= "append",
	[FSS_PAT_RANDOM]	= "random",
};

const char *fss_pattern_name(enum fss_pattern p)
{
	return (unsigned int)p <= FSS_PAT_RANDOM ? pattern_names[p] : "?";
}

int fss_pattern_parse(const char *s, enum fss_pattern *out)
{
	for (int i = 0; i <= FSS_PAT_RANDOM; i++) {
		if (!strcmp(s, pattern_names[i])) {
			*out = i;
			return 0;
		}
	}
	return -1;
}

int fss_size_parse(const char *s, __u64 *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	/* optional unit tail: "b", "B", "iB", "ib" */
	if (shift && (!strcasecmp(end, "ib") || !strcasecmp(end, "b")))
		end += strlen(end);
	else if (!shift && !strcasecmp(end, "b"))
		end++;
	if (*end)
		return -1;
	if (shift && v > (UINT64_MAX >> shift))
		return -1;
	*out = (__u64)v << shift;
	return 0;
}

/* ---- latencies -------------------------------------------------------- */

static void lat_free(struct lat_buf *b)
{
	struct lat_chunk *c, *next;

	for (c = b->head; c; c = next) {
		next = c->next;
		free(c);
	}
	b->head = b->tail = NULL;
}

void fss_lat_compute(__u64 *v, size_t n, struct fss_lat *out)
{
	long double sum = 0;

	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	fss_pctl_sort(v, n);
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	out->p50 = (double)fss_pctl_rank(v, n, 1, 2) / 1000.0;
	out->p90 = (double)fss_pctl_rank(v, n, 9, 10) / 1000.0;
	out->p99 = (double)fss_pctl_rank(v, n, 99, 100) / 1000.0;
	out->p99_9 = (double)fss_pctl_rank(v, n, 999, 1000) / 1000.0;
	out->max = (double)v[n - 1] / 1000.0;
	out->mean = (double)(sum / n) / 1000.0;
}

/* ---- the timed loop --------------------------------------------------- */

static inline int do_write(struct job *j, int fd, __u64 off)
{
	const struct fss_wl_spec *s = j->spec;
	ssize_t n;

	if (s->method == FSS_M_PWRITEV2_DSYNC)
		n = pwritev2(fd, &j->iov, 1, (off_t)off, RWF_DSYNC);
	else
		n = pwrite(fd, j->buf, s->bs, (off_t)off);
	if (n == (ssize_t)s->bs) {
		j->writes++;
		return 0;
	}
	j->write_failed = true;
	if (n >= 0) {
		j->short_write = true;
		return fail(j, EIO, "write");
	}
	return fail(j, errno, s->method == FSS_M_PWRITEV2_DSYNC ?
		    "pwritev2(RWF_DSYNC)" : "write");
}

static inline int op_write_sync(struct job *j)
{
	const struct fss_wl_spec *s = j->spec;

	for (unsigned int w = 0; w < s->writes_per_sync; w++)
		if (do_write(j, j->fd, next_off(j, w)))
			return -1;
	switch (s->method) {
	case FSS_M_FDATASYNC:
		if (fdatasync(j->fd))
			return fail(j, errno, "fdatasync");
		break;
	case FSS_M_FSYNC:
		if (fsync(j->fd))
			return fail(j, errno, "fsync");
		break;
	case FSS_M_SYNC_FILE_RANGE:
		if (sync_file_range(j->fd, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE |
				    SYNC_FILE_RANGE_WRITE |
				    SYNC_FILE_RANGE_WAIT_AFTER))
			return fail(j, errno, "sync_file_range");
		break;
	default:
		break;
	}
	return 0;
}

/* Open the job's file by name and do one write on it: the fd, or -1. */
static inline int open_write(struct job *j)
{
	int fd = open(j->file->path, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return fail(j, errno, "open");
	if (do_write(j, fd, next_off(j, 0))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* fsync fd, then close it (also when fsync failed). */
static inline int fsync_close(struct job *j, int fd)
{
	if (fsync(fd)) {
		int e = errno;

		close(fd);
		return fail(j, e, "fsync");
	}
	if (close(fd))
		return fail(j, errno, "close");
	return 0;
}

static inline int op_write_fsync_close(struct job *j)
{
	int fd = open_write(j);

	if (fd < 0)
		return -1;
	return fsync_close(j, fd);
}

/* pg_test_fsync's "fsync on a non-write descriptor": a second open */
static inline int op_write_close_fsync(struct job *j)
{
	int fd = open_write(j);

	if (fd < 0)
		return -1;
	if (close(fd))
		return fail(j, errno, "close");
	fd = open(j->file->path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return fail(j, errno, "open");
	return fsync_close(j, fd);
}

static void job_loop(struct job *j)
{
	const struct fss_wl_spec *s = j->spec;
	struct run *r = j->run;
	__u64 *slot = j->slot0, *end = j->lat.tail->v + LAT_CHUNK;
	__u64 t, t_prev, deadline, n = 0;
	int rc;

	t_prev = now_ns();
	j->t_start = t_prev;
	deadline = t_prev + r->dur_ns;
	for (;;) {
		switch (s->shape) {
		case FSS_SHAPE_WRITE_FSYNC_CLOSE:
			rc = op_write_fsync_close(j);
			break;
		case FSS_SHAPE_WRITE_CLOSE_FSYNC:
			rc = op_write_close_fsync(j);
			break;
		default:
			rc = op_write_sync(j);
			break;
		}
		if (rc)
			break;
		t = now_ns();
		*slot++ = t - t_prev;
		t_prev = t;
		n++;
		if (s->count ? n >= s->count : t >= deadline)
			break;
		if (fss_wl_stop) {
			j->stopped = true;
			break;
		}
		if (atomic_load_explicit(&r->abort, memory_order_relaxed))
			break;
		if (slot == end) {
			if (atomic_fetch_add(&r->chunks, 1) >= MAX_CHUNKS) {
				j->capped = true;
				break;
			}
			slot = wl__lat_grow(&j->lat);
			if (!slot) {
				fail(j, ENOMEM, "allocating latency memory");
				break;
			}
			end = slot + LAT_CHUNK;
			t_prev = now_ns();
		}
	}
	j->t_end = t_prev;
	j->lat.tail->n = (size_t)(slot - j->lat.tail->v);
	j->ops = n;
	if (j->err)
		atomic_store(&r->abort, 1);
}

bool fss_wl_uring_method(enum fss_method m, enum fss_sync_batch b)
{
	if (m == FSS_M_FDATASYNC || m == FSS_M_FSYNC)
		return true;
	return b == FSS_SB_PAIR && (m == FSS_M_OPEN_DATASYNC ||
				    m == FSS_M_OPEN_SYNC ||
				    m == FSS_M_PWRITEV2_DSYNC);
}

const char *fss_sync_batch_name(enum fss_sync_batch b)
{
	return b == FSS_SB_FIO ? "fio" : "pair";
}

int fss_sync_batch_parse(const char *s, enum fss_sync_batch *out)
{
	if (!strcmp(s, "pair"))
		*out = FSS_SB_PAIR;
	else if (!strcmp(s, "fio"))
		*out = FSS_SB_FIO;
	else
		return -1;
	return 0;
}

/* A job's timed loop: the sync engine's or io_uring's. */
static void job_run(struct job *j)
{
	if (j->spec->iodepth && j->spec->sync_batch == FSS_SB_FIO)
		wl__job_loop_uring_fio(j);
	else if (j->spec->iodepth)
		wl__job_loop_uring(j);
	else
		job_loop(j);
}

static void *job_thread(void *arg)
{
	struct job *j = arg;
	struct run *r = j->run;

	pthread_mutex_lock(&r->mu);
	while (!r->go)
		pthread_cond_wait(&r->cv, &r->mu);
	pthread_mutex_unlock(&r->mu);
	if (atomic_load(&r->abort))
		return NULL;
	job_run(j);
	return NULL;
}

static void set_na(struct fss_wl_result *res, const char *fmt, const char *a,
		   const char *b)
{
	res->status = FSS_WL_NA;
	snprintf(res->reason, sizeof(res->reason), fmt, a, b);
}

static void add_note(struct fss_wl_result *res, const char *note)
{
	size_t len = strlen(res->note);

	if (!note[0])
		return;
	snprintf(res->note + len, sizeof(res->note) - len, "%s%s",
		 len ? "; " : "", note);
}

static int open_flags(const struct fss_wl_spec *s)
{
	int fl = O_RDWR | O_CLOEXEC;

	if (s->method == FSS_M_OPEN_DATASYNC)
		fl |= O_DSYNC;
	else if (s->method == FSS_M_OPEN_SYNC)
		fl |= O_SYNC;
	return fl;
}

/* Explain a failed first op as an n/a reason; false if it is fatal. */
static bool explain_na(struct fss_workload *w, const struct fss_wl_spec *s,
		       const struct job *j, bool direct, struct fss_wl_result *res)
{
	char sz[32], tmp[96];

	if (j->err == EINVAL && direct && j->write_failed) {
		wl__size_str(sz, sizeof(sz), s->bs);
		if (w->dio_align && s->bs % w->dio_align) {
			snprintf(tmp, sizeof(tmp), "%u-byte", w->dio_align);
			set_na(res, "O_DIRECT write of %s refused (EINVAL): O_DIRECT "
			       "I/O here must be %s aligned (logical block size)",
			       sz, tmp);
		} else {
			set_na(res, "O_DIRECT write of %s refused (EINVAL)%s", sz,
			       w->dio_align ? "" :
			       ": smaller than the logical block size?");
		}
		return true;
	}
	if (j->ops == 0 && (j->err == EINVAL || j->err == EOPNOTSUPP ||
			    j->err == ENOSYS)) {
		set_na(res, "%s is not supported here (%s)", j->err_op,
		       strerror(j->err));
		return true;
	}
	return false;
}

/* One test while it runs: its spec (defaults filled in), files and jobs. */
struct wl_test {
	struct fss_workload *w;
	struct fss_wl_spec s;
	struct fss_wl_file *files[1024];
	unsigned int nfiles;
	bool own_files;		/* created for this test, removed after it */
	bool direct;		/* O_DIRECT asked for and still possible */
	__u64 need;		/* bytes the overwrite region needs */
	struct run run;
	struct job *jobs;
};

/*
 * Fill in the spec's defaults and check what cannot run: -errno (fatal),
 * 1 (n/a, res says why) or 0.
 */
static int wl_run__spec(struct wl_test *t, const struct fss_wl_spec *spec,
			struct fss_wl_file *file, struct fss_wl_result *res,
			char *err, size_t errlen)
{
	struct fss_wl_spec *s = &t->s;

	*s = *spec;
	t->run.spec = s;
	t->own_files = !file;
	t->direct = s->direct;
	if (!s->jobs)
		s->jobs = 1;
	if (!s->writes_per_sync)
		s->writes_per_sync = 1;
	if (s->jobs > 1024) {
		snprintf(err, errlen, "at most 1024 jobs");
		return -EINVAL;
	}
	if (s->method == FSS_M_FSYNC_WRITETHROUGH) {
		set_na(res, "%s%s", "Linux has no write-through fsync (F_FULLFSYNC "
		       "is macOS, FILE_FLAG_WRITE_THROUGH is Windows)", "");
		return 1;
	}
	if (s->shape != FSS_SHAPE_WRITE_SYNC)
		t->direct = false;
	if (file || t->w->user_file[0])
		s->shared_file = true;
	t->nfiles = s->shared_file ? 1 : s->jobs;

	if (s->iodepth && (s->shape != FSS_SHAPE_WRITE_SYNC ||
			   !fss_wl_uring_method(s->method, s->sync_batch) ||
			   s->writes_per_sync != 1 || s->iodepth > 4096)) {
		snprintf(err, errlen, "io_uring: fdatasync or fsync after one "
			 "write, or one open_datasync, open_sync or "
			 "pwritev2_dsync write (pair only), --iodepth 1 to 4096");
		return -EINVAL;
	}
	/* region each job overwrites (each op in flight its own block),
	 * and what the file must hold */
	t->need = (__u64)s->writes_per_sync * s->bs *
		  (s->iodepth ? s->iodepth : 1);
	if (s->shared_file && s->pattern == FSS_PAT_OVERWRITE)
		t->need *= s->jobs;
	if (s->pattern == FSS_PAT_RANDOM && s->file_size < s->bs) {
		snprintf(err, errlen, "--file-size is smaller than --bs");
		return -EINVAL;
	}
	return 0;
}

/* The prepared file, or fresh ones: -errno, 1 (n/a) or 0. */
static int wl_run__files(struct wl_test *t, struct fss_wl_file *file,
			 struct fss_wl_result *res, char *err, size_t errlen)
{
	const struct fss_wl_spec *s = &t->s;
	unsigned int i;
	int rc;

	if (file) {
		t->files[0] = file;
		if (s->pattern == FSS_PAT_APPEND)
			atomic_store(&file->append_off, file->size);
	}
	for (i = 0; !file && i < t->nfiles; i++) {
		__u64 size = s->file_size > t->need ? s->file_size : t->need;
		int how = PREP_DATA;

		if (s->pattern == FSS_PAT_APPEND) {
			how = PREP_EMPTY;
			size = 0;
		} else if (s->pattern == FSS_PAT_RANDOM) {
			how = PREP_ALLOC;
			size = s->file_size;
		}
		rc = wl__file_make(t->w, size, how, &t->files[i], err, errlen);
		if (rc)
			return rc;
		add_note(res, i == 0 ? t->files[i]->note : "");
		if (s->pattern == FSS_PAT_APPEND)
			atomic_store(&t->files[i]->append_off, t->files[i]->size);
	}
	if (s->pattern == FSS_PAT_APPEND && t->files[0]->blockdev) {
		set_na(res, "%s%s", "append needs a regular file, not a block device", "");
		return 1;
	}
	if (t->files[0]->size < (s->pattern == FSS_PAT_RANDOM ? s->bs : t->need) &&
	    s->pattern != FSS_PAT_APPEND) {
		snprintf(err, errlen, "%s is too small for this test",
			 t->files[0]->name);
		return -EINVAL;
	}
	return 0;
}

/* Job i: its file, offsets, buffer, first latency chunk and fd. */
static int wl_run__job_init(struct wl_test *t, unsigned int i, int fl,
			    struct fss_wl_result *res, char *err, size_t errlen)
{
	const struct fss_wl_spec *s = &t->s;
	struct job *j = &t->jobs[i];
	size_t align = BUF_ALIGN;

	j->run = &t->run;
	j->spec = s;
	j->idx = i;
	j->fd = -1;
	j->file = t->files[s->shared_file ? 0 : i];
	j->rng = 0x9E3779B97F4A7C15ULL * (i + 1);
	if (s->shared_file && s->pattern == FSS_PAT_OVERWRITE)
		j->base = (__u64)i * s->writes_per_sync * s->bs *
			  (s->iodepth ? s->iodepth : 1);
	if (s->pattern == FSS_PAT_RANDOM) {
		__u64 region = s->file_size < j->file->size ?
			       s->file_size : j->file->size;

		j->nblocks = region / s->bs;
	}
	if (t->w->dio_mem_align > align)
		align = t->w->dio_mem_align;
	if (posix_memalign((void **)&j->buf, align, s->bs)) {
		j->buf = NULL;
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	wl__fill_random(j->buf, s->bs, 0xC0FFEEULL + i);
	j->iov.iov_base = j->buf;
	j->iov.iov_len = s->bs;
	j->slot0 = wl__lat_grow(&j->lat);
	if (!j->slot0) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (s->shape != FSS_SHAPE_WRITE_SYNC)
		return 0;
	j->fd = open(j->file->path, fl | (t->direct ? O_DIRECT : 0));
	if (j->fd < 0 && t->direct && errno == EINVAL && i == 0) {
		/* the filesystem refuses O_DIRECT: measure buffered */
		t->direct = false;
		add_note(res, "O_DIRECT refused by the filesystem (EINVAL "
			 "at open): measured with buffered I/O");
		j->fd = open(j->file->path, fl);
	}
	if (j->fd < 0) {
		int rc = -errno;

		snprintf(err, errlen, "cannot open %s: %s", j->file->name,
			 strerror(-rc));
		return rc;
	}
	return 0;
}

static int wl_run__jobs(struct wl_test *t, struct fss_wl_result *res,
			char *err, size_t errlen)
{
	int fl = open_flags(&t->s), rc;

	t->jobs = calloc(t->s.jobs, sizeof(*t->jobs));
	if (!t->jobs) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < t->s.jobs; i++)
		t->jobs[i].fd = -1;
	for (unsigned int i = 0; i < t->s.jobs; i++) {
		rc = wl_run__job_init(t, i, fl, res, err, errlen);
		if (rc)
			return rc;
	}
	res->direct_used = t->direct;
	return 0;
}

/* The timed loop: in this thread for one job, else a thread per job. */
static void wl_run__timed(struct wl_test *t, const struct fss_wl_hooks *hooks)
{
	struct run *run = &t->run;
	struct job *jobs = t->jobs;
	unsigned int i, n = t->s.jobs;

	run->dur_ns = (__u64)(t->s.seconds * 1e9);
	pthread_mutex_init(&run->mu, NULL);
	pthread_cond_init(&run->cv, NULL);
	if (hooks && hooks->before)
		hooks->before(hooks->arg);
	if (n == 1) {
		job_run(&jobs[0]);
	} else {
		for (i = 0; i < n; i++) {
			if (pthread_create(&jobs[i].tid, NULL, job_thread, &jobs[i])) {
				atomic_store(&run->abort, 1);
				jobs[i].err = EAGAIN;
				jobs[i].err_op = "pthread_create";
				break;
			}
			jobs[i].started = true;
		}
		pthread_mutex_lock(&run->mu);
		run->go = true;
		pthread_cond_broadcast(&run->cv);
		pthread_mutex_unlock(&run->mu);
		for (i = 0; i < n; i++)
			if (jobs[i].started)
				pthread_join(jobs[i].tid, NULL);
	}
	if (hooks && hooks->after)
		hooks->after(hooks->arg);
	pthread_mutex_destroy(&run->mu);
	pthread_cond_destroy(&run->cv);
}

/* A job's failure: n/a for unsupported combinations (1), else -errno. */
static int wl_run__errors(struct wl_test *t, struct fss_wl_result *res,
			  char *err, size_t errlen)
{
	for (unsigned int i = 0; i < t->s.jobs; i++) {
		struct job *j = &t->jobs[i];

		if (!j->err)
			continue;
		if (explain_na(t->w, &t->s, j, t->direct, res))
			return 1;
		if (wl__nospace(j->err))
			snprintf(err, errlen, "no space left in %s (%s on %s)",
				 t->w->dir, j->err_op, j->file->name);
		else if (j->short_write)
			snprintf(err, errlen, "short write on %s", j->file->name);
		else
			snprintf(err, errlen, "%s on %s failed: %s", j->err_op,
				 j->file->name, strerror(j->err));
		return -j->err;
	}
	return 0;
}

/* Ops, writes, notes and rates of all jobs: 1 (n/a) when none completed. */
static int wl_run__sum(struct wl_test *t, struct fss_wl_result *res)
{
	__u64 t0 = UINT64_MAX, t1 = 0;
	struct fss_hist *sh = NULL;

	for (unsigned int i = 0; i < t->s.jobs; i++) {
		struct job *j = &t->jobs[i];

		res->ops += j->ops;
		res->writes += j->writes;
		res->syncs += j->syncs;
		if (j->shist && !sh)
			sh = fss_hist_new();
		if (j->shist && sh)
			fss_hist_merge(sh, j->shist);
		if (j->stopped)
			res->partial = true;
		if (j->capped && !strstr(res->note, "memory limit"))
			add_note(res, "stopped early: latency memory limit "
				 "(256 Mi ops per test) reached");
		if (!j->t_start)
			continue;
		if (j->t_start < t0)
			t0 = j->t_start;
		if (j->t_end > t1)
			t1 = j->t_end;
	}
	if (sh && sh->count) {
		res->sync_lat.p50 = fss_hist_quantile_ns(sh, 0.5) / 1e3;
		res->sync_lat.p99 = fss_hist_quantile_ns(sh, 0.99) / 1e3;
		res->sync_lat.mean = fss_hist_mean_ns(sh) / 1e3;
	}
	free(sh);
	if (!res->ops) {
		res->partial = fss_wl_stop != 0;
		set_na(res, "%s%s", fss_wl_stop ? "interrupted before the first "
		       "op completed" : "no op completed", "");
		return 1;
	}
	res->elapsed_s = t1 > t0 ? (double)(t1 - t0) / 1e9 : 0;
	if (res->elapsed_s > 0) {
		res->ops_per_sec = (double)res->ops / res->elapsed_s;
		res->usecs_per_op = 1e6 / res->ops_per_sec;
	}
	return 0;
}

/* Every job's latencies into one array: percentiles and the histogram. */
static int wl_run__latencies(struct wl_test *t, struct fss_wl_result *res,
			     char *err, size_t errlen)
{
	__u64 *all, total = 0;

	all = malloc(res->ops * sizeof(*all));
	if (!all) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < t->s.jobs; i++)
		for (struct lat_chunk *c = t->jobs[i].lat.head; c; c = c->next) {
			memcpy(all + total, c->v, c->n * sizeof(*all));
			total += c->n;
		}
	fss_lat_compute(all, total, &res->lat);
	res->lat_hist = fss_hist_new();
	for (__u64 i = 0; res->lat_hist && i < total; i++)
		fss_hist_add(res->lat_hist, all[i]);
	free(all);
	return 0;
}

static void wl_run__free(struct wl_test *t)
{
	unsigned int i;

	if (t->jobs) {
		for (i = 0; i < t->s.jobs; i++) {
			if (t->jobs[i].fd >= 0)
				close(t->jobs[i].fd);
			free(t->jobs[i].buf);
			free(t->jobs[i].shist);
			lat_free(&t->jobs[i].lat);
		}
		free(t->jobs);
	}
	if (t->own_files)
		for (i = 0; i < t->nfiles; i++)
			if (t->files[i])
				wl__file_unlink(t->files[i]);
}

int fss_wl_run(struct fss_workload *w, const struct fss_wl_spec *spec,
	       struct fss_wl_file *file, const struct fss_wl_hooks *hooks,
	       struct fss_wl_result *res, char *err, size_t errlen)
{
	struct wl_test *t = calloc(1, sizeof(*t));
	int rc;

	memset(res, 0, sizeof(*res));
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	t->w = w;
	rc = wl_run__spec(t, spec, file, res, err, errlen);
	if (!rc)
		rc = wl_run__files(t, file, res, err, errlen);
	if (!rc)
		rc = wl_run__jobs(t, res, err, errlen);
	if (!rc && fss_wl_stop) {
		snprintf(err, errlen, "interrupted");
		rc = -EINTR;
	}
	if (!rc) {
		wl_run__timed(t, hooks);
		rc = wl_run__errors(t, res, err, errlen);
	}
	if (!rc)
		rc = wl_run__sum(t, res);
	if (!rc)
		rc = wl_run__latencies(t, res, err, errlen);
	wl_run__free(t);
	free(t);
	return rc > 0 ? 0 : rc;
}
