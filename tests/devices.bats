#!/usr/bin/env bats
# `fsyncscope devices` and fss_target_lookup (issue 7): every fact is
# checked against sysfs / stat / mountinfo read independently here.  Loop
# images under /tmp only; the machine's own disk is only read (sysfs).

load lib
bats_require_minimum_version 1.5.0

setup() {
	fss_need_root
}

teardown() {
	fss_cleanup
}

# loop device for an existing image, registered for cleanup: fss_losetup IMG [ARGS...]
fss_losetup() {
	local img="$1" dev
	shift
	dev="$(losetup -f --show "$@" "$img")"
	echo "$dev" >> "$FSS_SCRATCH/.loops"
	echo "$dev"
}

# kernel dev_t encoding (MAJOR << 20 | MINOR) of a "MAJ:MIN" string
kdev() {
	local maj="${1%%:*}" min="${1##*:}"
	echo $(( (maj << 20) | min ))
}

sysfs() { cat "/sys/class/block/$1/$2"; }

# every line of a file fits 80 columns
assert_80cols() {
	local long
	long="$(awk 'length($0) > 80' "$1")"
	[ -z "$long" ] || { echo "lines over 80 columns: $long" >&2; return 1; }
}

# devices_head PATH FILE FILESYSTEM DISK: `devices PATH` exits 0, its
# text (kept in FILE and $output) fits 80 columns and names FILESYSTEM
# ("ext4 on /dev/loop3, mounted at /mnt") on the whole disk DISK
devices_head() {
	run -0 "$FSS_BIN" devices "$1"
	printf '%s\n' "$output" > "$2"
	assert_80cols "$2"
	[[ "$output" == *"filesystem  $3"* ]]
	[[ "$output" == *"device      $4 ($(sysfs "$4" dev)), a whole disk"* ]]
}

@test "verdict unit test passes" {
	[ -x "$FSS_BUILD/tests/test_verdict" ] || skip "run make first"
	run "$FSS_BUILD/tests/test_verdict"
	[ "$status" -eq 0 ]
	[[ "$output" == *", 0 failures"* ]]
}

@test "devices lists a fresh loop device with write cache and block sizes as sysfs says" {
	fss_mkfs ext4 64
	local name wc lbs pbs short
	name="$(basename "$FSS_LOOP")"
	wc="$(sysfs "$name" queue/write_cache)"
	lbs="$(sysfs "$name" queue/logical_block_size)"
	pbs="$(sysfs "$name" queue/physical_block_size)"

	"$FSS_BIN" devices --json > "$FSS_SCRATCH/all.json"
	fss_jq "$FSS_SCRATCH/all.json" \
		".devices | map(select(.name == \"$name\")) | length == 1"
	fss_jq "$FSS_SCRATCH/all.json" \
		".devices[] | select(.name == \"$name\") |
		 .write_cache == \"$wc\" and .logical_block_size == $lbs and
		 .physical_block_size == $pbs and
		 .loop_backing_file == \"$FSS_IMG\" and
		 .size_bytes == $(( $(sysfs "$name" size) * 512 )) and
		 .kdev == $(kdev "$(sysfs "$name" dev)")"

	"$FSS_BIN" devices > "$FSS_SCRATCH/all.txt"
	assert_80cols "$FSS_SCRATCH/all.txt"
	head -1 "$FSS_SCRATCH/all.txt" | grep -q '^NAME  *MAJ:MIN  *SIZE  *ROT  *SCHED  *NR_RQ  *LBS/PBS  *WCACHE  *FUA  *DISCARD  *MODEL$'
	case "$wc" in "write back") short=back ;; "write through") short=through ;; esac
	[ "$lbs" = 4096 ] && lbs=4k
	[ "$pbs" = 4096 ] && pbs=4k
	grep -Eq "^$name +$(sysfs "$name" dev) .* $lbs/$pbs +$short " "$FSS_SCRATCH/all.txt"
	grep -q "^$name: backing file $FSS_IMG\$" "$FSS_SCRATCH/all.txt"
}

