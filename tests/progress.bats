#!/usr/bin/env bats
# The progress line of run and compare (issue 21, item 7): on stderr, only
# when stderr is a terminal (here a pty made by script(1) from util-linux),
# "NAME elapsed / total s" from 2 s into a test on, rewritten in place with
# \r and cleared (spaces, \r) before the test's row; nothing of it when
# stderr is a file or a pipe.  Untraced runs on a tmpfs or on images the
# command makes in this test's scratch directory; nothing timed is asserted
# beyond "a 3 s test shows its line".

load lib
bats_require_minimum_version 1.5.0

setup() {
	fss_need_root
	command -v script >/dev/null || skip "script (util-linux) missing"
	fss_scratch
}

teardown() {
	fss_cleanup
}

# pty_stderr FILE CMD...: run CMD with stderr on a pty, stdout to FILE.out;
# what the pty got goes to FILE
pty_stderr() {
	local f="$1" q
	shift
	q="$(printf '%q ' "$@")"
	script -qec "$q > $(printf '%q' "$f.out")" /dev/null > "$f"
}

@test "run: no progress when stderr is not a terminal" {
	fss_mktmpfs
	run -0 --separate-stderr "$FSS_BIN" run --no-trace -s 3 --method fdatasync "$FSS_MNT"
	[ -z "$stderr" ]
	[[ "$output" != *$'\r'* ]]
	[[ "$output" == *"fdatasync"* ]]
}

@test "run: with stderr on a pty, a progress line rewritten with \\r and cleared" {
	fss_mktmpfs
	pty_stderr "$FSS_SCRATCH/pty" "$FSS_BIN" run --no-trace -s 3 --method fdatasync "$FSS_MNT"
	cat -A "$FSS_SCRATCH/pty"
	# drawn in place: \r, the test name, elapsed / total
	grep -qE $'\rcustom\\.fdatasync [2-3]\\.[0-9] / 3\\.0 s' "$FSS_SCRATCH/pty"
	# more than one redraw
	[ "$(tr '\r' '\n' < "$FSS_SCRATCH/pty" | grep -c '/ 3.0 s')" -ge 2 ]
	# cleared at the end: the last thing on the line is blanks, then \r
	[[ "$(cat "$FSS_SCRATCH/pty")" =~ $'\r'\ +$'\r'$ ]]
	# stdout got none of it
	! grep -q $'\r' "$FSS_SCRATCH/pty.out" || false
	grep -q 'fdatasync' "$FSS_SCRATCH/pty.out"
}

@test "run -n: the progress line counts seconds and says the ops" {
	fss_mktmpfs
	# a count that no machine does in 4 s; stopped by SIGINT (exit 130)
	pty_stderr "$FSS_SCRATCH/pty" timeout -s INT 4 "$FSS_BIN" run --no-trace -n 100000000 --method fdatasync "$FSS_MNT" || true
	cat -A "$FSS_SCRATCH/pty"
	grep -qE $'\rcustom\\.fdatasync [2-4]\\.[0-9] s \\(100000000 ops per job\\)' "$FSS_SCRATCH/pty"
	# cleared when the signal ended the test, before the stopped-by line
	grep -qE $'\r +\r.*stopped by' "$FSS_SCRATCH/pty"
}

@test "compare: the progress line names the filesystem; none without a terminal" {
	local imgs="$FSS_SCRATCH/imgs"
	mkdir -p "$imgs"
	pty_stderr "$FSS_SCRATCH/pty" "$FSS_BIN" compare --fs ext4 --size 300m --dir "$imgs" \
		--no-trace -s 3 --method fdatasync
	cat -A "$FSS_SCRATCH/pty"
	grep -qE $'\rext4: [a-z_]*fdatasync[a-z_]* [2-3]\\.[0-9] / 3\\.0 s' "$FSS_SCRATCH/pty"
	# stdout has no progress line (shown, if any, when this fails)
	grep -n $'\r' "$FSS_SCRATCH/pty.out" | cat -A | head -n 5 || true
	! grep -q $'\r' "$FSS_SCRATCH/pty.out" || false
	run -0 --separate-stderr "$FSS_BIN" compare --fs ext4 --size 300m --dir "$imgs" \
		--no-trace -s 3 --method fdatasync
	[[ "$stderr" != *$'\r'* ]]
	[[ "$stderr" != *" / 3.0 s"* ]]
	[ -z "$(ls -A "$imgs")" ]
}
