#!/usr/bin/env bats
# One result model, many renderers (issue 17): `report` renders a saved
# result as HTML (opened in Debian's headless chromium through Playwright,
# tests/helpers/check-html), CSV, JSON and the --hist view; `diff` says
# whether B is slower than A with bootstrap intervals; --format / -o on the
# commands; bad input to report and diff.  Loop images only.

load lib
load blame
load fixtures/delay
bats_require_minimum_version 1.5.0

PY="$FSS_BUILD/pyenv/bin/python"
ART="$FSS_BUILD/artifacts"

setup_file() {
	[ "$(id -u)" -eq 0 ] || return 0
	fss_scratch
	blamer_build
	mkdir -p "$ART"
	fss_mkfs ext4 512
	echo "$FSS_MNT" > "$FSS_SCRATCH/mnt"
	# the suite (every test kind) with per-sync records, and one custom test
	"$FSS_BIN" run -s 0.3 --json --events "$FSS_SCRATCH/suite.ev" "$FSS_MNT" \
		> "$FSS_SCRATCH/suite.json"
	"$FSS_BIN" run --method fdatasync --count 400 --json "$FSS_MNT" \
		> "$FSS_SCRATCH/fdatasync.json"
}

teardown_file() {
	fss_cleanup
}

teardown() {
	blamer_stop	# the blame cases' neighbours, if a test failed
}

setup() {
	fss_need_root
	[ -x "$FSS_BIN" ] || skip "build ./fsyncscope first (make)"
	[ -x "$PY" ] || { echo "no $PY: run 'make pydeps'" >&2; return 1; }
	S="$FSS_SCRATCH"
}

# check_page PAGE JSON NAME: the page in chromium, against the JSON
check_page() {
	run "$PY" "$FSS_ROOT/tests/helpers/check-html" "$1" "$2" "$ART/$3.png"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == *" 0 problems" ]]
	[ -s "$ART/$3.png" ]
}

