// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * test_report.c - the breakdown report (user/stats/collector.c and its
 * text and JSON renderings) from painted syncs with exact phases, and the
 * names of phases, sync kinds and summary reasons.  Usage as test_attr.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "engine/attr/attr.h"
#include "render/render.h"
#include "stats/collector.h"
#include "tap.h"
#include "attr_fixture.h"	/* T(), US(), MKDEV(): the streams' clock and devices */

/* ---- report cases ---- */

static struct fss_sync_result mk_result(__u64 total, __u64 fs, __u64 df,
					__u32 kind)
{
	struct fss_sync_result r;

	memset(&r, 0, sizeof(r));
	r.total = total;
	r.phase_ns[FSS_PH_FS] = fs;
	r.phase_ns[FSS_PH_DEV_FLUSH] = df;
	r.phase_ns[FSS_PH_OTHER] = total - fs - df;
	r.kind = kind;
	return r;
}

static void test_report_percentiles(void)
{
	struct fss_collector *c = fss_collector_new();
	struct fss_breakdown b;

	/* sync i (1..100): total i us, fs i/10 us, device_flush 9i/10 us */
	for (int i = 1; i <= 100; i++) {
		struct fss_sync_result r = mk_result(US(i), i * 100, i * 900,
			i <= 30 ? FSS_SYNC_FSYNC : FSS_SYNC_FDATASYNC);

		r.nr_incomplete = i == 7;
		fss_collector_add(&r, c);
	}
	CHECK_EQ(fss_collector_count(c), 100);
	fss_collector_breakdown(c, NULL, 5, &b);
	CHECK_EQ(b.syncs, 100);
	CHECK_EQ(b.syncs_by_kind[FSS_SYNC_FSYNC], 30);
	CHECK_EQ(b.syncs_by_kind[FSS_SYNC_FDATASYNC], 70);
	CHECK_EQ(b.incomplete_rqs, 1);
	CHECK_EQ(b.drops, 5);
	CHECK_DBL(b.total_mean_us, 50.5);
	CHECK_DBL(b.total_p50_us, 50.0);	/* rank ceil(50) = 50 */
	CHECK_DBL(b.total_p99_us, 99.0);	/* rank ceil(99) = 99 */
	CHECK_DBL(b.phase[FSS_PH_FS].mean_us, 5.05);
	CHECK_DBL(b.phase[FSS_PH_FS].p50_us, 5.0);
	CHECK_DBL(b.phase[FSS_PH_FS].p99_us, 9.9);
	CHECK_DBL(b.phase[FSS_PH_FS].share, 0.1);
	CHECK_DBL(b.phase[FSS_PH_DEV_FLUSH].share, 0.9);
	CHECK_DBL(b.phase[FSS_PH_OTHER].share, 0.0);
	CHECK_DBL(b.phase[FSS_PH_OTHER].p99_us, 0.0);

	/* three values: p50 is the 2nd, p99 the 3rd; one value: itself */
	fss_collector_reset(c);
	CHECK_EQ(fss_collector_count(c), 0);
	{
		struct fss_sync_result r3 = mk_result(US(3), 0, 0, 0);
		struct fss_sync_result r1 = mk_result(US(1), 0, 0, 0);
		struct fss_sync_result r2 = mk_result(US(2), 0, 0, 0);

		fss_collector_add(&r3, c);
		fss_collector_add(&r1, c);
		fss_collector_add(&r2, c);
		fss_collector_breakdown(c, NULL, 0, &b);
		CHECK_DBL(b.total_p50_us, 2.0);
		CHECK_DBL(b.total_p99_us, 3.0);
		CHECK_DBL(b.total_mean_us, 2.0);
		fss_collector_reset(c);
		fss_collector_add(&r2, c);
		fss_collector_breakdown(c, NULL, 0, &b);
		CHECK_DBL(b.total_p50_us, 2.0);
		CHECK_DBL(b.total_p99_us, 2.0);
	}

	/* nothing collected: no numbers at all */
	fss_collector_reset(c);
	fss_collector_breakdown(c, NULL, 0, &b);
	CHECK_EQ(b.syncs, 0);
	CHECK(b.phase[FSS_PH_FS].mean_us != b.phase[FSS_PH_FS].mean_us,
	      "mean of no syncs is %g, not NaN", b.phase[FSS_PH_FS].mean_us);
	fss_collector_free(c);
}

/* the breakdown's text as run prints it: through its test's JSON */
static void breakdown_print(FILE *f, const struct fss_breakdown *b, int indent)
{
	struct json_object *t = json_object_new_object();

	fss_breakdown_add_json(t, b);
	fss_text_breakdown(f, t, indent);
	json_object_put(t);
}

