// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * test_verdict.c - every branch of fss_verdict_compute() with exact codes
 * and the key phrases the user reads; the printers' 80-column wrapping and
 * JSON shape; the flush-time threshold with synthetic per-sync samples just
 * below, just above and straddling it, through the same order-statistic
 * interval the collector computes (order_ci.c).  Numbers are from the seed
 * articles (Samsung 990 Pro fdatasync ~1.6 ms, Micron 7400 with PLP ~24 us).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <math.h>
#include "lib/order_ci.h"
#include "sys/verdict.h"
#include "tap.h"

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

	/* no interval known: the p50 alone is held against the band */
	CHECK(v.conf == FSS_VC_CLEAR, "conf %d", v.conf);
	HAS(v.conf_text, "clear: flush p50 12 us (no interval known)");
	in.flush_p50_us = FSS_VERDICT_FAST_FLUSH_US - 0.1;
	v = run(&in);
	CHECK(v.code == FSS_V_FLUSH_BORDERLINE, "code %d", v.code);
}

/* ---- thresholds against synthetic samples ---------------------------- */

static unsigned long long lcg = 0x2545F4914F6CDD1DULL;

/* Uniform in [0, 1), deterministic. */
static double uni(void)
{
	lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(lcg >> 11) / 9007199254740992.0;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * n per-sync flush times spread uniformly over center x (1 +- spread),
 * reduced as the collector does: nearest-rank p50 and its interval.
 */
static void samples(struct fss_verdict_in *in, size_t n, double center,
		    double spread)
{
	double *v = malloc(n * sizeof(*v));
	size_t lo, hi;

	for (size_t i = 0; i < n; i++)
		v[i] = center * (1.0 + spread * (2.0 * uni() - 1.0));
	qsort(v, n, sizeof(*v), dbl_cmp);
	measured(in, n, v[(n + 1) / 2 - 1], center * 1.5);
	CHECK(!fss_quantile_ci_ranks(n, 0.5, FSS_CI_LEVEL, &lo, &hi), "ranks");
	in->flush_ci = true;
	in->flush_p50_lo_us = lo ? v[lo - 1] : 0.0;
	in->flush_p50_hi_us = hi <= n ? v[hi - 1] : INFINITY;
	free(v);
}

static void test_ci_ranks(void)
{
	size_t lo, hi;
	int covered = 0;

	/* exact binomial ranks (checked against math.comb in Python) */
	static const size_t want[][3] = {
		{ 5, 0, 6 }, { 6, 1, 6 }, { 10, 2, 9 }, { 100, 40, 61 },
		{ 1000, 469, 532 },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		CHECK(!fss_quantile_ci_ranks(want[i][0], 0.5, 0.95, &lo, &hi),
		      "n %zu", want[i][0]);
		CHECK(lo == want[i][1] && hi == want[i][2], "n %zu: ranks "
		      "%zu..%zu, want %zu..%zu", want[i][0], lo, hi,
		      want[i][1], want[i][2]);
	}
	CHECK(fss_quantile_ci_ranks(10, 0, 0.95, &lo, &hi) == -1, "q 0");
	CHECK(fss_quantile_ci_ranks(10, 0.5, 1, &lo, &hi) == -1, "level 1");

	/* coverage: the true median of U(0,1) is 0.5; 2000 runs of 51 */
	for (int t = 0; t < 2000; t++) {
		double v[51];

		for (int i = 0; i < 51; i++)
			v[i] = uni();
		qsort(v, 51, sizeof(v[0]), dbl_cmp);
		fss_quantile_ci_ranks(51, 0.5, 0.95, &lo, &hi);
		covered += v[lo - 1] <= 0.5 && 0.5 <= v[hi - 1];
	}
	CHECK(covered >= 1880, "coverage %d/2000 under 94%%", covered);
}

static void test_thresholds(void)
{
	struct fss_verdict_in in = base();
	struct fss_verdict v, w;

	in.write_cache = 1;
	in.fua = 1;

	/* just below the band (40 us): clearly fast */
	samples(&in, 2000, 38, 0.05);
	v = run(&in);
	CHECK(v.code == FSS_V_FLUSH_SUSPICIOUSLY_FAST, "38 us: code %d", v.code);
	CHECK(v.conf == FSS_VC_CLEAR, "38 us: conf %d", v.conf);
	CHECK(v.ci_hi_us < 40 && v.ci_lo_us > 36, "38 us: %g-%g", v.ci_lo_us,
	      v.ci_hi_us);
	HAS(v.conf_text, "clear: flush p50 ");
	HAS(v.conf_text, "95% interval over 2000 syncs");
	HAS(v.conf_text, "band 40-62.5 us");

	/* just above the band (62.5 us): clearly pays */
	samples(&in, 2000, 65, 0.05);
	v = run(&in);
	CHECK(v.code == FSS_V_VOLATILE_CACHE_PAYS_FLUSH, "65 us: code %d", v.code);
	CHECK(v.conf == FSS_VC_CLEAR, "65 us: conf %d", v.conf);

	/* the pair, 50 and 52 us: the same borderline verdict */
	samples(&in, 2000, 50, 0.05);
	v = run(&in);
	samples(&in, 2000, 52, 0.05);
	w = run(&in);
	CHECK(v.code == FSS_V_FLUSH_BORDERLINE && w.code == v.code,
	      "50/52 us: codes %d %d", v.code, w.code);
	CHECK(v.conf == FSS_VC_BORDERLINE && w.conf == FSS_VC_BORDERLINE, "conf");
	HAS(v.conf_text, "borderline: flush p50 ");
	HAS(v.conf_text, "threshold 50 us");
	HAS(v.conf_text, "run longer or use 'fsyncscope devices --probe'");
	HAS(v.headline, "too close to the 50 us line");
	CHECK(v.ci_lo_us <= 50 && v.ci_hi_us >= 50, "interval %g-%g holds 50",
	      v.ci_lo_us, v.ci_hi_us);

	/* straddling a band edge: a wide spread over 37 us reaches 40 */
	samples(&in, 20, 37, 0.8);
	v = run(&in);
	CHECK(v.ci_hi_us >= 40, "wide: hi %g", v.ci_hi_us);
	CHECK(v.code == FSS_V_FLUSH_BORDERLINE, "wide 37 us: code %d", v.code);
	/* the same center, tight: clear */
	samples(&in, 3000, 37, 0.05);
	v = run(&in);
	CHECK(v.code == FSS_V_FLUSH_SUSPICIOUSLY_FAST, "tight 37: code %d", v.code);
	/* straddling the upper edge */
	samples(&in, 20, 66, 0.8);
	v = run(&in);
	CHECK(v.ci_lo_us <= 62.5, "wide: lo %g", v.ci_lo_us);
	CHECK(v.code == FSS_V_FLUSH_BORDERLINE, "wide 66 us: code %d", v.code);

	/* five syncs bound nothing at 95 %: borderline even at 1.6 ms */
	samples(&in, 5, 1600, 0.01);
	v = run(&in);
	CHECK(v.code == FSS_V_FLUSH_BORDERLINE, "n 5: code %d", v.code);
	CHECK(isinf(v.ci_hi_us), "n 5: hi %g", v.ci_hi_us);
	HAS(v.conf_text, "unbounded (too few syncs)");
	samples(&in, 6, 1600, 0.01);
	v = run(&in);
	CHECK(v.code == FSS_V_VOLATILE_CACHE_PAYS_FLUSH, "n 6: code %d", v.code);
	CHECK(v.conf == FSS_VC_CLEAR, "n 6: conf %d", v.conf);

	/* a caller's hint replaces the default one */
	samples(&in, 2000, 50, 0.05);
	in.retry_hint = "probe longer";
	v = run(&in);
	HAS(v.conf_text, "; probe longer");
	LACKS(v.conf_text, "devices --probe");
	in.retry_hint = NULL;

	/* the count thresholds are exact, no interval: confidence n/a */
	in.syncs_no_flush = in.syncs - 1;
	v = run(&in);
	CHECK(v.code != FSS_V_FLUSH_NOT_SEEN, "one sync flushed: code %d", v.code);
	in.syncs_no_flush = in.syncs;
	v = run(&in);
	CHECK(v.code == FSS_V_FLUSH_NOT_SEEN, "none flushed: code %d", v.code);
	CHECK(v.conf == FSS_VC_NA, "count verdict: conf %d", v.conf);
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

	CHECK(v.conf == FSS_VC_CLEAR, "1.2 ms, no interval: conf %d", v.conf);

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
	CHECK(json_object_object_get_ex(o, "confidence", &x) &&
	      !strcmp(json_object_get_string(x), "n/a"), "confidence n/a");
	CHECK(json_object_object_get_ex(o, "interval", &x) && !x, "interval null");
	CHECK(json_object_object_get_ex(o, "threshold", &x) && !x, "threshold null");
	CHECK(json_object_object_get_ex(o, "confidence_text", &x) && !x,
	      "confidence_text null");
	CHECK(json_object_object_length(o) == 7, "7 keys");
	json_object_put(o);

	/* a borderline verdict: its interval, threshold and Confidence line */
	in = base();
	in.write_cache = 1;
	samples(&in, 2000, 51, 0.05);
	v = run(&in);
	o = fss_verdict_json(&v);
	CHECK(json_object_object_get_ex(o, "code", &x) &&
	      !strcmp(json_object_get_string(x), "flush_borderline"), "code");
	CHECK(json_object_object_get_ex(o, "confidence", &x) &&
	      !strcmp(json_object_get_string(x), "borderline"), "confidence");
	struct json_object *iv, *th;

	CHECK(json_object_object_get_ex(o, "interval", &iv) && iv, "interval");
	CHECK(json_object_object_get_ex(iv, "low_us", &x) &&
	      fabs(json_object_get_double(x) - v.ci_lo_us) < 1e-9, "low_us");
	CHECK(json_object_object_get_ex(iv, "high_us", &x) &&
	      fabs(json_object_get_double(x) - v.ci_hi_us) < 1e-9, "high_us");
	CHECK(json_object_object_get_ex(iv, "samples", &x) &&
	      json_object_get_int64(x) == 2000, "samples");
	CHECK(json_object_object_get_ex(iv, "level", &x) &&
	      json_object_get_double(x) == 0.95, "level");
	CHECK(json_object_object_get_ex(o, "threshold", &th) && th, "threshold");
	CHECK(json_object_object_get_ex(th, "us", &x) &&
	      json_object_get_double(x) == 50, "threshold us");
	CHECK(json_object_object_get_ex(th, "borderline_low_us", &x) &&
	      json_object_get_double(x) == 40, "band low");
	CHECK(json_object_object_get_ex(th, "borderline_high_us", &x) &&
	      json_object_get_double(x) == 62.5, "band high");
	/* the Confidence line's text, for renderers of the document */
	CHECK(json_object_object_get_ex(o, "confidence_text", &x) &&
	      !strcmp(json_object_get_string(x), v.conf_text), "confidence_text");
	json_object_put(o);

	buf = NULL;
	f = open_memstream(&buf, &len);
	fss_verdict_print(f, &v);
	fclose(f);
	HAS(buf, "\nConfidence: borderline: flush p50 ");
	{
		/* a renderer of the saved verdict prints the same bytes */
		struct json_object *vj = fss_verdict_json(&v);
		char *buf2 = NULL;
		size_t len2;
		FILE *f2 = open_memstream(&buf2, &len2);

		fss_verdict_print_json(f2, vj);
		fclose(f2);
		CHECK(!strcmp(buf, buf2), "print_json differs: '%s' vs '%s'", buf2, buf);
		free(buf2);
		json_object_put(vj);
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		CHECK(strlen(line) <= 80, "line of %zu columns: '%s'", strlen(line), line);
	free(buf);
}

static const struct tap_case cases[] = {
	{ "null", test_null },
	{ "unknown", test_unknown },
	{ "loop", test_loop },
	{ "write_through", test_write_through },
	{ "nvme_cache_states", test_nvme_cache_states },
	{ "write_back_unmeasured", test_write_back_unmeasured },
	{ "flush_not_seen", test_flush_not_seen },
	{ "fua_only", test_fua_only },
	{ "fast_flush", test_fast_flush },
	{ "pays_flush", test_pays_flush },
	{ "ci_ranks", test_ci_ranks },
	{ "thresholds", test_thresholds },
	{ "names", test_names },
	{ "print_and_json", test_print_and_json },
};

TAP_MAIN(cases)
