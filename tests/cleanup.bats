#!/usr/bin/env bats
# Nothing left behind, even on SIGKILL (issue 21, item 1): the test files
# of run / devices --probe and the calibration scratch file of the tracer
# are anonymous (O_TMPFILE) where the filesystem allows it, so a SIGKILL
# at any point leaves the directory exactly as it was (listing with sizes
# compared before and after).  Where O_TMPFILE is not used
# (on FUSE, tests/fixtures/passfs, which refuses it; FSYNCSCOPE_NO_TMPFILE=1
# forces the same on ext4, also for the calibration file)
# the named files a SIGKILL leaves are removed by the next start, which
# says so on stderr; files of live processes, locked files and symlinks
# are never touched.

load lib
load fixtures/delay

bats_require_minimum_version 1.5.0

setup() {
	fss_need_root
	KPID=
}

teardown() {
	if [ -n "${KPID:-}" ] && kill -0 "$KPID" 2>/dev/null; then
		kill -KILL "$KPID" 2>/dev/null || true
		wait "$KPID" 2>/dev/null || true
	fi
	fss_cleanup	# also tears the delay fixture down
}

listing() {
	find "$1" -printf '%p %s\n' | sort
}

# fd_into PID DIR: "SIZE TARGET" of an open file of PID under DIR (an
# anonymous one reads "DIR/#INO (deleted)"); fails if there is none.
fd_into() {
	local f
	f="$(find /proc/"$1"/fd -lname "$2/*" -printf '%p\n' -quit 2>/dev/null)"
	[ -n "$f" ] || return 1
	# the descriptor can close between find and here (the tracer's
	# calibration file comes and goes before the test file): then none
	local size target
	target="$(readlink "$f")" && size="$(stat -L -c %s "$f" 2>/dev/null)" ||
		return 1
	[ -n "$target" ] || return 1
	echo "$size $target"
}

# wait_fd PID DIR MINSIZE TRIES: poll every 20 ms until PID holds a file
# under DIR of at least MINSIZE bytes; prints "SIZE TARGET".
wait_fd() {
	local i got
	for ((i = 0; i < $4; i++)); do
		kill -0 "$1" 2>/dev/null || return 1
		if got="$(fd_into "$1" "$2")" && [ "${got%% *}" -ge "$3" ]; then
			echo "$got"
			return 0
		fi
		sleep 0.02
	done
	return 1
}

# kill_now: SIGKILL $KPID and reap it; its status must be 137
kill_now() {
	local rc=0
	kill -KILL "$KPID"
	wait "$KPID" || rc=$?
	KPID=
	[ "$rc" -eq 137 ] || { echo "exit status $rc, not 137 (SIGKILL)" >&2; return 1; }
}

same_listing() {
	listing "$1" >"$FSS_SCRATCH/after"
	diff "$FSS_SCRATCH/before" "$FSS_SCRATCH/after" >&2
}

# --- SIGKILL during prefill, during a test, during calibration ---------

kill_in_prefill() {
	fss_mkfs "$1" 1024
	local d="$FSS_MNT/data" got size
	mkdir "$d" && echo keep >"$d/existing"
	listing "$d" >"$FSS_SCRATCH/before"
	"$FSS_BIN" run --method fdatasync --file-size 512m --count 100 "$d" \
		>"$FSS_SCRATCH/out" 2>&1 &
	KPID=$!
	# past 64 KiB: the tracer's 4 KiB calibration file comes first
	got="$(wait_fd "$KPID" "$d" $((64 << 10)) 1500)" || {
		echo "never saw the test file being filled"; cat "$FSS_SCRATCH/out"
		return 1
	} >&2
	kill_now
	size="${got%% *}"
	echo "killed with the test file at $size bytes: $got" >&2
	# really during the prefill (written, or being fsynced: the test's
	# row never came), and the file was anonymous
	[ "$size" -le $((512 << 20)) ]
	if grep -q 'syncs: fdatasync' "$FSS_SCRATCH/out"; then
		echo "killed after the test, not during the prefill" >&2
		return 1
	fi
	[[ "$got" == *" (deleted)" ]]
	same_listing "$d"
}

@test "SIGKILL during prefill leaves DIR as it was (ext4)" { kill_in_prefill ext4; }
@test "SIGKILL during prefill leaves DIR as it was (xfs)" { kill_in_prefill xfs; }

kill_in_test() {
	fss_mkfs "$1"
	local d="$FSS_MNT" got
	listing "$d" >"$FSS_SCRATCH/before"
	"$FSS_BIN" run -s 30 --method fdatasync "$d" >"$FSS_SCRATCH/out" 2>&1 &
	KPID=$!
	# prefilled (16 MiB), then well inside the 30 s test
	got="$(wait_fd "$KPID" "$d" $((16 << 20)) 1500)" || {
		echo "never saw the prefilled test file"; cat "$FSS_SCRATCH/out"
		return 1
	} >&2
	sleep 2
	kill_now
	[[ "$got" == *" (deleted)" ]]
	same_listing "$d"
}

@test "SIGKILL during a traced test leaves DIR as it was (ext4)" { kill_in_test ext4; }
@test "SIGKILL during a traced test leaves DIR as it was (xfs)" { kill_in_test xfs; }

@test "SIGKILL during a test leaves DIR as it was (tmpfs, --no-trace)" {
	fss_mktmpfs
	local d="$FSS_MNT" got
	listing "$d" >"$FSS_SCRATCH/before"
	"$FSS_BIN" run --no-trace -s 30 --method fdatasync "$d" \
		>"$FSS_SCRATCH/out" 2>&1 &
	KPID=$!
	got="$(wait_fd "$KPID" "$d" $((16 << 20)) 1500)"
	sleep 1
	kill_now
	[[ "$got" == *" (deleted)" ]]
	same_listing "$d"
}

@test "SIGKILL during devices --probe leaves DIR as it was (ext4)" {
	fss_mkfs ext4
	local d="$FSS_MNT" got
	listing "$d" >"$FSS_SCRATCH/before"
	"$FSS_BIN" devices --probe "$d" -s 30 >"$FSS_SCRATCH/out" 2>&1 &
	KPID=$!
	got="$(wait_fd "$KPID" "$d" $((1 << 20)) 1500)"	# its 1 MiB file
	sleep 1
	kill_now
	[[ "$got" == *" (deleted)" ]]
	same_listing "$d"
}

# Calibration takes a few ms on a loop device: on the delay fixture every
# device flush is an fsync of the backing file that sleeps 400 ms, so the
# calibration's 4 syncs take seconds and the kill lands inside them.
kill_in_calibration() {	# NAMED(0|1) COMMAND...
	local named="$1"
	shift
	delay_setup ext4 256
	d="$DELAY_MNT"
	listing "$d" >"$FSS_SCRATCH/before"
	delay_set fsync_us=400000 write_us=0 reset
	FSYNCSCOPE_NO_TMPFILE="$named" "$@" "$d" >"$FSS_SCRATCH/out" 2>&1 &
	KPID=$!
	got="$(wait_fd "$KPID" "$d" 0 1500)" || {
		echo "never saw the calibration file"; cat "$FSS_SCRATCH/out"
		return 1
	} >&2
	echo "killed during calibration, holding: $got" >&2
	# only the 4 KiB calibration file so far, no test file
	[ "${got%% *}" -le 4096 ]
	kill_now
	delay_set fsync_us=0 write_us=0 reset
}

@test "SIGKILL during run's tracer calibration leaves DIR as it was" {
	kill_in_calibration 0 "$FSS_BIN" run --count 5 --method fdatasync
	[[ "$got" == *" (deleted)" ]]
	same_listing "$d"
}

@test "SIGKILL during trace's calibration leaves the calibration DIR as it was" {
	kill_in_calibration 0 "$FSS_BIN" trace --calib-dir
	[[ "$got" == *" (deleted)" ]]
	same_listing "$d"
}

# --- named files (no O_TMPFILE): the stale-file sweep -------------------

@test "named calibration file left by SIGKILL is removed by the next start" {
	kill_in_calibration 1 "$FSS_BIN" run --count 5 --method fdatasync
	local f="${got#* }" pid
	pid="${f##*/.fsyncscope-calib.}"
	[ "$f" = "$d/.fsyncscope-calib.$pid" ]
	[ -f "$f" ]			# what a SIGKILL leaves of a named file
	run --separate-stderr "$FSS_BIN" run --json --count 5 --method fdatasync "$d"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == "fsyncscope: removed $f ("*"), left behind by process $pid, which is gone" ]]
	[ ! -e "$f" ]
	same_listing "$d"
}

