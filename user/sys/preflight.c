// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * preflight.c - check a target before anything is printed (preflight.h),
 * so that a bad target gives one line on stderr and nothing on stdout.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include "sys/preflight.h"
#include "lib/scratch.h"

/* Not in every linux/magic.h. */
#ifndef NSFS_MAGIC
#define NSFS_MAGIC		0x6e736673
#endif
#ifndef CONFIGFS_MAGIC
#define CONFIGFS_MAGIC		0x62656570
#endif
#ifndef FUSECTL_SUPER_MAGIC
#define FUSECTL_SUPER_MAGIC	0x65735543
#endif
#ifndef MQUEUE_MAGIC
#define MQUEUE_MAGIC		0x19800202
#endif
#ifndef HUGETLBFS_MAGIC
#define HUGETLBFS_MAGIC		0x958458f6
#endif

/* Kernel interfaces that look like directories but hold no test files. */
static const struct {
	unsigned long magic;
	const char *name;
} pseudo[] = {
	{ PROC_SUPER_MAGIC, "proc" },
	{ SYSFS_MAGIC, "sysfs" },
	{ CGROUP_SUPER_MAGIC, "cgroup" },
	{ CGROUP2_SUPER_MAGIC, "cgroup2" },
	{ DEBUGFS_MAGIC, "debugfs" },
	{ TRACEFS_MAGIC, "tracefs" },
	{ SECURITYFS_MAGIC, "securityfs" },
	{ PSTOREFS_MAGIC, "pstore" },
	{ BPF_FS_MAGIC, "bpf" },
	{ CONFIGFS_MAGIC, "configfs" },
	{ DEVPTS_SUPER_MAGIC, "devpts" },
	{ MQUEUE_MAGIC, "mqueue" },
	{ EFIVARFS_MAGIC, "efivarfs" },
	{ BINFMTFS_MAGIC, "binfmt_misc" },
	{ NSFS_MAGIC, "nsfs" },
	{ SELINUX_MAGIC, "selinuxfs" },
	{ SMACK_MAGIC, "smackfs" },
	{ AUTOFS_SUPER_MAGIC, "autofs" },
	{ FUSECTL_SUPER_MAGIC, "fusectl" },
	{ HUGETLBFS_MAGIC, "hugetlbfs" },
};

const char *fss_pseudo_fs(const char *path)
{
	struct statfs sfs;

	if (statfs(path, &sfs))
		return NULL;
	for (size_t i = 0; i < sizeof(pseudo) / sizeof(pseudo[0]); i++)
		if ((unsigned long)sfs.f_type == pseudo[i].magic)
			return pseudo[i].name;
	return NULL;
}

void fss_preflight_size(char *buf, size_t len, __u64 b)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)b;
	int u = 0;

	while (v >= 1024.0 && u < 5) {
		v /= 1024.0;
		u++;
	}
	if (!u || v == (double)(__u64)v)
		snprintf(buf, len, "%.0f %s", v, unit[u]);
	else
		snprintf(buf, len, "%.1f %s", v, unit[u]);
}

int fss_preflight_dir(const char *dir, const char *what, char *err,
		      size_t errlen)
{
	const char *pfs;
	struct stat st;
	int e;

	if (stat(dir, &st)) {
		e = errno;
		snprintf(err, errlen, "%s: %s", dir, strerror(e));
		return -e;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s %s: not a directory", what, dir);
		return -ENOTDIR;
	}
	pfs = fss_pseudo_fs(dir);
	if (pfs) {
		snprintf(err, errlen, "%s %s is on %s, not a disk-backed "
			 "filesystem: give a directory on one (ext4, xfs, "
			 "btrfs, ...)", what, dir, pfs);
		return -EINVAL;
	}
	if (access(dir, W_OK | X_OK)) {
		e = errno;
		snprintf(err, errlen, "cannot write in %s: %s", dir, strerror(e));
		return -e;
	}
	return 0;
}

int fss_preflight_space(const char *dir, __u64 need, const char *what,
			char *err, size_t errlen)
{
	struct statvfs sv;
	__u64 blocks, avail;
	char n[32], a[32];

	/* ramfs and some FUSE filesystems report no sizes at all: unknown */
	if (!need || statvfs(dir, &sv) || !sv.f_blocks)
		return 0;
	/*
	 * What unprivileged users may still use, also for root: a benchmark
	 * has no business in the root reserve, and f_bfree also counts blocks
	 * nobody can use (ext4's reserved clusters).
	 */
	blocks = sv.f_bavail;
	avail = blocks * (__u64)sv.f_frsize;
	if (avail >= need)
		return 0;
	fss_preflight_size(n, sizeof(n), need);
	fss_preflight_size(a, sizeof(a), avail);
	snprintf(err, errlen, "no space left in %s for the test files: %s "
		 "needed (%s), %s available", dir, n, what, a);
	return -ENOSPC;
}

int fss_preflight_target(const char *dir, const char *file, bool force,
			 __u64 need, const char *need_what, char *err,
			 size_t errlen)
{
	const char *pfs;
	struct stat st;
	int rc, e;

	if (!file) {
		rc = fss_preflight_dir(dir, "DIR", err, errlen);
		if (rc)
			return rc;
		/* named test files of killed runs give their space back first */
		fss_scratch_sweep(dir, stderr);
		return fss_preflight_space(dir, need, need_what, err, errlen);
	}
	if (stat(file, &st)) {
		e = errno;
		if (e != ENOENT) {
			snprintf(err, errlen, "cannot open %s: %s", file, strerror(e));
			return -e;
		}
		rc = fss_preflight_dir(dir, "the directory of --file", err, errlen);
		return rc ? rc : fss_preflight_space(dir, need, need_what, err,
						     errlen);
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "--file %s is a directory (to run in a "
			 "directory, give it as DIR)", file);
		return -EISDIR;
	}
	if (!force) {
		snprintf(err, errlen, "%s exists; refusing to write to it "
			 "without --force", file);
		return -EEXIST;
	}
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file or block device",
			 file);
		return -EINVAL;
	}
	if (access(file, R_OK | W_OK)) {
		e = errno;
		snprintf(err, errlen, "cannot open %s: %s", file, strerror(e));
		return -e;
	}
	if (S_ISBLK(st.st_mode))
		return 0;
	pfs = fss_pseudo_fs(file);
	if (pfs) {
		snprintf(err, errlen, "--file %s is on %s, not a disk-backed "
			 "filesystem", file, pfs);
		return -EINVAL;
	}
	if ((__u64)st.st_size >= need)
		return 0;
	return fss_preflight_space(dir, need - (__u64)st.st_size, need_what,
				   err, errlen);
}
