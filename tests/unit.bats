#!/usr/bin/env bats
# Unit tests of the attribution engine (tests/unit/test_attr.c and, at
# scale, test_attr_stress.c over user/engine/attr/) and the breakdown
# report (tests/unit/test_report.c over user/stats/collector.c): one bats
# test per C test case, so a failure names the case and shows its FAIL
# lines.
# Pure C, no root, no BPF, no devices.

load lib
bats_require_minimum_version 1.5.0

TEST_ATTR="${TEST_ATTR:-$FSS_BUILD/tests/test_attr}"
TEST_STRESS="${TEST_STRESS:-$FSS_BUILD/tests/test_attr_stress}"
TEST_REPORT="${TEST_REPORT:-$FSS_BUILD/tests/test_report}"

setup_file() {
	# build (or refresh) just this binary; `make test` has built it already
	make -s -C "$FSS_ROOT" build/tests/test_attr build/tests/test_hist \
		build/tests/test_attr_stress build/tests/test_report \
		build/tests/test_blame build/tests/test_dbview build/tests/test_lib \
		build/tests/test_summ build/tests/test_fold build/tests/test_clock \
		build/tests/test_findings build/tests/test_blame_fr >&2
}

setup() {
	local t
	for t in "$TEST_ATTR" "$TEST_STRESS" "$TEST_REPORT"; do
		[ -x "$t" ] || {
			echo "$t is missing: run 'make $t'" >&2
			return 1
		}
	done
}

# Run one case of a unit binary (tests/unit/tap.h): its output (TAP, with
# "#   FAIL file:line" lines before a failed case) is shown by bats when it
# fails.
unit_case() {
	run "$1" "$2"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "1..1" ]
	[ "${lines[-2]}" = "ok 1 - $2" ]
	[[ "${lines[-1]}" == "# "*" checks, 0 failures" ]]
}

# The binary's --list is exactly these cases, in this order.
unit_list() {
	run "$1" --list
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | tr '\n' ' ')" = "$(echo $2) " ]
}

attr_case() { unit_case "$TEST_ATTR" "$1"; }
stress_case() { unit_case "$TEST_STRESS" "$1"; }
report_case() { unit_case "$TEST_REPORT" "$1"; }

# The cases below, in the order of each binary's --list.
CASES="simple_fdatasync overlapping_requests batched_flush concurrent_syncers
missing_completion dsync_write_native_fua unrelated_write ext4_journal
journal_other_fs xfs_log kthread_log_write rq_id_reuse
lost_completion_reuse requeue_vs_lost nvme_flush
write_through_no_flush unknown_disk out_of_order_arrival long_requests lookback
lost_completion_once sync_detail"
STRESS_CASES="random_vs_reference drain_horizon hold_inflight gc_bounded
invalid_input"
REPORT_CASES="report_percentiles report_print report_json report_no_rq_start
report_no_journal report_sync_json_escaping names"

@test "unit: every C case has a bats test here" {
	unit_list "$TEST_ATTR" "$CASES"
	unit_list "$TEST_STRESS" "$STRESS_CASES"
	unit_list "$TEST_REPORT" "$REPORT_CASES"
}

@test "unit: an unknown case name is an error, on one stderr line" {
	run --separate-stderr "$TEST_ATTR" no_such_case
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == *"no_such_case"* ]]
}