@test "named test file left by SIGKILL is removed by the next start, with one stderr line" {
	fss_mkfs ext4
	local d="$FSS_MNT" got f pid
	listing "$d" >"$FSS_SCRATCH/before"
	FSYNCSCOPE_NO_TMPFILE=1 "$FSS_BIN" run -s 30 --method fdatasync "$d" \
		>"$FSS_SCRATCH/out" 2>&1 &
	KPID=$!
	got="$(wait_fd "$KPID" "$d" $((16 << 20)) 1500)"
	f="${got#* }"
	pid="$KPID"
	[ "$f" = "$d/.fsyncscope.$pid.0" ]
	kill_now
	[ "$(stat -c %s "$f")" -eq $((16 << 20)) ]	# what a SIGKILL leaves
	run --separate-stderr "$FSS_BIN" run --json --count 20 --method fdatasync "$d"
	[ "$status" -eq 0 ]
	echo "$stderr"
	[ "$stderr" = "fsyncscope: removed $f (16.0 MiB), left behind by process $pid, which is gone" ]
	jq -e '.tests[0].status == "ok"' <<<"$output"
	same_listing "$d"
}

@test "sweep keeps files of live processes, locked files, symlinks and other names" {
	fss_mkfs ext4
	local d="$FSS_MNT" dead
	sh -c 'exit 0' &
	dead=$!
	wait "$dead"
	kill -0 "$dead" 2>/dev/null && skip "pid $dead reused already"
	echo x >"$d/.fsyncscope.$$.0"			# this shell: alive
	echo x >"$d/.fsyncscope.$dead.7"		# dead: removed
	echo x >"$d/.fsyncscope.$dead.1"		# dead but locked: kept
	echo x >"$d/.fsyncscope-calib.$dead"		# dead: removed
	echo x >"$d/target"
	ln -s target "$d/.fsyncscope.$dead.2"		# a symlink: kept
	echo x >"$d/.fsyncscope.$dead.3x"		# not our name: kept
	echo x >"$d/.fsyncscope.$dead"			# not our name: kept
	flock -x "$d/.fsyncscope.$dead.1" sleep 60 &
	KPID=$!
	sleep 0.3
	run --separate-stderr "$FSS_BIN" run --no-trace --count 5 --method fdatasync "$d"
	[ "$status" -eq 0 ]
	echo "$stderr"
	[ "$(echo "$stderr" | grep -c '^fsyncscope: removed ')" -eq 2 ]
	[[ "$stderr" == *"removed $d/.fsyncscope.$dead.7 (2 bytes), left behind by process $dead, which is gone"* ]]
	[[ "$stderr" == *"removed $d/.fsyncscope-calib.$dead (2 bytes)"* ]]
	[ ! -e "$d/.fsyncscope.$dead.7" ] && [ ! -e "$d/.fsyncscope-calib.$dead" ]
	[ -f "$d/.fsyncscope.$$.0" ] && [ -f "$d/.fsyncscope.$dead.1" ]
	[ -L "$d/.fsyncscope.$dead.2" ] && [ -f "$d/target" ]
	[ -f "$d/.fsyncscope.$dead.3x" ] && [ -f "$d/.fsyncscope.$dead" ]
}

