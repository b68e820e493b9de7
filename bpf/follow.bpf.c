// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * follow.bpf.c - `trace -- CMD`: keep the tgids filter equal to CMD's
 * process tree.  User space puts CMD's pid in the tgids map before CMD
 * runs; every process forked by a process in the map joins it, and leaves
 * it when its last thread exits (so that a recycled pid is not traced).
 * Threads share their process's tgid and need no entry.
 *
 * Loaded only when follow_forks is set (trace.c: set_autoload).
 */
#include "common.bpf.h"

const volatile bool follow_forks __weak = false;

SEC("tp_btf/sched_process_fork")
int BPF_PROG(follow_fork, struct task_struct *parent, struct task_struct *child)
{
	if (!parent || !child)
		return 0;	/* may be NULL: common.bpf.h */
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	__u8 one = 1;

	if (!follow_forks || ptgid == ctgid)
		return 0;
	if (!bpf_map_lookup_elem(&tgids, &ptgid))
		return 0;
	/* map full: this process's syncs would be missed; say so as a drop */
	if (bpf_map_update_elem(&tgids, &ctgid, &one, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&tgids, &ctgid))
		count_drop(1);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(follow_exit, struct task_struct *task)
{
	if (!task)
		return 0;	/* may be NULL: common.bpf.h */
	__u32 tgid = BPF_CORE_READ(task, tgid);

	/* signal->live reaches 0 when the last thread of the process exits */
	if (!follow_forks || BPF_CORE_READ(task, signal, live.counter) != 0)
		return 0;
	bpf_map_delete_elem(&tgids, &tgid);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
