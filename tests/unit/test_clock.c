// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * test_clock.c - cumulative phase clocks (user/engine/attr/clock.c)
 * against the reference painter (user/engine/attr/attr.c): the same
 * ground truth is fed to both, as events in time order to the clocks and
 * as the tracer's records to the engine, and every sync's phases must be
 * identical to the nanosecond.  Usage as test_attr.
 */
#include <stdbool.h>
#include "attr_fixture.h"
#include "engine/attr/clock.h"

/* ---- one timeline, fed to both painters ---- */

enum ck_kind {
	CK_RQ,			/* a request event: ev is its record */
	CK_COMMIT_START,	/* jbd2 commit of fs ev.dev by ev.tid */
	CK_COMMIT_END,		/* ev: the engine's journal record */
	CK_SYNC_ENTER,
	CK_FS_ENTER,
	CK_FS_EXIT,
	CK_LOG_FORCE,
	CK_SYNC_EXIT,		/* ev: the engine's sync record */
	CK_CLK_ONLY,		/* a request event only the clocks see then */
	CK_ATTR_ONLY,		/* a record only the engine gets then */
};

struct ck_ev {
	__u64 ts;
	long seq;
	enum ck_kind kind;
	struct fss_event ev;
};

struct timeline {
	struct ck_ev *e;
	long n, cap, seq;
	int nsync;
	__u64 (*want)[FSS_PH_MAX];	/* by sync (its ino): the engine's */
	__u64 (*got)[FSS_PH_MAX];	/* the clocks' */
	bool *painted, *clocked;
};

static void tl_push(struct timeline *tl, __u64 ts, enum ck_kind k,
		    struct fss_event ev)
{
	if (tl->n == tl->cap) {
		tl->cap = tl->cap ? tl->cap * 2 : 1024;
		tl->e = realloc(tl->e, tl->cap * sizeof(*tl->e));
		if (!tl->e)
			exit(2);
	}
	tl->e[tl->n++] = (struct ck_ev){ ts, tl->seq++, k, ev };
}

