#!/usr/bin/env bats
# Bash completion (contrib/bash-completion/fsyncscope, issue 21 item 7):
# installed by `make install`, registered for fsyncscope, and driven here
# the way bash drives it (COMP_WORDS/COMP_CWORD, then _fsyncscope fills
# COMPREPLY).  Needs only bash; no root.

load lib
bats_require_minimum_version 1.5.0

COMPL="$FSS_ROOT/contrib/bash-completion/fsyncscope"

setup() {
	fss_scratch
}

teardown() {
	fss_cleanup
}

# comp WORD...: the completions of the last WORD, one per line, sorted
comp() {
	bash -c '
		source "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
		_fsyncscope
		printf "%s\n" "${COMPREPLY[@]}"' bash "$COMPL" "$FSS_BIN" "$@" | sort
}

# has LIST WORD...: every WORD is a line of LIST
has() {
	local list="$1" w
	shift
	for w in "$@"; do
		grep -qxF -- "$w" <<< "$list" || { echo "'$w' not in: $(echo $list)" >&2; return 1; }
	done
}

@test "make install puts it where bash-completion looks; complete -p shows it" {
	make -C "$FSS_ROOT" --no-print-directory install DESTDIR="$FSS_SCRATCH/root" PREFIX=/usr
	local f="$FSS_SCRATCH/root/usr/share/bash-completion/completions/fsyncscope"
	[ -f "$f" ]
	cmp "$f" "$COMPL"
	run -0 bash -c 'source "$1" && complete -p fsyncscope' bash "$f"
	[ "$output" = "complete -F _fsyncscope fsyncscope" ]
}

@test "commands complete" {
	run -0 comp ""
	has "$output" run trace devices compare report diff exporter check
	run -0 comp tr
	[ "$output" = trace ]
	run -0 comp co
	[ "$output" = compare ]
	run -0 comp ch
	[ "$output" = check ]
}

@test "options of each command complete, and are exactly those of its --help" {
	local cmd got want
	for cmd in run trace devices compare report diff exporter check; do
		got="$(comp "$cmd" -)"
		# every long option of the command's --help (with aliases)
		want="$("$FSS_BIN" "$cmd" --help | grep -E '^ +-' |
			sed -E 's/^ +//; s/ {2,}.*//; s/, -/\n-/g' |
			sed -E 's/[= ].*//' | sort)"
		[ -n "$want" ]
		echo "$cmd: $(echo $got)"
		[ "$(grep -vxF -- -- <<< "$got")" = "$(sort -u <<< "$want")" ]
	done
	has "$(comp run --)" --method --pattern --bs --jobs --json --count --seconds
	has "$(comp trace -)" -p -c -j -d --pid --comm --json --mount --
	has "$(comp devices --p)" --probe
	has "$(comp compare --)" --fs --dir --method --json
	# -c is trace's --comm only
	! grep -qxF -- -c <<< "$(comp run -)" || false
}

@test "--method, --pattern, --strategy, --fs values complete, as the help texts list them" {
	local m
	run -0 comp run --method ""
	[ "${#lines[@]}" -eq 8 ]
	# each value is in run's --help (the description of --method)
	for m in "${lines[@]}"; do
		"$FSS_BIN" run --help | tr -s ' \n' ' ' | grep -qE "method=M .*\b$m\b" ||
			{ echo "$m not in run --help" >&2; return 1; }
	done
	run -0 comp run --method fd
	[ "$output" = fdatasync ]
	# bash splits --method=fd at '='
	run -0 comp run --method = fd
	[ "$output" = fdatasync ]
	run -0 comp compare --method fsync,open_d
	[ "$output" = fsync,open_datasync ]
	run -0 comp run --pattern ""
	[ "$(echo $output)" = "append overwrite random" ]
	run -0 comp trace --strategy ""
	[ "$(echo $output)" = "auto fentry kprobe tracepoint" ]
	run -0 comp compare --fs ext4,
	[ "$(echo $output)" = "ext4,btrfs ext4,ext4 ext4,xfs" ]
	run -0 comp exporter --labels kind,
	[ "$(echo $output)" = "kind,cgroup kind,comm kind,device kind,kind" ]
	# --format: the values the help texts give
	run -0 comp report --format ""
	[ "$(echo $output)" = "csv html json perfetto text" ]
	# the --format description (it may wrap) names every value offered
	local fmt
	fmt="$("$FSS_BIN" report --help | sed -En '/--format=FMT/,/^ {2,6}-/p' | sed '$d' | tr -s ' \n' ' ')"
	for m in csv html json perfetto text; do
		[[ "$fmt" == *"$m"* ]] || { echo "$m not in: $fmt" >&2; return 1; }
	done
}

@test "directories complete for DIR, --dir, --mount, --probe; commands after trace --" {
	mkdir -p "$FSS_SCRATCH/dbdir/sub"
	: > "$FSS_SCRATCH/dbfile"
	run -0 comp run "$FSS_SCRATCH/db"
	[ "$output" = "$FSS_SCRATCH/dbdir" ]
	run -0 comp compare --dir "$FSS_SCRATCH/db"
	[ "$output" = "$FSS_SCRATCH/dbdir" ]
	run -0 comp trace --mount "$FSS_SCRATCH/db"
	[ "$output" = "$FSS_SCRATCH/dbdir" ]
	run -0 comp devices --probe "$FSS_SCRATCH/db"
	[ "$output" = "$FSS_SCRATCH/dbdir" ]
	run -0 comp run --file "$FSS_SCRATCH/dbf"
	[ "$output" = "$FSS_SCRATCH/dbfile" ]
	run -0 comp trace -c postgres -- bas
	has "$output" bash
}
