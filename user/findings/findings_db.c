// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * findings_db.c - the database rules of the findings engine over a trace
 * record's database view (docs/databases.md, docs/findings.md): PostgreSQL
 * checkpoint bursts, WAL / redo syncs that wait for the device's flush, and
 * WAL syncs back to back (one at a time, under PostgreSQL's WALWriteLock).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include "doc/doc.h"
#include "findings/findings_int.h"

#define REF "docs/findings.md"

/*
 * PostgreSQL checkpoints (docs/databases.md): the checkpointer's sync
 * phase, a burst of fsyncs, against all the traced sync time.
 */
void fnd_rule_checkpoints(struct fnd_list *l, const struct fnd_subj *s)
{
	struct json_object *c = fss_j(s->doc, "checkpoints"), *worst = NULL;
	size_t n = c && json_object_is_type(c, json_type_array) ?
		   json_object_array_length(c) : 0;
	double ns = 0, all = s->total_mean_us * s->syncs * 1e3, syncs = 0;
	char a[32], b[32], m[32];
	struct fnd *f;

	for (size_t i = 0; i < n; i++) {
		struct json_object *x = json_object_array_get_idx(c, i);

		ns += fss_jnum(x, "total_ns");
		syncs += (double)fss_jint(x, "syncs", 0);
		if (!worst ||
		    fss_jnum(x, "seconds") > fss_jnum(worst, "seconds"))
			worst = x;
	}
	if (!worst || !(all > 0) || !(ns >= FSS_FIND_CKPT_SHARE * all))
		return;
	f = fnd_add(l, FSS_SEV_WARNING, "checkpoint_burst", NULL, ns / all, s);
	if (!f)
		return;
	FND_SET(f, title, "PostgreSQL checkpoints sync in bursts: %.0f %% of "
		"the traced sync time", 100 * ns / all);
	FND_SET(f, evidence, "%zu checkpoint%s made %.0f syncs for %s of the "
		"%s of traced sync time; the longest sync phase (pid %lld) "
		"took %.2f s, its slowest sync %s.", n, n == 1 ? "" : "s",
		syncs, fnd_dur(a, sizeof(a), ns / 1e3),
		fnd_dur(b, sizeof(b), all / 1e3), fss_jint(worst, "pid", 0),
		fss_jnum(worst, "seconds"),
		fnd_dur(m, sizeof(m), fss_jnum(worst, "longest_us")));
	fnd_fig(f, "checkpoints", (double)n);
	fnd_fig(f, "checkpoint_ns", ns);
	fnd_fig(f, "traced_ns", all);
	fnd_fig(f, "syncs", syncs);
	FND_SET(f, advice, "The write phase left the dirty "
		"pages to the sync phase. Spread it: "
		"checkpoint_completion_target 0.9, checkpoint_flush_after "
		"(256kB) so the kernel writes back as it goes, a larger "
		"max_wal_size for fewer checkpoints; WAL syncs behind the "
		"burst share its device and flushes.");
	f->refs[0] = REF "#checkpoint_burst";
	f->refs[1] = "docs/databases.md";
}

static const struct {
	const char *cls, *what, *advice;
} log_classes[] = {
	{ "pg_wal", "PostgreSQL WAL", "Let commits share a flush: "
	  "commit_delay (e.g. 1000 us) with commit_siblings, so that one WAL "
	  "flush serves several backends; compare wal_sync_method fdatasync "
	  "and open_datasync with 'fsyncscope run' on this directory; "
	  "synchronous_commit = off where losing the last few commits on a "
	  "crash is acceptable; a device with power-loss protection makes "
	  "each flush cheap." },
	{ "innodb_redo", "InnoDB redo", "Let commits share a flush: binlog "
	  "group commit (binlog_commit_wait_count / binlog_commit_wait_usec); "
	  "innodb_flush_log_at_trx_commit = 2 where losing up to a second of "
	  "commits on a crash is acceptable; a device with power-loss "
	  "protection makes each flush cheap." },
};

#define NLOG (sizeof(log_classes) / sizeof(log_classes[0]))

/* log_classes' index of a class of the database view, or NLOG */
static size_t log_class(struct json_object *x)
{
	const char *cls = fss_jstr(x, "class") ?: "";
	size_t k;

	for (k = 0; k < NLOG && strcmp(cls, log_classes[k].cls); k++)
		;
	return k;
}

static void log_flush(struct fnd_list *l, const struct fnd_subj *s,
		      struct json_object *x, size_t k)
{
	struct json_object *fl = fss_j(fss_j(x, "phases"), "device_flush");
	double syncs = (double)fss_jint(x, "syncs", 0);
	double share = fss_jnum(fl, "share"), mean = fss_jnum(x, "mean_us");
	char a[32], b[32], m[32], d[32], key[64];
	struct fnd *f;

	snprintf(key, sizeof(key), "log_flush:%s", log_classes[k].cls);
	f = fnd_add(l, FSS_SEV_WARNING, "log_flush", key, share, s);
	if (!f)
		return;
	FND_SET(f, title, "%s syncs wait for the device's flush: %.0f %% of "
		"their time", log_classes[k].what, 100 * share);
	FND_SET(f, evidence, "%.0f %s syncs: mean %s, p50 %s, p99 %s; "
		"device_flush %.1f %% of their time (%s per sync).", syncs,
		log_classes[k].what, fnd_dur(a, sizeof(a), mean),
		fnd_dur(b, sizeof(b), fss_jnum(x, "p50_us")),
		fnd_dur(m, sizeof(m), fss_jnum(x, "p99_us")), 100 * share,
		fnd_dur(d, sizeof(d), fss_jnum(fl, "mean_us")));
	fnd_figs(f, "class", log_classes[k].cls);
	fnd_fig(f, "syncs", syncs);
	fnd_fig(f, "share", share);
	fnd_fig(f, "mean_us", mean);
	FND_SET(f, advice, "%s", log_classes[k].advice);
	f->refs[0] = REF "#log_flush";
	f->refs[1] = "docs/databases.md";
}

/*
 * A database's commit log (PostgreSQL WAL, InnoDB redo) whose syncs are
 * flush-bound, and slow: the rule slow_flush for the syncs commits wait on.
 */
void fnd_rule_log_flush(struct fnd_list *l, const struct fnd_subj *s)
{
	struct json_object *c = fss_j(s->doc, "classes");
	size_t n = c && json_object_is_type(c, json_type_array) ?
		   json_object_array_length(c) : 0;

	for (size_t i = 0; i < n; i++) {
		struct json_object *x = json_object_array_get_idx(c, i);
		struct json_object *fl = fss_j(fss_j(x, "phases"),
					       "device_flush");
		size_t k = log_class(x);

		if (k < NLOG &&
		    fss_jint(x, "syncs", 0) >= FSS_FIND_MIN_SYNCS &&
		    fss_jnum(fl, "share") >= FSS_FIND_FLUSH_SHARE &&
		    fss_jnum(x, "mean_us") >= FSS_FIND_SLOW_MEAN_US)
			log_flush(l, s, x, k);
	}
}

/* the entry of classes[] whose class is cls, or NULL */
static struct json_object *class_of(struct json_object *doc, const char *cls)
{
	struct json_object *c = fss_j(doc, "classes");
	size_t n = c && json_object_is_type(c, json_type_array) ?
		   json_object_array_length(c) : 0;

	for (size_t i = 0; i < n; i++) {
		struct json_object *x = json_object_array_get_idx(c, i);

		if (!strcmp(fss_jstr(x, "class") ?: "", cls))
			return x;
	}
	return NULL;
}

/*
 * PostgreSQL WAL syncs back to back: PostgreSQL syncs the WAL under one
 * lock (WALWriteLock), one sync at a time, so the WAL syncs' time over
 * the record's wall time is how busy that lock kept the WAL.  From
 * FSS_FIND_WAL_BUSY on, commits queue behind the sync in progress before
 * their own.  Over 1.1 the syncs overlapped: not one server's WAL.
 */
void fnd_rule_wal_serial(struct fnd_list *l, const struct fnd_subj *s)
{
	struct json_object *x = class_of(s->doc, "pg_wal");
	double sec = fss_jnum(s->doc, "seconds"), syncs, ns, busy, be;
	char a[32];
	struct fnd *f;

	if (!x || !(sec > 0))
		return;
	syncs = (double)fss_jint(x, "syncs", 0);
	ns = fss_jnum(x, "total_ns");
	busy = ns / (sec * 1e9);
	if (syncs < FSS_FIND_MIN_SYNCS || !(busy >= FSS_FIND_WAL_BUSY) ||
	    busy > 1.1)
		return;
	f = fnd_add(l, FSS_SEV_WARNING, "wal_serial", NULL, busy, s);
	if (!f)
		return;
	be = (double)fss_jint(fss_j(fss_j(x, "by_role"), "backend"), "syncs",
			     0);
	FND_SET(f, title, "PostgreSQL WAL syncs run back to back: the WAL was "
		"being synced %.0f %% of the time", 100 * busy);
	FND_SET(f, evidence, "%.0f WAL syncs (%.0f of them by backends at "
		"commit) of %s on average took %.2f s of the %.2f s traced. "
		"PostgreSQL syncs the WAL one at a time (WALWriteLock): a "
		"commit that arrives during a sync waits for it, then for its "
		"own.", syncs, be, fnd_dur(a, sizeof(a), fss_jnum(x, "mean_us")),
		ns / 1e9, sec);
	fnd_fig(f, "busy", busy);
	fnd_fig(f, "syncs", syncs);
	fnd_fig(f, "backend_syncs", be);
	fnd_fig(f, "wal_sync_ns", ns);
	fnd_fig(f, "seconds", sec);
	fnd_fig(f, "mean_us", fss_jnum(x, "mean_us"));
	FND_SET(f, advice, "Make each sync serve more commits or cost "
		"less: commit_delay (e.g. 1000 us) with commit_siblings "
		"(5) lets the backend that holds the lock wait for others' "
		"commit records and sync them together; a device with "
		"power-loss protection shortens every sync; "
		"synchronous_commit = off for transactions that can lose "
		"their last commits on a crash. Throughput is then no longer "
		"one commit batch per sync time.");
	f->refs[0] = REF "#wal_serial";
	f->refs[1] = "docs/databases.md";
}

static const struct {
	const char *cls, *what, *advice;
} innodb_classes[] = {
	{ "innodb_redo", "redo", "Most of it is the redo log, which commits "
	  "wait for: see log_flush's advice (binlog group commit, "
	  "innodb_flush_log_at_trx_commit, a device with power-loss "
	  "protection)." },
	{ "innodb_doublewrite", "doublewrite", "Much of it is the doublewrite "
	  "buffer: every page is written and synced twice so a torn write can "
	  "be repaired. Keep it unless the storage guarantees atomic 16 KiB "
	  "page writes (then innodb_doublewrite = OFF); a separate device "
	  "for the redo log (innodb_log_group_home_dir) keeps commits out of "
	  "its flushes." },
	{ "innodb_data", "data", "Most of it is the page cleaner syncing "
	  "data files, in the background: it delays commits only through the "
	  "device and flushes it shares with the redo log. "
	  "innodb_io_capacity and innodb_max_dirty_pages_pct shape it; a "
	  "separate device for the redo log keeps commits out of it." },
	{ "innodb_undo", "undo", "Most of it is the undo tablespaces: long "
	  "transactions and purge lag write them; look at "
	  "innodb_purge_threads and at long-running transactions." },
};

#define NINNO (sizeof(innodb_classes) / sizeof(innodb_classes[0]))

/*
 * MariaDB: how InnoDB's sync time splits between the redo log (commits
 * wait for it), the doublewrite buffer and the data files (the page
 * cleaner) and undo; info, with the advice of the largest.
 */
void fnd_rule_innodb_split(struct fnd_list *l, const struct fnd_subj *s)
{
	double ns[NINNO], syncs = 0, all = 0;
	size_t top = 0;
	char a[32];
	struct fnd *f;

	for (size_t k = 0; k < NINNO; k++) {
		struct json_object *x = class_of(s->doc, innodb_classes[k].cls);

		ns[k] = x ? fss_jnum(x, "total_ns") : 0;
		if (!(ns[k] > 0))
			ns[k] = 0;
		syncs += x ? (double)fss_jint(x, "syncs", 0) : 0;
		all += ns[k];
		if (ns[k] > ns[top])
			top = k;
	}
	if (syncs < FSS_FIND_MIN_SYNCS || !(all > 0))
		return;
	f = fnd_add(l, FSS_SEV_INFO, "innodb_split", NULL, ns[top] / all, s);
	if (!f)
		return;
	FND_SET(f, title, "InnoDB's sync time is %.0f %% %s", 100 * ns[top] /
		all, innodb_classes[top].what);
	FND_SET(f, evidence, "%.0f InnoDB syncs took %s:", syncs,
		fnd_dur(a, sizeof(a), all / 1e3));
	for (size_t k = 0; k < NINNO; k++) {
		char key[32];

		snprintf(key, sizeof(key), "%s_share", innodb_classes[k].what);
		fnd_fig(f, key, ns[k] / all);
		FND_CAT(f, evidence, "%s %s %.1f %%", k ? "," : "",
			innodb_classes[k].what, 100 * ns[k] / all);
	}
	FND_CAT(f, evidence, ".");
	fnd_fig(f, "syncs", syncs);
	fnd_fig(f, "innodb_sync_ns", all);
	fnd_figs(f, "largest", innodb_classes[top].cls);
	FND_SET(f, advice, "%s", innodb_classes[top].advice);
	f->refs[0] = REF "#innodb_split";
	f->refs[1] = "docs/databases.md";
}
