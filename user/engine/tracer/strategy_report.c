// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * strategy_report.c - the tracer's strategy as it is reported (trace_int.h):
 * the JSON every document carries and the -v lines: each layer's hooks or
 * n/a with the reason, the probes, io_uring, blame, which filesystems'
 * fsync and journal are hooked, the calibration.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "engine/tracer/tracer_int.h"

/*
 * io_uring fsync requests (iouring.bpf.c, part of the sync layer): what
 * attached, or n/a and why.
 */
static void iouring_desc(const struct fss_tracer *t, char *buf, size_t len)
{
	int n = 0, loaded = 0;

	for (int i = 0; i < t->nprogs; i++) {
		const struct prog_info *pi = &t->progs[i];

		if (strncmp(bpf_program__name(pi->prog), "iou_", 4))
			continue;
		loaded += bpf_program__autoload(pi->prog);
		n += pi->link != NULL;
	}
	if (!t->has_iouring)
		snprintf(buf, len, "n/a: no io_uring in this kernel's BTF "
			 "(enum io_uring_op)");
	else if (n)
		snprintf(buf, len, "tracepoint (%d hooks)", n);
	else if (!loaded)
		snprintf(buf, len, "n/a: not hooked (this command's sync "
			 "kinds)");
	else
		snprintf(buf, len, "n/a: its tracepoints did not attach");
}

/* is a program of this layer attached whose name starts with pfx (and of
 * filesystem fs, when fs is not NULL)? */
static bool attached(const struct fss_tracer *t, enum layer l, const char *fs,
		     const char *pfx)
{
	for (int i = 0; i < t->nprogs; i++) {
		const struct prog_info *pi = &t->progs[i];

		if (pi->layer == l && pi->link && (!fs || (pi->fs &&
		    !strcmp(pi->fs, fs))) && (!pfx ||
		    !strncmp(bpf_program__name(pi->prog), pfx, strlen(pfx))))
			return true;
	}
	return false;
}

/*
 * Per filesystem the tracer knows: is its fsync hooked (the fs phase), and
 * which journal hooks see its commits.
 */
static struct json_object *filesystems_json(const struct fss_tracer *t)
{
	static const struct { const char *fs, *jpfx, *jname; } fss[] = {
		{ "ext4", "tp_jbd2_", "jbd2" },
		{ "xfs", "tp_xfs_log_force", "xfs log" },
		{ "btrfs", NULL, NULL },
	};
	struct json_object *o = json_object_new_object();

	for (size_t i = 0; i < sizeof(fss) / sizeof(fss[0]); i++) {
		struct json_object *f = json_object_new_object();
		bool j = fss[i].jpfx &&
			 attached(t, L_JOURNAL, NULL, fss[i].jpfx);

		json_object_object_add(f, "fs", json_object_new_boolean(
			attached(t, L_FS, fss[i].fs, NULL)));
		json_object_object_add(f, "journal", j ?
			json_object_new_string(fss[i].jname) : NULL);
		json_object_object_add(o, fss[i].fs, f);
	}
	return o;
}

static struct json_object *u64j(__u64 v)
{
	return json_object_new_int64((int64_t)v);
}

/*
 * The distinct flush facts of the windows, each painter's: {"kernel":
 * {"flushes":..,"preflush":..,"fua_writes":..,"fua_emulated":..,
 * "nvme_flush_cmds":..},"user":{...}} (fss_flush_stats' names).
 */
static struct json_object *kp_flush_json(const struct fss_kp_stats *k)
{
	struct json_object *o = json_object_new_object();
	struct json_object *ko = json_object_new_object();
	struct json_object *uo = json_object_new_object();

	for (int i = 0; i < FSS_KFL_MAX; i++) {
		json_object_object_add(ko, kp_kfl_name(i), u64j(k->kflc[i]));
		json_object_object_add(uo, kp_kfl_name(i), u64j(k->uflc[i]));
	}
	json_object_object_add(o, "kernel", ko);
	json_object_object_add(o, "user", uo);
	return o;
}

/*
 * FSYNCSCOPE_KPAINT=1: the kernel's painter against attribution's, over
 * the syncs attributed so far (docs/hotpath.md); null when off.
 */
static struct json_object *kpaint_json(const struct fss_tracer *t)
{
	const struct fss_kp_stats *k = &t->kp;
	struct json_object *o, *np;

