#!/usr/bin/env bats
# `run --ioengine io_uring --iodepth N` (issue 30): each job keeps N ops in
# flight on its own ring, each op an 8 KiB write linked to its fdatasync or
# fsync, timed from submission to the sync's completion.  On an ext4 loop
# image made here; counted runs, so the checks are exact counts and
# structure, never timings (scripts/bench-iouring puts the numbers next to
# fio's, docs/run.md).

load lib
bats_require_minimum_version 1.5.0

setup() {
	fss_need_root
	[ -x "$FSS_BIN" ] || skip "build ./fsyncscope first (make)"
}

teardown() {
	fss_cleanup
}

one_line() {
	[ "$(printf '%s\n' "$1" | grep -c .)" -eq 1 ] ||
		{ echo "expected one stderr line, got: $1" >&2; return 1; }
}

@test "io_uring at depths 1, 4 and 16: exact op and write counts, every op's sync traced as an io_uring fsync with its flush, no files left" {
	local d f
	fss_mkfs ext4
	for d in 1 4 16; do
		f="$FSS_SCRATCH/d$d.json"
		run --separate-stderr "$FSS_BIN" run --ioengine io_uring \
			--iodepth "$d" --method fdatasync --count 100 --json "$FSS_MNT"
		echo "$stderr"
		[ "$status" -eq 0 ]
		printf '%s\n' "$output" > "$f"
		fss_jq "$f" ".tests | length == 1 and (.[0] |
			.name == \"custom.fdatasync\" and .ioengine == \"io_uring\" and
			.iodepth == $d and .status == \"ok\" and .ops == 100 and
			.writes == 100 and .syncs == 100 and
			.sync_batch == \"pair\" and .partial == false and
			.sync_latency_us.p50 > 0 and
			.latency_us.p50 > 0 and .latency_us.p50 <= .latency_us.max)"
		# every op's sync is traced once, as an io_uring fsync (or events
		# were lost); it is the op's tail: the op (write + sync) takes
		# longer than its sync
		fss_jq "$f" '.tests[0] | .drops > 0 or (.syncs_traced == 100 and
			.syncs_by_kind == {"io_uring_fsync": 100} and
			.breakdown_total.mean_us <= .latency_us.mean)'
		# a write-back loop device: each fdatasync of an overwrite flushes
		fss_jq "$f" '.tests[0] | .flush.flushes > 0 and
			.breakdown.device_flush.mean_us > 0'
		[ -z "$(find "$FSS_MNT" -mindepth 1 -maxdepth 1 ! -name lost+found)" ]
	done
	# fsync, two jobs (a ring each), append: the counts add up
	run --separate-stderr "$FSS_BIN" run --ioengine io_uring --iodepth 4 \
		--method fsync --pattern append --jobs 2 --count 50 --no-trace \
		--json "$FSS_MNT"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > "$FSS_SCRATCH/app.json"
	fss_jq "$FSS_SCRATCH/app.json" '.tests[0] | .ops == 100 and
		.writes == 100 and .jobs == 2 and .iodepth == 4 and
		.pattern == "append"'
	# the plain title says so; the sync engine says nothing of io_uring
	run -0 "$FSS_BIN" run --ioengine io_uring --iodepth 4 --method fdatasync \
		--count 20 --no-trace "$FSS_MNT"
	[[ "$output" == *"io_uring depth 4:"* ]]
	run -0 "$FSS_BIN" run --method fdatasync --count 20 --no-trace --json \
		"$FSS_MNT"
	printf '%s\n' "$output" > "$FSS_SCRATCH/sync.json"
	fss_jq "$FSS_SCRATCH/sync.json" '.tests[0] | .ioengine == "sync" and
		.iodepth == null'
}