@test "run --json: schema fsyncscope/run v1, every ok test has histograms whose counts match" {
	run jq -e '.schema == "fsyncscope/run" and .schema_version == 1' "$S/suite.json"
	[ "$status" -eq 0 ]
	# per-op histogram count = ops; traced total histogram count = syncs_traced
	run jq -r '.tests[] | select(.status == "ok") |
		[.name, .ops, .hist.op.count, (.syncs_traced // "-"),
		 (.hist.total.count // "-")] | @tsv' "$S/suite.json"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -ge 14 ]
	while IFS=$'\t' read -r name ops hop st ht; do
		[ "$ops" = "$hop" ] || { echo "$name: ops $ops, hist.op.count $hop"; false; }
		[ "$st" = "$ht" ] || { echo "$name: syncs_traced $st, hist.total $ht"; false; }
	done <<<"$output"
	# each phase histogram has as many samples as the total, buckets add up
	run jq -e '[.tests[] | select(.hist.total) | .hist as $h |
		($h.total.count) as $n |
		(["fs","journal","queue","device_write","device_flush","other"] |
		 all(. as $p | $h[$p].count == $n and
		     ([$h[$p].buckets[][1]] | add) == $n))] | all' "$S/suite.json"
	[ "$status" -eq 0 ]
}

@test "histogram p50 is within 2 % of the exact nearest-rank p50 of each test" {
	# the bucket that holds the histogram's p50 holds the exact value too
	# (buckets are < 1/64 wide): per op, and for the traced phases
	"$PY" - "$S/suite.json" <<'EOF'
import json, math, sys
doc = json.load(open(sys.argv[1]))
checked = bad = 0
def bucket_p50(h):
    rank, seen = math.ceil(0.5 * h["count"]), 0
    for lo, n in h["buckets"]:
        seen += n
        if seen >= rank:
            return lo
for t in doc["tests"]:
    if t["status"] != "ok":
        continue
    pairs = [("op", t["latency_us"]["p50"])]
    if "total" in t["hist"]:
        pairs += [(p, t["breakdown"][p]["p50_us"]) for p in ("fs", "device_flush")]
    for series, exact_us in pairs:
        lo, exact = bucket_p50(t["hist"][series]), exact_us * 1000
        width = 1 if lo < 64 else 2 ** (math.floor(math.log2(lo)) - 6)
        checked += 1
        if not (lo - 1 <= exact < lo + width + 1):
            print(t["name"], series, "exact", exact, "bucket", lo, width)
            bad += 1
print(checked, "checked,", bad, "off")
sys.exit(1 if bad or checked < 20 else 0)
EOF
}

@test "report --format html of a run (with --events timeline) opens in chromium; charts and numbers check out" {
	"$FSS_BIN" report "$S/suite.json" --events "$S/suite.ev" --format html -o "$S/suite.html"
	[ -s "$S/suite.html" ]
	# self-contained: no script, no link to anything outside the page
	! grep -qiE '<script|<link |src="http|href="http|@import' "$S/suite.html" || false
	grep -q 'each traced sync over time' "$S/suite.html"
	check_page "$S/suite.html" "$S/suite.json" run-suite
	# HTML of the same result is the same bytes (no clock, no randomness)
	"$FSS_BIN" report "$S/suite.json" --events "$S/suite.ev" -o "$S/suite2.html"
	cmp "$S/suite.html" "$S/suite2.html"
}

@test "run --format html -o FILE renders at the end; --format json equals --json" {
	local m; m="$(cat "$S/mnt")"
	"$FSS_BIN" run --method fdatasync --count 200 --format html -o "$S/direct.html" "$m"
	grep -q 'fsyncscope run:' "$S/direct.html"
	grep -q '<svg class="chart"' "$S/direct.html"
	"$FSS_BIN" run --method fdatasync --count 50 --format json -o "$S/f.json" "$m"
	run jq -e '.schema == "fsyncscope/run" and (.tests | length) == 1' "$S/f.json"
	[ "$status" -eq 0 ]
	# text to -o: the file holds what stdout would have, stdout is empty
	run --separate-stderr "$FSS_BIN" run --no-trace --method fdatasync --count 20 -o "$S/t.txt" "$m"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	grep -q '^fsyncscope .* run$' "$S/t.txt"
	grep -q 'custom.fdatasync\|fdatasync' "$S/t.txt"
}

# -o and --save go through a temporary file renamed over the target, so a
# reader never sees half a result; a target that is not a regular file is
# written in place.  (Renaming over /dev/null replaced the machine's null
# device with a regular file: found by a session's own `-o /dev/null`.)
# The devices here are our own: a null device node made in the scratch
# directory, never /dev/null itself.
@test "-o and --save: a device node or FIFO is written in place, never replaced; a symlink's file is replaced, the link kept" {
	local m; m="$(cat "$S/mnt")"
	mknod -m 666 "$S/null" c 1 3
	"$FSS_BIN" report --format text -o "$S/null" "$S/fdatasync.json"
	[ -c "$S/null" ]
	"$FSS_BIN" run --no-trace --method fdatasync --count 5 -o "$S/null" "$m"
	[ -c "$S/null" ]
	"$FSS_BIN" trace --save "$S/null" -o "$S/null" -d 0.5 > /dev/null 2>&1
	[ -c "$S/null" ]
	# nothing was left beside it
	[ -z "$(ls "$S" | grep '^null\.tmp\.')" ]
	# a FIFO: its reader gets the whole text
	mkfifo "$S/fifo"
	cat "$S/fifo" > "$S/fifo.out" &
	"$FSS_BIN" report --format text -o "$S/fifo" "$S/fdatasync.json"
	wait $!
	[ -p "$S/fifo" ]
	"$FSS_BIN" report --format text "$S/fdatasync.json" | cmp - "$S/fifo.out"
	# a symbolic link to a file: the file gets the result, the link stays
	echo old > "$S/real.txt"
	ln -s real.txt "$S/link.txt"
	"$FSS_BIN" report --format text -o "$S/link.txt" "$S/fdatasync.json"
	[ -L "$S/link.txt" ]
	"$FSS_BIN" report --format text "$S/fdatasync.json" | cmp - "$S/real.txt"
	rm -f "$S/null" "$S/fifo" "$S/fifo.out" "$S/real.txt" "$S/link.txt"
}

@test "report --format csv: RFC 4180, one row per test x series, counts from the histograms" {
	"$FSS_BIN" report "$S/suite.json" --format csv -o "$S/suite.csv"
	# CRLF line ends
	[ "$(grep -c $'\r$' "$S/suite.csv")" -eq "$(wc -l < "$S/suite.csv")" ]
	"$PY" - "$S/suite.csv" "$S/suite.json" <<'EOF'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
doc = json.load(open(sys.argv[2]))
want = sum(len([k for k in t.get("hist", {}) if k not in ("scheme", "unit")])
           for t in doc["tests"])
assert len(rows) == want, (len(rows), want)
by = {(r["test"], r["series"]): r for r in rows}
for t in doc["tests"]:
    for s, h in t.get("hist", {}).items():
        if s in ("scheme", "unit"):
            continue
        assert int(by[(t["name"], s)]["count"]) == h["count"], (t["name"], s)
        if s in ("fs", "device_flush") and t.get("breakdown"):
            share = float(by[(t["name"], s)]["share"])
            assert abs(share - t["breakdown"][s]["share"]) < 1e-4
print(len(rows), "rows")
EOF
	# per-sync CSV from the events file: one row per line, a header
	"$FSS_BIN" report "$S/suite.json" --events "$S/suite.ev" --format csv -o "$S/ev.csv"
	[ "$(($(wc -l < "$S/ev.csv") - 1))" -eq "$(wc -l < "$S/suite.ev")" ]
	head -1 "$S/ev.csv" | grep -q '^test,tid,pid,comm,kind,'
}

@test "report --hist: a biolatency-style view of each test's histograms" {
	# a run: its text with the histograms under each row (as run --hist)
	run "$FSS_BIN" report --hist "$S/fdatasync.json"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Custom test: fdatasync"* ]]
	[[ "$output" == *"usecs"*": count"*"distribution"* ]]
	[[ "$output" == *"    device_flush: 400 samples"* ]]
	# the counts of the power-of-two rows of the total add up to 400
	local sum
	sum="$(awk '/^    total:/ {on=1; next} /^    [a-z_]+:/ {on=0} on && /->/ {s += $5} END {print s}' <<<"$output")"
	[ "$sum" -eq 400 ]
	# a compare result: the histograms of each test
	if [ -f "$S/cmp.json" ]; then
		run "$FSS_BIN" report --hist "$S/cmp.json"
		[ "$status" -eq 0 ]
		[[ "$output" == *"  ext4, fdatasync_overwrite:"* ]]
	fi
}

@test "diff: a run against itself is within noise everywhere and passes --fail-if-slower 5" {
	run "$FSS_BIN" diff --fail-if-slower 5 "$S/fdatasync.json" "$S/fdatasync.json"
	echo "$output"
	[ "$status" -eq 0 ]
	# 80 columns, but for the paths of A and B
	[ -z "$(tail -n +5 <<<"$output" | awk 'length($0) > 80')" ]
	"$FSS_BIN" diff -j "$S/fdatasync.json" "$S/fdatasync.json" > "$S/self.json"
	run jq -e '.schema == "fsyncscope/diff" and ([.tests[].rows[]] | length) >= 18 and
		([.tests[].rows[] | .verdict] | all(. == "within noise"))' "$S/self.json"
	[ "$status" -eq 0 ]
	"$FSS_BIN" diff -f html -o "$S/self.html" "$S/fdatasync.json" "$S/fdatasync.json"
	check_page "$S/self.html" "$S/self.json" diff-self
}

@test "diff: a 4 ms flush delay is device_flush and total slower; --fail-if-slower 5 exits 1" {
	delay_setup ext4
	chrt --all-tasks --fifo --pid 10 "$DELAY_PID" >/dev/null
	delay_set fsync_us=0 write_us=0 reset
	nice -n -20 "$FSS_BIN" run --json --method fdatasync --count 300 "$DELAY_MNT" > "$S/a.json"
	delay_set fsync_us=4000 write_us=0 reset
	nice -n -20 "$FSS_BIN" run --json --method fdatasync --count 300 "$DELAY_MNT" > "$S/b.json"
	delay_teardown
	run --separate-stderr "$FSS_BIN" diff --fail-if-slower 5 "$S/a.json" "$S/b.json"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"--fail-if-slower"* ]]
	"$FSS_BIN" diff -j "$S/a.json" "$S/b.json" > "$S/d.json" || true
	echo "diff p50s: $(jq -c '[.tests[0].rows[] | select(.stat == "p50") |
		[.series, .change_us, .verdict]]' "$S/d.json")" >&3
	# device_flush and total slower in p50 and mean, all with intervals
	# above 0.  Not p99: of 300 syncs it is the 3rd slowest, and a stall
	# by other load in A can reach 4 ms too (seen here: A's total p99
	# 11.6 ms and device_flush p99 4.15 ms with seven engineers' tests on
	# the two CPUs)
	run jq -e '[.tests[0].rows[] | select((.series == "device_flush" or
		.series == "total") and .stat != "p99")
		| .verdict == "slower" and .ci95_us[0] > 0] | length == 4 and all' "$S/d.json"
	[ "$status" -eq 0 ]
	# the added time is device_flush's: every other phase moved its p50 by
	# less than 5 % of what the total's p50 moved
	run jq -e '(.tests[0].rows[] | select(.series == "total" and .stat == "p50")
		| .change_us) as $t | [.tests[0].rows[] | select(.stat == "p50" and
		.series != "total" and .series != "device_flush") |
		(.change_us | fabs) < 0.05 * $t] | length == 5 and all' "$S/d.json"
	[ "$status" -eq 0 ]
	# At a 100 us floor (1/40 of the injected 4 ms) no other phase's p50 is
	# slower: the delay did not leak.  At the default 5 us floor the
	# thread's wake-up after a 4 ms sleep, some tens of us in fs or other on
	# a busy host, is truly measured and can be "slower"; mean and p99 move
	# with a few syncs stalled by other load (fs mean +541 us was seen with
	# five engineers' tests on the two CPUs).  One-sided, as in accuracy.bats: a phase faster than in
	# A means A was disturbed (seen here: A's fs p50 98 us, B's 9 us, while
	# other engineers' tests ran on both CPUs), not that the delay leaked.
	"$FSS_BIN" diff -j --min-change-us 100 "$S/a.json" "$S/b.json" > "$S/d100.json" || true
	jq -r '.tests[0].rows[] | select(.verdict != "within noise") |
		[.series, .stat, .change_us, .verdict] | @tsv' "$S/d100.json"
	run jq -e '.method.min_change_us == 100 and ([.tests[0].rows[] | select(.series != "total"
		and .series != "device_flush" and .stat == "p50") | .verdict !=
		"slower"] | length == 5 and all)' "$S/d100.json"
	[ "$status" -eq 0 ]
	"$FSS_BIN" diff -f html -o "$S/d.html" "$S/a.json" "$S/b.json" || true
	check_page "$S/d.html" "$S/d.json" diff-flush-delay
}

