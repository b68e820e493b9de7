// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * blame_json.c - a sync's blame list as JSON (the --events records, the
 * documents) and as the short text of a --slower line.
 */
#include <stdio.h>
#include <string.h>
#include "doc/blame_json.h"
#include "lib/comm.h"

/* comm as ASCII: bytes outside printable ASCII become '?' */
static struct json_object *u64_json(__u64 v)
{
	return json_object_new_uint64(v);
}

/* {syncs, by: [{pid, comm, syncs}], unlisted}; null: no flush seen */
static struct json_object *coal_json(const struct fss_blame_coal *c)
{
	struct json_object *o, *by;
	char comm[FSS_COMM_UTF8_LEN(FSS_COMM_LEN)];

	if (!c->valid)
		return NULL;
	o = json_object_new_object();
	by = json_object_new_array();
	json_object_object_add(o, "syncs", u64_json(c->syncs));
	for (unsigned int i = 0; i < c->n; i++) {
		struct json_object *p = json_object_new_object();

		fss_comm_utf8(comm, sizeof(comm), c->by[i].comm, FSS_COMM_LEN);
		json_object_object_add(p, "pid", u64_json(c->by[i].pid));
		json_object_object_add(p, "comm", json_object_new_string(comm));
		json_object_object_add(p, "syncs", u64_json(c->by[i].syncs));
		json_object_array_add(by, p);
	}
	json_object_object_add(o, "by", by);
	json_object_object_add(o, "unlisted", u64_json(c->unlisted));
	return o;
}

static struct json_object *evidence_json(const struct fss_blame_entry *x,
					 const struct fss_blame_coal *coal)
{
	struct json_object *o = json_object_new_object();
	const struct fss_blame_evidence *e = &x->ev;

	if (x->phase == FSS_PH_JOURNAL && e->xfs) {
		/* the xfs log checkpoint(s) the sync's log force waited for */
		json_object_object_add(o, "xfs_cil_seq", u64_json(e->jtid));
		json_object_object_add(o, "checkpoints", u64_json(e->ntx));
		json_object_object_add(o, "log_bytes", u64_json(e->units));
		json_object_object_add(o, "transactions", u64_json(e->count));
		json_object_object_add(o, "checkpoint_log_bytes",
				       u64_json(e->units_total));
		json_object_object_add(o, "checkpoint_transactions",
				       u64_json(e->count_total));
		return o;
	}
	if (x->phase == FSS_PH_JOURNAL) {
		json_object_object_add(o, "jbd2_tid", e->ntx ?
				       u64_json(e->jtid) : NULL);
		json_object_object_add(o, "transactions", u64_json(e->ntx));
		json_object_object_add(o, "blocks", u64_json(e->units));
		json_object_object_add(o, "handles", u64_json(e->count));
		json_object_object_add(o, "tx_blocks", u64_json(e->units_total));
		json_object_object_add(o, "tx_handles", u64_json(e->count_total));
		/* jbd2_run_stats: the journal's own count (null: not seen) */
		json_object_object_add(o, "tx_blocks_logged", e->tx_blocks_logged ?
				       u64_json(e->tx_blocks_logged) : NULL);
		return o;
	}
	json_object_object_add(o, "bytes", u64_json(e->units));
	json_object_object_add(o, "requests", u64_json(e->count));
	json_object_object_add(o, "bytes_total", u64_json(e->units_total));
	json_object_object_add(o, "requests_total", u64_json(e->count_total));
	if (x->phase == FSS_PH_DEV_FLUSH) {
		json_object_object_add(o, "flushes", u64_json(e->nflush));
		json_object_object_add(o, "coalesced", coal_json(coal));
	}
	return o;
}

