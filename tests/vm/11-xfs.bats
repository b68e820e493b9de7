#!/usr/bin/env bats
# VM lane, xfs on the emulated NVMe disk: each attach strategy gives a
# complete breakdown, the three agree on structure, auto picks fentry, the
# NVMe layer sees one Flush command per device flush, and the log writes
# use FUA on this FUA-capable device.  The host-built ./fsyncscope runs
# unchanged on the guest's 6.1 kernel (CO-RE).

load vmlib
load strategies

setup_file() {
	vm_fs_setup_file xfs
}

teardown_file() {
	vm_cleanup
}

setup() {
	vm_setup
	VM_TAG=xfs-
}

@test "xfs: --strategy fentry gives a complete breakdown, one NVMe Flush per flush" {
	strat_run fentry
}

@test "xfs: --strategy kprobe gives a complete breakdown, one NVMe Flush per flush" {
	strat_run kprobe
}

# bats test_tags=smoke
@test "xfs: --strategy tracepoint gives a complete breakdown, one NVMe Flush per flush" {
	strat_run tracepoint
}

@test "xfs: the three strategies agree on syncs, flushes and per-sync structure" {
	strat_agree
}

@test "xfs: auto picks fentry; calibration saw every hook fire (fsync appends)" {
	strat_auto_fsync
}

@test "xfs: FUA device: log writes go out as native FUA writes, no post-flush" {
	strat_fua
}
