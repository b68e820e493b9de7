#!/usr/bin/env bats
# VM lane, guest environment: the stock kernel, the emulated NVMe disk, BTF,
# and that fentry and kprobes really attach AND fire here (bpftrace, from
# the host's root filesystem, is the independent witness).  Also the fact
# that makes calibration necessary on 6.1: fentry on vfs_fsync_range
# attaches but does not see fdatasync(2).

bats_require_minimum_version 1.5.0
load vmlib

# bpftrace PROGRAM: run it while doing 2 fdatasync + 1 fsync of 4 KiB on
# $VM_MNT/f, print its maps.  No -c: bpftrace 0.17 refuses a -c command on
# the guest's 9p root, so it is stopped with SIGINT once the syncs are done.
bt_syncs() {
	local log="$BATS_FILE_TMPDIR/bt.log" pid i
	timeout 180 bpftrace -e "$1" > "$log" 2>&1 &
	pid=$!
	for i in $(seq 600); do
		grep -q '^Attaching' "$log" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	sleep 1
	xfs_io -f -c "pwrite -q 0 4k" -c fdatasync -c "pwrite -q 0 4k" \
		-c fdatasync -c "pwrite -q 0 4k" -c fsync "$VM_MNT/f"
	kill -INT "$pid" 2>/dev/null
	wait "$pid"
	cat "$log"
}

# count NAME: a scalar map from the bpftrace output in $BT (0 if absent)
count() {
	local v
	v=$(sed -n "s/^@$1: \([0-9]*\)$/\1/p" <<< "$BT")
	echo "${v:-0}"
}

# bt: BT, the bpftrace witness's output, run by the first test that needs
# it (ext4 on the NVMe disk) and kept for the file's other tests; so the
# smoke set (scripts/vmtest-matrix), which runs none of them, pays nothing
bt() {
	local f="$BATS_FILE_TMPDIR/bt.out"
	if [ ! -s "$f" ]; then
		vm_mkfs ext4 || return 1
		bt_syncs '
		kfunc:ext4_sync_file { @fentry_ext4 = count(); }
		kfunc:__x64_sys_fdatasync { @fentry_sys_fdatasync = count(); }
		kfunc:vfs_fsync_range { @fentry_vfs_fsync_range = count(); }
		kprobe:ext4_sync_file { @kprobe_ext4 = count(); }
		tracepoint:nvme:nvme_setup_cmd /args->opcode == 0/ { @nvme_flush = count(); }' > "$f"
		vm_cleanup
	fi
	BT=$(cat "$f")
	echo "$BT"
}

teardown_file() {
	vm_cleanup
}

setup() {
	vm_require_guest
}

@test "guest runs Debian's stock 6.1 kernel" {
	run uname -r
	[[ "$output" =~ ^6\.1\.[0-9]+-[0-9]+-amd64$ ]]
	# the module tree comes from the host's linux-image package
	[ -d "/lib/modules/$output/kernel/drivers/nvme" ]
}

# bats test_tags=smoke
@test "emulated NVMe namespace: QEMU controller, write-back cache, FUA" {
	[ -b /dev/nvme0n1 ]
	[ "$(cat /sys/block/nvme0n1/queue/write_cache)" = "write back" ]
	[ "$(cat /sys/block/nvme0n1/queue/fua)" = 1 ]
	# size given by scripts/vmtest (VMTEST_NVME_SIZE, default 2G)
	[ "$(blockdev --getsize64 /dev/nvme0n1)" -ge $((1024 * 1024 * 1024)) ]
}

# The facts the matrix (docs/kernels.md) differs on are printed and kept
# as an artifact: preemption model, which of the drivers are built in, the
# block tracepoints that come and go between releases.
# bats test_tags=smoke
@test "kernel and BTF: vmlinux BTF; nvme_core, ext4, jbd2, xfs each a module with BTF or built in" {
	local m rel mods tp f="$BATS_TEST_TMPDIR/kernel.txt"
	rel=$(uname -r)
	mods=/lib/modules/$rel
	[ -r /sys/kernel/btf/vmlinux ]
	{
		echo "release $rel"
		echo "version $(uname -v)"
		for m in nvme_core ext4 jbd2 xfs; do
			# a built-in module's types are in vmlinux's BTF (the cloud
			# flavour builds nvme and ext4 in)
			if grep -qE "/${m//_/[-_]}\.ko$" "$mods/modules.builtin"; then
				echo "$m built-in"
			elif [ -r "/sys/kernel/btf/$m" ]; then
				echo "$m module-btf"
			else
				echo "$m missing"
			fi
		done
		for tp in block/block_io_start block/block_rq_insert \
			nvme/nvme_setup_cmd nvme/nvme_complete_rq \
			jbd2/jbd2_handle_stats xfs/xfs_log_force \
			io_uring/io_uring_submit_req; do
			[ -d "/sys/kernel/tracing/events/$tp" ] &&
				echo "tp $tp yes" || echo "tp $tp no"
		done
		# PREEMPT_RT runs every interrupt handler in a thread: NVMe
		# completions then come from irq/N-nvme0qM kernel threads
		echo "nvme_irq_threads $(ps -eo comm= | grep -c '^irq/[0-9]*-nvme')"
	} > "$f"
	vm_artifact kernel.txt "$f"
	cat "$f"
	! grep -q ' missing$' "$f"
}