static char *print_to_string(const struct fss_breakdown *b, int indent)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	breakdown_print(f, b, indent);
	fclose(f);
	return buf;
}

static void check_width(const char *text, int line)
{
	const char *p = text;
	int n = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		n++;
		if (len > 80) {
			failures++;
			printf("#   FAIL %s:%d: line %d is %zu columns: %.*s\n",
			       __FILE__, line, n, len, (int)len, p);
		}
		if (!nl) {
			failures++;
			printf("#   FAIL %s:%d: last line not terminated\n",
			       __FILE__, line);
			break;
		}
		p = nl + 1;
	}
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_report_print(void)
{
	struct fss_collector *c = fss_collector_new();
	struct fss_flush_stats fl = {
		.flushes = 123456789, .flush_sync_refs = 246913578,
		.syncs = 4000000000ULL, .syncs_no_flush = 3999999999ULL,
		.fua_writes = 4000000000ULL, .fua_emulated = 4000000000ULL,
		.preflush = 4000000000ULL, .nvme_flush_cmds = 4000000000ULL,
	};
	struct fss_breakdown b;
	char *out;

	/* durations across the units: 12.3 us, 4.56 ms, 2.5 s */
	struct fss_sync_result r1 = mk_result(12300, 12300, 0, FSS_SYNC_FSYNC);
	struct fss_sync_result r2 = mk_result(4560000, 0, 4560000, FSS_SYNC_MSYNC);
	struct fss_sync_result r3 = mk_result(2500000000ULL, 0, 0,
					      FSS_SYNC_IOURING_FSYNC);

	for (int k = 0; k < FSS_SYNC_KIND_MAX; k++) {
		struct fss_sync_result r = mk_result(US(1), 0, 0, k);

		fss_collector_add(&r, c);
	}
	fss_collector_add(&r1, c);
	fss_collector_add(&r2, c);
	fss_collector_add(&r3, c);
	fss_collector_breakdown(c, &fl, 77, &b);
	b.incomplete_rqs = 4000000000ULL;
	b.syncs_incomplete = 3999999999ULL;
	for (int indent = 0; indent <= 12; indent += 4) {
		out = print_to_string(&b, indent);
		check_width(out, __LINE__);
		if (indent == 4) {
			printf("# sample (extreme counts, indent 4):\n");
			for (char *p = out, *nl; *p; p = nl + 1) {
				nl = strchr(p, '\n');
				printf("# |%.*s\n", (int)(nl - p), p);
			}
			CHECK(strstr(out, "2.50s") != NULL, "no 2.50s");
			CHECK(strstr(out, "4.56ms") != NULL, "no 4.56ms");
			CHECK(strstr(out, "12.3us") != NULL, "no 12.3us");
			CHECK(strstr(out, "device_flush") != NULL, "no phase");
			CHECK(strstr(out, "2.00 syncs/flush") != NULL,
			      "no syncs/flush");
			CHECK(strstr(out, "77 events lost") != NULL, "no drops");
		}
		free(out);
	}

	/* no flush at all: the ratio is not known, not 0 */
	fl.flushes = fl.flush_sync_refs = 0;
	fss_collector_breakdown(c, &fl, 0, &b);
	out = print_to_string(&b, 4);
	CHECK(strstr(out, "syncs/flush n/a") != NULL, "ratio not n/a:\n%s", out);
	CHECK(strstr(out, "events lost") == NULL, "drops shown when 0");
	free(out);

	/* no syncs: one line, no table */
	fss_collector_reset(c);
	fss_collector_breakdown(c, NULL, 0, &b);
	out = print_to_string(&b, 4);
	CHECK(strcmp(out, "    no syncs were traced\n") == 0, "got '%s'", out);
	CHECK_EQ(count_lines(out), 1);
	free(out);
	fss_collector_free(c);
}

