#!/usr/bin/env bats
# `fsyncscope run` (issue 2): the pg_test_fsync suite, custom runs, sweeps,
# n/a rows, bad input and signals.  Everything runs on loop images, tmpfs or
# ramfs under /tmp, with --no-trace (the tracer has its own suites) except
# the one test that checks the traced path's contract.  Runs are short and
# counted (--count), so the checks are exact, never timing thresholds.

load lib
bats_require_minimum_version 1.5.0

setup() {
	fss_need_root
	[ -x "$FSS_BIN" ] || skip "build ./fsyncscope first (make)"
}

teardown() {
	# a loop device's write_cache outlives it: restore what a test changed
	[ -n "${FSS_SCRATCH:-}" ] && [ -f "$FSS_SCRATCH/.wc_restore" ] &&
		echo "write back" > "$(cat "$FSS_SCRATCH/.wc_restore")"
	fss_cleanup
}

# Files in DIR other than lost+found (the run's own must all be gone).
leftovers() {
	find "$1" -mindepth 1 -maxdepth 1 ! -name lost+found -printf '%f\n'
}

assert_no_leftovers() {
	local l
	l="$(leftovers "$1")"
	[ -z "$l" ] || { echo "left behind in $1: $l" >&2; return 1; }
}

assert_80cols() {
	local long
	long="$(awk 'length($0) > 80' "$1")"
	[ -z "$long" ] || { echo "lines over 80 columns: $long" >&2; return 1; }
}

# Register a mount made here so fss_cleanup undoes it.
track_mount() {
	echo "$1" >> "$FSS_SCRATCH/.mounts"
}

# The JSON contract (docs/run.md) for every test object, exact for ok rows
# of a counted run: ops == COUNT x jobs, writes == ops x writes_per_sync.
check_contract() {
	local f="$1" count="$2"
	fss_jq "$f" '(.version | type == "string") and
		(.host.kernel | type == "string") and (.host.cpus | type == "number") and
		(.host.hostname | type == "string") and
		(.target.path | type == "string") and has("strategy") and
		(.target | has("fs") and has("device")) and
		(.options | type == "object") and (.tests | type == "array")'
	fss_jq "$f" '[.tests[] | (.name | type == "string") and
		(.method | type == "string") and (.bs | type == "number") and
		(.writes_per_sync | type == "number") and (.jobs | type == "number") and
		(.direct | type == "boolean") and (.partial == false) and
		(.status == "ok" or .status == "n/a")] | all'
	fss_jq "$f" '[.tests[] | select(.status == "n/a") |
		(.reason | type == "string" and length > 0) and .ops == null and
		.ops_per_sec == null and .latency_us == null] | all'
	fss_jq "$f" "[.tests[] | select(.status == \"ok\") |
		.reason == null and .ops == $count * .jobs and
		.writes == .ops * .writes_per_sync and
		.ops_per_sec > 0 and .usecs_per_op > 0 and
		((.ops_per_sec * .usecs_per_op / 1e6) - 1 | fabs) < 0.01 and
		(.latency_us | (.p50 | type == \"number\") and .p50 <= .p90 and
			.p90 <= .p99 and .p99 <= .p99_9 and .p99_9 <= .max and
			.mean <= .max and .p50 > 0)] | all"
	# names are unique
	fss_jq "$f" '(.tests | map(.name) | unique | length) == (.tests | length)'
}

SUITE_NAMES='["one_8k.open_datasync","one_8k.fdatasync","one_8k.fsync",
"one_8k.fsync_writethrough","one_8k.open_sync","two_8k.open_datasync",
"two_8k.fdatasync","two_8k.fsync","two_8k.fsync_writethrough",
"two_8k.open_sync","open_sync_sizes.1x16k","open_sync_sizes.2x8k",
"open_sync_sizes.4x4k","open_sync_sizes.8x2k","open_sync_sizes.16x1k",
"fd.write_fsync_close","fd.write_close_fsync","non_synced.write"]'

# Plain suite output: every section and row, ops/sec > 0 on ok rows.
check_plain_suite() {
	local f="$1" label
	grep -q '^Compare file sync methods using one 8kB write:$' "$f"
	grep -q '^Compare file sync methods using two 8kB writes:$' "$f"
	grep -q '^Compare open_sync with different write sizes:$' "$f"
	grep -q '^Test if fsync on non-write file descriptor is honored:$' "$f"
	grep -q '^Non-synced 8kB writes:$' "$f"
	for label in open_datasync fdatasync fsync open_sync; do
		[ "$(grep -cE "^  $label +[0-9]+\.[0-9]{3} " "$f")" -eq 2 ]
	done
	[ "$(grep -cE '^  fsync_writethrough +n/a ' "$f")" -eq 2 ]
	for label in ' 1 \* 16kB write' ' 2 \*  8kB writes' ' 4 \*  4kB writes' \
		     ' 8 \*  2kB writes' '16 \*  1kB writes' 'write, fsync, close' \
		     'write, close, fsync' 'write'; do
		grep -qE "^  $label +([0-9]+\.[0-9]{3} |n/a)" "$f" ||
			{ echo "row missing: $label" >&2; return 1; }
	done
	# no ok row with a zero rate
	if grep -qE '^  .{20} +0\.000 ' "$f"; then
		echo "a row with a zero rate" >&2
		return 1
	fi
	assert_80cols "$f"
}

