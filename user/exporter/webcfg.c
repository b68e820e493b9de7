// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * webcfg.c - --web.config.file (see webcfg.h): libyaml's document loader,
 * a walk over the keys exporter-toolkit defines, GnuTLS to check the
 * certificate, key and CA, libxcrypt's crypt_r for the bcrypt hashes.
 * A key exporter-toolkit has and fsyncscope does not implement
 * (cipher_suites, http_server_config, ...) is an error, never ignored.
 */
#include <crypt.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <yaml.h>
#include "exporter/webcfg.h"

#define FILE_MAX	(1 << 20)	/* a bigger PEM file is not one */

struct ctx {
	yaml_document_t *doc;
	const char *path;		/* the config file */
	char dir[PATH_MAX];		/* its directory (relative names) */
	char *err;
	size_t errlen;
};

static int fail(struct ctx *x, const yaml_node_t *n, const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n)
		snprintf(x->err, x->errlen,
			 "--web.config.file %s: line %zu: %s", x->path,
			 n->start_mark.line + 1, msg);
	else
		snprintf(x->err, x->errlen, "--web.config.file %s: %s",
			 x->path, msg);
	/* one line, whatever a quoted key or value held (the fuzzer's "\n") */
	for (char *p = x->err; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return -1;
}

static const char *scalar(const yaml_node_t *n)
{
	if (!n || n->type != YAML_SCALAR_NODE)
		return NULL;
	return (const char *)n->data.scalar.value;
}

/* A null value (`key:` or `key: ~`): the key is not set. */
static bool is_null(const yaml_node_t *n)
{
	const char *s = scalar(n);

	return s && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!s[0] || !strcmp(s, "~") || !strcmp(s, "null"));
}

/* The whole file, NUL-terminated, at most FILE_MAX bytes. */
static char *read_file(struct ctx *x, const yaml_node_t *n, const char *key,
		       const char *name)
{
	char fn[PATH_MAX * 2];
	struct stat st;
	char *buf;
	size_t len;
	FILE *f;

	if (name[0] == '/' || !x->dir[0])
		snprintf(fn, sizeof(fn), "%s", name);
	else
		snprintf(fn, sizeof(fn), "%s/%s", x->dir, name);
	f = fopen(fn, "re");
	if (!f) {
		fail(x, n, "%s: %s: %s", key, fn, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode) ||
	    st.st_size > FILE_MAX) {
		fail(x, n, "%s: %s: not a file of at most 1 MiB", key, fn);
		fclose(f);
		return NULL;
	}
	buf = malloc(st.st_size + 1);
	len = buf ? fread(buf, 1, st.st_size, f) : 0;
	fclose(f);
	if (!buf || len != (size_t)st.st_size) {
		fail(x, n, "%s: %s: cannot read it", key, fn);
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

static int parse_version(struct ctx *x, const yaml_node_t *v, const char *key,
			 int *out)
{
	static const char *const names[] = {
		"TLS10", "TLS11", "TLS12", "TLS13",
	};
	const char *s = scalar(v);

	for (int i = 0; s && i < 4; i++)
		if (!strcmp(s, names[i])) {
			*out = 10 + i;
			return 0;
		}
	return fail(x, v, "tls_server_config.%s: '%s' is not TLS10, TLS11, "
		    "TLS12 or TLS13", key, s ? s : "(not a string)");
}

static int parse_cauth(struct ctx *x, const yaml_node_t *v,
		       enum fss_web_cauth *out)
{
	static const char *const names[] = {
		"NoClientCert", "RequestClientCert", "RequireAnyClientCert",
		"VerifyClientCertIfGiven", "RequireAndVerifyClientCert",
	};
	const char *s = scalar(v);

	for (int i = 0; s && i < 5; i++)
		if (!strcmp(s, names[i])) {
			*out = (enum fss_web_cauth)i;
			return 0;
		}
	return fail(x, v, "tls_server_config.client_auth_type: '%s' is not "
		    "one of NoClientCert, RequestClientCert, "
		    "RequireAnyClientCert, VerifyClientCertIfGiven, "
		    "RequireAndVerifyClientCert", s ? s : "(not a string)");
}

/* Certificate and key load together and match; the CA has certificates. */
static int check_tls(struct ctx *x, const yaml_node_t *n, struct fss_webcfg *c)
{
	gnutls_certificate_credentials_t cred;
	gnutls_datum_t cd = { (unsigned char *)c->cert, strlen(c->cert) };
	gnutls_datum_t kd = { (unsigned char *)c->key, strlen(c->key) };
	int rc;

	if (gnutls_certificate_allocate_credentials(&cred))
		return fail(x, n, "tls_server_config: out of memory");
	rc = gnutls_certificate_set_x509_key_mem(cred, &cd, &kd,
						 GNUTLS_X509_FMT_PEM);
	if (rc < 0) {
		gnutls_certificate_free_credentials(cred);
		return fail(x, n, "tls_server_config: cert_file and key_file: "
			    "%s", gnutls_strerror(rc));
	}
	if (c->ca) {
		gnutls_datum_t ad = { (unsigned char *)c->ca, strlen(c->ca) };

		rc = gnutls_certificate_set_x509_trust_mem(cred, &ad,
							   GNUTLS_X509_FMT_PEM);
		if (rc <= 0) {
			gnutls_certificate_free_credentials(cred);
			return fail(x, n, "tls_server_config.client_ca_file: "
				    "%s", rc < 0 ? gnutls_strerror(rc) :
				    "no certificate in it");
		}
	}
	gnutls_certificate_free_credentials(cred);
	return 0;
}

/* Keys of exporter-toolkit's tls_server_config that fsyncscope does not do. */
static bool unsupported_tls_key(const char *key)
{
	static const char *const keys[] = {
		"cipher_suites", "curve_preferences",
		"prefer_server_cipher_suites", "cert", "key",
		"client_allowed_sans",
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i]))
			return true;
	return false;
}

