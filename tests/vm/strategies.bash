# Checks shared by the per-filesystem strategy suites (10-ext4.bats,
# 11-xfs.bats).  Everything here asserts counts and structure: emulated
# timings are not real, so no latency is compared with anything.
#
#   STRAT_N                 ops per strategy run
#   strat_run STRATEGY      fdatasync overwrite run of STRAT_N ops with
#                           --strategy STRATEGY on $VM_MNT; checks that the
#                           breakdown is complete and the NVMe layer counted
#                           one Flush command per device flush
#   strat_agree             the fentry, kprobe and tracepoint runs of this
#                           file agree on structure
#   strat_auto_fsync        auto on fsync appends: picks fentry, calibration
#                           saw every hook fire; leaves $VM_DIR/auto.json

STRAT_N=40

# JSON file: the fs layer was attached with $2 and the others as expected
strat_layers() {
	fss_jq "$1" ".strategy.fs == \"$2\""
	fss_jq "$1" '.strategy.sync == "tracepoint"'
	fss_jq "$1" '.strategy.journal == "tracepoint"'
	fss_jq "$1" '.strategy.block == "tp_btf"'
	# nvme_core's tracepoints, from the module's BTF
	fss_jq "$1" '.strategy.nvme == "tp_btf"'
}

# a complete breakdown: all six phases, numbers, shares adding up to 1
strat_complete() {
	local j="$1"
	fss_jq "$j" '.tests[0].breakdown | keys ==
		["device_flush", "device_write", "fs", "journal", "other", "queue"]'
	fss_jq "$j" '[.tests[0].breakdown[] | .mean_us, .p50_us, .p99_us, .share]
		| all(type == "number" and . >= 0)'
	fss_jq "$j" '[.tests[0].breakdown[].share] | add | . > 0.999 and . < 1.001'
}

# ev_count EVENTS FILTER: how many events (JSON lines) match a jq filter
ev_count() {
	jq -s "[.[] | select($2)] | length" "$1"
}

# events file: N lines of kind K, each one's phases adding up to its total
strat_events() {
	local ev="$1" n="$2" kind="$3" bad
	[ "$(wc -l < "$ev")" -eq "$n" ] ||
		{ echo "expected $n events, got $(wc -l < "$ev")" >&2; return 1; }
	[ "$(ev_count "$ev" ".kind == \"$kind\" and .ret == 0")" -eq "$n" ]
	bad=$(vm_sum_errors "$ev")
	[ -z "$bad" ] || { echo "phases do not sum to total: $bad" >&2; return 1; }
}

