// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * blame_sync.c - the blame of one attributed sync (docs/blame.md).
 *
 * Each blamed phase gathers its causes in an accumulator: a weight per
 * owner (journal: the share of the blocks of each transaction waited for,
 * weighted by how long the sync overlapped its commit; the others:
 * bytes), with the counts it came from.  A cause's share is its weight
 * over the phase's total weight and its blamed time that share of the
 * phase's time.  Weight nobody can be named for (no handle or submitter
 * seen, tables full) stays unattributed, with its reason.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "engine/blame/blame_int.h"

#define OWN_MAX		64	/* own requests looked at for queue blame */
/*
 * A request issued ahead of one of the sync's own is looked for among
 * those completed by the sync's end plus this: the log is in completion
 * order, and a sync is blamed 300 ms after it ends (scanning to the log's
 * end would cost O(requests in 300 ms) per sync).
 */
#define AHEAD_SLACK_NS	(10ULL * 1000 * 1000)
#define RESERVED	4	/* list slots kept for "smaller causes" */

struct own {
	__u64 from, to;		/* [start, issue) of one of the sync's requests */
};

/* Per-sync work space, made once per fss_blame (no allocation per sync). */
struct scratch {
	struct acc acc[FSS_PH_MAX];
	struct own own[OWN_MAX];
	unsigned int nown;
	__u64 fl[BL_NFL];	/* completion of the flushes waited for */
	unsigned int nfl;
	struct fss_blame_entry all[4 * (BL_NACC + 1)];
};

static struct scratch *scratch_get(struct fss_blame *b)
{
	struct scratch *sc = b->scratch;

	if (!sc)
		sc = b->scratch = malloc(sizeof(*sc));
	if (!sc)
		return NULL;
	for (int ph = 0; ph < FSS_PH_MAX; ph++)
		memset(&sc->acc[ph], 0, offsetof(struct acc, it));
	sc->nown = 0;
	return sc;
}

static const char *const R_UNKNOWN_RQ =
	"submitter not seen (request made before tracing, or no block_io_start)";
static const char *const R_FOLDED =
	"more contributors than the tables hold";

/* ---- the request log ---- */

static __u64 log_first(const struct disk_log *d)
{
	return d->n > BL_NLOG ? d->n - BL_NLOG : 0;
}

static const struct done *log_at(const struct disk_log *d, __u64 i)
{
	return &d->log[i % BL_NLOG];
}