@test "io_uring bad combinations: one stderr line, exit 2, nothing run" {
	fss_mkfs ext4 64
	run -2 --separate-stderr "$FSS_BIN" run --iodepth 4 --method fdatasync "$FSS_MNT"
	one_line "$stderr"
	[[ "$stderr" == *"--iodepth needs --ioengine io_uring"* ]]
	run -2 --separate-stderr "$FSS_BIN" run --ioengine io_uring \
		--method fsync_writethrough "$FSS_MNT"
	one_line "$stderr"
	run -2 --separate-stderr "$FSS_BIN" run --ioengine io_uring \
		--sync-batch fio --method open_datasync "$FSS_MNT"
	one_line "$stderr"
	[[ "$stderr" == *"--sync-batch fio runs --method fdatasync or fsync"* ]]
	run -2 --separate-stderr "$FSS_BIN" run --ioengine io_uring \
		--method fdatasync --writes-per-sync 2 "$FSS_MNT"
	one_line "$stderr"
	for bad in 0 4097 -1 x ''; do
		run -2 --separate-stderr "$FSS_BIN" run --ioengine io_uring \
			--iodepth "$bad" "$FSS_MNT"
		one_line "$stderr"
	done
	run -2 --separate-stderr "$FSS_BIN" run --ioengine libaio "$FSS_MNT"
	one_line "$stderr"
	[[ "$stderr" == *"bad --ioengine"* ]]
	# 16 MiB for 4096 blocks of 8 KiB in flight: too small, said before
	run -2 --separate-stderr "$FSS_BIN" run --ioengine io_uring \
		--iodepth 4096 --method fdatasync --file-size 16m "$FSS_MNT"
	one_line "$stderr"
	[ -z "$output" ]
	[ -z "$(find "$FSS_MNT" -mindepth 1 -maxdepth 1 ! -name lost+found)" ]
}

@test "--sweep iodepth=1,4: one test per depth, the little object (L = IOPS x mean latency, Little's IOPS, 1 / latency) and its text table, report prints the same bytes" {
	local f="$FSS_SCRATCH/sw.json" t="$FSS_SCRATCH/sw.txt"
	fss_mkfs ext4
	run --separate-stderr "$FSS_BIN" run --ioengine io_uring \
		--sweep iodepth=1,4 --method fdatasync --count 60 \
		--save "$f" "$FSS_MNT"
	echo "$stderr"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > "$t"
	fss_jq "$f" '[.tests[] | [.name, .iodepth, .ops, .jobs]] ==
		[["sweep.iodepth1", 1, 60, 1], ["sweep.iodepth4", 4, 60, 1]] and
		.options.sweep_iodepth == [1, 4] and .options.sweep_jobs == null and
		.options.iodepth == null and [.sweep[].iodepth] == [1, 4]'
	# every point holds the law's terms as defined (rounded to 3 places)
	fss_jq "$f" '.little | .axis == "iodepth" and .base_level == 1 and
		.base_concurrency == 1 and
		.naive_capacity == .points[0].naive_capacity and
		([.points[] | [.level, .concurrency]] == [[1, 1], [4, 4]]) and
		([.points[] | .status == "ok" and
		  ((.L - .ops_per_sec * .mean_us / 1e6) | fabs) < 0.002 and
		  ((.little_iops - .concurrency * 1e6 / .mean_us) | fabs) <
			0.002 * .little_iops and
		  ((.naive_capacity - 1e6 / .mean_us) | fabs) <
			0.002 * .naive_capacity and
		  .p50_us <= .p99_us] | all) and
		.points[0].speedup == 1'
	grep -q "^Sweep over io_uring depth: fdatasync" "$t"
	grep -q "^Little's law check (L = IOPS x mean latency, expect L close to depth):" "$t"
	[ "$(grep -cE '^ +(1|4) +[0-9]+\.[0-9] ' "$t")" -eq 2 ]
	"$FSS_BIN" report "$f" --format text > "$FSS_SCRATCH/sw.report"
	cmp "$t" "$FSS_SCRATCH/sw.report"
	[ -z "$(find "$FSS_MNT" -mindepth 1 -maxdepth 1 ! -name lost+found)" ]
}

@test "--sweep iodepth bad combinations: one stderr line, exit 2" {
	fss_mkfs ext4 64
	run -2 --separate-stderr "$FSS_BIN" run --sweep iodepth=1,4 \
		--method fdatasync "$FSS_MNT"
	one_line "$stderr"
	[[ "$stderr" == *"--sweep iodepth=... needs --ioengine io_uring"* ]]
	run -2 --separate-stderr "$FSS_BIN" run --ioengine io_uring \
		--sweep iodepth=1,4 --iodepth 2 --method fdatasync "$FSS_MNT"
	one_line "$stderr"
	for bad in iodepth=0 iodepth=4097 iodepth= iodepth=1, depth=1 \
		iodepth=1,x; do
		run -2 --separate-stderr "$FSS_BIN" run --ioengine io_uring \
			--sweep "$bad" --method fdatasync "$FSS_MNT"
		one_line "$stderr"
		[[ "$stderr" == *"bad --sweep"* ]]
	done
	[ -z "$(find "$FSS_MNT" -mindepth 1 -maxdepth 1 ! -name lost+found)" ]
}

