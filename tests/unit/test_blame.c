// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * test_blame.c - blame (user/blame*.c) over synthetic event streams:
 * exact shares and the counts behind them for the journal (by blocks of
 * the transactions waited for), the queue (requests issued ahead), the
 * device (writes completed during the sync, and what a flush made
 * durable), the journal thread's writes split by transaction, writeback
 * credited to the dirtier, unattributed time with its reason, bounds; on
 * xfs the journal by the log bytes of the checkpoint a log force named.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "doc/blame_json.h"
#include "engine/blame/comms.h"
#include "tap.h"

#define FSDEV	((8u << 20) | 1)	/* 8:1, the filesystem */
#define DISK	(7u << 20)		/* 7:0, its disk */
#define JBD2	50			/* the journal thread */
#define NEAR(a, b)	(fabs((a) - (b)) < 1e-9)

static __u32 disk_of(__u32 fs, void *arg)
{
	return fs == FSDEV ? DISK : 0;
}

static struct fss_blame *mk(void)
{
	struct fss_blame_opts o = { .disk_of = disk_of };

	return fss_blame_new(&o);
}

static void add(struct fss_blame *b, const struct fss_event *e)
{
	CHECK(fss_blame_add(b, e) == 0, "add type %u", e->type);
}

static void handle(struct fss_blame *b, __u32 pid, const char *comm,
		   __u32 jtid, __u32 blocks, __u64 cg)
{
	struct fss_event e = { .type = FSS_EV_JHANDLE, .pid = pid, .tid = pid,
			       .dev = FSDEV, .ts = 1 };

	e.blame.jtid = jtid;
	e.blame.blocks = blocks;
	e.blame.handles = 1;
	e.blame.cgroup = cg;
	memcpy(e.comm, comm, strnlen(comm, sizeof(e.comm) - 1));
	add(b, &e);
}

static void commit(struct fss_blame *b, __u32 jtid, __u64 from, __u64 to)
{
	struct fss_event e = { .type = FSS_EV_JOURNAL, .pid = JBD2, .tid = JBD2,
			       .dev = FSDEV, .ts = from, .ts_end = to };

	e.journal.transaction = jtid;
	add(b, &e);
}

/* A whole request: owner record (unless pid 0), start, issue, complete. */
static void rq(struct fss_blame *b, __u64 id, __u32 pid, const char *comm,
	       __u32 flags, __u32 bytes, __u64 start, __u64 issue, __u64 done)
{
	struct fss_event e = { .dev = DISK, .pid = pid, .tid = pid };

	if (pid) {
		e.type = FSS_EV_RQ_OWNER;
		e.ts = start;
		e.blame.id = id;
		e.blame.blocks = bytes;
		strncpy(e.comm, comm, sizeof(e.comm) - 1);
		add(b, &e);
	}
	memset(&e, 0, sizeof(e));
	e.dev = DISK;
	e.rq.id = id;
	e.rq.bytes = bytes;
	if (start) {
		e.type = FSS_EV_RQ_START;
		e.ts = start;
		add(b, &e);
	}
	e.type = FSS_EV_RQ_ISSUE;
	e.ts = issue;
	e.rq.flags = flags;
	add(b, &e);
	e.type = FSS_EV_RQ_COMPLETE;
	e.ts = done;
	add(b, &e);
}

static struct fss_sync_result sync_of(__u32 pid, __u64 start, __u64 end)
{
	struct fss_sync_result r = { .start = start, .total = end - start,
				     .pid = pid, .tid = pid, .dev = FSDEV };

	return r;
}

/* The entry of pid (0: the unattributed one) in phase ph, or NULL. */
static const struct fss_blame_entry *find(const struct fss_blame_list *l,
					  unsigned int ph, __u32 pid)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->e[i].phase == ph && (pid ? l->e[i].pid == pid && !l->e[i].reason
					    : l->e[i].reason != NULL))
			return &l->e[i];
	return NULL;
}

/* Shares of each phase add up to exactly 1 with the unattributed rest. */
static void check_sums(const struct fss_blame_list *l,
		       const struct fss_sync_result *r)
{
	for (unsigned int ph = 0; ph < FSS_PH_MAX; ph++) {
		double share = 0;
		__u64 ns = 0;

		for (size_t i = 0; i < l->n; i++)
			if (l->e[i].phase == ph) {
				share += l->e[i].share;
				ns += l->e[i].blamed_ns;
			}
		CHECK(share <= 1 + 1e-9, "phase %u shares %g", ph, share);
		CHECK(ns == (ph == FSS_PH_JOURNAL || ph == FSS_PH_QUEUE ||
			     ph == FSS_PH_DEV_WRITE || ph == FSS_PH_DEV_FLUSH ?
			     r->phase_ns[ph] : 0),
		      "phase %u blamed %llu of %llu", ph, (unsigned long long)ns,
		      (unsigned long long)r->phase_ns[ph]);
	}
	for (size_t i = 1; i < l->n; i++)
		CHECK(l->e[i - 1].blamed_ns >= l->e[i].blamed_ns, "sorted at %zu", i);
}

