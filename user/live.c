// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * live.c - `fsyncscope trace`: attach to a running host and explain its
 * syncs, per kind, per process, per file and per device, with the journal
 * commits of the kernel threads shown on their own.
 *
 * The tracer (trace.c) filters in the kernel (pids, comm, cgroup, fs and
 * disk), collects continuously and hands every attributed sync to
 * on_sync() from its consumer thread.  Here we only aggregate: two windows
 * (the current interval and the whole run) of per-group statistics, each
 * with exact sums (nanoseconds) and a log-linear histogram of sync times for
 * the percentiles (hist.c, sparse: a reported p50/p99 is the midpoint of
 * its bucket, within 1/128 = 0.8% of the true value, and never above the
 * largest sync seen).
 *
 * File paths: the kernel gives device and inode; we resolve them from the
 * syncing process's /proc/PID/fd links (matching st_dev/st_ino), as soon as
 * the sync record is read (within ~20 ms of the sync), cache the result,
 * and fall back to "dev MAJ:MIN ino N" when the file is no longer open.
 */
#include <argp.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <linux/magic.h>
#include <json-c/json.h>
#include "attr.h"
#include "child.h"
#include "cli.h"
#include "commands.h"
#include "devinfo.h"
#include "doc.h"
#include "render.h"
#include "fsnote.h"
#include "report.h"
#include "target.h"
#include "trace.h"

#define PROG		"fsyncscope trace"
#define MAX_PIDS	1024	/* size of the kernel's tgids filter map */
#define NSEC		1000000000ULL

/* ---- options ---- */

static struct {
	__u32 tgids[MAX_PIDS];
	int ntgids;
	const char *comm;
	const char *cgroup;
	const char *mount;
	const char *dev;
	const char *calib_dir;
	double interval;	/* seconds, 0: no interval reports */
	long count;		/* interval reports, 0: unlimited */
	double duration;	/* seconds, 0: until Ctrl-C */
	int top;
	double slower_ms;	/* < 0: off */
	bool json;
	int verbose;
	enum fss_strategy strategy;
	int npos;
	bool help, usage;
	char **cmd;		/* -- CMD ARGS...: NULL-terminated, or NULL */
	enum fss_fmt format;	/* --format: text, json, html, perfetto */
	const char *output;	/* -o FILE */
	const char *events;	/* --events FILE */
	bool events_detail;	/* --events-detail */
} env;

/* html and perfetto: rendered once, from the summary, at the end */
static bool at_end_only(void)
{
	return env.format == FSS_FMT_HTML || env.format == FSS_FMT_PERFETTO;
}

static const char doc[] =
"Attach to the running host and explain why its syncs are slow: every\n"
"fsync, fdatasync, sync_file_range, msync, syncfs, write on an O_DSYNC or\n"
"O_SYNC descriptor and io_uring fsync request of the traced processes is\n"
"split into fs, journal, queue, device_write, device_flush and other time\n"
"(they add up exactly to the sync's total), and reported per kind, per\n"
"process, per file and per device, with the journal commits of the kernel\n"
"threads (jbd2) on their own.\n"
"\n"
"-- CMD [ARG...]: run CMD and trace exactly it and the processes it forks\n"
"until it exits; fsyncscope then exits with CMD's status.\n"
"\n"
"INTERVAL [COUNT]: a report every INTERVAL seconds (COUNT times), then a\n"
"summary of the whole run.  Without INTERVAL: one summary at the end (-d,\n"
"or Ctrl-C).  Filters are ANDed and applied in the kernel; nothing given =\n"
"every sync on the host.  Needs root.\n"
"\v"
"The phase columns (fs jrn que dwr dfl oth) are each phase's share of the\n"
"group's sync time, in percent: fs, journal, queue, device_write,\n"
"device_flush, other.  P50/P99 come from a histogram: within 0.8%.\n"
"\n"
"EXAMPLES:\n"
"  fsyncscope trace                      # every sync on the host, Ctrl-C\n"
"  fsyncscope trace -c postgres 5        # PostgreSQL, a report every 5 s\n"
"  fsyncscope trace -p 4242 -d 30        # one process for 30 s, then summary\n"
"  fsyncscope trace --mount /var/lib/postgresql --slower 10\n"
"                                        # each sync over 10 ms, with why\n"
"  fsyncscope trace --cgroup system.slice/etcd.service --json 10 6\n"
"  fsyncscope trace --dev nvme0n1 --top 5 -d 60\n"
"  fsyncscope trace -- fio --name=x --rw=write --fdatasync=1 --size=8m\n"
"                                        # one command and its children\n";

enum {
	OPT_FORMAT = 0x80, OPT_EVENTS, OPT_EVENTS_DETAIL,
	OPT_CGROUP = 0x100,
	OPT_MOUNT,
	OPT_DEV,
	OPT_TOP,
	OPT_SLOWER,
	OPT_STRATEGY,
	OPT_CALIB_DIR,
};

static const struct argp_option opts[] = {
	{ "pid", 'p', "PID", 0, "Trace this process (all its threads); repeatable", 0 },
	{ "comm", 'c', "COMM", 0, "Trace tasks whose comm is exactly COMM", 0 },
	{ "cgroup", OPT_CGROUP, "PATH|ID", 0, "Trace tasks in this cgroup v2 (path, relative to the cgroup2 mount, or id)", 0 },
	{ "mount", OPT_MOUNT, "DIR", 0, "Only syncs on the filesystem mounted at/under DIR", 0 },
	{ "dev", OPT_DEV, "DEV", 0, "Only syncs on filesystems of this block device (/dev/X, X or MAJ:MIN)", 0 },
	{ "duration", 'd', "SECS", 0, "Stop after SECS seconds", 0 },
	{ "top", OPT_TOP, "N", 0, "Processes and files shown (by total sync time; default 10)", 0 },
	{ "slower", OPT_SLOWER, "MS", 0, "Print each sync slower than MS ms as it happens, with its breakdown", 0 },
	{ "json", 'j', NULL, 0, "JSON Lines output (one object per report / slow sync)", 0 },
	{ "format", OPT_FORMAT, "FMT", 0, "text (default), json (= -j), html (a page of "
	  "the summary at the end), perfetto (the --events records at the end)", 0 },
	{ "output", 'o', "FILE", 0, "Write the output to FILE (whole, at the end) "
	  "instead of stdout", 0 },
	{ "events", OPT_EVENTS, "FILE", 0, "Write one JSON line per traced sync", 0 },
	{ "events-detail", OPT_EVENTS_DETAIL, NULL, 0, "With --events: each sync's "
	  "painted stretches, requests and commits (for perfetto)", 0 },
	{ "strategy", OPT_STRATEGY, "auto|fentry|kprobe|tracepoint", 0, "Force an attach strategy (default auto)", 0 },
	{ "calib-dir", OPT_CALIB_DIR, "DIR", 0, "Where the start-up calibration does its 4 KiB scratch syncs", 0 },
	{ "verbose", 'v', NULL, 0, "Show the attach strategy (-vv: libbpf messages)", 0 },
	{ "help", 'h', NULL, 0, "Show this help", -1 },
	{ "usage", 'u', NULL, 0, "Show a short usage message", -1 },
	{},
};

/* A bad value: argp_error's one line (see fss_cli_parse), then EINVAL. */
#define bad(state, ...)	(argp_error(state, __VA_ARGS__), EINVAL)

static bool parse_double(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v))
		return false;
	*out = v;
	return true;
}

static bool parse_long(const char *s, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end)
		return false;
	*out = v;
	return true;
}

