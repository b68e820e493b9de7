// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * test_metrics.c - the exporter's metrics model (user/exporter/metrics.c) and its
 * Prometheus / OpenMetrics renderer (user/exporter/out_prom.c) on synthetic syncs:
 * bucket edges, --labels parsing, the --max-series folding rule, phases
 * adding up, snapshots, exposition lines, escaping, content negotiation.
 * Pure C, no BPF, no root.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "exporter/metrics.h"
#include "exporter/out_prom.h"
#include "tap.h"

static void fake_dev(__u32 dev, struct fss_m_dev *d)
{
	snprintf(d->name, sizeof(d->name), "sd%c", 'a' + (dev & 0xf));
	snprintf(d->mountpoint, sizeof(d->mountpoint), "/mnt/%u", dev & 0xf);
	snprintf(d->disk, sizeof(d->disk), "sd%c", 'a' + (dev & 0xf));
	d->write_cache = 1;
	d->fua = 0;
}

static struct fss_sync_result sync_of(__u32 kind, const char *comm, __u64 total)
{
	struct fss_sync_result r = {};

	r.kind = kind;
	r.dev = (8 << 20) | 1;
	r.total = total;
	/* split unevenly over the six phases, adding up exactly */
	r.phase_ns[FSS_PH_FS] = total / 7;
	r.phase_ns[FSS_PH_JOURNAL] = 0;
	r.phase_ns[FSS_PH_QUEUE] = total / 11;
	r.phase_ns[FSS_PH_DEV_WRITE] = total / 5;
	r.phase_ns[FSS_PH_DEV_FLUSH] = total / 3;
	r.phase_ns[FSS_PH_OTHER] = total - r.phase_ns[FSS_PH_FS] - r.phase_ns[FSS_PH_QUEUE] -
				   r.phase_ns[FSS_PH_DEV_WRITE] - r.phase_ns[FSS_PH_DEV_FLUSH];
	snprintf(r.comm, sizeof(r.comm), "%s", comm);
	return r;
}

static void test_buckets(void)
{
	struct fss_m_hist h = {};

	fss_m_hist_add(&h, 0);
	fss_m_hist_add(&h, 1000);		/* le is inclusive: 1e-06 */
	fss_m_hist_add(&h, 1001);		/* 2.5e-06 */
	fss_m_hist_add(&h, 10000000000ULL);	/* 10 */
	fss_m_hist_add(&h, 10000000001ULL);	/* +Inf */
	CHECK(h.bucket[0] == 2, "bucket 0: %llu", (unsigned long long)h.bucket[0]);
	CHECK(h.bucket[1] == 1, "bucket 1");
	CHECK(h.bucket[FSS_M_NBOUNDS - 1] == 1, "10 s bucket");
	CHECK(h.bucket[FSS_M_NBOUNDS] == 1, "+Inf bucket");
	CHECK(h.count == 5 && h.sum_ns == 20000002002ULL, "count/sum");
	for (int i = 0; i < FSS_M_NBOUNDS; i++)
		CHECK((__u64)(fss_m_bounds[i] * 1e9 + 0.5) == fss_m_bounds_ns[i], "bound %d", i);
	for (int i = 1; i < FSS_M_NBOUNDS; i++)
		CHECK(fss_m_bounds_ns[i] > fss_m_bounds_ns[i - 1], "bounds increase at %d", i);
}

static void test_labels(void)
{
	unsigned int b = 0;

	CHECK(!fss_metrics_parse_labels("kind,device", &b) &&
	      b == (FSS_ML_KIND | FSS_ML_DEVICE), "kind,device");
	CHECK(!fss_metrics_parse_labels("cgroup,comm", &b) &&
	      b == (FSS_ML_CGROUP | FSS_ML_COMM), "cgroup,comm");
	CHECK(fss_metrics_parse_labels("kind,", &b) == -1, "trailing comma");
	CHECK(fss_metrics_parse_labels(",kind", &b) == -1, "leading comma");
	CHECK(fss_metrics_parse_labels("kindx", &b) == -1, "unknown");
	CHECK(fss_metrics_parse_labels("inode", &b) == -1, "unknown");
}

