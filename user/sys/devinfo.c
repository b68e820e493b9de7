// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * devinfo.c - facts about block devices (sysfs, libnvme), and the JSON
 * and text of the filesystem under a path (found by sys/target.c).
 *
 * Everything here is read-only: sysfs attributes, /proc/self/mountinfo, and
 * for NVMe the Identify Controller and Get Features admin commands.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <libnvme.h>
#include "sys/devinfo.h"

/*
 * sysfs is read under $FSYNCSCOPE_SYSFS when it is set (a copied or made-up
 * tree, for tests of devices this machine does not have), else under /sys.
 */
const char *fss_sysfs_root(void)
{
	const char *r = getenv("FSYNCSCOPE_SYSFS");

	return r && *r ? r : "/sys";
}
#define COLS		80

__u32 fss_kdev_from_dev(dev_t dev)
{
	return fss_kdev(major(dev), minor(dev));
}

static unsigned int kdev_major(__u32 kdev)
{
	return kdev >> 20;
}

static unsigned int kdev_minor(__u32 kdev)
{
	return kdev & ((1u << 20) - 1);
}

/*
 * snprintf for paths and messages: 0, or -ENAMETOOLONG when the result was
 * cut (the buffer then holds the cut string).
 */
__attribute__((format(printf, 3, 4)))
static int fmt(char *buf, size_t len, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(buf, len, f, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* First line of a (sysfs) file without the newline.  0 or -errno. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		int err = ferror(f) ? -EIO : -ENODATA;

		fclose(f);
		buf[0] = '\0';
		return err;
	}
	fclose(f);
	n = strlen(buf);
	if (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return 0;
}

static int read_s64(const char *path, long long *v)
{
	char buf[64], *end;
	int err = read_line(path, buf, sizeof(buf));

	if (err)
		return err;
	errno = 0;
	*v = strtoll(buf, &end, 10);
	if (errno || end == buf)
		return -EINVAL;
	return 0;
}

/* An int attribute, or -1 when it cannot be read. */
static int sysfs_int(const char *dir, const char *attr)
{
	char path[PATH_MAX];
	long long v;

	fmt(path, sizeof(path), "%s/%s", dir, attr);
	if (read_s64(path, &v) || v < 0 || v > INT32_MAX)
		return -1;
	return (int)v;
}

static bool sysfs_exists(const char *dir, const char *attr)
{
	char path[PATH_MAX];

	fmt(path, sizeof(path), "%s/%s", dir, attr);
	return access(path, F_OK) == 0;
}

static void trim(char *s)
{
	size_t n = strlen(s), i = 0;

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (s[i] && isspace((unsigned char)s[i]))
		i++;
	if (i)
		memmove(s, s + i, n - i + 1);
}

/* Copy with truncation; dst always terminated. */
static void scopy(char *dst, size_t len, const char *src)
{
	size_t n = src ? strlen(src) : 0;

	if (n >= len)
		n = len - 1;
	memcpy(dst, src ? src : "", n);
	dst[n] = '\0';
}

/* "M:m" of a block device in sysfs -> kernel name via /sys/dev/block. */
static int name_of(unsigned int maj, unsigned int min, char *name, size_t len)
{
	char path[PATH_MAX], real[PATH_MAX];

	fmt(path, sizeof(path), "%s/dev/block/%u:%u", fss_sysfs_root(), maj, min);
	if (!realpath(path, real))
		return -errno;
	scopy(name, len, basename(real));
	return 0;
}

int fss_dev_name(__u32 kdev, char *name, size_t len)
{
	return name_of(kdev_major(kdev), kdev_minor(kdev), name, len);
}

static int parse_majmin(const char *dir, unsigned int *maj, unsigned int *min)
{
	char path[PATH_MAX], buf[32];
	int err;

	fmt(path, sizeof(path), "%s/dev", dir);
	err = read_line(path, buf, sizeof(buf));
	if (err)
		return err;
	if (sscanf(buf, "%u:%u", maj, min) != 2)
		return -EINVAL;
	return 0;
}

__u32 fss_disk_of(__u32 kdev)
{
	char dir[PATH_MAX], real[PATH_MAX];
	unsigned int maj, min;

	fmt(dir, sizeof(dir), "%s/dev/block/%u:%u", fss_sysfs_root(),
		 kdev_major(kdev), kdev_minor(kdev));
	if (access(dir, F_OK))
		return 0;
	if (!sysfs_exists(dir, "partition"))
		return kdev;
	/* a partition's sysfs dir sits inside its disk's */
	if (!realpath(dir, real))
		return 0;
	if (parse_majmin(dirname(real), &maj, &min))
		return 0;
	return fss_kdev(maj, min);
}

static bool is_nvme_namespace(const char *name)
{
	unsigned int a, b;
	int end = 0;

	return sscanf(name, "nvme%un%u%n", &a, &b, &end) == 2 && end > 0 &&
	       name[end] == '\0';
}

/*
 * NVMe Volatile Write Cache: Identify Controller VWC bit 0 says a volatile
 * cache is present; Get Features 0x06 bit 0 says it is enabled.  The kernel
 * lets unprivileged users send Identify (if they can open the device) but
 * Get Features needs CAP_SYS_ADMIN.
 */
static void nvme_facts(struct fss_devinfo *d, const char *disk)
{
	struct nvme_id_ctrl id;
	__u32 result = 0;
	int fd, err;

	d->nvme = true;
	fd = nvme_open(disk);
	if (fd < 0) {
		int e = errno;

		fmt(d->nvme_reason, sizeof(d->nvme_reason),
			 "open /dev/%s: %s%s", disk, strerror(e),
			 e == EACCES || e == EPERM ? " (needs root)" : "");
		return;
	}
	memset(&id, 0, sizeof(id));
	err = nvme_identify_ctrl(fd, &id);
	if (err < 0) {
		fmt(d->nvme_reason, sizeof(d->nvme_reason),
			 "Identify Controller: %s", strerror(errno));
		goto out;
	} else if (err > 0) {
		fmt(d->nvme_reason, sizeof(d->nvme_reason),
			 "Identify Controller: NVMe status %#x (%s)", err,
			 nvme_status_to_string(err, false));
		goto out;
	}
	d->nvme_vwc_present = (id.vwc & NVME_CTRL_VWC_PRESENT) ? 1 : 0;
	if (!d->nvme_vwc_present) {
		fmt(d->nvme_reason, sizeof(d->nvme_reason),
			 "no volatile write cache: feature 0x06 does not apply");
		goto out;
	}
	err = nvme_get_features_volatile_wc(fd, NVME_GET_FEATURES_SEL_CURRENT,
					    &result);
	if (err < 0) {
		int e = errno;

		fmt(d->nvme_reason, sizeof(d->nvme_reason),
			 "Get Features 0x06: %s%s", strerror(e),
			 e == EACCES || e == EPERM ? " (needs root)" : "");
	} else if (err > 0) {
		fmt(d->nvme_reason, sizeof(d->nvme_reason),
			 "Get Features 0x06: NVMe status %#x (%s)", err,
			 nvme_status_to_string(err, false));
	} else {
		d->nvme_vwc_enabled = (result & 1) ? 1 : 0;
	}
out:
	close(fd);
}

static int cmp_member(const void *a, const void *b)
{
	return strverscmp((const char *)a, (const char *)b);
}

static void read_members(struct fss_devinfo *d, const char *dir)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dp;

	fmt(path, sizeof(path), "%s/slaves", dir);
	dp = opendir(path);
	if (!dp)
		return;
	while ((de = readdir(dp)) && d->nr_members < FSS_MAX_MEMBERS) {
		if (de->d_name[0] == '.')
			continue;
		scopy(d->members[d->nr_members++], sizeof(d->members[0]),
		      de->d_name);
	}
	closedir(dp);
	qsort(d->members, d->nr_members, sizeof(d->members[0]), cmp_member);
}

