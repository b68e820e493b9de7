#!/usr/bin/env bats
# Live mode (issue 6): `fsyncscope trace` watching processes we start.
# A helper (build/tests/syncer) does an exact number of syncs of each kind
# on a loop-mounted filesystem once the tracer is ready; counts per kind must
# match exactly, other processes' syncs must not leak in, and every phase
# breakdown must add up exactly to its total.  PostgreSQL 15 runs on a loop
# ext4 and xfs image with pgbench against it.  Nothing here asserts timing.

load lib
load pg
bats_require_minimum_version 1.5.0

SYNCER="$FSS_BUILD/tests/syncer"

setup() {
	fss_need_root
	[ -x "$SYNCER" ] || skip "build/tests/syncer missing (run make)"
	fss_scratch
	bg_pids=()
	cg_dir=""
	pg_data=""
}

teardown() {
	local p

	fss_stop_bg INT TERM
	pg_stop
	if [ -n "$cg_dir" ] && [ -d "$cg_dir" ]; then
		for p in $(cat "$cg_dir/cgroup.procs" 2>/dev/null); do
			echo "$p" > "$(dirname "$cg_dir")/cgroup.procs" 2>/dev/null || true
		done
		rmdir "$cg_dir" 2>/dev/null || true
	fi
	fss_cleanup
}

# start_trace ARGS...: the tracer in the background, ready; sets trace_pid,
# its output in $tout (stdout) and $terr (stderr)
start_trace() {
	tout="$FSS_SCRATCH/trace.out"
	terr="$FSS_SCRATCH/trace.err"
	fss_start_bg trace err '^fsyncscope: tracing .*\(Ctrl-C to stop\)$' \
		"$FSS_BIN" trace "$@" || return 1
	trace_pid=$bg_pid
}

# stop_trace: Ctrl-C, and the tracer must exit 0
stop_trace() {
	local rc=0
	kill -INT "$trace_pid"
	wait "$trace_pid" || rc=$?
	[ "$rc" -eq 0 ] || { echo "tracer exited $rc:" >&2; cat "$terr" >&2; return 1; }
}

summary() { jq -c 'select(.type == "summary")' "$tout" > "$FSS_SCRATCH/summary.json"; echo "$FSS_SCRATCH/summary.json"; }

# every group's phases add up exactly to its total (integers, ns)
assert_exact_sums() {
	local bad
	bad=$(jq -c '[.all, .kinds[], .processes[], .files[]] | .[] | select(([.phases[].ns] | add) != .total_ns) | {syncs, total_ns}' "$1" | head -3)
	[ -z "$bad" ] || { echo "phases do not sum to total: $bad" >&2; return 1; }
}

# assert_kinds FILE JSON: by_kind of the summary equals JSON exactly
assert_kinds() {
	local got
	got=$(jq -cS '.by_kind' "$1")
	[ "$got" = "$(echo "$2" | jq -cS .)" ] || { echo "by_kind: got $got, want $2" >&2; return 1; }
}

ALL_A="--fsync 7 --fdatasync 5 --dsync 4 --sfr 3 --msync 2 --syncfs 1 --uring 3"
WANT_A='{"fsync":7,"fdatasync":5,"dsync_write":4,"sync_file_range":3,"msync":2,"syncfs":1,"io_uring_fsync":3}'

@test "trace -p: exact counts per kind, another process does not leak in" {
	fss_mkfs ext4
	start_syncer a "$FSS_MNT" $ALL_A
	local a=$syncer_pid
	start_syncer b "$FSS_MNT" --fsync 9 --fdatasync 9 --dsync 9
	start_trace -p "$a" --json
	go a b
	stop_trace
	s=$(summary)
	assert_kinds "$s" "$WANT_A"
	fss_jq "$s" '.all.syncs == 25 and .all.errors == 0 and .events_lost == 0'
	fss_jq "$s" "[.processes[].pid] == [$a]"
	fss_jq "$s" '.processes[0].comm == "syncer"'
	assert_exact_sums "$s"
	# percentiles: ordered, never above the slowest sync, exact for one sync
	fss_jq "$s" '[.all, .kinds[], .processes[], .files[]] | all(.p50_us <= .p99_us and .p99_us <= .max_us)'
	fss_jq "$s" '[.kinds[] | select(.syncs == 1)] | length == 1 and all(.p50_us == .max_us)'
	# the files, resolved from /proc/PID/fd
	fss_jq "$s" "[.files[] | select(.path == \"$FSS_MNT/syncer.$a.data\")][0].syncs == 19"
	fss_jq "$s" "[.files[] | select(.path == \"$FSS_MNT/syncer.$a.dsync\")][0].by_kind == {\"dsync_write\": 4}"
	# a loop device caches writes: the device table says so, fsyncs flushed
	fss_jq "$s" '.devices | length == 1 and .[0].write_cache == "write back" and .[0].syncs_with_flush > 0'
	fss_jq "$s" '.flush.flushes > 0'
	# per kind: what must be there on ext4
	fss_jq "$s" '[.kinds[] | select(.kind == "fdatasync")][0].phases.device_flush.ns > 0'
	# jbd2 commits shown on their own
	fss_jq "$s" '.journal | length == 1 and .[0].commits > 0'
}

