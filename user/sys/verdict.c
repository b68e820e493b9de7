// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * verdict.c - turn device facts and measured flush times into one
 * plain-language verdict about durability, with the facts it rests on.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include "lib/order_ci.h"
#include "sys/verdict.h"

#define WRAP_COLS 80

static const char *const code_names[FSS_V_MAX] = {
	[FSS_V_UNKNOWN] = "unknown",
	[FSS_V_VOLATILE_CACHE_PAYS_FLUSH] = "volatile_cache_pays_flush",
	[FSS_V_WRITE_THROUGH_ELIDED] = "write_through_elided",
	[FSS_V_FLUSH_SUSPICIOUSLY_FAST] = "flush_suspiciously_fast",
	[FSS_V_FLUSH_NOT_SEEN] = "flush_not_seen",
	[FSS_V_LOOP_BACKING_FILE] = "loop_backing_file",
	[FSS_V_FUA_ONLY] = "fua_only",
	[FSS_V_CACHE_DISABLED] = "cache_disabled",
	[FSS_V_CACHE_IGNORED] = "cache_ignored",
	[FSS_V_WRITE_BACK_UNMEASURED] = "write_back_unmeasured",
	[FSS_V_FLUSH_BORDERLINE] = "flush_borderline",
};

const char *fss_verdict_conf_name(enum fss_verdict_conf conf)
{
	return conf == FSS_VC_CLEAR ? "clear" :
	       conf == FSS_VC_BORDERLINE ? "borderline" : "n/a";
}

const char *fss_verdict_code_name(enum fss_verdict_code code)
{
	if ((int)code < 0 || code >= FSS_V_MAX || !code_names[code])
		return "unknown";
	return code_names[code];
}

/* "1.6 ms", "140 ms", "24 us", "3.2 us" */
static void fmt_us(char *buf, size_t len, double us)
{
	if (us >= 100000.0)
		snprintf(buf, len, "%.0f ms", us / 1000.0);
	else if (us >= 1000.0)
		snprintf(buf, len, "%.1f ms", us / 1000.0);
	else if (us >= 10.0)
		snprintf(buf, len, "%.0f us", us);
	else
		snprintf(buf, len, "%.1f us", us);
}

