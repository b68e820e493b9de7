// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * journal.bpf.c - filesystem journal work.
 *
 * ext4/jbd2: a commit runs in the journal kthread, from jbd2_start_commit to
 * jbd2_end_commit (with locking/flushing/logging phases in between), its
 * state in that thread's task storage; one FSS_EV_JOURNAL record per
 * commit.  Syncs that wait for it are matched in user space by device and
 * time.
 * xfs: the syncing thread forces the log itself (xfs_log_force); the first
 * force in a sync is stored in its state and the journal interval runs from
 * there to the sync's exit.
 */
#include "clock.bpf.h"

/*
 * kpaint with its tp_btf jbd2 programs loaded (user space sets it): the
 * tp_btf end sends the commit's record, at the time its clock step took
 * (classic programs run before or after it, in no set order).
 */
const volatile bool kp_jbd2 = false;

static __always_inline bool want_fs_dev(__u32 dev)
{
	return !targ_fs_dev || targ_fs_is(dev);
}

/* The current (journal) thread's commit slot; create: make it if missing. */
static __always_inline struct commit_state *commit_slot(bool create)
{
	return bpf_task_storage_get(&commits, bpf_get_current_task_btf(), 0,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/* The commit in flight in this thread for journal dev, or NULL. */
static __always_inline struct commit_state *commit_current(__u32 dev)
{
	struct commit_state *cs = commit_slot(false);

	return cs && cs->start && cs->dev == dev ? cs : NULL;
}

/*
 * The time of transaction tx's start (which 0) or end (1): with kpaint,
 * one for its classic program and its tp_btf one (whichever runs first
 * stamps it, the other takes it), so that the records and the clocks
 * agree to the ns.
 */
static __always_inline __u64 commit_time(struct commit_state *cs, __u32 tx,
					 int which)
{
	__u64 now;

	if (!kpaint)
		return bpf_ktime_get_ns();
	which &= 1;
	if (cs->ev_tx[which] == tx + 1) {
		cs->ev_tx[which] = 0;
		return cs->ev_ts[which];
	}
	now = bpf_ktime_get_ns();
	cs->ev_tx[which] = tx + 1;
	cs->ev_ts[which] = now;
	return now;
}

SEC("tp/jbd2/jbd2_start_commit")
int tp_jbd2_start_commit(struct trace_event_raw_jbd2_commit *ctx)
{
	__u32 dev = ctx->dev;
	struct commit_state *cs;

	if (floor_hit(FSS_HOOK_JBD2))
		return 0;
	if (!want_fs_dev(dev))
		return 0;
	count_hit(FSS_HOOK_JBD2);
	cs = commit_slot(true);
	if (!cs) {
		count_drop(1);
		return 0;
	}
	cs->start = commit_time(cs, ctx->transaction, 0);
	cs->locking = 0;
	cs->flushing = 0;
	cs->logging = 0;
	cs->transaction = ctx->transaction;
	cs->sync_commit = ctx->sync_commit;
	cs->dev = dev;
	return 0;
}

static __always_inline int commit_stamp(__u32 dev, int which)
{
	struct commit_state *cs;
	__u64 now;

	if (floor_only)
		return 0;
	cs = commit_current(dev);
	if (!cs)
		return 0;
	now = bpf_ktime_get_ns();
	if (which == 0)
		cs->locking = now;
	else if (which == 1)
		cs->flushing = now;
	else
		cs->logging = now;
	return 0;
}

SEC("tp/jbd2/jbd2_commit_locking")
int tp_jbd2_commit_locking(struct trace_event_raw_jbd2_commit *ctx)
{
	return commit_stamp(ctx->dev, 0);
}

SEC("tp/jbd2/jbd2_commit_flushing")
int tp_jbd2_commit_flushing(struct trace_event_raw_jbd2_commit *ctx)
{
	return commit_stamp(ctx->dev, 1);
}

SEC("tp/jbd2/jbd2_commit_logging")
int tp_jbd2_commit_logging(struct trace_event_raw_jbd2_commit *ctx)
{
	return commit_stamp(ctx->dev, 2);
}

/* The commit's record, ended at end (0: now); the slot goes idle. */
static __always_inline void commit_send(struct commit_state *cs, __u32 dev,
					__u64 end)
{
	struct fss_event *e = event_reserve(FSS_EV_JOURNAL, dev);

	if (e) {
		e->ts_end = end ? end : e->ts;
		e->ts = cs->start;
		e->journal.locking = cs->locking;
		e->journal.flushing = cs->flushing;
		e->journal.logging = cs->logging;
		e->journal.transaction = cs->transaction;
		e->journal.sync_commit = cs->sync_commit;
		event_submit(e);
	}
	cs->start = 0;
}

SEC("tp/jbd2/jbd2_end_commit")
int tp_jbd2_end_commit(struct trace_event_raw_jbd2_end_commit *ctx)
{
	__u32 dev = ctx->dev;
	struct commit_state *cs;

	if (floor_only || kp_jbd2)
		return 0;
	cs = commit_current(dev);
	if (!cs)
		return 0;
	commit_send(cs, dev, 0);
	return 0;
}

/*
 * The in-kernel painter's view of jbd2 commits (FSYNCSCOPE_KPAINT,
 * clock.bpf.h): tp_btf, since the clocks' lock is refused to classic
 * tracepoints; loaded with the tp_btf block set when kpaint is on.
 */
static __always_inline __u32 journal_dev(journal_t *j)
{
	return BPF_CORE_READ(j, j_fs_dev, bd_dev);
}

static __always_inline int clk_jbd2(journal_t *journal, transaction_t *tr,
				    int start)
{
	struct commit_state *cs;
	__u64 t, delta;
	__u32 dev, tx;

	if (!journal || !tr)
		return 0;	/* may be NULL: common.bpf.h */
	dev = journal_dev(journal);
	if (!want_fs_dev(dev))
		return 0;
	cs = commit_slot(true);
	if (!cs)
		return 0;
	tx = BPF_CORE_READ(tr, t_tid);
	if (!start) {		/* the record goes from here (kp_jbd2) */
		t = bpf_ktime_get_ns();
		t += CLK_DELTA(clk_commit(dev, 0, t));
		if (cs->start && cs->dev == dev)
			commit_send(cs, dev, t);
		return 0;
	}
	t = commit_time(cs, tx, 0);
	delta = CLK_DELTA(clk_commit(dev, 1, t));
	/* taking effect later: the record's start takes that time too */
	if (delta && cs->ev_tx[0] == tx + 1)
		cs->ev_ts[0] += delta;
	else if (delta && cs->start == t)
		cs->start += delta;
	return 0;
}

SEC("tp_btf/jbd2_start_commit")
int BPF_PROG(btf_clk_jbd2_start, journal_t *journal, transaction_t *tr)
{
	return clk_jbd2(journal, tr, 1);
}

SEC("tp_btf/jbd2_end_commit")
int BPF_PROG(btf_clk_jbd2_end, journal_t *journal, transaction_t *tr)
{
	return clk_jbd2(journal, tr, 0);
}

SEC("tp/xfs/xfs_log_force")
int tp_xfs_log_force(void *ctx)
{
	struct sync_state *st;

	if (floor_hit(FSS_HOOK_XFS_LOG))
		return 0;
	st = sync_current();
	if (!st)
		return 0;
	count_hit(FSS_HOOK_XFS_LOG);
	if (!st->log_start) {
		st->log_start = bpf_ktime_get_ns();
		if (!st->summ)
			st->log_start += CLK_DELTA(clk_sync_flags(-1, 1,
							st->log_start));
	}
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