@test "trace -c: only tasks with that comm" {
	fss_mkfs ext4
	start_syncer a "$FSS_MNT" --comm fss-live-a $ALL_A
	start_syncer b "$FSS_MNT" --comm fss-live-b --fsync 9 --fdatasync 9 --msync 3
	start_trace -c fss-live-a --json
	go a b
	stop_trace
	s=$(summary)
	assert_kinds "$s" "$WANT_A"
	fss_jq "$s" '[.processes[].comm] == ["fss-live-a"]'
	assert_exact_sums "$s"
}

@test "trace --cgroup: only tasks in that cgroup v2" {
	local cg2
	cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	[ -n "$cg2" ] || skip "no cgroup v2 hierarchy mounted"
	fss_mkfs ext4
	cg_dir="$cg2/fss-live-test.$$"
	mkdir "$cg_dir"
	start_syncer a "$FSS_MNT" $ALL_A
	local a=$syncer_pid
	echo "$a" > "$cg_dir/cgroup.procs"
	start_syncer b "$FSS_MNT" --fsync 9 --fdatasync 9
	start_trace --cgroup "fss-live-test.$$" --json
	go a b
	stop_trace
	s=$(summary)
	assert_kinds "$s" "$WANT_A"
	fss_jq "$s" "[.processes[].pid] == [$a]"
	fss_jq "$tout" "[., inputs] | map(select(.type == \"start\")) | .[0].filters.cgroup_id == $(stat -c %i "$cg_dir")"
}

@test "trace --mount: only syncs on that filesystem" {
	fss_mkfs ext4
	local m1="$FSS_MNT"
	fss_mkfs xfs
	local m2="$FSS_MNT"
	# msync records carry no file (hence no device): left out with --mount
	start_syncer a "$m1" --fsync 6 --fdatasync 5 --dsync 4 --sfr 3 --syncfs 2 --uring 3
	start_syncer b "$m2" --fsync 9 --fdatasync 9 --dsync 9 --uring 2
	start_trace --mount "$m1" --json
	go a b
	stop_trace
	s=$(summary)
	assert_kinds "$s" '{"fsync":6,"fdatasync":5,"dsync_write":4,"sync_file_range":3,"syncfs":2,"io_uring_fsync":3}'
	fss_jq "$s" '.devices | length == 1'
	fss_jq "$s" "[.files[].path | select(. != null) | startswith(\"$m1/\")] | all"
	assert_exact_sums "$s"
}

@test "trace --dev: the same filter by block device" {
	fss_mkfs ext4
	local m1="$FSS_MNT" l1="$FSS_LOOP"
	fss_mkfs ext4
	local m2="$FSS_MNT"
	start_syncer a "$m1" --fsync 4 --fdatasync 3
	start_syncer b "$m2" --fsync 5
	start_trace --dev "$l1" --json
	go a b
	stop_trace
	s=$(summary)
	assert_kinds "$s" '{"fsync":4,"fdatasync":3}'
}

@test "INTERVAL COUNT: COUNT interval reports, then a summary that adds them up" {
	fss_mkfs ext4
	start_syncer a "$FSS_MNT" --fsync 10 --fdatasync 10
	start_trace -p "$syncer_pid" --json 1 3
	go a
	wait "$trace_pid"
	[ "$(jq -r .type "$tout" | tr '\n' ' ')" = "start interval interval interval summary " ]
	fss_jq "$tout" '[., inputs] | map(select(.type == "interval") | .seconds > 0) | all'
	[ "$(jq -s '[.[] | select(.type == "interval") | .all.syncs] | add' "$tout")" -eq \
	  "$(jq -s '[.[] | select(.type == "summary") | .all.syncs] | add' "$tout")" ]
	s=$(summary)
	assert_kinds "$s" '{"fsync":10,"fdatasync":10}'
}

