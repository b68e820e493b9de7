/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * fswalk.h - a bounded walk of one filesystem's directory tree that leaves
 * no trace on it: directories are opened O_NOATIME (the tracer is root, or
 * owns them), so reading them updates no atime and starts no journal
 * transaction on the filesystem being traced (docs/live.md, "What the
 * tool itself does").  Inodes come from the directory entries (d_ino): no
 * stat per file.  Mount points below the root are not entered.
 */
#ifndef __FSS_FSWALK_H
#define __FSS_FSWALK_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* One entry (the root too): its path, inode, whether a directory; true stops. */
typedef bool (*fss_walk_fn)(const char *path, __u64 ino, bool dir, void *arg);

/*
 * Walk root, at most max entries; *kdev (may be NULL) gets the root's
 * device (kernel encoding).  Returns the entries seen, or -errno when
 * root cannot be opened.
 */
long fss_walk(const char *root, size_t max, __u32 *kdev, fss_walk_fn fn,
	      void *arg);

/*
 * The path of inode ino under root (same filesystem), looked for in at
 * most max entries; 0, or -ENOENT.
 */
int fss_find_ino(const char *root, __u64 ino, size_t max, char *path,
		 size_t len);

#endif /* __FSS_FSWALK_H */
