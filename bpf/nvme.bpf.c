// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * nvme.bpf.c - NVMe commands (nvme_core tracepoints), joined to block
 * requests on the struct request pointer, never on the command id.  A Flush
 * is opcode 0 (nvme_cmd_flush).  Loaded only when the nvme_core module's
 * BTF has the tracepoints.
 */
#include "common.bpf.h"

/*
 * The nvme driver may be a module absent from vmlinux.h: local CO-RE views
 * of the two types we read, matched by name against nvme_core's BTF (the
 * "common" member sits in an anonymous union there; libbpf resolves it).
 */
struct nvme_common_command___fss {
	__u8 opcode;
} __attribute__((preserve_access_index));

struct nvme_command___fss {
	struct nvme_common_command___fss common;
} __attribute__((preserve_access_index));

static __always_inline int nvme_event(struct request *rq, __u32 type, int opcode)
{
	struct gendisk *disk = fss_rq_disk(rq);
	__u32 dev = 0;
	struct fss_event *e;

	if (disk)
		dev = ((__u32)BPF_CORE_READ(disk, major) << 20) |
		      (__u32)BPF_CORE_READ(disk, first_minor);
	if (targ_disk_dev && dev != targ_disk_dev)
		return 0;
	count_hit(FSS_HOOK_NVME);
	e = event_reserve(type, dev);
	if (!e)
		return 0;
	e->rq.id = (__u64)rq;
	e->rq.sector = BPF_CORE_READ(rq, __sector);
	e->rq.bytes = BPF_CORE_READ(rq, __data_len);
	e->rq.nvme_opcode = opcode;
	event_submit(e);
	return 0;
}

SEC("tp_btf/nvme_setup_cmd")
int BPF_PROG(btf_nvme_setup_cmd, struct request *rq, void *cmdp)
{
	struct nvme_command___fss *cmd = cmdp;

	return nvme_event(rq, FSS_EV_NVME_SETUP, BPF_CORE_READ(cmd, common.opcode));
}

SEC("tp_btf/nvme_complete_rq")
int BPF_PROG(btf_nvme_complete_rq, struct request *rq)
{
	return nvme_event(rq, FSS_EV_NVME_COMPLETE, -1);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
