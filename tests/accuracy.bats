#!/usr/bin/env bats
# Ground truth (issue 4): delays injected below the filesystem must come out
# in the phase where they were injected.
#
# The fixture (tests/fixtures/delay.bash, docs/accuracy.md "Method") puts
# ext4 or xfs on a loop device whose backing file lives on delayfs, a FUSE
# filesystem that holds every fsync of that file for fsync_us and every
# write for write_us.  The loop driver turns a flush request into an fsync
# of the backing file and a write request into a write of it, so fsync_us
# becomes the loop device's flush time (device_flush) and write_us its
# write time (device_write).
#
# Each test runs `fsyncscope run` on the fixture's filesystem, first with no
# delay (the baseline of that same workload, measured in the same test on
# the same mount), then with the delays, and compares per-phase MEDIANS over
# N syncs (tests/helpers/phase-stats), never single samples.
#
# Tolerances (every assertion names the one it uses):
#
# DELAY_TOL = 10 % of the injected delay (issue 4).  The measured phase
#   minus its baseline median must be within it.  What it has to absorb is
#   the fixture's own overhead above the injected delay: delayfs' wake-up
#   latency, the FUSE round trip and the loop worker, 6-160 us per delayed
#   request in 7 runs of this file on this 2-core VM (docs/accuracy.md), at
#   most 3.9 % of 2 ms and 1.4 % of 8 ms.  Smaller delays would drown in it;
#   larger ones make it smaller still.  On a host busy with other work that
#   overhead grows (the loop worker and the syncing thread wait for a CPU
#   after the FUSE reply): one CI run of 20 measured a 2 ms flush delay as
#   2.26 ms above its baseline, every other phase at baseline.  So a pair
#   (baseline, delayed run) that misses DELAY_TOL is measured once more and
#   the second pair decides (`delayed`); the first is printed.  A delay
#   painted into the wrong phase misses in both pairs, and the OTHER_TOL
#   and count checks below apply to the pair that is kept.
#
# OTHER_TOL = 1 ms absolute, for the phases where nothing was injected: the
#   median must not exceed its baseline median by more than 1 ms.  Baseline
#   medians of each phase are below 0.4 ms here, and with delays the phases
#   that were not delayed grew by at most 0.3 ms (a sync that sleeps for
#   milliseconds wakes on a cold CPU; a journal commit that now always
#   happens adds a few requests).  1 ms is about three times that, and
#   still half of the smallest injected delay: a delay put in the wrong
#   phase fails this check as well as the DELAY_TOL one.  The check is
#   one-sided because the question is whether the injected delay leaked
#   into the phase, which can only make it longer; a phase shorter than its
#   baseline means the baseline run was disturbed (other test runs on both
#   CPUs delay the jbd2 thread and the syncing thread: a baseline journal
#   median of 3.4 ms was seen, against 0.1 ms in the delayed run after it).
#
# CLOCK_TOL = 2 % (issue 4): the traced sync's total against the workload's
#   own clock, both CLOCK_MONOTONIC medians (see the last test).
#
# Counts (flushes and write requests per sync, commits, delayfs requests)
# are exact where the kernel's behaviour is exact.  No upper bound on a
# total or a phase depends on the machine's load except through these
# tolerances around medians.
#
# ACC_LOG=FILE appends one line per run (case, delays, per-phase medians in
# us) to FILE; docs/accuracy.md's table was made that way.

load lib
load fixtures/delay

N=41			# syncs per run: odd, so a median is a value a sync had
DELAY_TOL_PCT=10	# DELAY_TOL, percent of the injected delay
OTHER_TOL=1000000	# OTHER_TOL, ns
CLOCK_TOL_PCT=2		# CLOCK_TOL, percent
PHASES="fs journal queue device_write device_flush other"
PHASE_STATS="$FSS_ROOT/tests/helpers/phase-stats"

setup() {
	fss_need_root
	[ -x "$FSS_BIN" ] || skip "fsyncscope not built (make)"
	[ -x "$DELAYFS_BIN" ] || skip "delayfs not built (make build/tests/delayfs)"
}

