/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * datadir.h - names of files in a database's data directory by inode:
 * for files a process synced and closed before trace could find them in
 * /proc/PID/fd (PostgreSQL's pg_control, SLRU segments, a relation file
 * the checkpointer opened just to fsync it).  The directory is walked
 * (bounded) when a lookup misses, at most once a second per directory; a
 * path found is checked (lstat) to still be that inode.
 */
#ifndef __FSS_DATADIR_H
#define __FSS_DATADIR_H

#include <linux/types.h>

#define FSS_DATADIR_MAX_FILES	200000	/* entries a walk keeps */

/* the data directory of a database process: its cwd (NULL: unknown) */
const char *fss_datadir_of_pid(__u32 pid);

/*
 * The path of (kdev, ino) under dir (kernel dev encoding), NULL when not
 * found; now_ns (CLOCK_MONOTONIC) rate-limits walks.
 */
const char *fss_datadir_lookup(const char *dir, __u32 kdev, __u64 ino,
			       __u64 now_ns);

void fss_datadir_free(void);

#endif