/* A thread id is accepted too: the filter is on whole processes (tgid). */
static int pid_to_tgid(long pid, __u32 *tgid)
{
	char path[64], line[256];
	FILE *f;
	int rc = -ESRCH;

	snprintf(path, sizeof(path), "/proc/%ld/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -ESRCH;
	while (fgets(line, sizeof(line), f)) {
		unsigned int v;

		if (sscanf(line, "Tgid: %u", &v) == 1) {
			*tgid = v;
			rc = 0;
			break;
		}
	}
	fclose(f);
	return rc;
}

/*
 * After parsing: each -p PID to its process (tgid), duplicates dropped.
 * A pid that is not there is an error (1), not a usage error.
 */
static int pids_to_tgids(void)
{
	int n = 0;

	for (int i = 0; i < env.ntgids; i++) {
		bool dup = false;
		__u32 tgid;

		if (pid_to_tgid(env.tgids[i], &tgid)) {
			fprintf(stderr, PROG ": -p %u: no such process\n", env.tgids[i]);
			return -1;
		}
		for (int j = 0; j < n && !dup; j++)
			dup = env.tgids[j] == tgid;
		if (!dup)
			env.tgids[n++] = tgid;
	}
	env.ntgids = n;
	return 0;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	long l;
	double d;

	switch (key) {
	case 'p':
		if (!parse_long(arg, &l) || l <= 0 || l > INT_MAX)
			return bad(state, "-p: not a process id: '%s'", arg);
		if (env.ntgids >= MAX_PIDS)
			return bad(state, "-p: at most 1024 processes (got more at '%s')", arg);
		/* a pid for now; pids_to_tgids() looks the processes up */
		env.tgids[env.ntgids++] = l;
		break;
	case 'c':
		if (!arg[0] || strlen(arg) >= FSS_COMM_LEN)
			return bad(state, "-c: a comm is 1 to 15 characters (got '%s')", arg);
		env.comm = arg;
		break;
	case OPT_CGROUP:
		if (!arg[0])
			return bad(state, "--cgroup: empty path");
		env.cgroup = arg;
		break;
	case OPT_MOUNT:
		env.mount = arg;
		break;
	case OPT_DEV:
		env.dev = arg;
		break;
	case OPT_CALIB_DIR:
		env.calib_dir = arg;
		break;
	case OPT_FORMAT:
		if (fss_fmt_parse(arg, &env.format) || env.format == FSS_FMT_CSV)
			return bad(state, "--format '%s': text, json, html or perfetto", arg);
		if (env.format == FSS_FMT_JSON)
			env.json = true;
		break;
	case 'o': {
		char e[512];

		if (fss_out_check(arg, e, sizeof(e)))
			return bad(state, "-o: %s", e);
		env.output = arg;
		break;
	}
	case OPT_EVENTS:
		env.events = arg;
		break;
	case OPT_EVENTS_DETAIL:
		env.events_detail = true;
		break;
	case 'd':
		if (!parse_double(arg, &d) || d <= 0 || d > 1e7)
			return bad(state, "-d '%s': seconds, more than 0 and at most 10000000", arg);
		env.duration = d;
		break;
	case OPT_TOP:
		if (!parse_long(arg, &l) || l <= 0 || l > 100000)
			return bad(state, "--top '%s': a whole number from 1 to 100000", arg);
		env.top = l;
		break;
	case OPT_SLOWER:
		if (!parse_double(arg, &d) || d < 0 || d > 1e9)
			return bad(state, "--slower '%s': milliseconds, 0 to 1000000000", arg);
		env.slower_ms = d;
		break;
	case 'j':
		env.json = true;
		break;
	case OPT_STRATEGY:
		if (fss_strategy_parse(arg, &env.strategy))
			return bad(state, "--strategy: unknown strategy '%s' (auto, fentry, kprobe, tracepoint)", arg);
		break;
	case 'v':
		env.verbose++;
		break;
	case 'h':
		env.help = true;
		break;
	case 'u':
		env.usage = true;
		break;
	case ARGP_KEY_ARG:
		if (env.npos == 0) {
			if (!parse_double(arg, &d) || d <= 0 || d > 1e7)
				return bad(state, "INTERVAL '%s': seconds, more than 0 and at most 10000000", arg);
			env.interval = d;
		} else if (env.npos == 1) {
			if (!parse_long(arg, &l) || l <= 0)
				return bad(state, "COUNT '%s': a whole number from 1 to %ld", arg, LONG_MAX);
			env.count = l;
		} else {
			return bad(state, "too many arguments at '%s' (INTERVAL [COUNT])", arg);
		}
		env.npos++;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = {
	.options = opts,
	.parser = parse_arg,
	.args_doc = "[INTERVAL [COUNT]]\n[INTERVAL] -- CMD [ARG...]",
	.doc = doc,
};

/*
 * Percentiles come from hist.c's histogram in its sparse form (64 buckets
 * per power of two, allocated as values arrive, 64-bit counts): the value
 * reported is the midpoint of its bucket, within 0.8 % of the true one and
 * never above the largest sync seen.
 */
static __u64 quantile_ns(const struct fss_shist *h, double q)
{
	double v = fss_shist_quantile_ns(h, q);

	return isfinite(v) ? (__u64)llround(v) : 0;
}

/* ---- per-group statistics ---- */

struct gstat {
	__u64 syncs, errors;
	__u64 total_ns, max_ns;
	__u64 phase_ns[FSS_PH_MAX];
	__u64 by_kind[FSS_SYNC_KIND_MAX];
	__u64 with_flush;	/* syncs that saw a flush-class request */
	__u64 nr_flush, nr_preflush, nr_fua, nr_fua_emulated;
	__u64 with_journal;	/* syncs that waited for journal work */
	__u64 nr_journal;
	__u64 nr_incomplete;
	struct fss_shist h;
};

static bool saw_flush(const struct fss_sync_result *r)
{
	return r->nr_flush || r->nr_preflush || r->nr_fua_emulated ||
	       r->phase_ns[FSS_PH_DEV_FLUSH];
}

static void gstat_add(struct gstat *g, const struct fss_sync_result *r)
{
	g->syncs++;
	if (r->ret < 0)
		g->errors++;
	g->total_ns += r->total;
	if (r->total > g->max_ns)
		g->max_ns = r->total;
	for (int p = 0; p < FSS_PH_MAX; p++)
		g->phase_ns[p] += r->phase_ns[p];
	if (r->kind < FSS_SYNC_KIND_MAX)
		g->by_kind[r->kind]++;
	if (saw_flush(r))
		g->with_flush++;
	g->nr_flush += r->nr_flush;
	g->nr_preflush += r->nr_preflush;
	g->nr_fua += r->nr_fua;
	g->nr_fua_emulated += r->nr_fua_emulated;
	if (r->journal_seen)
		g->with_journal++;
	g->nr_journal += r->nr_journal;
	g->nr_incomplete += r->nr_incomplete;
	fss_shist_add(&g->h, r->total);
}

/* A journal commit is a "sync" of the journal thread: same statistics. */
static void gstat_add_interval(struct gstat *g, __u64 ns)
{
	g->syncs++;
	g->total_ns += ns;
	if (ns > g->max_ns)
		g->max_ns = ns;
	fss_shist_add(&g->h, ns);
}

/* ---- a small hash table of groups ---- */

enum gtype { G_PROC, G_FILE, G_DEV, G_JOURNAL, G_MAX };

struct group {
	__u64 k1, k2;		/* PROC: pid; FILE: dev, ino; DEV, JOURNAL: dev */
	struct gstat st;
	__u32 last_pid;		/* FILE: a process that synced it */
	__u64 sync_commits;	/* JOURNAL: commits a sync asked for */
	struct group *next;
};

#define TBL_BUCKETS 1024

struct table {
	struct group *b[TBL_BUCKETS];
	struct group **all;	/* insertion order, for iteration */
	int n, cap;
};

static unsigned int tbl_hash(__u64 k1, __u64 k2)
{
	__u64 h = k1 * 0x9e3779b97f4a7c15ULL ^ (k2 + 0x632be59bd9b4e019ULL) * 0xbf58476d1ce4e5b9ULL;

	return (h >> 32) % TBL_BUCKETS;
}

static struct group *tbl_get(struct table *t, __u64 k1, __u64 k2)
{
	unsigned int h = tbl_hash(k1, k2);
	struct group *g;

	for (g = t->b[h]; g; g = g->next)
		if (g->k1 == k1 && g->k2 == k2)
			return g;
	if (t->n == t->cap) {
		int cap = t->cap ? t->cap * 2 : 64;
		struct group **a = realloc(t->all, cap * sizeof(*a));

		if (!a)
			return NULL;
		t->all = a;
		t->cap = cap;
	}
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->k1 = k1;
	g->k2 = k2;
	g->next = t->b[h];
	t->b[h] = g;
	t->all[t->n++] = g;
	return g;
}

static struct group *tbl_find(const struct table *t, __u64 k1, __u64 k2)
{
	struct group *g;

	for (g = t->b[tbl_hash(k1, k2)]; g; g = g->next)
		if (g->k1 == k1 && g->k2 == k2)
			return g;
	return NULL;
}

static void tbl_free(struct table *t)
{
	for (int i = 0; i < t->n; i++) {
		fss_shist_free(&t->all[i]->st.h);
		free(t->all[i]);
	}
	free(t->all);
	memset(t, 0, sizeof(*t));
}

/* ---- windows: the current interval, and the whole run ---- */

struct window {
	struct gstat all;
	struct gstat kind[FSS_SYNC_KIND_MAX];
	struct table tbl[G_MAX];
	struct fss_flush_stats flush;	/* distinct flush facts, all devices */
	__u64 start_ns;			/* CLOCK_MONOTONIC */
	struct timespec start_wall;
	__u64 drops_at_start;
};

static void window_reset(struct window *w, __u64 now, __u64 drops)
{
	fss_shist_free(&w->all.h);
	for (int k = 0; k < FSS_SYNC_KIND_MAX; k++)
		fss_shist_free(&w->kind[k].h);
	for (int i = 0; i < G_MAX; i++)
		tbl_free(&w->tbl[i]);
	memset(w, 0, sizeof(*w));
	w->start_ns = now;
	clock_gettime(CLOCK_REALTIME, &w->start_wall);
	w->drops_at_start = drops;
}

static void flush_add(struct fss_flush_stats *a, const struct fss_flush_stats *b)
{
	a->flushes += b->flushes;
	a->flush_sync_refs += b->flush_sync_refs;
	a->syncs += b->syncs;
	a->syncs_with_flush += b->syncs_with_flush;
	a->syncs_no_flush += b->syncs_no_flush;
	a->fua_writes += b->fua_writes;
	a->fua_emulated += b->fua_emulated;
	a->preflush += b->preflush;
	a->nvme_flush_cmds += b->nvme_flush_cmds;
}

/* ---- name caches (whole run): processes, files, devices ---- */

struct proc_name {
	__u32 pid;
	char comm[FSS_COMM_LEN];
	char cmdline[256];	/* process title, "" when unreadable */
	struct proc_name *next;
};

struct file_name {
	__u32 dev;
	__u64 ino;
	char *path;		/* NULL: not resolved (yet) */
	__u64 tried_ns;		/* last failed resolution ... */
	__u32 tried_pid;	/* ... in this process's open files */
	struct file_name *next;
};

struct dev_facts {
	__u32 dev;		/* fs dev, kernel encoding */
	__u32 disk;		/* whole disk, 0: none/unknown */
	char disk_name[64];
	int write_cache;	/* 1 write back, 0 write through, -1 unknown */
	int fua;		/* 1, 0, -1 unknown */
	char fstype[32];	/* from mountinfo, "" if not mounted now */
	struct dev_facts *next;
};

#define NAME_BUCKETS	4096
#define MAX_FILE_NAMES	65536	/* cache bound: beyond it, new files show dev/ino */

static struct {
	pthread_mutex_t lock;		/* everything below */
	struct window win[2];		/* [0]: interval, [1]: whole run */
	struct proc_name *procs[NAME_BUCKETS];
	struct file_name *files[NAME_BUCKETS];
	int nfiles;
	struct dev_facts *devs;
	__u64 mono_to_wall_ns;		/* CLOCK_REALTIME - CLOCK_MONOTONIC */
	__u64 slower_ns;
	bool slower;
	__u32 only_disk;		/* --dev on a whole disk: its fs devs only */
	bool journal_na;		/* no jbd2/xfs log tracepoint attached */
	FILE *out;
	FILE *events;			/* --events */
	bool emit_failed;		/* --format html/perfetto not written */
} L = { .lock = PTHREAD_MUTEX_INITIALIZER };

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * NSEC + ts.tv_nsec;
}

static unsigned int kmaj(__u32 kdev) { return kdev >> 20; }
static unsigned int kmin(__u32 kdev) { return kdev & 0xfffff; }

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

static struct proc_name *proc_lookup(__u32 pid, const char *comm)
{
	unsigned int h = pid % NAME_BUCKETS;
	struct proc_name *p;

	for (p = L.procs[h]; p; p = p->next)
		if (p->pid == pid)
			return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	if (comm)
		memcpy(p->comm, comm, FSS_COMM_LEN - 1);
	read_cmdline(pid, p->cmdline, sizeof(p->cmdline));
	p->next = L.procs[h];
	L.procs[h] = p;
	return p;
}

static struct file_name *file_lookup(__u32 dev, __u64 ino, bool create)
{
	unsigned int h = (ino * 31 + dev) % NAME_BUCKETS;
	struct file_name *f;

	for (f = L.files[h]; f; f = f->next)
		if (f->dev == dev && f->ino == ino)
			return f;
	if (!create || L.nfiles >= MAX_FILE_NAMES)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->dev = dev;
	f->ino = ino;
	f->next = L.files[h];
	L.files[h] = f;
	L.nfiles++;
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
		f = file_lookup(dev, st.st_ino, true);
		if (!f)
			continue;
		if (!f->path || strcmp(f->path, target)) {
			char *p = strdup(target);

			if (p) {
				free(f->path);
				f->path = p;
			}
		}
		if (dev == want_dev && st.st_ino == want_ino)
			found = true;
	}
	closedir(d);
	return found;
}

/* Try to name (dev, ino) from pid's open files; a failure is retried after a second. */
static void resolve_file(__u32 pid, __u32 dev, __u64 ino, bool force)
{
	struct file_name *f;
	__u64 now;

	if (!ino)
		return;
	f = file_lookup(dev, ino, true);
	if (!f || (f->path && !force))
		return;
	now = mono_ns();
	if (!force && f->tried_ns && f->tried_pid == pid && now - f->tried_ns < NSEC)
		return;
	if (!scan_fds(pid, dev, ino) && !f->path) {
		f->tried_ns = now;
		f->tried_pid = pid;
	}
}

static struct dev_facts *dev_lookup(__u32 dev)
{
	struct dev_facts *d;
	struct fss_devinfo di;
	char link[64], target[PATH_MAX];
	ssize_t n;

	for (d = L.devs; d; d = d->next)
		if (d->dev == dev)
			return d;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->dev = dev;
	d->write_cache = -1;
	d->fua = -1;
	fss_fstype_of(dev, d->fstype, sizeof(d->fstype));
	if (kmaj(dev))
		d->disk = fss_disk_of(dev);
	if (d->disk) {
		snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", kmaj(d->disk), kmin(d->disk));
		n = readlink(link, target, sizeof(target) - 1);
		if (n > 0) {
			const char *base;

			target[n] = '\0';
			base = strrchr(target, '/');
			snprintf(d->disk_name, sizeof(d->disk_name), "%.63s", base ? base + 1 : target);
			if (!fss_devinfo_read(d->disk_name, &di)) {
				d->write_cache = di.write_cache;
				d->fua = di.fua;
			}
		}
	}
	d->next = L.devs;
	L.devs = d;
	return d;
}

static void names_free(void)
{
	for (int i = 0; i < NAME_BUCKETS; i++) {
		while (L.procs[i]) {
			struct proc_name *p = L.procs[i];

			L.procs[i] = p->next;
			free(p);
		}
		while (L.files[i]) {
			struct file_name *f = L.files[i];

			L.files[i] = f->next;
			free(f->path);
			free(f);
		}
	}
	while (L.devs) {
		struct dev_facts *d = L.devs;

		L.devs = d->next;
		free(d);
	}
	L.nfiles = 0;
}

/* ---- tracer callbacks (consumer thread, tracer lock held) ---- */

static void print_slow(const struct fss_sync_result *r);

static void on_sync(const struct fss_sync_result *r, void *arg)
{
	struct dev_facts *d;

	if (L.events)	/* --events: every sync, filtered or not */
		fss_sync_result_write_json(L.events, "live", r);
	pthread_mutex_lock(&L.lock);
	d = dev_lookup(r->dev);
	if (L.only_disk && (!d || d->disk != L.only_disk)) {
		pthread_mutex_unlock(&L.lock);
		return;
	}
	proc_lookup(r->pid, r->comm);
	resolve_file(r->pid, r->dev, r->ino, false);
	for (int w = 0; w < 2; w++) {
		struct window *win = &L.win[w];
		struct group *g;

		gstat_add(&win->all, r);
		if (r->kind < FSS_SYNC_KIND_MAX)
			gstat_add(&win->kind[r->kind], r);
		g = tbl_get(&win->tbl[G_PROC], r->pid, 0);
		if (g)
			gstat_add(&g->st, r);
		g = tbl_get(&win->tbl[G_FILE], r->dev, r->ino);
		if (g) {
			gstat_add(&g->st, r);
			g->last_pid = r->pid;
		}
		/* msync records carry no file, hence no device */
		g = r->dev ? tbl_get(&win->tbl[G_DEV], r->dev, 0) : NULL;
		if (g)
			gstat_add(&g->st, r);
	}
	if (L.slower && r->total >= L.slower_ns)
		print_slow(r);
	pthread_mutex_unlock(&L.lock);
}

static void on_event(const struct fss_event *ev, void *arg)
{
	if (ev->type == FSS_EV_SYNC) {
		/* name the process and file now, while they are still there */
		pthread_mutex_lock(&L.lock);
		proc_lookup(ev->pid, ev->comm);
		resolve_file(ev->pid, ev->dev, ev->sync.ino, false);
		pthread_mutex_unlock(&L.lock);
	} else if (ev->type == FSS_EV_JOURNAL && ev->ts_end >= ev->ts) {
		pthread_mutex_lock(&L.lock);
		for (int w = 0; w < 2; w++) {
			struct group *g = tbl_get(&L.win[w].tbl[G_JOURNAL], ev->dev, 0);

			if (!g)
				continue;
			gstat_add_interval(&g->st, ev->ts_end - ev->ts);
			if (ev->journal.sync_commit)
				g->sync_commits++;
		}
		pthread_mutex_unlock(&L.lock);
	}
}

/* ---- names for printing ---- */

static void file_label(const struct group *g, char *buf, size_t len, bool *resolved)
{
	__u32 dev = g->k1;
	__u64 ino = g->k2;
	struct file_name *f = file_lookup(dev, ino, false);

	*resolved = false;
	if (f && f->path) {
		snprintf(buf, len, "%s", f->path);
		*resolved = true;
	} else if (!dev && !ino) {
		snprintf(buf, len, "n/a (no file recorded: msync)");
	} else if (!ino) {
		snprintf(buf, len, "dev %u:%u (whole filesystem: syncfs)", kmaj(dev), kmin(dev));
	} else {
		snprintf(buf, len, "dev %u:%u ino %llu", kmaj(dev), kmin(dev),
			 (unsigned long long)ino);
	}
}

/*
 * Plain-text name of a process: its comm, or for processes that set a
 * "comm: role" title (PostgreSQL: "postgres: walwriter") the role.
 */
static const char *proc_label(const struct proc_name *p)
{
	size_t n;

	if (!p)
		return "?";
	n = strlen(p->comm);
	if (n && !strncmp(p->cmdline, p->comm, n) && p->cmdline[n] == ':' &&
	    p->cmdline[n + 1] == ' ' && p->cmdline[n + 2])
		return p->cmdline + n + 2;
	return p->comm;
}

static struct proc_name *proc_find(__u32 pid)
{
	struct proc_name *p;

	for (p = L.procs[pid % NAME_BUCKETS]; p; p = p->next)
		if (p->pid == pid)
			return p;
	return NULL;
}

/* ---- JSON ---- */

static struct json_object *jdev(__u32 kdev)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%u:%u", kmaj(kdev), kmin(kdev));
	return json_object_new_string(buf);
}