@test "-d: one summary after the duration, exit 0" {
	fss_mkfs ext4
	start_syncer a "$FSS_MNT" --fdatasync 10
	start_trace -p "$syncer_pid" --json -d 3
	go a
	wait "$trace_pid"
	[ "$(jq -r .type "$tout" | tr '\n' ' ')" = "start summary " ]
	assert_kinds "$(summary)" '{"fdatasync":10}'
}

@test "--slower 0: every sync printed as it happens, with an exact breakdown" {
	fss_mkfs ext4
	start_syncer a "$FSS_MNT" --fsync 5 --fdatasync 6 --dsync 2
	start_trace -p "$syncer_pid" --json --slower 0
	go a
	stop_trace
	[ "$(jq -c 'select(.type == "sync")' "$tout" | wc -l)" -eq 13 ]
	[ -z "$(jq -c 'select(.type == "sync") | select(.fs_ns + .journal_ns + .queue_ns + .device_write_ns + .device_flush_ns + .other_ns != .total_ns)' "$tout")" ]
	[ "$(jq -r 'select(.type == "sync") | .kind' "$tout" | sort | uniq -c | awk '{printf "%s=%s ", $2, $1}')" = "dsync_write=2 fdatasync=6 fsync=5 " ]
}

@test "plain output: every section, fits 80 columns" {
	fss_mkfs ext4
	start_syncer a "$FSS_MNT" $ALL_A
	start_trace -p "$syncer_pid" --slower 0 --top 2
	go a
	stop_trace
	for w in KIND PROCESSES FILES DEVICES JOURNAL BLAMED summary fsync fdatasync io_uring_fsync syncer; do
		grep -q "$w" "$tout" || { echo "no '$w' in output" >&2; cat "$tout" >&2; return 1; }
	done
	[ "$(awk '{ if (length($0) > 80) n++ } END { print n+0 }' "$tout")" -eq 0 ]
	# --top 2: at most two files listed out of three
	grep -q 'FILES (top 2 of 3' "$tout"
}

# overwrite_syncs DIR N: N fdatasyncs of 4 KiB overwrites of DIR/f (made
# and synced first)
overwrite_syncs() {
	local i
	for ((i = 0; i < $2; i++)); do
		dd if=/dev/zero of="$1/f" bs=4k count=1 conv=notrunc,fdatasync status=none
	done
}

@test "JOURNAL: no jbd2 commit is explained for the filesystem actually traced" {
	fss_mkfs ext4 64
	local calib="$FSS_MNT" dev
	# ext4 with lazytime: an overwrite changes no metadata the journal needs
	fss_mkfs ext4
	mount -o remount,lazytime "$FSS_MNT"
	dd if=/dev/zero of="$FSS_MNT/f" bs=4k count=1 status=none
	sync
	dev="$(mountpoint -d "$FSS_MNT")"
	start_trace --mount "$FSS_MNT" --calib-dir "$calib"
	overwrite_syncs "$FSS_MNT" 10
	stop_trace
	sed -n '/^JOURNAL/,$p' "$tout"
	grep -qx "$dev ext4: no jbd2 commit: its syncs needed none (data only, or no journal)" "$tout"
	! grep -q 'xfs' "$tout" || false
	rm "$FSS_MNT/f"

	fss_mkfs xfs
	dd if=/dev/zero of="$FSS_MNT/f" bs=4k count=1 status=none
	sync
	dev="$(mountpoint -d "$FSS_MNT")"
	start_trace --mount "$FSS_MNT" --calib-dir "$calib"
	overwrite_syncs "$FSS_MNT" 10
	stop_trace
	sed -n '/^JOURNAL/,$p' "$tout"
	grep -qx "$dev xfs: no commit thread: xfs forces its log in the syncing thread (jrn)" "$tout"
	! grep -q 'jbd2 commit:' "$tout" || false
	rm "$FSS_MNT/f"
}