strat_run() {
	local s="$1" j ev
	vm_traced_run "$s" --strategy "$s" --method fdatasync --bs 8k \
		--pattern overwrite --file-size 1m --count "$STRAT_N" "$VM_MNT"
	j="$VM_DIR/$s.json"
	ev="$VM_DIR/$s.ev"
	fss_jq "$j" ".strategy.requested == \"$s\""
	strat_layers "$j" "$s"
	fss_jq "$j" '.drops == 0'
	fss_jq "$j" ".tests[0].status == \"ok\" and .tests[0].ops == $STRAT_N"
	fss_jq "$j" ".tests[0].syncs_traced == $STRAT_N"
	strat_complete "$j"
	strat_events "$ev" "$STRAT_N" fdatasync
	# for every sync: the filesystem's fsync was recorded (fs hook fired),
	# its data write and a cache flush reached the device
	[ "$(ev_count "$ev" '.fs_ns > 0 and .nr_write >= 1 and .device_write_ns > 0
		and .nr_flush >= 1 and .device_flush_ns > 0')" -eq "$STRAT_N" ]
	# NVMe: one Flush command (opcode 0), set up and completed, per flush
	fss_jq "$j" '.tests[0].flush.flushes >= 1'
	fss_jq "$j" '.tests[0].flush.nvme_flush_cmds == .tests[0].flush.flushes'
	fss_jq "$j" '.tests[0].flush.syncs_no_flush == 0'
}

strat_agree() {
	local s f key
	for s in fentry kprobe tracepoint; do
		[ -s "$VM_DIR/$s.json" ] && [ -s "$VM_DIR/$s.ev" ] ||
			{ echo "no $s run in this file (did its test fail?)" >&2; return 1; }
	done
	for key in '.tests[0].ops' '.tests[0].syncs_traced' \
		'.tests[0].flush.flushes' '.tests[0].flush.nvme_flush_cmds' \
		'.tests[0].flush.fua_writes' '.tests[0].flush.preflush' \
		'.tests[0].flush.syncs_no_flush'; do
		f=$(for s in fentry kprobe tracepoint; do
			jq -c "$key" "$VM_DIR/$s.json"
		done | sort -u)
		[ "$(wc -l <<< "$f")" -eq 1 ] ||
			{ echo "strategies disagree on $key: $(tr '\n' ' ' <<< "$f")" >&2; return 1; }
	done
	# per-sync structure: request and flush counts of every sync, in order
	for key in '[.kind, .nr_flush, .nr_write, .nr_fua, .nr_incomplete]'; do
		f=$(for s in fentry kprobe tracepoint; do
			jq -c "$key" "$VM_DIR/$s.ev" | md5sum
		done | sort -u)
		[ "$(wc -l <<< "$f")" -eq 1 ] ||
			{ echo "strategies disagree per sync on $key" >&2; return 1; }
	done
}

strat_auto_fsync() {
	local j="$VM_DIR/auto.json" ev="$VM_DIR/auto.ev"
	vm_traced_run auto --method fsync --bs 8k --pattern append \
		--count "$STRAT_N" "$VM_MNT"
	fss_jq "$j" '.strategy.requested == "auto"'
	fss_jq "$j" '.strategy.probes.fentry == "ok" and .strategy.probes.kprobe == "ok"'
	strat_layers "$j" fentry
	# calibration: 1 fsync + 3 fdatasync, every one seen by each layer
	fss_jq "$j" '.strategy.calibration.syncs == 4'
	fss_jq "$j" '.strategy.calibration.hits.sys_fsync == 1'
	fss_jq "$j" '.strategy.calibration.hits.sys_fdatasync == 3'
	fss_jq "$j" '.strategy.calibration.hits.fs_fentry == 4'
	fss_jq "$j" '.strategy.calibration.hits.fs_kprobe == 0'
	fss_jq "$j" '.strategy.calibration.hits.nvme > 0'
	fss_jq "$j" '.strategy.calibration.journal_seen == true'
	fss_jq "$j" '.strategy.calibration.dropped_hooks == []'
	fss_jq "$j" '.drops == 0'
	fss_jq "$j" ".tests[0].status == \"ok\" and .tests[0].syncs_traced == $STRAT_N"
	strat_complete "$j"
	strat_events "$ev" "$STRAT_N" fsync
}

# FUA on the emulated NVMe (queue/fua = 1): the journal's flush writes go
# out with FUA, natively, never emulated by a post-flush.  Uses auto's run.
strat_fua() {
	local j="$VM_DIR/auto.json" ev="$VM_DIR/auto.ev"
	[ "$(cat /sys/block/nvme0n1/queue/fua)" = 1 ]
	[ -s "$j" ] || { echo "no auto run in this file (did its test fail?)" >&2; return 1; }
	jq -c '.tests[0].flush' "$j"
	fss_jq "$j" '.tests[0].flush.fua_writes >= 1'
	fss_jq "$j" '.tests[0].flush.fua_emulated == 0'
	[ "$(ev_count "$ev" '.nr_fua_emulated > 0')" -eq 0 ]
	[ "$(ev_count "$ev" '.nr_fua >= 1')" -ge 1 ]
	# the journal was painted for the syncs that forced it
	[ "$(ev_count "$ev" '.journal_ns > 0')" -ge 1 ]
}
