# Shared bats helpers: loop-mounted filesystem images that are always torn
# down, also when a test fails.  Never touches the machine's own disks.
#
#   fss_mkfs ext4 [SIZE_MB]   -> sets FSS_MNT, FSS_LOOP, FSS_IMG; registers cleanup
#   fss_cleanup               -> call from teardown / teardown_file
#   wait_for FILE REGEX [N]   -> until a line of FILE matches (N tenths of s)
#
# Everything lives under one scratch dir per test file (FSS_SCRATCH).

FSS_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FSS_BIN="${FSS_BIN:-$FSS_ROOT/fsyncscope}"
FSS_BUILD="$FSS_ROOT/build"

fss_need_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root"
}

fss_scratch() {
	if [ -z "${FSS_SCRATCH:-}" ] || [ ! -d "$FSS_SCRATCH" ]; then
		FSS_SCRATCH="$(mktemp -d /tmp/fsyncscope-test.XXXXXX)"
		export FSS_SCRATCH
	fi
}

# fss_mkfs FSTYPE [SIZE_MB] [MKFS_OPTS...]
fss_mkfs() {
	local fs="$1" size="${2:-512}"
	shift; [ $# -gt 0 ] && shift
	fss_scratch
	local n=$(( ${FSS_NIMG:-0} + 1 ))
	FSS_NIMG=$n
	FSS_IMG="$FSS_SCRATCH/img$n.$fs"
	FSS_MNT="$FSS_SCRATCH/mnt$n"
	mkdir -p "$FSS_MNT"
	truncate -s "${size}M" "$FSS_IMG"
	case "$fs" in
	ext4)  mkfs.ext4 -q -F "$@" "$FSS_IMG" ;;
	xfs)   mkfs.xfs -q -f "$@" "$FSS_IMG" ;;
	btrfs) mkfs.btrfs -q -f "$@" "$FSS_IMG" >/dev/null ;;
	*) echo "fss_mkfs: unknown fs $fs" >&2; return 1 ;;
	esac
	FSS_LOOP="$(losetup -f --show "$FSS_IMG")"
	echo "$FSS_LOOP" >> "$FSS_SCRATCH/.loops"
	mount "$FSS_LOOP" "$FSS_MNT"
	echo "$FSS_MNT" >> "$FSS_SCRATCH/.mounts"
	export FSS_IMG FSS_MNT FSS_LOOP
}

# fss_mkoverlay: an overlayfs mount whose upper (and lower) layer is on
# $FSS_MNT (fss_mkfs first), at $FSS_OVL; $FSS_UPPER_MNT is that
# filesystem's mountpoint.  Unmounted before it by fss_cleanup.
fss_mkoverlay() {
	FSS_UPPER_MNT="$FSS_MNT"
	FSS_OVL="$FSS_SCRATCH/ovl"
	mkdir -p "$FSS_MNT/low" "$FSS_MNT/up" "$FSS_MNT/work" "$FSS_OVL"
	mount -t overlay overlay -o "lowerdir=$FSS_MNT/low,upperdir=$FSS_MNT/up,workdir=$FSS_MNT/work" \
		"$FSS_OVL"
	echo "$FSS_OVL" >> "$FSS_SCRATCH/.mounts"
	export FSS_OVL FSS_UPPER_MNT
}

# A tmpfs mount (for O_DIRECT n/a cases).
fss_mktmpfs() {
	fss_scratch
	FSS_MNT="$FSS_SCRATCH/tmpfs"
	mkdir -p "$FSS_MNT"
	mount -t tmpfs -o size=64m tmpfs "$FSS_MNT"
	echo "$FSS_MNT" >> "$FSS_SCRATCH/.mounts"
	export FSS_MNT
}

fss_cleanup() {
	[ -n "${FSS_SCRATCH:-}" ] && [ -d "$FSS_SCRATCH" ] || return 0
	local m l
	# the delay fixture (tests/fixtures/delay.bash) has its own teardown
	if declare -F delay_teardown >/dev/null; then
		delay_teardown || true
	fi
	if [ -f "$FSS_SCRATCH/.mounts" ]; then
		tac "$FSS_SCRATCH/.mounts" | while read -r m; do
			mountpoint -q "$m" && { umount "$m" 2>/dev/null || umount -l "$m"; }
		done
	fi
	if [ -f "$FSS_SCRATCH/.loops" ]; then
		while read -r l; do losetup -d "$l" 2>/dev/null || true; done < "$FSS_SCRATCH/.loops"
	fi
	# never delete through a mount that is still there
	if grep -q " $FSS_SCRATCH/" /proc/mounts; then
		echo "fss_cleanup: mounts remain under $FSS_SCRATCH; not removing it" >&2
		return 1
	fi
	rm -rf "$FSS_SCRATCH"
	unset FSS_SCRATCH FSS_NIMG
}

