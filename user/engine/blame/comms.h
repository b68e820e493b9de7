/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * comms.h - the name (comm) of each process the tracer heard of, kept for
 * the whole run: the BPF side sends a process's comm once (per CPU, until
 * it changes), so a table that lived only as long as one test's blame
 * lost it, and the next test showed the same kernel worker as "?".
 * Pure C, fixed size (FSS_COMMS_SLOTS pids; the oldest of a probe chain
 * makes room), no I/O: a caller with /proc at hand fills the misses.
 */
#ifndef __FSS_COMMS_H
#define __FSS_COMMS_H

#include <linux/types.h>
#include "fsyncscope.h"

#define FSS_COMMS_SLOTS	4096	/* power of 2 */

struct fss_comms;

struct fss_comms *fss_comms_new(void);
void fss_comms_free(struct fss_comms *c);

/* pid's comm is comm now (an empty comm is ignored). */
void fss_comms_note(struct fss_comms *c, __u32 pid, const char *comm);

/* pid's last comm, or NULL when none was noted (or it made room). */
const char *fss_comms_get(const struct fss_comms *c, __u32 pid);

#endif /* __FSS_COMMS_H */