@test "report of a trace summary (JSON Lines): phase shares, top processes and files" {
	local m; m="$(cat "$S/mnt")"
	"$FSS_BIN" trace --json --mount "$m" -d 4 > "$S/trace.jsonl" 2>/dev/null &
	local tp=$!
	sleep 1.5
	"$FSS_BIN" run --no-trace --method fdatasync --count 300 "$m" >/dev/null
	wait "$tp"
	run jq -se '[.[] | select(.type == "summary")][0] |
		.schema == "fsyncscope/trace" and .all.syncs >= 300' "$S/trace.jsonl"
	[ "$status" -eq 0 ]
	"$FSS_BIN" report "$S/trace.jsonl" -o "$S/trace.html"
	grep -q 'Top processes by sync time' "$S/trace.html"
	grep -q 'Top files by sync time' "$S/trace.html"
	grep -q 'Sync latency, all [0-9]* traced syncs' "$S/trace.html"
	run jq -se '[.[] | select(.type == "summary")][0] | .all.hist.count == .all.syncs' "$S/trace.jsonl"
	[ "$status" -eq 0 ]
	tail -1 "$S/trace.jsonl" > "$S/trace-summary.json"
	check_page "$S/trace.html" "$S/trace-summary.json" trace-summary
	# two trace summaries diff on their histograms of all syncs
	run "$FSS_BIN" diff -j "$S/trace.jsonl" "$S/trace.jsonl"
	[ "$status" -eq 0 ]
	run jq -e '.of == "trace" and .tests[0].test == "all syncs" and
		([.tests[0].rows[] | select(.series == "total")] | length) == 3 and
		([.tests[0].rows[].verdict] | all(. == "within noise"))' <<<"$output"
	[ "$status" -eq 0 ]
}

