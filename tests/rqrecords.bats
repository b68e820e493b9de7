#!/usr/bin/env bats
# One record per request (docs/hotpath.md "One record per request"): the
# folded transport (FSYNCSCOPE_RQ_RECORDS=fold, the default) and the
# per-event one (=events) give the same answers on the same workload.
# Two runs cannot paint the same syncs, so what must be equal is checked
# in each: every op accounted for, every traced sync whole (phases add up
# to its total exactly, no request without a completion), one flush per
# sync, blame names the workload's own writes; and the folded one sends
# fewer ring records per sync.  Counts only, never timing.

load lib
bats_require_minimum_version 1.5.0

setup() {
	fss_need_root
	fss_scratch
}

teardown() {
	fss_cleanup
}

# one_run MODE [ENV...]: run 1 s of 8 KiB fdatasyncs; JSON, events, stderr
one_run() {
	local m="$1"; shift
	env FSYNCSCOPE_RQ_RECORDS="$m" "$@" "$FSS_BIN" run -v --json \
		--method fdatasync -s 1 --events "$FSS_SCRATCH/$m.jsonl" \
		"$FSS_MNT" > "$FSS_SCRATCH/$m.json" 2> "$FSS_SCRATCH/$m.err"
}

# check_run MODE: what must hold whatever the transport
check_run() {
	local m="$1" j="$FSS_SCRATCH/$1.json" n
	fss_jq "$j" ".strategy.rq_records == \"$m\""
	fss_jq "$j" '.tests[0] | .ops > 100 and
		.syncs_traced + .syncs_summarized == .ops'
	# a flush whose completion the kernel never fires (docs/model.md):
	# a sync or two at most, counted the same both ways
	fss_jq "$j" '.tests[0] | .syncs_incomplete <= 2'
	# one flush per sync at one job, and the flush stats say so
	fss_jq "$j" '.tests[0] | .flush.flushes == .syncs_traced and
		.flush.syncs_no_flush == 0'
	n="$(wc -l < "$FSS_SCRATCH/$m.jsonl")"
	fss_jq "$j" ".tests[0].syncs_traced == $n"
	run jq -e -s 'all(.fs_ns + .journal_ns + .queue_ns +
		.device_write_ns + .device_flush_ns + .other_ns == .total_ns
		and .nr_flush >= 1 and .nr_write >= 1)' \
		"$FSS_SCRATCH/$m.jsonl"
	[ "$status" -eq 0 ]
	fss_jq "$j" ".tests[0].syncs_incomplete == $(jq -s \
		'map(select(.nr_incomplete > 0)) | length' "$FSS_SCRATCH/$m.jsonl")"
	# blame: the sync's own data write is the workload's
	fss_jq "$j" '.tests[0].blame.self_ns > 0'
}

# records MODE: ring records read per op (x100)
records() {
	local r s
	r="$(sed -n 's/^fsyncscope: ring records read: \([0-9]*\).*/\1/p' \
		"$FSS_SCRATCH/$1.err")"
	s="$(jq '.tests[0].ops' "$FSS_SCRATCH/$1.json")"
	echo $(( r * 100 / s ))
}

@test "rq records: folded and per-event transports agree on one workload" {
	fss_mkfs ext4 128
	one_run events
	one_run fold
	check_run events
	check_run fold
	grep -q "(per-event transport)" "$FSS_SCRATCH/events.err"
	grep -q "(fold transport)" "$FSS_SCRATCH/fold.err"
	# sync + data write + empty preflush + flush: 4 records folded,
	# 8 or more per event (each request's events one by one)
	[ "$(records fold)" -lt "$(records events)" ]
	[ "$(records fold)" -le 450 ]
}

@test "rq records: the raw_tp block hooks fold the same" {
	fss_mkfs ext4 128
	one_run fold FSYNCSCOPE_BLOCK_HOOKS=raw_tp
	fss_jq "$FSS_SCRATCH/fold.json" '.strategy.block == "raw_tp"'
	check_run fold
}

@test "rq records: a bad FSYNCSCOPE_RQ_RECORDS is one line, exit 1" {
	fss_mkfs ext4 64
	FSYNCSCOPE_RQ_RECORDS=some run --separate-stderr "$FSS_BIN" run \
		--method fdatasync -s 1 "$FSS_MNT"
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == *"FSYNCSCOPE_RQ_RECORDS: 'some' is not fold or events"* ]]
}
