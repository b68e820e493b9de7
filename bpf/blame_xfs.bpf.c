// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * blame_xfs.bpf.c - who filled the xfs log checkpoint a sync forced
 * (docs/blame.md, "xfs").
 *
 * Two records:
 *  - FSS_EV_JHANDLE with FSS_BL_XFS, one per committed xfs transaction, in
 *    the committing task: the CIL sequence (checkpoint) it went into and
 *    the log space it used.  xlog_cil_commit() inserts the transaction's
 *    items into the current CIL context and then gives its ticket back
 *    (xfs_log_ticket_ungrant, or _regrant for a rolling transaction), all
 *    under xc_ctx_lock, so at that tracepoint log->l_cilp->xc_ctx is the
 *    checkpoint the transaction is in, and t_unit_res - t_curr_res the log
 *    space its items took (with the checkpoint and iclog header space the
 *    first transaction of a context gives to it).  Tickets given back
 *    elsewhere (cancelled or clean transactions, the CIL push's own
 *    ticket) are not transactions in a checkpoint: only a ticket marked at
 *    xfs_trans_commit in the same task is recorded.
 *  - FSS_EV_XLOG_FORCE at xfs_log_force, in a traced sync: the CIL
 *    sequence it forces (xfs_log_force_seq's; 0, a whole-log force, is
 *    the current sequence).
 * A kernel thread's transaction is credited, as writeback is in
 * blame.bpf.c, to the last dirtier of the inode it works for: the inode
 * under writeback, else the one whose I/O completion or inactivation it
 * began within XINODE_NS (xfs_setfilesize, xfs_unwritten_convert,
 * xfs_inode_inactivating).
 * Each hook does O(1) work: a task-storage lookup, at most one hash
 * lookup, one ring record.  The programs are named blame_xfs_* and load
 * only with blame, and only where their tracepoints are in the kernel's
 * BTF (user/strategy.c).
 */
#include "common.bpf.h"

/*
 * blame.bpf.c's maps and settings, declared the same here (__weak: the
 * linker keeps that file's definitions).
 */
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

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct inode_key);
	__type(value, struct inode_owner);
} blame_dirtier SEC(".maps") __weak;

const volatile bool blame_dev_filter __weak = false;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, __u8);
} blame_devs SEC(".maps") __weak;

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
		return dev == targ_fs_dev;
	return !blame_dev_filter || bpf_map_lookup_elem(&blame_devs, &dev);
}

SEC("tp_btf/xfs_trans_commit")
int BPF_PROG(blame_xfs_commit, struct xfs_trans *tp, unsigned long caller_ip)
{
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
 * Whom the transaction is credited to: the current task, or the dirtier
 * of the inode a kernel thread is writing back (as blame.bpf.c does).
 */
static __always_inline void xfs_credit(struct fss_event *e,
				       const struct xtrans_mark *m)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct inode_key k = {};
	struct inode_owner *o;
	struct wb_ctx *wb;

	if (task->mm)
		return;
	e->blame.flags |= FSS_BL_KTHREAD;
	wb = bpf_task_storage_get(&blame_wb, task, 0, 0);
	if (wb && wb->dev) {
		k.dev = wb->dev;
		k.ino = wb->ino;
	} else if (m->ino && e->ts - m->ino_ts < XINODE_NS) {
		k.dev = m->dev;		/* I/O completion, inactivation */
		k.ino = m->ino;
	} else {
		return;
	}
	e->blame.flags |= FSS_BL_WB;
	e->blame.wb_dev = k.dev;
	e->blame.ino = k.ino;
	o = bpf_map_lookup_elem(&blame_dirtier, &k);
	if (!o)
		return;
	e->blame.flags |= FSS_BL_OWNER;
	e->pid = o->pid;
	e->tid = o->tid;
	e->blame.cgroup = o->cgroup;
	__builtin_memcpy(e->comm, o->comm, sizeof(e->comm));
}

static __always_inline int xfs_ticket_back(struct xlog *log,
					   struct xlog_ticket *tic)
{
	struct task_struct *task;
	struct xtrans_mark *m;
	struct fss_event *e;
	__u64 id, seq;
	int used;
	__u32 dev;

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
	dev = sb_kdev(log->l_mp->m_super);
	seq = log->l_cilp->xc_ctx->sequence;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count_drop(2);
		return 0;
	}
	__builtin_memset(e, 0, sizeof(*e));
	id = bpf_get_current_pid_tgid();
	e->type = FSS_EV_JHANDLE;
	e->tid = (__u32)id;
	e->pid = id >> 32;
	e->dev = dev;
	e->ts = bpf_ktime_get_ns();
	e->blame.cgroup = bpf_get_current_cgroup_id();
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	e->blame.id = seq;
	e->blame.jtid = (__u32)seq;
	e->blame.blocks = used;
	e->blame.handles = 1;
	e->blame.flags = FSS_BL_XFS;
	xfs_credit(e, m);
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
	return xfs_inode_mark(ip);
}

SEC("tp_btf/xfs_unwritten_convert")
int BPF_PROG(blame_xfs_unwritten, struct xfs_inode *ip, xfs_off_t off,
	     ssize_t count)
{
	return xfs_inode_mark(ip);
}

SEC("tp_btf/xfs_inode_inactivating")
int BPF_PROG(blame_xfs_inactive, struct xfs_inode *ip)
{
	return xfs_inode_mark(ip);
}

SEC("tp_btf/xfs_log_ticket_ungrant")
int BPF_PROG(blame_xfs_ungrant, struct xlog *log, struct xlog_ticket *tic)
{
	return xfs_ticket_back(log, tic);
}

SEC("tp_btf/xfs_log_ticket_regrant")
int BPF_PROG(blame_xfs_regrant, struct xlog *log, struct xlog_ticket *tic)
{
	return xfs_ticket_back(log, tic);
}

SEC("tp_btf/xfs_log_force")
int BPF_PROG(blame_xfs_force, struct xfs_mount *mp, xfs_lsn_t seq,
	     unsigned long caller_ip)
{
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
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
