#!/usr/bin/env bats
# `fsyncscope trace [OPTIONS] -- CMD ARGS...` (issue 21, item 7): CMD runs
# held before exec until the tracer is attached and filtered to it; its
# syncs and those of every process it forks are traced, nobody else's;
# the trace ends when CMD exits and fsyncscope exits with CMD's status.
# Ground truth: fio's own JSON (fdatasync count and latency), strace -f -c
# around sqlite3 in WAL mode, dd with a known number of syncs.  Everything
# runs on loop-mounted images; no timing is asserted (the fio means are
# printed for the report, compared only for gross errors such as a unit).

load lib
bats_require_minimum_version 1.5.0

setup() {
	fss_need_root
	fss_scratch
	bg_pids=()
}

teardown() {
	fss_stop_bg TERM
	fss_cleanup
}

# summary FILE: the summary object of a JSON Lines trace
summary() { jq -c 'select(.type == "summary")' "$1"; }

@test "-- CMD: exit status passed through (code, 128+signal, 127 not found, 126 not executable)" {
	fss_mkfs ext4 64
	run -3 --separate-stderr "$FSS_BIN" trace --calib-dir "$FSS_MNT" -- sh -c 'exit 3'
	grep -q '=== summary' <<< "$output"
	run -143 --separate-stderr "$FSS_BIN" trace --calib-dir "$FSS_MNT" -- sh -c 'kill -TERM $$'
	run -0 --separate-stderr "$FSS_BIN" trace --calib-dir "$FSS_MNT" -j -- true
	[ "$(summary <(printf '%s\n' "$output") | jq '.command_status')" = 0 ]
	run -127 --separate-stderr "$FSS_BIN" trace --calib-dir "$FSS_MNT" -- no-such-command-$$
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ "$stderr" = "fsyncscope trace: cannot run 'no-such-command-$$': No such file or directory" ]
	[ -z "$output" ]
	: > "$FSS_SCRATCH/notexec"
	run -126 --separate-stderr "$FSS_BIN" trace --calib-dir "$FSS_MNT" -- "$FSS_SCRATCH/notexec"
	[ "$stderr" = "fsyncscope trace: cannot run '$FSS_SCRATCH/notexec': Permission denied" ]
	# nothing left in the calibration directory
	[ -z "$(ls -A "$FSS_MNT" | grep -v lost+found)" ]
}

@test "-- CMD: usage errors exit 2 with one line" {
	run -2 --separate-stderr "$FSS_BIN" trace --
	[ "$stderr" = "fsyncscope trace: -- needs a command (try 'fsyncscope trace --help')" ]
	run -2 --separate-stderr "$FSS_BIN" trace -p 1 -- true
	[ "${#stderr_lines[@]}" -eq 1 ]
	run -2 --separate-stderr "$FSS_BIN" trace -d 5 -- true
	[ "${#stderr_lines[@]}" -eq 1 ]
	run -2 --separate-stderr "$FSS_BIN" trace 1 2 -- true
	[ "${#stderr_lines[@]}" -eq 1 ]
	run -2 --separate-stderr "$FSS_BIN" trace --bogus -- true
	[ "${#stderr_lines[@]}" -eq 1 ]
}

@test "-- CMD: exactly CMD and its children (grandchildren too), not a process outside" {
	fss_mkfs ext4
	local m="$FSS_MNT" s
	# outside: fdatasyncs on the same filesystem all along
	( while :; do dd if=/dev/zero of="$m/outside" bs=4k count=1 conv=notrunc,fdatasync status=none; done ) 3>&- &
	bg_pids+=($!)
	# inside: 1 fsync (CMD's child), 1 fdatasync (a grandchild), 3 O_DSYNC writes
	run -0 --separate-stderr "$FSS_BIN" trace -j -- sh -c "
		dd if=/dev/zero of=$m/a bs=4k count=1 conv=fsync status=none
		sh -c 'dd if=/dev/zero of=$m/b bs=4k count=1 conv=fdatasync status=none'
		dd if=/dev/zero of=$m/c bs=4k count=3 oflag=dsync status=none"
	s="$(summary <(printf '%s\n' "$output"))"
	echo "$s" | jq -c '.by_kind'
	[ "$(echo "$s" | jq -cS '.by_kind')" = '{"dsync_write":3,"fdatasync":1,"fsync":1}' ]
	# three dd processes, none of them the outside loop's
	[ "$(echo "$s" | jq '.processes | length')" -eq 3 ]
	[ "$(echo "$s" | jq '.command_status')" -eq 0 ]
}

