// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * devices.c - `fsyncscope devices [PATH|DEV]`: the block device facts that
 * decide what a sync costs (write cache, FUA, NVMe volatile write cache,
 * block sizes, scheduler), for every device, for one device, or for the
 * devices under a path (partition -> disk, loop -> backing file -> the
 * device below, dm/md -> members).  Reads sysfs and mountinfo only (plus
 * two NVMe admin commands); needs neither BPF nor root.
 */
#include <argp.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "commands.h"
#include "devinfo.h"
#include "verdict.h"

#define PROG "fsyncscope devices"
#define MAX_CHAIN 32	/* devices shown for one PATH/DEV */
#define MAX_DEPTH 8	/* loop-on-loop / stacking depth followed */

static struct {
	bool json;
	const char *arg;
	bool help, usage;
	bool reported;	/* the parser already printed its error line */
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
"\v"
"EXAMPLES:\n"
"  fsyncscope devices                      # every block device\n"
"  fsyncscope devices /var/lib/postgresql  # the devices under a directory\n"
"  fsyncscope devices /dev/nvme0n1         # one device\n"
"  fsyncscope devices --json loop0         # JSON, by kernel name\n";

static const struct argp_option opts[] = {
	{ "json", 'j', NULL, 0, "JSON output", 0 },
	{ "help", 'h', NULL, 0, "Show this help", -1 },
	{ "usage", 'u', NULL, 0, "Show a short usage message", -1 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'j':
		env.json = true;
		break;
	case 'h':
		env.help = true;
		break;
	case 'u':
		env.usage = true;
		break;
	case ARGP_KEY_ARG:
		if (env.arg) {
			fprintf(stderr, PROG ": one PATH or DEV at most (got '%s' "
				"and '%s')\n", env.arg, arg);
			env.reported = true;
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

/* The first argument argp would reject as an unknown option, for the message. */
static const char *unknown_option(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--"))
			break;
		if (a[0] != '-' || !a[1])
			continue;
		if (a[1] == '-') {
			size_t n = strcspn(a + 2, "=");

			if (!((n == 4 && !strncmp(a + 2, "json", 4)) ||
			      (n == 4 && !strncmp(a + 2, "help", 4)) ||
			      (n == 5 && !strncmp(a + 2, "usage", 5))))
				return a;
			continue;
		}
		if (strspn(a + 1, "jhu") != strlen(a + 1))
			return a;
	}
	return NULL;
}

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

static void print_backing_plain(const struct chain *c)
{
	for (int i = 0; i < c->n; i++) {
		if (c->backing_err[i] == 1)
			continue;
		printf("\nbacking file of %s:\n", c->dev[i].name);
		if (c->backing_err[i])
			printf("path        %s\n"
			       "            not reachable from here: %s\n",
			       c->dev[i].loop_backing, strerror(-c->backing_err[i]));
		else
			fss_target_print(stdout, &c->backing[i]);
	}
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
	if (env.json) {
		struct json_object *root = json_object_new_object();
		struct json_object *arr = json_object_new_array();

		for (int i = 0; i < n; i++)
			json_object_array_add(arr, fss_devinfo_json(&d[i]));
		json_object_object_add(root, "devices", arr);
		emit_json(root);
	} else {
		fss_devinfo_print_table(stdout, d, n);
	}
	free(d);
	return 0;
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
	if (env.json) {
		struct json_object *root = json_object_new_object();

		json_object_object_add(root, "devices", chain_json(c));
		json_object_object_add(root, "verdict", fss_verdict_json(&v));
		emit_json(root);
	} else {
		fss_devinfo_print_table(stdout, c->dev, c->n);
		print_backing_plain(c);
		putchar('\n');
		fss_verdict_print(stdout, &v);
	}
	free(c);
	return 0;
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
	if (env.json) {
		struct json_object *root = json_object_new_object();

		json_object_object_add(root, "target", fss_target_json(&t));
		json_object_object_add(root, "devices", chain_json(c));
		json_object_object_add(root, "verdict",
				       c->n ? fss_verdict_json(&v) : NULL);
		emit_json(root);
	} else {
		fss_target_print(stdout, &t);
		if (c->n) {
			putchar('\n');
			fss_devinfo_print_table(stdout, c->dev, c->n);
			print_backing_plain(c);
			putchar('\n');
			fss_verdict_print(stdout, &v);
		}
	}
	free(c);
	return 0;
}

int cmd_devices(int argc, char **argv)
{
	char *name = PROG;
	struct stat st;
	int err;

	memset(&env, 0, sizeof(env));
	argv[0] = name;
	/* argp's own messages take two lines: we print one ourselves */
	err = argp_parse(&argp, argc, argv, ARGP_NO_ERRS | ARGP_NO_HELP,
			 NULL, NULL);
	if (err) {
		const char *bad = unknown_option(argc, argv);

		if (bad)
			fprintf(stderr, PROG ": unknown option '%s' (try '"
				PROG " --help')\n", bad);
		else if (!env.reported)
			fprintf(stderr, PROG ": invalid arguments (try '"
				PROG " --help')\n");
		return 1;
	}
	if (env.help) {
		argp_help(&argp, stdout, ARGP_HELP_STD_HELP, name);
		return 0;
	}
	if (env.usage) {
		argp_help(&argp, stdout, ARGP_HELP_USAGE, name);
		return 0;
	}
	if (!env.arg)
		return show_all();
	if (!env.arg[0]) {
		fprintf(stderr, PROG ": empty PATH or DEV\n");
		return 1;
	}
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
