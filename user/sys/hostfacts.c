// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* hostfacts.c - what this host lets a BPF tracer do (hostfacts.h). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <libmount/libmount.h>
#include "sys/hostfacts.h"

const struct fss_cap_need fss_cap_needs[] = {
	{ "CAP_BPF", 39, true, true, "load BPF programs and maps" },
	{ "CAP_PERFMON", 38, true, true, "attach tracing programs, read "
	  "kernel memory" },
	{ "CAP_SYS_ADMIN", CAP_SYS_ADMIN_BIT, true, false, "libbpf 1.1 lists "
	  "the modules' BTF for CO-RE (BPF_BTF_GET_NEXT_ID); without it the "
	  "load fails" },
	{ "CAP_SYS_RESOURCE", 24, false, false, "raise RLIMIT_MEMLOCK, on "
	  "kernels that still charge BPF maps to it" },
};
const int fss_ncap_needs = sizeof(fss_cap_needs) / sizeof(fss_cap_needs[0]);

/* the first line of path into buf, newline cut; 0 or -1 */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -1;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* "none [integrity] confidentiality" -> "integrity" */
static void read_lockdown(char *out, size_t len)
{
	char buf[128], *a, *b;

	out[0] = '\0';
	if (read_line("/sys/kernel/security/lockdown", buf, sizeof(buf)))
		return;
	a = strchr(buf, '[');
	b = a ? strchr(a, ']') : NULL;
	if (a && b)
		snprintf(out, len, "%.*s", (int)(b - a - 1), a + 1);
}

static void read_btf(struct fss_hostfacts *h)
{
	DIR *d = opendir("/sys/kernel/btf");
	struct dirent *e;

	h->btf_vmlinux = !access("/sys/kernel/btf/vmlinux", R_OK);
	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && strcmp(e->d_name, "vmlinux"))
			h->btf_modules++;
	closedir(d);
}

/* the first tracefs mount point, from libmount's table */
static void read_tracefs(char *out, size_t len)
{
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;

	out[0] = '\0';
	if (tb && it && !mnt_table_parse_mtab(tb, NULL))
		while (!mnt_table_next_fs(tb, it, &fs))
			if (mnt_fs_match_fstype(fs, "tracefs") &&
			    mnt_fs_get_target(fs)) {
				snprintf(out, len, "%s", mnt_fs_get_target(fs));
				break;
			}
	mnt_free_iter(it);
	mnt_unref_table(tb);
}

static void read_caps(struct fss_hostfacts *h)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7)) {
			h->capeff = strtoull(line + 7, NULL, 16);
			h->capeff_known = true;
			break;
		}
	fclose(f);
}

void fss_hostfacts_read(struct fss_hostfacts *h)
{
	struct utsname u;
	struct rlimit rl;
	char buf[32];

	memset(h, 0, sizeof(*h));
	if (!uname(&u))
		snprintf(h->kernel, sizeof(h->kernel), "%s %s", u.release,
			 u.version);
	read_btf(h);
	read_lockdown(h->lockdown, sizeof(h->lockdown));
	h->unpriv_bpf = -1;
	if (!read_line("/proc/sys/kernel/unprivileged_bpf_disabled", buf,
		       sizeof(buf)))
		h->unpriv_bpf = atoi(buf);
	read_tracefs(h->tracefs, sizeof(h->tracefs));
	h->euid = geteuid();
	read_caps(h);
	h->memlock = -1;
	if (!getrlimit(RLIMIT_MEMLOCK, &rl) && rl.rlim_cur != RLIM_INFINITY)
		h->memlock = (long long)rl.rlim_cur;
}

bool fss_hostfacts_has_cap(const struct fss_hostfacts *h, int bit)
{
	return h->capeff_known && (h->capeff >> bit) & 1;
}

bool fss_hostfacts_covered(const struct fss_hostfacts *h,
			   const struct fss_cap_need *c)
{
	return fss_hostfacts_has_cap(h, c->bit) ||
	       (c->by_sys_admin && fss_hostfacts_has_cap(h, CAP_SYS_ADMIN_BIT));
}

