// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * compare.c - `fsyncscope compare`: the same sync workloads on several
 * filesystems, each made fresh on a same-size loop image (or, with
 * --scratch-dev DEV --destroy-data, on a real device in turn), traced, and
 * printed side by side: ops/sec, p50/p99, the phase breakdown with the
 * journal highlighted, and ratios against the first filesystem.
 *
 * One filesystem at a time: make the image, attach a loop device, mkfs,
 * mount, run every workload (run.h), unmount, detach, remove.  Everything
 * made is undone on every path out (errors, SIGINT/SIGTERM/SIGHUP/SIGPIPE);
 * docs/compare.md is the user-facing contract.
 */
#include <argp.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <linux/loop.h>
#include <linux/magic.h>
#include <json-c/json.h>
#include "cli.h"
#include "commands.h"
#include "devinfo.h"
#include "doc.h"
#include "preflight.h"
#include "render.h"
#include "suite.h"
#include "workload.h"

#define PROG		"fsyncscope compare"
#define MAX_FS		3
#define MAX_WL		8
#define MAX_MKFS_ARGS	48
#define DEF_SIZE	(1ULL << 30)
#define MIN_SIZE	(64ULL << 20)
#define DEF_FILE_SIZE	(16ULL << 20)
#define FS_KINDS	3

extern char **environ;

/* ---- filesystems -------------------------------------------------------- */

struct fs_def {
	const char *name;
	const char *mkfs;
	const char *force;		/* overwrite an existing signature */
	const char *defaults;		/* default options (replaced by --mkfs-opts) */
	bool journal_traced;		/* its journal has hooks (docs/model.md) */
	const char *journal_what;
};

static const struct fs_def fs_defs[FS_KINDS] = {
	{ "ext4", "mkfs.ext4", "-F", "-E lazy_itable_init=0,lazy_journal_init=0",
	  true, "the jbd2 commit the sync waited for" },
	{ "xfs", "mkfs.xfs", "-f", "", true,
	  "the log force (iclog writes) the sync did" },
	{ "btrfs", "mkfs.btrfs", "-f", "", false,
	  "n/a: btrfs writes its log tree inside its fsync (fs, device_write, "
	  "device_flush); there is no journal hook" },
};

/* Copy a string, truncating to the destination (n > 0). */
static void scopy(char *dst, size_t n, const char *src)
{
	size_t l = strnlen(src, n - 1);

	memcpy(dst, src, l);
	dst[l] = '\0';
}

static int fs_lookup(const char *name)
{
	for (int i = 0; i < FS_KINDS; i++)
		if (!strcmp(fs_defs[i].name, name))
			return i;
	return -1;
}

/* ---- options ------------------------------------------------------------ */

struct cmp_opts {
	int fs[MAX_FS];
	int nfs;
	const char *dir;
	__u64 size;
	bool size_set;
	const char *mkfs_opts[FS_KINDS];
	const char *scratch_dev;
	bool destroy;
	/* workload (more in wl: -s, -n, --bs..., tracing, output) */
	struct fss_cli_wl wl;
	enum fss_method methods[MAX_WL];
	int nmethods;
	bool direct;
	enum fss_pattern pattern;
	bool pattern_set;
	bool help;
};

enum {
	OPT_FS = 256, OPT_DIR, OPT_SIZE, OPT_MKFS_OPTS, OPT_SCRATCH, OPT_DESTROY,
	OPT_METHOD, OPT_DIRECT, OPT_PATTERN, OPT_USAGE,
};

static const char doc[] =
"Run the same sync workloads on several filesystems and show them side by "
"side.\n\n"
"Each filesystem in --fs is made fresh on its own loop image of --size "
"bytes (a sparse file in a new temporary directory under --dir; default "
"/var/tmp, else the current directory, never tmpfs unless --dir says so), "
"mounted, and given the same workloads (default: fdatasync after an 8 KiB "
"overwrite, fsync after an 8 KiB append, O_DSYNC|O_DIRECT 8 KiB "
"overwrites), each traced so every sync is split into fs, journal, queue, "
"device_write, device_flush and other time (needs root).  One table per "
"workload: ops/sec, p50/p99, each phase's mean and share (journal marked "
"'>'), ratios against the first filesystem.  Images, mounts and loop "
"devices are removed at the end, on errors and on SIGINT/SIGTERM.  "
"--scratch-dev DEV --destroy-data makes the filesystems on DEV instead "
"(its data are destroyed; refused when DEV or a partition of it is "
"mounted or in use)."
"\v"
"EXAMPLES:\n"
"  fsyncscope compare                          ext4 vs xfs in /var/tmp\n"
"  fsyncscope compare --fs ext4,xfs,btrfs -s 10 --dir /srv/scratch\n"
"  fsyncscope compare --fs ext4,xfs --method fdatasync --jobs 4 --json\n"
"  fsyncscope compare --fs ext4,xfs --mkfs-opts 'ext4=-J size=256' "
"--mkfs-opts 'xfs=-l size=128m'\n"
"  fsyncscope compare --fs ext4,xfs --scratch-dev /dev/sdX --destroy-data\n"
"\n"
"Exit status: 0 done (n/a cells included), 1 error, 2 usage error,\n"
"130/143 stopped by SIGINT/SIGTERM (what was measured is printed).\n"
"See docs/compare.md for the table and the JSON contract.";

/* Groups 2, 3 and 5 hold the shared options of fss_cli_wl_argp too. */
static const struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "Filesystems and where they are made:", 1 },
	{ "fs", OPT_FS, "LIST", 0, "Filesystems in order, from ext4, xfs, btrfs "
	  "(default ext4,xfs); ratios are against the first", 1 },
	{ "dir", OPT_DIR, "DIR", 0, "Make the images in a new temporary "
	  "directory in DIR (default /var/tmp, else .)", 1 },
	{ "size", OPT_SIZE, "SIZE", 0, "Size of every image (default 1g; xfs "
	  "needs more than 300m)", 1 },
	{ "mkfs-opts", OPT_MKFS_OPTS, "FS=OPTS", 0, "mkfs options for FS instead "
	  "of the defaults, split at spaces (repeatable)", 1 },
	{ "scratch-dev", OPT_SCRATCH, "DEV", 0, "Make the filesystems on the "
	  "block device DEV instead of images (needs --destroy-data)", 1 },
	{ "destroy-data", OPT_DESTROY, NULL, 0, "Confirm that everything on "
	  "--scratch-dev DEV may be destroyed", 1 },
	{ NULL, 0, NULL, 0, "Test length:", 2 },
	{ NULL, 0, NULL, 0, "Workloads (default: fdatasync overwrite, fsync "
	  "append, open_datasync):", 3 },
	{ "method", OPT_METHOD, "M[,M...]", 0, "Only these methods (open_datasync, "
	  "open_sync, fdatasync, fsync, pwritev2_dsync, sync_file_range, none), "
	  "one workload each with --pattern", 3 },
	{ "direct", OPT_DIRECT, NULL, 0, "O_DIRECT for every workload "
	  "(open_datasync always uses it)", 3 },
	{ "pattern", OPT_PATTERN, "P", 0, "overwrite, append or random for every "
	  "workload (default: each workload's own)", 3 },
	{ NULL, 0, NULL, 0, "Tracing and output:", 5 },
	{ "help", 'h', NULL, 0, "Give this help list", -1 },
	{ "usage", OPT_USAGE, NULL, 0, "Give a short usage message", -1 },
	{ 0 },
};

