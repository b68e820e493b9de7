// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * cmd_exporter.c - `fsyncscope exporter`: a long-lived service that feeds every
 * attributed sync into the metrics model (metrics.c) and serves it to
 * Prometheus at /metrics (httpd.c, rendered by out_prom.c) and/or writes it
 * for node_exporter's textfile collector.
 *
 * Threads: the tracer's consumer thread calls on_sync()/on_event(), which
 * only add to the model's fixed tables; the main thread runs one poll(2)
 * loop over a signalfd (SIGINT/SIGTERM stop, SIGHUP rewrites the textfile)
 * and the HTTP sockets, drains the tracer every --interval, and renders a
 * copy of the model for each scrape and textfile write.
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <json-c/json.h>
#include "engine/attr/attr.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "lib/version.h"
#include "sys/devinfo.h"
#include "exporter/httpd.h"
#include "exporter/metrics.h"
#include "exporter/out_prom.h"
#include "sys/target.h"
#include "engine/tracer/tracer.h"

#define PROG		"fsyncscope exporter"
#define DEFAULT_LISTEN	"9469"
#define NSEC		1000000000ULL

static struct {
	const char *listen;
	const char *textfile;
	struct fss_cli_live live;	/* -p, -c, --mount, --strategy, ... */
	unsigned int labels;
	unsigned long long max_series;
	double interval;
} env;

static const char doc[] =
"Export the sync breakdown to Prometheus: every fsync, fdatasync, O_DSYNC\n"
"write, ... of the traced processes goes into histograms of sync duration\n"
"and of each phase (fs, journal, queue, device_write, device_flush, other;\n"
"they add up to the sync's duration), with flush, FUA, jbd2 commit and lost\n"
"event counters.  Served at http://[ADDR:]PORT/metrics (Prometheus text\n"
"0.0.4, or OpenMetrics 1.0.0 when the Accept header asks for it) and/or\n"
"written to DIR/fsyncscope.prom every --interval (temp file + rename) for\n"
"node_exporter's textfile collector.  Without --listen and --textfile:\n"
"--listen " DEFAULT_LISTEN ".  SIGTERM/SIGINT stop; SIGHUP rewrites the\n"
"textfile.  Needs root (CAP_BPF, CAP_PERFMON).\n"
"\v"
"Labels of the sync series: kind, device (with mountpoint), comm, cgroup\n"
"(default kind,device).  At most --max-series label sets (default 500); a\n"
"new one beyond that is counted in comm=\"other\" (cgroup=\"other\"), and in\n"
"one series with every label \"other\" when even that has no room;\n"
"fsyncscope_series_folded_total counts those syncs.  See docs/prometheus.md.\n"
"\n"
"EXAMPLES:\n"
"  fsyncscope exporter                          # :" DEFAULT_LISTEN "/metrics, every sync\n"
"  fsyncscope exporter --listen 127.0.0.1:9469 --labels kind,device,comm\n"
"  fsyncscope exporter -c postgres --labels kind,comm   # PostgreSQL only\n"
"  fsyncscope exporter --textfile /var/lib/prometheus/node-exporter\n"
"  fsyncscope exporter --mount /var/lib/postgresql --max-series 100\n";

enum {
	OPT_LISTEN = 0x100,
	OPT_TEXTFILE,
	OPT_LABELS,
	OPT_MAX_SERIES,
	OPT_INTERVAL,
};

static const struct argp_option opts[] = {
	{ "listen", OPT_LISTEN, "[ADDR:]PORT", 0, "Serve /metrics here (default: port " DEFAULT_LISTEN ")", 0 },
	{ "textfile", OPT_TEXTFILE, "DIR", 0, "Write DIR/fsyncscope.prom every interval (node_exporter textfile collector)", 0 },
	{ "interval", OPT_INTERVAL, "SECS", 0, "Drain the tracer and write the textfile every SECS (default 5)", 0 },
	{ "labels", OPT_LABELS, "LIST", 0, "Labels of the sync series: kind,device,comm,cgroup (default kind,device)", 0 },
	{ "max-series", OPT_MAX_SERIES, "N", 0, "At most N label sets (default 500); the rest folded into comm=\"other\"", 0 },
	{},
};

