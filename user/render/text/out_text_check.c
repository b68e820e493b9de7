// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * out_text_check.c - the plain text of a check result (`fsyncscope
 * check`), from its document only: the host, the capabilities, what each
 * layer attaches, the devices; the verdict is the last line.
 */
#include <stdbool.h>
#include <string.h>
#include <json-c/json.h>
#include "lib/fmt.h"
#include "render/render.h"

static const char *or_na(const char *s, const char *na)
{
	return s && s[0] ? s : na;
}

static void print_host(FILE *f, struct json_object *h)
{
	struct json_object *btf = fss_j(h, "btf");
	long long up = fss_jint(h, "unprivileged_bpf_disabled", -1);
	long long ml = fss_jint(h, "memlock", -2);

	fprintf(f, "kernel      %s\n", or_na(fss_jstr(h, "kernel"), "n/a"));
	fprintf(f, "BTF         vmlinux %s, %lld module(s)\n",
		json_object_get_boolean(fss_j(btf, "vmlinux")) ?
		"yes" : "NO (/sys/kernel/btf/vmlinux missing)",
		fss_jint(btf, "modules", 0));
	fprintf(f, "lockdown    %s\n", or_na(fss_jstr(h, "lockdown"),
		"n/a (securityfs not mounted or no lockdown LSM)"));
	if (up < 0)
		fprintf(f, "unpriv BPF  n/a\n");
	else
		fprintf(f, "unpriv BPF  unprivileged_bpf_disabled=%lld "
			"(privileges are needed either way)\n", up);
	fprintf(f, "tracefs     %s\n", or_na(fss_jstr(h, "tracefs"),
		"not mounted (the tracer mounts it on /sys/kernel/tracing "
		"when it may)"));
	fprintf(f, "user        euid %lld\n", fss_jint(h, "euid", -1));
	if (ml == -2)
		fprintf(f, "memlock     unlimited\n");
	else
		fprintf(f, "memlock     %lld KiB (RLIMIT_MEMLOCK)\n",
			ml / 1024);
}

static void print_caps(FILE *f, struct json_object *h)
{
	struct json_object *caps = fss_j(h, "capabilities");
	size_t n = caps ? json_object_array_length(caps) : 0;
	char lead[64];

	fprintf(f, "\nCAPABILITY        HAVE NEED  WHY\n");
	for (size_t i = 0; i < n; i++) {
		struct json_object *c = json_object_array_get_idx(caps, i);
		struct json_object *have = fss_j(c, "have");
		bool yes = have && json_object_get_boolean(have);
		bool cov = json_object_get_boolean(fss_j(c, "covered"));
		char why[256];

		snprintf(lead, sizeof(lead), "%-17s %-4s %-5s ",
			 fss_jstr(c, "name"), !have ? "n/a" : yes ? "yes" :
			 cov ? "no" : "NO",
			 json_object_get_boolean(fss_j(c, "required")) ?
			 "yes" : "some");
		snprintf(why, sizeof(why), "%s%s", fss_jstr(c, "why"),
			 !yes && cov ? " (CAP_SYS_ADMIN allows it)" : "");
		fss_print_wrapped(f, lead, 29, why);
	}
}

/* "4 syncs, no hook dropped" from the calibration's JSON */
static void print_calib(FILE *f, struct json_object *cal)
{
	struct json_object *d = fss_j(cal, "dropped_hooks");
	size_t n = d ? json_object_array_length(d) : 0;
	char buf[512];
	int off;

	off = snprintf(buf, sizeof(buf), "%lld syncs on a scratch file; ",
		       fss_jint(cal, "syncs", 0));
	if (!n)
		snprintf(buf + off, sizeof(buf) - off, "no attached hook "
			 "dropped");
	for (size_t i = 0; i < n && off < (int)sizeof(buf); i++)
		off += snprintf(buf + off, sizeof(buf) - off, "%s%s%s",
				i ? ", " : "dropped (attached, never fired): ",
				json_object_get_string(
					json_object_array_get_idx(d, i)), "");
	fss_print_wrapped(f, "  calib    ", 11, buf);
	if (fss_jstr(cal, "why"))	/* "verified": false */
		fss_print_wrapped(f, "           ", 11, fss_jstr(cal, "why"));
}

static void print_tracer(FILE *f, struct json_object *t)
{
	static const char *layers[] = { "sync", "fs", "journal", "block",
					"nvme" };
	struct json_object *st = fss_j(t, "strategy");
	struct json_object *ls = fss_j(st, "layers");
	struct json_object *pr = fss_j(st, "probes");
	char lead[32], buf[512];

	fprintf(f, "\nTRACER (as trace opens it)\n");
	if (!st) {
		fss_print_wrapped(f, "  does not load: ", 4,
				  or_na(fss_jstr(t, "error"), "n/a"));
		return;
	}
	snprintf(buf, sizeof(buf), "fentry: %s; kprobe: %s",
		 or_na(fss_jstr(pr, "fentry"), "n/a"),
		 or_na(fss_jstr(pr, "kprobe"), "n/a"));
	fss_print_wrapped(f, "  probes   ", 11, buf);
	for (size_t i = 0; i < sizeof(layers) / sizeof(layers[0]); i++) {
		snprintf(lead, sizeof(lead), "  %-8s ", layers[i]);
		fss_print_wrapped(f, lead, 11, or_na(fss_jstr(
			fss_j(ls, layers[i]), "detail"), "n/a"));
	}
	fss_print_wrapped(f, "  io_uring ", 11,
			  or_na(fss_jstr(st, "io_uring"), "n/a"));
	fss_print_wrapped(f, "  blame    ", 11,
			  or_na(fss_jstr(st, "blame"), "n/a"));
	if (fss_j(st, "calibration"))
		print_calib(f, fss_j(st, "calibration"));
}

/* what trace sees on each filesystem on a block device */
static void print_mounts(FILE *f, struct json_object *arr)
{
	size_t n = arr ? json_object_array_length(arr) : 0;

	fprintf(f, "\nFILESYSTEMS (what trace sees besides syncs and block "
		"requests)\n");
	if (!n) {
		fprintf(f, "  none mounted from a block device\n");
		return;
	}
	fprintf(f, "FSTYPE   DEV       FS-PHASE JOURNAL  MOUNTED ON\n");
	for (size_t i = 0; i < n; i++) {
		struct json_object *m = json_object_array_get_idx(arr, i);
		struct json_object *sees = fss_j(m, "trace_sees");
		const char *t = or_na(fss_jstr(m, "target"), "?");
		size_t room = 80 - 36, len = strlen(t);

		fprintf(f, "%-8.8s %-9.9s %-8s %-8s %s%s\n",
			or_na(fss_jstr(m, "fstype"), "?"),
			or_na(fss_jstr(m, "dev"), "?"),
			json_object_get_boolean(fss_j(sees, "fs")) ? "yes" :
			"n/a", or_na(fss_jstr(sees, "journal"), "n/a"),
			len > room ? "..." : "", len > room ?
			t + len - (room - 3) : t);
	}
}

int fss_text_check(FILE *f, struct json_object *doc)
{
	struct json_object *devs = fss_j(doc, "devices");

	print_host(f, fss_j(doc, "host"));
	print_caps(f, fss_j(doc, "host"));
	print_tracer(f, fss_j(doc, "tracer"));
	if (fss_j(fss_j(doc, "tracer"), "strategy"))
		print_mounts(f, fss_j(doc, "mounts"));
	fprintf(f, "\nDEVICES\n");
	if (devs && json_object_array_length(devs))
		fss_text_devices_table(f, devs);
	else
		fprintf(f, "  none found in /sys/block\n");
	fprintf(f, "\n");
	if (json_object_get_boolean(fss_j(doc, "ok")))
		fprintf(f, "ok: trace and run will break syncs down on this "
			"host\n");
	else
		fss_print_wrapped(f, "cannot trace: ", 2,
				  or_na(fss_jstr(doc, "reason"), "n/a"));
	return 0;
}
