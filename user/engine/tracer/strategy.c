// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * strategy.c - how the tracer hooks this kernel (see trace_int.h).
 *
 * Strategy is chosen at run time by trying, never by kernel version:
 *  - probe.bpf.o: a one-instruction fentry and kprobe program are loaded
 *    and attached to vfs_fsync_range to learn whether this kernel allows
 *    them at all;
 *  - the main object is loaded with the chosen filesystem hook set enabled
 *    (fentry, kprobe or tracepoint) and the block set (tp_btf, else
 *    raw_tp); a load failure falls back to the next set in auto mode;
 *  - then each layer is attached, with its own fallbacks; calibration
 *    (calib.c) later drops hooks that attached but never fired.
 */
#include <errno.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mount.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "engine/tracer/tracer_int.h"
#include "sys/devinfo.h"
#include "probe.skel.h"

const char *const layer_names[L_MAX] = {
	"sync", "fs", "journal", "block", "nvme"
};
const char *const hookset_names[HS_MAX] = {
	"tracepoint", "tracepoint", "fentry", "kprobe", "tracepoint",
	"tp_btf", "raw_tp", "tp_btf", "tracepoint+tp_btf",
};


int fss_strategy_parse(const char *s, enum fss_strategy *out)
{
	static const char *names[] = { "auto", "fentry", "kprobe", "tracepoint" };

	for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(s, names[i])) {
			*out = i;
			return 0;
		}
	}
	return -1;
}

/* ---- kernel facts from BTF ---- */

static struct btf *vmlinux_btf;

static struct btf *load_vmlinux_btf(void)
{
	if (!vmlinux_btf)
		vmlinux_btf = btf__load_vmlinux_btf();
	return libbpf_get_error(vmlinux_btf) ? NULL : vmlinux_btf;
}

/* Is `name` of `kind` in vmlinux BTF or any loaded module's BTF? */
static bool kernel_btf_lookup(const char *name, int kind)
{
	struct btf *base = load_vmlinux_btf();
	bool found = false;
	DIR *d;
	struct dirent *de;

	if (!base)
		return false;
	if (btf__find_by_name_kind(base, name, kind) > 0)
		return true;
	d = opendir("/sys/kernel/btf");
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		char path[300];
		struct btf *m;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "vmlinux"))
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/btf/%s", de->d_name);
		m = btf__parse_split(path, base);
		if (libbpf_get_error(m))
			continue;
		found = btf__find_by_name_kind(m, name, kind) > 0;
		btf__free(m);
	}
	closedir(d);
	return found;
}

/*
 * Answers are remembered, so that all questions can be asked before the
 * main object is loaded and the parsed vmlinux BTF (several MiB) freed:
 * libbpf parses its own copy during load, and both at once doubled the
 * peak RSS.
 */
static struct { char name[64]; int kind; bool found; } btf_memo[40];
static int btf_nmemo;

static bool kernel_btf_has(const char *name, int kind)
{
	bool found;

	for (int i = 0; i < btf_nmemo; i++)
		if (btf_memo[i].kind == kind && !strcmp(btf_memo[i].name, name))
			return btf_memo[i].found;
	found = kernel_btf_lookup(name, kind);
	if (btf_nmemo < (int)(sizeof(btf_memo) / sizeof(btf_memo[0]))) {
		snprintf(btf_memo[btf_nmemo].name, sizeof(btf_memo[0].name), "%s", name);
		btf_memo[btf_nmemo].kind = kind;
		btf_memo[btf_nmemo].found = found;
		btf_nmemo++;
	}
	return found;
}

static void free_vmlinux_btf(void)
{
	if (vmlinux_btf && !libbpf_get_error(vmlinux_btf))
		btf__free(vmlinux_btf);
	vmlinux_btf = NULL;
}

/*
 * Classic tracepoints are attached by id, read from tracefs; on a fresh
 * machine nothing may have mounted it yet.
 */
static int ensure_tracefs(char *err, size_t errlen)
{
	struct stat st;

	if (!stat("/sys/kernel/tracing/events", &st) ||
	    !stat("/sys/kernel/debug/tracing/events", &st))
		return 0;
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) &&
	    stat("/sys/kernel/tracing/events", &st)) {
		snprintf(err, errlen, "tracefs is not mounted and mounting it on /sys/kernel/tracing failed: %s",
			 strerror(errno));
		return -errno;
	}
	return 0;
}

