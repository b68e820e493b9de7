// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * progress.c - the progress line of a running test (progress.h).  A
 * thread redraws it every 250 ms; begin/end start and stop that thread,
 * so the workload's own threads never touch the terminal.
 */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "lib/progress.h"

#define TICK_NS		(250 * 1000 * 1000L)

static struct {
	pthread_t thread;
	bool running;
	bool stop;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	char label[96];
	double seconds;
	__u64 count;
	struct timespec start;
	int drawn;		/* width of the line on screen, 0: none */
} P = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

static double since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) + (now.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Overwrite what is on the line with spaces and go back to its start. */
static void clear_line(void)
{
	if (!P.drawn)
		return;
	fprintf(stderr, "\r%*s\r", P.drawn, "");
	fflush(stderr);
	P.drawn = 0;
}

static void draw(double el)
{
	char line[160];
	int n;

	if (P.seconds > 0)
		n = snprintf(line, sizeof(line), "%s %.1f / %.1f s", P.label, el,
			     P.seconds);
	else
		n = snprintf(line, sizeof(line), "%s %.1f s (%llu ops per job)",
			     P.label, el, (unsigned long long)P.count);
	if (n > 79)
		n = 79;		/* one terminal line, never wrapped */
	fprintf(stderr, "\r%.*s%*s", n, line, P.drawn > n ? P.drawn - n : 0, "");
	fflush(stderr);
	if (n > P.drawn)
		P.drawn = n;
}

static void *loop(void *arg)
{
	struct timespec wake;

	pthread_mutex_lock(&P.lock);
	clock_gettime(CLOCK_REALTIME, &wake);
	while (!P.stop) {
		double el = since(&P.start);

		if (el >= FSS_PROGRESS_AFTER_S)
			draw(el);
		wake.tv_nsec += TICK_NS;
		if (wake.tv_nsec >= 1000000000L) {
			wake.tv_sec++;
			wake.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&P.cond, &P.lock, &wake);
	}
	clear_line();
	pthread_mutex_unlock(&P.lock);
	return NULL;
}

void fss_progress_begin(const char *tag, const char *name, double seconds,
			__u64 count)
{
	sigset_t all, old;

	if (P.running || !isatty(STDERR_FILENO))
		return;
	snprintf(P.label, sizeof(P.label), "%s%s%s", tag ? tag : "",
		 tag ? ": " : "", name);
	P.seconds = count ? 0 : seconds;
	P.count = count;
	P.stop = false;
	P.drawn = 0;
	clock_gettime(CLOCK_MONOTONIC, &P.start);
	/* the thread takes no signal: they stay with the workload's threads */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (!pthread_create(&P.thread, NULL, loop, NULL))
		P.running = true;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void fss_progress_end(void)
{
	if (!P.running)
		return;
	pthread_mutex_lock(&P.lock);
	P.stop = true;
	pthread_cond_signal(&P.cond);
	pthread_mutex_unlock(&P.lock);
	pthread_join(P.thread, NULL);
	P.running = false;
}
