// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * compare_fs.c - where `compare` makes its filesystems (compare.h): the
 * directory of the images, a sparse image and mkfs per filesystem, a loop
 * device (or the scratch device), the mount, every workload through the
 * suite engine, and the undoing of all of it on every path out.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <linux/loop.h>
#include <linux/magic.h>
#include <json-c/json.h>
#include "cmd/compare/compare_int.h"
#include "lib/fmt.h"
#include "sys/preflight.h"

#define PROG	CMP_PROG

extern char **environ;

/* Copy a string, truncating to the destination (n > 0). */
static void scopy(char *dst, size_t n, const char *src)
{
	size_t l = strnlen(src, n - 1);

	memcpy(dst, src, l);
	dst[l] = '\0';
}

const struct cmp_fs_def cmp_fs_defs[CMP_FS_KINDS] = {
	{ "ext4", "mkfs.ext4", "-F", "-E lazy_itable_init=0,lazy_journal_init=0",
	  true, "the jbd2 commit the sync waited for" },
	{ "xfs", "mkfs.xfs", "-f", "", true,
	  "the log force (iclog writes) the sync did" },
	{ "btrfs", "mkfs.btrfs", "-f", "", false,
	  "n/a: btrfs writes its log tree inside its fsync (fs, device_write, "
	  "device_flush); there is no journal hook" },
};

int cmp_fs_lookup(const char *name)
{
	for (int i = 0; i < CMP_FS_KINDS; i++)
		if (!strcmp(cmp_fs_defs[i].name, name))
			return i;
	return -1;
}

static bool in_memory_fs(const char *path)
{
	struct statfs sfs;

	if (statfs(path, &sfs))
		return false;
	return (unsigned long)sfs.f_type == TMPFS_MAGIC ||
	       (unsigned long)sfs.f_type == RAMFS_MAGIC;
}

/* First line of a command's output, trimmed, for a one-line message. */
static const char *first_line(char *out)
{
	char *p = out, *nl;

	while (*p == '\n' || *p == ' ')
		p++;
	nl = strchr(p, '\n');
	if (nl)
		*nl = '\0';
	return p;
}

/*
 * Run argv (no shell) with stdin from /dev/null and stdout+stderr captured
 * into out.  Returns the exit status (0..255), 128+signal, or -errno when
 * it could not be started.
 */
static int run_cmd(char *const argv[], char *out, size_t outlen)
{
	posix_spawn_file_actions_t fa;
	int pfd[2], status, rc;
	size_t used = 0;
	pid_t pid;
	ssize_t n;
	char sink[512];

	out[0] = '\0';
	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 2);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	if (rc) {
		close(pfd[0]);
		return -rc;
	}
	for (;;) {
		if (used + 1 < outlen)
			n = read(pfd[0], out + used, outlen - used - 1);
		else
			n = read(pfd[0], sink, sizeof(sink));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (used + 1 < outlen)
			used += n;
	}
	out[used] = '\0';
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}