/* The files and their checks, once the keys are read. */
static int tls_files(struct ctx *x, const yaml_node_t *m,
		     const yaml_node_t *certn, const yaml_node_t *keyn,
		     const yaml_node_t *can, struct fss_webcfg *c)
{
	if (!certn || !keyn)
		return fail(x, m, "tls_server_config: %s is missing",
			    certn ? "key_file" : "cert_file");
	if (c->max_version && c->max_version < c->min_version)
		return fail(x, m, "tls_server_config: max_version is below "
			    "min_version");
	if (can && c->cauth == FSS_CAUTH_NONE)
		return fail(x, can, "tls_server_config.client_ca_file: set, "
			    "but client_auth_type is NoClientCert");
	/* libmicrohttpd asks for a client certificate only with a CA */
	if (!can && c->cauth != FSS_CAUTH_NONE)
		return fail(x, m, "tls_server_config.client_auth_type: needs "
			    "client_ca_file here");
	c->cert = read_file(x, certn, "tls_server_config.cert_file",
			    scalar(certn));
	if (!c->cert)
		return -1;
	c->key = read_file(x, keyn, "tls_server_config.key_file", scalar(keyn));
	if (!c->key)
		return -1;
	if (can) {
		c->ca = read_file(x, can, "tls_server_config.client_ca_file",
				  scalar(can));
		if (!c->ca)
			return -1;
	}
	c->tls = true;
	return check_tls(x, m, c);
}

static int parse_tls(struct ctx *x, const yaml_node_t *m, struct fss_webcfg *c)
{
	const yaml_node_t *certn = NULL, *keyn = NULL, *can = NULL;
	yaml_node_pair_t *p;

	if (is_null(m))
		return 0;
	if (m->type != YAML_MAPPING_NODE)
		return fail(x, m, "tls_server_config: not a mapping");
	for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(x->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(x->doc, p->value);
		const char *key = scalar(k) ? scalar(k) : "";

		if (is_null(v))
			continue;
		if (!strcmp(key, "cert_file") || !strcmp(key, "key_file") ||
		    !strcmp(key, "client_ca_file")) {
			if (!scalar(v))
				return fail(x, v, "tls_server_config.%s: not "
					    "a file name", key);
			if (!strcmp(key, "cert_file"))
				certn = v;
			else if (!strcmp(key, "key_file"))
				keyn = v;
			else
				can = v;
		} else if (!strcmp(key, "min_version")) {
			if (parse_version(x, v, key, &c->min_version))
				return -1;
		} else if (!strcmp(key, "max_version")) {
			if (parse_version(x, v, key, &c->max_version))
				return -1;
		} else if (!strcmp(key, "client_auth_type")) {
			if (parse_cauth(x, v, &c->cauth))
				return -1;
		} else {
			return fail(x, k, "tls_server_config.%s: %s", key,
				    unsupported_tls_key(key) ?
				    "not supported by fsyncscope" :
				    "unknown key");
		}
	}
	return tls_files(x, m, certn, keyn, can, c);
}