static int parse_fs_list(struct cmp_opts *o, const char *arg)
{
	char buf[256], *tok, *save = NULL;
	int k;

	if (strlen(arg) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", arg);
	o->nfs = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		k = fs_lookup(tok);
		if (k < 0 || o->nfs >= MAX_FS)
			return -1;
		for (int i = 0; i < o->nfs; i++)
			if (o->fs[i] == k)
				return -1;
		o->fs[o->nfs++] = k;
	}
	return o->nfs ? 0 : -1;
}

static int parse_methods(struct cmp_opts *o, const char *arg)
{
	char buf[256], *tok, *save = NULL;
	enum fss_method m;

	if (strlen(arg) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (fss_method_parse(tok, &m) || m == FSS_M_FSYNC_WRITETHROUGH ||
		    o->nmethods >= MAX_WL)
			return -1;
		for (int i = 0; i < o->nmethods; i++)
			if (o->methods[i] == m)
				return -1;
		o->methods[o->nmethods++] = m;
	}
	return o->nmethods ? 0 : -1;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct cmp_opts *o = state->input;
	const char *eq;
	int k;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &o->wl;
		break;
	case 'h':
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);
		o->help = true;
		break;
	case OPT_USAGE:
		argp_state_help(state, stdout, ARGP_HELP_USAGE);
		o->help = true;
		break;
	case OPT_FS:
		if (parse_fs_list(o, arg)) {
			argp_error(state, "bad --fs '%s': up to 3 different of ext4, "
				   "xfs, btrfs, comma-separated", arg);
			return EINVAL;
		}
		break;
	case OPT_DIR:
		if (!arg[0]) {
			argp_error(state, "empty --dir");
			return EINVAL;
		}
		o->dir = arg;
		break;
	case OPT_SIZE:
		if (fss_size_parse(arg, &o->size) || o->size < MIN_SIZE ||
		    o->size > (1ULL << 44)) {
			argp_error(state, "bad --size '%s': a size from 64m to 16t "
				   "(suffixes k, m, g, t)", arg);
			return EINVAL;
		}
		o->size_set = true;
		break;
	case OPT_MKFS_OPTS:
		eq = strchr(arg, '=');
		if (eq) {
			char name[16];

			snprintf(name, sizeof(name), "%.*s", (int)(eq - arg), arg);
			k = (eq - arg) < (int)sizeof(name) ? fs_lookup(name) : -1;
		} else {
			k = -1;
		}
		if (k < 0) {
			argp_error(state, "bad --mkfs-opts '%s': FS=OPTIONS with FS "
				   "one of ext4, xfs, btrfs", arg);
			return EINVAL;
		}
		if (o->mkfs_opts[k]) {
			argp_error(state, "--mkfs-opts for %s given twice", fs_defs[k].name);
			return EINVAL;
		}
		o->mkfs_opts[k] = eq + 1;
		break;
	case OPT_SCRATCH:
		if (!arg[0]) {
			argp_error(state, "empty --scratch-dev");
			return EINVAL;
		}
		o->scratch_dev = arg;
		break;
	case OPT_DESTROY:
		o->destroy = true;
		break;
	case OPT_METHOD:
		if (parse_methods(o, arg)) {
			argp_error(state, "bad --method '%s': different methods from "
				   "open_datasync, open_sync, fdatasync, fsync, "
				   "pwritev2_dsync, sync_file_range, none", arg);
			return EINVAL;
		}
		break;
	case OPT_DIRECT:
		o->direct = true;
		break;
	case OPT_PATTERN:
		if (fss_pattern_parse(arg, &o->pattern)) {
			argp_error(state, "unknown --pattern '%s' (overwrite, append, "
				   "random)", arg);
			return EINVAL;
		}
		o->pattern_set = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s' (images go in --dir DIR)",
			   arg);
		return EINVAL;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {
	{ &fss_cli_wl_argp, 0, NULL, 0 },
	{ 0 },
};

static const struct argp cmp_argp = { options, parse_opt, NULL, doc, children };

static int usage_error(const char *msg)
{
	return fss_cli_usage_error(PROG, msg);
}

static int check_combinations(struct cmp_opts *o)
{
	enum fss_strategy st;

	if (o->wl.count && o->wl.seconds_set)
		return usage_error("use either -s/--runtime or --count, not both");
	if (o->wl.format == FSS_FMT_PERFETTO)
		return usage_error("--format perfetto is for run --events (compare "
				   "keeps no per-sync records)");
	if (o->wl.no_trace && o->wl.strategy)
		return usage_error("--strategy needs tracing (drop --no-trace)");
	if (o->wl.strategy && fss_strategy_parse(o->wl.strategy, &st))
		return usage_error("unknown --strategy (auto, fentry, kprobe, "
				   "tracepoint)");
	if (o->scratch_dev && !o->destroy)
		return usage_error("--scratch-dev erases everything on the device: "
				   "add --destroy-data to confirm");
	if (o->destroy && !o->scratch_dev)
		return usage_error("--destroy-data only applies to --scratch-dev DEV");
	if (o->scratch_dev && o->size_set)
		return usage_error("--size does not apply to --scratch-dev (the "
				   "whole device is used)");
	for (int k = 0; k < FS_KINDS; k++) {
		bool listed = false;

		for (int i = 0; i < o->nfs; i++)
			listed |= o->fs[i] == k;
		if (o->mkfs_opts[k] && !listed) {
			fprintf(stderr, PROG ": --mkfs-opts for %s, which is not in "
				"--fs (try '" PROG " --help')\n", fs_defs[k].name);
			return 2;
		}
	}
	if (o->pattern_set && o->pattern == FSS_PAT_APPEND && o->wl.file_size_set)
		return usage_error("--file-size does not apply to --pattern append");
	if (o->wl.file_size_set && o->wl.file_size < o->wl.bs * o->wl.wps)
		return usage_error("--file-size is smaller than --bs x "
				   "--writes-per-sync");
	return 0;
}

/* ---- workloads ---------------------------------------------------------- */

struct wl_def {
	char name[64];
	char title[160];
	struct fss_wl_spec spec;
};

static void size_label(char *buf, size_t len, __u64 v)
{
	if (v >= (1ULL << 30) && !(v % (1ULL << 30)))
		snprintf(buf, len, "%llu GiB", (unsigned long long)(v >> 30));
	else if (v >= (1 << 20) && !(v % (1 << 20)))
		snprintf(buf, len, "%llu MiB", (unsigned long long)(v >> 20));
	else if (v >= 1024 && !(v % 1024))
		snprintf(buf, len, "%llu KiB", (unsigned long long)(v >> 10));
	else
		snprintf(buf, len, "%llu bytes", (unsigned long long)v);
}

static void wl_fill(const struct cmp_opts *o, struct wl_def *w,
		    enum fss_method m, enum fss_pattern p, bool direct)
{
	char bs[32], what[64];
	const char *pat;
	size_t l;

