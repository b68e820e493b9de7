// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * fsalias.c - overlayfs syncs on their upper filesystem.  An overlay has
 * no disk of its own: ovl_fsync syncs the upper file, so its journal
 * commits and requests are the upper filesystem's.  The tracer reads the
 * overlays from mountinfo (sys/fsnote.c fss_overlays), tells the kernel
 * (the fs_alias map: the painter's key and the request filter's disk,
 * bpf/clock.bpf.h, bpf/common.bpf.h) and gives each sync record of an
 * overlay its upper filesystem's dev (alias_of), so that attribution,
 * blame and the outputs see the filesystem that did the work.
 */
#include <string.h>
#include <bpf/bpf.h>
#include "engine/tracer/tracer_int.h"
#include "sys/devinfo.h"

#define ALIAS_RESCAN_NS	(10ull * 1000000000)	/* live: mountinfo again */

void alias_scan(struct fss_tracer *t)
{
	struct fss_ovl now[64];
	int fd, n;

	n = fss_overlays(now, (int)(sizeof(now) / sizeof(now[0])));
	if (n < 0)
		return;		/* mountinfo unreadable: the last table stays */
	fd = t->skel ? bpf_map__fd(t->skel->maps.fs_alias) : -1;
	/* gone: out of the map (its dev may come back as another mount) */
	for (int i = 0; i < t->novl && fd >= 0; i++) {
		bool kept = false;

		for (int j = 0; j < n && !kept; j++)
			kept = now[j].ovl == t->ovl[i].ovl;
		if (!kept)
			bpf_map_delete_elem(fd, &t->ovl[i].ovl);
	}
	for (int i = 0; i < n && fd >= 0; i++) {
		struct fss_fs_alias al = {
			.fs = now[i].upper,
			.disk = fss_disk_of(now[i].upper),
		};

		if (al.disk)
			bpf_map_update_elem(fd, &now[i].ovl, &al, BPF_ANY);
		else	/* an upper with no disk (tmpfs): nothing to key */
			bpf_map_delete_elem(fd, &now[i].ovl);
	}
	memcpy(t->ovl, now, sizeof(now[0]) * n);
	t->novl = n;
	t->nnot_ovl = 0;
}

static int alias_find(const struct fss_tracer *t, __u32 dev)
{
	for (int i = 0; i < t->novl; i++)
		if (t->ovl[i].ovl == dev)
			return i;
	return -1;
}

bool alias_known(const struct fss_tracer *t, __u32 dev)
{
	return dev && alias_find(t, dev) >= 0;
}

__u32 alias_of(struct fss_tracer *t, __u32 dev)
{
	int i = alias_find(t, dev);

	if (i >= 0)
		return t->ovl[i].upper;
	if (!dev)
		return dev;
	for (int k = 0; k < t->nnot_ovl; k++)
		if (t->not_ovl[k] == dev)
			return dev;
	/* a new disk-less filesystem: an overlay mounted since? */
	alias_scan(t);
	i = alias_find(t, dev);
	if (i >= 0)
		return t->ovl[i].upper;
	if (t->nnot_ovl < (int)(sizeof(t->not_ovl) / sizeof(t->not_ovl[0])))
		t->not_ovl[t->nnot_ovl++] = dev;
	return dev;
}

__u32 alias_target(struct fss_tracer *t, __u32 fs_dev)
{
	int i;

	if (!fs_dev)
		return 0;
	alias_scan(t);		/* no map yet: the table alone */
	i = alias_find(t, fs_dev);
	return i >= 0 ? t->ovl[i].upper : 0;
}

void alias_refresh(struct fss_tracer *t, __u64 now)
{
	if (now - t->ovl_scan_ns < ALIAS_RESCAN_NS)
		return;
	t->ovl_scan_ns = now;
	alias_scan(t);
}
