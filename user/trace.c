// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * trace.c - the tracer: strategy probing, loading, attaching, calibration,
 * ring-buffer consumption, and the hand-off to the attribution engine.
 *
 * Strategy is chosen at run time by trying, never by kernel version:
 *  - probe.bpf.o: a one-instruction fentry and kprobe program are loaded
 *    and attached to vfs_fsync_range to learn whether this kernel allows
 *    them at all;
 *  - the main object is loaded with the chosen filesystem hook set enabled
 *    (fentry, kprobe or tracepoint) and the block set (tp_btf, else
 *    raw_tp); a load failure falls back to the next set in auto mode;
 *  - calibration syncs on a scratch file then show which hooks really
 *    fire; hooks that attached but never fired are dropped.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/mount.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "trace.h"
#include "attr.h"
#include "blame.h"
#include "devinfo.h"
#include "fsyncscope.skel.h"
#include "scratch.h"
#include "probe.skel.h"

#define POLL_INTERVAL_MS	20
#define DRAIN_LAG_NS		(300ULL * 1000 * 1000)
#define SETTLE_MAX_MS		20
/* A sync in flight for longer than this no longer holds old events. */
#define HOLD_MAX_NS		(60ULL * 1000 * 1000 * 1000)

enum layer { L_SYNC, L_FS, L_JOURNAL, L_BLOCK, L_NVME, L_MAX };
static const char *layer_names[L_MAX] = { "sync", "fs", "journal", "block", "nvme" };

/* Hook sets: which programs a layer can use. */
enum hookset {
	HS_SYSCALL_TP,		/* sync: syscall tracepoints */
	HS_FS_TP, HS_FS_FENTRY, HS_FS_KPROBE,
	HS_JOURNAL_TP,
	HS_BLOCK_BTF, HS_BLOCK_RAW,
	HS_NVME_BTF,
	HS_BLAME,		/* blame.bpf.c: loads only with opts.blame */
	HS_MAX,
};
static const char *hookset_names[HS_MAX] = {
	"tracepoint", "tracepoint", "fentry", "kprobe", "tracepoint",
	"tp_btf", "raw_tp", "tp_btf", "tracepoint+tp_btf",
};

struct prog_info {
	struct bpf_program *prog;
	enum layer layer;
	enum hookset set;
	const char *fs;		/* "ext4", "xfs", "btrfs" or NULL */
	bool required;		/* attach failure is fatal */
	struct bpf_link *link;
	int attach_err;
};

#define MAX_PROGS 64

struct fss_tracer {
	struct fss_trace_opts opts;
	struct fsyncscope_bpf *skel;
	struct ring_buffer *rb;
	struct prog_info progs[MAX_PROGS];
	int nprogs;

	enum hookset layer_set[L_MAX];
	char layer_desc[L_MAX][160];	/* what is used, or "n/a: why" */
	bool layer_ok[L_MAX];
	char probe_fentry[128], probe_kprobe[128];
	struct json_object *calib;
	double setup_ms;		/* open: launch of the tracer -> calibrated */
	bool floor_only;		/* FSYNCSCOPE_FLOOR=1: programs only count */

	pthread_t thread;
	bool thread_started;
	volatile bool stop;
	pthread_mutex_t lock;		/* rb consumption, attr, collector */
	bool collecting;
	__u64 window_start;
	char test_name[128];
	struct fss_attr *attr;
	struct fss_blame *blame;	/* NULL: blame off or n/a */
	bool blame_on;			/* its programs loaded and attached */
	char blame_desc[160];		/* what blame uses, or "n/a: why" */
	struct fss_blame_list blame_list;	/* of the sync being reported */
	struct fss_collector *coll;
	__u64 drops_at_begin;
	__u64 hits_at_begin[FSS_HOOK_MAX];
	int add_errors;

	/* fs dev -> disk dev cache for the attribution engine */
	struct { __u32 fs, disk; } disk_cache[32];
	int ndisk_cache;
};

static int verbose_level;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && verbose_level < 3)
		return 0;
	if (verbose_level < 2)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int fss_strategy_parse(const char *s, enum fss_strategy *out)
{
	static const char *names[] = { "auto", "fentry", "kprobe", "tracepoint" };

	for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(s, names[i])) {
			*out = i;
			return 0;
		}
	}
	return -1;
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* ---- kernel facts from BTF ---- */

static struct btf *vmlinux_btf;

static struct btf *load_vmlinux_btf(void)
{
	if (!vmlinux_btf)
		vmlinux_btf = btf__load_vmlinux_btf();
	return libbpf_get_error(vmlinux_btf) ? NULL : vmlinux_btf;
}

/* Is `name` of `kind` in vmlinux BTF or any loaded module's BTF? */
static bool kernel_btf_lookup(const char *name, int kind)
{
	struct btf *base = load_vmlinux_btf();
	bool found = false;
	DIR *d;
	struct dirent *de;

	if (!base)
		return false;
	if (btf__find_by_name_kind(base, name, kind) > 0)
		return true;
	d = opendir("/sys/kernel/btf");
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		char path[300];
		struct btf *m;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "vmlinux"))
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/btf/%s", de->d_name);
		m = btf__parse_split(path, base);
		if (libbpf_get_error(m))
			continue;
		found = btf__find_by_name_kind(m, name, kind) > 0;
		btf__free(m);
	}
	closedir(d);
	return found;
}

/*
 * Answers are remembered, so that all questions can be asked before the
 * main object is loaded and the parsed vmlinux BTF (several MiB) freed:
 * libbpf parses its own copy during load, and both at once doubled the
 * peak RSS.
 */
static struct { char name[64]; int kind; bool found; } btf_memo[24];
static int btf_nmemo;

static bool kernel_btf_has(const char *name, int kind)
{
	bool found;

	for (int i = 0; i < btf_nmemo; i++)
		if (btf_memo[i].kind == kind && !strcmp(btf_memo[i].name, name))
			return btf_memo[i].found;
	found = kernel_btf_lookup(name, kind);
	if (btf_nmemo < (int)(sizeof(btf_memo) / sizeof(btf_memo[0]))) {
		snprintf(btf_memo[btf_nmemo].name, sizeof(btf_memo[0].name), "%s", name);
		btf_memo[btf_nmemo].kind = kind;
		btf_memo[btf_nmemo].found = found;
		btf_nmemo++;
	}
	return found;
}

static void free_vmlinux_btf(void)
{
	if (vmlinux_btf && !libbpf_get_error(vmlinux_btf))
		btf__free(vmlinux_btf);
	vmlinux_btf = NULL;
}

/*
 * Classic tracepoints are attached by id, read from tracefs; on a fresh
 * machine nothing may have mounted it yet.
 */
