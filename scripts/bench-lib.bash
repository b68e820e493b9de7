# shellcheck shell=bash
# bench-lib.bash - what the bench scripts share (sourced; they define
# $scratch and die()).

# bt_start SCRIPT: bpftrace SCRIPT in the background (its pid in bt_pid),
# back once it says its probes are attached, and a second more (it prints
# "Attaching N probes..." before the last of them is in).
bt_start() {
	local i
	bpftrace "$1" > "$scratch/bt.out" 2>&1 &
	bt_pid=$!
	for ((i = 0; i < 600; i++)); do
		grep -q '^Attaching' "$scratch/bt.out" && break
		kill -0 "$bt_pid" 2> /dev/null ||
			die "bpftrace failed: $(head -n 3 "$scratch/bt.out")"
		sleep 0.05
	done
	sleep 1
}

# bt_stop: SIGINT every 2 s until bpftrace is gone (one that arrives while
# it still attaches is lost: a bench once waited 6 minutes on it), SIGKILL
# after 10 s.
bt_stop() {
	local i
	for ((i = 0; i < 100; i++)); do
		kill -0 "$bt_pid" 2> /dev/null || break
		((i % 20)) || kill -INT "$bt_pid" 2> /dev/null
		sleep 0.1
	done
	kill -KILL "$bt_pid" 2> /dev/null || true
	wait "$bt_pid" 2> /dev/null || true
	bt_pid=""
}
