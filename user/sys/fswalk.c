// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * fswalk.c - the walk of fswalk.h: openat(O_NOATIME) and getdents, depth
 * first, one open directory per level.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "sys/fswalk.h"

#define MAX_DEPTH	48

struct walk {
	size_t max, n;
	dev_t dev;
	fss_walk_fn fn;
	void *arg;
	bool stop;
	char path[PATH_MAX];
};

/*
 * A directory without touching its atime.  O_NOATIME is refused (EPERM)
 * to a caller that neither owns it nor has CAP_FOWNER: then not opened,
 * rather than leave an atime update behind.
 */
static int open_dir(int at, const char *name)
{
	return openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		      O_NOATIME | O_CLOEXEC);
}

static void walk_dir(struct walk *w, int fd, size_t plen, int depth)
{
	struct dirent *de;
	DIR *d = fdopendir(fd);

	if (!d) {
		close(fd);
		return;
	}
	while (!w->stop && w->n < w->max && (de = readdir(d))) {
		size_t nlen = strlen(de->d_name);
		bool dir = de->d_type == DT_DIR;
		struct stat st;
		int sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (plen + 1 + nlen >= sizeof(w->path))
			continue;
		w->path[plen] = '/';
		memcpy(w->path + plen + 1, de->d_name, nlen + 1);
		if (de->d_type == DT_UNKNOWN &&
		    !fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			dir = S_ISDIR(st.st_mode);
		w->n++;
		if (w->fn(w->path, de->d_ino, dir, w->arg)) {
			w->stop = true;
			break;
		}
		if (!dir || depth >= MAX_DEPTH)
			continue;
		sub = open_dir(dirfd(d), de->d_name);
		if (sub < 0)
			continue;
		if (fstat(sub, &st) || st.st_dev != w->dev) {	/* a mount */
			close(sub);
			continue;
		}
		walk_dir(w, sub, plen + 1 + nlen, depth + 1);
	}
	w->path[plen] = '\0';
	closedir(d);
}

long fss_walk(const char *root, size_t max, __u32 *kdev, fss_walk_fn fn,
	      void *arg)
{
	struct walk w = { .max = max, .fn = fn, .arg = arg };
	size_t len = strlen(root);
	struct stat st;
	int fd;

	if (len >= sizeof(w.path))
		return -ENAMETOOLONG;
	fd = open_dir(AT_FDCWD, root);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		close(fd);
		return -errno;
	}
	w.dev = st.st_dev;
	if (kdev)
		*kdev = major(st.st_dev) << 20 | minor(st.st_dev);
	while (len > 1 && root[len - 1] == '/')
		len--;
	memcpy(w.path, root, len);
	w.path[len] = '\0';
	w.n = 1;
	if (fn(w.path, st.st_ino, true, arg)) {
		close(fd);
		return 1;
	}
	/* "/" walks as "" + "/name" */
	walk_dir(&w, fd, len == 1 && root[0] == '/' ? 0 : len, 0);
	return (long)w.n;
}

struct find {
	__u64 ino;
	char *path;
	size_t len;
	bool found;
};

static bool find_one(const char *path, __u64 ino, bool dir, void *arg)
{
	struct find *f = arg;

	if (dir || ino != f->ino)
		return false;
	snprintf(f->path, f->len, "%s", path);
	f->found = true;
	return true;
}

int fss_find_ino(const char *root, __u64 ino, size_t max, char *path,
		 size_t len)
{
	struct find f = { .ino = ino, .path = path, .len = len };
	long n = fss_walk(root, max, NULL, find_one, &f);

	if (n < 0)
		return (int)n;
	return f.found ? 0 : -ENOENT;
}