/* Kernel name of a block device given as "sda", "/dev/sda", "/dev/mapper/x". */
static int resolve_name(const char *arg, char *name, size_t len)
{
	char dir[PATH_MAX];
	struct stat st;

	if (!arg || !*arg)
		return -EINVAL;
	if (strchr(arg, '/')) {
		if (stat(arg, &st))
			return -errno;
		if (!S_ISBLK(st.st_mode))
			return -ENOTBLK;
		return name_of(major(st.st_rdev), minor(st.st_rdev), name, len);
	}
	if (strlen(arg) >= len)
		return -ENAMETOOLONG;
	fmt(dir, sizeof(dir), "%s/class/block/%s", fss_sysfs_root(), arg);
	if (access(dir, F_OK))
		return -ENODEV;
	scopy(name, len, arg);
	return 0;
}

int fss_devinfo_read(const char *arg, struct fss_devinfo *d)
{
	char dir[PATH_MAX], qdir[PATH_MAX], path[PATH_MAX + 32], buf[256];
	char real[PATH_MAX];
	long long v;
	int err;

	memset(d, 0, sizeof(*d));
	d->rotational = d->nr_requests = d->queue_depth = -1;
	d->logical_block_size = d->physical_block_size = -1;
	d->write_cache = d->fua = -1;
	d->nvme_vwc_present = d->nvme_vwc_enabled = -1;

	err = resolve_name(arg, d->name, sizeof(d->name));
	if (err)
		return err;
	fmt(dir, sizeof(dir), "%s/class/block/%s", fss_sysfs_root(), d->name);
	err = parse_majmin(dir, &d->major, &d->minor);
	if (err)
		return err;

	/* a partition has no queue/ of its own: the queue is its disk's */
	scopy(qdir, sizeof(qdir), dir);
	if (sysfs_exists(dir, "partition")) {
		d->is_partition = true;
		if (realpath(dir, real)) {
			scopy(d->parent, sizeof(d->parent), basename(dirname(real)));
			fmt(qdir, sizeof(qdir), "%s/class/block/%s", fss_sysfs_root(), d->parent);
		}
	}

	fmt(path, sizeof(path), "%s/size", dir);
	if (!read_s64(path, &v) && v >= 0)
		d->size_bytes = (__u64)v * 512;

	d->rotational = sysfs_int(qdir, "queue/rotational");
	d->nr_requests = sysfs_int(qdir, "queue/nr_requests");
	d->queue_depth = sysfs_int(qdir, "device/queue_depth");
	d->logical_block_size = sysfs_int(qdir, "queue/logical_block_size");
	d->physical_block_size = sysfs_int(qdir, "queue/physical_block_size");
	d->fua = sysfs_int(qdir, "queue/fua");
	if (d->rotational > 1)
		d->rotational = 1;
	if (d->fua > 1)
		d->fua = 1;

	fmt(path, sizeof(path), "%s/queue/discard_max_bytes", qdir);
	if (!read_s64(path, &v) && v > 0)
		d->discard_max_bytes = (__u64)v;

	fmt(path, sizeof(path), "%s/queue/write_cache", qdir);
	if (!read_line(path, buf, sizeof(buf))) {
		trim(buf);
		if (!strcmp(buf, "write back"))
			d->write_cache = 1;
		else if (!strcmp(buf, "write through"))
			d->write_cache = 0;
	}

	fmt(path, sizeof(path), "%s/queue/scheduler", qdir);
	if (!read_line(path, buf, sizeof(buf))) {
		char *l = strchr(buf, '['), *r = l ? strchr(l, ']') : NULL;

		if (l && r) {
			*r = '\0';
			scopy(d->scheduler, sizeof(d->scheduler), l + 1);
		} else {
			/* a single choice is printed without brackets */
			trim(buf);
			if (!strchr(buf, ' '))
				scopy(d->scheduler, sizeof(d->scheduler), buf);
		}
	}

	fmt(path, sizeof(path), "%s/device/model", qdir);
	if (!read_line(path, buf, sizeof(buf))) {
		trim(buf);
		scopy(d->model, sizeof(d->model), buf);
	}

	/* loop and stacking facts belong to the whole device, not its partitions */
	fmt(path, sizeof(path), "%s/loop/backing_file", dir);
	if (!read_line(path, d->loop_backing, sizeof(d->loop_backing)))
		trim(d->loop_backing);

	read_members(d, dir);

	if (is_nvme_namespace(d->is_partition ? d->parent : d->name))
		nvme_facts(d, d->is_partition ? d->parent : d->name);
	return 0;
}

