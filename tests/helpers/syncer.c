// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * syncer - test helper for `fsyncscope trace`: a process that does an exact,
 * known number of syncs of each kind on files in DIR, when told to.
 *
 *   syncer [--fsync N] [--fdatasync N] [--dsync N] [--sfr N] [--msync N]
 *          [--syncfs N] [--uring N] [--comm NAME] [--go FIFO] DIR
 *
 * Sequence: create the files (no syncs), print "ready PID" on stdout, wait
 * for one byte on the FIFO (--go; without it start at once), do the syncs,
 * print "done PID" with the counts as one JSON line, then wait for SIGTERM,
 * SIGINT or SIGUSR1 (the files stay open so a tracer can still resolve
 * their paths from /proc/PID/fd), remove the files and exit 0.
 * Any failing call: one line on stderr, files removed, exit 1.
 *
 * io_uring fsyncs use the raw system calls (no liburing): one ring, one
 * IORING_OP_FSYNC at a time, waited for before the next one.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#define BS 4096

enum { K_FSYNC, K_FDATASYNC, K_DSYNC, K_SFR, K_MSYNC, K_SYNCFS, K_URING, K_MAX };
static const char *kind_names[K_MAX] = {
	"fsync", "fdatasync", "dsync_write", "sync_file_range", "msync",
	"syncfs", "io_uring_fsync",
};

static char paths[3][4096];
static int npaths;

static void cleanup(void)
{
	for (int i = 0; i < npaths; i++)
		unlink(paths[i]);
}

static void die(const char *what)
{
	fprintf(stderr, "syncer: %s: %s\n", what, strerror(errno));
	cleanup();
	exit(1);
}

static int open_file(const char *dir, const char *name, int flags)
{
	char *p = paths[npaths];
	int fd;

	snprintf(p, sizeof(paths[0]), "%s/syncer.%d.%s", dir, getpid(), name);
	fd = open(p, O_RDWR | O_CREAT | O_TRUNC | flags, 0600);
	if (fd < 0)
		die(p);
	npaths++;
	return fd;
}

/* ---- a minimal io_uring: one submission, one completion at a time ---- */
struct ring {
	int fd;
	unsigned int *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

static int ring_init(struct ring *r)
{
	struct io_uring_params p;
	void *sq, *cq;
	size_t sqlen, cqlen;

	memset(&p, 0, sizeof(p));
	r->fd = syscall(__NR_io_uring_setup, 4, &p);
	if (r->fd < 0)
		return -1;
	sqlen = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	cqlen = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	sq = mmap(NULL, sqlen, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		  r->fd, IORING_OFF_SQ_RING);
	if (sq == MAP_FAILED)
		return -1;
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		cq = sq;
		if (cqlen > sqlen)
			return errno = EINVAL, -1;
	} else {
		cq = mmap(NULL, cqlen, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			  r->fd, IORING_OFF_CQ_RING);
		if (cq == MAP_FAILED)
			return -1;
	}
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		       IORING_OFF_SQES);
	if (r->sqes == MAP_FAILED)
		return -1;
	r->sq_tail = (unsigned int *)((char *)sq + p.sq_off.tail);
	r->sq_mask = (unsigned int *)((char *)sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)((char *)sq + p.sq_off.array);
	r->cq_head = (unsigned int *)((char *)cq + p.cq_off.head);
	r->cq_tail = (unsigned int *)((char *)cq + p.cq_off.tail);
	r->cq_mask = (unsigned int *)((char *)cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)((char *)cq + p.cq_off.cqes);
	return 0;
}

/* Submit one IORING_OP_FSYNC on fd and wait for its completion. */
static int ring_fsync(struct ring *r, int fd, unsigned long long tag)
{
	unsigned int tail = *r->sq_tail, idx = tail & *r->sq_mask, head;
	struct io_uring_sqe *sqe = &r->sqes[idx];
	struct io_uring_cqe *cqe;

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_FSYNC;
	sqe->fd = fd;
	sqe->user_data = tag;
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, r->fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		return -1;
	head = *r->cq_head;
	if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
		return errno = EIO, -1;
	cqe = &r->cqes[head & *r->cq_mask];
	if (cqe->user_data != tag)
		return errno = EIO, -1;
	if (cqe->res < 0)
		return errno = -cqe->res, -1;
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return 0;
}

