// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* PLACEHOLDER: sync entry/exit programs are being written. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
SEC("tp/syscalls/sys_enter_fsync")
int placeholder(void *ctx) { return 0; }
char LICENSE[] SEC("license") = "Dual BSD/GPL";