static int cmp_devinfo(const void *a, const void *b)
{
	return strverscmp(((const struct fss_devinfo *)a)->name,
			  ((const struct fss_devinfo *)b)->name);
}

int fss_devinfo_list(struct fss_devinfo **out, int *n)
{
	struct fss_devinfo *arr = NULL, *tmp;
	char dir[PATH_MAX];
	int cnt = 0, cap = 0;
	struct dirent *de;
	DIR *dp;

	*out = NULL;
	*n = 0;
	fmt(dir, sizeof(dir), "%s/class/block", fss_sysfs_root());
	dp = opendir(dir);
	if (!dp)
		return -errno;
	while ((de = readdir(dp))) {
		if (de->d_name[0] == '.')
			continue;
		fmt(dir, sizeof(dir), "%s/class/block/%s", fss_sysfs_root(), de->d_name);
		/* hidden: e.g. the per-path nodes of NVMe multipath */
		if (sysfs_int(dir, "hidden") == 1)
			continue;
		if (cnt == cap) {
			cap = cap ? cap * 2 : 16;
			tmp = realloc(arr, cap * sizeof(*arr));
			if (!tmp) {
				closedir(dp);
				free(arr);
				return -ENOMEM;
			}
			arr = tmp;
		}
		if (fss_devinfo_read(de->d_name, &arr[cnt]))
			continue;
		/* unbound loop devices, empty drives, unconfigured zram */
		if (!arr[cnt].size_bytes)
			continue;
		cnt++;
	}
	closedir(dp);
	if (cnt)
		qsort(arr, cnt, sizeof(*arr), cmp_devinfo);
	*out = arr;
	*n = cnt;
	return 0;
}