	if (o->pattern_set)
		p = o->pattern;
	direct = direct || o->direct;
	memset(w, 0, sizeof(*w));
	w->spec = (struct fss_wl_spec){
		.method = m,
		.shape = FSS_SHAPE_WRITE_SYNC,
		.pattern = p,
		.bs = o->wl.bs,
		.writes_per_sync = o->wl.wps,
		.jobs = o->wl.jobs,
		.direct = direct,
		.file_size = o->wl.file_size,
		.seconds = o->wl.seconds,
		.count = o->wl.count,
	};
	snprintf(w->name, sizeof(w->name), "%s_%s%s", fss_method_name(m),
		 fss_pattern_name(p), direct ? "_direct" : "");
	size_label(bs, sizeof(bs), o->wl.bs);
	pat = p == FSS_PAT_APPEND ? "append" : p == FSS_PAT_RANDOM ?
	      "random write" : "overwrite";
	if (o->wl.wps > 1)
		snprintf(what, sizeof(what), "%u x %s %ss", o->wl.wps, bs, pat);
	else
		snprintf(what, sizeof(what), "%s %s", bs, pat);
	switch (m) {
	case FSS_M_OPEN_DATASYNC:
	case FSS_M_OPEN_SYNC:
	case FSS_M_PWRITEV2_DSYNC:
		snprintf(w->title, sizeof(w->title), "%s: %s, each write %s",
			 w->name, what, m == FSS_M_OPEN_DATASYNC ? "O_DSYNC" :
			 m == FSS_M_OPEN_SYNC ? "O_SYNC" : "RWF_DSYNC");
		break;
	case FSS_M_NONE:
		snprintf(w->title, sizeof(w->title), "%s: %s, no sync", w->name,
			 what);
		break;
	default:
		snprintf(w->title, sizeof(w->title), "%s: %s after each %s",
			 w->name, fss_method_name(m), what);
		break;
	}
	l = strlen(w->title);
	snprintf(w->title + l, sizeof(w->title) - l, "%s", direct ?
		 ", O_DIRECT" : "");
	if (o->wl.jobs > 1) {
		l = strlen(w->title);
		snprintf(w->title + l, sizeof(w->title) - l, ", %u jobs", o->wl.jobs);
	}
}

static int wl_build(const struct cmp_opts *o, struct wl_def *w)
{
	int n = 0;

	if (o->nmethods) {
		for (int i = 0; i < o->nmethods; i++)
			wl_fill(o, &w[n++], o->methods[i], FSS_PAT_OVERWRITE, false);
		return n;
	}
	wl_fill(o, &w[n++], FSS_M_FDATASYNC, FSS_PAT_OVERWRITE, false);
	wl_fill(o, &w[n++], FSS_M_FSYNC, FSS_PAT_APPEND, false);
	/* O_DIRECT, as pg_test_fsync's open_datasync test */
	wl_fill(o, &w[n++], FSS_M_OPEN_DATASYNC, FSS_PAT_OVERWRITE, true);
	return n;
}

/* ---- helpers ------------------------------------------------------------ */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
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

/* ---- the scratch device: refuse anything that is in use ----------------- */

struct blkdev {
	unsigned int major, minor;
	char name[64];
};

static int read_dev_file(const char *path, unsigned int *ma, unsigned int *mi)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%u:%u", ma, mi) == 2;
	fclose(f);
	return ok ? 0 : -1;
}

/* DEV and, for a whole disk, its partitions (from sysfs).  Count or -1. */
static int dev_and_parts(dev_t rdev, struct blkdev *out, int max)
{
	char sys[PATH_MAX], real[PATH_MAX], p[PATH_MAX + 300];
	struct dirent *de;
	const char *slash;
	int n = 0;
	DIR *d;

	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(rdev), minor(rdev));
	if (!realpath(sys, real))
		return -1;
	slash = strrchr(real, '/');
	out[n].major = major(rdev);
	out[n].minor = minor(rdev);
	scopy(out[n].name, sizeof(out[n].name), slash ? slash + 1 : real);
	n++;
	snprintf(p, sizeof(p), "%s/partition", real);
	if (!access(p, F_OK))
		return n;		/* a partition has no partitions */
	d = opendir(real);
	if (!d)
		return n;
	while ((de = readdir(d)) && n < max) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s/partition", real, de->d_name);
		if (access(p, F_OK))
			continue;
		snprintf(p, sizeof(p), "%s/%s/dev", real, de->d_name);
		if (read_dev_file(p, &out[n].major, &out[n].minor))
			continue;
		scopy(out[n].name, sizeof(out[n].name), de->d_name);
		n++;
	}
	closedir(d);
	return n;
}

/* Mount point of a mount of b (by st_dev or by source device), or NULL. */
static bool mounted_at(const struct blkdev *b, char *mnt, size_t len)
{
	char line[3 * PATH_MAX + 64], m[PATH_MAX], fstype[64], src[PATH_MAX];
	bool found = false;
	struct stat st;
	FILE *f = fopen("/proc/self/mountinfo", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned int ma, mi;
		char *dash;

		if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &ma, &mi, m) != 3)
			continue;
		if (ma == b->major && mi == b->minor) {
			found = true;
		} else {
			dash = strstr(line, " - ");
			/* btrfs shows an anonymous st_dev: compare the source */
			if (dash && sscanf(dash + 3, "%63s %4095s", fstype, src) == 2 &&
			    src[0] == '/' && !stat(src, &st) && S_ISBLK(st.st_mode) &&
			    major(st.st_rdev) == b->major && minor(st.st_rdev) == b->minor)
				found = true;
		}
		if (found)
			snprintf(mnt, len, "%s", m);
	}
	fclose(f);
	return found;
}

static bool used_as_swap(const struct blkdev *b)
{
	char line[PATH_MAX + 128], path[PATH_MAX];
	bool found = false;
	struct stat st;
	FILE *f = fopen("/proc/swaps", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%4095s", path) == 1 && path[0] == '/' &&
		    !stat(path, &st) && S_ISBLK(st.st_mode) &&
		    major(st.st_rdev) == b->major && minor(st.st_rdev) == b->minor)
			found = true;
	fclose(f);
	return found;
}

/* First entry of /sys/dev/block/M:m/holders, or "" when none. */
static void first_holder(const struct blkdev *b, char *out, size_t len)
{
	char p[128];
	struct dirent *de;
	DIR *d;

	out[0] = '\0';
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/holders", b->major, b->minor);
	d = opendir(p);
	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.') {
			scopy(out, len, de->d_name);
			break;
		}
	closedir(d);
}

/*
 * Everything that must be true before DEV may be destroyed.  Each refusal
 * is one line on stderr; returns 0 (go ahead) or 1.  Touches nothing: the
 * exclusive open is closed at once without a write.
 */
static int scratch_check(const char *dev, struct blkdev *whole)
{
	struct blkdev list[64];
	char mnt[PATH_MAX], holder[64], p[128];
	unsigned int ro = 0;
	struct stat st;
	FILE *f;
	int n, fd;

	if (stat(dev, &st)) {
		fprintf(stderr, PROG ": --scratch-dev %s: %s\n", dev, strerror(errno));
		return 1;
	}
	if (!S_ISBLK(st.st_mode)) {
		fprintf(stderr, PROG ": --scratch-dev %s: not a block device; "
			"refusing to touch it\n", dev);
		return 1;
	}
	n = dev_and_parts(st.st_rdev, list, 64);
	if (n < 1) {
		fprintf(stderr, PROG ": --scratch-dev %s: not in /sys/dev/block; "
			"refusing to touch it\n", dev);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		const char *what = i ? "its partition " : "";

		if (mounted_at(&list[i], mnt, sizeof(mnt))) {
			fprintf(stderr, PROG ": --scratch-dev %s: %s%s is mounted at "
				"%s; refusing to destroy it\n", dev, what,
				list[i].name, mnt);
			return 1;
		}
		if (used_as_swap(&list[i])) {
			fprintf(stderr, PROG ": --scratch-dev %s: %s%s is in use as "
				"swap; refusing to destroy it\n", dev, what,
				list[i].name);
			return 1;
		}
		first_holder(&list[i], holder, sizeof(holder));
		if (holder[0]) {
			fprintf(stderr, PROG ": --scratch-dev %s: %s%s is held by %s "
				"(holders/); refusing to destroy it\n", dev, what,
				list[i].name, holder);
			return 1;
		}
	}
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/ro", list[0].major,
		 list[0].minor);
	f = fopen(p, "r");
	if (f) {
		if (fscanf(f, "%u", &ro) != 1)
			ro = 0;
		fclose(f);
	}
	if (ro) {
		fprintf(stderr, PROG ": --scratch-dev %s: read-only device\n", dev);
		return 1;
	}
	/* the kernel's own claim: a mount elsewhere, dm, md, swap, mkfs... */
	fd = open(dev, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, PROG ": --scratch-dev %s: %s; refusing to destroy "
			"it\n", dev, errno == EBUSY ? "in use (opened exclusively "
			"by the kernel or another program)" : strerror(errno));
		return 1;
	}
	close(fd);
	*whole = list[0];
	return 0;
}

