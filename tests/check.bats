#!/usr/bin/env bats
# `fsyncscope check` (issue 26): what tracing will use on this host and,
# where it cannot, why.  Checked against what `trace` really uses, as root,
# as a user without capabilities (setpriv), as root without CAP_SYS_ADMIN,
# and with tracefs unmounted (in a private mount namespace).

load lib
bats_require_minimum_version 1.5.0

setup() {
	fss_need_root
	fss_scratch
}

teardown() {
	fss_cleanup
}

LAYERS='{sync, fs, journal, block, nvme}'

@test "check as root: exit 0, the layers trace uses, BTF, capabilities, devices" {
	run -0 --separate-stderr "$FSS_BIN" check -j
	echo "$output" > "$FSS_SCRATCH/c.json"
	fss_jq "$FSS_SCRATCH/c.json" '.schema == "fsyncscope/check" and
		.ok == true and .reason == null and .tracer.loaded == true'
	fss_jq "$FSS_SCRATCH/c.json" '.tracer.strategy | .sync != "n/a" and
		.block != "n/a" and (.io_uring | type == "string")'
	fss_jq "$FSS_SCRATCH/c.json" '.host.btf.vmlinux == true and
		.host.euid == 0 and .host.missing_capabilities == null and
		([.host.capabilities[] | select(.required) | .have] | all)'
	# every block device of /sys/block with its cache and FUA facts
	fss_jq "$FSS_SCRATCH/c.json" '(.devices | length) > 0 and
		([.devices[] | has("write_cache") and has("fua")] | all)'
	jq -r '.devices[].name' "$FSS_SCRATCH/c.json" | while read -r d; do
		[ -e "/sys/block/$d" ] || [ -e "/sys/class/block/$d" ]
	done
	# the same hooks as trace's own start record
	"$FSS_BIN" trace -j -- true 2>/dev/null | head -n1 > "$FSS_SCRATCH/t.json"
	diff <(jq -S ".strategy | $LAYERS" "$FSS_SCRATCH/t.json") \
	     <(jq -S ".tracer.strategy | $LAYERS" "$FSS_SCRATCH/c.json")
}

@test "check text: host, capabilities, each layer, devices; ok on the last line" {
	run -0 --separate-stderr "$FSS_BIN" check
	echo "$output"
	[[ "${lines[0]}" == "kernel      $(uname -r) "* ]]
	for w in "BTF         vmlinux yes" "CAP_BPF           yes  yes" \
		 "  sync     " "  block    " "  nvme     " "  io_uring " \
		 "  blame    " \
		 "  calib    " "DEVICES"; do
		[[ "$output" == *"$w"* ]] || { echo "no '$w'" >&2; return 1; }
	done
	[ "${lines[-1]}" = "ok: trace and run will break syncs down on this host" ]
	! awk 'length > 80 { bad = 1 } END { exit !bad }' <<< "$output" || false
	# the saved document renders the same way
	"$FSS_BIN" check -j > "$FSS_SCRATCH/c.json"
	run -0 "$FSS_BIN" report "$FSS_SCRATCH/c.json" --format text
	[[ "${lines[0]}" == "kernel      "* ]]
	[ "${lines[-1]}" = "ok: trace and run will break syncs down on this host" ]
}