# The sync layer reads syscall arguments and return values from the
# syscalls:sys_enter_NAME / sys_exit_NAME records through BTF's struct
# syscall_trace_enter / syscall_trace_exit (bpf/sync.bpf.c).  raw_syscalls'
# struct (ent, long id, args) has them at the same offsets only with an
# 8-byte struct trace_entry: PREEMPT_RT 6.1's is 12 bytes.  tracefs's
# format files are the independent witness of where the kernel writes them.
# bats test_tags=smoke
@test "syscall records: fd and ret where BTF's syscall_trace_enter/exit put them (not raw_syscalls' layout on PREEMPT_RT 6.1)" {
	local ev=/sys/kernel/tracing/events/syscalls f="$BATS_TEST_TMPDIR/sysrec.txt"
	local fd ret args retb ent raw
	bpftool btf dump file /sys/kernel/btf/vmlinux format raw |
		grep -A3 -E "STRUCT '(syscall_trace_enter|syscall_trace_exit|trace_entry)' " \
		> "$BATS_TEST_TMPDIR/btf.txt"
	# byte offset of member $2 of struct $1 in the BTF dump
	member() {
		awk -v s="STRUCT '$1' " -v m="'$2'" '
			index($0, s) { on = 1; next }
			/^\[/ { on = 0 }
			on && $1 == m { sub(/.*bits_offset=/, ""); print $0 / 8; exit }
		' "$BATS_TEST_TMPDIR/btf.txt"
	}
	ent=$(sed -n "s/.*STRUCT 'trace_entry' size=\([0-9]*\).*/\1/p" "$BATS_TEST_TMPDIR/btf.txt")
	args=$(member syscall_trace_enter args)
	retb=$(member syscall_trace_exit ret)
	fd=$(sed -n 's/.*field:.* fd;[[:space:]]*offset:\([0-9]*\);.*/\1/p' "$ev/sys_enter_fsync/format")
	ret=$(sed -n 's/.*field:long ret;[[:space:]]*offset:\([0-9]*\);.*/\1/p' "$ev/sys_exit_fsync/format")
	raw=$(sed -n 's/.*field:.* args\[6\];[[:space:]]*offset:\([0-9]*\);.*/\1/p' \
		/sys/kernel/tracing/events/raw_syscalls/sys_enter/format)
	echo "trace_entry $ent bytes; sys_enter_fsync fd at $fd (BTF args at $args; raw_syscalls args at $raw); sys_exit_fsync ret at $ret (BTF $retb)" | tee "$f"
	vm_artifact sysrec.txt "$f"
	[ -n "$ent" ] && [ -n "$fd" ] && [ -n "$ret" ]
	[ "$fd" = "$args" ] && [ "$ret" = "$retb" ]
}

@test "kprobes exist and a kprobe on ext4_sync_file fires once per sync" {
	[ -d /sys/bus/event_source/devices/kprobe ]
	bt
	[ "$(count kprobe_ext4)" -eq 3 ]
}

@test "fentry loads and fires: ext4_sync_file once per sync, fdatasync syscall twice" {
	bt
	[ "$(count fentry_ext4)" -eq 3 ]
	[ "$(count fentry_sys_fdatasync)" -eq 2 ]
}

@test "6.1 fact: fentry on vfs_fsync_range attaches but misses fdatasync(2)" {
	# 3 syncs, only the fsync(2) reaches vfs_fsync_range's entry: this is
	# why fsyncscope calibrates its hooks instead of trusting an attach.
	bt
	grep -q '^Attaching 5 probes' <<< "$BT"
	[ "$(count fentry_vfs_fsync_range)" -eq 1 ]
}

@test "nvme_setup_cmd sees one Flush command (opcode 0) per sync on ext4" {
	bt
	[ "$(count nvme_flush)" -eq 3 ]
}

@test "fsyncscope devices: the NVMe namespace has a volatile write cache" {
	run --separate-stderr "$FSS_BIN" devices --json /dev/nvme0n1
	[ "$status" -eq 0 ]
	echo "$output" > "$BATS_TEST_TMPDIR/dev.json"
	vm_artifact devices-nvme0n1.json "$BATS_TEST_TMPDIR/dev.json"
	vm_jq_all "$BATS_TEST_TMPDIR/dev.json" \
		'.devices | length == 1' \
		'.devices[0].name == "nvme0n1"' \
		'.devices[0].model == "QEMU NVMe Ctrl"' \
		'.devices[0].write_cache == "write back"' \
		'.devices[0].fua == true' \
		'.devices[0].nvme.vwc_present == true' \
		'.devices[0].nvme.vwc_enabled == true'
}