static int ensure_tracefs(char *err, size_t errlen)
{
	struct stat st;

	if (!stat("/sys/kernel/tracing/events", &st) ||
	    !stat("/sys/kernel/debug/tracing/events", &st))
		return 0;
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) &&
	    stat("/sys/kernel/tracing/events", &st)) {
		snprintf(err, errlen, "tracefs is not mounted and mounting it on /sys/kernel/tracing failed: %s",
			 strerror(errno));
		return -errno;
	}
	return 0;
}

/* ---- feature probes ---- */

static int probe_one(bool fentry, char *why, size_t whylen)
{
	struct probe_bpf *p = probe_bpf__open();
	struct bpf_link *l;
	int err;

	if (!p) {
		snprintf(why, whylen, "cannot open probe object: %s", strerror(errno));
		return -errno;
	}
	bpf_program__set_autoload(p->progs.probe_fentry, fentry);
	bpf_program__set_autoload(p->progs.probe_kprobe, !fentry);
	err = probe_bpf__load(p);
	if (err) {
		snprintf(why, whylen, "load refused: %s", strerror(-err));
		goto out;
	}
	l = bpf_program__attach(fentry ? p->progs.probe_fentry : p->progs.probe_kprobe);
	err = libbpf_get_error(l);
	if (err) {
		snprintf(why, whylen, "attach failed: %s", strerror(-err));
		goto out;
	}
	bpf_link__destroy(l);
	snprintf(why, whylen, "ok");
out:
	probe_bpf__destroy(p);
	return err;
}

/* ---- program classification ---- */

static const char *fs_of(const char *name)
{
	if (strstr(name, "ext4"))
		return "ext4";
	if (strstr(name, "btrfs"))
		return "btrfs";
	if (strstr(name, "xfs_file_fsync"))
		return "xfs";
	return NULL;
}

static const char *fs_func(const char *fs)
{
	if (!strcmp(fs, "ext4"))
		return "ext4_sync_file";
	if (!strcmp(fs, "xfs"))
		return "xfs_file_fsync";
	return "btrfs_sync_file";
}

static void classify(struct fss_tracer *t)
{
	struct bpf_program *prog;

	t->nprogs = 0;
	bpf_object__for_each_program(prog, t->skel->obj) {
		struct prog_info *pi;
		const char *n = bpf_program__name(prog);

		if (t->nprogs >= MAX_PROGS)
			break;
		pi = &t->progs[t->nprogs++];
		memset(pi, 0, sizeof(*pi));
		pi->prog = prog;
		pi->fs = fs_of(n);
		if (!strncmp(n, "sys_", 4)) {
			pi->layer = L_SYNC;
			pi->set = HS_SYSCALL_TP;
			pi->required = strstr(n, "fsync") != NULL; /* fsync, fdatasync */
		} else if (!strncmp(n, "follow_", 7)) {
			/* follow.bpf.c: the tgids filter follows forks */
			pi->layer = L_SYNC;
			pi->set = HS_SYSCALL_TP;
			pi->fs = NULL;
			pi->required = true;
		} else if (!strncmp(n, "iou_", 4)) {
			/* io_uring fsync requests (iouring.bpf.c): optional */
			pi->layer = L_SYNC;
			pi->set = HS_SYSCALL_TP;
			pi->fs = NULL;
		} else if (!strncmp(n, "blame_", 6)) {
			pi->layer = L_JOURNAL;	/* attached on their own */
			pi->set = HS_BLAME;
			pi->fs = NULL;
		} else if (!strncmp(n, "tp_jbd2_", 8) || !strcmp(n, "tp_xfs_log_force")) {
			pi->layer = L_JOURNAL;
			pi->set = HS_JOURNAL_TP;
			pi->fs = NULL;
		} else if (!strncmp(n, "tp_", 3)) {
			pi->layer = L_FS;
			pi->set = HS_FS_TP;
		} else if (!strncmp(n, "fentry_", 7) || !strncmp(n, "fexit_", 6)) {
			pi->layer = L_FS;
			pi->set = HS_FS_FENTRY;
		} else if (!strncmp(n, "kprobe_", 7) || !strncmp(n, "kretprobe_", 10)) {
			pi->layer = L_FS;
			pi->set = HS_FS_KPROBE;
		} else if (!strncmp(n, "btf_nvme_", 9)) {
			pi->layer = L_NVME;
			pi->set = HS_NVME_BTF;
		} else if (!strncmp(n, "btf_", 4)) {
			pi->layer = L_BLOCK;
			pi->set = HS_BLOCK_BTF;
			pi->required = strstr(n, "issue") || strstr(n, "complete");
		} else {
			pi->layer = L_BLOCK;
			pi->set = HS_BLOCK_RAW;
			pi->required = strstr(n, "issue") || strstr(n, "complete");
		}
	}
}

static bool has_tracepoint_btf(const char *tp)
{
	char name[128];

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	return kernel_btf_has(name, BTF_KIND_TYPEDEF);
}

/* The sync kind a sync-layer program records (-1: not one). */
static int prog_sync_kind(const char *n)
{
	const char *s = !strncmp(n, "sys_enter_", 10) ? n + 10 :
			!strncmp(n, "sys_exit_", 9) ? n + 9 : NULL;

	if (!strncmp(n, "iou_", 4))
		return FSS_SYNC_IOURING_FSYNC;
	if (!s)
		return -1;
	if (!strcmp(s, "fsync"))
		return FSS_SYNC_FSYNC;
	if (!strcmp(s, "fdatasync"))
		return FSS_SYNC_FDATASYNC;
	if (!strcmp(s, "sync_file_range"))
		return FSS_SYNC_SYNC_FILE_RANGE;
	if (!strcmp(s, "syncfs"))
		return FSS_SYNC_SYNCFS;
	if (!strcmp(s, "msync"))
		return FSS_SYNC_MSYNC;
	return FSS_SYNC_DSYNC_WRITE;	/* write, pwrite64, writev, pwritev(2) */
}

/* Does this tracer want the sync-layer program n? */
static bool want_sync_prog(const struct fss_tracer *t, const char *n)
{
	int kind = prog_sync_kind(n);

	if (!t->opts.sync_kinds || kind < 0 ||
	    kind == FSS_SYNC_FSYNC || kind == FSS_SYNC_FDATASYNC)
		return true;
	return t->opts.sync_kinds & (1u << kind);
}

/*
 * Submitters come from block_io_start; kernels without it (before 6.5) use
 * block_bio_queue (FSYNCSCOPE_BLAME_BIO=1 forces that, for tests).
 */
static bool blame_by_bio(void)
{
	const char *e = getenv("FSYNCSCOPE_BLAME_BIO");

	return !has_tracepoint_btf("block_io_start") || (e && !strcmp(e, "1"));
}