static struct json_object *entry_json(const struct fss_blame_entry *x,
				      const struct fss_blame_coal *coal,
				      fss_cgroup_path_fn path, void *arg)
{
	struct json_object *o = json_object_new_object();
	const char *cg = !x->reason && path && x->cgroup_id ?
			 path(x->cgroup_id, arg) : NULL;
	char comm[FSS_COMM_UTF8_LEN(FSS_COMM_LEN)], dev[24];

	fss_comm_utf8(comm, sizeof(comm), x->comm, FSS_COMM_LEN);
	json_object_object_add(o, "pid", x->reason ? NULL : u64_json(x->pid));
	json_object_object_add(o, "comm", x->reason ? NULL :
			       json_object_new_string(comm));
	json_object_object_add(o, "cgroup_id", x->reason || !x->cgroup_id ?
			       NULL : u64_json(x->cgroup_id));
	json_object_object_add(o, "cgroup", cg ? json_object_new_string(cg) : NULL);
	json_object_object_add(o, "phase", json_object_new_string(
				       fss_phase_name(x->phase)));
	json_object_object_add(o, "blamed_ns", u64_json(x->blamed_ns));
	json_object_object_add(o, "share", json_object_new_double(x->share));
	if (x->reason) {
		json_object_object_add(o, "unattributed",
				       json_object_new_string(x->reason));
	} else {
		json_object_object_add(o, "self", json_object_new_boolean(x->self));
		/* fsyncscope's own process: never a neighbour */
		json_object_object_add(o, "tool", json_object_new_boolean(x->tool));
		/* a kernel thread's own I/O (not writeback credited to a
		 * dirtier): filesystem or block workers (docs/blame.md) */
		json_object_object_add(o, "kernel_thread", json_object_new_boolean(
			(x->flags & FSS_BL_KTHREAD) &&
			!(x->flags & FSS_BL_OWNER)));
	}
	if (x->flags & FSS_BL_WB) {
		struct json_object *w = json_object_new_object();

		snprintf(dev, sizeof(dev), "%u:%u", x->wb_dev >> 20,
			 x->wb_dev & 0xfffff);
		json_object_object_add(w, "dev", json_object_new_string(dev));
		json_object_object_add(w, "ino", x->ino ? u64_json(x->ino) : NULL);
		json_object_object_add(w, "credited_to_dirtier",
				       json_object_new_boolean(x->flags & FSS_BL_OWNER));
		json_object_object_add(o, "writeback", w);
	}
	json_object_object_add(o, "evidence", evidence_json(x, coal));
	return o;
}

struct json_object *fss_blame_json(const struct fss_blame_list *l,
				   fss_cgroup_path_fn path, void *arg)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; l && i < l->n; i++)
		json_object_array_add(a, entry_json(&l->e[i], &l->coal, path,
						    arg));
	return a;
}

/* "pid 8123 rsync", "self", "writeback of dev 7:0 ino 12" */
static void who(const struct fss_blame_entry *x, char *buf, size_t n)
{
	char comm[FSS_COMM_UTF8_LEN(FSS_COMM_LEN)];

	fss_comm_utf8(comm, sizeof(comm), x->comm, FSS_COMM_LEN);
	if (x->self)
		snprintf(buf, n, "self");
	else if (x->tool)
		snprintf(buf, n, "fsyncscope itself");
	else if ((x->flags & FSS_BL_WB) && !(x->flags & FSS_BL_OWNER))
		snprintf(buf, n, "writeback of dev %u:%u ino %llu",
			 x->wb_dev >> 20, x->wb_dev & 0xfffff,
			 (unsigned long long)x->ino);
	else
		snprintf(buf, n, "pid %u %s", x->pid, comm);
}

void fss_blame_brief(const struct fss_blame_list *l, char *buf, size_t n)
{
	size_t len = 0, shown = 0;

	if (!n)
		return;
	buf[0] = 0;
	/* the three largest named causes, largest first */
	for (size_t i = 0; l && i < l->n && shown < 3 && len + 1 < n; i++) {
		const struct fss_blame_entry *x = &l->e[i];
		char w[64];

		if (x->reason)
			continue;
		who(x, w, sizeof(w));
		len += snprintf(buf + len, n - len, "%s%s %.0f%% %s",
				shown ? "; " : "", fss_phase_name(x->phase),
				x->share * 100, w);
		shown++;
		if (len >= n)
			len = n - 1;
	}
}

void fss_blame_add_json(struct json_object *o, const struct fss_blame_list *l,
			fss_cgroup_path_fn path, void *arg)
{
	json_object_object_add(o, "blame", fss_blame_json(l, path, arg));
	json_object_object_add(o, "blame_self_ns", u64_json(l->self_ns));
	json_object_object_add(o, "blame_others_ns", u64_json(l->others_ns));
	json_object_object_add(o, "blame_unattributed_ns",
			       u64_json(l->unattributed_ns));
}
