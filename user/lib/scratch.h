/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * scratch.h - scratch files that nothing can leave behind.
 *
 * Where the filesystem allows it a scratch file is anonymous: opened with
 * O_TMPFILE in the target directory, it has no name, and the kernel frees
 * it when its last descriptor closes, also when the process is killed with
 * SIGKILL.  Code that needs to open it again (a test that closes and
 * reopens its file) opens /proc/self/fd/N, which gives a new open file
 * description of the same inode.
 *
 * Where O_TMPFILE is refused (FUSE filesystems whose daemon does not
 * implement it, vfat, NFS before 4.2...), or /proc is not mounted, the file
 * is named DIR/<prefix><pid>[.<n>], created O_EXCL and held with an
 * exclusive flock(2) for its whole life.  A SIGKILL leaves such a file, so
 * fss_scratch_sweep() removes, at start, the ones whose process is gone
 * (no such PID, and nobody holds its lock: that also covers a live run in
 * another PID namespace sharing the directory).
 */
#ifndef __FSS_SCRATCH_H
#define __FSS_SCRATCH_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

struct fss_scratch {
	int fd;				/* held open for the file's life; -1 */
	bool anon;			/* O_TMPFILE: no name */
	bool named;			/* a name that close must remove */
	char path[PATH_MAX + 64];	/* what open(2) reopens it by */
	char name[PATH_MAX + 64];	/* for messages */
};

/* Name prefixes: <dir>/.fsyncscope.<pid>.<n> and .fsyncscope-calib.<pid> */
#define FSS_SCRATCH_TEST	".fsyncscope."
#define FSS_SCRATCH_CALIB	".fsyncscope-calib."

/*
 * Create a scratch file in dir, open O_RDWR; seq < 0: no ".<n>" suffix
 * (one file per process).  FSYNCSCOPE_NO_TMPFILE=1 in the environment
 * skips O_TMPFILE (the tests use it to exercise named files on any
 * filesystem); so does a dir on btrfs (scratch.c says why).  0, or -errno (the open's errno) with s->fd = -1.
 */
int fss_scratch_open(struct fss_scratch *s, const char *dir,
		     const char *prefix, int seq);

/* Close the holder descriptor and remove the name, if any (idempotent). */
void fss_scratch_close(struct fss_scratch *s);

/*
 * Remove the name now and keep the file open, as an O_TMPFILE one is (for
 * a process about to lose the right to remove it later); the removal is
 * committed with an fsync of the file.  Idempotent.
 */
void fss_scratch_unname(struct fss_scratch *s);

/*
 * Remove dir's scratch files of processes that are gone, with one line
 * each on msgs ("fsyncscope: removed ..."; NULL: quiet).  Returns how many
 * were removed.  Never follows a symlink, never removes a file some
 * process holds the lock of.
 */
int fss_scratch_sweep(const char *dir, FILE *msgs);

#endif /* __FSS_SCRATCH_H */