/* ---- printers ---- */

/* 1024-based size: "512B", "4.0K", "256G", "1.8T" */
static void human(char *buf, size_t len, __u64 v)
{
	static const char units[] = "BKMGTPE";
	double x = (double)v;
	int i = 0;

	while (x >= 1024.0 && i < 6) {
		x /= 1024.0;
		i++;
	}
	if (i == 0)
		fmt(buf, len, "%lluB", (unsigned long long)v);
	else if (x < 9.95)
		fmt(buf, len, "%.1f%c", x, units[i]);
	else
		fmt(buf, len, "%.0f%c", x, units[i]);
}

/* block size: "512", "4k", "-" */
static void bsize(char *buf, size_t len, int v)
{
	if (v < 0)
		fmt(buf, len, "-");
	else if (v >= 1024 && v % 1024 == 0)
		fmt(buf, len, "%dk", v / 1024);
	else
		fmt(buf, len, "%d", v);
}

static const char *tri_str(int v, const char *yes, const char *no)
{
	return v > 0 ? yes : v == 0 ? no : "-";
}

/*
 * Print "label value", wrapping value at COLS; continuation lines indented
 * by the label's width.  Breaks after a space, '/' or ',' when it can.
 */
static void print_wrapped(FILE *f, const char *label, const char *text)
{
	int indent = (int)strlen(label), avail = COLS - indent;
	const char *p = text;

	if (avail < 20)
		avail = 20;
	fputs(label, f);
	if (!*p)
		fputc('\n', f);
	while (*p) {
		int n = (int)strlen(p), cut, i;

		if (n <= avail) {
			fprintf(f, "%s\n", p);
			break;
		}
		cut = 0;
		for (i = avail; i > 0 && !cut; i--) {
			if (p[i] == ' ')
				cut = i;
			else if (p[i - 1] == '/' || p[i - 1] == ',')
				cut = i;
		}
		if (!cut)
			cut = avail;
		fprintf(f, "%.*s\n", cut, p);
		p += cut;
		while (*p == ' ')
			p++;
		if (*p)
			fprintf(f, "%*s", indent, "");
	}
}

enum { C_NAME, C_MAJMIN, C_SIZE, C_ROT, C_SCHED, C_NRRQ, C_BS, C_WC, C_FUA,
       C_DISC, C_MODEL, C_MAX };