#define bad(state, ...)	(argp_error(state, __VA_ARGS__), EINVAL)

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &env.live;
		break;
	case ARGP_KEY_END:
		/* -p: a process that is not there is a usage error here */
		for (int i = 0; i < env.live.ntgids; i++)
			if (kill((pid_t)env.live.tgids[i], 0) && errno == ESRCH)
				return bad(state, "-p %u: no such process",
					   env.live.tgids[i]);
		break;
	case OPT_LISTEN:
		env.listen = arg;
		break;
	case OPT_TEXTFILE:
		if (!arg[0])
			return bad(state, "--textfile: empty directory");
		env.textfile = arg;
		break;
	case OPT_INTERVAL:
		if (fss_parse_seconds(arg, 86400, &env.interval) || env.interval < 0.1)
			return bad(state, "--interval: not 0.1 to 86400 seconds: '%s'", arg);
		break;
	case OPT_LABELS:
		if (fss_metrics_parse_labels(arg, &env.labels))
			return bad(state, "--labels: '%s': a list of kind, device, comm, cgroup", arg);
		break;
	case OPT_MAX_SERIES:
		if (fss_parse_uint(arg, FSS_M_MAX_SERIES, &env.max_series))
			return bad(state, "--max-series: not 1 to %d: '%s'", FSS_M_MAX_SERIES, arg);
		break;
	case ARGP_KEY_ARG:
		return bad(state, "unexpected argument '%s'", arg);
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {
	{ &fss_cli_live_argp, 0, NULL, 0 },
	{ 0 },
};

static const struct argp argp = {
	.options = opts,
	.parser = parse_arg,
	.children = children,
	.doc = doc,
};

/* ---- state shared with the tracer's consumer thread ---- */

static struct fss_metrics M;

/* cgroup v2 path of recent syncing processes, read from /proc when first seen */
#define CG_SLOTS	1024
static struct {
	__u32 pid;
	__u64 read_ns;
	char path[FSS_M_LABEL_LEN];
} cg_cache[CG_SLOTS];

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * NSEC + ts.tv_nsec;
}

/*
 * Called with the tracer lock held (from the consumer thread, or from a
 * drain in the main thread), which is all cg_cache needs.
 */
static void cgroup_note(__u32 pid)
{
	unsigned int i = pid % CG_SLOTS;
	char fn[64], line[512];
	__u64 now = mono_ns();
	FILE *f;

	if (cg_cache[i].pid == pid && now - cg_cache[i].read_ns < 10 * NSEC)
		return;
	cg_cache[i].pid = pid;
	cg_cache[i].read_ns = now;
	cg_cache[i].path[0] = '\0';
	snprintf(fn, sizeof(fn), "/proc/%u/cgroup", pid);
	f = fopen(fn, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(cg_cache[i].path, sizeof(cg_cache[i].path), "%.127s", line + 3);
			break;
		}
	}
	fclose(f);
}

static const char *cgroup_of(__u32 pid)
{
	unsigned int i = pid % CG_SLOTS;

	return cg_cache[i].pid == pid ? cg_cache[i].path : NULL;
}

/* Name, mountpoint and disk facts of a filesystem dev (once per device). */
static void resolve_dev(__u32 dev, struct fss_m_dev *d)
{
	struct fss_devinfo di;
	__u32 disk, fs_kdev;

	if (fss_dev_name(dev, d->name, sizeof(d->name)))
		snprintf(d->name, sizeof(d->name), "%u:%u", dev >> 20,
			 dev & 0xfffff);
	if (fss_mount_of_dev(dev, 0, true, d->mountpoint,
			     sizeof(d->mountpoint), &fs_kdev))
		snprintf(d->mountpoint, sizeof(d->mountpoint), "unknown");
	disk = dev >> 20 ? fss_disk_of(dev) : 0;
	if (disk && !fss_dev_name(disk, d->disk, sizeof(d->disk)) &&
	    !fss_devinfo_read(d->disk, &di)) {
		d->write_cache = di.write_cache;
		d->fua = di.fua;
	}
}

/* Consumer thread, tracer lock held. */
static void on_sync(const struct fss_sync_result *r, void *arg)
{
	fss_metrics_add_sync(&M, r, (M.labels & FSS_ML_CGROUP) ? cgroup_of(r->pid) : NULL,
			     resolve_dev);
}

static void on_event(const struct fss_event *ev, void *arg)
{
	if (ev->type == FSS_EV_SYNC && (M.labels & FSS_ML_CGROUP))
		cgroup_note(ev->pid);
	else if (ev->type == FSS_EV_JOURNAL && ev->ts_end >= ev->ts)
		fss_metrics_add_commit(&M, ev->dev, ev->ts_end - ev->ts,
				       ev->journal.sync_commit, resolve_dev);
}

/* ---- main thread ---- */

static struct fss_tracer *T;

/* Attribute what the kernel recorded up to now into the model. */
static void drain(void)
{
	struct fss_flush_stats f = {};

	if (fss_tracer_live_flush(T, &f) >= 0)
		fss_metrics_add_flush(&M, &f, fss_tracer_drops(T));
}

