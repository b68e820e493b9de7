// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * trace.c - the tracer: open (strategy.c picks and attaches the hooks,
 * calib.c checks them), ring-buffer consumption in a background thread,
 * and the hand-off to the attribution engine.  The tracer is a sink: each
 * attributed sync goes to opts.on_sync; what is made of it (a collector,
 * --events lines, metrics) is the caller's.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "engine/tracer/tracer_int.h"
#include "sys/devinfo.h"
#include "sys/fsnote.h"

#define POLL_INTERVAL_MS	20
#define DRAIN_LAG_NS		(300ULL * 1000 * 1000)
#define SETTLE_MAX_MS		20
/* A sync in flight for longer than this no longer holds old events. */
#define HOLD_MAX_NS		(60ULL * 1000 * 1000 * 1000)

static int verbose_level;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && verbose_level < 3)
		return 0;
	if (verbose_level < 2)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
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

/*
 * Never half a sync, after its exit too: the kernel summarizes a sync
 * near a record lost before it returned (bpf/common.bpf.h); a request it
 * was painted with can still lose its completion after that (another
 * thread's flush in flight at its exit).  Such a sync, painted with a
 * request with no completion while records were being lost, is counted
 * as summarized (FSS_SUMM_LOST_AFTER) instead of handed on.
 */
static bool demote(struct fss_tracer *t, const struct fss_sync_result *res)
{
	__u64 lost = t->skel->bss->last_loss_ns;

	if (!res->nr_incomplete || !lost ||
	    lost + t->skel->rodata->loss_grace_ns < res->start ||
	    res->kind >= FSS_SYNC_KIND_MAX)
		return false;
	summ_demote(t, res->kind, FSS_SUMM_LOST_AFTER, res->total);
	return true;
}

/* Each attributed sync, with its blame when blame is on, to opts.on_sync. */
static void on_sync(const struct fss_sync_result *res, void *arg)
{
	struct fss_tracer *t = arg;
	struct fss_sync_result with_blame;

	if (demote(t, res))
		return;
	if (kp_live(t))
		fss_kp_note(&t->kp, res);

	if (t->blame && !fss_blame_sync(t->blame, res, &t->blame_list)) {
		with_blame = *res;
		with_blame.blame = &t->blame_list;
		res = &with_blame;
	}
	if (t->opts.on_sync)
		t->opts.on_sync(res, t->opts.on_sync_arg);
}

/*
 * Does blame want the records of dev?  Filtered tracing: the kernel only
 * sends those.  Unfiltered: the devs of traced syncs (blame_dev_seen), so
 * a request storm elsewhere costs the consumer nothing either.
 */
static bool blame_wants(const struct fss_tracer *t, __u32 dev)
{
	if (t->opts.fs_dev || t->opts.disk_dev)
		return true;
	for (int i = 0; i < t->nblame_devs; i++)
		if (t->blame_devs[i] == dev)
			return true;
	return false;
}

/*
 * Unfiltered tracing: a traced sync on fs dev turns on blame's records for
 * it and its disk (bpf/blame.bpf.c, blame_dev_filter); its own blame and
 * that of syncs in the next moment lack what came before.
 */
static void blame_dev_seen(struct fss_tracer *t, __u32 dev)
{
	int fd = bpf_map__fd(t->skel->maps.blame_devs);
	__u8 one = 1;
	__u32 disk;

	if (t->opts.fs_dev || t->opts.disk_dev || blame_wants(t, dev) ||
	    t->nblame_devs + 2 > (int)(sizeof(t->blame_devs) /
				      sizeof(t->blame_devs[0])))
		return;
	t->blame_devs[t->nblame_devs++] = dev;
	bpf_map_update_elem(fd, &dev, &one, BPF_ANY);
	disk = disk_of(dev, t);
	if (disk && disk != dev) {
		t->blame_devs[t->nblame_devs++] = disk;
		bpf_map_update_elem(fd, &disk, &one, BPF_ANY);
	}
}

/* A filesystem in memory only: no block request can be its syncs'. */
static bool fs_in_memory(__u32 dev)
{
	static const char *const types[] = {
		"tmpfs", "ramfs", "devtmpfs", "hugetlbfs", "proc", "sysfs",
		"mqueue", "debugfs", "tracefs", "securityfs", "cgroup2",
		"cgroup", "bpf", "pstore", "configfs", "efivarfs",
	};
	char type[64];

	if (fss_fstype_of(dev, type, sizeof(type)))
		return false;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(type, types[i]))
			return true;
	return false;
}

