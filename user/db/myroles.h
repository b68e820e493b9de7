/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * myroles.h - MariaDB/MySQL thread roles (trace --mysql): the server's
 * own names of its threads by OS thread id, from performance_schema.threads
 * (THREAD_OS_ID -> NAME: connection, page_cleaner, ...) or, when the
 * performance schema is off, information_schema.processlist (TID of the
 * connection threads).  Asked in one query, at start and again when a
 * sync record comes from a thread not known yet (the caller rate-limits);
 * roles learned are kept (a connection thread may be gone, or back in the
 * server's thread cache, by the time its syncs are attributed).
 */
#ifndef __FSS_MYROLES_H
#define __FSS_MYROLES_H

#include <stddef.h>
#include <linux/types.h>

struct fss_myroles;

/*
 * Connect with the usual client configuration ([client] of my.cnf and
 * ~/.my.cnf), or with the option file optfile when not NULL, and read
 * the threads.  NULL + err (one line) on failure.
 */
struct fss_myroles *fss_myroles_open(const char *optfile, char *err,
				     size_t errlen);
void fss_myroles_close(struct fss_myroles *m);

/* read the threads again: 0, or -1 + err */
int fss_myroles_refresh(struct fss_myroles *m, char *err, size_t errlen);

/* the role of thread tid ("connection", "page_cleaner", ...), NULL: unknown */
const char *fss_myroles_get(const struct fss_myroles *m, __u32 tid);

/* where the roles came from: "performance_schema.threads" or
 * "information_schema.processlist" */
const char *fss_myroles_source(const struct fss_myroles *m);

/* "thread/innodb/page_cleaner_thread" -> "page_cleaner" (into buf) */
void fss_myroles_name(const char *ps_name, char *buf, size_t len);

#endif
