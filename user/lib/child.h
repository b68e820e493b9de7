/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * child.h - `trace -- CMD ARGS...`: start CMD held before exec until the
 * tracer is attached and filtered to it, then let it run, and give its
 * exit status the shell's way.
 */
#ifndef __FSS_CHILD_H
#define __FSS_CHILD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct fss_child {
	pid_t pid;		/* 0: none */
	int go_fd;		/* write end: one byte lets the child exec */
	int err_fd;		/* read end: errno of a failed exec, EOF on exec */
	char *const *argv;
};

/*
 * Fork; the child restores mask (the caller's signal mask before it
 * blocked its own signals) and default SIGPIPE, then waits for
 * fss_child_release() before exec'ing argv[0] (PATH searched).  It does
 * nothing else before exec.  0, or -errno with one line in err.
 */
int fss_child_spawn(struct fss_child *c, char *const argv[],
		    const sigset_t *mask, char *err, size_t errlen);

/*
 * Let the child exec.  0 once it has exec'd; when exec failed, the child
 * is reaped and -errno returned with one line in err ("cannot run 'CMD':
 * No such file or directory").
 */
int fss_child_release(struct fss_child *c, char *err, size_t errlen);

/* The tracer could not start: the child exits without exec'ing; reaped. */
void fss_child_abort(struct fss_child *c);

/*
 * Reap the child if it has exited (block: wait for it).  1 and *code set
 * (its exit code, or 128 + the signal that killed it), 0 still running,
 * -errno on error.
 */
int fss_child_reap(struct fss_child *c, int block, int *code);

/* What a shell returns when CMD cannot be run: 127 not found, else 126. */
int fss_child_exec_code(int err);

/*
 * A signal (taken with sigwaitinfo) while the child runs.  SIGCHLD: true
 * when the child has exited, its exit code in *rc.  SIGINT/SIGTERM: the
 * first (nth 1) is passed on to the child unless the terminal sent it to
 * both already; a second one means stop (*rc 128 + sig).  True: stop.
 */
bool fss_child_on_signal(struct fss_child *c, int sig, const siginfo_t *si,
			 int nth, int *rc);

#endif /* __FSS_CHILD_H */
