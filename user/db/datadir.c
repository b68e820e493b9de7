// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * datadir.c - inode -> path under a data directory (see datadir.h).
 */
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "db/datadir.h"
#include "sys/fswalk.h"

#define NDIRS	8
#define NPIDS	64
#define WALK_EVERY_NS	1000000000ULL

struct ent {
	__u32 dev;
	__u64 ino;
	char *path;
};

struct ddir {
	char *dir;
	struct ent *e;		/* open addressing, cap entries */
	size_t n, cap;
	__u64 walked_ns;	/* 0: never */
};

static struct {
	struct ddir d[NDIRS];
	struct { __u32 pid; char *dir; } p[NPIDS];
	int np;
} DD;

const char *fss_datadir_of_pid(__u32 pid)
{
	char link[64], buf[PATH_MAX];
	ssize_t n;
	int i;

	for (i = 0; i < DD.np; i++)
		if (DD.p[i].pid == pid)
			return DD.p[i].dir;
	snprintf(link, sizeof(link), "/proc/%u/cwd", pid);
	n = readlink(link, buf, sizeof(buf) - 1);
	if (n <= 0 || buf[0] != '/' || (n == 1))
		return NULL;		/* gone, or "/": no data directory */
	buf[n] = '\0';
	if (DD.np == NPIDS) {		/* forget the oldest */
		free(DD.p[0].dir);
		memmove(DD.p, DD.p + 1, (NPIDS - 1) * sizeof(DD.p[0]));
		DD.np--;
	}
	DD.p[DD.np].pid = pid;
	DD.p[DD.np].dir = strdup(buf);
	return DD.p[DD.np++].dir;
}

static size_t slot(const struct ddir *d, __u32 dev, __u64 ino)
{
	size_t i = (ino * 0x9e3779b97f4a7c15ULL ^ dev) % d->cap;

	while (d->e[i].path && (d->e[i].ino != ino || d->e[i].dev != dev))
		i = (i + 1) % d->cap;
	return i;
}

static void clear(struct ddir *d)
{
	for (size_t i = 0; i < d->cap; i++)
		free(d->e[i].path);
	free(d->e);
	d->e = NULL;
	d->n = d->cap = 0;
}

/* grow the table to twice its size: rehash (false: out of memory) */
static bool grow(struct ddir *d)
{
	struct ddir g = { .cap = d->cap * 2 };

	g.e = calloc(g.cap, sizeof(*g.e));
	if (!g.e)
		return false;
	for (size_t i = 0; i < d->cap; i++) {
		struct ent *e = &d->e[i];

		if (e->path)
			g.e[slot(&g, e->dev, e->ino)] = *e;
	}
	free(d->e);
	d->e = g.e;
	d->cap = g.cap;
	return true;
}

struct walk_ctx {
	struct ddir *d;
	__u32 dev;
};

static bool walk_one(const char *path, __u64 ino, bool dir, void *arg)
{
	struct walk_ctx *w = arg;
	struct ddir *d = w->d;
	size_t i;

	if (d->n * 2 >= d->cap && !grow(d))
		return true;
	i = slot(d, w->dev, ino);
	if (d->e[i].path)
		return false;
	d->e[i].path = strdup(path);
	if (!d->e[i].path)
		return true;
	d->e[i].dev = w->dev;
	d->e[i].ino = ino;
	d->n++;
	return false;
}

/*
 * The directory's files and directories by inode: fswalk.c's walk, which
 * opens directories O_NOATIME (a scan of PostgreSQL's data directory used
 * to update their atimes: a journal transaction the next WAL sync waited
 * for, blamed on the tracer).
 */
static void walk(struct ddir *d)
{
	struct walk_ctx w = { .d = d };

	clear(d);
	d->cap = 4096;
	d->e = calloc(d->cap, sizeof(*d->e));
	if (d->e)
		fss_walk(d->dir, FSS_DATADIR_MAX_FILES, &w.dev, walk_one, &w);
}

/* path is still (kdev, ino): not renamed away, its inode not reused */
static bool still(const char *path, __u32 kdev, __u64 ino)
{
	struct stat st;

	return path && !lstat(path, &st) && st.st_ino == ino &&
	       (major(st.st_dev) << 20 | minor(st.st_dev)) == kdev;
}

const char *fss_datadir_lookup(const char *dir, __u32 kdev, __u64 ino,
			       __u64 now_ns)
{
	struct ddir *d = NULL;
	int i;

	if (!dir)
		return NULL;
	for (i = 0; i < NDIRS && DD.d[i].dir; i++)
		if (!strcmp(DD.d[i].dir, dir)) {
			d = &DD.d[i];
			break;
		}
	if (!d) {
		if (i == NDIRS)
			return NULL;	/* more data directories than we keep */
		d = &DD.d[i];
		d->dir = strdup(dir);
		if (!d->dir)
			return NULL;
	}
	if (d->cap && still(d->e[slot(d, kdev, ino)].path, kdev, ino))
		return d->e[slot(d, kdev, ino)].path;
	if (d->walked_ns && now_ns < d->walked_ns + WALK_EVERY_NS)
		return NULL;
	d->walked_ns = now_ns ? now_ns : 1;
	walk(d);
	if (!d->cap || !still(d->e[slot(d, kdev, ino)].path, kdev, ino))
		return NULL;
	return d->e[slot(d, kdev, ino)].path;
}

void fss_datadir_free(void)
{
	for (int i = 0; i < NDIRS; i++) {
		clear(&DD.d[i]);
		free(DD.d[i].dir);
	}
	for (int i = 0; i < DD.np; i++)
		free(DD.p[i].dir);
	memset(&DD, 0, sizeof(DD));
}