/* Build the mkfs command line for r on dev. */
static int mkfs_argv(const struct cmp_opts *o, struct cmp_fs_run *r, const char *dev)
{
	const struct cmp_fs_def *d = &cmp_fs_defs[r->kind];
	const char *opts = o->mkfs_label_opts[r->idx] ?
			   o->mkfs_label_opts[r->idx] :
			   o->mkfs_opts[r->kind] ? o->mkfs_opts[r->kind] :
			   d->defaults;
	char *tok, *save = NULL;
	int n = 0;

	if (strlen(opts) >= sizeof(r->mkfs_buf))
		return -1;
	snprintf(r->mkfs_buf, sizeof(r->mkfs_buf), "%s", opts);
	r->mkfs_argv[n++] = (char *)d->mkfs;
	r->mkfs_argv[n++] = (char *)"-q";
	r->mkfs_argv[n++] = (char *)d->force;
	for (tok = strtok_r(r->mkfs_buf, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		if (n >= CMP_MAX_MKFS_ARGS - 2)
			return -1;
		r->mkfs_argv[n++] = tok;
	}
	r->mkfs_argv[n++] = (char *)dev;
	r->mkfs_argv[n] = NULL;
	r->mkfs_argc = n;
	return 0;
}

static void mkfs_cmdline(const struct cmp_fs_run *r, char *buf, size_t len)
{
	size_t l = 0;

	buf[0] = '\0';
	for (int i = 0; i < r->mkfs_argc && l + 1 < len; i++)
		l += snprintf(buf + l, len - l, "%s%s", i ? " " : "", r->mkfs_argv[i]);
}

/*
 * Attach img to a free loop device (autoclear: the kernel detaches it when
 * the last user closes it, so a crash after unmount leaves nothing).
 */
static int loop_attach(struct cmp_fs_run *r, char *err, size_t errlen)
{
	struct loop_config cfg;
	int ctl, ffd, lfd = -1, n = -1, e = 0;

	ffd = open(r->img, O_RDWR | O_CLOEXEC);
	if (ffd < 0) {
		snprintf(err, errlen, "%.400s: %s", r->img, strerror(errno));
		return -1;
	}
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		snprintf(err, errlen, "/dev/loop-control: %s (is the loop "
			 "module loaded?)", strerror(errno));
		close(ffd);
		return -1;
	}
	for (int tries = 0; tries < 32; tries++) {
		n = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (n < 0) {
			e = errno;
			break;
		}
		snprintf(r->dev, sizeof(r->dev), "/dev/loop%d", n);
		lfd = open(r->dev, O_RDWR | O_CLOEXEC);
		if (lfd < 0) {
			e = errno;
			if (e == ENOENT) {	/* node not there yet */
				usleep(20000);
				continue;
			}
			break;
		}
		memset(&cfg, 0, sizeof(cfg));
		cfg.fd = ffd;
		cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
		scopy((char *)cfg.info.lo_file_name, LO_NAME_SIZE, r->img);
		if (!ioctl(lfd, LOOP_CONFIGURE, &cfg)) {
			e = 0;
			break;
		}
		e = errno;
		close(lfd);
		lfd = -1;
		if (e != EBUSY)		/* EBUSY: another program took it first */
			break;
	}
	close(ctl);
	close(ffd);
	if (lfd < 0) {
		snprintf(err, errlen, "cannot attach a loop device to %.400s: %s",
			 r->img, strerror(e ? e : EBUSY));
		r->dev[0] = '\0';
		return -1;
	}
	r->loop_fd = lfd;
	snprintf(r->loop_name, sizeof(r->loop_name), "loop%d", n);
	return 0;
}

/* Wait (up to 5 s) until the loop device has let go of its backing file. */
static bool loop_wait_detached(const char *name)
{
	char p[128];

	snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file", name);
	for (int i = 0; i < 250; i++) {
		if (access(p, F_OK))
			return true;
		usleep(20000);
	}
	return false;
}

static int do_umount(const char *mnt)
{
	for (int i = 0; i < 50; i++) {
		if (!umount2(mnt, 0))
			return 0;
		if (errno != EBUSY)
			break;
		usleep(100000);
	}
	if (!umount2(mnt, MNT_DETACH))
		return 0;
	return -errno;
}

void cmp_fs_unmount(struct cmp_fs_run *r)
{
	int rc;

	if (r->mounted) {
		rc = do_umount(r->mnt);
		if (rc)
			fprintf(stderr, PROG ": warning: cannot unmount %s: %s\n",
				r->mnt, strerror(-rc));
		else
			r->mounted = false;
	}
	if (r->loop_fd >= 0) {
		ioctl(r->loop_fd, LOOP_CLR_FD, 0);
		close(r->loop_fd);
		r->loop_fd = -1;
		if (!r->mounted && !loop_wait_detached(r->loop_name))
			fprintf(stderr, PROG ": warning: %s still attached to %s\n",
				r->dev, r->img);
	}
	if (r->mnt_made && !r->mounted) {
		if (rmdir(r->mnt) && errno != ENOENT)
			fprintf(stderr, PROG ": warning: cannot remove %s: %s\n",
				r->mnt, strerror(errno));
		r->mnt_made = false;
	}
}

/* Undo whatever fs_setup made, in reverse; safe to call repeatedly. */
void cmp_fs_teardown(struct cmp_fs_run *r)
{
	cmp_fs_unmount(r);
	if (r->img_made && !r->mounted) {
		if (unlink(r->img) && errno != ENOENT)
			fprintf(stderr, PROG ": warning: cannot remove %s: %s\n",
				r->img, strerror(errno));
		r->img_made = false;
	}
}

