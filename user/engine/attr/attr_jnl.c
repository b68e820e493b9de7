// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The journal threads: which (device, thread) pairs have run a journal
 * commit lately.  attr.c notes them as commits arrive; the painter asks,
 * so a request issued by a journal thread is journal time.
 */
#include "engine/attr/attr_int.h"

void attr_jthread_note(struct fss_attr *a, __u32 dev, __u32 tid, __u64 ts)
{
	unsigned int i, oldest = 0;

	for (i = 0; i < a->njthreads; i++) {
		struct jthread *j = &a->jthreads[i];

		if (j->dev == dev && j->tid == tid) {
			if (ts > j->last)
				j->last = ts;
			return;
		}
		if (j->last < a->jthreads[oldest].last)
			oldest = i;
	}
	if (a->njthreads < ATTR_MAX_JTHREADS)
		i = a->njthreads++;
	else
		i = oldest;
	a->jthreads[i].dev = dev;
	a->jthreads[i].tid = tid;
	a->jthreads[i].last = ts;
}

bool attr_is_jthread(const struct fss_attr *a, __u32 dev, __u32 tid)
{
	unsigned int i;

	for (i = 0; i < a->njthreads; i++)
		if (a->jthreads[i].dev == dev && a->jthreads[i].tid == tid)
			return true;
	return false;
}