@test "devices PATH on a mounted loop image names the loop device, its backing file and the disk below" {
	fss_mkfs ext4 64
	local name below
	name="$(basename "$FSS_LOOP")"
	# the disk the backing file is on, found independently
	below="$(basename "$(readlink -f "/sys/dev/block/$(stat -c '%Hd:%Ld' "$FSS_IMG")")")"
	[ -e "/sys/dev/block/$(stat -c '%Hd:%Ld' "$FSS_IMG")/partition" ] &&
		below_disk="$(basename "$(dirname "$(readlink -f "/sys/dev/block/$(stat -c '%Hd:%Ld' "$FSS_IMG")")")")"

	devices_head "$FSS_MNT" "$FSS_SCRATCH/p.txt" \
		"ext4 on $FSS_LOOP, mounted at $FSS_MNT" "$name"
	[[ "$output" == *"$name: backing file $FSS_IMG"* ]]
	[[ "$output" == *"backing file of $name:"* ]]
	grep -q "^$below " "$FSS_SCRATCH/p.txt"

	"$FSS_BIN" devices --json "$FSS_MNT" > "$FSS_SCRATCH/p.json"
	fss_jq "$FSS_SCRATCH/p.json" ".devices[0].name == \"$name\""
	fss_jq "$FSS_SCRATCH/p.json" ".devices[0].loop_backing_file == \"$FSS_IMG\""
	fss_jq "$FSS_SCRATCH/p.json" ".devices[0].backing_target.path == \"$FSS_IMG\""
	fss_jq "$FSS_SCRATCH/p.json" ".devices[0].backing_target.block_device == \"$below\""
	fss_jq "$FSS_SCRATCH/p.json" "[.devices[].name] | index(\"$below\") != null"
	# facts-only verdict: a loop device's flush is its backing file's fsync
	fss_jq "$FSS_SCRATCH/p.json" '.verdict.code == "loop_backing_file"'
	fss_jq "$FSS_SCRATCH/p.json" ".verdict.basis | contains(\"$FSS_IMG\")"
	[[ "$output" == *"Verdict:  Loop device"* ]]
	[ -z "${below_disk:-}" ] ||
		fss_jq "$FSS_SCRATCH/p.json" "[.devices[].name] | index(\"$below_disk\") != null"
}

@test "an overlay's disk is its upper filesystem's: devices and run's target and verdict name the loop device under the upper layer" {
	fss_mkfs ext4 128
	fss_mkoverlay
	local name up
	name="$(basename "$FSS_LOOP")"
	up="$(mountpoint -d "$FSS_UPPER_MNT")"
	devices_head "$FSS_OVL" "$FSS_SCRATCH/o.txt" \
		"overlay on overlay, mounted at $FSS_OVL" "$name"
	[[ "$output" == *"upper       $FSS_UPPER_MNT/up (ext4): its syncs are the upper"* ]]
	"$FSS_BIN" devices --json "$FSS_OVL" > "$FSS_SCRATCH/o.json"
	fss_jq "$FSS_SCRATCH/o.json" ".target.fstype == \"overlay\" and
		.target.has_disk and .target.disk == \"$name\" and
		.target.upper.path == \"$FSS_UPPER_MNT/up\" and
		.target.upper.fstype == \"ext4\" and
		.target.upper.fs_kdev == $(kdev "$up") and
		.devices[0].name == \"$name\""
	# run on the overlay: its target has the disk, the verdict is made
	# from the syncs traced there (a loop device's: its backing file)
	"$FSS_BIN" run --json --method fdatasync --count 20 "$FSS_OVL" \
		> "$FSS_SCRATCH/r.json"
	fss_jq "$FSS_SCRATCH/r.json" ".target.disk == \"$name\" and
		.target.upper.path == \"$FSS_UPPER_MNT/up\" and
		.target.write_cache != null and
		.tests[0].syncs_traced == 20 and
		.tests[0].flush.flushes > 0 and
		.verdict.code == \"loop_backing_file\" and
		.verdict.measured_in != null"
	# the plain text says it too, and report renders the same header
	"$FSS_BIN" report --format text "$FSS_SCRATCH/r.json" > "$FSS_SCRATCH/r.txt"
	grep -q "^upper       $FSS_UPPER_MNT/up (ext4)" "$FSS_SCRATCH/r.txt"
	# the upper layer's own target has no upper
	"$FSS_BIN" devices --json "$FSS_UPPER_MNT" > "$FSS_SCRATCH/u.json"
	fss_jq "$FSS_SCRATCH/u.json" '.target.upper == null'
}

