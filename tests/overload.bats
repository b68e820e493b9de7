#!/usr/bin/env bats
# Overload by design (issue 33, docs/hotpath.md "Overload"): when the ring
# buffer cannot keep up, each sync is either traced in full or summarized
# in the kernel -- never half.  A tiny ring (FSYNCSCOPE_RING_KB, a test
# knob) overloads the tracer on any machine; the checks are counts, never
# timing: traced + summarized = the workload's own syncs, exactly; no
# traced sync was painted with a request whose completion was lost; each
# traced sync's phases add up to its total; every output says how many
# syncs were summarized and why.

load lib
bats_require_minimum_version 1.5.0

setup() {
	fss_need_root
	fss_scratch
	bg_pids=()
}

teardown() {
	fss_stop_bg INT TERM
	fss_cleanup
}

# prom_sum FILE REGEX: the sum of the samples whose line matches REGEX
prom_sum() {
	awk -v re="$2" '$0 ~ re && $1 !~ /^#/ { s += $NF } END { print s + 0 }' "$1"
}

@test "overload: traced + summarized = the workload's syncs, none half" {
	fss_mkfs ext4 256
	FSYNCSCOPE_RING_KB=16 run --separate-stderr "$FSS_BIN" run --json \
		--sweep jobs=1,8 --method fdatasync --file-size 4m -s 1 \
		--events "$FSS_SCRATCH/ev.jsonl" "$FSS_MNT"
	[ "$status" -eq 0 ]
	echo "$output" > "$FSS_SCRATCH/o.json"
	local j="$FSS_SCRATCH/o.json"
	fss_jq "$j" '.tests | length == 2'
	# one fdatasync per op: every sync is accounted for, exactly
	fss_jq "$j" '.tests | all(.ops > 0 and
		.syncs_traced + .syncs_summarized == .ops)'
	# the kernel's count of records sent = the syncs attributed
	fss_jq "$j" '.tests | all(.overload.traced == .syncs_traced and
		.overload.summarized == .syncs_summarized)'
	fss_jq "$j" '.tests | all(.overload.by_kind.fdatasync.traced +
		.overload.by_kind.fdatasync.summarized == .ops)'
	fss_jq "$j" '.tests | all(.overload.why.ring_high +
		.overload.why.lost_near + .overload.why.ring_full +
		.overload.why.lost_after == .syncs_summarized)'
	fss_jq "$j" '.tests | all((.overload.summarized_hist_log2_ns | add // 0)
		== .syncs_summarized)'
	# a 16 KiB ring cannot hold 8 syncers' records: some were summarized
	fss_jq "$j" '.tests[1].syncs_summarized > 0'
	fss_jq "$j" '.tests[1].overload.summarized_total_us.p99_le > 0'
	# the findings say what was lost and summarized, with the document's
	# own counts (none when nothing was lost)
	fss_jq "$j" '. as $d | ([.tests[].syncs_summarized] | add) as $s |
		[.findings[] | select(.id == "events_lost")] as $f |
		if $d.drops > 0 then $f | length == 1 and
			.[0].figures.events_lost == $d.drops and
			.[0].figures.syncs_summarized == $s and
			(.[0].evidence | contains("\($s) syncs were summarized"))
		else $f | length == 0 end'
	# never half a sync
	fss_jq "$j" '.tests | all(.syncs_incomplete == 0)'
	# every traced sync is in --events, whole: phases add up to the total
	local n
	n="$(wc -l < "$FSS_SCRATCH/ev.jsonl")"
	fss_jq "$j" "[.tests[].syncs_traced] | add == $n"
	run jq -e -s 'all(.fs_ns + .journal_ns + .queue_ns +
		.device_write_ns + .device_flush_ns + .other_ns == .total_ns
		and .nr_incomplete == 0)' "$FSS_SCRATCH/ev.jsonl"
	[ "$status" -eq 0 ]
	# the text says it, from the document
	run "$FSS_BIN" report --format text "$j"
	[ "$status" -eq 0 ]
	local s
	s="$(jq -r '.tests[1].syncs_summarized' "$j")"
	[[ "$output" == *"overload: $s syncs summarized in the kernel"* ]]
	[[ "$(echo "$output" | tr '\n' ' ' | tr -s ' ')" == *"the phases above cover the $(jq -r '.tests[1].syncs_traced' "$j") syncs traced in full"* ]]
	# and the HTML page
	run "$FSS_BIN" report --format html -o "$FSS_SCRATCH/o.html" "$j"
	[ "$status" -eq 0 ]
	grep -q "syncs summarized</td><td>$(jq '[.tests[].syncs_summarized] | add' "$j") (traced in full: $(jq '[.tests[].syncs_traced] | add' "$j");" "$FSS_SCRATCH/o.html"
}

