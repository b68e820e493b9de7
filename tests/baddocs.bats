#!/usr/bin/env bats
# Bad documents never crash it (issue 28): real saved results of run (the
# suite and a custom test), compare, devices (and --probe), diff and trace
# (tests/fuzz/corpus/doc, made by those commands; plus a run made here
# when root) are mutated many ways by tests/helpers/mutate-doc (values
# swapped for hostile ones, keys dropped, arrays grown or emptied, files
# cut off) and every mutant goes through every renderer: report as text,
# --hist, html, csv, json, and diff against its original; --events files
# likewise through the timeline, CSV and Perfetto.  Each must exit 0 or 2
# (bad input), never die of a signal or a sanitizer report, and a refusal
# is one line on stderr with nothing on stdout.  FSS_MUTANTS sets how many
# mutants per seed (default 40; make check-asan uses fewer).

load lib
bats_require_minimum_version 1.5.0

CORPUS="$FSS_ROOT/tests/fuzz/corpus"
MUTATE="$FSS_ROOT/tests/helpers/mutate-doc"
N="${FSS_MUTANTS:-40}"

setup_file() {
	fss_scratch
	mkdir -p "$FSS_SCRATCH/seeds"
	# documents, not the inputs kept because a reader once mishandled
	# them (refused-*: they are refused, docs/hardening.md)
	find "$CORPUS/doc" -maxdepth 1 -type f ! -name 'refused-*' \
		-exec cp -t "$FSS_SCRATCH/seeds/" {} +
	# a document of this build too, so the checks follow the writers
	[ "$(id -u)" -eq 0 ] || return 0
	fss_mkfs ext4 256
	"$FSS_BIN" run --method fdatasync --count 40 --json \
		--events "$FSS_SCRATCH/fresh.ev" --events-detail "$FSS_MNT" \
		> "$FSS_SCRATCH/seeds/fresh-run.json"
}

teardown_file() {
	fss_cleanup
}

setup() {
	[ -x "$FSS_BIN" ] || skip "build ./fsyncscope first (make)"
	S="$FSS_SCRATCH"
}

# judge WHAT: the last `run` (with --separate-stderr) was a clean outcome
judge() {
	if [ "$status" -ne 0 ] && [ "$status" -ne 2 ]; then
		echo "$1: exit $status: ${stderr:0:2000}"
		return 1
	fi
	if [[ "$stderr" == *Sanitizer* || "$stderr" == *"runtime error"* ]]; then
		echo "$1: sanitizer: ${stderr:0:2000}"
		return 1
	fi
	[ "$status" -eq 0 ] && return 0
	if [ "${#stderr_lines[@]}" -ne 1 ] || [[ "$stderr" != "fsyncscope: "* ]]; then
		echo "$1: exit $status, not one 'fsyncscope: ' line: ${stderr:0:2000}"
		return 1
	fi
	if [ -n "$output" ]; then
		echo "$1: exit $status, but something on stdout"
		return 1
	fi
}

# render_all SEED MUTANT: every renderer over MUTANT; counts in $S/tally
render_all() {
	local seed="$1" m="$2" f
	for f in text hist html csv json diff; do
		case $f in
		hist) run --separate-stderr "$FSS_BIN" report --hist "$m" ;;
		diff) run --separate-stderr "$FSS_BIN" diff "$seed" "$m" ;;
		*) run --separate-stderr "$FSS_BIN" report -f "$f" "$m" ;;
		esac
		judge "$(basename "$seed") $f $m" || return 1
		echo "$status" >> "$S/tally"
	done
}