/* Is the tracepoint a blame program needs in this kernel's BTF? */
static bool blame_prog_ok(const char *n)
{
	if (strstr(n, "rq_owner"))
		return !blame_by_bio();
	if (strstr(n, "bio_owner"))
		return blame_by_bio() && has_tracepoint_btf("block_bio_queue");
	if (strstr(n, "bio_split"))
		return blame_by_bio() && has_tracepoint_btf("block_split");
	if (strstr(n, "wb_"))
		return has_tracepoint_btf("writeback_single_inode_start") &&
		       has_tracepoint_btf("writeback_single_inode");
	if (strstr(n, "dirty"))
		return has_tracepoint_btf("writeback_dirty_inode_enqueue");
	return true;	/* jbd2 tracepoints: tracefs, attach says */
}

/*
 * Which programs load in this configuration.  fs_set: the filesystem hook
 * set; tracepoint fs programs always load so calibration can fall back to
 * them without reloading.
 */
static void set_autoload(struct fss_tracer *t, enum hookset fs_set, enum hookset blk_set,
			 bool nvme)
{
	for (int i = 0; i < t->nprogs; i++) {
		struct prog_info *pi = &t->progs[i];
		const char *n = bpf_program__name(pi->prog);
		bool on = false;

		switch (pi->set) {
		case HS_SYSCALL_TP:
			if (!strncmp(n, "follow_", 7)) {
				on = t->opts.follow_forks;
				break;
			}
			/* io_uring programs only where the kernel has io_uring */
			on = (strncmp(n, "iou_", 4) ||
			      kernel_btf_has("io_uring_op", BTF_KIND_ENUM)) &&
			     want_sync_prog(t, n);
			break;
		case HS_JOURNAL_TP:
		case HS_FS_TP:
			on = true;
			break;
		case HS_FS_FENTRY:
			/* a missing target function fails the whole load */
			on = fs_set == HS_FS_FENTRY &&
			     kernel_btf_has(fs_func(pi->fs), BTF_KIND_FUNC);
			break;
		case HS_FS_KPROBE:
			on = fs_set == HS_FS_KPROBE;
			break;
		case HS_BLOCK_BTF:
		case HS_BLOCK_RAW:
			on = pi->set == blk_set;
			if (on && strstr(n, "io_start"))
				on = has_tracepoint_btf("block_io_start");
			break;
		case HS_NVME_BTF:
			on = nvme;
			break;
		case HS_BLAME:
			on = t->blame_on && blame_prog_ok(n);
			break;
		default:
			break;
		}
		bpf_program__set_autoload(pi->prog, on);
	}
}

static int open_skel(struct fss_tracer *t)
{
	t->skel = fsyncscope_bpf__open();
	if (!t->skel)
		return -errno;
	t->skel->rodata->targ_tgid = t->opts.tgid;
	t->skel->rodata->targ_fs_dev = t->opts.fs_dev;
	t->skel->rodata->targ_disk_dev = t->opts.disk_dev;
	t->skel->rodata->targ_cgroup = t->opts.cgroup_id;
	t->skel->rodata->floor_only = t->floor_only;
	t->skel->rodata->filter_tgids = t->opts.ntgids > 0;
	t->skel->rodata->follow_forks = t->opts.follow_forks && t->opts.ntgids > 0;
	if (t->opts.comm)
		strncpy((char *)t->skel->rodata->targ_comm, t->opts.comm,
			sizeof(t->skel->rodata->targ_comm) - 1);
	classify(t);
	return 0;
}

static int attach_set(struct fss_tracer *t, enum layer layer, enum hookset set,
		      int *attached)
{
	int n = 0;

	for (int i = 0; i < t->nprogs; i++) {
		struct prog_info *pi = &t->progs[i];

		if (pi->layer != layer || pi->set != set || pi->link ||
		    !bpf_program__autoload(pi->prog))
			continue;
		pi->link = bpf_program__attach(pi->prog);
		pi->attach_err = libbpf_get_error(pi->link);
		if (pi->attach_err) {
			pi->link = NULL;
			if (t->opts.verbose)
				fprintf(stderr, "fsyncscope: %s: not attached (%s)\n",
					bpf_program__name(pi->prog), strerror(-pi->attach_err));
			if (pi->required)
				return pi->attach_err;
			continue;
		}
		n++;
	}
	*attached = n;
	return 0;
}

static void detach_set(struct fss_tracer *t, enum layer layer, enum hookset set)
{
	for (int i = 0; i < t->nprogs; i++) {
		struct prog_info *pi = &t->progs[i];

		if (pi->layer == layer && pi->set == set && pi->link) {
			bpf_link__destroy(pi->link);
			pi->link = NULL;
		}
	}
}

/* ---- consumption ---- */

static __u32 disk_of(__u32 fs_dev, void *arg)
{
	struct fss_tracer *t = arg;
	__u32 d;

	if (t->opts.fs_dev && fs_dev == t->opts.fs_dev && t->opts.disk_dev)
		return t->opts.disk_dev;
	for (int i = 0; i < t->ndisk_cache; i++)
		if (t->disk_cache[i].fs == fs_dev)
			return t->disk_cache[i].disk;
	d = fss_disk_of(fs_dev);
	if (t->ndisk_cache < (int)(sizeof(t->disk_cache) / sizeof(t->disk_cache[0]))) {
		t->disk_cache[t->ndisk_cache].fs = fs_dev;
		t->disk_cache[t->ndisk_cache].disk = d;
		t->ndisk_cache++;
	}
	return d;
}

static void on_sync(const struct fss_sync_result *res, void *arg)
{
	struct fss_tracer *t = arg;
	struct fss_sync_result with_blame;

	if (t->blame && !fss_blame_sync(t->blame, res, &t->blame_list)) {
		with_blame = *res;
		with_blame.blame = &t->blame_list;
		res = &with_blame;
	}

	if (t->opts.on_sync)
		t->opts.on_sync(res, t->opts.on_sync_arg);
	else
		fss_collector_add(res, t->coll);
	if (t->opts.events_out)
		fss_sync_result_write_json(t->opts.events_out, t->test_name, res);
}

