// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * httpd.c - the tiny /metrics HTTP server (see httpd.h).
 *
 * A connection is read until the end of its headers (at most
 * FSS_HTTPD_REQ_MAX bytes within FSS_HTTPD_READ_MS), answered in full from
 * one buffer (written as the socket accepts it, within FSS_HTTPD_WRITE_MS)
 * and closed.  When all slots are taken, the connection that has waited
 * longest for its request is dropped to make room (a new one is refused
 * only when every slot is sending a response).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "exporter/httpd.h"

struct conn {
	int fd;			/* -1: free */
	bool writing;
	char in[FSS_HTTPD_REQ_MAX + 1];
	size_t inlen;
	char *out;
	size_t outlen, outoff;
	__u64 deadline;		/* ms, CLOCK_MONOTONIC */
};

struct fss_httpd {
	int lfd;
	fss_httpd_handler handler;
	void *arg;
	struct conn c[FSS_HTTPD_MAX_CONNS];
};

static __u64 now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int fss_httpd_listen(const char *spec, char *err, size_t errlen)
{
	struct addrinfo hints = {}, *res = NULL, *ai;
	char host[256] = "", port[16];
	const char *colon = strrchr(spec, ':');
	const char *p = colon ? colon + 1 : spec;
	int fd = -1, rc, one = 1, zero = 0;
	size_t n;

	n = strlen(p);
	if (!n || n > 5 || strspn(p, "0123456789") != n || atoi(p) < 1 || atoi(p) > 65535) {
		snprintf(err, errlen, "--listen %s: not [ADDR:]PORT (PORT 1-65535)", spec);
		return -EINVAL;
	}
	snprintf(port, sizeof(port), "%s", p);
	if (colon) {
		n = colon - spec;
		if (n >= sizeof(host)) {
			snprintf(err, errlen, "--listen %s: address too long", spec);
			return -EINVAL;
		}
		memcpy(host, spec, n);
		host[n] = '\0';
		if (host[0] == '[') {		/* [::1]:9469 */
			if (n < 3 || host[n - 1] != ']') {
				snprintf(err, errlen, "--listen %s: not [ADDR:]PORT", spec);
				return -EINVAL;
			}
			memmove(host, host + 1, n - 2);
			host[n - 2] = '\0';
		} else if (strchr(host, ':')) {
			snprintf(err, errlen, "--listen %s: put an IPv6 address in brackets", spec);
			return -EINVAL;
		}
	}
	hints.ai_family = host[0] ? AF_UNSPEC : AF_INET6;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	rc = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
	if (rc && !host[0]) {			/* no IPv6: every IPv4 address */
		hints.ai_family = AF_INET;
		rc = getaddrinfo(NULL, port, &hints, &res);
	}
	if (rc) {
		snprintf(err, errlen, "--listen %s: bad address: %s", spec, gai_strerror(rc));
		return -EINVAL;
	}
	rc = -EADDRNOTAVAIL;
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			rc = -errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (ai->ai_family == AF_INET6 && !host[0])
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
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

struct fss_httpd *fss_httpd_new(int listen_fd, fss_httpd_handler handler, void *arg)
{
	struct fss_httpd *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->lfd = listen_fd;
	h->handler = handler;
	h->arg = arg;
	for (int i = 0; i < FSS_HTTPD_MAX_CONNS; i++)
		h->c[i].fd = -1;
	return h;
}

static void conn_close(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->out);
	c->fd = -1;
	c->out = NULL;
	c->writing = false;
	c->inlen = c->outlen = c->outoff = 0;
}

void fss_httpd_free(struct fss_httpd *h)
{
	if (!h)
		return;
	for (int i = 0; i < FSS_HTTPD_MAX_CONNS; i++)
		conn_close(&h->c[i]);
	if (h->lfd >= 0)
		close(h->lfd);
	free(h);
}

static const char *reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 431: return "Request Header Fields Too Large";
	default: return "Internal Server Error";
	}
}

/* Queue the whole response (headers + body, which is taken over). */
static void respond(struct conn *c, int status, const char *ctype, char *body,
		    size_t len, bool head)
{
	char hdr[256];
	int n;

	n = snprintf(hdr, sizeof(hdr),
		     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
		     "Connection: close\r\n\r\n", status, reason(status), ctype, len);
	c->out = malloc(n + (head ? 0 : len));
	if (c->out) {
		memcpy(c->out, hdr, n);
		if (!head && len)
			memcpy(c->out + n, body, len);
		c->outlen = n + (head ? 0 : len);
	}
	free(body);
	c->outoff = 0;
	c->writing = true;
	c->deadline = now_ms() + FSS_HTTPD_WRITE_MS;
	if (!c->out)
		conn_close(c);
}

static void respond_text(struct conn *c, int status, const char *msg)
{
	char *b = strdup(msg);

	respond(c, status, "text/plain; charset=utf-8", b, b ? strlen(b) : 0, false);
}

/* The value of header name (lower case, with ':') in the request, cut at CR/LF. */
static const char *header(char *req, const char *name, char *val, size_t len)
{
	size_t n = strlen(name);

	for (char *l = strchr(req, '\n'); l; l = strchr(l, '\n')) {
		l++;
		if (!strncasecmp(l, name, n)) {
			const char *v = l + n;

			while (*v == ' ' || *v == '\t')
				v++;
			snprintf(val, len, "%.*s", (int)strcspn(v, "\r\n"), v);
			return val;
		}
	}
	return NULL;
}