@test "-- CMD: SIGTERM to the tracer goes to CMD; the exit status says so" {
	fss_mkfs ext4 64
	"$FSS_BIN" trace --calib-dir "$FSS_MNT" -- sleep 60 \
		> "$FSS_SCRATCH/out" 2> "$FSS_SCRATCH/err" 3>&- &
	local tp=$! rc=0 i
	bg_pids+=($tp)
	for ((i = 0; i < 300; i++)); do
		grep -q 'until it exits' "$FSS_SCRATCH/err" && break
		sleep 0.1
	done
	grep -q '^fsyncscope: tracing sleep (pid [0-9]*) and its children (until it exits)$' "$FSS_SCRATCH/err"
	kill -TERM "$tp"
	wait "$tp" || rc=$?
	[ "$rc" -eq 143 ]
	grep -q '=== summary' "$FSS_SCRATCH/out"
	! pgrep -x -P "$tp" sleep || false
}

@test "-- fio: fdatasync count equals fio's own (mean reported)" {
	command -v fio >/dev/null || skip "fio not installed"
	fss_mkfs ext4
	local s n_fio n_fss m_fio m_fss
	run -0 --separate-stderr "$FSS_BIN" trace -j -- fio --name=w \
		--filename="$FSS_MNT/fio.dat" --rw=write --bs=4k --size=8m \
		--fdatasync=1 --output-format=json --output="$FSS_SCRATCH/fio.json"
	s="$(summary <(printf '%s\n' "$output"))"
	n_fio=$(jq '[.jobs[].sync.lat_ns.N] | add' "$FSS_SCRATCH/fio.json")
	m_fio=$(jq '.jobs[0].sync.lat_ns.mean / 1000' "$FSS_SCRATCH/fio.json")
	n_fss=$(echo "$s" | jq '.by_kind.fdatasync')
	m_fss=$(echo "$s" | jq '.kinds[] | select(.kind == "fdatasync") | .mean_us')
	echo "# fio: $n_fio fdatasyncs, mean $m_fio us; fsyncscope: $n_fss, mean $m_fss us" >&3
	[ "$n_fio" -gt 1000 ]
	[ "$n_fss" -eq "$n_fio" ]
	[ "$(echo "$s" | jq -cS '.by_kind | keys')" = '["fdatasync"]' ]
	# the same syscalls timed from both sides: a gross check only (units)
	awk -v a="$m_fss" -v b="$m_fio" 'BEGIN { r = a / b; exit !(r > 0.75 && r < 1.33) }'
}

@test "-- sqlite3 in WAL mode: every sync counted, as strace -f -c counts them" {
	command -v sqlite3 >/dev/null || skip "sqlite3 not installed"
	command -v strace >/dev/null || skip "strace not installed"
	fss_mkfs ext4
	local n=50 i s fss want
	{
		echo "PRAGMA journal_mode=WAL;"
		echo "PRAGMA synchronous=FULL;"
		echo "CREATE TABLE t(x);"
		for ((i = 0; i < n; i++)); do echo "INSERT INTO t VALUES($i);"; done
	} > "$FSS_SCRATCH/in.sql"
	run -0 --separate-stderr "$FSS_BIN" trace -j -- strace -f -c -o "$FSS_SCRATCH/strace.txt" \
		-e trace=fsync,fdatasync sqlite3 "$FSS_MNT/db" \
		".output $FSS_SCRATCH/sqlite.out" ".read $FSS_SCRATCH/in.sql"
	[ "$(cat "$FSS_SCRATCH/sqlite.out")" = wal ]
	[ "$(sqlite3 "$FSS_MNT/db" 'SELECT count(*) FROM t')" -eq "$n" ]
	s="$(summary <(printf '%s\n' "$output"))"
	fss=$(echo "$s" | jq '(.by_kind.fsync // 0) + (.by_kind.fdatasync // 0)')
	want=$(awk '$NF == "fsync" || $NF == "fdatasync" { n += $4 } END { print n + 0 }' "$FSS_SCRATCH/strace.txt")
	echo "# sqlite3 WAL, synchronous=FULL, $n autocommit inserts: strace $want syncs, fsyncscope $fss" >&3
	cat "$FSS_SCRATCH/strace.txt"
	# one WAL sync per commit at least
	[ "$fss" -ge "$n" ]
	[ "$fss" -eq "$want" ]
}
