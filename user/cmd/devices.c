// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * devices.c - `fsyncscope devices [PATH|DEV]`: the block device facts that
 * decide what a sync costs (write cache, FUA, NVMe volatile write cache,
 * block sizes, scheduler), for every device, for one device, or for the
 * devices under a path (partition -> disk, loop -> backing file -> the
 * device below, dm/md -> members).  Reads sysfs and mountinfo only (plus
 * two NVMe admin commands); needs neither BPF nor root.  `--probe PATH`
 * adds a short traced fdatasync run in PATH (root) and a verdict that
 * rests on the measured flushes.
 */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "sys/devinfo.h"
#include "doc/doc.h"
#include "render/render.h"
#include "workload/suite.h"
#include "sys/preflight.h"
#include "sys/verdict.h"
#include "workload/workload.h"

#define PROG "fsyncscope devices"
#define MAX_CHAIN 32	/* devices shown for one PATH/DEV */
#define MAX_DEPTH 8	/* loop-on-loop / stacking depth followed */
#define PROBE_SECONDS 2.0
#define PROBE_FILE_SIZE (1ULL << 20)

static struct {
	bool json;
	const char *arg;
	const char *probe;	/* --probe PATH */
	double seconds;
	bool seconds_set;
	__u64 count;
	int verbose;
	const char *output;	/* -o FILE */
	const char *save;	/* --save FILE: the document, as JSON */
} env;

static const char doc[] =
"Show the block device facts that decide what a sync costs: volatile write\n"
"cache (write back / write through), FUA, NVMe volatile write cache, logical\n"
"and physical block size, scheduler, nr_requests, discard, model.\n"
"\n"
"With no argument: every block device (size 0 devices are left out).\n"
"With a PATH: the filesystem under PATH and its devices: partition -> disk,\n"
"loop device -> backing file -> the device under it, dm/md -> members.\n"
"With a DEV (/dev node or kernel name like nvme0n1): that device.\n"
"Reads sysfs and /proc/self/mountinfo; no BPF, no root needed (the NVMe\n"
"Get Features command for 'VWC enabled' needs root).\n"
"\n"
"--probe PATH does the same for the directory PATH, then times a short\n"
"traced fdatasync run there (8 KiB overwrites of a temporary file, 2 s or\n"
"--count syncs) and gives the verdict with the measured flushes. It needs\n"
"root (BPF) and writes only its own temporary file, removed at exit.\n"
"\v"
"EXAMPLES:\n"
"  fsyncscope devices                      # every block device\n"
"  fsyncscope devices /var/lib/postgresql  # the devices under a directory\n"
"  fsyncscope devices /dev/nvme0n1         # one device\n"
"  fsyncscope devices --json loop0         # JSON, by kernel name\n"
"  fsyncscope devices --probe /var/lib/postgresql   # measured verdict\n"
"  fsyncscope devices --probe /mnt/db --count 500 --json\n";

enum { OPT_PROBE = 0x100, OPT_FORMAT, OPT_SAVE };	/* long only: -p is --pid in trace */