static void journal_split(void)
{
	struct fss_blame *b = mk();
	struct fss_sync_result r = sync_of(100, 0, 6000);
	struct fss_blame_list l;
	const struct fss_blame_entry *x;
	struct fss_event st = { .type = FSS_EV_JSTATS, .dev = FSDEV, .tid = JBD2 };

	handle(b, 100, "appender", 10, 2, 1);
	handle(b, 200, "storm", 10, 3, 2);
	handle(b, 200, "storm", 10, 3, 2);
	handle(b, 300, "idle", 10, 0, 3);
	handle(b, 400, "other-tx", 11, 9, 4);
	st.blame.jtid = 10;
	st.blame.handles = 4;
	st.blame.blocks = 8;
	st.blame.logged = 12;
	add(b, &st);
	commit(b, 10, 1000, 5000);
	r.phase_ns[FSS_PH_JOURNAL] = 4000;
	r.phase_ns[FSS_PH_OTHER] = 2000;
	CHECK(fss_blame_sync(b, &r, &l) == 0, "sync");
	x = find(&l, FSS_PH_JOURNAL, 200);
	CHECK(x && NEAR(x->share, 0.75) && x->blamed_ns == 3000 && !x->self,
	      "storm 3/4: %g %llu", x ? x->share : -1,
	      x ? (unsigned long long)x->blamed_ns : 0ULL);
	CHECK(x && x->ev.units == 6 && x->ev.count == 2 &&
	      x->ev.units_total == 8 && x->ev.count_total == 4 &&
	      x->ev.jtid == 10 && x->ev.ntx == 1 && x->ev.tx_blocks_logged == 12,
	      "storm evidence");
	CHECK(x && x->cgroup_id == 2 && !strcmp(x->comm, "storm"), "storm who");
	x = find(&l, FSS_PH_JOURNAL, 100);
	CHECK(x && NEAR(x->share, 0.25) && x->blamed_ns == 1000 && x->self,
	      "self 1/4");
	CHECK(!find(&l, FSS_PH_JOURNAL, 300), "no blocks, no blame");
	CHECK(!find(&l, FSS_PH_JOURNAL, 400), "other transaction");
	CHECK(!find(&l, FSS_PH_JOURNAL, 0), "nothing unattributed");
	CHECK(l.self_ns == 1000 && l.others_ns == 3000 && !l.unattributed_ns,
	      "self/others %llu %llu", (unsigned long long)l.self_ns,
	      (unsigned long long)l.others_ns);
	check_sums(&l, &r);
	fss_blame_free(b);
}

static void journal_two_commits(void)
{
	struct fss_blame *b = mk();
	struct fss_sync_result r = sync_of(100, 1500, 5000);
	struct fss_blame_list l;
	const struct fss_blame_entry *x;

	handle(b, 200, "storm", 10, 5, 0);
	handle(b, 100, "appender", 11, 1, 0);
	commit(b, 10, 1000, 2000);	/* overlaps 500 */
	commit(b, 11, 2000, 5000);	/* overlaps 3000 */
	commit(b, 12, 6000, 7000);	/* after the sync */
	r.phase_ns[FSS_PH_JOURNAL] = 3500;
	fss_blame_sync(b, &r, &l);
	x = find(&l, FSS_PH_JOURNAL, 200);
	CHECK(x && NEAR(x->share, 1.0 / 7) && x->blamed_ns == 500 &&
	      x->ev.ntx == 2, "storm 1/7");
	x = find(&l, FSS_PH_JOURNAL, 100);
	CHECK(x && NEAR(x->share, 6.0 / 7) && x->blamed_ns == 3000, "self 6/7");
	check_sums(&l, &r);
	fss_blame_free(b);
}

static void journal_unattributed(void)
{
	struct fss_blame *b = mk();
	struct fss_sync_result r = sync_of(100, 0, 1000);
	struct fss_blame_list l;
	const struct fss_blame_entry *x;

	/* no commit at all: the xfs case */
	r.phase_ns[FSS_PH_JOURNAL] = 700;
	fss_blame_sync(b, &r, &l);
	x = find(&l, FSS_PH_JOURNAL, 0);
	CHECK(x && x->blamed_ns == 700 && NEAR(x->share, 1) &&
	      strstr(x->reason, "no jbd2 commit"), "no commit: %s",
	      x ? x->reason : "-");
	CHECK(l.n == 1 && l.unattributed_ns == 700, "only that");
	/* a commit whose handles were never seen */
	commit(b, 20, 100, 900);
	fss_blame_sync(b, &r, &l);
	x = find(&l, FSS_PH_JOURNAL, 0);
	CHECK(x && x->blamed_ns == 700 && strstr(x->reason, "no jbd2 handle"),
	      "no handles: %s", x ? x->reason : "-");
	check_sums(&l, &r);
	fss_blame_free(b);
}

static void flush_payload(void)
{
	struct fss_blame *b = mk();
	struct fss_sync_result r = sync_of(100, 350, 1000);
	struct fss_blame_list l;
	const struct fss_blame_entry *x;

	rq(b, 0x10, 0, "", FSS_RQ_FLUSH, 0, 0, 50, 60);	/* previous flush */
	rq(b, 0x20, 300, "early", FSS_RQ_WRITE, 4096, 20, 30, 40); /* before it */
	rq(b, 0x30, 100, "overwriter", FSS_RQ_WRITE, 8192, 80, 90, 100);
	rq(b, 0x40, 200, "writer", FSS_RQ_WRITE, 65536, 150, 160, 200);
	rq(b, 0x50, 200, "writer", FSS_RQ_WRITE, 65536, 250, 260, 300);
	rq(b, 0x60, 0, "", FSS_RQ_FLUSH, 0, 0, 400, 900);	/* the sync's */
	rq(b, 0x70, 200, "writer", FSS_RQ_WRITE, 4096, 405, 410, 450);
	r.phase_ns[FSS_PH_DEV_FLUSH] = 500;
	r.phase_ns[FSS_PH_DEV_WRITE] = 100;
	r.phase_ns[FSS_PH_OTHER] = 50;
	fss_blame_sync(b, &r, &l);
	x = find(&l, FSS_PH_DEV_FLUSH, 200);
	CHECK(x && NEAR(x->share, 131072.0 / 139264) && x->ev.units == 131072 &&
	      x->ev.count == 2 && x->ev.units_total == 139264 &&
	      x->ev.count_total == 3 && x->ev.nflush == 1, "writer's bytes: %g",
	      x ? x->share : -1);
	CHECK(x && x->blamed_ns - (__u64)floor(500.0 * 131072 / 139264) <= 1,
	      "blamed ns, with the rounding rest");
	x = find(&l, FSS_PH_DEV_FLUSH, 100);
	CHECK(x && x->self && x->ev.units == 8192 &&
	      x->blamed_ns == (__u64)floor(500.0 * 8192 / 139264), "own bytes");
	CHECK(!find(&l, FSS_PH_DEV_FLUSH, 300), "made durable by the earlier flush");
	/* device_write: what completed on the device during the sync */
	x = find(&l, FSS_PH_DEV_WRITE, 200);
	CHECK(x && NEAR(x->share, 1) && x->ev.units == 4096 && x->blamed_ns == 100,
	      "write during the sync");
	check_sums(&l, &r);
	fss_blame_free(b);
}

