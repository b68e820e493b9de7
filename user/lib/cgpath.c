// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * cgpath.c - cgroup v2 id -> path, from a walk of the cgroup2 mount
 * (/sys/fs/cgroup, or /sys/fs/cgroup/unified on hybrid hosts; a cgroup v2
 * id is the inode number of its directory there).
 */
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <libmount/libmount.h>
#include "lib/cgpath.h"
#define CG_MAX		4096	/* cgroups remembered from one walk */

struct cg {
	__u64 id;
	char *path;
};

static struct cg *cgs;
static size_t ncgs;
static time_t last_scan;
static char root[PATH_MAX];

/* Where cgroup v2 is mounted ("" when it is not). */
static void find_root(void)
{
	struct libmnt_table *tb = mnt_new_table_from_file("/proc/self/mountinfo");
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;

	while (tb && it && !mnt_table_next_fs(tb, it, &fs))
		if (mnt_fs_match_fstype(fs, "cgroup2") && mnt_fs_get_target(fs)) {
			snprintf(root, sizeof(root), "%s", mnt_fs_get_target(fs));
			break;
		}
	mnt_free_iter(it);
	mnt_unref_table(tb);
}

static int cg_visit(const char *p, const struct stat *st, int type,
		    struct FTW *ftw)
{
	size_t n = strlen(root);

	if (type != FTW_D || ncgs >= CG_MAX)
		return 0;
	cgs[ncgs].id = st->st_ino;
	cgs[ncgs].path = strdup(p[n] ? p + n : "/");
	if (cgs[ncgs].path)
		ncgs++;
	return 0;
}

static void cg_rescan(void)
{
	for (size_t i = 0; i < ncgs; i++)
		free(cgs[i].path);
	ncgs = 0;
	if (!cgs)
		cgs = calloc(CG_MAX, sizeof(*cgs));
	if (!root[0])
		find_root();
	if (cgs && root[0])
		nftw(root, cg_visit, 16, FTW_PHYS | FTW_MOUNT);
}

static const char *cg_find(__u64 id)
{
	for (size_t i = 0; i < ncgs; i++)
		if (cgs[i].id == id)
			return cgs[i].path;
	return NULL;
}

const char *fss_cgroup_path(__u64 id, void *arg)
{
	const char *p = cg_find(id);
	time_t now = time(NULL);

	if (p || !id || now == last_scan)
		return p;
	last_scan = now;
	cg_rescan();
	return cg_find(id);
}