teardown() {
	local p
	if [ -f "$FSS_SCRATCH/bg.pids" ]; then
		for p in $(cat "$FSS_SCRATCH/bg.pids"); do
			kill -TERM "$p" 2>/dev/null || true
		done
		for p in $(cat "$FSS_SCRATCH/bg.pids"); do
			wait "$p" 2>/dev/null || true
		done
	fi
	fss_cleanup	# tears the delay fixture down first
}

# setup_fixture FS: the delay fixture with delayfs at a real-time priority.
# The daemon stands in for a device, which does not wait for a CPU; at the
# default priority it does, and on this 2-core VM shared with other test
# runs (a QEMU guest at 90 % of a CPU, pg_test_fsync) its sleeps overshot
# by milliseconds: with 4 busy loops running, delayfs' own clock gave a
# mean fsync handler time of 2.9-7.6 ms for a 2 ms delay and 9.5-16.5 ms
# for 8 ms, and the loop device's flush medians were up to 10.9 ms for
# 8 ms.  With SCHED_FIFO the same runs gave 2016-2020 us and 8017-8041 us
# handler means, and flush medians within 2050-2091 us and 8072-8133 us.
# Threads libfuse starts later inherit the policy (glibc's default
# PTHREAD_INHERIT_SCHED).  The daemon sleeps almost all the time, so it
# takes next to no CPU from anyone.
setup_fixture() {
	delay_setup "$1"
	chrt --all-tasks --fifo --pid 10 "$DELAY_PID" >/dev/null
	rt_check
}

# rt_check: every thread of delayfs is SCHED_FIFO (also the ones started
# since setup_fixture)
rt_check() {
	local t pol
	for t in /proc/"$DELAY_PID"/task/*; do
		pol="$(chrt --pid "${t##*/}" | sed -n 's/.*policy: //p')"
		if [ "$pol" != SCHED_FIFO ]; then
			echo "delayfs thread ${t##*/} is $pol, not SCHED_FIFO" >&2
			return 1
		fi
	done
}

