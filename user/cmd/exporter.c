// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * cmd_exporter.c - `fsyncscope exporter`: a long-lived service that feeds every
 * attributed sync into the metrics model (metrics.c) and serves it to
 * Prometheus at /metrics (websrv.c over libmicrohttpd, with the web config of
 * webcfg.c; rendered by out_prom.c) and/or writes it for node_exporter's
 * textfile collector.  Root only until the tracer is attached: then it
 * becomes --user (privdrop.c) with no capabilities, before serving.
 *
 * Threads: the tracer's consumer thread calls on_sync()/on_event(), which
 * only add to the model's fixed tables; the main thread runs one poll(2)
 * loop over a signalfd (SIGINT/SIGTERM stop, SIGHUP rewrites the textfile
 * and re-reads the web config) and the HTTP server's epoll fd, drains the
 * tracer every --interval, and renders a
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
#include "exporter/metrics.h"
#include "exporter/out_prom.h"
#include "sys/target.h"
#include "engine/tracer/tracer.h"
#include "exporter/webcfg.h"
#include "exporter/websrv.h"
#include "lib/privdrop.h"

#define PROG		"fsyncscope exporter"
#define DEFAULT_LISTEN	"9469"
#define DEFAULT_USER	"nobody"
#define NSEC		1000000000ULL