/* ---- one filesystem: make, mount, run, undo ----------------------------- */

enum fs_status { FS_NOT_RUN = 0, FS_OK, FS_INTERRUPTED, FS_ERROR };

struct fs_run {
	int kind;			/* index in fs_defs */
	enum fs_status status;
	char error[2 * PATH_MAX + 1024];
	/* what was made (undone by fs_teardown) */
	char img[PATH_MAX];
	bool img_made;
	char mnt[PATH_MAX];
	bool mnt_made, mounted;
	char dev[64];			/* block device mkfs'd and mounted */
	int loop_fd;			/* loop device we attached (-1: none) */
	char loop_name[32];		/* "loop5" */
	/* facts */
	char *mkfs_argv[MAX_MKFS_ARGS];
	int mkfs_argc;
	char mkfs_buf[1024];		/* storage for the split options */
	struct fss_target t;
	bool t_ok;
	struct fss_devinfo disk;	/* the whole disk under the mount */
	bool disk_ok;
	double setup_s, run_s;
	struct json_object *strategy;
	__u64 drops;
	struct fss_run_test tests[MAX_WL];
};

/* Build the mkfs command line for r on dev. */
static int mkfs_argv(const struct cmp_opts *o, struct fs_run *r, const char *dev)
{
	const struct fs_def *d = &fs_defs[r->kind];
	const char *opts = o->mkfs_opts[r->kind] ? o->mkfs_opts[r->kind] : d->defaults;
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
		if (n >= MAX_MKFS_ARGS - 2)
			return -1;
		r->mkfs_argv[n++] = tok;
	}
	r->mkfs_argv[n++] = (char *)dev;
	r->mkfs_argv[n] = NULL;
	r->mkfs_argc = n;
	return 0;
}

static void mkfs_cmdline(const struct fs_run *r, char *buf, size_t len)
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
static int loop_attach(struct fs_run *r, char *err, size_t errlen)
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

/* Undo whatever fs_setup made, in reverse; safe to call repeatedly. */
static void fs_teardown(struct fs_run *r)
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
	if (r->img_made && !r->mounted) {
		if (unlink(r->img) && errno != ENOENT)
			fprintf(stderr, PROG ": warning: cannot remove %s: %s\n",
				r->img, strerror(errno));
		r->img_made = false;
	}
	if (r->mnt_made && !r->mounted) {
		if (rmdir(r->mnt) && errno != ENOENT)
			fprintf(stderr, PROG ": warning: cannot remove %s: %s\n",
				r->mnt, strerror(errno));
		r->mnt_made = false;
	}
}

