# Checks shared by the per-filesystem strategy suites (10-ext4.bats,
# 11-xfs.bats).  Everything here asserts counts and structure: emulated
# timings are not real, so no latency is compared with anything.  jq
# checks are grouped (vm_jq_all, vm_ev_expect): each jq start costs about
# a second in the emulated guest.
#
#   STRAT_N                 ops per run
#   strat_run STRATEGY      fdatasync overwrite run of STRAT_N ops with
#                           --strategy STRATEGY on $VM_MNT; checks that the
#                           breakdown is complete and the NVMe layer counted
#                           one Flush command per device flush
#   strat_agree             the fentry, kprobe and tracepoint runs of this
#                           file agree on structure
#   strat_auto_fsync        auto on fsync appends: picks fentry, calibration
#                           saw every hook fire; leaves $VM_DIR/auto.json
#   strat_fua               auto's run: native FUA journal writes

STRAT_N=40

# jq: every sync's phases add up exactly to its total
SUM_EXACT='(.fs_ns + .journal_ns + .queue_ns + .device_write_ns
	+ .device_flush_ns + .other_ns) == .total_ns'

# jq checks on a run's JSON: layers ($1: the fs hook set) and a complete
# breakdown (six phases, numbers, shares adding up to 1)
strat_json_checks() {
	printf '%s\n' \
		".strategy.fs == \"$1\"" \
		'.strategy.sync == "tracepoint"' \
		'.strategy.journal == "tracepoint"' \
		'.strategy.block == "tp_btf"' \
		'.strategy.nvme == "tp_btf"' \
		'.drops == 0' \
		'.tests[0].status == "ok"' \
		".tests[0].ops == $STRAT_N" \
		".tests[0].syncs_traced == $STRAT_N" \
		'.tests[0].breakdown | keys == ["device_flush", "device_write", "fs", "journal", "other", "queue"]' \
		'[.tests[0].breakdown[] | select(.na == null) | .mean_us, .p50_us, .p99_us, .share] | all(type == "number" and . >= 0)' \
		'[.tests[0].breakdown[] | select(.na != null) | .mean_us, .p50_us, .p99_us, .share] | all(. == null)' \
		'.tests[0].breakdown.queue.na == null or (.tests[0].flush.preflush == null and .tests[0].flush.fua_emulated == null)' \
		'[.tests[0].breakdown[].share] | add | . > 0.999 and . < 1.001'
}

strat_run() {
	local s="$1" j ev
	local -a checks
	vm_traced_run "$s" --strategy "$s" --method fdatasync --bs 8k \
		--pattern overwrite --file-size 1m --count "$STRAT_N" "$VM_MNT"
	j="$VM_DIR/$s.json"
	ev="$VM_DIR/$s.ev"
	mapfile -t checks < <(strat_json_checks "$s")
	vm_jq_all "$j" "${checks[@]}" \
		".strategy.requested == \"$s\"" \
		'.tests[0].flush.flushes >= 1' \
		'.tests[0].flush.nvme_flush_cmds == .tests[0].flush.flushes' \
		'.tests[0].flush.syncs_no_flush == 0'
	# every sync: an fdatasync that returned 0, phases exact, its fs
	# interval recorded (the fs hook fired), its data write and a cache
	# flush on the device
	vm_ev_expect "$ev" "$STRAT_N" \
		'.kind == "fdatasync" and .ret == 0' \
		"$SUM_EXACT" \
		'.fs_ns > 0' \
		'.nr_write >= 1 and .device_write_ns > 0' \
		'.nr_flush >= 1 and .device_flush_ns > 0'
}

