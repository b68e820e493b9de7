#!/usr/bin/env bats
# VM lane, blame (issue 18, docs/blame.md) on Debian's stock 6.1 kernel:
# the host-built blame programs load there (6.1 has no block_io_start, so
# request submitters come from the bios), jbd2_handle_stats runs in the
# handle owner's context (the issue asks to check this on 6.1), and a
# metadata storm next to an appender on the emulated NVMe disk is named
# for the appender's journal time, with the fentry strategy auto picks.
# Durations are short: the guest is emulated.  No timing is asserted.

load vmlib

BLAMER="$FSS_BUILD/tests/blamer"

setup_file() {
	vm_in_guest || return 0
	vm_mkfs ext4
	export VM_DIR="$BATS_FILE_TMPDIR"
}

teardown_file() {
	vm_cleanup
}

setup() {
	vm_require_guest
	VM_DIR="$BATS_FILE_TMPDIR"
}

@test "6.1: blame loads (submitters from bios) and names a metadata storm for the appender's journal time" {
	[ -x "$BLAMER" ] || { echo "$BLAMER not built" >&2; return 1; }
	mkdir -p "$VM_MNT/a" "$VM_MNT/s"
	local out="$VM_DIR/blame.out" ev="$VM_DIR/blame.ev" rc=0
	"$FSS_BIN" trace -j --mount "$VM_MNT" --events "$ev" -- bash -c "
		$BLAMER append $VM_MNT/a 4 > $VM_DIR/app.pid &
		sleep 1
		$BLAMER storm $VM_MNT/s 2 > $VM_DIR/storm.pid
		wait" > "$out" 2> "$VM_DIR/blame.err" || rc=$?
	vm_artifact blame.out "$out"
	vm_artifact blame.err "$VM_DIR/blame.err"
	[ "$rc" -eq 0 ] || { tail -n 20 "$VM_DIR/blame.err" >&2; return 1; }
	local app storm
	app="$(awk '/^ready/ { print $2 }' "$VM_DIR/app.pid")"
	storm="$(awk '/^ready/ { print $2 }' "$VM_DIR/storm.pid")"
	[ -n "$app" ] && [ -n "$storm" ]
	# the programs loaded, with the bio fallback, next to fentry
	jq -s 'map(select(.type == "start"))[0]' "$out" > "$VM_DIR/start.json"
	vm_jq_all "$VM_DIR/start.json" \
		'.strategy.blame | test("^[0-9]+ hooks, submitters from bios")' \
		'.strategy.probes.fentry == "ok"'
	# the storm's jbd2 handles were seen in its own context: blamed by
	# name and pid for journal blocks of the appender's commits
	[ "$(jq -s "[.[] | select(.pid == $app) | .blame[]? |
		select(.pid == $storm and .comm == \"storm\" and
		       .phase == \"journal\" and .evidence.blocks > 0)] |
		length" "$ev")" -gt 0 ]
	# and for most of what the appender's syncs owe to others
	local by_storm others
	by_storm="$(jq -s "[.[] | select(.pid == $app) | .blame[]? |
		select(.pid == $storm) | .blamed_ns] | add // 0" "$ev")"
	others="$(jq -s "[.[] | select(.pid == $app) | .blame_others_ns // 0] |
		add // 0" "$ev")"
	echo "appender: $by_storm of $others ns blamed on others are the storm's" >&2
	[ "$(jq -n "$others > 0 and $by_storm >= 0.8 * $others")" = true ]
	# phases add up, blame included
	[ -z "$(vm_sum_errors "$ev")" ]
}
