// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * dbrole.c - database roles from process titles (see dbrole.h).
 *
 * PostgreSQL 15 titles (ps_status.c, update_process_title = on):
 *   postgres: [CLUSTER: ]checkpointer
 *   postgres: [CLUSTER: ]USER DB CLIENT STATE      a backend; CLIENT is
 *                                                  [local] or HOST(PORT)
 *   postgres: [CLUSTER: ]walsender USER CLIENT STATE
 *   postgres: [CLUSTER: ]autovacuum worker [DB]
 *   /usr/lib/postgresql/15/bin/postgres -D ...     the postmaster
 * The state (idle, COMMIT, idle in transaction, ...) changes all the time
 * and is left out of the stable title.
 */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include "db/dbrole.h"

struct aux {
	const char *title;	/* title prefix after "postgres: " */
	const char *role, *detail;
	int rest;		/* what follows: 0 none, 1 DB, 2 USER CLIENT */
};

static const struct aux pg_aux[] = {
	{ "autovacuum launcher", "autovacuum", "launcher", 0 },
	{ "autovacuum worker", "autovacuum", "worker", 1 },
	{ "background writer", "bgwriter", "", 0 },
	{ "checkpointer", "checkpointer", "", 0 },
	{ "walwriter", "walwriter", "", 0 },
	{ "walsender", "walsender", "", 2 },
	{ "walreceiver", "walreceiver", "", 0 },
	{ "walsummarizer", "walsummarizer", "", 0 },
	{ "archiver", "archiver", "", 0 },
	{ "startup", "startup", "", 0 },
	{ "logger", "logger", "", 0 },
	{ "stats collector", "stats", "", 0 },
	{ "logical replication launcher", "logical", "launcher", 0 },
	{ "logical replication worker", "logical", "worker", 0 },
	{ "parallel worker", "parallel", "", 0 },
	{ "io worker", "io", "", 0 },
	{ "slotsync worker", "slotsync", "", 0 },
};

#define NAUX (sizeof(pg_aux) / sizeof(pg_aux[0]))

const char *fss_db_name(enum fss_db db)
{
	switch (db) {
	case FSS_DB_POSTGRES: return "postgresql";
	case FSS_DB_MARIADB: return "mariadb";
	default: return NULL;
	}
}

const char *fss_dbrole_names(void)
{
	return "postmaster backend walwriter checkpointer bgwriter autovacuum "
	       "walsender walreceiver walsummarizer archiver startup logger "
	       "stats logical parallel io slotsync bgworker standalone";
}

