// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * scratch.c - scratch files that a SIGKILL cannot leave behind (anonymous
 * O_TMPFILE files), and the sweep of named ones where that is refused.
 * See scratch.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include "lib/scratch.h"

/*
 * Anonymous unless FSYNCSCOPE_NO_TMPFILE=1, or DIR is on btrfs: older
 * kernels' btrfs skips logging an inode with no link (a tmpfile, "never
 * accessible"), so there (Debian 12's 6.1: 30 fdatasyncs, 0 flushes) an
 * fsync of such a file returns without its log write or a flush - nothing
 * like a database's fsync, and a false "no flush" verdict.  A named file
 * is what applications sync, on every kernel.
 */
static bool tmpfile_allowed(const char *dir)
{
	const char *e = getenv("FSYNCSCOPE_NO_TMPFILE");
	struct statfs sf;

	if (e && e[0] && strcmp(e, "0"))
		return false;
	return statfs(dir, &sf) || sf.f_type != BTRFS_SUPER_MAGIC;
}

static const char *dir_prefix(const char *dir)
{
	return strcmp(dir, "/") ? dir : "";
}

/* An anonymous file that /proc/self/fd/N reopens; -errno if refused. */
static int open_anon(struct fss_scratch *s, const char *dir)
{
	int fd, fd2, e;

	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	snprintf(s->path, sizeof(s->path), "/proc/self/fd/%d", fd);
	/* the reopen must work too (no /proc: named files instead) */
	fd2 = open(s->path, O_RDWR | O_CLOEXEC);
	if (fd2 < 0) {
		e = errno;
		close(fd);
		return -e;
	}
	close(fd2);
	s->fd = fd;
	s->anon = true;
	snprintf(s->name, sizeof(s->name), "the anonymous test file in %s",
		 dir);
	return 0;
}

int fss_scratch_open(struct fss_scratch *s, const char *dir,
		     const char *prefix, int seq)
{
	int fd, e;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	if (tmpfile_allowed(dir)) {
		e = open_anon(s, dir);
		if (!e)
			return 0;
		/* no space or no permission is the answer for a name too */
		if (e == -ENOSPC || e == -EDQUOT || e == -EACCES ||
		    e == -EROFS || e == -ENOENT || e == -ENOTDIR)
			return e;
	}
	if (seq >= 0)
		snprintf(s->path, sizeof(s->path), "%s/%s%d.%d",
			 dir_prefix(dir), prefix, (int)getpid(), seq);
	else
		snprintf(s->path, sizeof(s->path), "%s/%s%d",
			 dir_prefix(dir), prefix, (int)getpid());
	fd = open(s->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	/* the lock tells a later sweep that this file's owner is alive */
	while (flock(fd, LOCK_EX) && errno == EINTR)
		;
	s->fd = fd;
	s->named = true;
	snprintf(s->name, sizeof(s->name), "%s", s->path);
	return 0;
}

void fss_scratch_unname(struct fss_scratch *s)
{
	if (!s->named)
		return;
	unlink(s->path);
	s->named = false;
	if (s->fd >= 0) {
		fsync(s->fd);
		/* what open(2) reopens it by, now that the name is gone */
		snprintf(s->path, sizeof(s->path), "/proc/self/fd/%d", s->fd);
	}
}

void fss_scratch_close(struct fss_scratch *s)
{
	if (s->named) {
		unlink(s->path);
		s->named = false;
	}
	if (s->fd >= 0) {
		close(s->fd);
		s->fd = -1;
	}
}

/* <prefix><pid>.<n> or <prefix><pid>: the pid, or 0 if name is not ours */
static long parse_name(const char *name)
{
	size_t lt = strlen(FSS_SCRATCH_TEST), lc = strlen(FSS_SCRATCH_CALIB);
	bool calib;
	const char *p;
	char *end;
	long pid;

	if (!strncmp(name, FSS_SCRATCH_TEST, lt))
		calib = false, p = name + lt;
	else if (!strncmp(name, FSS_SCRATCH_CALIB, lc))
		calib = true, p = name + lc;
	else
		return 0;
	if (*p < '0' || *p > '9')
		return 0;
	errno = 0;
	pid = strtol(p, &end, 10);
	if (errno || pid <= 0 || pid > INT_MAX)
		return 0;
	if (calib)
		return *end ? 0 : pid;
	if (*end != '.' || end[1] < '0' || end[1] > '9')
		return 0;
	strtoul(end + 1, &end, 10);
	return *end ? 0 : pid;
}

static bool pid_alive(long pid)
{
	return pid == getpid() || !kill((pid_t)pid, 0) || errno != ESRCH;
}

static void size_str(char *buf, size_t len, long long v)
{
	if (v >= (1LL << 20))
		snprintf(buf, len, "%.1f MiB", (double)v / (1 << 20));
	else if (v >= 1024)
		snprintf(buf, len, "%.1f KiB", (double)v / 1024);
	else
		snprintf(buf, len, "%lld bytes", v);
}

/* Remove one stale file; true if it was removed. */
static bool sweep_one(int dfd, const char *dir, const char *name, long pid,
		      FILE *msgs)
{
	struct stat st, fst;
	char sz[32];
	bool gone = false;
	int fd;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
		return false;
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	/* same file, and nobody (in any PID namespace) holds its lock */
	if (!fstat(fd, &fst) && fst.st_ino == st.st_ino &&
	    fst.st_dev == st.st_dev && !flock(fd, LOCK_EX | LOCK_NB))
		gone = !unlinkat(dfd, name, 0);
	close(fd);
	if (gone && msgs) {
		size_str(sz, sizeof(sz), (long long)st.st_size);
		fprintf(msgs, "fsyncscope: removed %s/%s (%s), left behind by "
			"process %ld, which is gone\n", dir_prefix(dir), name,
			sz, pid);
	}
	return gone;
}

int fss_scratch_sweep(const char *dir, FILE *msgs)
{
	struct dirent *de;
	int dfd, n = 0;
	DIR *d;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return 0;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return 0;
	}
	while ((de = readdir(d))) {
		long pid = parse_name(de->d_name);

		if (pid && !pid_alive(pid) &&
		    sweep_one(dirfd(d), dir, de->d_name, pid, msgs))
			n++;
	}
	closedir(d);
	return n;
}
