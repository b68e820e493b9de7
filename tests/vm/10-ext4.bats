#!/usr/bin/env bats
# VM lane, ext4 on the emulated NVMe disk: each attach strategy gives a
# complete breakdown, the three agree on structure, auto picks fentry, and
# the NVMe layer sees one Flush command per device flush.  The host-built
# ./fsyncscope runs unchanged on the guest's 6.1 kernel (CO-RE).
#
# commit=300: no periodic jbd2 commit lands inside a run, so the strategy
# runs can be compared sync by sync (a commit would add a flush).

load vmlib
load strategies

setup_file() {
	VM_MOUNT_OPTS=commit=300 vm_fs_setup_file ext4
}

teardown_file() {
	vm_cleanup
}

setup() {
	vm_setup
	VM_TAG=ext4-
}

@test "ext4: --strategy fentry gives a complete breakdown, one NVMe Flush per flush" {
	strat_run fentry
}

@test "ext4: --strategy kprobe gives a complete breakdown, one NVMe Flush per flush" {
	strat_run kprobe
}

# bats test_tags=smoke
@test "ext4: --strategy tracepoint gives a complete breakdown, one NVMe Flush per flush" {
	strat_run tracepoint
}

@test "ext4: the three strategies agree on syncs, flushes and per-sync structure" {
	strat_agree
}

# bats test_tags=smoke
@test "ext4: auto picks fentry; calibration saw every hook fire (fsync appends)" {
	strat_auto_fsync
	# every append needs a jbd2 commit: each fsync waited for one
	vm_ev_expect "$VM_DIR/auto.ev" "$STRAT_N" '.nr_journal >= 1'
}

# bats test_tags=smoke
@test "ext4: FUA device: jbd2 commit blocks go out as native FUA writes" {
	strat_fua
}