static struct json_object *jus(__u64 ns)
{
	return json_object_new_double(ns / 1000.0);
}

static struct json_object *gstat_json(const struct gstat *g, bool phases)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "syncs", json_object_new_int64(g->syncs));
	json_object_object_add(o, "errors", json_object_new_int64(g->errors));
	json_object_object_add(o, "total_ns", json_object_new_int64(g->total_ns));
	json_object_object_add(o, "mean_us", g->syncs ? jus(g->total_ns / g->syncs) : NULL);
	json_object_object_add(o, "p50_us", g->syncs ? jus(quantile_ns(&g->h, 0.50)) : NULL);
	json_object_object_add(o, "p99_us", g->syncs ? jus(quantile_ns(&g->h, 0.99)) : NULL);
	json_object_object_add(o, "max_us", g->syncs ? jus(g->max_ns) : NULL);
	if (phases) {
		struct json_object *ph = json_object_new_object();

		for (int p = 0; p < FSS_PH_MAX; p++) {
			struct json_object *po = json_object_new_object();

			json_object_object_add(po, "ns", json_object_new_int64(g->phase_ns[p]));
			json_object_object_add(po, "mean_us", g->syncs ?
					       jus(g->phase_ns[p] / g->syncs) : NULL);
			json_object_object_add(po, "share", g->total_ns ?
					       json_object_new_double((double)g->phase_ns[p] / g->total_ns) : NULL);
			json_object_object_add(ph, fss_phase_name(p), po);
		}
		json_object_object_add(o, "phases", ph);
	}
	return o;
}