/* mkfs on r->mkfs target (an image file or the scratch device). */
static int fs_mkfs(const struct cmp_opts *o, struct fs_run *r, const char *target)
{
	const struct fs_def *d = &fs_defs[r->kind];
	char out[4096], cmd[1024];
	int rc;

	if (mkfs_argv(o, r, target)) {
		snprintf(r->error, sizeof(r->error), "--mkfs-opts for %s: too long "
			 "or too many options", d->name);
		return -1;
	}
	mkfs_cmdline(r, cmd, sizeof(cmd));
	if (o->wl.verbose)
		fprintf(stderr, "fsyncscope: %s: %s\n", d->name, cmd);
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
static int fs_make_image(const struct cmp_opts *o, struct fs_run *r,
			 const char *workdir)
{
	const struct fs_def *d = &fs_defs[r->kind];
	int fd;

	snprintf(r->img, sizeof(r->img), "%.4000s/%s.img", workdir, d->name);
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
static int fs_mount(const struct cmp_opts *o, struct fs_run *r,
		    const char *workdir)
{
	const struct fs_def *d = &fs_defs[r->kind];
	char err[512];

	snprintf(r->mnt, sizeof(r->mnt), "%.4000s/mnt-%s", workdir, d->name);
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
static void fs_run(const struct cmp_opts *o, struct fs_run *r,
		   const struct wl_def *wl, int nwl)
{
	struct fss_run_cfg cfg = {
		.dir = r->mnt,
		.trace = !o->wl.no_trace,
		.strategy = FSS_STRAT_AUTO,
		.verbose = o->wl.verbose,
		.tag = fs_defs[r->kind].name,
	};
	struct fss_run_out out;
	char err[512];
	int rc;

	if (o->wl.strategy)
		fss_strategy_parse(o->wl.strategy, &cfg.strategy);
	for (int i = 0; i < nwl; i++) {
		memset(&r->tests[i], 0, sizeof(r->tests[i]));
		scopy(r->tests[i].name, sizeof(r->tests[i].name), wl[i].name);
		snprintf(r->tests[i].label, sizeof(r->tests[i].label), "%s",
			 fss_method_name(wl[i].spec.method));
		r->tests[i].section = "compare";
		r->tests[i].spec = wl[i].spec;
	}
	err[0] = '\0';
	rc = fss_run_tests(&cfg, r->tests, nwl, &out, err, sizeof(err));
	r->strategy = out.strategy;
	r->drops = out.drops;
	if (rc == -EINTR && fss_wl_stop) {
		r->status = FS_INTERRUPTED;
	} else if (rc) {
		r->status = FS_ERROR;
		snprintf(r->error, sizeof(r->error), "%s: %s", fs_defs[r->kind].name,
			 err[0] ? err : strerror(-rc));
	} else {
		r->status = FS_OK;
	}
}

/* ---- output ------------------------------------------------------------- */

#define LABEL_W	16
#define VAL_W	13
#define RATIO_W	7

static bool t_ok(const struct fss_run_test *t)
{
	return t->ran && t->res.status == FSS_WL_OK;
}

static bool t_traced(const struct fss_run_test *t)
{
	return t_ok(t) && t->traced && t->b.syncs > 0;
}

static double ratio(double v, double base)
{
	if (!isfinite(v) || !isfinite(base) || !(base > 0) || v < 0)
		return NAN;
	return v / base;
}

static void fmt_ratio(char *buf, size_t len, double r)
{
	if (!isfinite(r))
		buf[0] = '\0';
	else if (r < 9.995)
		snprintf(buf, len, "%.2fx", r);
	else if (r < 99.95)
		snprintf(buf, len, "%.1fx", r);
	else
		snprintf(buf, len, "%.0fx", r);
}

struct notes {
	char text[12][320];
	int n;
};

static int note_add(struct notes *nt, const char *text)
{
	for (int i = 0; i < nt->n; i++)
		if (!strcmp(nt->text[i], text))
			return i + 1;
	if (nt->n >= 12)
		return 0;
	snprintf(nt->text[nt->n], sizeof(nt->text[0]), "%s", text);
	return ++nt->n;
}

static void print_cells(const char *label, int nfs, char val[][32], char rat[][16])
{
	char line[256];
	int l;

	l = snprintf(line, sizeof(line), "%-*s", LABEL_W, label);
	for (int i = 0; i < nfs && l < (int)sizeof(line); i++)
		l += snprintf(line + l, sizeof(line) - l, "%*s%*s", VAL_W, val[i],
			      RATIO_W, rat[i]);
	while (l > 0 && line[l - 1] == ' ')
		line[--l] = '\0';
	printf("%s\n", line);
}

/* The cell of a test that has no value: why, as a short mark. */
static void missing_cell(const struct fs_run *r, const struct fss_run_test *t,
			 struct notes *nt, char *buf, size_t len)
{
	char note[320];
	int k;

	if (!t->ran) {
		snprintf(buf, len, "not run");
		return;
	}
	snprintf(note, sizeof(note), "%s: n/a: %s", fs_defs[r->kind].name,
		 t->res.reason);
	k = note_add(nt, note);
	snprintf(buf, len, k ? "n/a [%d]" : "n/a", k);
}

/* The phase cell of a test without a breakdown. */
static void untraced_cell(const struct fs_run *r, const struct fss_run_test *t,
			  struct notes *nt, char *buf, size_t len)
{
	char note[320];
	int k;

	if (!t_ok(t)) {
		missing_cell(r, t, nt, buf, len);
		return;
	}
	snprintf(note, sizeof(note), "%s: no breakdown: %s",
		 fs_defs[r->kind].name, !fss_method_syncs(t->spec.method) ?
		 "the method does not sync" : t->traced ?
		 "no syncs were traced" : "the tracer did not run for this test");
	k = note_add(nt, note);
	snprintf(buf, len, k ? "n/a [%d]" : "n/a", k);
}

enum { V_OPS, V_P50, V_P99, V_TOTAL };

static double value_of(const struct fss_run_test *t, int what)
{
	switch (what) {
	case V_OPS: return t->res.ops_per_sec;
	case V_P50: return t->res.lat.p50;
	case V_P99: return t->res.lat.p99;
	case V_TOTAL: return t_traced(t) ? t->b.total_mean_us : NAN;
	}
	return NAN;
}

static void print_table(const struct cmp_opts *o, const struct fs_run *runs,
			const struct wl_def *w, int wi)
{
	static const char *const labels[] = {
		[V_OPS] = "  ops/sec", [V_P50] = "  p50 us",
		[V_P99] = "  p99 us", [V_TOTAL] = "  total mean us",
	};
	char val[MAX_FS][32], rat[MAX_FS][16], note[320], lead[32];
	const struct fss_run_test *base = &runs[0].tests[wi];
	struct notes nt = { .n = 0 };
	bool any_traced = false;
	int nfs = o->nfs;

	printf("\n");
	fss_run_print_wrapped(stdout, "", 2, w->title);
	for (int i = 0; i < nfs; i++) {
		snprintf(val[i], sizeof(val[i]), "%s", fs_defs[runs[i].kind].name);
		rat[i][0] = '\0';
		any_traced |= t_traced(&runs[i].tests[wi]);
	}
	print_cells("", nfs, val, rat);

	for (int what = V_OPS; what <= V_P99; what++) {
		for (int i = 0; i < nfs; i++) {
			const struct fss_run_test *t = &runs[i].tests[wi];
			double v;

			rat[i][0] = '\0';
			if (!t_ok(t)) {
				missing_cell(&runs[i], t, &nt, val[i], sizeof(val[i]));
				continue;
			}
			v = value_of(t, what);
			if (what == V_OPS)
				snprintf(val[i], sizeof(val[i]), "%.1f", v);
			else
				fss_run_fmt_us(val[i], sizeof(val[i]), v);
			if (t->res.partial) {
				snprintf(note, sizeof(note), "%s: partial (interrupted "
					 "after %.2f s, %llu ops)",
					 fs_defs[runs[i].kind].name, t->res.elapsed_s,
					 (unsigned long long)t->res.ops);
				note_add(&nt, note);
			}
			if (t->res.note[0]) {
				snprintf(note, sizeof(note), "%s: %s",
					 fs_defs[runs[i].kind].name, t->res.note);
				note_add(&nt, note);
			}
			if (i && t_ok(base))
				fmt_ratio(rat[i], sizeof(rat[i]),
					  ratio(v, value_of(base, what)));
		}
		print_cells(labels[what], nfs, val, rat);
	}
	if (any_traced) {
		for (int i = 0; i < nfs; i++) {
			const struct fss_run_test *t = &runs[i].tests[wi];

			rat[i][0] = '\0';
			if (t_traced(t))
				snprintf(val[i], sizeof(val[i]), "%llu",
					 (unsigned long long)t->b.syncs);
			else
				untraced_cell(&runs[i], t, &nt, val[i], sizeof(val[i]));
		}
		print_cells("  syncs traced", nfs, val, rat);
		printf("  phase: mean us, share of sync time\n");
		for (int ph = 0; ph < FSS_PH_MAX; ph++) {
			for (int i = 0; i < nfs; i++) {
				const struct fss_run_test *t = &runs[i].tests[wi];
				const struct fss_phase_stat *st = &t->b.phase[ph];
				char m[16];

				rat[i][0] = '\0';
				if (!t_traced(t)) {
					untraced_cell(&runs[i], t, &nt, val[i],
						      sizeof(val[i]));
				} else if (ph == FSS_PH_JOURNAL &&
					   !fs_defs[runs[i].kind].journal_traced) {
					int k;

					snprintf(note, sizeof(note), "%s: journal %s",
						 fs_defs[runs[i].kind].name,
						 fs_defs[runs[i].kind].journal_what);
					k = note_add(&nt, note);
					snprintf(val[i], sizeof(val[i]),
						 k ? "n/a [%d]" : "n/a", k);
				} else {
					fss_run_fmt_us(m, sizeof(m), st->mean_us);
					snprintf(val[i], sizeof(val[i]), "%s %4.0f%%", m,
						 isfinite(st->share) ? st->share * 100.0 : 0.0);
				}
			}
			snprintf(lead, sizeof(lead), "%s%s", ph == FSS_PH_JOURNAL ?
				 "> " : "    ", fss_phase_name(ph));
			print_cells(lead, nfs, val, rat);
		}
		for (int i = 0; i < nfs; i++) {
			const struct fss_run_test *t = &runs[i].tests[wi];
			double v = value_of(t, V_TOTAL);

			rat[i][0] = '\0';
			if (!t_traced(t)) {
				untraced_cell(&runs[i], t, &nt, val[i], sizeof(val[i]));
				continue;
			}
			fss_run_fmt_us(val[i], sizeof(val[i]), v);
			if (i && t_traced(base))
				fmt_ratio(rat[i], sizeof(rat[i]),
					  ratio(v, value_of(base, V_TOTAL)));
		}
		print_cells(labels[V_TOTAL], nfs, val, rat);
		for (int i = 0; i < nfs; i++) {
			const struct fss_run_test *t = &runs[i].tests[wi];

			rat[i][0] = '\0';
			if (t_traced(t))
				snprintf(val[i], sizeof(val[i]), "%.2f",
					 (double)t->b.flush.flushes / (double)t->b.syncs);
			else
				untraced_cell(&runs[i], t, &nt, val[i], sizeof(val[i]));
		}
		print_cells("  flushes/sync", nfs, val, rat);
	}
	for (int i = 0; i < nt.n; i++) {
		snprintf(lead, sizeof(lead), "  [%d] ", i + 1);
		fss_run_print_wrapped(stdout, lead, 6, nt.text[i]);
	}
}

static struct json_object *jnum(double v, int decimals)
{
	char buf[64];

	if (!isfinite(v))
		return NULL;
	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	return json_object_new_double_s(strtod(buf, NULL), buf);
}

static struct json_object *ratios_json(const struct fs_run *r,
				       const struct fss_run_test *t,
				       const struct fss_run_test *base)
{
	struct json_object *o, *ph;

	if (!t_ok(t) || !t_ok(base))
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "ops_per_sec", jnum(ratio(t->res.ops_per_sec,
						base->res.ops_per_sec), 4));
	json_object_object_add(o, "p50_us", jnum(ratio(t->res.lat.p50,
						base->res.lat.p50), 4));
	json_object_object_add(o, "p99_us", jnum(ratio(t->res.lat.p99,
						base->res.lat.p99), 4));
	if (!t_traced(t) || !t_traced(base)) {
		json_object_object_add(o, "total_mean_us", NULL);
		json_object_object_add(o, "phases", NULL);
		return o;
	}
	json_object_object_add(o, "total_mean_us", jnum(ratio(t->b.total_mean_us,
						base->b.total_mean_us), 4));
	ph = json_object_new_object();
	for (int p = 0; p < FSS_PH_MAX; p++)
		json_object_object_add(ph, fss_phase_name(p),
			p == FSS_PH_JOURNAL && !fs_defs[r->kind].journal_traced ? NULL :
			jnum(ratio(t->b.phase[p].mean_us, base->b.phase[p].mean_us), 4));
	json_object_object_add(o, "phases", ph);
	return o;
}

/* One filesystem's result of one workload: the run test object + fs, ratios. */
static struct json_object *result_json(const struct fs_run *runs, int i, int wi)
{
	const struct fs_run *r = &runs[i];
	const struct fss_run_test *t = &r->tests[wi];
	struct json_object *o, *bd;
	char why[600];

	if (!t->ran) {
		o = json_object_new_object();
		json_object_object_add(o, "fs", json_object_new_string(fs_defs[r->kind].name));
		json_object_object_add(o, "name", json_object_new_string(t->name));
		json_object_object_add(o, "status", json_object_new_string("n/a"));
		snprintf(why, sizeof(why), "not run: %.560s", r->status == FS_ERROR ?
			 r->error : "interrupted");
		json_object_object_add(o, "reason", json_object_new_string(why));
		return o;
	}
	o = fss_run_test_json(t, r->disk_ok ? r->disk.write_cache : -1);
	json_object_object_add(o, "fs", json_object_new_string(fs_defs[r->kind].name));
	if (!fs_defs[r->kind].journal_traced &&
	    json_object_object_get_ex(o, "breakdown", &bd) && bd) {
		json_object_object_add(bd, "journal", NULL);
		json_object_object_add(o, "journal_reason",
				       json_object_new_string(fs_defs[r->kind].journal_what));
	}
	json_object_object_add(o, "ratio_to_first", ratios_json(r, t, &runs[0].tests[wi]));
	return o;
}

/* --hist: each filesystem's histograms of workload wi, from its document */
static void print_hists(const struct cmp_opts *o, const struct fs_run *runs,
			const struct wl_def *w, int wi)
{
	for (int i = 0; i < o->nfs; i++) {
		struct json_object *t = result_json(runs, i, wi);

		printf("  %s, %s:\n", fs_defs[runs[i].kind].name, w->name);
		fss_text_hists(stdout, t, 4);
		json_object_put(t);
	}
}

static const char *status_name(enum fs_status s)
{
	switch (s) {
	case FS_OK: return "ok";
	case FS_INTERRUPTED: return "interrupted";
	case FS_ERROR: return "error";
	default: return "not_run";
	}
}

static struct json_object *fs_json(const struct cmp_opts *o, const struct fs_run *r)
{
	const struct fs_def *d = &fs_defs[r->kind];
	struct json_object *j = json_object_new_object(), *a = NULL;

	json_object_object_add(j, "fs", json_object_new_string(d->name));
	json_object_object_add(j, "status", json_object_new_string(status_name(r->status)));
	json_object_object_add(j, "error", r->status == FS_ERROR ?
			       json_object_new_string(r->error) : NULL);
	if (r->mkfs_argc) {
		a = json_object_new_array();
		for (int i = 0; i < r->mkfs_argc; i++)
			json_object_array_add(a, json_object_new_string(r->mkfs_argv[i]));
	}
	json_object_object_add(j, "mkfs", a);
	json_object_object_add(j, "device", r->dev[0] ?
			       json_object_new_string(r->dev) : NULL);
	json_object_object_add(j, "loop", json_object_new_boolean(!o->scratch_dev));
	json_object_object_add(j, "target", r->t_ok ? fss_target_json(&r->t) : NULL);
	json_object_object_add(j, "write_cache", r->disk_ok && r->disk.write_cache >= 0 ?
			       json_object_new_string(r->disk.write_cache ?
						      "write back" : "write through") :
			       NULL);
	json_object_object_add(j, "journal", json_object_new_string(d->journal_what));
	json_object_object_add(j, "journal_traced", json_object_new_boolean(d->journal_traced));
	json_object_object_add(j, "strategy", r->strategy ? json_object_get(r->strategy) : NULL);
	json_object_object_add(j, "drops", r->strategy ?
			       json_object_new_uint64(r->drops) : NULL);
	json_object_object_add(j, "setup_s", r->setup_s > 0 ? jnum(r->setup_s, 3) : NULL);
	json_object_object_add(j, "run_s", r->run_s > 0 ? jnum(r->run_s, 3) : NULL);
	return j;
}

static struct json_object *options_json(const struct cmp_opts *o)
{
	struct json_object *j = json_object_new_object(), *m = json_object_new_object();

	json_object_object_add(j, "seconds", o->wl.count ? NULL : jnum(o->wl.seconds, 3));
	json_object_object_add(j, "count", o->wl.count ?
			       json_object_new_int64((int64_t)o->wl.count) : NULL);
	json_object_object_add(j, "trace", json_object_new_boolean(!o->wl.no_trace));
	json_object_object_add(j, "size_bytes", o->scratch_dev ? NULL :
			       json_object_new_int64((int64_t)o->size));
	json_object_object_add(j, "bs", json_object_new_int64((int64_t)o->wl.bs));
	json_object_object_add(j, "writes_per_sync", json_object_new_int(o->wl.wps));
	json_object_object_add(j, "jobs", json_object_new_int(o->wl.jobs));
	json_object_object_add(j, "direct", json_object_new_boolean(o->direct));
	json_object_object_add(j, "pattern", o->pattern_set ?
			       json_object_new_string(fss_pattern_name(o->pattern)) : NULL);
	json_object_object_add(j, "file_size",
			       json_object_new_int64((int64_t)o->wl.file_size));
	for (int i = 0; i < o->nfs; i++) {
		int k = o->fs[i];

		json_object_object_add(m, fs_defs[k].name, o->mkfs_opts[k] ?
				       json_object_new_string(o->mkfs_opts[k]) : NULL);
	}
	json_object_object_add(j, "mkfs_opts", m);
	return j;
}

static struct json_object *workload_json(const struct wl_def *w)
{
	struct json_object *j = json_object_new_object();

	json_object_object_add(j, "name", json_object_new_string(w->name));
	json_object_object_add(j, "title", json_object_new_string(w->title));
	json_object_object_add(j, "method",
			       json_object_new_string(fss_method_name(w->spec.method)));
	json_object_object_add(j, "pattern",
			       json_object_new_string(fss_pattern_name(w->spec.pattern)));
	json_object_object_add(j, "bs", json_object_new_int64((int64_t)w->spec.bs));
	json_object_object_add(j, "writes_per_sync",
			       json_object_new_int(w->spec.writes_per_sync));
	json_object_object_add(j, "jobs", json_object_new_int(w->spec.jobs));
	json_object_object_add(j, "direct", json_object_new_boolean(w->spec.direct));
	return j;
}

/* ---- where the filesystems are made ------------------------------------- */

struct place {
	char parent[PATH_MAX];		/* where workdir is made */
	char workdir[PATH_MAX];		/* ours: images and mount points */
	bool workdir_made;
	bool in_memory;			/* parent is tmpfs/ramfs */
	struct fss_target t;		/* the filesystem under parent */
	bool t_ok;
	struct fss_devinfo disk;	/* the disk under parent, or the scratch device */
	bool disk_ok;
};

static int pick_parent(const struct cmp_opts *o, struct place *pl)
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
			size_label(sz, sizeof(sz), o->size);
			size_label(fr, sizeof(fr), (__u64)sv.f_bavail * sv.f_frsize);
			fprintf(stderr, PROG ": not enough space in %s for a %s image "
				"(%s free); give a smaller --size or another --dir\n",
				pl->parent, sz, fr);
			return -1;
		}
	}
	return 0;
}

