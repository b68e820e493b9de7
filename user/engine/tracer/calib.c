// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * calib.c - the tracer's calibration (see trace_int.h): a few syncs on a
 * scratch file show which hooks really fire; hooks that attached but never
 * fired are dropped (the filesystem layer falls back to its tracepoints).
 * Also the hook hit counters and the count of lost events.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "engine/tracer/tracer_int.h"
#include "lib/scratch.h"
#include "sys/devinfo.h"

static __u64 read_percpu_sum(int fd, __u32 key)
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 sum = 0;
	__u64 *vals;

	if (ncpu <= 0)
		return 0;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return 0;
	if (!bpf_map_lookup_elem(fd, &key, vals))
		for (int i = 0; i < ncpu; i++)
			sum += vals[i];
	free(vals);
	return sum;
}

/*
 * Runs of our programs that the kernel skipped: a program does not run
 * inside itself on one CPU (a block completion in an interrupt that lands
 * while the same hook runs in a task, say), and classic tracepoint and
 * kprobe programs not inside any other one.  The kernel counts each skip in
 * the program's recursion_misses; each is an event we never saw.
 */
static __u64 prog_misses(struct fss_tracer *t)
{
	__u64 sum = 0;

	for (int i = 0; i < t->nprogs; i++) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(t->progs[i].prog);

		memset(&info, 0, sizeof(info));
		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
			sum += info.recursion_misses;
	}
	return sum;
}

/* Events lost: ring buffer full, state map full, program runs skipped. */
__u64 fss_tracer_drops(struct fss_tracer *t)
{
	int fd = bpf_map__fd(t->skel->maps.drops);

	return read_percpu_sum(fd, 0) + read_percpu_sum(fd, 1) + prog_misses(t);
}

void fss_tracer_unname_files(struct fss_tracer *t)
{
	if (t->calib_kept)
		fss_scratch_unname(&t->calib_file);
}

int fss_tracer_drops_readable(struct fss_tracer *t)
{
	int ncpu = libbpf_num_possible_cpus(), rc;
	__u32 key = 0;
	__u64 *vals;

	if (ncpu <= 0)
		return -EINVAL;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	rc = bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.drops), &key, vals) ? -errno : 0;
	free(vals);
	return rc;
}

__u64 calib_blame_lost(struct fss_tracer *t)
{
	return read_percpu_sum(bpf_map__fd(t->skel->maps.drops), 2);
}

void calib_read_hits(struct fss_tracer *t, __u64 *hits)
{
	int fd = bpf_map__fd(t->skel->maps.hook_hits);

	for (__u32 i = 0; i < FSS_HOOK_MAX; i++)
		hits[i] = read_percpu_sum(fd, i);
}

void calib_read_summ(struct fss_tracer *t, struct fss_summ *out)
{
	int fd = bpf_map__fd(t->skel->maps.summ);
	int ncpu = libbpf_num_possible_cpus();
	struct fss_summ *vals;

	memset(out, 0, FSS_SYNC_KIND_MAX * sizeof(*out));
	if (ncpu <= 0 || !(vals = calloc(ncpu, sizeof(*vals))))
		return;
	for (__u32 k = 0; k < FSS_SYNC_KIND_MAX; k++) {
		if (bpf_map_lookup_elem(fd, &k, vals))
			continue;
		for (int c = 0; c < ncpu; c++)
			fss_summ_add(&out[k], &vals[c], 1);
	}
	free(vals);
	/* sent by the kernel, then summarized by the tracer (tracer.c) */
	for (int k = 0; k < FSS_SYNC_KIND_MAX; k++) {
		out[k].syncs[FSS_SUMM_TRACED] -=
			t->demoted[k].syncs[FSS_SUMM_LOST_AFTER] +
			t->demoted[k].syncs[FSS_SUMM_UNPAINTED];
		fss_summ_add(&out[k], &t->demoted[k], 1);
	}
}

/* ---- calibration ---- */

static const char *hook_names[FSS_HOOK_MAX] = {
	"sys_fsync", "sys_fdatasync", "sys_other", "fs_tracepoint",
	"fs_fentry", "fs_kprobe", "jbd2", "xfs_log_force", "rq_start",
	"rq_issue", "rq_complete", "nvme", "rq_requeue",
};

/*
 * The calibration's syncs in dir.  keep (live mode): the file stays open
 * in *keep until the tracer closes (an earlier round's is closed first),
 * and a last fsync commits the journal transaction that holds the tool's
 * own changes (the file, its timestamps, the sweep's atime): nothing of
 * them is left for a traced sync to wait for (docs/live.md).
 */