@test "a loop device with --sector-size 4096 reports logical block size 4096" {
	fss_scratch
	truncate -s 64M "$FSS_SCRATCH/ss.img"
	local dev name
	dev="$(fss_losetup "$FSS_SCRATCH/ss.img" --sector-size 4096)"
	name="$(basename "$dev")"
	[ "$(sysfs "$name" queue/logical_block_size)" = 4096 ]

	"$FSS_BIN" devices --json "$dev" > "$FSS_SCRATCH/ss.json"
	fss_jq "$FSS_SCRATCH/ss.json" ".devices[0].name == \"$name\" and .devices[0].logical_block_size == 4096"
	run -0 "$FSS_BIN" devices "$name"
	printf '%s\n' "$output" | grep -Eq "^$name .* 4k/4k "
}

@test "devices --json parses and every device has all the keys" {
	fss_mkfs ext4 64
	"$FSS_BIN" devices --json > "$FSS_SCRATCH/all.json"
	fss_jq "$FSS_SCRATCH/all.json" '.devices | length >= 1'
	fss_jq "$FSS_SCRATCH/all.json" '.devices | all(
		has("name") and has("major") and has("minor") and has("kdev") and
		has("is_partition") and has("parent") and has("model") and
		has("size_bytes") and has("rotational") and has("scheduler") and
		has("nr_requests") and has("queue_depth") and
		has("logical_block_size") and has("physical_block_size") and
		has("write_cache") and has("fua") and has("discard_max_bytes") and
		has("nvme") and has("loop_backing_file") and has("members"))'
	# unknowns are null, never -1
	fss_jq "$FSS_SCRATCH/all.json" '[.devices[] | .. | numbers | select(. < 0)] | length == 0'
	fss_jq "$FSS_SCRATCH/all.json" '.devices | all(.write_cache == null or .write_cache == "write back" or .write_cache == "write through")'
	# no size-0 devices (unbound loop devices) are listed
	fss_jq "$FSS_SCRATCH/all.json" '.devices | all(.size_bytes > 0)'
}

@test "the machine's own disk is listed with the facts sysfs gives (read only)" {
	local src name dir wc sched
	src="$(findmnt -no SOURCE /)"
	[ -b "$src" ] || skip "/ is not on a block device ($src)"
	name="$(basename "$(readlink -f "/sys/dev/block/$(stat -Lc '%Hr:%Lr' "$src")")")"
	dir="/sys/class/block/$name"
	[ -e "$dir/partition" ] && dir="$(dirname "$(readlink -f "$dir")")"
	wc="$(cat "$dir/queue/write_cache")"
	sched="$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$dir/queue/scheduler")"
	[ -n "$sched" ] || sched="$(cat "$dir/queue/scheduler")"

	fss_scratch
	"$FSS_BIN" devices --json "$src" > "$FSS_SCRATCH/root.json"
	fss_jq "$FSS_SCRATCH/root.json" ".devices[0].name == \"$name\""
	# nothing measured: the verdict rests on write_cache alone and says so
	case "$wc" in
	"write back") fss_jq "$FSS_SCRATCH/root.json" '.verdict.code == "write_back_unmeasured"' ;;
	"write through") fss_jq "$FSS_SCRATCH/root.json" '.verdict.code == "write_through_elided"' ;;
	esac
	fss_jq "$FSS_SCRATCH/root.json" '.verdict.basis | contains("No syncs were measured")'
	fss_jq "$FSS_SCRATCH/root.json" ".devices[0] |
		.write_cache == \"$wc\" and
		.logical_block_size == $(cat "$dir/queue/logical_block_size") and
		.physical_block_size == $(cat "$dir/queue/physical_block_size") and
		.rotational == ($(cat "$dir/queue/rotational") == 1) and
		.fua == ($(cat "$dir/queue/fua") == 1) and
		.scheduler == \"$sched\" and
		.nr_requests == $(cat "$dir/queue/nr_requests") and
		.discard_max_bytes == $(cat "$dir/queue/discard_max_bytes")"

	# and / resolves to it: fs and disk in the kernel's dev_t encoding
	"$FSS_BIN" devices --json / > "$FSS_SCRATCH/slash.json"
	fss_jq "$FSS_SCRATCH/slash.json" ".target.fstype == \"$(findmnt -no FSTYPE /)\""
	fss_jq "$FSS_SCRATCH/slash.json" ".target.fs_kdev == $(kdev "$(stat -c '%Hd:%Ld' /)")"
	fss_jq "$FSS_SCRATCH/slash.json" ".target.disk_kdev == $(kdev "$(cat "$dir/dev")")"
	fss_jq "$FSS_SCRATCH/slash.json" ".target.disk == \"$(basename "$dir")\""
}