static const char *wc_name(int wc)
{
	return wc > 0 ? "write back" : wc == 0 ? "write through" : "unknown";
}

static void print_header(const struct cmp_opts *o, const struct place *pl,
			 const struct wl_def *wl, int nwl)
{
	char buf[3 * PATH_MAX], sz[32];
	size_t l;

	printf("fsyncscope %s compare\n", fss_version);
	if (o->scratch_dev) {
		size_label(sz, sizeof(sz), pl->disk_ok ? pl->disk.size_bytes : 0);
		snprintf(buf, sizeof(buf), "%s (%s, %s, write cache %s): each "
			 "filesystem is made on it in turn; its data are destroyed",
			 o->scratch_dev, pl->disk_ok ? pl->disk.name : "?",
			 pl->disk_ok ? sz : "size unknown",
			 wc_name(pl->disk_ok ? pl->disk.write_cache : -1));
		fss_run_print_wrapped(stdout, "device      ", 12, buf);
	} else {
		size_label(sz, sizeof(sz), o->size);
		snprintf(buf, sizeof(buf), "%s: one %s sparse image per "
			 "filesystem on its own loop device, removed at the end",
			 pl->workdir, sz);
		fss_run_print_wrapped(stdout, "images      ", 12, buf);
		if (pl->in_memory)
			snprintf(buf, sizeof(buf), "in memory (%s): no disk under "
				 "the images", pl->t_ok ? pl->t.fstype : "tmpfs");
		else if (pl->t_ok && pl->t.has_disk)
			snprintf(buf, sizeof(buf), "on %s (%s, mounted at %s); disk "
				 "%s, write cache %s", pl->t.fstype, pl->t.source,
				 pl->t.mountpoint, pl->t.disk,
				 wc_name(pl->disk_ok ? pl->disk.write_cache : -1));
		else if (pl->t_ok)
			snprintf(buf, sizeof(buf), "on %s (%s), not a block device",
				 pl->t.fstype, pl->t.source);
		else
			snprintf(buf, sizeof(buf), "on a filesystem that could not "
				 "be looked up");
		fss_run_print_wrapped(stdout, "            ", 12, buf);
	}
	buf[0] = '\0';
	l = 0;
	for (int i = 0; i < nwl; i++)
		l += snprintf(buf + l, sizeof(buf) - l, "%s%s", i ? ", " : "",
			      wl[i].name);
	fss_run_print_wrapped(stdout, "workloads   ", 12, buf);
	if (o->wl.count)
		snprintf(buf, sizeof(buf), "%llu ops per workload%s and filesystem",
			 (unsigned long long)o->wl.count,
			 o->wl.jobs > 1 ? " (per job)" : "");
	else
		snprintf(buf, sizeof(buf), "%g second%s per workload and filesystem",
			 o->wl.seconds, o->wl.seconds == 1 ? "" : "s");
	fss_run_print_wrapped(stdout, "length      ", 12, buf);
	fss_run_print_wrapped(stdout, "tracing     ", 12, o->wl.no_trace ?
			      "off (--no-trace)" : "on (phase breakdown per "
			      "filesystem and workload)");
	fflush(stdout);
}

