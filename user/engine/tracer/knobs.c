// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * knobs.c - the tracer's environment knobs, read by strat_plan()
 * (tracer_int.h): benchmark and test settings, each refused in one line
 * when it is not one of its values (docs/overhead.md, docs/hotpath.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/tracer/tracer_int.h"
#include "lib/parse.h"

/*
 * FSYNCSCOPE_RQ_RECORDS: fold (the default: one record per request) or
 * events (one per event, as before; docs/hotpath.md).  FSYNCSCOPE_KPAINT:
 * 1 paints in the kernel too, to compare (docs/hotpath.md "Cumulative
 * phase clocks"); only: the kernel paints and sends no request records,
 * blame is off, and the syncs are counted, not reported (a benchmark of
 * one record per sync, docs/hotpath.md "One record per sync"); 0 or
 * unset: off.
 * FSYNCSCOPE_CONSUMER: idle (the default: the consumer thread runs only
 * when a CPU would otherwise idle) or normal (it competes with the
 * workload: drained, not summarized, under overload; docs/hotpath.md
 * "One record per sync").
 * Test knobs of overload (docs/hotpath.md "Overload"): FSYNCSCOPE_RING_KB
 * sizes the ring buffer (a power of two, 4 and up; default 2048), so a
 * test can overload it; FSYNCSCOPE_RING_HIGH (0-100, default 75) is the
 * percentage of unread data above which a sync is summarized at entry
 * (0: never at entry).
 */
static int plan_ring_knobs(struct fss_tracer *t, char *err, size_t errlen)
{
	const char *kb = getenv("FSYNCSCOPE_RING_KB");
	const char *hi = getenv("FSYNCSCOPE_RING_HIGH");
	long v;

	const char *rqr = getenv("FSYNCSCOPE_RQ_RECORDS");
	const char *kp = getenv("FSYNCSCOPE_KPAINT");
	const char *cons = getenv("FSYNCSCOPE_CONSUMER");

	t->ring_high_pct = 101;
	if (rqr && *rqr && strcmp(rqr, "fold") && strcmp(rqr, "events")) {
		snprintf(err, errlen, "FSYNCSCOPE_RQ_RECORDS: '%s' is not fold "
			 "or events", rqr);
		return -EINVAL;
	}
	t->rq_events = rqr && !strcmp(rqr, "events");
	if (kp && *kp && strcmp(kp, "0") && strcmp(kp, "1") &&
	    strcmp(kp, "only")) {
		snprintf(err, errlen, "FSYNCSCOPE_KPAINT: '%s' is not 0, 1 or "
			 "only", kp);
		return -EINVAL;
	}
	if (cons && *cons && strcmp(cons, "idle") && strcmp(cons, "normal")) {
		snprintf(err, errlen, "FSYNCSCOPE_CONSUMER: '%s' is not idle or "
			 "normal", cons);
		return -EINVAL;
	}
	/* one record per sync: a consumer at idle priority would starve */
	t->consumer_set = cons && *cons;
	t->consumer_normal = t->consumer_set ? !strcmp(cons, "normal") :
			     t->opts.kernel_paint;
	t->kp_only = (kp && !strcmp(kp, "only")) || t->opts.kernel_paint;
	t->kp_report = t->opts.kernel_paint;
	t->kpaint = t->kp_only || (kp && !strcmp(kp, "1"));
	/*
	 * no sync is reported; --painter kernel blames on demand, from the
	 * flight recorder (flightrec.c)
	 */
	if (t->kp_only && t->blame_on && !t->kp_report) {
		t->blame_on = false;
		snprintf(t->blame_desc, sizeof(t->blame_desc), "off "
			 "(FSYNCSCOPE_KPAINT=only: no sync is reported)");
	}
	if (t->opts.kernel_paint && kp && *kp && strcmp(kp, "only")) {
		snprintf(err, errlen, "FSYNCSCOPE_KPAINT: '%s' with the kernel "
			 "painter reporting: unset it", kp);
		return -EINVAL;
	}
	if (kb && *kb) {
		if (!fss_parse_long(kb, &v) || v < 4 || v > (1 << 20) ||
		    (v & (v - 1))) {
			snprintf(err, errlen, "FSYNCSCOPE_RING_KB: '%s' is not a "
				 "power of two from 4 to 1048576", kb);
			return -EINVAL;
		}
		t->ring_bytes = v * 1024;
	}
	if (hi && *hi) {
		if (!fss_parse_long(hi, &v) || v < 0 || v > 100) {
			snprintf(err, errlen, "FSYNCSCOPE_RING_HIGH: '%s' is not "
				 "0 to 100", hi);
			return -EINVAL;
		}
		t->ring_high_pct = v;
	}
	return 0;
}

int strat_knobs(struct fss_tracer *t, struct strat_plan *p, char *err,
		size_t errlen)
{
	const char *blk_env = getenv("FSYNCSCOPE_BLOCK_HOOKS");
	const char *floor_env = getenv("FSYNCSCOPE_FLOOR");

	/*
	 * benchmark knob: the programs attach and count their hooks but
	 * record nothing (the cost floor of these attach points)
	 */
	if (floor_env && *floor_env && strcmp(floor_env, "0")) {
		if (strcmp(floor_env, "1")) {
			snprintf(err, errlen, "FSYNCSCOPE_FLOOR: '%s' is not 0 or 1", floor_env);
			return -EINVAL;
		}
		t->floor_only = true;
	}
	if (plan_ring_knobs(t, err, errlen))
		return -EINVAL;
	/* test knob: start the block layer at its raw_tp fallback */
	if (blk_env && !strcmp(blk_env, "raw_tp"))
		p->blk_set = HS_BLOCK_RAW;
	else if (blk_env && *blk_env && strcmp(blk_env, "tp_btf")) {
		snprintf(err, errlen, "FSYNCSCOPE_BLOCK_HOOKS: '%s' is not tp_btf or raw_tp", blk_env);
		return -EINVAL;
	}
	/* the benchmarks say so once every knob is valid: bad input is one line */
	if (t->floor_only)
		fprintf(stderr, "fsyncscope: FSYNCSCOPE_FLOOR=1: the BPF programs only count their hooks; nothing is recorded (a benchmark floor)\n");
	if (t->kp_only && !t->kp_report)
		fprintf(stderr, "fsyncscope: FSYNCSCOPE_KPAINT=only: the kernel "
			"paints and sends one record per sync, no request "
			"records; the syncs are counted, not reported (a "
			"benchmark)\n");
	return 0;
}