static const char *const col_head[C_MAX] = {
	"NAME", "MAJ:MIN", "SIZE", "ROT", "SCHED", "NR_RQ", "LBS/PBS",
	"WCACHE", "FUA", "DISCARD", "MODEL",
};

/* right-aligned columns (numbers) */
static const bool col_right[C_MAX] = {
	[C_SIZE] = true, [C_NRRQ] = true, [C_DISC] = true,
};

#define CELL 128

static void cells_of(const struct fss_devinfo *d, char c[C_MAX][CELL])
{
	char l[16], p[16];

	scopy(c[C_NAME], CELL, d->name);
	fmt(c[C_MAJMIN], CELL, "%u:%u", d->major, d->minor);
	human(c[C_SIZE], CELL, d->size_bytes);
	scopy(c[C_ROT], CELL, tri_str(d->rotational, "1", "0"));
	scopy(c[C_SCHED], CELL, d->scheduler[0] ? d->scheduler : "-");
	if (d->nr_requests >= 0)
		fmt(c[C_NRRQ], CELL, "%d", d->nr_requests);
	else
		scopy(c[C_NRRQ], CELL, "-");
	bsize(l, sizeof(l), d->logical_block_size);
	bsize(p, sizeof(p), d->physical_block_size);
	fmt(c[C_BS], CELL, "%s/%s", l, p);
	scopy(c[C_WC], CELL, tri_str(d->write_cache, "back", "through"));
	scopy(c[C_FUA], CELL, tri_str(d->fua, "1", "0"));
	if (d->discard_max_bytes)
		human(c[C_DISC], CELL, d->discard_max_bytes);
	else
		scopy(c[C_DISC], CELL, "no");
	scopy(c[C_MODEL], CELL, d->model[0] ? d->model : "-");
}

/* Facts that do not fit the table, one or more lines per device. */
static void print_notes(FILE *f, const struct fss_devinfo *d, bool model_cut)
{
	char label[80], buf[PATH_MAX + 256];

	fmt(label, sizeof(label), "%s: ", d->name);
	if (model_cut) {
		fmt(buf, sizeof(buf), "model %s", d->model);
		print_wrapped(f, label, buf);
	}
	if (d->is_partition && d->parent[0]) {
		fmt(buf, sizeof(buf), "partition of %s (queue facts are %s's)",
			 d->parent, d->parent);
		print_wrapped(f, label, buf);
	}
	if (d->queue_depth >= 0) {
		fmt(buf, sizeof(buf), "device queue_depth %d", d->queue_depth);
		print_wrapped(f, label, buf);
	}
	if (d->loop_backing[0]) {
		fmt(buf, sizeof(buf), "backing file %s", d->loop_backing);
		print_wrapped(f, label, buf);
	}
	if (d->nr_members) {
		size_t o;
		int i;

		scopy(buf, sizeof(buf), "members");
		for (i = 0; i < d->nr_members; i++) {
			o = strlen(buf);
			if (fmt(buf + o, sizeof(buf) - o, " %s", d->members[i]))
				break;
		}
		print_wrapped(f, label, buf);
	}
	if (d->nvme) {
		fmt(buf, sizeof(buf), "NVMe volatile write cache %s, %s%s%s",
			 d->nvme_vwc_present > 0 ? "present" :
			 d->nvme_vwc_present == 0 ? "absent" : "n/a",
			 d->nvme_vwc_enabled > 0 ? "enabled" :
			 d->nvme_vwc_enabled == 0 ? "disabled" : "enabled n/a",
			 d->nvme_reason[0] ? ": " : "", d->nvme_reason);
		print_wrapped(f, label, buf);
	}
}