static struct json_object *by_kind_json(const struct gstat *g)
{
	struct json_object *o = json_object_new_object();

	for (int k = 0; k < FSS_SYNC_KIND_MAX; k++)
		if (g->by_kind[k])
			json_object_object_add(o, fss_sync_kind_name(k),
					       json_object_new_int64(g->by_kind[k]));
	return o;
}

static int cmp_total(const void *a, const void *b)
{
	const struct group *x = *(const struct group **)a, *y = *(const struct group **)b;

	if (x->st.total_ns != y->st.total_ns)
		return x->st.total_ns < y->st.total_ns ? 1 : -1;
	if (x->k1 != y->k1)
		return x->k1 < y->k1 ? -1 : 1;
	return x->k2 < y->k2 ? -1 : x->k2 > y->k2;
}

/* groups of a table sorted by total sync time (caller frees the array) */
static struct group **sorted(const struct table *t)
{
	struct group **a;

	if (!t->n)
		return NULL;
	a = malloc(t->n * sizeof(*a));
	if (!a)
		return NULL;
	memcpy(a, t->all, t->n * sizeof(*a));
	qsort(a, t->n, sizeof(*a), cmp_total);
	return a;
}

static const char *cache_str(int wc)
{
	return wc == 1 ? "write back" : wc == 0 ? "write through" : NULL;
}

static struct json_object *flush_json(const struct fss_flush_stats *f)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "flushes", json_object_new_int64(f->flushes));
	json_object_object_add(o, "syncs_per_flush", f->flushes ?
			       json_object_new_double((double)f->flush_sync_refs / f->flushes) : NULL);
	json_object_object_add(o, "syncs", json_object_new_int64(f->syncs));
	json_object_object_add(o, "syncs_with_flush", json_object_new_int64(f->syncs_with_flush));
	json_object_object_add(o, "syncs_no_flush", json_object_new_int64(f->syncs_no_flush));
	json_object_object_add(o, "fua_writes", json_object_new_int64(f->fua_writes));
	json_object_object_add(o, "fua_emulated", json_object_new_int64(f->fua_emulated));
	json_object_object_add(o, "preflush", json_object_new_int64(f->preflush));
	json_object_object_add(o, "nvme_flush_cmds", json_object_new_int64(f->nvme_flush_cmds));
	return o;
}