/* ---- feature probes ---- */

static int probe_one(bool fentry, char *why, size_t whylen)
{
	struct probe_bpf *p = probe_bpf__open();
	struct bpf_link *l;
	int err;

	if (!p) {
		snprintf(why, whylen, "cannot open probe object: %s", strerror(errno));
		return -errno;
	}
	bpf_program__set_autoload(p->progs.probe_fentry, fentry);
	bpf_program__set_autoload(p->progs.probe_kprobe, !fentry);
	err = probe_bpf__load(p);
	if (err) {
		snprintf(why, whylen, "load refused: %s", strerror(-err));
		goto out;
	}
	l = bpf_program__attach(fentry ? p->progs.probe_fentry : p->progs.probe_kprobe);
	err = libbpf_get_error(l);
	if (err) {
		snprintf(why, whylen, "attach failed: %s", strerror(-err));
		goto out;
	}
	bpf_link__destroy(l);
	snprintf(why, whylen, "ok");
out:
	probe_bpf__destroy(p);
	return err;
}

/* ---- program classification ---- */

static const char *fs_of(const char *name)
{
	if (strstr(name, "ext4"))
		return "ext4";
	if (strstr(name, "btrfs"))
		return "btrfs";
	if (strstr(name, "xfs_file_fsync"))
		return "xfs";
	return NULL;
}

static const char *fs_func(const char *fs)
{
	if (!strcmp(fs, "ext4"))
		return "ext4_sync_file";
	if (!strcmp(fs, "xfs"))
		return "xfs_file_fsync";
	return "btrfs_sync_file";
}

static void classify(struct fss_tracer *t)
{
	struct bpf_program *prog;

	t->nprogs = 0;
	bpf_object__for_each_program(prog, t->skel->obj) {
		struct prog_info *pi;
		const char *n = bpf_program__name(prog);

		if (t->nprogs >= MAX_PROGS) {	/* never dropped unsaid */
			fprintf(stderr, "fsyncscope: more than %d BPF programs: "
				"%s and later ones not attached\n", MAX_PROGS, n);
			break;
		}
		pi = &t->progs[t->nprogs++];
		memset(pi, 0, sizeof(*pi));
		pi->prog = prog;
		pi->fs = fs_of(n);
		if (!strncmp(n, "sys_", 4)) {
			pi->layer = L_SYNC;
			pi->set = HS_SYSCALL_TP;
			pi->required = strstr(n, "fsync") != NULL; /* fsync, fdatasync */
		} else if (!strncmp(n, "follow_", 7)) {
			/* follow.bpf.c: the tgids filter follows forks */
			pi->layer = L_SYNC;
			pi->set = HS_SYSCALL_TP;
			pi->fs = NULL;
			pi->required = true;
		} else if (!strncmp(n, "iou_", 4)) {
			/* io_uring fsync requests (iouring.bpf.c): optional */
			pi->layer = L_SYNC;
			pi->set = HS_SYSCALL_TP;
			pi->fs = NULL;
		} else if (!strncmp(n, "blame_", 6)) {
			pi->layer = L_JOURNAL;	/* attached on their own */
			pi->set = HS_BLAME;
			pi->fs = NULL;
		} else if (!strncmp(n, "tp_jbd2_", 8) || !strcmp(n, "tp_xfs_log_force")) {
			pi->layer = L_JOURNAL;
			pi->set = HS_JOURNAL_TP;
			pi->fs = NULL;
		} else if (!strncmp(n, "tp_", 3)) {
			pi->layer = L_FS;
			pi->set = HS_FS_TP;
		} else if (!strncmp(n, "fentry_", 7) || !strncmp(n, "fexit_", 6)) {
			pi->layer = L_FS;
			pi->set = HS_FS_FENTRY;
		} else if (!strncmp(n, "kprobe_", 7) || !strncmp(n, "kretprobe_", 10)) {
			pi->layer = L_FS;
			pi->set = HS_FS_KPROBE;
		} else if (!strncmp(n, "btf_nvme_", 9)) {
			pi->layer = L_NVME;
			pi->set = HS_NVME_BTF;
		} else if (!strncmp(n, "btf_", 4)) {
			pi->layer = L_BLOCK;
			pi->set = HS_BLOCK_BTF;
			pi->required = strstr(n, "issue") || strstr(n, "complete");
		} else {
			pi->layer = L_BLOCK;
			pi->set = HS_BLOCK_RAW;
			pi->required = strstr(n, "issue") || strstr(n, "complete");
		}
	}
}

