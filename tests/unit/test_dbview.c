// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * test_dbview.c - the database view of trace: roles from process titles
 * (user/db/dbrole.c), file classes from paths (user/db/fileclass.c), checkpoint
 * bursts (user/db/checkpoint.c), the classes/checkpoints JSON (user/db/dbview.c)
 * and their text (user/render/text/out_text_db.c).  Pure C, no root.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "db/checkpoint.h"
#include "db/dbrole.h"
#include "db/dbview.h"
#include "db/fileclass.h"
#include "db/myroles.h"
#include "render/render.h"
#include "tap.h"

static void pg_roles(void)
{
	static const struct {
		const char *comm, *title, *role, *detail, *user, *db, *client,
			*stable, *label;
	} t[] = {
		{ "postgres", "postgres: walwriter ", "walwriter", "", "", "", "",
		  "walwriter", "walwriter" },
		{ "postgres", "postgres: checkpointer", "checkpointer", "", "", "",
		  "", "checkpointer", "checkpointer" },
		{ "postgres", "postgres: background writer ", "bgwriter", "", "", "",
		  "", "background writer", "bgwriter" },
		{ "postgres", "postgres: autovacuum launcher ", "autovacuum",
		  "launcher", "", "", "", "autovacuum launcher",
		  "autovacuum launcher" },
		{ "postgres", "postgres: autovacuum worker pgbench", "autovacuum",
		  "worker", "", "pgbench", "", "autovacuum worker pgbench",
		  "autovacuum worker" },
		{ "postgres", "postgres: postgres postgres [local] COMMIT",
		  "backend", "", "postgres", "postgres", "[local]",
		  "postgres postgres [local]", "backend:postgres" },
		{ "postgres", "postgres: app shop 10.0.0.7(53412) idle in transaction",
		  "backend", "", "app", "shop", "10.0.0.7(53412)",
		  "app shop 10.0.0.7(53412)", "backend:shop" },
		{ "postgres", "postgres: 15/main: bob db1 [local] idle", "backend",
		  "", "bob", "db1", "[local]", "bob db1 [local]", "backend:db1" },
		{ "postgres", "postgres: 15/main: walwriter", "walwriter", "", "",
		  "", "", "walwriter", "walwriter" },
		{ "postgres", "postgres: walsender rep 10.0.0.2(40000) streaming 0/3000148",
		  "walsender", "", "rep", "", "10.0.0.2(40000)",
		  "walsender rep 10.0.0.2(40000)", "walsender" },
		{ "postgres", "postgres: startup recovering 000000010000000000000003",
		  "startup", "", "", "", "", "startup", "startup" },
		{ "postgres", "postgres: archiver last was 000000010000000000000002",
		  "archiver", "", "", "", "", "archiver", "archiver" },
		{ "postgres", "postgres: logical replication launcher ", "logical",
		  "launcher", "", "", "", "logical replication launcher",
		  "logical" },
		{ "postgres", "/usr/lib/postgresql/15/bin/postgres -D /srv/pg -k /tmp",
		  "postmaster", "", "", "", "", "/usr/lib/postgresql/15/bin/postgres -D /srv/pg -k /tmp",
		  "postmaster" },
		{ "postgres", "postgres: TimescaleDB Background Worker Launcher",
		  "bgworker", "", "", "", "", "TimescaleDB Background Worker Launcher",
		  "TimescaleDB Background Worker Launcher" },
		{ "postgres", "postgres: u d db.example.com(5432) authentication",
		  "backend", "", "u", "d", "db.example.com(5432)",
		  "u d db.example.com(5432)", "backend:d" },
		{ "postgres", "/usr/lib/postgresql/15/bin/postgres --boot -F -c log_checkpoints=false -X 1048576 -k",
		  "standalone", "", "", "", "", "/usr/lib/postgresql/15/bin/postgres --boot -F -c log_checkpoints=false -X 1048576 -k",
		  "standalone" },
		{ "postgres", "postgres: pg_cron launcher", "bgworker", "", "", "",
		  "", "pg_cron launcher", "pg_cron launcher" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct fss_dbrole r;
		char label[64];

		CHECK(fss_dbrole_from_title(t[i].comm, t[i].title, &r), "%s", t[i].title);
		CHECK(r.db == FSS_DB_POSTGRES, "%s", t[i].title);
		CHECK(!strcmp(r.role, t[i].role), "%s: role '%s'", t[i].title, r.role);
		CHECK(!strcmp(r.detail, t[i].detail), "%s: detail '%s'", t[i].title, r.detail);
		CHECK(!strcmp(r.user, t[i].user), "%s: user '%s'", t[i].title, r.user);
		CHECK(!strcmp(r.database, t[i].db), "%s: db '%s'", t[i].title, r.database);
		CHECK(!strcmp(r.client, t[i].client), "%s: client '%s'", t[i].title, r.client);
		CHECK(!strcmp(r.title, t[i].stable), "%s: stable '%s'", t[i].title, r.title);
		fss_dbrole_label(&r, label, sizeof(label));
		CHECK(!strcmp(label, t[i].label), "%s: label '%s'", t[i].title, label);
	}
}

static void other_roles(void)
{
	struct fss_dbrole r;

	CHECK(fss_dbrole_from_title("mariadbd", "/usr/sbin/mariadbd --datadir=/x", &r),
	      "mariadbd");
	CHECK(r.db == FSS_DB_MARIADB && !r.role[0], "mariadb: no role '%s'", r.role);
	CHECK(fss_dbrole_from_title("postgres", "", &r) && r.db == FSS_DB_POSTGRES &&
	      !r.role[0], "a postgres process gone before its title was read");
	CHECK(!fss_dbrole_from_title("bash", "-bash", &r), "bash");
	CHECK(r.db == FSS_DB_NONE, "bash: none");
	CHECK(!fss_dbrole_from_title(NULL, NULL, &r), "NULL");
	/* --role names */
	CHECK(fss_dbrole_known("walwriter") == FSS_DB_POSTGRES, "walwriter");
	CHECK(fss_dbrole_known("background writer") == FSS_DB_POSTGRES, "bg writer");
	CHECK(fss_dbrole_known("walwriterx") == FSS_DB_NONE, "walwriterx");
	CHECK(fss_dbrole_known("postgres") == FSS_DB_NONE, "postgres is a comm");
	fss_dbrole_from_title("postgres", "postgres: background writer", &r);
	CHECK(fss_dbrole_match(&r, "bgwriter") && fss_dbrole_match(&r, "background writer"),
	      "bgwriter spellings");
	fss_dbrole_from_title("postgres", "postgres: autovacuum worker db", &r);
	CHECK(fss_dbrole_match(&r, "autovacuum"), "autovacuum");
	CHECK(fss_dbrole_match(&r, "autovacuum worker"), "autovacuum worker");
	CHECK(!fss_dbrole_match(&r, "autovacuum launcher"), "not the launcher");
	CHECK(!fss_dbrole_match(&r, "walwriter"), "not walwriter");
	/* no process on this machine has a made-up role name as comm */
	char hint[256];
	CHECK(!fss_dbrole_comm_hint("nosuchrole", hint, sizeof(hint)), "no role");
}

static void classes(void)
{
	static const struct {
		const char *path;
		unsigned int kind;
		enum fss_fclass want;
	} t[] = {
		{ "/d/pg_wal/000000010000000000000009", FSS_SYNC_FDATASYNC, FSS_FC_PG_WAL },
		{ "/d/pg_wal/000000010000000000000009", FSS_SYNC_DSYNC_WRITE, FSS_FC_PG_WAL },
		{ "/d/pg_wal/000000010000000000000009", FSS_SYNC_FSYNC, FSS_FC_PG_WAL_INIT },
		{ "/d/pg_wal/xlogtemp.4242", FSS_SYNC_FSYNC, FSS_FC_PG_WAL_INIT },
		{ "/d/pg_wal/00000002.history", FSS_SYNC_FSYNC, FSS_FC_PG_OTHER },
		{ "/d/pg_wal/archive_status/x.ready", FSS_SYNC_FSYNC, FSS_FC_PG_OTHER },
		{ "/d/base/5/16396", FSS_SYNC_FSYNC, FSS_FC_PG_REL },
		{ "/d/base/5/16396.1", FSS_SYNC_FSYNC, FSS_FC_PG_REL },
		{ "/d/base/5/16396_fsm", FSS_SYNC_FSYNC, FSS_FC_PG_FSM },
		{ "/d/base/5/16396_vm", FSS_SYNC_FSYNC, FSS_FC_PG_VM },
		{ "/d/base/5/t3_16400", FSS_SYNC_FSYNC, FSS_FC_PG_TEMP },
		{ "/d/base/pgsql_tmp/pgsql_tmp123.0", FSS_SYNC_FSYNC, FSS_FC_PG_TEMP },
		{ "/d/base/5/pg_filenode.map", FSS_SYNC_FSYNC, FSS_FC_PG_OTHER },
		{ "/d/global/1262", FSS_SYNC_FSYNC, FSS_FC_PG_REL },
		{ "/d/global/pg_control", FSS_SYNC_FSYNC, FSS_FC_PG_CONTROL },
		{ "/d/pg_tblspc/16500/PG_15_202209061/5/16501", FSS_SYNC_FSYNC, FSS_FC_PG_REL },
		{ "/d/pg_xact/0000", FSS_SYNC_FSYNC, FSS_FC_PG_SLRU },
		{ "/d/pg_multixact/offsets/0000", FSS_SYNC_FSYNC, FSS_FC_PG_SLRU },
		{ "/d/pg_subtrans/0000", FSS_SYNC_FSYNC, FSS_FC_PG_SLRU },
		{ "/d/postgresql.auto.conf", FSS_SYNC_FSYNC, FSS_FC_PG_OTHER },
		{ "/m/ib_logfile0", FSS_SYNC_FDATASYNC, FSS_FC_MY_REDO },
		{ "/m/undo001", FSS_SYNC_FSYNC, FSS_FC_MY_UNDO },
		{ "/m/ibdata1", FSS_SYNC_FSYNC, FSS_FC_MY_DBLWR },
		{ "/m/#ib_16384_0.dblwr", FSS_SYNC_FSYNC, FSS_FC_MY_DBLWR },
		{ "/m/t/k.ibd", FSS_SYNC_FSYNC, FSS_FC_MY_DATA },
		{ "/m/mysql-bin.000001", FSS_SYNC_FDATASYNC, FSS_FC_MY_BINLOG },
		{ "/m/mariadb-bin.index", FSS_SYNC_FSYNC, FSS_FC_MY_BINLOG },
		{ "/m/aria_log.00000001", FSS_SYNC_FSYNC, FSS_FC_MY_OTHER },
		{ "/home/a/notes.txt", FSS_SYNC_FSYNC, FSS_FC_OTHER },
		{ "/tmp/base/x", FSS_SYNC_FSYNC, FSS_FC_PG_OTHER },
		{ NULL, FSS_SYNC_FSYNC, FSS_FC_UNRESOLVED },
	};
	unsigned long db, node;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		enum fss_fclass c = fss_fclass_of(t[i].path, t[i].kind);

		CHECK(c == t[i].want, "%s (kind %u): %s, want %s", t[i].path,
		      t[i].kind, fss_fclass_id(c), fss_fclass_id(t[i].want));
	}
	CHECK(fss_fclass_relfile("/d/base/5/16396_vm", &db, &node) && db == 5 &&
	      node == 16396, "relfile");
	CHECK(!fss_fclass_relfile("/d/base/5/t3_16400", &db, &node), "temp no relfile");
	CHECK(!fss_fclass_relfile("/d/pg_wal/000000010000000000000009", &db, &node), "wal");
	for (int c = 0; c < FSS_FC_MAX; c++)
		CHECK(fss_fclass_id(c) && strlen(fss_fclass_label(c)) <= 23, "label %d", c);
}