strat_agree() {
	local s f key
	for s in fentry kprobe tracepoint; do
		[ -s "$VM_DIR/$s.json" ] && [ -s "$VM_DIR/$s.ev" ] ||
			{ echo "no $s run in this file (did its test fail?)" >&2; return 1; }
	done
	# whole-run counts, then the structure of every sync, in order
	key='[.tests[0].ops, .tests[0].syncs_traced, .tests[0].flush.flushes,
	      .tests[0].flush.nvme_flush_cmds, .tests[0].flush.fua_writes,
	      .tests[0].flush.fua_emulated, .tests[0].flush.preflush,
	      .tests[0].flush.syncs_no_flush]'
	f=$(for s in fentry kprobe tracepoint; do
		jq -c "$key" "$VM_DIR/$s.json"
	done | sort -u)
	[ "$(wc -l <<< "$f")" -eq 1 ] || {
		echo "strategies disagree on [ops, syncs, flushes, nvme_flush_cmds, fua, fua_emulated, preflush, syncs_no_flush]:" >&2
		echo "$f" >&2
		return 1
	}
	# (not the number of write requests: each run writes a new file, and
	# its block layout can split one 8k write into two requests)
	f=$(for s in fentry kprobe tracepoint; do
		jq -c '[.kind, .ret, .nr_flush, .nr_fua, .nr_fua_emulated,
			.nr_preflush, .nr_incomplete]' "$VM_DIR/$s.ev" | md5sum
	done | sort -u)
	[ "$(wc -l <<< "$f")" -eq 1 ] ||
		{ echo "strategies disagree sync by sync on [kind, ret, nr_flush, nr_fua, nr_fua_emulated, nr_preflush, nr_incomplete]" >&2; return 1; }
}

strat_auto_fsync() {
	local j="$VM_DIR/auto.json" ev="$VM_DIR/auto.ev"
	local -a checks
	vm_traced_run auto --method fsync --bs 8k --pattern append \
		--count "$STRAT_N" "$VM_MNT"
	mapfile -t checks < <(strat_json_checks fentry)
	# calibration: 1 fsync + 3 fdatasync, every one seen by each layer
	vm_jq_all "$j" "${checks[@]}" \
		'.strategy.requested == "auto"' \
		'.strategy.probes.fentry == "ok" and .strategy.probes.kprobe == "ok"' \
		'.strategy.calibration.syncs == 4' \
		'.strategy.calibration.hits.sys_fsync == 1' \
		'.strategy.calibration.hits.sys_fdatasync == 3' \
		'.strategy.calibration.hits.fs_fentry == 4' \
		'.strategy.calibration.hits.fs_kprobe == 0' \
		'.strategy.calibration.hits.nvme > 0' \
		'.strategy.calibration.journal_seen == true' \
		'.strategy.calibration.dropped_hooks == []'
	vm_ev_expect "$ev" "$STRAT_N" \
		'.kind == "fsync" and .ret == 0' \
		"$SUM_EXACT" \
		'.fs_ns > 0'
}

# FUA on the emulated NVMe (queue/fua = 1): each fsync of an append forces
# the journal, whose flush write (jbd2 commit block, xfs iclog) goes out
# with native FUA, never emulated by a post-flush.  Uses auto's run.
# On 6.1 NVMe no request is seen created (no block_io_start, no insert with
# the none scheduler), so "emulated" is unknown there: null, never 0.
strat_fua() {
	local j="$VM_DIR/auto.json" ev="$VM_DIR/auto.ev"
	[ "$(cat /sys/block/nvme0n1/queue/fua)" = 1 ]
	[ -s "$j" ] || { echo "no auto run in this file (did its test fail?)" >&2; return 1; }
	jq -c '.tests[0].flush' "$j"
	vm_jq_all "$j" \
		'.tests[0].flush.fua_writes >= 1' \
		'.tests[0].flush.fua_emulated == 0 or (.tests[0].flush.fua_emulated == null and .tests[0].breakdown.queue.na != null)' \
		'.tests[0].flush.nvme_flush_cmds == .tests[0].flush.flushes'
	vm_ev_expect "$ev" "$STRAT_N" \
		'.nr_fua >= 1 and (.nr_fua_emulated == 0 or (.nr_fua_emulated == null and .creation_seen == false))' \
		'.journal_ns > 0'
}