int fss_hostfacts_missing(const struct fss_hostfacts *h, char *buf,
			  size_t len)
{
	int n = 0;
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < fss_ncap_needs; i++) {
		if (!fss_cap_needs[i].required ||
		    fss_hostfacts_covered(h, &fss_cap_needs[i]))
			continue;
		if (off < len)
			off += snprintf(buf + off, len - off, "%s%s",
					n ? ", " : "", fss_cap_needs[i].name);
		n++;
	}
	return n;
}

static struct json_object *str_or_null(const char *s)
{
	return s[0] ? json_object_new_string(s) : NULL;
}

struct json_object *fss_hostfacts_json(const struct fss_hostfacts *h)
{
	struct json_object *o = json_object_new_object();
	struct json_object *btf = json_object_new_object();
	struct json_object *caps = json_object_new_array();
	char missing[256];

	json_object_object_add(o, "kernel", str_or_null(h->kernel));
	json_object_object_add(btf, "vmlinux",
			       json_object_new_boolean(h->btf_vmlinux));
	json_object_object_add(btf, "modules",
			       json_object_new_int(h->btf_modules));
	json_object_object_add(o, "btf", btf);
	json_object_object_add(o, "lockdown", str_or_null(h->lockdown));
	json_object_object_add(o, "unprivileged_bpf_disabled",
			       h->unpriv_bpf < 0 ? NULL :
			       json_object_new_int(h->unpriv_bpf));
	json_object_object_add(o, "tracefs", str_or_null(h->tracefs));
	json_object_object_add(o, "euid", json_object_new_int((int)h->euid));
	for (int i = 0; i < fss_ncap_needs; i++) {
		const struct fss_cap_need *c = &fss_cap_needs[i];
		struct json_object *co = json_object_new_object();

		json_object_object_add(co, "name",
				       json_object_new_string(c->name));
		json_object_object_add(co, "have", h->capeff_known ?
			json_object_new_boolean(
				fss_hostfacts_has_cap(h, c->bit)) :
			NULL);
		json_object_object_add(co, "required",
				       json_object_new_boolean(c->required));
		/* the kernel lets CAP_SYS_ADMIN do what these allow */
		json_object_object_add(co, "covered", h->capeff_known ?
			json_object_new_boolean(fss_hostfacts_covered(h, c)) :
			NULL);
		json_object_object_add(co, "why",
				       json_object_new_string(c->why));
		json_object_array_add(caps, co);
	}
	json_object_object_add(o, "capabilities", caps);
	fss_hostfacts_missing(h, missing, sizeof(missing));
	json_object_object_add(o, "missing_capabilities", str_or_null(missing));
	json_object_object_add(o, "memlock", h->memlock < 0 ?
			       json_object_new_string("unlimited") :
			       json_object_new_int64(h->memlock));
	return o;
}

struct json_object *fss_block_mounts_json(int max)
{
	struct json_object *arr = json_object_new_array();
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	dev_t seen[256];
	int nseen = 0;

	if (!tb || !it || mnt_table_parse_mtab(tb, NULL))
		goto out;
	while (nseen < max && nseen < 256 && !mnt_table_next_fs(tb, it, &fs)) {
		const char *src = mnt_fs_get_srcpath(fs);
		struct json_object *o;
		struct stat st;
		char dev[32];
		int i;

		/* block devices only (not proc, tmpfs, overlay, fuse...); the
		 * device's number, not the filesystem's (btrfs: 0:N) */
		if (!src || strncmp(src, "/dev/", 5) || stat(src, &st) ||
		    !S_ISBLK(st.st_mode))
			continue;
		for (i = 0; i < nseen && seen[i] != st.st_rdev; i++)
			;
		if (i < nseen)
			continue;
		seen[nseen++] = st.st_rdev;
		o = json_object_new_object();
		snprintf(dev, sizeof(dev), "%u:%u", major(st.st_rdev),
			 minor(st.st_rdev));
		json_object_object_add(o, "target", json_object_new_string(
			mnt_fs_get_target(fs) ? mnt_fs_get_target(fs) : ""));
		json_object_object_add(o, "fstype", json_object_new_string(
			mnt_fs_get_fstype(fs) ? mnt_fs_get_fstype(fs) : ""));
		json_object_object_add(o, "source",
				       json_object_new_string(src));
		json_object_object_add(o, "dev", json_object_new_string(dev));
		json_object_array_add(arr, o);
	}
out:
	mnt_free_iter(it);
	mnt_unref_table(tb);
	return arr;
}