#define MS 1000000ULL

static void feed(struct fss_ckpt_det *d, __u64 t_ms, __u64 dur_us, unsigned int kind,
		 enum fss_fclass c, __u64 ino)
{
	struct fss_ckpt_sync s = {
		.start = t_ms * MS, .end = t_ms * MS + dur_us * 1000, .pid = 77,
		.kind = kind, .fclass = c, .dev = 7, .ino = ino,
	};

	s.phase_ns[4] = dur_us * 1000;		/* all device_flush */
	CHECK(fss_ckpt_feed(d, &s) == 0, "feed");
}

static void checkpoints(void)
{
	struct fss_ckpt_det d;
	const struct fss_ckpt *c;

	fss_ckpt_init(&d);
	/* write phase: fsyncs of the relation map and such, a WAL flush,
	 * then writeback hints and WAL flushes */
	feed(&d, 990, 100, FSS_SYNC_FSYNC, FSS_FC_PG_OTHER, 20);
	feed(&d, 991, 100, FSS_SYNC_FSYNC, FSS_FC_UNRESOLVED, 21);
	feed(&d, 992, 100, FSS_SYNC_FDATASYNC, FSS_FC_PG_WAL, 2);
	feed(&d, 1000, 10, FSS_SYNC_SYNC_FILE_RANGE, FSS_FC_PG_REL, 1);
	feed(&d, 1001, 300, FSS_SYNC_FDATASYNC, FSS_FC_PG_WAL, 2);
	feed(&d, 1500, 10, FSS_SYNC_SYNC_FILE_RANGE, FSS_FC_PG_REL, 1);
	CHECK(d.ndone == 0 && !fss_ckpt_open(&d), "no burst in the write phase");
	/* sync phase: 4 files (one unresolved SLRU file), longest 5 ms */
	feed(&d, 2000, 1000, FSS_SYNC_FSYNC, FSS_FC_PG_REL, 1);
	feed(&d, 2002, 5000, FSS_SYNC_FSYNC, FSS_FC_PG_REL, 3);
	feed(&d, 2008, 200, FSS_SYNC_FSYNC, FSS_FC_UNRESOLVED, 4);
	feed(&d, 2009, 800, FSS_SYNC_FSYNC, FSS_FC_PG_FSM, 5);
	c = fss_ckpt_open(&d);
	CHECK(c && c->syncs == 4, "open burst");
	/* checkpoint record, pg_control, a recycled segment */
	feed(&d, 2011, 400, FSS_SYNC_FDATASYNC, FSS_FC_PG_WAL, 2);
	feed(&d, 2012, 300, FSS_SYNC_FSYNC, FSS_FC_UNRESOLVED, 9);
	feed(&d, 2013, 300, FSS_SYNC_FSYNC, FSS_FC_PG_WAL_INIT, 10);
	CHECK(!fss_ckpt_open(&d), "tail is not the burst");
	/* quiet for a second: it is listed */
	CHECK(fss_ckpt_tick(&d, 2500 * MS) == 0 && d.ndone == 0, "not yet");
	CHECK(fss_ckpt_tick(&d, 3100 * MS) == 0 && d.ndone == 1, "listed");
	feed(&d, 60000, 10, FSS_SYNC_SYNC_FILE_RANGE, FSS_FC_PG_REL, 1);
	CHECK(d.ndone == 1, "one checkpoint: %zu", d.ndone);
	c = &d.done[0];
	CHECK(c->syncs == 4 && c->files == 4, "syncs %llu files %llu",
	      (unsigned long long)c->syncs, (unsigned long long)c->files);
	CHECK(c->longest_ns == 5000000, "longest %llu", (unsigned long long)c->longest_ns);
	CHECK(c->total_ns == 7000000 && c->phase_ns[4] == 7000000, "total");
	CHECK(c->start == 2000 * MS && c->end == 2009 * MS + 800000, "span");
	CHECK(c->tail_syncs == 2 && c->complete, "tail %llu", (unsigned long long)c->tail_syncs);
	CHECK(c->pre_syncs == 2, "pre %llu", (unsigned long long)c->pre_syncs);
	CHECK(c->by_class[FSS_FC_PG_REL] == 2 && c->by_class[FSS_FC_UNRESOLVED] == 1,
	      "by class");

	/* a burst cut by a gap (no WAL flush seen) is listed, not complete;
	 * the same file twice is one file */
	feed(&d, 70000, 100, FSS_SYNC_FSYNC, FSS_FC_PG_REL, 1);
	feed(&d, 70001, 100, FSS_SYNC_FSYNC, FSS_FC_PG_REL, 1);
	CHECK(fss_ckpt_tick(&d, 70500 * MS) == 0 && d.ndone == 1, "not yet");
	CHECK(fss_ckpt_tick(&d, 72000 * MS) == 0 && d.ndone == 2, "tick closes");
	CHECK(!d.done[1].complete && d.done[1].syncs == 2 && d.done[1].files == 1,
	      "cut short");

	/* a backend flushed the checkpoint record: pg_control ends the burst */
	feed(&d, 80000, 100, FSS_SYNC_FSYNC, FSS_FC_PG_REL, 1);
	feed(&d, 80001, 100, FSS_SYNC_FSYNC, FSS_FC_PG_SLRU, 2);
	feed(&d, 80002, 100, FSS_SYNC_FSYNC, FSS_FC_PG_CONTROL, 3);
	feed(&d, 80003, 100, FSS_SYNC_FSYNC, FSS_FC_PG_WAL_INIT, 4);
	feed(&d, 80004, 100, FSS_SYNC_FSYNC, FSS_FC_PG_OTHER, 5);	/* pg_wal/ */
	CHECK(fss_ckpt_tick(&d, 90000 * MS) == 0 && d.ndone == 3, "listed");
	CHECK(d.done[2].complete && d.done[2].syncs == 2 && d.done[2].tail_syncs == 3,
	      "pg_control: syncs %llu tail %llu", (unsigned long long)d.done[2].syncs,
	      (unsigned long long)d.done[2].tail_syncs);
	fss_ckpt_free(&d);
}