@test "overload: a tracer that keeps up summarizes nothing and says nothing" {
	fss_mkfs ext4 128
	run --separate-stderr "$FSS_BIN" run --json --method fdatasync \
		--file-size 1m -n 200 "$FSS_MNT"
	[ "$status" -eq 0 ]
	echo "$output" > "$FSS_SCRATCH/o.json"
	fss_jq "$FSS_SCRATCH/o.json" '.tests[0] | .ops == 200 and
		.syncs_traced + .syncs_summarized == 200 and
		.overload.traced == .syncs_traced'
	if jq -e '.tests[0].syncs_summarized == 0' "$FSS_SCRATCH/o.json"; then
		run "$FSS_BIN" report --format text "$FSS_SCRATCH/o.json"
		[[ "$output" != *"overload:"* ]]
	fi
}

@test "overload: a bad ring knob is one line and exit 1" {
	fss_mkfs ext4 64
	FSYNCSCOPE_RING_KB=5 run --separate-stderr "$FSS_BIN" run -n 5 "$FSS_MNT"
	[ "$status" -eq 1 ]
	[ "$stderr" = "fsyncscope: FSYNCSCOPE_RING_KB: '5' is not a power of two from 4 to 1048576" ]
	FSYNCSCOPE_RING_HIGH=101 run --separate-stderr "$FSS_BIN" run -n 5 "$FSS_MNT"
	[ "$status" -ne 0 ]
	[[ "$stderr" == *"FSYNCSCOPE_RING_HIGH: '101' is not 0 to 100"* ]]
	[ -z "$(ls -A "$FSS_MNT" | grep -v lost+found)" ]
}

@test "overload: trace says how many syncs it summarized, and they add up" {
	fss_mkfs ext4 256
	FSYNCSCOPE_RING_KB=16 run --separate-stderr "$FSS_BIN" trace --json -- \
		"$FSS_BIN" run --no-trace --json -o "$FSS_SCRATCH/run.json" \
		--method fdatasync --jobs 8 --file-size 4m -s 1 "$FSS_MNT"
	[ "$status" -eq 0 ]
	echo "$output" | grep '"type":"summary"' > "$FSS_SCRATCH/sum.json"
	local j="$FSS_SCRATCH/sum.json" ops
	ops="$(jq -r '.tests[0].ops' "$FSS_SCRATCH/run.json")"
	[ "$ops" -gt 0 ]
	fss_jq "$j" ".overload.by_kind.fdatasync.traced +
		.overload.by_kind.fdatasync.summarized == $ops"
	fss_jq "$j" '.overload.traced == .all.syncs and
		.syncs_summarized == .overload.summarized and
		.syncs_summarized > 0'
	# the text of the same summary says it
	run "$FSS_BIN" report --format text "$j"
	[ "$status" -eq 0 ]
	[[ "$output" == *"overload: $(jq -r .syncs_summarized "$j") syncs summarized"* ]]
}

@test "overload: the exporter counts traced and summarized syncs by kind" {
	local dir="$FSS_SCRATCH/textfile" ops t n i
	fss_mkfs ext4 256
	mkdir -p "$dir"
	# the exporter writes it as nobody (its default --user)
	chmod o+x "$FSS_SCRATCH"
	chown nobody: "$dir"
	FSYNCSCOPE_RING_KB=16 fss_start_bg exp err '^fsyncscope: exporting' \
		"$FSS_BIN" exporter --textfile "$dir" --mount "$FSS_MNT" \
		--interval 1
	"$FSS_BIN" run --no-trace --json -o "$FSS_SCRATCH/run.json" \
		--method fdatasync --jobs 8 --file-size 4m -s 1 "$FSS_MNT"
	ops="$(jq -r '.tests[0].ops' "$FSS_SCRATCH/run.json")"
	[ "$ops" -gt 0 ]
	# the file is rewritten every second: until it has all of them
	for ((i = 0; i < 300; i++)); do
		t=$(prom_sum "$dir/fsyncscope.prom" '^fsyncscope_syncs_traced_in_full_total[{]kind="fdatasync"')
		n=$(prom_sum "$dir/fsyncscope.prom" '^fsyncscope_syncs_summarized_total[{]kind="fdatasync"')
		[ $((t + n)) -ge "$ops" ] && break
		sleep 0.1
	done
	echo "traced $t summarized $n ops $ops" >&2
	[ $((t + n)) -eq "$ops" ]
	[ "$n" -gt 0 ]
	grep -q '^fsyncscope_syncs_summarized_total{kind="fdatasync",reason="ring_high"} ' \
		"$dir/fsyncscope.prom"
	kill -TERM "$bg_pid"
	wait "$bg_pid"
}

