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

# every blame entry has its counts, and a phase's shares add up to <= 1
check_evidence() {
	local ev="$1"
	# named causes: bytes or blocks, and totals at least as large
	[ "$(jq -s '[.[] | .blame[]? | select(.unattributed == null) |
		select((.evidence.bytes // .evidence.blocks //
			.evidence.log_bytes) == null or
		       (.evidence.bytes_total // .evidence.tx_blocks //
			.evidence.checkpoint_log_bytes) == null or
		       (.evidence.requests // .evidence.handles //
			.evidence.transactions) == null)] |
		length' "$ev")" -eq 0 ]
	[ "$(jq -s '[.[] | .blame[]? | select(.unattributed == null and
		.evidence.bytes != null and .evidence.bytes > .evidence.bytes_total + 1)] |
		length' "$ev")" -eq 0 ]
	# unattributed entries have a reason and no pid
	[ "$(jq -s '[.[] | .blame[]? | select(.unattributed != null) |
		select(.pid != null or (.unattributed | length) == 0)] | length' \
		"$ev")" -eq 0 ]
	# shares of each phase of each sync add up to at most 1, and blamed
	# time to the phase's time
	[ "$(jq -s '[.[] | select(.blame) | . as $s | .blame | group_by(.phase)[] |
		select(([.[].share] | add) > 1.000001 or
		       ([.[].blamed_ns] | add) != $s[(.[0].phase) + "_ns"])] |
		length' "$ev")" -eq 0 ]
}