static int handle_event(void *ctx, void *data, size_t size)
{
	struct fss_tracer *t = ctx;
	struct fss_event ev;
	__u32 type;

	if (size < sizeof(type))
		return 0;
	memcpy(&type, data, sizeof(type));
	if (type >= FSS_EV_RQ_START && type <= FSS_EV_RQ_REQUEUE) {
		struct fss_rq_event w;

		if (size < sizeof(w))
			return 0;
		memcpy(&w, data, sizeof(w));
		fss_rq_event_widen(&w, &ev);
	} else if (type == FSS_EV_RQ_OWNER) {
		struct fss_owner_event w;

		if (size < sizeof(w))
			return 0;
		memcpy(&w, data, sizeof(w));
		fss_owner_event_widen(&w, &ev);
	} else {
		if (size < sizeof(ev))
			return 0;
		memcpy(&ev, data, sizeof(ev));
	}
	if (verbose_level >= 4)
		fprintf(stderr, "ev type=%u tid=%u dev=%u:%u ts=%llu end=%llu id=%llx flags=%#x bytes=%u comm=%.16s\n",
			ev.type, ev.tid, ev.dev >> 20, ev.dev & 0xfffff,
			(unsigned long long)ev.ts, (unsigned long long)ev.ts_end,
			(unsigned long long)ev.rq.id, ev.rq.flags, ev.rq.bytes, ev.comm);
	if (!t->collecting || !t->attr)
		return 0;
	if (t->opts.on_event)
		t->opts.on_event(&ev, t->opts.on_event_arg);
	if (t->blame && ev.type != FSS_EV_SYNC)
		fss_blame_add(t->blame, &ev);
	if (ev.type >= FSS_EV_JHANDLE)	/* blame's own records */
		return 0;
	/* syncs that began before the window belong to no test */
	if (ev.type == FSS_EV_SYNC && ev.ts < t->window_start)
		return 0;
	if (fss_attr_add(t->attr, &ev) < 0)
		t->add_errors++;
	return 0;
}

/*
 * Tell the attribution engine about the oldest sync still in flight (the
 * BPF side stamps its start in .bss, read here without a system call), so
 * the requests at the start of a long sync are still there at its end.
 */
static void hold_inflight(struct fss_tracer *t, __u64 now)
{
	const volatile __u64 *v = t->skel->bss->inflight_start;
	__u64 oldest = 0;

	for (int i = 0; i < FSS_INFLIGHT_SLOTS; i++) {
		__u64 ts = v[i];

		if (ts && ts + HOLD_MAX_NS > now && (!oldest || ts < oldest))
			oldest = ts;
	}
	fss_attr_hold(t->attr, oldest);
}

static void *consumer(void *arg)
{
	struct fss_tracer *t = arg;
	struct timespec ts = { 0, POLL_INTERVAL_MS * 1000000L };
	struct sched_param sp = { 0 };

	/*
	 * Attribution runs only when a CPU would otherwise idle, so it never
	 * delays the wake-up of a traced thread; the ring buffer holds a few
	 * hundred ms of events at 10k syncs/s, and losses are counted.
	 */
	pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);
	pthread_setname_np(pthread_self(), "fss-consumer");

	while (!t->stop) {
		__u64 now;

		nanosleep(&ts, NULL);
		pthread_mutex_lock(&t->lock);
		/*
		 * The clock is read before the ring is: everything recorded
		 * before `now` is then consumed, however long this (idle
		 * priority) thread waits between the two.  Read after, a wait
		 * longer than the lag would paint syncs before the completions
		 * of requests in flight at their exit had been read.
		 */
		now = now_ns();
		ring_buffer__consume(t->rb);
		if (t->collecting && t->attr) {
			hold_inflight(t, now);
			if (now > DRAIN_LAG_NS)
				fss_attr_drain(t->attr, now - DRAIN_LAG_NS, on_sync, t);
		}
		pthread_mutex_unlock(&t->lock);
	}
	return NULL;
}

static __u64 read_percpu_sum(int fd, __u32 key)
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 sum = 0;
	__u64 *vals;

	if (ncpu <= 0)
		return 0;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return 0;
	if (!bpf_map_lookup_elem(fd, &key, vals))
		for (int i = 0; i < ncpu; i++)
			sum += vals[i];
	free(vals);
	return sum;
}

/*
 * Runs of our programs that the kernel skipped: a program does not run
 * inside itself on one CPU (a block completion in an interrupt that lands
 * while the same hook runs in a task, say), and classic tracepoint and
 * kprobe programs not inside any other one.  The kernel counts each skip in
 * the program's recursion_misses; each is an event we never saw.
 */
static __u64 prog_misses(struct fss_tracer *t)
{
	__u64 sum = 0;

	for (int i = 0; i < t->nprogs; i++) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(t->progs[i].prog);

		memset(&info, 0, sizeof(info));
		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
			sum += info.recursion_misses;
	}
	return sum;
}

/* Events lost: ring buffer full, state map full, program runs skipped. */
__u64 fss_tracer_drops(struct fss_tracer *t)
{
	int fd = bpf_map__fd(t->skel->maps.drops);

	return read_percpu_sum(fd, 0) + read_percpu_sum(fd, 1) + prog_misses(t);
}

static void read_hits(struct fss_tracer *t, __u64 *hits)
{
	int fd = bpf_map__fd(t->skel->maps.hook_hits);

	for (__u32 i = 0; i < FSS_HOOK_MAX; i++)
		hits[i] = read_percpu_sum(fd, i);
}

/* ---- calibration ---- */

static const char *hook_names[FSS_HOOK_MAX] = {
	"sys_fsync", "sys_fdatasync", "sys_other", "fs_tracepoint",
	"fs_fentry", "fs_kprobe", "jbd2", "xfs_log_force", "rq_start",
	"rq_issue", "rq_complete", "nvme", "rq_requeue",
};

static int calib_syncs(const char *dir, char *err, size_t errlen)
{
	struct fss_scratch s;
	char buf[4096];
	int fd, rc = 0;

	memset(buf, 0x5a, sizeof(buf));
	/* anonymous where O_TMPFILE works: a SIGKILL leaves nothing */
	rc = fss_scratch_open(&s, dir, FSS_SCRATCH_CALIB, -1);
	if (rc) {
		snprintf(err, errlen, "calibration: cannot create %s/%s%d: %s",
			 dir, FSS_SCRATCH_CALIB, getpid(), strerror(-rc));
		return rc;
	}
	fd = s.fd;
	/* one fsync of an append (journal work), three fdatasync overwrites */
	if (write(fd, buf, sizeof(buf)) != sizeof(buf) || fsync(fd))
		rc = -errno;
	for (int i = 0; !rc && i < 3; i++)
		if (pwrite(fd, buf, sizeof(buf), 0) != sizeof(buf) || fdatasync(fd))
			rc = -errno;
	fss_scratch_close(&s);
	if (rc)
		snprintf(err, errlen, "calibration: sync on %s failed: %s", dir, strerror(-rc));
	return rc;
}

/* Calibration syncs with our own process let through, and the hits they made. */
static int calib_round(struct fss_tracer *t, __u64 *before, __u64 *after,
		       char *err, size_t errlen)
{
	struct timespec settle = { 0, 30 * 1000000L };
	int rc;

	read_hits(t, before);
	t->skel->bss->calib_tgid = getpid();
	rc = calib_syncs(t->opts.calib_dir, err, errlen);
	nanosleep(&settle, NULL);
	t->skel->bss->calib_tgid = 0;
	read_hits(t, after);
	return rc;
}