static int ck_cmp(const void *x, const void *y)
{
	const struct ck_ev *a = x, *b = y;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* A sync of tid on FS_DEV over [s, e] us, with optional fs and log. */
static void tl_sync(struct timeline *tl, __u32 tid, long s, long e,
		    long fs0, long fs1, long log0)
{
	struct fss_event ev = sync_ev(tid, FSS_SYNC_FDATASYNC, T(s), T(e));

	ev.sync.ino = tl->nsync++;
	if (fs0 >= 0)
		ev = with_fs(ev, T(fs0), fs1 >= 0 ? T(fs1) : 0);
	if (log0 >= 0)
		ev.sync.log_start = T(log0);
	tl_push(tl, T(s), CK_SYNC_ENTER, ev);
	if (fs0 >= 0)
		tl_push(tl, T(fs0), CK_FS_ENTER, ev);
	if (fs1 >= 0)
		tl_push(tl, T(fs1), CK_FS_EXIT, ev);
	if (log0 >= 0)
		tl_push(tl, T(log0), CK_LOG_FORCE, ev);
	tl_push(tl, T(e), CK_SYNC_EXIT, ev);
}

static void tl_commit(struct timeline *tl, __u32 jtid, __u32 fs, long s,
		      long e)
{
	struct fss_event ev = journal(jtid, fs, T(s), T(e));

	tl_push(tl, T(s), CK_COMMIT_START, ev);
	tl_push(tl, T(e), CK_COMMIT_END, ev);
}

/* A request: start (-1: none), issue (-1: none), completions (-1: none). */
static void tl_rq(struct timeline *tl, __u64 id, __u32 disk, __u32 tid,
		  __u32 issue_tid, __u32 asked, __u32 issued, long start,
		  long issue, long done, long done2)
{
	if (start >= 0)
		tl_push(tl, T(start), CK_RQ,
			rq(FSS_EV_RQ_START, tid, disk, T(start), id, asked));
	if (issue >= 0)
		tl_push(tl, T(issue), CK_RQ,
			rq(FSS_EV_RQ_ISSUE, issue_tid, disk, T(issue), id,
			   issued));
	if (done >= 0)
		tl_push(tl, T(done), CK_RQ,
			rq(FSS_EV_RQ_COMPLETE, 0, disk, T(done), id,
			   issued & ~KT));
	if (done2 >= 0)
		tl_push(tl, T(done2), CK_RQ,
			rq(FSS_EV_RQ_COMPLETE, 0, disk, T(done2), id,
			   issued & ~KT));
}

/*
 * Its NVMe command (tl_rq's request id, with the flags it was issued
 * with): set up at setup (before the issue), completed at ncomp (before
 * the request).  The clocks see each at its time; the engine gets both
 * records at the command's completion, as the tracer sends them
 * (bpf/nvme.bpf.c).  flush_cmd: a Flush command (opcode 0).
 */
static void tl_nvme(struct timeline *tl, __u64 id, __u32 disk, __u32 tid,
		    __u32 issued, bool flush_cmd, long setup, long ncomp)
{
	struct fss_event ev = rq(FSS_EV_NVME_SETUP, tid, disk, T(setup), id,
				 issued | (flush_cmd ? FSS_RQ_NVME_FLUSH : 0));

	tl_push(tl, T(setup), CK_CLK_ONLY, ev);
	ev.rq.flags = 0;
	ev.rq.nvme_opcode = flush_cmd ? 0 : 1;
	tl_push(tl, T(ncomp), CK_ATTR_ONLY, ev);
	tl_push(tl, T(ncomp), CK_RQ,
		rq(FSS_EV_NVME_COMPLETE, 0, disk, T(ncomp), id, 0));
}

static void want_cb(const struct fss_sync_result *r, void *arg)
{
	struct timeline *tl = arg;

	if (r->ino < (__u64)tl->nsync) {
		memcpy(tl->want[r->ino], r->phase_ns, sizeof(r->phase_ns));
		tl->painted[r->ino] = true;
	}
}

/*
 * Paint the timeline both ways; returns the number of syncs whose phases
 * differ (the first few are printed).
 */
static int tl_compare(struct timeline *tl, struct fss_clk *ck)
{
	struct fss_attr *a = new_attr();
	int bad = 0;

	qsort(tl->e, tl->n, sizeof(*tl->e), ck_cmp);
	tl->want = calloc(tl->nsync + 1, sizeof(*tl->want));
	tl->got = calloc(tl->nsync + 1, sizeof(*tl->got));
	tl->painted = calloc(tl->nsync + 1, sizeof(bool));
	tl->clocked = calloc(tl->nsync + 1, sizeof(bool));
	fss_clk_init(ck);
	CHECK_EQ(fss_clk_add_fs(ck, FS_DEV, DISK), 0);
	CHECK_EQ(fss_clk_add_fs(ck, MKDEV(259, 2), DISK), 0);
	for (long i = 0; i < tl->n; i++) {
		struct ck_ev *x = &tl->e[i];
		const struct fss_event *ev = &x->ev;

		switch (x->kind) {
		case CK_RQ:
			fss_clk_rq(ck, ev->type, ev->rq.id, ev->dev, ev->tid,
				   ev->rq.flags, x->ts);
			CHECK_EQ(fss_attr_add(a, ev), 0);
			break;
		case CK_CLK_ONLY:
			fss_clk_rq(ck, ev->type, ev->rq.id, ev->dev, ev->tid,
				   ev->rq.flags, x->ts);
			break;
		case CK_ATTR_ONLY:
			CHECK_EQ(fss_attr_add(a, ev), 0);
			break;
		case CK_COMMIT_START:
			fss_clk_commit_start(ck, ev->dev, ev->tid, x->ts);
			break;
		case CK_COMMIT_END:
			fss_clk_commit_end(ck, ev->dev, x->ts);
			CHECK_EQ(fss_attr_add(a, ev), 0);
			break;
		case CK_SYNC_ENTER:
			CHECK_EQ(fss_clk_sync_enter(ck, ev->tid, ev->dev, x->ts), 0);
			break;
		case CK_FS_ENTER:
			fss_clk_fs_enter(ck, ev->tid, x->ts);
			break;
		case CK_FS_EXIT:
			fss_clk_fs_exit(ck, ev->tid, x->ts);
			break;
		case CK_LOG_FORCE:
			fss_clk_log_force(ck, ev->tid, x->ts);
			break;
		case CK_SYNC_EXIT:
			CHECK_EQ(fss_clk_sync_exit(ck, ev->tid, x->ts,
						   tl->got[ev->sync.ino]), 0);
			tl->clocked[ev->sync.ino] = true;
			CHECK_EQ(fss_attr_add(a, ev), 0);
			break;
		}
	}
	fss_attr_drain(a, UINT64_MAX, want_cb, tl);
	CHECK_EQ(ck->full, 0);
	for (int s = 0; s < tl->nsync; s++) {
		__u64 sum = 0;

		CHECK(tl->painted[s] && tl->clocked[s], "sync %d: painted %d, "
		      "clocked %d", s, tl->painted[s], tl->clocked[s]);
		for (int ph = 0; ph < FSS_PH_MAX; ph++)
			sum += tl->got[s][ph];
		if (!memcmp(tl->want[s], tl->got[s], sizeof(tl->want[s])))
			continue;
		if (bad++ < 4)
			for (int ph = 0; ph < FSS_PH_MAX; ph++)
				printf("# sync %d %-12s engine %8llu clocks %8llu "
				       "(sum %llu)\n", s, fss_phase_name(ph),
				       (unsigned long long)tl->want[s][ph],
				       (unsigned long long)tl->got[s][ph],
				       (unsigned long long)sum);
	}
	fss_attr_free(a);
	free(tl->e);
	free(tl->want);
	free(tl->got);
	free(tl->painted);
	free(tl->clocked);
	memset(tl, 0, sizeof(*tl));
	return bad;
}

static struct fss_clk ck;	/* big: not on the stack */

/*
 * fdatasync of an overwrite (docs/model.md): the caller's write, its empty
 * PREFLUSH never issued, a kworker's flush; a second thread's sync on the
 * same fs shares that flush; a write of another process does not count.
 */
static void overwrite_pair(void)
{
	struct timeline tl = { 0 };
	__u64 out[FSS_PH_MAX];

	tl_commit(&tl, JBD2, FS_DEV, 0, 1);
	tl_sync(&tl, 1, 100, 400, 110, 390, -1);
	tl_rq(&tl, 0x1000, DISK, 1, 1, W | SY, W | SY, 120, 130, 200, -1);
	tl_rq(&tl, 0x1040, DISK, 1, 1, PF | W | SY, 0, 210, -1, 380, -1);
	tl_rq(&tl, 0x1080, DISK, KWORKER, KWORKER, FL | PF | KT,
	      FL | PF | KT, -1, 220, 370, -1);
	tl_sync(&tl, 2, 300, 500, -1, -1, -1);
	tl_rq(&tl, 0x5000, DISK, 999, 999, W, W, 150, 160, 450, -1);
	CHECK_EQ(tl_compare(&tl, &ck), 0);

	/* the numbers themselves, from the clocks alone */
	fss_clk_init(&ck);
	fss_clk_add_fs(&ck, FS_DEV, DISK);
	fss_clk_sync_enter(&ck, 1, FS_DEV, T(100));
	fss_clk_fs_enter(&ck, 1, T(110));
	fss_clk_rq(&ck, FSS_EV_RQ_START, 0x1000, DISK, 1, W | SY, T(120));
	fss_clk_rq(&ck, FSS_EV_RQ_ISSUE, 0x1000, DISK, 1, W | SY, T(130));
	fss_clk_rq(&ck, FSS_EV_RQ_COMPLETE, 0x1000, DISK, 0, W | SY, T(200));
	fss_clk_rq(&ck, FSS_EV_RQ_START, 0x1040, DISK, 1, PF | W | SY, T(210));
	fss_clk_rq(&ck, FSS_EV_RQ_ISSUE, 0x1080, DISK, KWORKER,
		   FL | PF | KT, T(220));
	fss_clk_sync_enter(&ck, 2, FS_DEV, T(300));
	fss_clk_rq(&ck, FSS_EV_RQ_COMPLETE, 0x1080, DISK, 0, FL | PF, T(370));
	fss_clk_rq(&ck, FSS_EV_RQ_COMPLETE, 0x1040, DISK, 0, PF | W, T(380));
	fss_clk_fs_exit(&ck, 1, T(390));
	CHECK_EQ(fss_clk_sync_exit(&ck, 1, T(400), out), 0);
	/* other 10, fs 10, queue 10, write 70, fs 10, queue 10, flush 150,
	 * queue 10 (the preflush outlives the flush), fs 10, other 10 */
	CHECK_EQ(out[FSS_PH_FS], US(10 + 10 + 10));
	CHECK_EQ(out[FSS_PH_QUEUE], US(10 + 10 + 10));
	CHECK_EQ(out[FSS_PH_DEV_WRITE], US(70));
	CHECK_EQ(out[FSS_PH_DEV_FLUSH], US(150));
	CHECK_EQ(out[FSS_PH_OTHER], US(10 + 10));
	CHECK_EQ(out[FSS_PH_JOURNAL], 0);
	/* thread 2 from 300: the shared flush to 370, then nothing */
	CHECK_EQ(fss_clk_sync_exit(&ck, 2, T(500), out), 0);
	CHECK_EQ(out[FSS_PH_DEV_FLUSH], US(70));
	CHECK_EQ(out[FSS_PH_OTHER], US(130));
	CHECK_EQ(fss_clk_sync_exit(&ck, 2, T(600), out), -ENOENT);
}

/*
 * ext4 fsync after an append: the journal thread's blocks and its commit
 * block with PREFLUSH+FUA split by the kernel (pre-flush, the block
 * without FUA, a post-flush, a second completion), during a commit.
 */
static void journal_commit(void)
{
	struct timeline tl = { 0 };

	tl_commit(&tl, JBD2, FS_DEV, 0, 1);
	tl_sync(&tl, 3, 1000, 2000, 1005, 1990, -1);
	tl_rq(&tl, 0x2000, DISK, 3, 3, W | SY, W | SY, 1010, 1015, 1100, -1);
	tl_commit(&tl, JBD2, FS_DEV, 1120, 1980);
	tl_rq(&tl, 0x2040, DISK, JBD2, JBD2, W | META | KT, W | META | KT,
	      1130, 1140, 1300, -1);
	tl_rq(&tl, 0x2080, DISK, KWORKER, KWORKER, FL | PF | KT,
	      FL | PF | KT, -1, 1310, 1500, -1);
	tl_rq(&tl, 0x20c0, DISK, JBD2, KWORKER, W | PF | FUA | KT, W | KT,
	      1305, 1510, 1600, 1900);
	tl_rq(&tl, 0x2100, DISK, KWORKER, KWORKER, FL | PF | KT,
	      FL | PF | KT, -1, 1610, 1890, -1);
	/* another fs on the disk: its commit is not ours, its flush is */
	tl_commit(&tl, JBD2 + 1, MKDEV(259, 2), 1020, 1700);
	CHECK_EQ(tl_compare(&tl, &ck), 0);
}

/*
 * fdatasync of an overwrite on NVMe (the VM lane's 6.1 guest, no
 * scheduler, no block_io_start: a request's first event is its issue):
 * each device time is its NVMe command's, which is set up before the
 * request's issue and completes before it; the time between a command's
 * completion and its request's is the fs's.  A second sync shares the
 * Flush command, a native FUA write is a flush, another thread's write
 * does not count; then the same with scheduler inserts (queue until the
 * command's setup).
 */
static void nvme_commands(void)
{
	struct timeline tl = { 0 };
	long q = 0;

	for (int pass = 0; pass < 2; pass++, q = 5) {
		tl_commit(&tl, JBD2, FS_DEV, 0, 1);
		tl_sync(&tl, 1, 100, 400, 105, 390, -1);
		tl_rq(&tl, 0x1000, DISK, 1, 1, W | SY, W | SY,
		      q ? 120 - q : -1, 125, 210, -1);
		tl_nvme(&tl, 0x1000, DISK, 1, W | SY, false, 120, 200);
		tl_rq(&tl, 0x1080, DISK, KWORKER, KWORKER, FL | PF | KT,
		      FL | PF | KT, q ? 220 - q : -1, 224, 360, -1);
		tl_nvme(&tl, 0x1080, DISK, KWORKER, FL | PF | KT, true,
			220, 350);
		tl_rq(&tl, 0x1100, DISK, 1, 1, W | SY | FUA, W | SY | FUA,
		      q ? 365 - q : -1, 367, 385, -1);
		tl_nvme(&tl, 0x1100, DISK, 1, W | SY | FUA, false, 365, 380);
		tl_sync(&tl, 2, 300, 500, -1, -1, -1);
		tl_rq(&tl, 0x5000, DISK, 999, 999, W, W, -1, 152, 450, -1);
		tl_nvme(&tl, 0x5000, DISK, 999, W, false, 150, 440);
		CHECK_EQ(tl_compare(&tl, &ck), 0);
	}

	/* the numbers, from the clocks alone: no inserts */
	fss_clk_init(&ck);
	fss_clk_add_fs(&ck, FS_DEV, DISK);
	__u64 out[FSS_PH_MAX];

	fss_clk_sync_enter(&ck, 1, FS_DEV, T(100));
	fss_clk_fs_enter(&ck, 1, T(105));
	fss_clk_rq(&ck, FSS_EV_NVME_SETUP, 0x1000, DISK, 1, W | SY, T(120));
	fss_clk_rq(&ck, FSS_EV_RQ_ISSUE, 0x1000, DISK, 1, W | SY, T(125));
	fss_clk_rq(&ck, FSS_EV_NVME_COMPLETE, 0x1000, DISK, 0, 0, T(200));
	fss_clk_rq(&ck, FSS_EV_RQ_COMPLETE, 0x1000, DISK, 0, W | SY, T(210));
	fss_clk_rq(&ck, FSS_EV_NVME_SETUP, 0x1080, DISK, KWORKER,
		   FL | PF | KT | FSS_RQ_NVME_FLUSH, T(220));
	fss_clk_rq(&ck, FSS_EV_RQ_ISSUE, 0x1080, DISK, KWORKER,
		   FL | PF | KT, T(224));
	fss_clk_rq(&ck, FSS_EV_NVME_COMPLETE, 0x1080, DISK, 0, 0, T(350));
	fss_clk_rq(&ck, FSS_EV_RQ_COMPLETE, 0x1080, DISK, 0, FL | PF, T(360));
	fss_clk_rq(&ck, FSS_EV_NVME_SETUP, 0x1100, DISK, 1, W | SY | FUA,
		   T(365));
	fss_clk_rq(&ck, FSS_EV_RQ_ISSUE, 0x1100, DISK, 1, W | SY | FUA,
		   T(367));
	fss_clk_rq(&ck, FSS_EV_NVME_COMPLETE, 0x1100, DISK, 0, 0, T(380));
	fss_clk_rq(&ck, FSS_EV_RQ_COMPLETE, 0x1100, DISK, 0, W | FUA, T(385));
	fss_clk_fs_exit(&ck, 1, T(390));
	CHECK_EQ(fss_clk_sync_exit(&ck, 1, T(400), out), 0);
	/* other 5, fs 15, write 80, fs 20, flush 130, fs 15, flush 15,
	 * fs 10, other 10 */
	CHECK_EQ(out[FSS_PH_FS], US(15 + 20 + 15 + 10));
	CHECK_EQ(out[FSS_PH_DEV_WRITE], US(80));
	CHECK_EQ(out[FSS_PH_DEV_FLUSH], US(130 + 15));
	CHECK_EQ(out[FSS_PH_QUEUE], 0);
	CHECK_EQ(out[FSS_PH_OTHER], US(5 + 10));
	CHECK_EQ(ck.full, 0);
}

/*
 * Random timelines: 6 syncing threads (one sync at a time each), the
 * request kinds of test_attr_stress (own writes, others', writeback,
 * journal, kernel log writes with emulated FUA, pure flushes, empty
 * preflushes, native FUA), two filesystems on the disk and another disk,
 * commits of both filesystems, fs hooks and log forces.
 */
static unsigned long long ck_state = 0x9e3779b97f4a7c15ULL;

static long ck_rand(long n)
{
	return fx_rand(&ck_state, n);
}

static void random_round(struct timeline *tl, long span, int nrq)
{
	__u64 id = 0x100000;

	tl_commit(tl, JBD2, FS_DEV, 0, 1);
	tl_commit(tl, JBD2 + 1, MKDEV(259, 2), 0, 1);
	for (long t = 2 + ck_rand(3000); t < span; t += 1 + ck_rand(6000)) {
		long d = 1 + ck_rand(3000);

		bool ours = ck_rand(4);

		tl_commit(tl, ours ? JBD2 : JBD2 + 1,
			  ours ? FS_DEV : MKDEV(259, 2), t, t + d);
		t += d;
	}
	for (__u32 tid = 1; tid <= 6; tid++) {
		for (long t = 2 + ck_rand(500); t < span; ) {
			long d = 1 + ck_rand(ck_rand(10) ? 2000 : 20000);
			long fs0 = -1, fs1 = -1, lg = -1;

			if (ck_rand(3)) {
				fs0 = t + ck_rand(d + 1);
				fs1 = ck_rand(8) ? fs0 + ck_rand(t + d - fs0 + 1)
						 : -1;
			}
			if (!ck_rand(8))
				lg = t + ck_rand(d + 1);
			tl_sync(tl, tid, t, t + d, fs0, fs1, lg);
			t += d + ck_rand(ck_rand(4) ? 50 : 3000);
		}
	}
	for (int i = 0; i < nrq; i++) {
		long a0 = 2 + ck_rand(span), q = ck_rand(300);
		long d = ck_rand(50) ? 1 + ck_rand(2000) : 1 + ck_rand(30000);
		__u32 disk = ck_rand(15) ? DISK : OTHER_DISK;
		__u32 me = 1 + ck_rand(6);

		switch (ck_rand(8)) {
		case 0:	/* the syncing thread's write */
			tl_rq(tl, id++, disk, me, me, W | SY, W | SY, a0,
			      a0 + q, a0 + q + d, -1);
			break;
		case 1:	/* another process */
			tl_rq(tl, id++, disk, 9999, 9999, W, W, a0, a0 + q,
			      a0 + q + d, -1);
			break;
		case 2:	/* writeback kthread */
			tl_rq(tl, id++, disk, 60, 60, W | KT, W | KT, a0,
			      a0 + q, a0 + q + d, -1);
			break;
		case 3:	/* a journal thread, ours or the other fs's */
			tl_rq(tl, id++, disk, ck_rand(3) ? JBD2 : JBD2 + 1,
			      JBD2, W | META | KT, W | META | KT, a0, a0 + q,
			      a0 + q + d, -1);
			break;
		case 4:	/* kthread log write, FUA emulated: 2 completions */
			tl_rq(tl, id++, disk, 88, KWORKER, W | PF | FUA | KT,
			      W | KT, a0, a0 + q, a0 + q + d,
			      a0 + q + d + ck_rand(500));
			break;
		case 5:	/* pure flush: no start */
			tl_rq(tl, id++, disk, KWORKER, KWORKER, FL | PF | KT,
			      FL | PF | KT, -1, a0, a0 + d, -1);
			break;
		case 6:	/* empty preflush: never issued */
			tl_rq(tl, id++, disk, me, me, PF | W | SY, 0, a0, -1,
			      a0 + d, -1);
			break;
		default: /* native FUA write by a syncer */
			tl_rq(tl, id++, disk, me, me, W | SY | FUA,
			      W | SY | FUA, a0, a0 + q, a0 + q + d, -1);
			break;
		}
	}
}

static void random_vs_engine(void)
{
	int rounds = 40, bad = 0, syncs = 0;

	for (int r = 0; r < rounds; r++) {
		struct timeline tl = { 0 };
		int n;

		random_round(&tl, 200000 + ck_rand(400000), 300 + ck_rand(900));
		n = tl.nsync;
		syncs += n;
		bad += tl_compare(&tl, &ck);
	}
	printf("# %d rounds, %d syncs, %d differ\n", rounds, syncs, bad);
	CHECK_EQ(bad, 0);
	CHECK(syncs > 1000, "%d syncs", syncs);
}

/* Tables that are full count what they could not take; nothing breaks. */
static void full_tables(void)
{
	__u64 out[FSS_PH_MAX];
	int i;

	fss_clk_init(&ck);
	for (i = 0; i < FSS_CLK_KEYS; i++)
		CHECK_EQ(fss_clk_add_fs(&ck, MKDEV(259, 10 + i), DISK), 0);
	CHECK_EQ(fss_clk_add_fs(&ck, MKDEV(259, 99), DISK), -ENOSPC);
	CHECK_EQ(fss_clk_add_fs(&ck, MKDEV(259, 10), DISK), 0);
	CHECK_EQ(fss_clk_sync_enter(&ck, 1, MKDEV(259, 99), T(1)), -ENOENT);
	for (i = 0; i < FSS_CLK_SYNCS; i++)
		CHECK_EQ(fss_clk_sync_enter(&ck, 100 + i, MKDEV(259, 10), T(1)),
			 0);
	CHECK_EQ(fss_clk_sync_enter(&ck, 1, MKDEV(259, 10), T(1)), -ENOSPC);
	for (i = 0; i < FSS_CLK_RQS + 5; i++)
		fss_clk_rq(&ck, FSS_EV_RQ_START, 0x1000 + 64 * (__u64)i, DISK,
			   9999, W, T(2));
	CHECK(ck.full >= 6, "full %llu", (unsigned long long)ck.full);
	/* a completion of a request never seen changes nothing */
	fss_clk_rq(&ck, FSS_EV_RQ_COMPLETE, 0x77, DISK, 0, W, T(3));
	CHECK_EQ(fss_clk_sync_exit(&ck, 100, T(11), out), 0);
	CHECK_EQ(out[FSS_PH_OTHER], US(10));
}

/*
 * fss_kp_note: the kernel's phases against attribution's, sync by sync
 * (FSYNCSCOPE_KPAINT=1): identical, apart (by how much time), or not
 * painted and why.
 */
static void kp_note(void)
{
	struct fss_kp_stats st = { 0 };
	struct fss_sync_result r = { 0 };
	static const __u32 na[] = { FSS_KP_NOKEY, FSS_KP_TWODISK,
				    FSS_KP_FULL, FSS_KP_RACE };

	r.total = US(100);
	r.phase_ns[FSS_PH_FS] = US(30);
	r.phase_ns[FSS_PH_DEV_FLUSH] = US(70);
	memcpy(r.kphase_ns, r.phase_ns, sizeof(r.kphase_ns));
	r.kflags = FSS_KP_VALID;
	fss_kp_note(&st, &r);
	CHECK_EQ(st.compared, 1);
	CHECK_EQ(st.identical, 1);
	/* 5 us of flush painted as fs: apart by 5 us, not 10 */
	r.kphase_ns[FSS_PH_FS] = US(35);
	r.kphase_ns[FSS_PH_DEV_FLUSH] = US(65);
	r.kflags = FSS_KP_VALID | FSS_KP_CLAMPED;
	fss_kp_note(&st, &r);
	CHECK_EQ(st.compared, 2);
	CHECK_EQ(st.identical, 1);
	CHECK_EQ(st.clamped, 1);
	CHECK_EQ(st.diff_ns, US(5));
	CHECK_EQ(st.max_diff_ns, US(5));
	CHECK_EQ(st.total_ns, US(200));
	/* not painted: each reason counted, nothing compared */
	for (int i = 0; i < 4; i++) {
		r.kflags = FSS_KP_VALID | na[i];
		fss_kp_note(&st, &r);
		CHECK_EQ(st.not_painted[i], 1);
	}
	r.kflags = 0;			/* not sent: off, or io_uring */
	fss_kp_note(&st, &r);
	CHECK_EQ(st.not_painted[4], 1);
	CHECK_EQ(st.syncs, 7);
	CHECK_EQ(st.painted, 2);
	CHECK_EQ(st.compared, 2);
}

/*
 * fss_kp_note_kernel (FSYNCSCOPE_KPAINT=only): a sync record's flags
 * alone, painted or why not, with nothing compared.
 */
static void kp_note_kernel(void)
{
	struct fss_kp_stats st = { 0 };
	static const __u32 na[] = { FSS_KP_NOKEY, FSS_KP_TWODISK,
				    FSS_KP_FULL, FSS_KP_RACE };

	fss_kp_note_kernel(&st, FSS_KP_VALID);
	/* clamped is still painted in full */
	fss_kp_note_kernel(&st, FSS_KP_VALID | FSS_KP_CLAMPED);
	CHECK_EQ(st.painted, 2);
	for (int i = 0; i < 4; i++) {
		fss_kp_note_kernel(&st, FSS_KP_VALID | na[i]);
		CHECK_EQ(st.not_painted[i], 1);
	}
	fss_kp_note_kernel(&st, 0);
	CHECK_EQ(st.not_painted[4], 1);
	CHECK_EQ(st.syncs, 7);
	CHECK_EQ(st.painted, 2);
	CHECK_EQ(st.compared, 0);
	CHECK_EQ(st.identical, 0);
	CHECK_EQ(st.total_ns, 0);
}

static const struct tap_case cases[] = {
	{ "overwrite_pair", overwrite_pair },
	{ "journal_commit", journal_commit },
	{ "random_vs_engine", random_vs_engine },
	{ "full_tables", full_tables },
	{ "nvme_commands", nvme_commands },
	{ "kp_note", kp_note },
	{ "kp_note_kernel", kp_note_kernel },
};
TAP_MAIN(cases)