/* Append to a fixed buffer; silently truncates. */
static void cat(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

static const char *tri(int v, const char *yes, const char *no)
{
	return v > 0 ? yes : v == 0 ? no : "unknown";
}

/* The device facts a verdict rests on, as one sentence. */
static void facts(char *buf, size_t len, const struct fss_verdict_in *in)
{
	cat(buf, len, "%s: queue/write_cache %s, FUA %s",
	    in->dev_name ? in->dev_name : "device",
	    tri(in->write_cache, "write back", "write through"),
	    tri(in->fua, "yes", "no"));
	if (in->nvme_vwc_present >= 0 || in->nvme_vwc_enabled >= 0)
		cat(buf, len, ", NVMe volatile write cache %s, %s",
		    tri(in->nvme_vwc_present, "present", "absent"),
		    tri(in->nvme_vwc_enabled, "enabled", "disabled"));
	cat(buf, len, ". ");
}

/* What was measured, as one sentence (or that nothing was). */
static void measured(char *buf, size_t len, const struct fss_verdict_in *in)
{
	char t[32];

	if (!in->syncs) {
		cat(buf, len, "No syncs were measured. ");
		return;
	}
	cat(buf, len, "%llu syncs traced: %llu flush requests, %llu FUA writes, "
	    "%llu syncs without any flush",
	    (unsigned long long)in->syncs, (unsigned long long)in->flushes,
	    (unsigned long long)in->fua_writes,
	    (unsigned long long)in->syncs_no_flush);
	if (in->flush_p50_us >= 0) {
		fmt_us(t, sizeof(t), in->flush_p50_us);
		cat(buf, len, "; device_flush p50 %s per sync", t);
	}
	if (in->sync_p50_us >= 0) {
		fmt_us(t, sizeof(t), in->sync_p50_us);
		cat(buf, len, ", sync p50 %s", t);
	}
	cat(buf, len, ". ");
}

static void trim_trailing_space(char *s)
{
	size_t n = strlen(s);

	while (n && s[n - 1] == ' ')
		s[--n] = '\0';
}

static void v_loop(const struct fss_verdict_in *in, struct fss_verdict *v)
{
	v->code = FSS_V_LOOP_BACKING_FILE;
	snprintf(v->headline, sizeof(v->headline),
		 "Loop device: a flush here is an fsync of the backing file, so "
		 "its cost belongs to the filesystem and disk below, not to %s",
		 in->dev_name ? in->dev_name : "the loop device");
	cat(v->basis, sizeof(v->basis), "%s is a loop device",
	    in->dev_name ? in->dev_name : "The device");
	if (in->loop_backing && in->loop_backing[0])
		cat(v->basis, sizeof(v->basis), " backed by %s", in->loop_backing);
	cat(v->basis, sizeof(v->basis),
	    "; the loop driver turns each flush into an fsync of that file. ");
	measured(v->basis, sizeof(v->basis), in);
	cat(v->basis, sizeof(v->basis),
	    "Run 'fsyncscope devices' on the backing file for the real disk.");
}

/* "48-53 us", "0-inf us" (too few syncs), "n/a" (not known) */
static void fmt_ci(char *buf, size_t len, double lo, double hi)
{
	char a[32], b[32];

	if (isnan(lo) || isnan(hi)) {
		snprintf(buf, len, "n/a");
		return;
	}
	if (isinf(hi)) {
		snprintf(buf, len, "unbounded (too few syncs)");
		return;
	}
	fmt_us(a, sizeof(a), lo);
	fmt_us(b, sizeof(b), hi);
	/* "48 us-53 us" reads worse than "48-53 us" */
	if (strchr(a, ' ') && strchr(b, ' ') &&
	    !strcmp(strchr(a, ' '), strchr(b, ' ')))
		*strchr(a, ' ') = '\0';
	snprintf(buf, len, "%s-%s", a, b);
}

/*
 * Set v->conf and its figures: the flush p50's interval (or the p50 alone
 * when no interval is known) against the band around the threshold.
 */
static void flush_confidence(const struct fss_verdict_in *in,
			     struct fss_verdict *v)
{
	double lo = in->flush_p50_us, hi = in->flush_p50_us;
	char ci[64], fig[128], band[48], thr[32];

	if (in->flush_ci && !isnan(in->flush_p50_lo_us) &&
	    !isnan(in->flush_p50_hi_us)) {
		lo = in->flush_p50_lo_us;
		hi = in->flush_p50_hi_us;
	}
	v->value_us = in->flush_p50_us;
	v->ci_lo_us = in->flush_ci ? in->flush_p50_lo_us : NAN;
	v->ci_hi_us = in->flush_ci ? in->flush_p50_hi_us : NAN;
	v->samples = in->syncs;
	v->threshold_us = FSS_VERDICT_FAST_FLUSH_US;
	v->band_lo_us = FSS_VERDICT_FAST_FLUSH_US / FSS_VERDICT_BAND;
	v->band_hi_us = FSS_VERDICT_FAST_FLUSH_US * FSS_VERDICT_BAND;
	v->conf = hi < v->band_lo_us || lo > v->band_hi_us ?
		  FSS_VC_CLEAR : FSS_VC_BORDERLINE;

	if (isnan(v->ci_lo_us) || isnan(v->ci_hi_us)) {
		fmt_us(ci, sizeof(ci), v->value_us);
		snprintf(fig, sizeof(fig), "%s (no interval known)", ci);
	} else {
		fmt_ci(ci, sizeof(ci), v->ci_lo_us, v->ci_hi_us);
		snprintf(fig, sizeof(fig), "%s (%.0f%% interval over %llu syncs)",
			 ci, FSS_CI_LEVEL * 100, v->samples);
	}
	/* the band's edges exactly: "40-62.5 us", not a rounded "62" */
	snprintf(band, sizeof(band), "%g-%g us", v->band_lo_us, v->band_hi_us);
	fmt_us(thr, sizeof(thr), v->threshold_us);
	if (v->conf == FSS_VC_CLEAR)
		snprintf(v->conf_text, sizeof(v->conf_text),
			 "clear: flush p50 %s, outside the borderline band %s "
			 "around the threshold %s", fig, band, thr);
	else
		snprintf(v->conf_text, sizeof(v->conf_text),
			 "borderline: flush p50 %s, threshold %s (borderline "
			 "band %s); %s", fig, thr, band,
			 in->retry_hint ? in->retry_hint :
			 "run longer or use 'fsyncscope devices --probe'");
}

static void v_borderline(const struct fss_verdict_in *in,
			 struct fss_verdict *v, const char *t)
{
	size_t bl = sizeof(v->basis);

	v->code = FSS_V_FLUSH_BORDERLINE;
	snprintf(v->headline, sizeof(v->headline),
		 "Flushes take ~%s on a write-back cache: too close to the "
		 "%.0f us line to tell an ignored or protected flush from one "
		 "that pays", t, FSS_VERDICT_FAST_FLUSH_US);
	facts(v->basis, bl, in);
	measured(v->basis, bl, in);
	cat(v->basis, bl, "Under ~%.0f us a flush is protected or not done; "
	    "a volatile cache emptied to flash takes 0.5-5 ms. This run's "
	    "flush p50 is near the line, where noise decides.",
	    FSS_VERDICT_FAST_FLUSH_US);
}

static void v_write_back(const struct fss_verdict_in *in, struct fss_verdict *v)
{
	char t[32], s[32];
	size_t bl = sizeof(v->basis);

	if (!in->syncs) {
		v->code = FSS_V_WRITE_BACK_UNMEASURED;
		snprintf(v->headline, sizeof(v->headline),
			 "Volatile write cache: every durable write needs a cache "
			 "flush; how long a flush takes was not measured");
		facts(v->basis, bl, in);
		measured(v->basis, bl, in);
		cat(v->basis, bl, "Run 'fsyncscope run' on a filesystem on this "
		    "device to time the flushes.");
		return;
	}
	if (in->syncs_no_flush >= in->syncs ||
	    (!in->flushes && !in->fua_writes)) {
		v->code = FSS_V_FLUSH_NOT_SEEN;
		snprintf(v->headline, sizeof(v->headline),
			 "Write-back cache, but none of the %llu syncs sent a "
			 "flush: barriers may be off, or nothing needed flushing",
			 (unsigned long long)in->syncs);
		facts(v->basis, bl, in);
		measured(v->basis, bl, in);
		cat(v->basis, bl, "With barriers off (e.g. ext4 barrier=0, "
		    "nobarrier) a sync can return while its data sits in the "
		    "volatile cache; a sync with nothing dirty needs no flush. "
		    "These counts cannot tell which.");
		return;
	}
	if (!in->flushes) {
		v->code = FSS_V_FUA_ONLY;
		snprintf(v->headline, sizeof(v->headline),
			 "Write-back cache, no separate flushes: durability came "
			 "from %llu FUA writes, timed as device_flush",
			 (unsigned long long)in->fua_writes);
		facts(v->basis, bl, in);
		measured(v->basis, bl, in);
		cat(v->basis, bl, "A FUA write bypasses the volatile cache for "
		    "that write only; earlier cached writes were not flushed "
		    "by these syncs.");
		return;
	}
	if (in->flush_p50_us < 0) {
		v->code = FSS_V_WRITE_BACK_UNMEASURED;
		snprintf(v->headline, sizeof(v->headline),
			 "Volatile write cache with %llu flush requests, but "
			 "their time is unknown",
			 (unsigned long long)in->flushes);
		facts(v->basis, bl, in);
		measured(v->basis, bl, in);
		cat(v->basis, bl, "The device_flush time was not measured, so "
		    "nothing can be said about power-loss protection.");
		return;
	}
	fmt_us(t, sizeof(t), in->flush_p50_us);
	flush_confidence(in, v);
	if (v->conf == FSS_VC_BORDERLINE) {
		v_borderline(in, v, t);
		return;
	}
	if (in->flush_p50_us < FSS_VERDICT_FAST_FLUSH_US) {
		v->code = FSS_V_FLUSH_SUSPICIOUSLY_FAST;
		snprintf(v->headline, sizeof(v->headline),
			 "Flushes take ~%s on a write-back cache: the device may "
			 "ignore flushes, or has power-loss protection", t);
		facts(v->basis, bl, in);
		measured(v->basis, bl, in);
		cat(v->basis, bl, "Flushing a volatile cache to flash takes "
		    "0.5-5 ms on consumer SSDs; under ~%.0f us means the cache "
		    "is protected or the flush is not done. Only a power-cut "
		    "test (diskchecker.pl style) can tell which.",
		    FSS_VERDICT_FAST_FLUSH_US);
		return;
	}
	v->code = FSS_V_VOLATILE_CACHE_PAYS_FLUSH;
	snprintf(v->headline, sizeof(v->headline),
		 "Volatile write cache without power-loss protection: every "
		 "durable write pays a ~%s flush", t);
	facts(v->basis, bl, in);
	measured(v->basis, bl, in);
	if (in->sync_p50_us > 0) {
		double pct = 100.0 * in->flush_p50_us / in->sync_p50_us;

		fmt_us(s, sizeof(s), in->sync_p50_us);
		cat(v->basis, bl, "The flush is %.0f%% of the %s p50 sync. ",
		    pct > 100.0 ? 100.0 : pct, s);
	}
	cat(v->basis, bl, "A device that really empties a volatile cache on "
	    "flush behaves like a drive without power-loss protection.");
}

int fss_verdict_compute(const struct fss_verdict_in *in, struct fss_verdict *v)
{
	size_t bl;

	if (!in || !v)
		return -EINVAL;
	memset(v, 0, sizeof(*v));
	bl = sizeof(v->basis);

	if (in->is_loop) {
		v_loop(in, v);
	} else if (in->nvme_vwc_present > 0 && in->nvme_vwc_enabled > 0 &&
		   in->write_cache == 0) {
		v->code = FSS_V_CACHE_IGNORED;
		snprintf(v->headline, sizeof(v->headline),
			 "Volatile write cache is on, but the kernel was told "
			 "write through: flushes are not sent, so syncs are "
			 "durable only with power-loss protection");
		facts(v->basis, bl, in);
		measured(v->basis, bl, in);
		cat(v->basis, bl, "queue/write_cache was set to write through "
		    "although the controller reports an enabled volatile "
		    "cache; the kernel drops flushes for it.");
	} else if (in->write_cache == 0 || in->nvme_vwc_present == 0) {
		v->code = FSS_V_WRITE_THROUGH_ELIDED;
		snprintf(v->headline, sizeof(v->headline),
			 "Write-through: the kernel elides flushes, so sync "
			 "latency is the write itself");
		facts(v->basis, bl, in);
		measured(v->basis, bl, in);
		if (in->syncs && in->flushes)
			cat(v->basis, bl, "Flush requests on a write-through "
			    "queue are unexpected. ");
		if (in->nvme_vwc_present == 0)
			cat(v->basis, bl, "The controller reports no volatile "
			    "write cache, typical of drives with power-loss "
			    "protection (or with no cache at all).");
		else
			cat(v->basis, bl, "Typical of drives with power-loss "
			    "protection, or of a cache the OS was told to "
			    "ignore; these facts cannot tell which.");
	} else if (in->nvme_vwc_present > 0 && in->nvme_vwc_enabled == 0) {
		v->code = FSS_V_CACHE_DISABLED;
		snprintf(v->headline, sizeof(v->headline),
			 "Volatile write cache present but disabled: writes go "
			 "to media, flushes have nothing to do");
		facts(v->basis, bl, in);
		measured(v->basis, bl, in);
		cat(v->basis, bl, "Get Features 0x06 reports the cache off; "
		    "the kernel still sends flushes, which should be cheap.");
	} else if (in->write_cache > 0 || in->nvme_vwc_present > 0 ||
		   in->nvme_vwc_enabled > 0) {
		v_write_back(in, v);
	} else {
		v->code = FSS_V_UNKNOWN;
		snprintf(v->headline, sizeof(v->headline),
			 "Write cache setting unknown: cannot say whether "
			 "flushes are real, elided or ignored");
		facts(v->basis, bl, in);
		measured(v->basis, bl, in);
		cat(v->basis, bl, "Without queue/write_cache (or the NVMe VWC "
		    "bit) measured times alone do not show what the device "
		    "does with a flush.");
	}
	trim_trailing_space(v->basis);
	return 0;
}

/*
 * Print text after a label, wrapped at WRAP_COLS; continuation lines are
 * indented to the width of the label.  Breaks at spaces; a word longer than
 * a line is cut.
 */
static void print_wrapped(FILE *f, const char *label, const char *text)
{
	int indent = (int)strlen(label);
	int avail = WRAP_COLS - indent;
	const char *p = text;

	fputs(label, f);
	while (*p == ' ')
		p++;
	if (!*p) {
		fputc('\n', f);
		return;
	}
	while (*p) {
		int n = (int)strlen(p), cut;

		if (n <= avail) {
			fprintf(f, "%s\n", p);
			break;
		}
		cut = avail;
		while (cut > 0 && p[cut] != ' ')
			cut--;
		if (cut == 0)
			cut = avail;
		fprintf(f, "%.*s\n", cut, p);
		p += cut;
		while (*p == ' ')
			p++;
		if (*p)
			fprintf(f, "%*s", indent, "");
	}
}

void fss_verdict_print(FILE *f, const struct fss_verdict *v)
{
	print_wrapped(f, "Verdict:  ", v->headline);
	print_wrapped(f, "Based on: ", v->basis);
	if (v->conf != FSS_VC_NA)
		print_wrapped(f, "Confidence: ", v->conf_text);
}

/* A number, or null for NAN / infinity (no bound). */
static struct json_object *num_or_null(double x)
{
	return isfinite(x) ? json_object_new_double(x) : NULL;
}

static struct json_object *interval_json(const struct fss_verdict *v)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "figure",
			       json_object_new_string("device_flush_p50_us"));
	json_object_object_add(o, "p50_us", num_or_null(v->value_us));
	json_object_object_add(o, "low_us", num_or_null(v->ci_lo_us));
	json_object_object_add(o, "high_us", num_or_null(v->ci_hi_us));
	json_object_object_add(o, "level", json_object_new_double(FSS_CI_LEVEL));
	json_object_object_add(o, "method", json_object_new_string(
		"order-statistic (binomial), distribution-free"));
	json_object_object_add(o, "samples", json_object_new_uint64(v->samples));
	return o;
}

