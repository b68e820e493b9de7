/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * live_names.h - the names `trace` gives what it groups, cached for the
 * whole run: processes (comm, title), files (paths from the syncing
 * process's /proc/PID/fd, resolved as soon as a sync record is read) and
 * devices (fs type, disk, write cache, FUA).  No locking here: the caller
 * serialises (cmd_trace.c's lock).
 */
#ifndef __FSS_LIVE_NAMES_H
#define __FSS_LIVE_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "fsyncscope.h"
#include "db/dbrole.h"

static inline unsigned int live_kmaj(__u32 kdev) { return kdev >> 20; }
static inline unsigned int live_kmin(__u32 kdev) { return kdev & 0xfffff; }

struct proc_name {
	__u32 pid;
	char comm[FSS_COMM_LEN];
	char cmdline[256];	/* process title, "" when unreadable */
	struct fss_dbrole role;	/* its database role, from comm and title */
	char label[48];		/* the role's short name, "" when none */
	struct proc_name *next;
};

struct file_name {
	__u32 dev;
	__u64 ino;
	char *path;		/* NULL: not resolved (yet) */
	char *relation;		/* --pg: "schema.name" of a relation file */
	const char *relkind;	/* its kind ("table", "index", ...) */
	__u64 tried_ns;		/* last failed resolution ... */
	__u32 tried_pid;	/* ... in this process's open files */
	bool searched;		/* looked for by inode on its filesystem */
	/* fss_fclass_of(path, fclass_kind), once per path; -1: not yet */
	int fclass;
	unsigned int fclass_kind;
	struct file_name *next;
};

struct dev_facts {
	__u32 dev;		/* fs dev, kernel encoding */
	__u32 disk;		/* whole disk, 0: none/unknown */
	char disk_name[64];
	int write_cache;	/* 1 write back, 0 write through, -1 unknown */
	int fua;		/* 1, 0, -1 unknown */
	char fstype[32];	/* from mountinfo, "" if not mounted now */
	char *mnt;		/* where it is mounted (NULL: not looked up) */
	__u64 searched_ns;	/* its last search for a file by inode */
	struct dev_facts *next;
};

/* f's path is now path (taken, freed later; NULL: none): its class anew */
void live_names_set_path(struct file_name *f, char *path);

/* the process pid, added (comm, its title now) when new; NULL: no memory */
struct proc_name *live_names_proc(__u32 pid, const char *comm);
/* the process pid if known, else NULL */
struct proc_name *live_names_proc_find(__u32 pid);
/* the file (dev, ino); create: add it when new (up to a bound) */
struct file_name *live_names_file(__u32 dev, __u64 ino, bool create);
/* try to name (dev, ino) from pid's open files (force: even if named) */
void live_names_resolve_file(__u32 pid, __u32 dev, __u64 ino, bool force);
/* the facts of filesystem device dev, looked up when new */
struct dev_facts *live_names_dev(__u32 dev);
void live_names_free(void);

/* a file's path, or a note why there is none; *resolved: it is a path */
void live_names_file_label(__u32 dev, __u64 ino, char *buf, size_t len,
			   bool *resolved);
/* plain-text name of a process: its database role (dbrole.h), else its comm
 * or, for "comm: role" titles, role */
const char *live_names_proc_label(const struct proc_name *p);

#endif /* __FSS_LIVE_NAMES_H */
