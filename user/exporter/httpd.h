/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * httpd.h - a tiny HTTP/1.1 server for /metrics: one thread, poll(2),
 * non-blocking sockets, a fixed number of connections, each with a
 * deadline, so a client that never sends, never reads or sends garbage
 * costs one slot until its deadline and never blocks the others (or the
 * tracer, which runs in its own thread); when the slots run out, the
 * connection that has waited longest for its request makes room.  Every response closes the
 * connection.
 */
#ifndef __FSS_HTTPD_H
#define __FSS_HTTPD_H

#include <poll.h>
#include <stddef.h>
#include <linux/types.h>

#define FSS_HTTPD_MAX_CONNS	32
#define FSS_HTTPD_REQ_MAX	8192	/* request line + headers */
#define FSS_HTTPD_READ_MS	10000	/* to send the whole request */
#define FSS_HTTPD_WRITE_MS	30000	/* to read the whole response */

/*
 * Bind and listen on "[ADDR:]PORT" (ADDR: IPv4, [IPv6] or a host name;
 * none: every address).  Returns the socket, -EINVAL when spec is not an
 * address (err says why), or -errno from socket/bind/listen.
 */
int fss_httpd_listen(const char *spec, char *err, size_t errlen);

/*
 * The page for GET path: a malloc'd body, its length and content type,
 * and the status (200, 404...).  accept: the Accept header or NULL.
 * NULL: 500.
 */
typedef char *(*fss_httpd_handler)(const char *path, const char *accept, int *status,
				   const char **ctype, size_t *len, void *arg);

struct fss_httpd;

struct fss_httpd *fss_httpd_new(int listen_fd, fss_httpd_handler h, void *arg);
void fss_httpd_free(struct fss_httpd *h);

/* Fill up to max pollfds (listening socket and connections); returns how many. */
int fss_httpd_fill(struct fss_httpd *h, struct pollfd *fds, int max);
/* After poll(): serve what is ready, close what expired.  fds as filled. */
void fss_httpd_serve(struct fss_httpd *h, const struct pollfd *fds, int n);
/* Milliseconds until the next connection deadline (-1: none). */
int fss_httpd_timeout(const struct fss_httpd *h);

#endif /* __FSS_HTTPD_H */