@test "report and diff: bad input is one line on stderr, exit 2, no output file left" {
	local bad="$S/bad" o="$S/out.html"
	mkdir -p "$bad"
	echo 'not json' > "$bad/notjson"
	head -c 300 "$S/fdatasync.json" > "$bad/truncated.json"
	jq '.schema = "someone/else"' "$S/fdatasync.json" > "$bad/schema.json"
	jq '.schema_version = 99' "$S/fdatasync.json" > "$bad/newer.json"
	jq 'del(.schema)' "$S/fdatasync.json" > "$bad/noschema.json"
	for f in notjson truncated.json schema.json newer.json noschema.json missing; do
		run --separate-stderr "$FSS_BIN" report "$bad/$f" -o "$o"
		echo "$f: $status $stderr"
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[ ! -e "$o" ]
		run --separate-stderr "$FSS_BIN" diff "$S/fdatasync.json" "$bad/$f"
		[ "$status" -eq 2 ]
		[ "${#stderr_lines[@]}" -eq 1 ]
	done
	[[ "$stderr" == *"missing"* ]]
	# a newer schema_version names what this tool reads
	run --separate-stderr "$FSS_BIN" report "$bad/newer.json"
	[[ "$stderr" == *"schema_version 99"* ]]
	# two kinds: a run and a diff
	"$FSS_BIN" diff -j "$S/fdatasync.json" "$S/fdatasync.json" > "$bad/diff.json"
	run --separate-stderr "$FSS_BIN" diff "$S/fdatasync.json" "$bad/diff.json"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"run result"*"diff result"* ]]
	# unwritable -o: nothing left in the directory
	mkdir -p "$bad/ro"
	chmod 0555 "$bad/ro"
	run --separate-stderr "$FSS_BIN" report "$S/fdatasync.json" -o "$bad/no/such/dir/x.html"
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	run --separate-stderr "$FSS_BIN" diff -o "$bad/no/such/dir/x.txt" "$S/fdatasync.json" "$S/fdatasync.json"
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ -z "$(ls -A "$bad/ro")" ]
	# bad options
	run --separate-stderr "$FSS_BIN" report --format pdf "$S/fdatasync.json"
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	run --separate-stderr "$FSS_BIN" diff --fail-if-slower abc "$S/fdatasync.json" "$S/fdatasync.json"
	[ "$status" -eq 2 ]
	run --separate-stderr "$FSS_BIN" diff "$S/fdatasync.json"
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	# report needs no privilege
	local pub; pub="$(mktemp /tmp/fss-report.XXXXXX.json)"
	install -m 0644 "$S/fdatasync.json" "$pub"
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$FSS_BIN" report --format csv "$pub"
	rm -f "$pub"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "test,fs,series,"* ]]
}

@test "compare: --json -o, its HTML (filesystems on shared axes) in chromium, diff of compare results" {
	mkdir -p "$S/cmpdir"
	"$FSS_BIN" compare --fs ext4,xfs -s 0.3 --dir "$S/cmpdir" --json -o "$S/cmp.json"
	run jq -e '.schema == "fsyncscope/compare" and
		([.workloads[].results[] | select(.hist.total)] | length) == 6' "$S/cmp.json"
	[ "$status" -eq 0 ]
	"$FSS_BIN" report "$S/cmp.json" -o "$S/cmp.html"
	grep -q 'sync latency per filesystem, same axes' "$S/cmp.html"
	# the summary: each filesystem's ops/s and p99 over its 3 rounds,
	# a dot and a bar each (check-html reads them back, htmlfigs.py)
	run jq -e '[.workloads[].results[] | .spread.ops_per_sec.rounds,
		.spread.p99_us.rounds] | length == 12 and all(. == 3)' "$S/cmp.json"
	[ "$status" -eq 0 ]
	[ "$(grep -o '<circle class="iv"' "$S/cmp.html" | wc -l)" -eq 12 ]
	[ "$(grep -c '<table class="spread"' "$S/cmp.html")" -eq 3 ]
	check_page "$S/cmp.html" "$S/cmp.json" compare
	"$FSS_BIN" diff -j "$S/cmp.json" "$S/cmp.json" > "$S/cmpdiff.json"
	run jq -e '[.tests[].test] | (index("ext4/fdatasync_overwrite") != null) and
		(index("xfs/fdatasync_overwrite") != null)' "$S/cmpdiff.json"
	[ "$status" -eq 0 ]
	# the images are gone
	[ -z "$(ls -A "$S/cmpdir")" ]
}

