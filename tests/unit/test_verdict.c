// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * test_verdict.c - every branch of fss_verdict_compute() with exact codes
 * and the key phrases the user reads; the printers' 80-column wrapping and
 * JSON shape.  Numbers are from the seed articles (Samsung 990 Pro
 * fdatasync ~1.6 ms, Micron 7400 with PLP ~24 us).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include "verdict.h"

static int failures, checks;

#define CHECK(cond, ...) do {						\
	checks++;							\
	if (!(cond)) {							\
		failures++;						\
		fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
	}								\
} while (0)

#define HAS(s, needle) CHECK(strstr((s), (needle)) != NULL,		\
			     "'%s' not in '%s'", (needle), (s))
#define LACKS(s, needle) CHECK(strstr((s), (needle)) == NULL,		\
			       "'%s' unexpectedly in '%s'", (needle), (s))

/* A device with nothing known and nothing measured. */
static struct fss_verdict_in base(void)
{
	struct fss_verdict_in in = {
		.dev_name = "sdx",
		.write_cache = -1, .fua = -1,
		.nvme_vwc_present = -1, .nvme_vwc_enabled = -1,
		.flush_p50_us = -1, .sync_p50_us = -1,
	};
	return in;
}

static struct fss_verdict run(const struct fss_verdict_in *in)
{
	struct fss_verdict v;

	CHECK(fss_verdict_compute(in, &v) == 0, "compute failed");
	return v;
}

/* Measured: n syncs, each with one flush of flush_us, sync total sync_us. */
static void measured(struct fss_verdict_in *in, unsigned long long n,
		     double flush_us, double sync_us)
{
	in->syncs = n;
	in->flushes = n;
	in->syncs_no_flush = 0;
	in->fua_writes = 0;
	in->flush_p50_us = flush_us;
	in->sync_p50_us = sync_us;
}

static void test_null(void)
{
	struct fss_verdict v;
	struct fss_verdict_in in = base();

	CHECK(fss_verdict_compute(NULL, &v) == -EINVAL, "NULL in");
	CHECK(fss_verdict_compute(&in, NULL) == -EINVAL, "NULL out");
}

static void test_unknown(void)
{
	struct fss_verdict_in in = base();
	struct fss_verdict v = run(&in);

	CHECK(v.code == FSS_V_UNKNOWN, "code %d", v.code);
	HAS(v.headline, "Write cache setting unknown");
	HAS(v.basis, "queue/write_cache unknown");
	HAS(v.basis, "No syncs were measured");

	/* measurements alone do not make a verdict */
	measured(&in, 1000, 1643, 1700);
	v = run(&in);
	CHECK(v.code == FSS_V_UNKNOWN, "code %d", v.code);
	HAS(v.basis, "1000 syncs traced: 1000 flush requests");
	HAS(v.basis, "device_flush p50 1.6 ms per sync");
}

static void test_loop(void)
{
	struct fss_verdict_in in = base();
	struct fss_verdict v;

	in.dev_name = "loop3";
	in.is_loop = true;
	in.write_cache = 1;	/* loop says write back; the verdict must not care */
	in.loop_backing = "/tmp/img1.ext4";
	measured(&in, 200, 900, 1200);
	v = run(&in);
	CHECK(v.code == FSS_V_LOOP_BACKING_FILE, "code %d", v.code);
	HAS(v.headline, "fsync of the backing file");
	HAS(v.headline, "not to loop3");
	HAS(v.basis, "backed by /tmp/img1.ext4");
	HAS(v.basis, "200 syncs traced");
	LACKS(v.headline, "power-loss");

	in.loop_backing = NULL;
	v = run(&in);
	CHECK(v.code == FSS_V_LOOP_BACKING_FILE, "code %d", v.code);
	LACKS(v.basis, "backed by");
}

static void test_write_through(void)
{
	struct fss_verdict_in in = base();
	struct fss_verdict v;

	/* Micron 7400 (PLP) in the seed article: write through, fdatasync 24 us */
	in.write_cache = 0;
	in.fua = 0;
	measured(&in, 5000, -1, 24);
	in.flushes = 0;
	in.syncs_no_flush = 5000;
	v = run(&in);
	CHECK(v.code == FSS_V_WRITE_THROUGH_ELIDED, "code %d", v.code);
	HAS(v.headline, "elides flushes");
	HAS(v.headline, "sync latency is the write itself");
	HAS(v.basis, "queue/write_cache write through");
	HAS(v.basis, "sync p50 24 us");
	HAS(v.basis, "cannot tell which");
	LACKS(v.basis, "unexpected");

	/* flush requests on a write-through queue are pointed out */
	in.flushes = 7;
	v = run(&in);
	CHECK(v.code == FSS_V_WRITE_THROUGH_ELIDED, "code %d", v.code);
	HAS(v.basis, "7 flush requests");
	HAS(v.basis, "unexpected");

	/* facts only */
	in = base();
	in.write_cache = 0;
	v = run(&in);
	CHECK(v.code == FSS_V_WRITE_THROUGH_ELIDED, "code %d", v.code);
	HAS(v.basis, "No syncs were measured");
	LACKS(v.basis, "sync p50");

	/* NVMe without a volatile write cache */
	in = base();
	in.dev_name = "nvme0n1";
	in.write_cache = 0;
	in.nvme_vwc_present = 0;
	v = run(&in);
	CHECK(v.code == FSS_V_WRITE_THROUGH_ELIDED, "code %d", v.code);
	HAS(v.basis, "NVMe volatile write cache absent");
	HAS(v.basis, "reports no volatile write cache");
	LACKS(v.basis, "cannot tell which");

	/* VWC absent decides even when sysfs was unreadable */
	in.write_cache = -1;
	v = run(&in);
	CHECK(v.code == FSS_V_WRITE_THROUGH_ELIDED, "code %d", v.code);
}

