// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * findings_rules.c - the rules of the findings engine (docs/findings.md):
 * which phase bounds the syncs, the device's flushes (slow, missing), a
 * neighbour blamed, checkpoint bursts, and the tool's own blind spots.
 * Each quotes the document's numbers it rests on and says what to do.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include "doc/doc.h"
#include "findings/findings_int.h"

#define REF "docs/findings.md"

static const char *fsname(const struct fnd_subj *s)
{
	return s->fs ? s->fs : "the filesystem";
}

/*
 * A blamed cause that is fsyncscope's own process ("tool": the tracer's
 * reads, docs/live.md): never a neighbour to act on.
 */
static bool fnd_is_tool(struct json_object *x)
{
	return json_object_get_boolean(fss_j(x, "tool"));
}

/* The cause of a trace record that has most of a phase (by_phase KEY). */
static struct json_object *top_in_phase(struct json_object *doc,
					const char *key, double *ns)
{
	struct json_object *b = fss_j(doc, "blamed"), *best = NULL;
	size_t n = b && json_object_is_type(b, json_type_array) ?
		   json_object_array_length(b) : 0;

	*ns = 0;
	for (size_t i = 0; i < n; i++) {
		struct json_object *x = json_object_array_get_idx(b, i);
		double v = fss_jnum(fss_j(x, "by_phase"), key);

		if (fnd_is_tool(x))
			continue;	/* fsyncscope itself: no cause to fix */
		if (isfinite(v) && v > *ns) {
			*ns = v;
			best = x;
		}
	}
	return best;
}

static void cat_top(struct fnd *f, const struct fnd_subj *s, const char *key,
		    const char *what)
{
	char d[32];
	double ns;
	struct json_object *x = s->trace ? top_in_phase(s->doc, key, &ns) :
				NULL;

	if (!x)
		return;
	FND_CAT(f, evidence, " Most of it was caused by "
		"pid %lld %s (cgroup %s): %s %s.", fss_jint(x, "pid", 0),
		fss_jstr(x, "comm") ?: "?", fss_jstr(x, "cgroup") ?: "n/a",
		fnd_dur(d, sizeof(d), ns / 1e3), what);
	fnd_fig(f, "top_cause_pid", (double)fss_jint(x, "pid", 0));
	fnd_fig(f, "top_cause_ns", ns);
}

/*
 * A phase that bounds syncs faster than FSS_FIND_SLOW_MEAN_US on average
 * is where their time goes, nothing to fix: info, not a warning.
 */
static enum fss_find_sev phase_sev(const struct fnd_subj *s)
{
	return s->total_mean_us >= FSS_FIND_SLOW_MEAN_US ? FSS_SEV_WARNING :
	       FSS_SEV_INFO;
}

static void phase_evidence(struct fnd *f, const struct fnd_subj *s, int p)
{
	char a[32], b[32];

	FND_SET(f, evidence, "%s was %.1f %% of the sync "
		"time of %s: %s per sync of a %s mean, over %.0f syncs.",
		fss_phase_name(p), 100 * s->share[p], s->name,
		fnd_dur(a, sizeof(a), s->mean_us[p]),
		fnd_dur(b, sizeof(b), s->total_mean_us), s->syncs);
	fnd_fig(f, "share", s->share[p]);
	fnd_fig(f, "mean_us", s->mean_us[p]);
	fnd_fig(f, "total_mean_us", s->total_mean_us);
	fnd_fig(f, "syncs", s->syncs);
}