@test "attr: simple fdatasync (empty PREFLUSH, kworker flush)" { attr_case simple_fdatasync; }
@test "attr: overlapping requests and queue overlap" { attr_case overlapping_requests; }
@test "attr: one flush batched for three syncs" { attr_case batched_flush; }
@test "attr: two concurrent syncers on one disk" { attr_case concurrent_syncers; }
@test "attr: missing completion is clipped and counted" { attr_case missing_completion; }
@test "attr: O_DSYNC write with native FUA" { attr_case dsync_write_native_fua; }
@test "attr: another process's writes are not attributed" { attr_case unrelated_write; }
@test "attr: ext4 jbd2 commit with emulated FUA" { attr_case ext4_journal; }
@test "attr: another filesystem's journal does not count" { attr_case journal_other_fs; }
@test "attr: xfs log force in the caller" { attr_case xfs_log; }
@test "attr: kernel thread log write with FUA" { attr_case kthread_log_write; }
@test "attr: request pointer reuse" { attr_case rq_id_reuse; }
@test "attr: a lost completion stays with the sync it began in, not the next" { attr_case lost_completion_reuse; }
@test "attr: an issue after a requeue is the same request, without one a new one" { attr_case requeue_vs_lost; }
@test "attr: NVMe Flush command time" { attr_case nvme_flush; }
@test "attr: write-through cache, no flush" { attr_case write_through_no_flush; }
@test "attr: unknown disk accepts any disk" { attr_case unknown_disk; }
@test "attr: records arriving out of order" { attr_case out_of_order_arrival; }
@test "attr: requests that began long before the sync" { attr_case long_requests; }
@test "attr: an 8 ms request among short ones is still found (look-back)" { attr_case lookback; }
@test "attr: random streams match a naive reference" { stress_case random_vs_reference; }
@test "attr: a lost completion is painted once and counted once" { attr_case lost_completion_once; }
@test "attr: drain horizon and what GC keeps" { stress_case drain_horizon; }
@test "attr: a sync in flight holds its early requests while other disks move on" { stress_case hold_inflight; }
@test "attr: memory stays bounded over 200k syncs" { stress_case gc_bounded; }
@test "attr: invalid input rejected" { stress_case invalid_input; }
@test "report: nearest-rank percentiles and shares" { report_case report_percentiles; }
@test "report: plain text fits 80 columns, units, no-sync line" { report_case report_print; }
@test "report: breakdown JSON twins" { report_case report_json; }
@test "report: queue and creation flags are n/a when requests are seen only from issue on" { report_case report_no_rq_start; }
@test "report: the journal phase is n/a when no journal hook was attached" { report_case report_no_journal; }
@test "report: per-sync JSON line escapes comm" { report_case report_sync_json_escaping; }
@test "report: phase, kind and summary reason names" { report_case names; }
@test "attr: the opt-in detail (segments, requests, commits) tiles the sync" { attr_case sync_detail; }

@test "unit: each binary passes as one TAP stream" {
	local t bin cases
	for t in TEST_ATTR:CASES TEST_STRESS:STRESS_CASES TEST_REPORT:REPORT_CASES; do
		bin="${t%%:*}" cases="${t#*:}"
		run "${!bin}"
		echo "$output"
		[ "$status" -eq 0 ]
		! grep -q '^not ok' <<<"$output" || false
		# shellcheck disable=SC2086
		[ "$(grep -c '^ok ' <<<"$output")" -eq "$(echo ${!cases} | wc -w)" ]
	done
}

# The histogram and the bootstrap (tests/unit/test_hist.c over user/lib/hist.c
# and user/lib/stats.c).
TEST_HIST="${TEST_HIST:-$FSS_BUILD/tests/test_hist}"

hist_case() { unit_case "$TEST_HIST" "$1"; }

@test "hist: buckets are contiguous, at most 1/64 wide" { hist_case bounds; }
@test "hist: quantiles within 0.8 % of exact nearest rank over 100k samples" { hist_case quantiles; }
@test "hist: merge equals adding everything; JSON round trip; bad counts refused" { hist_case merge_and_json; }
@test "hist: the sparse form (live mode) equals the dense one" { hist_case sparse; }
@test "stats: Poisson draws have the right mean and variance" { hist_case poisson; }
@test "stats: diff words: self within noise, 4 ms slower/faster, 1 % within noise, seeded" { hist_case change_words; }
@test "stats: paired ratios of repeats: drift cancels, log-scale t interval, zeros by the delta method, one round has none" { hist_case ratio_paired; }
@test "stats: the mean of repeats with its t interval: geometric when all > 0, arithmetic with a 0, none from one round" { hist_case mean_ci; }
@test "stats: the bootstrap's ratio interval holds the true ratio (2x) and 1 for the same histogram" { hist_case change_ratio; }

# The database view of trace (tests/unit/test_dbview.c over user/db/dbrole.c,
# user/db/fileclass.c, user/db/checkpoint.c, user/db/dbview.c, user/render/text/out_text_db.c).
TEST_DBVIEW="${TEST_DBVIEW:-$FSS_BUILD/tests/test_dbview}"

dbview_case() { unit_case "$TEST_DBVIEW" "$1"; }

# Blame (tests/unit/test_blame.c over user/blame*.c): exact shares and the
# counts behind them from synthetic event streams.
TEST_BLAME="${TEST_BLAME:-$FSS_BUILD/tests/test_blame}"

blame_case() { unit_case "$TEST_BLAME" "$1"; }

@test "dbview: every C case has a bats test here" {
	unit_list "$TEST_DBVIEW" "pg_roles other_roles classes checkpoints view_json mysql_names"
}
@test "dbrole: PostgreSQL roles and the stable part of their titles" { dbview_case pg_roles; }
@test "dbrole: MariaDB, other processes, --role names" { dbview_case other_roles; }
@test "fileclass: PostgreSQL and MariaDB file classes from paths" { dbview_case classes; }
@test "checkpoint: the sync burst, its tail, a burst cut short" { dbview_case checkpoints; }
@test "dbview: classes by role and checkpoints in JSON and text" { dbview_case view_json; }
@test "myroles: MariaDB thread names to roles" { dbview_case mysql_names; }

