#!/usr/bin/env bats
# Tracing engine (issue 3): strategy selection, calibration, breakdowns on
# loop-mounted ext4 and xfs.  Correctness only: counts, structure, exact
# sums, and phases that must be non-zero; no timing thresholds.

load lib
bats_require_minimum_version 1.5.0

setup() {
	fss_need_root
}

teardown() {
	fss_cleanup
}

# run a custom test with tracing; leaves $out (JSON) and $ev (events)
traced_run() {
	out="$FSS_SCRATCH/out.json"
	ev="$FSS_SCRATCH/events.jsonl"
	"$FSS_BIN" run --json --events "$ev" "$@" > "$out"
}

# every line of the events file: phases add up exactly to the total
assert_exact_sums() {
	local bad
	bad=$(jq -c 'select((.fs_ns + .journal_ns + .queue_ns + .device_write_ns + .device_flush_ns + .other_ns) != .total_ns)' "$1" | head -3)
	[ -z "$bad" ] || { echo "phases do not sum to total: $bad" >&2; return 1; }
	[ "$(wc -l < "$1")" -gt 0 ] || { echo "no events in $1" >&2; return 1; }
}

@test "auto strategy lands on tracepoints on this kernel and reports its calibration" {
	fss_mkfs ext4
	traced_run --method fdatasync --bs 8k --count 20 "$FSS_MNT"
	fss_jq "$out" '.strategy.requested == "auto"'
	fss_jq "$out" '.strategy.sync == "tracepoint"'
	fss_jq "$out" '.strategy.fs == "tracepoint"'
	fss_jq "$out" '.strategy.block == "tp_btf" or .strategy.block == "raw_tp"'
	fss_jq "$out" '.strategy.journal == "tracepoint"'
	fss_jq "$out" '.strategy.calibration.hits.sys_fdatasync >= 3'
	fss_jq "$out" '.strategy.calibration.hits.sys_fsync >= 1'
	fss_jq "$out" '.strategy.calibration.hits.fs_tracepoint >= 4'
	fss_jq "$out" '.strategy.probes.fentry != "ok"'
	# an fdatasync-only workload hooks fsync and fdatasync, not the writes
	fss_jq "$out" '.strategy.layers.sync.detail | test("[(]syscalls, 4 hooks[)]")'
}

@test "--strategy fentry fails with one clear line when fentry is refused" {
	fss_mkfs ext4
	run -1 --separate-stderr "$FSS_BIN" run --strategy fentry --method fdatasync --count 5 "$FSS_MNT"
	[ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ]
	[[ "$stderr" == *fentry* ]]
	[ -z "$(ls -A "$FSS_MNT" | grep -v lost+found)" ]
}

@test "--strategy kprobe fails with one clear line when kprobes are missing" {
	[ -d /sys/bus/event_source/devices/kprobe ] && skip "this kernel has kprobes"
	fss_mkfs ext4
	run -1 --separate-stderr "$FSS_BIN" run --strategy kprobe --method fdatasync --count 5 "$FSS_MNT"
	[ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ]
	[[ "$stderr" == *kprobe* ]]
}

@test "--strategy bogus is a usage error" {
	fss_mkfs ext4
	run --separate-stderr "$FSS_BIN" run --strategy bogus --count 5 "$FSS_MNT"
	[ "$status" -ne 0 ]
	[ "$(printf '%s\n' "$stderr" | grep -c .)" -ge 1 ]
}

@test "ext4 fdatasync overwrite: every sync traced, exact sums, device flush seen" {
	fss_mkfs ext4
	traced_run --method fdatasync --bs 8k --count 200 --pattern overwrite "$FSS_MNT"
	assert_exact_sums "$ev"
	fss_jq "$out" '.drops == 0'
	fss_jq "$out" '.tests[0].status == "ok" and .tests[0].syncs_traced == .tests[0].ops'
	[ "$(wc -l < "$ev")" -eq 200 ]
	[ "$(jq -r 'select(.kind == "fdatasync")' "$ev" | jq -s length)" -eq 200 ]
	# loop devices are write-back: every fdatasync sends a cache flush
	fss_jq "$out" '.tests[0].breakdown.device_flush.mean_us > 0'
	fss_jq "$out" '.tests[0].flush.flushes > 0'
	fss_jq "$out" '.tests[0].breakdown.device_write.mean_us > 0'
	# each sync saw its own flush
	[ "$(jq -s '[.[] | select(.device_flush_ns > 0)] | length' "$ev")" -eq 200 ]
	# shares add up to 1
	fss_jq "$out" '([.tests[0].breakdown[].share] | add) > 0.999 and ([.tests[0].breakdown[].share] | add) < 1.001'
}