static bool has_tracepoint_btf(const char *tp)
{
	char name[128];

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	return kernel_btf_has(name, BTF_KIND_TYPEDEF);
}

/* The sync kind a sync-layer program records (-1: not one). */
static int prog_sync_kind(const char *n)
{
	const char *s = !strncmp(n, "sys_enter_", 10) ? n + 10 :
			!strncmp(n, "sys_exit_", 9) ? n + 9 : NULL;

	if (!strncmp(n, "iou_", 4))
		return FSS_SYNC_IOURING_FSYNC;
	if (!s)
		return -1;
	if (!strcmp(s, "fsync"))
		return FSS_SYNC_FSYNC;
	if (!strcmp(s, "fdatasync"))
		return FSS_SYNC_FDATASYNC;
	if (!strcmp(s, "sync_file_range"))
		return FSS_SYNC_SYNC_FILE_RANGE;
	if (!strcmp(s, "syncfs"))
		return FSS_SYNC_SYNCFS;
	if (!strcmp(s, "msync"))
		return FSS_SYNC_MSYNC;
	return FSS_SYNC_DSYNC_WRITE;	/* write, pwrite64, writev, pwritev(2) */
}

/* Does this tracer want the sync-layer program n? */
static bool want_sync_prog(const struct fss_tracer *t, const char *n)
{
	int kind = prog_sync_kind(n);

	if (!t->opts.sync_kinds || kind < 0 ||
	    kind == FSS_SYNC_FSYNC || kind == FSS_SYNC_FDATASYNC)
		return true;
	return t->opts.sync_kinds & (1u << kind);
}

/*
 * Submitters come from block_io_start; kernels without it (before 6.5) use
 * block_bio_queue (FSYNCSCOPE_BLAME_BIO=1 forces that, for tests).
 */
static bool blame_by_bio(void)
{
	const char *e = getenv("FSYNCSCOPE_BLAME_BIO");

	return !has_tracepoint_btf("block_io_start") || (e && !strcmp(e, "1"));
}

/*
 * xfs log blame (bpf/blame_xfs.bpf.c): its tp_btf programs need the xfs
 * tracepoints in vmlinux's BTF or, xfs a module, in the loaded module's.
 */
static bool blame_xfs_ok(void)
{
	return has_tracepoint_btf("xfs_trans_commit") &&
	       has_tracepoint_btf("xfs_log_ticket_ungrant") &&
	       has_tracepoint_btf("xfs_log_ticket_regrant") &&
	       has_tracepoint_btf("xfs_log_force");
}

/*
 * jbd2's tracepoint programs read their records through CO-RE
 * (trace_event_raw_jbd2_*): with jbd2 a module that is not loaded, the
 * type is in no BTF, the relocation fails and the whole object with it.
 * Such a program is left out; its layer says n/a.
 */
static bool jbd2_ctx_ok(const char *n)
{
	const char *t = !strcmp(n, "tp_jbd2_end_commit") ?
			"trace_event_raw_jbd2_end_commit" :
			!strcmp(n, "blame_jhandle") ?
			"trace_event_raw_jbd2_handle_stats" :
			!strcmp(n, "blame_jstats") ?
			"trace_event_raw_jbd2_run_stats" :
			"trace_event_raw_jbd2_commit";

	return kernel_btf_has(t, BTF_KIND_STRUCT);
}

/* Is the tracepoint a blame program needs in this kernel's BTF? */
static bool blame_prog_ok(const char *n)
{
	if (strstr(n, "rq_owner"))
		return !blame_by_bio();
	if (strstr(n, "bio_owner"))
		return blame_by_bio() && has_tracepoint_btf("block_bio_queue");
	if (strstr(n, "bio_split"))
		return blame_by_bio() && has_tracepoint_btf("block_split");
	if (strstr(n, "wb_"))
		return has_tracepoint_btf("writeback_single_inode_start") &&
		       has_tracepoint_btf("writeback_single_inode");
	if (strstr(n, "dirty"))
		return has_tracepoint_btf("writeback_dirty_inode_enqueue");
	/* the inode marks each on its own; the transactions all, or none */
	if (!strcmp(n, "blame_xfs_setsize"))
		return blame_xfs_ok() && has_tracepoint_btf("xfs_setfilesize");
	if (!strcmp(n, "blame_xfs_unwritten"))
		return blame_xfs_ok() &&
		       has_tracepoint_btf("xfs_unwritten_convert");
	if (!strcmp(n, "blame_xfs_inactive"))
		return blame_xfs_ok() &&
		       has_tracepoint_btf("xfs_inode_inactivating");
	if (!strncmp(n, "blame_xfs_", 10))
		return blame_xfs_ok();
	if (!strncmp(n, "blame_j", 7))	/* jbd2 tracepoints */
		return jbd2_ctx_ok(n);
	return true;
}