@test "perfetto: run --events --format perfetto is a Chrome JSON trace; syncs, phases, requests, flows and commits check out" {
	local m; m="$(cat "$S/mnt")"
	# two threads appending + fsync on ext4: jbd2 commits, flushes
	"$FSS_BIN" run --method fsync --pattern append --jobs 2 --count 150 \
		--events "$S/p.ev" --format perfetto -o "$S/p.trace.json" "$m"
	run "$PY" "$FSS_ROOT/tests/helpers/check-perfetto" "$S/p.trace.json" "$S/p.ev"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == "300 syncs, "*" 0 problems" ]]
	# the journal has its own track with commits, the disk its requests
	[[ "${lines[-1]}" != *" 0 commits,"* ]]
	[[ "${lines[-1]}" != *" 0 requests,"* ]]
	# report renders the same from the saved pieces
	"$FSS_BIN" run --method fdatasync --count 100 --json --events "$S/q.ev" --events-detail "$m" > "$S/q.json"
	# records without the detail: there is nothing to draw, and it says how to get it
	run --separate-stderr "$FSS_BIN" report "$S/suite.json" --events "$S/suite.ev" --format perfetto
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--events-detail"* ]]
	"$FSS_BIN" report "$S/q.json" --events "$S/q.ev" --format perfetto -o "$S/q.trace.json"
	run "$PY" "$FSS_ROOT/tests/helpers/check-perfetto" "$S/q.trace.json" "$S/q.ev"
	[ "$status" -eq 0 ]
	# without per-sync records there is nothing to draw: one line, exit 2
	run --separate-stderr "$FSS_BIN" run --format perfetto --count 5 "$m"
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	run --separate-stderr "$FSS_BIN" report --format perfetto "$S/q.json" -o "$S/none.json"
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ ! -e "$S/none.json" ]
}

@test "run and compare: an -o that cannot be written is refused before anything runs" {
	local m; m="$(cat "$S/mnt")"
	run --separate-stderr "$FSS_BIN" run --format html -o /nonexistent/dir/r.html "$m"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == *"/nonexistent/dir/r.html"* ]]
	# nothing ran: no test file, no trace of a run in the directory
	[ -z "$(find "$m" -mindepth 1 -maxdepth 1 ! -name lost+found)" ]
	run --separate-stderr "$FSS_BIN" compare -o /nonexistent/dir/c.json --json
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
}

@test "run --hist: histograms under the row, the same view as report --hist, 80 columns" {
	local m; m="$(cat "$S/mnt")"
	run "$FSS_BIN" run --method fdatasync --count 200 --hist "$m"
	[ "$status" -eq 0 ]
	[[ "$output" == *"    per op: 200 samples"* ]]
	[[ "$output" == *"    device_flush: 200 samples"* ]]
	local sum
	sum="$(awk '/^    per op:/ {on=1; next} /^    [a-z_]+:/ {on=0} on && /->/ {s += $5} END {print s}' <<<"$output")"
	[ "$sum" -eq 200 ]
	[ -z "$(awk 'length($0) > 80' <<<"$output")" ]
	# untraced: the per-op histogram only
	run "$FSS_BIN" run --no-trace --method fdatasync --count 50 --hist "$m"
	[ "$status" -eq 0 ]
	[[ "$output" == *"per op: 50 samples"* ]]
	[[ "$output" != *"device_flush:"* ]]
}

@test "compare --hist: each filesystem's histograms under its workload's table" {
	mkdir -p "$S/cmph"
	run "$FSS_BIN" compare --fs ext4 --count 100 --dir "$S/cmph" --hist
	[ "$status" -eq 0 ]
	[[ "$output" == *"  ext4, fdatasync_overwrite:"* ]]
	[[ "$output" == *"    per op: 100 samples"* ]]
	[[ "$output" == *"    device_flush: 100 samples"* ]]
	[ -z "$(awk 'length($0) > 80' <<<"$output")" ]
}