# Sampling at a stated rate (--sample N, docs/hotpath.md "Sampling"): each
# sync is drawn at entry with probability 1/N; the others are summarized
# (why "sampled").  Counts, never timing: traced + sampled = the workload's
# syncs of each kind, exactly; the traced share is 1/N within 6 standard
# deviations of a binomial draw (for 600 syncs at 1/4: 150 +- 64).
@test "sampling: trace --sample 4 traces about 1 in 4 syncs whole, counts the rest, and says so" {
	fss_mkfs ext4 256
	run --separate-stderr "$FSS_BIN" trace --json --sample 4 --events \
		"$FSS_SCRATCH/ev.jsonl" -- "$FSS_BIN" run --no-trace --json \
		-o "$FSS_SCRATCH/run.json" --method fdatasync -n 600 "$FSS_MNT"
	[ "$status" -eq 0 ]
	echo "$output" | grep '"type":"summary"' > "$FSS_SCRATCH/sum.json"
	local j="$FSS_SCRATCH/sum.json" t
	fss_jq "$FSS_SCRATCH/run.json" '.tests[0].ops == 600'
	fss_jq "$j" '.overload.sample_every == 4 and
		.overload.by_kind.fdatasync.traced +
		.overload.by_kind.fdatasync.summarized == 600 and
		.overload.why.sampled == .overload.summarized and
		.syncs_summarized == .overload.summarized and
		.overload.traced == .all.syncs and
		(.overload.summarized_hist_log2_ns | add) == .overload.summarized'
	t="$(jq -r .overload.by_kind.fdatasync.traced "$j")"
	echo "traced $t of 600 at 1 in 4" >&3
	[ "$t" -ge 86 ] && [ "$t" -le 214 ]
	# each traced sync is whole: its phases add up to its total
	[ "$(wc -l < "$FSS_SCRATCH/ev.jsonl")" -eq "$(jq -r .overload.traced "$j")" ]
	jq -e -s 'all(.fs_ns + .journal_ns + .queue_ns + .device_write_ns +
		.device_flush_ns + .other_ns == .total_ns and
		.nr_incomplete == 0)' "$FSS_SCRATCH/ev.jsonl"
	# no overload, so no lost-events finding; the text states the rate
	fss_jq "$j" '[.findings[] | select(.id == "events_lost")] | length == 0'
	run "$FSS_BIN" report --format text "$j"
	[ "$status" -eq 0 ]
	[[ "$(echo "$output" | tr '\n' ' ' | tr -s ' ')" == *"sampled: 1 in 4 syncs traced in full, drawn at random (--sample); the other $(jq -r .overload.summarized "$j") counted in the kernel"*"the $(jq -r .overload.traced "$j") syncs traced in full"* ]]
	[[ "$output" != *"overload:"* ]]
	# and the HTML page of the summary
	"$FSS_BIN" report --format html -o "$FSS_SCRATCH/s.html" "$j"
	grep -q '<td>sampled</td><td>1 in 4 syncs traced in full, drawn at random' "$FSS_SCRATCH/s.html"
	grep -q "syncs summarized</td><td>$(jq .overload.summarized "$j") (traced in full: $(jq .overload.traced "$j");" "$FSS_SCRATCH/s.html"
}

@test "sampling: the exporter's --sample: the rate as a gauge, the rest as reason=\"sampled\"" {
	local dir="$FSS_SCRATCH/textfile" t n i
	fss_mkfs ext4 256
	mkdir -p "$dir"
	chmod o+x "$FSS_SCRATCH"
	chown nobody: "$dir"
	fss_start_bg exp err '^fsyncscope: exporting' \
		"$FSS_BIN" exporter --textfile "$dir" --mount "$FSS_MNT" \
		--interval 1 --sample 3
	"$FSS_BIN" run --no-trace -n 300 --method fdatasync "$FSS_MNT" > /dev/null
	for ((i = 0; i < 300; i++)); do
		t=$(prom_sum "$dir/fsyncscope.prom" '^fsyncscope_syncs_traced_in_full_total[{]kind="fdatasync"')
		n=$(prom_sum "$dir/fsyncscope.prom" '^fsyncscope_syncs_summarized_total[{]kind="fdatasync",reason="sampled"')
		[ $((t + n)) -ge 300 ] && break
		sleep 0.1
	done
	echo "traced $t, sampled out $n of 300 at 1 in 3" >&3
	[ $((t + n)) -eq 300 ]
	[ "$t" -ge 52 ] && [ "$t" -le 148 ]
	grep -qx 'fsyncscope_sample_every 3' "$dir/fsyncscope.prom"
	# the histograms hold the traced syncs only
	[ "$(prom_sum "$dir/fsyncscope.prom" '^fsyncscope_sync_duration_seconds_count[{].*kind="fdatasync"')" -eq "$t" ]
	kill -TERM "$bg_pid"
	wait "$bg_pid"
}
