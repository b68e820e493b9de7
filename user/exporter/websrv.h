/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * websrv.h - the exporter's HTTP(S) server for /metrics, on libmicrohttpd
 * driven from the caller's poll(2) loop (one epoll fd, no thread of its
 * own), with the web config of webcfg.h: TLS (GnuTLS) with optional client
 * certificates, basic auth.  Bounds: at most FSS_WEB_MAX_CONNS connections
 * (beyond FSS_WEB_SOFT_CONNS the one that has waited longest for a request
 * is closed within a second), FSS_WEB_IDLE_S of inactivity, request line +
 * headers within FSS_WEB_REQ_MAX bytes.
 */
#ifndef __FSS_WEBSRV_H
#define __FSS_WEBSRV_H

#include <stdbool.h>
#include <stddef.h>
#include "exporter/webcfg.h"

#define FSS_WEB_SOFT_CONNS	32
#define FSS_WEB_MAX_CONNS	64
#define FSS_WEB_IDLE_S		10
#define FSS_WEB_REQ_MAX		16384

/*
 * Bind and listen on "[ADDR:]PORT" (ADDR: IPv4, [IPv6] or a host name;
 * none: every address).  Returns the socket, -EINVAL when spec is not an
 * address (err says why), or -errno from socket/bind/listen.
 */
int fss_web_listen(const char *spec, char *err, size_t errlen);

/*
 * The page for GET path: a malloc'd body, its length and content type,
 * and the status (200, 404...).  accept: the Accept header or NULL.
 * NULL: 500.
 */
typedef char *(*fss_web_handler)(const char *path, const char *accept,
				 int *status, const char **ctype, size_t *len,
				 void *arg);

struct fss_web;

/*
 * Serve on listen_fd (not taken: the caller closes it, so a new server can
 * take over the same socket) with cfg, which the server owns from then on
 * (freed with it; NULL: plain HTTP, no auth).  NULL with err on failure.
 */
struct fss_web *fss_web_new(int listen_fd, struct fss_webcfg *cfg,
			    fss_web_handler h, void *arg, char *err,
			    size_t errlen);
void fss_web_free(struct fss_web *w);

/* Serving https? */
bool fss_web_tls(const struct fss_web *w);

/* The fd to poll for POLLIN, and the most ms to wait (-1: no limit). */
int fss_web_fd(const struct fss_web *w);
int fss_web_timeout(struct fss_web *w);
/* After poll(): serve what is ready, close what expired or is evicted. */
void fss_web_run(struct fss_web *w);

#endif /* __FSS_WEBSRV_H */
