/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * blame_owner.bpf.h - who a request is credited to (docs/blame.md): the
 * maps and helpers of blame's owner records, shared by blame.bpf.c (its
 * own owner record, for the raw_tp and bio fallbacks) and block.bpf.c
 * (the owner fields of a tp_btf block_io_start record, blame_in_rq).
 * Maps and settings are __weak, declared the same wherever included
 * (blame_xfs.bpf.c declares the ones it uses the same way).
 */
#ifndef __BLAME_OWNER_BPF_H
#define __BLAME_OWNER_BPF_H

#include "common.bpf.h"

/* The inode a kernel thread is writing back (task storage; dev 0: none). */
struct wb_ctx {
	__u64 ino;
	__u32 dev;
	__u32 pad;
};

struct inode_key {
	__u64 ino;
	__u32 dev;
	__u32 pad;
};

/* The process that last made an inode dirty (clean -> dirty). */
struct inode_owner {
	__u64 cgroup;
	__u32 pid, tid;
	char comm[FSS_COMM_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct wb_ctx);
} blame_wb SEC(".maps") __weak;

/* Bounded: the least recently dirtied inodes fall out first. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct inode_key);
	__type(value, struct inode_owner);
} blame_dirtier SEC(".maps") __weak;

/*
 * Unfiltered tracing (no --mount/--dev): blame records only for the
 * filesystems and disks that traced syncs were seen on, which user space
 * adds here as they come (a storm on a device nobody syncs on costs one
 * hash lookup per request, and nothing in the ring buffer).
 */
const volatile bool blame_dev_filter __weak = false;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);			/* fs or disk dev_t */
	__type(value, __u8);
} blame_devs SEC(".maps") __weak;

static __always_inline bool blame_fs_dev(__u32 dev)
{
	if (targ_fs_dev)
		return targ_fs_is(dev);
	return !blame_dev_filter || bpf_map_lookup_elem(&blame_devs, &dev);
}

static __always_inline bool blame_disk_dev(__u32 dev)
{
	if (targ_disk_dev)
		return dev == targ_disk_dev;
	return !blame_dev_filter || bpf_map_lookup_elem(&blame_devs, &dev);
}

static __always_inline bool cur_is_kthread(void)
{
	struct task_struct *task = bpf_get_current_task_btf();

	return !task->mm;
}

/* Whom the current task's work is credited to (blame_credit). */
struct credit {
	__u32 flags;			/* FSS_BL_* */
	__u32 wb_dev;
	__u64 ino;
	struct inode_owner *o;		/* the inode's dirtier, or NULL */
};

/*
 * A kernel thread in writeback of an inode: say so, and credit the
 * inode's dirtier when it is known.
 */
static __always_inline void blame_credit(struct credit *c)
{
	struct inode_key k = {};
	struct wb_ctx *wb;

	c->flags = 0;
	c->wb_dev = 0;
	c->ino = 0;
	c->o = NULL;
	if (!cur_is_kthread())
		return;
	c->flags |= FSS_BL_KTHREAD;
	wb = bpf_task_storage_get(&blame_wb, bpf_get_current_task_btf(), 0, 0);
	if (!wb || !wb->dev)
		return;
	c->flags |= FSS_BL_WB;
	c->wb_dev = wb->dev;
	c->ino = wb->ino;
	k.dev = wb->dev;
	k.ino = wb->ino;
	c->o = bpf_map_lookup_elem(&blame_dirtier, &k);
	if (c->o)
		c->flags |= FSS_BL_OWNER;
}

/*
 * The comms this CPU sent last (FSS_EV_COMM), and whose; for a task's own
 * comm, its thread and exec count too: the same thread since the same
 * exec needs no bpf_get_current_comm to know it sent it already.  A few
 * slots, not one: a syncing process and its journal thread take turns on
 * a CPU, and with one slot each of their requests sent its comm again.
 * User space keeps one comm per pid (the last sent), so sending one for a
 * pid drops this CPU's other slots of that pid.
 */
#define COMM_SLOTS	4	/* power of 2 */

struct comm_sent {
	__u32 pid, tid;
	__u32 exec_id;
	__u8 used;
	__u8 own;			/* the current task's comm (not a dirtier's) */
	__u8 pad[2];
	char comm[FSS_COMM_LEN];
};

struct comm_cache {
	struct comm_sent s[COMM_SLOTS];
	__u32 next;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct comm_cache);
} blame_comm SEC(".maps") __weak;

