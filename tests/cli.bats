#!/usr/bin/env bats
# The command line shared by the subcommands (user/cmd/cli.c): one parser for
# the workload and tracing options of run and compare, and one way to turn
# bad input into one stderr line.  Everything here fails while parsing, so
# nothing is made; the scratch directory must stay empty.

load lib
bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C		# getopt's messages, untranslated
	fss_scratch
	DIR="$FSS_SCRATCH/target"
	mkdir -p "$DIR"
}

teardown() {
	fss_cleanup
}

assert_empty_dir() {
	[ -z "$(ls -A "$DIR")" ] || { echo "left in $DIR: $(ls -A "$DIR")" >&2; return 1; }
}

@test "run and compare: a bad shared option gives the same one line, exit 2" {
	local args r c
	for args in "--bs 3x" "--bs 4m" "--writes-per-sync 0" "--jobs 2000" \
		    "--file-size x" "-s 0" "--runtime 90000" "--count 0" \
		    "--seconds" "--json=1" "--strategy"; do
		# shellcheck disable=SC2086
		run -2 --separate-stderr "$FSS_BIN" run "$DIR" $args
		[ -z "$output" ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		r="${stderr//fsyncscope run/fsyncscope CMD}"
		# shellcheck disable=SC2086
		run -2 --separate-stderr "$FSS_BIN" compare --dir "$DIR" $args
		[ -z "$output" ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		c="${stderr//fsyncscope compare/fsyncscope CMD}"
		echo "$args: run: $r / compare: $c"
		[ "$r" = "$c" ]
		[[ "$r" == "fsyncscope CMD: "*" (try 'fsyncscope CMD --help')" ]]
	done
	assert_empty_dir
}

@test "run and compare --help: the shared options read the same" {
	local opt r c
	run -0 "$FSS_BIN" run --help
	r="$output"
	run -0 "$FSS_BIN" compare --help
	c="$output"
	# the lines of each shared option (its help may wrap to a second line)
	for opt in "--count=N" "--seconds=SECS" "--bs=SIZE" "--writes-per-sync=N" \
		   "--jobs=N" "--file-size=SIZE" "--no-trace" "--strategy=S" \
		   "--json" "--verbose"; do
		local rl cl
		rl="$(printf '%s\n' "$r" | grep -A1 -E "^ +(-[a-z], )?$opt( |,|$)" | head -2)"
		cl="$(printf '%s\n' "$c" | grep -A1 -E "^ +(-[a-z], )?$opt( |,|$)" | head -2)"
		[ -n "$rl" ] || { echo "run --help lacks $opt" >&2; return 1; }
		# a second line that is another option's belongs to neither
		rl="$(printf '%s\n' "$rl" | sed -n '1p;2{/^ *-/!p}')"
		cl="$(printf '%s\n' "$cl" | sed -n '1p;2{/^ *-/!p}')"
		[ "$rl" = "$cl" ] || { echo "$opt: run '$rl' compare '$cl'" >&2; return 1; }
	done
	# -s and -c sit under the same heading in both
	printf '%s\n' "$r" | grep -A3 '^ Test length:' | grep -q -- '--count=N'
	printf '%s\n' "$c" | grep -A3 '^ Test length:' | grep -q -- '--count=N'
	printf '%s\n' "$c" | grep -A3 '^ Test length:' | grep -q -- '--seconds=SECS'
}

@test "every command: an unknown option is one line naming it, exit 2" {
	local cmd want=2
	for cmd in run compare devices trace report diff; do
		run --separate-stderr "$FSS_BIN" "$cmd" --bogus
		[ "$status" -eq "$want" ] || { echo "$cmd: exit $status" >&2; return 1; }
		[ -z "$output" ]
		[ "$stderr" = "fsyncscope $cmd: unrecognized option '--bogus' (try 'fsyncscope $cmd --help')" ]
		run --separate-stderr "$FSS_BIN" "$cmd" -%
		[ "$status" -eq "$want" ]
		[ "$stderr" = "fsyncscope $cmd: invalid option -- '%' (try 'fsyncscope $cmd --help')" ]
	done
	assert_empty_dir
}

@test "trace and devices: a missing value or a bad value is one line, exit 2" {
	run -2 --separate-stderr "$FSS_BIN" trace --top
	[ "$stderr" = "fsyncscope trace: option '--top' requires an argument (try 'fsyncscope trace --help')" ]
	run -2 --separate-stderr "$FSS_BIN" trace --json=1
	[ "$stderr" = "fsyncscope trace: option '--json' doesn't allow an argument (try 'fsyncscope trace --help')" ]
	run -2 --separate-stderr "$FSS_BIN" trace -p notapid
	[ "$stderr" = "fsyncscope trace: -p: not a process id: 'notapid' (try 'fsyncscope trace --help')" ]
	run -2 --separate-stderr "$FSS_BIN" devices --probe
	[ "$stderr" = "fsyncscope devices: option '--probe' requires an argument (try 'fsyncscope devices --help')" ]
	run -2 --separate-stderr "$FSS_BIN" devices --probe "$DIR" -s 3601
	[ "$stderr" = "fsyncscope devices: bad -s '3601': seconds, more than 0 and at most 3600 (e.g. 0.5, 30) (try 'fsyncscope devices --help')" ]
	run -2 --separate-stderr "$FSS_BIN" devices --probe "$DIR" --count 10000001
	[ "$stderr" = "fsyncscope devices: bad --count '10000001': 1 to 10000000 (try 'fsyncscope devices --help')" ]
	[ -z "$output" ]
	# --painter: user or kernel; the kernel's records carry no request
	# for --events-detail or perfetto to draw
	run -2 --separate-stderr "$FSS_BIN" trace --painter fast
	[ "$stderr" = "fsyncscope trace: --painter: 'fast' is not user or kernel (try 'fsyncscope trace --help')" ]
	run -2 --separate-stderr "$FSS_BIN" trace --painter kernel \
		--events "$DIR/ev.jsonl" --events-detail
	[ "$stderr" = "fsyncscope trace: --events-detail and perfetto draw each sync's requests: not with --painter kernel (none is recorded) (try 'fsyncscope trace --help')" ]
	run -2 --separate-stderr "$FSS_BIN" trace --painter kernel \
		--format perfetto --events "$DIR/ev.jsonl" -o "$DIR/t.json"
	[[ "$stderr" == *"not with --painter kernel (none is recorded)"* ]]
	[ -z "$output" ]
	assert_empty_dir
}

# CMD ARGS...: the options parse (the run then stops at the missing target,
# exit 1, "No such file or directory"), or they do not (exit 2 / 1, "bad").
accepted() {
	run --separate-stderr "$FSS_BIN" "$@"
	echo "accepted? $*: $status: $stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" != *"bad "* ]]
	[[ "$stderr" == *"No such file or directory"* || "$stderr" == *"needs root"* ]]
}