static void test_nvme_cache_states(void)
{
	struct fss_verdict_in in = base();
	struct fss_verdict v;

	in.dev_name = "nvme1n1";
	in.write_cache = 0;
	in.nvme_vwc_present = 1;
	in.nvme_vwc_enabled = 1;
	v = run(&in);
	CHECK(v.code == FSS_V_CACHE_IGNORED, "code %d", v.code);
	HAS(v.headline, "kernel was told write through");
	HAS(v.headline, "durable only with power-loss protection");

	in.write_cache = 1;
	in.nvme_vwc_enabled = 0;
	v = run(&in);
	CHECK(v.code == FSS_V_CACHE_DISABLED, "code %d", v.code);
	HAS(v.headline, "present but disabled");
	HAS(v.basis, "NVMe volatile write cache present, disabled");

	/* enabled VWC counts as write back even if sysfs is unknown */
	in.write_cache = -1;
	in.nvme_vwc_enabled = 1;
	v = run(&in);
	CHECK(v.code == FSS_V_WRITE_BACK_UNMEASURED, "code %d", v.code);

	/* enabled unknown (not root), present: write back */
	in.nvme_vwc_enabled = -1;
	in.write_cache = 1;
	measured(&in, 1000, 2783, 2800);
	v = run(&in);
	CHECK(v.code == FSS_V_VOLATILE_CACHE_PAYS_FLUSH, "code %d", v.code);
	HAS(v.basis, "present, unknown");
}

static void test_write_back_unmeasured(void)
{
	struct fss_verdict_in in = base();
	struct fss_verdict v;

	in.write_cache = 1;
	in.fua = 1;
	v = run(&in);
	CHECK(v.code == FSS_V_WRITE_BACK_UNMEASURED, "code %d", v.code);
	HAS(v.headline, "was not measured");
	HAS(v.basis, "fsyncscope run");
	HAS(v.basis, "FUA yes");

	/* flushes seen, time unknown */
	measured(&in, 100, -1, 900);
	v = run(&in);
	CHECK(v.code == FSS_V_WRITE_BACK_UNMEASURED, "code %d", v.code);
	HAS(v.headline, "100 flush requests");
	HAS(v.headline, "time is unknown");
	LACKS(v.basis, "device_flush p50");
}

static void test_flush_not_seen(void)
{
	struct fss_verdict_in in = base();
	struct fss_verdict v;

	in.write_cache = 1;
	measured(&in, 100, 0, 15);
	in.flushes = 0;
	in.syncs_no_flush = 100;
	v = run(&in);
	CHECK(v.code == FSS_V_FLUSH_NOT_SEEN, "code %d", v.code);
	HAS(v.headline, "none of the 100 syncs sent a flush");
	HAS(v.basis, "barrier=0");
	HAS(v.basis, "cannot tell which");

	/* flushes happened, but none during a sync */
	in.flushes = 3;
	v = run(&in);
	CHECK(v.code == FSS_V_FLUSH_NOT_SEEN, "code %d", v.code);
}

static void test_fua_only(void)
{
	struct fss_verdict_in in = base();
	struct fss_verdict v;

	in.write_cache = 1;
	in.fua = 1;
	measured(&in, 100, 300, 400);
	in.flushes = 0;
	in.fua_writes = 100;
	v = run(&in);
	CHECK(v.code == FSS_V_FUA_ONLY, "code %d", v.code);
	HAS(v.headline, "from 100 FUA writes");
	HAS(v.basis, "100 FUA writes");
}