static void copy(char *dst, size_t len, const char *src, size_t n)
{
	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* the next space-separated token of *s: its start and length */
static size_t token(const char **s, const char **tok)
{
	const char *p = *s;
	size_t n = 0;

	while (*p == ' ')
		p++;
	*tok = p;
	while (p[n] && p[n] != ' ')
		n++;
	*s = p + n;
	return n;
}

static bool starts_word(const char *s, const char *w)
{
	size_t n = strlen(w);

	return !strncmp(s, w, n) && (s[n] == '\0' || s[n] == ' ');
}

/* USER CLIENT or USER DB CLIENT into r; the stable title up to there */
static void pg_rest(struct fss_dbrole *r, const char *head, const char *s,
		    bool with_db)
{
	const char *t;
	size_t n;

	n = token(&s, &t);
	copy(r->user, sizeof(r->user), t, n);
	if (with_db) {
		n = token(&s, &t);
		copy(r->database, sizeof(r->database), t, n);
	}
	n = token(&s, &t);
	copy(r->client, sizeof(r->client), t, n);
	copy(r->title, sizeof(r->title), head, (size_t)(s - head));
}

/* "[local]" or HOST(PORT) */
static bool client_word(const char *t, size_t n)
{
	size_t i = n - 1;

	if (n == 7 && !strncmp(t, "[local]", 7))
		return true;
	if (n < 4 || t[i] != ')')
		return false;
	while (i > 0 && t[i - 1] >= '0' && t[i - 1] <= '9')
		i--;
	return i > 1 && i < n - 1 && t[i - 1] == '(';
}

static void pg_title(const char *s, struct fss_dbrole *r)
{
	const char *t, *head;
	size_t n, i;

	/* cluster_name: "postgres: 15/main: checkpointer" */
	head = s;
	n = token(&head, &t);
	if (n > 1 && t[n - 1] == ':') {
		copy(r->cluster, sizeof(r->cluster), t, n - 1);
		s = head;
	}
	while (*s == ' ')
		s++;
	for (i = 0; i < NAUX; i++) {
		const struct aux *a = &pg_aux[i];
		const char *rest = s + strlen(a->title);

		if (!starts_word(s, a->title))
			continue;
		snprintf(r->role, sizeof(r->role), "%s", a->role);
		snprintf(r->detail, sizeof(r->detail), "%s", a->detail);
		if (a->rest == 2) {
			pg_rest(r, s, rest, false);
		} else if (a->rest == 1) {
			n = token(&rest, &t);
			copy(r->database, sizeof(r->database), t, n);
			copy(r->title, sizeof(r->title), s, (size_t)(rest - s));
		} else {
			snprintf(r->title, sizeof(r->title), "%s", a->title);
		}
		return;
	}
	/* USER DB CLIENT STATE, CLIENT "[local]" or HOST(PORT): a backend */
	head = s;
	for (i = 0; i < 3 && (n = token(&head, &t)); i++)
		;
	if (i == 3 && client_word(t, n)) {
		snprintf(r->role, sizeof(r->role), "backend");
		pg_rest(r, s, s, true);
		return;
	}
	/* a background worker names itself (bgw_type) */
	snprintf(r->role, sizeof(r->role), "bgworker");
	snprintf(r->title, sizeof(r->title), "%s", s);
}

static void trim(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

bool fss_dbrole_from_title(const char *comm, const char *title,
			   struct fss_dbrole *r)
{
	static const char pg[] = "postgres: ";

	memset(r, 0, sizeof(*r));
	if (!comm)
		comm = "";
	if (!title)
		title = "";
	if (!strncmp(title, pg, sizeof(pg) - 1)) {
		r->db = FSS_DB_POSTGRES;
		pg_title(title + sizeof(pg) - 1, r);
	} else if (!strcmp(comm, "postgres") || !strcmp(comm, "postmaster")) {
		/* the postmaster keeps its command line; initdb and
		 * single-user mode run postgres --boot / --single */
		r->db = FSS_DB_POSTGRES;
		if (!title[0])		/* gone before its title was read */
			return true;
		bool alone = strstr(title, " --boot") ||
			     strstr(title, " --single");

		snprintf(r->role, sizeof(r->role), "%s",
			 alone ? "standalone" : "postmaster");
		snprintf(r->title, sizeof(r->title), "%s", title);
	} else if (!strcmp(comm, "mariadbd") || !strcmp(comm, "mysqld")) {
		/* every thread has this comm: roles need performance_schema */
		r->db = FSS_DB_MARIADB;
		snprintf(r->title, sizeof(r->title), "%s", comm);
	} else {
		return false;
	}
	trim(r->title);
	return true;
}

static bool read_small(const char *path, char *buf, size_t len, bool nuls)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return false;
	/* argv is NUL-separated; a rewritten title may be padded with NULs */
	while (n > 0 && (buf[n - 1] == '\0' || buf[n - 1] == '\n'))
		n--;
	buf[n] = '\0';
	if (nuls)
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] == '\0')
				buf[i] = ' ';
	return true;
}

bool fss_dbrole_of_pid(pid_t pid, struct fss_dbrole *r)
{
	char path[64], comm[32], title[512];

	memset(r, 0, sizeof(*r));
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if (!read_small(path, comm, sizeof(comm), false))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if (!read_small(path, title, sizeof(title), true))
		title[0] = '\0';
	return fss_dbrole_from_title(comm, title, r);
}

void fss_dbrole_label(const struct fss_dbrole *r, char *buf, size_t len)
{
	if (!r->role[0])		/* MariaDB; a process gone too soon */
		snprintf(buf, len, "%s", r->title);
	else if (!strcmp(r->role, "backend") && r->database[0])
		snprintf(buf, len, "backend:%s", r->database);
	else if (!strcmp(r->role, "autovacuum") && r->detail[0])
		snprintf(buf, len, "autovacuum %s", r->detail);
	else if (!strcmp(r->role, "bgworker"))
		snprintf(buf, len, "%s", r->title);
	else
		snprintf(buf, len, "%s", r->role);
}