rejected() {
	local want="$1"; shift
	run --separate-stderr "$FSS_BIN" "$@"
	echo "rejected? $*: $status: $stderr"
	[ "$status" -eq "$want" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ -z "$output" ]
}

@test "range messages say what is accepted: each edge passes, one past it fails with that message" {
	local nope="$FSS_SCRATCH/nope" cmd
	for cmd in run compare; do
		local tgt=("$nope")
		[ "$cmd" = compare ] && tgt=(--dir "$nope")
		rejected 2 "$cmd" -s 0 "${tgt[@]}"
		[[ "$stderr" == *"bad -s '0': seconds, more than 0 and at most 86400 (e.g. 0.5, 30)"* ]]
		accepted "$cmd" -s 0.001 "${tgt[@]}"
		accepted "$cmd" -s 86400 "${tgt[@]}"
		rejected 2 "$cmd" -s 86400.01 "${tgt[@]}"
		rejected 2 "$cmd" --count 0 "${tgt[@]}"
		[[ "$stderr" == *"bad --count '0': a whole number from 1 to 1099511627776"* ]]
		accepted "$cmd" --count 1099511627776 "${tgt[@]}"
		rejected 2 "$cmd" --count 1099511627777 "${tgt[@]}"
		accepted "$cmd" --bs 512 "${tgt[@]}"
		accepted "$cmd" --bs 2m "${tgt[@]}"
		rejected 2 "$cmd" --bs 511 "${tgt[@]}"
		rejected 2 "$cmd" --bs 2049k "${tgt[@]}"
		[[ "$stderr" == *"bad --bs '2049k': a size from 512 to 2m"* ]]
		accepted "$cmd" --writes-per-sync 4096 "${tgt[@]}"
		rejected 2 "$cmd" --writes-per-sync 4097 "${tgt[@]}"
		[[ "$stderr" == *"'4097': 1 to 4096"* ]]
		accepted "$cmd" --jobs 1024 "${tgt[@]}"
		rejected 2 "$cmd" --jobs 1025 "${tgt[@]}"
		[[ "$stderr" == *"'1025': 1 to 1024"* ]]
		accepted "$cmd" --bs 512 --file-size 512 "${tgt[@]}"
		accepted "$cmd" --file-size 1024t "${tgt[@]}"
		rejected 2 "$cmd" --file-size 511 "${tgt[@]}"
		rejected 2 "$cmd" --file-size 1025t "${tgt[@]}"
		[[ "$stderr" == *"bad --file-size '1025t': a size from 512 to 1024t (suffixes k, m, g, t"* ]]
	done
	# compare --size: 64m to 16t, as it says (16t used to be refused)
	accepted compare --size 64m --dir "$nope"
	accepted compare --size 16t --dir "$nope"
	rejected 2 compare --size 63m --dir "$nope"
	rejected 2 compare --size 17t --dir "$nope"
	[[ "$stderr" == *"bad --size '17t': a size from 64m to 16t"* ]]
	# run --sweep: up to 64 levels of 1 to 1024 jobs
	accepted run --sweep "jobs=$(seq -s, 1 64)" "$nope"
	rejected 2 run --sweep "jobs=$(seq -s, 1 65)" "$nope"
	[[ "$stderr" == *"jobs=N[,N...], up to 64 levels, N from 1 to 1024"* ]]
	rejected 2 run --sweep jobs=1025 "$nope"
	# devices --probe: -s up to 3600, --count up to 10000000
	accepted devices --probe "$nope" -s 3600
	rejected 2 devices --probe "$nope" -s 0
	[[ "$stderr" == *"bad -s '0': seconds, more than 0 and at most 3600"* ]]
	accepted devices --probe "$nope" --count 10000000
	# diff's percentages: 0 to 1000000, as said
	rejected 2 diff --fail-if-slower 1000001 "$nope" "$nope"
	[[ "$stderr" == *"bad --fail-if-slower '1000001': a percentage from 0 to 1000000"* ]]
	rejected 2 diff --min-change -1 "$nope" "$nope"
	[[ "$stderr" == *"bad --min-change '-1': a percentage from 0 to 1000000"* ]]
	run --separate-stderr "$FSS_BIN" diff --fail-if-slower 1000000 --min-change 0 "$nope" "$nope"
	[[ "$stderr" == *"cannot read $nope"* ]]
	# trace's values say their ranges too (a usage error: 2, as everywhere)
	local t
	for t in "-d 0|-d '0': seconds, more than 0 and at most 10000000" \
		 "--top 100001|--top '100001': a whole number from 1 to 100000" \
		 "--slower -1|--slower '-1': milliseconds, 0 to 1000000000" \
		 "--sample 0|--sample '0': a whole number from 1 to 1000000 (1 in N syncs traced in full)" \
		 "--sample 1000001|--sample '1000001': a whole number from 1 to 1000000 (1 in N syncs traced in full)" \
		 "0|INTERVAL '0': seconds, more than 0 and at most 10000000" \
		 "1 0|COUNT '0': a whole number from 1 to 9223372036854775807"; do
		# shellcheck disable=SC2086
		run --separate-stderr "$FSS_BIN" trace ${t%%|*}
		echo "trace ${t%%|*}: $status: $stderr"
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[ "$stderr" = "fsyncscope trace: ${t#*|} (try 'fsyncscope trace --help')" ]
	done
	assert_empty_dir
}