@test "workload helpers: nearest-rank percentiles (both sort paths), sizes, names" {
	fss_scratch
	cc -O2 -Wall -Wextra -Wno-unused-parameter -std=gnu11 -D_GNU_SOURCE \
		-I"$FSS_ROOT/user" "$FSS_ROOT/tests/unit/test_workload.c" \
		"$FSS_ROOT/user/workload/workload.c" "$FSS_ROOT/user/workload/workload_files.c" \
		"$FSS_ROOT/user/workload/workload_uring.c" \
		"$FSS_ROOT/user/workload/workload_uring_fio.c" \
		"$FSS_ROOT/user/lib/pctl.c" "$FSS_ROOT/user/lib/scratch.c" \
		"$FSS_ROOT/user/lib/hist.c" -ljson-c -luring -lpthread -lm \
		-o "$FSS_SCRATCH/test_workload"
	run "$FSS_SCRATCH/test_workload"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *", 0 failures" ]]
}

@test "suite on ext4: every row present with a positive rate, 80 columns, no files left" {
	fss_mkfs ext4
	run --separate-stderr "$FSS_BIN" run --no-trace --count 20 "$FSS_MNT"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	echo "$output" > "$FSS_SCRATCH/plain.txt"
	check_plain_suite "$FSS_SCRATCH/plain.txt"
	grep -q '^filesystem  ext4 on ' "$FSS_SCRATCH/plain.txt"
	assert_no_leftovers "$FSS_MNT"
}

@test "suite on ext4: JSON follows the contract, exact op counts, suite order" {
	fss_mkfs ext4
	"$FSS_BIN" run --no-trace --count 25 --json "$FSS_MNT" > "$FSS_SCRATCH/out.json"
	check_contract "$FSS_SCRATCH/out.json" 25
	fss_jq "$FSS_SCRATCH/out.json" "[.tests[].name] == $SUITE_NAMES"
	fss_jq "$FSS_SCRATCH/out.json" '.target.fs == "ext4" and .strategy == null and
		.options.mode == "suite" and .options.count == 25 and .interrupted == null'
	# only fsync_writethrough is n/a on ext4 with 512-byte sectors
	fss_jq "$FSS_SCRATCH/out.json" '[.tests[] | select(.status == "n/a") | .method] ==
		["fsync_writethrough", "fsync_writethrough"]'
	# O_DIRECT on the open_* methods, as pg_test_fsync does; not elsewhere
	fss_jq "$FSS_SCRATCH/out.json" '[.tests[] | select(.status == "ok") |
		.direct == (.method == "open_datasync" or .method == "open_sync")] | all'
	# the op shapes: 2 writes per sync in section 2, 16kB per op in section 3
	fss_jq "$FSS_SCRATCH/out.json" '[.tests[] | select(.name | startswith("two_8k.")) |
		.writes_per_sync == 2 and .bs == 8192] | all'
	fss_jq "$FSS_SCRATCH/out.json" '[.tests[] | select(.name | startswith("open_sync_sizes.")) |
		.bs * .writes_per_sync == 16384 and .method == "open_sync"] | all'
	fss_jq "$FSS_SCRATCH/out.json" '.tests[-1] | .method == "none" and .bs == 8192'
	assert_no_leftovers "$FSS_MNT"
}

@test "a mount point with a space: the target's mount, fs and source are found (libmount unescapes \\040)" {
	fss_mkfs ext4 64
	local sp="$FSS_SCRATCH/with space"
	mkdir -p "$sp"
	mount "$FSS_LOOP" "$sp"
	track_mount "$sp"
	"$FSS_BIN" run --no-trace --count 5 --method fdatasync --json "$sp" \
		> "$FSS_SCRATCH/sp.json"
	jq -e --arg sp "$sp" '.target.mountpoint == $sp' "$FSS_SCRATCH/sp.json"
	fss_jq "$FSS_SCRATCH/sp.json" '.target.fs == "ext4"'
	jq -e --arg l "$FSS_LOOP" '.target.source == $l' "$FSS_SCRATCH/sp.json"
	fss_jq "$FSS_SCRATCH/sp.json" '[.tests[] | .status == "ok"] | all'
}

@test "suite on xfs: rows present, JSON contract holds" {
	fss_mkfs xfs
	run --separate-stderr "$FSS_BIN" run --no-trace --count 20 "$FSS_MNT"
	[ "$status" -eq 0 ]
	echo "$output" > "$FSS_SCRATCH/plain.txt"
	check_plain_suite "$FSS_SCRATCH/plain.txt"
	"$FSS_BIN" run --no-trace --count 20 --json "$FSS_MNT" > "$FSS_SCRATCH/out.json"
	check_contract "$FSS_SCRATCH/out.json" 20
	fss_jq "$FSS_SCRATCH/out.json" "[.tests[].name] == $SUITE_NAMES"
	fss_jq "$FSS_SCRATCH/out.json" '.target.fs == "xfs"'
	assert_no_leftovers "$FSS_MNT"
}

