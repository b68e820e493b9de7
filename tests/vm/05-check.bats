#!/usr/bin/env bats
# VM lane, `fsyncscope check` on Debian's stock 6.1 kernel with an NVMe
# disk, where fentry and kprobes load: check must say so, pick the hooks a
# traced run really uses, and list the NVMe disk with its cache facts.

bats_require_minimum_version 1.5.0
load vmlib

setup_file() {
	vm_fs_setup_file ext4
}

teardown_file() {
	vm_cleanup
}

setup() {
	vm_setup
}

# bats test_tags=smoke
@test "check in the guest: fentry and kprobe load, the fs layer on fentry, NVMe attached, the disk listed" {
	run -0 --separate-stderr "$FSS_BIN" check -j --calib-dir "$VM_MNT"
	echo "$output" > "$VM_DIR/check.json"
	vm_artifact check.json "$VM_DIR/check.json"
	vm_jq_all "$VM_DIR/check.json" \
		'.ok == true and .reason == null' \
		".host.kernel | startswith(\"$(uname -r) \")" \
		'.host.btf.vmlinux == true and .host.btf.modules > 0' \
		'.tracer.strategy.probes.fentry == "ok"' \
		'.tracer.strategy.probes.kprobe == "ok"' \
		'.tracer.strategy.fs == "fentry"' \
		'.tracer.strategy.nvme != "n/a"' \
		"[.devices[] | select(.name == \"$(basename "$FSS_VM_NVME")\")] | length == 1"
	# the hooks a traced run picks on the same directory
	vm_traced_run check-run --method fdatasync --count 10 "$VM_MNT"
	diff <(jq -S '.strategy | {sync, fs, journal, block, nvme}' \
		"$VM_DIR/check-run.json") \
	     <(jq -S '.tracer.strategy | {sync, fs, journal, block, nvme}' \
		"$VM_DIR/check.json")
}

@test "check text in the guest (the saved result rendered, no second tracer): fentry, ok last" {
	[ -s "$VM_DIR/check.json" ] || { echo "no check.json from the test above" >&2; return 1; }
	run -0 --separate-stderr "$FSS_BIN" report "$VM_DIR/check.json" --format text
	echo "$output"
	[[ "$output" == *"  fs       fentry"* ]]
	[[ "$output" == *"nvme0n1"* ]]
	[ "${lines[-1]}" = "ok: trace and run will break syncs down on this host" ]
}

@test "check in the guest without CAP_SYS_ADMIN agrees with trace (libbpf 1.1 and the modules' BTF)" {
	local ok trc=false
	setpriv --inh-caps=-all --bounding-set=-all,+bpf,+perfmon "$FSS_BIN" \
		check -j --calib-dir "$VM_MNT" > "$VM_DIR/check-nosa.json" || true
	vm_artifact check-nosa.json "$VM_DIR/check-nosa.json"
	setpriv --inh-caps=-all --bounding-set=-all,+bpf,+perfmon "$FSS_BIN" \
		trace -j --calib-dir "$VM_MNT" -- true > /dev/null \
		2> "$VM_DIR/trace-nosa.err" && trc=true
	vm_artifact trace-nosa.err "$VM_DIR/trace-nosa.err"
	ok=$(jq .ok "$VM_DIR/check-nosa.json")
	echo "6.1 without CAP_SYS_ADMIN: check ok $ok, trace works $trc"
	[ "$ok" = "$trc" ]
	vm_jq_all "$VM_DIR/check-nosa.json" \
		'.host.missing_capabilities == "CAP_SYS_ADMIN"'
}
