/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * core_fixes.bpf.h - kernel type variants, resolved with CO-RE at load time
 * (never by kernel version).
 */
#ifndef __CORE_FIXES_BPF_H
#define __CORE_FIXES_BPF_H

#include <vmlinux.h>
#include <bpf/bpf_core_read.h>

/*
 * struct request lost its rq_disk member in v5.17 ("block: remove the
 * ->rq_disk field in struct request"); the disk is rq->q->disk since then.
 */
struct request___old_disk {
	struct gendisk *rq_disk;
} __attribute__((preserve_access_index));

/*
 * FSS_RD(direct, p, field): p->field.  direct (a constant after inlining)
 * picks a plain load, for BTF-typed pointers the verifier lets programs
 * dereference (tp_btf arguments, bpf_get_current_task_btf() and what is
 * reached from them), over a bpf_probe_read_kernel() call for untyped ones
 * (raw_tp arguments).  Both are CO-RE relocated.
 */
#define FSS_RD(direct, p, field)					\
	((direct) ? (p)->field : BPF_CORE_READ(p, field))

/* The request's whole disk as tracepoints print it: MAJOR << 20 | MINOR. */
static __always_inline __u32 fss_rq_kdev(struct request *rq, const bool direct)
{
	struct request___old_disk *o = (void *)rq;
	struct request_queue *q;
	struct gendisk *disk;

	if (bpf_core_field_exists(o->rq_disk)) {
		disk = FSS_RD(direct, o, rq_disk);
	} else {
		q = FSS_RD(direct, rq, q);
		disk = FSS_RD(direct, q, disk);
	}
	if (!disk)
		return 0;
	return ((__u32)FSS_RD(direct, disk, major) << 20) |
	       (__u32)FSS_RD(direct, disk, first_minor);
}

/*
 * The request operation enum was "enum req_opf" until v6.0 ("block: use
 * enum req_op consistently" renamed it to "enum req_op" when blk_opf_t was
 * introduced).  Values are read from whichever exists in the kernel's BTF.
 */
enum req_opf___old {
	REQ_OP_READ___old,
	REQ_OP_WRITE___old,
	REQ_OP_FLUSH___old,
	REQ_OP_DISCARD___old,
};

#define FSS_REQ_OP(name)						\
	(bpf_core_enum_value_exists(enum req_op, name) ?		\
	 bpf_core_enum_value(enum req_op, name) :			\
	 bpf_core_enum_value(enum req_opf___old, name##___old))

/*
 * Flag bit numbers come from enum req_flag_bits.  Its first member,
 * __REQ_FAILFAST_DEV, is defined as REQ_OP_BITS: the width of the op field
 * under REQ_OP_MASK in cmd_flags.
 */
#define FSS_REQ_BIT(name)	bpf_core_enum_value(enum req_flag_bits, name)
#define FSS_REQ_OP_BITS		FSS_REQ_BIT(__REQ_FAILFAST_DEV)

#endif /* __CORE_FIXES_BPF_H */