@test "tmpfs: O_DIRECT rows are measured direct or fall back with a note, as the kernel allows; exit 0" {
	fss_mktmpfs
	local direct=true
	# does this kernel's tmpfs accept O_DIRECT?  (6.6+ does)
	dd if=/dev/zero of="$FSS_MNT/probe" bs=8192 count=1 oflag=direct 2>/dev/null || direct=false
	rm -f "$FSS_MNT/probe"
	"$FSS_BIN" run --no-trace --count 10 --json "$FSS_MNT" > "$FSS_SCRATCH/out.json"
	check_contract "$FSS_SCRATCH/out.json" 10
	fss_jq "$FSS_SCRATCH/out.json" '.target.fs == "tmpfs" and .target.device == null'
	if $direct; then
		fss_jq "$FSS_SCRATCH/out.json" '[.tests[] | select(.method == "open_sync" or
			.method == "open_datasync") | .direct == true and .note == null] | all'
	else
		fss_jq "$FSS_SCRATCH/out.json" '[.tests[] | select(.method == "open_sync" or
			.method == "open_datasync") | .status == "n/a" or
			(.direct == false and (.note | test("O_DIRECT refused")))] | all'
	fi
	assert_no_leftovers "$FSS_MNT"
}

@test "ramfs refuses O_DIRECT: rows measured buffered with a footnote; fallocate refusal noted" {
	fss_scratch
	local m="$FSS_SCRATCH/ramfs"
	mkdir -p "$m"
	mount -t ramfs ramfs "$m"
	track_mount "$m"
	run --separate-stderr "$FSS_BIN" run --no-trace --count 10 "$m"
	[ "$status" -eq 0 ]
	echo "$output" > "$FSS_SCRATCH/plain.txt"
	check_plain_suite "$FSS_SCRATCH/plain.txt"
	grep -qE '^  open_datasync .* \[[0-9]\]$' "$FSS_SCRATCH/plain.txt"
	grep -qE '^  \[[0-9]\] O_DIRECT refused by the filesystem' "$FSS_SCRATCH/plain.txt"

	"$FSS_BIN" run --no-trace --count 10 --json "$m" > "$FSS_SCRATCH/out.json"
	check_contract "$FSS_SCRATCH/out.json" 10
	# all 9 O_DIRECT rows (2 + 2 + 5) fell back, and say so
	fss_jq "$FSS_SCRATCH/out.json" '[.tests[] | select(.note != null and
		(.note | test("O_DIRECT refused"))) | select(.direct == false)] | length == 9'

	"$FSS_BIN" run --no-trace --count 10 --pattern random --file-size 1m --json "$m" \
		> "$FSS_SCRATCH/rnd.json"
	fss_jq "$FSS_SCRATCH/rnd.json" '.tests[0] | .status == "ok" and .ops == 10 and
		(.note | test("fallocate refused"))'
	assert_no_leftovers "$m"
}

@test "4 KiB logical sectors: 1k and 2k O_DIRECT writes are n/a with the reason, the run goes on" {
	fss_scratch
	local img="$FSS_SCRATCH/img4k" m="$FSS_SCRATCH/mnt4k" dev
	truncate -s 256M "$img"
	mkfs.ext4 -q -F -b 4096 "$img"
	dev="$(losetup -f --show --sector-size 4096 "$img")"
	echo "$dev" >> "$FSS_SCRATCH/.loops"
	[ "$(cat "/sys/class/block/$(basename "$dev")/queue/logical_block_size")" -eq 4096 ]
	mkdir -p "$m"
	mount "$dev" "$m"
	track_mount "$m"

	run --separate-stderr "$FSS_BIN" run --no-trace --count 10 --json "$m"
	[ "$status" -eq 0 ]
	echo "$output" > "$FSS_SCRATCH/out.json"
	check_contract "$FSS_SCRATCH/out.json" 10
	fss_jq "$FSS_SCRATCH/out.json" '[.tests[] | select(.name == "open_sync_sizes.16x1k" or
		.name == "open_sync_sizes.8x2k") | .status == "n/a" and
		(.reason | test("O_DIRECT write of [12] KiB refused")) and
		(.reason | test("4096"))] | length == 2 and all'
	fss_jq "$FSS_SCRATCH/out.json" '[.tests[] | select(.name == "open_sync_sizes.4x4k" or
		.name == "open_sync_sizes.1x16k") | .status == "ok" and .direct] | length == 2 and all'
	# the tests after the n/a rows still ran
	fss_jq "$FSS_SCRATCH/out.json" '.tests[-1].name == "non_synced.write" and .tests[-1].ops == 10'

	# a custom 1 KiB O_DIRECT write: an n/a row, exit 0
	run --separate-stderr "$FSS_BIN" run --no-trace --count 10 --direct --bs 1k "$m"
	[ "$status" -eq 0 ]
	[[ "$output" == *"fdatasync"*"n/a"* ]]
	[[ "$output" == *"O_DIRECT write of 1 KiB refused (EINVAL)"* ]]
	assert_no_leftovers "$m"
}