/*
 * Which programs load in this configuration.  fs_set: the filesystem hook
 * set; tracepoint fs programs always load so calibration can fall back to
 * them without reloading.
 */
static void set_autoload(struct fss_tracer *t, enum hookset fs_set, enum hookset blk_set,
			 bool nvme)
{
	/*
	 * blame's owners ride on the block program's creation records (one
	 * ring record per request), where that program is tp_btf
	 * block_io_start; else blame_rq_owner or the bio programs send them
	 */
	bool in_rq = t->blame_on && blk_set == HS_BLOCK_BTF &&
		     !blame_by_bio() && has_tracepoint_btf("block_io_start");
	/*
	 * --painter kernel, painting: no request record at all; blame's
	 * owners go to the flight recorder (flightrec.c), so its programs
	 * that send one per request or bio stay out
	 */
	bool fr = t->blame_on && t->kp_report && t->skel->rodata->kp_only &&
		  t->skel->rodata->kpaint && blk_set == HS_BLOCK_BTF;

	t->skel->rodata->blame_in_rq = in_rq;
	t->skel->rodata->kp_fr = fr;
	/* the painter takes the NVMe commands' times (clock.bpf.c) */
	t->skel->rodata->kp_nvme = nvme && blk_set == HS_BLOCK_BTF &&
				   t->skel->rodata->kpaint;
	for (int i = 0; i < t->nprogs; i++) {
		struct prog_info *pi = &t->progs[i];
		const char *n = bpf_program__name(pi->prog);
		bool on = false;

		switch (pi->set) {
		case HS_SYSCALL_TP:
			if (!strncmp(n, "follow_", 7)) {
				on = t->opts.follow_forks;
				break;
			}
			/* io_uring programs only where the kernel has io_uring */
			on = (strncmp(n, "iou_", 4) ||
			      kernel_btf_has("io_uring_op", BTF_KIND_ENUM)) &&
			     want_sync_prog(t, n);
			break;
		case HS_JOURNAL_TP:
			on = strncmp(n, "tp_jbd2_", 8) || jbd2_ctx_ok(n);
			break;
		case HS_FS_TP:
			on = true;
			break;
		case HS_FS_FENTRY:
			/* a missing target function fails the whole load */
			on = fs_set == HS_FS_FENTRY &&
			     kernel_btf_has(fs_func(pi->fs), BTF_KIND_FUNC);
			break;
		case HS_FS_KPROBE:
			on = fs_set == HS_FS_KPROBE;
			break;
		case HS_BLOCK_BTF:
		case HS_BLOCK_RAW:
			on = pi->set == blk_set;
			if (on && strstr(n, "io_start"))
				on = has_tracepoint_btf("block_io_start");
			/*
			 * the in-kernel painter's jbd2 view (journal.bpf.c):
			 * it then sends the commits' records
			 */
			if (on && strstr(n, "_clk_")) {
				on = t->skel->rodata->kpaint &&
				     jbd2_ctx_ok("tp_jbd2_start_commit");
				t->skel->rodata->kp_jbd2 = on;
			}
			break;
		case HS_NVME_BTF:
			on = nvme;
			break;
		case HS_BLAME:
			on = t->blame_on && blame_prog_ok(n) &&
			     !((in_rq || fr) && strstr(n, "rq_owner")) &&
			     !(fr && strstr(n, "_bio_"));
			break;
		default:
			break;
		}
		bpf_program__set_autoload(pi->prog, on);
	}
}

