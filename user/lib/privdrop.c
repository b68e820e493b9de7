// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * privdrop.c - see privdrop.h.  glibc applies setgroups/setresgid/
 * setresuid to every thread of the process, and the kernel clears the
 * permitted and effective capabilities of each thread whose uids all
 * become non-zero; libcap-ng clears the calling thread's sets, including
 * the bounding set, explicitly.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <cap-ng.h>
#include "lib/privdrop.h"

int fss_user_lookup(const char *name, struct fss_user *u, char *err,
		    size_t errlen)
{
	struct passwd pw, *res = NULL;
	char buf[4096], *end;
	unsigned long n;

	errno = 0;
	n = strtoul(name, &end, 10);
	if (name[0] && !*end)
		getpwuid_r((uid_t)n, &pw, buf, sizeof(buf), &res);
	else
		getpwnam_r(name, &pw, buf, sizeof(buf), &res);
	if (!res) {
		snprintf(err, errlen, "--user %s: no such user%s%s", name,
			 errno ? ": " : "", errno ? strerror(errno) : "");
		return -1;
	}
	if (!pw.pw_uid || !pw.pw_gid) {
		snprintf(err, errlen, "--user %s: uid or group 0, not an "
			 "unprivileged user", name);
		return -1;
	}
	u->name = name;
	u->uid = pw.pw_uid;
	u->gid = pw.pw_gid;
	return 0;
}

int fss_user_become(const struct fss_user *u, char *err, size_t errlen)
{
	int rc;

	capng_clear(CAPNG_SELECT_BOTH);
	rc = capng_change_id((int)u->uid, (int)u->gid,
			     CAPNG_DROP_SUPP_GRP | CAPNG_CLEAR_BOUNDING);
	if (rc) {
		snprintf(err, errlen,
			 "--user %s: cannot become it (libcap-ng error %d)",
			 u->name, rc);
		return -1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    capng_have_capabilities(CAPNG_SELECT_CAPS) != CAPNG_NONE ||
	    getuid() != u->uid || geteuid() != u->uid || getegid() != u->gid) {
		snprintf(err, errlen,
			 "--user %s: privileges still held after the drop",
			 u->name);
		return -1;
	}
	return 0;
}

int fss_user_clear_bounding(char *err, size_t errlen)
{
	capng_get_caps_process();
	capng_clear(CAPNG_SELECT_BOUNDS);
	if (capng_apply(CAPNG_SELECT_BOUNDS)) {
		snprintf(err, errlen,
			 "cannot clear the capability bounding set");
		return -1;
	}
	return 0;
}

int fss_user_try(const struct fss_user *u, int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (setgroups(0, NULL) || setresgid(u->gid, u->gid, u->gid) ||
		    setresuid(u->uid, u->uid, u->uid))
			_exit(255);
		_exit(fn(arg) & 0xff);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) == 255)
		return -1;
	return WEXITSTATUS(status);
}