static void iso_time(const struct timespec *ts, char *buf, size_t len)
{
	struct tm tm;

	localtime_r(&ts->tv_sec, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%S%z", &tm);
}

struct report_ctx {
	const char *type;	/* "interval" or "summary" */
	int index;		/* interval number, from 1 */
	double seconds;
	__u64 drops;
	int cmd_status;		/* summary of -- CMD: its exit status, -1 none */
};

/* The sync-time histogram of a group in hist.c's JSON form. */
static struct json_object *shist_json(const struct fss_shist *h)
{
	struct fss_hist *d = fss_hist_new();
	struct json_object *o;

	if (!d)
		return NULL;
	fss_shist_to(h, d);
	o = fss_hist_json(d);
	free(d);
	return o;
}

static struct json_object *report_json(const struct window *w, const struct report_ctx *rc)
{
	struct json_object *o = json_object_new_object(), *a;
	struct group **s;
	char tbuf[64];

	iso_time(&w->start_wall, tbuf, sizeof(tbuf));
	fss_doc_stamp(o, "trace");
	json_object_object_add(o, "type", json_object_new_string(rc->type));
	if (rc->index)
		json_object_object_add(o, "interval", json_object_new_int(rc->index));
	json_object_object_add(o, "start", json_object_new_string(tbuf));
	json_object_object_add(o, "seconds", json_object_new_double(rc->seconds));
	json_object_object_add(o, "events_lost", json_object_new_int64(rc->drops));
	json_object_object_add(o, "all", gstat_json(&w->all, true));
	json_object_object_add(fss_j(o, "all"), "hist", shist_json(&w->all.h));
	json_object_object_add(o, "by_kind", by_kind_json(&w->all));

	a = json_object_new_array();
	for (int k = 0; k < FSS_SYNC_KIND_MAX; k++) {
		struct json_object *ko;

		if (!w->kind[k].syncs)
			continue;
		ko = gstat_json(&w->kind[k], true);
		json_object_object_add(ko, "kind", json_object_new_string(fss_sync_kind_name(k)));
		json_object_array_add(a, ko);
	}
	json_object_object_add(o, "kinds", a);

	a = json_object_new_array();
	s = sorted(&w->tbl[G_PROC]);
	for (int i = 0; s && i < w->tbl[G_PROC].n && i < env.top; i++) {
		struct proc_name *p = proc_find(s[i]->k1);
		struct json_object *po = gstat_json(&s[i]->st, true);

		json_object_object_add(po, "pid", json_object_new_int64(s[i]->k1));
		json_object_object_add(po, "comm", json_object_new_string(p ? p->comm : ""));
		json_object_object_add(po, "cmdline", p && p->cmdline[0] ?
				       json_object_new_string(p->cmdline) : NULL);
		json_object_object_add(po, "name", json_object_new_string(proc_label(p)));
		json_object_object_add(po, "by_kind", by_kind_json(&s[i]->st));
		json_object_array_add(a, po);
	}
	free(s);
	json_object_object_add(o, "processes", a);
	json_object_object_add(o, "processes_total", json_object_new_int(w->tbl[G_PROC].n));

	a = json_object_new_array();
	s = sorted(&w->tbl[G_FILE]);
	for (int i = 0; s && i < w->tbl[G_FILE].n && i < env.top; i++) {
		struct json_object *fo = gstat_json(&s[i]->st, true);
		char label[PATH_MAX + 64];
		bool resolved;

		file_label(s[i], label, sizeof(label), &resolved);
		json_object_object_add(fo, "path", resolved ? json_object_new_string(label) : NULL);
		if (!resolved)
			json_object_object_add(fo, "path_note", json_object_new_string(label));
		json_object_object_add(fo, "dev", jdev(s[i]->k1));
		json_object_object_add(fo, "ino", json_object_new_int64(s[i]->k2));
		json_object_object_add(fo, "last_pid", json_object_new_int64(s[i]->last_pid));
		json_object_object_add(fo, "by_kind", by_kind_json(&s[i]->st));
		json_object_array_add(a, fo);
	}
	free(s);
	json_object_object_add(o, "files", a);
	json_object_object_add(o, "files_total", json_object_new_int(w->tbl[G_FILE].n));

	a = json_object_new_array();
	s = sorted(&w->tbl[G_DEV]);
	for (int i = 0; s && i < w->tbl[G_DEV].n; i++) {
		const struct gstat *g = &s[i]->st;
		struct dev_facts *d = dev_lookup(s[i]->k1);
		struct json_object *dobj = json_object_new_object();
		const char *wc = d ? cache_str(d->write_cache) : NULL;

		json_object_object_add(dobj, "dev", jdev(s[i]->k1));
		json_object_object_add(dobj, "fs", d && d->fstype[0] ?
				       json_object_new_string(d->fstype) : NULL);
		json_object_object_add(dobj, "disk", d && d->disk_name[0] ?
				       json_object_new_string(d->disk_name) : NULL);
		json_object_object_add(dobj, "write_cache", wc ? json_object_new_string(wc) : NULL);
		json_object_object_add(dobj, "fua", d && d->fua >= 0 ?
				       json_object_new_boolean(d->fua) : NULL);
		/* a write-through device gets no real flush: the kernel drops it */
		json_object_object_add(dobj, "flush_elided", d && d->write_cache >= 0 ?
				       json_object_new_boolean(d->write_cache == 0) : NULL);
		json_object_object_add(dobj, "syncs", json_object_new_int64(g->syncs));
		json_object_object_add(dobj, "syncs_with_flush", json_object_new_int64(g->with_flush));
		json_object_object_add(dobj, "syncs_no_flush", json_object_new_int64(g->syncs - g->with_flush));
		json_object_object_add(dobj, "flush_refs", json_object_new_int64(g->nr_flush));
		json_object_object_add(dobj, "preflush_refs", json_object_new_int64(g->nr_preflush));
		json_object_object_add(dobj, "fua_writes", json_object_new_int64(g->nr_fua));
		json_object_object_add(dobj, "fua_emulated", json_object_new_int64(g->nr_fua_emulated));
		json_object_object_add(dobj, "syncs_waited_journal", json_object_new_int64(g->with_journal));
		json_object_object_add(dobj, "device_flush_ns", json_object_new_int64(g->phase_ns[FSS_PH_DEV_FLUSH]));
		json_object_array_add(a, dobj);
	}
	free(s);
	json_object_object_add(o, "devices", a);
	json_object_object_add(o, "flush", flush_json(&w->flush));

	a = json_object_new_array();
	s = sorted(&w->tbl[G_JOURNAL]);
	for (int i = 0; s && i < w->tbl[G_JOURNAL].n; i++) {
		const struct group *dg = tbl_find(&w->tbl[G_DEV], s[i]->k1, 0);
		struct json_object *jo;

		/* commits of filesystems none of the traced syncs were on: not ours */
		if (!dg)
			continue;
		jo = gstat_json(&s[i]->st, false);
		json_object_object_del(jo, "errors");
		json_object_object_add(jo, "dev", jdev(s[i]->k1));
		json_object_object_add(jo, "commits", json_object_new_int64(s[i]->st.syncs));
		json_object_object_del(jo, "syncs");
		json_object_object_add(jo, "sync_commits", json_object_new_int64(s[i]->sync_commits));
		json_object_object_add(jo, "syncs_waited", json_object_new_int64(dg->st.with_journal));
		json_object_array_add(a, jo);
	}
	free(s);
	json_object_object_add(o, "journal", a);
	return o;
}

/* ---- plain text (80 columns) ---- */

static const char *ph_abbr[FSS_PH_MAX] = { "fs", "jrn", "que", "dwr", "dfl", "oth" };

/* " SYNCS  TOTAL_s  P50_us  P99_us  fs jrn que dwr dfl oth": 56 columns */
static void print_stats_header(FILE *f, const char *ident)
{
	fprintf(f, "%-23s %6s %8s %7s %7s", ident, "SYNCS", "TOTAL_s", "P50_us", "P99_us");
	for (int p = 0; p < FSS_PH_MAX; p++)
		fprintf(f, " %3s", ph_abbr[p]);
	fprintf(f, "\n");
}

static void print_us(FILE *f, __u64 ns)
{
	double us = ns / 1000.0;

	if (us < 9999999.5)
		fprintf(f, " %7.0f", us);
	else
		fprintf(f, " %6.0fs", ns / 1e9);
}

static void print_stats(FILE *f, const struct gstat *g)
{
	fprintf(f, " %6llu %8.3f", (unsigned long long)g->syncs, g->total_ns / 1e9);
	print_us(f, quantile_ns(&g->h, 0.50));
	print_us(f, quantile_ns(&g->h, 0.99));
	for (int p = 0; p < FSS_PH_MAX; p++)
		fprintf(f, " %3.0f", g->total_ns ? 100.0 * g->phase_ns[p] / g->total_ns : 0.0);
	fprintf(f, "\n");
}

/* print an identity cell of 23 columns; a longer one goes on its own line */
static void print_ident(FILE *f, const char *s)
{
	size_t n = strlen(s);

	if (n <= 23) {
		fprintf(f, "%-23s", s);
		return;
	}
	if (n > 78)
		fprintf(f, "...%s\n%23s", s + n - 75, "");
	else
		fprintf(f, "%s\n%23s", s, "");
}

/* Each traced filesystem without a jbd2 commit above: why, for its type. */
static void journal_notes(FILE *f, const struct window *w)
{
	const struct table *dt = &w->tbl[G_DEV];

	if (L.journal_na) {
		fprintf(f, "n/a: no jbd2 or xfs log tracepoint attached\n");
		return;
	}
	for (int i = 0; i < dt->n; i++) {
		const struct group *g = dt->all[i];
		struct dev_facts *d = dev_lookup(g->k1);
		const char *type = d ? d->fstype : "";
		char devs[24];

		if (tbl_find(&w->tbl[G_JOURNAL], g->k1, 0))
			continue;
		snprintf(devs, sizeof(devs), "%u:%u", kmaj(g->k1), kmin(g->k1));
		fprintf(f, "%s %s%s%s\n", devs, type, type[0] ? ": " : "",
			fss_journal_note(type));
	}
}

static void report_plain(FILE *f, const struct window *w, const struct report_ctx *rc)
{
	struct group **s;
	char tbuf[64];
	struct tm tm;
	int shown;

	localtime_r(&w->start_wall.tv_sec, &tm);
	strftime(tbuf, sizeof(tbuf), "%Y-%m-%d %H:%M:%S", &tm);
	if (rc->index)
		fprintf(f, "\n=== interval %d: %s, %.2f s", rc->index, tbuf, rc->seconds);
	else
		fprintf(f, "\n=== summary: from %s, %.2f s", tbuf, rc->seconds);
	fprintf(f, ", %llu syncs", (unsigned long long)w->all.syncs);
	if (w->all.errors)
		fprintf(f, " (%llu failed)", (unsigned long long)w->all.errors);
	fprintf(f, "\n");
	if (rc->drops)
		fprintf(f, "warning: %llu events lost (ring buffer or state map full, or hook skipped): "
			"counts are incomplete\n", (unsigned long long)rc->drops);
	if (!w->all.syncs) {
		fprintf(f, "no syncs\n");
		return;
	}

	print_stats_header(f, "KIND");
	for (int k = 0; k < FSS_SYNC_KIND_MAX; k++) {
		if (!w->kind[k].syncs)
			continue;
		fprintf(f, "%-23s", fss_sync_kind_name(k));
		print_stats(f, &w->kind[k]);
	}
	fprintf(f, "%-23s", "all");
	print_stats(f, &w->all);

	fprintf(f, "\nPROCESSES (top %d of %d by sync time)\n",
		env.top < w->tbl[G_PROC].n ? env.top : w->tbl[G_PROC].n, w->tbl[G_PROC].n);
	print_stats_header(f, "    PID NAME");
	s = sorted(&w->tbl[G_PROC]);
	for (int i = 0; s && i < w->tbl[G_PROC].n && i < env.top; i++) {
		struct proc_name *p = proc_find(s[i]->k1);

		fprintf(f, "%7llu %-15.15s", (unsigned long long)s[i]->k1, proc_label(p));
		print_stats(f, &s[i]->st);
	}
	free(s);

	shown = env.top < w->tbl[G_FILE].n ? env.top : w->tbl[G_FILE].n;
	fprintf(f, "\nFILES (top %d of %d by sync time)\n", shown, w->tbl[G_FILE].n);
	print_stats_header(f, "FILE");
	s = sorted(&w->tbl[G_FILE]);
	for (int i = 0; s && i < shown; i++) {
		char label[PATH_MAX + 64];
		bool resolved;

		file_label(s[i], label, sizeof(label), &resolved);
		print_ident(f, label);
		print_stats(f, &s[i]->st);
	}
	free(s);

	fprintf(f, "\nDEVICES (flush facts)\n");
	fprintf(f, "%-9s %-8s %-13s %3s %7s %7s %8s %7s %8s\n", "FS_DEV", "DISK", "CACHE", "FUA",
		"SYNCS", "FLUSHED", "NO_FLUSH", "FUA_WR", "DFLUSH_s");
	s = sorted(&w->tbl[G_DEV]);
	for (int i = 0; s && i < w->tbl[G_DEV].n; i++) {
		const struct gstat *g = &s[i]->st;
		struct dev_facts *d = dev_lookup(s[i]->k1);
		const char *wc = d ? cache_str(d->write_cache) : NULL;
		char devs[24];

		snprintf(devs, sizeof(devs), "%u:%u", kmaj(s[i]->k1), kmin(s[i]->k1));
		fprintf(f, "%-9s %-8.8s %-13s %3s %7llu %7llu %8llu %7llu %8.3f\n", devs,
			d && d->disk_name[0] ? d->disk_name : "n/a", wc ? wc : "n/a",
			!d || d->fua < 0 ? "n/a" : d->fua ? "yes" : "no",
			(unsigned long long)g->syncs, (unsigned long long)g->with_flush,
			(unsigned long long)(g->syncs - g->with_flush),
			(unsigned long long)g->nr_fua, g->phase_ns[FSS_PH_DEV_FLUSH] / 1e9);
		if (d && d->write_cache == 0)
			fprintf(f, "  %s is write through: the kernel elides its flushes\n",
				d->disk_name);
	}
	free(s);
	if (w->flush.flushes)
		fprintf(f, "all devices: %llu flushes served %llu syncs (%.2f syncs per flush)\n",
			(unsigned long long)w->flush.flushes,
			(unsigned long long)w->flush.flush_sync_refs,
			(double)w->flush.flush_sync_refs / w->flush.flushes);
	else
		fprintf(f, "all devices: no cache flush request attributed to a sync\n");
	fprintf(f, "FUA writes %llu native, %llu emulated; %llu PREFLUSH requests\n",
		(unsigned long long)w->flush.fua_writes,
		(unsigned long long)w->flush.fua_emulated,
		(unsigned long long)w->flush.preflush);

	fprintf(f, "\nJOURNAL (jbd2 commits by kernel threads, on the devices above)\n");
	s = sorted(&w->tbl[G_JOURNAL]);
	shown = 0;
	for (int i = 0; s && i < w->tbl[G_JOURNAL].n; i++) {
		const struct group *dg = tbl_find(&w->tbl[G_DEV], s[i]->k1, 0);
		const struct gstat *g = &s[i]->st;
		char devs[24];

		if (!dg)
			continue;
		if (!shown++)
			fprintf(f, "%-9s %7s %7s %8s %7s %7s %7s %8s\n", "FS_DEV", "COMMITS",
				"ASKED", "TOTAL_s", "P50_us", "P99_us", "MAX_us", "WAITERS");
		snprintf(devs, sizeof(devs), "%u:%u", kmaj(s[i]->k1), kmin(s[i]->k1));
		fprintf(f, "%-9s %7llu %7llu %8.3f", devs, (unsigned long long)g->syncs,
			(unsigned long long)s[i]->sync_commits, g->total_ns / 1e9);
		print_us(f, quantile_ns(&g->h, 0.50));
		print_us(f, quantile_ns(&g->h, 0.99));
		print_us(f, g->max_ns);
		fprintf(f, " %8llu\n", (unsigned long long)dg->st.with_journal);
	}
	free(s);
	journal_notes(f, w);
}

/* ---- --slower: one sync as it happens ---- */

static void print_slow(const struct fss_sync_result *r)
{
	struct file_name *fn = r->ino ? file_lookup(r->dev, r->ino, false) : NULL;
	__u64 wall = r->start + r->total + L.mono_to_wall_ns;
	char tbuf[32], label[PATH_MAX + 64];
	time_t sec = wall / NSEC;
	struct tm tm;
	FILE *f = L.out;

	localtime_r(&sec, &tm);
	strftime(tbuf, sizeof(tbuf), env.json ? "%Y-%m-%dT%H:%M:%S" : "%H:%M:%S", &tm);
	if (fn && fn->path)
		snprintf(label, sizeof(label), "%s", fn->path);
	else if (!r->ino && !r->dev)
		snprintf(label, sizeof(label), "n/a");
	else if (!r->ino)
		snprintf(label, sizeof(label), "dev %u:%u", kmaj(r->dev), kmin(r->dev));
	else
		snprintf(label, sizeof(label), "dev %u:%u ino %llu", kmaj(r->dev), kmin(r->dev),
			 (unsigned long long)r->ino);

	if (env.json) {
		struct json_object *o = json_object_new_object();
		char ts[64];

		snprintf(ts, sizeof(ts), "%s.%06llu", tbuf,
			 (unsigned long long)(wall % NSEC) / 1000);
		json_object_object_add(o, "type", json_object_new_string("sync"));
		json_object_object_add(o, "time", json_object_new_string(ts));
		json_object_object_add(o, "pid", json_object_new_int64(r->pid));
		json_object_object_add(o, "tid", json_object_new_int64(r->tid));
		json_object_object_add(o, "comm", json_object_new_string(r->comm));
		json_object_object_add(o, "kind", json_object_new_string(fss_sync_kind_name(r->kind)));
		json_object_object_add(o, "dev", jdev(r->dev));
		json_object_object_add(o, "ino", json_object_new_int64(r->ino));
		json_object_object_add(o, "path", fn && fn->path ? json_object_new_string(fn->path) : NULL);
		json_object_object_add(o, "ret", json_object_new_int(r->ret));
		json_object_object_add(o, "total_ns", json_object_new_int64(r->total));
		for (int p = 0; p < FSS_PH_MAX; p++) {
			char k[32];

			snprintf(k, sizeof(k), "%s_ns", fss_phase_name(p));
			json_object_object_add(o, k, json_object_new_int64(r->phase_ns[p]));
		}
		json_object_object_add(o, "nr_rq", json_object_new_int(r->nr_rq));
		json_object_object_add(o, "nr_write", json_object_new_int(r->nr_write));
		json_object_object_add(o, "nr_flush", json_object_new_int(r->nr_flush));
		json_object_object_add(o, "nr_fua", json_object_new_int(r->nr_fua));
		json_object_object_add(o, "nr_journal", json_object_new_int(r->nr_journal));
		fprintf(f, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
	} else {
		size_t n = strlen(label);
		int w;

		/* the file on the same line when it fits, else on its own */
		w = fprintf(f, "%s %u %s %s %.3f ms", tbuf, r->pid, r->comm,
			    fss_sync_kind_name(r->kind), r->total / 1e6);
		if (w + 2 + n <= 79)
			fprintf(f, "  %s\n", label);
		else if (n <= 77)
			fprintf(f, "\n  %s\n", label);
		else
			fprintf(f, "\n  ...%s\n", label + n - 74);
		fprintf(f, "        ");
		for (int p = 0; p < FSS_PH_MAX; p++)
			fprintf(f, " %s %.3f", ph_abbr[p], r->phase_ns[p] / 1e6);
		if (r->ret < 0)
			fprintf(f, "  failed: %s", strerror(-r->ret));
		fprintf(f, "\n");
	}
	fflush(f);
}

/* ---- targets ---- */

/* Where cgroup v2 is mounted ("" when it is not). */
static int cgroup2_mount(char *buf, size_t len)
{
	char line[4096];
	FILE *f = fopen("/proc/self/mounts", "r");
	int rc = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char src[256], dir[PATH_MAX], type[64];

		if (sscanf(line, "%255s %4095s %63s", src, dir, type) == 3 &&
		    !strcmp(type, "cgroup2")) {
			snprintf(buf, len, "%s", dir);
			rc = 0;
			break;
		}
	}
	fclose(f);
	return rc;
}

static int cgroup_id(const char *arg, __u64 *id, char *err, size_t errlen)
{
	char path[2 * PATH_MAX], mnt[PATH_MAX];
	struct {
		struct file_handle fh;
		__u64 id;
	} h;
	struct statfs sfs;
	struct stat st;
	int mount_id;
	long l;

	if (parse_long(arg, &l)) {
		if (l <= 0) {
			snprintf(err, errlen, "--cgroup %s: not a cgroup id", arg);
			return -EINVAL;
		}
		*id = l;
		return 0;
	}
	snprintf(path, sizeof(path), "%s", arg);
	if (stat(path, &st)) {
		if (arg[0] == '/' && !strncmp(arg, "/sys/", 5)) {
			snprintf(err, errlen, "--cgroup %s: %s", arg, strerror(errno));
			return -ENOENT;
		}
		if (cgroup2_mount(mnt, sizeof(mnt))) {
			snprintf(err, errlen, "--cgroup %s: no cgroup v2 hierarchy is mounted", arg);
			return -ENOENT;
		}
		snprintf(path, sizeof(path), "%s/%s", mnt, arg[0] == '/' ? arg + 1 : arg);
		if (stat(path, &st)) {
			snprintf(err, errlen, "--cgroup %.200s: no such cgroup (looked at %.200s)", arg, path);
			return -ENOENT;
		}
	}
	if (statfs(path, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "--cgroup %s: not a cgroup v2 directory", arg);
		return -EINVAL;
	}
	/* the file handle of a cgroup2 directory is its 64-bit id */
	h.fh.handle_bytes = sizeof(h.id);
	if (!name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0) &&
	    h.fh.handle_bytes == sizeof(__u64))
		memcpy(id, h.fh.f_handle, sizeof(*id));
	else
		*id = st.st_ino;
	return 0;
}

