// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * child.c - run the command of `trace -- CMD ARGS...` (child.h).
 *
 * Two pipes: the child blocks reading "go" until the tracer has put its pid
 * in the kernel's filter, so not one of its syncs (nor a fork) happens
 * before the tracer sees it; "err" is close-on-exec in the child, so the
 * parent reads EOF when exec worked and the child's errno when it did not.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "lib/child.h"

int fss_child_spawn(struct fss_child *c, char *const argv[],
		    const sigset_t *mask, char *err, size_t errlen)
{
	int go[2], ep[2], e;
	ssize_t n;
	char b;

	memset(c, 0, sizeof(*c));
	c->go_fd = c->err_fd = -1;
	if (pipe2(go, O_CLOEXEC))
		goto fail;
	if (pipe2(ep, O_CLOEXEC)) {
		e = errno;
		close(go[0]);
		close(go[1]);
		errno = e;
		goto fail;
	}
	fflush(NULL);
	c->pid = fork();
	if (c->pid < 0) {
		e = errno;
		close(go[0]); close(go[1]); close(ep[0]); close(ep[1]);
		c->pid = 0;
		errno = e;
		goto fail;
	}
	if (c->pid == 0) {
		/* the child: only async-signal-safe calls from here */
		close(go[1]);
		close(ep[0]);
		signal(SIGPIPE, SIG_DFL);
		sigprocmask(SIG_SETMASK, mask, NULL);
		do
			n = read(go[0], &b, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1 || b != 'g')
			_exit(127);	/* no go: the tracer did not start */
		execvp(argv[0], argv);
		e = errno;
		while (write(ep[1], &e, sizeof(e)) < 0 && errno == EINTR)
			;
		_exit(127);
	}
	close(go[0]);
	close(ep[1]);
	c->go_fd = go[1];
	c->err_fd = ep[0];
	c->argv = argv;
	return 0;
fail:
	e = errno;
	snprintf(err, errlen, "cannot start '%s': %s", argv[0], strerror(e));
	return -e;
}

int fss_child_release(struct fss_child *c, char *err, size_t errlen)
{
	char b = 'g';
	ssize_t n;
	int e = 0, code;

	while ((n = write(c->go_fd, &b, 1)) < 0 && errno == EINTR)
		;
	close(c->go_fd);
	c->go_fd = -1;
	if (n == 1) {
		while ((n = read(c->err_fd, &e, sizeof(e))) < 0 && errno == EINTR)
			;
		if (n == 0)
			e = 0;		/* EOF: exec'd */
		else if (n != sizeof(e))
			e = EIO;
	} else {
		e = errno;		/* the child is gone already */
	}
	close(c->err_fd);
	c->err_fd = -1;
	if (!e)
		return 0;
	snprintf(err, errlen, "cannot run '%s': %s", c->argv[0], strerror(e));
	fss_child_reap(c, 1, &code);
	return -e;
}

void fss_child_abort(struct fss_child *c)
{
	int code;

	if (c->go_fd >= 0)
		close(c->go_fd);
	if (c->err_fd >= 0)
		close(c->err_fd);
	c->go_fd = c->err_fd = -1;
	if (c->pid > 0)
		fss_child_reap(c, 1, &code);
}

int fss_child_reap(struct fss_child *c, int block, int *code)
{
	int st;
	pid_t r;

	if (c->pid <= 0)
		return -ECHILD;
	while ((r = waitpid(c->pid, &st, block ? 0 : WNOHANG)) < 0 &&
	       errno == EINTR)
		;
	if (r < 0)
		return -errno;
	if (r == 0)
		return 0;
	c->pid = 0;
	*code = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
	return 1;
}

int fss_child_exec_code(int err)
{
	return err == ENOENT ? 127 : 126;
}

/*
 * A signal while the child runs (trace -- CMD).  SIGCHLD: stop when CMD has exited, its
 * status in *rc.  SIGINT/SIGTERM: the first is passed on to CMD unless the
 * terminal sent it to both of us already; the trace goes on until CMD
 * exits.  A second one stops the trace (exit 128 + it).  True: stop.
 */
bool fss_child_on_signal(struct fss_child *c, int sig, const siginfo_t *si,
			 int nth, int *rc)
{
	int code;

	if (sig == SIGCHLD) {
		if (fss_child_reap(c, 0, &code) != 1)
			return false;
		*rc = code;
		return true;
	}
	if (c->pid <= 0 || nth > 1) {
		*rc = 128 + sig;
		return true;
	}
	if (si->si_code != SI_KERNEL)
		kill(c->pid, sig);
	return false;
}
