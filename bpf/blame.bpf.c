// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * blame.bpf.c - who made the work a sync waits for (docs/blame.md).
 *
 * Three records, each in the context of the process that did the work:
 *  - FSS_EV_JHANDLE at jbd2_handle_stats (jbd2_journal_stop, in the task
 *    that held the handle): transaction id and blocks it dirtied;
 *  - FSS_EV_JSTATS at jbd2_run_stats (journal thread, after a commit):
 *    the transaction's handle count and blocks;
 *  - FSS_EV_RQ_OWNER at block_io_start (a request is created in
 *    submit_bio, in the submitter): the request's submitter, as a compact
 *    struct fss_owner_event; its comm in an FSS_EV_COMM record before it
 *    when this CPU last sent another one.
 * A kernel thread doing writeback of an inode (writeback_single_inode*)
 * is credited to the process that dirtied it (writeback_dirty_inode_enqueue,
 * in the dirtier's context) when that is still known, else reported as
 * "writeback of dev M:m ino N".
 *
 * Every hook does O(1) work: a task-storage lookup, at most one LRU hash
 * lookup or update, one ring record.  The programs are named blame_* and
 * load only when blame is on (user/trace.c).
 */
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
} blame_wb SEC(".maps");

/* Bounded: the least recently dirtied inodes fall out first. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct inode_key);
	__type(value, struct inode_owner);
} blame_dirtier SEC(".maps");

/*
 * Unfiltered tracing (no --mount/--dev): blame records only for the
 * filesystems and disks that traced syncs were seen on, which user space
 * adds here as they come (a storm on a device nobody syncs on costs one
 * hash lookup per request, and nothing in the ring buffer).
 */
const volatile bool blame_dev_filter = false;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);			/* fs or disk dev_t */
	__type(value, __u8);
} blame_devs SEC(".maps");

static __always_inline bool blame_fs_dev(__u32 dev)
{
	if (targ_fs_dev)
		return dev == targ_fs_dev;
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

/*
 * A blame record of the current task, or NULL (counted as lost); who: with
 * its comm and cgroup (the journal thread's own records need neither).
 */
static __always_inline struct fss_event *blame_reserve(__u32 type, __u32 dev,
						       const bool who)
{
	struct fss_event *e = event_reserve_bare(type, dev, 2);

	if (e && who) {
		e->blame.cgroup = bpf_get_current_cgroup_id();
		bpf_get_current_comm(e->comm, sizeof(e->comm));
	}
	return e;
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
} blame_comm SEC(".maps");

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

SEC("tp/jbd2/jbd2_handle_stats")
int blame_jhandle(struct trace_event_raw_jbd2_handle_stats *ctx)
{
	__u32 dev = ctx->dev;
	struct fss_event *e;
	struct credit c;

	if (floor_only)
		return 0;
	if (!blame_fs_dev(dev))
		return 0;
	e = blame_reserve(FSS_EV_JHANDLE, dev, true);
	if (!e)
		return 0;
	e->blame.jtid = ctx->tid;
	e->blame.blocks = ctx->dirtied_blocks > 0 ? ctx->dirtied_blocks : 0;
	e->blame.handles = 1;
	blame_credit(&c);
	e->blame.flags = c.flags | (ctx->sync ? FSS_BL_SYNC : 0);
	e->blame.wb_dev = c.wb_dev;
	e->blame.ino = c.ino;
	if (c.o) {
		e->pid = c.o->pid;
		e->tid = c.o->tid;
		e->blame.cgroup = c.o->cgroup;
		__builtin_memcpy(e->comm, c.o->comm, sizeof(e->comm));
	}
	event_submit(e);
	return 0;
}

SEC("tp/jbd2/jbd2_run_stats")
int blame_jstats(struct trace_event_raw_jbd2_run_stats *ctx)
{
	__u32 dev = ctx->dev;
	struct fss_event *e;

	if (floor_only)
		return 0;
	if (!blame_fs_dev(dev))
		return 0;
	e = blame_reserve(FSS_EV_JSTATS, dev, false);
	if (!e)
		return 0;
	e->blame.jtid = ctx->tid;
	e->blame.handles = ctx->handle_count;
	e->blame.blocks = ctx->blocks;
	e->blame.logged = ctx->blocks_logged;
	e->blame.flags |= FSS_BL_KTHREAD;
	event_submit(e);
	return 0;
}

/*
 * The owner record of a request (rq) or, where the kernel has no
 * block_io_start, of a bio (bio: the request made from it starts at its
 * first sector).
 */
static __always_inline int owner_event(__u64 id, __u32 dev, __u32 bytes,
				       __u32 flags)
{
	struct fss_owner_event *e;
	__u64 who, cg;
	struct credit c;

	blame_credit(&c);
	if (c.o) {
		who = ((__u64)c.o->pid << 32) | c.o->tid;
		cg = c.o->cgroup;
	} else {
		who = bpf_get_current_pid_tgid();
		cg = bpf_get_current_cgroup_id();
	}
	comm_send(who >> 32, (__u32)who, c.o);
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count_drop(2);
		return 0;
	}
	e->type = FSS_EV_RQ_OWNER;
	e->tid = (__u32)who;
	e->ts = bpf_ktime_get_ns();
	e->id = id;
	e->cgroup = cg;
	e->ino = c.ino;
	e->dev = dev;
	e->pid = who >> 32;
	e->wb_dev = c.wb_dev;
	e->flags = c.flags | flags;
	e->bytes = bytes;
	e->pad = 0;
	event_submit(e);
	return 0;
}