@test "an unprivileged user gets the sysfs facts" {
	fss_mkfs ext4 64
	local name
	name="$(basename "$FSS_LOOP")"
	run -0 setpriv --reuid=65534 --regid=65534 --clear-groups "$FSS_BIN" devices
	[[ "$output" == *$'\n'"$name "* ]]
	run -0 --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$FSS_BIN" devices --json "$name"
	[ -z "$stderr" ]
	printf '%s\n' "$output" > "$FSS_SCRATCH/nobody.json"
	fss_jq "$FSS_SCRATCH/nobody.json" ".devices[0].write_cache == \"$(sysfs "$name" queue/write_cache)\""
	fss_jq "$FSS_SCRATCH/nobody.json" ".devices[0].logical_block_size == $(sysfs "$name" queue/logical_block_size)"
	# the backing file's directory is private (mktemp -d): said, not hidden
	fss_jq "$FSS_SCRATCH/nobody.json" '.devices[0].backing_target_error == "Permission denied"'
}

@test "bad input: one stderr line, exit 1 (2 for usage errors), nothing on stdout" {
	fss_scratch
	run -1 --separate-stderr "$FSS_BIN" devices "$FSS_SCRATCH/does-not-exist"
	[ -z "$output" ]
	[ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ]
	[[ "$stderr" == "fsyncscope devices: $FSS_SCRATCH/does-not-exist: No such file or directory" ]]

	run -1 --separate-stderr "$FSS_BIN" devices nosuchdevice0
	[ -z "$output" ]
	[ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ]

	run -2 --separate-stderr "$FSS_BIN" devices --no-such-option
	[ -z "$output" ]
	[ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ]
	[[ "$stderr" == *"'--no-such-option'"* ]]

	run -2 --separate-stderr "$FSS_BIN" devices / /tmp
	[ -z "$output" ]
	[ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ]

	[ -z "$(ls -A "$FSS_SCRATCH")" ]
}

@test "--help has an EXAMPLES section and exits 0" {
	run -0 "$FSS_BIN" devices --help
	[[ "$output" == *"EXAMPLES:"* ]]
	[[ "$output" == *"fsyncscope devices --json"* ]]
}

@test "target lookup: ext4, xfs and btrfs on loop devices, tmpfs without a disk" {
	local name fs
	for fs in ext4 xfs btrfs; do
		if [ "$fs" = xfs ]; then fss_mkfs xfs 300; else fss_mkfs "$fs" 128; fi
		name="$(basename "$FSS_LOOP")"
		mkdir "$FSS_MNT/d"
		"$FSS_BIN" devices --json "$FSS_MNT/d" > "$FSS_SCRATCH/$fs.json"
		fss_jq "$FSS_SCRATCH/$fs.json" ".target.fstype == \"$fs\""
		fss_jq "$FSS_SCRATCH/$fs.json" ".target.path == \"$FSS_MNT/d\""
		fss_jq "$FSS_SCRATCH/$fs.json" ".target.mountpoint == \"$FSS_MNT\""
		fss_jq "$FSS_SCRATCH/$fs.json" ".target.source == \"$FSS_LOOP\""
		fss_jq "$FSS_SCRATCH/$fs.json" ".target.has_disk == true"
		fss_jq "$FSS_SCRATCH/$fs.json" ".target.disk == \"$name\" and .target.block_device == \"$name\""
		fss_jq "$FSS_SCRATCH/$fs.json" ".target.disk_kdev == $(kdev "$(sysfs "$name" dev)")"
		# fs_kdev is the superblock's dev (the mount's MAJ:MIN, what the
		# tracepoints report): st_dev on ext4/xfs, not on btrfs subvolumes
		fss_jq "$FSS_SCRATCH/$fs.json" ".target.fs_kdev == $(kdev "$(findmnt -no MAJ:MIN "$FSS_MNT" | tail -1 | tr -d ' ')")"
		if [ "$fs" != btrfs ]; then
			fss_jq "$FSS_SCRATCH/$fs.json" ".target.fs_kdev == $(kdev "$(stat -c '%Hd:%Ld' "$FSS_MNT/d")")"
		fi
		fss_jq "$FSS_SCRATCH/$fs.json" ".devices[0].name == \"$name\""
	done
	# btrfs: st_dev is not the block device, the mount source is
	[ "$(stat -c '%Hd' "$FSS_MNT/d")" -eq 0 ]

	fss_mktmpfs
	"$FSS_BIN" devices --json "$FSS_MNT" > "$FSS_SCRATCH/tmpfs.json"
	fss_jq "$FSS_SCRATCH/tmpfs.json" '.target.fstype == "tmpfs" and .target.has_disk == false'
	fss_jq "$FSS_SCRATCH/tmpfs.json" '.target.disk == null and .target.disk_kdev == null'
	fss_jq "$FSS_SCRATCH/tmpfs.json" '.devices == [] and .verdict == null'
	run -0 "$FSS_BIN" devices "$FSS_MNT"
	[[ "$output" == *"device      none: tmpfs"* ]]
}

