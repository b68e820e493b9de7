/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * hostfacts.h - what this host lets a BPF tracer do, read before trying:
 * the kernel, its BTF (vmlinux, modules), lockdown, the unprivileged BPF
 * switch, tracefs, this process's user, capabilities and RLIMIT_MEMLOCK;
 * the filesystems mounted on block devices.
 * Facts only: whether the tracer really loads is the tracer's to say
 * (`fsyncscope check` puts both side by side).  No root needed.
 */
#ifndef __FSS_HOSTFACTS_H
#define __FSS_HOSTFACTS_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>
#include <json-c/json.h>

struct fss_hostfacts {
	char kernel[160];	/* uname: release and version */
	bool btf_vmlinux;	/* /sys/kernel/btf/vmlinux */
	int btf_modules;	/* other entries of /sys/kernel/btf */
	char lockdown[32];	/* none, integrity, confidentiality;
				 * "" unknown */
	int unpriv_bpf;		/* kernel.unprivileged_bpf_disabled;
				 * -1 unknown */
	char tracefs[64];	/* where tracefs is mounted; "" none */
	uid_t euid;
	__u64 capeff;		/* effective capabilities */
	bool capeff_known;
	long long memlock;	/* RLIMIT_MEMLOCK soft limit; -1 unlimited */
};

/* The capabilities the tracer needs, in the order they are named. */
struct fss_cap_need {
	const char *name;	/* "CAP_BPF" */
	int bit;
	bool required;		/* false: needed on some kernels only */
	bool by_sys_admin;	/* CAP_SYS_ADMIN allows it too (the kernel's
				 * bpf_capable(), perfmon_capable()) */
	const char *why;
};
extern const struct fss_cap_need fss_cap_needs[];
extern const int fss_ncap_needs;

#define CAP_SYS_ADMIN_BIT 21

void fss_hostfacts_read(struct fss_hostfacts *h);
bool fss_hostfacts_has_cap(const struct fss_hostfacts *h, int bit);
/* has c, or CAP_SYS_ADMIN where that allows the same */
bool fss_hostfacts_covered(const struct fss_hostfacts *h,
			   const struct fss_cap_need *c);
/*
 * The required capabilities this process lacks (not covered), as
 * "CAP_A, CAP_B" in buf
 * ("" when none); their count.
 */
int fss_hostfacts_missing(const struct fss_hostfacts *h, char *buf,
			  size_t len);
struct json_object *fss_hostfacts_json(const struct fss_hostfacts *h);

/*
 * The mounted filesystems on block devices (one per device: the first
 * mount of it), as [{"target", "fstype", "source", "dev": "MAJ:MIN" of the
 * block device}], at most max of them.
 */
struct json_object *fss_block_mounts_json(int max);

#endif /* __FSS_HOSTFACTS_H */