/* mkfs on r->mkfs target (an image file or the scratch device). */
static int fs_mkfs(const struct cmp_opts *o, struct cmp_fs_run *r, const char *target)
{
	const struct cmp_fs_def *d = &cmp_fs_defs[r->kind];
	char out[4096], cmd[1024];
	int rc;

	if (mkfs_argv(o, r, target)) {
		snprintf(r->error, sizeof(r->error), "--mkfs-opts for %s: too long "
			 "or too many options", d->name);
		return -1;
	}
	mkfs_cmdline(r, cmd, sizeof(cmd));
	if (o->wl.verbose)
		fprintf(stderr, "fsyncscope: %s: %s\n", r->label, cmd);
	rc = run_cmd(r->mkfs_argv, out, sizeof(out));
	if (rc < 0) {
		snprintf(r->error, sizeof(r->error), "cannot run %s: %s", d->mkfs,
			 strerror(-rc));
		return -1;
	}
	if (rc) {
		snprintf(r->error, sizeof(r->error), "%.1000s failed (exit %d): %.500s",
			 cmd, rc, first_line(out));
		return -1;
	}
	return 0;
}

/*
 * Image mode, before anything is measured: a sparse image of --size with
 * the filesystem made on it, so a bad --mkfs-opts fails at once.
 */
