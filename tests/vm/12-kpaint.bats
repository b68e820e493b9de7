#!/usr/bin/env bats
# VM lane, the in-kernel painter (FSYNCSCOPE_KPAINT=1, docs/hotpath.md
# "The clocks in the kernel") on Debian's stock 6.1 kernel and the
# emulated NVMe disk: its global functions, its tp_btf lock and its
# bpf_loop load there, and it paints every traced sync with the NVMe
# commands' device times, with the fentry fs hooks and the tracepoint ones.
#
# On NVMe both painters take a request's device time from its NVMe
# command (set up just before the request's issue, completed just before
# the request): the clocks get the command's two events as they happen
# (bpf/nvme.bpf.c), attribution its records at the command's completion.
# So every sync's phases must be identical, as on the host.

load vmlib

setup_file() {
	VM_MOUNT_OPTS=commit=300 vm_fs_setup_file ext4
}

teardown_file() {
	vm_cleanup
}

setup() {
	vm_setup
	VM_TAG=kpaint-
	exp_pid=
}

teardown() {
	[ -z "$exp_pid" ] || { kill -TERM "$exp_pid" 2> /dev/null
		wait "$exp_pid" 2> /dev/null || true; }
}

KP_N=40

kp_guest_run() {
	local s="$1"
	FSYNCSCOPE_KPAINT=1 vm_traced_run "$s" --strategy "$s" \
		--method fdatasync --bs 8k --pattern overwrite --file-size 1m \
		--count "$KP_N" "$VM_MNT"
	vm_jq_all "$VM_DIR/$s.json" \
		'.tests[0].syncs_traced == '"$KP_N" \
		'.strategy.block == "tp_btf"' \
		'.strategy.kpaint.syncs == .tests[0].syncs_traced' \
		'.strategy.kpaint.compared == .strategy.kpaint.syncs' \
		'.strategy.kpaint.identical == .strategy.kpaint.syncs' \
		'[.strategy.kpaint.not_painted[]] | add == 0' \
		'.strategy.kpaint.flush_differ == 0' \
		'.strategy.kpaint.flush.kernel == .strategy.kpaint.flush.user' \
		'.strategy.kpaint.flush.kernel.nvme_flush_cmds >= '"$KP_N"
	vm_ev_expect "$VM_DIR/$s.ev" "$KP_N" \
		'.kernel_phases.flags % 2 == 1' \
		'(.kernel_phases | .fs_ns + .journal_ns + .queue_ns +
		  .device_write_ns + .device_flush_ns + .other_ns) == .total_ns' \
		'.kernel_phases.fs_ns == .fs_ns and
		 .kernel_phases.journal_ns == .journal_ns and
		 .kernel_phases.queue_ns == .queue_ns and
		 .kernel_phases.device_write_ns == .device_write_ns and
		 .kernel_phases.device_flush_ns == .device_flush_ns and
		 .kernel_phases.other_ns == .other_ns' \
		'.device_flush_from_nvme' \
		'.kernel_phases.device_flush_ns > 0'
	grep -q "kernel painter: $KP_N of $KP_N syncs compared" \
		"$VM_DIR/$s.err"
}

# bats test_tags=kpaint
@test "kpaint on this kernel and NVMe, fentry fs hooks: every sync painted as attribution does" {
	kp_guest_run fentry
}

# bats test_tags=kpaint
@test "kpaint on this kernel and NVMe, tracepoint fs hooks: every sync painted as attribution does" {
	kp_guest_run tracepoint
}

# FSYNCSCOPE_KPAINT=only (docs/hotpath.md "One record per sync"): the
# request and NVMe programs move the clocks and send nothing, here where
# the NVMe commands' programs do too (the host has no NVMe): every sync
# painted, none reported, about one record per sync
# bats test_tags=kpaint
@test "kpaint only on this kernel and NVMe: every sync painted, one record each, no request records" {
	FSYNCSCOPE_KPAINT=only vm_traced_run only --method fdatasync --bs 8k \
		--pattern overwrite --file-size 1m --count "$KP_N" "$VM_MNT"
	vm_jq_all "$VM_DIR/only.json" \
		'.strategy.block == "tp_btf"' \
		'.strategy.rq_records == "none"' \
		'.strategy.blame | test("^off .FSYNCSCOPE_KPAINT=only")' \
		'.strategy.kpaint.only' \
		'.strategy.kpaint.syncs == '"$KP_N" \
		'.strategy.kpaint.painted == '"$KP_N" \
		'.tests[0].syncs_traced == 0' \
		'.tests[0].syncs_summarized == 0'
	grep -q "kernel painter alone: $KP_N of $KP_N syncs painted" \
		"$VM_DIR/only.err"
	local n
	n="$(sed -n 's/^fsyncscope: ring records read: \([0-9]*\) (no request records)$/\1/p' \
		"$VM_DIR/only.err")"
	[ -n "$n" ] && [ "$n" -ge "$KP_N" ] && [ "$n" -le $((KP_N + 30)) ] || {
		echo "ring records read: '$n' for $KP_N syncs" >&2; return 1; }
}

