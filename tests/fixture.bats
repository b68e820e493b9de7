#!/usr/bin/env bats
# Tests of the ground-truth delay fixture itself (tests/fixtures/delayfs.c
# and tests/fixtures/delay.bash), not of fsyncscope: a delay set in delayfs
# must reach the loop device's flushes and writes, and so the syncs of the
# filesystem on it.  The chain is described in docs/accuracy.md, "Method".
#
# Timing assertions are lower bounds only.  A sync that has to wait for a
# flush (or write) that delayfs holds for D cannot return in less than D,
# however loaded the machine is; how much longer it takes depends on the
# machine, so an upper bound would flake.  Counts are checked exactly where
# the kernel's behaviour is exact, with a stated allowance where background
# journal commits may add requests.

load lib
load fixtures/delay

N=20		# syncs per count check

setup() {
	fss_need_root
	[ -x "$DELAYFS_BIN" ] || skip "delayfs not built (make build/tests/delayfs)"
}

teardown() {
	delay_teardown
	fss_cleanup
}

# Anything (mount, loop device, process) still referring to a path under $1?
# Prints what it finds; succeeds when there is nothing.
no_leftovers() {
	local prefix="$1" f found=0

	if awk -v p="$prefix" 'index($5, p) == 1 { print "mount: " $5; f = 1 }
	   END { exit !f }' /proc/self/mountinfo; then
		found=1
	fi
	for f in /sys/block/loop*/loop/backing_file; do
		[ -r "$f" ] || continue
		case "$(cat "$f" 2>/dev/null)" in
		"$prefix"*) echo "loop: $f"; found=1 ;;
		esac
	done
	for f in /proc/[0-9]*/cmdline; do
		if tr '\0' ' ' <"$f" 2>/dev/null | grep -qF "$prefix"; then
			echo "process: $f: $(tr '\0' ' ' <"$f" 2>/dev/null)"
			found=1
		fi
	done
	[ "$found" -eq 0 ]
}

# min_at_least FILE NS: every value in FILE is >= NS (and there are some)
min_at_least() {
	local min
	min="$(sort -n "$1" | head -n 1)"
	[ -n "$min" ] || { echo "no values in $1" >&2; return 1; }
	if [ "$min" -lt "$2" ]; then
		echo "minimum $min < $2 in $1: $(tr '\n' ' ' <"$1")" >&2
		return 1
	fi
}

@test "delayfs: bad command lines fail with one line on stderr, mount nothing" {
	fss_scratch
	local m="$FSS_SCRATCH/m"
	mkdir -p "$m"

	run timeout 10 "$DELAYFS_BIN" --size=12x "$m"
	[ "$status" -ne 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"invalid size"* ]]

	run timeout 10 "$DELAYFS_BIN" --size=1000 "$m"	# not a multiple of 512
	[ "$status" -ne 0 ]
	[ "${#lines[@]}" -eq 1 ]

	run timeout 10 "$DELAYFS_BIN" --fsync-us=-1 "$m"
	[ "$status" -ne 0 ]
	[ "${#lines[@]}" -eq 1 ]

	run timeout 10 "$DELAYFS_BIN"
	[ "$status" -ne 0 ]
	[ "${#lines[@]}" -eq 1 ]

	run timeout 10 "$DELAYFS_BIN" "$FSS_SCRATCH/does-not-exist"
	[ "$status" -ne 0 ]
	[ "${#lines[@]}" -eq 1 ]

	no_leftovers "$FSS_SCRATCH/"
}

@test "ctl: settings round-trip, bad commands change nothing, reset zeroes counters" {
	delay_setup ext4

	delay_set fsync_us=1234 write_us=567
	[ "$(delay_counter fsync_us)" -eq 1234 ]
	[ "$(delay_counter write_us)" -eq 567 ]

	# All tokens are checked before any is applied.
	run delay_set fsync_us=5 bogus=1
	[ "$status" -ne 0 ]
	run delay_set fsync_us=60000001	# over the one-minute cap
	[ "$status" -ne 0 ]
	run delay_set write_us=
	[ "$status" -ne 0 ]
	[ "$(delay_counter fsync_us)" -eq 1234 ]
	[ "$(delay_counter write_us)" -eq 567 ]

	delay_set fsync_us=0 write_us=0
	delay_synctime overwrite "$DELAY_MNT/f" 3 >/dev/null
	[ "$(delay_counter writes)" -gt 0 ]
	[ "$(delay_counter fsyncs)" -gt 0 ]

	delay_set reset
	[ "$(delay_counter writes)" -eq 0 ]
	[ "$(delay_counter fsyncs)" -eq 0 ]
	[ "$(delay_counter write_bytes)" -eq 0 ]
	[ "$(delay_counter fsync_us)" -eq 0 ]
}