/* Mountpoint of a filesystem on a block device of disk `disk` (or exactly `blk`). */
static int mount_of_dev(__u32 blk, __u32 disk, bool exact, char *dir, size_t len, __u32 *fs_kdev)
{
	char line[8192];
	FILE *f = fopen("/proc/self/mountinfo", "r");
	int rc = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned int maj, min;
		char mnt[PATH_MAX], root[PATH_MAX];
		__u32 k;

		if (sscanf(line, "%*d %*d %u:%u %4095s %4095s", &maj, &min, root, mnt) != 4)
			continue;
		k = fss_kdev(maj, min);
		if (!maj || !(k == blk || (!exact && fss_disk_of(k) == disk)))
			continue;
		/* undo mountinfo's octal escapes (\040 for a space) */
		{
			char *r = mnt, *w = mnt;

			while (*r) {
				if (r[0] == '\\' && isdigit((unsigned char)r[1]) &&
				    isdigit((unsigned char)r[2]) && isdigit((unsigned char)r[3])) {
					*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
					r += 4;
				} else {
					*w++ = *r++;
				}
			}
			*w = '\0';
		}
		snprintf(dir, len, "%s", mnt);
		*fs_kdev = k;
		rc = 0;
		break;
	}
	fclose(f);
	return rc;
}

static int parse_dev(const char *arg, __u32 *kdev, char *err, size_t errlen)
{
	unsigned int maj, min;
	struct stat st;
	char c;

	if (sscanf(arg, "%u:%u%c", &maj, &min, &c) == 2) {
		char p[64];

		snprintf(p, sizeof(p), "/sys/dev/block/%u:%u", maj, min);
		if (access(p, F_OK)) {
			snprintf(err, errlen, "--dev %s: no such block device", arg);
			return -ENODEV;
		}
		*kdev = fss_kdev(maj, min);
		return 0;
	}
	if (!stat(arg, &st)) {
		if (!S_ISBLK(st.st_mode)) {
			snprintf(err, errlen, "--dev %s: not a block device (use --mount for a directory)", arg);
			return -ENOTBLK;
		}
		*kdev = fss_kdev(major(st.st_rdev), minor(st.st_rdev));
		return 0;
	}
	if (!strchr(arg, '/')) {
		struct fss_devinfo d;

		if (!fss_devinfo_read(arg, &d)) {
			*kdev = fss_kdev(d.major, d.minor);
			return 0;
		}
	}
	snprintf(err, errlen, "--dev %s: no such block device", arg);
	return -ENODEV;
}