@test "--sync-batch fio at depths 1, 4 and 16: fio's rule; every write recorded once, every sync traced (syncs_by_kind exact), no files left" {
	local d f
	fss_mkfs ext4
	for d in 1 4 16; do
		f="$FSS_SCRATCH/fio$d.json"
		run --separate-stderr "$FSS_BIN" run --ioengine io_uring \
			--iodepth "$d" --sync-batch fio --method fdatasync \
			--count 100 --json "$FSS_MNT"
		echo "$stderr"
		[ "$status" -eq 0 ]
		printf '%s\n' "$output" > "$f"
		# an op is a write, durable at the first sync issued after it
		# completed: each of the 100 writes has one latency
		fss_jq "$f" '.tests[0] | .sync_batch == "fio" and
			.status == "ok" and .ops == 100 and
			.writes == 100 and .hist.op.count == 100 and .syncs >= 1 and
			.latency_us.p50 > 0 and .sync_latency_us.p50 > 0 and
			.partial == false'
		fss_jq "$f" '.options.sync_batch == "fio"'
		# every sync issued is traced, as an io_uring fsync
		fss_jq "$f" '.tests[0] | .drops > 0 or
			(.syncs_traced == .syncs and
			 .syncs_by_kind == {"io_uring_fsync": .syncs})'
		[ -z "$(find "$FSS_MNT" -mindepth 1 -maxdepth 1 ! -name lost+found)" ]
	done
	# depth 1 is fio's write, sync, write, sync...: one sync per write
	fss_jq "$FSS_SCRATCH/fio1.json" '.tests[0].syncs == 100'
	# two jobs, a ring each, fsync: the counts add up; the title says so
	run --separate-stderr "$FSS_BIN" run --ioengine io_uring --iodepth 8 \
		--sync-batch fio --method fsync --jobs 2 --count 50 --no-trace \
		"$FSS_MNT"
	[ "$status" -eq 0 ]
	[[ "$output" == *"io_uring depth 8, fio's syncs:"* ]]
	run --separate-stderr "$FSS_BIN" run --ioengine io_uring --iodepth 8 \
		--sync-batch fio --method fsync --jobs 2 --count 50 --no-trace \
		--json "$FSS_MNT"
	printf '%s\n' "$output" > "$FSS_SCRATCH/j2.json"
	fss_jq "$FSS_SCRATCH/j2.json" '.tests[0] | .ops == 100 and
		.writes == 100 and .jobs == 2'
	# bad combinations: one line, exit 2
	run -2 --separate-stderr "$FSS_BIN" run --sync-batch fio \
		--method fdatasync "$FSS_MNT"
	one_line "$stderr"
	[[ "$stderr" == *"--sync-batch needs --ioengine io_uring"* ]]
	for bad in batch '' FIO; do
		run -2 --separate-stderr "$FSS_BIN" run --ioengine io_uring \
			--sync-batch "$bad" --method fdatasync "$FSS_MNT"
		one_line "$stderr"
		[[ "$stderr" == *"bad --sync-batch"* ]]
	done
}

@test "io_uring writes that are the sync (open_datasync, open_sync, pwritev2_dsync) at depths 1 and 4: every op one write, each traced as a dsync_write" {
	local m d f
	fss_mkfs ext4
	for m in open_datasync open_sync pwritev2_dsync; do
		for d in 1 4; do
			f="$FSS_SCRATCH/$m$d.json"
			run --separate-stderr "$FSS_BIN" run --ioengine io_uring \
				--iodepth "$d" --method "$m" --count 60 --json \
				"$FSS_MNT"
			echo "$stderr"
			[ "$status" -eq 0 ]
			printf '%s\n' "$output" > "$f"
			fss_jq "$f" ".tests[0] | .method == \"$m\" and
				.iodepth == $d and .status == \"ok\" and
				.ops == 60 and .writes == 60 and .syncs == 60 and
				.sync_latency_us.p50 > 0"
			# the write is the sync: one dsync_write each, no fsync
			fss_jq "$f" '.tests[0] | .drops > 0 or
				(.syncs_traced == 60 and
				 .syncs_by_kind == {"dsync_write": 60})'
			[ -z "$(find "$FSS_MNT" -mindepth 1 -maxdepth 1 \
				! -name lost+found)" ]
		done
	done
}