# Every fdatasync of an overwrite sends one flush to the loop device, which
# the loop driver turns into one fsync of disk.img.  Allowance +4: a timed
# background commit (jbd2 every 5 s, the xfs log worker) can add up to two
# flushes of its own, and two can happen to fall inside the window.
check_fsync_count() {
	delay_setup "$1"
	delay_synctime overwrite "$DELAY_MNT/f" 1 >/dev/null	# allocate
	delay_set reset
	delay_synctime overwrite "$DELAY_MNT/f" "$N" >/dev/null
	local fsyncs writes
	fsyncs="$(delay_counter fsyncs)"
	writes="$(delay_counter writes)"
	echo "$1: $N fdatasyncs -> $fsyncs delayfs fsyncs, $writes writes"
	[ "$fsyncs" -ge "$N" ]
	[ "$fsyncs" -le $((N + 4)) ]
	[ "$writes" -ge "$N" ]
}

@test "ext4: each fdatasync reaches delayfs as one fsync" {
	check_fsync_count ext4
}

@test "xfs: each fdatasync reaches delayfs as one fsync" {
	check_fsync_count xfs
}

# With fsync_us=20000 the loop device's flush takes >= 20 ms, and every
# fdatasync waits for one.  Lower bound only (see the top of the file).
check_flush_delay() {
	delay_setup "$1"
	delay_synctime overwrite "$DELAY_MNT/f" 1 >/dev/null
	delay_set fsync_us=20000 reset
	delay_synctime overwrite "$DELAY_MNT/f" 5 >"$FSS_SCRATCH/ns"
	echo "$1 fdatasync ns: $(tr '\n' ' ' <"$FSS_SCRATCH/ns")"
	min_at_least "$FSS_SCRATCH/ns" 20000000
	[ "$(delay_counter fsyncs)" -ge 5 ]
	# the daemon's own clock agrees: >= 20 ms per fsync it served
	[ "$(delay_counter fsync_ns)" -ge $(( $(delay_counter fsyncs) * 20000000 )) ]
}

@test "ext4: with fsync_us=20000 every fdatasync takes >= 20 ms" {
	check_flush_delay ext4
}

@test "xfs: with fsync_us=20000 every fdatasync takes >= 20 ms" {
	check_flush_delay xfs
}