/* "background writer" -> "bgwriter"; NULL when NAME is no role */
static const char *canonical(const char *name, const char **detail)
{
	static const char *const roles[] = {
		"postmaster", "backend", "walwriter", "checkpointer",
		"bgwriter", "autovacuum", "walsender", "walreceiver",
		"walsummarizer", "archiver", "startup", "logger", "stats",
		"logical", "parallel", "io", "slotsync", "bgworker",
		"standalone",
	};

	*detail = NULL;
	if (!strcmp(name, "background writer"))
		return "bgwriter";
	if (!strcmp(name, "autovacuum launcher")) {
		*detail = "launcher";
		return "autovacuum";
	}
	if (!strcmp(name, "autovacuum worker")) {
		*detail = "worker";
		return "autovacuum";
	}
	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
		if (!strcmp(name, roles[i]))
			return roles[i];
	return NULL;
}

enum fss_db fss_dbrole_known(const char *name)
{
	const char *d;

	return name && canonical(name, &d) ? FSS_DB_POSTGRES : FSS_DB_NONE;
}

bool fss_dbrole_match(const struct fss_dbrole *r, const char *name)
{
	const char *d, *c = canonical(name, &d);

	return c && r->db == FSS_DB_POSTGRES && !strcmp(r->role, c) &&
	       (!d || !strcmp(r->detail, d));
}

/* callback per process (pid) of a /proc scan; stop when it returns true */
static bool scan_procs(bool (*fn)(pid_t pid, void *arg), void *arg)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	bool hit = false;

	if (!d)
		return false;
	while (!hit && (e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		if (*end || pid <= 0)
			continue;
		hit = fn((pid_t)pid, arg);
	}
	closedir(d);
	return hit;
}

struct hint_ctx {
	const char *name;
	bool comm_seen;
	int with_role;
	char role_comm[32];
};

static bool task_has_comm(pid_t pid, const char *name)
{
	char path[64], comm[32];
	DIR *d;
	struct dirent *e;
	bool hit = false;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return false;
	while (!hit && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/comm",
			 (int)pid, e->d_name);
		hit = read_small(path, comm, sizeof(comm), false) &&
		      !strcmp(comm, name);
	}
	closedir(d);
	return hit;
}

static bool hint_one(pid_t pid, void *arg)
{
	struct hint_ctx *h = arg;
	struct fss_dbrole r;
	char path[64];

	if (task_has_comm(pid, h->name)) {
		h->comm_seen = true;
		return true;
	}
	if (!fss_dbrole_of_pid(pid, &r) || !fss_dbrole_match(&r, h->name) ||
	    h->with_role++)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if (!read_small(path, h->role_comm, sizeof(h->role_comm), false))
		snprintf(h->role_comm, sizeof(h->role_comm), "?");
	return false;
}

bool fss_dbrole_comm_hint(const char *name, char *buf, size_t len)
{
	struct hint_ctx h = { .name = name };

	if (fss_dbrole_known(name) == FSS_DB_NONE)
		return false;
	scan_procs(hint_one, &h);
	if (h.comm_seen || !h.with_role)
		return false;
	snprintf(buf, len, "no process has comm %s; PostgreSQL processes are "
		 "comm '%s'; use --role %s", name, h.role_comm, name);
	return true;
}

struct count_ctx {
	const char *name;
	int n;
};

static bool count_one(pid_t pid, void *arg)
{
	struct count_ctx *c = arg;
	struct fss_dbrole r;

	if (fss_dbrole_of_pid(pid, &r) && fss_dbrole_match(&r, c->name))
		c->n++;
	return false;
}

int fss_dbrole_count(const char *name)
{
	struct count_ctx c = { .name = name };

	scan_procs(count_one, &c);
	return c.n;
}

struct json_object *fss_dbrole_json(const struct fss_dbrole *r)
{
	struct json_object *o;
	char label[64];

	if (!r || r->db == FSS_DB_NONE)
		return NULL;
	o = json_object_new_object();
	fss_dbrole_label(r, label, sizeof(label));
	json_object_object_add(o, "db",
			       json_object_new_string(fss_db_name(r->db)));
#define S(k) json_object_object_add(o, #k, r->k[0] ? \
				    json_object_new_string(r->k) : NULL)
	S(role);
	S(detail);
	S(user);
	S(database);
	S(client);
	S(cluster);
	S(title);
#undef S
	json_object_object_add(o, "label", json_object_new_string(label));
	return o;
}