static void test_report_json(void)
{
	struct fss_collector *c = fss_collector_new();
	struct fss_flush_stats fl = {
		.flushes = 2, .flush_sync_refs = 3, .syncs = 3,
		.syncs_no_flush = 1, .fua_writes = 4, .fua_emulated = 5,
		.preflush = 6, .nvme_flush_cmds = 7,
	};
	struct fss_breakdown b;
	struct json_object *ph, *flj, *parsed, *o, *v;
	const char *s;

	for (int i = 1; i <= 3; i++) {
		struct fss_sync_result r = mk_result(US(i), 0, US(i), 0);

		fss_collector_add(&r, c);
	}
	fss_collector_breakdown(c, &fl, 0, &b);

	ph = fss_breakdown_phases_json(&b);
	CHECK(ph != NULL, "no phases json");
	s = json_object_to_json_string_ext(ph, JSON_C_TO_STRING_PLAIN);
	parsed = json_tokener_parse(s);
	CHECK(parsed != NULL, "phases JSON does not parse: %s", s);
	for (int p = 0; parsed && p < FSS_PH_MAX; p++) {
		CHECK(json_object_object_get_ex(parsed, fss_phase_name(p), &o),
		      "no phase %s in %s", fss_phase_name(p), s);
		CHECK(json_object_object_get_ex(o, "mean_us", &v) &&
		      json_object_is_type(v, json_type_double), "mean_us");
		CHECK(json_object_object_get_ex(o, "p50_us", &v), "p50_us");
		CHECK(json_object_object_get_ex(o, "p99_us", &v), "p99_us");
		CHECK(json_object_object_get_ex(o, "share", &v), "share");
	}
	if (parsed && json_object_object_get_ex(parsed, "device_flush", &o)) {
		json_object_object_get_ex(o, "mean_us", &v);
		CHECK_DBL(json_object_get_double(v), 2.0);
		json_object_object_get_ex(o, "share", &v);
		CHECK_DBL(json_object_get_double(v), 1.0);
		json_object_object_get_ex(o, "p99_us", &v);
		CHECK_DBL(json_object_get_double(v), 3.0);
	}
	json_object_put(parsed);
	json_object_put(ph);

	flj = fss_breakdown_flush_json(&b);
	s = json_object_to_json_string_ext(flj, JSON_C_TO_STRING_PLAIN);
	parsed = json_tokener_parse(s);
	CHECK(parsed != NULL, "flush JSON does not parse: %s", s);
	if (parsed) {
		static const char *const keys[] = { "flushes", "fua_writes",
			"fua_emulated", "preflush", "syncs_no_flush",
			"nvme_flush_cmds" };
		static const long long want[] = { 2, 4, 5, 6, 1, 7 };

		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			CHECK(json_object_object_get_ex(parsed, keys[k], &v),
			      "no %s", keys[k]);
			CHECK_EQ(json_object_get_int64(v), want[k]);
		}
		json_object_object_get_ex(parsed, "syncs_per_flush", &v);
		CHECK_DBL(json_object_get_double(v), 1.5);
		json_object_object_get_ex(parsed, "flushes_per_sync", &v);
		CHECK(v && json_object_get_double(v) > 0.666 &&
		      json_object_get_double(v) < 0.6675, "flushes_per_sync");
		CHECK(json_object_object_get_ex(parsed, "elided", &v) && !v,
		      "elided should be null here");
	}
	json_object_put(parsed);
	json_object_put(flj);

	/* no flushes: syncs_per_flush is null, not 0 */
	fl.flushes = fl.flush_sync_refs = 0;
	fss_collector_breakdown(c, &fl, 0, &b);
	flj = fss_breakdown_flush_json(&b);
	CHECK(json_object_object_get_ex(flj, "syncs_per_flush", &v) && !v,
	      "syncs_per_flush not null");
	json_object_put(flj);

	/* no syncs: every statistic is null */
	fss_collector_reset(c);
	fss_collector_breakdown(c, NULL, 0, &b);
	ph = fss_breakdown_phases_json(&b);
	CHECK(json_object_object_get_ex(ph, "fs", &o) &&
	      json_object_object_get_ex(o, "mean_us", &v) && !v,
	      "mean of no syncs not null");
	json_object_put(ph);
	fss_collector_free(c);
}

/*
 * A kernel that shows requests only from issue on: queue and the creation
 * flags are n/a (null with a reason), never 0, in JSON and in text.
 */
