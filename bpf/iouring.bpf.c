// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * iouring.bpf.c - io_uring fsync requests (IORING_OP_FSYNC) and io_uring
 * writes that are syncs (IORING_OP_WRITE / WRITEV / WRITE_FIXED with
 * RWF_DSYNC or RWF_SYNC, or on an O_DSYNC / O_SYNC file): the kind
 * dsync_write, as the write system calls on such files.
 *
 * They do not go through the fsync system call: the submitting task queues
 * the request (io_uring_submit_req), an io-wq worker thread of the same
 * process runs vfs_fsync_range(), and the completion is posted later
 * (io_uring_complete).  One sync is the interval [submit, complete]; the
 * record carries the submitter's tid/pid/comm, and the file (device and
 * inode) read from the request at completion, when it is assigned.
 *
 * What this cannot see: the worker's own filesystem work and its data
 * writes are done by another thread, so neither the fs interval (fs_start)
 * nor requests matched "by the syncing thread" are recorded for these
 * syncs; journal commits and device flushes on the same device during the
 * interval are still matched by user space.
 *
 * The opcode value comes from the kernel's BTF (enum io_uring_op), never a
 * literal; every field is read with CO-RE and guarded, so a kernel without
 * io_uring (or with other tracepoint layouts) still loads the object.
 */
#include "common.bpf.h"

/* uapi fcntl / fs / io_uring ABI values (stable by ABI) */
#define IOU_O_DSYNC		010000	/* O_SYNC includes it */
#define IOU_RWF_DSYNC		0x2
#define IOU_RWF_SYNC		0x4
#define IOU_FIXED_FILE		0x1	/* REQ_F_FIXED_FILE = IOSQE_FIXED_FILE */

struct iou_state {
	__u64 ts;
	__u32 tid, pid;
	__s32 fd;
	__u32 kind;			/* enum fss_sync_kind */
	__u32 summ;			/* FSS_SUMM_SAMPLED or traced (0) */
	char comm[FSS_COMM_LEN];
};

/* in-flight fsync requests, keyed by struct io_kiocb *; LRU: no leaks */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct iou_state);
} iou_reqs SEC(".maps");

/* Is opcode one of the write opcodes (each looked up in the BTF)? */
static __always_inline bool iou_is_write(__u8 op)
{
	if (bpf_core_enum_value_exists(enum io_uring_op, IORING_OP_WRITE) &&
	    op == bpf_core_enum_value(enum io_uring_op, IORING_OP_WRITE))
		return true;
	if (bpf_core_enum_value_exists(enum io_uring_op, IORING_OP_WRITEV) &&
	    op == bpf_core_enum_value(enum io_uring_op, IORING_OP_WRITEV))
		return true;
	return bpf_core_enum_value_exists(enum io_uring_op,
					  IORING_OP_WRITE_FIXED) &&
	       op == bpf_core_enum_value(enum io_uring_op, IORING_OP_WRITE_FIXED);
}

/*
 * A write request that is a sync: RWF_DSYNC / RWF_SYNC in its flags (set
 * from the SQE when it was prepared, before this tracepoint; the request
 * starts with its struct io_rw), or its descriptor opened O_DSYNC /
 * O_SYNC (a registered file's index is not a descriptor: those count only
 * by their flags).
 */
static __always_inline bool iou_write_dsync(struct io_kiocb *req, __s32 fd,
					    __u64 req_flags)
{
	struct task_struct *task;
	struct fdtable *fdt;
	struct file *f = NULL;
	struct file **fds;

	if (bpf_core_type_exists(struct io_rw) &&
	    bpf_core_field_exists(((struct io_rw *)0)->flags) &&
	    (BPF_CORE_READ((struct io_rw *)req, flags) &
	     (IOU_RWF_DSYNC | IOU_RWF_SYNC)))
		return true;
	if (fd < 0 || (req_flags & IOU_FIXED_FILE))
		return false;
	task = bpf_get_current_task_btf();
	fdt = task->files->fdt;
	if (!fdt || (__u32)fd >= fdt->max_fds)
		return false;
	fds = fdt->fd;
	bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
	return f && (BPF_CORE_READ(f, f_flags) & IOU_O_DSYNC);
}