@test "ext4, loop in buffered mode: with fsync_us=20000 every fdatasync takes >= 20 ms" {
	DELAY_LOOP_DIO=off check_flush_delay ext4
	[ "$(cat "/sys/block/${DELAY_LOOP#/dev/}/loop/dio")" -eq 0 ]
}

# With write_us=20000 the O_DIRECT write itself waits for the loop device's
# write, so write + fdatasync takes >= 20 ms.
check_write_delay() {
	delay_setup "$1"
	delay_synctime odirect "$DELAY_MNT/f" 1 >/dev/null
	delay_set write_us=20000 reset
	delay_synctime odirect "$DELAY_MNT/f" 5 >"$FSS_SCRATCH/ns"
	echo "$1 O_DIRECT write + fdatasync ns: $(tr '\n' ' ' <"$FSS_SCRATCH/ns")"
	min_at_least "$FSS_SCRATCH/ns" 20000000
	[ "$(delay_counter writes)" -ge 5 ]
}

@test "ext4: with write_us=20000 every O_DIRECT write + fdatasync takes >= 20 ms" {
	check_write_delay ext4
}

@test "xfs: with write_us=20000 every O_DIRECT write + fdatasync takes >= 20 ms" {
	check_write_delay xfs
}

# Append + fsync on ext4 commits the jbd2 transaction.  The loop device has
# a volatile write cache and no FUA, so the commit record's PREFLUSH|FUA is
# run as flush, write, flush: two delayed fsyncs of disk.img in sequence.
@test "ext4 journal: append + fsync waits for two delayed flushes of the jbd2 commit" {
	delay_setup ext4
	local q="/sys/block/${DELAY_LOOP#/dev/}/queue"
	[ "$(cat "$q/write_cache")" = "write back" ]
	[ "$(cat "$q/fua")" -eq 0 ]
	delay_synctime append "$DELAY_MNT/log" 1 >/dev/null
	delay_set fsync_us=10000 reset
	delay_synctime append "$DELAY_MNT/log" 5 >"$FSS_SCRATCH/ns"
	echo "append + fsync ns: $(tr '\n' ' ' <"$FSS_SCRATCH/ns")"
	min_at_least "$FSS_SCRATCH/ns" 20000000
	[ "$(delay_counter fsyncs)" -ge 10 ]
}

# bpftrace on the block tracepoints shows where the delay appears: in the
# loop device's flush request (rwbs FF) or in its write requests (W...).
@test "bpftrace: fsync_us lands in the loop device's flushes, write_us in its writes" {
	command -v bpftrace >/dev/null || skip "no bpftrace"
	delay_setup ext4
	delay_synctime overwrite "$DELAY_MNT/f" 1 >/dev/null
	delay_synctime odirect "$DELAY_MNT/g" 1 >/dev/null

	delay_set fsync_us=8000 write_us=0
	delay_rqtrace_start "$FSS_SCRATCH/ff.txt"
	delay_synctime overwrite "$DELAY_MNT/f" 10 >/dev/null
	delay_rqtrace_stop
	awk '$1 == "FF" { print $4 }' "$FSS_SCRATCH/ff.txt" >"$FSS_SCRATCH/ff.us"
	echo "flush us: $(tr '\n' ' ' <"$FSS_SCRATCH/ff.us")"
	[ "$(wc -l <"$FSS_SCRATCH/ff.us")" -ge 10 ]
	min_at_least "$FSS_SCRATCH/ff.us" 8000

	delay_set fsync_us=0 write_us=8000
	delay_rqtrace_start "$FSS_SCRATCH/w.txt"
	delay_synctime odirect "$DELAY_MNT/g" 10 >/dev/null
	delay_rqtrace_stop
	awk '$1 ~ /^W/ { print $4 }' "$FSS_SCRATCH/w.txt" >"$FSS_SCRATCH/w.us"
	echo "write us: $(tr '\n' ' ' <"$FSS_SCRATCH/w.us")"
	[ "$(wc -l <"$FSS_SCRATCH/w.us")" -ge 10 ]
	min_at_least "$FSS_SCRATCH/w.us" 8000
}

@test "delay_setup: bad arguments fail with one line and leave nothing" {
	run delay_setup btrfs
	[ "$status" -ne 0 ]
	[ "${#lines[@]}" -eq 1 ]
	run delay_setup ext4 12abc
	[ "$status" -ne 0 ]
	[ "${#lines[@]}" -eq 1 ]
	fss_scratch
	no_leftovers "$FSS_SCRATCH/"
}

# A test that fails (or whose setup fails halfway, or whose daemon dies)
# must still leave nothing behind once its teardown has run.  The failing
# tests run in a child bats; their scratch dirs are checked from here.
@test "teardown leaves no mount, loop device or process after failures" {
	local inner="$BATS_TEST_TMPDIR/inner.bats" rec="$BATS_TEST_TMPDIR/scratch"
	local t='@test'	# spelled out here, bats would take them as its own
	cat >"$inner" <<-EOF
	load "$FSS_ROOT/tests/lib"
	load "$FSS_ROOT/tests/fixtures/delay"
	teardown() { delay_teardown; fss_cleanup; }
	$t "fails with the fixture up" {
		delay_setup ext4
		echo "\$FSS_SCRATCH/" >>"$rec"
		delay_set fsync_us=50000
		delay_synctime overwrite "\$DELAY_MNT/f" 1 >/dev/null
		false
	}
	$t "fails after the daemon was killed" {
		delay_setup xfs
		echo "\$FSS_SCRATCH/" >>"$rec"
		echo data >"\$DELAY_MNT/f"
		kill -KILL "\$DELAY_PID"
		false
	}
	$t "setup fails halfway (mkfs.xfs refuses 16 MiB)" {
		fss_scratch
		echo "\$FSS_SCRATCH/" >>"$rec"
		delay_setup xfs 16
	}
	EOF
	# A clean environment: a bats run inherits the outer run's BATS_*, and
	# the outer run puts bats' internal libexec dir first in PATH.
	local path
	path="$(tr ':' '\n' <<<"$PATH" | grep -v bats-core | paste -sd:)"
	run env -i PATH="$path" HOME="${HOME:-/root}" bats --tap "$inner"
	echo "$output"
	[ "$status" -ne 0 ]
	[ "$(grep -c '^not ok' <<<"$output")" -eq 3 ]
	[ "$(grep -c "\`false' failed" <<<"$output")" -eq 2 ]
	[[ "$output" == *"mkfs.xfs failed"* ]]	# after delayfs and losetup
	[ "$(wc -l <"$rec")" -eq 3 ]
	while read -r s; do
		no_leftovers "$s"
		[ ! -e "$s" ]
	done <"$rec"
}