static char *render(enum fss_prom_fmt fmt, size_t *len)
{
	struct fss_metrics *s = fss_metrics_snapshot(&M);
	char *out;

	if (!s)
		return NULL;
	out = fss_prom_render(s, fmt, len);
	fss_metrics_snapshot_free(s);
	return out;
}

static char *http_page(const char *path, const char *accept, int *status,
		       const char **ctype, size_t *len, void *arg)
{
	enum fss_prom_fmt fmt;
	char *body;

	if (!strcmp(path, "/metrics")) {
		fmt = fss_prom_negotiate(accept);
		drain();
		*ctype = fss_prom_content_type(fmt);
		*status = 200;
		return render(fmt, len);
	}
	*status = strcmp(path, "/") ? 404 : 200;
	body = strdup(*status == 200 ? "fsyncscope exporter: metrics at /metrics\n" :
		      "not found (metrics at /metrics)\n");
	if (body)
		*len = strlen(body);
	return body;
}

/* DIR/fsyncscope.prom, atomically (a temp file in DIR, then rename).  0 or -errno. */
static int write_textfile(const char *dir, char *err, size_t errlen)
{
	char tmp[PATH_MAX], dst[PATH_MAX];
	size_t len = 0;
	char *text = render(FSS_PROM_TEXT, &len);
	int fd, rc = 0;

	if (!text) {
		snprintf(err, errlen, "--textfile: out of memory");
		return -ENOMEM;
	}
	snprintf(tmp, sizeof(tmp), "%s/.fsyncscope.prom.%d", dir, (int)getpid());
	snprintf(dst, sizeof(dst), "%s/fsyncscope.prom", dir);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = -errno;
	} else {
		size_t off = 0;

		while (off < len) {
			ssize_t n = write(fd, text + off, len - off);

			if (n < 0) {
				rc = -errno;
				break;
			}
			off += n;
		}
		if (close(fd) && !rc)
			rc = -errno;
		if (!rc && rename(tmp, dst))
			rc = -errno;
		if (rc)
			unlink(tmp);
	}
	free(text);
	if (rc)
		snprintf(err, errlen, "--textfile %s: %s", dir, strerror(-rc));
	return rc;
}

/* Checked before anything is loaded: a directory we can create files in. */
static int check_textfile_dir(const char *dir, char *err, size_t errlen)
{
	char probe[PATH_MAX];
	struct stat st;
	int fd;

	if (stat(dir, &st)) {
		snprintf(err, errlen, "--textfile %s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "--textfile %s: not a directory", dir);
		return -1;
	}
	snprintf(probe, sizeof(probe), "%s/.fsyncscope.prom.%d", dir, (int)getpid());
	fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "--textfile %s: cannot write there: %s", dir, strerror(errno));
		return -1;
	}
	close(fd);
	unlink(probe);
	return 0;
}

static void set_info(void)
{
	struct json_object *sj = fss_tracer_strategy_json(T), *layers;
	struct utsname u;

	snprintf(M.info.version, sizeof(M.info.version), "%s", FSS_VERSION);
	if (!uname(&u))
		snprintf(M.info.kernel, sizeof(M.info.kernel), "%s", u.release);
	M.start_time = (double)time(NULL);
	if (json_object_object_get_ex(sj, "layers", &layers)) {
		json_object_object_foreach(layers, name, lo) {
			struct json_object *hk;
			const char *hooks = "n/a";
			int i = M.info.nlayers;

			if (i >= (int)(sizeof(M.info.layer) / sizeof(M.info.layer[0])))
				break;
			if (json_object_object_get_ex(lo, "hooks", &hk) && hk)
				hooks = json_object_get_string(hk);
			snprintf(M.info.layer[i], sizeof(M.info.layer[i]), "%s", name);
			snprintf(M.info.hooks[i], sizeof(M.info.hooks[i]), "%s", hooks);
			M.info.nlayers++;
		}
	}
	json_object_put(sj);
}

