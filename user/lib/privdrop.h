/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * privdrop.h - giving up root for good (libcap-ng): the exporter, once its
 * tracer is attached, becomes an unprivileged user with no capability in
 * any set, in every thread.
 */
#ifndef __FSS_PRIVDROP_H
#define __FSS_PRIVDROP_H

#include <stddef.h>
#include <sys/types.h>

struct fss_user {
	const char *name;
	uid_t uid;
	gid_t gid;
};

/*
 * NAME (or a number) to its uid and primary group; root is refused.
 * 0 or -1 + err.
 */
int fss_user_lookup(const char *name, struct fss_user *u, char *err,
		    size_t errlen);

/*
 * Become u: supplementary groups dropped, gid and uid set (real, effective,
 * saved), every capability set and the bounding set cleared, no new
 * privileges.  0 or -1 + err.
 */
int fss_user_become(const struct fss_user *u, char *err, size_t errlen);

/*
 * Empty the bounding set now (capabilities held stay), so threads started
 * after this have none to regain.  0 or -1 + err.
 */
int fss_user_clear_bounding(char *err, size_t errlen);

/*
 * Run fn(arg) in a child that has become u (to check what u may do before
 * anything is loaded).  fn's return value (0..255), or -1 if the child
 * could not run it.
 */
int fss_user_try(const struct fss_user *u, int (*fn)(void *), void *arg);

#endif /* __FSS_PRIVDROP_H */