/* A traced sync record (FSS_EV_SYNC) of thread tid of pid on fs dev. */
static void sync_rec(struct fss_blame *b, __u32 pid, __u32 tid, __u32 dev,
		     const char *comm, __u64 from, __u64 to)
{
	struct fss_event e = { .type = FSS_EV_SYNC, .pid = pid, .tid = tid,
			       .dev = dev, .ts = from, .ts_end = to };

	strncpy(e.comm, comm, sizeof(e.comm) - 1);
	add(b, &e);
}

/* The other syncs served by the flush(es) a sync waited for. */
static void flush_coalesced(void)
{
	struct fss_blame *b = mk();
	struct fss_sync_result r = sync_of(100, 350, 1000);
	struct fss_blame_list l;
	const struct fss_blame_coal *c = &l.coal;
	struct json_object *j, *ev, *co;

	rq(b, 0x10, 0, "", FSS_RQ_FLUSH, 0, 0, 50, 60);	/* previous flush */
	rq(b, 0x30, 100, "overwriter", FSS_RQ_WRITE, 8192, 80, 90, 100);
	rq(b, 0x60, 0, "", FSS_RQ_FLUSH, 0, 0, 400, 900);	/* the sync's */
	sync_rec(b, 300, 300, FSDEV, "early", 100, 800);	/* ends before it */
	sync_rec(b, 200, 200, FSDEV, "ow", 300, 950);
	sync_rec(b, 200, 201, FSDEV, "ow", 850, 920);
	sync_rec(b, 100, 101, FSDEV, "victim", 880, 905);	/* other thread */
	sync_rec(b, 500, 500, DISK + 9, "elsewhere", 400, 950); /* other disk */
	sync_rec(b, 100, 100, FSDEV, "victim", 350, 1000);	/* itself */
	sync_rec(b, 400, 400, FSDEV, "late", 901, 1000);	/* after it */
	sync_rec(b, 300, 302, FSDEV, "long", 500, 1200);
	r.phase_ns[FSS_PH_DEV_FLUSH] = 500;
	fss_blame_sync(b, &r, &l);
	CHECK(c->valid && c->syncs == 4 && c->n == 3 && !c->unlisted,
	      "4 other syncs of 3 processes: %u of %u", c->syncs, c->n);
	CHECK(c->by[0].pid == 200 && c->by[0].syncs == 2 &&
	      !strcmp(c->by[0].comm, "ow"), "most first: pid %u", c->by[0].pid);
	CHECK(c->by[1].pid == 100 && c->by[1].syncs == 1 &&
	      c->by[2].pid == 300 && c->by[2].syncs == 1 &&
	      !strcmp(c->by[2].comm, "long"), "same process, other thread; long");
	/* in the JSON of every device_flush entry */
	j = fss_blame_json(&l, NULL, NULL);
	for (size_t i = 0; i < json_object_array_length(j); i++) {
		ev = json_object_object_get(json_object_array_get_idx(j, i),
					    "evidence");
		co = json_object_object_get(ev, "coalesced");
		CHECK(co && json_object_get_int(json_object_object_get(co, "syncs"))
		      == 4 && json_object_array_length(json_object_object_get(
			      co, "by")) == 3, "coalesced evidence");
	}
	json_object_put(j);
	/* a sync that waited for no flush seen: null, not a zero */
	r = sync_of(100, 1300, 1400);
	r.phase_ns[FSS_PH_DEV_FLUSH] = 50;
	fss_blame_sync(b, &r, &l);
	CHECK(!c->valid, "no flush: not valid");
	j = fss_blame_json(&l, NULL, NULL);
	ev = json_object_object_get(json_object_array_get_idx(j, 0), "evidence");
	CHECK(json_object_object_get_ex(ev, "coalesced", &co) && !co,
	      "no flush: coalesced null");
	json_object_put(j);
	/* more processes than listed: counted */
	rq(b, 0x70, 0, "", FSS_RQ_FLUSH, 0, 0, 2000, 2100);
	for (__u32 p = 1; p <= 10; p++)
		sync_rec(b, 1000 + p, 1000 + p, FSDEV, "many", 1990, 2200);
	r = sync_of(100, 1950, 2150);
	r.phase_ns[FSS_PH_DEV_FLUSH] = 100;
	fss_blame_sync(b, &r, &l);
	CHECK(c->syncs == 10 && c->n == FSS_BLAME_COAL_MAX && c->unlisted == 2,
	      "10 processes: %u listed, %u not", c->n, c->unlisted);
	fss_blame_free(b);
}