/* The poll loop until SIGINT/SIGTERM.  0 or 1 (textfile write failed). */
static int serve(struct fss_httpd *h, int sfd)
{
	struct pollfd fds[FSS_HTTPD_MAX_CONNS + 2];
	__u64 step = (__u64)(env.interval * 1e9), next = mono_ns() + step;
	char err[512];
	int nfds;

	for (;;) {
		int timeout, ht;
		__u64 now = mono_ns();

		if (now >= next) {
			drain();
			if (env.textfile && write_textfile(env.textfile, err, sizeof(err)))
				fprintf(stderr, PROG ": %s\n", err);	/* keep serving */
			while (next <= now)
				next += step;
		}
		timeout = (int)((next - now + 999999) / 1000000);
		fds[0].fd = sfd;
		fds[0].events = POLLIN;
		fds[0].revents = 0;
		nfds = 1;
		if (h) {
			nfds += fss_httpd_fill(h, fds + 1, FSS_HTTPD_MAX_CONNS + 1);
			ht = fss_httpd_timeout(h);
			if (ht >= 0 && ht < timeout)
				timeout = ht;
		}
		if (poll(fds, nfds, timeout) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, PROG ": poll: %s\n", strerror(errno));
			return 1;
		}
		if (fds[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo != SIGHUP)
					return 0;
				drain();
				if (env.textfile && write_textfile(env.textfile, err, sizeof(err)))
					fprintf(stderr, PROG ": %s\n", err);
			}
		}
		if (h)
			fss_httpd_serve(h, fds + 1, nfds - 1);
	}
}

/* Options that need the system: checked before the tracer is loaded.  0, 1 or 2. */
static int check_targets(struct fss_trace_opts *to, int *lfd)
{
	char err[512];

	*lfd = -1;
	if (!env.listen && !env.textfile)
		env.listen = DEFAULT_LISTEN;
	if (env.live.mount) {
		if (fss_mount_filter(env.live.mount, &to->fs_dev, &to->disk_dev, err,
				     sizeof(err))) {
			fprintf(stderr, PROG ": %s\n", err);
			return 1;
		}
		if (!env.live.calib_dir)
			env.live.calib_dir = env.live.mount;
	}
	if (env.textfile && check_textfile_dir(env.textfile, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	if (geteuid() != 0) {
		fprintf(stderr, PROG ": needs root (CAP_BPF and CAP_PERFMON to load the tracer)\n");
		return 1;
	}
	if (env.listen) {
		int fd = fss_httpd_listen(env.listen, err, sizeof(err));

		if (fd < 0) {
			fprintf(stderr, PROG ": %s\n", err);
			return fd == -EINVAL ? 2 : 1;
		}
		*lfd = fd;
	}
	return 0;
}

int cmd_exporter(int argc, char **argv)
{
	struct fss_trace_opts to = {};
	struct fss_httpd *h = NULL;
	char err[512];
	sigset_t sigs;
	int rc, lfd = -1, sfd = -1;

	memset(&env, 0, sizeof(env));
	env.labels = FSS_ML_DEFAULT;
	env.max_series = 500;
	env.interval = 5;
	if (fss_cli_parse(&argp, argc, argv, NULL, PROG, &rc))
		return rc;
	rc = check_targets(&to, &lfd);
	if (rc)
		return rc;
	if (fss_metrics_init(&M, env.labels, env.max_series)) {
		fprintf(stderr, PROG ": out of memory for %llu series\n", env.max_series);
		close(lfd);
		return 1;
	}

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC);

	to.strategy = env.live.strategy;
	to.calib_dir = env.live.calib_dir ? env.live.calib_dir : fss_calib_dir_default();
	to.verbose = env.live.verbose;
	to.tgids = env.live.tgids;
	to.ntgids = env.live.ntgids;
	to.comm = env.live.comm;
	to.live = true;
	to.on_sync = on_sync;
	to.on_event = on_event;
	T = fss_tracer_open(&to, err, sizeof(err));
	if (!T) {
		fprintf(stderr, PROG ": %s\n", err);
		rc = 1;
		goto out;
	}
	set_info();
	if (env.live.verbose)
		fss_tracer_print_strategy(T, stderr);
	if (env.textfile && write_textfile(env.textfile, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		rc = 1;
		goto out;
	}
	if (lfd >= 0) {
		h = fss_httpd_new(lfd, http_page, NULL);
		if (!h) {
			rc = 1;
			goto out;
		}
		lfd = -1;
	}
	fprintf(stderr, "fsyncscope: exporting%s%s%s%s (SIGTERM to stop)\n",
		env.listen ? " on " : "", env.listen ? env.listen : "",
		env.textfile ? " to " : "", env.textfile ? env.textfile : "");
	rc = serve(h, sfd);
	/* the last counts, for a textfile that outlives us */
	drain();
	if (env.textfile && write_textfile(env.textfile, err, sizeof(err)))
		fprintf(stderr, PROG ": %s\n", err);
out:
	fss_httpd_free(h);
	if (lfd >= 0)
		close(lfd);
	fss_tracer_close(T);
	T = NULL;
	fss_metrics_free(&M);
	if (sfd >= 0)
		close(sfd);
	pthread_sigmask(SIG_UNBLOCK, &sigs, NULL);
	return rc;
}