@test "check as a user without capabilities: exit 1, the missing ones named last" {
	run -1 --separate-stderr setpriv --reuid=65534 --regid=65534 \
		--clear-groups --inh-caps=-all "$FSS_BIN" check
	echo "$output"
	# the verdict is the last paragraph: its first line, then indented ones
	local i=${#lines[@]}
	while [ "$i" -gt 0 ] && [[ "${lines[i - 1]}" == "  "* ]]; do
		i=$((i - 1))
	done
	[[ "${lines[i - 1]}" == "cannot trace: missing CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN "* ]]
	[[ "$output" == *"CAP_BPF           NO   yes"* ]]
	run -1 --separate-stderr setpriv --reuid=65534 --regid=65534 \
		--clear-groups --inh-caps=-all "$FSS_BIN" check -j
	echo "$output" > "$FSS_SCRATCH/c.json"
	fss_jq "$FSS_SCRATCH/c.json" '.ok == false and .tracer.loaded == false and
		.tracer.strategy == null and .host.euid == 65534 and
		.host.missing_capabilities == "CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN" and
		(.reason | startswith("missing CAP_BPF"))'
	# facts that need no privilege are still there
	fss_jq "$FSS_SCRATCH/c.json" '.host.btf.vmlinux == true and
		(.devices | length) > 0'
}

@test "check as root without CAP_SYS_ADMIN: the tracer does not load, and check says which capability" {
	run -1 --separate-stderr setpriv --inh-caps=-all \
		--bounding-set=-sys_admin "$FSS_BIN" check -j
	echo "$output" > "$FSS_SCRATCH/c.json"
	cat "$FSS_SCRATCH/c.json"
	fss_jq "$FSS_SCRATCH/c.json" '.ok == false and .tracer.loaded == false and
		.host.missing_capabilities == "CAP_SYS_ADMIN" and
		(.reason | startswith("missing CAP_SYS_ADMIN")) and
		(.tracer.error | type == "string")'
}

@test "check agrees with trace under each capability set: which sets trace, and what is missing" {
	local set ok trc
	# as root with only these capabilities (bounding set; nothing inherited)
	for set in "+bpf,+perfmon" "+bpf,+perfmon,+sys_admin" "+sys_admin" \
		   "+perfmon,+sys_admin"; do
		setpriv --inh-caps=-all --bounding-set=-all,$set \
			"$FSS_BIN" check -j > "$FSS_SCRATCH/c.json" || true
		ok=$(jq .ok "$FSS_SCRATCH/c.json")
		trc=false
		setpriv --inh-caps=-all --bounding-set=-all,$set \
			"$FSS_BIN" trace -j -- true > /dev/null 2>&1 && trc=true
		echo "$set: check ok $ok, missing" \
			"$(jq -r '.host.missing_capabilities' "$FSS_SCRATCH/c.json")," \
			"trace works: $trc"
		[ "$ok" = "$trc" ]
	done
	# the least set the exporter's unit keeps works, CAP_SYS_ADMIN alone too
	# (the kernel lets it do what CAP_BPF and CAP_PERFMON allow)
	setpriv --inh-caps=-all --bounding-set=-all,+bpf,+perfmon,+sys_admin \
		"$FSS_BIN" check -j > "$FSS_SCRATCH/c.json"
	fss_jq "$FSS_SCRATCH/c.json" '.ok and .host.missing_capabilities == null'
	setpriv --inh-caps=-all --bounding-set=-all,+sys_admin \
		"$FSS_BIN" check -j > "$FSS_SCRATCH/c.json"
	fss_jq "$FSS_SCRATCH/c.json" '.ok and .host.missing_capabilities == null
		and ([.host.capabilities[] | select(.name == "CAP_BPF") |
		      .have == false and .covered == true] | all)'
	# without CAP_SYS_ADMIN, it is the one named
	setpriv --inh-caps=-all --bounding-set=-all,+bpf,+perfmon \
		"$FSS_BIN" check -j > "$FSS_SCRATCH/c.json" || true
	fss_jq "$FSS_SCRATCH/c.json" '.host.missing_capabilities == "CAP_SYS_ADMIN"'
}

@test "check with tracefs unmounted: says so, and the tracer mounts it itself" {
	run -0 unshare -m --propagation private bash -c '
		while mountpoint -q /sys/kernel/tracing; do
			umount /sys/kernel/tracing || exit 3; done
		if mountpoint -q /sys/kernel/debug/tracing; then
			umount /sys/kernel/debug/tracing || exit 3; fi
		! grep -qw tracefs /proc/self/mounts || exit 4
		"$0" check -j > "$1/c.json"
		grep -w tracefs /proc/self/mounts' "$FSS_BIN" "$FSS_SCRATCH"
	echo "$output"
	# mounted by the tracer (or debugfs' automount), in the namespace only
	[[ "$output" == *" tracefs "* ]]
	fss_jq "$FSS_SCRATCH/c.json" '.host.tracefs == null and .ok == true'
}

@test "check: bad input is one line on stderr, exit 2" {
	local a
	for a in "extra" "--strategy nope" "--format html" "--calib-dir="; do
		# shellcheck disable=SC2086
		run -2 --separate-stderr "$FSS_BIN" check $a
		[ -z "$output" ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" == "fsyncscope check: "* ]]
	done
}

@test "check --strategy tracepoint: the filesystem layer on its tracepoints" {
	run -0 --separate-stderr "$FSS_BIN" check -j --strategy tracepoint
	echo "$output" > "$FSS_SCRATCH/c.json"
	fss_jq "$FSS_SCRATCH/c.json" '.ok == true and
		.tracer.strategy.requested == "tracepoint" and
		.tracer.strategy.fs == "tracepoint"'
}

@test "check's io_uring line holds: when it says hooked, trace counts io_uring fsyncs" {
	local iou
	iou=$("$FSS_BIN" check -j | jq -r .tracer.strategy.io_uring)
	echo "check: io_uring $iou"
	[[ "$iou" == "tracepoint ("*" hooks)" ]] ||
		skip "io_uring n/a here: $iou"
	fss_mkfs ext4
	# syncer (tests/helpers) does 3 IORING_OP_FSYNCs, says done, then
	# waits for a signal
	run -0 --separate-stderr "$FSS_BIN" trace -j -- sh -c '
		"$0" --uring 3 "$1" > "$1/out" & p=$!
		while ! grep -q "^done" "$1/out"; do
			kill -0 $p 2>/dev/null || exit 1; sleep 0.1; done
		kill $p; wait $p' "$FSS_BUILD/tests/syncer" "$FSS_MNT"
	printf '%s\n' "$output" | jq -c 'select(.type == "summary") | .by_kind'
	[ "$(printf '%s\n' "$output" | jq 'select(.type == "summary") |
		.by_kind.io_uring_fsync')" -eq 3 ]
}

@test "check: what trace sees on ext4, xfs and btrfs mounts (fs phase, journal hooks)" {
	local m dev
	fss_mkfs ext4 256
	local e4="$FSS_MNT"
	fss_mkfs xfs 512
	local x="$FSS_MNT"
	fss_mkfs btrfs 256
	local b="$FSS_MNT"
	run -0 --separate-stderr "$FSS_BIN" check -j
	echo "$output" > "$FSS_SCRATCH/c.json"
	jq -c '.mounts[]' "$FSS_SCRATCH/c.json"
	for m in "$e4" "$x" "$b"; do
		# the block device's number (btrfs' own st_dev is 0:N)
		dev=$(lsblk -dno MAJ:MIN "$(findmnt -n -o SOURCE --target "$m")" |
			tr -d ' ')
		fss_jq "$FSS_SCRATCH/c.json" "[.mounts[] | select(.target == \"$m\"
			and .dev == \"$dev\" and .trace_sees.syncs and
			.trace_sees.block)] | length == 1"
	done
	fss_jq "$FSS_SCRATCH/c.json" ".mounts[] | select(.target == \"$e4\") |
		.fstype == \"ext4\" and .trace_sees.fs and .trace_sees.journal == \"jbd2\""
	fss_jq "$FSS_SCRATCH/c.json" ".mounts[] | select(.target == \"$x\") |
		.fstype == \"xfs\" and .trace_sees.fs and
		.trace_sees.journal == \"xfs log\""
	# btrfs: its fsync is hooked, its log tree is not
	fss_jq "$FSS_SCRATCH/c.json" ".mounts[] | select(.target == \"$b\") |
		.fstype == \"btrfs\" and .trace_sees.fs and .trace_sees.journal == null"
	run -0 "$FSS_BIN" check
	grep -E "^xfs +[0-9]+:[0-9]+ +yes +xfs log +$x\$" <<< "$output"
}