/* max 8: 5 label sets as they come, 2 for comm="other", 1 catch-all */
static void test_folding(void)
{
	struct fss_metrics m;
	struct fss_sync_result r;
	char comm[16];
	__u64 total = 0;
	unsigned int other_fsync = 0, catch_all = 0;

	CHECK(!fss_metrics_init(&m, FSS_ML_KIND | FSS_ML_COMM, 8), "init");
	for (int i = 0; i < 10; i++) {
		snprintf(comm, sizeof(comm), "c%d", i);
		r = sync_of(FSS_SYNC_FSYNC, comm, 1000000);
		fss_metrics_add_sync(&m, &r, NULL, fake_dev);
	}
	CHECK(m.nseries == 6 && m.folded == 5, "after fsyncs: %u series, %llu folded",
	      m.nseries, (unsigned long long)m.folded);
	r = sync_of(FSS_SYNC_FDATASYNC, "c0", 1000000);
	fss_metrics_add_sync(&m, &r, NULL, fake_dev);	/* fdatasync,other */
	r = sync_of(FSS_SYNC_SYNC_FILE_RANGE, "c0", 1000000);
	fss_metrics_add_sync(&m, &r, NULL, fake_dev);	/* catch-all */
	r = sync_of(FSS_SYNC_MSYNC, "c1", 1000000);
	fss_metrics_add_sync(&m, &r, NULL, fake_dev);	/* catch-all */
	r = sync_of(FSS_SYNC_FSYNC, "c0", 1000000);
	fss_metrics_add_sync(&m, &r, NULL, fake_dev);	/* existing c0 */
	CHECK(m.nseries == 8, "series %u", m.nseries);
	CHECK(m.folded == 8, "folded %llu", (unsigned long long)m.folded);
	for (unsigned int i = 0; i < m.nseries; i++) {
		const struct fss_m_series *s = &m.series[i];

		total += s->total.count;
		if (s->kind == FSS_SYNC_FSYNC && !strcmp(s->comm, "other"))
			other_fsync = s->total.count;
		if (s->kind == FSS_M_OTHER && !strcmp(s->comm, "other"))
			catch_all = s->total.count;
		if (s->kind == FSS_SYNC_FSYNC && !strcmp(s->comm, "c0"))
			CHECK(s->total.count == 2, "c0 count %llu", (unsigned long long)s->total.count);
	}
	CHECK(total == 14, "every sync counted once: %llu", (unsigned long long)total);
	CHECK(other_fsync == 5, "fsync,other %u", other_fsync);
	CHECK(catch_all == 2, "catch-all %u", catch_all);
	fss_metrics_free(&m);

	/* max 1: everything in the catch-all */
	CHECK(!fss_metrics_init(&m, FSS_ML_DEFAULT, 1), "init 1");
	r = sync_of(FSS_SYNC_FSYNC, "x", 5000);
	fss_metrics_add_sync(&m, &r, NULL, fake_dev);
	CHECK(m.nseries == 1 && m.series[0].kind == FSS_M_OTHER && m.folded == 1, "max 1");
	fss_metrics_free(&m);
}

static void test_phases_and_snapshot(void)
{
	struct fss_metrics m, *s;
	struct fss_sync_result r;
	__u64 sum = 0;

	CHECK(!fss_metrics_init(&m, FSS_ML_DEFAULT, 10), "init");
	for (int i = 1; i <= 100; i++) {
		r = sync_of(FSS_SYNC_FDATASYNC, "p", 12345ULL * i);
		fss_metrics_add_sync(&m, &r, NULL, fake_dev);
	}
	CHECK(m.nseries == 1, "one label set");
	for (int p = 0; p < FSS_PH_MAX; p++) {
		sum += m.series[0].phase[p].sum_ns;
		CHECK(m.series[0].phase[p].count == 100, "phase %d count", p);
	}
	CHECK(sum == m.series[0].total.sum_ns, "phases %llu != total %llu",
	      (unsigned long long)sum, (unsigned long long)m.series[0].total.sum_ns);
	CHECK(m.devs[0].used && !strcmp(m.devs[0].name, "sdb"), "device resolved once");
	s = fss_metrics_snapshot(&m);
	CHECK(s != NULL, "snapshot");
	r = sync_of(FSS_SYNC_FDATASYNC, "p", 1);
	fss_metrics_add_sync(&m, &r, NULL, fake_dev);
	CHECK(s && s->series[0].total.count == 100, "snapshot unchanged");
	CHECK(m.series[0].total.count == 101, "model moved on");
	fss_metrics_snapshot_free(s);
	/* msync: no file, device "none" */
	r = sync_of(FSS_SYNC_MSYNC, "p", 1);
	r.dev = 0;
	fss_metrics_add_sync(&m, &r, NULL, fake_dev);
	CHECK(m.devs[1].used && !strcmp(m.devs[1].name, "none"), "msync device");
	fss_metrics_free(&m);
}

static char *render_of(struct fss_metrics *m, enum fss_prom_fmt fmt)
{
	struct fss_metrics *s = fss_metrics_snapshot(m);
	size_t len = 0;
	char *out = s ? fss_prom_render(s, fmt, &len) : NULL;

	fss_metrics_snapshot_free(s);
	CHECK(out && strlen(out) == len, "render length");
	return out ? out : strdup("");
}