@test "trace --format html / perfetto / -o: the summary as a page, the --events records as a Perfetto trace, JSON Lines to a file" {
	local m; m="$(cat "$S/mnt")"
	"$FSS_BIN" trace --mount "$m" -d 4 --events "$S/tev.jsonl" --format perfetto \
		-o "$S/tp.json" 2>/dev/null &
	local tp=$!
	sleep 1.5
	"$FSS_BIN" run --no-trace --method fsync --pattern append --count 200 "$m" >/dev/null
	wait "$tp"
	run "$PY" "$FSS_ROOT/tests/helpers/check-perfetto" "$S/tp.json" "$S/tev.jsonl"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == "200 syncs, "*" 0 problems" ]]
	[[ "${lines[-1]}" != *" 0 commits,"* ]]
	"$FSS_BIN" trace --mount "$m" -d 3 --format html -o "$S/th.html" 2>/dev/null &
	tp=$!
	sleep 1.5
	"$FSS_BIN" run --no-trace --method fdatasync --count 100 "$m" >/dev/null
	wait "$tp"
	grep -q 'Top processes by sync time' "$S/th.html"
	# the 100 fdatasyncs and the prefill's fsync
	grep -qE 'Sync latency, all 10[01] traced syncs' "$S/th.html"
	run --separate-stderr "$FSS_BIN" trace --mount "$m" -d 1 -j -o "$S/tj.jsonl"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	run jq -se '.[0].type == "start" and .[-1].type == "summary" and .[-1].schema == "fsyncscope/trace"' "$S/tj.jsonl"
	[ "$status" -eq 0 ]
	# usage: perfetto without --events, html with --slower, a bad -o
	run --separate-stderr "$FSS_BIN" trace --mount "$m" --format perfetto -d 1
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	run --separate-stderr "$FSS_BIN" trace --mount "$m" --format html --slower 1 -d 1
	[ "$status" -eq 2 ]
	run --separate-stderr "$FSS_BIN" trace --mount "$m" -o /nonexistent/x -d 1
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
}

@test "devices --format json|text -o FILE: written whole; html refused; an error leaves no file" {
	local m; m="$(cat "$S/mnt")"
	run --separate-stderr "$FSS_BIN" devices -o "$S/dev.txt" "$m"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	grep -q '^filesystem  ext4' "$S/dev.txt"
	"$FSS_BIN" devices --format json -o "$S/dev.json" "$m"
	run jq -e '.schema == "fsyncscope/devices" and .schema_version == 1' "$S/dev.json"
	[ "$status" -eq 0 ]
	run --separate-stderr "$FSS_BIN" devices --format html "$m"
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	run --separate-stderr "$FSS_BIN" devices -o "$S/dev2.txt" /nonexistent/path
	[ "$status" -eq 1 ]
	[ ! -e "$S/dev2.txt" ]
	[ -z "$(ls "$S" | grep 'dev2.txt')" ]
}

@test "devices' text equals report --format text of its --json, byte for byte" {
	local m a i=0 loop
	m="$(cat "$S/mnt")"
	loop="$(findmnt -no SOURCE "$m")"
	for a in "" "$m" "$loop" "${loop#/dev/}" /tmp; do
		i=$((i + 1))
		"$FSS_BIN" devices $a > "$S/d$i.txt"
		"$FSS_BIN" devices --json $a > "$S/d$i.json"
		"$FSS_BIN" report "$S/d$i.json" --format text > "$S/d$i.report"
		cmp "$S/d$i.txt" "$S/d$i.report" || { echo "differs: devices $a"; \
			diff "$S/d$i.txt" "$S/d$i.report" | head; false; }
	done
	# the path's chain: its table, the loop device's backing file, the verdict
	grep -q '^backing file of loop' "$S/d2.report"
	grep -q '^Verdict:' "$S/d2.report"
}

@test "run's text equals report --format text of the same run's saved document, byte for byte" {
	local m args i=0
	m="$(cat "$S/mnt")"
	mkdir -p "$S/tmpfs"
	mount -t tmpfs -o size=64m tmpfs "$S/tmpfs"
	echo "$S/tmpfs" >> "$FSS_SCRATCH/.mounts"
	while IFS= read -r args; do
		i=$((i + 1))
		# shellcheck disable=SC2086
		"$FSS_BIN" run $args --save "$S/t$i.json" > "$S/t$i.txt" 2>/dev/null
		local hist=""
		[[ "$args" == *--hist* ]] && hist=--hist
		"$FSS_BIN" report "$S/t$i.json" --format text $hist > "$S/t$i.report"
		cmp "$S/t$i.txt" "$S/t$i.report" || { echo "differs: run $args"; \
			diff "$S/t$i.txt" "$S/t$i.report" | head -20; false; }
		[ "$(wc -l < "$S/t$i.txt")" -gt 8 ]
	done <<EOF2
-s 0.2 $m
--method fsync --pattern append -n 60 $m
--sweep jobs=1,2 --method fdatasync -n 40 $m
--no-trace -s 0.1 $S/tmpfs
--method open_datasync --direct -n 20 $S/tmpfs
--hist --method fdatasync -n 50 $m
EOF2
	umount "$S/tmpfs"
	# the suite's text has every section, the verdict, the footnotes
	grep -q '^Compare file sync methods using one 8kB write:' "$S/t1.report"
	grep -q '^Measured: ' "$S/t1.report"
	grep -q '^Little.s law check' "$S/t3.report"
	# compare's text is its document rendered too (tests/compare.bats has
	# the byte-for-byte check); trace's is not rendered from it yet
	mkdir -p "$S/cmpt"
	"$FSS_BIN" compare --fs ext4 -n 20 --dir "$S/cmpt" --json -o "$S/cmpt.json"
	run --separate-stderr "$FSS_BIN" report --format text "$S/cmpt.json"
	[ "$status" -eq 0 ]
	[[ "$output" == "fsyncscope "*" compare"* ]]
	[[ "$output" == *"fdatasync_overwrite: fdatasync after each 8 KiB overwrite"* ]]
}

