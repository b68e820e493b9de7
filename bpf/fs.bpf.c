// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * fs.bpf.c - the filesystem's fsync in the caller (ext4, xfs, btrfs).
 *
 * Three interchangeable hook sets, chosen at run time (--strategy):
 * tracepoints, fentry/fexit and kprobe/kretprobe.  User space enables
 * exactly one set (bpf_program__set_autoload) and calibrates it.  Each
 * marks fs_start/fs_end in the thread's in-flight sync.  Tracepoints give
 * ext4 both ends; xfs and btrfs only have an entry tracepoint, so their fs
 * interval then runs to the sync's exit.
 */
#include "clock.bpf.h"

static __always_inline void fs_enter(__u32 hook, __u32 which)
{
	struct sync_state *st;

	if (floor_hit(which))
		return;
	st = sync_current();
	if (!st)
		return;
	count_hit(which);
	if (!st->fs_start) {
		st->fs_start = bpf_ktime_get_ns();
		st->fs_hook = hook;
		if (!st->summ)	/* the time its clocks took: both painters' */
			st->fs_start += CLK_DELTA(clk_sync_flags(1, -1,
								 st->fs_start));
	}
}

static __always_inline void fs_exit(__u32 which)
{
	struct sync_state *st;

	if (floor_only)
		return;
	st = sync_current();
	if (!st || !st->fs_start)
		return;
	st->fs_end = bpf_ktime_get_ns();
	if (!st->summ)
		st->fs_end += CLK_DELTA(clk_sync_flags(0, -1, st->fs_end));
}

/* --- tracepoints --- */
SEC("tp/ext4/ext4_sync_file_enter")
int tp_ext4_sync_file_enter(void *ctx)
{
	fs_enter(FSS_FS_EXT4, FSS_HOOK_FS_TP);
	return 0;
}

SEC("tp/ext4/ext4_sync_file_exit")
int tp_ext4_sync_file_exit(void *ctx)
{
	fs_exit(FSS_HOOK_FS_TP);
	return 0;
}

SEC("tp/xfs/xfs_file_fsync")
int tp_xfs_file_fsync(void *ctx)
{
	fs_enter(FSS_FS_XFS, FSS_HOOK_FS_TP);
	return 0;
}

SEC("tp/btrfs/btrfs_sync_file")
int tp_btrfs_sync_file(void *ctx)
{
	fs_enter(FSS_FS_BTRFS, FSS_HOOK_FS_TP);
	return 0;
}

/* --- fentry/fexit --- */
SEC("fentry/ext4_sync_file")
int BPF_PROG(fentry_ext4_sync_file)
{
	fs_enter(FSS_FS_EXT4, FSS_HOOK_FS_FENTRY);
	return 0;
}

SEC("fexit/ext4_sync_file")
int BPF_PROG(fexit_ext4_sync_file)
{
	fs_exit(FSS_HOOK_FS_FENTRY);
	return 0;
}

SEC("fentry/xfs_file_fsync")
int BPF_PROG(fentry_xfs_file_fsync)
{
	fs_enter(FSS_FS_XFS, FSS_HOOK_FS_FENTRY);
	return 0;
}

SEC("fexit/xfs_file_fsync")
int BPF_PROG(fexit_xfs_file_fsync)
{
	fs_exit(FSS_HOOK_FS_FENTRY);
	return 0;
}

SEC("fentry/btrfs_sync_file")
int BPF_PROG(fentry_btrfs_sync_file)
{
	fs_enter(FSS_FS_BTRFS, FSS_HOOK_FS_FENTRY);
	return 0;
}

SEC("fexit/btrfs_sync_file")
int BPF_PROG(fexit_btrfs_sync_file)
{
	fs_exit(FSS_HOOK_FS_FENTRY);
	return 0;
}

/* --- kprobe/kretprobe --- */
SEC("kprobe/ext4_sync_file")
int BPF_KPROBE(kprobe_ext4_sync_file)
{
	fs_enter(FSS_FS_EXT4, FSS_HOOK_FS_KPROBE);
	return 0;
}

SEC("kretprobe/ext4_sync_file")
int BPF_KRETPROBE(kretprobe_ext4_sync_file)
{
	fs_exit(FSS_HOOK_FS_KPROBE);
	return 0;
}

SEC("kprobe/xfs_file_fsync")
int BPF_KPROBE(kprobe_xfs_file_fsync)
{
	fs_enter(FSS_FS_XFS, FSS_HOOK_FS_KPROBE);
	return 0;
}

SEC("kretprobe/xfs_file_fsync")
int BPF_KRETPROBE(kretprobe_xfs_file_fsync)
{
	fs_exit(FSS_HOOK_FS_KPROBE);
	return 0;
}

SEC("kprobe/btrfs_sync_file")
int BPF_KPROBE(kprobe_btrfs_sync_file)
{
	fs_enter(FSS_FS_BTRFS, FSS_HOOK_FS_KPROBE);
	return 0;
}

SEC("kretprobe/btrfs_sync_file")
int BPF_KRETPROBE(kretprobe_btrfs_sync_file)
{
	fs_exit(FSS_HOOK_FS_KPROBE);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
