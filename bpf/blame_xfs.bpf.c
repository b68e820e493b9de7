// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * blame_xfs.bpf.c - who filled the xfs log checkpoint a sync forced
 * (docs/blame.md, "xfs").
 *
 * Two records:
 *  - FSS_EV_JHANDLE with FSS_BL_XFS, one per contributor to a checkpoint.
 *    xlog_cil_commit() inserts a transaction's items into the current CIL
 *    context and then gives its ticket back (xfs_log_ticket_ungrant, or
 *    _regrant for a rolling transaction), all under xc_ctx_lock, so at
 *    that tracepoint log->l_cilp->xc_ctx is the checkpoint the
 *    transaction is in, and t_unit_res - t_curr_res the log space its
 *    items took (with the checkpoint and iclog header space the first
 *    transaction of a context gives to it).  Tickets given back elsewhere
 *    (cancelled or clean transactions, the CIL push's own ticket) are not
 *    transactions in a checkpoint: only a ticket marked at
 *    xfs_trans_commit in the same task counts.  Its log space is added
 *    to (CIL sequence, contributor) in an LRU hash; a traced sync's log
 *    force sends and forgets the entries of its filesystem up to the
 *    sequence it forces.
 *  - FSS_EV_XLOG_FORCE at xfs_log_force, in a traced sync: the CIL
 *    sequence it forces (xfs_log_force_seq's; 0, a whole-log force, is
 *    the current sequence).
 * A kernel thread's transaction is credited, as writeback is in
 * blame.bpf.c, to the last dirtier of the inode it works for: the inode
 * under writeback, else the one whose I/O completion or inactivation it
 * began within XINODE_NS (xfs_setfilesize, xfs_unwritten_convert,
 * xfs_inode_inactivating).
 * Each transaction costs a task-storage lookup, at most two hash lookups
 * and an update; a traced sync's force walks the 256-entry hash and sends
 * a record per contributor (docs/blame.md has the measured cost).  The
 * programs are named blame_xfs_* and load only with blame, and only where
 * their tracepoints are in the kernel's BTF (user/strategy.c).
 */
#include "common.bpf.h"

/* blame.bpf.c's maps and settings (__weak: the linker keeps one of each) */
#include "blame_owner.bpf.h"

/*
 * The ticket of the transaction this task is committing (0: none), and in
 * a kernel thread the inode whose xfs work it last began (ino 0: none).
 */
struct xtrans_mark {
	__u64 tic;
	__u64 ino;
	__u64 ino_ts;
	__u32 dev;
	__u32 pad;
};

/* A kernel thread's inode mark is used for transactions this soon after. */
#define XINODE_NS	(20ULL * 1000 * 1000)

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct xtrans_mark);
} blame_xtrans SEC(".maps");

static __always_inline bool xfs_dev_wanted(__u32 dev)
{
	if (targ_fs_dev)
		return targ_fs_is(dev);
	return !blame_dev_filter || bpf_map_lookup_elem(&blame_devs, &dev);
}

