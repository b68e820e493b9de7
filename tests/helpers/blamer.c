// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * blamer - victims and neighbours for tests/blame.bats.
 *
 *   blamer append DIR SECS      4 KiB append + fsync, back to back (comm
 *                               "appender"): each fsync commits jbd2
 *   blamer overwrite DIR SECS   8 KiB pwrite + fdatasync over a preallocated,
 *                               already written 8 MiB file ("overwriter"):
 *                               no commit needed, only the data and a flush
 *   blamer storm DIR SECS       metadata storm, no syncs ("storm"): create,
 *                               write 1 KiB, rename, unlink old ones
 *   blamer writer DIR SECS      buffered 1 MiB writes, fsync every 16 MiB,
 *                               over a 64 MiB file ("bigwriter")
 *
 * Prints "ready PID" once set up, then runs for SECS seconds (or until
 * SIGTERM), removes its files and prints "done PID N" (N: syncs or files).
 * Any failing call: one line on stderr, files removed, exit 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>

static volatile sig_atomic_t stop;
static char dir[3000], path[4096];
static int nkeep = 64;

static void on_term(int sig)
{
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void cleanup_storm(long upto)
{
	for (long i = upto - nkeep; i < upto; i++) {
		if (i < 0)
			continue;
		snprintf(path, sizeof(path), "%s/s.%ld", dir, i);
		unlink(path);
	}
}

static void die(const char *what)
{
	fprintf(stderr, "blamer: %s: %s\n", what, strerror(errno));
	snprintf(path, sizeof(path), "%s/blamer.dat", dir);
	unlink(path);
	exit(1);
}

static int open_data(int flags)
{
	int fd;

	snprintf(path, sizeof(path), "%s/blamer.dat", dir);
	fd = open(path, O_RDWR | O_CREAT | flags, 0644);
	if (fd < 0)
		die("open");
	return fd;
}

static void fill(int fd, size_t bytes)
{
	static char buf[1 << 20];

	memset(buf, 'x', sizeof(buf));
	for (size_t off = 0; off < bytes; off += sizeof(buf))
		if (pwrite(fd, buf, sizeof(buf), off) != sizeof(buf))
			die("pwrite");
	if (fsync(fd))
		die("fsync");
}

static long run_append(double end)
{
	char buf[4096];
	int fd = open_data(O_TRUNC | O_APPEND);
	long n = 0;

	memset(buf, 'a', sizeof(buf));
	printf("ready %d\n", getpid());
	fflush(stdout);
	while (!stop && now() < end) {
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			die("write");
		if (fsync(fd))
			die("fsync");
		n++;
		if (n % 4096 == 0 && ftruncate(fd, 0))
			die("ftruncate");
	}
	close(fd);
	return n;
}

static long run_overwrite(double end)
{
	char buf[8192];
	int fd = open_data(O_TRUNC);
	long n = 0;

	memset(buf, 'o', sizeof(buf));
	fill(fd, 8 << 20);
	printf("ready %d\n", getpid());
	fflush(stdout);
	while (!stop && now() < end) {
		off_t off = (off_t)(n % 1024) * sizeof(buf);

		if (pwrite(fd, buf, sizeof(buf), off) != sizeof(buf))
			die("pwrite");
		if (fdatasync(fd))
			die("fdatasync");
		n++;
	}
	close(fd);
	return n;
}

static long run_storm(double end)
{
	char buf[1024], to[4096 + 8];
	long n = 0;

	memset(buf, 's', sizeof(buf));
	printf("ready %d\n", getpid());
	fflush(stdout);
	while (!stop && now() < end) {
		int fd;

		snprintf(path, sizeof(path), "%s/t.%ld", dir, n);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			die("create");
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			die("write");
		close(fd);
		snprintf(to, sizeof(to), "%s/s.%ld", dir, n);
		if (rename(path, to))
			die("rename");
		if (n >= nkeep) {
			snprintf(path, sizeof(path), "%s/s.%ld", dir, n - nkeep);
			unlink(path);
		}
		n++;
	}
	cleanup_storm(n);
	return n;
}

static long run_writer(double end)
{
	static char buf[1 << 20];
	int fd = open_data(O_TRUNC);
	long n = 0, mb = 0;

	memset(buf, 'w', sizeof(buf));
	printf("ready %d\n", getpid());
	fflush(stdout);
	while (!stop && now() < end) {
		if (pwrite(fd, buf, sizeof(buf), (off_t)(mb % 64) << 20) !=
		    sizeof(buf))
			die("pwrite");
		if (++mb % 16 == 0) {
			if (fsync(fd))
				die("fsync");
			n++;
		}
	}
	close(fd);
	return n;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_term };
	double secs;
	long n;

	if (argc != 4 || (secs = atof(argv[3])) <= 0) {
		fprintf(stderr, "usage: blamer append|overwrite|storm|writer DIR SECS\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s", argv[2]);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (!strcmp(argv[1], "append")) {
		prctl(PR_SET_NAME, "appender");
		n = run_append(now() + secs);
	} else if (!strcmp(argv[1], "overwrite")) {
		prctl(PR_SET_NAME, "overwriter");
		n = run_overwrite(now() + secs);
	} else if (!strcmp(argv[1], "storm")) {
		prctl(PR_SET_NAME, "storm");
		n = run_storm(now() + secs);
	} else if (!strcmp(argv[1], "writer")) {
		prctl(PR_SET_NAME, "bigwriter");
		n = run_writer(now() + secs);
	} else {
		fprintf(stderr, "blamer: unknown mode '%s'\n", argv[1]);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/blamer.dat", dir);
	unlink(path);
	printf("done %d %ld\n", getpid(), n);
	return 0;
}