@test "--file PATH is the user's name: kept as is, never swept" {
	fss_mkfs ext4
	local d="$FSS_MNT"
	echo x >"$d/mine"
	run --separate-stderr "$FSS_BIN" run --no-trace --count 5 --method fdatasync \
		--file "$d/new.dat" 
	[ "$status" -eq 0 ]
	[ ! -e "$d/new.dat" ]		# created by us, removed as before
	[ -f "$d/mine" ]
	[ -z "$stderr" ]
}

# A FUSE filesystem really refuses O_TMPFILE (libfuse has no tmpfile
# operation): tests/fixtures/passfs, a passthrough of a tmpfs.
@test "FUSE (no O_TMPFILE): named file, left by SIGKILL, removed by the next start" {
	local pf="$FSS_BUILD/tests/passfs" m got f pid
	[ -x "$pf" ] || skip "build/tests/passfs missing (run make)"
	fss_mktmpfs
	m="$FSS_SCRATCH/fuse"
	mkdir "$m"
	( "$pf" "$FSS_MNT" "$m" </dev/null >"$FSS_SCRATCH/passfs.log" 2>&1 3>&- & )
	echo "$m" >>"$FSS_SCRATCH/.mounts"
	for _ in $(seq 50); do grep -q " $m fuse" /proc/mounts && break; sleep 0.1; done
	grep -q " $m fuse" /proc/mounts
	run python3 -c "import os; os.open('$m', os.O_TMPFILE | os.O_RDWR, 0o600)"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Operation not supported"* ]]
	listing "$m" >"$FSS_SCRATCH/before"
	"$FSS_BIN" run --no-trace -s 30 --method fdatasync "$m" \
		>"$FSS_SCRATCH/out" 2>&1 &
	KPID=$!
	got="$(wait_fd "$KPID" "$m" $((16 << 20)) 1500)"
	f="${got#* }"
	pid="$KPID"
	[ "$f" = "$m/.fsyncscope.$pid.0" ]
	kill_now
	[ -f "$f" ]
	run --separate-stderr "$FSS_BIN" run --no-trace --count 5 --method fdatasync "$m"
	[ "$status" -eq 0 ]
	[ "$stderr" = "fsyncscope: removed $f (16.0 MiB), left behind by process $pid, which is gone" ]
	same_listing "$m"
}