static void test_fast_flush(void)
{
	struct fss_verdict_in in = base();
	struct fss_verdict v;

	in.write_cache = 1;
	in.fua = 1;
	measured(&in, 4000, 12, 30);
	v = run(&in);
	CHECK(v.code == FSS_V_FLUSH_SUSPICIOUSLY_FAST, "code %d", v.code);
	HAS(v.headline, "~12 us");
	HAS(v.headline, "may ignore flushes");
	HAS(v.headline, "power-loss protection");
	HAS(v.basis, "power-cut");
	HAS(v.basis, "diskchecker.pl");
	HAS(v.basis, "FUA yes");

	/* zero and just under the threshold are fast; the threshold is not */
	in.flush_p50_us = 0;
	v = run(&in);
	CHECK(v.code == FSS_V_FLUSH_SUSPICIOUSLY_FAST, "code %d", v.code);
	HAS(v.headline, "~0.0 us");
	in.flush_p50_us = FSS_VERDICT_FAST_FLUSH_US - 0.1;
	v = run(&in);
	CHECK(v.code == FSS_V_FLUSH_SUSPICIOUSLY_FAST, "code %d", v.code);
	in.flush_p50_us = FSS_VERDICT_FAST_FLUSH_US;
	v = run(&in);
	CHECK(v.code == FSS_V_VOLATILE_CACHE_PAYS_FLUSH, "code %d", v.code);
}

static void test_pays_flush(void)
{
	struct fss_verdict_in in = base();
	struct fss_verdict v;

	/* Samsung 990 Pro: write back, FUA 1, fdatasync ~1.6 ms */
	in.dev_name = "nvme1n1";
	in.write_cache = 1;
	in.fua = 1;
	in.nvme_vwc_present = 1;
	in.nvme_vwc_enabled = 1;
	measured(&in, 3000, 1230, 1643);
	in.syncs_no_flush = 12;
	v = run(&in);
	CHECK(v.code == FSS_V_VOLATILE_CACHE_PAYS_FLUSH, "code %d", v.code);
	HAS(v.headline, "without power-loss protection");
	HAS(v.headline, "~1.2 ms flush");
	HAS(v.basis, "nvme1n1: queue/write_cache write back, FUA yes, NVMe "
		"volatile write cache present, enabled.");
	HAS(v.basis, "12 syncs without any flush");
	HAS(v.basis, "The flush is 75% of the 1.6 ms p50 sync");

	/* slow flush, sync p50 unknown: no percentage */
	in.sync_p50_us = -1;
	in.flush_p50_us = 140000;
	v = run(&in);
	CHECK(v.code == FSS_V_VOLATILE_CACHE_PAYS_FLUSH, "code %d", v.code);
	HAS(v.headline, "~140 ms flush");
	LACKS(v.basis, "The flush is");
}

static void test_names(void)
{
	for (int i = 0; i < FSS_V_MAX; i++) {
		const char *n = fss_verdict_code_name(i);

		CHECK(n && *n, "code %d has no name", i);
		for (int j = 0; j < i; j++)
			CHECK(strcmp(n, fss_verdict_code_name(j)) != 0 || i == 0,
			      "codes %d and %d share name %s", i, j, n);
	}
	CHECK(!strcmp(fss_verdict_code_name(FSS_V_VOLATILE_CACHE_PAYS_FLUSH),
		      "volatile_cache_pays_flush"), "name");
	CHECK(!strcmp(fss_verdict_code_name(FSS_V_MAX), "unknown"), "out of range");
}

static void test_print_and_json(void)
{
	struct fss_verdict_in in = base();
	struct fss_verdict v;
	char *buf = NULL, *line, *save;
	size_t len = 0;
	FILE *f;
	int lines = 0;

	in.dev_name = "loop7";
	in.is_loop = true;
	in.loop_backing = "/tmp/a/very/long/path/that/keeps/going/and/going/"
			  "until/it/cannot/fit/on/one/line/of/eighty/columns/img";
	measured(&in, 123456, 1643, 5636);
	v = run(&in);

	f = open_memstream(&buf, &len);
	fss_verdict_print(f, &v);
	fclose(f);
	HAS(buf, "Verdict:  Loop device");
	HAS(buf, "\nBased on: loop7 is a loop device");
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		lines++;
		CHECK(strlen(line) <= 80, "line of %zu columns: '%s'", strlen(line), line);
		CHECK(line[strlen(line) - 1] != ' ', "trailing space: '%s'", line);
	}
	CHECK(lines >= 4, "expected wrapped output, got %d lines", lines);
	free(buf);

	struct json_object *o = fss_verdict_json(&v), *x;

	CHECK(o != NULL, "json");
	CHECK(json_object_object_get_ex(o, "code", &x) &&
	      !strcmp(json_object_get_string(x), "loop_backing_file"), "code");
	CHECK(json_object_object_get_ex(o, "headline", &x) &&
	      !strcmp(json_object_get_string(x), v.headline), "headline");
	CHECK(json_object_object_get_ex(o, "basis", &x) &&
	      !strcmp(json_object_get_string(x), v.basis), "basis");
	CHECK(json_object_object_length(o) == 3, "3 keys");
	json_object_put(o);
}

int main(void)
{
	test_null();
	test_unknown();
	test_loop();
	test_write_through();
	test_nvme_cache_states();
	test_write_back_unmeasured();
	test_flush_not_seen();
	test_fua_only();
	test_fast_flush();
	test_pays_flush();
	test_names();
	test_print_and_json();
	printf("test_verdict: %d checks, %d failures\n", checks, failures);
	return failures ? 1 : 0;
}