/* A directory for the calibration syncs, on a block device if we can. */
static const char *default_calib_dir(void)
{
	static const char *cands[] = { "/var/tmp", "/tmp" };
	struct fss_target t;

	for (unsigned int i = 0; i < sizeof(cands) / sizeof(cands[0]); i++)
		if (!access(cands[i], W_OK) && !fss_target_lookup(cands[i], &t) && t.has_disk)
			return cands[i];
	return "/tmp";
}

/* ---- the command ---- */

static void describe_targets(char *buf, size_t len, __u64 cg)
{
	size_t n = 0;

	buf[0] = '\0';
	if (env.cmd) {
		n += snprintf(buf + n, len - n, "%s (pid %u) and its children",
			      env.cmd[0], env.tgids[0]);
	} else if (env.ntgids) {
		n += snprintf(buf + n, len - n, "pid");
		for (int i = 0; i < env.ntgids && n < len - 16; i++)
			n += snprintf(buf + n, len - n, "%s%u", i ? "," : " ", env.tgids[i]);
	}
	if (env.comm && n < len)
		n += snprintf(buf + n, len - n, "%scomm %s", n ? ", " : "", env.comm);
	if (env.cgroup && n < len)
		n += snprintf(buf + n, len - n, "%scgroup %s (id %llu)", n ? ", " : "",
			      env.cgroup, (unsigned long long)cg);
	if (env.mount && n < len)
		n += snprintf(buf + n, len - n, "%smount %s", n ? ", " : "", env.mount);
	if (env.dev && n < len)
		n += snprintf(buf + n, len - n, "%sdev %s", n ? ", " : "", env.dev);
	if (!n)
		snprintf(buf, len, "every sync on the host");
}

static struct json_object *filters_json(__u64 cg, __u32 fs_dev, __u32 disk_dev)
{
	struct json_object *o = json_object_new_object(), *p = json_object_new_array();

	for (int i = 0; i < env.ntgids; i++)
		json_object_array_add(p, json_object_new_int64(env.tgids[i]));
	json_object_object_add(o, "pids", p);
	json_object_object_add(o, "comm", env.comm ? json_object_new_string(env.comm) : NULL);
	json_object_object_add(o, "cgroup", env.cgroup ? json_object_new_string(env.cgroup) : NULL);
	json_object_object_add(o, "cgroup_id", cg ? json_object_new_int64(cg) : NULL);
	json_object_object_add(o, "mount", env.mount ? json_object_new_string(env.mount) : NULL);
	json_object_object_add(o, "dev", env.dev ? json_object_new_string(env.dev) : NULL);
	json_object_object_add(o, "fs_dev", fs_dev ? jdev(fs_dev) : NULL);
	json_object_object_add(o, "disk_dev", disk_dev ? jdev(disk_dev) : NULL);
	return o;
}

