/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * fuzz_common.h - what the libFuzzer targets share: the input as a file
 * (the readers take paths), in a memfd so nothing touches a disk.
 */
#ifndef FSS_FUZZ_COMMON_H
#define FSS_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>

/* The input as /proc/self/fd/N, the same file every run, its bytes only. */
static const char *fuzz_file(const char *name, const unsigned char *data,
			     size_t size)
{
	static char path[64];
	static int fd = -1;

	if (fd < 0) {
		fd = memfd_create(name, 0);
		if (fd < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size) {
		perror("memfd write");
		abort();
	}
	return path;
}

/* Where renderers write: nowhere, but through a real FILE. */
static FILE *fuzz_sink(void)
{
	static FILE *f;

	if (!f && !(f = fopen("/dev/null", "w")))
		abort();
	return f;
}

#endif