@test "block layer on its raw_tp fallback: same requests, flushes and exact sums as tp_btf" {
	fss_mkfs ext4
	FSYNCSCOPE_BLOCK_HOOKS=raw_tp traced_run --method fdatasync --bs 8k --count 100 --pattern overwrite "$FSS_MNT"
	fss_jq "$out" '.strategy.block == "raw_tp"'
	assert_exact_sums "$ev"
	fss_jq "$out" '.drops == 0 and .tests[0].syncs_traced == 100'
	# every sync: its data write and its own flush, seen through raw_tp
	[ "$(jq -s '[.[] | select(.device_flush_ns > 0 and .device_write_ns > 0)] | length' "$ev")" -eq 100 ]
	fss_jq "$out" '.tests[0].flush.flushes == 100 and .tests[0].flush.preflush == 100'
	# block_io_start gives queue time on this kernel in both sets
	fss_jq "$out" '.tests[0].breakdown.queue.mean_us != null'
	cp "$out" "$FSS_SCRATCH/raw.json"
	FSYNCSCOPE_BLOCK_HOOKS=tp_btf traced_run --method fdatasync --bs 8k --count 100 --pattern overwrite "$FSS_MNT"
	fss_jq "$out" '.strategy.block == "tp_btf"'
	jq -e --slurpfile raw "$FSS_SCRATCH/raw.json" \
		'.tests[0].flush.flushes == $raw[0].tests[0].flush.flushes and
		 .tests[0].flush.fua_writes == $raw[0].tests[0].flush.fua_writes' "$out"
	run -1 --separate-stderr env FSYNCSCOPE_BLOCK_HOOKS=bogus "$FSS_BIN" run --method fdatasync --count 2 "$FSS_MNT"
	[ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ]
	[[ "$stderr" == *FSYNCSCOPE_BLOCK_HOOKS* ]]
}

@test "FSYNCSCOPE_FLOOR=1 (benchmark floor): hooks attach and count, nothing is recorded, no made-up phases" {
	fss_mkfs ext4
	run --separate-stderr env FSYNCSCOPE_FLOOR=1 "$FSS_BIN" run --json --method fdatasync --bs 8k --count 50 "$FSS_MNT"
	[ "$status" -eq 0 ]
	out="$FSS_SCRATCH/floor.json"
	printf '%s\n' "$output" > "$out"
	[[ "$stderr" == *"FSYNCSCOPE_FLOOR=1"* ]]
	fss_jq "$out" '.strategy.floor_only == true'
	# calibration passed on the hook counters alone
	fss_jq "$out" '.strategy.calibration.hits.sys_fdatasync >= 3'
	fss_jq "$out" '.tests[0].status == "ok" and .tests[0].ops == 50'
	fss_jq "$out" '.tests[0].syncs_traced == 0'
	fss_jq "$out" '[.tests[0].breakdown[] | .mean_us] | all(. == null)'
	run -1 --separate-stderr env FSYNCSCOPE_FLOOR=yes "$FSS_BIN" run --method fdatasync --count 2 "$FSS_MNT"
	[ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ]
	[[ "$stderr" == *FSYNCSCOPE_FLOOR* ]]
}

@test "ext4 append + fsync: the jbd2 commit shows as journal time" {
	fss_mkfs ext4
	traced_run --method fsync --bs 8k --count 100 --pattern append "$FSS_MNT"
	assert_exact_sums "$ev"
	fss_jq "$out" '.tests[0].breakdown.journal.mean_us > 0'
	[ "$(jq -s '[.[] | select(.journal_ns > 0)] | length' "$ev")" -ge 90 ]
	fss_jq "$out" '.tests[0].breakdown.fs.mean_us > 0'
}

@test "xfs append + fsync: the log force shows as journal time" {
	fss_mkfs xfs
	traced_run --method fsync --bs 8k --count 100 --pattern append "$FSS_MNT"
	assert_exact_sums "$ev"
	fss_jq "$out" '.tests[0].breakdown.journal.mean_us > 0'
	fss_jq "$out" '.tests[0].flush.flushes > 0'
	[ "$(jq -s '[.[] | select(.journal_ns > 0)] | length' "$ev")" -ge 90 ]
}