@test "target lookup: a bind mount resolves to the loop device under it" {
	fss_mkfs ext4 64
	local name bind="$FSS_SCRATCH/bind"
	name="$(basename "$FSS_LOOP")"
	mkdir -p "$FSS_MNT/sub/deeper" "$bind"
	mount --bind "$FSS_MNT/sub" "$bind"
	echo "$bind" >> "$FSS_SCRATCH/.mounts"
	"$FSS_BIN" devices --json "$bind/deeper" > "$FSS_SCRATCH/bind.json"
	fss_jq "$FSS_SCRATCH/bind.json" ".target.mountpoint == \"$bind\""
	fss_jq "$FSS_SCRATCH/bind.json" ".target.fstype == \"ext4\" and .target.disk == \"$name\""
}

@test "target lookup: a partition maps to its whole disk (fss_disk_of)" {
	command -v sfdisk >/dev/null || skip "sfdisk (Debian fdisk) not installed"
	fss_scratch
	local dev name part mnt="$FSS_SCRATCH/pmnt"
	truncate -s 96M "$FSS_SCRATCH/parts.img"
	printf 'label: dos\n,32M\n,\n' | sfdisk -q "$FSS_SCRATCH/parts.img"
	dev="$(fss_losetup "$FSS_SCRATCH/parts.img" -P)"
	name="$(basename "$dev")"
	# partscan is asynchronous on some kernels: make sure the nodes exist
	[ -b "${dev}p2" ] || partx -a "$dev" 2>/dev/null || true
	[ -b "${dev}p2" ] || partx -u "$dev" 2>/dev/null || true
	[ -b "${dev}p2" ]
	part="${name}p2"
	mkfs.ext4 -q "${dev}p2"
	mkdir "$mnt"
	mount "${dev}p2" "$mnt"
	echo "$mnt" >> "$FSS_SCRATCH/.mounts"

	"$FSS_BIN" devices --json "$mnt" > "$FSS_SCRATCH/part.json"
	fss_jq "$FSS_SCRATCH/part.json" ".target.block_device == \"$part\""
	fss_jq "$FSS_SCRATCH/part.json" ".target.block_device_kdev == $(kdev "$(sysfs "$part" dev)")"
	fss_jq "$FSS_SCRATCH/part.json" ".target.fs_kdev == $(kdev "$(sysfs "$part" dev)")"
	fss_jq "$FSS_SCRATCH/part.json" ".target.disk == \"$name\""
	fss_jq "$FSS_SCRATCH/part.json" ".target.disk_kdev == $(kdev "$(sysfs "$name" dev)")"
	fss_jq "$FSS_SCRATCH/part.json" ".devices[0].name == \"$part\" and .devices[0].is_partition and .devices[0].parent == \"$name\""
	# a partition has no queue of its own: its facts are the disk's
	fss_jq "$FSS_SCRATCH/part.json" ".devices[0].write_cache == \"$(sysfs "$name" queue/write_cache)\""
	fss_jq "$FSS_SCRATCH/part.json" ".devices[0].loop_backing_file == null"
	fss_jq "$FSS_SCRATCH/part.json" ".devices[1].name == \"$name\" and .devices[1].loop_backing_file == \"$FSS_SCRATCH/parts.img\""

	run -0 "$FSS_BIN" devices "$mnt"
	printf '%s\n' "$output" > "$FSS_SCRATCH/part.txt"
	assert_80cols "$FSS_SCRATCH/part.txt"
	[[ "$output" == *"device      $part ($(sysfs "$part" dev)) on disk $name ($(sysfs "$name" dev))"* ]]
	[[ "$output" == *"$part: partition of $name"* ]]
	umount "$mnt"
}