@test "the seeds are real documents this build reads: every kind, each renders" {
	local kinds=""
	for seed in "$S"/seeds/*; do
		run --separate-stderr "$FSS_BIN" report -f json "$seed"
		echo "$seed: $status $stderr"
		[ "$status" -eq 0 ]
		kinds+=" $(jq -r 'select(.schema) | .schema' "$seed" | head -1)"
		run --separate-stderr "$FSS_BIN" report -f text "$seed"
		[ "$status" -eq 0 ] || [ "$status" -eq 2 ]
	done
	for k in run compare devices diff trace; do
		[[ "$kinds" == *"fsyncscope/$k"* ]] || { echo "no $k seed: $kinds"; false; }
	done
}

@test "mutated documents of every kind: every renderer exits 0 or 2, refusals are one line" {
	local seed i=0 d
	: > "$S/tally"
	for seed in "$S"/seeds/*; do
		i=$((i + 1))
		d="$S/mut/$(basename "$seed")"
		mkdir -p "$d"
		"$MUTATE" "$seed" "$d" "$N" "$i"
		for m in "$d"/m*.json; do
			render_all "$seed" "$m"
		done
	done
	local total ok bad
	total=$(wc -l < "$S/tally")
	ok=$(grep -c '^0$' "$S/tally" || true)
	bad=$(grep -c '^2$' "$S/tally" || true)
	echo "# $total renderings: $ok rendered, $bad refused" >&3
	[ "$total" -ge $((N * 6 * 7)) ]
	# both happen: most mutants are refused, some still render
	[ "$ok" -gt 0 ] && [ "$bad" -gt 0 ]
}

@test "the refusal names the file and the key: tests[1].breakdown.fs: expected an object" {
	jq -c '.tests[1].breakdown.fs = [1, 2]' "$S/seeds/run.json" > "$S/bad-key.json"
	run --separate-stderr "$FSS_BIN" report -f text "$S/bad-key.json"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "$stderr" = "fsyncscope: $S/bad-key.json: tests[1].breakdown.fs: expected an object" ]
	# a count below zero, a histogram whose buckets do not add up, NaN
	jq -c '.tests[0].ops = -3' "$S/seeds/run.json" > "$S/neg.json"
	run --separate-stderr "$FSS_BIN" report "$S/neg.json" -o "$S/neg.html"
	[ "$status" -eq 2 ]
	[ "$stderr" = "fsyncscope: $S/neg.json: tests[0].ops: expected a number >= 0" ]
	[ ! -e "$S/neg.html" ]
	jq -c '.tests[0].hist.op.count += 1' "$S/seeds/run.json" > "$S/hist.json"
	run --separate-stderr "$FSS_BIN" diff "$S/seeds/run.json" "$S/hist.json"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"hist.json: tests[0].hist.op: expected a histogram"* ]]
	sed 's/"ops":[0-9]*/"ops":NaN/' "$S/seeds/run-custom.json" > "$S/nan.json"
	run --separate-stderr "$FSS_BIN" report -f csv "$S/nan.json"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"nan.json: tests[0].ops: not a finite number" ]]
	# a trace record: the line is named
	jq -c 'if .type == "summary" then .kinds = {} else . end' \
		"$S/seeds/trace.jsonl" > "$S/trace-bad.jsonl"
	run --separate-stderr "$FSS_BIN" report -f text "$S/trace-bad.jsonl"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"trace-bad.jsonl: line "*": kinds: expected an array" ]]
}

@test "files that are not documents: empty, a directory, junk, /dev/zero, 2 GB, a FIFO" {
	: > "$S/empty.json"
	mkdir -p "$S/dir.json"
	head -c 100000 /dev/urandom > "$S/random.json"
	printf '\0\0\0{' > "$S/nul.json"
	printf '{"schema":"fsyncscope/run","schema_version":1,"tests":%s' \
		"$(printf '[%.0s' $(seq 200))" > "$S/deep.json"
	rm -f "$S/fifo.json" && mkfifo "$S/fifo.json"
	truncate -s 2G "$S/huge.json"		# sparse: no disk used
	ln -sf /dev/zero "$S/zero.json"
	for f in empty dir random nul deep huge zero; do
		run --separate-stderr "$FSS_BIN" report -f text "$S/$f.json"
		echo "$f: $status $stderr"
		judge "$f"
		[ "$status" -eq 2 ]
	done
	# bounded memory: the 2 GB file is refused by its size, /dev/zero
	# after its first block
	run --separate-stderr "$FSS_BIN" report -f text "$S/huge.json"
	[[ "$stderr" == *"too large for a saved result (more than 256 MiB)" ]]
	# (a 1 GB address-space limit proves it; ASan's shadow needs more)
	local lim="ulimit -v 1000000;"
	[ -n "${ASAN_OPTIONS:-}" ] && lim=""
	run --separate-stderr bash -c "$lim"' "$0" report -f text "$1"' \
		"$FSS_BIN" "$S/zero.json"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"zero.json: not an fsyncscope result (not a JSON object)" ]]
	rm -f "$S/huge.json"
	# a FIFO with a writer that sends a good document, then closes
	cat "$S/seeds/devices.json" > "$S/fifo.json" &
	run --separate-stderr timeout 20 "$FSS_BIN" report -f text "$S/fifo.json"
	wait
	[ "$status" -eq 0 ]
	rm -f "$S/fifo.json"
}

@test "mutated --events files: timeline, CSV rows and Perfetto exit 0 or 2" {
	local ev doc i=0 d m f
	for ev in "$CORPUS"/events/*.ev; do
		i=$((i + 1))
		d="$S/evmut/$(basename "$ev")"
		mkdir -p "$d"
		"$MUTATE" "$ev" "$d" "$N" "$((i + 100))"
		doc="$S/seeds/run-custom.json"
		[[ "$ev" == */run.ev ]] && doc="$S/seeds/run.json"
		for m in "$d"/m*.json; do
			for f in html csv perfetto; do
				run --separate-stderr "$FSS_BIN" report -f "$f" \
					--events "$m" "$doc"
				judge "$(basename "$ev") $f $m"
			done
		done
	done
	# a line that is not JSON is named
	printf '{"test":"custom.fdatasync","total_ns":5}\nnot json\n' > "$S/bad.ev"
	run --separate-stderr "$FSS_BIN" report -f csv --events "$S/bad.ev" \
		"$S/seeds/run-custom.json"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"bad.ev: line 2 is not a JSON object" ]]
	printf '{"test":"custom.fdatasync","total_ns":-5}\n' > "$S/neg.ev"
	run --separate-stderr "$FSS_BIN" report -f html --events "$S/neg.ev" \
		"$S/seeds/run-custom.json"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"neg.ev: line 1: total_ns: expected a number >= 0" ]]
}