@test "xfs fdatasync overwrite: exact sums and a flush per sync" {
	fss_mkfs xfs
	traced_run --method fdatasync --bs 8k --count 100 --pattern overwrite "$FSS_MNT"
	assert_exact_sums "$ev"
	[ "$(jq -s '[.[] | select(.device_flush_ns > 0)] | length' "$ev")" -eq 100 ]
}

@test "O_DSYNC writes are traced as dsync_write syncs" {
	fss_mkfs ext4
	traced_run --method open_datasync --bs 8k --count 50 "$FSS_MNT"
	assert_exact_sums "$ev"
	[ "$(jq -s '[.[] | select(.kind == "dsync_write")] | length' "$ev")" -eq 50 ]
	fss_jq "$out" '.tests[0].syncs_traced == 50'
	# the write family is hooked for it: fsync, fdatasync and 5 writes
	fss_jq "$out" '.strategy.layers.sync.detail | test("[(]syscalls, 14 hooks[)]")'
}

@test "two concurrent jobs: every sync of both threads traced, sums exact" {
	fss_mkfs ext4
	traced_run --method fdatasync --bs 4k --count 100 --jobs 2 "$FSS_MNT"
	assert_exact_sums "$ev"
	[ "$(jq -r .tid "$ev" | sort -u | wc -l)" -eq 2 ]
	fss_jq "$out" '.tests[0].syncs_traced == .tests[0].ops'
}

@test "default suite with tracing: syncing tests have a breakdown, the non-sync test has none" {
	fss_mkfs ext4
	"$FSS_BIN" run --json --count 20 "$FSS_MNT" > "$FSS_SCRATCH/suite.json"
	fss_jq "$FSS_SCRATCH/suite.json" '[.tests[] | select(.status == "ok" and .method != "none" and .method != "write")] | all(.breakdown != null)'
	fss_jq "$FSS_SCRATCH/suite.json" '[.tests[] | select(.method == "none" or .method == "write")] | all(.breakdown == null)'
}

@test "plain output shows the breakdown and fits in 80 columns" {
	fss_mkfs ext4
	"$FSS_BIN" run --method fdatasync --count 50 "$FSS_MNT" > "$FSS_SCRATCH/plain.txt"
	grep -q device_flush "$FSS_SCRATCH/plain.txt"
	grep -q journal "$FSS_SCRATCH/plain.txt"
	[ "$(awk '{ if (length($0) > 80) n++ } END { print n+0 }' "$FSS_SCRATCH/plain.txt")" -eq 0 ]
}

@test "no BPF links are left behind after traced runs" {
	fss_mkfs ext4
	"$FSS_BIN" run --method fdatasync -s 3 "$FSS_MNT" > /dev/null &
	local pid=$! ours="" i
	# the run's own links, from its fds, while it runs (robust to other
	# tracers on the host)
	for i in $(seq 50); do
		ours=$(grep -h '^link_id:' /proc/"$pid"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -n)
		[ "$(echo "$ours" | grep -c .)" -ge 10 ] && break
		sleep 0.1
	done
	[ -n "$ours" ]
	for i in $ours; do bpftool link list | grep -q "^$i: "; done
	wait "$pid"
	for i in $ours; do
		! bpftool link list | grep -q "^$i: " || { echo "link $i left behind" >&2; return 1; }
	done
}

@test "trace's text is rendered from its document: report --format text of --save prints the same bytes" {
	fss_mkfs ext4
	local s="$FSS_SCRATCH/trace.jsonl" txt="$FSS_SCRATCH/trace.txt" c
	# -- CMD: the trace ends with the run (whose own output is kept out)
	c="'$FSS_BIN' run --no-trace -n 40 --method fdatasync '$FSS_MNT' >/dev/null"
	"$FSS_BIN" trace --mount "$FSS_MNT" --save "$s" -- sh -c "$c" > "$txt"
	grep -q '^=== summary: ' "$txt"
	jq -e 'select(.type == "summary") | .all.syncs >= 40 and
		.schema == "fsyncscope/trace"' "$s"
	"$FSS_BIN" report "$s" --format text | cmp "$txt" -
	# intervals and --slower lines too: every record, in order
	"$FSS_BIN" trace --mount "$FSS_MNT" --save "$s" --slower 0 0.2 \
		-- sh -c "$c" > "$txt"
	grep -q '^=== interval 1: ' "$txt"
	[ "$(grep -c ' fdatasync ' "$txt")" -ge 40 ]
	"$FSS_BIN" report "$s" --format text | cmp "$txt" -
}