static void journal_facts(struct fnd *f, const struct fnd_subj *s)
{
	struct json_object *j = fss_j(s->doc, "journal");
	char d[32];

	if (!s->trace || !j || !json_object_is_type(j, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(j) && i < 2; i++) {
		struct json_object *x = json_object_array_get_idx(j, i);

		FND_CAT(f, evidence, " Journal of %s: %lld "
			"commits, %s mean, %lld syncs waited for one.",
			fss_jstr(x, "dev") ?: "?", fss_jint(x, "commits", 0),
			fnd_dur(d, sizeof(d), fss_jnum(x, "mean_us")),
			fss_jint(x, "syncs_waited", 0));
	}
}

static void rule_journal(struct fnd_list *l, const struct fnd_subj *s)
{
	struct fnd *f = fnd_add(l, phase_sev(s), "journal_bound", NULL,
				s->share[PH_JOURNAL], s);
	bool xfs = s->fs && !strcmp(s->fs, "xfs");

	if (!f)
		return;
	FND_SET(f, title, "Syncs wait for the journal: %.0f %% "
		"of their time is %s", 100 * s->share[PH_JOURNAL],
		xfs ? "xfs log forces" : "journal commits");
	phase_evidence(f, s, PH_JOURNAL);
	journal_facts(f, s);
	cat_top(f, s, "journal_ns",
		"of its metadata in the commits waited for");
	FND_SET(f, advice, "Each sync waits for a commit that "
		"carries every metadata change since the last one, its own "
		"and others'. Move metadata-heavy neighbours (creates, "
		"renames, unlinks) to another filesystem; preallocate files "
		"so that a sync has no metadata to commit (fallocate, "
		"fixed-size segments); %s",
		xfs ? "give the log room and bandwidth: a larger log "
		"(mkfs.xfs -l size=), logbsize=256k, or an external log "
		"device (-l logdev=)." :
		"on ext4 consider a larger journal (mke2fs -J size=), an "
		"external journal device (mke2fs -O journal_dev) and the "
		"commit= interval.");
	f->refs[0] = REF "#journal_bound";
	f->refs[1] = "docs/model.md";
}

static void rule_queue(struct fnd_list *l, const struct fnd_subj *s)
{
	struct fnd *f = fnd_add(l, phase_sev(s), "queue_bound", NULL,
				s->share[PH_QUEUE], s);

	if (!f)
		return;
	FND_SET(f, title, "Syncs wait in the block queue: "
		"%.0f %% of their time", 100 * s->share[PH_QUEUE]);
	phase_evidence(f, s, PH_QUEUE);
	cat_top(f, s, "queue_ns", "of its requests queued ahead");
	FND_SET(f, advice, "The device's queue is full of "
		"other requests when the syncs' arrive. Find who fills it "
		"(the blame above, docs/blame.md) and limit it with io.max or "
		"io.weight on its cgroup; on flash, the 'none' or "
		"'mq-deadline' scheduler (/sys/block/%s/queue/scheduler) and "
		"a deeper nr_requests keep "
		"sync writes from waiting behind bulk ones.",
		s->disk ? s->disk : "DEV");
	f->refs[0] = REF "#queue_bound";
	f->refs[1] = "docs/blame.md";
}

static void rule_fs(struct fnd_list *l, const struct fnd_subj *s)
{
	struct fnd *f = fnd_add(l, phase_sev(s), "fs_bound", NULL,
				s->share[PH_FS], s);
	long long bs = fss_jint(s->obj, "bs", 0), wps = fss_jint(s->obj,
						"writes_per_sync", 0);

	if (!f)
		return;
	FND_SET(f, title, "Syncs spend %.0f %% of their time in "
		"%s itself (writeback of dirty data, metadata)",
		100 * s->share[PH_FS], fsname(s));
	phase_evidence(f, s, PH_FS);
	if (!s->trace && bs > 0 && wps > 0) {
		FND_CAT(f, evidence, " Each sync writes back "
			"%lld bytes (%lld x %lld).", bs * wps, wps, bs);
		fnd_fig(f, "bytes_per_sync", (double)(bs * wps));
	}
	if (!s->trace && bs > 0 && wps > 0 &&
	    bs * wps < FSS_FIND_BIG_SYNC_BYTES)
		FND_SET(f, advice, "With so little data per "
			"sync, this is the filesystem's own work (metadata, "
			"locks, CPU), not writeback: look at what else holds "
			"the file's inode or the filesystem's locks, and at "
			"CPU pressure.");
	else
		FND_SET(f, advice, "A sync that finds much "
			"dirty data writes it back while the caller waits. "
			"Start writeback earlier "
			"(sync_file_range(SYNC_FILE_RANGE_WRITE) after each "
			"batch, lower vm.dirty_background_bytes / "
			"vm.dirty_bytes), sync smaller batches, or write with "
			"O_DIRECT / O_DSYNC.");
	f->refs[0] = REF "#fs_bound";
	f->refs[1] = "docs/model.md";
}

static void rule_other(struct fnd_list *l, const struct fnd_subj *s)
{
	struct fnd *f = fnd_add(l, phase_sev(s), "other_bound", NULL,
				s->share[PH_OTHER], s);

	if (!f)
		return;
	FND_SET(f, title, "%.0f %% of the sync time is outside "
		"every I/O phase (CPU, scheduling, locks)",
		100 * s->share[PH_OTHER]);
	phase_evidence(f, s, PH_OTHER);
	FND_SET(f, advice, "The syncing threads wait for a CPU "
		"or a lock, not for the device. Check CPU pressure "
		"(/proc/pressure/cpu, the cgroup's cpu.max), syncs of one file "
		"from many threads (they serialize on its inode lock), and a "
		"PREEMPT_RT kernel's priorities.");
	f->refs[0] = REF "#other_bound";
	f->refs[1] = "docs/model.md";
}

void fnd_rule_phases(struct fnd_list *l, const struct fnd_subj *s)
{
	if (s->syncs < FSS_FIND_MIN_SYNCS)
		return;
	if (s->share[PH_JOURNAL] >= FSS_FIND_JOURNAL_SHARE)
		rule_journal(l, s);
	if (s->share[PH_QUEUE] >= FSS_FIND_QUEUE_SHARE)
		rule_queue(l, s);
	if (s->share[PH_FS] >= FSS_FIND_FS_SHARE)
		rule_fs(l, s);
	/* mostly sync_file_range: its writeback is other, not a CPU wait */
	if (s->share[PH_OTHER] >= FSS_FIND_OTHER_SHARE &&
	    !(2 * s->sfr >= s->syncs))
		rule_other(l, s);
}

/* flushes per sync: a run test's, else the trace record's */
static double flushes_per_sync(const struct fnd_subj *s)
{
	struct json_object *fl;

	if (!s->trace)
		return fss_jnum(fss_j(s->obj, "flush"), "flushes_per_sync");
	fl = fss_j(s->doc, "flush");
	long long n = fss_jint(fl, "syncs", 0);

	return n > 0 ? (double)fss_jint(fl, "flushes", 0) / n : NAN;
}

void fnd_rule_flush_slow(struct fnd_list *l, const struct fnd_subj *s)
{
	bool loop = fnd_is_loop(s->disk);
	double fps = flushes_per_sync(s);
	struct fnd *f;
	char a[32], b[32];

	if (s->syncs < FSS_FIND_MIN_SYNCS ||
	    !(s->share[PH_DFLUSH] >= FSS_FIND_FLUSH_SHARE) ||
	    !(s->flush_p50_us >= FSS_FIND_FLUSH_FAST_US))
		return;
	f = fnd_add(l, loop ? FSS_SEV_INFO : FSS_SEV_WARNING, "slow_flush",
		    NULL, s->share[PH_DFLUSH], s);
	if (!f)
		return;
	FND_SET(f, title, "Syncs are flush-bound: %.0f %% of "
		"their time is %s flushing its cache",
		100 * s->share[PH_DFLUSH], s->disk ? s->disk : "the device");
	phase_evidence(f, s, PH_DFLUSH);
	FND_CAT(f, evidence, " A flush costs %s per sync "
		"(%s), against %s for a cache with power-loss protection; "
		"%.2f flushes per sync; write cache: %s.",
		fnd_dur(a, sizeof(a), s->flush_p50_us),
		s->trace ? "mean" : "p50",
		fnd_dur(b, sizeof(b), FSS_FIND_FLUSH_FAST_US), fps,
		s->write_cache ? s->write_cache : "unknown");
	fnd_fig(f, "flush_us", s->flush_p50_us);
	fnd_fig(f, "flushes_per_sync", fps);
	fnd_figs(f, "disk", s->disk);
	if (loop)
		FND_SET(f, advice, "%s is a loop device: each "
			"flush is an fsync of its backing file, so the cost "
			"belongs to the filesystem and disk below it. Run "
			"'fsyncscope devices' on the backing file for the real "
			"disk.", s->disk);
	else
		FND_SET(f, advice, "The device empties a "
			"volatile cache on every flush. A device with "
			"power-loss protection acknowledges a flush in under "
			"%.0f us: check with 'fsyncscope devices --probe "
			"DIR'. Else pay for fewer flushes: group commits "
			"(PostgreSQL commit_delay, InnoDB binlog group "
			"commit), one sync per batch of writes. Never turn "
			"flushing off (barrier=0, write through) on a device "
			"without power-loss protection.",
			FSS_FIND_FLUSH_FAST_US);
	f->refs[0] = REF "#slow_flush";
	f->refs[1] = "docs/devices.md";
}

static const char *barriers_off(const char *opts)
{
	if (!opts)
		return NULL;
	if (strstr(opts, "nobarrier"))
		return "nobarrier";
	if (strstr(opts, "barrier=0"))
		return "barrier=0";
	return NULL;
}

void fnd_rule_flush_missing(struct fnd_list *l, const struct fnd_subj *s,
			    double no_flush, double elided,
			    const char *mount_opts)
{
	const char *off = barriers_off(mount_opts);
	/* sync_file_range never flushes: only the durable syncs count */
	double sfr = s->sfr > 0 ? s->sfr : 0, syncs = s->syncs - sfr;
	char key[96];
	struct fnd *f;

	no_flush = no_flush > sfr ? no_flush - sfr : 0;
	if (syncs < FSS_FIND_MIN_SYNCS || elided > 0 || !s->write_cache ||
	    strcmp(s->write_cache, "write back") ||
	    !(no_flush >= FSS_FIND_NOFLUSH_SHARE * syncs))
		return;
	snprintf(key, sizeof(key), "no_flush:%s", s->disk ? s->disk : "?");
	f = fnd_add(l, FSS_SEV_CRITICAL, "no_flush", key,
		    no_flush / syncs, s);
	if (!f)
		return;
	FND_SET(f, title, "Data-loss risk: %.0f %% of the syncs "
		"on %s returned without a flush of its write-back cache",
		100 * no_flush / syncs, s->disk ? s->disk : "the device");
	FND_SET(f, evidence, "%.0f of %.0f syncs of %s saw "
		"no flush (no REQ_OP_FLUSH, PREFLUSH or FUA) although %s's "
		"queue/write_cache says write back.", no_flush, syncs,
		s->name, s->disk ? s->disk : "the device");
	if (sfr > 0)
		FND_CAT(f, evidence, " (%.0f sync_file_range calls, which "
			"never flush, are left out.)", sfr);
	if (off)
		FND_CAT(f, evidence, " The filesystem is "
			"mounted with %s.", off);
	fnd_fig(f, "syncs_no_flush", no_flush);
	fnd_fig(f, "syncs", syncs);
	fnd_figs(f, "write_cache", s->write_cache);
	fnd_figs(f, "mount_barrier_off", off);
	FND_SET(f, advice, "A sync that returns before the "
		"cache is flushed leaves its data where a power loss erases "
		"it. Remount without barrier=0 / nobarrier%s; if the device "
		"really has power-loss protection, tell the kernel so instead "
		"(echo 'write through' > /sys/block/%s/queue/write_cache). A "
		"sync with nothing dirty needs no flush: when few syncs are "
		"counted, see which with "
		"--events.", off ? " (it is set here)" : "",
		s->disk ? s->disk : "DEV");
	f->refs[0] = REF "#no_flush";
	f->refs[1] = "docs/devices.md";
}

static void neighbour_advice(struct fnd *f, long long pid, const char *cg)
{
	bool root = !cg || !strcmp(cg, "/");

	FND_SET(f, advice, "Limit what it does to this "
		"device: %s%s%s with io.max (a bandwidth cap) or io.weight, or "
		"'ionice -c3 -p %lld'; move its files to another filesystem or "
		"device; or schedule it away from the busy hours.",
		root ? "run it in a cgroup of its own (e.g. systemd-run "
		"--scope) and cap that" : "cap its cgroup ", root ? "" : cg,
		root ? "" : "", pid);
}

/* One named cause, blamed for share of total_ns of the subject's syncs. */
static struct fnd *neighbour(struct fnd_list *l, const struct fnd_subj *s,
			     struct json_object *x, double ns, double total)
{
	long long pid = fss_jint(x, "pid", 0);
	const char *cg = fss_jstr(x, "cgroup");
	char key[96], a[32], b[32];
	struct fnd *f;

	bool kw = json_object_get_boolean(fss_j(x, "kernel_thread"));

	snprintf(key, sizeof(key), "%s:%lld", kw ? "kernel_worker" :
		 "neighbour", pid);
	f = fnd_add(l, kw ? FSS_SEV_INFO : FSS_SEV_WARNING,
		    kw ? "kernel_worker" : "neighbour", key, ns / total, s);
	if (!f)
		return NULL;
	FND_SET(f, title, kw ? "A kernel worker's I/O is in the syncs: pid "
		"%lld %s did %.0f %% of their journal, queue and device time" :
		"A neighbour slows the syncs: pid "
		"%lld %s caused %.0f %% of their journal, queue and device "
		"time",
		pid, fss_jstr(x, "comm") ?: "?", 100 * ns / total);
	FND_SET(f, evidence, "pid %lld %s (cgroup %s) "
		"caused %s of the %s that %s spent in journal, queue and "
		"device "
		"(%.1f %%).", pid, fss_jstr(x, "comm") ?: "?", cg ? cg : "n/a",
		fnd_dur(a, sizeof(a), ns / 1e3),
		fnd_dur(b, sizeof(b), total / 1e3), s->name, 100 * ns / total);
	fnd_fig(f, "pid", (double)pid);
	fnd_figs(f, "comm", fss_jstr(x, "comm"));
	fnd_figs(f, "cgroup", cg);
	fnd_fig(f, "caused_ns", ns);
	fnd_fig(f, "blamed_ns", total);
	fnd_fig(f, "share", ns / total);
	if (kw) {
		FND_SET(f, advice, "This is a kernel thread's own I/O, "
			"not writeback the tool could credit to a process: "
			"work a filesystem or the block layer hands to its "
			"workers (btrfs compression and checksums, dm-crypt, "
			"md), often the syncs' own data. ionice and cgroup "
			"limits do not apply to it; look at what the "
			"filesystem offloads (compress, encryption) and at "
			"the syncs' own bytes.");
		f->refs[0] = REF "#kernel_worker";
		f->refs[1] = "docs/blame.md";
		return f;
	}
	neighbour_advice(f, pid, cg);
	f->refs[0] = REF "#neighbour";
	f->refs[1] = "docs/blame.md";
	return f;
}

static double blamed_total(struct json_object *b)
{
	return fss_jnum(b, "self_ns") + fss_jnum(b, "others_ns") +
	       fss_jnum(b, "unattributed_ns");
}

void fnd_rule_neighbour_run(struct fnd_list *l, const struct fnd_subj *s)
{
	struct json_object *b = fss_j(s->obj, "blame"), *o = fss_j(b, "others");
	double total = blamed_total(b);
	size_t n = o && json_object_is_type(o, json_type_array) ?
		   json_object_array_length(o) : 0;

	if (!(total > 0))
		return;
	for (size_t i = 0; i < n; i++) {
		struct json_object *x = json_object_array_get_idx(o, i);
		double ns = fss_jnum(x, "blamed_ns");

		if (ns >= FSS_FIND_NEIGHBOUR_SHARE * total)
			neighbour(l, s, x, ns, total);
	}
}

static const struct { const char *key, *name, *what; } by_phase_words[] = {
	{ "journal_ns", "journal",
	  "its metadata in the journal commits waited for" },
	{ "queue_ns", "queue", "its requests queued ahead" },
	{ "device_write_ns", "device_write",
	  "its writes on the device in the syncs' windows" },
	{ "device_flush_ns", "device_flush",
	  "its bytes under the flushes waited for" },
};

/*
 * The blamed time of the traced syncs a cause can have slowed: all of
 * them but its own, when it is a traced process too (blamed[] counts
 * only the time it caused in other processes' syncs).
 */
static double others_total(struct json_object *doc, long long pid,
			   double total)
{
	struct json_object *p = fss_j(doc, "processes");
	size_t n = p && json_object_is_type(p, json_type_array) ?
		   json_object_array_length(p) : 0;

	for (size_t i = 0; i < n; i++) {
		struct json_object *x = json_object_array_get_idx(p, i);
		double own = blamed_total(fss_j(x, "blame"));

		if (fss_jint(x, "pid", -1) == pid && own > 0 && own < total)
			return total - own;
	}
	return total;
}

void fnd_rule_neighbour_trace(struct fnd_list *l, const struct fnd_subj *s)
{
	struct json_object *bl = fss_j(s->doc, "blamed");
	double total = blamed_total(fss_j(s->doc, "blame"));
	size_t n = bl && json_object_is_type(bl, json_type_array) ?
		   json_object_array_length(bl) : 0;
	char d[32];

	if (!(total > 0))
		return;
	for (size_t i = 0; i < n; i++) {
		struct json_object *x = json_object_array_get_idx(bl, i), *bp;
		double ns = fss_jnum(x, "caused_ns");
		double tot = others_total(s->doc, fss_jint(x, "pid", -1),
					  total);
		struct fnd *f;

		if (fnd_is_tool(x) || !(ns >= FSS_FIND_NEIGHBOUR_SHARE * tot) ||
		    !(f = neighbour(l, s, x, ns, tot)))
			continue;
		if (tot < total)
			FND_CAT(f, evidence, " (Its own "
				"syncs are left out of that total.)");
		bp = fss_j(x, "by_phase");
		FND_CAT(f, evidence, " In %lld syncs on %s:",
			fss_jint(x, "syncs", 0), fss_jstr(x, "dev") ?: "?");
		for (size_t k = 0; k < 4; k++) {
			double v = fss_jnum(bp, by_phase_words[k].key);

			if (!(v > 0))
				continue;
			FND_CAT(f, evidence, " %s %s (%s);",
				by_phase_words[k].name,
				fnd_dur(d, sizeof(d), v / 1e3),
				by_phase_words[k].what);
			fnd_fig(f, by_phase_words[k].key, v);
		}
		fnd_fig(f, "syncs", (double)fss_jint(x, "syncs", 0));
	}
}