@test "1024 jobs on anonymous files (two descriptors each) under a 1024 fd soft limit" {
	fss_mktmpfs
	listing "$FSS_MNT" >"$FSS_SCRATCH/before"
	run --separate-stderr bash -c "ulimit -Sn 1024 && exec '$FSS_BIN' run --no-trace --json \
		--count 2 --method fdatasync --jobs 1024 --file-size 8k '$FSS_MNT'"
	echo "$stderr"
	[ "$status" -eq 0 ]
	jq -e '.tests[0].status == "ok" and .tests[0].ops == 2048' <<<"$output"
	same_listing "$FSS_MNT"
}

@test "stale named files give their space back before the space check" {
	fss_mkfs ext4 64
	local d="$FSS_MNT" dead avail
	sh -c 'exit 0' &
	dead=$!
	wait "$dead"
	kill -0 "$dead" 2>/dev/null && skip "pid $dead reused already"
	# leave less than the 16 MiB test file needs, in a stale file
	avail=$(( $(stat -f -c '%a * %S' "$d") ))
	fallocate -l $(( avail - (8 << 20) )) "$d/.fsyncscope.$dead.0"
	run --separate-stderr "$FSS_BIN" run --no-trace --count 5 --method fdatasync "$d"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == "fsyncscope: removed $d/.fsyncscope.$dead.0 ("*" MiB), left behind by process $dead, which is gone" ]]
	[ ! -e "$d/.fsyncscope.$dead.0" ]
}

# btrfs: a named test file (older kernels' btrfs never logs nor flushes
# an fsync of a file with no link: docs/run.md "Files and safety"), removed
# at the end
@test "btrfs: the test file is named (.fsyncscope.PID.N), not anonymous, and gone after the run" {
	fss_mkfs btrfs 512
	local d="$FSS_MNT" got pid
	listing "$d" >"$FSS_SCRATCH/before"
	"$FSS_BIN" run --no-trace -s 4 --method fdatasync "$d" \
		>"$FSS_SCRATCH/out" 2>&1 &
	KPID=$!
	pid=$KPID
	got="$(wait_fd "$KPID" "$d" $((16 << 20)) 1500)" || {
		echo "never saw the prefilled test file"; cat "$FSS_SCRATCH/out"
		return 1
	} >&2
	echo "open: $got" >&2
	[[ "$got" == *" $d/.fsyncscope.$pid."[0-9]* ]]
	[[ "$got" != *"(deleted)"* ]]
	wait "$KPID"
	KPID=
	grep -q 'fdatasync' "$FSS_SCRATCH/out"
	same_listing "$d"
}