@test "bad input: one stderr line, usage exit 2 or error exit 1, nothing left in DIR" {
	fss_mkfs ext4
	local args
	for args in "--bogus" "--bs 3x" "--bs 4m" "--sweep jobs=0" "--method nope" \
		    "--pattern sideways" "--count 0" "-s 1 --count 5" "extra1 extra2"; do
		# shellcheck disable=SC2086
		run --separate-stderr "$FSS_BIN" run --no-trace $args "$FSS_MNT"
		echo "args: $args -> $status: $stderr"
		[ "$status" -eq 2 ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[ -z "$output" ]
	done
	assert_no_leftovers "$FSS_MNT"

	run --separate-stderr "$FSS_BIN" run --no-trace --count 5 "$FSS_SCRATCH/does-not-exist"
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == *"does-not-exist: No such file or directory"* ]]
	[ ! -e "$FSS_SCRATCH/does-not-exist" ]

	mount -o remount,ro "$FSS_MNT"
	run --separate-stderr "$FSS_BIN" run --no-trace --count 5 "$FSS_MNT"
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == *"Read-only file system"* ]]
	assert_no_leftovers "$FSS_MNT"
}

@test "no space for the 16 MiB file: one stderr line, exit 1, nothing left" {
	fss_scratch
	local m="$FSS_SCRATCH/small"
	mkdir -p "$m"
	mount -t tmpfs -o size=4m tmpfs "$m"
	track_mount "$m"
	run --separate-stderr "$FSS_BIN" run --no-trace --count 5 --json "$m"
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == *"no space left"* ]]
	[ -z "$output" ]
	assert_no_leftovers "$m"
}

@test "--file: an existing file needs --force, is then used and kept; append starts at its end" {
	fss_mkfs ext4
	local f="$FSS_MNT/mine"
	head -c 100 /dev/zero > "$f"
	run --separate-stderr "$FSS_BIN" run --no-trace --count 5 --method fsync --file "$f"
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == *"refusing"*"--force"* ]]
	[ "$(stat -c %s "$f")" -eq 100 ]

	# DIR and --file together are ambiguous
	run --separate-stderr "$FSS_BIN" run --no-trace --count 5 --file "$f" --force "$FSS_MNT"
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]

	"$FSS_BIN" run --no-trace --count 7 --method fdatasync --pattern append --bs 4k \
		--writes-per-sync 3 --file "$f" --force --json > "$FSS_SCRATCH/a.json"
	fss_jq "$FSS_SCRATCH/a.json" '.tests[0] | .ops == 7 and .writes == 21 and .pattern == "append"'
	fss_jq "$FSS_SCRATCH/a.json" ".target.path == \"$FSS_MNT\" and .target.fs == \"ext4\""
	# the user's file stays, grown from its end by 7 ops x 3 writes x 4 KiB
	[ "$(stat -c %s "$f")" -eq $((100 + 7 * 3 * 4096)) ]
	[ "$(leftovers "$FSS_MNT")" = "mine" ]

	# a named file that does not exist is created, used and removed
	"$FSS_BIN" run --no-trace --count 5 --method fsync --file "$FSS_MNT/new" --json \
		> "$FSS_SCRATCH/n.json"
	fss_jq "$FSS_SCRATCH/n.json" '.tests[0].ops == 5'
	[ ! -e "$FSS_MNT/new" ]
}

@test "custom run: --jobs 2 --pattern random --file-size 8m counts every op of both jobs" {
	fss_mkfs ext4
	"$FSS_BIN" run --no-trace --count 30 --jobs 2 --pattern random --file-size 8m \
		--json "$FSS_MNT" > "$FSS_SCRATCH/out.json"
	check_contract "$FSS_SCRATCH/out.json" 30
	fss_jq "$FSS_SCRATCH/out.json" '.options.mode == "custom" and (.tests | length) == 1 and
		(.tests[0] | .jobs == 2 and .ops == 60 and .pattern == "random" and
		 .method == "fdatasync" and .bs == 8192 and .shared_file == false)'
	run --separate-stderr "$FSS_BIN" run --no-trace --count 30 --jobs 2 --shared-file \
		--pattern random --file-size 8m "$FSS_MNT"
	[ "$status" -eq 0 ]
	grep -q 'one shared' <<< "$output"
	assert_no_leftovers "$FSS_MNT"
}

@test "custom run: every method with exact op and write counts" {
	fss_mkfs ext4
	local m
	for m in open_datasync open_sync fdatasync fsync none sync_file_range pwritev2_dsync; do
		"$FSS_BIN" run --no-trace --count 12 --method "$m" --writes-per-sync 2 --bs 4k \
			--json "$FSS_MNT" > "$FSS_SCRATCH/$m.json"
		fss_jq "$FSS_SCRATCH/$m.json" ".tests[0] | .method == \"$m\" and .status == \"ok\" and
			.ops == 12 and .writes == 24 and .bs == 4096"
	done
	"$FSS_BIN" run --no-trace --count 12 --method fsync_writethrough --json "$FSS_MNT" \
		> "$FSS_SCRATCH/wt.json"
	fss_jq "$FSS_SCRATCH/wt.json" '.tests[0] | .status == "n/a" and (.reason | test("Linux"))'
	assert_no_leftovers "$FSS_MNT"
}