	if (!t->kpaint || !t->skel || !t->skel->rodata->kpaint)
		return NULL;
	o = json_object_new_object();
	if (!kp_live(t)) {
		json_object_object_add(o, "na", json_object_new_string(
			"the raw_tp block hooks may not take its lock"));
		return o;
	}
	np = json_object_new_object();
	if (t->kp_only)		/* FSYNCSCOPE_KPAINT=only: nothing compared */
		json_object_object_add(o, "only", json_object_new_boolean(true));
	if (t->kp_report)	/* exporter --painter kernel: its syncs reported */
		json_object_object_add(o, "reporting",
				       json_object_new_boolean(true));
	json_object_object_add(o, "syncs", u64j(k->syncs));
	json_object_object_add(o, "painted", u64j(k->painted));
	json_object_object_add(o, "compared", u64j(k->compared));
	json_object_object_add(o, "identical", u64j(k->identical));
	json_object_object_add(o, "clamped", u64j(k->clamped));
	json_object_object_add(o, "flush_differ", u64j(k->flush_differ));
	if (!t->kp_only)
		json_object_object_add(o, "flush", kp_flush_json(k));
	json_object_object_add(o, "diff_ns", u64j(k->diff_ns));
	json_object_object_add(o, "max_diff_ns", u64j(k->max_diff_ns));
	json_object_object_add(o, "total_ns", u64j(k->total_ns));
	json_object_object_add(np, "no_disk", u64j(k->not_painted[0]));
	json_object_object_add(np, "two_disks", u64j(k->not_painted[1]));
	json_object_object_add(np, "table_full", u64j(k->not_painted[2]));
	json_object_object_add(np, "race", u64j(k->not_painted[3]));
	json_object_object_add(np, "other", u64j(k->not_painted[4]));
	json_object_object_add(o, "not_painted", np);
	return o;
}

struct json_object *fss_tracer_strategy_json(struct fss_tracer *t)
{
	char iou[128];
	static const char *req_names[] = { "auto", "fentry", "kprobe", "tracepoint" };
	struct json_object *o = json_object_new_object();
	struct json_object *layers = json_object_new_object();
	struct json_object *probes = json_object_new_object();

	json_object_object_add(o, "requested", json_object_new_string(req_names[t->opts.strategy]));
	for (int l = 0; l < L_MAX; l++) {
		struct json_object *lo = json_object_new_object();

		json_object_object_add(lo, "hooks", t->layer_ok[l] ?
				       json_object_new_string(hookset_names[t->layer_set[l]]) : NULL);
		json_object_object_add(lo, "detail", json_object_new_string(t->layer_desc[l]));
		json_object_object_add(layers, layer_names[l], lo);
		/* flat "layer": "hookset" for scripts */
		json_object_object_add(o, layer_names[l], t->layer_ok[l] ?
				       json_object_new_string(hookset_names[t->layer_set[l]]) :
				       json_object_new_string("n/a"));
	}
	json_object_object_add(o, "layers", layers);
	json_object_object_add(probes, "fentry", json_object_new_string(t->probe_fentry));
	json_object_object_add(probes, "kprobe", json_object_new_string(t->probe_kprobe));
	json_object_object_add(o, "probes", probes);
	json_object_object_add(o, "calibration", t->calib ? json_object_get(t->calib) : NULL);
	json_object_object_add(o, "setup_ms", json_object_new_double(t->setup_ms));
	json_object_object_add(o, "blame", json_object_new_string(t->blame_desc));
	json_object_object_add(o, "rq_records", json_object_new_string(
		kp_alone(t) ? "none" :
		t->skel && t->skel->rodata->rq_fold ? "fold" : "events"));
	json_object_object_add(o, "kpaint", kpaint_json(t));
	json_object_object_add(o, "consumer", json_object_new_string(
		t->consumer_normal ? "normal" : "idle"));
	iouring_desc(t, iou, sizeof(iou));
	json_object_object_add(o, "io_uring", json_object_new_string(iou));
	json_object_object_add(o, "filesystems", filesystems_json(t));
	if (t->floor_only)	/* FSYNCSCOPE_FLOOR=1: nothing was recorded */
		json_object_object_add(o, "floor_only", json_object_new_boolean(true));
	return o;
}

void fss_tracer_print_strategy(struct fss_tracer *t, FILE *f)
{
	char iou[128];

	fprintf(f, "probes: fentry %s; kprobe %s\n", t->probe_fentry, t->probe_kprobe);
	for (int l = 0; l < L_MAX; l++)
		fprintf(f, "  %-8s %s\n", layer_names[l], t->layer_desc[l]);
	iouring_desc(t, iou, sizeof(iou));
	fprintf(f, "  %-8s %s\n", "io_uring", iou);
	fprintf(f, "  %-8s %s\n", "blame", t->blame_desc);
	fprintf(f, "set-up: %.1f ms\n", t->setup_ms);
	if (t->calib)
		fprintf(f, "calibration: %s\n",
			json_object_to_json_string_ext(t->calib, JSON_C_TO_STRING_PLAIN));
}
