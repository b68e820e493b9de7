// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * test_lib.c - the bottom layer's shared vocabulary (user/lib/): the
 * number and list parsers, the comm cleaner, the phase names and the
 * version stamp.  Pure C, no root.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include "doc/doc.h"
#include "lib/comm.h"
#include "lib/fmt.h"
#include "lib/parse.h"
#include "lib/phase.h"
#include "lib/version.h"
#include "tap.h"

static void parse_numbers(void)
{
	unsigned long long u = 7;
	double d = 0;
	long l = 0;

	CHECK_EQ(fss_parse_uint("42", 100, &u), 0);
	CHECK_EQ(u, 42);
	CHECK_EQ(fss_parse_uint("100", 100, &u), 0);	/* the edge passes */
	CHECK(fss_parse_uint("101", 100, &u) == -1, "one past the max");
	CHECK(fss_parse_uint("0", 100, &u) == -1, "0 is refused");
	CHECK(fss_parse_uint("-1", 100, &u) == -1, "a sign is refused");
	CHECK(fss_parse_uint("4k", 100, &u) == -1, "trailing bytes");
	CHECK(fss_parse_uint("", 100, &u) == -1, "empty");
	CHECK(fss_parse_uint("99999999999999999999999", ~0ULL, &u) == -1,
	      "overflow");
	CHECK_EQ(fss_parse_seconds("0.5", 10, &d), 0);
	CHECK_DBL(d, 0.5);
	CHECK(fss_parse_seconds("0", 10, &d) == -1, "0 s is refused");
	CHECK(fss_parse_seconds("nan", 10, &d) == -1, "NaN is refused");
	CHECK(fss_parse_seconds("10.1", 10, &d) == -1, "past the max");
	CHECK(fss_parse_double("-2.5e3", &d) && d == -2500, "a double");
	CHECK(!fss_parse_double("inf", &d), "infinity is refused");
	CHECK(!fss_parse_double("1.0x", &d), "trailing bytes");
	CHECK(fss_parse_long("-12", &l) && l == -12, "a long");
	CHECK(!fss_parse_long("12 ", &l), "a trailing space");
}

static int lookup_abc(const char *name)
{
	return !strcmp(name, "a") ? 0 : !strcmp(name, "b") ? 1 :
	       !strcmp(name, "c") ? 2 : -1;
}

static void parse_lists(void)
{
	int out[3], n = 0;

	CHECK_EQ(fss_parse_list("c,a", lookup_abc, out, &n, 3), 0);
	CHECK_EQ(n, 2);
	CHECK_EQ(out[0], 2);
	CHECK_EQ(out[1], 0);
	n = 0;
	CHECK(fss_parse_list("a,a", lookup_abc, out, &n, 3) == -1, "twice");
	n = 0;
	CHECK(fss_parse_list("a,d", lookup_abc, out, &n, 3) == -1, "unknown");
	n = 0;
	CHECK(fss_parse_list("", lookup_abc, out, &n, 3) == -1, "none");
	n = 0;
	CHECK(fss_parse_list("a,b", lookup_abc, out, &n, 1) == -1, "too many");
}

static void comm_clean(void)
{
	char out[FSS_COMM_UTF8_LEN(16)];

	fss_comm_utf8(out, sizeof(out), "postgres", 16);
	CHECK(!strcmp(out, "postgres"), "ASCII kept: %s", out);
	/* valid UTF-8 kept: "café" */
	fss_comm_utf8(out, sizeof(out), "caf\xc3\xa9", 16);
	CHECK(!strcmp(out, "caf\xc3\xa9"), "UTF-8 kept");
	/* a stray byte and an overlong become U+FFFD each byte */
	fss_comm_utf8(out, sizeof(out), "a\xff" "b\xc0\xaf", 16);
	CHECK(!strcmp(out, "a\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd"),
	      "bad bytes replaced");
	/* a multibyte character cut by the kernel's 15-byte limit */
	fss_comm_utf8(out, sizeof(out), "abcdefghijklmn\xe2\x82", 16);
	CHECK(!strcmp(out, "abcdefghijklmn\xef\xbf\xbd\xef\xbf\xbd"),
	      "cut character replaced");
	/* control bytes are kept (the JSON writer escapes them) */
	fss_comm_utf8(out, sizeof(out), "a\nb", 16);
	CHECK(!strcmp(out, "a\nb"), "control bytes kept");
	/* len bounds the read: no NUL needed within it */
	fss_comm_utf8(out, sizeof(out), "0123456789abcdefXYZ", 16);
	CHECK(!strcmp(out, "0123456789abcdef"), "len bounds: %s", out);
}