SEC("tp_btf/block_io_start")
int BPF_PROG(blame_rq_owner, struct request *rq)
{
	__u32 dev;

	if (floor_only)
		return 0;
	dev = fss_rq_kdev(rq, true);
	if (!blame_disk_dev(dev))
		return 0;
	return owner_event((__u64)rq, dev, rq->__data_len, 0);
}

/* The owner record of a bio starting at sector, on a traced disk. */
static __always_inline int bio_owner(struct bio *bio, __u64 sector,
				     __u32 bytes)
{
	struct gendisk *disk;
	__u32 dev;

	if (floor_only)
		return 0;
	disk = bio->bi_bdev ? bio->bi_bdev->bd_disk : NULL;
	if (!disk)
		return 0;
	dev = ((__u32)disk->major << 20) | (__u32)disk->first_minor;
	if (!blame_disk_dev(dev))
		return 0;
	return owner_event(sector, dev, bytes, FSS_BL_BIO);
}

/* Kernels without block_io_start (before 6.5): each bio as it is queued. */
SEC("tp_btf/block_bio_queue")
int BPF_PROG(blame_bio_owner, struct bio *bio)
{
	return bio_owner(bio, bio->bi_iter.bi_sector, bio->bi_iter.bi_size);
}

/*
 * A bio split to the queue's limits: the rest is submitted again without
 * a block_bio_queue of its own, and a request starts at new_sector.
 */
SEC("tp_btf/block_split")
int BPF_PROG(blame_bio_split, struct bio *bio, unsigned int new_sector)
{
	return bio_owner(bio, new_sector, 0);
}

static __always_inline int wb_mark(struct inode *inode, bool start)
{
	struct wb_ctx *wb;

	if (floor_only || !cur_is_kthread())
		return 0;
	wb = bpf_task_storage_get(&blame_wb, bpf_get_current_task_btf(), 0,
				  start ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	if (!wb)
		return 0;
	if (start) {
		wb->dev = inode->i_sb->s_dev;
		wb->ino = inode->i_ino;
	} else {
		wb->dev = 0;
		wb->ino = 0;
	}
	return 0;
}

SEC("tp_btf/writeback_single_inode_start")
int BPF_PROG(blame_wb_start, struct inode *inode, struct writeback_control *wbc,
	     unsigned long nr_to_write)
{
	return wb_mark(inode, true);
}

SEC("tp_btf/writeback_single_inode")
int BPF_PROG(blame_wb_end, struct inode *inode, struct writeback_control *wbc,
	     unsigned long nr_to_write)
{
	return wb_mark(inode, false);
}

SEC("tp_btf/writeback_dirty_inode_enqueue")
int BPF_PROG(blame_dirty, struct inode *inode)
{
	struct inode_key k = {};
	struct inode_owner o = {};
	__u64 id;

	if (floor_only || cur_is_kthread())
		return 0;
	k.dev = inode->i_sb->s_dev;
	k.ino = inode->i_ino;
	if (!blame_fs_dev(k.dev))
		return 0;
	id = bpf_get_current_pid_tgid();
	o.pid = id >> 32;
	o.tid = (__u32)id;
	o.cgroup = bpf_get_current_cgroup_id();
	bpf_get_current_comm(o.comm, sizeof(o.comm));
	bpf_map_update_elem(&blame_dirtier, &k, &o, BPF_ANY);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