void fss_devinfo_print_table(FILE *f, const struct fss_devinfo *d, int n)
{
	char (*cells)[C_MAX][CELL];
	int w[C_MAX], i, c, used = 0;
	bool *cut;

	if (n <= 0) {
		fprintf(f, "no block devices\n");
		return;
	}
	cells = calloc(n, sizeof(*cells));
	cut = calloc(n, sizeof(*cut));
	if (!cells || !cut) {
		free(cells);
		free(cut);
		fprintf(f, "out of memory\n");
		return;
	}
	for (c = 0; c < C_MAX; c++)
		w[c] = (int)strlen(col_head[c]);
	for (i = 0; i < n; i++) {
		cells_of(&d[i], cells[i]);
		for (c = 0; c < C_MAX - 1; c++)
			if ((int)strlen(cells[i][c]) > w[c])
				w[c] = (int)strlen(cells[i][c]);
	}
	for (c = 0; c < C_MAX - 1; c++)
		used += w[c] + 1;
	/* MODEL gets what is left of the 80 columns */
	w[C_MODEL] = COLS - used;
	if (w[C_MODEL] < 1)
		w[C_MODEL] = 1;
	for (i = 0; i < n; i++)
		if ((int)strlen(cells[i][C_MODEL]) > w[C_MODEL]) {
			cells[i][C_MODEL][w[C_MODEL]] = '\0';
			cut[i] = true;
		}

	for (c = 0; c < C_MAX - 1; c++)
		fprintf(f, col_right[c] ? "%*s " : "%-*s ", w[c], col_head[c]);
	fprintf(f, "%s\n", col_head[C_MODEL]);
	for (i = 0; i < n; i++) {
		for (c = 0; c < C_MAX - 1; c++)
			fprintf(f, col_right[c] ? "%*s " : "%-*s ", w[c], cells[i][c]);
		fprintf(f, "%s\n", cells[i][C_MODEL]);
	}
	for (i = 0; i < n; i++)
		print_notes(f, &d[i], cut[i]);
	free(cells);
	free(cut);
}

static struct json_object *jint_or_null(int v)
{
	return v < 0 ? NULL : json_object_new_int(v);
}

static struct json_object *jbool_or_null(int v)
{
	return v < 0 ? NULL : json_object_new_boolean(v > 0);
}

static struct json_object *jstr_or_null(const char *s)
{
	return s && s[0] ? json_object_new_string(s) : NULL;
}

struct json_object *fss_devinfo_json(const struct fss_devinfo *d)
{
	struct json_object *o = json_object_new_object(), *m, *nv;
	int i;

	if (!o)
		return NULL;
	json_object_object_add(o, "name", json_object_new_string(d->name));
	json_object_object_add(o, "major", json_object_new_int(d->major));
	json_object_object_add(o, "minor", json_object_new_int(d->minor));
	json_object_object_add(o, "kdev",
			       json_object_new_int64(fss_kdev(d->major, d->minor)));
	json_object_object_add(o, "is_partition",
			       json_object_new_boolean(d->is_partition));
	json_object_object_add(o, "parent", jstr_or_null(d->parent));
	json_object_object_add(o, "model", jstr_or_null(d->model));
	json_object_object_add(o, "size_bytes", json_object_new_int64(d->size_bytes));
	json_object_object_add(o, "rotational", jbool_or_null(d->rotational));
	json_object_object_add(o, "scheduler", jstr_or_null(d->scheduler));
	json_object_object_add(o, "nr_requests", jint_or_null(d->nr_requests));
	json_object_object_add(o, "queue_depth", jint_or_null(d->queue_depth));
	json_object_object_add(o, "logical_block_size",
			       jint_or_null(d->logical_block_size));
	json_object_object_add(o, "physical_block_size",
			       jint_or_null(d->physical_block_size));
	json_object_object_add(o, "write_cache", d->write_cache < 0 ? NULL :
			       json_object_new_string(d->write_cache ?
						      "write back" : "write through"));
	json_object_object_add(o, "fua", jbool_or_null(d->fua));
	json_object_object_add(o, "discard_max_bytes",
			       json_object_new_int64(d->discard_max_bytes));
	if (d->nvme) {
		nv = json_object_new_object();
		json_object_object_add(nv, "vwc_present",
				       jbool_or_null(d->nvme_vwc_present));
		json_object_object_add(nv, "vwc_enabled",
				       jbool_or_null(d->nvme_vwc_enabled));
		json_object_object_add(nv, "reason", jstr_or_null(d->nvme_reason));
		json_object_object_add(o, "nvme", nv);
	} else {
		json_object_object_add(o, "nvme", NULL);
	}
	json_object_object_add(o, "loop_backing_file", jstr_or_null(d->loop_backing));
	m = json_object_new_array();
	for (i = 0; i < d->nr_members; i++)
		json_object_array_add(m, json_object_new_string(d->members[i]));
	json_object_object_add(o, "members", m);
	return o;
}