static void test_render(void)
{
	struct fss_metrics m;
	struct fss_sync_result r;
	struct fss_flush_stats f = { .flushes = 7, .flush_sync_refs = 9, .fua_writes = 2 };
	char *t, *o;

	CHECK(!fss_metrics_init(&m, FSS_ML_KIND | FSS_ML_COMM, 10), "init");
	r = sync_of(FSS_SYNC_FSYNC, "a\"b\\c", 2000000);	/* 2 ms */
	fss_metrics_add_sync(&m, &r, NULL, fake_dev);
	fss_metrics_add_commit(&m, r.dev, 3000000, true, fake_dev);
	fss_metrics_add_flush(&m, &f, 3);
	snprintf(m.info.version, sizeof(m.info.version), "9.9");
	t = render_of(&m, FSS_PROM_TEXT);
	HAS(t, "# TYPE fsyncscope_sync_duration_seconds histogram\n");
	HAS(t, "fsyncscope_sync_duration_seconds_bucket{kind=\"fsync\",comm=\"a\\\"b\\\\c\",le=\"0.001\"} 0\n");
	HAS(t, "fsyncscope_sync_duration_seconds_bucket{kind=\"fsync\",comm=\"a\\\"b\\\\c\",le=\"0.0025\"} 1\n");
	HAS(t, "fsyncscope_sync_duration_seconds_bucket{kind=\"fsync\",comm=\"a\\\"b\\\\c\",le=\"+Inf\"} 1\n");
	HAS(t, "fsyncscope_sync_duration_seconds_sum{kind=\"fsync\",comm=\"a\\\"b\\\\c\"} 0.002\n");
	HAS(t, "fsyncscope_sync_duration_seconds_count{kind=\"fsync\",comm=\"a\\\"b\\\\c\"} 1\n");
	HAS(t, "# TYPE fsyncscope_phase_seconds_total counter\n");
	HAS(t, ",phase=\"device_flush\"} ");
	HAS(t, "fsyncscope_jbd2_commit_duration_seconds_count{device=\"sdb\",mountpoint=\"/mnt/1\"} 1\n");
	HAS(t, "fsyncscope_jbd2_sync_commits_total{device=\"sdb\",mountpoint=\"/mnt/1\"} 1\n");
	HAS(t, "fsyncscope_device_info{device=\"sdb\",mountpoint=\"/mnt/1\",disk=\"sdb\",write_cache=\"write back\",fua=\"no\"} 1\n");
	HAS(t, "fsyncscope_flushes_total 7\n");
	HAS(t, "fsyncscope_flush_syncs_served_total 9\n");
	HAS(t, "fsyncscope_events_lost_total 3\n");
	HAS(t, "# TYPE fsyncscope_build_info gauge\n");
	HAS(t, "fsyncscope_build_info{version=\"9.9\",kernel=\"\"} 1\n");
	LACKS(t, "# UNIT");
	LACKS(t, "# EOF");
	LACKS(t, "mountpoint=\"/mnt/1\",comm");	/* --labels kind,comm: no device */
	o = render_of(&m, FSS_PROM_OPENMETRICS);
	HAS(o, "# TYPE fsyncscope_phase_seconds counter\n# UNIT fsyncscope_phase_seconds seconds\n");
	HAS(o, "fsyncscope_phase_seconds_total{");
	HAS(o, "# TYPE fsyncscope_build info\n");
	HAS(o, "# TYPE fsyncscope_events_lost counter\n");
	HAS(o, "# UNIT fsyncscope_sync_duration_seconds seconds\n");
	CHECK(strlen(o) > 6 && !strcmp(o + strlen(o) - 6, "# EOF\n"), "ends with # EOF");
	free(t);
	free(o);
	/* lost events that cannot be read are absent, not 0 */
	m.events_lost_na = true;
	t = render_of(&m, FSS_PROM_TEXT);
	LACKS(t, "fsyncscope_events_lost");
	HAS(t, "fsyncscope_series_folded_total 0\n");
	HAS(t, "fsyncscope_painter_info{painter=\"user\"} 1\n");
	free(t);
	/* painted in the kernel: named; it counts the flush facts too */
	m.info.kernel_painter = true;
	t = render_of(&m, FSS_PROM_TEXT);
	HAS(t, "fsyncscope_painter_info{painter=\"kernel\"} 1\n");
	LACKS(t, "painter=\"user\"");
	HAS(t, "fsyncscope_sync_duration_seconds_count{kind=\"fsync\"");
	HAS(t, "fsyncscope_flushes_total ");
	HAS(t, "fsyncscope_fua_writes_total ");
	HAS(t, "fsyncscope_nvme_flush_commands_total ");
	free(t);
	fss_metrics_free(&m);
}

static void test_negotiate(void)
{
	CHECK(fss_prom_negotiate(NULL) == FSS_PROM_TEXT, "no Accept");
	CHECK(fss_prom_negotiate("text/plain;version=0.0.4;q=0.5,*/*;q=0.1") == FSS_PROM_TEXT, "text");
	CHECK(fss_prom_negotiate("application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1") ==
	      FSS_PROM_OPENMETRICS, "Prometheus 2.42's Accept");
	CHECK(strstr(fss_prom_content_type(FSS_PROM_OPENMETRICS), "version=1.0.0") != NULL, "om type");
	CHECK(strstr(fss_prom_content_type(FSS_PROM_TEXT), "version=0.0.4") != NULL, "text type");
}

static const struct tap_case cases[] = {
	{ "buckets", test_buckets },
	{ "labels", test_labels },
	{ "folding", test_folding },
	{ "phases_and_snapshot", test_phases_and_snapshot },
	{ "render", test_render },
	{ "negotiate", test_negotiate },
};

TAP_MAIN(cases)