static enum hookset fs_hook_id_set(int hook)
{
	return hook == FSS_HOOK_FS_FENTRY ? HS_FS_FENTRY :
	       hook == FSS_HOOK_FS_KPROBE ? HS_FS_KPROBE : HS_FS_TP;
}

static int calibrate(struct fss_tracer *t, char *err, size_t errlen)
{
	__u64 before[FSS_HOOK_MAX], after[FSS_HOOK_MAX];
	struct json_object *hits, *dropped;
	int fs_hook, rc, n;
	struct stat st;

	if (!t->opts.calib_dir || stat(t->opts.calib_dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "calibration needs a directory on the traced filesystem");
		return -EINVAL;
	}
	/* named calibration files of tracers that were killed */
	fss_scratch_sweep(t->opts.calib_dir, stderr);
	rc = calib_round(t, before, after, err, errlen);
	if (rc)
		return rc;

	t->calib = json_object_new_object();
	hits = json_object_new_object();
	dropped = json_object_new_array();
	for (int i = 0; i < FSS_HOOK_MAX; i++)
		json_object_object_add(hits, hook_names[i],
				       json_object_new_int64(after[i] - before[i]));
	json_object_object_add(t->calib, "syncs", json_object_new_int(4));
	json_object_object_add(t->calib, "hits", hits);

	if (after[FSS_HOOK_SYS_FSYNC] - before[FSS_HOOK_SYS_FSYNC] < 1 ||
	    after[FSS_HOOK_SYS_FDATASYNC] - before[FSS_HOOK_SYS_FDATASYNC] < 3) {
		json_object_put(dropped);
		snprintf(err, errlen, "calibration: sync tracepoints attached but did not see the calibration syncs");
		return -ENOENT;
	}

	/* filesystem hooks: keep the chosen set only if it fired */
	fs_hook = t->layer_set[L_FS] == HS_FS_FENTRY ? FSS_HOOK_FS_FENTRY :
		  t->layer_set[L_FS] == HS_FS_KPROBE ? FSS_HOOK_FS_KPROBE : FSS_HOOK_FS_TP;
	if (t->layer_ok[L_FS] && after[fs_hook] == before[fs_hook]) {
		json_object_array_add(dropped, json_object_new_string(hook_names[fs_hook]));
		detach_set(t, L_FS, fs_hook_id_set(fs_hook));
		if (fs_hook != FSS_HOOK_FS_TP && t->opts.strategy == FSS_STRAT_AUTO) {
			/* attached but silent: fall back to the tracepoints, check again */
			if (!attach_set(t, L_FS, HS_FS_TP, &n) && n > 0) {
				rc = calib_round(t, before, after, err, errlen);
				if (!rc && after[FSS_HOOK_FS_TP] > before[FSS_HOOK_FS_TP]) {
					t->layer_set[L_FS] = HS_FS_TP;
					snprintf(t->layer_desc[L_FS], sizeof(t->layer_desc[L_FS]),
						 "tracepoint (%s attached but never fired)",
						 hookset_names[fs_hook_id_set(fs_hook)]);
				} else {
					detach_set(t, L_FS, HS_FS_TP);
					t->layer_ok[L_FS] = false;
				}
			} else {
				t->layer_ok[L_FS] = false;
			}
		} else {
			t->layer_ok[L_FS] = false;
		}
		if (!t->layer_ok[L_FS]) {
			if (t->opts.strategy == FSS_STRAT_FENTRY || t->opts.strategy == FSS_STRAT_KPROBE) {
				json_object_put(dropped);
				snprintf(err, errlen, "strategy %s: filesystem hooks attached but never fired during calibration",
					 hookset_names[fs_hook_id_set(fs_hook)]);
				return -ENOENT;
			}
			snprintf(t->layer_desc[L_FS], sizeof(t->layer_desc[L_FS]),
				 "n/a: no filesystem fsync hook fired on this filesystem");
		}
	}
	if (after[FSS_HOOK_RQ_ISSUE] == before[FSS_HOOK_RQ_ISSUE] && t->layer_ok[L_BLOCK]) {
		json_object_array_add(dropped, json_object_new_string("rq_issue"));
		snprintf(t->layer_desc[L_BLOCK], sizeof(t->layer_desc[L_BLOCK]),
			 "n/a: no block request seen for calibration syncs (no block device under %s?)",
			 t->opts.calib_dir);
		t->layer_ok[L_BLOCK] = false;
	}
	if (after[FSS_HOOK_JBD2] == before[FSS_HOOK_JBD2] &&
	    after[FSS_HOOK_XFS_LOG] == before[FSS_HOOK_XFS_LOG])
		json_object_object_add(t->calib, "journal_seen", json_object_new_boolean(false));
	else
		json_object_object_add(t->calib, "journal_seen", json_object_new_boolean(true));
	json_object_object_add(t->calib, "dropped_hooks", dropped);
	return 0;
}

/* ---- open / close ---- */

/* Blame's programs: optional, each on its own (docs/blame.md). */
static void attach_blame(struct fss_tracer *t)
{
	char missing[96] = "";
	size_t m = 0;
	int n = 0;

	if (!t->blame_on)
		return;
	attach_set(t, L_JOURNAL, HS_BLAME, &n);
	for (int i = 0; i < t->nprogs; i++) {
		struct prog_info *pi = &t->progs[i];

		if (pi->set == HS_BLAME && !pi->link && m < sizeof(missing) &&
		    bpf_program__autoload(pi->prog))
			m += snprintf(missing + m, sizeof(missing) - m, " %s",
				      bpf_program__name(pi->prog) + 6);
	}
	if (!n) {
		t->blame_on = false;
		snprintf(t->blame_desc, sizeof(t->blame_desc),
			 "n/a: no blame hook could be attached");
		return;
	}
	snprintf(t->blame_desc, sizeof(t->blame_desc), "%d hooks%s%s%s", n,
		 blame_by_bio() ? ", submitters from bios (no block_io_start)" :
		 "", m ? "; not attached:" : "", missing);
}

static int try_load(struct fss_tracer *t, enum hookset fs_set, enum hookset blk_set, bool nvme)
{
	int err = open_skel(t);

	if (err)
		return err;
	set_autoload(t, fs_set, blk_set, nvme);
	err = fsyncscope_bpf__load(t->skel);
	if (err) {
		fsyncscope_bpf__destroy(t->skel);
		t->skel = NULL;
	}
	if (err && t->blame_on) {	/* learned by trying: without blame */
		t->blame_on = false;
		snprintf(t->blame_desc, sizeof(t->blame_desc),
			 "n/a: the blame programs did not load (%s)",
			 strerror(-err));
		err = try_load(t, fs_set, blk_set, nvme);
		if (err)	/* not blame's fault: try it again next time */
			t->blame_on = true;
	}
	return err;
}

