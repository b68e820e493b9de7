#!/usr/bin/env bats
# Blame (issue 18, docs/blame.md): who made each sync slow.  Two victims,
# as databases sync: an appender (4 KiB append + fsync: commits jbd2) and
# an overwriter (8 KiB fdatasync over preallocated, written blocks: no
# commit, but the queue and the flushes).  One neighbour at a time, each
# started and stopped by the test (tests/helpers/blamer.c), on loop images.
# `trace -- CMD` runs the scenario script; the tracer is attached before it
# starts, and ends with it.  No timing is asserted: only who is named, for
# how much of the blamed time, and that every share carries its counts.

load lib
load blame
bats_require_minimum_version 1.5.0

setup_file() {
	blamer_build
}

setup() {
	fss_need_root
	fss_scratch
	CG=""
}

teardown() {
	blamer_stop
	if [ -n "$CG" ] && [ -d "$CG" ]; then
		rmdir "$CG"/* 2>/dev/null || true
		rmdir "$CG" 2>/dev/null || true
	fi
	fss_cleanup
}

@test "blame: metadata storm on the same ext4 -> the appender's time is blamed mostly on the storm" {
	fss_mkfs ext4 512
	mkdir "$FSS_MNT/a" "$FSS_MNT/s"
	scenario storm "
		$BLAMER append $FSS_MNT/a 5 > $FSS_SCRATCH/app.pid &
		sleep 1
		$BLAMER storm $FSS_MNT/s 3 > $FSS_SCRATCH/storm.pid
		wait" --mount "$FSS_MNT"
	local app storm ev="$FSS_SCRATCH/storm.ev"
	app="$(pid_of "$FSS_SCRATCH/app.pid")"
	storm="$(pid_of "$FSS_SCRATCH/storm.pid")"
	[ -n "$app" ] && [ -n "$storm" ]
	check_evidence "$ev"
	# of the appender's sync time blamed on others, the storm has most
	local by_storm others
	by_storm="$(jq -s "[.[] | select(.pid == $app) | .blame[] |
		select(.pid == $storm) | .blamed_ns] | add // 0" "$ev")"
	others="$(jq -s "[.[] | select(.pid == $app) | .blame_others_ns] | add" "$ev")"
	echo "appender: blamed on storm $by_storm of $others ns blamed on others" >&3
	[ "$by_storm" -gt 0 ]
	[ "$(jq -n "$by_storm >= 0.8 * $others")" = true ]
	# and in the journal by the blocks of the transactions it waited for
	[ "$(jq -s "[.[] | select(.pid == $app) | .blame[] |
		select(.pid == $storm and .phase == \"journal\" and
		       .evidence.blocks > 0 and .evidence.jbd2_tid != null)] |
		length" "$ev")" -gt 0 ]
	# by its name too (owner records carry none: the comm records do)
	[ "$(jq -s "[.[] | .blame[]? | select(.pid == $storm and .comm != \"storm\")] |
		length" "$ev")" -eq 0 ]
	# the summary names it in BLAMED
	jq -se "map(select(.type == \"summary\"))[0].blamed[0] |
		.pid == $storm and .comm == \"storm\"" "$FSS_SCRATCH/storm.out"
	# on the filesystem of the appender's syncs
	local dev
	dev="$(jq -rs "map(select(.pid == $app))[0].dev" "$ev")"
	jq -se "map(select(.type == \"summary\"))[0].blamed[0].dev == \"$dev\"" \
		"$FSS_SCRATCH/storm.out"
	# the summary's findings (docs/findings.md#neighbour) name it too: one
	# neighbour warning, its pid and comm, the journal its phase, its time
	# and share the summary's blame numbers (its own syncs left out of the
	# total), and the time it caused in the appender's syncs no more than
	# what the events blame on it
	local sum="$FSS_SCRATCH/storm.sum"
	jq -s 'map(select(.type == "summary"))[0]' "$FSS_SCRATCH/storm.out" > "$sum"
	echo "findings: $(jq -c '[.findings[] | [.id, .severity, .figures.pid,
		.figures.share, .figures.journal_ns]]' "$sum")" >&3
	fss_jq "$sum" "(.blamed[] | select(.pid == $storm)) as \$x |
		(.blame | .self_ns + .others_ns + .unattributed_ns) as \$all |
		([.processes[] | select(.pid == $storm) | .blame |
		  .self_ns + .others_ns + .unattributed_ns] | add // 0) as \$own |
		(if \$own > 0 and \$own < \$all then \$all - \$own else \$all
		 end) as \$tot |
		[.findings[] | select(.id == \"neighbour\")] | length == 1 and
		(.[0] | .severity == \"warning\" and .figures.pid == $storm and
		 .figures.comm == \"storm\" and
		 .figures.caused_ns == \$x.caused_ns and
		 .figures.journal_ns == \$x.by_phase.journal_ns and
		 .figures.journal_ns > 0 and
		 (.figures.blamed_ns - \$tot | fabs) <= 1 and
		 (.figures.share - \$x.caused_ns / \$tot | fabs) < 1e-5 and
		 .figures.share >= 0.2 and
		 (.evidence | contains(\"pid $storm storm\") and
		  contains(\"its metadata in the journal commits waited for\")))"
	fss_jq "$sum" "[.findings[] | select(.id == \"neighbour\")][0] |
		.figures.caused_ns >= $by_storm * 0.99"
}

# writer_case FS [TRACE_ARGS...]: the overwriter beside a big buffered
# writer (an fsync every 16 MiB) on the same FS: its flush and queue blame
# name the writer
writer_case() {
	local fs="$1"
	shift
	fss_mkfs "$fs" 512
	mkdir "$FSS_MNT/o" "$FSS_MNT/w"
	scenario writer "
		$BLAMER overwrite $FSS_MNT/o 5 > $FSS_SCRATCH/ow.pid &
		sleep 1
		$BLAMER writer $FSS_MNT/w 3 > $FSS_SCRATCH/w.pid
		wait" --mount "$FSS_MNT" "$@"
	set -- "$fs"
	local ow w ev="$FSS_SCRATCH/writer.ev"
	ow="$(pid_of "$FSS_SCRATCH/ow.pid")"
	w="$(pid_of "$FSS_SCRATCH/w.pid")"
	[ -n "$ow" ] && [ -n "$w" ]
	check_evidence "$ev"
	# over the overwriter's syncs whose flushes or queue had any of the
	# writer's bytes: the writer's share of all those bytes
	local ratio
	ratio="$(jq -s "[.[] | select(.pid == $ow) | .blame | group_by(.phase)[] |
		select(.[0].phase == \"device_flush\" or .[0].phase == \"queue\") |
		select(any(.[]; .pid == $w)) |
		{w: ([.[] | select(.pid == $w) | .evidence.bytes] | add),
		 t: .[0].evidence.bytes_total}] |
		([.[].w] | add) / ([.[].t] | add)" "$ev")"
	echo "$1: overwriter: writer's share of the bytes flushed with / ahead of it: $ratio" >&3
	[ "$(jq -n "$ratio >= 0.8")" = true ]
	# in how many of the overwriter's syncs, by phase
	jq -rs "[.[] | select(.pid == $ow)] as \$o |
		([\$o[] | select(any(.blame[]; .phase == \"device_flush\" and
					    .pid == $w))] | length) as \$f |
		([\$o[] | select(any(.blame[]; .phase == \"queue\" and
					    .pid == $w))] | length) as \$q |
		\"$1: the writer is in the device_flush blame of \(\$f) and the queue blame of \(\$q) of \(\$o | length) overwriter syncs\"" \
		"$ev" >&3
	[ "$(jq -s "[.[] | select(.pid == $ow) | .blame[] |
		select(.pid == $w and .phase == \"device_flush\" and
		       .comm == \"bigwriter\")] | length" "$ev")" -gt 0 ]
	[ "$(jq -s "[.[] | .blame[]? | select(.pid == $w and .comm != \"bigwriter\")] |
		length" "$ev")" -eq 0 ]
}

@test "blame: large buffered writer -> the overwriter's flush and queue blame name it with >= 80 % of the bytes" {
	writer_case ext4
}

@test "blame: large buffered writer -> the overwriter's flush and queue blame name it with >= 80 % of the bytes (xfs)" {
	writer_case xfs
}

# --painter kernel: no request record; --slower 0 blames every sync from
# the flight recorder, which must name the writer as the records do
@test "blame: --painter kernel --slower 0: the flight recorder's requests name the big writer with >= 80 % of the bytes" {
	writer_case ext4 --painter kernel --slower 0
	jq -se 'map(select(.type == "start"))[0].strategy.blame |
		startswith("on demand (--painter kernel): the syncs at or above --slower")' \
		"$FSS_SCRATCH/writer.out"
	# every painted sync was blamed (none is summarized here)
	jq -se 'length > 0 and all(.painter == "kernel" and has("blame"))' \
		"$FSS_SCRATCH/writer.ev"
}

# the default threshold: the first 99 syncs of a kind, then only those
# above the running p99 of that kind
@test "blame: --painter kernel without --slower: the warm-up's syncs and the slowest ones are blamed, the others not" {
	fss_mkfs ext4 256
	mkdir "$FSS_MNT/a"
	scenario kp "$BLAMER overwrite $FSS_MNT/a 2 > /dev/null" \
		--mount "$FSS_MNT" --painter kernel
	local ev="$FSS_SCRATCH/kp.ev" n b
	n="$(jq -s 'length' "$ev")"
	b="$(jq -s '[.[] | select(has("blame"))] | length' "$ev")"
	echo "kernel painter: $b of $n syncs blamed" >&3
	[ "$n" -gt 300 ]
	# the first 99 all; after them at most ~1 % (p99 of a histogram whose
	# buckets are 12.5 % wide: never more than the syncs above it)
	jq -se '.[:99] | all(has("blame"))' "$ev"
	[ "$b" -ge 99 ]
	[ "$b" -le $((99 + (n - 99) / 50 + 2)) ]
	jq -se 'map(select(.type == "summary"))[0] | .blame.syncs == '"$b" \
		"$FSS_SCRATCH/kp.out"
	check_evidence "$ev"
}

@test "blame: two overwriters on one ext4 -> the coalesced syncs a flush served are real, and add up" {
	fss_mkfs ext4 512
	mkdir "$FSS_MNT/o1" "$FSS_MNT/o2"
	scenario coalesce "
		$BLAMER overwrite $FSS_MNT/o1 3 > $FSS_SCRATCH/o1.pid &
		$BLAMER overwrite $FSS_MNT/o2 3 > $FSS_SCRATCH/o2.pid
		wait" --mount "$FSS_MNT"
	local ev="$FSS_SCRATCH/coalesce.ev" o1 o2 n
	o1="$(pid_of "$FSS_SCRATCH/o1.pid")"
	o2="$(pid_of "$FSS_SCRATCH/o2.pid")"
	check_evidence "$ev"
	# every device_flush entry carries it: null only when no flush was seen
	[ "$(jq -s '[.[] | .blame[]? | select(.phase == "device_flush") |
		select((.evidence | has("coalesced")) | not)] | length' "$ev")" -eq 0 ]
	[ "$(jq -s '[.[] | .blame[]? | select(.phase == "device_flush" and
		.evidence.flushes > 0 and .evidence.coalesced == null)] |
		length' "$ev")" -eq 0 ]
	# per sync: the same on each of its device_flush entries; by[] adds up
	[ "$(jq -s '[.[] | select(.blame) |
		[.blame[] | select(.phase == "device_flush" and
		 .evidence.coalesced != null) | .evidence.coalesced] |
		select(length > 0) |
		select((unique | length) != 1 or
		       ([.[0].by[].syncs] | add // 0) + .[0].unlisted !=
		       .[0].syncs)] | length' "$ev")" -eq 0 ]
	# every process named has that many other syncs of its own whose
	# windows overlap this sync's, with that comm (syncs sorted by start:
	# those that can overlap x start in [x.s - longest, x.e])
	jq -s '
		def at($a; $v): ($a | bsearch($v)) as $i |
			if $i < 0 then -1 - $i else $i end;
		[.[] | select(.total_ns) |
		 {pid, tid, comm, s: .start_ns, e: (.start_ns + .total_ns),
		  c: ([.blame[]? | select(.phase == "device_flush") |
		       .evidence.coalesced | select(. != null)][0])}] |
		sort_by(.s) as $all | [$all[].s] as $st |
		([$all[] | .e - .s] | max) as $long |
		[$all[] | select(.c != null and .c.syncs > 0) | . as $x |
		 $all[at($st; $x.s - $long):at($st; $x.e + 1)] as $near |
		 .c.by[] | . as $b |
		 ([$near[] | select(.pid == $b.pid and .comm == $b.comm and
		   (.tid != $x.tid or .s != $x.s) and
		   .s <= $x.e and .e >= $x.s)] | length) as $have |
		 select($have < $b.syncs) | {x: $x, b: $b, have: $have}] |
		if length == 0 then true else error(tojson) end' "$ev"
	n="$(jq -s '[.[] | .blame[]? |
		select(.phase == "device_flush") | .evidence.coalesced |
		select(. != null and .syncs > 0)] | length' "$ev")"
	echo "device_flush entries with coalesced syncs: $n" >&3
	# only the two overwriters are named (and only traced syncs)
	[ "$(jq -s "[.[] | .blame[]? | .evidence.coalesced? // empty | .by[] |
		select(.pid != $o1 and .pid != $o2)] | length" "$ev")" -eq 0 ]
	# the summary counts the syncs whose flushes served others
	n="$(jq -s '[.[] | select(any(.blame[]?; .phase == "device_flush" and
		(.evidence.coalesced.syncs // 0) > 0))] | length' "$ev")"
	jq -se "map(select(.type == \"summary\"))[0].blame.flush_coalesced_syncs ==
		$n" "$FSS_SCRATCH/coalesce.out"
}

@test "blame: kernels without block_io_start (forced): submitters from the bios still name the writer" {
	fss_mkfs ext4 512
	mkdir "$FSS_MNT/o" "$FSS_MNT/w"
	FSYNCSCOPE_BLAME_BIO=1 scenario bio "
		$BLAMER overwrite $FSS_MNT/o 4 > $FSS_SCRATCH/ow.pid &
		sleep 1
		$BLAMER writer $FSS_MNT/w 2 > $FSS_SCRATCH/w.pid
		wait" --mount "$FSS_MNT"
	local ow w ev="$FSS_SCRATCH/bio.ev"
	ow="$(pid_of "$FSS_SCRATCH/ow.pid")"
	w="$(pid_of "$FSS_SCRATCH/w.pid")"
	jq -se 'map(select(.type == "start"))[0].strategy.blame |
		test("submitters from bios")' "$FSS_SCRATCH/bio.out"
	check_evidence "$ev"
	[ "$(jq -s "[.[] | select(.pid == $ow) | .blame[] |
		select(.pid == $w and .phase == \"device_flush\")] | length" "$ev")" -gt 0 ]
	# of the bytes the overwriter's flushes made durable, few have no submitter
	local unknown all
	unknown="$(jq -s "[.[] | select(.pid == $ow) | .blame[] |
		select(.phase == \"device_flush\" and
		       (.unattributed // \"\" | test(\"submitter\")))] | length" "$ev")"
	all="$(jq -s "[.[] | select(.pid == $ow and .device_flush_ns > 0)] | length" "$ev")"
	echo "overwriter syncs with flush time: $all, with unknown submitters: $unknown" >&3
	[ "$(jq -n "$unknown <= 0.05 * $all")" = true ]
}

@test "blame: owners in the block_io_start records (tp_btf) and in blame's own (raw_tp) both name the writer" {
	fss_mkfs ext4 512
	mkdir "$FSS_MNT/o" "$FSS_MNT/w"
	local hooks ow w ev
	for hooks in tp_btf raw_tp; do
		FSYNCSCOPE_BLOCK_HOOKS=$hooks scenario "own_$hooks" "
			$BLAMER overwrite $FSS_MNT/o 3 > $FSS_SCRATCH/ow.pid &
			sleep 1
			$BLAMER writer $FSS_MNT/w 1 > $FSS_SCRATCH/w.pid
			wait" --mount "$FSS_MNT"
		ev="$FSS_SCRATCH/own_$hooks.ev"
		ow="$(pid_of "$FSS_SCRATCH/ow.pid")"
		w="$(pid_of "$FSS_SCRATCH/w.pid")"
		# tp_btf: one record per creation, owner inside; raw_tp: not
		jq -se --arg h "$hooks" 'map(select(.type == "start"))[0].strategy.blame |
			test("in the block_io_start records") == ($h == "tp_btf")' \
			"$FSS_SCRATCH/own_$hooks.out"
		check_evidence "$ev"
		[ "$(jq -s "[.[] | select(.pid == $ow) | .blame[] |
			select(.pid == $w and .phase == \"device_flush\")] | length" \
			"$ev")" -gt 0 ]
		# the writer's comm came with its records
		[ "$(jq -s "[.[] | .blame[]? | select(.pid == $w and
			.comm != \"bigwriter\")] | length" "$ev")" -eq 0 ]
	done
}

# apart_case FS: the victims on one FS image, the storm and the writer on
# another (both FS): nothing of the victims' time is blamed on them
apart_case() {
	# (mkfs.xfs wants at least 300 MB)
	fss_mkfs "$1" "$([ "$1" = xfs ] && echo 320 || echo 256)"
	local victim="$FSS_MNT"
	fss_mkfs "$1" 512
	local other="$FSS_MNT"
	mkdir "$victim/a" "$victim/o" "$other/s" "$other/w"
	# unfiltered by device: the neighbours' own hooks do fire
	scenario apart "
		$BLAMER append $victim/a 5 > $FSS_SCRATCH/app.pid &
		$BLAMER overwrite $victim/o 5 > $FSS_SCRATCH/ow.pid &
		sleep 1
		$BLAMER storm $other/s 3 > $FSS_SCRATCH/storm.pid &
		$BLAMER writer $other/w 3 > $FSS_SCRATCH/w.pid
		wait"
	local app ow storm w ev="$FSS_SCRATCH/apart.ev"
	app="$(pid_of "$FSS_SCRATCH/app.pid")"
	ow="$(pid_of "$FSS_SCRATCH/ow.pid")"
	storm="$(pid_of "$FSS_SCRATCH/storm.pid")"
	w="$(pid_of "$FSS_SCRATCH/w.pid")"
	check_evidence "$ev"
	[ "$(jq -s "[.[] | select(.pid == $app or .pid == $ow)] | length" "$ev")" -gt 100 ]
	[ "$(jq -s "[.[] | select(.pid == $app or .pid == $ow) | .blame[] |
		select(.pid == $storm or .pid == $w)] | length" "$ev")" -eq 0 ]
	# what the victims' syncs owe to others is (almost all) each other's:
	# they share a filesystem and a disk
	local mutual others
	mutual="$(jq -s "[.[] | select(.pid == $app or .pid == $ow) | . as \$s |
		.blame[] | select(.unattributed == null and .self == false and
				  (.pid == $app or .pid == $ow) and
				  .pid != \$s.pid) | .blamed_ns] | add // 0" "$ev")"
	others="$(jq -s "[.[] | select(.pid == $app or .pid == $ow) |
		.blame_others_ns] | add" "$ev")"
	echo "$1: victims: 0 ns blamed on the neighbours on the other device; $mutual of $others ns blamed on others on each other" >&3
	[ "$(jq -n "$mutual >= 0.95 * $others")" = true ]
	# a kernel thread's work for an inode (writeback; on xfs the size
	# updates after the appends) is the dirtier's: the victims' files were
	# made dirty under the trace, before their first syncs turned blame on
	# for the filesystem, and stay dirty
	[ "$(jq -s "[.[] | select(.pid == $app or .pid == $ow) | .blame[] |
		select(.writeback != null and
		       .writeback.credited_to_dirtier == false)] | length" \
		"$ev")" -eq 0 ]
	# unfiltered, blame turns on for the devices of traced syncs: the
	# victims' own requests are named after their first syncs
	[ "$(jq -s "[.[] | select(.pid == $ow) | .blame[] |
		select(.self and .phase == \"device_flush\")] | length" "$ev")" -gt 100 ]
	# the writer's own syncs on the other device: it is self there
	[ "$(jq -s "[.[] | select(.pid == $w) | .blame[] | select(.pid == $w and .self)] |
		length" "$ev")" -gt 0 ]
}

@test "blame: neighbours on a different loop device -> nothing is blamed on them" {
	apart_case ext4
}

@test "blame: neighbours on a different loop device -> nothing is blamed on them (xfs)" {
	apart_case xfs
}

# alone_case FS: appender then overwriter, nobody else: >= 95 % self
alone_case() {
	fss_mkfs "$1" 512
	mkdir "$FSS_MNT/a" "$FSS_MNT/o"
	scenario alone "
		$BLAMER append $FSS_MNT/a 3 > $FSS_SCRATCH/app.pid
		$BLAMER overwrite $FSS_MNT/o 3 > $FSS_SCRATCH/ow.pid" \
		--mount "$FSS_MNT"
	local p self others unatt ev="$FSS_SCRATCH/alone.ev"
	check_evidence "$ev"
	for p in "$(pid_of "$FSS_SCRATCH/app.pid")" "$(pid_of "$FSS_SCRATCH/ow.pid")"; do
		self="$(jq -s "[.[] | select(.pid == $p) | .blame_self_ns] | add" "$ev")"
		others="$(jq -s "[.[] | select(.pid == $p) | .blame_others_ns] | add" "$ev")"
		unatt="$(jq -s "[.[] | select(.pid == $p) | .blame_unattributed_ns] | add" "$ev")"
		echo "$1 pid $p: self $self, others $others, unattributed $unatt ns" >&3
		[ "$self" -gt 0 ]
		[ "$(jq -n "$self >= 0.95 * ($self + $others)")" = true ]
	done
}

@test "blame: no neighbour -> at least 95 % of each victim's blamed time is self" {
	alone_case ext4
}

@test "blame: no neighbour on xfs -> at least 95 % self, the appender's log time by its own transactions" {
	alone_case xfs
	local app ev="$FSS_SCRATCH/alone.ev"
	app="$(pid_of "$FSS_SCRATCH/app.pid")"
	[ "$(jq -s "[.[] | select(.pid == $app) | .blame[] |
		select(.phase == \"journal\" and .self == true and
		       .evidence.xfs_cil_seq != null)] | length" "$ev")" -gt 0 ]
}

@test "blame: victim and neighbour in two cgroups -> the blame carries the neighbour's cgroup path" {
	local root
	root="$(findmnt -n -t cgroup2 -o TARGET | head -1)"
	[ -n "$root" ] || skip "no cgroup v2 hierarchy mounted"
	CG="$root/fss-blame-$$"
	mkdir -p "$CG/victim" "$CG/neighbour"
	fss_mkfs ext4 512
	mkdir "$FSS_MNT/a" "$FSS_MNT/s"
	scenario cg "
		bash -c 'echo \$\$ > $CG/victim/cgroup.procs &&
			exec $BLAMER append $FSS_MNT/a 4' > $FSS_SCRATCH/app.pid &
		sleep 1
		bash -c 'echo \$\$ > $CG/neighbour/cgroup.procs &&
			exec $BLAMER storm $FSS_MNT/s 2' > $FSS_SCRATCH/storm.pid
		wait" --mount "$FSS_MNT"
	local app storm ev="$FSS_SCRATCH/cg.ev"
	app="$(pid_of "$FSS_SCRATCH/app.pid")"
	storm="$(pid_of "$FSS_SCRATCH/storm.pid")"
	check_evidence "$ev"
	[ "$(jq -s "[.[] | select(.pid == $app) | .blame[] | select(.pid == $storm)] |
		length" "$ev")" -gt 0 ]
	[ "$(jq -s "[.[] | select(.pid == $app) | .blame[] | select(.pid == $storm) |
		select(.cgroup != \"/fss-blame-$$/neighbour\")] | length" "$ev")" -eq 0 ]
	[ "$(jq -s "[.[] | select(.pid == $app) | .blame[] | select(.self) |
		select(.cgroup != \"/fss-blame-$$/victim\")] | length" "$ev")" -eq 0 ]
}

@test "blame: metadata storm on the same xfs -> the appender's log and log-write time is blamed mostly on the storm" {
	fss_mkfs xfs 512
	mkdir "$FSS_MNT/a" "$FSS_MNT/s"
	scenario xfs "
		$BLAMER append $FSS_MNT/a 3 > $FSS_SCRATCH/app.pid &
		sleep 0.5
		$BLAMER storm $FSS_MNT/s 2 > $FSS_SCRATCH/storm.pid
		wait" --mount "$FSS_MNT"
	local app storm ev="$FSS_SCRATCH/xfs.ev"
	app="$(pid_of "$FSS_SCRATCH/app.pid")"
	storm="$(pid_of "$FSS_SCRATCH/storm.pid")"
	[ -n "$app" ] && [ -n "$storm" ]
	check_evidence "$ev"
	[ "$(jq -s "[.[] | select(.pid == $app and .journal_ns > 0)] | length" "$ev")" -gt 0 ]
	# of the appender's log (journal) time blamed on others, the storm
	# has most: its transactions filled the checkpoints the appender forced
	local by_storm others all
	by_storm="$(jq -s "[.[] | select(.pid == $app) | .blame[] |
		select(.phase == \"journal\" and .pid == $storm) | .blamed_ns] |
		add // 0" "$ev")"
	others="$(jq -s "[.[] | select(.pid == $app) | .blame[] |
		select(.phase == \"journal\" and .unattributed == null and
		       .self == false) | .blamed_ns] | add // 0" "$ev")"
	all="$(jq -s "[.[] | select(.pid == $app) | .blame_others_ns] | add" "$ev")"
	echo "appender on xfs: log time blamed on storm $by_storm of $others ns on others" >&3
	[ "$by_storm" -gt 0 ]
	[ "$(jq -n "$by_storm >= 0.8 * $others")" = true ]
	# and of all its time blamed on others: the CIL push's log writes
	# carry the checkpoints it forced, split the same way
	by_storm="$(jq -s "[.[] | select(.pid == $app) | .blame[] |
		select(.pid == $storm) | .blamed_ns] | add // 0" "$ev")"
	echo "appender on xfs: all phases: blamed on storm $by_storm of $all ns on others" >&3
	[ "$(jq -n "$by_storm >= 0.8 * $all")" = true ]
	# with the checkpoint, its log bytes and transactions
	[ "$(jq -s "[.[] | select(.pid == $app) | .blame[] |
		select(.pid == $storm and .phase == \"journal\") |
		select(.evidence.xfs_cil_seq == null or .evidence.log_bytes <= 0 or
		       .evidence.transactions <= 0 or
		       .evidence.log_bytes > .evidence.checkpoint_log_bytes or
		       .evidence.transactions > .evidence.checkpoint_transactions)] |
		length" "$ev")" -eq 0 ]
	# journal time nobody is named for says why (never a made-up share)
	[ "$(jq -s "[.[] | select(.pid == $app) | .blame[] |
		select(.phase == \"journal\" and .unattributed != null) |
		select(.unattributed | test(\"xfs|jbd2\") | not)] | length" "$ev")" -eq 0 ]
	jq -se "map(select(.type == \"summary\"))[0].blamed[0] |
		.pid == $storm and .comm == \"storm\"" "$FSS_SCRATCH/xfs.out"
}

@test "blame: --no-blame switches it off; --slower lines carry a short blame" {
	fss_mkfs ext4 256
	mkdir "$FSS_MNT/a"
	scenario off "$BLAMER append $FSS_MNT/a 1 > /dev/null" --mount "$FSS_MNT" --no-blame
	[ "$(jq -s '[.[] | select(has("blame"))] | length' "$FSS_SCRATCH/off.ev")" -eq 0 ]
	[ "$(jq -s 'length' "$FSS_SCRATCH/off.ev")" -gt 0 ]
	jq -se 'map(select(.type == "start"))[0].strategy.blame == "off (--no-blame)"' \
		"$FSS_SCRATCH/off.out"
	jq -se 'map(select(.type == "summary"))[0] | .blame == null and .blamed == null' \
		"$FSS_SCRATCH/off.out"
	# the text says why, from the summary's blame_strategy
	run -0 "$FSS_BIN" report "$FSS_SCRATCH/off.out" --format text
	grep -qx 'BLAMED: off (--no-blame)' <<< "$output"
	# text: each slow sync, then its blame line
	run -0 --separate-stderr "$FSS_BIN" trace --slower 0 --mount "$FSS_MNT" \
		-- "$BLAMER" append "$FSS_MNT/a" 0.5
	grep -q '^         blame: .*self' <<< "$output"
	grep -q '^BLAMED' <<< "$output"
}