/*
 * Unfiltered tracing: a traced sync on fs dev makes its disk one of
 * interest (bpf/common.bpf.h, rq_devs; the sync's entry did so already
 * when the kernel gave its file a disk).  A filesystem without a known
 * disk that is not one in memory (overlayfs, a network or FUSE fs: any
 * disk's requests may belong to its syncs), or more filesystems than the
 * table holds: every disk's requests, from now on.
 */
static void rq_dev_seen(struct fss_tracer *t, __u32 dev)
{
	__u8 one = 1;
	__u32 disk;

	if (!t->skel->rodata->rq_dev_filter || t->skel->bss->rq_dev_all || !dev)
		return;
	for (int i = 0; i < t->nrq_devs; i++)
		if (t->rq_devs[i] == dev)
			return;
	if (t->nrq_devs == (int)(sizeof(t->rq_devs) / sizeof(t->rq_devs[0]))) {
		t->skel->bss->rq_dev_all = 1;
		return;
	}
	disk = disk_of(dev, t);
	if (!disk && fs_in_memory(dev)) {
		t->rq_devs[t->nrq_devs++] = dev;	/* nothing to record */
		return;
	}
	if (!disk || bpf_map_update_elem(bpf_map__fd(t->skel->maps.rq_devs),
					 &disk, &one, BPF_ANY)) {
		t->skel->bss->rq_dev_all = 1;
		return;
	}
	t->rq_devs[t->nrq_devs++] = dev;
}

/*
 * The name of a pid no record named (its comm was sent before this run,
 * or while no test collected): its thread's comm, else its process's.
 */
static int comm_from_proc(__u32 pid, __u32 tid, char *comm, void *arg)
{
	char path[64];
	ssize_t n = -1;
	int fd;

	for (int i = 0; i < 2 && n <= 0; i++) {
		if (i == 0 && !tid)
			continue;
		if (i == 0)
			snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
		else
			snprintf(path, sizeof(path), "/proc/%u/comm", pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, comm, FSS_COMM_LEN - 1);
		close(fd);
	}
	if (n <= 0)
		return -ENOENT;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	return comm[0] ? 0 : -ENOENT;
}

/* One decoded event: to blame, to the attribution engine. */
static void dispatch_event(struct fss_tracer *t, const struct fss_event *ev)
{
	if (verbose_level >= 4)
		fprintf(stderr, "ev type=%u tid=%u dev=%u:%u ts=%llu end=%llu id=%llx flags=%#x bytes=%u comm=%.16s\n",
			ev->type, ev->tid, ev->dev >> 20, ev->dev & 0xfffff,
			(unsigned long long)ev->ts, (unsigned long long)ev->ts_end,
			(unsigned long long)ev->rq.id, ev->rq.flags, ev->rq.bytes, ev->comm);
	/*
	 * Comms before anything: the kernel sends one once, also between
	 * tests, and a later test's blame must still know it.
	 */
	if (ev->type == FSS_EV_COMM || ev->type == FSS_EV_JHANDLE ||
	    ev->type == FSS_EV_SYNC)
		fss_comms_note(t->comms, ev->pid, ev->comm);
	if (!t->collecting || !t->attr)
		return;
	if (t->opts.on_event)
		t->opts.on_event(ev, t->opts.on_event_arg);
	/*
	 * traced syncs: for blame's coalesced flushes (docs/blame.md); only
	 * they (unfiltered) turn recording and blame on for their fs and
	 * disk, a request or commit elsewhere does not
	 */
	if (t->blame && ev->type == FSS_EV_SYNC && ev->ts >= t->window_start)
		fss_blame_add(t->blame, ev);
	if (t->blame && ev->type != FSS_EV_SYNC &&
	    (ev->type == FSS_EV_COMM || blame_wants(t, ev->dev)))
		fss_blame_add(t->blame, ev);
	if (ev->type == FSS_EV_SYNC && ev->dev) {
		rq_dev_seen(t, ev->dev);
		if (t->blame)
			blame_dev_seen(t, ev->dev);
	}
	if (ev->type >= FSS_EV_JHANDLE)	/* blame's own records */
		return;
	/* syncs that began before the window belong to no test */
	if (ev->type == FSS_EV_SYNC && ev->ts < t->window_start)
		return;
	/*
	 * the kernel painter alone: counted, and reported when asked
	 * (opts.kernel_paint), else not attributed (FSYNCSCOPE_KPAINT=only, a
	 * benchmark); where it cannot paint, user space does
	 */
	if (ev->type == FSS_EV_SYNC && kp_alone(t)) {
		bool painted = fss_kp_note_kernel(&t->kp, ev->sync.kflags);

		if (t->kp_report)
			kp_report_sync(t, ev, painted);
		return;
	}
	if (fss_attr_add(t->attr, ev) < 0)
		t->add_errors++;
}

