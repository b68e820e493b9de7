# Helpers for the suites that run INSIDE the VM-lane guest (scripts/vmtest,
# tests/vm/guest-init.sh).  They format the guest's emulated NVMe disk, so
# they refuse to run anywhere else: FSS_VM_GUEST=1 is set by guest-init.sh,
# and the controller must be QEMU's with the serial scripts/vmtest gives it.
#
#   load vmlib
#   vm_require_guest            skip unless inside the VM-lane guest
#   vm_mkfs FSTYPE [OPTS...]    mkfs FSTYPE (ext4, xfs, btrfs) on the NVMe
#                               namespace, mount it under /tmp (mount -o
#                               $VM_MOUNT_OPTS if set); sets VM_MNT, VM_DEV
#   vm_cleanup                  unmount (teardown / teardown_file)
#   vm_artifact NAME FILE       copy FILE to the host (build/vm/out/artifacts)
#   vm_sum_errors EVENTS        events (JSON lines) whose phases do not add
#                               up to their total; prints nothing when exact
#   vm_jq_all FILE EXPR...      every jq EXPR is true on FILE; the false
#                               ones are named.  One jq run: jq takes about
#                               a second to start in the emulated guest
#   vm_ev_expect EVENTS N FILTER...
#                               EVENTS (JSON lines) has N lines and each jq
#                               FILTER holds for all N; one jq run
#   vm_traced_run NAME ARGS...  fsyncscope run --json --events -v ARGS; leaves
#                               $VM_DIR/NAME.json, .ev (events), .err (-v log)
#                               and copies them to the host as artifacts
#                               (named ${VM_TAG}NAME.*)

source "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/lib.bash"

VM_NVME_SERIAL="test0"
VM_NVME_MODEL="QEMU NVMe Ctrl"

vm_in_guest() {
	[ "${FSS_VM_GUEST:-}" = 1 ] && [ -b "${FSS_VM_NVME:-}" ] || return 1
	local ctrl serial model
	ctrl=/sys/block/$(basename "$FSS_VM_NVME")/device
	serial=$(tr -d ' \n' < "$ctrl/serial" 2>/dev/null)
	model=$(sed 's/ *$//' < "$ctrl/model" 2>/dev/null)
	[ "$serial" = "$VM_NVME_SERIAL" ] && [ "$model" = "$VM_NVME_MODEL" ]
}

vm_require_guest() {
	vm_in_guest || skip "runs only inside the VM-lane guest (scripts/vmtest)"
}

vm_mkfs() {
	local fs="$1"
	shift
	vm_in_guest || { echo "vm_mkfs: not in the VM-lane guest, refusing to format" >&2; return 1; }
	VM_DEV="$FSS_VM_NVME"
	mountpoint -q /tmp/fss-vm/mnt 2>/dev/null && umount /tmp/fss-vm/mnt
	mkdir -p /tmp/fss-vm/mnt
	case "$fs" in
	ext4) mkfs.ext4 -q -F "$@" "$VM_DEV" ;;
	xfs)  mkfs.xfs -q -f "$@" "$VM_DEV" ;;
	btrfs) mkfs.btrfs -q -f "$@" "$VM_DEV" ;;
	*) echo "vm_mkfs: unknown fs $fs" >&2; return 1 ;;
	esac || return 1
	mount ${VM_MOUNT_OPTS:+-o "$VM_MOUNT_OPTS"} "$VM_DEV" /tmp/fss-vm/mnt || return 1
	VM_MNT=/tmp/fss-vm/mnt
	export VM_MNT VM_DEV
}

# vm_fs_setup_file FS [MKFS_OPTS...]: a suite's setup_file on one
# filesystem: FS on the NVMe disk (in the guest only; VM_MOUNT_OPTS), and
# VM_DIR the file's temporary directory
vm_fs_setup_file() {
	vm_in_guest || return 0
	vm_mkfs "$@" || return 1
	export VM_DIR="$BATS_FILE_TMPDIR"
}

# vm_setup: a test's setup: only in the guest; VM_DIR
vm_setup() {
	vm_require_guest
	VM_DIR="$BATS_FILE_TMPDIR"
}

# vm_blame_storm NAME [TRACE_OPTS...]: the blame scenario of the VM lane on
# $VM_MNT: a 4 KiB append + fsync appender, joined after a second by a
# metadata storm (tests/helpers/blamer.c), under `trace -j --mount --events`;
# its JSON Lines in $VM_DIR/NAME.out, events in NAME.ev; sets app and storm
# (their pids)
vm_blame_storm() {
	local name="$1" blamer="$FSS_BUILD/tests/blamer" rc=0
	shift
	[ -x "$blamer" ] || { echo "$blamer not built" >&2; return 1; }
	mkdir -p "$VM_MNT/a" "$VM_MNT/s"
	"$FSS_BIN" trace -j "$@" --mount "$VM_MNT" --events "$VM_DIR/$name.ev" \
		-- bash -c "
		$blamer append $VM_MNT/a 4 > $VM_DIR/$name.app &
		sleep 1
		$blamer storm $VM_MNT/s 2 > $VM_DIR/$name.storm
		wait" > "$VM_DIR/$name.out" 2> "$VM_DIR/$name.err" || rc=$?
	vm_artifact "$name.out" "$VM_DIR/$name.out"
	vm_artifact "$name.err" "$VM_DIR/$name.err"
	[ "$rc" -eq 0 ] || { tail -n 20 "$VM_DIR/$name.err" >&2; return 1; }
	app="$(awk '/^ready/ { print $2 }' "$VM_DIR/$name.app")"
	storm="$(awk '/^ready/ { print $2 }' "$VM_DIR/$name.storm")"
	[ -n "$app" ] && [ -n "$storm" ]
}

