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

static __always_inline struct gendisk *fss_rq_disk(struct request *rq)
{
	struct request___old_disk *o = (void *)rq;

	if (bpf_core_field_exists(o->rq_disk))
		return BPF_CORE_READ(o, rq_disk);
	return BPF_CORE_READ(rq, q, disk);
}

/* The request's whole disk as tracepoints print it: MAJOR << 20 | MINOR. */
static __always_inline __u32 fss_rq_kdev(struct request *rq)
{
	struct gendisk *disk = fss_rq_disk(rq);

	if (!disk)
		return 0;
	return ((__u32)BPF_CORE_READ(disk, major) << 20) |
	       (__u32)BPF_CORE_READ(disk, first_minor);
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