int cmp_fs_make_image(const struct cmp_opts *o, struct cmp_fs_run *r,
			 const char *workdir)
{
	int fd;

	snprintf(r->img, sizeof(r->img), "%.4000s/%s.img", workdir, r->label);
	fd = open(r->img, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(r->error, sizeof(r->error), "cannot create %s: %s",
			 r->img, strerror(errno));
		return -1;
	}
	r->img_made = true;
	if (ftruncate(fd, (off_t)o->size)) {
		snprintf(r->error, sizeof(r->error), "cannot size %s: %s", r->img,
			 strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return fs_mkfs(o, r, r->img);
}

/*
 * Attach the image to a loop device (or mkfs the scratch device) and
 * mount it.  0, or -1 with one line in r->error (or stopped by a signal).
 */
int cmp_fs_mount(const struct cmp_opts *o, struct cmp_fs_run *r,
		    const char *workdir)
{
	const struct cmp_fs_def *d = &cmp_fs_defs[r->kind];
	char err[512];

	snprintf(r->mnt, sizeof(r->mnt), "%.4000s/mnt-%s", workdir, r->label);
	if (mkdir(r->mnt, 0700)) {
		snprintf(r->error, sizeof(r->error), "cannot make %s: %s", r->mnt,
			 strerror(errno));
		return -1;
	}
	r->mnt_made = true;
	if (o->scratch_dev) {
		snprintf(r->dev, sizeof(r->dev), "%s", o->scratch_dev);
		if (fs_mkfs(o, r, r->dev))
			return -1;
	} else if (loop_attach(r, err, sizeof(err))) {
		snprintf(r->error, sizeof(r->error), "%s", err);
		return -1;
	}
	if (fss_wl_stop)
		return -1;
	if (mount(r->dev, r->mnt, d->name, 0, NULL)) {
		snprintf(r->error, sizeof(r->error), "cannot mount %s (%s) on %s: %s",
			 r->dev, d->name, r->mnt, strerror(errno));
		return -1;
	}
	r->mounted = true;
	r->t_ok = !fss_target_lookup(r->mnt, &r->t);
	if (r->t_ok && r->t.has_disk && r->t.disk[0])
		r->disk_ok = !fss_devinfo_read(r->t.disk, &r->disk);
	return 0;
}

/* Run every workload on r's mounted filesystem. */
void cmp_fs_run(const struct cmp_opts *o, struct cmp_fs_run *r,
		const struct cmp_wl *wl, int nwl, struct fss_run_test *tests)
{
	struct fss_run_cfg cfg = {
		.dir = r->mnt,
		.trace = !o->wl.no_trace,
		.strategy = FSS_STRAT_AUTO,
		.verbose = o->wl.verbose,
		.tag = r->label,
		.kernel_paint = o->kernel_paint,
	};
	struct fss_run_out out;
	char err[512];
	int rc;

	if (o->wl.strategy)
		fss_strategy_parse(o->wl.strategy, &cfg.strategy);
	for (int i = 0; i < nwl; i++) {
		fss_run_tests_free(&tests[i], 1);	/* an earlier round's */
		memset(&tests[i], 0, sizeof(tests[i]));
		scopy(tests[i].name, sizeof(tests[i].name), wl[i].name);
		snprintf(tests[i].label, sizeof(tests[i].label), "%s",
			 fss_method_name(wl[i].spec.method));
		tests[i].section = "compare";
		tests[i].spec = wl[i].spec;
	}
	err[0] = '\0';
	memset(&out, 0, sizeof(out));
	rc = fss_run_tests(&cfg, tests, nwl, &out, err, sizeof(err));
	if (!r->strategy) {
		r->strategy = out.strategy;
		r->kernel_painted = out.kernel_painted;
		if (out.strategy)
			fss_cli_painter_note(PROG, o->kernel_paint,
					     out.kernel_painted);
	} else {
		json_object_put(out.strategy);
	}
	r->drops += out.drops;
	if (rc == -EINTR && fss_wl_stop) {
		r->status = CMP_FS_INTERRUPTED;
	} else if (rc) {
		r->status = CMP_FS_ERROR;
		snprintf(r->error, sizeof(r->error), "%s: %s", r->label,
			 err[0] ? err : strerror(-rc));
	} else {
		r->status = CMP_FS_OK;
	}
}

int cmp_pick_parent(const struct cmp_opts *o, struct cmp_place *pl)
{
	static const char *const cands[] = { "/var/tmp", "." };
	const char *dir = NULL;
	struct statvfs sv;
	struct stat st;
	char sz[32], fr[32];

	if (o->dir) {
		if (stat(o->dir, &st)) {
			fprintf(stderr, PROG ": --dir %s: %s\n", o->dir, strerror(errno));
			return -1;
		}
		if (!S_ISDIR(st.st_mode)) {
			fprintf(stderr, PROG ": --dir %s: not a directory\n", o->dir);
			return -1;
		}
		if (access(o->dir, W_OK)) {
			fprintf(stderr, PROG ": --dir %s: cannot write there: %s\n",
				o->dir, strerror(errno));
			return -1;
		}
		if (fss_pseudo_fs(o->dir)) {
			fprintf(stderr, PROG ": --dir %s is on %s, not a "
				"disk-backed filesystem\n", o->dir,
				fss_pseudo_fs(o->dir));
			return -1;
		}
		dir = o->dir;
	} else if (o->scratch_dev) {
		dir = "/tmp";		/* mount points only */
	} else {
		for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]) && !dir; i++)
			if (!stat(cands[i], &st) && S_ISDIR(st.st_mode) &&
			    !access(cands[i], W_OK) && !in_memory_fs(cands[i]))
				dir = cands[i];
		if (!dir) {
			fprintf(stderr, PROG ": no disk-backed directory for the "
				"images (/var/tmp and the current directory are in "
				"memory or not writable); give --dir DIR\n");
			return -1;
		}
	}
	if (!realpath(dir, pl->parent))
		snprintf(pl->parent, sizeof(pl->parent), "%s", dir);
	pl->in_memory = in_memory_fs(pl->parent);
	if (!o->scratch_dev) {
		pl->t_ok = !fss_target_lookup(pl->parent, &pl->t);
		if (pl->t_ok && pl->t.has_disk && pl->t.disk[0])
			pl->disk_ok = !fss_devinfo_read(pl->t.disk, &pl->disk);
		if (!statvfs(pl->parent, &sv) &&
		    (__u64)sv.f_bavail * sv.f_frsize < o->size) {
			fss_fmt_size(sz, sizeof(sz), o->size);
			fss_fmt_size(fr, sizeof(fr), (__u64)sv.f_bavail * sv.f_frsize);
			fprintf(stderr, PROG ": not enough space in %s for a %s image "
				"(%s free); give a smaller --size or another --dir\n",
				pl->parent, sz, fr);
			return -1;
		}
	}
	return 0;
}