@test "blame: a trace with a neighbour -> its HTML names the neighbour with the document's shares; the Perfetto slices carry the records' blame" {
	local m ow w out ev; m="$(cat "$S/mnt")"
	mkdir "$m/bo" "$m/bw"
	# an overwriter, and a big buffered writer (fsync every 16 MiB) beside
	# it: each is named in the other's syncs (tests/blame.bats)
	scenario rbw "
		$BLAMER overwrite $m/bo 4 > $S/rbo.pid &
		sleep 1
		$BLAMER writer $m/bw 2 > $S/rbw.pid
		wait" --mount "$m" --events-detail
	out="$S/rbw.out" ev="$S/rbw.ev"
	ow="$(pid_of "$S/rbo.pid")"
	w="$(pid_of "$S/rbw.pid")"
	rm -f "$S/rbo.pid" "$S/rbw.pid"
	[ -n "$ow" ] && [ -n "$w" ]
	jq -c 'select(.type == "summary")' "$out" > "$S/rbw-summary.json"
	fss_jq "$S/rbw-summary.json" ".blamed | any(.pid == $w and .comm == \"bigwriter\")"
	"$FSS_BIN" report "$out" -o "$S/rbw.html"
	# every blame number of the page is the document's (check-html)
	check_page "$S/rbw.html" "$S/rbw-summary.json" trace-blame
	# the writer's row: its pid and its name
	grep -q "<tr data-pid=\"$w\"><td data-stat=\"pid\">$w</td><td data-stat=\"comm\">bigwriter</td>" \
		"$S/rbw.html"
	grep -q '<figure class="shares causes">' "$S/rbw.html"
	# Perfetto: each sync slice's blame args are its record's
	"$FSS_BIN" report "$out" --events "$ev" --format perfetto -o "$S/rbw.pf.json"
	run "$PY" "$FSS_ROOT/tests/helpers/check-perfetto" "$S/rbw.pf.json" "$ev"
	echo "$output"
	[ "$status" -eq 0 ]
	local n; n="$(jq -s 'length' "$ev")"
	[[ "${lines[-1]}" == "$n syncs, "*", $n with blame, "*" 0 problems" ]]
	# the writer syncs too: it has instants on its track for the time it
	# caused in the overwriter's syncs
	fss_jq "$S/rbw.pf.json" "[.traceEvents[] | select(.ph == \"i\" and
		.pid == $w and .args.victim_pid == $ow)] | length > 0"
	rm -rf "$m/bo" "$m/bw"
}

@test "blame: run beside a metadata storm -> the test's blame in its HTML names the storm with the document's shares" {
	local m storm; m="$(cat "$S/mnt")"
	mkdir "$m/rs" "$m/rr"
	"$BLAMER" storm "$m/rs" 4 > "$S/rstorm.pid" &
	wait_for "$S/rstorm.pid" '^ready'
	storm="$(pid_of "$S/rstorm.pid")"
	"$FSS_BIN" run --json --method fsync --pattern append -s 2 "$m/rr" \
		> "$S/rstorm.json"
	wait
	rm -f "$S/rstorm.pid"
	fss_jq "$S/rstorm.json" ".tests[0].blame.others |
		any(.pid == $storm and .comm == \"storm\")"
	"$FSS_BIN" report "$S/rstorm.json" -o "$S/rstorm.html"
	check_page "$S/rstorm.html" "$S/rstorm.json" run-blame
	grep -q "<tr data-cause=\"other\" data-pid=\"$storm\">.*<td data-stat=\"comm\">storm</td>" \
		"$S/rstorm.html"
	# the per-test bar of self / others / unattributed
	grep -q 'Who caused the journal, queue and device time, per test' "$S/rstorm.html"
	rm -rf "$m/rs" "$m/rr"
}

@test "blame off: the HTML of run and trace --no-blame says so, with no blame table; no blame args in Perfetto" {
	local m; m="$(cat "$S/mnt")"
	mkdir "$m/ra"
	"$FSS_BIN" run --no-blame --json --method fdatasync --count 100 "$m" > "$S/roff.json"
	"$FSS_BIN" report "$S/roff.json" -o "$S/roff.html"
	grep -q '<p class="blame-na" data-test="custom.fdatasync">Blame: off (--no-blame)</p>' \
		"$S/roff.html"
	run ! grep -q '<table class="blame' "$S/roff.html"
	check_page "$S/roff.html" "$S/roff.json" run-blame-off
	scenario toff "$BLAMER append $m/ra 0.5 > /dev/null" --mount "$m" \
		--no-blame --events-detail
	jq -c 'select(.type == "summary")' "$S/toff.out" > "$S/toff-summary.json"
	fss_jq "$S/toff-summary.json" '.blame == null and .blame_strategy == "off (--no-blame)"'
	"$FSS_BIN" report "$S/toff.out" -o "$S/toff.html"
	grep -q '<p class="blame-na">Blame: off (--no-blame)</p>' "$S/toff.html"
	run ! grep -qE '<table class="(blame|blamed|blame-procs)"' "$S/toff.html"
	check_page "$S/toff.html" "$S/toff-summary.json" trace-blame-off
	"$FSS_BIN" report "$S/toff.out" --events "$S/toff.ev" --format perfetto -o "$S/toff.pf.json"
	run "$PY" "$FSS_ROOT/tests/helpers/check-perfetto" "$S/toff.pf.json" "$S/toff.ev"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == *", 0 with blame, 0 blame instants, 0 problems" ]]
	rm -rf "$m/ra"
}