struct fss_tracer *fss_tracer_open(const struct fss_trace_opts *opts, char *err, size_t errlen)
{
	struct fss_tracer *t;
	enum hookset fs_try[3];
	int nfs = 0, rc = 0, n;
	bool fentry_ok, kprobe_ok, nvme;
	enum hookset blk_set = HS_BLOCK_BTF;
	const char *blk_env = getenv("FSYNCSCOPE_BLOCK_HOOKS");
	const char *floor_env = getenv("FSYNCSCOPE_FLOOR");
	__u64 t0 = now_ns();

	t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->opts = *opts;
	verbose_level = opts->verbose;
	t->blame_on = opts->blame;
	snprintf(t->blame_desc, sizeof(t->blame_desc), "off (--no-blame)");
	pthread_mutex_init(&t->lock, NULL);
	libbpf_set_print(libbpf_print);

	if (geteuid() != 0) {
		snprintf(err, errlen, "tracing needs root (CAP_BPF and CAP_PERFMON); use --no-trace to run the workload alone");
		goto fail;
	}

	if (ensure_tracefs(err, errlen))
		goto fail;

	/* what this kernel allows, learned by trying */
	fentry_ok = probe_one(true, t->probe_fentry, sizeof(t->probe_fentry)) == 0;
	kprobe_ok = probe_one(false, t->probe_kprobe, sizeof(t->probe_kprobe)) == 0;
	switch (opts->strategy) {
	case FSS_STRAT_FENTRY:
		if (!fentry_ok) {
			snprintf(err, errlen, "strategy fentry: fentry/fexit programs are not usable on this kernel (%s)",
				 t->probe_fentry);
			goto fail;
		}
		fs_try[nfs++] = HS_FS_FENTRY;
		break;
	case FSS_STRAT_KPROBE:
		if (!kprobe_ok) {
			snprintf(err, errlen, "strategy kprobe: kprobes are not usable on this kernel (%s)",
				 t->probe_kprobe);
			goto fail;
		}
		fs_try[nfs++] = HS_FS_KPROBE;
		break;
	case FSS_STRAT_TRACEPOINT:
		fs_try[nfs++] = HS_FS_TP;
		break;
	default:
		if (fentry_ok)
			fs_try[nfs++] = HS_FS_FENTRY;
		if (kprobe_ok)
			fs_try[nfs++] = HS_FS_KPROBE;
		fs_try[nfs++] = HS_FS_TP;
		break;
	}
	/*
	 * benchmark knob: the programs attach and count their hooks but
	 * record nothing (the cost floor of these attach points)
	 */
	if (floor_env && *floor_env && strcmp(floor_env, "0")) {
		if (strcmp(floor_env, "1")) {
			snprintf(err, errlen, "FSYNCSCOPE_FLOOR: '%s' is not 0 or 1", floor_env);
			goto fail;
		}
		t->floor_only = true;
		fprintf(stderr, "fsyncscope: FSYNCSCOPE_FLOOR=1: the BPF programs only count their hooks; nothing is recorded (a benchmark floor)\n");
	}
	/* test knob: start the block layer at its raw_tp fallback */
	if (blk_env && !strcmp(blk_env, "raw_tp"))
		blk_set = HS_BLOCK_RAW;
	else if (blk_env && *blk_env && strcmp(blk_env, "tp_btf")) {
		snprintf(err, errlen, "FSYNCSCOPE_BLOCK_HOOKS: '%s' is not tp_btf or raw_tp", blk_env);
		goto fail;
	}
	nvme = has_tracepoint_btf("nvme_setup_cmd") && has_tracepoint_btf("nvme_complete_rq");
	/* every BTF question set_autoload() and the report ask, then free it */
	has_tracepoint_btf("block_io_start");
	has_tracepoint_btf("writeback_single_inode_start");
	has_tracepoint_btf("writeback_single_inode");
	has_tracepoint_btf("writeback_dirty_inode_enqueue");
	has_tracepoint_btf("block_bio_queue");
	has_tracepoint_btf("block_split");
	kernel_btf_has("io_uring_op", BTF_KIND_ENUM);
	for (int i = 0; i < nfs; i++)
		if (fs_try[i] == HS_FS_FENTRY) {
			kernel_btf_has("ext4_sync_file", BTF_KIND_FUNC);
			kernel_btf_has("xfs_file_fsync", BTF_KIND_FUNC);
			kernel_btf_has("btrfs_sync_file", BTF_KIND_FUNC);
		}
	free_vmlinux_btf();