/*
 * An event a folded record held (or one handed on from the map, fold.h).
 * Per event, what was recorded before the window began was read and
 * dropped at its begin; folded, it may come later: dropped here.
 */
static void fold_emit(const struct fss_event *ev, void *arg)
{
	struct fss_tracer *t = arg;

	if (t->collecting && ev->ts < t->window_start)
		return;
	dispatch_event(t, ev);
}

/* A folded record: the events it holds, less those handed on already. */
static void handle_fold(struct fss_tracer *t, const void *data, size_t size)
{
	struct fss_event evs[FSS_FOLD_MAX_EVENTS];
	struct fss_rq_fold_event f;
	int n;

	if (!t->fold || fss_fold_read(data, size, &f))
		return;
	n = fss_fold_unfold(&f, fss_fold_arrived(t->fold, &f), evs);
	for (int i = 0; i < n; i++)
		fold_emit(&evs[i], t);
}

static int handle_event(void *ctx, void *data, size_t size)
{
	struct fss_tracer *t = ctx;
	struct fss_event ev, owner;
	__u32 type;

	if (size < sizeof(type))
		return 0;
	t->records++;
	memcpy(&type, data, sizeof(type));
	if (type == FSS_EV_RQ_FOLD) {
		handle_fold(t, data, size);
		return 0;
	}
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
	} else if (type == FSS_EV_RQ_START_OWNED) {
		struct fss_rq_owned_event w;

		if (size < sizeof(w))
			return 0;
		memcpy(&w, data, sizeof(w));
		fss_rq_owned_widen(&w, &ev, &owner);
		dispatch_event(t, &ev);
		dispatch_event(t, &owner);
		return 0;
	} else {
		if (size < sizeof(ev))
			return 0;
		memcpy(&ev, data, sizeof(ev));
		/* an overlay's sync is its upper filesystem's (fsalias.c) */
		if (ev.type == FSS_EV_SYNC && ev.dev &&
		    (alias_known(t, ev.dev) || !disk_of(ev.dev, t)))
			ev.dev = alias_of(t, ev.dev);
	}
	dispatch_event(t, &ev);
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

/*
 * Read the ring up to now; folded requests (fold.h): the events up to
 * horizon of those still in flight are handed on too, so a drain up to
 * horizon finds what the per-event transport would have given it.
 */
static void consume(struct fss_tracer *t, __u64 horizon)
{
	if (!t->fold || !t->collecting || !t->attr) {
		ring_buffer__consume(t->rb);
		return;
	}
	fss_fold_arm(t->fold, horizon, now_ns());
	ring_buffer__consume(t->rb);
	if (fss_fold_due(t->fold)) {
		if (fss_fold_snapshot(t->fold,
				      bpf_map__fd(t->skel->maps.rq_folds)))
			t->add_errors++;
		/* records sent between the two reads: not handed on twice */
		ring_buffer__consume(t->rb);
	}
	fss_fold_inject(t->fold, fold_emit, t);
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
	 * FSYNCSCOPE_CONSUMER=normal: it competes with the workload instead.
	 */
	if (!t->consumer_normal)
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
		consume(t, now > DRAIN_LAG_NS ? now - DRAIN_LAG_NS : 0);
		if (t->collecting && t->attr) {
			hold_inflight(t, now);
			if (now > DRAIN_LAG_NS)
				fss_attr_drain(t->attr, now - DRAIN_LAG_NS,
					       on_sync, t);
		}
		pthread_mutex_unlock(&t->lock);
	}
	return NULL;
}