SEC("tp_btf/xfs_trans_commit")
int BPF_PROG(blame_xfs_commit, struct xfs_trans *tp, unsigned long caller_ip)
{
	if (!tp)
		return 0;	/* may be NULL: common.bpf.h */
	struct xtrans_mark *m;
	__u32 dev;

	if (floor_only)
		return 0;
	dev = sb_kdev(tp->t_mountp->m_super);
	if (!xfs_dev_wanted(dev))
		return 0;
	m = bpf_task_storage_get(&blame_xtrans, bpf_get_current_task_btf(), 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (m)
		m->tic = (__u64)tp->t_ticket;
	return 0;
}

/*
 * The log bytes and transactions of one contributor (process, or kernel
 * thread credited to an inode's dirtier) in one checkpoint, summed here
 * and sent when a traced sync forces the log to that checkpoint or a
 * later one: a metadata storm commits ~100k transactions/s, too many for
 * a ring record each.  LRU: checkpoints nobody traced forces fall out.
 */
struct xagg_key {
	__u64 seq;
	__u64 cgroup;
	__u64 ino;		/* FSS_BL_WB without FSS_BL_OWNER */
	__u32 dev;
	__u32 pid;
	__u32 flags;		/* FSS_BL_* */
	__u32 wb_dev;
};

struct xagg_val {
	__u64 bytes;
	__u64 count;
	__u32 tid;
	__u32 pad;
	char comm[FSS_COMM_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 256);	/* a force walks every bucket */
	__type(key, struct xagg_key);
	__type(value, struct xagg_val);
} blame_xagg SEC(".maps");

/*
 * Whom the transaction is credited to: the current task, or the dirtier
 * of the inode a kernel thread works for (as blame.bpf.c does).
 */
static __always_inline void xfs_credit(struct xagg_key *k, struct xagg_val *v,
				       const struct xtrans_mark *m, __u64 now)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct inode_key ik = {};
	struct inode_owner *o;
	struct wb_ctx *wb;

	if (task->mm)
		return;
	k->flags |= FSS_BL_KTHREAD;
	wb = bpf_task_storage_get(&blame_wb, task, 0, 0);
	if (wb && wb->dev) {
		ik.dev = wb->dev;
		ik.ino = wb->ino;
	} else if (m->ino && now - m->ino_ts < XINODE_NS) {
		ik.dev = m->dev;	/* I/O completion, inactivation */
		ik.ino = m->ino;
	} else {
		return;
	}
	k->flags |= FSS_BL_WB;
	k->wb_dev = ik.dev;
	k->ino = ik.ino;
	o = bpf_map_lookup_elem(&blame_dirtier, &ik);
	if (!o)
		return;
	k->flags |= FSS_BL_OWNER;
	k->ino = 0;		/* one cause, whatever the inode */
	k->pid = o->pid;
	k->cgroup = o->cgroup;
	v->tid = o->tid;
	__builtin_memcpy(v->comm, o->comm, sizeof(v->comm));
}

static __always_inline int xfs_ticket_back(struct xlog *log,
					   struct xlog_ticket *tic)
{
	struct xagg_key k = {};
	struct xagg_val v = {}, *p;
	struct task_struct *task;
	struct xtrans_mark *m;
	__u64 id;
	int used;

	if (floor_only)
		return 0;
	task = bpf_get_current_task_btf();
	m = bpf_task_storage_get(&blame_xtrans, task, 0, 0);
	if (!m || m->tic != (__u64)tic)
		return 0;
	m->tic = 0;
	used = tic->t_unit_res - tic->t_curr_res;
	if (used <= 0)		/* a clean transaction: nothing logged */
		return 0;
	k.dev = sb_kdev(log->l_mp->m_super);
	k.seq = log->l_cilp->xc_ctx->sequence;
	k.flags = FSS_BL_XFS;
	id = bpf_get_current_pid_tgid();
	k.pid = id >> 32;
	k.cgroup = bpf_get_current_cgroup_id();
	v.tid = (__u32)id;
	xfs_credit(&k, &v, m, bpf_ktime_get_ns());
	p = bpf_map_lookup_elem(&blame_xagg, &k);
	if (!p) {
		if (!(k.flags & FSS_BL_OWNER))
			bpf_get_current_comm(v.comm, sizeof(v.comm));
		v.bytes = used;
		v.count = 1;
		if (!bpf_map_update_elem(&blame_xagg, &k, &v, BPF_NOEXIST))
			return 0;
		p = bpf_map_lookup_elem(&blame_xagg, &k);	/* a race */
		if (!p)
			return 0;
	}
	__sync_fetch_and_add(&p->bytes, used);
	__sync_fetch_and_add(&p->count, 1);
	return 0;
}

struct xflush {
	__u64 seq;
	__u32 dev;
};

/* Send (and forget) a contributor to a checkpoint up to the one forced. */
static long xfs_flush_one(struct bpf_map *map, struct xagg_key *k,
			  struct xagg_val *v, struct xflush *f)
{
	struct xagg_val x;
	struct fss_event *e;