	for (int i = 0; i < nfs; i++) {
		rc = try_load(t, fs_try[i], blk_set, nvme);
		if (rc && blk_set == HS_BLOCK_BTF) {
			/* tp_btf refused: the raw_tp twins take the same arguments */
			blk_set = HS_BLOCK_RAW;
			rc = try_load(t, fs_try[i], blk_set, nvme);
		}
		if (rc && nvme) {
			nvme = false;
			rc = try_load(t, fs_try[i], blk_set, nvme);
		}
		if (!rc) {
			t->layer_set[L_FS] = fs_try[i];
			break;
		}
		if (opts->verbose)
			fprintf(stderr, "fsyncscope: %s hook set did not load: %s\n",
				hookset_names[fs_try[i]], strerror(-rc));
	}
	if (rc) {
		if (opts->strategy == FSS_STRAT_FENTRY || opts->strategy == FSS_STRAT_KPROBE)
			snprintf(err, errlen, "strategy %s: BPF programs failed to load: %s",
				 hookset_names[fs_try[0]], strerror(-rc));
		else
			snprintf(err, errlen, "BPF programs failed to load: %s (run with -vv for the verifier log)",
				 strerror(-rc));
		goto fail;
	}
	for (int i = 0; i < opts->ntgids; i++) {
		__u8 one = 1;

		if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.tgids), &opts->tgids[i], &one, BPF_ANY)) {
			snprintf(err, errlen, "cannot add pid %u to the filter: %s",
				 opts->tgids[i], strerror(errno));
			goto fail;
		}
	}
	t->layer_set[L_SYNC] = HS_SYSCALL_TP;
	t->layer_set[L_JOURNAL] = HS_JOURNAL_TP;
	t->layer_set[L_BLOCK] = blk_set;
	t->layer_set[L_NVME] = HS_NVME_BTF;

	/* attach layer by layer */
	rc = attach_set(t, L_SYNC, HS_SYSCALL_TP, &n);
	if (rc) {
		snprintf(err, errlen, "cannot attach the sync tracepoints: %s", strerror(-rc));
		goto fail;
	}
	t->layer_ok[L_SYNC] = true;
	snprintf(t->layer_desc[L_SYNC], sizeof(t->layer_desc[L_SYNC]),
		 "tracepoint (syscalls, %d hooks)", n);

	rc = attach_set(t, L_FS, t->layer_set[L_FS], &n);
	if ((rc || n == 0) && t->layer_set[L_FS] != HS_FS_TP) {
		detach_set(t, L_FS, t->layer_set[L_FS]);
		if (opts->strategy != FSS_STRAT_AUTO) {
			snprintf(err, errlen, "strategy %s: no filesystem hook could be attached",
				 hookset_names[t->layer_set[L_FS]]);
			goto fail;
		}
		t->layer_set[L_FS] = HS_FS_TP;
		rc = attach_set(t, L_FS, HS_FS_TP, &n);
	}
	t->layer_ok[L_FS] = !rc && n > 0;
	if (t->layer_ok[L_FS])
		snprintf(t->layer_desc[L_FS], sizeof(t->layer_desc[L_FS]), "%s (%d hooks)",
			 hookset_names[t->layer_set[L_FS]], n);
	else
		snprintf(t->layer_desc[L_FS], sizeof(t->layer_desc[L_FS]),
			 "n/a: no filesystem fsync hook could be attached");

	rc = attach_set(t, L_JOURNAL, HS_JOURNAL_TP, &n);
	t->layer_ok[L_JOURNAL] = !rc && n > 0;
	if (t->layer_ok[L_JOURNAL])
		snprintf(t->layer_desc[L_JOURNAL], sizeof(t->layer_desc[L_JOURNAL]),
			 "tracepoint (jbd2, xfs log; %d hooks)", n);
	else
		snprintf(t->layer_desc[L_JOURNAL], sizeof(t->layer_desc[L_JOURNAL]),
			 "n/a: no jbd2 or xfs log tracepoint could be attached");

	attach_blame(t);

	rc = attach_set(t, L_BLOCK, blk_set, &n);
	if (rc) {
		snprintf(err, errlen, "cannot attach the block request tracepoints: %s", strerror(-rc));
		goto fail;
	}
	t->layer_ok[L_BLOCK] = true;
	snprintf(t->layer_desc[L_BLOCK], sizeof(t->layer_desc[L_BLOCK]), "%s (%d hooks%s)",
		 hookset_names[blk_set], n,
		 has_tracepoint_btf("block_io_start") ? "" : "; no block_io_start: queue time from inserts only");

	if (nvme) {
		rc = attach_set(t, L_NVME, HS_NVME_BTF, &n);
		t->layer_ok[L_NVME] = !rc && n == 2;
	}
	if (t->layer_ok[L_NVME])
		snprintf(t->layer_desc[L_NVME], sizeof(t->layer_desc[L_NVME]), "tp_btf (nvme_core)");
	else
		snprintf(t->layer_desc[L_NVME], sizeof(t->layer_desc[L_NVME]),
			 "n/a: %s", nvme ? "nvme tracepoints did not attach" :
			 "no nvme_core tracepoints in this kernel's BTF (no NVMe driver loaded)");

	t->rb = ring_buffer__new(bpf_map__fd(t->skel->maps.events), handle_event, t, NULL);
	if (!t->rb) {
		snprintf(err, errlen, "cannot create ring buffer: %s", strerror(errno));
		goto fail;
	}
	t->coll = fss_collector_new();
	if (!t->coll) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (pthread_create(&t->thread, NULL, consumer, t)) {
		snprintf(err, errlen, "cannot start the event consumer thread");
		goto fail;
	}
	t->thread_started = true;

	rc = calibrate(t, err, errlen);
	if (rc)
		goto fail;
	/* libbpf's parsed BTF and ELF are freed by now: give the pages back */
	malloc_trim(0);
	t->setup_ms = (now_ns() - t0) / 1e6;
	if (opts->live && fss_tracer_begin(t, "live")) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	return t;
fail:
	fss_tracer_close(t);
	return NULL;
}

static void *link_destroyer(void *arg)
{
	bpf_link__destroy(arg);
	return NULL;
}

/*
 * Detach every program.  Closing a classic tracepoint's perf event waits
 * for an RCU grace period; one after the other, ~30 of them took ~2 s.
 * Closed from one thread each, the waits overlap and share grace periods.
 */
static void detach_all(struct fss_tracer *t)
{
	pthread_t th[MAX_PROGS];
	bool started[MAX_PROGS] = { false };

	for (int i = 0; i < t->nprogs; i++) {
		if (!t->progs[i].link)
			continue;
		started[i] = !pthread_create(&th[i], NULL, link_destroyer, t->progs[i].link);
		if (!started[i])
			bpf_link__destroy(t->progs[i].link);
		t->progs[i].link = NULL;
	}
	for (int i = 0; i < t->nprogs; i++)
		if (started[i])
			pthread_join(th[i], NULL);
}

/* At exit: blame records lost or history overrun make blame incomplete. */
static void blame_warn(struct fss_tracer *t)
{
	struct fss_blame_stats st;
	__u64 lost;

	if (!t->blame_on || !t->skel)
		return;
	lost = read_percpu_sum(bpf_map__fd(t->skel->maps.drops), 2);
	fss_blame_stats(t->blame, &st);
	if (lost)
		fprintf(stderr, "fsyncscope: blame: %llu records lost (ring buffer "
			"full): the blame of syncs near them is incomplete\n",
			(unsigned long long)lost);
	if (st.log_overrun)
		fprintf(stderr, "fsyncscope: blame: %llu syncs reached past the "
			"request history; their flush blame is partial\n",
			(unsigned long long)st.log_overrun);
}