vm_cleanup() {
	if mountpoint -q /tmp/fss-vm/mnt 2>/dev/null; then
		umount /tmp/fss-vm/mnt 2>/dev/null || umount -l /tmp/fss-vm/mnt
	fi
	return 0
}

vm_artifact() {
	[ -n "${FSS_VM_OUT:-}" ] && [ -d "$FSS_VM_OUT/artifacts" ] || return 0
	cp "$2" "$FSS_VM_OUT/artifacts/$1" 2>/dev/null || true
}

vm_sum_errors() {
	jq -c 'select((.fs_ns + .journal_ns + .queue_ns + .device_write_ns
		+ .device_flush_ns + .other_ns) != .total_ns)' "$1" | head -n 3
}

vm_traced_run() {
	local name="$1" rc=0
	shift
	VM_DIR="${VM_DIR:-$BATS_FILE_TMPDIR}"
	"$FSS_BIN" run -v --json --events "$VM_DIR/$name.ev" "$@" \
		> "$VM_DIR/$name.json" 2> "$VM_DIR/$name.err" || rc=$?
	vm_artifact "${VM_TAG:-}$name.json" "$VM_DIR/$name.json"
	vm_artifact "${VM_TAG:-}$name.ev" "$VM_DIR/$name.ev"
	vm_artifact "${VM_TAG:-}$name.err" "$VM_DIR/$name.err"
	if [ "$rc" -ne 0 ]; then
		echo "fsyncscope run $* exited $rc:" >&2
		tail -n 20 "$VM_DIR/$name.err" >&2
		return 1
	fi
}

vm_jq_all() {
	local f="$1" prog="" e out rc=0 i=0
	local -a res
	shift
	for e in "$@"; do
		prog+="${prog:+, }([try ($e) catch false] | length == 1 and .[0] == true)"
	done
	out=$(jq -r "[$prog] | map(tostring) | join(\" \")" "$f") ||
		{ echo "jq failed on $f" >&2; return 1; }
	read -r -a res <<< "$out"
	for e in "$@"; do
		if [ "${res[$i]:-}" != true ]; then
			echo "check failed on $(basename "$f"): $e" >&2
			rc=1
		fi
		i=$((i + 1))
	done
	return "$rc"
}

vm_ev_expect() {
	local ev="$1" n="$2" prog="" e out rc=0 i=1
	local -a res
	shift 2
	for e in "$@"; do
		prog+=", ([.[] | select(try ($e) catch false)] | length)"
	done
	out=$(jq -s -r "[length$prog] | map(tostring) | join(\" \")" "$ev") ||
		{ echo "jq failed on $ev" >&2; return 1; }
	read -r -a res <<< "$out"
	if [ "${res[0]}" -ne "$n" ]; then
		echo "$(basename "$ev"): $n events expected, got ${res[0]}" >&2
		rc=1
	fi
	for e in "$@"; do
		if [ "${res[$i]}" -ne "$n" ]; then
			echo "$(basename "$ev"): '$e' holds for ${res[$i]} of ${res[0]} syncs" >&2
			rc=1
		fi
		i=$((i + 1))
	done
	return "$rc"
}

# vm_exporter_start NAME PORT ARGS...: `fsyncscope exporter ARGS` on
# 127.0.0.1:PORT (--interval 1) in the background, its stderr in
# $VM_DIR/NAME.err, until it says it is exporting (60 s); sets exp_pid
# (the caller's teardown stops it)
vm_exporter_start() {
	local name="$1" port="$2" i
	shift 2
	ip link set lo up 2> /dev/null || true
	"$FSS_BIN" exporter --listen "127.0.0.1:$port" --interval 1 "$@" \
		2> "$VM_DIR/$name.err" &
	exp_pid=$!
	for ((i = 0; i < 600; i++)); do
		grep -q '^fsyncscope: exporting' "$VM_DIR/$name.err" && return 0
		sleep 0.1
	done
	echo "exporter $name did not start:" >&2
	cat "$VM_DIR/$name.err" >&2
	return 1
}

# vm_scrape_fdatasyncs PORT FILE N: scrape the exporter on PORT into
# FILE until its fdatasync histogram counts N (10 s); fails otherwise
vm_scrape_fdatasyncs() {
	local url="http://127.0.0.1:$1/metrics" f="$2" n="$3" i v=
	for ((i = 0; i < 100; i++)); do
		curl -sf "$url" -o "$f" &&
			v=$(grep -E '^fsyncscope_sync_duration_seconds_count\{kind="fdatasync"' \
				"$f" | awk '{ print $NF }')
		[ "$v" = "$n" ] && return 0
		sleep 0.1
	done
	echo "exporter on $1: $v fdatasyncs counted, $n expected" >&2
	return 1
}