	if (k->dev != f->dev || k->seq > f->seq)
		return 0;
	__builtin_memcpy(&x, v, sizeof(x));
	if (bpf_map_delete_elem(map, k))	/* another force sent it */
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count_drop(2);
		return 0;
	}
	__builtin_memset(e, 0, sizeof(*e));
	e->type = FSS_EV_JHANDLE;
	e->pid = k->pid;
	e->tid = x.tid;
	e->dev = k->dev;
	e->ts = bpf_ktime_get_ns();
	__builtin_memcpy(e->comm, x.comm, sizeof(e->comm));
	e->blame.cgroup = k->cgroup;
	e->blame.id = k->seq;
	e->blame.jtid = (__u32)k->seq;
	e->blame.blocks = x.bytes > 0xffffffffULL ? 0xffffffffU : x.bytes;
	e->blame.handles = x.count;
	e->blame.flags = k->flags;
	e->blame.wb_dev = k->wb_dev;
	e->blame.ino = k->ino;
	event_submit(e);
	return 0;
}

/*
 * A kernel thread about to log for an inode: the I/O completion's size
 * update or unwritten extent conversion (xfs-conv workers), the
 * inactivation of an unlinked inode (inodegc workers).  Its transactions
 * just after are credited to the inode's last dirtier, as writeback is.
 */
static __always_inline int xfs_inode_mark(struct xfs_inode *ip)
{
	struct task_struct *task;
	struct xtrans_mark *m;
	__u32 dev;

	if (floor_only)
		return 0;
	task = bpf_get_current_task_btf();
	if (task->mm)
		return 0;
	dev = sb_kdev(ip->i_vnode.i_sb);
	if (!xfs_dev_wanted(dev))
		return 0;
	m = bpf_task_storage_get(&blame_xtrans, task, 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!m)
		return 0;
	m->dev = dev;
	m->ino = ip->i_vnode.i_ino;
	m->ino_ts = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/xfs_setfilesize")
int BPF_PROG(blame_xfs_setsize, struct xfs_inode *ip, xfs_off_t off,
	     ssize_t count)
{
	if (!ip)
		return 0;	/* may be NULL: common.bpf.h */
	return xfs_inode_mark(ip);
}

SEC("tp_btf/xfs_unwritten_convert")
int BPF_PROG(blame_xfs_unwritten, struct xfs_inode *ip, xfs_off_t off,
	     ssize_t count)
{
	if (!ip)
		return 0;	/* may be NULL: common.bpf.h */
	return xfs_inode_mark(ip);
}

SEC("tp_btf/xfs_inode_inactivating")
int BPF_PROG(blame_xfs_inactive, struct xfs_inode *ip)
{
	if (!ip)
		return 0;	/* may be NULL: common.bpf.h */
	return xfs_inode_mark(ip);
}

SEC("tp_btf/xfs_log_ticket_ungrant")
int BPF_PROG(blame_xfs_ungrant, struct xlog *log, struct xlog_ticket *tic)
{
	if (!log || !tic)
		return 0;	/* may be NULL: common.bpf.h */
	return xfs_ticket_back(log, tic);
}

SEC("tp_btf/xfs_log_ticket_regrant")
int BPF_PROG(blame_xfs_regrant, struct xlog *log, struct xlog_ticket *tic)
{
	if (!log || !tic)
		return 0;	/* may be NULL: common.bpf.h */
	return xfs_ticket_back(log, tic);
}

SEC("tp_btf/xfs_log_force")
int BPF_PROG(blame_xfs_force, struct xfs_mount *mp, xfs_lsn_t seq,
	     unsigned long caller_ip)
{
	if (!mp)
		return 0;	/* may be NULL: common.bpf.h */
	struct xflush f = {};
	struct fss_event *e;
	__u64 id;
	__u32 dev;

	if (floor_only || !sync_current())
		return 0;
	dev = sb_kdev(mp->m_super);
	if (!xfs_dev_wanted(dev))
		return 0;
	if (!seq)	/* xfs_log_force: the whole log, to the current seq */
		seq = mp->m_log->l_cilp->xc_current_sequence;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count_drop(2);
		return 0;
	}
	__builtin_memset(e, 0, sizeof(*e));
	id = bpf_get_current_pid_tgid();
	e->type = FSS_EV_XLOG_FORCE;
	e->tid = (__u32)id;
	e->pid = id >> 32;
	e->dev = dev;
	e->ts = bpf_ktime_get_ns();
	e->blame.id = seq;
	e->blame.jtid = (__u32)seq;
	event_submit(e);
	f.seq = seq;
	f.dev = dev;
	bpf_for_each_map_elem(&blame_xagg, xfs_flush_one, &f, 0);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