static void print_fs_line(const struct cmp_opts *o, const struct fs_run *r, int nwl)
{
	char buf[3 * PATH_MAX], cmd[1024], lead[16];
	const char *tail;
	size_t l;
	int done = 0;

	for (int i = 0; i < nwl; i++)
		done += r->tests[i].ran;
	mkfs_cmdline(r, cmd, sizeof(cmd));
	/* the image's directory is in the header: name the file only */
	tail = strrchr(r->img, '/');
	l = strlen(cmd);
	if (!o->scratch_dev && tail && l > strlen(r->img) &&
	    !strcmp(cmd + l - strlen(r->img), r->img))
		snprintf(cmd + l - strlen(r->img), sizeof(cmd) - (l - strlen(r->img)),
			 "%s", tail + 1);
	snprintf(buf, sizeof(buf), "%s: %s; mounted %s; %d of %d workloads in "
		 "%.1f s%s", r->dev, cmd,
		 r->t_ok ? r->t.mount_opts : "(options unknown)", done, nwl,
		 r->run_s, r->status == FS_INTERRUPTED ? " (interrupted)" : "");
	snprintf(lead, sizeof(lead), "%-12s", fs_defs[r->kind].name);
	fss_run_print_wrapped(stdout, lead, 12, buf);
	fflush(stdout);
}

static void print_notes(const struct cmp_opts *o, const struct fs_run *runs,
			const struct place *pl)
{
	char buf[1024];
	size_t l = 0;

	printf("\n");
	snprintf(buf, sizeof(buf), "value / %s's (ops/sec: higher is faster; "
		 "latencies: lower is faster); blank when there is nothing to "
		 "divide by", fs_defs[runs[0].kind].name);
	fss_run_print_wrapped(stdout, "ratios      ", 12, buf);
	if (!o->wl.no_trace) {
		for (int i = 0; i < o->nfs; i++)
			l += snprintf(buf + l, sizeof(buf) - l, "%s%s: %s", i ? "; " : "",
				      fs_defs[runs[i].kind].name,
				      fs_defs[runs[i].kind].journal_what);
		fss_run_print_wrapped(stdout, "> journal   ", 12, buf);
	}
	if (!o->scratch_dev) {
		snprintf(buf, sizeof(buf), "the filesystems sit on loop devices: a "
			 "device_flush there is an fsync of the image file on %s, "
			 "device_write a copy into its page cache; use --scratch-dev "
			 "for a real device", pl->in_memory ? "tmpfs" :
			 pl->t_ok && pl->t.disk[0] ? pl->t.disk : "the disk below");
		fss_run_print_wrapped(stdout, "loop        ", 12, buf);
	}
}

/* ---- the command -------------------------------------------------------- */

