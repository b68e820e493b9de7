#!/usr/bin/env bats
# `fsyncscope compare` (issue 7): the same workloads on fresh ext4/xfs/btrfs
# loop images that the command makes itself (in a --dir under this test's
# scratch dir), the --scratch-dev refusals, the real-device path on a loop
# device made here, and cleanup after errors and SIGINT.  Counted runs
# (--count): the checks are exact counts and structure, never timings.
# Never touches the machine's own disk: every "scratch device" is a loop
# device on an image under /tmp.

load lib
bats_require_minimum_version 1.5.0

setup() {
	fss_need_root
	[ -x "$FSS_BIN" ] || skip "build ./fsyncscope first (make)"
	fss_scratch
	IMGS="$FSS_SCRATCH/imgs"
	mkdir -p "$IMGS"
}

teardown() {
	[ -n "${HOLDER_PID:-}" ] && kill "$HOLDER_PID" 2>/dev/null && wait "$HOLDER_PID" 2>/dev/null
	fss_cleanup
}

assert_80cols() {
	local long
	long="$(awk 'length($0) > 80' "$1")"
	[ -z "$long" ] || { echo "lines over 80 columns: $long" >&2; return 1; }
}

# Nothing of a compare run is left: no file under DIR, no mount under it,
# no loop device whose backing file is under it.
assert_nothing_left() {
	local dir="$1" left d bf
	left="$(find "$dir" -mindepth 1 2>/dev/null)"
	[ -z "$left" ] || { echo "left in $dir: $left" >&2; return 1; }
	if grep -q " $dir/" /proc/self/mountinfo; then
		echo "mount left under $dir:" >&2
		grep " $dir/" /proc/self/mountinfo >&2
		return 1
	fi
	for d in /sys/block/loop*; do
		bf="$(cat "$d/loop/backing_file" 2>/dev/null)" || continue
		case "$bf" in
		"$dir"/*) echo "loop device left: $(basename "$d") -> $bf" >&2; return 1 ;;
		esac
	done
}

# A loop device on a fresh image, registered for cleanup: fss_scratch_loop SIZE_MB
fss_scratch_loop() {
	local img dev
	img="$(mktemp -p "$FSS_SCRATCH" scratch.XXXXXX)"
	truncate -s "${1}M" "$img"
	dev="$(losetup -f --show "$img")"
	echo "$dev" >> "$FSS_SCRATCH/.loops"
	echo "$dev"
}

one_line() {
	[ "$(printf '%s\n' "$1" | grep -c .)" -eq 1 ] ||
		{ echo "expected one stderr line, got: $1" >&2; return 1; }
}

@test "compare ext4,xfs on loop images: JSON has both filesystems, every workload, breakdowns with the journal phase; nothing left" {
	local out="$FSS_SCRATCH/out.json"
	run --separate-stderr "$FSS_BIN" compare --fs ext4,xfs --dir "$IMGS" \
		--count 20 --json
	echo "$stderr"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > "$out"
	fss_jq "$out" '.version | type == "string"'
	fss_jq "$out" '.filesystems | map(.fs) == ["ext4", "xfs"]'
	fss_jq "$out" '.filesystems | all(.status == "ok" and .error == null and
		.loop == true and (.device | startswith("/dev/loop")) and
		(.mkfs | type == "array") and .target.fstype == .fs and
		.strategy != null and (.drops | type == "number"))'
	fss_jq "$out" '.filesystems[0].mkfs[0] == "mkfs.ext4" and
		.filesystems[1].mkfs[0] == "mkfs.xfs"'
	# the images were made in a fresh directory inside --dir
	fss_jq "$out" ".images.parent == \"$IMGS\" and
		(.images.dir | startswith(\"$IMGS/fsyncscope-compare.\")) and
		.images.size_bytes == 1073741824 and .images.in_memory == false and
		.scratch_dev == null"
	fss_jq "$out" '.workloads | map(.name) == ["fdatasync_overwrite",
		"fsync_append", "open_datasync_overwrite_direct"]'
	fss_jq "$out" '.workloads | map(.method) == ["fdatasync", "fsync", "open_datasync"]'
	# every cell: ok, exact op count, every op traced (or events were lost)
	fss_jq "$out" '[.workloads[].results | map(.fs) == ["ext4", "xfs"]] | all'
	fss_jq "$out" '[.workloads[].results[] | .status == "ok" and .ops == 20 and
		.partial == false and (.drops > 0 or .syncs_traced == 20)] | all'
	# the same phase names as run, journal included, shares adding up to 1
	fss_jq "$out" '[.workloads[].results[] | .breakdown |
		(keys | sort) == (["device_flush", "device_write", "fs", "journal",
		"other", "queue"] | sort) and
		(.journal.mean_us | type == "number") and
		(([.[].share] | add) - 1 | fabs) < 0.002] | all'
	# an appending fsync commits metadata: jbd2 on ext4, the log on xfs
	fss_jq "$out" '.workloads[1].results | all(.breakdown.journal.mean_us > 0)'
	# ratios are against the first filesystem
	fss_jq "$out" '[.workloads[] | .results[0].ratio_to_first.ops_per_sec == 1] | all'
	fss_jq "$out" '[.workloads[] | .results[1] |
		(.ratio_to_first.ops_per_sec | type == "number") and
		(.ratio_to_first.phases | has("journal"))] | all'
	# loop devices are write back: nothing is elided
	fss_jq "$out" '[.workloads[].results[] | .flush.elided == 0] | all'
	fss_jq "$out" '.interrupted == null'
	assert_nothing_left "$IMGS"
}

@test "--painter kernel: every cell's syncs painted in the kernel, all traced, phases summing; the document says who painted" {
	local out="$FSS_SCRATCH/kp.json"
	run --separate-stderr "$FSS_BIN" compare --fs ext4,xfs --dir "$IMGS" \
		--count 20 --repeat 1 --painter kernel --json
	echo "$stderr"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > "$out"
	fss_jq "$out" '.options.painter == "kernel"'
	fss_jq "$out" '.filesystems | all(.status == "ok" and
		.painter == "kernel" and .strategy.kpaint.syncs > 0 and
		(.strategy.blame | startswith("off")))'
	# each cell: the test object of run --painter kernel, all 20 traced
	fss_jq "$out" '[.workloads[].results[] | .status == "ok" and
		.painter == "kernel" and .ops == 20 and .syncs_traced == 20 and
		.syncs_summarized == 0 and
		(([.breakdown[].share] | add) - 1 | fabs) < 0.002] | all'
	fss_jq "$out" '.workloads[1].results | all(.breakdown.journal.mean_us > 0)'
	assert_nothing_left "$IMGS"
}

@test "plain output: one table per workload, 80 columns, journal marked, btrfs journal n/a with the reason" {
	run --separate-stderr "$FSS_BIN" compare --fs ext4,xfs,btrfs --dir "$IMGS" \
		--count 10 --method fdatasync,fsync --pattern append
	echo "$stderr"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > "$FSS_SCRATCH/plain.txt"
	assert_80cols "$FSS_SCRATCH/plain.txt"
	grep -q "^images      $IMGS/fsyncscope-compare\." "$FSS_SCRATCH/plain.txt"
	grep -q '^fdatasync_append: fdatasync after each 8 KiB append$' "$FSS_SCRATCH/plain.txt"
	grep -q '^fsync_append: fsync after each 8 KiB append$' "$FSS_SCRATCH/plain.txt"
	[ "$(grep -cE '^ +ext4 +xfs +btrfs$' "$FSS_SCRATCH/plain.txt")" -eq 2 ]
	[ "$(grep -cE '^  ops/sec +[0-9.]+ +[0-9.]+ +[0-9.]+x +[0-9.]+ +[0-9.]+x$' "$FSS_SCRATCH/plain.txt")" -eq 2 ]
	[ "$(grep -cE '^  syncs traced +10 +10 +10$' "$FSS_SCRATCH/plain.txt")" -eq 2 ]
	[ "$(grep -cE '^> journal +[0-9.]+ +[0-9]+% +[0-9.]+ +[0-9]+% +n/a \[[0-9]\]$' "$FSS_SCRATCH/plain.txt")" -eq 2 ]
	grep -q 'btrfs: journal n/a: btrfs writes its log tree inside its' "$FSS_SCRATCH/plain.txt"
	for ph in fs queue device_write device_flush other; do
		[ "$(grep -cE "^    $ph +[0-9.]+ +[0-9]+% " "$FSS_SCRATCH/plain.txt")" -eq 2 ]
		# and in each table's intervals: xfs and btrfs against ext4
		[ "$(grep -cE "^    $ph .*(\]|n/a) +(faster|slower|within noise)$" "$FSS_SCRATCH/plain.txt")" -eq 4 ]
	done
	# each filesystem's line says how it was made and mounted
	grep -qE '^ext4 +/dev/loop[0-9]+: mkfs\.ext4 -q -F ' "$FSS_SCRATCH/plain.txt"
	grep -qE '^btrfs +/dev/loop[0-9]+: mkfs\.btrfs -q -f ' "$FSS_SCRATCH/plain.txt"
	assert_nothing_left "$IMGS"
}

@test "compare's text is its document rendered: equals report --format text of its --save, byte for byte" {
	local s="$FSS_SCRATCH"
	# btrfs: the journal n/a footnote; none: a table without a breakdown
	"$FSS_BIN" compare --fs ext4,btrfs --dir "$IMGS" --count 5 \
		--method fdatasync,none --save "$s/saved.json" > "$s/cmp.txt"
	fss_jq "$s/saved.json" '.schema == "fsyncscope/compare" and
		(.filesystems | map(.workloads_run) == [2, 2])'
	"$FSS_BIN" report "$s/saved.json" --format text > "$s/rep.txt"
	diff -u "$s/cmp.txt" "$s/rep.txt"
	grep -q '^  \[1\] btrfs: journal n/a' "$s/cmp.txt"
	grep -q '^none_overwrite: 8 KiB overwrite, no sync$' "$s/cmp.txt"
	# --hist and -o FILE: the same from report --hist
	"$FSS_BIN" compare --fs ext4 --dir "$IMGS" --count 5 --method fsync \
		--hist -o "$s/cmph.txt" --save "$s/savedh.json" > "$s/none.txt"
	[ ! -s "$s/none.txt" ]
	"$FSS_BIN" report "$s/savedh.json" --hist > "$s/reph.txt"
	diff -u "$s/cmph.txt" "$s/reph.txt"
	grep -q '^  ext4, fsync_overwrite:$' "$s/cmph.txt"
	assert_nothing_left "$IMGS"
}

@test "--scratch-dev refusals: no --destroy-data, not a block device, mounted, held exclusively; nothing touched" {
	local dev sum
	dev="$(fss_scratch_loop 400)"
	printf 'keep me' | dd of="$dev" bs=512 seek=100 conv=notrunc status=none
	sum="$(head -c 1M "$dev" | md5sum)"

	run -2 --separate-stderr "$FSS_BIN" compare --scratch-dev "$dev"
	one_line "$stderr"
	[[ "$stderr" == *"--destroy-data"* ]]
	[ -z "$output" ]

	touch "$FSS_SCRATCH/regular"
	run -1 --separate-stderr "$FSS_BIN" compare --scratch-dev "$FSS_SCRATCH/regular" --destroy-data
	one_line "$stderr"
	[[ "$stderr" == *"not a block device"* ]]
	[ ! -s "$FSS_SCRATCH/regular" ]
	run -1 --separate-stderr "$FSS_BIN" compare --scratch-dev /dev/null --destroy-data
	one_line "$stderr"
	[[ "$stderr" == *"/dev/null: not a block device"* ]]

	# held open exclusively by another program (as mkfs or a RAID would)
	python3 -c 'import os, sys, time; os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL); print("held", flush=True); time.sleep(60)' \
		"$dev" > "$FSS_SCRATCH/holder.out" &
	HOLDER_PID=$!
	for _ in $(seq 50); do grep -q held "$FSS_SCRATCH/holder.out" && break; sleep 0.1; done
	run -1 --separate-stderr "$FSS_BIN" compare --scratch-dev "$dev" --destroy-data
	one_line "$stderr"
	[[ "$stderr" == *"in use"* ]]
	kill "$HOLDER_PID"; wait "$HOLDER_PID" 2>/dev/null || true; HOLDER_PID=

	[ "$(head -c 1M "$dev" | md5sum)" = "$sum" ]

	# a mounted filesystem: refused, still mounted, its files intact
	fss_mkfs ext4 64
	echo sentinel > "$FSS_MNT/file"
	run -1 --separate-stderr "$FSS_BIN" compare --scratch-dev "$FSS_LOOP" --destroy-data
	one_line "$stderr"
	[[ "$stderr" == *"is mounted at $FSS_MNT"* ]]
	mountpoint -q "$FSS_MNT"
	[ "$(cat "$FSS_MNT/file")" = sentinel ]
	# nothing was made for the mount points either
	[ -z "$(find /tmp -maxdepth 1 -name 'fsyncscope-compare.*' -newer "$FSS_SCRATCH/regular")" ]
}

@test "--scratch-dev on a loop device made here, with --destroy-data: each filesystem made on it in turn, measured, unmounted" {
	local dev out="$FSS_SCRATCH/dev.json"
	dev="$(fss_scratch_loop 400)"
	run --separate-stderr "$FSS_BIN" compare --scratch-dev "$dev" --destroy-data \
		--fs ext4,xfs --count 10 --json
	echo "$stderr"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > "$out"
	fss_jq "$out" ".images == null and .scratch_dev.path == \"$dev\" and
		.scratch_dev.device.name == \"$(basename "$dev")\""
	fss_jq "$out" ".filesystems | map(.fs) == [\"ext4\", \"xfs\"] and
		all(.status == \"ok\" and .device == \"$dev\" and .loop == false and
		    .mkfs[-1] == \"$dev\")"
	fss_jq "$out" '[.workloads[].results[] | .status == "ok" and .ops == 10 and
		(.drops > 0 or .syncs_traced == 10) and (.breakdown | has("journal"))] | all'
	# not mounted any more; the device is still attached (it is ours, not
	# the command's) and holds the last filesystem made
	[ -z "$(grep "^[0-9]* [0-9]* $(stat -c '%Hr:%Lr' "$dev") " /proc/self/mountinfo)" ]
	losetup "$dev" > /dev/null
	[ "$(blkid -o value -s TYPE "$dev")" = xfs ]
}

@test "SIGINT during a run: partial results, exit 130, no images, mounts or loop devices left" {
	local pid rc i
	"$FSS_BIN" compare -v --fs ext4,xfs --dir "$IMGS" -s 3 \
		> "$FSS_SCRATCH/int.txt" 2> "$FSS_SCRATCH/int.err" &
	pid=$!
	for i in $(seq 300); do
		grep -q 'ext4: running fsync_append' "$FSS_SCRATCH/int.err" && break
		sleep 0.1
	done
	grep -q 'ext4: running fsync_append' "$FSS_SCRATCH/int.err"
	# into its timed loop (3 s long): appends need no prefill
	sleep 1
	kill -INT "$pid"
	rc=0
	wait "$pid" || rc=$?
	cat "$FSS_SCRATCH/int.err"
	[ "$rc" -eq 130 ]
	grep -q 'stopped by SIGINT' "$FSS_SCRATCH/int.err"
	# what was measured is printed; what was not says so
	grep -qE '^  ops/sec +[0-9.]+ +not run$' "$FSS_SCRATCH/int.txt"
	grep -q 'partial (interrupted after' "$FSS_SCRATCH/int.txt"
	assert_nothing_left "$IMGS"

	# and in JSON, stopped during xfs's first workload
	"$FSS_BIN" compare -v --fs ext4,xfs --dir "$IMGS" -s 3 --json \
		> "$FSS_SCRATCH/int.json" 2> "$FSS_SCRATCH/int2.err" &
	pid=$!
	for i in $(seq 300); do
		grep -q 'xfs: running fdatasync_overwrite' "$FSS_SCRATCH/int2.err" && break
		sleep 0.1
	done
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 143 ]
	fss_jq "$FSS_SCRATCH/int.json" '.interrupted == "SIGTERM" and
		.filesystems[0].status == "ok" and .filesystems[1].status == "interrupted" and
		(.workloads[0].results[1] | .partial == true or
		 (.status == "n/a" and (.reason | startswith("not run")))) and
		.workloads[2].results[1].status == "n/a" and
		(.workloads[2].results[1].reason | startswith("not run"))'
	assert_nothing_left "$IMGS"
}

@test "bad input: one stderr line, exit 2 (usage) or 1 (error), nothing left" {
	run -2 --separate-stderr "$FSS_BIN" compare --fs ext4,zfs --dir "$IMGS"
	one_line "$stderr"
	run -2 --separate-stderr "$FSS_BIN" compare --fs ext4,ext4,xfs,xfs --dir "$IMGS"
	one_line "$stderr"
	run -2 --separate-stderr "$FSS_BIN" compare --fs ext4 --mkfs-opts 'ext4-2=-K' --dir "$IMGS"
	one_line "$stderr"
	[[ "$stderr" == *"ext4-2, which is not in --fs"* ]]
	run -2 --separate-stderr "$FSS_BIN" compare --fs ext4,ext4 --mkfs-opts 'ext4-4=-K' --dir "$IMGS"
	one_line "$stderr"
	# --repeat: a whole number of rounds from 1 to 20
	for bad in 0 21 -1 2.5 abc '' 3x; do
		run -2 --separate-stderr "$FSS_BIN" compare --repeat "$bad" --dir "$IMGS"
		one_line "$stderr"
		[[ "$stderr" == *"bad --repeat"* ]]
		[ -z "$output" ]
	done
	run -2 --separate-stderr "$FSS_BIN" compare --fs ext4 --mkfs-opts 'xfs=-K' --dir "$IMGS"
	one_line "$stderr"
	[[ "$stderr" == *"not in --fs"* ]]
	run -2 --separate-stderr "$FSS_BIN" compare --size 1m --dir "$IMGS"
	one_line "$stderr"
	run -2 --separate-stderr "$FSS_BIN" compare -s 1 --count 5 --dir "$IMGS"
	one_line "$stderr"
	run -2 --separate-stderr "$FSS_BIN" compare --method fsync_writethrough --dir "$IMGS"
	one_line "$stderr"
	run -2 --separate-stderr "$FSS_BIN" compare --painter kernel --no-trace \
		--dir "$IMGS"
	one_line "$stderr"
	[[ "$stderr" == *"drop --no-trace"* ]]
	run -2 --separate-stderr "$FSS_BIN" compare --painter nobody --dir "$IMGS"
	one_line "$stderr"
	[[ "$stderr" == *"not user or kernel"* ]]
	run -2 --separate-stderr "$FSS_BIN" compare --bogus
	one_line "$stderr"
	[[ "$stderr" == *"'--bogus'"* ]]
	run -1 --separate-stderr "$FSS_BIN" compare --dir "$FSS_SCRATCH/nope"
	one_line "$stderr"
	# a pseudo filesystem: named, before anything is made
	run -1 --separate-stderr "$FSS_BIN" compare --dir /proc
	one_line "$stderr"
	[ "$stderr" = "fsyncscope compare: --dir /proc is on proc, not a disk-backed filesystem" ]
	[ -z "$output" ]
	# a filesystem xfs cannot be made on: mkfs's own reason, before the
	# header (the error is the only output), and the ext4 image made before
	# it is gone again
	run -1 --separate-stderr "$FSS_BIN" compare --fs ext4,xfs --size 200m --dir "$IMGS"
	one_line "$stderr"
	[[ "$stderr" == *"mkfs.xfs -q -f"*"failed"* ]]
	[ -z "$output" ]
	run -1 --separate-stderr "$FSS_BIN" compare --fs ext4 --mkfs-opts 'ext4=--no-such-option' --dir "$IMGS"
	one_line "$stderr"
	[ -z "$output" ]
	assert_nothing_left "$IMGS"
	# not root: one line, nothing made
	run -1 --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$FSS_BIN" compare --dir /tmp
	one_line "$stderr"
	[[ "$stderr" == *"needs root"* ]]
}

# The ratios' intervals of every workload's second filesystem: each one
# with a ratio has rounds, an interval that holds it, a word
assert_intervals() {
	fss_jq "$1" '[.workloads[].results[1].confidence |
		([.ops_per_sec, .p50_us, .p99_us, .total_mean_us] +
		 [.phases[] | select(. != null)])[] | select(.lo != null) |
		.rounds == '"$2"' and .lo <= .ratio + 0.0001 and
		.ratio <= .hi + 0.0001 and
		(.word | IN("faster", "slower", "within noise"))] |
		length > 0 and all'
}

@test "--repeat (default 3), ext4 vs ext4 on two identical images: rounds alternate, every ratio has a 95 % interval, ops/sec is within noise; text = report" {
	local s="$FSS_SCRATCH" order try
	# A 95 % interval leaves out the true ratio 1 in 1 run of 20 by
	# design, and more often when the load of the machine swings within a
	# round: one more try when the first says faster or slower (both
	# failing: about 1 in 400 on a quiet machine).
	for try in 1 2; do
		run --separate-stderr "$FSS_BIN" compare --fs ext4,ext4 \
			--dir "$IMGS" --count 200 --method fdatasync -v \
			--save "$s/same.json"
		[ "$status" -eq 0 ]
		jq -e '.workloads[0].results[1].confidence.ops_per_sec.word ==
			"within noise"' "$s/same.json" >/dev/null && break
		echo "# try $try: not within noise, once more" >&3
	done
	printf '%s\n' "$output" > "$s/same.txt"
	# A B, then B A, then A B: a drift of the machine lands on both
	order="$(grep -oE '^fsyncscope: ext4(-2)?: running' <<<"$stderr" |
		cut -d' ' -f2 | tr -d ':' | paste -sd' ')"
	[ "$order" = "ext4 ext4-2 ext4-2 ext4 ext4 ext4-2" ]
	fss_jq "$s/same.json" '.options.repeat == 3 and
		(.filesystems | map(.label) == ["ext4", "ext4-2"] and
		 map(.fs) == ["ext4", "ext4"] and all(.rounds_run == 3))'
	fss_jq "$s/same.json" '.filesystems[1].image | endswith("/ext4-2.img")'
	fss_jq "$s/same.json" '.workloads[0].results |
		(.[0].confidence == null) and
		all(.rounds.ops_per_sec | length == 3 and all(. > 0))'
	assert_intervals "$s/same.json" 3
	fss_jq "$s/same.json" '.workloads[0].results[1].confidence.ops_per_sec |
		.word == "within noise" and .from == ["rounds", "bootstrap"] and
		.lo < 1 and .hi > 1'
	grep -q '^  ext4-2 vs ext4, 3 rounds: means, ratio, 95% interval' "$s/same.txt"
	grep -qE '^  ops/sec +[0-9.]+ +[0-9.]+ +[0-9.]+x +\[[0-9.]+, [0-9.]+\] +within noise$' "$s/same.txt"
	assert_80cols "$s/same.txt"
	"$FSS_BIN" report "$s/same.json" --format text > "$s/same.rep.txt"
	diff -u "$s/same.txt" "$s/same.rep.txt"
	assert_nothing_left "$IMGS"
}

@test "--repeat: an injected difference (the second ext4 made to mount nobarrier: no cache flushes) comes out faster, its interval clear of 1" {
	local s="$FSS_SCRATCH"
	# a usage type whose default mount options include nobarrier
	sed '/^\[fs_types\]/a\	nobarrier = {\n\t\tdefault_mntopts = acl,user_xattr,nobarrier\n\t}' \
		/etc/mke2fs.conf > "$s/mke2fs.conf"
	grep -q 'default_mntopts = acl,user_xattr,nobarrier' "$s/mke2fs.conf"
	MKE2FS_CONFIG="$s/mke2fs.conf" run --separate-stderr "$FSS_BIN" compare \
		--fs ext4,ext4 --dir "$IMGS" --count 200 --method fdatasync \
		--mkfs-opts 'ext4-2=-T nobarrier -E lazy_itable_init=0,lazy_journal_init=0' \
		--repeat 6 --save "$s/inj.json"
	echo "$stderr"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > "$s/inj.txt"
	# the injection took: no flush on ext4-2
	fss_jq "$s/inj.json" '.options.repeat == 6 and
		.options.mkfs_opts["ext4-2"] == "-T nobarrier -E lazy_itable_init=0,lazy_journal_init=0" and
		.options.mkfs_opts.ext4 == null'
	fss_jq "$s/inj.json" '.workloads[0].results | .[0].flush.flushes > 0 and
		.[1].flush.flushes == 0'
	# six rounds: on a loaded machine the rounds' ratios of this 10-100x
	# effect spread so widely that three leave the interval reaching 1
	assert_intervals "$s/inj.json" 6
	fss_jq "$s/inj.json" '.workloads[0].results[1].confidence |
		(.ops_per_sec | .word == "faster" and .lo > 1) and
		(.total_mean_us | .word == "faster" and .hi < 1) and
		(.phases.device_flush | .word == "faster" and .b == 0)'
	grep -qE '^  ops/sec +[0-9.]+ +[0-9.]+ +[0-9.]+x +\[[0-9.]+, [0-9.]+\] +faster$' "$s/inj.txt"
	grep -qE '^    device_flush .* faster$' "$s/inj.txt"
	# --repeat 1: the bootstrap alone, and it says so
	MKE2FS_CONFIG="$s/mke2fs.conf" "$FSS_BIN" compare --repeat 1 \
		--fs ext4,ext4 --dir "$IMGS" --count 200 --method fdatasync \
		--mkfs-opts 'ext4-2=-T nobarrier' --json > "$s/one.json"
	fss_jq "$s/one.json" '.workloads[0].results[1].confidence.ops_per_sec |
		.from == ["bootstrap"] and .rounds == 1 and .word == "faster"'
	assert_intervals "$s/one.json" 1
	assert_nothing_left "$IMGS"
}

@test "--help has an EXAMPLES section and exits 0; compare is in the command list" {
	run -0 "$FSS_BIN" compare --help
	[[ "$output" == *"EXAMPLES:"* ]]
	[[ "$output" == *"--scratch-dev"* ]]
	run -0 "$FSS_BIN" --help
	[[ "$output" == *"compare"* ]]
}
