// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sync.bpf.c - sync entry and exit: the syscall tracepoints.
 *
 * One sync = one [enter, exit] interval of one thread.  State lives in the
 * thread's slot of the syncs task storage while the sync runs; the
 * filesystem and journal programs add to it; at exit one FSS_EV_SYNC record
 * carries it all and the slot goes idle (ts = 0).
 *
 * The write hooks run for every write of a traced process, so the
 * descriptor lookup uses plain loads from bpf_get_current_task_btf() as far
 * as the verifier allows (up to the fd array) and one probe read per field
 * after that.
 */
#include "clock.bpf.h"

/* uapi fcntl / fs ABI values (not kernel-internal, stable by ABI) */
#define FSS_O_DSYNC	010000
#define FSS_RWF_DSYNC	0x2
#define FSS_RWF_SYNC	0x4

static __always_inline struct file *fd_file(__u32 fd)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fdtable *fdt = task->files->fdt;
	struct file **fds;
	struct file *f = NULL;

	if (!fdt || fd >= fdt->max_fds)
		return NULL;
	fds = fdt->fd;
	bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
	return f;
}

static __always_inline __u32 sync_hook(__u32 kind)
{
	return kind == FSS_SYNC_FSYNC ? FSS_HOOK_SYS_FSYNC :
	       kind == FSS_SYNC_FDATASYNC ? FSS_HOOK_SYS_FDATASYNC :
	       FSS_HOOK_SYS_OTHER;
}

/*
 * Start tracking a sync of kind on fd.  dsync_only: a write that is a sync
 * only if the descriptor is O_DSYNC/O_SYNC (or the call asked RWF_DSYNC).
 */
static __always_inline int sync_enter(__u32 kind, __s64 fd, bool dsync_only,
				      bool rwf_dsync, __u64 bytes)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct sync_state *st;
	struct file *f = NULL;
	struct super_block *sb = NULL;
	__u32 dev = 0;
	__u64 ino = 0;

	if (floor_hit(sync_hook(kind)))
		return 0;
	if (!want_task(id >> 32))
		return 0;
	if (fd >= 0)
		f = fd_file(fd);
	if (dsync_only) {
		if (!f)
			return 0;
		if (!rwf_dsync && !(BPF_CORE_READ(f, f_flags) & FSS_O_DSYNC))
			return 0;
	}
	if (f) {
		struct inode *inode = BPF_CORE_READ(f, f_inode);

		sb = BPF_CORE_READ(inode, i_sb);
		dev = sb_kdev(sb);
		ino = BPF_CORE_READ(inode, i_ino);
	}
	if (targ_fs_dev && dev != targ_fs_dev &&
	    !(calib_tgid && (id >> 32) == calib_tgid))
		return 0;
	st = sync_slot(true);
	if (!st) {
		count_drop(1);
		return 0;
	}
	/*
	 * Its last sync's exit found no state: the task storage lookup was
	 * refused (on PREEMPT_RT a program preempted on this CPU may hold
	 * it).  That sync is lost: counted so, never silently.
	 */
	if (st->ts) {
		if (st->summ)
			__sync_fetch_and_add(&summ_inflight, -1);
		count_drop(1);
	}
	st->ts = bpf_ktime_get_ns();
	/*
	 * Traced in full or summarized, decided here for the whole sync: a
	 * summarized one sends no record, so user space holds nothing for it
	 */
	st->summ = ring_high() ? FSS_SUMM_RING_HIGH :
		   sampled_out() && !(calib_tgid && (id >> 32) == calib_tgid) ?
		   FSS_SUMM_SAMPLED : FSS_SUMM_TRACED;
	st->fs_start = 0;
	st->fs_end = 0;
	st->log_start = 0;
	/* may move st->ts to when its clocks were read (clock.bpf.h) */
	if (!st->summ)
		clk_sync_enter(st, sb, dev);
	if (st->summ)
		__sync_fetch_and_add(&summ_inflight, 1);
	else
		inflight_start[(__u32)id & (FSS_INFLIGHT_SLOTS - 1)] = st->ts;
	st->ino = ino;
	st->bytes = bytes;
	st->kind = kind;
	st->dev = dev;
	st->fs_hook = 0;
	st->fd = fd;
	if (sb)
		rq_dev_mark(st, sb, dev);
	count_hit(sync_hook(kind));
	return 0;
}