# fss_start_bg NAME out|err REGEX CMD...: CMD in the background, its stdout
# in $FSS_SCRATCH/NAME.out and stderr in NAME.err, its pid in bg_pid and
# added to the suite's bg_pids; returns once a line of NAME.out or NAME.err
# matches REGEX.  Both files are removed first: a line left by an earlier
# process of the test would satisfy the wait before this one's shell has
# truncated them.
fss_start_bg() {
	local name="$1" which="$2" re="$3"
	shift 3
	rm -f "$FSS_SCRATCH/$name.out" "$FSS_SCRATCH/$name.err"
	"$@" > "$FSS_SCRATCH/$name.out" 2> "$FSS_SCRATCH/$name.err" 3>&- &
	bg_pid=$!
	bg_pids+=("$bg_pid")
	wait_for "$FSS_SCRATCH/$name.$which" "$re"
}

# start_syncer NAME DIR ARGS...: build/tests/syncer ARGS on DIR, waiting on
# $FSS_SCRATCH/NAME.go; sets syncer_pid
start_syncer() {
	local name="$1" dir="$2"
	shift 2
	mkfifo "$FSS_SCRATCH/$name.go"
	fss_start_bg "$name" out '^ready ' \
		"$FSS_BUILD/tests/syncer" --go "$FSS_SCRATCH/$name.go" "$@" "$dir" ||
		return 1
	syncer_pid=$bg_pid
}

# go NAME...: let the syncers run, wait until each is done
go() {
	local n
	for n in "$@"; do echo go > "$FSS_SCRATCH/$n.go"; done
	for n in "$@"; do wait_for "$FSS_SCRATCH/$n.out" '^done '; done
}

# start_trace NAME ARGS...: `fsyncscope trace ARGS` in the background,
# ready (its "Ctrl-C to stop" line); its pid in trace_pid, its output in
# $FSS_SCRATCH/NAME.out and NAME.err
start_trace() {
	local name="$1"
	shift
	fss_start_bg "$name" err '^fsyncscope: tracing .*\(Ctrl-C to stop\)$' \
		"$FSS_BIN" trace "$@" || return 1
	trace_pid=$bg_pid
}

# stop_trace PID: Ctrl-C, and it must exit 0
stop_trace() {
	local rc=0
	kill -INT "$1"
	wait "$1" || rc=$?
	[ "$rc" -eq 0 ] || { echo "$1 exited $rc" >&2; return 1; }
}

# fss_stop_bg [SIG...]: each signal (default TERM) in turn to every process
# of the suite's bg_pids array, then wait for them; for teardowns
fss_stop_bg() {
	local s p
	for s in "${@:-TERM}"; do
		for p in "${bg_pids[@]}"; do
			kill -"$s" "$p" 2>/dev/null || true
		done
	done
	for p in "${bg_pids[@]}"; do
		wait "$p" 2>/dev/null || true
	done
}

# Assert a jq expression is true on a JSON file: fss_jq FILE EXPR
fss_jq() {
	local out
	out="$(jq -e "$2" "$1" 2>&1)" || { echo "jq check failed: $2 -> $out" >&2; return 1; }
}

# wait_for FILE REGEX [TENTHS]: until a line of FILE matches (default 60 s);
# on a timeout, says so and shows FILE on stderr
wait_for() {
	local i n="${3:-600}"
	for ((i = 0; i < n; i++)); do
		grep -qE "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "timed out waiting for '$2' in $1:" >&2
	cat "$1" >&2 2>/dev/null || true
	return 1
}

# fss_consumer_policy PID: the scheduling policy of its fss-consumer thread
# (/proc stat field 41: 0 SCHED_OTHER, 5 SCHED_IDLE), once it runs
fss_consumer_policy() {
	local t i
	for i in $(seq 100); do
		for t in /proc/"$1"/task/*; do
			[ "$(cat "$t/comm" 2>/dev/null)" = fss-consumer ] || continue
			sed 's/.*) //' "$t/stat" | awk '{print $39}'
			return 0
		done
		sleep 0.1
	done
	return 1
}