/* First logical index completed at or after ts (the log is in that order). */
static __u64 log_lower(const struct disk_log *d, __u64 ts)
{
	__u64 lo = log_first(d), hi = d->n;

	while (lo < hi) {
		__u64 mid = lo + (hi - lo) / 2;

		if (log_at(d, mid)->complete < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Credit a completed request's bytes.  The journal thread's requests
 * during a commit carry that transaction's blocks: their bytes go to its
 * contributors in proportion to their blocks.
 */
static void credit_rq(struct fss_blame *b, struct acc *a, const struct done *x)
{
	const struct commit *c = NULL;
	struct tx *t = NULL;
	double bytes = x->bytes;

	a->count_total++;
	a->units_total_raw += x->bytes;
	if (b->xsplit.n && fss_blame__xfs_credit_rq(b, a, x))
		return;
	if (x->flags & D_OWNED)
		c = fss_blame__commit_of_rq(b, x->tid,
					    x->start ? x->start : x->issue);
	if (c)
		t = fss_blame__tx_find(b, c->dev, c->jtid, false);
	if (!t || !t->blocks) {
		fss_blame__acc_add(a, x->owner, bytes, x->bytes, 1);
		return;
	}
	for (unsigned int i = 0; i < t->ncontrib; i++) {
		double w = bytes * (double)t->c[i].blocks / (double)t->blocks;

		if (t->c[i].blocks)
			fss_blame__acc_add(a, t->c[i].owner, w, llround(w), 1);
	}
	if (t->folded_blocks) {
		double w = bytes * (double)t->folded_blocks / (double)t->blocks;

		a->units_total += w;
		a->folded += w;
	}
}

/* ---- journal ---- */

static void journal_commit(struct fss_blame *b, struct acc *a,
			   const struct commit *c, double w)
{
	struct tx *t = fss_blame__tx_find(b, c->dev, c->jtid, false);
	bool by_blocks = t && t->blocks;
	__u64 total = !t ? 0 : by_blocks ? t->blocks : t->handles;

	if (!a->ntx)
		a->jtid = c->jtid;
	a->ntx++;
	if (!total) {
		a->units_total += w;
		a->folded += w;
		a->reason = "no jbd2 handle seen for the transaction";
		return;
	}
	a->count_total += t->handles;
	a->units_total_raw += t->blocks;
	if (t->have_stats) {
		a->tx_blocks_logged += t->st_logged;
		a->tx_handles_stats += t->st_handles;
	}
	for (unsigned int i = 0; i < t->ncontrib; i++) {
		__u64 u = by_blocks ? t->c[i].blocks : t->c[i].handles;

		if (u)
			fss_blame__acc_add(a, t->c[i].owner, w * u / total,
					   t->c[i].blocks, t->c[i].handles);
	}
	if (by_blocks ? t->folded_blocks : t->folded_handles) {
		double f = w * (by_blocks ? t->folded_blocks :
				t->folded_handles) / total;

		a->units_total += f;
		a->folded += f;
	}
}

static void blame_journal(struct fss_blame *b, const struct fss_sync_result *res,
			  struct acc *a)
{
	__u64 s = res->start, e = res->start + res->total;
	__u64 first = fss_blame__commit_lower(b, s);
	double sum = 0;
	int pass;

	if (!res->phase_ns[FSS_PH_JOURNAL])
		return;
	/*
	 * Commits in end order from the first to end in the sync; pass 0
	 * sums the overlaps, pass 1 splits by them
	 */
	for (pass = 0; pass < 2; pass++) {
		for (__u64 k = first, after = 0; k < b->ncommits && after < 64;
		     k++) {
			const struct commit *c = &b->commits[k % BL_NCOMMIT];

			if (c->end > e)
				after++;
			__u64 from = c->start > s ? c->start : s;
			__u64 to = c->end < e ? c->end : e;
			double ov;

			if (c->dev != res->dev || c->end < s || c->start > e)
				continue;
			ov = to > from ? (double)(to - from) : 1.0;
			if (pass == 0)
				sum += ov;
			else
				journal_commit(b, a, c, ov / sum);
		}
		if (pass == 0 && sum == 0) {
			if (fss_blame__xfs_journal(b, res, a))
				return;
			a->reason = "no jbd2 commit or xfs log force seen during "
				    "the sync (its records were lost, or a journal "
				    "not tied to processes, e.g. btrfs's log tree)";
			return;
		}
	}
}

/* ---- queue, device_write, device_flush ---- */

/* Is x one of the sync's own requests (its thread's, or its commit's)? */
static bool rq_is_own(struct fss_blame *b, const struct fss_sync_result *res,
		      const struct done *x)
{
	const struct commit *c;

	if (!(x->flags & D_OWNED))
		return false;
	if (x->tid == res->tid)
		return true;
	c = fss_blame__commit_of_rq(b, x->tid, x->start ? x->start : x->issue);
	return c && c->dev == res->dev && c->end >= res->start &&
	       c->start <= res->start + res->total;
}

/*
 * The sync's own requests' queue stretches [start, issue), and the window
 * [*lo, *hi) they span.
 */
static void queue_own(struct fss_blame *b, const struct fss_sync_result *res,
		      const struct disk_log *d, struct scratch *sc,
		      __u64 *lo, __u64 *hi)
{
	__u64 s = res->start, e = res->start + res->total;

	sc->nown = 0;
	*lo = UINT64_MAX;
	*hi = 0;
	for (__u64 i = log_lower(d, s); i < d->n && sc->nown < OWN_MAX; i++) {
		const struct done *x = log_at(d, i);

		if (x->complete > e)
			break;
		if (x->start >= s && x->issue > x->start && rq_is_own(b, res, x)) {
			sc->own[sc->nown].from = x->start;
			sc->own[sc->nown].to = x->issue;
			sc->nown++;
			if (x->start < *lo)
				*lo = x->start;
			if (x->issue > *hi)
				*hi = x->issue;
		}
	}
}

static bool issued_ahead(const struct scratch *sc, const struct done *x)
{
	for (unsigned int k = 0; k < sc->nown; k++)
		if (x->issue >= sc->own[k].from && x->issue < sc->own[k].to &&
		    !(x->start == sc->own[k].from && x->issue == sc->own[k].to))
			return true;
	return false;
}

/*
 * Requests issued in [lo, hi) while one of the sync's own waited, among
 * those completed from lo (issue <= completion) to the sync's end plus
 * AHEAD_SLACK_NS.  A whole block of the log whose earliest issue is at or
 * after hi holds none: skipped (at 10k+ requests a second the slack alone
 * is hundreds of requests per sync).
 */
static void queue_ahead(struct fss_blame *b, const struct fss_sync_result *res,
			const struct disk_log *d, struct scratch *sc,
			__u64 lo, __u64 hi)
{
	struct acc *a = &sc->acc[FSS_PH_QUEUE];
	__u64 end = res->start + res->total + AHEAD_SLACK_NS;

	for (__u64 i = log_lower(d, lo); i < d->n; i++) {
		const struct done *x = log_at(d, i);

		if (x->complete > end)
			break;
		if (i % BL_LOGBLK == 0 &&
		    d->blk_issue[i % BL_NLOG / BL_LOGBLK] >= hi) {
			i += BL_LOGBLK - 1;
			continue;
		}
		if (x->issue >= lo && x->issue < hi && issued_ahead(sc, x))
			credit_rq(b, a, x);
	}
}

static void blame_queue(struct fss_blame *b, const struct fss_sync_result *res,
			const struct disk_log *d, struct scratch *sc)
{
	struct acc *a = &sc->acc[FSS_PH_QUEUE];
	__u64 lo, hi;

	if (!res->phase_ns[FSS_PH_QUEUE])
		return;
	queue_own(b, res, d, sc, &lo, &hi);
	if (!sc->nown) {
		a->reason = "none of the sync's requests was seen queued";
		return;
	}
	queue_ahead(b, res, d, sc, lo, hi);
	if (!a->units_total)
		a->reason = "no request was issued ahead of the sync's own";
}

static void blame_write(struct fss_blame *b, const struct fss_sync_result *res,
			const struct disk_log *d, struct acc *a)
{
	__u64 e = res->start + res->total;

	if (!res->phase_ns[FSS_PH_DEV_WRITE])
		return;
	for (__u64 i = log_lower(d, res->start); i < d->n; i++) {
		const struct done *x = log_at(d, i);

		if (x->complete > e)
			break;
		if (x->flags & D_WRITE)
			credit_rq(b, a, x);
	}
	if (!a->units_total)
		a->reason = "no write completed on the device during the sync";
}

/*
 * Issue time of the flush issued last before ts: 0 when none was seen
 * since tracing began, UINT64_MAX when it fell out of the history.  The
 * ring is in completion order, which is issue order but for flushes in
 * flight together: a binary search, then a look at the neighbours.
 */
static __u64 flush_before(const struct disk_log *d, __u64 ts)
{
	__u64 first = d->nflush > BL_NFLUSH ? d->nflush - BL_NFLUSH : 0;
	__u64 lo = first, hi = d->nflush, best = 0;

	while (lo < hi) {
		__u64 mid = lo + (hi - lo) / 2;

		if (d->flush_issue[mid % BL_NFLUSH] < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (__u64 i = lo > first + 8 ? lo - 8 : first;
	     i < d->nflush && i < lo + 8; i++) {
		__u64 t = d->flush_issue[i % BL_NFLUSH];

		if (t < ts && t > best)
			best = t;
	}
	if (!best && first)
		return UINT64_MAX;
	return best;
}

static void blame_flush(struct fss_blame *b, const struct fss_sync_result *res,
			const struct disk_log *d, struct scratch *sc)
{
	struct acc *a = &sc->acc[FSS_PH_DEV_FLUSH];
	__u64 s = res->start, e = res->start + res->total;
	__u64 lo = UINT64_MAX, hi = 0;

	sc->nfl = 0;
	if (!res->phase_ns[FSS_PH_DEV_FLUSH])
		return;
	for (__u64 i = log_lower(d, s); i < d->n; i++) {
		const struct done *x = log_at(d, i);
		__u64 is = x->issue ? x->issue : x->complete;

		if (x->complete > e)
			break;
		if (!(x->flags & D_FLUSH))
			continue;
		a->nflush++;
		if (sc->nfl < BL_NFL)	/* for the coalesced syncs */
			sc->fl[sc->nfl++] = x->complete;
		if (is < lo)
			lo = is;
		if (is > hi)
			hi = is;
	}
	if (!a->nflush) {
		a->reason = "no flush request seen completing during the sync";
		return;
	}
	/* what the flushes made durable: writes completed since the last */
	lo = flush_before(d, lo);
	if (lo == UINT64_MAX ||
	    (log_first(d) && lo < log_at(d, log_first(d))->complete)) {
		b->st.log_overrun++;
		a->reason = "the flush before is past the request history";
		return;
	}
	for (__u64 i = log_lower(d, lo + 1); i < d->n; i++) {
		const struct done *x = log_at(d, i);

		if (x->complete > hi)
			break;
		if (x->flags & D_WRITE)
			credit_rq(b, a, x);
	}
	if (!a->units_total)
		a->reason = "the flush had no write to make durable";
}

/* ---- the list ---- */

static void entry_fill(const struct fss_blame *b, struct fss_blame_entry *x,
		       const struct acc *a, const struct acc_item *it,
		       unsigned int ph, __u64 phase_ns, __u32 pid)
{
	const struct owner *o = &b->owners[it->owner];

	memset(x, 0, sizeof(*x));
	x->phase = ph;
	x->share = it->weight / a->units_total;
	x->blamed_ns = (__u64)floor(x->share * (double)phase_ns);
	x->ev.units = it->units;
	x->ev.units_total = a->units_total_raw;
	x->ev.count = it->count;
	x->ev.count_total = a->count_total;
	x->ev.jtid = a->jtid;
	x->ev.ntx = a->ntx;
	x->ev.nflush = a->nflush;
	x->ev.tx_blocks_logged = a->tx_blocks_logged;
	x->ev.tx_handles = a->tx_handles_stats;
	x->ev.xfs = a->xfs;
	if (it->owner == OWNER_UNKNOWN) {
		x->reason = R_UNKNOWN_RQ;
		return;
	}
	x->pid = o->pid;
	x->cgroup_id = o->cgroup;
	x->flags = o->flags;
	x->wb_dev = o->wb_dev;
	x->ino = o->ino;
	memcpy(x->comm, o->comm, sizeof(x->comm));
	x->self = o->pid == pid;
	x->tool = !x->self && b->opts.tool_pid && o->pid == b->opts.tool_pid;
	if (x->tool)
		x->flags |= FSS_BL_TOOL;
}

static int entry_cmp(const void *p, const void *q)
{
	const struct fss_blame_entry *x = p, *y = q;

	if (x->blamed_ns != y->blamed_ns)
		return x->blamed_ns < y->blamed_ns ? 1 : -1;
	return x->phase < y->phase ? -1 : x->phase > y->phase;
}

/*
 * The causes of one phase, and what is left unattributed, into all[].
 * Blamed times are rounded down; what rounding leaves (a few ns) goes to
 * the largest cause, so only weight nobody is named for is unattributed.
 */
static size_t phase_entries(const struct fss_blame *b, const struct acc *a,
			    unsigned int ph, const struct fss_sync_result *res,
			    struct fss_blame_entry *all)
{
	__u64 P = res->phase_ns[ph], used = 0;
	double shares = 0;
	size_t n = 0, big = 0;

	if (!P)
		return 0;
	if (a->units_total > 0) {
		for (unsigned int i = 0; i < a->n; i++) {
			if (a->it[i].weight <= 0)	/* e.g. a flush ahead */
				continue;
			entry_fill(b, &all[n], a, &a->it[i], ph, P, res->pid);
			used += all[n].blamed_ns;
			shares += all[n].share;
			if (all[n].blamed_ns > all[big].blamed_ns)
				big = n;
			n++;
		}
	}
	if (n && a->folded <= 0 && used < P) {
		all[big].blamed_ns += P - used;
		used = P;
	}
	if (used < P) {
		memset(&all[n], 0, sizeof(all[n]));
		all[n].phase = ph;
		all[n].blamed_ns = P - used;
		all[n].share = shares < 1 ? 1 - shares : 0;
		all[n].reason = a->reason ? a->reason :
				a->folded > 0 ? R_FOLDED : "no cause observed";
		all[n].ev.units_total = a->units_total_raw;
		all[n].ev.count_total = a->count_total;
		n++;
	}
	return n;
}

static void list_fill(struct fss_blame_list *out, struct fss_blame_entry *all,
		      size_t n)
{
	__u64 rest[FSS_PH_MAX] = { 0 };
	double rest_share[FSS_PH_MAX] = { 0 };
	size_t keep = n <= FSS_BLAME_MAX ? n : FSS_BLAME_MAX - RESERVED;

	qsort(all, n, sizeof(*all), entry_cmp);
	for (size_t i = keep; i < n; i++) {
		rest[all[i].phase] += all[i].blamed_ns;
		rest_share[all[i].phase] += all[i].share;
	}
	memcpy(out->e, all, keep * sizeof(*all));
	out->n = keep;
	for (unsigned int ph = 0; ph < FSS_PH_MAX && out->n < FSS_BLAME_MAX;
	     ph++) {
		if (!rest[ph])
			continue;
		memset(&out->e[out->n], 0, sizeof(out->e[0]));
		out->e[out->n].phase = ph;
		out->e[out->n].blamed_ns = rest[ph];
		out->e[out->n].share = rest_share[ph];	/* theirs, summed */
		out->e[out->n].reason = "smaller causes not listed";
		out->n++;
	}
	qsort(out->e, out->n, sizeof(out->e[0]), entry_cmp);
	for (size_t i = 0; i < out->n; i++) {
		const struct fss_blame_entry *x = &out->e[i];

		if (x->reason)
			out->unattributed_ns += x->blamed_ns;
		else if (x->self)
			out->self_ns += x->blamed_ns;
		else
			out->others_ns += x->blamed_ns;
	}
}

int fss_blame_sync(struct fss_blame *b, const struct fss_sync_result *res,
		   struct fss_blame_list *out)
{
	static const unsigned int phases[] = {
		FSS_PH_JOURNAL, FSS_PH_QUEUE, FSS_PH_DEV_WRITE, FSS_PH_DEV_FLUSH,
	};
	struct fss_blame_entry *all;
	struct disk_log *d = NULL;
	struct scratch *sc;
	__u32 disk;
	size_t n = 0;

	if (!b || !res || !out)
		return -EINVAL;
	out->n = 0;
	out->self_ns = out->others_ns = out->unattributed_ns = 0;
	sc = scratch_get(b);
	if (!sc)
		return -ENOMEM;
	all = sc->all;
	fss_blame__xfs_prepare(b, res);	/* its log forces, for credit_rq */
	disk = b->opts.disk_of ? b->opts.disk_of(res->dev, b->opts.disk_of_arg) : 0;
	if (disk)
		d = fss_blame__disk(b, disk, false);
	else if (b->ndisks == 1)
		d = &b->disks[0];
	blame_journal(b, res, &sc->acc[FSS_PH_JOURNAL]);
	if (d) {
		blame_queue(b, res, d, sc);
		blame_write(b, res, d, &sc->acc[FSS_PH_DEV_WRITE]);
		blame_flush(b, res, d, sc);
	} else {
		sc->nfl = 0;
		for (unsigned int k = 1; k < 4; k++)
			sc->acc[phases[k]].reason =
				"no request of the sync's disk was seen";
	}
	for (unsigned int k = 0; k < 4; k++)
		n += phase_entries(b, &sc->acc[phases[k]], phases[k], res,
				   all + n);
	list_fill(out, all, n);
	fss_blame__coalesced(b, res, sc->fl, sc->nfl, &out->coal);
	b->xsplit.n = 0;
	return 0;
}
