#!/usr/bin/env bats
# The sanitizer lane (make check-asan, docs/hardening.md): every command
# once, on a loop image, with FSS_BIN built with ASan + UBSan and
# LeakSanitizer on (ASAN_OPTIONS=detect_leaks=1:exitcode=86, UBSan halting
# with 87): run (the suite and a custom test with --events), devices and
# devices --probe, trace with --slower, compare, report in every format,
# diff, and the exporter serving /metrics and a garbage request.  Each
# must exit 0 with no sanitizer report on stderr.  Not in `bats tests/`
# (this folder is its own lane); with a plain build it still checks exits.

load ../lib
bats_require_minimum_version 1.5.0

setup_file() {
	[ "$(id -u)" -eq 0 ] || return 0
	fss_scratch
	fss_mkfs ext4 256
	echo "$FSS_MNT" > "$FSS_SCRATCH/mnt"
}

teardown_file() {
	fss_cleanup
}

setup() {
	fss_need_root
	[ -x "$FSS_BIN" ] || skip "no $FSS_BIN"
	S="$FSS_SCRATCH"
	M="$(cat "$S/mnt")"
}

teardown() {
	fss_stop_bg 2>/dev/null || true
}

# clean WHAT: the last run exited 0 and no sanitizer spoke
clean() {
	if [ "$status" -ne 0 ] || [[ "$stderr" == *Sanitizer* ]] ||
	   [[ "$stderr" == *"runtime error"* ]]; then
		echo "$1: exit $status: ${stderr:0:3000}"
		return 1
	fi
}

@test "asan: run (suite, custom with --events), devices, devices --probe" {
	run --separate-stderr "$FSS_BIN" run -s 0.05 --json "$M"
	clean "run suite"
	echo "$output" > "$S/suite.json"
	run --separate-stderr "$FSS_BIN" run --method fdatasync --count 40 \
		--json --events "$S/ev" --events-detail "$M"
	clean "run custom"
	echo "$output" > "$S/custom.json"
	run --separate-stderr "$FSS_BIN" run --method fdatasync --count 30 \
		--json "$M"
	clean "run custom 2"
	echo "$output" > "$S/custom2.json"
	run --separate-stderr "$FSS_BIN" devices "$M"
	clean devices
	run --separate-stderr "$FSS_BIN" devices --probe "$M" --count 30 --json
	clean "devices --probe"
	echo "$output" > "$S/probe.json"
}

@test "asan: trace --slower with a writer, compare on ext4" {
	fss_start_bg tr err 'tracing' "$FSS_BIN" trace --json -d 4 \
		--slower 0.001 --mount "$M"
	local i
	for i in $(seq 50); do
		dd if=/dev/zero of="$M/w" bs=8k count=1 conv=fdatasync,notrunc \
			status=none
	done
	wait "$bg_pid"
	status=$?
	bg_pids=()
	stderr="$(cat "$S/tr.err")"
	clean trace
	cp "$S/tr.out" "$S/trace.jsonl"
	grep -q '"type":"summary"' "$S/trace.jsonl"
	run --separate-stderr "$FSS_BIN" compare --fs ext4 --size 300m \
		-s 0.1 --json
	clean compare
	echo "$output" > "$S/compare.json"
}

@test "asan: report in every format, diff" {
	local f fmt
	for f in suite custom probe compare; do
		for fmt in text json html csv; do
			[ "$f" = probe ] && [ "$fmt" != text ] && [ "$fmt" != json ] &&
				continue
			run --separate-stderr "$FSS_BIN" report -f "$fmt" "$S/$f.json"
			clean "report $fmt $f"
		done
	done
	run --separate-stderr "$FSS_BIN" report --hist "$S/suite.json"
	clean "report --hist"
	run --separate-stderr "$FSS_BIN" report -f text "$S/trace.jsonl"
	clean "report trace"
	for fmt in html csv perfetto; do
		run --separate-stderr "$FSS_BIN" report -f "$fmt" --events "$S/ev" \
			"$S/custom.json"
		clean "report --events $fmt"
	done
	run --separate-stderr "$FSS_BIN" diff "$S/custom.json" "$S/custom2.json"
	clean diff
	run --separate-stderr "$FSS_BIN" diff -f html "$S/trace.jsonl" "$S/trace.jsonl"
	clean "diff trace"
}

@test "asan: exporter serves /metrics and survives garbage, exits clean on SIGTERM" {
	local port=$((20000 + RANDOM % 20000)) i
	fss_start_bg ex err 'exporting on' "$FSS_BIN" exporter \
		--listen "127.0.0.1:$port"
	for i in $(seq 20); do
		dd if=/dev/zero of="$M/w" bs=8k count=1 conv=fdatasync,notrunc \
			status=none
	done
	curl -sf "http://127.0.0.1:$port/metrics" | grep -q '^fsyncscope_'
	printf 'GARBAGE\r\n\r\n' | timeout 5 curl -s "telnet://127.0.0.1:$port" \
		> /dev/null || true
	curl -sf -H 'Accept: application/openmetrics-text' \
		"http://127.0.0.1:$port/metrics" | tail -1 | grep -qx '# EOF'
	kill -TERM "$bg_pid"
	wait "$bg_pid"
	status=$?
	bg_pids=()
	stderr="$(cat "$S/ex.err")"
	clean exporter
}