static int open_skel(struct fss_tracer *t)
{
	t->skel = fsyncscope_bpf__open();
	if (!t->skel)
		return -errno;
	t->skel->rodata->targ_tgid = t->opts.tgid;
	/* live: the tool's own syncs are not the host's (docs/live.md) */
	t->skel->rodata->self_tgid = t->opts.live ? (__u32)getpid() : 0;
	t->skel->rodata->targ_fs_dev = t->opts.fs_dev;
	t->skel->rodata->targ_disk_dev = t->opts.disk_dev;
	/* an overlay target: its upper's journal and disk are its syncs' */
	t->skel->rodata->targ_fs_upper = alias_target(t, t->opts.fs_dev);
	if (t->skel->rodata->targ_fs_upper && !t->opts.disk_dev)
		t->skel->rodata->targ_disk_dev =
			fss_disk_of(t->skel->rodata->targ_fs_upper);
	t->skel->rodata->targ_cgroup = t->opts.cgroup_id;
	t->skel->rodata->floor_only = t->floor_only;
	if (t->ring_high_pct <= 100)
		t->skel->rodata->ring_high_pct = t->ring_high_pct;
	t->skel->rodata->sample_every = t->opts.sample_every;
	if (t->ring_bytes &&
	    bpf_map__set_max_entries(t->skel->maps.events, t->ring_bytes))
		return -EINVAL;
	/* per-event transport: the fold map holds no events */
	t->skel->rodata->rq_fold = !t->rq_events && !t->floor_only &&
				   !t->kp_only;
	/*
	 * the in-kernel painter: off, its tables take no memory; on, it keeps
	 * a request's state in its fold entry, per-event transport or not
	 */
	t->skel->rodata->kpaint = t->kpaint && !t->floor_only;
	t->skel->rodata->kp_only = t->kp_only && !t->floor_only;
	if (!t->skel->rodata->rq_fold && !t->skel->rodata->kpaint &&
	    bpf_map__set_max_entries(t->skel->maps.rq_folds, 1))
		return -EINVAL;
	if (!t->skel->rodata->kpaint &&
	    bpf_map__set_max_entries(t->skel->maps.clk_thrs, 64))
		return -EINVAL;
	/* the flight recorder: only blame on demand maps it (flightrec.c) */
	if (!(t->kp_report && t->kp_only && t->blame_on) &&
	    bpf_map__set_max_entries(t->skel->maps.fr_ring, 1))
		return -EINVAL;
	/* unfiltered: blame records only where traced syncs were seen */
	t->skel->rodata->blame_dev_filter = !t->opts.fs_dev && !t->opts.disk_dev;
	/*
	 * No filesystem given: requests only on the disks of traced syncs
	 * (a filesystem given without a known disk: every disk, as before)
	 */
	t->skel->rodata->rq_dev_filter = !t->opts.fs_dev && !t->opts.disk_dev &&
		!getenv("FSYNCSCOPE_ALL_DISKS");
	t->skel->rodata->filter_tgids = t->opts.ntgids > 0;
	t->skel->rodata->follow_forks = t->opts.follow_forks && t->opts.ntgids > 0;
	if (t->opts.comm)
		strncpy((char *)t->skel->rodata->targ_comm, t->opts.comm,
			sizeof(t->skel->rodata->targ_comm) - 1);
	classify(t);
	return 0;
}

int strat_attach_set(struct fss_tracer *t, enum layer layer, enum hookset set,
		     int *attached)
{
	int n = 0;

	for (int i = 0; i < t->nprogs; i++) {
		struct prog_info *pi = &t->progs[i];

		if (pi->layer != layer || pi->set != set || pi->link ||
		    !bpf_program__autoload(pi->prog))
			continue;
		pi->link = bpf_program__attach(pi->prog);
		pi->attach_err = libbpf_get_error(pi->link);
		if (pi->attach_err) {
			pi->link = NULL;
			if (t->opts.verbose)
				fprintf(stderr, "fsyncscope: %s: not attached (%s)\n",
					bpf_program__name(pi->prog), strerror(-pi->attach_err));
			if (pi->required)
				return pi->attach_err;
			continue;
		}
		n++;
	}
	*attached = n;
	return 0;
}

void strat_detach_set(struct fss_tracer *t, enum layer layer,
		      enum hookset set)
{
	for (int i = 0; i < t->nprogs; i++) {
		struct prog_info *pi = &t->progs[i];

		if (pi->layer == layer && pi->set == set && pi->link) {
			bpf_link__destroy(pi->link);
			pi->link = NULL;
		}
	}
}

/* ---- consumption ---- */

