// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * websrv.c - /metrics over libmicrohttpd (see websrv.h).
 *
 * MHD runs in its external-epoll mode: the caller polls one fd and calls
 * fss_web_run(), so pages are rendered in the caller's thread as before.
 * Per request, in this order: a client certificate as client_auth_type
 * asks (none or a bad one: the connection is closed, as a failed handshake
 * would be), basic auth (401 with WWW-Authenticate), the method (GET and
 * HEAD; 405), then the handler's page.
 */
#include <errno.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include "exporter/websrv.h"

#define REALM	"fsyncscope"

/* A connection as the eviction sees it. */
struct slot {
	struct MHD_Connection *c;	/* NULL: free */
	unsigned long long since;	/* ms: waiting for a request since */
	bool waiting, evicted;
};

struct fss_web {
	struct MHD_Daemon *d;
	struct fss_webcfg *cfg;
	fss_web_handler handler;
	void *arg;
	int epfd;
	struct slot s[FSS_WEB_MAX_CONNS];
};

static unsigned long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int fss_web_listen(const char *spec, char *err, size_t errlen)
{
	struct addrinfo hints = {}, *res = NULL, *ai;
	char host[256] = "", port[16];
	const char *colon = strrchr(spec, ':');
	const char *p = colon ? colon + 1 : spec;
	int fd = -1, rc, one = 1, zero = 0;
	size_t n;

	n = strlen(p);
	if (!n || n > 5 || strspn(p, "0123456789") != n || atoi(p) < 1 ||
	    atoi(p) > 65535) {
		snprintf(err, errlen,
			 "--listen %s: not [ADDR:]PORT (PORT 1-65535)", spec);
		return -EINVAL;
	}
	snprintf(port, sizeof(port), "%s", p);
	if (colon) {
		n = colon - spec;
		if (n >= sizeof(host)) {
			snprintf(err, errlen, "--listen %s: address too long",
				 spec);
			return -EINVAL;
		}
		memcpy(host, spec, n);
		host[n] = '\0';
		if (host[0] == '[') {		/* [::1]:9469 */
			if (n < 3 || host[n - 1] != ']') {
				snprintf(err, errlen,
					 "--listen %s: not [ADDR:]PORT", spec);
				return -EINVAL;
			}
			memmove(host, host + 1, n - 2);
			host[n - 2] = '\0';
		} else if (strchr(host, ':')) {
			snprintf(err, errlen, "--listen %s: put an IPv6 "
				 "address in brackets", spec);
			return -EINVAL;
		}
	}
	hints.ai_family = host[0] ? AF_UNSPEC : AF_INET6;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	rc = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
	if (rc && !host[0]) {		/* no IPv6: every IPv4 address */
		hints.ai_family = AF_INET;
		rc = getaddrinfo(NULL, port, &hints, &res);
	}
	if (rc) {
		snprintf(err, errlen, "--listen %s: bad address: %s", spec,
			 gai_strerror(rc));
		return -EINVAL;
	}
	rc = -EADDRNOTAVAIL;
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family,
			    ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			rc = -errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (ai->ai_family == AF_INET6 && !host[0])
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero,
				   sizeof(zero));
		if (!bind(fd, ai->ai_addr, ai->ai_addrlen) && !listen(fd, 64))
			break;
		rc = -errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		snprintf(err, errlen, "--listen %s: %s", spec, strerror(-rc));
		return rc;
	}
	return fd;
}

static struct slot *slot_of(struct fss_web *w, struct MHD_Connection *c)
{
	for (int i = 0; i < FSS_WEB_MAX_CONNS; i++)
		if (w->s[i].c == c)
			return &w->s[i];
	return NULL;
}

static void on_conn(void *cls, struct MHD_Connection *c, void **sock_ctx,
		    enum MHD_ConnectionNotificationCode code)
{
	struct fss_web *w = cls;
	struct slot *s;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		s = slot_of(w, NULL);
		if (s)
			*s = (struct slot){ .c = c, .since = now_ms(),
					    .waiting = true };
	} else if ((s = slot_of(w, c))) {
		s->c = NULL;
	}
}

