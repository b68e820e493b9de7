#!/usr/bin/env bats
# Findings (issue 31, docs/findings.md): real scenarios on loop images that
# provoke a rule end to end — the document's findings[], the text's
# FINDINGS block, `report` of the saved document printing the same, the
# HTML page showing them first (chromium) — and the healthy runs beside
# them that must raise no warning.  No timing is asserted: which rule
# fires, on what, with the document's own numbers in its evidence.

load lib
load blame
load fixtures/delay
bats_require_minimum_version 1.5.0

PY="$FSS_BUILD/pyenv/bin/python"
ART="$FSS_BUILD/artifacts"

setup_file() {
	blamer_build
}

setup() {
	fss_need_root
	fss_scratch
	S="$FSS_SCRATCH"
}

teardown() {
	blamer_stop
	# a loop device's write_cache outlives it, and can only be put back
	# while it is attached: restore what a test changed before cleanup
	[ -f "$S/.wc_restore" ] && echo "write back" > "$(cat "$S/.wc_restore")"
	# so does its I/O scheduler
	if [ -f "$S/.sched_restore" ]; then
		local sq sn
		read -r sq sn < "$S/.sched_restore"
		echo "$sn" > "$sq"
	fi
	if [ -n "${BULK:-}" ]; then
		kill "$BULK" 2>/dev/null || true
		wait "$BULK" 2>/dev/null || true
	fi
	delay_teardown
	fss_cleanup
}

# no_warning FILE RULE...: the healthy run of a rule's test raises none of
# the named rules above info.  Its other findings are the machine's: a
# phase rule (fs_bound, other_bound) warns from a 100 us mean, which a
# loaded CI machine reaches in a healthy run (ci of stop 35: fs_bound at
# 120 us on the FUSE fixture without delay), so they are printed, not
# asserted; that a healthy document is one info line is the unit test's
# (tests/unit/test_findings.c).
no_warning() {
	local f="$1" ids
	shift
	ids="$(printf '"%s",' "$@")"
	fss_jq "$f" ".findings_version == 1 and ([.findings[] |
		select(.severity != \"info\") | .id as \$i |
		select(any([${ids%,}][]; . == \$i))] | length == 0)"
	if ! fss_jq "$f" 'all(.findings[]; .severity == "info")' 2>/dev/null; then
		echo "healthy run, other findings: $(jq -c \
			'[.findings[] | [.id, .severity]]' "$f")" >&3
	fi
}

# the FINDINGS block of a text output (up to the first blank line)
block() { sed -n '/^FINDINGS/,/^$/p' "$1"; }

@test "findings: ext4 mounted nobarrier on a write-back loop -> critical no_flush; report prints the same; healthy with barriers" {
	fss_mkfs ext4 256
	# healthy first: barriers on, every sync flushes
	"$FSS_BIN" run --method fdatasync --bs 8k -s 1 -j "$FSS_MNT" > "$S/ok.json"
	no_warning "$S/ok.json" no_flush slow_flush
	mount -o remount,barrier=0 "$FSS_MNT"
	run -0 "$FSS_BIN" run --method fdatasync --bs 8k -s 1 --save "$S/nb.json" "$FSS_MNT"
	printf '%s\n' "$output" > "$S/nb.txt"
	mount -o remount,barrier=1 "$FSS_MNT"
	fss_jq "$S/nb.json" '.findings[0] | .id == "no_flush" and
		.severity == "critical" and .figures.mount_barrier_off == "nobarrier"'
	# the evidence quotes the document's counts
	local n
	n="$(jq '.tests[0].flush.syncs_no_flush' "$S/nb.json")"
	[ "$n" -gt 0 ]
	fss_jq "$S/nb.json" ".findings[0].evidence | startswith(\"$n of $n syncs\")"
	fss_jq "$S/nb.json" '.findings[0].refs[0] == "docs/findings.md#no_flush"'
	# findings first in the document, right after the schema keys
	[ "$(jq -c '[keys_unsorted[0:4]]' "$S/nb.json")" = \
		'[["schema","schema_version","findings_version","findings"]]' ]
	# the text says it, and report of the saved document says the same
	grep -q '^  CRITICAL Data-loss risk' "$S/nb.txt"
	"$FSS_BIN" report --format text "$S/nb.json" > "$S/nb.report"
	diff <(block "$S/nb.txt") <(block "$S/nb.report")
	[ "$(block "$S/nb.txt" | awk 'length > 80' | wc -l)" -eq 0 ]
}

