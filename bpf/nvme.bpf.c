// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * nvme.bpf.c - NVMe commands (nvme_core tracepoints), joined to block
 * requests on the struct request pointer, never on the command id.  A Flush
 * is opcode 0 (nvme_cmd_flush).  Loaded only when the nvme_core module's
 * BTF has the tracepoints.
 *
 * The driver sets a command up BEFORE it starts the request (nvme_prep_rq:
 * nvme_setup_cmd, then blk_mq_start_request -> block_rq_issue).  Without
 * block_io_start (before 6.5) and with no scheduler insert (direct issue,
 * scheduler "none", the NVMe default), the setup would be the first record
 * of a request and user space could not join it.  So the setup time and
 * opcode wait in a map and both NVMe records are sent at completion, after
 * the request's issue record.
 */
#include "common.bpf.h"
#include "clock.bpf.h"

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

struct nvme_pending {
	__u64 ts;		/* nvme_setup_cmd time */
	__u32 opcode;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u64);			/* struct request * */
	__type(value, struct nvme_pending);
} nvme_pending SEC(".maps");

static __always_inline void nvme_event(struct request *rq, __u32 type, __u32 dev,
				       __u64 ts, int opcode)
{
	struct fss_rq_event *e = rq_event_reserve(type, dev);

	if (!e)
		return;
	if (ts)
		e->ts = ts;
	e->id = (__u64)rq;
	e->sector = rq->__sector;
	e->bytes = rq->__data_len;
	e->nvme_opcode = opcode;
	event_submit(e);
}

/*
 * The two NVMe events into rq's folded entry f (the command done at
 * done); false: it has none.
 */
static __always_inline bool nvme_fold(struct fss_rq_fold_event *f,
				      struct request *rq, __u32 dev,
				      const struct nvme_pending *p, __u64 done)
{
	struct fss_fold_slot s;

	s.ts = p->ts;
	s.type = FSS_EV_NVME_SETUP;
	s.tid = (__u32)bpf_get_current_pid_tgid();
	s.sector = rq->__sector;
	s.bytes = rq->__data_len;
	s.flags = p->opcode;
	f = fold_add(f, (__u64)rq, dev, &s, false);
	if (!f)
		return false;
	s.ts = done;
	s.type = FSS_EV_NVME_COMPLETE;
	s.flags = (__u32)-1;
	fold_add(f, (__u64)rq, dev, &s, false);
	return true;
}

SEC("tp_btf/nvme_setup_cmd")
int BPF_PROG(btf_nvme_setup_cmd, struct request *rq, void *cmdp)
{
	if (!rq || !cmdp)
		return 0;	/* may be NULL: common.bpf.h */
	struct nvme_command___fss *cmd = cmdp;
	struct nvme_pending p = {};
	__u64 key = (__u64)rq;
	__u32 dev;

	if (floor_hit(FSS_HOOK_NVME))
		return 0;
	dev = fss_rq_kdev(rq, true);
	if (targ_disk_dev && dev != targ_disk_dev)
		return 0;
	count_hit(FSS_HOOK_NVME);
	if (!rq_dev_marked(dev))
		return 0;
	p.ts = bpf_ktime_get_ns();
	p.opcode = BPF_CORE_READ(cmd, common.opcode);
	/* the time the clocks took it is the record's too (clock.bpf.h) */
	if (kp_nvme) {
		struct fss_rq_fold_event *f = fold_entry_of(key, true);

		p.ts += CLK_DELTA(clk_rq_event(f ? &f->clk : NULL, dev,
			     FSS_EV_NVME_SETUP, rq_flags(rq, true, true) |
			     (p.opcode ? 0 : FSS_RQ_NVME_FLUSH), p.ts));
	}
	/* a requeued request is set up again: the latest setup counts */
	bpf_map_update_elem(&nvme_pending, &key, &p, BPF_ANY);
	return 0;
}

SEC("tp_btf/nvme_complete_rq")
int BPF_PROG(btf_nvme_complete_rq, struct request *rq)
{
	if (!rq)
		return 0;	/* may be NULL: common.bpf.h */
	__u64 key = (__u64)rq;
	struct fss_rq_fold_event *f = NULL;
	struct nvme_pending *p;
	__u64 now;
	__u32 dev;

	if (floor_only)
		return 0;
	p = bpf_map_lookup_elem(&nvme_pending, &key);
	if (!p)
		return 0;	/* set up before we attached, or another disk */
	dev = fss_rq_kdev(rq, true);
	count_hit(FSS_HOOK_NVME);
	now = bpf_ktime_get_ns();
	/* one lookup of its entry for the fold and the clocks */
	if (rq_fold || kp_nvme)
		f = fold_entry_of(key, false);
	if (kp_nvme)
		now += CLK_DELTA(clk_rq_event(f ? &f->clk : NULL, dev,
			     FSS_EV_NVME_COMPLETE, 0, now));
	if (kp_only && kp_nvme) {	/* the clocks alone (clock.bpf.h) */
		bpf_map_delete_elem(&nvme_pending, &key);
		return 0;
	}
	/* folded: both into the request's entry, if it has one */
	if (rq_fold && nvme_fold(f, rq, dev, p, now)) {
		bpf_map_delete_elem(&nvme_pending, &key);
		return 0;
	}
	nvme_event(rq, FSS_EV_NVME_SETUP, dev, p->ts, p->opcode);
	nvme_event(rq, FSS_EV_NVME_COMPLETE, dev, now, -1);
	bpf_map_delete_elem(&nvme_pending, &key);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