int cmd_compare(int argc, char **argv)
{
	struct cmp_opts o = {
		.fs = { 0, 1 },
		.nfs = 2,
		.size = DEF_SIZE,
		.pattern = FSS_PAT_OVERWRITE,
	};
	struct fss_run_sigs sigs;
	struct wl_def wl[MAX_WL];
	struct fs_run *runs = NULL;
	struct place *pl = NULL;
	bool sigs_set = false, measured = false;
	__u64 drops = 0;
	int nwl, rc, ret = 0;
	double t0;

	fss_cli_wl_defaults(&o.wl);
	o.wl.file_size = DEF_FILE_SIZE;
	rc = fss_cli_parse(&cmp_argp, argc, argv, &o, PROG, 2);
	if (rc || o.help)
		return rc;
	rc = check_combinations(&o);
	if (rc)
		return rc;
	nwl = wl_build(&o, wl);
	if (geteuid() != 0) {
		fprintf(stderr, PROG ": needs root (loop devices, mkfs, mount%s)\n",
			o.wl.no_trace ? "" : " and BPF for tracing");
		return 1;
	}
	runs = calloc(MAX_FS, sizeof(*runs));
	pl = calloc(1, sizeof(*pl));
	if (!runs || !pl) {
		fprintf(stderr, PROG ": out of memory\n");
		ret = 1;
		goto out;
	}
	for (int i = 0; i < o.nfs; i++) {
		runs[i].kind = o.fs[i];
		runs[i].loop_fd = -1;
	}
	if (o.scratch_dev) {
		struct blkdev whole;

		if (scratch_check(o.scratch_dev, &whole)) {
			ret = 1;
			goto out;
		}
		pl->disk_ok = !fss_devinfo_read(whole.name, &pl->disk);
	}
	if (pick_parent(&o, pl)) {
		ret = 1;
		goto out;
	}

	fss_run_signals_catch(&sigs);
	sigs_set = true;

	snprintf(pl->workdir, sizeof(pl->workdir), "%.4000s/fsyncscope-compare.XXXXXX",
		 pl->parent);
	if (!mkdtemp(pl->workdir)) {
		fprintf(stderr, PROG ": cannot make a directory in %s: %s\n",
			pl->parent, strerror(errno));
		ret = 1;
		goto out;
	}
	pl->workdir_made = true;

	/*
	 * images first: a bad --mkfs-opts fails before anything is measured,
	 * and before the header, so that its error is the only output
	 */
	for (int i = 0; i < o.nfs && !o.scratch_dev && !fss_wl_stop; i++) {
		if (fs_make_image(&o, &runs[i], pl->workdir) && !fss_wl_stop) {
			fprintf(stderr, PROG ": %s\n", runs[i].error);
			ret = 1;
			goto cleanup;
		}
	}
	if (!o.wl.json && o.wl.output && fss_stdout_to_begin(o.wl.output)) {
		ret = 1;
		goto cleanup;
	}
	if (!o.wl.json && !fss_wl_stop) {
		print_header(&o, pl, wl, nwl);
		printf("\n");
	}
	for (int i = 0; i < o.nfs && !fss_wl_stop; i++) {
		struct fs_run *r = &runs[i];

		t0 = now_s();
		if (fs_mount(&o, r, pl->workdir)) {
			fs_teardown(r);
			if (fss_wl_stop)
				break;
			fprintf(stderr, PROG ": %s\n", r->error);
			ret = 1;
			goto cleanup;
		}
		r->setup_s = now_s() - t0;
		t0 = now_s();
		fs_run(&o, r, wl, nwl);
		r->run_s = now_s() - t0;
		fs_teardown(r);
		if (r->status == FS_ERROR) {
			fprintf(stderr, PROG ": %s\n", r->error);
			ret = 1;
			goto cleanup;
		}
		measured = true;
		drops += r->drops;
		if (!o.wl.json)
			print_fs_line(&o, r, nwl);
	}

cleanup:
	for (int i = 0; i < o.nfs; i++)
		fs_teardown(&runs[i]);
	if (pl->workdir_made) {
		if (rmdir(pl->workdir))
			fprintf(stderr, PROG ": warning: cannot remove %s: %s\n",
				pl->workdir, strerror(errno));
		else
			pl->workdir_made = false;
	}
	if (ret)
		goto out;
	if (!measured) {
		fprintf(stderr, PROG ": stopped by %s before anything was "
			"measured\n", fss_run_sig_name(fss_wl_stop));
		ret = 128 + fss_wl_stop;
		goto out;
	}
	if (o.wl.json) {
		struct json_object *doc = json_object_new_object(), *a;

		fss_doc_stamp(doc, "compare");
		json_object_object_add(doc, "version", json_object_new_string(fss_version));
		json_object_object_add(doc, "host", fss_run_host_json());
		if (o.scratch_dev) {
			struct json_object *s = json_object_new_object();

			json_object_object_add(s, "path", json_object_new_string(o.scratch_dev));
			json_object_object_add(s, "device", pl->disk_ok ?
					       fss_devinfo_json(&pl->disk) : NULL);
			json_object_object_add(doc, "images", NULL);
			json_object_object_add(doc, "scratch_dev", s);
		} else {
			struct json_object *im = json_object_new_object();

			json_object_object_add(im, "dir", json_object_new_string(pl->workdir));
			json_object_object_add(im, "parent", json_object_new_string(pl->parent));
			json_object_object_add(im, "size_bytes",
					       json_object_new_int64((int64_t)o.size));
			json_object_object_add(im, "in_memory",
					       json_object_new_boolean(pl->in_memory));
			json_object_object_add(im, "on", pl->t_ok ?
					       fss_target_json(&pl->t) : NULL);
			json_object_object_add(im, "disk", pl->disk_ok ?
					       fss_devinfo_json(&pl->disk) : NULL);
			json_object_object_add(doc, "images", im);
			json_object_object_add(doc, "scratch_dev", NULL);
		}
		json_object_object_add(doc, "options", options_json(&o));
		a = json_object_new_array();
		for (int i = 0; i < o.nfs; i++)
			json_object_array_add(a, fs_json(&o, &runs[i]));
		json_object_object_add(doc, "filesystems", a);
		a = json_object_new_array();
		for (int w = 0; w < nwl; w++) {
			struct json_object *wj = workload_json(&wl[w]);
			struct json_object *res = json_object_new_array();

			for (int i = 0; i < o.nfs; i++)
				json_object_array_add(res, result_json(runs, i, w));
			json_object_object_add(wj, "results", res);
			json_object_array_add(a, wj);
		}
		json_object_object_add(doc, "workloads", a);
		json_object_object_add(doc, "interrupted",
				       fss_run_interrupted_json());
		if (fss_emit(doc, o.wl.format, o.wl.output, NULL))
			ret = 1;
	} else {
		for (int w = 0; w < nwl; w++) {
			print_table(&o, runs, &wl[w], w);
			if (o.wl.hist)
				print_hists(&o, runs, &wl[w], w);
		}
		print_notes(&o, runs, pl);
	}
	fflush(stdout);
	if (drops)
		fprintf(stderr, PROG ": warning: %llu events lost; breakdowns are "
			"incomplete\n", (unsigned long long)drops);
	if (fss_wl_stop) {
		fprintf(stderr, PROG ": stopped by %s; results above are partial\n",
			fss_run_sig_name(fss_wl_stop));
		ret = 128 + fss_wl_stop;
	}
out:
	if (fss_stdout_to_end(ret != 1) && !ret)
		ret = 1;
	if (runs)
		for (int i = 0; i < MAX_FS; i++)
			json_object_put(runs[i].strategy);
	if (sigs_set)
		fss_run_signals_restore(&sigs);
	free(runs);
	free(pl);
	return ret;
}