/* ---- open / close ---- */

/* Only syncs of these processes (opts.tgids). */
static int open_filter(struct fss_tracer *t, char *err, size_t errlen)
{
	for (int i = 0; i < t->opts.ntgids; i++) {
		__u8 one = 1;

		if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.tgids),
					&t->opts.tgids[i], &one, BPF_ANY)) {
			snprintf(err, errlen, "cannot add pid %u to the filter: %s",
				 t->opts.tgids[i], strerror(errno));
			return -errno;
		}
	}
	return 0;
}

/* The ring buffer and the thread that consumes it. */
static int open_consumer(struct fss_tracer *t, char *err, size_t errlen)
{
	/*
	 * opts.kernel_paint where the kernel cannot paint: user space reads
	 * every request's records, so its consumer idles as by default
	 */
	if (!t->consumer_set && t->kp_report && !kp_alone(t))
		t->consumer_normal = false;
	t->rb = ring_buffer__new(bpf_map__fd(t->skel->maps.events),
				 handle_event, t, NULL);
	if (!t->rb) {
		snprintf(err, errlen, "cannot create ring buffer: %s", strerror(errno));
		return -errno;
	}
	if (pthread_create(&t->thread, NULL, consumer, t)) {
		snprintf(err, errlen, "cannot start the event consumer thread");
		return -EAGAIN;
	}
	t->thread_started = true;
	return 0;
}

struct fss_tracer *fss_tracer_open(const struct fss_trace_opts *opts,
				   char *err, size_t errlen)
{
	struct fss_tracer *t;
	struct strat_plan plan;
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
	t->comms = fss_comms_new();
	if (!t->comms) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}

	if (geteuid() != 0) {
		snprintf(err, errlen, "tracing needs root (CAP_BPF and CAP_PERFMON); use --no-trace to run the workload alone");
		goto fail;
	}
	if (strat_plan(t, &plan, err, errlen) ||
	    strat_load(t, &plan, err, errlen))
		goto fail;
	/* the overlays known before the first sync (fsalias.c) */
	alias_scan(t);
	if (open_filter(t, err, errlen) ||
	    strat_attach(t, &plan, err, errlen) ||
	    open_consumer(t, err, errlen) ||
	    calib_run(t, err, errlen))
		goto fail;
	if (fr_open(t)) {
		snprintf(err, errlen, "the flight recorder could not be "
			 "mapped: %s", strerror(errno));
		goto fail;
	}
	if (t->skel->rodata->rq_fold) {
		t->fold = fss_fold_new();
		if (!t->fold) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
	}
	calib_read_summ(t, t->summ_at_open);
	/* libbpf's parsed BTF and ELF are freed by now: give the pages back */
	malloc_trim(0);
	t->setup_ms = (now_ns() - t0) / 1e6;
	if (opts->live && fss_tracer_begin(t)) {
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
	lost = calib_blame_lost(t);
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
	if (t->opts.verbose)
		fprintf(stderr, "fsyncscope: ring records read: %llu (%s)\n",
			(unsigned long long)t->records,
			kp_alone(t) ? "no request records" :
			t->fold ? "fold transport" : "per-event transport");
	if (t->opts.verbose && t->kpaint)
		kp_print(t);	/* before the skeleton goes (kp_live) */
	blame_warn(t);		/* reads the drops map: before the skeleton goes */
	fr_warn(t);
	fr_close(t);
	ring_buffer__free(t->rb);
	if (t->skel)
		fsyncscope_bpf__destroy(t->skel);
	if (t->attr)
		fss_attr_free(t->attr);
	fss_blame_free(t->blame);
	fss_fold_free(t->fold);
	fss_comms_free(t->comms);
	if (t->calib)
		json_object_put(t->calib);
	if (t->calib_kept)	/* freed after the trace: see calib.c */
		fss_scratch_close(&t->calib_file);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

/* ---- per-test windows ---- */

int fss_tracer_begin(struct fss_tracer *t)
{
	struct fss_attr_opts ao = { .disk_of = disk_of, .disk_of_arg = t,
				    .detail = t->opts.detail };
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
		struct fss_blame_opts bo = {
			.disk_of = disk_of, .disk_of_arg = t,
			.comms = t->comms, .comm_fallback = comm_from_proc,
			/* live: the tool's own records are "fsyncscope itself" */
			.tool_pid = t->opts.live ? (__u32)getpid() : 0,
		};

		t->blame = fss_blame_new(&bo);
		if (!t->blame)
			rc = -ENOMEM;
	}
	if (t->fold)
		fss_fold_reset(t->fold);
	t->drops_at_begin = fss_tracer_drops(t);
	calib_read_summ(t, t->summ_at_begin);
	calib_read_hits(t, t->hits_at_begin);
	t->add_errors = 0;
	t->window_start = now_ns();
	if (kp_live(t)) {	/* the kernel painter's flush facts from here */
		kp_flc_now(t, t->kflc_begin);
		memcpy(t->kflc_seen, t->kflc_begin, sizeof(t->kflc_seen));
		memset(&t->kflush, 0, sizeof(t->kflush));
	}
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

	bool fold_open = false;

	if (t->fold && !fss_fold_snapshot(t->fold,
				bpf_map__fd(t->skel->maps.rq_folds)))
		fold_open = fss_fold_inflight(t->fold) > 0;
	for (int i = 0; i < SETTLE_MAX_MS &&
	     (fss_attr_open_rqs(t->attr) || fold_open); i++) {
		nanosleep(&ts, NULL);
		ring_buffer__consume(t->rb);
		if (fold_open && !fss_fold_snapshot(t->fold,
				bpf_map__fd(t->skel->maps.rq_folds)))
			fold_open = fss_fold_inflight(t->fold) > 0;
	}
	/* folded requests still in flight: what they did up to now */
	consume(t, now_ns());
}