static void phases(void)
{
	static const char *const want[] = {
		"fs", "journal", "queue", "device_write", "device_flush", "other",
	};
	static const char *const abbr[] = {
		"fs", "jrn", "que", "dwr", "dfl", "oth",
	};

	CHECK_EQ(FSS_PH_MAX, 6);
	for (int p = 0; p < FSS_PH_MAX; p++) {
		CHECK(!strcmp(fss_phase_name(p), want[p]), "%d", p);
		CHECK(!strcmp(fss_phase_abbr(p), abbr[p]), "%d", p);
	}
	CHECK(!strcmp(fss_phase_name(FSS_PH_MAX), "?"), "out of range");
}

static void doc_stamp(void)
{
	struct json_object *d = json_object_new_object();

	fss_doc_stamp(d, "run");
	CHECK(!strcmp(fss_jstr(d, "schema"), "fsyncscope/run"), "schema");
	CHECK(fss_jnum(d, "schema_version") >= 1, "schema_version");
	CHECK(!strcmp(fss_jstr(d, "version"), FSS_VERSION), "version");
	json_object_put(d);
}

/* fss_doc_load of text in a file named name (in a scratch directory). */
static int load_err(const char *dir, const char *name, const char *text,
		    char *err, size_t errlen)
{
	char path[512];
	struct json_object *o;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	fclose(f);
	err[0] = '\0';
	o = fss_doc_load(path, err, errlen);
	unlink(path);
	json_object_put(o);
	return o ? 1 : 0;
}

/*
 * A refused document's error is one line, whatever control bytes the key,
 * string or file name it quotes hold (fuzz_doc found a key with "\n").
 */
static void doc_errors_oneline(void)
{
	static const char *const texts[] = {
		"{\"schema\":\"fsyncscope/run\",\"schema_version\":1,"
		"\"x\\ny\\t\\u007f\": NaN}",
		"{\"schema\":\"a\\nb\\rc\"}",
		"{\"schema\":\"fsyncscope/run\",\"schema_version\":1,"
		"\"tests\":[{\"a\\nb\":[NaN]}]}",
	};
	char tmpl[] = "/tmp/fss-test-lib.XXXXXX", err[512];
	char s[] = "a\nb\tc\x7f\x01" "d";
	const char *dir = mkdtemp(tmpl);

	CHECK(!strcmp(fss_err_oneline(s), "a?b?c??d"), "%s", s);
	CHECK(fss_err_oneline(NULL) == NULL, "NULL");
	if (!dir) {
		CHECK(0, "mkdtemp");
		return;
	}
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		CHECK_EQ(load_err(dir, "doc.json", texts[i], err, sizeof(err)), 0);
		CHECK(err[0] && !strpbrk(err, "\n\r\t\x7f"), "%zu: %s", i, err);
	}
	/* a file name with a newline, in a refusal that quotes it */
	CHECK_EQ(load_err(dir, "a\nb.json", "[]", err, sizeof(err)), 0);
	CHECK(err[0] && !strchr(err, '\n') && strstr(err, "a?b.json"),
	      "%s", err);
	rmdir(dir);
}

static const struct tap_case cases[] = {
	{ "parse_numbers", parse_numbers },
	{ "parse_lists", parse_lists },
	{ "comm_clean", comm_clean },
	{ "phases", phases },
	{ "doc_stamp", doc_stamp },
	{ "doc_errors_oneline", doc_errors_oneline },
};
TAP_MAIN(cases)