static int try_load(struct fss_tracer *t, enum hookset fs_set, enum hookset blk_set, bool nvme)
{
	int err = open_skel(t);

	if (err)
		return err;
	set_autoload(t, fs_set, blk_set, nvme);
	err = fsyncscope_bpf__load(t->skel);
	if (err) {
		fsyncscope_bpf__destroy(t->skel);
		t->skel = NULL;
	}
	if (err && t->blame_on) {	/* learned by trying: without blame */
		t->blame_on = false;
		snprintf(t->blame_desc, sizeof(t->blame_desc),
			 "n/a: the blame programs did not load (%s)",
			 strerror(-err));
		err = try_load(t, fs_set, blk_set, nvme);
		if (err)	/* not blame's fault: try it again next time */
			t->blame_on = true;
	}
	return err;
}


/* ---- the open steps ---- */

/* What this kernel allows, learned by trying; the fs hook sets to try. */
static int plan_fs(struct fss_tracer *t, struct strat_plan *p, char *err,
		   size_t errlen)
{
	bool fentry_ok, kprobe_ok;

	fentry_ok = probe_one(true, t->probe_fentry,
			      sizeof(t->probe_fentry)) == 0;
	kprobe_ok = probe_one(false, t->probe_kprobe,
			      sizeof(t->probe_kprobe)) == 0;
	switch (t->opts.strategy) {
	case FSS_STRAT_FENTRY:
		if (!fentry_ok) {
			snprintf(err, errlen, "strategy fentry: fentry/fexit programs are not usable on this kernel (%s)",
				 t->probe_fentry);
			return -EOPNOTSUPP;
		}
		p->fs_try[p->nfs++] = HS_FS_FENTRY;
		break;
	case FSS_STRAT_KPROBE:
		if (!kprobe_ok) {
			snprintf(err, errlen, "strategy kprobe: kprobes are not usable on this kernel (%s)",
				 t->probe_kprobe);
			return -EOPNOTSUPP;
		}
		p->fs_try[p->nfs++] = HS_FS_KPROBE;
		break;
	case FSS_STRAT_TRACEPOINT:
		p->fs_try[p->nfs++] = HS_FS_TP;
		break;
	default:
		if (fentry_ok)
			p->fs_try[p->nfs++] = HS_FS_FENTRY;
		if (kprobe_ok)
			p->fs_try[p->nfs++] = HS_FS_KPROBE;
		p->fs_try[p->nfs++] = HS_FS_TP;
		break;
	}
	return 0;
}

int strat_plan(struct fss_tracer *t, struct strat_plan *p, char *err,
	       size_t errlen)
{
	int rc;

	memset(p, 0, sizeof(*p));
	p->blk_set = HS_BLOCK_BTF;
	rc = ensure_tracefs(err, errlen);
	if (!rc)
		rc = plan_fs(t, p, err, errlen);
	if (!rc)
		rc = strat_knobs(t, p, err, errlen);
	if (rc)
		return rc;
	p->nvme = has_tracepoint_btf("nvme_setup_cmd") &&
		  has_tracepoint_btf("nvme_complete_rq");
	/* every BTF question set_autoload() and the report ask, then free it */
	has_tracepoint_btf("block_io_start");
	has_tracepoint_btf("writeback_single_inode_start");
	has_tracepoint_btf("writeback_single_inode");
	has_tracepoint_btf("writeback_dirty_inode_enqueue");
	has_tracepoint_btf("block_bio_queue");
	has_tracepoint_btf("block_split");
	t->has_iouring = kernel_btf_has("io_uring_op", BTF_KIND_ENUM);
	for (int i = 0; i < p->nfs; i++)
		if (p->fs_try[i] == HS_FS_FENTRY) {
			kernel_btf_has("ext4_sync_file", BTF_KIND_FUNC);
			kernel_btf_has("xfs_file_fsync", BTF_KIND_FUNC);
			kernel_btf_has("btrfs_sync_file", BTF_KIND_FUNC);
		}
	free_vmlinux_btf();
	return 0;
}

/*
 * One filesystem hook set, with the plan's block and NVMe sets, then its
 * fallbacks: NVMe's programs left out first (so that a kernel refusing
 * only them keeps the block layer on tp_btf and NVMe gets the right
 * reason), then the block layer's raw_tp twins (they take the same
 * arguments) with NVMe, then without.  The plan is updated only by the
 * combination that loaded.
 */