/*
 * A bcrypt hash crypt_r takes: $2a$, $2b$ or $2y$, cost, 53 characters.
 * The cost is at most WEB_BCRYPT_MAX_COST: every failed login pays it
 * (2^cost rounds; cost 10 took 90 ms here, so 14 is 1.5 s and the cost 20
 * the fuzzer wrote over a minute per scrape, and as long to load).
 */
#define WEB_BCRYPT_MAX_COST	14
static bool bcrypt_ok(const char *h)
{
	struct crypt_data cd;
	const char *out;

	if (strlen(h) != 60 || strncmp(h, "$2", 2) || !strchr("aby", h[2]) ||
	    h[3] != '$' || h[4] < '0' || h[4] > '9' || h[5] < '0' ||
	    h[5] > '9' || h[6] != '$' ||
	    (h[4] - '0') * 10 + (h[5] - '0') > WEB_BCRYPT_MAX_COST)
		return false;
	memset(&cd, 0, sizeof(cd));
	out = crypt_r("x", h, &cd);
	return out && out[0] == '$' && strlen(out) == 60 &&
	       !strncmp(out, h, 29);
}

static int parse_users(struct ctx *x, const yaml_node_t *m,
		       struct fss_webcfg *c)
{
	struct fss_web_user *nu;
	yaml_node_pair_t *p;
	int n;

	if (is_null(m))
		return 0;
	if (m->type != YAML_MAPPING_NODE)
		return fail(x, m, "basic_auth_users: not a mapping of user: "
			    "bcrypt hash");
	n = m->data.mapping.pairs.top - m->data.mapping.pairs.start;
	c->users = calloc(n ? n : 1, sizeof(*c->users));
	if (!c->users)
		return fail(x, m, "out of memory");
	for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top;
	     p++) {
		const char *u = scalar(yaml_document_get_node(x->doc, p->key));
		yaml_node_t *v = yaml_document_get_node(x->doc, p->value);
		const char *h = scalar(v);

		if (!u || !u[0] || strchr(u, ':'))
			return fail(x, v, "basic_auth_users: a user name is "
				    "empty, not a string or has a ':'");
		if (!h || !bcrypt_ok(h))
			return fail(x, v, "basic_auth_users.%s: not a bcrypt "
				    "hash ($2a$, $2b$ or $2y$, cost at most "
				    "14, 60 characters)", u);
		for (int i = 0; i < c->nusers; i++)
			if (!strcmp(c->users[i].name, u))
				return fail(x, v, "basic_auth_users.%s: given "
					    "twice", u);
		nu = &c->users[c->nusers++];
		nu->name = strdup(u);
		nu->hash = strdup(h);
		if (!nu->name || !nu->hash)
			return fail(x, v, "out of memory");
	}
	return 0;
}

static int parse_root(struct ctx *x, const yaml_node_t *root,
		      struct fss_webcfg *c)
{
	bool seen_tls = false, seen_users = false;
	yaml_node_pair_t *p;

	if (!root || is_null(root))
		return 0;		/* empty: plain HTTP, no auth */
	if (root->type != YAML_MAPPING_NODE)
		return fail(x, root, "not a mapping (tls_server_config, "
			    "basic_auth_users)");
	for (p = root->data.mapping.pairs.start;
	     p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(x->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(x->doc, p->value);
		const char *key = scalar(k) ? scalar(k) : "";

		if ((!strcmp(key, "tls_server_config") && seen_tls) ||
		    (!strcmp(key, "basic_auth_users") && seen_users))
			return fail(x, k, "%s: given twice", key);
		if (!strcmp(key, "tls_server_config")) {
			seen_tls = true;
			if (parse_tls(x, v, c))
				return -1;
		} else if (!strcmp(key, "basic_auth_users")) {
			seen_users = true;
			if (parse_users(x, v, c))
				return -1;
		} else {
			return fail(x, k, "%s: %s", key,
				    !strcmp(key, "http_server_config") ?
				    "not supported by fsyncscope" :
				    "unknown key");
		}
	}
	return 0;
}

int fss_webcfg_load(const char *path, struct fss_webcfg *c, char *err,
		    size_t errlen)
{
	struct ctx x = { .path = path, .err = err, .errlen = errlen };
	yaml_parser_t parser;
	yaml_document_t doc;
	const char *slash = strrchr(path, '/');
	FILE *f;
	int rc;

	memset(c, 0, sizeof(*c));
	c->min_version = 12;		/* exporter-toolkit's default */
	if (slash)		/* "/web.yml": "/" */
		snprintf(x.dir, sizeof(x.dir), "%.*s",
			 (int)(slash - path + (slash == path)), path);
	f = fopen(path, "re");
	if (!f)
		return fail(&x, NULL, "%s", strerror(errno));
	if (!yaml_parser_initialize(&parser)) {
		fclose(f);
		return fail(&x, NULL, "out of memory");
	}
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &doc)) {
		snprintf(err, errlen, "--web.config.file %s: line %zu: %s",
			 path, parser.problem_mark.line + 1,
			 parser.problem ? parser.problem : "not YAML");
		yaml_parser_delete(&parser);
		fclose(f);
		return -1;
	}
	x.doc = &doc;
	rc = parse_root(&x, yaml_document_get_root_node(&doc), c);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	fclose(f);
	if (rc)
		fss_webcfg_free(c);
	return rc;
}