static void queue_ahead(void)
{
	struct fss_blame *b = mk();
	struct fss_sync_result r = sync_of(100, 90, 700);
	struct fss_blame_list l;
	const struct fss_blame_entry *x;

	rq(b, 0x10, 300, "before", FSS_RQ_WRITE, 512, 40, 50, 120);
	rq(b, 0x20, 200, "ahead", FSS_RQ_WRITE, 4096, 150, 200, 300);
	rq(b, 0x30, 200, "ahead", FSS_RQ_READ, 1024, 210, 220, 310);
	rq(b, 0x40, 100, "victim", FSS_RQ_WRITE, 8192, 100, 500, 600);
	rq(b, 0x50, 200, "ahead", FSS_RQ_WRITE, 4096, 650, 660, 690);
	r.phase_ns[FSS_PH_QUEUE] = 400;
	fss_blame_sync(b, &r, &l);
	x = find(&l, FSS_PH_QUEUE, 200);
	CHECK(x && NEAR(x->share, 1) && x->ev.units == 5120 && x->ev.count == 2 &&
	      x->ev.count_total == 2 && x->blamed_ns == 400, "two ahead");
	CHECK(!find(&l, FSS_PH_QUEUE, 300) && !find(&l, FSS_PH_QUEUE, 100),
	      "issued before / its own");
	/* a sync whose requests were not seen queued */
	r = sync_of(400, 800, 900);
	r.phase_ns[FSS_PH_QUEUE] = 10;
	fss_blame_sync(b, &r, &l);
	x = find(&l, FSS_PH_QUEUE, 0);
	CHECK(x && x->blamed_ns == 10 && strstr(x->reason, "seen queued"),
	      "unattributed queue");
	fss_blame_free(b);
}

static void jbd2_write_split(void)
{
	struct fss_blame *b = mk();
	struct fss_sync_result r = sync_of(100, 0, 6000);
	struct fss_blame_list l;
	const struct fss_blame_entry *x;

	handle(b, 100, "appender", 10, 1, 0);
	handle(b, 200, "storm", 10, 3, 0);
	rq(b, 0x10, JBD2, "jbd2/loop0-8", FSS_RQ_WRITE, 4096, 1500, 1600, 2000);
	commit(b, 10, 1000, 5000);
	r.phase_ns[FSS_PH_DEV_WRITE] = 1000;
	r.phase_ns[FSS_PH_JOURNAL] = 3000;
	fss_blame_sync(b, &r, &l);
	x = find(&l, FSS_PH_DEV_WRITE, 200);
	CHECK(x && NEAR(x->share, 0.75) && x->ev.units == 3072 &&
	      x->blamed_ns == 750, "storm's part of the journal write");
	x = find(&l, FSS_PH_DEV_WRITE, 100);
	CHECK(x && x->self && NEAR(x->share, 0.25), "own part");
	CHECK(!find(&l, FSS_PH_DEV_WRITE, JBD2), "not the journal thread");
	check_sums(&l, &r);
	fss_blame_free(b);
}

static void writeback_owner(void)
{
	struct fss_blame *b = mk();
	struct fss_sync_result r = sync_of(100, 0, 1000);
	struct fss_event e = { .type = FSS_EV_RQ_OWNER, .dev = DISK, .ts = 10,
			       .pid = 200, .tid = 200 };
	struct fss_blame_list l;
	struct json_object *j, *o, *w;
	char brief[256];

	/* a kworker's writeback credited to the dirtier (pid 200) */
	e.blame.id = 0x1000;
	e.blame.flags = FSS_BL_KTHREAD | FSS_BL_WB | FSS_BL_OWNER;
	e.blame.wb_dev = FSDEV;
	e.blame.ino = 12;
	e.blame.cgroup = 77;
	strcpy(e.comm, "writer");
	add(b, &e);
	/* and one whose dirtier is not known: the kworker itself */
	e.blame.id = 0x2000;
	e.pid = e.tid = 33;
	e.blame.flags = FSS_BL_KTHREAD | FSS_BL_WB;
	e.blame.ino = 13;
	strcpy(e.comm, "kworker/u8:1");
	add(b, &e);
	rq(b, 0x1000, 0, "", FSS_RQ_WRITE, 12288, 0, 20, 500);
	rq(b, 0x2000, 0, "", FSS_RQ_WRITE, 4096, 0, 30, 600);
	r.phase_ns[FSS_PH_DEV_WRITE] = 1000;
	fss_blame_sync(b, &r, &l);
	CHECK(l.n == 2 && l.e[0].pid == 200 && NEAR(l.e[0].share, 0.75) &&
	      l.e[1].pid == 33, "two causes");
	fss_blame_brief(&l, brief, sizeof(brief));
	CHECK(!strcmp(brief, "device_write 75% pid 200 writer; device_write 25% "
		      "writeback of dev 8:1 ino 13"), "brief: %s", brief);
	j = fss_blame_json(&l, NULL, NULL);
	o = json_object_array_get_idx(j, 0);
	CHECK(json_object_object_get_ex(o, "writeback", &w) &&
	      json_object_get_boolean(json_object_object_get(w, "credited_to_dirtier")),
	      "json writeback: %s", json_object_to_json_string(o));
	CHECK(json_object_get_int64(json_object_object_get(o, "cgroup_id")) == 77,
	      "cgroup id");
	json_object_put(j);
	fss_blame_free(b);
}

