// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * fuzz_web.c - libFuzzer target: the exporter's HTTP request handling
 * (exporter/websrv.c over libmicrohttpd, with basic auth on): the input
 * is what one client sends on a fresh connection before it shuts its
 * side; the server runs from this thread as in the exporter's poll loop
 * until the client has its answer or the connection is closed.  Whatever
 * comes back must be an HTTP status line, and a 200 only for the right
 * user and password.  The handler stands in for the Prometheus renderer
 * (its own output is not what is fuzzed here).
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include "exporter/websrv.h"

/* bcrypt cost 4 of "secret" (Python's crypt): cheap enough to fuzz */
#define HASH "$2b$04$abcdefghijklmnopqrstuu2r9OfJnfCsdneAXAGHnS4UpFFP8WIrW"

static struct fss_web *web;
static struct sockaddr_in addr;

static char *page(const char *path, const char *accept, int *status,
		  const char **ctype, size_t *len, void *arg)
{
	*status = strcmp(path, "/metrics") ? 404 : 200;
	*ctype = "text/plain; version=0.0.4";
	*len = 3;
	return strdup("ok\n");
}

static void start(void)
{
	struct fss_webcfg *cfg = calloc(1, sizeof(*cfg));
	socklen_t al = sizeof(addr);
	char err[256];
	int fd;

	/* a port the kernel picks (fss_web_listen wants one given) */
	addr.sin_family = AF_INET;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    listen(fd, 16) ||
	    getsockname(fd, (struct sockaddr *)&addr, &al) || !cfg)
		abort();
	cfg->users = calloc(1, sizeof(*cfg->users));
	cfg->users[0].name = strdup("prometheus");
	cfg->users[0].hash = strdup(HASH);
	cfg->nusers = 1;
	web = fss_web_new(fd, cfg, page, NULL, err, sizeof(err));
	if (!web) {
		fprintf(stderr, "%s\n", err);
		abort();
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char buf[4096];
	size_t got = 0;
	ssize_t n;
	int c, i;

	if (!web)
		start();
	c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&addr, sizeof(addr)))
		abort();
	/* the request, then EOF: the server answers or closes */
	if (size && send(c, data, size, MSG_NOSIGNAL) < 0 && errno != EPIPE &&
	    errno != ECONNRESET)
		abort();
	shutdown(c, SHUT_WR);
	/*
	 * A whole request is answered within a few rounds; for one cut short
	 * libmicrohttpd waits for the rest (its idle timeout is 10 s), so the
	 * client gives up after 40 rounds of at most 2 ms and closes.
	 */
	for (i = 0; i < 40; i++) {
		struct pollfd p[2] = {
			{ .fd = fss_web_fd(web), .events = POLLIN },
			{ .fd = c, .events = POLLIN },
		};

		poll(p, 2, 2);
		fss_web_run(web);
		if (!(p[1].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		n = recv(c, buf + got, sizeof(buf) - 1 - got, MSG_DONTWAIT);
		if (n <= 0)
			break;		/* closed: answered or refused */
		got += n;
		if (got == sizeof(buf) - 1)
			break;
	}
	close(c);
	fss_web_run(web);		/* let it see the close */
	buf[got] = '\0';
	if (getenv("FUZZ_WEB_SHOW"))	/* what came back, to look at */
		fprintf(stderr, "%s\n", buf);
	if (got && strncmp(buf, "HTTP/1.", 7))
		abort();		/* an answer is an HTTP response */
	/*
	 * 200 needs prometheus:secret: base64 "cHJvbWV0aGV1czpzZWNyZXQ=",
	 * whose last character may be Q to T (its low bits are padding, which
	 * decoders drop: the fuzzer found "...ZXT=" accepted, rightly)
	 */
	if (strstr(buf, " 200 ") && !memmem(data, size,
		"cHJvbWV0aGV1czpzZWNyZX", 22))
		abort();
	return 0;
}
