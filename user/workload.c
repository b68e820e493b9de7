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
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include "scratch.h"
#include "workload.h"

volatile sig_atomic_t fss_wl_stop;

#define FILL_LEN	(1u << 20)	/* prefill buffer */
#define LAT_CHUNK	(1u << 16)	/* latencies per chunk */
#define MAX_CHUNKS	4096		/* per test: 256 Mi ops, 2 GiB of latencies */
#define BUF_ALIGN	4096

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

/* ---- files ------------------------------------------------------------ */

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

static __u64 xorshift64s(__u64 *s)
{
	__u64 x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static void fill_random(char *p, size_t n, __u64 seed)
{
	__u64 s = seed | 1;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		__u64 r = xorshift64s(&s);
		memcpy(p + i, &r, 8);
	}
	for (; i < n; i++)
		p[i] = (char)xorshift64s(&s);
}

/*
 * An anonymous test file takes two descriptors while a job runs (the
 * holder and the job's), so --jobs 1024 needs over 2048: raise the soft
 * limit towards the hard one (nothing here uses select()).
 */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= 8192)
		return;
	rl.rlim_cur = rl.rlim_max < 8192 ? rl.rlim_max : 8192;
	setrlimit(RLIMIT_NOFILE, &rl);
}

struct fss_workload *fss_wl_new(const char *dir, const char *user_file,
				bool force, char *err, size_t errlen)
{
	struct fss_workload *w;
	struct stat st;

	if (stat(dir, &st)) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return NULL;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: not a directory", dir);
		return NULL;
	}
	if (!user_file && access(dir, W_OK)) {
		snprintf(err, errlen, "cannot write in %s: %s", dir,
			 strerror(errno));
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	raise_nofile();
	if (!realpath(dir, w->dir))
		snprintf(w->dir, sizeof(w->dir), "%s", dir);
	if (user_file)
		snprintf(w->user_file, sizeof(w->user_file), "%s", user_file);
	else	/* named test files of runs that were killed (no O_TMPFILE) */
		fss_scratch_sweep(w->dir, stderr);
	w->force = force;
	if (posix_memalign((void **)&w->fill, BUF_ALIGN, FILL_LEN)) {
		free(w);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	fill_random(w->fill, FILL_LEN, 0x5eed5eedULL);
	return w;
}

unsigned int fss_wl_dio_align(struct fss_workload *w)
{
	return w->dio_align;
}

static void probe_dio(struct fss_workload *w, const char *path)
{
	struct statx sx;

	if (w->dio_probed)
		return;
	w->dio_probed = true;
	if (statx(AT_FDCWD, path, 0, STATX_DIOALIGN, &sx))
		return;
	if (sx.stx_mask & STATX_DIOALIGN) {
		w->dio_align = sx.stx_dio_offset_align;
		w->dio_mem_align = sx.stx_dio_mem_align;
	}
}

/* Remove a file we created: unlink a name, close an anonymous holder. */
static void file_unlink(struct fss_wl_file *f)
{
	if (f->scratch.fd >= 0 || f->scratch.named) {
		fss_scratch_close(&f->scratch);
		f->removed = true;
	} else if (f->created && !f->removed) {
		unlink(f->path);
		f->removed = true;
	}
}

void fss_wl_cleanup(struct fss_workload *w)
{
	if (!w)
		return;
	for (struct fss_wl_file *f = w->files; f; f = f->next)
		file_unlink(f);
}

void fss_wl_free(struct fss_workload *w)
{
	struct fss_wl_file *f, *next;

	if (!w)
		return;
	fss_wl_cleanup(w);
	for (f = w->files; f; f = next) {
		next = f->next;
		free(f);
	}
	free(w->fill);
	free(w->zeros);
	free(w);
}

static int nospace(int e)
{
	return e == ENOSPC || e == EDQUOT;
}

static void size_str(char *buf, size_t len, __u64 v)
{
	if (v >= (1ULL << 20) && !(v & ((1ULL << 20) - 1)))
		snprintf(buf, len, "%llu MiB", (unsigned long long)(v >> 20));
	else if (v >= 1024 && !(v & 1023))
		snprintf(buf, len, "%llu KiB", (unsigned long long)(v >> 10));
	else
		snprintf(buf, len, "%llu bytes", (unsigned long long)v);
}

/* Write `size` bytes of buf-sized chunks at offset 0, then fsync. */
static int fill_file(struct fss_workload *w, int fd, struct fss_wl_file *f,
		     __u64 size, const char *data, char *err, size_t errlen)
{
	__u64 done = 0;
	char sz[32];

	while (done < size) {
		size_t n = size - done < FILL_LEN ? size - done : FILL_LEN;
		ssize_t r;

		if (fss_wl_stop) {
			snprintf(err, errlen, "interrupted");
			return -EINTR;
		}
		r = pwrite(fd, data, n, done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			int e = r < 0 ? errno : EIO;

			size_str(sz, sizeof(sz), size);
			if (nospace(e))
				snprintf(err, errlen, "no space left in %s for a %s test file",
					 w->dir, sz);
			else
				snprintf(err, errlen, "writing %s: %s", f->name,
					 strerror(e));
			return -e;
		}
		done += r;
	}
	if (fsync(fd)) {
		int e = errno;

		size_str(sz, sizeof(sz), size);
		if (nospace(e))
			snprintf(err, errlen, "no space left in %s for a %s test file",
				 w->dir, sz);
		else
			snprintf(err, errlen, "fsync %s: %s", f->name, strerror(e));
		return -e;
	}
	return 0;
}

/*
 * Create (or, with --file --force, open) one file and make it `size` bytes:
 * random data (how = 0), fallocate or zeros (how = 1), or empty (how = 2).
 */
enum { PREP_DATA = 0, PREP_ALLOC, PREP_EMPTY };

static int file_make(struct fss_workload *w, __u64 size, int how,
		     struct fss_wl_file **out, char *err, size_t errlen)
{
	struct fss_wl_file *f;
	struct stat st;
	int fd, rc = 0;

	f = calloc(1, sizeof(*f));
	if (!f) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	f->scratch.fd = -1;
	f->name = f->path;
	if (w->user_file[0]) {
		snprintf(f->path, sizeof(f->path), "%s", w->user_file);
		fd = open(f->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd >= 0) {
			f->created = true;
		} else if (errno == EEXIST && w->force) {
			fd = open(f->path, O_RDWR | O_CLOEXEC);
			if (fd >= 0 && fstat(fd, &st) == 0 &&
			    !S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
				close(fd);
				free(f);
				snprintf(err, errlen, "%s: not a regular file or block device",
					 w->user_file);
				return -EINVAL;
			}
			if (fd >= 0 && S_ISBLK(st.st_mode)) {
				off_t end = lseek(fd, 0, SEEK_END);

				f->blockdev = true;
				f->size = end > 0 ? (__u64)end : 0;
			}
		} else if (errno == EEXIST) {
			free(f);
			snprintf(err, errlen, "%s exists; refusing to write to it without --force",
				 w->user_file);
			return -EEXIST;
		}
		if (fd < 0) {
			rc = -errno;
			free(f);
			snprintf(err, errlen, "cannot open %s: %s", w->user_file,
				 strerror(-rc));
			return rc;
		}
	} else {
		/* anonymous where O_TMPFILE works: a SIGKILL leaves nothing */
		rc = fss_scratch_open(&f->scratch, w->dir, FSS_SCRATCH_TEST,
				      (int)w->seq++);
		fd = rc ? -1 : open(f->scratch.path, O_RDWR | O_CLOEXEC);
		if (!rc && fd < 0) {
			rc = -errno;
			fss_scratch_close(&f->scratch);
		}
		if (rc) {
			free(f);
			if (nospace(-rc))
				snprintf(err, errlen, "no space left in %s", w->dir);
			else
				snprintf(err, errlen, "cannot create a test file in %s: %s",
					 w->dir, strerror(-rc));
			return rc;
		}
		snprintf(f->path, sizeof(f->path), "%s", f->scratch.path);
		f->name = f->scratch.name;
		f->created = true;
	}
	/* registered before it is filled, so every exit path removes it */
	f->next = w->files;
	w->files = f;
	probe_dio(w, f->path);
	if (!f->blockdev && !fstat(fd, &st))
		f->size = (__u64)st.st_size;	/* append starts at the end */

	if (f->blockdev) {
		if (how == PREP_DATA && size) {
			if (size > f->size)
				size = f->size;
			rc = fill_file(w, fd, f, size, w->fill, err, errlen);
		}
		goto out;
	}
	if (how == PREP_DATA) {
		rc = fill_file(w, fd, f, size, w->fill, err, errlen);
	} else if (how == PREP_ALLOC && size) {
		int e = fallocate(fd, 0, 0, (off_t)size) ? errno : 0;

		if (e && nospace(e)) {
			char sz[32];

			size_str(sz, sizeof(sz), size);
			snprintf(err, errlen, "no space left in %s for a %s test file",
				 w->dir, sz);
			rc = -e;
		} else if (e) {
			snprintf(f->note, sizeof(f->note),
				 "fallocate refused (%s): preallocated by writing zeros",
				 strerror(e));
			if (!w->zeros)
				w->zeros = calloc(1, FILL_LEN);
			if (!w->zeros) {
				snprintf(err, errlen, "out of memory");
				rc = -ENOMEM;
			} else {
				rc = fill_file(w, fd, f, size, w->zeros, err, errlen);
			}
		} else if (fsync(fd)) {
			rc = -errno;
			snprintf(err, errlen, "fsync %s: %s", f->name, strerror(-rc));
		}
	}
	if (!rc && how != PREP_EMPTY)
		f->size = size;
out:
	close(fd);
	*out = f;
	return rc;
}

int fss_wl_file_prepare(struct fss_workload *w, __u64 size,
			struct fss_wl_file **out, char *err, size_t errlen)
{
	return file_make(w, size, PREP_DATA, out, err, errlen);
}

/* ---- latencies -------------------------------------------------------- */

struct lat_chunk {
	struct lat_chunk *next;
	size_t n;
	__u64 v[LAT_CHUNK];
};

struct lat_buf {
	struct lat_chunk *head, *tail;
};

static __u64 *lat_grow(struct lat_buf *b)
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

static void lat_free(struct lat_buf *b)
{
	struct lat_chunk *c, *next;

	for (c = b->head; c; c = next) {
		next = c->next;
		free(c);
	}
	b->head = b->tail = NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* LSD radix sort, 16 bits a pass, skipping passes above the maximum. */
static void sort_u64(__u64 *v, size_t n)
{
	__u64 *tmp, *src = v, *dst, max = 0;
	size_t *cnt, i;

	for (i = 0; i < n; i++)
		if (v[i] > max)
			max = v[i];
	if (n < 4096)
		goto fallback;
	tmp = malloc(n * sizeof(*tmp));
	cnt = malloc(65536 * sizeof(*cnt));
	if (!tmp || !cnt) {
		free(tmp);
		free(cnt);
		goto fallback;
	}
	dst = tmp;
	for (unsigned int shift = 0; shift < 64 && (max >> shift); shift += 16) {
		size_t sum = 0;
		__u64 *t;

		memset(cnt, 0, 65536 * sizeof(*cnt));
		for (i = 0; i < n; i++)
			cnt[(src[i] >> shift) & 0xffff]++;
		for (i = 0; i < 65536; i++) {
			size_t c = cnt[i];

			cnt[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[cnt[(src[i] >> shift) & 0xffff]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
	free(cnt);
	return;
fallback:
	qsort(v, n, sizeof(*v), cmp_u64);
}

static double rank_us(const __u64 *v, size_t n, __u64 num, __u64 den)
{
	__u64 r = (num * (__u64)n + den - 1) / den;	/* ceil(p * n) */

	return (double)v[r ? r - 1 : 0] / 1000.0;
}

void fss_lat_compute(__u64 *v, size_t n, struct fss_lat *out)
{
	long double sum = 0;

	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	sort_u64(v, n);
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	out->p50 = rank_us(v, n, 1, 2);
	out->p90 = rank_us(v, n, 9, 10);
	out->p99 = rank_us(v, n, 99, 100);
	out->p99_9 = rank_us(v, n, 999, 1000);
	out->max = (double)v[n - 1] / 1000.0;
	out->mean = (double)(sum / n) / 1000.0;
}

/* ---- the timed loop --------------------------------------------------- */

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
	__u64 ops, writes;
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
		return (xorshift64s(&j->rng) % j->nblocks) * s->bs;
	default:
		return j->base + (__u64)w * s->bs;
	}
}

static int fail(struct job *j, int e, const char *what)
{
	j->err = e;
	j->err_op = what;
	return -1;
}

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
			slot = lat_grow(&j->lat);
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
	job_loop(j);
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
		size_str(sz, sizeof(sz), s->bs);
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

int fss_wl_run(struct fss_workload *w, const struct fss_wl_spec *spec,
	       struct fss_wl_file *file, const struct fss_wl_hooks *hooks,
	       struct fss_wl_result *res, char *err, size_t errlen)
{
	struct fss_wl_spec s = *spec;
	struct fss_wl_file *files[1024] = { 0 };
	struct run run = { .spec = &s };
	struct job *jobs = NULL;
	unsigned int nfiles, i;
	bool own_files = !file, direct = s.direct;
	__u64 need, total = 0, t0 = UINT64_MAX, t1 = 0, *all = NULL;
	int rc = 0, fl;

	memset(res, 0, sizeof(*res));
	if (!s.jobs)
		s.jobs = 1;
	if (!s.writes_per_sync)
		s.writes_per_sync = 1;
	if (s.jobs > 1024) {
		snprintf(err, errlen, "at most 1024 jobs");
		return -EINVAL;
	}
	if (s.method == FSS_M_FSYNC_WRITETHROUGH) {
		set_na(res, "%s%s", "Linux has no write-through fsync (F_FULLFSYNC "
		       "is macOS, FILE_FLAG_WRITE_THROUGH is Windows)", "");
		return 0;
	}
	if (s.shape != FSS_SHAPE_WRITE_SYNC)
		direct = false;
	if (file || w->user_file[0])
		s.shared_file = true;
	nfiles = s.shared_file ? 1 : s.jobs;

	/* region each job overwrites, and what the file must hold */
	need = (__u64)s.writes_per_sync * s.bs;
	if (s.shared_file && s.pattern == FSS_PAT_OVERWRITE)
		need *= s.jobs;
	if (s.pattern == FSS_PAT_RANDOM && s.file_size < s.bs) {
		snprintf(err, errlen, "--file-size is smaller than --bs");
		return -EINVAL;
	}

	if (file) {
		files[0] = file;
		if (s.pattern == FSS_PAT_APPEND)
			atomic_store(&file->append_off, file->size);
	} else {
		for (i = 0; i < nfiles; i++) {
			__u64 size = s.file_size > need ? s.file_size : need;
			int how = PREP_DATA;

			if (s.pattern == FSS_PAT_APPEND) {
				how = PREP_EMPTY;
				size = 0;
			} else if (s.pattern == FSS_PAT_RANDOM) {
				how = PREP_ALLOC;
				size = s.file_size;
			}
			rc = file_make(w, size, how, &files[i], err, errlen);
			if (rc)
				goto out;
			add_note(res, i == 0 ? files[i]->note : "");
			if (s.pattern == FSS_PAT_APPEND)
				atomic_store(&files[i]->append_off, files[i]->size);
		}
	}
	if (s.pattern == FSS_PAT_APPEND && files[0]->blockdev) {
		set_na(res, "%s%s", "append needs a regular file, not a block device", "");
		goto out;
	}
	if (files[0]->size < (s.pattern == FSS_PAT_RANDOM ? s.bs : need) &&
	    s.pattern != FSS_PAT_APPEND) {
		snprintf(err, errlen, "%s is too small for this test", files[0]->name);
		rc = -EINVAL;
		goto out;
	}

	jobs = calloc(s.jobs, sizeof(*jobs));
	if (!jobs) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	fl = open_flags(&s);
	for (i = 0; i < s.jobs; i++) {
		struct job *j = &jobs[i];
		size_t align = BUF_ALIGN;

		j->run = &run;
		j->spec = &s;
		j->idx = i;
		j->fd = -1;
		j->file = files[s.shared_file ? 0 : i];
		j->rng = 0x9E3779B97F4A7C15ULL * (i + 1);
		if (s.shared_file && s.pattern == FSS_PAT_OVERWRITE)
			j->base = (__u64)i * s.writes_per_sync * s.bs;
		if (s.pattern == FSS_PAT_RANDOM) {
			__u64 region = s.file_size < j->file->size ?
				       s.file_size : j->file->size;

			j->nblocks = region / s.bs;
		}
		if (w->dio_mem_align > align)
			align = w->dio_mem_align;
		if (posix_memalign((void **)&j->buf, align, s.bs)) {
			snprintf(err, errlen, "out of memory");
			rc = -ENOMEM;
			goto out;
		}
		fill_random(j->buf, s.bs, 0xC0FFEEULL + i);
		j->iov.iov_base = j->buf;
		j->iov.iov_len = s.bs;
		j->slot0 = lat_grow(&j->lat);
		if (!j->slot0) {
			snprintf(err, errlen, "out of memory");
			rc = -ENOMEM;
			goto out;
		}
		if (s.shape != FSS_SHAPE_WRITE_SYNC)
			continue;
		j->fd = open(j->file->path, fl | (direct ? O_DIRECT : 0));
		if (j->fd < 0 && direct && errno == EINVAL && i == 0) {
			/* the filesystem refuses O_DIRECT: measure buffered */
			direct = false;
			add_note(res, "O_DIRECT refused by the filesystem (EINVAL "
				 "at open): measured with buffered I/O");
			j->fd = open(j->file->path, fl);
		}
		if (j->fd < 0) {
			rc = -errno;
			snprintf(err, errlen, "cannot open %s: %s", j->file->name,
				 strerror(-rc));
			goto out;
		}
	}
	res->direct_used = direct;

	if (fss_wl_stop) {
		snprintf(err, errlen, "interrupted");
		rc = -EINTR;
		goto out;
	}
	run.dur_ns = (__u64)(s.seconds * 1e9);
	pthread_mutex_init(&run.mu, NULL);
	pthread_cond_init(&run.cv, NULL);
	if (hooks && hooks->before)
		hooks->before(hooks->arg);
	if (s.jobs == 1) {
		job_loop(&jobs[0]);
	} else {
		for (i = 0; i < s.jobs; i++) {
			if (pthread_create(&jobs[i].tid, NULL, job_thread, &jobs[i])) {
				atomic_store(&run.abort, 1);
				jobs[i].err = EAGAIN;
				jobs[i].err_op = "pthread_create";
				break;
			}
			jobs[i].started = true;
		}
		pthread_mutex_lock(&run.mu);
		run.go = true;
		pthread_cond_broadcast(&run.cv);
		pthread_mutex_unlock(&run.mu);
		for (i = 0; i < s.jobs; i++)
			if (jobs[i].started)
				pthread_join(jobs[i].tid, NULL);
	}
	if (hooks && hooks->after)
		hooks->after(hooks->arg);
	pthread_mutex_destroy(&run.mu);
	pthread_cond_destroy(&run.cv);

	/* errors: n/a for unsupported combinations, fatal otherwise */
	for (i = 0; i < s.jobs; i++) {
		struct job *j = &jobs[i];

		if (!j->err)
			continue;
		if (explain_na(w, &s, j, direct, res))
			goto out;
		rc = -j->err;
		if (nospace(j->err))
			snprintf(err, errlen, "no space left in %s (%s on %s)",
				 w->dir, j->err_op, j->file->name);
		else if (j->short_write)
			snprintf(err, errlen, "short write on %s", j->file->name);
		else
			snprintf(err, errlen, "%s on %s failed: %s", j->err_op,
				 j->file->name, strerror(j->err));
		goto out;
	}

	for (i = 0; i < s.jobs; i++) {
		struct job *j = &jobs[i];

		res->ops += j->ops;
		res->writes += j->writes;
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
	if (!res->ops) {
		res->partial = fss_wl_stop != 0;
		set_na(res, "%s%s", fss_wl_stop ? "interrupted before the first "
		       "op completed" : "no op completed", "");
		goto out;
	}
	res->elapsed_s = t1 > t0 ? (double)(t1 - t0) / 1e9 : 0;
	if (res->elapsed_s > 0) {
		res->ops_per_sec = (double)res->ops / res->elapsed_s;
		res->usecs_per_op = 1e6 / res->ops_per_sec;
	}
	all = malloc(res->ops * sizeof(*all));
	if (!all) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < s.jobs; i++)
		for (struct lat_chunk *c = jobs[i].lat.head; c; c = c->next) {
			memcpy(all + total, c->v, c->n * sizeof(*all));
			total += c->n;
		}
	fss_lat_compute(all, total, &res->lat);
	res->lat_hist = fss_hist_new();
	for (i = 0; res->lat_hist && i < total; i++)
		fss_hist_add(res->lat_hist, all[i]);
	free(all);
out:
	if (jobs) {
		for (i = 0; i < s.jobs; i++) {
			if (jobs[i].fd >= 0)
				close(jobs[i].fd);
			free(jobs[i].buf);
			lat_free(&jobs[i].lat);
		}
		free(jobs);
	}
	if (own_files)
		for (i = 0; i < nfiles; i++)
			if (files[i])
				file_unlink(files[i]);
	return rc;
}