/* Owner records come without a comm: the last FSS_EV_COMM of the pid names it. */
static void comm_records(void)
{
	struct fss_blame *b = mk();
	struct fss_sync_result r = sync_of(100, 0, 1000);
	struct fss_event c = { .type = FSS_EV_COMM, .pid = 200, .tid = 201 };
	struct fss_event o = { .type = FSS_EV_RQ_OWNER, .dev = DISK, .ts = 10,
			       .pid = 200, .tid = 201 };
	struct fss_blame_list l;

	strcpy(c.comm, "writer");
	add(b, &c);
	o.blame.id = 0x1000;
	add(b, &o);
	o.blame.id = 0x2000;
	o.pid = o.tid = 300;		/* no comm ever sent */
	add(b, &o);
	rq(b, 0x1000, 0, "", FSS_RQ_WRITE, 8192, 0, 20, 500);
	rq(b, 0x2000, 0, "", FSS_RQ_WRITE, 8192, 0, 30, 600);
	r.phase_ns[FSS_PH_DEV_WRITE] = 1000;
	fss_blame_sync(b, &r, &l);
	CHECK(find(&l, FSS_PH_DEV_WRITE, 200) &&
	      !strcmp(find(&l, FSS_PH_DEV_WRITE, 200)->comm, "writer"),
	      "named by its comm record");
	CHECK(find(&l, FSS_PH_DEV_WRITE, 300) &&
	      !strcmp(find(&l, FSS_PH_DEV_WRITE, 300)->comm, "?"),
	      "no comm: '?', never another's");
	fss_blame_free(b);
}

static int fallback_comm(__u32 pid, __u32 tid, char *comm, void *arg)
{
	if (pid != 400)
		return -1;
	strcpy(comm, "from-proc");
	return 0;
}

/*
 * Comms outlive a test's blame (the caller's table); a pid never named by
 * a record gets the fallback's name; the tool's own process is "tool",
 * never "self" or a plain neighbour.
 */
static void comms_and_tool(void)
{
	struct fss_comms *cm = fss_comms_new();
	struct fss_blame_opts o = { .disk_of = disk_of, .comms = cm,
				    .comm_fallback = fallback_comm,
				    .tool_pid = 500 };
	struct fss_event c = { .type = FSS_EV_COMM, .pid = 200, .tid = 200 };
	struct fss_event w = { .type = FSS_EV_RQ_OWNER, .dev = DISK, .ts = 10,
			       .pid = 200, .tid = 200 };
	struct fss_sync_result r = sync_of(100, 0, 1000);
	struct fss_blame_list l;
	const struct fss_blame_entry *x;
	struct fss_blame *b = fss_blame_new(&o);
	char brief[256];

	strcpy(c.comm, "kworker/u8:3");
	add(b, &c);			/* sent once, in the first test */
	fss_blame_free(b);
	b = fss_blame_new(&o);		/* the next test */
	w.blame.id = 0x1000;
	add(b, &w);
	w.blame.id = 0x2000;
	w.pid = w.tid = 400;		/* no record ever named it */
	add(b, &w);
	w.blame.id = 0x3000;
	w.pid = w.tid = 500;		/* fsyncscope itself */
	add(b, &w);
	rq(b, 0x1000, 0, "", FSS_RQ_WRITE, 8192, 0, 20, 500);
	rq(b, 0x2000, 0, "", FSS_RQ_WRITE, 8192, 0, 30, 600);
	rq(b, 0x3000, 0, "", FSS_RQ_WRITE, 8192, 0, 40, 700);
	r.phase_ns[FSS_PH_DEV_WRITE] = 1000;
	fss_blame_sync(b, &r, &l);
	x = find(&l, FSS_PH_DEV_WRITE, 200);
	CHECK(x && !strcmp(x->comm, "kworker/u8:3") && !x->tool,
	      "named in the next test by the comm sent in the first");
	x = find(&l, FSS_PH_DEV_WRITE, 400);
	CHECK(x && !strcmp(x->comm, "from-proc"), "unnamed: the fallback's");
	x = find(&l, FSS_PH_DEV_WRITE, 500);
	CHECK(x && x->tool && !x->self && (x->flags & FSS_BL_TOOL),
	      "the tool's own process is marked tool");
	fss_blame_brief(&l, brief, sizeof(brief));
	CHECK(strstr(brief, "fsyncscope itself") != NULL,
	      "the brief names it so: %s", brief);
	fss_blame_free(b);
	fss_comms_free(cm);
}

/* Kernels without block_io_start: a request is owned by the bio it starts with. */
static void bio_owner(void)
{
	struct fss_blame *b = mk();
	struct fss_sync_result r = sync_of(100, 0, 1000);
	struct fss_event o = { .type = FSS_EV_RQ_OWNER, .dev = DISK, .ts = 5,
			       .pid = 200, .tid = 200 };
	struct fss_event e = { .dev = DISK };
	struct fss_blame_list l;

	strcpy(o.comm, "writer");
	o.blame.flags = FSS_BL_BIO;
	o.blame.id = 4096;		/* its first sector */
	add(b, &o);
	o.blame.id = 9999;		/* another bio, no request starts there */
	add(b, &o);
	e.rq.id = 0x1000;
	e.rq.sector = 4096;
	e.rq.bytes = 65536;
	e.rq.flags = FSS_RQ_WRITE;
	e.type = FSS_EV_RQ_ISSUE;
	e.ts = 20;
	add(b, &e);
	e.type = FSS_EV_RQ_COMPLETE;
	e.ts = 500;
	add(b, &e);
	e.rq.id = 0x2000;		/* a request no bio record names */
	e.rq.sector = 8192;
	e.rq.bytes = 4096;
	e.type = FSS_EV_RQ_ISSUE;
	e.ts = 30;
	add(b, &e);
	e.type = FSS_EV_RQ_COMPLETE;
	e.ts = 600;
	add(b, &e);
	r.phase_ns[FSS_PH_DEV_WRITE] = 1000;
	fss_blame_sync(b, &r, &l);
	CHECK(find(&l, FSS_PH_DEV_WRITE, 200) &&
	      find(&l, FSS_PH_DEV_WRITE, 200)->ev.units == 65536 &&
	      !strcmp(find(&l, FSS_PH_DEV_WRITE, 200)->comm, "writer"),
	      "owned through its bio");
	CHECK(find(&l, FSS_PH_DEV_WRITE, 0) &&
	      strstr(find(&l, FSS_PH_DEV_WRITE, 0)->reason, "submitter not seen"),
	      "the other is unattributed");
	fss_blame_free(b);
}

