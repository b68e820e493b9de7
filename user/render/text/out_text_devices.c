// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * out_text_devices.c - the plain text of a devices result, from its
 * document only: `devices` and `devices --probe` print through it, so
 * `report saved.json --format text` prints the same bytes.  Shapes
 * (docs/devices.md): every device {"devices"}; a device {"devices": chain,
 * "verdict"}; a path {"target", "devices": chain, "verdict"}; a probe
 * {"target", "devices": chain, "probe", "verdict"}.
 */
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "sys/devinfo.h"
#include "lib/fmt.h"
#include "render/render.h"
#include "sys/verdict.h"

void fss_text_devices_table(FILE *f, struct json_object *arr)
{
	size_t i, n = arr ? fss_jlen(arr) : 0;
	struct fss_devinfo *d = calloc(n + 1, sizeof(*d));

	if (!d) {
		fprintf(f, "out of memory\n");
		return;
	}
	for (i = 0; i < n; i++)
		fss_devinfo_from_json(fss_jidx(arr, i), &d[i]);
	fss_devinfo_print_table(f, d, (int)n);
	free(d);
}

static void print_backing(FILE *f, struct json_object *arr)
{
	size_t i, n = arr ? fss_jlen(arr) : 0;

	for (i = 0; i < n; i++) {
		struct json_object *o = fss_jidx(arr, i);
		struct json_object *bt = fss_j(o, "backing_target");
		const char *e = fss_jstr(o, "backing_target_error");

		if (!bt && !e)
			continue;
		fprintf(f, "\nbacking file of %s:\n", fss_jstr(o, "name") ?: "?");
		if (e) {
			fprintf(f, "path        %s\n            not reachable from here: %s\n",
				fss_jstr(o, "loop_backing_file") ?: "", e);
		} else {
			struct fss_target *t = malloc(sizeof(*t));

			if (!t)
				continue;
			fss_target_from_json(bt, t);
			fss_target_print(f, t);
			free(t);
		}
	}
}

/* --probe: what ran, what it measured per sync, and its breakdown. */
static void print_probe(FILE *f, struct json_object *pr)
{
	struct json_object *t = fss_j(pr, "test"), *lat = fss_j(t, "latency_us");
	char buf[1024], a[16], b[16], c[16];

	fputc('\n', f);
	if (fss_jint(pr, "count", 0) > 0)
		snprintf(buf, sizeof(buf), "fdatasync after one 8 KiB overwrite, "
			 "%lld syncs, in a temporary file under the path above",
			 fss_jint(pr, "count", 0));
	else
		snprintf(buf, sizeof(buf), "fdatasync after one 8 KiB overwrite, "
			 "%g s, in a temporary file under the path above",
			 fss_jnum(pr, "seconds"));
	fss_print_wrapped(f, "Probe:    ", 10, buf);
	if (strcmp(fss_jstr(t, "status") ?: "", "ok")) {
		snprintf(buf, sizeof(buf), "n/a: %s", fss_jstr(t, "reason") ?: "");
		fss_print_wrapped(f, "          ", 10, buf);
		return;
	}
	snprintf(buf, sizeof(buf), "%lld syncs in %.2f s: %.1f syncs/s; per sync "
		 "p50 %sus, p99 %sus, max %sus%s", fss_jint(t, "ops", 0),
		 fss_jnum(t, "elapsed_s"), fss_jnum(t, "ops_per_sec"),
		 fss_fmt_us(a, sizeof(a), fss_jnum(lat, "p50")),
		 fss_fmt_us(b, sizeof(b), fss_jnum(lat, "p99")),
		 fss_fmt_us(c, sizeof(c), fss_jnum(lat, "max")),
		 json_object_get_boolean(fss_j(t, "partial")) ?
		 " (partial: interrupted)" : "");
	fss_print_wrapped(f, "          ", 10, buf);
	if (fss_jstr(t, "note"))
		fss_print_wrapped(f, "          ", 10, fss_jstr(t, "note"));
	if (fss_j(t, "breakdown"))
		fss_text_breakdown(f, t, 4);
}

/* --probe: what the verdict rests on. */
static void print_measured(FILE *f, struct json_object *pr,
			   struct json_object *v)
{
	char buf[128];

	if (fss_jstr(v, "measured_in"))
		snprintf(buf, sizeof(buf), "the probe's %lld traced syncs",
			 fss_jint(fss_j(pr, "test"), "syncs_traced", 0));
	else
		snprintf(buf, sizeof(buf), "nothing: the probe's syncs "
			 "were not traced");
	fss_print_wrapped(f, "Measured: ", 10, buf);
}

int fss_text_devices(FILE *f, struct json_object *doc, char *err, size_t errlen)
{
	struct json_object *devs = fss_j(doc, "devices"), *v = fss_j(doc, "verdict");
	struct json_object *t = fss_j(doc, "target"), *pr = fss_j(doc, "probe");

	if (!devs && !t) {
		snprintf(err, errlen, "not a devices result: no \"devices\" or "
			 "\"target\"");
		return -1;
	}
	if (t) {
		struct fss_target *tg = malloc(sizeof(*tg));

		if (!tg) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		fss_target_from_json(t, tg);
		fss_target_print(f, tg);
		free(tg);
		if (!devs || !fss_jlen(devs))
			return 0;
		fputc('\n', f);
	}
	fss_text_devices_table(f, devs);
	if (!v || json_object_is_type(v, json_type_null))
		return 0;		/* every device: a table only */
	print_backing(f, devs);
	if (pr)
		print_probe(f, pr);
	fputc('\n', f);
	fss_verdict_print_json(f, v);
	if (pr)
		print_measured(f, pr, v);
	return 0;
}
