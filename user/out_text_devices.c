// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * out_text_devices.c - the plain text of a devices result, from its
 * document only: `devices` prints through it, so `report saved.json
 * --format text` prints the same bytes.  Shapes (docs/devices.md): every
 * device {"devices"}; a device {"devices": chain, "verdict"}; a path
 * {"target", "devices": chain, "verdict"}.
 */
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "devinfo.h"
#include "render.h"
#include "verdict.h"

static void print_table(FILE *f, struct json_object *arr)
{
	size_t i, n = arr ? json_object_array_length(arr) : 0;
	struct fss_devinfo *d = calloc(n + 1, sizeof(*d));

	if (!d) {
		fprintf(f, "out of memory\n");
		return;
	}
	for (i = 0; i < n; i++)
		fss_devinfo_from_json(json_object_array_get_idx(arr, i), &d[i]);
	fss_devinfo_print_table(f, d, (int)n);
	free(d);
}

static void print_backing(FILE *f, struct json_object *arr)
{
	size_t i, n = arr ? json_object_array_length(arr) : 0;

	for (i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);
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

int fss_text_devices(FILE *f, struct json_object *doc, char *err, size_t errlen)
{
	struct json_object *devs = fss_j(doc, "devices"), *v = fss_j(doc, "verdict");
	struct json_object *t = fss_j(doc, "target");

	if (fss_j(doc, "probe") || (!devs && !t)) {
		snprintf(err, errlen, "text of a saved devices --probe result: not "
			 "available yet; use --format json");
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
		if (!devs || !json_object_array_length(devs))
			return 0;
		fputc('\n', f);
	}
	print_table(f, devs);
	if (!v || json_object_is_type(v, json_type_null))
		return 0;		/* every device: a table only */
	print_backing(f, devs);
	fputc('\n', f);
	fss_verdict_print_json(f, v);
	return 0;
}