/* An xfs transaction of pid in CIL checkpoint seq, using bytes of log. */
static void xtrans(struct fss_blame *b, __u32 pid, const char *comm,
		   __u64 seq, __u32 bytes, __u32 flags, __u64 ino)
{
	struct fss_event e = { .type = FSS_EV_JHANDLE, .pid = pid, .tid = pid,
			       .dev = FSDEV, .ts = 1 };

	e.blame.id = seq;
	e.blame.jtid = (__u32)seq;
	e.blame.blocks = bytes;
	e.blame.handles = 1;
	e.blame.flags = FSS_BL_XFS | flags;
	e.blame.wb_dev = flags & FSS_BL_WB ? FSDEV : 0;
	e.blame.ino = ino;
	memcpy(e.comm, comm, strnlen(comm, sizeof(e.comm) - 1));
	add(b, &e);
}

/* A traced sync's thread forced the xfs log to seq at ts. */
static void xforce(struct fss_blame *b, __u32 tid, __u64 seq, __u64 ts)
{
	struct fss_event e = { .type = FSS_EV_XLOG_FORCE, .pid = tid,
			       .tid = tid, .dev = FSDEV, .ts = ts };

	e.blame.id = seq;
	e.blame.jtid = (__u32)seq;
	add(b, &e);
}

/*
 * xfs: the journal time of a sync goes to the transactions of the
 * checkpoint its log force named, by log bytes; other threads' forces,
 * forces outside the sync and other checkpoints do not count.
 */
static void xfs_checkpoint_split(void)
{
	struct fss_blame *b = mk();
	struct fss_sync_result r = sync_of(100, 1000, 2000);
	struct fss_blame_list l;
	const struct fss_blame_entry *x;
	struct json_object *j, *o, *ev;

	xtrans(b, 200, "storm", 7, 1000, 0, 0);
	xtrans(b, 200, "storm", 7, 2000, 0, 0);
	xtrans(b, 100, "appender", 7, 1000, 0, 0);
	xtrans(b, 100, "appender", 8, 9000, 0, 0);	/* a later checkpoint */
	xtrans(b, 300, "other", 6, 9000, 0, 0);		/* an earlier one */
	xforce(b, 300, 6, 1500);	/* another thread's force */
	xforce(b, 100, 8, 2500);	/* after the sync */
	xforce(b, 100, 7, 1200);
	xforce(b, 100, 7, 1300);	/* the same checkpoint again */
	r.phase_ns[FSS_PH_JOURNAL] = 800;
	fss_blame_sync(b, &r, &l);
	x = find(&l, FSS_PH_JOURNAL, 200);
	CHECK(x && NEAR(x->share, 0.75) && x->blamed_ns == 600 && !x->self &&
	      x->ev.xfs && x->ev.jtid == 7 && x->ev.ntx == 1 &&
	      x->ev.units == 3000 && x->ev.count == 2 &&
	      x->ev.units_total == 4000 && x->ev.count_total == 3,
	      "storm 3/4 of the log bytes");
	x = find(&l, FSS_PH_JOURNAL, 100);
	CHECK(x && NEAR(x->share, 0.25) && x->blamed_ns == 200 && x->self,
	      "self 1/4");
	CHECK(!find(&l, FSS_PH_JOURNAL, 300) && !find(&l, FSS_PH_JOURNAL, 0),
	      "nobody else, nothing unattributed");
	check_sums(&l, &r);
	j = fss_blame_json(&l, NULL, NULL);
	o = json_object_array_get_idx(j, 0);
	CHECK(json_object_object_get_ex(o, "evidence", &ev) &&
	      json_object_get_int64(json_object_object_get(ev, "xfs_cil_seq")) == 7 &&
	      json_object_get_int64(json_object_object_get(ev, "log_bytes")) == 3000 &&
	      json_object_get_int64(json_object_object_get(ev, "transactions")) == 2 &&
	      json_object_get_int64(json_object_object_get(ev,
				"checkpoint_log_bytes")) == 4000 &&
	      json_object_get_int64(json_object_object_get(ev,
				"checkpoint_transactions")) == 3 &&
	      json_object_get_int64(json_object_object_get(ev, "checkpoints")) == 1 &&
	      !json_object_object_get_ex(ev, "jbd2_tid", NULL),
	      "xfs evidence: %s", json_object_to_json_string(o));
	json_object_put(j);
	fss_blame_free(b);
}

/*
 * xfs: two checkpoints forced share the time equally; one with no
 * transaction seen is unattributed with its reason.  Kernel threads'
 * transactions credited to an inode's dirtier are that dirtier, one cause
 * whatever the inode.
 */