static long parse_count(const char *s, const char *opt)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0 || v > 1000000) {
		fprintf(stderr, "syncer: %s: not a count: '%s'\n", opt, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "fsync", required_argument, NULL, 'f' },
		{ "fdatasync", required_argument, NULL, 'd' },
		{ "dsync", required_argument, NULL, 'o' },
		{ "sfr", required_argument, NULL, 'r' },
		{ "msync", required_argument, NULL, 'm' },
		{ "syncfs", required_argument, NULL, 's' },
		{ "uring", required_argument, NULL, 'u' },
		{ "comm", required_argument, NULL, 'c' },
		{ "go", required_argument, NULL, 'g' },
		{ NULL, 0, NULL, 0 },
	};
	long n[K_MAX] = {};
	const char *go = NULL, *dir;
	char buf[BS], c;
	int opt, fd, dfd, mfd, sig;
	struct ring ring = { .fd = -1 };
	sigset_t set;
	char *map;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'f': n[K_FSYNC] = parse_count(optarg, "--fsync"); break;
		case 'd': n[K_FDATASYNC] = parse_count(optarg, "--fdatasync"); break;
		case 'o': n[K_DSYNC] = parse_count(optarg, "--dsync"); break;
		case 'r': n[K_SFR] = parse_count(optarg, "--sfr"); break;
		case 'm': n[K_MSYNC] = parse_count(optarg, "--msync"); break;
		case 's': n[K_SYNCFS] = parse_count(optarg, "--syncfs"); break;
		case 'u': n[K_URING] = parse_count(optarg, "--uring"); break;
		case 'c':
			if (prctl(PR_SET_NAME, optarg, 0, 0, 0))
				die("prctl(PR_SET_NAME)");
			break;
		case 'g': go = optarg; break;
		default:
			fprintf(stderr, "usage: syncer [--fsync N] [--fdatasync N] [--dsync N] [--sfr N] [--msync N] [--syncfs N] [--uring N] [--comm NAME] [--go FIFO] DIR\n");
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "syncer: exactly one DIR expected\n");
		return 2;
	}
	dir = argv[optind];

	/* signals we wait for at the end: blocked now, taken with sigwait */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);

	memset(buf, 0x5a, sizeof(buf));
	fd = open_file(dir, "data", 0);
	dfd = open_file(dir, "dsync", O_DSYNC);
	mfd = open_file(dir, "mmap", 0);
	if (ftruncate(mfd, BS))
		die("ftruncate");
	map = mmap(NULL, BS, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	if (map == MAP_FAILED)
		die("mmap");
	if (n[K_URING] && ring_init(&ring))
		die("io_uring_setup");

	printf("ready %d\n", getpid());
	fflush(stdout);
	if (go) {
		int g = open(go, O_RDONLY);

		if (g < 0)
			die(go);
		if (read(g, &c, 1) != 1)
			die("read go fifo");
		close(g);
	}

	/* every sync is preceded by a write, so there is data to sync */
	for (long i = 0; i < n[K_FSYNC]; i++)
		if (pwrite(fd, buf, BS, 0) != BS || fsync(fd))
			die("fsync");
	for (long i = 0; i < n[K_FDATASYNC]; i++)
		if (pwrite(fd, buf, BS, 0) != BS || fdatasync(fd))
			die("fdatasync");
	for (long i = 0; i < n[K_DSYNC]; i++)
		if (pwrite(dfd, buf, BS, 0) != BS)
			die("O_DSYNC pwrite");
	for (long i = 0; i < n[K_SFR]; i++)
		if (pwrite(fd, buf, BS, 0) != BS ||
		    sync_file_range(fd, 0, BS, SYNC_FILE_RANGE_WAIT_BEFORE |
				    SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER))
			die("sync_file_range");
	for (long i = 0; i < n[K_MSYNC]; i++) {
		map[i % BS]++;
		if (msync(map, BS, MS_SYNC))
			die("msync");
	}
	for (long i = 0; i < n[K_SYNCFS]; i++)
		if (pwrite(fd, buf, BS, 0) != BS || syncfs(fd))
			die("syncfs");
	for (long i = 0; i < n[K_URING]; i++)
		if (pwrite(fd, buf, BS, 0) != BS || ring_fsync(&ring, fd, i + 1))
			die("io_uring fsync");

	printf("done %d {", getpid());
	for (int k = 0; k < K_MAX; k++)
		printf("%s\"%s\":%ld", k ? "," : "", kind_names[k], n[k]);
	printf("}\n");
	fflush(stdout);

	sigwait(&set, &sig);
	cleanup();
	return 0;
}
