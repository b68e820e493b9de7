/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * webcfg.h - the exporter's --web.config.file, in the format of
 * Prometheus's exporter-toolkit (the one node_exporter and the other
 * exporters take): tls_server_config (cert_file, key_file, client_ca_file,
 * client_auth_type, min_version, max_version) and basic_auth_users (user:
 * bcrypt hash).  Read with libyaml; the files it names are read into
 * memory and checked (certificate and key match, hashes are bcrypt) so a
 * bad file is reported before anything is loaded.
 */
#ifndef __FSS_WEBCFG_H
#define __FSS_WEBCFG_H

#include <stdbool.h>
#include <stddef.h>

/* client_auth_type, in exporter-toolkit's (Go crypto/tls's) words */
enum fss_web_cauth {
	FSS_CAUTH_NONE,			/* NoClientCert (default) */
	FSS_CAUTH_REQUEST,		/* RequestClientCert */
	FSS_CAUTH_REQUIRE_ANY,		/* RequireAnyClientCert */
	FSS_CAUTH_VERIFY_IF_GIVEN,	/* VerifyClientCertIfGiven */
	FSS_CAUTH_REQUIRE_VERIFY,	/* RequireAndVerifyClientCert */
};

struct fss_web_user {
	char *name;
	char *hash;			/* bcrypt: $2a$, $2b$ or $2y$ */
};

#define FSS_WEB_AUTH_CACHE	8

struct fss_webcfg {
	bool tls;
	char *cert, *key, *ca;		/* PEM contents (ca: or NULL) */
	int min_version, max_version;	/* 10..13 (TLS 1.0..1.3) */
	enum fss_web_cauth cauth;
	struct fss_web_user *users;
	int nusers;
	/* SHA-256 of (user, password, hash) of recent good logins */
	unsigned char cache[FSS_WEB_AUTH_CACHE][32];
	int ncache, next_cache;
};

/*
 * Read and check PATH (relative file names in it are relative to its
 * directory, as exporter-toolkit does).  0, or -1 with one line in err
 * naming the file and the key.
 */
int fss_webcfg_load(const char *path, struct fss_webcfg *c, char *err,
		    size_t errlen);
void fss_webcfg_free(struct fss_webcfg *c);

/* GnuTLS priority string for the versions (static storage). */
const char *fss_webcfg_priorities(const struct fss_webcfg *c);

/*
 * Basic auth: true when user and password match one of the users.  The
 * password is checked with crypt_r even for an unknown user, and the
 * hashes compared in constant time.  A good login is remembered (as a
 * SHA-256 of user, password and hash, never the password) so that the
 * scrapes after it cost a hash, not a bcrypt; a bad one always costs a
 * bcrypt.
 */
bool fss_webcfg_auth(struct fss_webcfg *c, const char *user, const char *pass);

#endif /* __FSS_WEBCFG_H */