static void xfs_unseen_and_dirtier(void)
{
	struct fss_blame *b = mk();
	struct fss_sync_result r = sync_of(100, 1000, 2000);
	struct fss_blame_list l;
	const struct fss_blame_entry *x;
	__u32 cred = FSS_BL_KTHREAD | FSS_BL_WB | FSS_BL_OWNER;
	unsigned int nstorm = 0;

	xtrans(b, 200, "storm", 7, 1000, 0, 0);
	xtrans(b, 200, "storm", 7, 500, cred, 12);	/* inactivation */
	xtrans(b, 200, "storm", 7, 500, cred, 13);
	xtrans(b, 100, "appender", 7, 2000, cred, 20);	/* I/O completion */
	xforce(b, 100, 7, 1200);
	xforce(b, 100, 9, 1800);	/* nothing seen in checkpoint 9 */
	r.phase_ns[FSS_PH_JOURNAL] = 1000;
	fss_blame_sync(b, &r, &l);
	/* the storm: its own transactions, and those credited to it */
	for (size_t i = 0; i < l.n; i++)
		if (l.e[i].pid == 200 && !l.e[i].reason) {
			bool cr = l.e[i].flags & FSS_BL_OWNER;

			nstorm++;
			CHECK(NEAR(l.e[i].share, 0.125) && l.e[i].blamed_ns == 125 &&
			      l.e[i].ev.ntx == 2 && l.e[i].ev.units == 1000 &&
			      l.e[i].ev.count == (cr ? 2u : 1u),
			      "storm %s: 1000 of checkpoint 7's 4000 bytes, half "
			      "the time", cr ? "credited" : "itself");
		}
	CHECK(nstorm == 2, "the storm and the storm credited (not per inode): %u",
	      nstorm);
	x = find(&l, FSS_PH_JOURNAL, 100);
	CHECK(x && NEAR(x->share, 0.25) && x->blamed_ns == 250 && x->self,
	      "self by its I/O completion");
	x = find(&l, FSS_PH_JOURNAL, 0);
	CHECK(x && x->blamed_ns == 500 && NEAR(x->share, 0.5) &&
	      strstr(x->reason, "no xfs transaction seen"), "unseen: %s",
	      x ? x->reason : "-");
	CHECK(l.n == 4, "four entries, not one per inode: %zu", l.n);
	check_sums(&l, &r);
	fss_blame_free(b);
}

/* A kernel thread's request: owner record with FSS_BL_KTHREAD, then rq(). */
static void krq(struct fss_blame *b, __u64 id, __u32 flags, __u32 bytes,
		__u64 start, __u64 issue, __u64 done)
{
	struct fss_event e = { .type = FSS_EV_RQ_OWNER, .dev = DISK, .pid = 77,
			       .tid = 77, .ts = start };

	e.blame.id = id;
	e.blame.blocks = bytes;
	e.blame.flags = FSS_BL_KTHREAD;
	strcpy(e.comm, "kworker/u8:3");
	add(b, &e);
	rq(b, id, 0, "", flags, bytes, start, issue, done);
}

/*
 * xfs: the CIL push kworker's metadata writes made after the sync's log
 * force carry the checkpoint it forced: their bytes go to its
 * contributors by log bytes; its writes before the force, and a kernel
 * thread's data write, stay the kworker's.
 */
static void xfs_log_writes(void)
{
	struct fss_blame *b = mk();
	struct fss_sync_result r = sync_of(100, 1000, 2000);
	struct fss_blame_list l;
	const struct fss_blame_entry *x;

	xtrans(b, 200, "storm", 7, 3000, 0, 0);
	xtrans(b, 100, "appender", 7, 1000, 0, 0);
	xforce(b, 100, 7, 1100);
	krq(b, 0x10, FSS_RQ_WRITE | FSS_RQ_META, 4096, 1050, 1060, 1200);
	krq(b, 0x20, FSS_RQ_WRITE | FSS_RQ_META | FSS_RQ_FUA, 8192, 1150,
	    1160, 1500);
	krq(b, 0x30, FSS_RQ_WRITE, 4096, 1200, 1210, 1600);
	r.phase_ns[FSS_PH_DEV_WRITE] = 1000;
	fss_blame_sync(b, &r, &l);
	x = find(&l, FSS_PH_DEV_WRITE, 200);
	CHECK(x && NEAR(x->share, 0.375) && x->ev.units == 6144 &&
	      x->ev.count == 1 && x->ev.units_total == 16384 &&
	      x->ev.count_total == 3, "storm: 3/4 of the log write");
	x = find(&l, FSS_PH_DEV_WRITE, 100);
	CHECK(x && NEAR(x->share, 0.125) && x->ev.units == 2048 && x->self,
	      "self: 1/4 of the log write");
	x = find(&l, FSS_PH_DEV_WRITE, 77);
	CHECK(x && NEAR(x->share, 0.5) && x->ev.units == 8192 &&
	      x->ev.count == 2, "the kworker: before the force, and data");
	check_sums(&l, &r);
	/* no force in the sync: the kworker's writes are its own */
	r = sync_of(300, 1000, 2000);
	r.phase_ns[FSS_PH_DEV_WRITE] = 1000;
	fss_blame_sync(b, &r, &l);
	x = find(&l, FSS_PH_DEV_WRITE, 77);
	CHECK(x && NEAR(x->share, 1), "another thread's sync: the kworker");
	fss_blame_free(b);
}

static const char *cg_path(__u64 id, void *arg)
{
	return id == 2 ? "/system.slice/backup.service" : NULL;
}

