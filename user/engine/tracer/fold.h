/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * fold.h - folded request records (FSS_EV_RQ_FOLD, bpf/fsyncscope.h) back
 * into the events the per-event transport sends, and the requests still
 * in flight (the kernel's rq_folds map) handed to attribution in time.
 *
 * Why the in-flight part: a folded request's events reach user space at
 * its completion, but a sync whose exit is older than the drain horizon
 * may overlap a request that has not completed yet (a flush slower than
 * the lag, one whose completion the kernel never fires).  Per event, its
 * start and issue were already there; folded, they are read from the map
 * (fss_fold_snapshot) and handed on (fss_fold_inject) before the drain,
 * and the record that comes later skips what was handed on already.
 *
 * A poll: fss_fold_arm(horizon, now); consume the ring; if fss_fold_due(),
 * fss_fold_snapshot() and consume the ring again; fss_fold_inject();
 * drain up to horizon.
 */
#ifndef __FSS_FOLD_H
#define __FSS_FOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "fsyncscope.h"

/* Events one record unfolds into at most (the slots, and an owner). */
#define FSS_FOLD_MAX_EVENTS	(FSS_FOLD_SLOTS + 1)

struct fss_fold;
typedef void (*fss_fold_emit_fn)(const struct fss_event *ev, void *arg);

/*
 * The record of size bytes at data, if it is a whole one: copied into
 * *out (unused slots zeroed).  -EINVAL when short or malformed.
 */
int fss_fold_read(const void *data, size_t size,
		  struct fss_rq_fold_event *out);
/*
 * The events of f from slot skip on, in the order they happened, as the
 * per-event transport sends them (an owned creation: its FSS_EV_RQ_START,
 * then its FSS_EV_RQ_OWNER).  Returns how many (<= FSS_FOLD_MAX_EVENTS).
 */
int fss_fold_unfold(const struct fss_rq_fold_event *f, unsigned int skip,
		    struct fss_event *out);

struct fss_fold *fss_fold_new(void);
void fss_fold_free(struct fss_fold *fo);
/* A new window: forget what was handed on. */
void fss_fold_reset(struct fss_fold *fo);
/*
 * A record arrived: how many of its slots were handed on already (skip
 * them).  Also notes it for this poll's fss_fold_inject.
 */
unsigned int fss_fold_arrived(struct fss_fold *fo,
			      const struct fss_rq_fold_event *f);
/* Start a poll at now: events up to horizon are to be handed on. */
void fss_fold_arm(struct fss_fold *fo, __u64 horizon, __u64 now);
/*
 * Can a request in flight be older than the horizon?  Not while it is
 * below the oldest the last snapshot saw (or that snapshot's poll, when
 * none): under a steady load the map is read about once per lag, not
 * at every poll.
 */
bool fss_fold_due(const struct fss_fold *fo);
/* Read the map (fd) for requests in flight since before the horizon. */
int fss_fold_snapshot(struct fss_fold *fo, int map_fd);
/* Requests in flight (entries not idle) at the last snapshot, any age. */
size_t fss_fold_inflight(const struct fss_fold *fo);
/*
 * Hand on the events up to the horizon of the requests the snapshot saw
 * whose records have not arrived since; ends the poll.
 */
void fss_fold_inject(struct fss_fold *fo, fss_fold_emit_fn emit, void *arg);

#endif /* __FSS_FOLD_H */