BLAME_CASES="journal_split journal_two_commits journal_unattributed
flush_payload flush_coalesced queue_ahead jbd2_write_split writeback_owner comm_records comms_and_tool
bio_owner json_shape bounded xfs_checkpoint_split xfs_unseen_and_dirtier xfs_log_writes"

@test "blame: every C case has a bats test here" {
	unit_list "$TEST_BLAME" "$BLAME_CASES"
}

@test "blame: journal time split by the blocks of the transaction waited for" { blame_case journal_split; }
@test "blame: two commits weighted by the sync's overlap with each" { blame_case journal_two_commits; }
@test "blame: no commit or xfs log force, or no handles seen: unattributed with the reason" { blame_case journal_unattributed; }
@test "blame: a flush's payload is the writes since the flush before" { blame_case flush_payload; }
@test "blame: the other syncs a flush served coalesced with the sync" { blame_case flush_coalesced; }
@test "blame: queue blame is the requests issued ahead of the sync's own" { blame_case queue_ahead; }
@test "blame: the journal thread's writes split among the transaction's contributors" { blame_case jbd2_write_split; }
@test "blame: writeback credited to the dirtier, else named by inode" { blame_case writeback_owner; }
@test "blame: compact owner records are named by the comm record of their pid" { blame_case comm_records; }
@test "blame: comms outlive a test's blame, a /proc fallback names the rest, the tool is 'fsyncscope itself'" { blame_case comms_and_tool; }
@test "blame: without block_io_start a request is owned by the bio it starts with" { blame_case bio_owner; }
@test "blame: JSON entries, cgroup paths, shares adding up to 1" { blame_case json_shape; }
@test "blame: tables are bounded; what falls out is unattributed" { blame_case bounded; }
@test "blame: xfs journal time split by the log bytes of the checkpoint its log force named" { blame_case xfs_checkpoint_split; }
@test "blame: xfs checkpoints unseen are unattributed; kernel threads credited to the inode's dirtier" { blame_case xfs_unseen_and_dirtier; }
@test "blame: xfs log writes after the sync's force split like its checkpoint" { blame_case xfs_log_writes; }

# The flight recorder's requests fed whole (tests/unit/test_blame_fr.c):
# the same blame as their records on random schedules.
TEST_BLAME_FR="${TEST_BLAME_FR:-$FSS_BUILD/tests/test_blame_fr}"

@test "blame_fr: every C case has a bats test here" {
	unit_list "$TEST_BLAME_FR" "random_schedules"
}
@test "blame_fr: a request fed whole blames as its owner, start, issue and completion records do" { unit_case "$TEST_BLAME_FR" random_schedules; }

TEST_LIB="${TEST_LIB:-$FSS_BUILD/tests/test_lib}"
lib_case() { unit_case "$TEST_LIB" "$1"; }

@test "lib: every C case has a bats test here" {
	unit_list "$TEST_LIB" "parse_numbers parse_lists comm_clean phases doc_stamp doc_errors_oneline"
}

@test "lib: number parsers: edges pass, one past fails, no trailing bytes, no overflow" { lib_case parse_numbers; }
@test "lib: list parser: names once each, at most max, none unknown" { lib_case parse_lists; }
@test "lib: comm cleaner: UTF-8 kept, bad and cut bytes U+FFFD, control bytes kept" { lib_case comm_clean; }
@test "lib: one phase vocabulary: names and column headers in the documents' order" { lib_case phases; }
@test "lib: fss_doc_stamp stamps schema, schema_version and version" { lib_case doc_stamp; }
@test "lib: a refused document's error is one line, whatever control bytes it quotes" { lib_case doc_errors_oneline; }

# The overload summary (tests/unit/test_summ.c over user/stats/summ.c,
# docs/hotpath.md "Overload by design").
TEST_SUMM="${TEST_SUMM:-$FSS_BUILD/tests/test_summ}"
summ_case() { unit_case "$TEST_SUMM" "$1"; }

@test "summ: every C case has a bats test here" {
	unit_list "$TEST_SUMM" "counts json_totals json_none sampled"
}
@test "summ: traced and summarized counts add up over kinds and reasons" { summ_case counts; }
@test "summ: JSON totals are log2 upper bounds; only kinds seen; histogram to its last bucket" { summ_case json_totals; }
@test "summ: nothing summarized: no totals, an empty histogram" { summ_case json_none; }
@test "summ: --sample's syncs not drawn: why sampled, the rate in the text, named beside overload" { summ_case sampled; }

