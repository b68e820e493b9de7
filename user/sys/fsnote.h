/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * fsnote.h - what a filesystem's journal looks like to the tracer, for the
 * lines `trace` prints when it saw no jbd2 commit on a traced filesystem.
 */
#ifndef __FSS_FSNOTE_H
#define __FSS_FSNOTE_H

#include <stddef.h>
#include <linux/types.h>

/*
 * The type of the filesystem mounted with superblock dev kdev (kernel
 * encoding, as in sync records), from /proc/self/mountinfo: "ext4",
 * "xfs", ...  0, or -ENOENT (not mounted now) and buf "".
 */
int fss_fstype_of(__u32 kdev, char *buf, size_t len);

/*
 * Where the filesystem with superblock dev kdev is mounted (a mount of
 * its root preferred over a bind of a subtree), from mountinfo.  0, or
 * -ENOENT and buf "".
 */
int fss_mountpoint_of(__u32 kdev, char *buf, size_t len);

struct libmnt_fs;

/* An overlay mount's upperdir= (unescaped, malloc'ed), or NULL: none. */
char *fss_ovl_upperdir(struct libmnt_fs *fs);

/* An overlayfs mount, and the upper filesystem its syncs go to. */
struct fss_ovl {
	__u32 ovl;			/* the overlay's superblock dev (kernel) */
	__u32 upper;			/* its upper layer's filesystem */
};

/*
 * The overlayfs mounts with an upper layer, from mountinfo (upperdir=
 * in their superblock options, stat'ed for its filesystem): at most max
 * into out.  Their count, or -errno.
 */
int fss_overlays(struct fss_ovl *out, int max);

/*
 * Why a traced filesystem of this type shows no jbd2 commit by a kernel
 * thread, in a few words that fit after "MAJ:MIN TYPE: " on 80 columns.
 */
const char *fss_journal_note(const char *fstype);

#endif /* __FSS_FSNOTE_H */