/* A response sent: a kept-alive connection waits for its next request. */
static void on_done(void *cls, struct MHD_Connection *c, void **con_cls,
		    enum MHD_RequestTerminationCode toe)
{
	struct slot *s = slot_of(cls, c);

	if (s) {
		s->waiting = true;
		s->since = now_ms();
	}
	*con_cls = NULL;
}

/*
 * More than FSS_WEB_SOFT_CONNS: the connections that have waited longest
 * for a request get a timeout of one second (MHD has no call to close
 * one), so a crowd of silent clients never keeps a scrape out.
 */
static void evict(struct fss_web *w)
{
	int n = 0;

	for (int i = 0; i < FSS_WEB_MAX_CONNS; i++)
		n += w->s[i].c && !w->s[i].evicted;
	while (n-- > FSS_WEB_SOFT_CONNS) {
		struct slot *old = NULL;

		for (int i = 0; i < FSS_WEB_MAX_CONNS; i++) {
			struct slot *s = &w->s[i];

			if (s->c && s->waiting && !s->evicted &&
			    (!old || s->since < old->since))
				old = s;
		}
		if (!old)
			return;
		old->evicted = true;
		MHD_set_connection_option(old->c, MHD_CONNECTION_OPTION_TIMEOUT,
					  1U);
	}
}

/* The client certificate client_auth_type asks for: true if it may go on. */
static bool client_cert_ok(struct fss_web *w, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci;
	unsigned int n = 0, status = 1;
	gnutls_session_t ts;
	bool given, verified;

	if (!w->cfg || !w->cfg->tls || w->cfg->cauth == FSS_CAUTH_NONE ||
	    w->cfg->cauth == FSS_CAUTH_REQUEST)
		return true;
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (!ci || !ci->tls_session)
		return false;
	ts = (gnutls_session_t)ci->tls_session;
	given = gnutls_certificate_get_peers(ts, &n) && n > 0;
	verified = given && !gnutls_certificate_verify_peers2(ts, &status) &&
		   !status;
	switch (w->cfg->cauth) {
	case FSS_CAUTH_REQUIRE_ANY:
		return given;
	case FSS_CAUTH_VERIFY_IF_GIVEN:
		return !given || verified;
	default:
		return verified;
	}
}

static bool basic_auth_ok(struct fss_web *w, struct MHD_Connection *c)
{
	char *pass = NULL, *user;
	bool ok;

	if (!w->cfg || !w->cfg->nusers)
		return true;
	user = MHD_basic_auth_get_username_password(c, &pass);
	ok = user && fss_webcfg_auth(w->cfg, user, pass);
	if (pass)
		explicit_bzero(pass, strlen(pass));
	MHD_free(user);
	MHD_free(pass);
	return ok;
}

static enum MHD_Result queue(struct MHD_Connection *c, int status,
			     const char *ctype, char *body, size_t len,
			     bool auth_fail)
{
	struct MHD_Response *r;
	enum MHD_Result rc;

	r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	rc = auth_fail ? MHD_queue_basic_auth_fail_response(c, REALM, r) :
			 MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result queue_text(struct MHD_Connection *c, int status,
				  const char *msg, bool auth_fail)
{
	char *b = strdup(msg);

	if (!b)
		return MHD_NO;
	return queue(c, status, "text/plain; charset=utf-8", b, strlen(b),
		     auth_fail);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_len, void **con_cls)
{
	struct fss_web *w = cls;
	struct slot *s = slot_of(w, c);
	const char *ctype = "text/plain; charset=utf-8", *accept;
	int status = 500;
	size_t len = 0;
	char *body;

	if (s)
		s->waiting = false;
	if (!client_cert_ok(w, c))
		return MHD_NO;		/* closes the connection */
	if (!basic_auth_ok(w, c))
		return queue_text(c, MHD_HTTP_UNAUTHORIZED, "unauthorized\n",
				  true);
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return queue_text(c, MHD_HTTP_METHOD_NOT_ALLOWED,
				  "method not allowed\n", false);
	accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					     MHD_HTTP_HEADER_ACCEPT);
	body = w->handler(url, accept, &status, &ctype, &len, w->arg);
	if (!body)
		return queue_text(c, 500, "out of memory\n", false);
	return queue(c, status, ctype, body, len, false);
}

