#!/usr/bin/env bats
# VM lane, calibration: on this kernel fentry and kprobes attach, so a hook
# that attaches but never fires can be shown being dropped.  On tmpfs the
# ext4/xfs/btrfs fsync hooks attach (their modules are loaded) but no sync
# reaches them.

bats_require_minimum_version 1.5.0
load vmlib

setup_file() {
	vm_in_guest || return 0
	mkdir -p /tmp/fss-vm/tmpfs
	mount -t tmpfs -o size=64m tmpfs /tmp/fss-vm/tmpfs
}

teardown_file() {
	mountpoint -q /tmp/fss-vm/tmpfs && umount /tmp/fss-vm/tmpfs
	return 0
}

setup() {
	vm_require_guest
	VM_DIR="$BATS_FILE_TMPDIR"
}

@test "auto on tmpfs: fentry hooks attach, never fire, and are dropped" {
	vm_traced_run tmpfs-auto --method fdatasync --count 10 /tmp/fss-vm/tmpfs
	local j="$VM_DIR/tmpfs-auto.json"
	# the syncs themselves are still counted
	vm_jq_all "$j" \
		'.strategy.requested == "auto"' \
		'.strategy.probes.fentry == "ok"' \
		'.strategy.calibration.hits.fs_fentry == 0' \
		'.strategy.calibration.dropped_hooks | index("fs_fentry") != null' \
		'.strategy.fs == "n/a"' \
		'.tests[0].ops == 10 and .tests[0].syncs_traced == 10'
}

@test "--strategy fentry on tmpfs fails with one line: hooks never fired" {
	run --separate-stderr "$FSS_BIN" run --strategy fentry --method fdatasync \
		--count 5 /tmp/fss-vm/tmpfs
	[ "$status" -ne 0 ]
	echo "$stderr"
	[ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ]
	[[ "$stderr" == *fentry*never\ fired* ]]
	# nothing left behind
	[ -z "$(ls -A /tmp/fss-vm/tmpfs)" ]
}