int fss_tracer_end(struct fss_tracer *t, struct fss_trace_window *out)
{
	__u64 hits[FSS_HOOK_MAX];
	int rc = 0;

	memset(out, 0, sizeof(*out));
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
	/* --painter kernel: the kernel's flush facts, as live mode's */
	if (fss_tracer_kernel_painted(t)) {
		kp_flush_stats(t, &out->flush);
	} else {
		fss_attr_flush_stats(t->attr, &out->flush);
		kp_flc_window(t, &out->flush);
	}
	out->drops = fss_tracer_drops(t) - t->drops_at_begin;
	calib_read_summ(t, out->summ);
	for (int k = 0; k < FSS_SYNC_KIND_MAX; k++)
		fss_summ_add(&out->summ[k], &t->summ_at_begin[k], -1);
	/* measured, not assumed: issues seen but no creation/insert */
	calib_read_hits(t, hits);
	out->no_rq_start =
		hits[FSS_HOOK_RQ_START] == t->hits_at_begin[FSS_HOOK_RQ_START] &&
		hits[FSS_HOOK_RQ_ISSUE] > t->hits_at_begin[FSS_HOOK_RQ_ISSUE];
	out->no_journal = !t->layer_ok[L_JOURNAL];
	t->collecting = false;
	fss_attr_free(t->attr);
	t->attr = NULL;
	pthread_mutex_unlock(&t->lock);
	return rc < 0 ? rc : 0;
}

void fss_tracer_summ(struct fss_tracer *t, struct fss_summ *out)
{
	calib_read_summ(t, out);
	for (int k = 0; k < FSS_SYNC_KIND_MAX; k++)
		fss_summ_add(&out[k], &t->summ_at_open[k], -1);
}

int fss_tracer_live_flush(struct fss_tracer *t, struct fss_flush_stats *flush)
{
	__u64 now;
	int rc;

	pthread_mutex_lock(&t->lock);
	if (!t->collecting || !t->attr) {
		pthread_mutex_unlock(&t->lock);
		return -EINVAL;
	}
	while (ring_buffer__consume(t->rb) > 0)
		;
	now = now_ns();
	alias_refresh(t, now);
	consume(t, now);
	/* syncs still running have no SYNC record yet: what they overlap stays */
	hold_inflight(t, now);
	rc = fss_attr_drain(t->attr, now, on_sync, t);
	if (flush && fss_tracer_kernel_painted(t))
		kp_flush_stats(t, flush);
	else if (flush) {
		fss_attr_flush_stats(t->attr, flush);
		fss_attr_reset_stats(t->attr);
	}
	pthread_mutex_unlock(&t->lock);
	return rc;
}