static void emit_report(struct fss_tracer *t, int w, const struct report_ctx *rc)
{
	if (at_end_only()) {
		struct fss_render_opts ro = { .events_path = env.events };

		if (rc->index)		/* intervals: only the summary is drawn */
			return;
		if (L.events)
			fflush(L.events);
		if (fss_emit(report_json(&L.win[w], rc), env.format, env.output, &ro))
			L.emit_failed = true;
		return;
	}
	if (env.json) {
		struct json_object *o = report_json(&L.win[w], rc);

		/* -- CMD: its exit status (null: it still runs) in the summary */
		if (env.cmd && !rc->index)
			json_object_object_add(o, "command_status", rc->cmd_status >= 0 ?
					       json_object_new_int(rc->cmd_status) : NULL);
		fprintf(L.out, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
	} else {
		report_plain(L.out, &L.win[w], rc);
	}
	fflush(L.out);
}

/* Attribute what the kernel recorded up to now; fold the flush facts in. */
static void live_flush(struct fss_tracer *t)
{
	struct fss_flush_stats fst = {};

	if (fss_tracer_live_flush(t, &fst) < 0)
		return;
	if (L.events)
		fflush(L.events);
	pthread_mutex_lock(&L.lock);
	flush_add(&L.win[0].flush, &fst);
	flush_add(&L.win[1].flush, &fst);
	pthread_mutex_unlock(&L.lock);
}

/*
 * Before a report: look at the open files of the processes that synced
 * once more (each process once), so that files renamed since (recycled
 * WAL segments) show their current name and unnamed ones get one.
 */
static void resolve_late(int w)
{
	struct table *ft = &L.win[w].tbl[G_FILE];
	__u32 done[256];
	int ndone = 0;

	for (int i = 0; i < ft->n; i++) {
		struct group *g = ft->all[i];
		bool seen = false;

		if (!g->k2 || !g->last_pid)
			continue;
		for (int j = 0; j < ndone && !seen; j++)
			seen = done[j] == g->last_pid;
		if (seen)
			continue;
		if (ndone == (int)(sizeof(done) / sizeof(done[0])))
			break;
		done[ndone++] = g->last_pid;
		resolve_file(g->last_pid, g->k1, g->k2, true);
	}
}

static struct json_object *cmd_json(char **cmd)
{
	struct json_object *a;

	if (!cmd)
		return NULL;
	a = json_object_new_array();
	for (; *cmd; cmd++)
		json_object_array_add(a, json_object_new_string(*cmd));
	return a;
}

/*
 * -- CMD: a signal while CMD runs.  SIGCHLD: stop when CMD has exited, its
 * status in *rc.  SIGINT/SIGTERM: the first is passed on to CMD unless the
 * terminal sent it to both of us already; the trace goes on until CMD
 * exits.  A second one stops the trace (exit 128 + it).  True: stop.
 */
static bool cmd_signal(struct fss_child *c, int sig, const siginfo_t *si,
		       int nth, int *rc)
{
	int code;

	if (sig == SIGCHLD) {
		if (fss_child_reap(c, 0, &code) != 1)
			return false;
		*rc = code;
		return true;
	}
	if (c->pid <= 0 || nth > 1) {
		*rc = 128 + sig;
		return true;
	}
	if (si->si_code != SI_KERNEL)
		kill(c->pid, sig);
	return false;
}

/* Options that do not go together: usage errors (2), before anything else. */
static int check_usage(void)
{
	if (env.cmd && env.ntgids)
		return fss_cli_usage_error(PROG, "-p and -- CMD: give one of them");
	if (env.cmd && (env.duration || env.count))
		return fss_cli_usage_error(PROG, "-d and COUNT do not apply to "
					   "-- CMD: the trace ends when CMD exits");
	if (env.mount && env.dev)
		return fss_cli_usage_error(PROG, "--mount and --dev: give one of them");
	if (env.format == FSS_FMT_PERFETTO && !env.events)
		return fss_cli_usage_error(PROG, "--format perfetto draws the --events "
					   "records: give --events FILE");
	if (env.events_detail && !env.events)
		return fss_cli_usage_error(PROG, "--events-detail adds to --events FILE");
	if (env.format == FSS_FMT_PERFETTO)
		env.events_detail = true;
	if (at_end_only() && (env.slower_ms >= 0 || env.json))
		return fss_cli_usage_error(PROG, "--format html/perfetto render the "
					   "summary: not with --slower or -j");
	if (env.interval && env.duration && env.count)
		return fss_cli_usage_error(PROG, "give -d or COUNT, not both");
	return 0;
}

/*
 * The targets, all checked before anything is loaded: processes, cgroup,
 * filesystem and disk, and where calibration syncs.  0, or 1 after one
 * line on stderr.
 */
static int resolve_targets(__u64 *cg, __u32 *fs_dev, __u32 *disk_dev)
{
	static char calib_buf[PATH_MAX];
	bool whole_disk_dev = false;
	char err[512];

	if (pids_to_tgids())
		return 1;
	if (env.cgroup && cgroup_id(env.cgroup, cg, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	if (env.mount) {
		if (fss_mount_filter(env.mount, fs_dev, disk_dev, err, sizeof(err))) {
			fprintf(stderr, PROG ": %s\n", err);
			return 1;
		}
		if (!env.calib_dir)
			env.calib_dir = env.mount;
	}
	if (env.dev) {
		__u32 blk, disk;

		if (parse_dev(env.dev, &blk, err, sizeof(err))) {
			fprintf(stderr, PROG ": %s\n", err);
			return 1;
		}
		disk = fss_disk_of(blk);
		if (!disk)
			disk = blk;
		*disk_dev = disk;
		if (!mount_of_dev(blk, disk, true, calib_buf, sizeof(calib_buf), fs_dev)) {
			/* a filesystem directly on it: filter syncs in the kernel */
		} else if (!mount_of_dev(blk, disk, false, calib_buf, sizeof(calib_buf), fs_dev)) {
			/* a whole disk with several filesystems: syncs filtered here */
			*fs_dev = 0;
			whole_disk_dev = true;
		} else {
			fprintf(stderr, PROG ": --dev %s: no mounted filesystem on it\n", env.dev);
			return 1;
		}
		if (!env.calib_dir)
			env.calib_dir = calib_buf;
	}
	/* a whole disk under several filesystems: syncs are filtered here */
	L.only_disk = whole_disk_dev ? *disk_dev : 0;
	if (!env.calib_dir)
		env.calib_dir = default_calib_dir();
	return 0;
}

/*
 * --events FILE (into the tracer's options) and -o FILE for text and JSON
 * Lines (stdout itself, renamed over FILE at the end): 0, or 1 after one
 * line on stderr.
 */
static int open_outputs(struct fss_trace_opts *to)
{
	if (env.events) {
		L.events = fopen(env.events, "w");
		if (!L.events) {
			fprintf(stderr, PROG ": cannot write %s: %s\n", env.events,
				strerror(errno));
			return 1;
		}
		to->detail = env.events_detail;
	}
	if (env.output && !at_end_only() && fss_stdout_to_begin(env.output))
		return 1;
	return 0;
}

/* The end of open_outputs' files; rc, or 1 if one could not be written. */
static int close_outputs(int rc)
{
	if (L.events)
		fclose(L.events);
	L.events = NULL;
	if (fss_stdout_to_end(rc != 1) && !rc)
		rc = 1;
	if (L.emit_failed && !rc)
		rc = 1;
	L.emit_failed = false;
	return rc;
}

int cmd_trace(int argc, char **argv)
{
	char *name = PROG;
	struct fss_trace_opts to = {};
	struct fss_tracer *t = NULL;
	char err[512], what[512];
	struct timespec rt, mt;
	__u64 cg = 0, start, end = 0, next = 0, now;
	__u32 fs_dev = 0, disk_dev = 0;
	bool stop = false;
	struct fss_child child = {};
	sigset_t sigs, oldmask;
	siginfo_t si;
	int rc = 0, sig, index = 0, nsig = 0;

	memset(&env, 0, sizeof(env));
	env.top = 10;
	env.slower_ms = -1;
	/* -- CMD ARGS...: the options end at the first "--" */
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--"))
			continue;
		if (i + 1 == argc)
			return fss_cli_usage_error(PROG, "-- needs a command");
		env.cmd = argv + i + 1;
		argc = i;
		break;
	}
	if (fss_cli_parse(&argp, argc, argv, NULL, PROG, 2))
		return 2;
	if (env.help) {
		argp_help(&argp, stdout, ARGP_HELP_STD_HELP, name);
		return 0;
	}
	if (env.usage) {
		argp_help(&argp, stdout, ARGP_HELP_USAGE, name);
		return 0;
	}

	rc = check_usage();
	if (!rc)
		rc = resolve_targets(&cg, &fs_dev, &disk_dev);
	if (rc)
		return rc;
	if (geteuid() != 0) {
		fprintf(stderr, PROG ": needs root (CAP_BPF and CAP_PERFMON to load the tracer)\n");
		return 1;
	}

	L.out = stdout;
	L.slower = env.slower_ms >= 0;
	L.slower_ns = env.slower_ms >= 0 ? (__u64)(env.slower_ms * 1e6) : 0;
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mt);
	L.mono_to_wall_ns = ((__u64)rt.tv_sec * NSEC + rt.tv_nsec) -
			    ((__u64)mt.tv_sec * NSEC + mt.tv_nsec);

	/* Ctrl-C and SIGTERM are taken synchronously, in every thread */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	if (env.cmd)
		sigaddset(&sigs, SIGCHLD);	/* CMD's end ends the trace */
	pthread_sigmask(SIG_BLOCK, &sigs, &oldmask);
	signal(SIGPIPE, SIG_IGN);
	if (env.cmd) {
		/* CMD waits before exec until the filter has its pid */
		if (fss_child_spawn(&child, env.cmd, &oldmask, err, sizeof(err))) {
			fprintf(stderr, PROG ": %s\n", err);
			rc = 1;
			goto out;
		}
		env.tgids[0] = child.pid;
		env.ntgids = 1;
		to.follow_forks = true;
	}

	to.strategy = env.strategy;
	to.calib_dir = env.calib_dir;
	to.fs_dev = fs_dev;
	to.disk_dev = disk_dev;
	to.verbose = env.verbose;
	to.tgids = env.tgids;
	to.ntgids = env.ntgids;
	to.comm = env.comm;
	to.cgroup_id = cg;
	to.live = true;
	to.on_sync = on_sync;
	to.on_event = on_event;
	if (open_outputs(&to)) {
		rc = 1;
		goto out;
	}

	start = mono_ns();
	window_reset(&L.win[0], start, 0);
	window_reset(&L.win[1], start, 0);
	t = fss_tracer_open(&to, err, sizeof(err));
	if (!t) {
		fprintf(stderr, PROG ": %s\n", err);
		rc = 1;
		goto out;
	}
	start = mono_ns();
	pthread_mutex_lock(&L.lock);
	window_reset(&L.win[0], start, fss_tracer_drops(t));
	window_reset(&L.win[1], start, fss_tracer_drops(t));
	pthread_mutex_unlock(&L.lock);
	if (env.cmd && (rc = fss_child_release(&child, err, sizeof(err)))) {
		fprintf(stderr, PROG ": %s\n", err);
		rc = fss_child_exec_code(-rc);
		goto out;
	}

	describe_targets(what, sizeof(what), cg);
	{
		struct json_object *st = fss_tracer_strategy_json(t), *jv;

		L.journal_na = json_object_object_get_ex(st, "journal", &jv) &&
			       !strcmp(json_object_get_string(jv), "n/a");
		json_object_put(st);
	}
	if (env.verbose)
		fss_tracer_print_strategy(t, stderr);
	if (env.json) {
		struct json_object *o = json_object_new_object();

		fss_doc_stamp(o, "trace");
		json_object_object_add(o, "type", json_object_new_string("start"));
		json_object_object_add(o, "version", json_object_new_string(fss_version));
		json_object_object_add(o, "filters", filters_json(cg, fs_dev, disk_dev));
		json_object_object_add(o, "command", cmd_json(env.cmd));
		json_object_object_add(o, "interval_s", env.interval ?
				       json_object_new_double(env.interval) : NULL);
		json_object_object_add(o, "duration_s", env.duration ?
				       json_object_new_double(env.duration) : NULL);
		json_object_object_add(o, "slower_ms", L.slower ?
				       json_object_new_double(env.slower_ms) : NULL);
		json_object_object_add(o, "strategy", fss_tracer_strategy_json(t));
		fprintf(L.out, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
	} else if (L.slower) {
		printf("TIME PID COMM KIND TOTAL FILE (on its own line when long)\n");
		printf("%8s ms per phase: fs, journal, queue, device_write, device_flush, other\n", "");
	}
	fflush(L.out);
	fprintf(stderr, "fsyncscope: tracing %s (%s)\n", what, env.cmd ?
		"until it exits" : "Ctrl-C to stop");

	if (env.duration)
		end = start + (__u64)(env.duration * 1e9);
	if (env.interval)
		next = start + (__u64)(env.interval * 1e9);

	while (!stop) {
		__u64 wake = 0;
		struct timespec ts;

		if (next)
			wake = next;
		if (end && (!wake || end < wake))
			wake = end;
		now = mono_ns();
		if (wake) {
			__u64 d = wake > now ? wake - now : 0;

			ts.tv_sec = d / NSEC;
			ts.tv_nsec = d % NSEC;
			sig = sigtimedwait(&sigs, &si, &ts);
		} else {
			sig = sigwaitinfo(&sigs, &si);
		}
		if (sig > 0 && env.cmd) {
			nsig += sig != SIGCHLD;
			stop = cmd_signal(&child, sig, &si, nsig, &rc);
		} else if (sig > 0) {
			stop = true;
		} else if (errno == EINTR) {
			continue;
		}
		now = mono_ns();
		if (end && now >= end)
			stop = true;
		if (next && (now >= next || stop)) {
			struct report_ctx rc2 = { "interval", ++index, 0, 0 };

			live_flush(t);
			pthread_mutex_lock(&L.lock);
			if (!stop || L.win[0].all.syncs || now >= next) {
				resolve_late(0);
				rc2.seconds = (now - L.win[0].start_ns) / 1e9;
				rc2.drops = fss_tracer_drops(t) - L.win[0].drops_at_start;
				emit_report(t, 0, &rc2);
			}
			window_reset(&L.win[0], now, fss_tracer_drops(t));
			pthread_mutex_unlock(&L.lock);
			while (next <= now)
				next += (__u64)(env.interval * 1e9);
			if (env.count && index >= env.count)
				stop = true;
		}
	}

	/* the summary of the whole run */
	{
		struct report_ctx rc2 = { "summary", 0, 0, 0, -1 };

		if (env.cmd && !child.pid)
			rc2.cmd_status = rc;

		live_flush(t);
		now = mono_ns();
		pthread_mutex_lock(&L.lock);
		resolve_late(1);
		rc2.seconds = (now - L.win[1].start_ns) / 1e9;
		rc2.drops = fss_tracer_drops(t) - L.win[1].drops_at_start;
		emit_report(t, 1, &rc2);
		pthread_mutex_unlock(&L.lock);
	}
out:
	if (child.pid && (child.go_fd >= 0 || !t))
		fss_child_abort(&child);	/* never released: not run */
	else if (child.pid)
		fprintf(stderr, PROG ": %s (pid %d) still runs, no longer traced\n",
			env.cmd[0], (int)child.pid);
	fss_tracer_close(t);
	pthread_mutex_lock(&L.lock);
	window_reset(&L.win[0], 0, 0);
	window_reset(&L.win[1], 0, 0);
	names_free();
	pthread_mutex_unlock(&L.lock);
	rc = close_outputs(rc);
	pthread_sigmask(SIG_UNBLOCK, &sigs, NULL);
	return rc;
}
