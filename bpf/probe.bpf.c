// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Feature probes: tiny programs loaded one at a time to learn what this
 * kernel accepts (fentry, kprobe) before the main object is loaded. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

SEC("fentry/vfs_fsync_range")
int BPF_PROG(probe_fentry)
{
	return 0;
}

SEC("kprobe/vfs_fsync_range")
int BPF_KPROBE(probe_kprobe)
{
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