@test "a device by /dev path and by kernel name gives the same facts" {
	fss_mkfs ext4 64
	local name
	name="$(basename "$FSS_LOOP")"
	"$FSS_BIN" devices --json "$FSS_LOOP" | jq -S '.devices[0]' > "$FSS_SCRATCH/a.json"
	"$FSS_BIN" devices --json "$name" | jq -S '.devices[0]' > "$FSS_SCRATCH/b.json"
	cmp "$FSS_SCRATCH/a.json" "$FSS_SCRATCH/b.json"
	fss_jq "$FSS_SCRATCH/a.json" ".name == \"$name\""
}

# A made-up sysfs tree (FSYNCSCOPE_SYSFS) with the devices this machine does
# not have: a dm device with two SCSI members, an NVMe namespace with a
# partition and a hidden multipath node, a write-through disk, an unbound
# loop device.  No real device is touched; nvme9n9 does not exist in /dev.
fake_sysfs() {
	local r="$1" d
	mkdev() {	# mkdev PATH MAJ:MIN SECTORS
		mkdir -p "$r/$1/queue"
		echo "$2" > "$r/$1/dev"
		echo "$3" > "$r/$1/size"
		ln -s "../../$1" "$r/class/block/$(basename "$1")"
		ln -s "../../$1" "$r/dev/block/$2"
	}
	queue() {	# queue PATH ROT SCHED NR LBS PBS WC FUA DISCARD
		local q="$r/$1/queue"
		echo "$2" > "$q/rotational"; echo "$3" > "$q/scheduler"
		echo "$4" > "$q/nr_requests"; echo "$5" > "$q/logical_block_size"
		echo "$6" > "$q/physical_block_size"; echo "$7" > "$q/write_cache"
		echo "$8" > "$q/fua"; echo "$9" > "$q/discard_max_bytes"
	}
	mkdir -p "$r/class/block" "$r/dev/block"
	d=devices/pci0/host0/block
	mkdev $d/sdb 8:16 7814037168
	queue $d/sdb 1 "mq-deadline kyber [bfq] none" 60 512 4096 "write back" 0 0
	mkdir -p "$r/$d/sdb/device"
	echo "P9233           " > "$r/$d/sdb/device/model"
	echo 30 > "$r/$d/sdb/device/queue_depth"
	mkdev $d/sdc 8:32 7814037168
	queue $d/sdc 1 "[mq-deadline] none" 60 512 4096 "write through" 0 0
	mkdev devices/virtual/block/dm-0 253:0 2097152
	queue devices/virtual/block/dm-0 0 none 128 512 4096 "write back" 0 0
	mkdir -p "$r/devices/virtual/block/dm-0/slaves"
	ln -s "../../../../pci0/host0/block/sdb" "$r/devices/virtual/block/dm-0/slaves/sdb"
	ln -s "../../../../pci0/host0/block/sdc" "$r/devices/virtual/block/dm-0/slaves/sdc"
	d=devices/pci0/nvme/nvme9
	mkdir -p "$r/$d"
	echo "Samsung SSD 990 PRO 2TB                 " > "$r/$d/model"
	mkdev $d/nvme9n9 259:0 3907029168
	queue $d/nvme9n9 0 "[none] mq-deadline" 1023 512 512 "write back" 1 2199023255040
	ln -s ../../nvme9 "$r/$d/nvme9n9/device"
	mkdev $d/nvme9n9/nvme9n9p1 259:1 2097152
	rmdir "$r/$d/nvme9n9/nvme9n9p1/queue"
	echo 1 > "$r/$d/nvme9n9/nvme9n9p1/partition"
	mkdev $d/nvme9c9n9 259:2 3907029168
	echo 1 > "$r/$d/nvme9c9n9/hidden"
	mkdev devices/virtual/block/loop9 7:9 0
	queue devices/virtual/block/loop9 0 none 128 512 512 "write back" 0 4294966784
}

