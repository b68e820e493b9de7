/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * devinfo.h - facts about block devices and the filesystem under a path,
 * read from sysfs, libmount and (for NVMe) libnvme.  No BPF, no root needed
 * where the facts are world-readable.
 */
#ifndef __FSS_DEVINFO_H
#define __FSS_DEVINFO_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/types.h>
#include <limits.h>
#include <json-c/json.h>

/* kernel-internal dev_t encoding used by tracepoints: MAJOR << 20 | MINOR */
static inline __u32 fss_kdev(unsigned int major, unsigned int minor)
{
	return (major << 20) | minor;
}
__u32 fss_kdev_from_dev(dev_t dev);	/* userspace dev_t -> kernel encoding */

#define FSS_MAX_MEMBERS 16

struct fss_devinfo {
	char name[64];		/* kernel name, e.g. "nvme0n1", "loop3", "vda" */
	unsigned int major, minor;
	bool is_partition;
	char parent[64];	/* whole disk of a partition ("" otherwise) */
	char model[128];	/* device/model, or "" when not exposed */
	__u64 size_bytes;
	int rotational;		/* 1, 0, -1 unknown */
	char scheduler[32];	/* the active one, e.g. "none", "mq-deadline" */
	int nr_requests;	/* -1 unknown */
	int queue_depth;	/* device/queue_depth (SCSI), -1 unknown */
	int logical_block_size, physical_block_size;
	int write_cache;	/* 1 write back, 0 write through, -1 unknown */
	int fua;		/* queue/fua: 1, 0, -1 unknown */
	__u64 discard_max_bytes;	/* 0: no discard */
	/* NVMe (namespace or controller under it) */
	bool nvme;
	int nvme_vwc_present;	/* Identify Controller VWC bit 0: 1, 0, -1 unknown */
	int nvme_vwc_enabled;	/* Get Features 0x06 (needs root): 1, 0, -1 unknown */
	char nvme_reason[128];	/* why a -1 above, if it is */
	/* loop */
	char loop_backing[PATH_MAX];	/* "" when not a loop device */
	/* stacked (dm, md): members from holders/slaves */
	int nr_members;
	char members[FSS_MAX_MEMBERS][64];
};

struct fss_target {
	char path[PATH_MAX];		/* as given, made absolute */
	char mountpoint[PATH_MAX];
	char fstype[32];		/* "ext4", "xfs", "btrfs", "tmpfs", ... */
	char source[PATH_MAX];		/* mount source, e.g. "/dev/loop3" */
	char mount_opts[256];
	dev_t st_dev;			/* stat(path).st_dev */
	__u32 fs_kdev;			/* superblock dev (mount's MAJ:MIN; differs from st_dev on btrfs), kernel encoding */
	bool has_disk;			/* backed by a block device */
	char disk[64];			/* whole-disk kernel name ("" if none) */
	__u32 disk_kdev;		/* whole disk, kernel encoding (0 if none) */
	char fs_blkdev[64];		/* block device the fs is on: a partition,
					 * loopN, dm-N... ("" if none) */
	__u32 fs_blkdev_kdev;		/* its dev_t, kernel encoding (0 if none) */
	/*
	 * An overlay (fstype "overlay"): its upper layer's directory and the
	 * filesystem under it, whose disk is the one above ("" if none).  The
	 * overlay has no disk of its own; its syncs are the upper's work.
	 */
	char upper[PATH_MAX];
	char upper_fstype[32];
	__u32 upper_kdev;		/* the upper's superblock dev (0: none) */
};

/* sysfs's root: $FSYNCSCOPE_SYSFS when set (tests), else /sys. */
const char *fss_sysfs_root(void);

/*
 * Resolve the filesystem and device under path (sys/target.c; an overlay:
 * its upper layer's device).  0 or -errno.
 */
int fss_target_lookup(const char *path, struct fss_target *t);
/* Kernel name ("sda1", "loop3") of a block dev in kernel encoding.  0 or -errno. */
int fss_dev_name(__u32 kdev, char *name, size_t len);
/* Whole disk (kernel encoding) of a block dev_t in kernel encoding; 0 if unknown. */
__u32 fss_disk_of(__u32 kdev);

/* Facts for one block device by kernel name ("loop0") or /dev path.  0 or -errno. */
int fss_devinfo_read(const char *name, struct fss_devinfo *d);

/* List all block devices (whole disks and partitions) in /sys/class/block. */
int fss_devinfo_list(struct fss_devinfo **out, int *n);

/* Printers: plain (80 columns) and JSON twins. */
void fss_devinfo_print_table(FILE *f, const struct fss_devinfo *d, int n);
struct json_object *fss_devinfo_json(const struct fss_devinfo *d);
struct json_object *fss_target_json(const struct fss_target *t);
/* The reverse of fss_devinfo_json / fss_target_json (devinfo_json.c). */
void fss_devinfo_from_json(struct json_object *o, struct fss_devinfo *d);
void fss_target_from_json(struct json_object *o, struct fss_target *t);
/* Plain twin of fss_target_json: a few "key  value" lines, 80 columns. */
void fss_target_print(FILE *f, const struct fss_target *t);

#endif /* __FSS_DEVINFO_H */
