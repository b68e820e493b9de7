#!/usr/bin/env bats
# VM lane, exporter without root (issue 29) on Debian's 6.1 kernel: once
# attached, the exporter becomes nobody with no capabilities and must still
# count every sync (ring buffer by mmap) and read its lost-event counters
# (bpf() lookups on maps it holds open); a kernel that refuses those to an
# unprivileged process must get the metric left out with one line on
# stderr, never a made-up 0.

bats_require_minimum_version 1.5.0
load vmlib

setup_file() {
	vm_in_guest || return 0
	mkdir -p /tmp/fss-vm/exp
	mount -t tmpfs -o size=64m tmpfs /tmp/fss-vm/exp
	ip link set lo up 2>/dev/null || true
}

teardown_file() {
	mountpoint -q /tmp/fss-vm/exp && umount /tmp/fss-vm/exp
	return 0
}

setup() {
	vm_require_guest
	VM_DIR="$BATS_FILE_TMPDIR"
	exp_pid=
}

teardown() {
	[ -z "$exp_pid" ] || { kill -TERM "$exp_pid"; wait "$exp_pid" || true; }
}

# bats test_tags=smoke
@test "exporter as nobody on this kernel: every sync counted, lost events read (or n/a and absent)" {
	local n=30
	vm_exporter_start exp 19469 --mount /tmp/fss-vm/exp
	cat "$VM_DIR/exp.err"
	grep -q 'as nobody' "$VM_DIR/exp.err"
	grep -qE "^Uid:\s+$(id -u nobody)\s" /proc/$exp_pid/status
	grep -q '^CapEff:\s*0000000000000000$' /proc/$exp_pid/status
	"$FSS_BIN" run --no-trace --count "$n" --method fdatasync /tmp/fss-vm/exp \
		> /dev/null 2>&1
	vm_scrape_fdatasyncs 19469 "$VM_DIR/m.txt" "$n"
	if grep -q 'fsyncscope_events_lost_total is n/a' "$VM_DIR/exp.err"; then
		! grep -q fsyncscope_events_lost "$VM_DIR/m.txt" || false
	else
		grep -q '^fsyncscope_events_lost_total 0$' "$VM_DIR/m.txt"
	fi
	echo "kernel.unprivileged_bpf_disabled=$(sysctl -n kernel.unprivileged_bpf_disabled)"
	grep -q '^fsyncscope_build_info' "$VM_DIR/m.txt"
}