struct json_object *fss_target_json(const struct fss_target *t)
{
	struct json_object *o = json_object_new_object();
	char dev[32];

	if (!o)
		return NULL;
	fmt(dev, sizeof(dev), "%u:%u", major(t->st_dev), minor(t->st_dev));
	json_object_object_add(o, "path", json_object_new_string(t->path));
	json_object_object_add(o, "mountpoint", jstr_or_null(t->mountpoint));
	json_object_object_add(o, "fstype", jstr_or_null(t->fstype));
	json_object_object_add(o, "source", jstr_or_null(t->source));
	json_object_object_add(o, "mount_options", jstr_or_null(t->mount_opts));
	json_object_object_add(o, "st_dev", json_object_new_string(dev));
	json_object_object_add(o, "fs_kdev", json_object_new_int64(t->fs_kdev));
	json_object_object_add(o, "has_disk", json_object_new_boolean(t->has_disk));
	json_object_object_add(o, "block_device", jstr_or_null(t->fs_blkdev));
	json_object_object_add(o, "block_device_kdev", t->fs_blkdev_kdev ?
			       json_object_new_int64(t->fs_blkdev_kdev) : NULL);
	json_object_object_add(o, "disk", jstr_or_null(t->disk));
	json_object_object_add(o, "disk_kdev", t->disk_kdev ?
			       json_object_new_int64(t->disk_kdev) : NULL);
	if (t->upper[0]) {
		struct json_object *u = json_object_new_object();

		json_object_object_add(u, "path", json_object_new_string(t->upper));
		json_object_object_add(u, "fstype", jstr_or_null(t->upper_fstype));
		json_object_object_add(u, "fs_kdev",
				       json_object_new_int64(t->upper_kdev));
		json_object_object_add(o, "upper", u);
	} else {
		json_object_object_add(o, "upper", NULL);
	}
	return o;
}

void fss_target_print(FILE *f, const struct fss_target *t)
{
	char buf[PATH_MAX * 2 + 128];

	print_wrapped(f, "path        ", t->path);
	fmt(buf, sizeof(buf), "%s on %s, mounted at %s",
		 t->fstype[0] ? t->fstype : "?", t->source[0] ? t->source : "?",
		 t->mountpoint);
	print_wrapped(f, "filesystem  ", buf);
	print_wrapped(f, "options     ", t->mount_opts);
	if (!t->has_disk) {
		fmt(buf, sizeof(buf), "none: %s (st_dev %u:%u) is not on a "
			 "block device", t->fstype[0] ? t->fstype : "this filesystem",
			 major(t->st_dev), minor(t->st_dev));
	} else if (t->fs_blkdev_kdev == t->disk_kdev) {
		fmt(buf, sizeof(buf), "%s (%u:%u), a whole disk",
			 t->fs_blkdev[0] ? t->fs_blkdev : "?",
			 kdev_major(t->fs_blkdev_kdev), kdev_minor(t->fs_blkdev_kdev));
	} else {
		fmt(buf, sizeof(buf), "%s (%u:%u) on disk %s (%u:%u)",
			 t->fs_blkdev[0] ? t->fs_blkdev : "?",
			 kdev_major(t->fs_blkdev_kdev), kdev_minor(t->fs_blkdev_kdev),
			 t->disk[0] ? t->disk : "?",
			 kdev_major(t->disk_kdev), kdev_minor(t->disk_kdev));
	}
	print_wrapped(f, "device      ", buf);
	if (t->upper[0]) {
		fmt(buf, sizeof(buf), "%s (%s): its syncs are the upper "
		    "filesystem's, on the device above", t->upper,
		    t->upper_fstype[0] ? t->upper_fstype : "?");
		print_wrapped(f, "upper       ", buf);
	}
}
