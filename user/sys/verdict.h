/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * verdict.h - a plain-language verdict about a device's durability and
 * flush behaviour, from its facts (devinfo) and what a run measured.
 * Pure C (json-c only): no sysfs, no BPF.
 *
 * A verdict never claims more than its inputs show: every verdict carries
 * its basis, and unknown facts give an "unknown" verdict, never a guess.
 */
#ifndef __FSS_VERDICT_H
#define __FSS_VERDICT_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include <json-c/json.h>

/* A device_flush p50 below this (us) is "about zero" for a write-back cache. */
#define FSS_VERDICT_FAST_FLUSH_US	50.0
/*
 * A flush p50 whose 95 % interval reaches into [threshold / BAND, threshold
 * x BAND] (40-62.5 us) is borderline: the sampling interval only covers the
 * noise of one run, and two runs side by side differ by more than that
 * (50 and 52 us in issue 21), so a verdict must not turn on a few percent.
 */
#define FSS_VERDICT_BAND		1.25

struct fss_verdict_in {
	const char *dev_name;	/* e.g. "nvme0n1"; NULL: "the device" */
	int write_cache;	/* queue/write_cache: 1 back, 0 through, -1 unknown */
	int fua;		/* queue/fua: 1/0/-1 */
	int nvme_vwc_present;	/* Identify Controller VWC bit 0; -1 unknown / not NVMe */
	int nvme_vwc_enabled;	/* Get Features 0x06 bit 0; -1 unknown / not NVMe */
	bool is_loop;		/* loop device: flush = fsync of the backing file */
	const char *loop_backing;	/* backing file of a loop device, or NULL */
	__u64 syncs;		/* syncs traced (0: facts only, nothing measured) */
	__u64 flushes;		/* pure flush requests seen */
	__u64 syncs_no_flush;	/* syncs that saw no flush-class request */
	__u64 fua_writes;	/* native FUA writes seen */
	double flush_p50_us;	/* device_flush phase p50 per sync (us); <0 unknown */
	bool flush_ci;		/* the next two are known */
	double flush_p50_lo_us;	/* 95 % CI of flush_p50_us (order_ci.h): 0 ... */
	double flush_p50_hi_us;	/* ... INFINITY when too few syncs */
	const char *retry_hint;	/* borderline: what to do; NULL: run longer */
	double sync_p50_us;	/* sync total p50 (us); <0 unknown */
};

enum fss_verdict_code {
	FSS_V_UNKNOWN = 0,		/* the cache setting is not known */
	FSS_V_VOLATILE_CACHE_PAYS_FLUSH,	/* write back, flushes take real time */
	FSS_V_WRITE_THROUGH_ELIDED,	/* write through: kernel elides flushes */
	FSS_V_FLUSH_SUSPICIOUSLY_FAST,	/* write back, flush ~ 0 */
	FSS_V_FLUSH_NOT_SEEN,		/* write back, syncs issued no flush */
	FSS_V_LOOP_BACKING_FILE,	/* loop: flush = fsync of the backing file */
	FSS_V_FUA_ONLY,			/* write back, durability via FUA writes only */
	FSS_V_CACHE_DISABLED,		/* NVMe VWC present but disabled */
	FSS_V_CACHE_IGNORED,		/* NVMe VWC enabled, kernel told write through */
	FSS_V_WRITE_BACK_UNMEASURED,	/* write back, flush time not measured */
	FSS_V_FLUSH_BORDERLINE,		/* write back, flush p50 near the line */
	FSS_V_MAX,
};

/* How firmly the verdict stands on its measured figure. */
enum fss_verdict_conf {
	FSS_VC_NA = 0,		/* rests on facts and counts, no measured figure */
	FSS_VC_CLEAR,		/* the figure's interval is clear of the band */
	FSS_VC_BORDERLINE,	/* the interval reaches into the band */
};

struct fss_verdict {
	enum fss_verdict_code code;
	char headline[160];
	char basis[640];
	enum fss_verdict_conf conf;
	/* with conf != FSS_VC_NA: the flush p50 and what it was held against */
	double value_us, ci_lo_us, ci_hi_us;	/* ci: NAN unknown, hi INFINITY */
	unsigned long long samples;
	double threshold_us, band_lo_us, band_hi_us;
	char conf_text[320];	/* "clear: ..." / "borderline: ..." */
};

/* Stable snake_case name of a code ("volatile_cache_pays_flush", ...). */
const char *fss_verdict_code_name(enum fss_verdict_code code);

/* Fill *out from *in.  0, or -EINVAL on NULL arguments. */
int fss_verdict_compute(const struct fss_verdict_in *in, struct fss_verdict *out);

/* "clear", "borderline", "n/a" */
const char *fss_verdict_conf_name(enum fss_verdict_conf conf);

/*
 * "Verdict: <headline>", "Based on: <basis>" and, for a measured figure,
 * "Confidence: <conf_text>", wrapped at 80 columns.
 */
void fss_verdict_print(FILE *f, const struct fss_verdict *v);

/*
 * {"code","headline","basis","confidence","interval","threshold"}:
 * interval {"figure","p50_us","low_us","high_us","level","method","samples"}
 * and threshold {"us","borderline_low_us","borderline_high_us"}, both null
 * when confidence is "n/a".
 */
struct json_object *fss_verdict_json(const struct fss_verdict *v);
/* fss_verdict_print of a verdict given as fss_verdict_json made it. */
void fss_verdict_print_json(FILE *f, struct json_object *v);

#endif /* __FSS_VERDICT_H */
