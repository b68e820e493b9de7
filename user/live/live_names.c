// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * live_names.c - names of `trace`'s processes, files and devices, cached
 * for the whole run (live_names.h).
 *
 * File paths: the kernel gives device and inode; we resolve them from the
 * syncing process's /proc/PID/fd links (matching st_dev/st_ino), as soon as
 * the sync record is read (within ~20 ms of the sync), cache the result,
 * When the file is no longer open there (a short-lived writer such as
 * `dd conv=fsync` closed it and exited), its inode is looked for once on
 * its filesystem (fswalk.c: at most LIVE_FIND_MAX directory entries, no
 * stat, no atime update, one search per filesystem a second); else it is
 * "dev MAJ:MIN ino N".
 */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "sys/devinfo.h"
#include "sys/fsnote.h"
#include "sys/fswalk.h"
#include "stats/live_agg.h"
#include "live/live_names.h"

#define NAME_BUCKETS	4096
#define MAX_FILE_NAMES	65536	/* cache bound: beyond it, new files show dev/ino */
#define LIVE_FIND_MAX	100000	/* directory entries one inode search reads */

static struct {
	struct proc_name *procs[NAME_BUCKETS];
	struct file_name *files[NAME_BUCKETS];
	int nfiles;
	struct dev_facts *devs;
} N;

