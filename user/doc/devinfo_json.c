// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * devinfo_json.c - device and target facts back from their JSON
 * (fss_devinfo_json, fss_target_json), for the renderers that print a
 * saved result the way the command printed it.
 */
#include <string.h>
#include <sys/sysmacros.h>
#include <json-c/json.h>
#include "sys/devinfo.h"
#include "doc/doc.h"

static void copy(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src ? src : "");
}

/* A tri-state: true 1, false 0, null or absent -1. */
static int tri(struct json_object *o, const char *key)
{
	struct json_object *v = fss_j(o, key);

	if (!v || !json_object_is_type(v, json_type_boolean))
		return -1;
	return json_object_get_boolean(v) ? 1 : 0;
}

void fss_devinfo_from_json(struct json_object *o, struct fss_devinfo *d)
{
	struct json_object *nv = fss_j(o, "nvme"), *m = fss_j(o, "members");
	const char *wc = fss_jstr(o, "write_cache");

	memset(d, 0, sizeof(*d));
	copy(d->name, sizeof(d->name), fss_jstr(o, "name"));
	d->major = (unsigned int)fss_jint(o, "major", 0);
	d->minor = (unsigned int)fss_jint(o, "minor", 0);
	d->is_partition = tri(o, "is_partition") == 1;
	copy(d->parent, sizeof(d->parent), fss_jstr(o, "parent"));
	copy(d->model, sizeof(d->model), fss_jstr(o, "model"));
	d->size_bytes = (__u64)fss_jint(o, "size_bytes", 0);
	d->rotational = tri(o, "rotational");
	copy(d->scheduler, sizeof(d->scheduler), fss_jstr(o, "scheduler"));
	d->nr_requests = (int)fss_jint(o, "nr_requests", -1);
	d->queue_depth = (int)fss_jint(o, "queue_depth", -1);
	d->logical_block_size = (int)fss_jint(o, "logical_block_size", -1);
	d->physical_block_size = (int)fss_jint(o, "physical_block_size", -1);
	d->write_cache = !wc ? -1 : !strcmp(wc, "write back") ? 1 : 0;
	d->fua = tri(o, "fua");
	d->discard_max_bytes = (__u64)fss_jint(o, "discard_max_bytes", 0);
	d->nvme = nv && json_object_is_type(nv, json_type_object);
	d->nvme_vwc_present = d->nvme ? tri(nv, "vwc_present") : -1;
	d->nvme_vwc_enabled = d->nvme ? tri(nv, "vwc_enabled") : -1;
	copy(d->nvme_reason, sizeof(d->nvme_reason), fss_jstr(nv, "reason"));
	copy(d->loop_backing, sizeof(d->loop_backing), fss_jstr(o, "loop_backing_file"));
	for (size_t i = 0; m && json_object_is_type(m, json_type_array) &&
	     i < json_object_array_length(m) && d->nr_members < FSS_MAX_MEMBERS; i++)
		copy(d->members[d->nr_members++], sizeof(d->members[0]),
		     json_object_get_string(json_object_array_get_idx(m, i)));
}

void fss_target_from_json(struct json_object *t, struct fss_target *out)
{
	struct json_object *up = fss_j(t, "upper");
	unsigned int ma = 0, mi = 0;

	memset(out, 0, sizeof(*out));
	copy(out->path, sizeof(out->path), fss_jstr(t, "path"));
	copy(out->fstype, sizeof(out->fstype), fss_jstr(t, "fstype"));
	copy(out->source, sizeof(out->source), fss_jstr(t, "source"));
	copy(out->mountpoint, sizeof(out->mountpoint), fss_jstr(t, "mountpoint"));
	copy(out->mount_opts, sizeof(out->mount_opts), fss_jstr(t, "mount_options"));
	copy(out->fs_blkdev, sizeof(out->fs_blkdev), fss_jstr(t, "block_device"));
	copy(out->disk, sizeof(out->disk), fss_jstr(t, "disk"));
	if (fss_jstr(t, "st_dev"))
		sscanf(fss_jstr(t, "st_dev"), "%u:%u", &ma, &mi);
	out->st_dev = makedev(ma, mi);
	out->has_disk = json_object_get_boolean(fss_j(t, "has_disk"));
	out->fs_kdev = (__u32)fss_jint(t, "fs_kdev", 0);
	out->fs_blkdev_kdev = (__u32)fss_jint(t, "block_device_kdev", 0);
	out->disk_kdev = (__u32)fss_jint(t, "disk_kdev", 0);
	copy(out->upper, sizeof(out->upper), fss_jstr(up, "path"));
	copy(out->upper_fstype, sizeof(out->upper_fstype), fss_jstr(up, "fstype"));
	out->upper_kdev = (__u32)fss_jint(up, "fs_kdev", 0);
}