# xfs: an appending fsync forces the log each time; with no flush to pay
# (write-through queue) the log force is 37-41 % of the sync time here
# (ext4 + jbd2: 15-26 %, too near the 20 % line to test on)
@test "findings: appending fsyncs on xfs on a write-through loop -> journal_bound, with the journal's share as evidence" {
	fss_mkfs xfs 512
	local q="/sys/block/${FSS_LOOP#/dev/}/queue/write_cache"
	echo "$q" > "$S/.wc_restore"
	echo "write through" > "$q"
	"$FSS_BIN" run --method fsync --pattern append --bs 4k -s 1 -j "$FSS_MNT" > "$S/j.json"
	echo "write back" > "$q"
	local share drops
	share="$(jq '.tests[0].breakdown.journal.share' "$S/j.json")"
	drops="$(jq '.drops' "$S/j.json")"
	echo "journal share $share, $drops events lost; findings: $(jq -c '[.findings[] | [.id, .severity]]' "$S/j.json")" >&3
	fss_jq "$S/j.json" '[.findings[] | select(.id == "journal_bound")] | length == 1'
	fss_jq "$S/j.json" ".findings[] | select(.id == \"journal_bound\") |
		.figures.share == $share and (.evidence | contains(\"journal was\"))
		and (.advice | contains(\"external log\"))"
	# a run that lost events says so, first among the warnings
	if [ "$drops" -gt 0 ]; then
		fss_jq "$S/j.json" "[.findings[] | select(.severity != \"info\")][0] |
			.id == \"events_lost\" and .figures.events_lost == $drops"
	else
		fss_jq "$S/j.json" '[.findings[] | select(.id == "events_lost")] | length == 0'
	fi
	# the overwriting fdatasync on the same loop: no journal finding
	"$FSS_BIN" run --method fdatasync --bs 8k -s 1 -j "$FSS_MNT" > "$S/o.json"
	fss_jq "$S/o.json" '[.findings[] | select(.id == "journal_bound")] | length == 0'
}

# The FUSE delay fixture (tests/fixtures/delay.bash): the loop device's
# flush is an fsync of its backing file on delayfs, which sleeps a known
# time in each.  Injected: 3 ms per flush; every sync flushes once.  The
# healthy run beside it, without the delay: flushes far below the delay and
# no flush finding above info.
@test "findings: a 3 ms delay injected in every flush (FUSE fixture) -> slow_flush with a flush cost of at least the delay; without it, none" {
	delay_setup ext4 128
	local d=3000 n=100 fs0 fs1
	# healthy first: no delay, a flush costs microseconds
	delay_set fsync_us=0 write_us=0 reset
	"$FSS_BIN" run --method fdatasync --bs 8k --count $n -j "$DELAY_MNT" > "$S/f0.json"
	echo "no delay: $(jq -c '[.tests[0].breakdown.device_flush, [.findings[] | [.id, .severity]]]' "$S/f0.json")" >&3
	# (its p50 was 5-41 us here, under the 50 us line, but a loaded
	# machine can stretch a FUSE round trip past it: on a loop device
	# slow_flush is only a note, so no flush finding goes above info)
	no_warning "$S/f0.json" slow_flush no_flush
	fss_jq "$S/f0.json" ".tests[0].breakdown.device_flush.p50_us < $d / 2"
	delay_set fsync_us=$d write_us=0 reset
	"$FSS_BIN" run --method fdatasync --bs 8k --count $n --save "$S/f1.json" \
		"$DELAY_MNT" > "$S/f1.txt"
	fs1="$(delay_counter fsyncs)"
	delay_set fsync_us=0
	echo "${d} us per flush: delayfs fsyncs $fs1; $(jq -c '[.findings[] | select(.id == "slow_flush") | .figures]' "$S/f1.json")" >&3
	# every sync waited for at least one delayed fsync of the backing file
	[ "$fs1" -ge "$n" ]
	fss_jq "$S/f1.json" ".tests[0].syncs_traced == $n"
	# the finding: info on a loop device (the cost is the disk's below),
	# its flush cost per sync at least the injected delay, one flush a sync
	fss_jq "$S/f1.json" "[.findings[] | select(.id == \"slow_flush\")] |
		length == 1 and (.[0] | .severity == \"info\" and
		.figures.flush_us >= $d and .figures.flushes_per_sync >= 1 and
		.figures.share >= 0.5 and
		.figures.disk == \"${DELAY_LOOP#/dev/}\" and
		(.evidence | contains(\"1.00 flushes per sync\")) and
		(.advice | contains(\"loop device\")))"
	# its figures are the document's own: the test's device_flush
	fss_jq "$S/f1.json" '.tests[0].breakdown.device_flush as $f |
		[.findings[] | select(.id == "slow_flush")][0].figures |
		.flush_us == $f.p50_us and .share == $f.share'
	# the text: findings right after the header, before the first row
	local fl rl
	fl="$(grep -n '^FINDINGS' "$S/f1.txt" | cut -d: -f1)"
	rl="$(grep -n '^  fdatasync ' "$S/f1.txt" | head -1 | cut -d: -f1)"
	[ -n "$fl" ] && [ -n "$rl" ] && [ "$fl" -lt "$rl" ]
	[ "$(sed -n "$((fl - 1))p" "$S/f1.txt")" = "" ]
	grep -q '^tracing ' <(sed -n "$((fl - 2))p" "$S/f1.txt")
	grep -q 'info     Syncs are flush-bound' "$S/f1.txt"
	"$FSS_BIN" report --format text "$S/f1.json" | cmp - "$S/f1.txt"
}

# writes ios of a block device (/sys/block/N/stat's fifth field)
write_ios() { awk '{ print $5 }' "/sys/block/$1/stat"; }

# queue_bound by construction: bfq serves the idle I/O class only when no
# other class has requests (and at least every 200 ms, its
# BFQ_CL_IDLE_TIMEOUT), so the write of a syncer under `ionice -c3` waits
# in the scheduler, between insert and issue, while a best-effort direct
# writer keeps the device busy.  (A full tag set cannot show it: a request
# that waits for a tag waits before block_rq_insert, in fs time.)
@test "findings: an idle-class syncer beside a direct writer under bfq -> queue_bound, the writer named; alone, none" {
	fss_mkfs ext4 512
	local n="${FSS_LOOP#/dev/}" q w0
	q="/sys/block/$n/queue/scheduler"
	grep -qw bfq "$q" || modprobe bfq 2>/dev/null || true
	grep -qw bfq "$q" || skip "no bfq I/O scheduler in this kernel"
	echo "$q $(sed -E 's/.*\[([^]]+)\].*/\1/' "$q")" > "$S/.sched_restore"
	echo bfq > "$q"
	ionice -c3 "$FSS_BIN" run --method fdatasync --bs 8k --count 50 -j \
		"$FSS_MNT" > "$S/alone.json"
	fss_jq "$S/alone.json" '[.findings[] | select(.id == "queue_bound" or
		.id == "neighbour")] | length == 0'
	fallocate -l 64m "$FSS_MNT/bulk"
	w0="$(write_ios "$n")"
	# 16 writes in flight (libaio): the best-effort class always has
	# requests queued, also when fio itself waits for a CPU (with one
	# write at a time, a loaded CI machine gave bfq gaps to serve the idle
	# class in: queue share 0.01)
	fio --name=bulk --filename="$FSS_MNT/bulk" --rw=write --bs=256k \
		--direct=1 --ioengine=libaio --iodepth=16 --size=64m \
		--time_based --runtime=300 --output=/dev/null 3>&- &
	BULK=$!
	# ready: its writes reach the device
	for _ in $(seq 100); do
		[ "$(write_ios "$n")" -ge $((w0 + 20)) ] && break
		sleep 0.1
	done
	[ "$(write_ios "$n")" -ge $((w0 + 20)) ]
	ionice -c3 "$FSS_BIN" run --method fdatasync --bs 8k --count 30 -j \
		"$FSS_MNT" > "$S/q.json"
	kill "$BULK"
	wait "$BULK" || true
	BULK=
	echo "beside fio: $(jq -c '[.tests[0].breakdown.queue.share, [.findings[] | [.id, .severity, .figures.share, .figures.comm]]]' "$S/q.json")" >&3
	# a warning, with the test's own queue share and mean
	fss_jq "$S/q.json" '.tests[0].breakdown as $b |
		[.findings[] | select(.id == "queue_bound")] | length == 1 and
		(.[0] | .severity == "warning" and .figures.share >= 0.25 and
		 (.figures.share - $b.queue.share | fabs) < 1e-5 and
		 (.figures.mean_us - $b.queue.mean_us | fabs) < 0.01 and
		 (.advice | contains("scheduler")))'
	# who filled the queue: fio's job, named as the neighbour
	fss_jq "$S/q.json" '[.findings[] | select(.id == "neighbour")][0] |
		.severity == "warning" and .figures.comm == "fio"'
}

# other_bound by construction: an O_DSYNC write takes the file's inode
# lock for its copy into the page cache, before the filesystem's fsync code
# (the fs hook) runs.  Two fio jobs that rewrite 64 MiB of the same file
# in one buffered write() after another hold that lock for milliseconds at
# a time and do none of the syncs' block I/O: a sync that arrives then
# waits in none of the I/O phases.  Most syncs still find the lock free
# (p50 12 us), the others wait ms: other was 76-91 % of the sync time, the
# mean 218-704 us (the warning's line: 100 us) in five runs.  Write-through
# queue: no flush to pay.
@test "findings: O_DSYNC writes behind a neighbour that holds the file's inode lock -> other_bound; alone, none" {
	fss_mkfs ext4 512
	local q="/sys/block/${FSS_LOOP#/dev/}/queue/write_cache" f="$FSS_MNT/shared"
	echo "$q" > "$S/.wc_restore"
	echo "write through" > "$q"
	dd if=/dev/zero of="$f" bs=1M count=192 status=none
	sync -f "$f"
	"$FSS_BIN" run --method open_datasync --bs 8k --count 200 --file "$f" \
		--force -j > "$S/alone.json"
	echo "alone: $(jq -c '[.tests[0].breakdown.other.share, [.findings[] | [.id, .severity]]]' "$S/alone.json")" >&3
	fss_jq "$S/alone.json" '[.findings[] | select(.id == "other_bound")] | length == 0'
	fio --name=rewrite --filename="$f" --rw=write --bs=64m --size=64m \
		--numjobs=2 --offset=64m --offset_increment=64m \
		--invalidate=0 --time_based --runtime=300 \
		--output=/dev/null 3>&- &
	BULK=$!
	# ready: fio has its job running (the job is a child of fio)
	for _ in $(seq 100); do
		pgrep -P "$BULK" >/dev/null && break
		sleep 0.1
	done
	pgrep -P "$BULK" >/dev/null
	"$FSS_BIN" run --method open_datasync --bs 8k -s 2 --file "$f" \
		--force -j > "$S/o.json"
	kill "$BULK"
	wait "$BULK" || true
	BULK=
	echo "behind the lock: $(jq -c '[.tests[0].breakdown.other.share, .tests[0].breakdown_total, .tests[0].latency_us, [.findings[] | [.id, .severity, .figures.share]]]' "$S/o.json")" >&3
	fss_jq "$S/o.json" '.tests[0].syncs_by_kind.dsync_write == .tests[0].syncs_traced'
	fss_jq "$S/o.json" '.tests[0].breakdown as $b |
		[.findings[] | select(.id == "other_bound")] | length == 1 and
		(.[0] | .severity == "warning" and .figures.share >= 0.25 and
		 (.figures.share - $b.other.share | fabs) < 1e-5 and
		 .figures.total_mean_us >= 100 and
		 (.advice | contains("inode lock")))'
}

@test "findings: btrfs compressing every write with zstd:15 -> fs_bound with the bytes each sync writes back; uncompressed, none" {
	modprobe btrfs 2>/dev/null || true
	grep -qw btrfs /proc/filesystems || skip "no btrfs in this kernel"
	fss_mkfs btrfs 512
	local w=(run --method fsync --bs 64k --writes-per-sync 16
		 --file-size 64m --count 60 -j)
	# uncompressed: the 1 MiB each sync writes back is the device's time
	"$FSS_BIN" "${w[@]}" "$FSS_MNT" > "$S/plain.json"
	echo "plain: $(jq -c '[.tests[0].breakdown.fs.share, [.findings[] | [.id, .severity]]]' "$S/plain.json")" >&3
	fss_jq "$S/plain.json" '[.findings[] | select(.id == "fs_bound" and
		.severity != "info")] | length == 0'
	# compressed at zstd's level 15, the caller waits inside btrfs while
	# its workers compress: fs time (measured: fs 0.99 of 18 ms a sync)
	mount -o remount,compress-force=zstd:15 "$FSS_MNT"
	run -0 "$FSS_BIN" "${w[@]:0:11}" --save "$S/z.json" "$FSS_MNT"
	printf '%s\n' "$output" > "$S/z.txt"
	echo "zstd:15: $(jq -c '[.tests[0].breakdown.fs.share, .tests[0].latency_us.mean, [.findings[] | [.id, .severity]]]' "$S/z.json")" >&3
	fss_jq "$S/z.json" '.tests[0].breakdown as $b |
		[.findings[] | select(.id == "fs_bound")] | length == 1 and
		(.[0] | .severity == "warning" and .figures.share >= 0.5 and
		 (.figures.share - $b.fs.share | fabs) < 1e-5 and
		 .figures.bytes_per_sync == 1048576 and
		 (.evidence | contains("1048576 bytes (16 x 65536)")) and
		 (.advice | contains("sync_file_range")) and
		 .refs[0] == "docs/findings.md#fs_bound")'
	# btrfs's workers write the compressed data: a kernel thread's own
	# I/O is never a neighbour to ionice (kernel_worker, info)
	fss_jq "$S/z.json" '[.tests[0].blame.others[] |
		select(.comm | startswith("kworker/"))] as $k |
		($k | length > 0 and all(.kernel_thread)) and
		([.findings[] | select(.id == "neighbour" and
		  (.figures.pid | IN($k[].pid)))] | length == 0) and
		all(.findings[] | select(.id == "kernel_worker");
		    .severity == "info")'
	# the text's FINDINGS block names it, and report prints the same
	block "$S/z.txt" | grep -q '^  WARNING  Syncs spend [0-9]* % of their time in btrfs'
	"$FSS_BIN" report --format text "$S/z.json" > "$S/z.report"
	diff <(block "$S/z.txt") <(block "$S/z.report")
}

# writer_share PID: jq over a trace summary, the share of PID's caused_ns
# in the blamed time of the other processes' syncs (findings_rules.c's
# others_total: all traced syncs' blamed time, less PID's own).
writer_share() {
	echo "(.blame | .self_ns + .others_ns + .unattributed_ns) as \$t |
		([.processes[]? | select(.pid == $1) | .blame |
		  .self_ns + .others_ns + .unattributed_ns][0] // 0) as \$own |
		(if \$own > 0 and \$own < \$t then \$t - \$own else \$t end) as \$tot |
		(([.blamed[] | select(.pid == $1)][0].caused_ns // 0) / \$tot)"
}

@test "findings: a big buffered writer beside an overwriter -> the writer named as a neighbour; alone, none" {
	fss_mkfs ext4 512
	mkdir "$FSS_MNT/o" "$FSS_MNT/w"
	scenario alone "$BLAMER overwrite $FSS_MNT/o 2 > $FSS_SCRATCH/ow0.pid" \
		--mount "$FSS_MNT"
	jq -c 'select(.type == "summary")' "$S/alone.out" > "$S/alone.json"
	fss_jq "$S/alone.json" '[.findings[] | select(.id == "neighbour")] | length == 0'
	fss_jq "$S/alone.json" 'all(.findings[]; .severity != "critical")'
	# The writer runs over all of the overwriter's syncs: with 1 s of
	# overwriter alone before and after a 2 s writer (as this test had
	# it), the writer's share of the blamed time was 0.21-0.28 in 14 CI
	# runs, and 1 run in 15 fell under the 20 % of the rule.  Now 0.38-0.62
	# on a quiet machine, 0.26-0.44 in CI: how much a CPU-starved writer
	# dirties varies.  In every attempt the finding must be there exactly
	# when blamed[]'s share is at the rule's 20 %; the scenario is run
	# once more if the writer stayed under it, and the second must name it.
	local w attempt
	for attempt in 1 2; do
		scenario writer "
			$BLAMER writer $FSS_MNT/w 3 > $FSS_SCRATCH/w.pid &
			sleep 0.5
			$BLAMER overwrite $FSS_MNT/o 2 > $FSS_SCRATCH/ow.pid
			wait" --mount "$FSS_MNT"
		w="$(pid_of "$S/w.pid")"
		[ -n "$w" ]
		jq -c 'select(.type == "summary")' "$S/writer.out" > "$S/writer.json"
		echo "attempt $attempt findings: $(jq -c '[.findings[] | [.id, .severity, .figures.pid, .figures.share]]' "$S/writer.json")" >&3
		echo "attempt $attempt blamed: $(jq -c '[.blamed[:4][] | [.pid, .comm, .caused_ns]]' "$S/writer.json")" >&3
		echo "attempt $attempt writer share: $(jq "$(writer_share "$w")" "$S/writer.json")" >&3
		# named exactly when its share of others' blamed time is >= 20 %
		fss_jq "$S/writer.json" "($(writer_share "$w") >= 0.2) ==
			([.findings[] | select(.id == \"neighbour\" and
			  .figures.pid == $w)] | length > 0)"
		jq -e "[.findings[] | select(.id == \"neighbour\")] | length > 0" \
			"$S/writer.json" > /dev/null && break
	done
	# named with its pid, comm, cgroup and the time it caused, as blamed[] says
	fss_jq "$S/writer.json" "[.findings[] | select(.id == \"neighbour\")][0] |
		.severity == \"warning\" and .figures.pid == $w and
		.figures.comm == \"bigwriter\" and .figures.cgroup != null and
		(.evidence | contains(\"pid $w bigwriter\")) and
		(.advice | contains(\"io.max\"))"
	fss_jq "$S/writer.json" "([.blamed[] | select(.pid == $w)][0].caused_ns) as \$c |
		[.findings[] | select(.id == \"neighbour\")][0].figures.caused_ns == \$c"
	# the trace text prints it right after the summary's header line
	"$FSS_BIN" report --format text "$S/writer.out" > "$S/writer.txt"
	grep -A1 '^=== summary' "$S/writer.txt" | grep -q '^FINDINGS ('
	grep -q "WARNING  A neighbour slows the syncs: pid $w bigwriter" "$S/writer.txt"
}

@test "findings: first on the HTML page of a run and of a trace summary (chromium), as in the JSON" {
	[ -x "$PY" ] || skip "no $PY: run 'make pydeps'"
	mkdir -p "$ART"
	fss_mkfs ext4 256
	mkdir "$FSS_MNT/o" "$FSS_MNT/w"
	mount -o remount,barrier=0 "$FSS_MNT"
	"$FSS_BIN" run --method fdatasync --bs 8k -s 0.5 -j "$FSS_MNT" > "$S/nb.json"
	mount -o remount,barrier=1 "$FSS_MNT"
	echo "run findings: $(jq -c "[.findings[] | [.id, .severity]]" "$S/nb.json")" >&3
	"$FSS_BIN" report -o "$S/nb.html" "$S/nb.json"
	grep -q 'data-id="no_flush" data-severity="critical"' "$S/nb.html"
	run "$PY" "$FSS_ROOT/tests/helpers/check-html" "$S/nb.html" "$S/nb.json" \
		"$ART/findings-run.png"
	echo "$output"
	[ "$status" -eq 0 ] && [[ "${lines[-1]}" == *" 0 problems" ]]
	scenario writer "
		$BLAMER overwrite $FSS_MNT/o 3 > $FSS_SCRATCH/ow.pid &
		sleep 1
		$BLAMER writer $FSS_MNT/w 1 > $FSS_SCRATCH/w.pid
		wait" --mount "$FSS_MNT"
	jq -c 'select(.type == "summary")' "$S/writer.out" > "$S/writer.json"
	"$FSS_BIN" report -o "$S/writer.html" "$S/writer.json"
	run "$PY" "$FSS_ROOT/tests/helpers/check-html" "$S/writer.html" \
		"$S/writer.json" "$ART/findings-trace.png"
	echo "$output"
	[ "$status" -eq 0 ] && [[ "${lines[-1]}" == *" 0 problems" ]]
}

@test "findings: compare judges each filesystem's tests against its own loop device; text before the tables, report the same" {
	fss_scratch
	mkdir "$S/imgs"
	run -0 "$FSS_BIN" compare --fs ext4,xfs -s 0.3 --method fdatasync \
		--save "$S/cmp.json" --dir "$S/imgs"
	printf '%s\n' "$output" > "$S/cmp.txt"
	echo "compare findings: $(jq -c "[.findings[] | [.id, .severity, .subject, .figures.disk]]" "$S/cmp.json")" >&3
	fss_jq "$S/cmp.json" '.findings_version == 1 and (.findings | length) > 0'
	# most important first
	fss_jq "$S/cmp.json" '[.findings[].severity | {critical: 2, warning: 1,
		info: 0}[.]] as $s | $s == ($s | sort | reverse)'
	# a finding about a test names it FS/name, and its disk is that
	# filesystem's loop device
	fss_jq "$S/cmp.json" '. as $d | all(.findings[] |
		select(.subject | startswith("test ")); . as $f |
		($f.subject | ltrimstr("test ") | split("/")[0]) as $fs |
		($d.filesystems | map(.fs) | index($fs)) != null and
		($f.figures.disk == null or $f.figures.disk ==
		 ($d.filesystems[] | select(.fs == $fs) | .target.disk)))'
	# the block comes before the first result table, and report prints it
	local fl tl
	fl="$(grep -n '^FINDINGS' "$S/cmp.txt" | cut -d: -f1)"
	tl="$(grep -n '^fdatasync_overwrite:' "$S/cmp.txt" | head -1 | cut -d: -f1)"
	[ -n "$fl" ] && [ -n "$tl" ] && [ "$fl" -lt "$tl" ]
	"$FSS_BIN" report --format text "$S/cmp.json" > "$S/cmp.report"
	diff <(block "$S/cmp.txt") <(block "$S/cmp.report")
}


# syncs_incomplete: a flush on the sync's device that starts inside a sync
# belongs to it (docs/model.md), waited for or not.  The loop device runs
# one flush at a time: a flush asked for while one runs waits, and the
# block layer starts it when the running one completes.  Three neighbours
# fdatasync a clean file each in a loop (xfs sends a bare flush), so one
# of them is always waiting when the syncer's flush completes: their flush
# starts ~20 us after it, while the syncer is still returning from
# fdatasync (its exit ~20-60 us after) - or just after, a race the tool
# cannot change.  With the FUSE fixture holding every flush 300 ms, a
# flush started inside the run's last sync is still held when the run ends
# (the tracer waits 20 ms for open requests): that sync is painted without
# its completion.  Measured: the last of 3 syncs was, in 6 of 10 runs; so
# up to 8 runs of 3 syncs, each checked, until one shows it.  Alone, none.
@test "findings: a neighbour's flush still held by the device when the run ends -> syncs_incomplete with the test's counts; alone, none" {
	delay_setup xfs 320
	local i fs0 got=0 t="$S/inc.json"
	delay_set fsync_us=300000 write_us=0 reset
	"$FSS_BIN" run --method fdatasync --bs 8k --count 3 -j \
		"$DELAY_MNT" > "$S/alone.json"
	fss_jq "$S/alone.json" ".tests[0].syncs_traced == 3 and
		.tests[0].syncs_incomplete == 0 and
		([.findings[] | select(.id == \"syncs_incomplete\")] | length == 0)"
	fs0="$(delay_counter fsyncs)"
	"$DELAY_PYTHON" -c '
import os, sys, threading
def loop(p):
    fd = os.open(p, os.O_RDWR | os.O_CREAT, 0o600)
    while True:
        os.fdatasync(fd)
for i in range(3):
    threading.Thread(target=loop, daemon=True,
                     args=(sys.argv[1] + "/nb%d" % i,)).start()
threading.Event().wait()' "$DELAY_MNT" 3>&- &
	BULK=$!
	# ready: the neighbours' flushes reach the backing file
	for _ in $(seq 100); do
		[ "$(delay_counter fsyncs)" -ge $((fs0 + 3)) ] && break
		sleep 0.1
	done
	[ "$(delay_counter fsyncs)" -ge $((fs0 + 3)) ]
	for i in $(seq 8); do
		"$FSS_BIN" run --method fdatasync --bs 8k --count 3 \
			--save "$t" "$DELAY_MNT" > "$S/inc.txt"
		echo "run $i: $(jq -c '[(.tests[0] | [.syncs_traced, .syncs_incomplete, .incomplete_rqs]), [.findings[] | select(.id == "syncs_incomplete") | .evidence]]' "$t")" >&3
		# every run: the finding exactly when a sync was painted so,
		# with the test's own counts in its figures and its words
		fss_jq "$t" ".tests[0] as \$t | \$t.syncs_traced == 3 and
			([.findings[] | select(.id == \"syncs_incomplete\")] |
			if \$t.syncs_incomplete == 0 then length == 0 else
			length == 1 and (.[0] | .severity == \"info\" and
			.figures.syncs_incomplete == \$t.syncs_incomplete and
			.figures.syncs == \$t.syncs_traced and
			\$t.incomplete_rqs >= 1 and
			(.evidence | startswith(\"\(\$t.syncs_incomplete) of \" +
			 \"\(\$t.syncs_traced) syncs of test custom.fdatasync \" +
			 \"were painted without all their requests \" +
			 \"(\(\$t.incomplete_rqs) request\"))) end)"
		if [ "$(jq '.tests[0].syncs_incomplete' "$t")" -gt 0 ]; then
			got=1
			break
		fi
	done
	kill "$BULK"
	wait "$BULK" || true
	BULK=
	[ "$got" -eq 1 ]
	# the text says it in FINDINGS and under the breakdown
	block "$S/inc.txt" | grep -q 'lack some of their requests'
	grep -q 'with no completion event: painted as in flight' "$S/inc.txt"
}