@test "a sweep's HTML: the Little's-law table and figures (IOPS, latency, L against jobs or depth) read back equal the document's little object" {
	local m; m="$(cat "$S/mnt")"
	"$FSS_BIN" run --sweep jobs=1,2 --method fdatasync -n 40 --no-trace \
		--save "$S/swj.json" --format html -o "$S/swj.html" "$m"
	"$FSS_BIN" run --ioengine io_uring --sweep iodepth=1,4,8 \
		--method fdatasync -n 40 --no-trace --save "$S/swd.json" \
		--format html -o "$S/swd.html" "$m"
	for k in swj swd; do
		grep -q "<h2>Little's law: IOPS and latency against" "$S/$k.html"
		[ "$(grep -c '<figure class="xy">' "$S/$k.html")" -eq 3 ]
		check_page "$S/$k.html" "$S/$k.json" "little-$k"
	done
	grep -q "against io_uring depth</h2>" "$S/swd.html"
	grep -q "against jobs</h2>" "$S/swj.html"
	# IOPS, Little's IOPS, 1/latency, mean, p50, p99, L: one dot per level
	[ "$(grep -o '<circle class="pt"' "$S/swd.html" | wc -l)" -eq 21 ]
	[ "$(grep -o '<circle class="pt"' "$S/swj.html" | wc -l)" -eq 14 ]
	# a run without a sweep has no such section
	! grep -q "Little's law" "$S/suite.html" || false
	# a document saved before "little" existed: its text table comes from
	# "sweep", its page has no figures and still checks out
	jq 'del(.little)' "$S/swj.json" > "$S/old.json"
	"$FSS_BIN" report "$S/old.json" --format text | grep -q "^Little's law check"
	"$FSS_BIN" report "$S/old.json" -o "$S/old.html"
	! grep -q 'class="little"' "$S/old.html"
}

# A result saved before findings existed (docs/findings.md) has no
# findings[]: report computes them from the document, as the command would
# have; a result saved with findings keeps its own.
@test "report of a document saved without findings computes them: the saved ones' twins, for a run and for trace's JSON Lines" {
	local m r="$S/fdatasync.json" o="$S/nofind.json"
	m="$(cat "$S/mnt")"
	jq 'del(.findings, .findings_version)' "$r" > "$o"
	"$FSS_BIN" report -j "$o" > "$S/nofind-re.json"
	echo "saved: $(jq -c '[.findings[] | .id]' "$r")" >&3
	# the same findings as the saved ones, at the same place in the document
	[ "$(jq -c '[.findings_version, .findings]' "$S/nofind-re.json")" = \
	  "$(jq -c '[.findings_version, .findings]' "$r")" ]
	[ "$(jq -c 'keys_unsorted | index("findings")' "$S/nofind-re.json")" = \
	  "$(jq -c 'keys_unsorted | index("findings")' "$r")" ]
	cmp <("$FSS_BIN" report -f text "$o") <("$FSS_BIN" report -f text "$r")
	# saved with findings: those, not computed again
	jq '.findings[0].title = "as saved"' "$r" > "$S/edited.json"
	"$FSS_BIN" report -f text "$S/edited.json" | grep -q 'as saved'
	# trace: every interval and the summary, record by record
	"$FSS_BIN" trace -j --mount "$m" 1 -- bash -c "'$FSS_BIN' run \
		--no-trace --method fdatasync --count 200 '$m' > /dev/null" \
		> "$S/tr.jsonl" 2>/dev/null
	jq -c 'del(.findings, .findings_version)' "$S/tr.jsonl" > "$S/tr-old.jsonl"
	[ "$(jq -s '[.[] | select(.findings)] | length' "$S/tr.jsonl")" -ge 1 ]
	[ "$(jq -s '[.[] | select(.findings)] | length' "$S/tr-old.jsonl")" -eq 0 ]
	"$FSS_BIN" report -f text "$S/tr.jsonl" > "$S/tr.txt"
	grep -q '^FINDINGS' "$S/tr.txt"
	"$FSS_BIN" report -f text "$S/tr-old.jsonl" | cmp - "$S/tr.txt"
	[ "$("$FSS_BIN" report -j "$S/tr-old.jsonl" | jq -c .findings)" = \
	  "$(jq -sc 'map(select(.type == "summary"))[0].findings' "$S/tr.jsonl")" ]
}