static void read_cmdline(__u32 pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%u/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	/* argv is NUL-separated; a rewritten title may be padded with NULs */
	while (n > 0 && (buf[n - 1] == '\0' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0' || !isprint((unsigned char)buf[i]))
			buf[i] = ' ';
}

struct proc_name *live_names_proc(__u32 pid, const char *comm)
{
	unsigned int h = pid % NAME_BUCKETS;
	struct proc_name *p;

	for (p = N.procs[h]; p; p = p->next)
		if (p->pid == pid)
			return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	if (comm)
		memcpy(p->comm, comm, FSS_COMM_LEN - 1);
	read_cmdline(pid, p->cmdline, sizeof(p->cmdline));
	if (fss_dbrole_from_title(p->comm, p->cmdline, &p->role) && p->role.role[0])
		fss_dbrole_label(&p->role, p->label, sizeof(p->label));
	p->next = N.procs[h];
	N.procs[h] = p;
	return p;
}

void live_names_set_path(struct file_name *f, char *path)
{
	free(f->path);
	f->path = path;
	f->fclass = -1;
}

struct file_name *live_names_file(__u32 dev, __u64 ino, bool create)
{
	unsigned int h = (ino * 31 + dev) % NAME_BUCKETS;
	struct file_name *f;

	for (f = N.files[h]; f; f = f->next)
		if (f->dev == dev && f->ino == ino)
			return f;
	if (!create || N.nfiles >= MAX_FILE_NAMES)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->dev = dev;
	f->ino = ino;
	f->fclass = -1;
	f->next = N.files[h];
	N.files[h] = f;
	N.nfiles++;
	return f;
}

/*
 * Scan /proc/PID/fd: remember the path of every regular file open there
 * (the newest name wins: files get renamed, e.g. recycled WAL segments).
 * Returns whether (dev, ino) was found.
 */
static bool scan_fds(__u32 pid, __u32 want_dev, __u64 want_ino)
{
	char dir[64], link[64 + 256], target[PATH_MAX];
	bool found = false;
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%u/fd", pid);
	d = opendir(dir);
	if (!d)
		return false;
	while ((de = readdir(d))) {
		struct file_name *f;
		struct stat st;
		ssize_t n;
		__u32 dev;

		if (de->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "%s/%s", dir, de->d_name);
		if (stat(link, &st) || !S_ISREG(st.st_mode))
			continue;
		dev = fss_kdev(major(st.st_dev), minor(st.st_dev));
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		f = live_names_file(dev, st.st_ino, true);
		if (!f)
			continue;
		if (!f->path || strcmp(f->path, target)) {
			char *p = strdup(target);

			if (p)
				live_names_set_path(f, p);
		}
		if (dev == want_dev && st.st_ino == want_ino)
			found = true;
	}
	closedir(d);
	return found;
}

/*
 * f, closed by its process before its open files were read: its inode on
 * its filesystem, once per file, at most one search a second per
 * filesystem.  Whether it was named.
 */
static bool search_fs(struct file_name *f, __u64 now)
{
	struct dev_facts *d;
	char mnt[PATH_MAX], path[PATH_MAX];

	if (f->searched)
		return false;
	d = live_names_dev(f->dev);
	if (!d || (d->searched_ns && now - d->searched_ns < LIVE_NSEC))
		return false;
	f->searched = true;
	if (!d->mnt && !fss_mountpoint_of(f->dev, mnt, sizeof(mnt)))
		d->mnt = strdup(mnt);
	if (!d->mnt)
		return false;
	d->searched_ns = now;
	if (fss_find_ino(d->mnt, f->ino, LIVE_FIND_MAX, path, sizeof(path)))
		return false;
	live_names_set_path(f, strdup(path));
	return f->path != NULL;
}

/*
 * Try to name (dev, ino) from pid's open files, else by a search of its
 * filesystem; a failure is retried after a second.
 */
void live_names_resolve_file(__u32 pid, __u32 dev, __u64 ino, bool force)
{
	struct file_name *f;
	__u64 now;

	if (!ino)
		return;
	f = live_names_file(dev, ino, true);
	if (!f || (f->path && !force))
		return;
	now = live_mono_ns();
	if (!force && f->tried_ns && f->tried_pid == pid && now - f->tried_ns < LIVE_NSEC)
		return;
	if (!scan_fds(pid, dev, ino) && !f->path && !search_fs(f, now)) {
		f->tried_ns = now;
		f->tried_pid = pid;
	}
}

struct dev_facts *live_names_dev(__u32 dev)
{
	struct dev_facts *d;
	struct fss_devinfo di;

	for (d = N.devs; d; d = d->next)
		if (d->dev == dev)
			return d;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->dev = dev;
	d->write_cache = -1;
	d->fua = -1;
	fss_fstype_of(dev, d->fstype, sizeof(d->fstype));
	if (live_kmaj(dev))
		d->disk = fss_disk_of(dev);
	if (d->disk && !fss_dev_name(d->disk, d->disk_name, sizeof(d->disk_name)) &&
	    !fss_devinfo_read(d->disk_name, &di)) {
		d->write_cache = di.write_cache;
		d->fua = di.fua;
	}
	d->next = N.devs;
	N.devs = d;
	return d;
}

void live_names_free(void)
{
	for (int i = 0; i < NAME_BUCKETS; i++) {
		while (N.procs[i]) {
			struct proc_name *p = N.procs[i];

			N.procs[i] = p->next;
			free(p);
		}
		while (N.files[i]) {
			struct file_name *f = N.files[i];

			N.files[i] = f->next;
			free(f->path);
			free(f->relation);
			free(f);
		}
	}
	while (N.devs) {
		struct dev_facts *d = N.devs;

		N.devs = d->next;
		free(d->mnt);
		free(d);
	}
	N.nfiles = 0;
}

/* ---- tracer callbacks (consumer thread, tracer lock held) ---- */

/* ---- names for printing ---- */

void live_names_file_label(__u32 dev, __u64 ino, char *buf, size_t len,
			   bool *resolved)
{
	struct file_name *f = live_names_file(dev, ino, false);

	*resolved = false;
	if (f && f->path) {
		snprintf(buf, len, "%s", f->path);
		*resolved = true;
	} else if (!dev && !ino) {
		snprintf(buf, len, "n/a (no file recorded: msync)");
	} else if (!ino) {
		snprintf(buf, len, "dev %u:%u (whole filesystem: syncfs)", live_kmaj(dev), live_kmin(dev));
	} else {
		snprintf(buf, len, "dev %u:%u ino %llu", live_kmaj(dev), live_kmin(dev),
			 (unsigned long long)ino);
	}
}

/*
 * Plain-text name of a process: its comm, or for processes that set a
 * "comm: role" title (PostgreSQL: "postgres: walwriter") the role.
 */
const char *live_names_proc_label(const struct proc_name *p)
{
	size_t n;

	if (!p)
		return "?";
	if (p->label[0])	/* a database role: "walwriter", "backend:DB" */
		return p->label;
	n = strlen(p->comm);
	if (n && !strncmp(p->cmdline, p->comm, n) && p->cmdline[n] == ':' &&
	    p->cmdline[n + 1] == ' ' && p->cmdline[n + 2])
		return p->cmdline + n + 2;
	return p->comm;
}

struct proc_name *live_names_proc_find(__u32 pid)
{
	struct proc_name *p;

	for (p = N.procs[pid % NAME_BUCKETS]; p; p = p->next)
		if (p->pid == pid)
			return p;
	return NULL;
}

/* ---- JSON ---- */
