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
#include "blame_owner.bpf.h"

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
	struct credit c;
	__u64 who, cg;

	owner_credit(&c, &who, &cg);
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
	if (!rq)
		return 0;	/* may be NULL: common.bpf.h */
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
	if (!bio)
		return 0;	/* may be NULL: common.bpf.h */
	return bio_owner(bio, bio->bi_iter.bi_sector, bio->bi_iter.bi_size);
}

/*
 * A bio split to the queue's limits: the rest is submitted again without
 * a block_bio_queue of its own, and a request starts at new_sector.
 */
SEC("tp_btf/block_split")
int BPF_PROG(blame_bio_split, struct bio *bio, unsigned int new_sector)
{
	if (!bio)
		return 0;	/* may be NULL: common.bpf.h */
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
	if (!inode)
		return 0;	/* may be NULL: common.bpf.h */
	return wb_mark(inode, true);
}

SEC("tp_btf/writeback_single_inode")
int BPF_PROG(blame_wb_end, struct inode *inode, struct writeback_control *wbc,
	     unsigned long nr_to_write)
{
	if (!inode)
		return 0;	/* may be NULL: common.bpf.h */
	return wb_mark(inode, false);
}

SEC("tp_btf/writeback_dirty_inode_enqueue")
int BPF_PROG(blame_dirty, struct inode *inode)
{
	if (!inode)
		return 0;	/* may be NULL: common.bpf.h */
	struct inode_key k = {};
	struct inode_owner o = {};
	__u64 id;

	if (floor_only || cur_is_kthread())
		return 0;
	k.dev = inode->i_sb->s_dev;
	k.ino = inode->i_ino;
	/*
	 * Not blame_fs_dev(): unfiltered, a filesystem is turned on by its
	 * first traced sync, and an inode made dirty before it (the file
	 * the sync is of) stays dirty, with no enqueue, until the flusher
	 * cleans it (dirty_expire_centisecs): its dirtier must be known.
	 */
	if (targ_fs_dev && !targ_fs_is(k.dev))
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
