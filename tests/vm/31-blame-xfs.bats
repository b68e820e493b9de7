#!/usr/bin/env bats
# VM lane, xfs blame (issue 18, docs/blame.md "xfs") on Debian's stock 6.1
# kernel, where xfs is a module: blame's xfs programs are tp_btf programs
# on xfs tracepoints, whose BTF is xfs's module BTF there.  Either they
# load and a metadata storm is named for the appender's log time, or
# blame says why the xfs part is n/a; never a made-up share.

load vmlib

BLAMER="$FSS_BUILD/tests/blamer"

setup_file() {
	vm_in_guest || return 0
	vm_mkfs xfs
	export VM_DIR="$BATS_FILE_TMPDIR"
}

teardown_file() {
	vm_cleanup
}

setup() {
	vm_require_guest
	VM_DIR="$BATS_FILE_TMPDIR"
}

@test "6.1 xfs (a module): blame's xfs programs load from its module BTF and name a metadata storm for the appender's log time" {
	[ -x "$BLAMER" ] || { echo "$BLAMER not built" >&2; return 1; }
	mkdir -p "$VM_MNT/a" "$VM_MNT/s"
	local out="$VM_DIR/bx.out" ev="$VM_DIR/bx.ev" rc=0
	"$FSS_BIN" trace -j -v --mount "$VM_MNT" --events "$ev" -- bash -c "
		$BLAMER append $VM_MNT/a 4 > $VM_DIR/app.pid &
		sleep 1
		$BLAMER storm $VM_MNT/s 2 > $VM_DIR/storm.pid
		wait" > "$out" 2> "$VM_DIR/bx.err" || rc=$?
	vm_artifact blame-xfs.out "$out"
	vm_artifact blame-xfs.err "$VM_DIR/bx.err"
	[ "$rc" -eq 0 ] || { tail -n 20 "$VM_DIR/bx.err" >&2; return 1; }
	local app storm by_storm others
	app="$(awk '/^ready/ { print $2 }' "$VM_DIR/app.pid")"
	storm="$(awk '/^ready/ { print $2 }' "$VM_DIR/storm.pid")"
	[ -n "$app" ] && [ -n "$storm" ]
	# loaded from xfs's module BTF: no "xfs log n/a" in the strategy
	jq -s 'map(select(.type == "start"))[0]' "$out" > "$VM_DIR/start.json"
	vm_jq_all "$VM_DIR/start.json" \
		'.strategy.blame | test("^[0-9]+ hooks")' \
		'.strategy.blame | test("xfs log n/a") | not'
	# the storm named for the appender's log time, by the log bytes of its
	# transactions in the CIL checkpoints the appender's forces named
	[ "$(jq -s "[.[] | select(.pid == $app) | .blame[]? |
		select(.pid == $storm and .comm == \"storm\" and
		       .phase == \"journal\" and .evidence.xfs_cil_seq != null and
		       .evidence.log_bytes > 0)] | length" "$ev")" -gt 0 ]
	by_storm="$(jq -s "[.[] | select(.pid == $app) | .blame[]? |
		select(.phase == \"journal\" and .pid == $storm) | .blamed_ns] |
		add // 0" "$ev")"
	others="$(jq -s "[.[] | select(.pid == $app) | .blame[]? |
		select(.phase == \"journal\" and .unattributed == null and
		       (.self | not)) | .blamed_ns] | add // 0" "$ev")"
	echo "appender's log time: $by_storm of $others ns blamed on others are the storm's" >&3
	[ "$(jq -n "$others > 0 and $by_storm >= 0.8 * $others")" = true ]
	[ -z "$(vm_sum_errors "$ev")" ]
}