static struct {
	const char *listen;
	const char *textfile;
	const char *web_config;
	const char *user;
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
"--listen " DEFAULT_LISTEN ".  SIGTERM/SIGINT stop; SIGHUP rewrites the textfile\n"
"and re-reads --web.config.file.  --web.config.file takes Prometheus\n"
"exporter-toolkit's format: tls_server_config (cert_file, key_file,\n"
"client_ca_file, client_auth_type, min_version, max_version) and\n"
"basic_auth_users (user: bcrypt hash).  Starts as root (CAP_BPF,\n"
"CAP_PERFMON, CAP_SYS_ADMIN, CAP_SETUID, CAP_SETGID, CAP_SETPCAP); once the\n"
"tracer is attached it becomes --user (default " DEFAULT_USER ") with no\n"
"capabilities, before it serves.\n"
"\v"
"Labels of the sync series: kind, device (with mountpoint), comm, cgroup\n"
"(default kind,device).  At most --max-series label sets (default 500); a\n"
"new one beyond that is counted in comm=\"other\" (cgroup=\"other\"), and in\n"
"one series with every label \"other\" when even that has no room;\n"
"fsyncscope_series_folded_total counts those syncs.  See docs/prometheus.md.\n"
"\n"
"--painter kernel: the kernel splits each sync into its phases and sends\n"
"one record per sync, no request records (the fastest hosts: no sync\n"
"summarized where the user-space painter's records would fill the ring);\n"
"it counts the flush and FUA facts too.  A sync the kernel could not\n"
"paint counts in fsyncscope_syncs_summarized_total{reason=\"unpainted\"}.  It needs the tp_btf block hooks; without them\n"
"user space paints, as by default.  See docs/hotpath.md.\n"
"\n"
"EXAMPLES:\n"
"  fsyncscope exporter                          # :" DEFAULT_LISTEN "/metrics, every sync\n"
"  fsyncscope exporter --listen 127.0.0.1:9469 --labels kind,device,comm\n"
"  fsyncscope exporter -c postgres --labels kind,comm   # PostgreSQL only\n"
"  fsyncscope exporter --web.config.file /etc/fsyncscope/web-config.yml\n"
"  fsyncscope exporter --textfile /var/lib/prometheus/node-exporter\n"
"  fsyncscope exporter --mount /var/lib/postgresql --max-series 100\n"
"  fsyncscope exporter --painter kernel         # one record per sync\n";

enum {
	OPT_LISTEN = 0x100,
	OPT_TEXTFILE,
	OPT_LABELS,
	OPT_MAX_SERIES,
	OPT_INTERVAL,
	OPT_WEB_CONFIG,
	OPT_USER,
};

static const struct argp_option opts[] = {
	{ "listen", OPT_LISTEN, "[ADDR:]PORT", 0, "Serve /metrics here (default: port " DEFAULT_LISTEN ")", 0 },
	{ "web.config.file", OPT_WEB_CONFIG, "FILE", 0,
	  "TLS and basic auth for --listen (exporter-toolkit's web config)", 0 },
	{ "user", OPT_USER, "NAME", 0,
	  "Serve as this user, with no capabilities (default " DEFAULT_USER ")",
	  0 },
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
	case OPT_WEB_CONFIG:
		if (!arg[0])
			return bad(state, "--web.config.file: empty file name");
		env.web_config = arg;
		break;
	case OPT_USER:
		if (!arg[0])
			return bad(state, "--user: empty name");
		env.user = arg;
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
	struct fss_summ summ[FSS_SYNC_KIND_MAX];
	struct fss_flush_stats f = {};

	if (fss_tracer_live_flush(T, &f) >= 0)
		fss_metrics_add_flush(&M, &f, fss_tracer_drops(T));
	fss_tracer_summ(T, summ);
	fss_metrics_set_summ(&M, summ);
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

/* In a child that is already --user: can it create files in the directory? */
static int probe_dir(void *arg)
{
	char probe[PATH_MAX];
	int fd;

	snprintf(probe, sizeof(probe), "%s/.fsyncscope.prom.%d",
		 (const char *)arg, (int)getpid());
	fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return errno;
	close(fd);
	unlink(probe);
	return 0;
}

/* Checked before anything is loaded: a directory --user can create files in. */
static int check_textfile_dir(const char *dir, const struct fss_user *u,
			      char *err, size_t errlen)
{
	struct stat st;
	int rc;

	if (stat(dir, &st)) {
		snprintf(err, errlen, "--textfile %s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "--textfile %s: not a directory", dir);
		return -1;
	}
	if (geteuid())
		rc = probe_dir((void *)dir);
	else
		rc = fss_user_try(u, probe_dir, (void *)dir);
	if (rc) {
		snprintf(err, errlen, "--textfile %s: %s cannot write there: %s",
			 dir, geteuid() ? "we" : u->name,
			 rc > 0 ? strerror(rc) : "cannot check");
		return -1;
	}
	return 0;
}

static void set_info(void)
{
	struct json_object *sj = fss_tracer_strategy_json(T), *layers;
	struct utsname u;

	snprintf(M.info.version, sizeof(M.info.version), "%s", FSS_VERSION);
	M.info.sample_every = env.live.sample ? env.live.sample : 1;
	M.info.kernel_painter = fss_tracer_kernel_painted(T);
	fss_cli_painter_note(PROG, env.live.kernel_paint, M.info.kernel_painter);
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


/* The web config, read into a malloc'd struct (NULL + err if bad). */
static struct fss_webcfg *load_web_config(char *err, size_t errlen)
{
	struct fss_webcfg *c = malloc(sizeof(*c));

	if (!c) {
		snprintf(err, errlen, "--web.config.file: out of memory");
		return NULL;
	}
	if (fss_webcfg_load(env.web_config, c, err, errlen)) {
		free(c);
		return NULL;
	}
	return c;
}

/*
 * SIGHUP: the web config again (rotated certificates, new users), as the
 * unprivileged user; a server with it replaces the old one on the same
 * socket.  A bad file keeps the old server.
 */
static void reload_web(struct fss_web **w, int lfd)
{
	struct fss_webcfg *c;
	struct fss_web *nw;
	char err[512];

	if (!env.web_config || !*w)
		return;
	c = load_web_config(err, sizeof(err));
	nw = c ? fss_web_new(lfd, c, http_page, NULL, err, sizeof(err)) : NULL;
	if (!nw) {
		if (c) {
			fss_webcfg_free(c);
			free(c);
		}
		fprintf(stderr, PROG ": SIGHUP: %s (kept the old web config)\n",
			err);
		return;
	}
	fss_web_free(*w);
	*w = nw;
	fprintf(stderr, "fsyncscope: re-read %s\n", env.web_config);
}

/* The poll loop until SIGINT/SIGTERM.  0 or 1 (poll failed). */
static int serve(struct fss_web **w, int lfd, int sfd)
{
	__u64 step = (__u64)(env.interval * 1e9), next = mono_ns() + step;
	struct pollfd fds[2];
	char err[512];

	for (;;) {
		int timeout, wt;
		__u64 now = mono_ns();

		if (now >= next) {
			drain();
			if (env.textfile && write_textfile(env.textfile, err, sizeof(err)))
				fprintf(stderr, PROG ": %s\n", err);	/* keep serving */
			while (next <= now)
				next += step;
		}
		timeout = (int)((next - now + 999999) / 1000000);
		fds[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		fds[1] = (struct pollfd){ .fd = *w ? fss_web_fd(*w) : -1,
					  .events = POLLIN };
		wt = *w ? fss_web_timeout(*w) : -1;
		if (wt >= 0 && wt < timeout)
			timeout = wt;
		if (poll(fds, 2, timeout) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, PROG ": poll: %s\n", strerror(errno));
			return 1;
		}
		if (*w)
			fss_web_run(*w);
		if (fds[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo != SIGHUP)
					return 0;
				drain();
				if (env.textfile && write_textfile(env.textfile, err, sizeof(err)))
					fprintf(stderr, PROG ": %s\n", err);
				reload_web(w, lfd);
			}
		}
	}
}

/*
 * Options that need the system: checked before the tracer is loaded, the
 * web config read, the socket bound.  0, 1 or 2.
 */
static int check_targets(struct fss_trace_opts *to, struct fss_user *u,
			 struct fss_webcfg **wc, int *lfd)
{
	char err[512];

	*lfd = -1;
	if (!env.listen && !env.textfile)
		env.listen = DEFAULT_LISTEN;
	if (env.web_config && !env.listen) {
		fprintf(stderr,
			PROG ": --web.config.file: no --listen to use it for\n");
		return 2;
	}
	if (env.web_config && !(*wc = load_web_config(err, sizeof(err)))) {
		fprintf(stderr, PROG ": %s\n", err);
		return 2;
	}
	if (fss_user_lookup(env.user ? env.user : DEFAULT_USER, u, err,
			    sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return 2;
	}
	if (env.live.mount) {
		if (fss_mount_filter(env.live.mount, &to->fs_dev, &to->disk_dev, err,
				     sizeof(err))) {
			fprintf(stderr, PROG ": %s\n", err);
			return 1;
		}
		if (!env.live.calib_dir)
			env.live.calib_dir = env.live.mount;
	}
	if (env.textfile &&
	    check_textfile_dir(env.textfile, u, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	if (geteuid() != 0) {
		fprintf(stderr, PROG ": needs root (CAP_BPF and CAP_PERFMON to load the tracer)\n");
		return 1;
	}
	if (env.listen) {
		int fd = fss_web_listen(env.listen, err, sizeof(err));

		if (fd < 0) {
			fprintf(stderr, PROG ": %s\n", err);
			return fd == -EINVAL ? 2 : 1;
		}
		*lfd = fd;
	}
	return 0;
}

/* Attached: become the user, then the first textfile and the server. */
static int start_serving(const struct fss_user *u, struct fss_webcfg **wc,
			 int lfd, struct fss_web **w)
{
	char err[512];
	int rc;

	fss_tracer_unname_files(T);
	if (fss_user_become(u, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	rc = fss_tracer_drops_readable(T);
	if (rc) {
		M.events_lost_na = true;
		fprintf(stderr, PROG ": fsyncscope_events_lost_total is n/a: "
			"this kernel refuses bpf() to %s (%s)\n", u->name,
			strerror(-rc));
	}
	if (env.textfile && write_textfile(env.textfile, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	if (lfd >= 0) {
		*w = fss_web_new(lfd, *wc, http_page, NULL, err, sizeof(err));
		if (!*w) {
			fprintf(stderr, PROG ": %s\n", err);
			return 1;
		}
		*wc = NULL;			/* the server's now */
	}
	fprintf(stderr,
		"fsyncscope: exporting%s%s%s%s%s as %s (SIGTERM to stop)\n",
		env.listen ? " on " : "", env.listen ? env.listen : "",
		*w && fss_web_tls(*w) ? " (https)" : "",
		env.textfile ? " to " : "", env.textfile ? env.textfile : "",
		u->name);
	return 0;
}

int cmd_exporter(int argc, char **argv)
{
	struct fss_trace_opts to = {};
	struct fss_webcfg *wc = NULL;
	struct fss_web *w = NULL;
	struct fss_user u;
	char err[512];
	sigset_t sigs;
	int rc, lfd = -1, sfd = -1;

	memset(&env, 0, sizeof(env));
	env.labels = FSS_ML_DEFAULT;
	env.max_series = 500;
	env.interval = 5;
	if (fss_cli_parse(&argp, argc, argv, NULL, PROG, &rc))
		return rc;
	rc = check_targets(&to, &u, &wc, &lfd);
	if (!rc && fss_metrics_init(&M, env.labels, env.max_series)) {
		fprintf(stderr, PROG ": out of memory for %llu series\n", env.max_series);
		rc = 1;
	}
	if (rc) {
		if (wc)
			fss_webcfg_free(wc);
		free(wc);
		if (lfd >= 0)
			close(lfd);
		return rc;
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
	to.sample_every = env.live.sample;
	to.live = true;
	to.kernel_paint = env.live.kernel_paint;
	to.on_sync = on_sync;
	to.on_event = on_event;
	if (fss_user_clear_bounding(err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		rc = 1;
		goto out;
	}
	T = fss_tracer_open(&to, err, sizeof(err));
	if (!T) {
		fprintf(stderr, PROG ": %s\n", err);
		rc = 1;
		goto out;
	}
	set_info();
	if (env.live.verbose)
		fss_tracer_print_strategy(T, stderr);
	rc = start_serving(&u, &wc, lfd, &w);
	if (rc)
		goto out;
	rc = serve(&w, lfd, sfd);
	/* the last counts, for a textfile that outlives us */
	drain();
	if (env.textfile && write_textfile(env.textfile, err, sizeof(err)))
		fprintf(stderr, PROG ": %s\n", err);
out:
	fss_web_free(w);
	if (wc) {
		fss_webcfg_free(wc);
		free(wc);
	}
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
