#!/usr/bin/env bats
# The observer stays out of the picture (issue 32, docs/live.md "What the
# tool itself does"): fsyncscope's own I/O while tracing starts no journal
# transaction on the traced filesystem and is never blamed on anyone, and
# names do not go missing (a short-lived dd's file, a neighbour across
# tests).  On loop images; nothing here asserts timing.

load lib
load pg
load blame
bats_require_minimum_version 1.5.0

setup() {
	fss_need_root
	fss_scratch
	bg_pids=()
	pg_data=""
}

teardown() {
	fss_stop_bg INT TERM
	pg_stop
	blamer_stop
	fss_cleanup
}

# stop_bt PID: Ctrl-C to bpftrace, which must exit 0 within 30 s (else it
# is killed and the test fails: its output would be incomplete)
stop_bt() {
	local i rc=0
	kill -INT "$1"
	for ((i = 0; i < 300; i++)); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$1" 2>/dev/null; then
		kill -KILL "$1"
		wait "$1" 2>/dev/null || true
		echo "bpftrace did not stop on SIGINT" >&2
		return 1
	fi
	wait "$1" || rc=$?
	[ "$rc" -eq 0 ] || { echo "bpftrace exited $rc" >&2; return 1; }
}

# kdev MOUNT: its dev_t as the kernel's tracepoints print it (MAJ << 20 | MIN)
kdev() {
	local d
	d="$(mountpoint -d "$1")"
	echo $(( (${d%%:*} << 20) | ${d##*:} ))
}

pgbench() {
	runuser -u postgres -- "$PGBIN/pgbench" -h "$pg_sock" -p "$pg_port" "$@" postgres \
		>/dev/null 2>&1 3>&-
}

@test "observer: tracing PostgreSQL with --pg and the datadir search starts no jbd2 handle on its fs; fsyncscope is never a neighbour" {
	command -v bpftrace >/dev/null || skip "no bpftrace"
	pg_setup ext4 -c autovacuum=off
	# every directory read would update its atime (one journal handle
	# each): what the data-directory scan did under relatime, made sure
	mount -o remount,strictatime "$FSS_MNT"
	local s dev n
	dev="$(kdev "$FSS_MNT")"
	start_trace t --mount "$FSS_MNT" --json --top 1000 --slower 1 \
		--pg "host=$pg_sock port=$pg_port user=postgres dbname=postgres" 1
	local tp=$trace_pid
	# from here on: every jbd2 handle fsyncscope's process stops on the fs
	fss_start_bg bt out '^ready' bpftrace -e "
		BEGIN { printf(\"ready\\n\"); }
		tracepoint:jbd2:jbd2_handle_stats /args->dev == $dev && pid == $tp/ {
			printf(\"handle %d %s\\n\", tid, comm); }" || return 1
	local bt=$bg_pid
	pgbench -T 3 -c 2
	# the checkpointer syncs relation files it opens and closes: the
	# datadir search names them (by inode, after /proc/PID/fd missed)
	pg_sql "checkpoint" >/dev/null
	pgbench -T 2 -c 2
	stop_bt "$bt"
	stop_trace "$tp"
	n=$(grep -c '^handle ' "$FSS_SCRATCH/bt.out" || true)
	echo "jbd2 handles of fsyncscope (pid $tp) while tracing: $n" >&3
	grep '^handle ' "$FSS_SCRATCH/bt.out" | sort | uniq -c >&2 || true
	[ "$n" -eq 0 ]
	jq -c 'select(.type == "summary")' "$FSS_SCRATCH/t.out" > "$FSS_SCRATCH/s"
	s="$FSS_SCRATCH/s"
	fss_jq "$s" '.all.syncs > 0 and .blame.syncs > 0'
	# the datadir search and --pg were at work: relation files named
	fss_jq "$s" '[.files[] | select(.relation != null and
		(.path | test("/base/[0-9]+/[0-9]+$")))] | length >= 1'
	# fsyncscope is never blamed as a neighbour: a request of its own
	# (a directory block the datadir search had to read) that a sync
	# queued behind is "fsyncscope itself" (tool), never journal work
	jq -c "select(.type == \"sync\") | .blame[]? | select(.pid == $tp)" \
		"$FSS_SCRATCH/t.out" | head -5 >&2
	fss_jq "$s" "all(.blamed[] | select(.pid == $tp);
		.tool == true and .by_phase.journal_ns == null)"
	[ "$(jq -s "[.[] | select(.type == \"sync\") | .blame[]? |
		select(.pid == $tp and (.tool != true or .phase == \"journal\"))] |
		length" "$FSS_SCRATCH/t.out")" -eq 0 ]
	[ "$(jq -s "[.[] | (select(.type == \"sync\") | .blame[]), .blamed[]? |
		select(.tool == true and .pid != $tp)] | length" \
		"$FSS_SCRATCH/t.out")" -eq 0 ]
	# the text never shows its threads by name, only as itself
	"$FSS_BIN" report "$FSS_SCRATCH/t.out" --format text > "$FSS_SCRATCH/t.txt"
	! grep -q 'fss-consumer' "$FSS_SCRATCH/t.txt" || false
	if jq -e "any(.blamed[]; .pid == $tp)" "$s" >/dev/null; then
		grep -qE "^ +$tp fsyncscope itself " "$FSS_SCRATCH/t.txt"
	fi
	# and its own syncs (calibration) are not among the traced ones
	fss_jq "$s" "[.processes[] | select(.pid == $tp)] | length == 0"
}

@test "observer: a short-lived dd conv=fsync gets its file's path and its name" {
	fss_mkfs ext4 256
	mkdir "$FSS_MNT/d"
	start_trace t --mount "$FSS_MNT" --json
	local tp=$trace_pid s
	# dd closes the file and exits right after its fsync: gone before the
	# tracer reads /proc/PID/fd (its cwd, the scratch dir, is elsewhere)
	dd if=/dev/zero of="$FSS_MNT/d/short.dat" bs=1M count=4 conv=fsync \
		status=none
	stop_trace "$tp"
	jq -c 'select(.type == "summary")' "$FSS_SCRATCH/t.out" > "$FSS_SCRATCH/s"
	s="$FSS_SCRATCH/s"
	jq -c '.files[] | {path, dev, ino, syncs}' "$s" >&2
	fss_jq "$s" '[.processes[] | select(.comm == "dd")] | length == 1'
	fss_jq "$s" "[.files[] | select(.path == \"$FSS_MNT/d/short.dat\")] |
		length == 1"
}

@test "observer: a neighbour named in one test's blame keeps its name in the next (run, two tests)" {
	fss_mkfs ext4 512
	blamer_build
	mkdir "$FSS_MNT/w" "$FSS_MNT/r"
	local w j="$FSS_SCRATCH/run.json"
	"$BLAMER" writer "$FSS_MNT/w" 30 > "$FSS_SCRATCH/w.pid" &
	bg_pids+=($!)
	wait_for "$FSS_SCRATCH/w.pid" '^ready'
	w="$(pid_of "$FSS_SCRATCH/w.pid")"
	# two tests, each its own blame: the writer's comm is sent by the
	# kernel once per CPU, during the first
	"$FSS_BIN" run --json --sweep jobs=1,2 --method fdatasync -s 2 \
		"$FSS_MNT/r" > "$j"
	kill -TERM "$w" 2>/dev/null || true
	jq -c '[.. | objects | select(has("others")) | .others[] |
		{pid, comm}]' "$j" >&2
	# the writer is a cause in both tests, by name in both
	[ "$(jq "[.. | objects | select(has(\"others\")) |
		select(any(.others[]; .pid == $w))] | length" "$j")" -ge 2 ]
	[ "$(jq "[.. | objects | select(has(\"others\")) | .others[] |
		select(.pid == $w and .comm != \"bigwriter\")] | length" "$j")" -eq 0 ]
	# and no cause of either test is nameless
	[ "$(jq '[.. | objects | select(has("others")) | .others[] |
		select(.comm == "?" or .comm == "")] | length' "$j")" -eq 0 ]
}