# ---- one convention for every command (issue 21, item 6) ----

@test "every command: --bogus, a bad number: exit 2 and one line; --help, -u: exit 0" {
	local cmd bad
	for cmd in run trace compare devices report diff exporter check; do
		run --separate-stderr "$FSS_BIN" "$cmd" --bogus
		[ "$status" -eq 2 ] || { echo "$cmd --bogus: exit $status" >&2; return 1; }
		[ "${#stderr_lines[@]}" -eq 1 ]
		[ -z "$output" ]
		case "$cmd" in
		run|compare) bad="-n x" ;;
		trace) bad="-d x" ;;
		devices) bad="--probe $DIR -n 0" ;;
		report) bad="--format bogus $DIR/none.json" ;;
		diff) bad="--resamples x $DIR/a.json $DIR/b.json" ;;
		exporter) bad="--max-series 0" ;;
		check) bad="--strategy x" ;;
		esac
		# shellcheck disable=SC2086
		run --separate-stderr "$FSS_BIN" "$cmd" $bad
		[ "$status" -eq 2 ] || { echo "$cmd $bad: exit $status" >&2; return 1; }
		[ "${#stderr_lines[@]}" -eq 1 ]
		[ -z "$output" ]
		run -0 --separate-stderr "$FSS_BIN" "$cmd" --help
		[[ "$output" == *"EXAMPLES"* ]]
		[ -z "$stderr" ]
		# the same two help options, in the same words, everywhere
		grep -qxE ' +-h, --help +Show this help' <<< "$output"
		grep -qxE ' +-u, --usage +Show a short usage message' <<< "$output"
		run -0 --separate-stderr "$FSS_BIN" "$cmd" -u
		[[ "${lines[0]}" == "Usage: fsyncscope $cmd "* ]]
		[ -z "$stderr" ]
	done
	assert_empty_dir
}