static void test_report_no_rq_start(void)
{
	struct fss_collector *c = fss_collector_new();
	struct fss_flush_stats fl = { .flushes = 1, .flush_sync_refs = 1, .syncs = 1 };
	struct fss_sync_result r = mk_result(US(1), 0, US(1), 0);
	struct fss_breakdown b;
	struct json_object *ph, *flj, *o, *v;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	fss_collector_add(&r, c);
	fss_collector_breakdown(c, &fl, 0, &b);
	b.no_rq_start = true;

	ph = fss_breakdown_phases_json(&b);
	CHECK(json_object_object_get_ex(ph, "queue", &o), "no queue");
	CHECK(json_object_object_get_ex(o, "mean_us", &v) && v == NULL, "queue mean not null");
	CHECK(json_object_object_get_ex(o, "share", &v) && v == NULL, "queue share not null");
	CHECK(json_object_object_get_ex(o, "na", &v) && json_object_is_type(v, json_type_string),
	      "queue has no n/a reason");
	CHECK(json_object_object_get_ex(ph, "device_flush", &o) &&
	      json_object_object_get_ex(o, "mean_us", &v) && v != NULL, "other phases stay measured");
	json_object_put(ph);

	flj = fss_breakdown_flush_json(&b);
	CHECK(json_object_object_get_ex(flj, "preflush", &v) && v == NULL, "preflush not null");
	CHECK(json_object_object_get_ex(flj, "fua_emulated", &v) && v == NULL, "fua_emulated not null");
	CHECK(json_object_object_get_ex(flj, "fua_writes", &v) && v != NULL, "fua_writes must stay");
	json_object_put(flj);

	f = open_memstream(&buf, &len);
	breakdown_print(f, &b, 4);
	fclose(f);
	CHECK(strstr(buf, "queue              n/a       n/a") != NULL, "text has no queue n/a row: %s", buf);
	CHECK(strstr(buf, "preflush requests n/a") != NULL, "text has no preflush n/a: %s", buf);
	/* the reason under it is the document's own */
	CHECK(strstr(buf, "queue and preflush n/a: requests seen only from "
		     "issue on (no") != NULL, "text does not say why: %s", buf);
	free(buf);
	fss_collector_free(c);
}

/*
 * No journal hook (jbd2 and xfs not in the kernel): the journal phase is
 * n/a (null with a reason), never 0, in JSON and in text; the others stay.
 */
static void test_report_no_journal(void)
{
	struct fss_collector *c = fss_collector_new();
	struct fss_flush_stats fl = {
		.flushes = 1, .flush_sync_refs = 1, .syncs = 1
	};
	struct fss_sync_result r = mk_result(US(1), 0, US(1), 0);
	struct fss_breakdown b;
	struct json_object *ph, *o, *v;
	char *buf;

	fss_collector_add(&r, c);
	fss_collector_breakdown(c, &fl, 0, &b);
	b.no_journal = true;
	ph = fss_breakdown_phases_json(&b);
	CHECK(json_object_object_get_ex(ph, "journal", &o), "no journal");
	CHECK(json_object_object_get_ex(o, "mean_us", &v) && v == NULL,
	      "journal mean not null");
	CHECK(json_object_object_get_ex(o, "share", &v) && v == NULL,
	      "journal share not null");
	CHECK(json_object_object_get_ex(o, "na", &v) &&
	      json_object_is_type(v, json_type_string),
	      "journal has no n/a reason");
	CHECK(json_object_object_get_ex(ph, "queue", &o) &&
	      json_object_object_get_ex(o, "mean_us", &v) && v != NULL,
	      "other phases stay measured");
	json_object_put(ph);
	buf = print_to_string(&b, 4);
	CHECK(strstr(buf, "journal            n/a       n/a") != NULL,
	      "text has no journal n/a row: %s", buf);
	CHECK(strstr(buf, "journal n/a: no jbd2 or xfs log tracepoint") != NULL,
	      "text does not say why: %s", buf);
	check_width(buf, __LINE__);
	free(buf);
	fss_collector_free(c);
}