# Cumulative phase clocks (tests/unit/test_clock.c over
# user/engine/attr/clock.c, docs/hotpath.md "Cumulative phase clocks"):
# the painter's online form against the reference painter.
TEST_CLOCK="${TEST_CLOCK:-$FSS_BUILD/tests/test_clock}"
clock_case() { unit_case "$TEST_CLOCK" "$1"; }

@test "clock: every C case has a bats test here" {
	unit_list "$TEST_CLOCK" "overwrite_pair journal_commit random_vs_engine full_tables nvme_commands kp_note kp_note_kernel"
}
@test "clock: an overwrite's fdatasync and a second sync sharing its flush, exact" { clock_case overwrite_pair; }
@test "clock: a jbd2 commit's blocks, split PREFLUSH+FUA and flushes, as the engine paints them" { clock_case journal_commit; }
@test "clock: 40 random timelines, every sync's phases identical to the engine's" { clock_case random_vs_engine; }
@test "clock: full tables count what they could not take" { clock_case full_tables; }
@test "clock: NVMe commands (set up before the issue, done before the request) paint the device time, as the engine" { clock_case nvme_commands; }
@test "clock: the kernel painter's syncs against attribution's: identical, apart by the time, each reason not painted" { clock_case kp_note; }
@test "clock: the kernel painter alone (FSYNCSCOPE_KPAINT=only): each sync painted or why not, nothing compared" { clock_case kp_note_kernel; }

# Folded request records (tests/unit/test_fold.c over
# user/engine/tracer/fold.c, docs/hotpath.md "One record per request").
TEST_FOLD="${TEST_FOLD:-$FSS_BUILD/tests/test_fold}"
fold_case() { unit_case "$TEST_FOLD" "$1"; }

@test "fold: every C case has a bats test here" {
	unit_list "$TEST_FOLD" "unfold_exact read random_schedules"
}
@test "fold: a record unfolds into the per-event records, byte for byte, owner after its creation" { fold_case unfold_exact; }
@test "fold: only whole records are read (the kernel sends the slots used)" { fold_case read; }
@test "fold: 200 random schedules paint every sync the same folded as per event (in-flight requests handed on)" { fold_case random_schedules; }

# Findings (tests/unit/test_findings.c over user/findings/, docs/findings.md):
# each rule fires at its threshold and not below, on synthetic documents.
TEST_FINDINGS="${TEST_FINDINGS:-$FSS_BUILD/tests/test_findings}"

findings_case() { unit_case "$TEST_FINDINGS" "$1"; }

@test "findings: every C case has a bats test here" {
	unit_list "$TEST_FINDINGS" "healthy phase_bounds phase_fast phase_evidence slow_flush no_flush sync_file_range neighbour_run neighbour_trace tool checkpoints log_flush wal_serial innodb_split order_merge attach text"
}
@test "findings: a healthy run is one info line; no traced sync claims no health" { findings_case healthy; }
@test "findings: journal / queue / fs / other bound fire at their share, not below, not on few syncs" { findings_case phase_bounds; }
@test "findings: syncs faster than 100 us on average get phase notes, not warnings" { findings_case phase_fast; }
@test "findings: a phase finding quotes its share, means, syncs and bytes per sync" { findings_case phase_evidence; }
@test "findings: slow flush at 50 % and 50 us, info on a loop device" { findings_case slow_flush; }
@test "findings: no flush on a write-back cache is critical from 10 % of the syncs (run and trace)" { findings_case no_flush; }
@test "findings: sync_file_range (never flushes, no fs hook) is left out of no_flush and other_bound" { findings_case sync_file_range; }
@test "findings: a neighbour in a run test's blame from 20 %, with cgroup advice" { findings_case neighbour_run; }
@test "findings: a neighbour in a trace's blamed list, its own syncs left out; fsyncscope itself never; a kernel thread's own I/O an info kernel_worker" { findings_case neighbour_trace; }
@test "findings: events lost, syncs incomplete, layers not traced" { findings_case tool; }
@test "findings: PostgreSQL checkpoint bursts from 25 % of the traced sync time" { findings_case checkpoints; }
@test "findings: PostgreSQL WAL / InnoDB redo syncs flush-bound from 50 % on syncs over 100 us" { findings_case log_flush; }
@test "findings: PostgreSQL WAL syncs back to back from half the traced time" { findings_case wal_serial; }
@test "findings: MariaDB's InnoDB sync time split into redo, doublewrite, data, undo (info, from 20 syncs), the largest's advice" { findings_case innodb_split; }
@test "findings: most important first; one finding per rule with the worst test" { findings_case order_merge; }
@test "findings: attached first in the document, versioned; none for devices" { findings_case attach; }
@test "findings: the text block in 80 columns" { findings_case text; }
