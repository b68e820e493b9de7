/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * preflight.h - everything about a target directory or file that can be
 * checked before a command prints anything: it exists, is a directory on a
 * filesystem that can hold test files, is writable, has room for them.
 * Each check fills err with one line (no "fsyncscope: " prefix).
 */
#ifndef __FSS_PREFLIGHT_H
#define __FSS_PREFLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/*
 * The name of the kernel pseudo filesystem (proc, sysfs, cgroup2, ...)
 * path is on, or NULL when it is on anything else, including tmpfs and
 * ramfs (memory, but real files) and whatever statfs cannot tell.
 */
const char *fss_pseudo_fs(const char *path);

/*
 * dir exists, is a directory, is not on a pseudo filesystem and can be
 * written in.  what names it in messages ("DIR", "--probe PATH").  0 or
 * -errno.
 */
int fss_preflight_dir(const char *dir, const char *what, char *err,
		      size_t errlen);

/*
 * Room in dir for need bytes of test files (what: "2 jobs x 8 MiB"): the
 * blocks available to unprivileged users (statvfs f_bavail), for root too.
 * 0, -ENOSPC, or 0 when statvfs fails or reports no size (ramfs): nothing
 * is known, the files' own writes report it.
 */
int fss_preflight_space(const char *dir, __u64 need, const char *what,
			char *err, size_t errlen);

/*
 * The target of run: file (--file, may be NULL) in dir.  An existing file
 * needs force, and must be a regular file or block device the caller can
 * open; a new one needs dir (fss_preflight_dir).  need bytes of test files
 * (need_what says how they add up) must fit, less what an existing regular
 * file already holds; a block device is never size checked here.
 */
int fss_preflight_target(const char *dir, const char *file, bool force,
			 __u64 need, const char *need_what, char *err,
			 size_t errlen);

/* "16 MiB", "1.5 GiB", "512 B" */
void fss_preflight_size(char *buf, size_t len, __u64 bytes);

#endif /* __FSS_PREFLIGHT_H */