static const struct argp_option opts[] = {
	{ "json", 'j', NULL, 0, "JSON output", 0 },
	{ "format", OPT_FORMAT, "FMT", 0, "text (default) or json (= -j)", 0 },
	{ "output", 'o', "FILE", 0, "Write to FILE (whole or not at all) instead "
	  "of stdout", 0 },
	{ "save", OPT_SAVE, "FILE", 0, "Also save the result document (JSON) to "
	  "FILE, whatever --format prints: 'fsyncscope report FILE' renders "
	  "it again", 0 },
	{ "probe", OPT_PROBE, "PATH", 0, "Time fdatasync in the directory PATH and give "
	  "the verdict with measured flushes (root)", 0 },
	{ "seconds", 's', "SECS", 0, "--probe: run SECS seconds (default 2)", 0 },
	{ "count", 'n', "N", 0, "--probe: run N syncs instead", 0 },
	{ "verbose", 'v', NULL, 0, "--probe: tracer strategy and progress on stderr", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	unsigned long long v;

	switch (key) {
	case 'j':
		env.json = true;
		break;
	case OPT_FORMAT:
		if (strcmp(arg, "text") && strcmp(arg, "json")) {
			argp_error(state, "--format '%s': text or json (devices has no "
				   "HTML or CSV rendering)", arg);
			return EINVAL;
		}
		env.json = !strcmp(arg, "json");
		break;
	case 'o':
		return fss_cli_out_arg(state, "-o", arg, &env.output);
	case OPT_SAVE:
		return fss_cli_out_arg(state, "--save", arg, &env.save);
	case OPT_PROBE:
		if (!arg[0]) {
			argp_error(state, "empty --probe PATH");
			return EINVAL;
		}
		env.probe = arg;
		break;
	case 's':
		if (fss_parse_seconds(arg, 3600, &env.seconds)) {
			argp_error(state, "bad -s '%s': seconds, more than 0 and "
				   "at most 3600 (e.g. 0.5, 30)", arg);
			return EINVAL;
		}
		env.seconds_set = true;
		break;
	case 'n':
		if (fss_parse_uint(arg, 10000000, &v)) {
			argp_error(state, "bad --count '%s': 1 to 10000000", arg);
			return EINVAL;
		}
		env.count = v;
		break;
	case 'v':
		env.verbose++;
		break;
	case ARGP_KEY_ARG:
		if (env.arg) {
			argp_error(state, "one PATH or DEV at most (got '%s' and '%s')",
				   env.arg, arg);
			return EINVAL;
		}
		env.arg = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = {
	.options = opts,
	.parser = parse_arg,
	.args_doc = "[PATH|DEV]",
	.doc = doc,
};

struct chain {
	struct fss_devinfo dev[MAX_CHAIN];
	/* for loop devices: the filesystem the backing file lives on */
	struct fss_target backing[MAX_CHAIN];
	int backing_err[MAX_CHAIN];	/* 0 ok, -errno, 1 not a loop device */
	int n;
};

static bool in_chain(const struct chain *c, const char *name)
{
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->dev[i].name, name))
			return true;
	return false;
}

/*
 * Add a device and what it stands on.  The first device's read error is
 * returned; later ones (a member that vanished...) are skipped.
 */
static int add_chain(struct chain *c, const char *name, int depth)
{
	struct fss_devinfo *d;
	int i, err;

	if (depth > MAX_DEPTH || c->n >= MAX_CHAIN || in_chain(c, name))
		return 0;
	i = c->n;
	d = &c->dev[i];
	err = fss_devinfo_read(name, d);
	if (err)
		return err;
	c->backing_err[i] = 1;
	c->n++;
	if (d->is_partition && d->parent[0])
		add_chain(c, d->parent, depth + 1);
	for (int m = 0; m < d->nr_members; m++)
		add_chain(c, d->members[m], depth + 1);
	if (d->loop_backing[0]) {
		c->backing_err[i] = fss_target_lookup(d->loop_backing,
						      &c->backing[i]);
		if (!c->backing_err[i] && c->backing[i].has_disk &&
		    c->backing[i].fs_blkdev[0])
			add_chain(c, c->backing[i].fs_blkdev, depth + 1);
	}
	return 0;
}

/*
 * A facts-only verdict (nothing measured) for the first device of the chain,
 * taken as a whole disk: a partition's facts are its disk's.
 */
static void chain_verdict(const struct chain *c, struct fss_verdict *v)
{
	const struct fss_devinfo *d = &c->dev[0];
	struct fss_verdict_in in;

	for (int i = 1; i < c->n && d->is_partition; i++)
		if (!strcmp(c->dev[i].name, c->dev[0].parent))
			d = &c->dev[i];
	memset(&in, 0, sizeof(in));
	in.dev_name = d->name;
	in.write_cache = d->write_cache;
	in.fua = d->fua;
	in.nvme_vwc_present = d->nvme_vwc_present;
	in.nvme_vwc_enabled = d->nvme_vwc_enabled;
	in.is_loop = d->loop_backing[0] != '\0';
	in.loop_backing = d->loop_backing;
	in.flush_p50_us = -1;
	in.sync_p50_us = -1;
	fss_verdict_compute(&in, v);
}

static struct json_object *chain_json(const struct chain *c)
{
	struct json_object *arr = json_object_new_array();

	for (int i = 0; i < c->n; i++) {
		struct json_object *o = fss_devinfo_json(&c->dev[i]);

		if (c->backing_err[i] == 0)
			json_object_object_add(o, "backing_target",
					       fss_target_json(&c->backing[i]));
		else if (c->backing_err[i] < 0)
			json_object_object_add(o, "backing_target_error",
				json_object_new_string(strerror(-c->backing_err[i])));
		json_object_array_add(arr, o);
	}
	return arr;
}

static int emit_json(struct json_object *root)
{
	const char *s = json_object_to_json_string_ext(root,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);

	printf("%s\n", s);
	json_object_put(root);
	return 0;
}

/*
 * The document as JSON, or its plain text (out_text_devices.c), and with
 * --save as JSON to that file too; puts it.
 */
static int emit(struct json_object *root)
{
	char err[256];
	int rc = 0;

	fss_doc_stamp(root, "devices");
	if (env.save && fss_emit(json_object_get(root), FSS_FMT_JSON, env.save,
				 NULL))
		rc = 1;
	if (env.json)
		return emit_json(root) || rc;
	if (fss_text_devices(stdout, root, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		rc = 1;
	}
	json_object_put(root);
	return rc;
}

static int show_all(void)
{
	struct fss_devinfo *d;
	int n, err;

	err = fss_devinfo_list(&d, &n);
	if (err) {
		fprintf(stderr, PROG ": cannot list block devices in sysfs: %s\n",
			strerror(-err));
		return 1;
	}
	{
		struct json_object *root = json_object_new_object();
		struct json_object *arr = json_object_new_array();

		for (int i = 0; i < n; i++)
			json_object_array_add(arr, fss_devinfo_json(&d[i]));
		json_object_object_add(root, "devices", arr);
		free(d);
		return emit(root);
	}
}

static int show_dev(const char *arg)
{
	struct chain *c = calloc(1, sizeof(*c));
	struct fss_verdict v;
	int err;

	if (!c) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	err = add_chain(c, arg, 0);
	if (err) {
		fprintf(stderr, PROG ": %s: %s\n", arg,
			err == -ENODEV ? "no such block device" : strerror(-err));
		free(c);
		return 1;
	}
	chain_verdict(c, &v);
	{
		struct json_object *root = json_object_new_object();

		json_object_object_add(root, "devices", chain_json(c));
		json_object_object_add(root, "verdict", fss_verdict_json(&v));
		free(c);
		return emit(root);
	}
}

static int show_path(const char *arg)
{
	struct chain *c = calloc(1, sizeof(*c));
	struct fss_verdict v;
	struct fss_target t;
	int err;

	if (!c) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	err = fss_target_lookup(arg, &t);
	if (err) {
		fprintf(stderr, PROG ": %s: %s\n", arg, strerror(-err));
		free(c);
		return 1;
	}
	if (t.has_disk && t.fs_blkdev[0]) {
		err = add_chain(c, t.fs_blkdev, 0);
		if (err) {
			fprintf(stderr, PROG ": %s: device %s: %s\n", arg,
				t.fs_blkdev, strerror(-err));
			free(c);
			return 1;
		}
		chain_verdict(c, &v);
	}
	{
		struct json_object *root = json_object_new_object();

		json_object_object_add(root, "target", fss_target_json(&t));
		json_object_object_add(root, "devices", chain_json(c));
		json_object_object_add(root, "verdict",
				       c->n ? fss_verdict_json(&v) : NULL);
		free(c);
		return emit(root);
	}
}

/* ---- --probe ---------------------------------------------------------- */

/*
 * Everything about PATH that can be checked before anything runs or is
 * printed: root, a directory, on a block device, writable with room for
 * the probe's file.  0, or 1 after one line on stderr.
 */
static int probe_check(const char *path, struct fss_target *t)
{
	char err[PATH_MAX + 256], sz[32], what[64];
	struct stat st;
	int rc;

	if (geteuid() != 0) {
		fprintf(stderr, PROG ": --probe needs root (it traces the syncs "
			"with BPF); '" PROG " PATH' shows the facts without it\n");
		return 1;
	}
	if (stat(path, &st)) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, PROG ": --probe %s: not a directory (the probe "
			"writes a temporary file in a directory on the "
			"filesystem to test)\n", path);
		return 1;
	}
	rc = fss_target_lookup(path, t);
	if (rc) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(-rc));
		return 1;
	}
	if (!t->has_disk || !t->disk[0] || !t->fs_blkdev[0]) {
		fprintf(stderr, PROG ": --probe %s: %s is not on a block device; "
			"there is no device to probe\n", path,
			t->fstype[0] ? t->fstype : "the filesystem");
		return 1;
	}
	fss_preflight_size(sz, sizeof(sz), PROBE_FILE_SIZE);
	snprintf(what, sizeof(what), "one %s file", sz);
	if (fss_preflight_dir(path, "--probe", err, sizeof(err)) ||
	    fss_preflight_space(path, PROBE_FILE_SIZE, what, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	return 0;
}

/*
 * The devices under the target (c) and its whole disk (disk; all unknown
 * when unreadable).  0, or 1 after one line on stderr.
 */
static int probe_devices(const char *path, const struct fss_target *t,
			 struct chain *c, struct fss_devinfo *disk)
{
	int rc = add_chain(c, t->fs_blkdev, 0);

	if (rc) {
		fprintf(stderr, PROG ": %s: device %s: %s\n", path, t->fs_blkdev,
			strerror(-rc));
		return 1;
	}
	if (fss_devinfo_read(t->disk, disk)) {
		snprintf(disk->name, sizeof(disk->name), "%s", t->disk);
		disk->write_cache = disk->fua = -1;
		disk->nvme_vwc_present = disk->nvme_vwc_enabled = -1;
	}
	return 0;
}

/* The probe: one traced fdatasync test, run's engine. */
static void probe_test_init(struct fss_run_test *test)
{
	memset(test, 0, sizeof(*test));
	snprintf(test->name, sizeof(test->name), "probe.fdatasync");
	snprintf(test->label, sizeof(test->label), "fdatasync");
	test->section = "probe";
	test->spec = (struct fss_wl_spec){
		.method = FSS_M_FDATASYNC,
		.shape = FSS_SHAPE_WRITE_SYNC,
		.pattern = FSS_PAT_OVERWRITE,
		.bs = 8192,
		.writes_per_sync = 1,
		.jobs = 1,
		.file_size = PROBE_FILE_SIZE,
		.seconds = env.seconds,
		.count = env.count,
	};
}

/*
 * The probe's document (docs/devices.md): target, devices, probe (what
 * ran, its test, strategy, drops), verdict.  Takes out->strategy.
 */
static struct json_object *probe_doc(const struct fss_target *t,
				     const struct chain *c,
				     const struct fss_devinfo *disk,
				     const struct fss_run_test *test,
				     struct fss_run_out *out)
{
	struct json_object *root = json_object_new_object();
	struct json_object *pr = json_object_new_object();
	struct fss_verdict v;
	char secs[32];
	int idx = fss_run_verdict_test(test, 1);

	fss_run_verdict(disk, "probe longer (a larger -s or --count)", test,
			idx, &v);
	/* seconds as the text says them ("%g"), so the two agree */
	snprintf(secs, sizeof(secs), "%g", env.seconds);
	json_object_object_add(root, "target", fss_target_json(t));
	json_object_object_add(root, "devices", chain_json(c));
	json_object_object_add(pr, "path", json_object_new_string(t->path));
	json_object_object_add(pr, "seconds", env.count ? NULL :
			       json_object_new_double_s(strtod(secs, NULL), secs));
	json_object_object_add(pr, "count", env.count ?
			       json_object_new_int64((int64_t)env.count) : NULL);
	json_object_object_add(pr, "test", fss_run_test_json(test,
							     disk->write_cache));
	json_object_object_add(pr, "strategy", out->strategy);
	json_object_object_add(pr, "drops", json_object_new_uint64(out->drops));
	out->strategy = NULL;
	json_object_object_add(root, "probe", pr);
	json_object_object_add(root, "verdict",
			       fss_run_verdict_json(&v, disk, test, idx));
	json_object_object_add(root, "interrupted", fss_run_interrupted_json());
	return root;
}

/* Run the probe: 0, 1 after one line on stderr, or 128 + signal. */
static int probe_run(const char *path, struct fss_run_test *test,
		     struct fss_run_out *out)
{
	struct fss_run_cfg cfg = {
		.dir = path, .trace = true, .strategy = FSS_STRAT_AUTO,
		.verbose = env.verbose,
	};
	struct fss_run_sigs sigs;
	char err[PATH_MAX + 256];
	int rc;

	probe_test_init(test);
	fss_run_signals_catch(&sigs);
	rc = fss_run_tests(&cfg, test, 1, out, err, sizeof(err));
	fss_run_signals_restore(&sigs);
	if (rc && !(rc == -EINTR && fss_wl_stop)) {
		fprintf(stderr, "fsyncscope: %s\n", err);
		return 1;
	}
	if (rc == -EINTR && !test->ran) {
		fprintf(stderr, PROG ": stopped by %s before the probe measured "
			"anything\n", fss_run_sig_name(fss_wl_stop));
		return 128 + fss_wl_stop;
	}
	return 0;
}

static int show_probe(const char *path)
{
	struct fss_run_test test = { 0 };
	struct fss_run_out out = { 0 };
	struct fss_devinfo *disk = NULL;
	struct chain *c = NULL;
	struct fss_target t;
	int ret = 1;

	if (probe_check(path, &t))
		return 1;
	c = calloc(1, sizeof(*c));
	disk = calloc(1, sizeof(*disk));
	if (!c || !disk) {
		fprintf(stderr, PROG ": out of memory\n");
		goto out;
	}
	if (probe_devices(path, &t, c, disk))
		goto out;
	ret = probe_run(path, &test, &out);
	if (ret)
		goto out;
	/* the document, printed as JSON or as text (out_text_devices.c) */
	ret = emit(probe_doc(&t, c, disk, &test, &out));
	fflush(stdout);
	if (out.drops)
		fprintf(stderr, PROG ": warning: %llu events lost; the syncs "
			"near them were summarized, not painted\n",
			(unsigned long long)out.drops);
	if (!ret && fss_wl_stop) {
		fprintf(stderr, PROG ": stopped by %s; the probe above is "
			"partial\n", fss_run_sig_name(fss_wl_stop));
		ret = 128 + fss_wl_stop;
	}
out:
	fss_run_tests_free(&test, 1);
	json_object_put(out.strategy);
	free(disk);
	free(c);
	return ret;
}

static int devices_run(void);

int cmd_devices(int argc, char **argv)
{
	int rc;

	memset(&env, 0, sizeof(env));
	env.seconds = PROBE_SECONDS;
	if (fss_cli_parse(&argp, argc, argv, NULL, PROG, &rc))
		return rc;
	if (!env.probe && (env.seconds_set || env.count || env.verbose))
		return fss_cli_usage_error(PROG, "-s, --count and -v apply to "
					   "--probe only");
	if (env.probe) {
		if (env.arg) {
			fprintf(stderr, PROG ": --probe PATH takes no other PATH "
				"or DEV (got '%s') (try '" PROG " --help')\n",
				env.arg);
			return 2;
		}
		if (env.seconds_set && env.count)
			return fss_cli_usage_error(PROG, "use either -s or "
						   "--count, not both");
	}
	/* -o: stdout itself goes to FILE, renamed over it at the end */
	if (env.output && fss_stdout_to_begin(env.output))
		return 1;
	rc = devices_run();
	if (fss_stdout_to_end(rc == 0 || rc > 128) && !rc)
		rc = 1;
	return rc;
}

static int devices_run(void)
{
	struct stat st;
	int err;

	if (env.probe)
		return show_probe(env.probe);
	if (!env.arg)
		return show_all();
	if (!env.arg[0])
		return fss_cli_usage_error(PROG, "empty PATH or DEV");
	if (!stat(env.arg, &st)) {
		if (S_ISBLK(st.st_mode))
			return show_dev(env.arg);
		return show_path(env.arg);
	}
	err = errno;
	/* a kernel name such as "nvme0n1" that is not a file here */
	if (!strchr(env.arg, '/')) {
		struct fss_devinfo d;

		if (fss_devinfo_read(env.arg, &d) != -ENODEV)
			return show_dev(env.arg);
		fprintf(stderr, PROG ": %s: no such file or block device\n",
			env.arg);
		return 1;
	}
	fprintf(stderr, PROG ": %s: %s\n", env.arg, strerror(err));
	return 1;
}