static int load_fs_set(struct fss_tracer *t, struct strat_plan *p,
		       enum hookset fs_set)
{
	/* tp_btf, then raw_tp; within each, with NVMe then without */
	const enum hookset blk[] = { p->blk_set, HS_BLOCK_RAW };
	int nblk = p->blk_set == HS_BLOCK_RAW ? 1 : 2, rc = -EINVAL;

	for (int b = 0; b < nblk; b++) {
		for (int n = 0; n < (p->nvme ? 2 : 1); n++) {
			bool nvme = p->nvme && !n;

			rc = try_load(t, fs_set, blk[b], nvme);
			if (rc)
				continue;
			p->nvme_refused = p->nvme && !nvme;
			p->blk_set = blk[b];
			p->nvme = nvme;
			return 0;
		}
	}
	return rc;
}

int strat_load(struct fss_tracer *t, struct strat_plan *p, char *err,
	       size_t errlen)
{
	int rc = 0;

	for (int i = 0; i < p->nfs; i++) {
		rc = load_fs_set(t, p, p->fs_try[i]);
		if (!rc) {
			t->layer_set[L_FS] = p->fs_try[i];
			break;
		}
		if (t->opts.verbose)
			fprintf(stderr, "fsyncscope: %s hook set did not load: %s\n",
				hookset_names[p->fs_try[i]], strerror(-rc));
	}
	if (rc) {
		if (t->opts.strategy == FSS_STRAT_FENTRY ||
		    t->opts.strategy == FSS_STRAT_KPROBE)
			snprintf(err, errlen, "strategy %s: BPF programs failed to load: %s",
				 hookset_names[p->fs_try[0]], strerror(-rc));
		else
			snprintf(err, errlen, "BPF programs failed to load: %s (run with -vv for the verifier log)",
				 strerror(-rc));
	}
	return rc;
}

/* The filesystem layer: the loaded set, else (auto) the tracepoints. */
static int attach_fs(struct fss_tracer *t, char *err, size_t errlen)
{
	int rc, n;

	rc = strat_attach_set(t, L_FS, t->layer_set[L_FS], &n);
	if ((rc || n == 0) && t->layer_set[L_FS] != HS_FS_TP) {
		strat_detach_set(t, L_FS, t->layer_set[L_FS]);
		if (t->opts.strategy != FSS_STRAT_AUTO) {
			snprintf(err, errlen, "strategy %s: no filesystem hook could be attached",
				 hookset_names[t->layer_set[L_FS]]);
			return -ENOENT;
		}
		t->layer_set[L_FS] = HS_FS_TP;
		rc = strat_attach_set(t, L_FS, HS_FS_TP, &n);
	}
	t->layer_ok[L_FS] = !rc && n > 0;
	if (t->layer_ok[L_FS])
		snprintf(t->layer_desc[L_FS], sizeof(t->layer_desc[L_FS]), "%s (%d hooks)",
			 hookset_names[t->layer_set[L_FS]], n);
	else
		snprintf(t->layer_desc[L_FS], sizeof(t->layer_desc[L_FS]),
			 "n/a: no filesystem fsync hook could be attached");
	return 0;
}

/* The journal layer is optional: what is missing is said, not fatal. */
static void attach_journal(struct fss_tracer *t)
{
	/* jbd2's programs are left out without its BTF (set_autoload) */
	bool jbd2 = jbd2_ctx_ok("tp_jbd2_start_commit");
	int rc, n;

	rc = strat_attach_set(t, L_JOURNAL, HS_JOURNAL_TP, &n);
	t->layer_ok[L_JOURNAL] = !rc && n > 0;
	if (t->layer_ok[L_JOURNAL])
		snprintf(t->layer_desc[L_JOURNAL], sizeof(t->layer_desc[L_JOURNAL]),
			 "tracepoint (jbd2, xfs log; %d hooks)", n);
	else
		snprintf(t->layer_desc[L_JOURNAL],
			 sizeof(t->layer_desc[L_JOURNAL]),
			 "n/a: no jbd2 or xfs log tracepoint could be "
			 "attached%s", jbd2 ? "" : " (jbd2 is in no BTF of "
			 "this kernel: its module is not loaded)");
}

