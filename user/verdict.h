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
	FSS_V_MAX,
};

struct fss_verdict {
	enum fss_verdict_code code;
	char headline[160];
	char basis[512];
};

/* Stable snake_case name of a code ("volatile_cache_pays_flush", ...). */
const char *fss_verdict_code_name(enum fss_verdict_code code);

/* Fill *out from *in.  0, or -EINVAL on NULL arguments. */
int fss_verdict_compute(const struct fss_verdict_in *in, struct fss_verdict *out);

/* "Verdict: <headline>" and "Based on: <basis>", wrapped at 80 columns. */
void fss_verdict_print(FILE *f, const struct fss_verdict *v);

/* {"code":"...","headline":"...","basis":"..."} */
struct json_object *fss_verdict_json(const struct fss_verdict *v);

#endif /* __FSS_VERDICT_H */