static struct fss_sync_result res(__u32 pid, unsigned int kind, __u64 start_ms,
				  __u64 us)
{
	struct fss_sync_result r = { .start = start_ms * MS, .total = us * 1000,
				     .pid = pid, .tid = pid, .kind = kind, .dev = 7 };

	r.phase_ns[0] = r.total / 4;
	r.phase_ns[4] = r.total - r.total / 4;
	return r;
}

static void view_json(void)
{
	struct fss_dbview v;
	struct fss_dbrole be, ck, wal;
	struct fss_sync_result r;
	struct json_object *cls, *ck_a, *doc;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	fss_dbrole_from_title("postgres", "postgres: u d [local] COMMIT", &be);
	fss_dbrole_from_title("postgres", "postgres: checkpointer", &ck);
	fss_dbrole_from_title("postgres", "postgres: walwriter", &wal);
	fss_dbview_init(&v);
	for (int i = 0; i < 10; i++) {
		r = res(10, FSS_SYNC_FDATASYNC, 100 + i, 400);
		fss_dbview_add(&v, &r, "/d/pg_wal/000000010000000000000001", &be);
	}
	r = res(11, FSS_SYNC_FDATASYNC, 200, 300);
	fss_dbview_add(&v, &r, "/d/pg_wal/000000010000000000000001", &wal);
	r = res(10, FSS_SYNC_FSYNC, 210, 3000);
	fss_dbview_add(&v, &r, "/d/pg_wal/xlogtemp.10", &be);
	r = res(12, FSS_SYNC_FSYNC, 300, 2000);
	r.ino = 5;
	fss_dbview_add(&v, &r, "/d/base/5/16396", &ck);
	r = res(12, FSS_SYNC_FDATASYNC, 303, 100);
	fss_dbview_add(&v, &r, "/d/pg_wal/000000010000000000000001", &ck);
	r = res(99, FSS_SYNC_FSYNC, 310, 100);
	fss_dbview_add(&v, &r, NULL, NULL);

	cls = fss_dbview_classes_json(&v);
	CHECK(json_object_array_length(cls) == 4, "4 classes: %s",
	      json_object_to_json_string(cls));
	struct json_object *w = json_object_array_get_idx(cls, 0);
	CHECK(!strcmp(json_object_get_string(json_object_object_get(w, "class")), "pg_wal"),
	      "WAL first (most time)");
	CHECK(json_object_get_int64(json_object_object_get(w, "syncs")) == 12, "12 WAL");
	struct json_object *br = json_object_object_get(w, "by_role");
	CHECK(json_object_get_int64(json_object_object_get(
		      json_object_object_get(br, "backend"), "fdatasync")) == 10, "backend 10");
	CHECK(json_object_get_int64(json_object_object_get(
		      json_object_object_get(br, "walwriter"), "fdatasync")) == 1, "walwriter 1");
	CHECK(json_object_get_int64(json_object_object_get(
		      json_object_object_get(br, "checkpointer"), "syncs")) == 1, "ckpt 1");

	size_t from = 0;

	ck_a = fss_dbview_ckpts_json(&v, &from, 10000 * MS, 0);
	CHECK(json_object_array_length(ck_a) == 1, "1 checkpoint: %s",
	      json_object_to_json_string(ck_a));
	struct json_object *c0 = json_object_array_get_idx(ck_a, 0);
	CHECK(json_object_get_int64(json_object_object_get(c0, "syncs")) == 1 &&
	      json_object_get_boolean(json_object_object_get(c0, "complete")), "ckpt");
	struct json_object *again = fss_dbview_ckpts_json(&v, &from, 10000 * MS, 0);
	CHECK(from == 1 && json_object_array_length(again) == 0, "listed once");
	json_object_put(again);

	doc = json_object_new_object();
	json_object_object_add(doc, "classes", cls);
	json_object_object_add(doc, "checkpoints", ck_a);
	f = open_memstream(&text, &len);
	fss_text_db_sections(f, doc);
	fclose(f);
	CHECK(strstr(text, "FILE CLASSES") && strstr(text, "WAL segment creation") &&
	      strstr(text, "CHECKPOINTS") && strstr(text, "relation data"),
	      "text:\n%s", text);
	for (char *l = text; l && *l; ) {
		char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);

		CHECK(n <= 80, "80 columns: %.*s", (int)n, l);
		l = e ? e + 1 : NULL;
	}
	free(text);
	json_object_put(doc);
	fss_dbview_free(&v);

	/* no database file: no text section */
	fss_dbview_init(&v);
	r = res(99, FSS_SYNC_FSYNC, 310, 100);
	fss_dbview_add(&v, &r, "/home/a/notes.txt", NULL);
	doc = json_object_new_object();
	json_object_object_add(doc, "classes", fss_dbview_classes_json(&v));
	text = NULL;
	f = open_memstream(&text, &len);
	fss_text_db_sections(f, doc);
	fclose(f);
	CHECK(len == 0, "no section for other files: %s", text);
	free(text);
	json_object_put(doc);
	fss_dbview_free(&v);
}

static void mysql_names(void)
{
	static const char *const t[][2] = {
		{ "thread/sql/one_connection", "connection" },
		{ "thread/innodb/page_cleaner_thread", "page_cleaner" },
		{ "thread/innodb/thread_pool_thread", "thread_pool" },
		{ "thread/sql/main", "main" },
		{ "thread/aria/checkpoint_background", "checkpoint_background" },
		{ "one_connection", "connection" },
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		fss_myroles_name(t[i][0], buf, sizeof(buf));
		CHECK(!strcmp(buf, t[i][1]), "%s: '%s'", t[i][0], buf);
	}
}

static const struct tap_case cases[] = {
	{ "pg_roles", pg_roles },
	{ "other_roles", other_roles },
	{ "classes", classes },
	{ "checkpoints", checkpoints },
	{ "view_json", view_json },
	{ "mysql_names", mysql_names },
};

TAP_MAIN(cases)