@test "made-up sysfs: dm members, NVMe namespace and partition, hidden and empty devices" {
	fss_scratch
	local r="$FSS_SCRATCH/sys"
	fake_sysfs "$r"
	export FSYNCSCOPE_SYSFS="$r"

	"$FSS_BIN" devices --json > "$FSS_SCRATCH/fake.json"
	fss_jq "$FSS_SCRATCH/fake.json" '[.devices[].name] == ["dm-0","nvme9n9","nvme9n9p1","sdb","sdc"]'
	fss_jq "$FSS_SCRATCH/fake.json" '.devices[] | select(.name == "dm-0") | .members == ["sdb","sdc"] and .kdev == (253 * 1048576)'
	fss_jq "$FSS_SCRATCH/fake.json" '.devices[] | select(.name == "sdb") |
		.model == "P9233" and .queue_depth == 30 and .scheduler == "bfq" and
		.rotational == true and .size_bytes == 7814037168 * 512 and
		.physical_block_size == 4096 and .nvme == null and .discard_max_bytes == 0'
	fss_jq "$FSS_SCRATCH/fake.json" '.devices[] | select(.name == "sdc") | .write_cache == "write through" and .scheduler == "mq-deadline"'
	fss_jq "$FSS_SCRATCH/fake.json" '.devices[] | select(.name == "nvme9n9") |
		.model == "Samsung SSD 990 PRO 2TB" and .scheduler == "none" and
		.fua == true and .write_cache == "write back" and .queue_depth == null and
		.nvme.vwc_present == null and .nvme.vwc_enabled == null and
		(.nvme.reason | startswith("open /dev/nvme9n9: "))'
	# a partition reads its queue facts from its disk, and NVMe facts too
	fss_jq "$FSS_SCRATCH/fake.json" '.devices[] | select(.name == "nvme9n9p1") |
		.is_partition and .parent == "nvme9n9" and .fua == true and
		.nr_requests == 1023 and .size_bytes == 2097152 * 512 and .nvme != null'

	"$FSS_BIN" devices --json dm-0 > "$FSS_SCRATCH/dm.json"
	fss_jq "$FSS_SCRATCH/dm.json" '[.devices[].name] == ["dm-0","sdb","sdc"]'
	"$FSS_BIN" devices --json sdc > "$FSS_SCRATCH/sdc.json"
	fss_jq "$FSS_SCRATCH/sdc.json" '.verdict.code == "write_through_elided"'
	"$FSS_BIN" devices --json nvme9n9p1 > "$FSS_SCRATCH/p1.json"
	fss_jq "$FSS_SCRATCH/p1.json" '[.devices[].name] == ["nvme9n9p1","nvme9n9"]'
	# the verdict names the whole disk, whose facts the partition shares
	fss_jq "$FSS_SCRATCH/p1.json" '.verdict.code == "write_back_unmeasured" and (.verdict.basis | startswith("nvme9n9: "))'

	run -0 "$FSS_BIN" devices
	printf '%s\n' "$output" > "$FSS_SCRATCH/fake.txt"
	assert_80cols "$FSS_SCRATCH/fake.txt"
	grep -q '^dm-0: members sdb sdc$' "$FSS_SCRATCH/fake.txt"
	grep -q '^sdb: device queue_depth 30$' "$FSS_SCRATCH/fake.txt"
	grep -q '^nvme9n9: NVMe volatile write cache n/a, enabled n/a: open /dev/nvme9n9' "$FSS_SCRATCH/fake.txt"
	grep -Eq '^sdc +8:32 +3.6T +1 +mq-deadline +60 +512/4k +through +0 +no ' "$FSS_SCRATCH/fake.txt"
	grep -Eq '^nvme9n9 +259:0 +1.8T +0 +none +1023 +512/512 +back +1 +2.0T ' "$FSS_SCRATCH/fake.txt"
	! grep -q 'nvme9c9n9\|loop9' "$FSS_SCRATCH/fake.txt"
}

