/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * progress.h - a progress line on stderr while a test runs ("TAG: NAME
 * 2.5 / 5.0 s"), for `run` and `compare` (and devices --probe): only when
 * stderr is a terminal, only once a test has run FSS_PROGRESS_AFTER_S,
 * rewritten in place with \r and cleared when the test ends, so nothing
 * of it is left between the rows on stdout.  Silent otherwise.
 */
#ifndef __FSS_PROGRESS_H
#define __FSS_PROGRESS_H

#include <linux/types.h>

#define FSS_PROGRESS_AFTER_S	2.0

/* A test starts: tag may be NULL; seconds its length, or count its ops. */
void fss_progress_begin(const char *tag, const char *name, double seconds,
			__u64 count);
/* The test ended (or failed, or was interrupted): clear the line. */
void fss_progress_end(void);

#endif /* __FSS_PROGRESS_H */