# run --painter kernel (docs/hotpath.md "run --painter kernel"): the
# kernel's phases as each test's breakdown, with the NVMe Flush commands'
# device time; every sync painted, its request counts null; the flush
# facts counted in the kernel (an NVMe Flush per overwrite fdatasync)
kp_run_painter() {
	local s="$1"
	vm_traced_run "run-$s" --painter kernel --strategy "$s" \
		--method fdatasync --bs 8k --pattern overwrite --file-size 1m \
		--count "$KP_N" "$VM_MNT"
	vm_jq_all "$VM_DIR/run-$s.json" \
		'.options.painter == "kernel"' \
		'.strategy.fs == "'"$s"'"' \
		'.tests[0].painter == "kernel"' \
		'.tests[0].syncs_traced == '"$KP_N" \
		'.tests[0].syncs_summarized == 0' \
		'.tests[0].incomplete_rqs == null' \
		'.tests[0].flush.nvme_flush_cmds >= '"$KP_N" \
		'.tests[0].flush.flushes >= '"$KP_N" \
		'.tests[0].flush.syncs_no_flush == 0' \
		'.tests[0].breakdown.device_flush.p50_us > 0'
	vm_ev_expect "$VM_DIR/run-$s.ev" "$KP_N" \
		'.painter == "kernel" and .nr_rq == null' \
		'.fs_ns + .journal_ns + .queue_ns + .device_write_ns +
		 .device_flush_ns + .other_ns == .total_ns' \
		'.nr_flush >= 1 and .flush_seen' \
		'.device_flush_ns > 0'
}

# bats test_tags=kpaint
@test "run --painter kernel on this kernel and NVMe, fentry and tracepoint fs hooks: every sync painted, phases exact, NVMe Flushes counted" {
	kp_run_painter fentry
	kp_run_painter tracepoint
}

# exporter --painter kernel (docs/hotpath.md "The kernel painter,
# reporting"): the kernel's phases as the breakdown, with the NVMe Flush
# commands' device time; every sync painted; the flush facts counted in
# the kernel (an overwrite fdatasync here: a flush each, an NVMe Flush)
# bats test_tags=kpaint,smoke
@test "exporter --painter kernel on this kernel and NVMe: every sync painted and counted, phases add up, flush time and flush facts seen" {
	local v ph tot fl f rc=0
	vm_exporter_start pk 19471 --painter kernel --mount "$VM_MNT"
	"$FSS_BIN" run --no-trace --count "$KP_N" --method fdatasync --bs 8k \
		--pattern overwrite --file-size 1m "$VM_MNT" > /dev/null 2>&1
	vm_scrape_fdatasyncs 19471 "$VM_DIR/pk.txt" "$KP_N" || rc=$?
	kill -TERM "$exp_pid"; wait "$exp_pid" || true; exp_pid=
	cat "$VM_DIR/pk.err"
	[ "$rc" -eq 0 ]
	grep -q '^fsyncscope_painter_info{painter="kernel"} 1$' "$VM_DIR/pk.txt"
	! grep -q 'reason="unpainted"' "$VM_DIR/pk.txt" || false
	for f in flushes flush_syncs_served nvme_flush_commands; do
		v=$(awk -v m="fsyncscope_${f}_total" '$1 == m { print $2 }' "$VM_DIR/pk.txt")
		echo "$f $v"
		[ -n "$v" ] && [ "$v" -ge "$KP_N" ]
	done
	grep -q '^fsyncscope_syncs_without_flush_total 0$' "$VM_DIR/pk.txt"
	ph=$(grep -E '^fsyncscope_phase_seconds_total\{kind="fdatasync"' "$VM_DIR/pk.txt" |
		awk '{ s += $NF } END { printf "%.9f", s }')
	tot=$(grep -E '^fsyncscope_sync_duration_seconds_sum\{kind="fdatasync"' "$VM_DIR/pk.txt" |
		awk '{ printf "%.9f", $NF }')
	fl=$(grep -E '^fsyncscope_phase_seconds_total\{kind="fdatasync".*phase="device_flush"' \
		"$VM_DIR/pk.txt" | awk '{ print $NF }')
	echo "phases $ph s, total $tot s, device_flush $fl s"
	awk -v a="$ph" -v b="$tot" -v f="$fl" 'BEGIN { d = a - b; if (d < 0) d = -d
		exit !(b > 0 && d / b < 1e-9 && f > 0) }'
}