@test "Ctrl-C detaches cleanly: no BPF links left behind" {
	fss_mkfs ext4
	start_trace --mount "$FSS_MNT"
	# the tracer's own links (from its fds), listed by bpftool while it runs
	local ours id
	ours=$(grep -h '^link_id:' /proc/"$trace_pid"/fdinfo/* | awk '{ print $2 }' | sort -n)
	[ "$(echo "$ours" | grep -c .)" -gt 5 ]
	for id in $ours; do
		bpftool link list | grep -q "^$id: " || { echo "link $id not listed" >&2; return 1; }
	done
	stop_trace
	grep -q '=== summary' "$tout"
	for id in $ours; do
		! bpftool link list | grep -q "^$id: " || { echo "link $id left behind" >&2; return 1; }
	done
}

@test "bad input: one line on stderr, exit 2 (usage) or 1 (error), nothing left behind" {
	fss_mkfs ext4
	local want args
	# malformed or conflicting options and arguments are usage errors (2);
	# a cgroup, directory or device that is not there is an error (1)
	while read -r want args; do
		run --separate-stderr "$FSS_BIN" trace $args
		[ "$status" -eq "$want" ] || { echo "exit $status, not $want, for: $args" >&2; return 1; }
		[ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ] || { echo "stderr for '$args': $stderr" >&2; return 1; }
		[ -z "$output" ] || { echo "stdout for '$args': $output" >&2; return 1; }
	done <<-EOF
		2 -p 0
		2 -p notapid
		1 -p 2147483646
		2 -c
		2 -c waytoolongcommname
		1 --cgroup no-such-cgroup.$$
		1 --mount /nonexistent/dir
		1 --mount /etc/hostname
		1 --dev /dev/null
		1 --dev no-such-disk
		2 --mount $FSS_MNT --dev $FSS_LOOP
		2 -d 0
		2 -d x
		2 --top 0
		2 --slower -1
		2 --strategy bogus
		2 --save /nonexistent/dir/trace.jsonl
		2 --bogus
		2 abc
		2 1 0
		2 1 2 3
		2 1 2 -d 3
	EOF
	# nothing left behind: no calibration file in the --mount directory
	[ -z "$(ls -A "$FSS_MNT" | grep -v lost+found)" ]
}

# ---- PostgreSQL 15: WAL syncs by process ----

# pg_check FS: -c postgres and -p walwriter --mount, while pgbench runs (synchronous
# commit for one client, asynchronous for the other: the WAL writer then
# flushes it) and a CHECKPOINT is forced.
pg_check() {
	pg_setup "$1"
	local walwriter out_c out_w err_w pid_w
	walwriter=$(pg_sql "select pid from pg_stat_activity where backend_type = 'walwriter'")
	[ -n "$walwriter" ]
	out_w="$FSS_SCRATCH/walwriter.json"
	err_w="$FSS_SCRATCH/walwriter.err"
	"$FSS_BIN" trace -p "$walwriter" --mount "$FSS_MNT" --json -d 9 > "$out_w" 2> "$err_w" 3>&- &
	pid_w=$!
	bg_pids+=("$pid_w")
	start_trace -c postgres --json -d 9
	wait_for "$err_w" '^fsyncscope: tracing'
	runuser -u postgres -- "$PGBIN/pgbench" -h "$pg_sock" -p "$pg_port" -T 5 -c 1 postgres \
		>/dev/null 2>&1 3>&- &
	local b1=$!
	PGOPTIONS='-c synchronous_commit=off' runuser -u postgres -- "$PGBIN/pgbench" \
		-h "$pg_sock" -p "$pg_port" -T 5 -c 1 postgres >/dev/null 2>&1 3>&- &
	local b2=$!
	wait "$b1"
	wait "$b2"
	pg_sql "checkpoint" >/dev/null
	wait "$trace_pid"
	wait "$pid_w"

	s=$(summary)
	assert_exact_sums "$s"
	# WAL segment syncs, by path
	fss_jq "$s" '[.files[] | select(.path != null and (.path | test("/pg_wal/[0-9A-F]{24}$")))] | length > 0'
	fss_jq "$s" '[.files[] | select(.path != null and (.path | test("/pg_wal/")))] | map(.syncs) | add > 10'
	# broken down by process: backends, the WAL writer, the checkpointer
	fss_jq "$s" '[.processes[] | select(.comm == "postgres")] | length >= 3'
	fss_jq "$s" "[.processes[] | select(.pid == $walwriter and (.cmdline | test(\"walwriter\")))] | length == 1"
	fss_jq "$s" '[.processes[] | select(.cmdline != null and (.cmdline | test("checkpointer")))][0].syncs > 0'
	fss_jq "$s" '[.processes[] | select(.cmdline != null and (.cmdline | test("postgres postgres")))] | length >= 1'
	fss_jq "$s" '.devices | length >= 1'

	# -p of the WAL writer: its syncs only, all on WAL files
	local sw="$FSS_SCRATCH/walwriter.summary.json"
	jq -c 'select(.type == "summary")' "$out_w" > "$sw"
	fss_jq "$sw" ".all.syncs > 0 and ([.processes[].pid] | unique) == [$walwriter]"
	# its files: WAL segments, and pg_wal itself (a new segment's rename
	# fsyncs the directory; found by inode in the data directory, as is a
	# segment zero-filled and closed under a temporary name before we
	# looked at the walwriter's open files: docs/databases.md)
	fss_jq "$sw" '[.files[] | select(.path != null) | .path | test("/pg_wal(/|$)")] | length > 0 and all'
	# with --mount only this disk's requests are recorded: nothing may be lost
	# (without it, heavy I/O elsewhere on the host can fill the ring buffer;
	# the report then says how many events were lost)
	fss_jq "$sw" '.events_lost == 0'
	assert_exact_sums "$sw"
}

# --painter kernel (docs/hotpath.md "trace --painter kernel"): the kernel
# paints each sync and sends one record for it; what is counted over
# request records is null, never 0
@test "trace --painter kernel: the kernel's phases, one record per sync; msync and io_uring fsync counted as not painted; request counts n/a, blame on demand" {
	fss_mkfs ext4
	start_syncer a "$FSS_MNT" $ALL_A
	local a=$syncer_pid
	start_syncer b "$FSS_MNT" --fsync 9
	start_trace -p "$a" --json --painter kernel \
		--events "$FSS_SCRATCH/ev.jsonl" --save "$FSS_SCRATCH/save.jsonl"
	go a b
	stop_trace
	! grep -q -- '--painter kernel: n/a' "$terr"
	s=$(summary)
	fss_jq "$s" '.painter == "kernel" and .events_lost == 0'
	# msync's file is known only at its fs hook, an io_uring fsync is done
	# by another thread: counted with their totals, not painted
	assert_kinds "$s" '{"fsync":7,"fdatasync":5,"dsync_write":4,"sync_file_range":3,"syncfs":1}'
	fss_jq "$s" '.syncs_summarized == 5 and .overload.why.unpainted == 5 and
		.overload.by_kind.msync.summarized == 2 and
		.overload.by_kind.io_uring_fsync.summarized == 3'
	assert_exact_sums "$s"
	fss_jq "$s" '.devices | length == 1 and (.[0] | .syncs == 20 and
		.syncs_with_flush > 0 and .flush_refs > 0 and
		.preflush_refs == null and .fua_writes == null and
		.fua_emulated == null and .syncs_waited_journal == null)'
	fss_jq "$s" '.flush.flushes > 0 and .flush.preflush > 0'
	fss_jq "$s" '.journal | length == 1 and .[0].commits > 0'
	# blame on demand: under 100 syncs of a kind, every painted one (the
	# 20 traced in full; unfiltered, their disk's requests are recorded
	# only once user space has seen a sync there: here, unattributed)
	fss_jq "$s" '.blame.syncs == 20 and
		(.blame_strategy | startswith("on demand (--painter kernel)"))'
	run jq -e -s 'length == 20 and all(.painter == "kernel" and
		.nr_rq == null and .nr_journal == null and .nr_fua == null and
		.fs_ns + .journal_ns + .queue_ns + .device_write_ns +
		.device_flush_ns + .other_ns == .total_ns)' "$FSS_SCRATCH/ev.jsonl"
	[ "$status" -eq 0 ]
	run -0 "$FSS_BIN" report "$FSS_SCRATCH/save.jsonl" --format text
	[[ "$output" == *"painted in the kernel: one record per sync"* ]]
	[[ "$output" == *"BLAMED ("* ]]
	# the device's FUA writes, counted per sync over requests: n/a
	echo "$output" | grep -qE '^[0-9]+:[0-9]+ +loop[0-9]+ .* n/a +[0-9.]+$'
}

@test "trace --painter kernel beside the default painter on the same syncs: the same syncs, flushes and preflushes" {
	fss_mkfs ext4
	start_syncer a "$FSS_MNT" --fsync 40 --fdatasync 40 --dsync 20
	local a=$syncer_pid
	start_trace -p "$a" --json --painter kernel
	local kpid=$trace_pid kout=$tout
	mv "$tout" "$FSS_SCRATCH/k.out"
	start_trace -p "$a" --json
	go a
	stop_trace
	trace_pid=$kpid
	stop_trace
	local u k
	u=$(summary)
	k="$FSS_SCRATCH/k.summary.json"
	jq -c 'select(.type == "summary")' "$FSS_SCRATCH/k.out" > "$k"
	fss_jq "$k" '.painter == "kernel" and .all.syncs == 100'
	fss_jq "$u" '.painter == "user" and .all.syncs == 100'
	[ "$(jq -cS .by_kind "$k")" = "$(jq -cS .by_kind "$u")" ]
	# the flush facts: counted in the kernel, and over request records
	local f
	for f in flushes preflush fua_emulated syncs_with_flush; do
		[ "$(jq ".flush.$f" "$k")" = "$(jq ".flush.$f" "$u")" ] || {
			echo "$f: kernel $(jq ".flush.$f" "$k"), user $(jq ".flush.$f" "$u")" >&2
			return 1; }
	done
	fss_jq "$k" '.flush.flushes > 0'
	assert_exact_sums "$k"
}

@test "trace --painter kernel where the kernel cannot paint (raw_tp block hooks): one line, user space paints with its request counts" {
	fss_mkfs ext4
	start_syncer a "$FSS_MNT" --fsync 5 --fdatasync 5
	FSYNCSCOPE_BLOCK_HOOKS=raw_tp start_trace -p "$syncer_pid" --json \
		--painter kernel
	go a
	stop_trace
	[ "$(grep -c -- '--painter kernel: n/a here (the kernel painter needs the tp_btf block hooks): user space paints' "$terr")" -eq 1 ]
	s=$(summary)
	fss_jq "$s" '.painter == "user" and .all.syncs == 10'
	assert_kinds "$s" '{"fsync":5,"fdatasync":5}'
	fss_jq "$s" '.devices[0] | .preflush_refs > 0 and .fua_writes != null'
	assert_exact_sums "$s"
}

@test "PostgreSQL on ext4: WAL syncs by process (-c postgres, -p walwriter)" {
	pg_check ext4
	fss_jq "$s" '.journal | length >= 1'
}

@test "PostgreSQL on xfs: WAL syncs by process (-c postgres, -p walwriter)" {
	pg_check xfs
	fss_jq "$s" '[.kinds[].phases.journal.ns] | add > 0'
}

# Calibration where no hook can fire (docs/live.md "Calibration"): on a
# tmpfs --calib-dir the fs and block hooks stay attached, not verified,
# and the tool says so (stderr, calibration.verified false with why); the
# syncs traced on an ext4 disk still get their fs and device phases (before,
# the fs hooks were dropped and their time was painted other)
@test "calibration on tmpfs: the hooks are kept, not verified, said so; an ext4 disk's syncs still get fs and device time" {
	fss_mkfs ext4
	local c="$FSS_SCRATCH/calib" s
	mkdir "$c"
	echo "$c" >> "$FSS_SCRATCH/.mounts"	# unmounted by fss_cleanup
	mount -t tmpfs tmpfs "$c"
	start_trace --mount "$FSS_MNT" --calib-dir "$c" --json
	grep -q "^fsyncscope: calibration in $c is on tmpfs, with no block device: the fs and block hooks are kept, not verified" "$terr"
	overwrite_syncs "$FSS_MNT" 20
	stop_trace
	umount "$c"
	s="$(summary)"
	fss_jq "$s" '.all.syncs == 20 and .all.phases.fs.ns > 0 and
		.all.phases.device_flush.ns > 0'
	assert_exact_sums "$s"
	"$FSS_BIN" check -j --calib-dir "$FSS_MNT" > "$FSS_SCRATCH/ck.json"
	fss_jq "$FSS_SCRATCH/ck.json" '.tracer.strategy.calibration.verified == true'
	mount -t tmpfs tmpfs "$c"
	"$FSS_BIN" check -j --calib-dir "$c" > "$FSS_SCRATCH/ck2.json" 2> /dev/null
	umount "$c"
	fss_jq "$FSS_SCRATCH/ck2.json" '.tracer.strategy.calibration |
		.verified == false and (.why | test("not verified")) and
		.dropped_hooks == []'
}