void fss_webcfg_free(struct fss_webcfg *c)
{
	for (int i = 0; i < c->nusers; i++) {
		free(c->users[i].name);
		free(c->users[i].hash);
	}
	free(c->users);
	if (c->key)
		explicit_bzero(c->key, strlen(c->key));
	free(c->cert);
	free(c->key);
	free(c->ca);
	memset(c, 0, sizeof(*c));
}

const char *fss_webcfg_priorities(const struct fss_webcfg *c)
{
	static char buf[128];
	int hi = c->max_version ? c->max_version : 13;

	snprintf(buf, sizeof(buf), "NORMAL:-VERS-ALL");
	for (int v = hi; v >= c->min_version; v--)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 ":+VERS-TLS1.%d", v - 10);
	return buf;
}

/* Equal strings, in a time that depends only on the length of b. */
static bool ct_equal(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char d = la != lb;

	for (size_t i = 0; i < lb; i++)
		d |= (unsigned char)(a[i < la ? i : 0] ^ b[i]);
	return !d;
}

/* SHA-256 of user, password and hash (0), or -1. */
static int login_digest(const char *user, const char *pass, const char *hash,
			unsigned char *out)
{
	size_t lu = strlen(user), lp = strlen(pass), lh = strlen(hash);
	char *buf = malloc(lu + lp + lh + 3);
	int rc;

	if (!buf)
		return -1;
	memcpy(buf, user, lu + 1);
	memcpy(buf + lu + 1, pass, lp + 1);
	memcpy(buf + lu + lp + 2, hash, lh + 1);
	rc = gnutls_hash_fast(GNUTLS_DIG_SHA256, buf, lu + lp + lh + 3, out);
	explicit_bzero(buf, lu + lp + lh + 3);
	free(buf);
	return rc ? -1 : 0;
}

static bool cached(const struct fss_webcfg *c, const unsigned char *d)
{
	bool hit = false;

	for (int i = 0; i < c->ncache; i++) {
		unsigned char x = 0;

		for (int j = 0; j < 32; j++)
			x |= c->cache[i][j] ^ d[j];
		hit |= !x;
	}
	return hit;
}

bool fss_webcfg_auth(struct fss_webcfg *c, const char *user, const char *pass)
{
	const struct fss_web_user *u = NULL;
	unsigned char d[32];
	struct crypt_data *cd;
	const char *out;
	bool ok, dig;

	if (!c->nusers)
		return true;
	for (int i = 0; i < c->nusers; i++)
		if (user && ct_equal(user, c->users[i].name))
			u = &c->users[i];
	dig = u && pass && !login_digest(user, pass, u->hash, d);
	if (dig && cached(c, d))
		return true;
	cd = calloc(1, sizeof(*cd));
	if (!cd)
		return false;
	/* an unknown user costs a bcrypt too (against the first user's) */
	out = crypt_r(pass ? pass : "", u ? u->hash : c->users[0].hash, cd);
	ok = u && pass && out && ct_equal(out, u->hash);
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	if (ok && dig) {
		memcpy(c->cache[c->next_cache], d, sizeof(d));
		c->next_cache = (c->next_cache + 1) % FSS_WEB_AUTH_CACHE;
		if (c->ncache < FSS_WEB_AUTH_CACHE)
			c->ncache++;
	}
	return ok;
}