#define OPT(k, v, p)	((struct MHD_OptionItem){ (k), (intptr_t)(v), (p) })

struct fss_web *fss_web_new(int listen_fd, struct fss_webcfg *cfg,
			    fss_web_handler h, void *arg, char *err,
			    size_t errlen)
{
	struct fss_web *w = calloc(1, sizeof(*w));
	unsigned int flags = MHD_USE_EPOLL;
	const union MHD_DaemonInfo *di;
	struct MHD_OptionItem o[12];
	int n = 0, fd = -1;

	if (!w || (fd = dup(listen_fd)) < 0) {
		snprintf(err, errlen, "cannot start the HTTP server: %s",
			 strerror(errno));
		free(w);
		return NULL;
	}
	w->cfg = cfg;
	w->handler = h;
	w->arg = arg;
	o[n++] = OPT(MHD_OPTION_LISTEN_SOCKET, fd, NULL);
	o[n++] = OPT(MHD_OPTION_CONNECTION_LIMIT, FSS_WEB_MAX_CONNS, NULL);
	o[n++] = OPT(MHD_OPTION_CONNECTION_TIMEOUT, FSS_WEB_IDLE_S, NULL);
	o[n++] = OPT(MHD_OPTION_CONNECTION_MEMORY_LIMIT, FSS_WEB_REQ_MAX, NULL);
	o[n++] = OPT(MHD_OPTION_NOTIFY_CONNECTION, on_conn, w);
	o[n++] = OPT(MHD_OPTION_NOTIFY_COMPLETED, on_done, w);
	if (cfg && cfg->tls) {
		flags |= MHD_USE_TLS;
		o[n++] = OPT(MHD_OPTION_HTTPS_MEM_CERT, 0, cfg->cert);
		o[n++] = OPT(MHD_OPTION_HTTPS_MEM_KEY, 0, cfg->key);
		o[n++] = OPT(MHD_OPTION_HTTPS_PRIORITIES, 0,
			     (void *)fss_webcfg_priorities(cfg));
		if (cfg->ca)
			o[n++] = OPT(MHD_OPTION_HTTPS_MEM_TRUST, 0, cfg->ca);
	}
	o[n++] = OPT(MHD_OPTION_END, 0, NULL);
	w->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, w,
				MHD_OPTION_ARRAY, o, MHD_OPTION_END);
	di = w->d ? MHD_get_daemon_info(w->d, MHD_DAEMON_INFO_EPOLL_FD) : NULL;
	if (!di) {
		snprintf(err, errlen,
			 "cannot start the HTTP%s server (libmicrohttpd)",
			 cfg && cfg->tls ? "S" : "");
		if (w->d)
			MHD_stop_daemon(w->d);
		else
			close(fd);
		free(w);
		return NULL;
	}
	w->epfd = di->epoll_fd;
	return w;
}

void fss_web_free(struct fss_web *w)
{
	if (!w)
		return;
	MHD_stop_daemon(w->d);		/* closes its dup of the socket */
	if (w->cfg)
		fss_webcfg_free(w->cfg);
	free(w->cfg);
	free(w);
}

bool fss_web_tls(const struct fss_web *w)
{
	return w->cfg && w->cfg->tls;
}

int fss_web_fd(const struct fss_web *w)
{
	return w->epfd;
}

int fss_web_timeout(struct fss_web *w)
{
	MHD_UNSIGNED_LONG_LONG ms;

	if (MHD_get_timeout(w->d, &ms) != MHD_YES)
		return -1;
	return ms > 60000 ? 60000 : (int)ms;
}

static int nconns(const struct fss_web *w)
{
	int n = 0;

	for (int i = 0; i < FSS_WEB_MAX_CONNS; i++)
		n += !!w->s[i].c;
	return n;
}

void fss_web_run(struct fss_web *w)
{
	int before = nconns(w);

	MHD_run(w->d);
	/*
	 * Once the limit was reached, libmicrohttpd takes its listening
	 * socket back into its epoll set only in the run after the one that
	 * closed connections: run again now, not at the next timeout.
	 */
	if (nconns(w) < before)
		MHD_run(w->d);
	evict(w);
}