# measure NAME FSYNC_US WRITE_US RUN_ARGS...: set the delays, reset delayfs'
# counters, trace N syncs of 8 KiB with `fsyncscope run` on the fixture's
# filesystem and keep the medians in $FSS_SCRATCH/NAME.stats (phase-stats
# JSON).  Checks what must hold for every run: every op traced as one sync,
# no lost events, every sync's phases adding up exactly to its total.
#
# A run whose own report says its data is incomplete (events lost: drops,
# which counts the program runs the kernel skipped; or requests painted
# with no completion seen: incomplete_rqs) is not a sample of what this
# file checks, which is where the time goes when every event was seen.  It
# is said on stderr and measured once more; the second run is kept
# whatever it says, and must have no lost events.  (One CI run had a
# request with no completion painted over most syncs of a run: median
# writes=2, device_write covering fs and queue.  Lost completions are now
# bounded by the request's reuse, docs/model.md; this keeps such a run
# from deciding a test about delays.)
#
# The run is niced to -20.  A syncing thread that slept through an 8 ms
# delay has to get a CPU back before its sync can go on or return; with
# other test runs (and, to check, 4 busy loops) on the 2 CPUs that wait was
# 1.3-2.8 ms at the median, in fs (between the data write and the commit)
# or other (after the last request).  fsyncscope is right to report it
# there, but it is noise for this test, not part of what was injected; at
# nice -20 the same runs kept fs and other below 0.2 ms.
measure() {
	local name="$1" fus="$2" wus="$3"
	shift 3
	local out="$FSS_SCRATCH/$name.json" ev="$FSS_SCRATCH/$name.events"
	local st="$FSS_SCRATCH/$name.stats" line p try lost

	for try in 1 2; do
		delay_set fsync_us="$fus" write_us="$wus" reset
		nice -n -20 "$FSS_BIN" run --json --events "$ev" --bs 8k \
			--count "$N" "$@" "$DELAY_MNT" >"$out"
		# --painter kernel: no request record, incomplete_rqs null
		lost="$(jq -r '"drops=\(.tests[0].drops) incomplete_rqs=\(.tests[0].incomplete_rqs // 0)"' "$out")"
		[ "$lost" != "drops=0 incomplete_rqs=0" ] || break
		[ "$try" -eq 2 ] || echo "$name: incomplete run ($lost), measured again" >&2
	done
	delay_counters >"$FSS_SCRATCH/$name.ctl"
	rt_check
	"$PHASE_STATS" "$ev" "$out" >"$st"
	fss_jq "$out" '.tests[0].status == "ok" and .drops == 0'
	fss_jq "$out" ".tests[0].ops == $N and .tests[0].syncs_traced == $N"
	fss_jq "$st" ".n == $N and .exact"

	line="$(printf '%-26s %-3s f=%-5s w=%-5s' "$name" "$DELAY_FS" "$fus" "$wus")"
	for p in total $PHASES; do
		line+=" $p=$(jq ".$p / 1000 | floor" "$st")"
	done
	line+=" flushes=$(jq .flushes "$st") writes=$(jq .writes "$st")"
	line+=" incomplete=$(jq .incomplete "$st")"
	line+=" op_p50=$(jq '.op_p50 / 1000 | floor' "$st")"
	# delayfs' own clock: mean time in its fsync and write handlers (us),
	# the injected sleep included; what the fixture added beyond that
	# (FUSE reply, the loop worker getting a CPU) is not in it
	line+=" delayfs_fsync=$(handler_us "$name" fsync)"
	line+=" delayfs_write=$(handler_us "$name" write)"
	[ "$try" -eq 1 ] || line+=" (second run: $lost)"
	echo "$line"
	if [ -n "${ACC_LOG:-}" ]; then
		echo "$line" >>"$ACC_LOG"
	fi
}

# val NAME KEY: one value of a run's stats
val() {
	jq -e ".$2" "$FSS_SCRATCH/$1.stats"
}

# count_is NAME KEY WANT...: the median count KEY (flushes, writes or
# journal_commits) of run NAME is one of WANT.  If not, the syncs whose own
# count is none of WANT go to stderr (at most 8, with their phases and
# request counts), so a failure in CI says which syncs and what they saw.
count_is() {
	local name="$1" key="$2" v w
	shift 2
	v="$(val "$name" "$key")" || return 1
	for w in "$@"; do
		[ "$v" -ne "$w" ] || return 0
	done
	echo "$name: median $key $v, expected one of: $*" >&2
	jq -c --argjson want "$(printf '%s\n' "$@" | jq -s -c .)" --arg key "$key" '
		{ flushes: .nr_flush,
		  writes: (.nr_write + .nr_fua + (.nr_fua_emulated // 0)),
		  journal_commits: .nr_journal }[$key] as $c
		| select([$want[] | . == $c] | any | not)
		| del(.test, .comm, .kind, .dev, .ino, .ret, .pid)' \
		"$FSS_SCRATCH/$name.events" | head -n 8 >&2
	return 1
}

# ctl NAME KEY: a delayfs counter read right after the run NAME
ctl() {
	sed -n "s/^$2=//p" "$FSS_SCRATCH/$1.ctl"
}

# handler_us NAME fsync|write: delayfs' mean handler time in run NAME, us
# ("-" when it served none)
handler_us() {
	local n ns
	n="$(ctl "$1" "$2s")" && ns="$(ctl "$1" "$2_ns")"
	if [ -z "$n" ] || [ "$n" -eq 0 ]; then
		echo -
	else
		echo $((ns / n / 1000))
	fi
}

# delay_in NAME BASE PHASE EXPECTED_NS: median of PHASE in NAME minus its
# median in BASE is EXPECTED_NS +- DELAY_TOL.
delay_in() {
	local v b d tol
	v="$(val "$1" "$3")" && b="$(val "$2" "$3")" || return 1
	d=$((v - b))
	tol=$(($4 * DELAY_TOL_PCT / 100))
	if [ "$d" -lt $(($4 - tol)) ] || [ "$d" -gt $(($4 + tol)) ]; then
		echo "$1: median $3 $v - baseline $b = $d ns, expected $4 +- $tol" >&2
		return 1
	fi
}

# delayed BASE NAME FSYNC_US WRITE_US PHASE EXPECTED_NS RUN_ARGS...: measure
# NAME with the delays (BASE is the same RUN_ARGS without them, measured
# already) and check delay_in NAME BASE PHASE EXPECTED_NS; when that misses,
# BASE and NAME are measured once more and the second pair decides (the
# first said on stderr; DELAY_TOL at the top of the file says why).
delayed() {
	local base="$1" name="$2" fus="$3" wus="$4" phase="$5" want="$6"
	shift 6
	measure "$name" "$fus" "$wus" "$@"
	delay_in "$name" "$base" "$phase" "$want" && return 0
	echo "$name: missed DELAY_TOL; $base and $name measured again" >&2
	measure "$base" 0 0 "$@"
	measure "$name" "$fus" "$wus" "$@"
	delay_in "$name" "$base" "$phase" "$want"
}

# stays NAME BASE PHASE...: median of each PHASE in NAME is at most
# OTHER_TOL above its median in BASE (one-sided: see the top of the file).
stays() {
	local name="$1" base="$2" p v b
	shift 2
	for p in "$@"; do
		v="$(val "$name" "$p")" && b="$(val "$base" "$p")" || return 1
		if [ "$v" -gt $((b + OTHER_TOL)) ]; then
			echo "$name: median $p $v ns, baseline $b ns: more than $OTHER_TOL ns above" >&2
			return 1
		fi
	done
}

# all phases but the ones named
phases_but() {
	local p skip=" $* "
	for p in $PHASES; do
		[[ "$skip" == *" $p "* ]] || echo "$p"
	done
}

# Flush delays of 2 ms and 8 ms with fdatasync of a buffered overwrite: each
# sync sends one data write and one flush to the loop device, the flush
# carries the delay.
check_flush_delay() {
	local d
	setup_fixture "$1"
	measure base 0 0 --method fdatasync --pattern overwrite --file-size 1m
	for d in 2000 8000; do
		# the delay: DELAY_TOL
		delayed base "flush$d" "$d" 0 device_flush $((d * 1000)) \
			--method fdatasync --pattern overwrite --file-size 1m
		# everything else: OTHER_TOL
		# shellcheck disable=SC2046
		stays "flush$d" base $(phases_but device_flush)
		# exact: one flush and one write request per fdatasync, and
		# every one of them reached delayfs (calibration and prefill
		# add a few fsyncs of their own, hence >=)
		count_is flush$d flushes 1
		count_is flush$d writes 1
		[ "$(ctl "flush$d" fsyncs)" -ge "$N" ]
	done
}

# A write delay with O_DIRECT.
#  - O_DIRECT write, then fdatasync: the write has completed before the
#    fdatasync starts, so its delay is in the workload's op (lower bound:
#    a write held D cannot take less than D) and NOT in the sync at all:
#    the fdatasync's total and every phase stay at baseline (OTHER_TOL).
#  - O_DIRECT|O_DSYNC write (--method open_datasync --direct): the write is
#    the sync; its delay is device_write (DELAY_TOL); the flush that
#    follows the write (FUA emulated on this loop device) stays at baseline.
check_direct_write_delay() {
	local d=8000
	setup_fixture "$1"
	measure odirect_base 0 0 --method fdatasync --direct --pattern overwrite \
		--file-size 1m
	measure odirect_w$d 0 "$d" --method fdatasync --direct --pattern overwrite \
		--file-size 1m
	[ "$(val odirect_w$d op_p50)" -ge $((d * 1000)) ]
	# shellcheck disable=SC2086
	stays odirect_w$d odirect_base total $PHASES
	[ "$(ctl odirect_w$d writes)" -ge "$N" ]

	measure dsync_base 0 0 --method open_datasync --direct --pattern overwrite \
		--file-size 1m
	delayed dsync_base dsync_w$d 0 "$d" device_write $((d * 1000)) \
		--method open_datasync --direct --pattern overwrite --file-size 1m
	fss_jq "$FSS_SCRATCH/dsync_w$d.stats" '.kinds == ["dsync_write"]'
	# shellcheck disable=SC2046
	stays dsync_w$d dsync_base $(phases_but device_write)
	count_is dsync_w$d writes 1
	[ "$(ctl dsync_w$d writes)" -ge "$N" ]
}

# A write delay with buffered writes + fsync of an overwrite: fsync writes
# the data, then the journal commits, and every write request carries the
# delay, one after the other: K writes per sync, K = 3 on ext4 (data, the
# journal's logged blocks, the commit record), 2 on xfs (data, the log
# write).  With an 8 ms delay every fsync spans a timer tick, so mtime
# changes and the journal commits every time (without delay most fsyncs
# find nothing to commit, hence the per-phase OTHER_TOL baseline rather
# than the baseline's counts).  device_write = K x D (DELAY_TOL of K x D);
# device_flush stays at baseline (OTHER_TOL): the flushes are not delayed.
check_buffered_write_delay() {
	local d=8000 k="$2"
	setup_fixture "$1"
	measure fsync_base 0 0 --method fsync --pattern overwrite --file-size 1m
	# K serial writes; the jbd2 commit may log its metadata in one or two
	# requests (seen in CI: 4 on ext4), the extra one issued together with
	# another, so the painted delay is still K x D.
	delayed fsync_base fsync_w$d 0 "$d" device_write $((k * d * 1000)) \
		--method fsync --pattern overwrite --file-size 1m
	count_is fsync_w$d writes "$k" $((k + 1))
	# shellcheck disable=SC2046
	stays fsync_w$d fsync_base $(phases_but device_write)
	[ "$(ctl fsync_w$d writes)" -ge $((k * N)) ]
}

@test "baseline: ext4 fdatasync overwrite without delay, medians recorded" {
	setup_fixture ext4
	measure baseline 0 0 --method fdatasync --pattern overwrite --file-size 1m
	# recorded: the per-phase medians of this run
	[ -s "$FSS_SCRATCH/baseline.stats" ]
	local p
	for p in total $PHASES; do
		val baseline "$p" >/dev/null
	done
	fss_jq "$FSS_SCRATCH/baseline.stats" '.kinds == ["fdatasync"]'
	# the loop device has a write-back cache: one data write and one flush
	# per fdatasync, each served by delayfs
	count_is baseline flushes 1
	count_is baseline writes 1
	[ "$(ctl baseline fsyncs)" -ge "$N" ]
	[ "$(ctl baseline writes)" -ge "$N" ]
	# nothing injected: the delayfs handlers did not sleep
	[ "$(ctl baseline fsync_us)" -eq 0 ]
	[ "$(ctl baseline write_us)" -eq 0 ]
	# with no journal commit in an fdatasync of an overwrite, the journal
	# phase is exactly 0
	[ "$(val baseline journal)" -eq 0 ]
}

@test "ext4: 2 ms and 8 ms flush delays land in device_flush" {
	check_flush_delay ext4
}

@test "ext4: a write delay with O_DIRECT lands in the write, not in device_flush" {
	check_direct_write_delay ext4
}

@test "ext4: a write delay with buffered writes + fsync lands in device_write (3 writes)" {
	check_buffered_write_delay ext4 3
}

@test "xfs: 2 ms and 8 ms flush delays land in device_flush" {
	check_flush_delay xfs
}

@test "xfs: a write delay with O_DIRECT lands in the write, not in device_flush" {
	check_direct_write_delay xfs
}

@test "xfs: a write delay with buffered writes + fsync lands in device_write (2 writes)" {
	check_buffered_write_delay xfs 2
}

# The kernel painter (run --painter kernel, docs/hotpath.md): the same
# injected delays come back from the kernel's clocks, one record per sync.
# Its syncs carry no request counts (null), but its pure flushes are its
# own (nr_flush): one per fdatasync of an overwrite.  The user painter's
# baseline of the same run shape is the reference for the other phases.
check_kernel_painter() {
	local d=8000 k=(--painter kernel)
	setup_fixture "$1"
	measure kbase 0 0 "${k[@]}" --method fdatasync --pattern overwrite \
		--file-size 1m
	fss_jq "$FSS_SCRATCH/kbase.json" '.options.painter == "kernel" and
		.tests[0].painter == "kernel" and
		.tests[0].incomplete_rqs == null and
		(.strategy.blame | startswith("on demand (--painter kernel)"))'
	[ -z "$(jq -c 'select(.painter != "kernel" or .nr_write != null)' \
		"$FSS_SCRATCH/kbase.events")" ]
	delayed kbase kflush$d "$d" 0 device_flush $((d * 1000)) "${k[@]}" \
		--method fdatasync --pattern overwrite --file-size 1m
	count_is kflush$d flushes 1
	# shellcheck disable=SC2046
	stays kflush$d kbase $(phases_but device_flush)
	[ "$(ctl kflush$d fsyncs)" -ge "$N" ]
	# an O_DSYNC write's delay: its device_write
	measure kdsync_base 0 0 "${k[@]}" --method open_datasync --direct \
		--pattern overwrite --file-size 1m
	delayed kdsync_base kdsync_w$d 0 "$d" device_write $((d * 1000)) \
		"${k[@]}" --method open_datasync --direct --pattern overwrite \
		--file-size 1m
	# shellcheck disable=SC2046
	stays kdsync_w$d kdsync_base $(phases_but device_write)
}

@test "ext4, --painter kernel: flush and O_DSYNC write delays land in device_flush and device_write" {
	check_kernel_painter ext4
}

@test "xfs, --painter kernel: flush and O_DSYNC write delays land in device_flush and device_write" {
	check_kernel_painter xfs
}

# ext4 append + fsync: the size changes, so every fsync waits for a jbd2
# commit, whose commit record asks for PREFLUSH|FUA.  The loop device has
# no FUA, so the block layer runs it as flush, write, flush: two delayed
# flushes per sync, reaching the sync only through the commit.  Asserted:
#  - exact: 2 pure flushes per sync (median), and the sync overlapped
#    1 jbd2 commit of its filesystem (median);
#  - device_flush - baseline = 2 x D, DELAY_TOL of 2 x D;
#  - journal > 0 (median): the commit is seen, and it is painted as
#    journal wherever no request of it is on the device;
#  - every other phase, journal included, within OTHER_TOL of baseline:
#    the delay is device time, not journal time.
@test "ext4 journal: append + fsync with a flush delay gets 2 x D of device_flush via the jbd2 commit" {
	local d=8000
	setup_fixture ext4
	local q="/sys/block/${DELAY_LOOP#/dev/}/queue"
	[ "$(cat "$q/write_cache")" = "write back" ]
	[ "$(cat "$q/fua")" -eq 0 ]
	measure append_base 0 0 --method fsync --pattern append
	delayed append_base append_f$d "$d" 0 device_flush $((2 * d * 1000)) \
		--method fsync --pattern append
	count_is append_f$d flushes 2
	count_is append_f$d journal_commits 1
	[ "$(val append_f$d journal)" -gt 0 ]
	# shellcheck disable=SC2046
	stays append_f$d append_base $(phases_but device_flush)
	[ "$(ctl append_f$d fsyncs)" -ge $((2 * N)) ]
}

# A sync longer than the tracer keeps finished requests for (the 300 ms
# drain lag plus the 250 ms slack):
# O_DSYNC writes of 8 KiB with a 1.5 s flush, in live mode, while another
# disk keeps the tracer busy with requests (O_DIRECT writes on a second
# loop filesystem).  Each write's data request completes right at the start
# of its sync and the flush 1.5 s later.  Before the tracer held what syncs
# in flight overlap (inflight_start, docs/model.md "Long syncs"), the other
# disk's records moved its horizon on and the early data write was
# forgotten before the sync's record came.  Asserted for each of the 3
# syncs: a write request and device_write > 0; device_flush at least 90 %
# of the delay; phases exact.
@test "long syncs: with a 1.5 s flush and other IO going on, the write at the start of each sync is still its device_write" {
	local d=1500000 i out="$FSS_SCRATCH/long.out" err="$FSS_SCRATCH/long.err"
	setup_fixture ext4
	delay_set fsync_us="$d" write_us=0 reset
	fss_mkfs ext4
	(
		while :; do
			dd if=/dev/zero of="$FSS_MNT/bg" bs=4k count=64 oflag=direct \
				status=none 2>/dev/null || exit 0
		done
	) 3>&- &
	echo $! >> "$FSS_SCRATCH/bg.pids"
	mkfifo "$FSS_SCRATCH/go"
	"$FSS_BUILD/tests/syncer" --go "$FSS_SCRATCH/go" --dsync 3 "$DELAY_MNT" \
		> "$FSS_SCRATCH/syncer.out" 2>&1 3>&- &
	echo $! >> "$FSS_SCRATCH/bg.pids"
	local spid=$!
	for i in $(seq 100); do grep -q '^ready' "$FSS_SCRATCH/syncer.out" && break; sleep 0.1; done
	"$FSS_BIN" trace -p "$spid" --json --slower 0 > "$out" 2> "$err" 3>&- &
	local tpid=$!
	echo $tpid >> "$FSS_SCRATCH/bg.pids"
	for i in $(seq 100); do grep -q 'Ctrl-C to stop' "$err" && break; sleep 0.1; done
	echo go > "$FSS_SCRATCH/go"
	for i in $(seq 200); do grep -q '^done' "$FSS_SCRATCH/syncer.out" && break; sleep 0.1; done
	grep -q '^done' "$FSS_SCRATCH/syncer.out"
	sleep 0.5
	kill -INT "$tpid"
	wait "$tpid"
	jq -c 'select(.type == "sync") | {total_ns, device_write_ns, device_flush_ns, nr_write}' "$out"
	[ "$(jq -c 'select(.type == "sync")' "$out" | wc -l)" -eq 3 ]
	[ -z "$(jq -c 'select(.type == "sync") | select(.fs_ns + .journal_ns + .queue_ns + .device_write_ns + .device_flush_ns + .other_ns != .total_ns)' "$out")" ]
	[ "$(jq -c "select(.type == \"sync\" and .nr_write >= 1 and .device_write_ns > 0 and .device_flush_ns >= $d * 900)" "$out" | wc -l)" -eq 3 ]
	# the other disk's requests were really recorded meanwhile
	[ "$(jq -r 'select(.type == "summary") | .events_lost // 0' "$out")" -eq 0 ]
}

# The sync's traced total (syscall entry to exit, from the tracer) against
# the workload's own clock (write + sync, timed by fsyncscope run), both
# CLOCK_MONOTONIC: |p50(op) - median(total)| < CLOCK_TOL of p50(op).
# The op includes what is outside the sync (the buffered pwrite before an
# fdatasync, tens of us), so the delays make the syncs long enough (8 ms,
# 16 ms) for that part to be well below 2 %; with O_DSYNC the write is the
# sync and the two should agree to within the clock reads.
@test "traced sync total agrees with the workload's own clock (< 2 % at the median)" {
	local d=8000 name op tot diff
	setup_fixture ext4
	measure clock_fdatasync "$d" 0 --method fdatasync --pattern overwrite \
		--file-size 1m
	measure clock_dsync 0 "$d" --method open_datasync --direct \
		--pattern overwrite --file-size 1m
	measure clock_append "$d" 0 --method fsync --pattern append
	for name in clock_fdatasync clock_dsync clock_append; do
		op="$(val "$name" op_p50)"
		tot="$(val "$name" total)"
		diff=$((op > tot ? op - tot : tot - op))
		echo "$name: op p50 $op ns, traced total median $tot ns, diff $diff ns"
		[ $((diff * 100)) -lt $((op * CLOCK_TOL_PCT)) ]
		# the sync is part of the op, so its median cannot exceed the
		# op's by more than the tolerance either way; and the traced
		# total did see the delay (lower bound)
		[ "$tot" -ge $((d * 1000)) ]
	done
}