static int calib_syncs(const char *dir, struct fss_scratch *keep,
		       bool *kept, char *err, size_t errlen)
{
	struct fss_scratch s;
	char buf[4096];
	int fd, rc = 0;

	memset(buf, 0x5a, sizeof(buf));
	if (*kept) {
		fss_scratch_close(keep);
		*kept = false;
	}
	/* anonymous where O_TMPFILE works: a SIGKILL leaves nothing */
	rc = fss_scratch_open(&s, dir, FSS_SCRATCH_CALIB, -1);
	if (rc) {
		snprintf(err, errlen, "calibration: cannot create %s/%s%d: %s",
			 dir, FSS_SCRATCH_CALIB, getpid(), strerror(-rc));
		return rc;
	}
	fd = s.fd;
	/* one fsync of an append (journal work), three fdatasync overwrites */
	if (write(fd, buf, sizeof(buf)) != sizeof(buf) || fsync(fd))
		rc = -errno;
	for (int i = 0; !rc && i < 3; i++)
		if (pwrite(fd, buf, sizeof(buf), 0) != sizeof(buf) || fdatasync(fd))
			rc = -errno;
	if (!rc && keep && fsync(fd))
		rc = -errno;
	if (!rc && keep) {
		*keep = s;
		*kept = true;
	} else {
		fss_scratch_close(&s);
	}
	if (rc)
		snprintf(err, errlen, "calibration: sync on %s failed: %s", dir, strerror(-rc));
	return rc;
}

/* Calibration syncs with our own process let through, and the hits they made. */
static int calib_round(struct fss_tracer *t, __u64 *before, __u64 *after,
		       char *err, size_t errlen)
{
	struct timespec settle = { 0, 30 * 1000000L };
	int rc;

	calib_read_hits(t, before);
	t->skel->bss->calib_tgid = getpid();
	rc = calib_syncs(t->opts.calib_dir, t->opts.live ? &t->calib_file : NULL,
			 &t->calib_kept, err, errlen);
	nanosleep(&settle, NULL);
	t->skel->bss->calib_tgid = 0;
	calib_read_hits(t, after);
	return rc;
}

/*
 * Live mode calibrates in a directory of its own choosing (--calib-dir,
 * --mount, or /var/tmp or /tmp), not always on a filesystem it traces.
 * There, on a filesystem with no block device (tmpfs, 9p), the fs and
 * block hooks cannot fire: silence says nothing of the traced disks, so
 * they are kept, not verified, and said so (calibration.verified false
 * with why, one line on stderr).  0: judge; 1: not verifiable.
 */
static int calib_unverifiable(struct fss_tracer *t)
{
	struct fss_target tg;
	char why[PATH_MAX + 160];

	if (!t->opts.live || fss_target_lookup(t->opts.calib_dir, &tg) ||
	    tg.has_disk)
		return 0;
	snprintf(why, sizeof(why), "%s is on %s, with no block device: the "
		 "fs and block hooks are kept, not verified (--calib-dir DIR "
		 "on a traced disk verifies them)", t->opts.calib_dir,
		 tg.fstype[0] ? tg.fstype : "a filesystem");
	json_object_object_add(t->calib, "verified",
			       json_object_new_boolean(false));
	json_object_object_add(t->calib, "why", json_object_new_string(why));
	fprintf(stderr, "fsyncscope: calibration in %s\n", why);
	return 1;
}

static enum hookset fs_hook_id_set(int hook)
{
	return hook == FSS_HOOK_FS_FENTRY ? HS_FS_FENTRY :
	       hook == FSS_HOOK_FS_KPROBE ? HS_FS_KPROBE : HS_FS_TP;
}

