#!/usr/bin/env bats
# VM lane, xfs blame (issue 18, docs/blame.md "xfs") on Debian's stock 6.1
# kernel, where xfs is a module: blame's xfs programs are tp_btf programs
# on xfs tracepoints, whose BTF is xfs's module BTF there.  Either they
# load and a metadata storm is named for the appender's log time, or
# blame says why the xfs part is n/a; never a made-up share.

load vmlib

setup_file() {
	vm_fs_setup_file xfs
}

teardown_file() {
	vm_cleanup
}

setup() {
	vm_setup
}

@test "6.1 xfs (a module): blame's xfs programs load from its module BTF and name a metadata storm for the appender's log time" {
	local out="$VM_DIR/blame-xfs.out" ev="$VM_DIR/blame-xfs.ev" app storm
	local by_storm others
	vm_blame_storm blame-xfs
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