@test "every command: a short option letter means the same long option everywhere" {
	local cmd line letter long seen=" "
	declare -A map
	for cmd in run trace compare devices report diff check; do
		run -0 "$FSS_BIN" "$cmd" --help
		while IFS= read -r line; do
			[[ "$line" =~ ^\ +-([a-zA-Z]),\ --([a-z-]+) ]] || continue
			letter="${BASH_REMATCH[1]}"
			long="${BASH_REMATCH[2]}"
			if [ -n "${map[$letter]:-}" ] && [ "${map[$letter]}" != "$long" ]; then
				echo "-$letter is --${map[$letter]} and --$long ($cmd)" >&2
				return 1
			fi
			map[$letter]="$long"
			seen+="$letter "
		done <<< "$output"
	done
	echo "letters: ${!map[*]}"
	# the choices of issue 21: -c is --comm, -n is --count, -j is --json
	[ "${map[c]}" = comm ]
	[ "${map[n]}" = count ]
	[ "${map[j]}" = json ]
	[ "${map[p]}" = pid ]
}

@test "every command has -j/--json" {
	local cmd
	for cmd in run trace compare devices report diff check; do
		run -0 "$FSS_BIN" "$cmd" --help
		printf '%s\n' "$output" | grep -qE '^ +-j, --json' ||
			{ echo "$cmd --help lacks -j, --json" >&2; return 1; }
	done
	# -j is --json: run's document parses (untraced, in a tmpfs)
	fss_need_root
	fss_mktmpfs
	run -0 --separate-stderr "$FSS_BIN" run -j --no-trace -n 3 --method fdatasync "$FSS_MNT"
	printf '%s\n' "$output" | jq -e '.tests | length == 1' >/dev/null
	run -0 --separate-stderr "$FSS_BIN" devices -j /
	printf '%s\n' "$output" | jq -e '.devices' >/dev/null
	# the old -c of run is gone, not silently something else
	run -2 --separate-stderr "$FSS_BIN" run -c 3 "$FSS_MNT"
	[ "$stderr" = "fsyncscope run: invalid option -- 'c' (try 'fsyncscope run --help')" ]
	[ -z "$(ls -A "$FSS_MNT")" ]
}