int calib_run(struct fss_tracer *t, char *err, size_t errlen)
{
	__u64 before[FSS_HOOK_MAX], after[FSS_HOOK_MAX];
	struct json_object *hits, *dropped;
	int fs_hook, rc, n;
	struct stat st;

	if (!t->opts.calib_dir || stat(t->opts.calib_dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "calibration needs a directory on the traced filesystem");
		return -EINVAL;
	}
	/* named calibration files of tracers that were killed */
	fss_scratch_sweep(t->opts.calib_dir, stderr);
	rc = calib_round(t, before, after, err, errlen);
	if (rc)
		return rc;

	t->calib = json_object_new_object();
	hits = json_object_new_object();
	dropped = json_object_new_array();
	for (int i = 0; i < FSS_HOOK_MAX; i++)
		json_object_object_add(hits, hook_names[i],
				       json_object_new_int64(after[i] - before[i]));
	json_object_object_add(t->calib, "syncs",
			       json_object_new_int(t->opts.live ? 5 : 4));
	json_object_object_add(t->calib, "hits", hits);

	if (after[FSS_HOOK_SYS_FSYNC] - before[FSS_HOOK_SYS_FSYNC] < 1 ||
	    after[FSS_HOOK_SYS_FDATASYNC] - before[FSS_HOOK_SYS_FDATASYNC] < 3) {
		json_object_put(dropped);
		snprintf(err, errlen, "calibration: sync tracepoints attached but did not see the calibration syncs");
		return -ENOENT;
	}

	/* filesystem hooks: keep the chosen set only if it fired */
	fs_hook = t->layer_set[L_FS] == HS_FS_FENTRY ? FSS_HOOK_FS_FENTRY :
		  t->layer_set[L_FS] == HS_FS_KPROBE ? FSS_HOOK_FS_KPROBE : FSS_HOOK_FS_TP;
	if (calib_unverifiable(t)) {
		json_object_object_add(t->calib, "journal_seen", NULL);
		json_object_object_add(t->calib, "dropped_hooks", dropped);
		return 0;
	}
	json_object_object_add(t->calib, "verified", json_object_new_boolean(true));
	if (t->layer_ok[L_FS] && after[fs_hook] == before[fs_hook]) {
		json_object_array_add(dropped, json_object_new_string(hook_names[fs_hook]));
		strat_detach_set(t, L_FS, fs_hook_id_set(fs_hook));
		if (fs_hook != FSS_HOOK_FS_TP && t->opts.strategy == FSS_STRAT_AUTO) {
			/* attached but silent: fall back to the tracepoints, check again */
			if (!strat_attach_set(t, L_FS, HS_FS_TP, &n) && n > 0) {
				rc = calib_round(t, before, after, err, errlen);
				if (!rc && after[FSS_HOOK_FS_TP] > before[FSS_HOOK_FS_TP]) {
					t->layer_set[L_FS] = HS_FS_TP;
					snprintf(t->layer_desc[L_FS], sizeof(t->layer_desc[L_FS]),
						 "tracepoint (%s attached but never fired)",
						 hookset_names[fs_hook_id_set(fs_hook)]);
				} else {
					strat_detach_set(t, L_FS, HS_FS_TP);
					t->layer_ok[L_FS] = false;
				}
			} else {
				t->layer_ok[L_FS] = false;
			}
		} else {
			t->layer_ok[L_FS] = false;
		}
		if (!t->layer_ok[L_FS]) {
			if (t->opts.strategy == FSS_STRAT_FENTRY || t->opts.strategy == FSS_STRAT_KPROBE) {
				json_object_put(dropped);
				snprintf(err, errlen, "strategy %s: filesystem hooks attached but never fired during calibration",
					 hookset_names[fs_hook_id_set(fs_hook)]);
				return -ENOENT;
			}
			snprintf(t->layer_desc[L_FS], sizeof(t->layer_desc[L_FS]),
				 "n/a: no filesystem fsync hook fired on this filesystem");
		}
	}
	if (after[FSS_HOOK_RQ_ISSUE] == before[FSS_HOOK_RQ_ISSUE] && t->layer_ok[L_BLOCK]) {
		json_object_array_add(dropped, json_object_new_string("rq_issue"));
		snprintf(t->layer_desc[L_BLOCK], sizeof(t->layer_desc[L_BLOCK]),
			 "n/a: no block request seen for calibration syncs (no block device under %s?)",
			 t->opts.calib_dir);
		t->layer_ok[L_BLOCK] = false;
	}
	if (after[FSS_HOOK_JBD2] == before[FSS_HOOK_JBD2] &&
	    after[FSS_HOOK_XFS_LOG] == before[FSS_HOOK_XFS_LOG])
		json_object_object_add(t->calib, "journal_seen", json_object_new_boolean(false));
	else
		json_object_object_add(t->calib, "journal_seen", json_object_new_boolean(true));
	json_object_object_add(t->calib, "dropped_hooks", dropped);
	return 0;
}

/* A sync the kernel sent that the tracer counts as summarized (why). */
void summ_demote(struct fss_tracer *t, __u32 kind, __u32 why, __u64 total)
{
	struct fss_summ *s;
	__u32 b = 0;

	if (kind >= FSS_SYNC_KIND_MAX)
		return;
	s = &t->demoted[kind];
	s->syncs[why]++;
	s->total_ns += total;
	while (b + 1 < FSS_SUMM_BUCKETS && (total >> (b + 1)))
		b++;
	s->hist[b]++;
}
