// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * fuzz_webcfg.c - libFuzzer target: the exporter's --web.config.file
 * parser (exporter/webcfg.c, libyaml) on the input as the file.  The file
 * sits alone in a private directory, so a relative cert_file / key_file /
 * client_ca_file names nothing; what it takes must hold together (TLS
 * with a certificate and a key, versions in order, every user with a
 * bcrypt hash), and a refusal is one line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include "exporter/webcfg.h"

static char dir[] = "/tmp/fsyncscope-fuzz-webcfg.XXXXXX";
static char path[sizeof(dir) + 16];

/* the file and its directory go when the fuzzer exits */
static void cfg_remove(void)
{
	unlink(path);
	rmdir(dir);
}

static const char *cfg_file(const uint8_t *data, size_t size)
{
	int fd;

	if (!path[0]) {
		if (!mkdtemp(dir))
			abort();
		snprintf(path, sizeof(path), "%s/web.yml", dir);
		atexit(cfg_remove);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size || close(fd))
		abort();
	return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = cfg_file(data, size);
	struct fss_webcfg c;
	char err[512];

	err[0] = '\0';
	if (fss_webcfg_load(path, &c, err, sizeof(err))) {
		if (!err[0] || strchr(err, '\n'))
			abort();	/* a refusal is one line */
		return 0;
	}
	if (c.tls && (!c.cert || !c.key))
		abort();
	if (c.min_version > c.max_version && c.max_version)
		abort();
	for (int i = 0; i < c.nusers; i++)
		if (!c.users[i].name || !c.users[i].hash ||
		    strncmp(c.users[i].hash, "$2", 2))
			abort();
	fss_webcfg_priorities(&c);
	fss_webcfg_free(&c);
	return 0;
}