static void test_report_sync_json_escaping(void)
{
	struct fss_sync_result r = mk_result(US(30), US(10), US(15),
					     FSS_SYNC_FDATASYNC);
	struct json_object *o, *v;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	r.tid = 4242;
	r.pid = 4240;
	r.dev = MKDEV(259, 3);
	r.ino = 1234567890123ULL;
	r.start = T(1);
	r.ret = -5;
	r.nr_flush = 2;
	r.nr_fua = 1;
	/* quote, backslash, newline, control byte, a lone 0xff, é */
	memcpy(r.comm, "a\"b\\c\nd\x01\xff\xc3\xa9z", 12);

	f = open_memstream(&buf, &len);
	rc = fss_sync_result_write_json(f, "fdatasync \"8k\"", &r);
	fclose(f);
	CHECK_EQ(rc, 0);
	CHECK(len > 0 && buf[len - 1] == '\n', "not newline-terminated");
	CHECK(strchr(buf, '\n') == buf + len - 1, "more than one line: %s", buf);
	o = json_tokener_parse(buf);
	CHECK(o != NULL, "does not parse: %s", buf);
	if (o) {
		json_object_object_get_ex(o, "comm", &v);
		CHECK(v && strcmp(json_object_get_string(v),
				  "a\"b\\c\nd\x01\xef\xbf\xbd\xc3\xa9z") == 0,
		      "comm round trip: %s", buf);
		json_object_object_get_ex(o, "test", &v);
		CHECK(v && strcmp(json_object_get_string(v), "fdatasync \"8k\"") == 0,
		      "test name");
		json_object_object_get_ex(o, "dev", &v);
		CHECK(v && strcmp(json_object_get_string(v), "259:3") == 0,
		      "dev %s", v ? json_object_get_string(v) : "missing");
		json_object_object_get_ex(o, "kind", &v);
		CHECK(v && strcmp(json_object_get_string(v), "fdatasync") == 0,
		      "kind");
		json_object_object_get_ex(o, "total_ns", &v);
		CHECK_EQ(json_object_get_int64(v), US(30));
		json_object_object_get_ex(o, "device_flush_ns", &v);
		CHECK_EQ(json_object_get_int64(v), US(15));
		json_object_object_get_ex(o, "other_ns", &v);
		CHECK_EQ(json_object_get_int64(v), US(5));
		json_object_object_get_ex(o, "ino", &v);
		CHECK_EQ(json_object_get_int64(v), 1234567890123ULL);
		json_object_object_get_ex(o, "ret", &v);
		CHECK(v && json_object_get_int64(v) == -5, "ret");
		json_object_object_get_ex(o, "nr_flush", &v);
		CHECK_EQ(json_object_get_int64(v), 2);
		for (int p = 0; p < FSS_PH_MAX; p++) {
			char key[32];

			snprintf(key, sizeof(key), "%s_ns", fss_phase_name(p));
			CHECK(json_object_object_get_ex(o, key, &v), "no %s", key);
		}
		json_object_put(o);
	}
	free(buf);

	/* a comm that fills all 16 bytes (no NUL) stays inside its bytes */
	memset(r.comm, 'x', sizeof(r.comm));
	buf = NULL;
	f = open_memstream(&buf, &len);
	fss_sync_result_write_json(f, NULL, &r);
	fclose(f);
	o = json_tokener_parse(buf);
	CHECK(o != NULL, "does not parse: %s", buf);
	if (o) {
		json_object_object_get_ex(o, "comm", &v);
		CHECK(v && strlen(json_object_get_string(v)) == FSS_COMM_LEN,
		      "comm %s", v ? json_object_get_string(v) : "missing");
		CHECK(json_object_object_get_ex(o, "test", &v) && !v,
		      "NULL test not null");
		json_object_put(o);
	}
	free(buf);
	CHECK_EQ(fss_sync_result_write_json(NULL, "x", &r), -EINVAL);
}

static void test_names(void)
{
	CHECK(strcmp(fss_phase_name(FSS_PH_DEV_FLUSH), "device_flush") == 0, "name mismatch");
	CHECK(strcmp(fss_phase_name(FSS_PH_OTHER), "other") == 0, "name mismatch");
	CHECK(strcmp(fss_phase_name(FSS_PH_MAX), "?") == 0, "name mismatch");
	CHECK(strcmp(fss_sync_kind_name(FSS_SYNC_DSYNC_WRITE), "dsync_write") == 0, "name mismatch");
	CHECK(strcmp(fss_sync_kind_name(FSS_SYNC_IOURING_FSYNC), "io_uring_fsync") == 0, "name mismatch");
	CHECK(strcmp(fss_sync_kind_name(FSS_SYNC_KIND_MAX), "?") == 0, "name mismatch");
	CHECK(strcmp(fss_summ_why_name(FSS_SUMM_TRACED), "traced") == 0, "name mismatch");
	CHECK(strcmp(fss_summ_why_name(FSS_SUMM_SAMPLED), "sampled") == 0, "name mismatch");
	CHECK(strcmp(fss_summ_why_name(FSS_SUMM_WHY_MAX), "?") == 0, "name mismatch");
	for (int w = 0; w < FSS_SUMM_WHY_MAX; w++)
		CHECK(fss_summ_why_name(w) != NULL && strcmp(fss_summ_why_name(w), "?"),
		      "reason %d has no name", w);
}

/* ---- runner ---- */

static const struct tap_case cases[] = {
#define CASE(n) { #n, test_##n }
	CASE(report_percentiles),
	CASE(report_print),
	CASE(report_json),
	CASE(report_no_rq_start),
	CASE(report_no_journal),
	CASE(report_sync_json_escaping),
	CASE(names),
#undef CASE
};

TAP_MAIN(cases)