static struct json_object *threshold_json(const struct fss_verdict *v)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "us", json_object_new_double(v->threshold_us));
	json_object_object_add(o, "borderline_low_us",
			       json_object_new_double(v->band_lo_us));
	json_object_object_add(o, "borderline_high_us",
			       json_object_new_double(v->band_hi_us));
	return o;
}

struct json_object *fss_verdict_json(const struct fss_verdict *v)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "code",
			       json_object_new_string(fss_verdict_code_name(v->code)));
	json_object_object_add(o, "headline", json_object_new_string(v->headline));
	json_object_object_add(o, "basis", json_object_new_string(v->basis));
	json_object_object_add(o, "confidence",
			       json_object_new_string(fss_verdict_conf_name(v->conf)));
	json_object_object_add(o, "interval", v->conf != FSS_VC_NA ?
			       interval_json(v) : NULL);
	json_object_object_add(o, "threshold", v->conf != FSS_VC_NA ?
			       threshold_json(v) : NULL);
	json_object_object_add(o, "confidence_text", v->conf != FSS_VC_NA ?
			       json_object_new_string(v->conf_text) : NULL);
	return o;
}

static void str_of(struct json_object *o, const char *key, char *dst, size_t n)
{
	struct json_object *x;

	snprintf(dst, n, "%s", json_object_object_get_ex(o, key, &x) &&
		 json_object_is_type(x, json_type_string) ?
		 json_object_get_string(x) : "");
}

void fss_verdict_print_json(FILE *f, struct json_object *v)
{
	struct fss_verdict vd = { 0 };
	char conf[32];

	str_of(v, "headline", vd.headline, sizeof(vd.headline));
	str_of(v, "basis", vd.basis, sizeof(vd.basis));
	str_of(v, "confidence_text", vd.conf_text, sizeof(vd.conf_text));
	str_of(v, "confidence", conf, sizeof(conf));
	vd.conf = !strcmp(conf, fss_verdict_conf_name(FSS_VC_CLEAR)) ? FSS_VC_CLEAR :
		  !strcmp(conf, fss_verdict_conf_name(FSS_VC_BORDERLINE)) ?
		  FSS_VC_BORDERLINE : FSS_VC_NA;
	fss_verdict_print(f, &vd);
}
