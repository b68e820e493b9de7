// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * blame_xfs.c - the journal time of a sync on xfs, by who filled the log
 * checkpoint(s) it forced (docs/blame.md, "xfs").
 *
 * xfs has no commit thread to match by time: the syncing thread forces
 * the log itself (xfs_log_force_seq) up to a CIL sequence, the checkpoint
 * its inode was last logged in.  The BPF side (bpf/blame_xfs.bpf.c)
 * records each committed transaction with the sequence of the checkpoint
 * it went into and the log bytes it used (an FSS_EV_JHANDLE with
 * FSS_BL_XFS, kept in the transaction table of blame.c under (fs dev,
 * sequence)), and each log force of a traced sync with the sequence it
 * forces.  A sync's journal time is split equally among the distinct
 * checkpoints it forced, and within one among the processes whose
 * transactions are in it, by log bytes.
 */
#include <math.h>
#include <string.h>
#include "engine/blame/blame_int.h"

#define XF_SLACK_NS	(1000ULL * 1000)	/* records from other CPUs */
#define XF_SCAN		512	/* forces looked at per sync */
#define XF_NSEQ		8		/* checkpoints per sync */

void fss_blame__xfs_force(struct fss_blame *b, const struct fss_event *ev)
{
	struct xforce *f = &b->xforces[b->nxforces++ % BL_NXFORCE];

	f->ts = ev->ts;
	f->seq = ev->blame.id;
	f->dev = ev->dev;
	f->tid = ev->tid;
}

static __u64 xf_first(const struct fss_blame *b)
{
	return b->nxforces > BL_NXFORCE ? b->nxforces - BL_NXFORCE : 0;
}

/* First logical index at or after ts (the ring is nearly in ts order). */
static __u64 xf_lower(const struct fss_blame *b, __u64 ts)
{
	__u64 lo = xf_first(b), hi = b->nxforces;

	while (lo < hi) {
		__u64 mid = lo + (hi - lo) / 2;

		if (b->xforces[mid % BL_NXFORCE].ts < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The distinct sequences the sync's thread forced on its fs; how many.
 * *first: the time of the first force.
 */
static unsigned int xf_seqs(const struct fss_blame *b,
			    const struct fss_sync_result *res, __u64 *seq,
			    __u64 *first)
{
	__u64 s = res->start, e = res->start + res->total;
	__u64 i = xf_lower(b, s > XF_SLACK_NS ? s - XF_SLACK_NS : 0);
	unsigned int n = 0, k;

	for (unsigned int scanned = 0; i < b->nxforces && scanned < XF_SCAN;
	     i++, scanned++) {
		const struct xforce *f = &b->xforces[i % BL_NXFORCE];

		if (f->ts > e + XF_SLACK_NS)
			break;
		if (f->tid != res->tid || f->dev != res->dev || f->ts < s ||
		    f->ts > e)
			continue;
		if (!n || f->ts < *first)
			*first = f->ts;
		for (k = 0; k < n && seq[k] != f->seq; k++)
			;
		if (k == n && n < XF_NSEQ)
			seq[n++] = f->seq;
	}
	return n;
}

/* Split weight w of the journal time among checkpoint seq's contributors. */
static void xfs_checkpoint(struct fss_blame *b, struct acc *a, __u32 dev,
			   __u64 seq, double w)
{
	struct tx *t = fss_blame__tx_find(b, dev, (__u32)seq, false);

	if (!a->ntx)
		a->jtid = (__u32)seq;
	a->ntx++;
	if (!t || !t->blocks) {
		a->units_total += w;
		a->folded += w;
		a->reason = "no xfs transaction seen in the checkpoint its log "
			    "force waited for (committed before tracing, or "
			    "its records were lost)";
		return;
	}
	a->count_total += t->handles;
	a->units_total_raw += t->blocks;
	for (unsigned int i = 0; i < t->ncontrib; i++)
		if (t->c[i].blocks)
			fss_blame__acc_add(a, t->c[i].owner,
					   w * t->c[i].blocks / t->blocks,
					   t->c[i].blocks, t->c[i].handles);
	if (t->folded_blocks) {
		double f = w * t->folded_blocks / t->blocks;

		a->units_total += f;
		a->folded += f;
	}
}

bool fss_blame__xfs_journal(struct fss_blame *b,
			    const struct fss_sync_result *res, struct acc *a)
{
	__u64 seq[XF_NSEQ], first = 0;
	unsigned int n = xf_seqs(b, res, seq, &first);

	if (!n)
		return false;
	a->xfs = true;
	for (unsigned int k = 0; k < n; k++)
		xfs_checkpoint(b, a, res->dev, seq[k], 1.0 / n);
	return true;
}

void fss_blame__xfs_prepare(struct fss_blame *b,
			    const struct fss_sync_result *res)
{
	_Static_assert(sizeof(b->xsplit.seq) / sizeof(b->xsplit.seq[0]) ==
		       XF_NSEQ, "xsplit holds XF_NSEQ checkpoints");
	b->xsplit.n = xf_seqs(b, res, b->xsplit.seq, &b->xsplit.from);
	b->xsplit.dev = res->dev;
}

/*
 * The CIL push kworker writes the checkpoints a force waits for (and
 * xfsaild, a kernel thread too, writes metadata back in place): neither
 * says which checkpoint a write carries.  A kernel thread's metadata
 * write (REQ_META, not writeback of an inode) made after the sync's first
 * log force is taken as carrying the checkpoints the sync forced: its
 * bytes are split among their contributors by log bytes, each checkpoint
 * equally (as the journal time is).
 */
bool fss_blame__xfs_credit_rq(struct fss_blame *b, struct acc *a,
			      const struct done *x)
{
	const struct owner *o = &b->owners[x->owner];
	unsigned int n = b->xsplit.n;
	bool any = false;

	if (!(x->flags & D_OWNED) || !(x->flags & D_META) ||
	    !(o->flags & FSS_BL_KTHREAD) || (o->flags & FSS_BL_WB) ||
	    (x->start ? x->start : x->issue) < b->xsplit.from)
		return false;
	for (unsigned int k = 0; k < n; k++) {
		__u32 seq = (__u32)b->xsplit.seq[k];
		struct tx *t = fss_blame__tx_find(b, b->xsplit.dev, seq,
						  false);
		double part = (double)x->bytes / n;

		if (!t || !t->blocks) {
			a->units_total += part;
			a->folded += part;
			continue;
		}
		any = true;
		for (unsigned int i = 0; i < t->ncontrib; i++) {
			double w = part * t->c[i].blocks / t->blocks;

			if (t->c[i].blocks)
				fss_blame__acc_add(a, t->c[i].owner, w,
						   llround(w), 1);
		}
		if (t->folded_blocks) {
			double f = part * t->folded_blocks / t->blocks;

			a->units_total += f;
			a->folded += f;
		}
	}
	if (!any && !a->reason)
		a->reason = "no xfs transaction seen in the checkpoint its log "
			    "force waited for (committed before tracing, or "
			    "its records were lost)";
	return true;
}
