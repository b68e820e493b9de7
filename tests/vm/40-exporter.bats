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
	local i n=30 url=http://127.0.0.1:19469/metrics v=
	"$FSS_BIN" exporter --listen 127.0.0.1:19469 --interval 1 \
		--mount /tmp/fss-vm/exp 2> "$VM_DIR/exp.err" &
	exp_pid=$!
	for ((i = 0; i < 300; i++)); do
		grep -q '^fsyncscope: exporting' "$VM_DIR/exp.err" && break
		sleep 0.1
	done
	cat "$VM_DIR/exp.err"
	grep -q 'as nobody' "$VM_DIR/exp.err"
	grep -qE "^Uid:\s+$(id -u nobody)\s" /proc/$exp_pid/status
	grep -q '^CapEff:\s*0000000000000000$' /proc/$exp_pid/status
	"$FSS_BIN" run --no-trace --count "$n" --method fdatasync /tmp/fss-vm/exp \
		> /dev/null 2>&1
	for ((i = 0; i < 100; i++)); do
		curl -sf "$url" -o "$VM_DIR/m.txt" &&
			v=$(grep -E '^fsyncscope_sync_duration_seconds_count\{kind="fdatasync"' \
				"$VM_DIR/m.txt" | awk '{ print $NF }')
		[ "$v" = "$n" ] && break
		sleep 0.1
	done
	[ "$v" = "$n" ]
	if grep -q 'fsyncscope_events_lost_total is n/a' "$VM_DIR/exp.err"; then
		! grep -q fsyncscope_events_lost "$VM_DIR/m.txt" || false
	else
		grep -q '^fsyncscope_events_lost_total 0$' "$VM_DIR/m.txt"
	fi
	echo "kernel.unprivileged_bpf_disabled=$(sysctl -n kernel.unprivileged_bpf_disabled)"
	grep -q '^fsyncscope_build_info' "$VM_DIR/m.txt"
}