static void json_shape(void)
{
	struct fss_blame *b = mk();
	struct fss_sync_result r = sync_of(100, 0, 6000);
	struct fss_blame_list l;
	struct json_object *j, *o, *ev;
	double sum = 0;

	handle(b, 100, "appender", 10, 1, 1);
	handle(b, 200, "storm", 10, 3, 2);
	commit(b, 10, 1000, 5000);
	r.phase_ns[FSS_PH_JOURNAL] = 3001;
	r.phase_ns[FSS_PH_DEV_FLUSH] = 10;	/* no flush seen */
	fss_blame_sync(b, &r, &l);
	j = fss_blame_json(&l, cg_path, NULL);
	CHECK(json_object_array_length(j) == 3, "storm, self, flush: %s",
	      json_object_to_json_string(j));
	o = json_object_array_get_idx(j, 0);
	CHECK(!strcmp(json_object_get_string(json_object_object_get(o, "cgroup")),
		      "/system.slice/backup.service"), "cgroup path");
	CHECK(!strcmp(json_object_get_string(json_object_object_get(o, "phase")),
		      "journal"), "phase name");
	CHECK(json_object_object_get_ex(o, "evidence", &ev) &&
	      json_object_get_int64(json_object_object_get(ev, "blocks")) == 3 &&
	      json_object_get_int64(json_object_object_get(ev, "tx_blocks")) == 4,
	      "evidence");
	for (size_t i = 0; i < json_object_array_length(j); i++) {
		o = json_object_array_get_idx(j, i);
		if (!strcmp(json_object_get_string(json_object_object_get(o, "phase")),
			    "journal"))
			sum += json_object_get_double(json_object_object_get(o, "share"));
		if (json_object_object_get(o, "unattributed"))
			CHECK(json_object_get_type(json_object_object_get(o, "pid")) ==
			      json_type_null, "unattributed has no pid");
	}
	CHECK(NEAR(sum, 1), "journal shares: %.17g", sum);
	check_sums(&l, &r);
	json_object_put(j);
	fss_blame_free(b);
}

static void bounded(void)
{
	struct fss_blame *b = mk();
	struct fss_sync_result r = sync_of(100, 0, 1000000);
	struct fss_blame_list l;
	struct fss_blame_stats st;
	char comm[16];

	/* 100k transactions: the oldest are forgotten, counted */
	for (__u32 t = 0; t < 100000; t++)
		handle(b, 200, "storm", t, 1, 0);
	fss_blame_stats(b, &st);
	CHECK(st.tx_evicted > 90000, "evicted %llu", (unsigned long long)st.tx_evicted);
	/* 100 contributors to one transaction: the table folds the rest */
	for (__u32 p = 1000; p < 1100; p++) {
		snprintf(comm, sizeof(comm), "p%u", p);
		handle(b, p, comm, 500000, 1, 0);
	}
	commit(b, 500000, 10, 999990);
	r.phase_ns[FSS_PH_JOURNAL] = 1000000;
	fss_blame_sync(b, &r, &l);
	CHECK(l.n == 17, "16 contributors and the folded rest: %zu", l.n);
	check_sums(&l, &r);
	CHECK(l.unattributed_ns == 1000000 - 1000000 * 16 / 100,
	      "folded: %llu", (unsigned long long)l.unattributed_ns);
	/* 100 writers during one sync: the list keeps the largest */
	for (__u64 p = 0; p < 100; p++) {
		snprintf(comm, sizeof(comm), "w%llu", (unsigned long long)p);
		rq(b, 0x100000 + p * 0x1000, 2000 + p, comm, FSS_RQ_WRITE,
		   4096 * (p + 1), 2000000 + p, 2000100 + p, 2000200 + p);
	}
	r = sync_of(100, 1999000, 2100000);
	r.phase_ns[FSS_PH_DEV_WRITE] = 1000000;
	fss_blame_sync(b, &r, &l);
	CHECK(l.n == FSS_BLAME_MAX - 3, "20 causes and the unlisted rest: %zu", l.n);
	CHECK(find(&l, FSS_PH_DEV_WRITE, 0) &&
	      strstr(find(&l, FSS_PH_DEV_WRITE, 0)->reason, "tables"),
	      "past the table: unattributed");
	check_sums(&l, &r);
	/*
	 * every entry's share is its blamed time over the phase's (within
	 * the rounding of 64 causes), the smaller causes summed in one too
	 */
	for (size_t i = 0; i < l.n; i++) {
		const struct fss_blame_entry *x = &l.e[i];

		CHECK(fabs(x->share * 1000000 - (double)x->blamed_ns) <= 65,
		      "entry %zu (%s): share %g, %llu ns", i,
		      x->reason ? x->reason : x->comm, x->share,
		      (unsigned long long)x->blamed_ns);
	}
	/* 100k requests on the disk: the log is a ring */
	for (__u64 i = 0; i < 100000; i++)
		rq(b, 0x1000 + i * 64, 200, "w", FSS_RQ_WRITE, 4096, i * 10 + 1,
		   i * 10 + 2, i * 10 + 3);
	r.phase_ns[FSS_PH_JOURNAL] = 0;
	r.phase_ns[FSS_PH_DEV_WRITE] = 1000000;
	fss_blame_sync(b, &r, &l);
	check_sums(&l, &r);
	fss_blame_free(b);
}

static const struct tap_case cases[] = {
	{ "journal_split", journal_split },
	{ "journal_two_commits", journal_two_commits },
	{ "journal_unattributed", journal_unattributed },
	{ "flush_payload", flush_payload },
	{ "flush_coalesced", flush_coalesced },
	{ "queue_ahead", queue_ahead },
	{ "jbd2_write_split", jbd2_write_split },
	{ "writeback_owner", writeback_owner },
	{ "comm_records", comm_records },
	{ "comms_and_tool", comms_and_tool },
	{ "bio_owner", bio_owner },
	{ "json_shape", json_shape },
	{ "bounded", bounded },
	{ "xfs_checkpoint_split", xfs_checkpoint_split },
	{ "xfs_unseen_and_dirtier", xfs_unseen_and_dirtier },
	{ "xfs_log_writes", xfs_log_writes },
};

TAP_MAIN(cases)