SEC("tp/io_uring/io_uring_submit_req")
int iou_submit_req(struct trace_event_raw_io_uring_submit_req *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct iou_state st = {};
	struct io_kiocb *req;
	bool fsync;
	__u64 key;

	if (floor_hit(FSS_HOOK_SYS_OTHER))
		return 0;
	if (!bpf_core_enum_value_exists(enum io_uring_op, IORING_OP_FSYNC) ||
	    !bpf_core_field_exists(ctx->opcode) || !bpf_core_field_exists(ctx->req))
		return 0;
	fsync = ctx->opcode == bpf_core_enum_value(enum io_uring_op,
						   IORING_OP_FSYNC);
	if (!fsync && !iou_is_write(ctx->opcode))
		return 0;
	if (!want_task(id >> 32))
		return 0;
	req = ctx->req;
	key = (__u64)req;
	st.fd = -1;
	/* the SQE's fd is copied into req->cqe.fd at init (a union with flags) */
	if (bpf_core_field_exists(req->cqe))
		st.fd = BPF_CORE_READ(req, cqe.fd);
	if (!fsync && !iou_write_dsync(req, st.fd,
				       bpf_core_field_exists(ctx->flags) ?
				       ctx->flags : 0))
		return 0;
	st.kind = fsync ? FSS_SYNC_IOURING_FSYNC : FSS_SYNC_DSYNC_WRITE;
	st.summ = sampled_out() ? FSS_SUMM_SAMPLED : FSS_SUMM_TRACED;
	st.ts = bpf_ktime_get_ns();
	st.tid = (__u32)id;
	st.pid = id >> 32;
	bpf_get_current_comm(st.comm, sizeof(st.comm));
	if (bpf_map_update_elem(&iou_reqs, &key, &st, BPF_ANY))
		count_drop(1);
	count_hit(FSS_HOOK_SYS_OTHER);
	return 0;
}

SEC("tp/io_uring/io_uring_complete")
int iou_complete(struct trace_event_raw_io_uring_complete *ctx)
{
	struct iou_state *st;
	struct io_kiocb *req;
	struct fss_event *e;
	struct inode *ino = NULL;
	struct file *f = NULL;
	__u32 dev = 0;
	__u64 key;

	if (floor_only)
		return 0;
	if (!bpf_core_field_exists(ctx->req) || !bpf_core_field_exists(ctx->res))
		return 0;
	req = ctx->req;
	key = (__u64)req;
	st = bpf_map_lookup_elem(&iou_reqs, &key);
	if (!st)
		return 0;
	if (bpf_core_field_exists(req->file))
		f = BPF_CORE_READ(req, file);
	if (f) {
		ino = BPF_CORE_READ(f, f_inode);
		dev = sb_kdev(BPF_CORE_READ(ino, i_sb));
	}
	if (targ_fs_dev && dev != targ_fs_dev)
		goto out;
	if (st->summ) {		/* not drawn by --sample */
		summ_count(st->kind, st->summ, bpf_ktime_get_ns() - st->ts);
		goto out;
	}
	/* never half a sync (common.bpf.h): lost near it, or no room */
	if (loss_near(st->ts)) {
		summ_count(st->kind, FSS_SUMM_LOST_NEAR,
			   bpf_ktime_get_ns() - st->ts);
		goto out;
	}
	e = event_reserve_slot(FSS_EV_SYNC, dev, -1);
	if (!e)
		summ_count(st->kind, FSS_SUMM_RING_FULL,
			   bpf_ktime_get_ns() - st->ts);
	if (e) {
		/* the completing thread may be a worker: report the submitter */
		e->ts_end = e->ts;
		e->ts = st->ts;
		e->tid = st->tid;
		e->pid = st->pid;
		__builtin_memcpy(e->comm, st->comm, sizeof(e->comm));
		e->sync.kind = st->kind;
		e->sync.fs_hook = FSS_FS_NONE;
		e->sync.ino = ino ? BPF_CORE_READ(ino, i_ino) : 0;
		e->sync.ret = ctx->res;
		e->sync.fd = st->fd;
		e->sync.bytes = st->kind == FSS_SYNC_DSYNC_WRITE &&
				ctx->res > 0 ? ctx->res : 0;
		event_submit(e);
		summ_count(st->kind, FSS_SUMM_TRACED, 0);
	}
out:
	bpf_map_delete_elem(&iou_reqs, &key);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
