/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * devuse.h - is a block device in use?  What must be true before a
 * command may destroy its data (compare --scratch-dev).
 */
#ifndef __FSS_DEVUSE_H
#define __FSS_DEVUSE_H

#include <stddef.h>

/*
 * Refuses the block device at path (-1, one line in err starting with
 * path) when it is not a block device, or it or one of its partitions is
 * mounted (/proc/self/mountinfo: by device number or mount source), used
 * as swap, held by another device (holders/), read-only, or busy for an
 * O_EXCL open (the kernel's own claim).  Touches nothing: the exclusive
 * open is closed at once without a write.  0: free; whole gets its
 * kernel name ("loop5", "sdb").
 */
int fss_dev_check_unused(const char *path, char *whole, size_t wlen,
			 char *err, size_t errlen);

#endif /* __FSS_DEVUSE_H */
