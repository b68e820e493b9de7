// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * workload_files.c - the workload's files (see workload.h): the workload
 * object, fresh test files (anonymous or named scratch files, or the
 * user's --file), their prefill, preallocation and removal.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include "workload/workload_int.h"

/* Set by a signal handler (suite.c); the write loops and prefill poll it. */
volatile sig_atomic_t fss_wl_stop;

void wl__fill_random(char *p, size_t n, __u64 seed)
{
	__u64 s = seed | 1;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		__u64 r = wl__xorshift64s(&s);
		memcpy(p + i, &r, 8);
	}
	for (; i < n; i++)
		p[i] = (char)wl__xorshift64s(&s);
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
	wl__fill_random(w->fill, FILL_LEN, 0x5eed5eedULL);
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

void wl__file_unlink(struct fss_wl_file *f)
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
		wl__file_unlink(f);
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

void wl__size_str(char *buf, size_t len, __u64 v)
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

			wl__size_str(sz, sizeof(sz), size);
			if (wl__nospace(e))
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

		wl__size_str(sz, sizeof(sz), size);
		if (wl__nospace(e))
			snprintf(err, errlen, "no space left in %s for a %s test file",
				 w->dir, sz);
		else
			snprintf(err, errlen, "fsync %s: %s", f->name, strerror(e));
		return -e;
	}
	return 0;
}

/*
 * Open the user's --file: created O_EXCL, or with --force an existing
 * regular file or block device.  The fd, or -errno with one line in err.
 */
static int file_open_user(struct fss_workload *w, struct fss_wl_file *f,
			  char *err, size_t errlen)
{
	struct stat st;
	int fd, rc;

	snprintf(f->path, sizeof(f->path), "%s", w->user_file);
	fd = open(f->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0) {
		f->created = true;
	} else if (errno == EEXIST && w->force) {
		fd = open(f->path, O_RDWR | O_CLOEXEC);
		if (fd >= 0 && fstat(fd, &st) == 0 &&
		    !S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
			close(fd);
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
		snprintf(err, errlen, "%s exists; refusing to write to it without --force",
			 w->user_file);
		return -EEXIST;
	}
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot open %s: %s", w->user_file,
			 strerror(-rc));
		return rc;
	}
	return fd;
}

/*
 * A fresh scratch file in the target directory, anonymous where O_TMPFILE
 * works (a SIGKILL leaves nothing).  The fd, or -errno with err set.
 */
static int file_open_scratch(struct fss_workload *w, struct fss_wl_file *f,
			     char *err, size_t errlen)
{
	int fd, rc;

	rc = fss_scratch_open(&f->scratch, w->dir, FSS_SCRATCH_TEST,
			      (int)w->seq++);
	fd = rc ? -1 : open(f->scratch.path, O_RDWR | O_CLOEXEC);
	if (!rc && fd < 0) {
		rc = -errno;
		fss_scratch_close(&f->scratch);
	}
	if (rc) {
		if (wl__nospace(-rc))
			snprintf(err, errlen, "no space left in %s", w->dir);
		else
			snprintf(err, errlen, "cannot create a test file in %s: %s",
				 w->dir, strerror(-rc));
		return rc;
	}
	snprintf(f->path, sizeof(f->path), "%s", f->scratch.path);
	f->name = f->scratch.name;
	f->created = true;
	return fd;
}

/* fallocate `size` bytes (zeros written where refused), then fsync. */
static int file_alloc(struct fss_workload *w, int fd, struct fss_wl_file *f,
		      __u64 size, char *err, size_t errlen)
{
	int e = fallocate(fd, 0, 0, (off_t)size) ? errno : 0;

	if (e && wl__nospace(e)) {
		char sz[32];

		wl__size_str(sz, sizeof(sz), size);
		snprintf(err, errlen, "no space left in %s for a %s test file",
			 w->dir, sz);
		return -e;
	}
	if (e) {
		snprintf(f->note, sizeof(f->note),
			 "fallocate refused (%s): preallocated by writing zeros",
			 strerror(e));
		if (!w->zeros)
			w->zeros = calloc(1, FILL_LEN);
		if (!w->zeros) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		return fill_file(w, fd, f, size, w->zeros, err, errlen);
	}
	if (fsync(fd)) {
		int rc = -errno;

		snprintf(err, errlen, "fsync %s: %s", f->name, strerror(-rc));
		return rc;
	}
	return 0;
}

/* Make the open file `size` bytes as `how` says (see wl__file_make). */
static int file_size_up(struct fss_workload *w, int fd, struct fss_wl_file *f,
			__u64 size, int how, char *err, size_t errlen)
{
	int rc = 0;

	if (f->blockdev) {
		if (how == PREP_DATA && size) {
			if (size > f->size)
				size = f->size;
			rc = fill_file(w, fd, f, size, w->fill, err, errlen);
		}
		return rc;
	}
	if (how == PREP_DATA)
		rc = fill_file(w, fd, f, size, w->fill, err, errlen);
	else if (how == PREP_ALLOC && size)
		rc = file_alloc(w, fd, f, size, err, errlen);
	if (!rc && how != PREP_EMPTY)
		f->size = size;
	return rc;
}

int wl__file_make(struct fss_workload *w, __u64 size, int how,
		  struct fss_wl_file **out, char *err, size_t errlen)
{
	struct fss_wl_file *f;
	struct stat st;
	int fd, rc;

	f = calloc(1, sizeof(*f));
	if (!f) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	f->scratch.fd = -1;
	f->name = f->path;
	if (w->user_file[0])
		fd = file_open_user(w, f, err, errlen);
	else
		fd = file_open_scratch(w, f, err, errlen);
	if (fd < 0) {
		free(f);
		return fd;
	}
	/* registered before it is filled, so every exit path removes it */
	f->next = w->files;
	w->files = f;
	probe_dio(w, f->path);
	if (!f->blockdev && !fstat(fd, &st))
		f->size = (__u64)st.st_size;	/* append starts at the end */
	rc = file_size_up(w, fd, f, size, how, err, errlen);
	close(fd);
	*out = f;
	return rc;
}

int fss_wl_file_prepare(struct fss_workload *w, __u64 size,
			struct fss_wl_file **out, char *err, size_t errlen)
{
	return wl__file_make(w, size, PREP_DATA, out, err, errlen);
}
