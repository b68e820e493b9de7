# Shared helpers of the blame scenarios (tests/blame.bats, tests/report.bats;
# docs/blame.md): victims and neighbours from tests/helpers/blamer.c, run
# under `trace -- bash -c SCRIPT`.  Load after lib.

BLAMER="$FSS_BUILD/tests/blamer"

# blamer_build: the helper binary (from setup_file)
blamer_build() {
	make -s -C "$FSS_ROOT" build/tests/blamer >&2
}

# blamer_stop: the scenario's processes are the tracer's children and end
# with it; any left after a failure: by the pids they printed into
# $FSS_SCRATCH/*.pid (from teardown)
blamer_stop() {
	local f p killed=""
	for f in "$FSS_SCRATCH"/*.pid; do
		[ -f "$f" ] || continue
		p="$(awk '/^ready/ { print $2 }' "$f")"
		if [ -n "$p" ] && kill -TERM "$p" 2>/dev/null; then
			killed=1
		fi
	done
	[ -z "$killed" ] || sleep 0.2
}

# scenario NAME SCRIPT [TRACE_OPTS...]: run SCRIPT under `trace -- bash -c`,
# events in $FSS_SCRATCH/NAME.ev, the JSON Lines output in NAME.out
scenario() {
	local name="$1" script="$2"
	shift 2
	run -0 --separate-stderr "$FSS_BIN" trace -j "$@" \
		--events "$FSS_SCRATCH/$name.ev" -- bash -c "$script"
	printf '%s\n' "$output" > "$FSS_SCRATCH/$name.out"
	echo "$stderr" >&3
}

# pid_of FILE: the pid a blamer printed as "ready PID"
pid_of() { awk '/^ready/ { print $2 }' "$1"; }

# The problems of the blame of each sync in an events file (jq program;
# none: nothing printed).  Every entry has its counts, and they are the
# ones its share was computed from:
# - a named cause has pid, comm and self; an unattributed one a reason
#   and no pid;
# - per sync, blame_self_ns + blame_others_ns + blame_unattributed_ns
#   are its entries' and add up to its journal + queue + device time;
# - per phase, the shares add up to at most 1 and blamed_ns to the
#   phase's time, and each share is blamed_ns / phase time (within the
#   rounding of its at most 64 causes, which goes to the largest);
# - queue / device_write / device_flush: a share is the cause's bytes over
#   bytes_total (a request split among a commit's or checkpoint's
#   contributors rounds each part: 0.5 byte per request), the causes'
#   bytes add up to bytes_total at most (same rounding), every entry of
#   the phase has the same totals, requests <= requests_total, a flush
#   entry its flushes;
# - journal: blocks / handles (jbd2) or log bytes / transactions (xfs)
#   within the transaction's or checkpoint's totals, which they add up to
#   at most; with one transaction or checkpoint, the share is exactly its
#   blocks (handles when none dirtied a block) or log bytes over the total.
BLAME_CHECK='
def bad($why): {why: $why,
	phase: (if type == "array" then .[0].phase else .phase end),
	entry: .};
def near($a; $b; $tol): (($a - $b) | fabs) <= $tol;
def num: type == "number";
def totals: if .evidence.xfs_cil_seq != null then
		[.evidence.checkpoint_log_bytes, .evidence.checkpoint_transactions]
	elif .phase == "journal" then
		[.evidence.tx_blocks, .evidence.tx_handles]
	else [.evidence.bytes_total, .evidence.requests_total] end;
def entry_problems($P):
	(if .unattributed == null then
		(if (.pid | num) and (.comm | type) == "string" and
		    (.self | type) == "boolean" then empty
		 else bad("a named cause without pid, comm or self") end)
	 elif (.unattributed | type) != "string" or
	      (.unattributed | length) == 0 or .pid != null or .comm != null
	 then bad("an unattributed entry without a reason, or with a pid")
	 else empty end),
	(if near(.share * $P; .blamed_ns; 65) then empty
	 else bad("share is not blamed_ns / phase time") end);
def bytes_problems:
	[.[] | select(.unattributed == null)] as $named |
	(if ([.[] | select(.unattributed != "smaller causes not listed") |
	      totals] | unique | length) > 1
	 then bad("entries of one phase with different totals") else empty end),
	(if ([$named[].evidence.bytes] | add // 0) >
	    ($named[0].evidence.bytes_total // 0) +
	    0.5 * ([$named[].evidence.requests] | add // 0)
	 then bad("bytes add up to more than bytes_total") else empty end),
	($named[] | .evidence as $e |
	 if ([$e.bytes, $e.requests, $e.bytes_total, $e.requests_total] |
	     all(num) | not) or $e.requests < 1 or
	    $e.requests > $e.requests_total or
	    (.phase == "device_flush" and (($e.flushes | num | not) or
					   $e.flushes < 1))
	 then bad("bytes evidence missing or out of its totals")
	 elif near(.share * $e.bytes_total; $e.bytes;
		   0.5 * $e.requests + 1e-6 * $e.bytes_total) | not
	 then bad("share is not bytes / bytes_total")
	 else empty end);
def journal_problems:
	[.[] | select(.unattributed == null)] as $named |
	($named[] | .evidence as $e |
	 if $e.xfs_cil_seq != null then
		if ([$e.checkpoints, $e.log_bytes, $e.transactions,
		     $e.checkpoint_log_bytes, $e.checkpoint_transactions] |
		    all(num) | not) or $e.checkpoints < 1 or
		   $e.log_bytes < 1 or $e.transactions < 1 or
		   $e.log_bytes > $e.checkpoint_log_bytes or
		   $e.transactions > $e.checkpoint_transactions
		then bad("xfs log evidence missing or out of its totals")
		elif $e.checkpoints == 1 and (near(.share;
			$e.log_bytes / $e.checkpoint_log_bytes; 1e-9) | not)
		then bad("share is not log_bytes / checkpoint_log_bytes")
		else empty end
	 elif ([$e.jbd2_tid, $e.transactions, $e.blocks, $e.handles,
		$e.tx_blocks, $e.tx_handles] | all(num) | not) or
	      $e.transactions < 1 or $e.handles < 1 or
	      $e.blocks > $e.tx_blocks or $e.handles > $e.tx_handles
	 then bad("jbd2 evidence missing or out of its totals")
	 elif $e.transactions == 1 and (near(.share;
		if $e.tx_blocks > 0 then $e.blocks / $e.tx_blocks
		else $e.handles / $e.tx_handles end; 1e-9) | not)
	 then bad("share is not blocks / tx_blocks")
	 else empty end),
	(if ([$named[] | totals] | unique | length) > 1
	 then bad("journal causes of one sync with different totals")
	 elif ($named | length) > 0 and
	      (([$named[] | .evidence | .blocks // .log_bytes] | add) >
	       ($named[0] | totals)[0] or
	       ([$named[] | .evidence | .handles // .transactions] | add) >
	       ($named[0] | totals)[1])
	 then bad("journal counts add up to more than their totals")
	 else empty end);
[.[] | select(.blame) | . as $s |
 ([.blame[] | select(.unattributed != null) | .blamed_ns] | add // 0) as $u |
 ([.blame[] | select(.unattributed == null and .self) | .blamed_ns] |
  add // 0) as $self |
 ([.blame[] | select(.unattributed == null and (.self | not)) |
   .blamed_ns] | add // 0) as $others |
 (if $u != .blame_unattributed_ns or $self != .blame_self_ns or
     $others != .blame_others_ns or
     .blame_self_ns + .blame_others_ns + .blame_unattributed_ns !=
     .journal_ns + .queue_ns + .device_write_ns + .device_flush_ns
  then {why: "self / others / unattributed do not add up"} else empty end),
 (.blame | group_by(.phase)[] | . as $ph |
  ($s[$ph[0].phase + "_ns"]) as $P |
  (if ([$ph[].share] | add) > 1.000001
   then ($ph[0] | bad("shares add up to more than 1")) else empty end),
  (if ([$ph[].blamed_ns] | add) != $P
   then ($ph[0] | bad("blamed_ns do not add up to the phase time"))
   else empty end),
  ($ph[] | entry_problems($P)),
  (if $ph[0].phase == "journal" then ($ph | journal_problems)
   else ($ph | bytes_problems) end)) |
 . + {pid: $s.pid, start_ns: $s.start_ns}]
'

# check_evidence EVENTS: no problem (BLAME_CHECK) in any sync's blame
check_evidence() {
	local problems
	problems="$(jq -s "$BLAME_CHECK" "$1")"
	if [ "$(jq 'length' <<< "$problems")" -ne 0 ]; then
		jq -c 'length as $n | "\($n) problems, e.g.:", .[:3][]' \
			<<< "$problems" >&2
		return 1
	fi
	[ "$(jq -s '[.[] | select(.blame)] | length' "$1")" -gt 0 ]
}