/* A whole request is in c->in: parse it and queue the answer. */
static void handle_request(struct fss_httpd *h, struct conn *c)
{
	char method[16], path[1024], version[16], accept[512];
	const char *ctype = "text/plain; charset=utf-8", *acc;
	int status = 200;
	size_t len = 0;
	char *body;
	bool head;

	if (sscanf(c->in, "%15[A-Z] %1023[^ \r\n] %15[^\r\n]", method, path, version) != 3 ||
	    strncmp(version, "HTTP/1.", 7) || path[0] != '/') {
		respond_text(c, 400, "bad request\n");
		return;
	}
	head = !strcmp(method, "HEAD");
	if (strcmp(method, "GET") && !head) {
		respond_text(c, 405, "only GET and HEAD\n");
		return;
	}
	path[strcspn(path, "?")] = '\0';
	acc = header(c->in, "accept:", accept, sizeof(accept));
	body = h->handler(path, acc, &status, &ctype, &len, h->arg);
	if (!body) {
		respond_text(c, 500, "internal error\n");
		return;
	}
	respond(c, status, ctype, body, len, head);
}

static void conn_read(struct fss_httpd *h, struct conn *c)
{
	ssize_t n = read(c->fd, c->in + c->inlen, FSS_HTTPD_REQ_MAX - c->inlen);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		conn_close(c);
		return;
	}
	c->inlen += n;
	c->in[c->inlen] = '\0';
	if (strstr(c->in, "\r\n\r\n") || strstr(c->in, "\n\n"))
		handle_request(h, c);
	else if (c->inlen >= FSS_HTTPD_REQ_MAX)
		respond_text(c, 431, "request too large\n");
	else if (memchr(c->in, '\0', c->inlen))	/* binary garbage */
		respond_text(c, 400, "bad request\n");
}

static void conn_write(struct conn *c)
{
	ssize_t n = send(c->fd, c->out + c->outoff, c->outlen - c->outoff, MSG_NOSIGNAL);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n < 0) {
		conn_close(c);
		return;
	}
	c->outoff += n;
	if (c->outoff == c->outlen) {
		shutdown(c->fd, SHUT_WR);
		conn_close(c);
	}
}

static void accept_all(struct fss_httpd *h)
{
	for (;;) {
		int fd = accept4(h->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct conn *c = NULL;

		if (fd < 0)
			return;
		for (int i = 0; i < FSS_HTTPD_MAX_CONNS && !c; i++)
			if (h->c[i].fd < 0)
				c = &h->c[i];
		/*
		 * All slots busy: make room by dropping the connection that has
		 * been waiting longest for its request (idle clients cannot lock
		 * scrapers out); if all are being answered, refuse this one.
		 */
		for (int i = 0; i < FSS_HTTPD_MAX_CONNS && !c; i++)
			if (!h->c[i].writing && (!c || h->c[i].deadline < c->deadline))
				c = &h->c[i];
		if (c && c->fd >= 0)
			conn_close(c);
		if (!c) {
			close(fd);
			continue;
		}
		c->fd = fd;
		c->inlen = 0;
		c->writing = false;
		c->deadline = now_ms() + FSS_HTTPD_READ_MS;
	}
}

int fss_httpd_fill(struct fss_httpd *h, struct pollfd *fds, int max)
{
	int n = 0;

	if (n < max) {
		fds[n].fd = h->lfd;
		fds[n].events = POLLIN;
		fds[n++].revents = 0;
	}
	for (int i = 0; i < FSS_HTTPD_MAX_CONNS && n < max; i++) {
		if (h->c[i].fd < 0)
			continue;
		fds[n].fd = h->c[i].fd;
		fds[n].events = h->c[i].writing ? POLLOUT : POLLIN;
		fds[n++].revents = 0;
	}
	return n;
}

void fss_httpd_serve(struct fss_httpd *h, const struct pollfd *fds, int n)
{
	__u64 now;

	for (int j = 0; j < n; j++) {
		if (!fds[j].revents)
			continue;
		if (fds[j].fd == h->lfd) {
			accept_all(h);
			continue;
		}
		for (int i = 0; i < FSS_HTTPD_MAX_CONNS; i++) {
			struct conn *c = &h->c[i];

			if (c->fd != fds[j].fd)
				continue;
			if (c->writing)
				conn_write(c);
			else
				conn_read(h, c);
			break;
		}
	}
	now = now_ms();
	for (int i = 0; i < FSS_HTTPD_MAX_CONNS; i++)
		if (h->c[i].fd >= 0 && now >= h->c[i].deadline)
			conn_close(&h->c[i]);
}

int fss_httpd_timeout(const struct fss_httpd *h)
{
	__u64 now = now_ms(), first = 0;

	for (int i = 0; i < FSS_HTTPD_MAX_CONNS; i++)
		if (h->c[i].fd >= 0 && (!first || h->c[i].deadline < first))
			first = h->c[i].deadline;
	if (!first)
		return -1;
	return first > now ? (int)(first - now) : 0;
}
