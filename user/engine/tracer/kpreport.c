// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * kpreport.c - the in-kernel painter's side of the tracer: its syncs
 * reported (--painter kernel: run, trace, exporter), its flush facts
 * read back from the kernel's counters, and the comparison's line at exit
 * (FSYNCSCOPE_KPAINT; docs/hotpath.md).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "engine/tracer/tracer_int.h"

/*
 * The kernel painter alone, reporting (opts.kernel_paint): a painted
 * sync's phases are its breakdown, whole (the kernel made them add up to
 * its total, clock.bpf.c clk_exact); one it could not paint (painted:
 * fss_kp_note_kernel's word: no key, two disks, a full table, a race)
 * is counted as summarized (FSS_SUMM_UNPAINTED, its reason in t->kp),
 * never handed on with made-up phases.  No request record exists for
 * it: its request counts are 0 and n/a (fss_tracer_kernel_painted).
 */
void kp_report_sync(struct fss_tracer *t, const struct fss_event *ev,
		    bool painted)
{
	__u64 sum = 0, total = ev->ts_end > ev->ts ? ev->ts_end - ev->ts : 0;
	struct fss_sync_result r;

	for (int p = 0; p < FSS_PH_MAX; p++)
		sum += ev->sync.kph[p];
	if (!painted || sum != total) {
		summ_demote(t, ev->sync.kind, FSS_SUMM_UNPAINTED, total);
		return;
	}
	fss_sync_result_of(ev, &r);
	r.total = total;
	memcpy(r.phase_ns, ev->sync.kph, sizeof(r.phase_ns));
	/* its flush facts, as attr_paint_sync counts a painted sync's */
	r.nr_flush = ev->sync.knflush;
	r.flush_seen = ev->sync.kflushy > 0;
	r.kernel_painted = true;
	fr_blame(t, &r);	/* a slow one: blamed from the flight recorder */
	t->kflush.syncs++;
	t->kflush.flush_sync_refs += ev->sync.knflush;
	if (r.flush_seen)
		t->kflush.syncs_with_flush++;
	else
		t->kflush.syncs_no_flush++;
	if (t->opts.on_sync)
		t->opts.on_sync(&r, t->opts.on_sync_arg);
}

bool fss_tracer_kernel_painted(const struct fss_tracer *t)
{
	return t && t->kp_report && kp_alone(t);
}

/* Each enum fss_kfl: its counter in struct fss_flush_stats, and name. */
static const struct {
	size_t off;
	const char *name;
} kfl_of[FSS_KFL_MAX] = {
	[FSS_KFL_FLUSHES] = { offsetof(struct fss_flush_stats, flushes),
			      "flushes" },
	[FSS_KFL_PREFLUSH] = { offsetof(struct fss_flush_stats, preflush),
			       "preflush" },
	[FSS_KFL_FUA] = { offsetof(struct fss_flush_stats, fua_writes),
			  "fua_writes" },
	[FSS_KFL_FUA_EMU] = { offsetof(struct fss_flush_stats, fua_emulated),
			      "fua_emulated" },
	[FSS_KFL_NVME_FLUSH] = { offsetof(struct fss_flush_stats,
					  nvme_flush_cmds), "nvme_flush_cmds" },
};

const char *kp_kfl_name(int i)
{
	return kfl_of[i].name;
}

static __u64 *kfl_field(struct fss_flush_stats *f, int i)
{
	return (__u64 *)((char *)f + kfl_of[i].off);
}

static __u64 kfl_value(const struct fss_flush_stats *f, int i)
{
	return *(const __u64 *)((const char *)f + kfl_of[i].off);
}

/* The kernel painter's distinct flush facts so far (clk_flc[], .bss). */
void kp_flc_now(const struct fss_tracer *t, __u64 *out)
{
	volatile const __u64 *flc = t->skel->bss->clk_flc;

	for (int i = 0; i < FSS_KFL_MAX; i++)
		out[i] = flc[i];
}

/*
 * FSYNCSCOPE_KPAINT=1, a window ends: its distinct flush facts, the
 * kernel's and attribution's (strategy.kpaint.flush).
 */
void kp_flc_window(struct fss_tracer *t, const struct fss_flush_stats *f)
{
	__u64 now[FSS_KFL_MAX];

	if (!kp_live(t) || t->kp_only)
		return;
	kp_flc_now(t, now);
	for (int i = 0; i < FSS_KFL_MAX; i++) {
		t->kp.kflc[i] += now[i] - t->kflc_begin[i];
		t->kp.uflc[i] += kfl_value(f, i);
	}
}

/*
 * The kernel painter's flush facts since the last call: its syncs' own
 * (kp_report_sync) and the distinct requests it counted (clk_flc[],
 * read from its .bss: cumulative, so differences).  Under t->lock.
 */
void kp_flush_stats(struct fss_tracer *t, struct fss_flush_stats *f)
{
	__u64 now[FSS_KFL_MAX];

	kp_flc_now(t, now);
	*f = t->kflush;
	for (int i = 0; i < FSS_KFL_MAX; i++) {
		*kfl_field(f, i) = now[i] - t->kflc_seen[i];
		t->kflc_seen[i] = now[i];
	}
	memset(&t->kflush, 0, sizeof(t->kflush));
}

/* The syncs it did not paint, by why (kp_print's lines). */
static void kp_print_unpainted(const struct fss_kp_stats *k)
{
	fprintf(stderr, "%llu no disk, %llu two disks, %llu table full, "
		"%llu race, %llu other",
		(unsigned long long)k->not_painted[0],
		(unsigned long long)k->not_painted[1],
		(unsigned long long)k->not_painted[2],
		(unsigned long long)k->not_painted[3],
		(unsigned long long)k->not_painted[4]);
}

/* -v, FSYNCSCOPE_KPAINT=1: the kernel's painter against ours. */
void kp_print(const struct fss_tracer *t)
{
	const struct fss_kp_stats *k = &t->kp;

	if (!kp_live(t)) {
		fprintf(stderr, "fsyncscope: kernel painter: n/a (it needs "
			"the tp_btf block hooks)\n");
		return;
	}
	if (t->kp_only) {
		fprintf(stderr, "fsyncscope: kernel painter alone: %llu of "
			"%llu syncs painted (not: ",
			(unsigned long long)k->painted,
			(unsigned long long)k->syncs);
		kp_print_unpainted(k);
		fprintf(stderr, ")\n");
		return;
	}
	fprintf(stderr, "fsyncscope: kernel painter: %llu of %llu syncs "
		"compared, %llu identical, max %llu ns apart, %llu ns of "
		"%llu painted differently, %llu with other flush facts; not "
		"painted: ",
		(unsigned long long)k->compared, (unsigned long long)k->syncs,
		(unsigned long long)k->identical,
		(unsigned long long)k->max_diff_ns,
		(unsigned long long)k->diff_ns, (unsigned long long)k->total_ns,
		(unsigned long long)k->flush_differ);
	kp_print_unpainted(k);
	fprintf(stderr, "\n");
}
