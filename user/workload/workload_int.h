/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * workload_int.h - what the workload's two halves share: its files
 * (workload_files.c: the workload object, test files, prefill) and its
 * timed loop (workload.c).  Internal to those two files.
 */
#ifndef __FSS_WORKLOAD_INT_H
#define __FSS_WORKLOAD_INT_H

#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "lib/scratch.h"
#include "workload/workload.h"

#define FILL_LEN	(1u << 20)	/* prefill buffer */
#define BUF_ALIGN	4096

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

static inline __u64 wl__xorshift64s(__u64 *s)
{
	__u64 x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static inline int wl__nospace(int e)
{
	return e == ENOSPC || e == EDQUOT;
}

void wl__fill_random(char *p, size_t n, __u64 seed);
/* "8 MiB", "4 KiB", "512 bytes" */
void wl__size_str(char *buf, size_t len, __u64 v);

/*
 * Create (or, with --file --force, open) one file and make it `size` bytes:
 * random data (PREP_DATA), fallocate or zeros (PREP_ALLOC), or empty
 * (PREP_EMPTY).  It is registered with w, so cleanup removes it.
 */
enum { PREP_DATA = 0, PREP_ALLOC, PREP_EMPTY };
int wl__file_make(struct fss_workload *w, __u64 size, int how,
		  struct fss_wl_file **out, char *err, size_t errlen);
/* Remove a file we created: unlink a name, close an anonymous holder. */
void wl__file_unlink(struct fss_wl_file *f);

#endif /* __FSS_WORKLOAD_INT_H */
