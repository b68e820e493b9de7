// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * test_summ.c - the overload summary (user/stats/summ.c): the kernel's
 * counts of syncs traced in full and summarized, by kind and why, and
 * their JSON (log2 buckets: percentiles are the bucket's upper bound).
 * Pure C, no root.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "doc/doc.h"
#include "stats/summ.h"
#include "render/render.h"
#include "tap.h"

static void counts(void)
{
	struct fss_summ k[FSS_SYNC_KIND_MAX];

	memset(k, 0, sizeof(k));
	k[FSS_SYNC_FSYNC].syncs[FSS_SUMM_TRACED] = 5;
	k[FSS_SYNC_FDATASYNC].syncs[FSS_SUMM_TRACED] = 7;
	k[FSS_SYNC_FDATASYNC].syncs[FSS_SUMM_RING_HIGH] = 3;
	k[FSS_SYNC_FSYNC].syncs[FSS_SUMM_LOST_NEAR] = 2;
	k[FSS_SYNC_DSYNC_WRITE].syncs[FSS_SUMM_LOST_AFTER] = 1;
	CHECK_EQ(fss_summ_count(k, FSS_SUMM_TRACED), 12);
	CHECK_EQ(fss_summ_count(k, FSS_SUMM_RING_FULL), 0);
	CHECK_EQ(fss_summ_summarized(k), 6);
}

/* 100 summarized fdatasyncs of [16384, 32768) ns and one of ~1 ms */
static void json_totals(void)
{
	struct fss_summ k[FSS_SYNC_KIND_MAX];
	struct json_object *o, *t, *h;

	memset(k, 0, sizeof(k));
	k[FSS_SYNC_FDATASYNC].syncs[FSS_SUMM_TRACED] = 40;
	k[FSS_SYNC_FDATASYNC].syncs[FSS_SUMM_RING_HIGH] = 90;
	k[FSS_SYNC_FDATASYNC].syncs[FSS_SUMM_RING_FULL] = 11;
	k[FSS_SYNC_FDATASYNC].hist[14] = 100;
	k[FSS_SYNC_FDATASYNC].hist[20] = 1;
	k[FSS_SYNC_FDATASYNC].total_ns = 100 * 20000ULL + 1100000ULL;
	o = fss_summ_json(k);
	CHECK_EQ(fss_jint(o, "traced", -1), 40);
	CHECK_EQ(fss_jint(o, "summarized", -1), 101);
	CHECK_EQ(fss_jint(fss_j(o, "why"), "ring_high", -1), 90);
	CHECK_EQ(fss_jint(fss_j(o, "why"), "ring_full", -1), 11);
	CHECK_EQ(fss_jint(fss_j(o, "why"), "lost_near", -1), 0);
	CHECK_EQ(fss_jint(fss_j(o, "why"), "lost_after", -1), 0);
	/* only the kinds seen */
	CHECK_EQ(json_object_object_length(fss_j(o, "by_kind")), 1);
	CHECK_EQ(fss_jint(fss_j(fss_j(o, "by_kind"), "fdatasync"),
			  "summarized", -1), 101);
	t = fss_j(o, "summarized_total_us");
	CHECK_DBL(fss_jnum(t, "mean"), (100 * 20.0 + 1100.0) / 101);
	CHECK_DBL(fss_jnum(t, "p50_le"), 32.768);	/* 2^15 ns */
	CHECK_DBL(fss_jnum(t, "p99_le"), 32.768);	/* rank 100 of 101 */
	CHECK_DBL(fss_jnum(t, "max_le"), 2097.152);	/* 2^21 ns */
	h = fss_j(o, "summarized_hist_log2_ns");
	CHECK_EQ(json_object_array_length(h), 21);	/* up to the last one */
	CHECK_EQ(json_object_get_int64(json_object_array_get_idx(h, 14)), 100);
	json_object_put(o);
}

static void json_none(void)
{
	struct fss_summ k[FSS_SYNC_KIND_MAX];
	struct json_object *o;

	memset(k, 0, sizeof(k));
	k[FSS_SYNC_FSYNC].syncs[FSS_SUMM_TRACED] = 3;
	o = fss_summ_json(k);
	CHECK_EQ(fss_jint(o, "summarized", -1), 0);
	CHECK(fss_j(o, "summarized_total_us") == NULL,
	      "no totals without summarized syncs");
	CHECK_EQ(json_object_array_length(fss_j(o, "summarized_hist_log2_ns")),
		 0);
	CHECK_EQ(fss_jint(fss_j(fss_j(o, "by_kind"), "fsync"), "traced", -1), 3);
	json_object_put(o);
}

/* the text paragraph of s (a summ's JSON, with sample_every) */
static char *paragraph(struct json_object *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fss_text_overload(f, 0, o, false, "what follows covers");
	fclose(f);
	return buf;
}

/*
 * --sample: the syncs not drawn are summarized with why "sampled"; alone
 * they are a "sampled:" paragraph with the rate, beside overload the
 * overload paragraph counts them and names them
 */
static void sampled(void)
{
	struct fss_summ k[FSS_SYNC_KIND_MAX];
	struct json_object *o;
	char *t;

	memset(k, 0, sizeof(k));
	k[FSS_SYNC_FDATASYNC].syncs[FSS_SUMM_TRACED] = 25;
	k[FSS_SYNC_FDATASYNC].syncs[FSS_SUMM_SAMPLED] = 70;
	k[FSS_SYNC_IOURING_FSYNC].syncs[FSS_SUMM_SAMPLED] = 5;
	k[FSS_SYNC_FDATASYNC].hist[14] = 75;
	k[FSS_SYNC_FDATASYNC].total_ns = 75 * 20000ULL;
	CHECK_EQ(fss_summ_summarized(k), 75);
	o = fss_summ_json(k);
	json_object_object_add(o, "sample_every", json_object_new_int(4));
	CHECK_EQ(fss_jint(fss_j(o, "why"), "sampled", -1), 75);
	CHECK_EQ(fss_jint(fss_j(fss_j(o, "by_kind"), "io_uring_fsync"),
			  "summarized", -1), 5);
	t = paragraph(o);
	CHECK(!strcmp(t, "sampled: 1 in 4 syncs traced in full, drawn at "
		"random (--sample); the other 75\n  counted in the kernel: "
		"their totals p50 <= 32.8us, p99 <= 32.8us; what follows\n"
		"  covers the 25 syncs traced in full\n"), "text: %s", t);
	free(t);
	json_object_put(o);
	k[FSS_SYNC_FDATASYNC].syncs[FSS_SUMM_RING_HIGH] = 2;
	k[FSS_SYNC_FDATASYNC].hist[14] += 2;
	o = fss_summ_json(k);
	json_object_object_add(o, "sample_every", json_object_new_int(4));
	t = paragraph(o);
	CHECK(!strncmp(t, "overload: 77 syncs summarized in the kernel (2 at "
		"entry:", strlen("overload: 77 syncs summarized in the kernel "
				 "(2 at entry:")), "text: %s", t);
	CHECK(strstr(t, "75 not drawn by --sample 1/4)") != NULL, "text: %s", t);
	free(t);
	json_object_put(o);
}

static const struct tap_case cases[] = {
	{ "counts", counts },
	{ "json_totals", json_totals },
	{ "json_none", json_none },
	{ "sampled", sampled },
};
TAP_MAIN(cases)