/* So is NVMe (nvme: its tracepoints are in this kernel's BTF). */
static void attach_nvme(struct fss_tracer *t, bool nvme, bool refused)
{
	int rc, n;

	if (nvme) {
		rc = strat_attach_set(t, L_NVME, HS_NVME_BTF, &n);
		t->layer_ok[L_NVME] = !rc && n == 2;
	}
	if (t->layer_ok[L_NVME])
		snprintf(t->layer_desc[L_NVME], sizeof(t->layer_desc[L_NVME]), "tp_btf (nvme_core)");
	else
		snprintf(t->layer_desc[L_NVME], sizeof(t->layer_desc[L_NVME]),
			 "n/a: %s", nvme ? "nvme tracepoints did not attach" :
			 refused ? "its programs did not load (run with -vv "
			 "for the verifier log); the others did without them" :
			 "no nvme_core tracepoints in this kernel's BTF (no NVMe driver loaded)");
}

/* Blame's programs: optional, each on its own (docs/blame.md). */
static void attach_blame(struct fss_tracer *t)
{
	char missing[96] = "", od_buf[160];
	size_t m = 0;
	int n = 0, od = 0;

	if (!t->blame_on)
		return;
	strat_attach_set(t, L_JOURNAL, HS_BLAME, &n);
	for (int i = 0; i < t->nprogs; i++) {
		struct prog_info *pi = &t->progs[i];

		if (pi->set == HS_BLAME && !pi->link && m < sizeof(missing) &&
		    bpf_program__autoload(pi->prog))
			m += snprintf(missing + m, sizeof(missing) - m, " %s",
				      bpf_program__name(pi->prog) + 6);
	}
	if (!n) {
		t->blame_on = false;
		snprintf(t->blame_desc, sizeof(t->blame_desc),
			 "n/a: no blame hook could be attached");
		return;
	}
	if (t->skel->rodata->kp_fr)
		od = snprintf(od_buf, sizeof(od_buf), "on demand (--painter "
			      "kernel): the syncs %s, from a flight recorder "
			      "of the last %d requests; ",
			      t->opts.blame_slower_set ? "at or above --slower" :
			      "above the running p99 of their kind",
			      FSS_FR_SLOTS);
	snprintf(t->blame_desc, sizeof(t->blame_desc), "%s%d hooks%s%s%s%s",
		 od ? od_buf : "", n,
		 t->skel->rodata->kp_fr ? ", submitters in the flight recorder" :
		 blame_by_bio() ? ", submitters from bios (no block_io_start)" :
		 t->skel->rodata->blame_in_rq ?
		 ", submitters in the block_io_start records" : "",
		 blame_xfs_ok() ? "" :
		 ", xfs log n/a (its tracepoints are not in the kernel's BTF:"
		 " xfs not built in, and its module not loaded)",
		 m ? "; not attached:" : "", missing);
}

int strat_attach(struct fss_tracer *t, const struct strat_plan *p, char *err,
		 size_t errlen)
{
	int rc, n;

	t->layer_set[L_SYNC] = HS_SYSCALL_TP;
	t->layer_set[L_JOURNAL] = HS_JOURNAL_TP;
	t->layer_set[L_BLOCK] = p->blk_set;
	t->layer_set[L_NVME] = HS_NVME_BTF;

	rc = strat_attach_set(t, L_SYNC, HS_SYSCALL_TP, &n);
	if (rc) {
		snprintf(err, errlen, "cannot attach the sync tracepoints: %s", strerror(-rc));
		return rc;
	}
	t->layer_ok[L_SYNC] = true;
	snprintf(t->layer_desc[L_SYNC], sizeof(t->layer_desc[L_SYNC]),
		 "tracepoint (syscalls, %d hooks)", n);

	rc = attach_fs(t, err, errlen);
	if (rc)
		return rc;

	attach_journal(t);
	attach_blame(t);

	rc = strat_attach_set(t, L_BLOCK, p->blk_set, &n);
	if (rc) {
		snprintf(err, errlen, "cannot attach the block request tracepoints: %s", strerror(-rc));
		return rc;
	}
	t->layer_ok[L_BLOCK] = true;
	snprintf(t->layer_desc[L_BLOCK], sizeof(t->layer_desc[L_BLOCK]), "%s (%d hooks%s)",
		 hookset_names[p->blk_set], n,
		 has_tracepoint_btf("block_io_start") ? "" : "; no block_io_start: queue time from inserts only");

	attach_nvme(t, p->nvme, p->nvme_refused);
	return 0;
}