@test "--sweep jobs=1,2 prints two levels and the Little's-law check" {
	fss_mkfs ext4
	run --separate-stderr "$FSS_BIN" run --no-trace --count 20 --sweep jobs=1,2 "$FSS_MNT"
	[ "$status" -eq 0 ]
	echo "$output" > "$FSS_SCRATCH/plain.txt"
	grep -qE '^  jobs=1 +[0-9]+\.[0-9]{3} ' "$FSS_SCRATCH/plain.txt"
	grep -qE '^  jobs=2 +[0-9]+\.[0-9]{3} ' "$FSS_SCRATCH/plain.txt"
	grep -q "^Little's law check" "$FSS_SCRATCH/plain.txt"
	[ "$(grep -cE '^ +[12] +[0-9]+\.[0-9] ' "$FSS_SCRATCH/plain.txt")" -eq 2 ]
	assert_80cols "$FSS_SCRATCH/plain.txt"

	"$FSS_BIN" run --no-trace --count 20 --sweep jobs=1,2 --json "$FSS_MNT" > "$FSS_SCRATCH/s.json"
	check_contract "$FSS_SCRATCH/s.json" 20
	fss_jq "$FSS_SCRATCH/s.json" '[.sweep[].jobs] == [1, 2] and [.tests[].jobs] == [1, 2]'
	# speedup is relative to jobs=1; L = IOPS x mean latency
	fss_jq "$FSS_SCRATCH/s.json" '.sweep[0].speedup == 1 and .sweep[0].base_jobs == 1 and
		([.sweep[] | .littles_law_concurrency > 0 and .naive_iops > 0] | all)'
	assert_no_leftovers "$FSS_MNT"
}

@test "SIGINT: partial results printed, exit 130, no temp files; SIGTERM in JSON: partial, 143" {
	fss_mkfs ext4
	local pid i rc
	"$FSS_BIN" run --no-trace -s 3 "$FSS_MNT" > "$FSS_SCRATCH/plain.txt" 2> "$FSS_SCRATCH/err.txt" &
	pid=$!
	# wait until the suite's temp file exists and the first test is running
	for i in $(seq 300); do
		grep -q 'ops/sec' "$FSS_SCRATCH/plain.txt" && break
		sleep 0.1
	done
	sleep 0.5
	kill -INT "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 130 ]
	grep -q '(partial: interrupted after' "$FSS_SCRATCH/plain.txt"
	grep -q 'stopped by SIGINT' "$FSS_SCRATCH/err.txt"
	assert_no_leftovers "$FSS_MNT"

	"$FSS_BIN" run --no-trace -v -s 3 --json "$FSS_MNT" > "$FSS_SCRATCH/out.json" \
		2> "$FSS_SCRATCH/err2.txt" &
	pid=$!
	# -v says when each test starts
	for i in $(seq 300); do
		grep -q 'running one_8k.open_datasync' "$FSS_SCRATCH/err2.txt" && break
		sleep 0.1
	done
	sleep 0.5
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 143 ]
	fss_jq "$FSS_SCRATCH/out.json" '.interrupted == "SIGTERM" and
		(.tests | length) >= 1 and .tests[-1].partial == true and
		([.tests[:-1][] | .partial == false] | all)'
	assert_no_leftovers "$FSS_MNT"
}

