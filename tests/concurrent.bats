#!/usr/bin/env bats
# Two tracers at once (issue 21, item 5): two `run`s on one filesystem, two
# `run`s on two images backed by the same disk, two `trace -p` side by
# side.  Each sees exactly its own syncs (count = its ops, every traced
# sync is of its own process), never the other's data writes, and prints
# nothing on stderr.  What both do see, by the model (docs/model.md), are
# the flushes on a shared disk: those are not asserted away here.

load lib
bats_require_minimum_version 1.5.0

SYNCER="$FSS_BUILD/tests/syncer"

setup() {
	fss_need_root
	fss_scratch
	bg_pids=()
}

teardown() {
	fss_stop_bg INT TERM
	fss_cleanup
}

# run_pair DIR_A DIR_B ARGS...: two `run --json` at the same moment, each
# with --events; outputs in $FSS_SCRATCH/{a,b}.{json,err,ev}, pids in
# $FSS_SCRATCH/{a,b}.pid
run_pair() {
	local da="$1" db="$2" n rc
	shift 2
	for n in a b; do
		local d="$da"
		[ "$n" = b ] && d="$db"
		( echo "$BASHPID" >"$FSS_SCRATCH/$n.pid"
		  exec "$FSS_BIN" run --json --events "$FSS_SCRATCH/$n.ev" "$@" "$d" \
			>"$FSS_SCRATCH/$n.json" 2>"$FSS_SCRATCH/$n.err" 3>&- ) &
		bg_pids+=("$!")
	done
	for n in 0 1; do
		rc=0
		wait "${bg_pids[$n]}" || rc=$?
		[ "$rc" -eq 0 ] || { echo "run $n exited $rc" >&2; cat "$FSS_SCRATCH"/*.err >&2; return 1; }
	done
	bg_pids=()
}

# jq prelude: the syncs a test makes
SYNCS_WANT='def want: if (.method | test("^open_|^pwritev2_dsync$")) then .writes else .ops end; .'

# check_own NAME: NAME's run traced exactly its ops, only its own syncs,
# none of the other's writes, and said nothing on stderr
check_own() {
	local n="$1" pid j="$FSS_SCRATCH/$1.json" ev="$FSS_SCRATCH/$1.ev" bad
	pid="$(cat "$FSS_SCRATCH/$n.pid")"
	if [ -s "$FSS_SCRATCH/$n.err" ]; then
		echo "run $n wrote on stderr:" >&2
		cat "$FSS_SCRATCH/$n.err" >&2
		return 1
	fi
	fss_jq "$j" '[.tests[] | select(.syncs_traced != null)] | length >= 1'
	fss_jq "$j" '.drops == 0'
	# each traced test: one sync per op, or per write where every write
	# syncs (O_DSYNC/O_SYNC opens, RWF_DSYNC)
	bad=$(jq -c "$SYNCS_WANT"' | .tests[] | select(.syncs_traced != null and
		.syncs_traced != want) | {name, ops, writes, syncs_traced}' "$j")
	[ -z "$bad" ] || { echo "run $n: traced syncs != its syncs: $bad" >&2; return 1; }
	# every traced sync is one of this process's, as many as it made
	[ "$(jq -s 'length' "$ev")" -eq \
	  "$(jq "$SYNCS_WANT"' | [.tests[] | select(.syncs_traced != null) | want] | add' "$j")" ]
	bad=$(jq -c "select(.pid != $pid)" "$ev" | head -3)
	[ -z "$bad" ] || { echo "run $n traced another process's syncs: $bad" >&2; return 1; }
	# an 8 KiB overwrite + fdatasync writes one data block: the other
	# run's data writes never join it; a second write comes only with a
	# commit of the shared journal in the window (model rule 3)
	bad=$(jq -c 'select((.test | startswith("custom.")) and .nr_write > 1 and
		.nr_journal == 0) | {test, start_ns, nr_write, nr_journal}' "$ev" | head -3)
	[ -z "$bad" ] || { echo "run $n: syncs with another's writes: $bad" >&2; return 1; }
	# distinct requests, and the syncs they touched: never more than syncs
	fss_jq "$j" 'all(.tests[]; .incomplete_rqs <= .syncs_traced and .syncs_incomplete <= .syncs_traced)'
}

# the two runs' traced syncs overlapped in time (else nothing was tested)
check_overlap() {
	local a b
	a=$(jq -s '[min_by(.start_ns).start_ns, (max_by(.start_ns + .total_ns) | .start_ns + .total_ns)]' "$FSS_SCRATCH/a.ev")
	b=$(jq -s '[min_by(.start_ns).start_ns, (max_by(.start_ns + .total_ns) | .start_ns + .total_ns)]' "$FSS_SCRATCH/b.ev")
	jq -en --argjson a "$a" --argjson b "$b" \
		'([$a[0], $b[0]] | max) < ([$a[1], $b[1]] | min)' >/dev/null ||
		{ echo "the runs did not overlap: a=$a b=$b" >&2; return 1; }
}

@test "two runs on one ext4 image: each traces exactly its own ops, no stderr" {
	fss_mkfs ext4
	mkdir "$FSS_MNT/a" "$FSS_MNT/b"
	run_pair "$FSS_MNT/a" "$FSS_MNT/b" --method fdatasync --jobs 2 --count 3000
	check_overlap
	check_own a
	check_own b
	# 2 jobs x 3000 ops each
	fss_jq "$FSS_SCRATCH/a.json" '.tests[0].ops == 6000 and .tests[0].syncs_traced == 6000'
	fss_jq "$FSS_SCRATCH/b.json" '.tests[0].ops == 6000 and .tests[0].syncs_traced == 6000'
}

@test "two runs on two images on one backing disk: each traces exactly its own ops" {
	fss_mkfs ext4 256
	local m1="$FSS_MNT"
	fss_mkfs xfs 512
	local m2="$FSS_MNT"
	run_pair "$m1" "$m2" --method fdatasync --count 4000
	check_overlap
	check_own a
	check_own b
	fss_jq "$FSS_SCRATCH/a.json" '.tests[0].syncs_traced == 4000 and .target.fs == "ext4"'
	fss_jq "$FSS_SCRATCH/b.json" '.tests[0].syncs_traced == 4000 and .target.fs == "xfs"'
}

@test "two suite runs on one xfs image with --count: every test's traced syncs equal its ops" {
	fss_mkfs xfs
	mkdir "$FSS_MNT/a" "$FSS_MNT/b"
	run_pair "$FSS_MNT/a" "$FSS_MNT/b" --count 300
	check_overlap
	check_own a
	check_own b
}

# --- trace -p, twice ---------------------------------------------------

@test "two trace -p at once: each sees only its own process, exactly" {
	[ -x "$SYNCER" ] || skip "build/tests/syncer missing (run make)"
	fss_mkfs ext4
	local n pa pb ta tb rc
	for n in a b; do
		mkfifo "$FSS_SCRATCH/$n.go"
	done
	"$SYNCER" --go "$FSS_SCRATCH/a.go" --fsync 40 --fdatasync 30 --dsync 20 \
		"$FSS_MNT" >"$FSS_SCRATCH/sa.out" 2>&1 3>&- &
	pa=$!; bg_pids+=("$pa")
	"$SYNCER" --go "$FSS_SCRATCH/b.go" --fsync 25 --fdatasync 35 --sfr 10 \
		"$FSS_MNT" >"$FSS_SCRATCH/sb.out" 2>&1 3>&- &
	pb=$!; bg_pids+=("$pb")
	wait_for "$FSS_SCRATCH/sa.out" '^ready '
	wait_for "$FSS_SCRATCH/sb.out" '^ready '
	"$FSS_BIN" trace -p "$pa" --json >"$FSS_SCRATCH/ta.out" 2>"$FSS_SCRATCH/ta.err" 3>&- &
	ta=$!; bg_pids+=("$ta")
	"$FSS_BIN" trace -p "$pb" --json >"$FSS_SCRATCH/tb.out" 2>"$FSS_SCRATCH/tb.err" 3>&- &
	tb=$!; bg_pids+=("$tb")
	wait_for "$FSS_SCRATCH/ta.err" '^fsyncscope: tracing .*\(Ctrl-C to stop\)$'
	wait_for "$FSS_SCRATCH/tb.err" '^fsyncscope: tracing .*\(Ctrl-C to stop\)$'
	echo go >"$FSS_SCRATCH/a.go"
	echo go >"$FSS_SCRATCH/b.go"
	wait_for "$FSS_SCRATCH/sa.out" '^done '
	wait_for "$FSS_SCRATCH/sb.out" '^done '
	for n in "$ta" "$tb"; do
		kill -INT "$n"
		rc=0
		wait "$n" || rc=$?
		[ "$rc" -eq 0 ] || { echo "tracer exited $rc" >&2; return 1; }
	done
	jq -c 'select(.type == "summary")' "$FSS_SCRATCH/ta.out" >"$FSS_SCRATCH/sa.json"
	jq -c 'select(.type == "summary")' "$FSS_SCRATCH/tb.out" >"$FSS_SCRATCH/sb.json"
	fss_jq "$FSS_SCRATCH/sa.json" '.by_kind == {"fsync": 40, "fdatasync": 30, "dsync_write": 20}'
	fss_jq "$FSS_SCRATCH/sb.json" '.by_kind == {"fsync": 25, "fdatasync": 35, "sync_file_range": 10}'
	fss_jq "$FSS_SCRATCH/sa.json" "[.processes[].pid] == [$pa] and .events_lost == 0"
	fss_jq "$FSS_SCRATCH/sb.json" "[.processes[].pid] == [$pb] and .events_lost == 0"
	# stderr: the start-up line only, no warning
	[ "$(grep -vc '^fsyncscope: tracing .*(Ctrl-C to stop)$' "$FSS_SCRATCH/ta.err")" -eq 0 ] ||
		{ cat "$FSS_SCRATCH/ta.err" >&2; return 1; }
	[ "$(grep -vc '^fsyncscope: tracing .*(Ctrl-C to stop)$' "$FSS_SCRATCH/tb.err")" -eq 0 ] ||
		{ cat "$FSS_SCRATCH/tb.err" >&2; return 1; }
}
