// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * comms.c - pid -> comm for the whole run (comms.h): open addressing over
 * FSS_COMMS_SLOTS, at most PROBE slots from a pid's home; a full chain
 * gives its oldest entry to the new pid.
 */
#include <stdlib.h>
#include <string.h>
#include "engine/blame/comms.h"

#define PROBE	16

struct slot {
	__u32 pid;		/* 0: free (pid 0 is never a process's) */
	__u32 age;		/* stamp of the last note */
	char comm[FSS_COMM_LEN];
};

struct fss_comms {
	struct slot s[FSS_COMMS_SLOTS];
	__u32 clock;
};

static unsigned int home(__u32 pid)
{
	return (pid * 2654435761u) & (FSS_COMMS_SLOTS - 1);
}

struct fss_comms *fss_comms_new(void)
{
	return calloc(1, sizeof(struct fss_comms));
}

void fss_comms_free(struct fss_comms *c)
{
	free(c);
}

void fss_comms_note(struct fss_comms *c, __u32 pid, const char *comm)
{
	struct slot *x = NULL, *old = NULL;
	unsigned int h = home(pid);

	if (!c || !pid || !comm || !comm[0])
		return;
	for (int k = 0; k < PROBE; k++) {
		struct slot *s = &c->s[(h + k) & (FSS_COMMS_SLOTS - 1)];

		if (s->pid == pid || !s->pid) {
			x = s;
			break;
		}
		if (!old || s->age < old->age)
			old = s;
	}
	if (!x)
		x = old;
	x->pid = pid;
	x->age = ++c->clock;
	memcpy(x->comm, comm, FSS_COMM_LEN - 1);
	x->comm[FSS_COMM_LEN - 1] = '\0';
}

const char *fss_comms_get(const struct fss_comms *c, __u32 pid)
{
	unsigned int h = home(pid);

	if (!c || !pid)
		return NULL;
	for (int k = 0; k < PROBE; k++) {
		const struct slot *s = &c->s[(h + k) & (FSS_COMMS_SLOTS - 1)];

		if (s->pid == pid)
			return s->comm;
		if (!s->pid)
			return NULL;
	}
	return NULL;
}