@test "devices --probe on a loop ext4 image: traced fdatasync run, verdict says loop device and backing file, with what was measured; report of --save prints its text byte for byte" {
	fss_mkfs ext4 64
	local name
	name="$(basename "$FSS_LOOP")"
	run --separate-stderr "$FSS_BIN" devices --probe "$FSS_MNT" --count 30 --json
	echo "$stderr"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > "$FSS_SCRATCH/probe.json"
	fss_jq "$FSS_SCRATCH/probe.json" ".target.path == \"$FSS_MNT\" and
		.devices[0].name == \"$name\" and .interrupted == null"
	fss_jq "$FSS_SCRATCH/probe.json" '.probe.test | .name == "probe.fdatasync" and
		.method == "fdatasync" and .status == "ok" and .ops == 30 and
		(.breakdown | has("device_flush")) and (.flush | type == "object")'
	fss_jq "$FSS_SCRATCH/probe.json" '.probe.strategy != null and
		(.probe.drops > 0 or .probe.test.syncs_traced == 30)'
	fss_jq "$FSS_SCRATCH/probe.json" ".verdict.code == \"loop_backing_file\" and
		.verdict.device == \"$name\" and .verdict.measured_in == \"probe.fdatasync\" and
		(.verdict.basis | contains(\"backed by $FSS_IMG\") and
		 contains(\"syncs traced\"))"

	# the text, straight to a file (every byte), with its document saved
	local rc=0
	"$FSS_BIN" devices --probe "$FSS_MNT" --count 30 \
		--save "$FSS_SCRATCH/probe-saved.json" > "$FSS_SCRATCH/probe.txt" || rc=$?
	[ "$rc" -eq 0 ]
	assert_80cols "$FSS_SCRATCH/probe.txt"
	# the text is a rendering of that document: report prints the same bytes
	fss_jq "$FSS_SCRATCH/probe-saved.json" '.schema == "fsyncscope/devices" and
		.probe.count == 30 and .probe.seconds == null'
	"$FSS_BIN" report "$FSS_SCRATCH/probe-saved.json" --format text \
		> "$FSS_SCRATCH/probe.report"
	cmp "$FSS_SCRATCH/probe.txt" "$FSS_SCRATCH/probe.report" || {
		diff "$FSS_SCRATCH/probe.txt" "$FSS_SCRATCH/probe.report" | head -20
		false
	}
	grep -q "^Probe:    fdatasync after one 8 KiB overwrite, 30 syncs, in a temporary" "$FSS_SCRATCH/probe.txt"
	grep -q '^          30 syncs in ' "$FSS_SCRATCH/probe.txt"
	grep -q '^Verdict:  Loop device: a flush here is an fsync of the backing file' "$FSS_SCRATCH/probe.txt"
	# the basis is wrapped at spaces: join the lines to read it
	[[ "$(tr '\n' ' ' < "$FSS_SCRATCH/probe.txt" | tr -s ' ')" == *"backed by $FSS_IMG;"* ]]
	grep -q "^Measured: the probe's [0-9]* traced syncs$" "$FSS_SCRATCH/probe.txt"
	# the probe's temporary file is gone
	[ -z "$(find "$FSS_MNT" -mindepth 1 -maxdepth 1 ! -name lost+found)" ]
}

@test "devices --probe refusals: not root, not a directory, no block device, read-only, full: one line, exit 1; stray options: exit 2" {
	fss_mkfs ext4 64
	local ext4="$FSS_MNT"
	run -1 --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$FSS_BIN" devices --probe "$FSS_MNT"
	[ -z "$output" ]
	[ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ]
	[[ "$stderr" == *"--probe needs root"* ]]

	run -1 --separate-stderr "$FSS_BIN" devices --probe "$FSS_LOOP"
	[ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ]
	[[ "$stderr" == *"not a directory"* ]]

	fss_mktmpfs
	run -1 --separate-stderr "$FSS_BIN" devices --probe "$FSS_MNT"
	[ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ]
	[[ "$stderr" == *"not on a block device"* ]]
	[ -z "$(ls -A "$FSS_MNT")" ]

	# read-only, then full: refused before anything runs, one line
	mount -o remount,ro "$ext4"
	run -1 --separate-stderr "$FSS_BIN" devices --probe "$ext4"
	[ -z "$output" ]
	[ "$stderr" = "fsyncscope devices: cannot write in $ext4: Read-only file system" ]
	mount -o remount,rw "$ext4"
	dd if=/dev/zero of="$ext4/fill" bs=1M status=none 2>/dev/null || true
	run -1 --separate-stderr "$FSS_BIN" devices --probe "$ext4"
	[ -z "$output" ]
	[[ "$stderr" == "fsyncscope devices: no space left in $ext4 for the test files: 1 MiB needed (one 1 MiB file), "*" available" ]]
	[ "$(find "$ext4" -mindepth 1 -maxdepth 1 ! -name lost+found -printf '%f')" = fill ]

	run -2 --separate-stderr "$FSS_BIN" devices --count 5 /
	[ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ]
	run -2 --separate-stderr "$FSS_BIN" devices --probe / /tmp
	[ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ]
	run -2 --separate-stderr "$FSS_BIN" devices --probe / -s 1 --count 5
	[ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ]
}