static __always_inline bool comm_eq(const char *a, const char *b)
{
	return *(__u64 *)a == *(__u64 *)b &&
	       *(__u64 *)(a + 8) == *(__u64 *)(b + 8);
}

/* Was comm sent for pid by this CPU, and is it still its latest? */
static __always_inline bool comm_known(const struct comm_cache *cc,
				       __u32 pid, const char *comm)
{
	for (int k = 0; k < COMM_SLOTS; k++)
		if (cc->s[k].used && cc->s[k].pid == pid &&
		    comm_eq(cc->s[k].comm, comm))
			return true;
	return false;
}

/* Has this thread's own comm been sent since its exec? */
static __always_inline bool comm_own_known(const struct comm_cache *cc,
					   __u32 pid, __u32 tid, __u32 exec_id)
{
	for (int k = 0; k < COMM_SLOTS; k++)
		if (cc->s[k].used && cc->s[k].own && cc->s[k].tid == tid &&
		    cc->s[k].pid == pid && cc->s[k].exec_id == exec_id)
			return true;
	return false;
}

static __always_inline void comm_remember(struct comm_cache *cc, __u32 pid,
					  __u32 tid, __u32 exec_id, bool own,
					  const char *comm, bool sent)
{
	struct comm_sent *x;

	if (sent)
		for (int k = 0; k < COMM_SLOTS; k++)
			if (cc->s[k].pid == pid)
				cc->s[k].used = 0;
	x = &cc->s[cc->next++ & (COMM_SLOTS - 1)];
	x->pid = pid;
	x->tid = tid;
	x->exec_id = exec_id;
	x->own = own;
	x->used = 1;
	__builtin_memcpy(x->comm, comm, FSS_COMM_LEN);
}

/*
 * Send pid's comm (the dirtier's from o, else the current task's) unless
 * this CPU sent the same last for pid: the compact owner record that
 * follows carries none.  Reserved before that record, so read before it.
 * (A thread renaming itself without exec keeps its earlier comm until
 * another comm of its process is sent from this CPU.)
 */
static __always_inline void comm_send(__u32 pid, __u32 tid,
				      struct inode_owner *o)
{
	char comm[FSS_COMM_LEN] = {};
	struct comm_cache *cc;
	struct fss_event *e;
	__u32 k = 0, exec_id = 0;

	cc = bpf_map_lookup_elem(&blame_comm, &k);
	if (!cc)
		return;
	if (o) {
		if (comm_known(cc, pid, o->comm))
			return;
		__builtin_memcpy(comm, o->comm, sizeof(comm));
	} else {
		exec_id = bpf_get_current_task_btf()->self_exec_id;
		if (comm_own_known(cc, pid, tid, exec_id))
			return;
		bpf_get_current_comm(comm, sizeof(comm));
		if (comm_known(cc, pid, comm)) {
			/* another thread, same comm */
			comm_remember(cc, pid, tid, exec_id, true, comm, false);
			return;
		}
	}
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count_drop(2);
		return;
	}
	__builtin_memset(e, 0, sizeof(*e));
	e->type = FSS_EV_COMM;
	e->pid = pid;
	e->tid = tid;
	e->ts = bpf_ktime_get_ns();
	__builtin_memcpy(e->comm, comm, sizeof(comm));
	event_submit(e);
	comm_remember(cc, pid, tid, exec_id, !o, comm, true);
}

/*
 * Whom a request the current task creates is credited to: *who (pid <<
 * 32 | tid) and *cg, with c filled; the comm of *who sent before.
 */
static __always_inline void owner_credit(struct credit *c, __u64 *who,
					 __u64 *cg)
{
	blame_credit(c);
	if (c->o) {
		*who = ((__u64)c->o->pid << 32) | c->o->tid;
		*cg = c->o->cgroup;
	} else {
		*who = bpf_get_current_pid_tgid();
		*cg = bpf_get_current_cgroup_id();
	}
	comm_send(*who >> 32, (__u32)*who, c->o);
}

/* Whom a request the current task creates is credited to, into *o. */
static __always_inline void owner_fill(struct fss_credited *o)
{
	struct credit c;
	__u64 who, cg;

	owner_credit(&c, &who, &cg);
	o->cgroup = cg;
	o->ino = c.ino;
	o->pid = who >> 32;
	o->tid = (__u32)who;
	o->wb_dev = c.wb_dev;
	o->flags = c.flags;
}

#endif /* __BLAME_OWNER_BPF_H */