static __always_inline int sync_exit(long ret)
{
	struct sync_state *st;
	struct fss_event *e;
	__u64 kph[FSS_KP_PHASES] = {}, now;
	__u16 kfq[2] = {};
	__u32 slot, kfl;

	if (floor_only)
		return 0;
	st = sync_current();
	if (!st)
		return 0;
	now = bpf_ktime_get_ns();
	kfl = st->summ ? 0 : clk_sync_exit(st, &now, kph, kfq);
	if (st->summ) {
		summ_count(st->kind, st->summ, bpf_ktime_get_ns() - st->ts);
		__sync_fetch_and_add(&summ_inflight, -1);
		st->ts = 0;
		return 0;
	}
	slot = (__u32)bpf_get_current_pid_tgid() & (FSS_INFLIGHT_SLOTS - 1);
	if (inflight_start[slot] == st->ts)
		inflight_start[slot] = 0;
	/* a record it may have needed was lost: summarized, never half */
	if (loss_near(st->ts)) {
		summ_count(st->kind, FSS_SUMM_LOST_NEAR,
			   bpf_ktime_get_ns() - st->ts);
		st->ts = 0;
		return 0;
	}
	e = event_reserve_slot(FSS_EV_SYNC, st->dev, -1);
	if (!e)
		summ_count(st->kind, FSS_SUMM_RING_FULL,
			   bpf_ktime_get_ns() - st->ts);
	if (e) {
		e->ts_end = kpaint ? now : e->ts;
		e->ts = st->ts;
		if (kpaint) {
			for (int i = 0; i < FSS_KP_PHASES; i++)
				e->sync.kph[i] = kph[i];
			e->sync.kflags = kfl;
			e->sync.knflush = kfq[0];
			e->sync.kflushy = kfq[1];
		}
		e->sync.fs_start = st->fs_start;
		e->sync.fs_end = st->fs_end;
		e->sync.log_start = st->log_start;
		e->sync.ino = st->ino;
		e->sync.kind = st->kind;
		e->sync.fs_hook = st->fs_hook;
		e->sync.ret = ret;
		e->sync.fd = st->fd;
		e->sync.bytes = st->bytes;
		event_submit(e);
		summ_count(st->kind, FSS_SUMM_TRACED, 0);
	}
	st->ts = 0;
	return 0;
}

/*
 * A syscalls:sys_enter_NAME record is struct syscall_trace_enter (ent, int
 * nr, args[]), sys_exit_NAME struct syscall_trace_exit (ent, int nr, long
 * ret).  raw_syscalls' trace_event_raw_sys_enter/exit (ent, long id, ...)
 * put args and ret at the same offsets only while struct trace_entry is 8
 * bytes: Debian's PREEMPT_RT 6.1 adds preempt_lazy_count to it (12 bytes),
 * the raw_syscalls layout then reads 8 bytes too far, past the record, and
 * the kernel refuses the attach (EACCES).  So the real types, relocated
 * against the kernel's BTF (CO-RE); every kernel with these tracepoints
 * has them (kernel/trace/trace_syscalls.c writes its records with them).
 */
#define ARG(ctx, n)	(((struct syscall_trace_enter *)(ctx))->args[n])
#define RET(ctx)	(((struct syscall_trace_exit *)(ctx))->ret)

SEC("tp/syscalls/sys_enter_fsync")
int sys_enter_fsync(void *ctx)
{
	return sync_enter(FSS_SYNC_FSYNC, (int)ARG(ctx, 0), false, false, 0);
}

SEC("tp/syscalls/sys_enter_fdatasync")
int sys_enter_fdatasync(void *ctx)
{
	return sync_enter(FSS_SYNC_FDATASYNC, (int)ARG(ctx, 0), false, false, 0);
}

SEC("tp/syscalls/sys_enter_sync_file_range")
int sys_enter_sync_file_range(void *ctx)
{
	return sync_enter(FSS_SYNC_SYNC_FILE_RANGE, (int)ARG(ctx, 0), false, false, 0);
}

SEC("tp/syscalls/sys_enter_syncfs")
int sys_enter_syncfs(void *ctx)
{
	return sync_enter(FSS_SYNC_SYNCFS, (int)ARG(ctx, 0), false, false, 0);
}

SEC("tp/syscalls/sys_enter_msync")
int sys_enter_msync(void *ctx)
{
	return sync_enter(FSS_SYNC_MSYNC, -1, false, false, 0);
}

SEC("tp/syscalls/sys_enter_write")
int sys_enter_write(void *ctx)
{
	return sync_enter(FSS_SYNC_DSYNC_WRITE, (int)ARG(ctx, 0), true, false, ARG(ctx, 2));
}

SEC("tp/syscalls/sys_enter_pwrite64")
int sys_enter_pwrite64(void *ctx)
{
	return sync_enter(FSS_SYNC_DSYNC_WRITE, (int)ARG(ctx, 0), true, false, ARG(ctx, 2));
}

SEC("tp/syscalls/sys_enter_writev")
int sys_enter_writev(void *ctx)
{
	return sync_enter(FSS_SYNC_DSYNC_WRITE, (int)ARG(ctx, 0), true, false, 0);
}

SEC("tp/syscalls/sys_enter_pwritev")
int sys_enter_pwritev(void *ctx)
{
	return sync_enter(FSS_SYNC_DSYNC_WRITE, (int)ARG(ctx, 0), true, false, 0);
}

SEC("tp/syscalls/sys_enter_pwritev2")
int sys_enter_pwritev2(void *ctx)
{
	__u64 flags = ARG(ctx, 5);

	return sync_enter(FSS_SYNC_DSYNC_WRITE, (int)ARG(ctx, 0), true,
			  flags & (FSS_RWF_DSYNC | FSS_RWF_SYNC), 0);
}

#define SYS_EXIT(name)					\
SEC("tp/syscalls/sys_exit_" #name)			\
int sys_exit_##name(void *ctx)				\
{							\
	return sync_exit(RET(ctx));			\
}

SYS_EXIT(fsync)
SYS_EXIT(fdatasync)
SYS_EXIT(sync_file_range)
SYS_EXIT(syncfs)
SYS_EXIT(msync)
SYS_EXIT(write)
SYS_EXIT(pwrite64)
SYS_EXIT(writev)
SYS_EXIT(pwritev)
SYS_EXIT(pwritev2)

char LICENSE[] SEC("license") = "Dual BSD/GPL";