void fss_tracer_close(struct fss_tracer *t)
{
	if (!t)
		return;
	if (t->thread_started) {
		t->stop = true;
		pthread_join(t->thread, NULL);
	}
	detach_all(t);
	ring_buffer__free(t->rb);
	if (t->skel)
		fsyncscope_bpf__destroy(t->skel);
	if (t->attr)
		fss_attr_free(t->attr);
	blame_warn(t);
	fss_blame_free(t->blame);
	if (t->coll)
		fss_collector_free(t->coll);
	if (t->calib)
		json_object_put(t->calib);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

/* ---- per-test windows ---- */

int fss_tracer_begin(struct fss_tracer *t, const char *test_name)
{
	struct fss_attr_opts ao = { .disk_of = disk_of, .disk_of_arg = t,
				    .detail = t->opts.events_out &&
					      t->opts.events_detail };
	int rc = 0;

	pthread_mutex_lock(&t->lock);
	/* whatever is buffered belongs to before this test */
	ring_buffer__consume(t->rb);
	if (t->attr)
		fss_attr_free(t->attr);
	t->attr = fss_attr_new(&ao);
	if (!t->attr)
		rc = -ENOMEM;
	fss_blame_free(t->blame);
	t->blame = NULL;
	if (t->blame_on) {
		struct fss_blame_opts bo = { .disk_of = disk_of,
					     .disk_of_arg = t };

		t->blame = fss_blame_new(&bo);
		if (!t->blame)
			rc = -ENOMEM;
	}
	fss_collector_reset(t->coll);
	snprintf(t->test_name, sizeof(t->test_name), "%s", test_name ? test_name : "");
	t->drops_at_begin = fss_tracer_drops(t);
	read_hits(t, t->hits_at_begin);
	t->add_errors = 0;
	t->window_start = now_ns();
	t->collecting = rc == 0;
	pthread_mutex_unlock(&t->lock);
	return rc;
}

/*
 * Requests still in flight when the test's last sync returned (a flush
 * another process started inside its window, say) complete a moment
 * later: wait for their completions, at most SETTLE_MAX_MS, so the last
 * syncs are not painted with requests that look unfinished.  Called with
 * t->lock held; the consumer thread waits meanwhile.
 */
static void settle(struct fss_tracer *t)
{
	struct timespec ts = { 0, 1000000L };

	for (int i = 0; i < SETTLE_MAX_MS && fss_attr_open_rqs(t->attr); i++) {
		nanosleep(&ts, NULL);
		ring_buffer__consume(t->rb);
	}
}

int fss_tracer_end(struct fss_tracer *t, struct fss_breakdown *out)
{
	struct fss_flush_stats fst = {};
	int rc = 0;

	pthread_mutex_lock(&t->lock);
	if (!t->collecting || !t->attr) {
		pthread_mutex_unlock(&t->lock);
		return -EINVAL;
	}
	/* everything the kernel recorded up to now */
	while (ring_buffer__consume(t->rb) > 0)
		;
	settle(t);
	rc = fss_attr_drain(t->attr, UINT64_MAX, on_sync, t);
	fss_attr_flush_stats(t->attr, &fst);
	fss_collector_breakdown(t->coll, &fst, fss_tracer_drops(t) - t->drops_at_begin, out);
	{
		__u64 hits[FSS_HOOK_MAX];

		/* measured, not assumed: issues seen but no creation/insert */
		read_hits(t, hits);
		out->no_rq_start = hits[FSS_HOOK_RQ_START] == t->hits_at_begin[FSS_HOOK_RQ_START] &&
				   hits[FSS_HOOK_RQ_ISSUE] > t->hits_at_begin[FSS_HOOK_RQ_ISSUE];
	}
	t->collecting = false;
	fss_attr_free(t->attr);
	t->attr = NULL;
	if (t->opts.events_out)
		fflush(t->opts.events_out);
	pthread_mutex_unlock(&t->lock);
	return rc < 0 ? rc : 0;
}

int fss_tracer_hists(struct fss_tracer *t, struct fss_hist *out)
{
	int i;

	if (!t || !out)
		return -EINVAL;
	pthread_mutex_lock(&t->lock);
	for (i = 0; i < FSS_COLL_NHIST; i++)
		out[i] = *fss_collector_hist(t->coll, i);
	pthread_mutex_unlock(&t->lock);
	return 0;
}

int fss_tracer_live_flush(struct fss_tracer *t, struct fss_flush_stats *flush)
{
	int rc;

	pthread_mutex_lock(&t->lock);
	if (!t->collecting || !t->attr) {
		pthread_mutex_unlock(&t->lock);
		return -EINVAL;
	}
	while (ring_buffer__consume(t->rb) > 0)
		;
	/* syncs still running have no SYNC record yet: what they overlap stays */
	hold_inflight(t, now_ns());
	rc = fss_attr_drain(t->attr, now_ns(), on_sync, t);
	if (flush) {
		fss_attr_flush_stats(t->attr, flush);
		fss_attr_reset_stats(t->attr);
	}
	if (t->opts.events_out)
		fflush(t->opts.events_out);
	pthread_mutex_unlock(&t->lock);
	return rc;
}

/* ---- reporting the strategy ---- */

struct json_object *fss_tracer_strategy_json(struct fss_tracer *t)
{
	static const char *req_names[] = { "auto", "fentry", "kprobe", "tracepoint" };
	struct json_object *o = json_object_new_object();
	struct json_object *layers = json_object_new_object();
	struct json_object *probes = json_object_new_object();

	json_object_object_add(o, "requested", json_object_new_string(req_names[t->opts.strategy]));
	for (int l = 0; l < L_MAX; l++) {
		struct json_object *lo = json_object_new_object();

		json_object_object_add(lo, "hooks", t->layer_ok[l] ?
				       json_object_new_string(hookset_names[t->layer_set[l]]) : NULL);
		json_object_object_add(lo, "detail", json_object_new_string(t->layer_desc[l]));
		json_object_object_add(layers, layer_names[l], lo);
		/* flat "layer": "hookset" for scripts */
		json_object_object_add(o, layer_names[l], t->layer_ok[l] ?
				       json_object_new_string(hookset_names[t->layer_set[l]]) :
				       json_object_new_string("n/a"));
	}
	json_object_object_add(o, "layers", layers);
	json_object_object_add(probes, "fentry", json_object_new_string(t->probe_fentry));
	json_object_object_add(probes, "kprobe", json_object_new_string(t->probe_kprobe));
	json_object_object_add(o, "probes", probes);
	json_object_object_add(o, "calibration", t->calib ? json_object_get(t->calib) : NULL);
	json_object_object_add(o, "setup_ms", json_object_new_double(t->setup_ms));
	json_object_object_add(o, "blame", json_object_new_string(t->blame_desc));
	if (t->floor_only)	/* FSYNCSCOPE_FLOOR=1: nothing was recorded */
		json_object_object_add(o, "floor_only", json_object_new_boolean(true));
	return o;
}

void fss_tracer_print_strategy(struct fss_tracer *t, FILE *f)
{
	fprintf(f, "probes: fentry %s; kprobe %s\n", t->probe_fentry, t->probe_kprobe);
	for (int l = 0; l < L_MAX; l++)
		fprintf(f, "  %-8s %s\n", layer_names[l], t->layer_desc[l]);
	fprintf(f, "  %-8s %s\n", "blame", t->blame_desc);
	fprintf(f, "set-up: %.1f ms\n", t->setup_ms);
	if (t->calib)
		fprintf(f, "calibration: %s\n",
			json_object_to_json_string_ext(t->calib, JSON_C_TO_STRING_PLAIN));
}