@test "traced run: either succeeds with a strategy key or fails with exactly one stderr line" {
	fss_mkfs ext4
	run --separate-stderr "$FSS_BIN" run --count 10 --jobs 2 --method fdatasync --json "$FSS_MNT"
	if [ "$status" -eq 0 ]; then
		echo "$output" > "$FSS_SCRATCH/out.json"
		fss_jq "$FSS_SCRATCH/out.json" '.strategy != null and (.drops | type == "number") and
			.tests[0].ops == 20 and (.tests[0].breakdown | type == "object")'
		# tracing begins right before the timed loop and ends right after
		# it: exactly the loop's syncs are attributed (unless events were lost)
		fss_jq "$FSS_SCRATCH/out.json" '.tests[0] | .drops > 0 or .syncs_traced == 20'
	else
		[ "$status" -eq 1 ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" == "fsyncscope: "* ]]
		[ -z "$output" ]
	fi
	assert_no_leftovers "$FSS_MNT"
}

@test "verdict: traced run has a verdict object from the device facts and the fdatasync test; --no-trace is facts only; tmpfs has none, with the reason" {
	fss_mkfs ext4
	local name
	name="$(basename "$FSS_LOOP")"
	run --separate-stderr "$FSS_BIN" run --count 20 --method fdatasync --json "$FSS_MNT"
	[ "$status" -eq 0 ]
	echo "$output" > "$FSS_SCRATCH/v.json"
	fss_jq "$FSS_SCRATCH/v.json" ".verdict | type == \"object\" and
		.code == \"loop_backing_file\" and .device == \"$name\" and
		.measured_in == \"custom.fdatasync\" and
		(.basis | contains(\"$FSS_IMG\") and contains(\"20 syncs traced\"))"
	fss_jq "$FSS_SCRATCH/v.json" '.verdict_reason == null'
	# the loop device is write back: a sync without a flush is not "elided"
	fss_jq "$FSS_SCRATCH/v.json" '.tests[0].flush.elided == 0'

	# plain: the verdict paragraph after the last test, 80 columns
	run --separate-stderr "$FSS_BIN" run --count 20 --method fdatasync "$FSS_MNT"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > "$FSS_SCRATCH/v.txt"
	assert_80cols "$FSS_SCRATCH/v.txt"
	grep -q '^Verdict:  Loop device' "$FSS_SCRATCH/v.txt"
	grep -q '^Based on: ' "$FSS_SCRATCH/v.txt"
	grep -q '^Measured: test custom.fdatasync (20 traced syncs)$' "$FSS_SCRATCH/v.txt"
	[ "$(tail -1 "$FSS_SCRATCH/v.txt")" = "Measured: test custom.fdatasync (20 traced syncs)" ]

	# the suite: the fdatasync test with the most traced syncs
	run --separate-stderr "$FSS_BIN" run --count 5 --json "$FSS_MNT"
	[ "$status" -eq 0 ]
	echo "$output" > "$FSS_SCRATCH/s.json"
	fss_jq "$FSS_SCRATCH/s.json" '.verdict.measured_in | test("^(one|two)_8k\\.fdatasync$")'

	# --no-trace: facts only, and the verdict says nothing was measured
	run --separate-stderr "$FSS_BIN" run --no-trace --count 5 --method fdatasync --json "$FSS_MNT"
	[ "$status" -eq 0 ]
	echo "$output" > "$FSS_SCRATCH/n.json"
	fss_jq "$FSS_SCRATCH/n.json" '.verdict.code == "loop_backing_file" and
		.verdict.measured_in == null and
		(.verdict.basis | contains("No syncs were measured"))'
	run --separate-stderr "$FSS_BIN" run --no-trace --count 5 --method fdatasync "$FSS_MNT"
	[[ "$output" == *"Measured: nothing (--no-trace)"* ]]

	# --file on a block device: that device is judged, not /dev's devtmpfs
	local img dev
	img="$FSS_SCRATCH/raw.img"
	truncate -s 64M "$img"
	dev="$(losetup -f --show "$img")"
	echo "$dev" >> "$FSS_SCRATCH/.loops"
	run --separate-stderr "$FSS_BIN" run --count 5 --method fdatasync \
		--file "$dev" --force --json
	[ "$status" -eq 0 ]
	echo "$output" > "$FSS_SCRATCH/b.json"
	fss_jq "$FSS_SCRATCH/b.json" ".verdict.device == \"$(basename "$dev")\" and
		.verdict.code == \"loop_backing_file\" and
		(.verdict.basis | contains(\"$img\")) and .tests[0].flush.elided == 0"

	# no block device, no verdict: null with the reason
	fss_mktmpfs
	run --separate-stderr "$FSS_BIN" run --no-trace --count 5 --method fsync --json "$FSS_MNT"
	[ "$status" -eq 0 ]
	echo "$output" > "$FSS_SCRATCH/t.json"
	fss_jq "$FSS_SCRATCH/t.json" '.verdict == null and
		(.verdict_reason | contains("not on a block device"))'
}

@test "flush.elided: on a write-through queue every sync's flush is elided (= syncs_no_flush)" {
	fss_mkfs ext4
	local q
	q="/sys/block/$(basename "$FSS_LOOP")/queue/write_cache"
	# the setting outlives the loop device: put it back before it is freed
	echo "$q" > "$FSS_SCRATCH/.wc_restore"
	echo "write through" > "$q" || skip "cannot set write through on $FSS_LOOP"
	run --separate-stderr "$FSS_BIN" run --count 20 --method fdatasync --json "$FSS_MNT"
	echo "write back" > "$q"
	[ "$status" -eq 0 ]
	echo "$output" > "$FSS_SCRATCH/wt.json"
	fss_jq "$FSS_SCRATCH/wt.json" '.target.write_cache == "write through"'
	fss_jq "$FSS_SCRATCH/wt.json" '.tests[0] | .drops > 0 or
		(.syncs_traced == 20 and .flush.flushes == 0 and
		 .flush.syncs_no_flush == 20 and .flush.elided == 20)'
}

# A made-up sysfs (FSYNCSCOPE_SYSFS) in which the loop device $FSS_LOOP is a
# plain write-back disk "sdz": the verdict then rests on the measured flush
# time (a loop device's verdict is about its backing file and never does).
fake_writeback_sysfs() {
	local r="$1" mm d q
	mm="$(lsblk -dno MAJ:MIN "$FSS_LOOP" | tr -d ' ')"
	d=devices/virtual/block/sdz
	q="$r/$d/queue"
	mkdir -p "$r/class/block" "$r/dev/block" "$q"
	echo "$mm" > "$r/$d/dev"
	echo 131072 > "$r/$d/size"
	ln -s "../../$d" "$r/class/block/sdz"
	ln -s "../../$d" "$r/dev/block/$mm"
	echo 0 > "$q/rotational"; echo none > "$q/scheduler"
	echo 128 > "$q/nr_requests"; echo 512 > "$q/logical_block_size"
	echo 512 > "$q/physical_block_size"; echo "write back" > "$q/write_cache"
	echo 0 > "$q/fua"; echo 0 > "$q/discard_max_bytes"
}

@test "verdict confidence: the flush p50's 95% interval (recomputed from --events), the threshold, clear or borderline, in JSON and text" {
	fss_mkfs ext4 64
	fake_writeback_sysfs "$FSS_SCRATCH/sys"
	export FSYNCSCOPE_SYSFS="$FSS_SCRATCH/sys"
	run --separate-stderr "$FSS_BIN" run --count 300 --method fdatasync --json \
		--events "$FSS_SCRATCH/ev.jsonl" "$FSS_MNT"
	[ "$status" -eq 0 ]
	echo "$output" > "$FSS_SCRATCH/c.json"
	fss_jq "$FSS_SCRATCH/c.json" '.tests[0].drops == 0 and .tests[0].syncs_traced == 300'
	fss_jq "$FSS_SCRATCH/c.json" '.verdict | .device == "sdz" and
		.interval.figure == "device_flush_p50_us" and .interval.level == 0.95 and
		.interval.samples == 300 and
		.interval.low_us <= .interval.p50_us and .interval.p50_us <= .interval.high_us and
		.threshold.us == 50 and .threshold.borderline_low_us == 40 and
		.threshold.borderline_high_us == 62.5'
	# the code follows the interval: borderline when it reaches the band
	fss_jq "$FSS_SCRATCH/c.json" '.verdict |
		if .interval.high_us < 40 then
			.confidence == "clear" and .code == "flush_suspiciously_fast"
		elif .interval.low_us > 62.5 then
			.confidence == "clear" and .code == "volatile_cache_pays_flush"
		else .confidence == "borderline" and .code == "flush_borderline" end'
	# the interval is the exact binomial order-statistic one of the per-sync
	# device_flush times the events file holds
	python3 - "$FSS_SCRATCH/ev.jsonl" "$FSS_SCRATCH/c.json" <<'PY'
import json, sys
from math import comb
ev = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
v = sorted(e["device_flush_ns"] for e in ev)
n = len(v)
assert n == 300, n
p = [comb(n, k) / 2.0 ** n for k in range(n + 1)]
cdf, lo, hi = 0.0, 0, n + 1
for k in range(n + 1):
    if cdf <= 0.025:
        lo = k
    cdf += p[k]
    if cdf >= 0.975:
        hi = k + 1
        break
iv = json.load(open(sys.argv[2]))["verdict"]["interval"]
want = (v[(n + 1) // 2 - 1] / 1000, v[lo - 1] / 1000, v[hi - 1] / 1000)
got = (iv["p50_us"], iv["low_us"], iv["high_us"])
print("ranks", lo, hi, "want", want, "got", got)
assert all(abs(a - b) < 1e-6 for a, b in zip(want, got)), (want, got)
PY

	# plain text: a Confidence line, 80 columns
	run --separate-stderr "$FSS_BIN" run --count 300 --method fdatasync "$FSS_MNT"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > "$FSS_SCRATCH/c.txt"
	assert_80cols "$FSS_SCRATCH/c.txt"
	grep -Eq '^Confidence: (clear|borderline): flush p50 [0-9.]+-[0-9.]+ [um]s \(95% interval' "$FSS_SCRATCH/c.txt"

	# five syncs bound nothing at 95 %: borderline whatever the flush takes
	run --separate-stderr "$FSS_BIN" run --count 5 --method fdatasync --json "$FSS_MNT"
	[ "$status" -eq 0 ]
	echo "$output" > "$FSS_SCRATCH/f.json"
	fss_jq "$FSS_SCRATCH/f.json" '.tests[0].drops > 0 or (.verdict |
		.code == "flush_borderline" and .confidence == "borderline" and
		.interval.high_us == null and .interval.samples == 5)'
	run --separate-stderr "$FSS_BIN" run --count 5 --method fdatasync "$FSS_MNT"
	[[ "$(tr '\n' ' ' <<< "$output" | tr -s ' ')" == *"borderline: flush p50 unbounded (too few syncs)"*"run longer or use 'fsyncscope devices --probe'"* ]]

	# --no-trace: nothing measured, confidence n/a, no interval
	run --separate-stderr "$FSS_BIN" run --no-trace --count 5 --method fdatasync --json "$FSS_MNT"
	echo "$output" > "$FSS_SCRATCH/n.json"
	fss_jq "$FSS_SCRATCH/n.json" '.verdict | .code == "write_back_unmeasured" and
		.confidence == "n/a" and .interval == null and .threshold == null'
}

# The one-error contract of a target that cannot be used: nothing on stdout,
# one line on stderr, exit 1; traced, so no tracer or calibration ran either.
assert_refused() {
	echo "status $status, stdout '$output', stderr '$stderr'"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == "fsyncscope: "* ]]
}

@test "errors before output: --file EXISTING, a full fs, jobs x file size, a read-only DIR, a missing DIR" {
	fss_mkfs ext4 64
	local f="$FSS_MNT/mine" mode
	head -c 100 /dev/zero > "$f"
	for mode in "" "--json"; do
		# shellcheck disable=SC2086
		run --separate-stderr "$FSS_BIN" run --count 5 --method fsync $mode --file "$f"
		assert_refused
		[ "$stderr" = "fsyncscope: $f exists; refusing to write to it without --force" ]
	done
	[ "$(stat -c %s "$f")" -eq 100 ]
	run --separate-stderr "$FSS_BIN" run --count 5 --file "$FSS_MNT" --force
	assert_refused
	[[ "$stderr" == *"--file $FSS_MNT is a directory"* ]]

	# room for 2 but not for 3 test files of 16 MiB (jobs x file size)
	rm -f "$f"
	local free
	free=$(( $(stat -f -c '%a * %S' "$FSS_MNT") ))
	fallocate -l $(( free - 40 * 1048576 )) "$FSS_MNT/fill"
	run --separate-stderr "$FSS_BIN" run --count 5 --method fsync --jobs 3 --file-size 16m "$FSS_MNT"
	assert_refused
	[[ "$stderr" == "fsyncscope: no space left in $FSS_MNT for the test files: 48 MiB needed (3 jobs x 16 MiB), "*" MiB available" ]]
	run --separate-stderr "$FSS_BIN" run --no-trace --count 5 --method fsync --jobs 2 --file-size 16m --json "$FSS_MNT"
	[ "$status" -eq 0 ]
	fss_jq <(echo "$output") '.tests[0].ops == 10'
	# a sweep needs room for its largest level
	run --separate-stderr "$FSS_BIN" run --count 5 --method fsync --sweep jobs=1,3 "$FSS_MNT"
	assert_refused
	[[ "$stderr" == *"48 MiB needed (3 jobs x 16 MiB)"* ]]

	# full: the suite and a custom test, plain and JSON
	rm "$FSS_MNT/fill"
	dd if=/dev/zero of="$FSS_MNT/fill" bs=1M status=none 2>/dev/null || true
	for mode in "" "--json" "--method fdatasync"; do
		# shellcheck disable=SC2086
		run --separate-stderr "$FSS_BIN" run --count 5 $mode "$FSS_MNT"
		assert_refused
		[[ "$stderr" == "fsyncscope: no space left in $FSS_MNT for the test files: 16 MiB needed (one 16 MiB file), "* ]]
	done
	[ "$(leftovers "$FSS_MNT")" = "fill" ]
	rm "$FSS_MNT/fill"

	# read-only
	mount -o remount,ro "$FSS_MNT"
	run --separate-stderr "$FSS_BIN" run --count 5 "$FSS_MNT"
	assert_refused
	[ "$stderr" = "fsyncscope: cannot write in $FSS_MNT: Read-only file system" ]
	run --separate-stderr "$FSS_BIN" run --count 5 --method fsync --file "$FSS_MNT/new"
	assert_refused
	[[ "$stderr" == *"Read-only file system" ]]
	mount -o remount,rw "$FSS_MNT"
	assert_no_leftovers "$FSS_MNT"

	# missing
	run --separate-stderr "$FSS_BIN" run --count 5 "$FSS_SCRATCH/nope"
	assert_refused
	[ "$stderr" = "fsyncscope: $FSS_SCRATCH/nope: No such file or directory" ]
	[ ! -e "$FSS_SCRATCH/nope" ]
	run --separate-stderr "$FSS_BIN" run --count 5 --method fsync --file "$FSS_SCRATCH/nope/f"
	assert_refused
	[[ "$stderr" == *"nope: No such file or directory" ]]
}

@test "DIR on a pseudo filesystem: one line naming it, before anything runs; tmpfs stays usable, traced" {
	local d fs n=0
	fss_scratch
	# a cgroup2 mount of our own: the machine's may be elsewhere or v1
	mkdir -p "$FSS_SCRATCH/cg"
	mount -t cgroup2 none "$FSS_SCRATCH/cg" && track_mount "$FSS_SCRATCH/cg"
	for d in /proc:proc /sys:sysfs "$FSS_SCRATCH/cg:cgroup2"; do
		fs="${d#*:}"; d="${d%%:*}"
		[ "$(stat -f -c %T "$d" 2>/dev/null)" = "$fs" ] ||
			{ echo "skip $d: not $fs here"; continue; }
		run --separate-stderr "$FSS_BIN" run --count 5 "$d"
		assert_refused
		[ "$stderr" = "fsyncscope: DIR $d is on $fs, not a disk-backed filesystem: give a directory on one (ext4, xfs, btrfs, ...)" ]
		[ -z "$(find "$d" -maxdepth 1 -name '.fsyncscope*' 2>/dev/null)" ]
		n=$((n + 1))
	done
	[ "$n" -ge 2 ]
	# tmpfs holds real files: run works there, traced (no device verdict)
	fss_mktmpfs
	run --separate-stderr "$FSS_BIN" run --count 5 --method fdatasync --json "$FSS_MNT"
	[ "$status" -eq 0 ]
	fss_jq <(echo "$output") '.tests[0].ops == 5 and .verdict == null'
	assert_no_leftovers "$FSS_MNT"
}
