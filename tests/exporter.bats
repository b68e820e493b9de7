#!/usr/bin/env bats
# `fsyncscope exporter` (issue 19) against the real thing: Debian's
# prometheus (1 s scrape) and prometheus-node-exporter (textfile collector),
# started on scratch ports by each test and always stopped.  The workload is
# `fsyncscope run --no-trace --count N --method fdatasync` on a loop ext4 image:
# exactly N fdatasyncs (and one fsync when it prepares its file).  Counts
# are compared exactly; nothing here asserts timing.

load lib
bats_require_minimum_version 1.5.0

PROM=/usr/bin/prometheus
PROMTOOL=/usr/bin/promtool
NODE_EXP=/usr/bin/prometheus-node-exporter

setup() {
	[[ "$BATS_TEST_DESCRIPTION" == unit:* ]] || fss_need_root
	fss_scratch
	bg_pids=()
	exp_prefix=()
}

teardown() {
	fss_stop_bg TERM
	fss_cleanup
}

# free_port: a TCP port no socket uses, below the kernel's ephemeral range
# (an outgoing connection's local port there made a bind fail once)
free_port() {
	local p lo
	read -r lo _ < /proc/sys/net/ipv4/ip_local_port_range
	[ "$lo" -gt 11000 ] || lo=32768
	while :; do
		p=$((10000 + RANDOM % (lo - 10000)))
		ss -Htan "sport = :$p" | grep -q . || { echo "$p"; return 0; }
	done
}

# start_exporter NAME ARGS...: in the background, ready; sets exp_pid
# (run under the command in the array exp_prefix, if set)
start_exporter() {
	local name="$1"
	shift
	fss_start_bg "$name" err '^fsyncscope: exporting' \
		"${exp_prefix[@]}" "$FSS_BIN" exporter "$@" || return 1
	exp_pid=$bg_pid
}

# stop_pid PID: SIGTERM, and it must exit 0
stop_pid() {
	local rc=0
	kill -TERM "$1"
	wait "$1" || rc=$?
	[ "$rc" -eq 0 ] || { echo "pid $1 exited $rc" >&2; return 1; }
}

# start_prom TARGET [JOB_YAML]: Prometheus scraping TARGET every second
# (JOB_YAML: more keys of the scrape job, indented by 4); sets prom_url
start_prom() {
	local port
	[ -x "$PROM" ] || skip "prometheus not installed (make deps)"
	port=$(free_port)
	mkdir -p "$FSS_SCRATCH/prom"
	cat > "$FSS_SCRATCH/prom.yml" <<-EOF
	global:
	  scrape_interval: 1s
	  scrape_timeout: 1s
	  evaluation_interval: 1s
	scrape_configs:
	  - job_name: fsyncscope
	$2
	    static_configs:
	      - targets: ['$1']
	EOF
	"$PROM" --config.file="$FSS_SCRATCH/prom.yml" \
		--storage.tsdb.path="$FSS_SCRATCH/prom" \
		--web.listen-address="127.0.0.1:$port" --log.level=warn \
		> "$FSS_SCRATCH/prom.log" 2>&1 3>&- &
	bg_pids+=("$!")
	prom_url="http://127.0.0.1:$port"
	local i
	for ((i = 0; i < 300; i++)); do
		curl -sf "$prom_url/-/ready" >/dev/null && return 0
		sleep 0.1
	done
	cat "$FSS_SCRATCH/prom.log" >&2
	return 1
}

# pq EXPR: the value of Prometheus's instant query (first result), "" if none
pq() {
	curl -sf --data-urlencode "query=$1" "$prom_url/api/v1/query" |
		jq -r '.data.result[0].value[1] // empty'
}

# pq_wait EXPR WANT [TENTHS]: until the query gives exactly WANT
pq_wait() {
	local i v n="${3:-200}"
	for ((i = 0; i < n; i++)); do
		v=$(pq "$1")
		[ "$v" = "$2" ] && return 0
		sleep 0.1
	done
	echo "query $1: got '$v', want '$2'" >&2
	return 1
}

# metric FILE SELECTOR: the value of the one sample matching SELECTOR (a
# regex over the sample line before the value), "" if none
metric() {
	grep -E "^$2 " "$1" | awk '{ print $NF }' | head -1
}

# scrape URL FILE [ACCEPT]: GET URL into FILE
scrape() {
	curl -sf --max-time 5 ${3:+-H "Accept: $3"} "$1" -o "$2"
}

# exp_wait URL SELECTOR WANT: until the exporter's own sample equals WANT
exp_wait() {
	local i v
	for ((i = 0; i < 200; i++)); do
		scrape "$1" "$FSS_SCRATCH/wait.txt" && v=$(metric "$FSS_SCRATCH/wait.txt" "$2")
		[ "$v" = "$3" ] && return 0
		sleep 0.1
	done
	echo "exporter $2: got '$v', want '$3'" >&2
	return 1
}

# workload N: exactly N fdatasyncs on $FSS_MNT; sets p50_us (the tool's own)
workload() {
	"$FSS_BIN" run --no-trace --json --count "$1" --method fdatasync "$FSS_MNT" \
		> "$FSS_SCRATCH/run.json" 2> "$FSS_SCRATCH/run.err"
	[ "$(jq '.tests[0].ops' "$FSS_SCRATCH/run.json")" -eq "$1" ]
	p50_us=$(jq '.tests[0].latency_us.p50' "$FSS_SCRATCH/run.json")
}

# web_config [CAUTH]: ($web_min: its min_version, default TLS12) a self-signed certificate for 127.0.0.1 (openssl) and
# $FSS_SCRATCH/web.yml serving it, with basic auth user alice (password
# $web_pass, bcrypt by libxcrypt through perl's crypt); CAUTH: a
# client_auth_type, with a CA that signed $FSS_SCRATCH/client.{crt,key}
web_pass=s3cret-pass
web_config() {
	local d="$FSS_SCRATCH/tls" hash salt
	mkdir -p "$d"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
		-keyout "$d/server.key" -out "$d/server.crt" 2>/dev/null
	salt=$(head -c 48 /dev/urandom | base64 -w0 | tr -dc 'a-zA-Z0-9' | head -c 21)u
	hash=$(perl -e 'print crypt($ARGV[0], "\$2b\$10\$" . $ARGV[1])' "$web_pass" "$salt")
	[ "${#hash}" -eq 60 ]
	{
		echo "tls_server_config:"
		echo "  cert_file: tls/server.crt"
		echo "  key_file: tls/server.key"
		echo "  min_version: ${web_min:-TLS12}"
		if [ -n "${1:-}" ]; then
			openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
				-nodes -days 2 -subj /CN=test-ca -keyout "$d/ca.key" \
				-out "$d/ca.crt" 2>/dev/null
			openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
				-subj /CN=scraper -keyout "$FSS_SCRATCH/client.key" \
				-out "$d/client.csr" 2>/dev/null
			openssl x509 -req -in "$d/client.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" \
				-CAcreateserial -days 2 -out "$FSS_SCRATCH/client.crt" 2>/dev/null
			echo "  client_auth_type: $1"
			echo "  client_ca_file: tls/ca.crt"
		fi
		echo "basic_auth_users:"
		echo "  alice: '$hash'"
	} > "$FSS_SCRATCH/web.yml"
}

# tls_code URL [CURL ARGS...]: the HTTP status over https with our CA
tls_code() {
	local u="$1"
	shift
	curl -s --max-time 10 -o /dev/null -w '%{http_code}' \
		--cacert "$FSS_SCRATCH/tls/server.crt" "$@" "$u"
}

# unprivileged PID: every thread runs as nobody with no capability at all
unprivileged() {
	local t nob
	nob=$(id -u nobody)
	for t in /proc/"$1"/task/*; do
		grep -qE "^Uid:\s+$nob\s+$nob\s+$nob\s+$nob$" "$t/status" || return 1
		grep -qE "^Gid:\s+$(id -g nobody)\s" "$t/status" || return 1
		grep -q '^Groups:\s*$' "$t/status" || return 1
		[ "$(grep -cE '^Cap(Inh|Prm|Eff|Bnd|Amb):\s+0000000000000000$' "$t/status")" -eq 5 ] ||
			{ grep Cap "$t/status" >&2; return 1; }
	done
}

DASH="$FSS_ROOT/contrib/grafana-dashboard.json"
ALERTS="$FSS_ROOT/contrib/fsyncscope-alerts.yml"
UNIT="$FSS_ROOT/contrib/fsyncscope-exporter.service"

# dash_exprs: the dashboard's PromQL with Grafana's variables filled in
dash_exprs() {
	jq -r '.panels[].targets[].expr' "$DASH" |
		sed -e 's/\$__rate_interval/1m/g' -e 's/\$instance/.*/g'
}

FD='fsyncscope_sync_duration_seconds_count\{[^}]*kind="fdatasync"[^}]*\}'

# bucket_index SECONDS: index of the histogram bucket (le bounds 1-2.5-5 per decade) holding it
bucket_index() {
	awk -v v="$1" 'BEGIN {
		split("1e-6 2.5e-6 5e-6 1e-5 2.5e-5 5e-5 1e-4 2.5e-4 5e-4 1e-3 2.5e-3 5e-3 1e-2 2.5e-2 5e-2 0.1 0.25 0.5 1 2.5 5 10", b, " ")
		for (i = 1; i <= 22; i++) if (v <= b[i] + 0) { print i; exit }
		print 23 }'
}

@test "unit: metrics model and Prometheus/OpenMetrics renderer (tests/unit/test_metrics.c)" {
	make -s -C "$FSS_ROOT" build/tests/test_metrics >&2
	run "$FSS_BUILD/tests/test_metrics"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == *" checks, 0 failures" ]]
}

@test "exporter: Prometheus's last sample and the exporter's count equal the workload's; p50 within a bucket; phases add up" {
	local port n=300 got q p50 ib it
	fss_mkfs ext4 256
	port=$(free_port)
	start_exporter exp --listen "127.0.0.1:$port" --mount "$FSS_MNT" --interval 1
	start_prom "127.0.0.1:$port"
	pq_wait 'up{job="fsyncscope"}' 1
	workload "$n"
	exp_wait "http://127.0.0.1:$port/metrics" "$FD" "$n"
	# Prometheus's last sample, exactly
	pq_wait 'sum(fsyncscope_sync_duration_seconds_count{kind="fdatasync"})' "$n"
	got=$(metric "$FSS_SCRATCH/wait.txt" "$FD")
	[ "$got" -eq "$n" ]
	# histogram_quantile within one bucket of the tool's own p50
	q=$(pq 'histogram_quantile(0.5, sum by (le) (fsyncscope_sync_duration_seconds_bucket{kind="fdatasync"}))')
	p50=$(awk -v u="$p50_us" 'BEGIN { printf "%.9f", u / 1e6 }')
	ib=$(bucket_index "$q")
	it=$(bucket_index "$p50")
	echo "histogram_quantile $q s (bucket $ib), tool p50 $p50 s (bucket $it)" >&2
	[ $((ib - it)) -le 1 ] && [ $((it - ib)) -le 1 ]
	# phases add up to the total (float sums: relative 1e-9)
	q=$(pq 'abs(sum(fsyncscope_phase_seconds_total{kind="fdatasync"}) - sum(fsyncscope_sync_duration_seconds_sum{kind="fdatasync"})) / sum(fsyncscope_sync_duration_seconds_sum{kind="fdatasync"})')
	echo "relative phase-sum difference $q" >&2
	awk -v d="$q" 'BEGIN { exit !(d < 1e-9) }'
	# and each phase histogram counted every sync once
	[ "$(pq 'count(fsyncscope_phase_duration_seconds_count{kind="fdatasync"} == '"$n"')')" = 6 ]
	[ "$(pq 'sum(fsyncscope_events_lost_total)')" = 0 ]
	[ "$(pq 'count(fsyncscope_build_info)')" = 1 ]
	# every query of the Grafana dashboard runs and returns data here (a
	# rate needs two samples of a series: a few scrapes after the workload)
	local e i
	while read -r e; do
		for ((i = 0; i < 100; i++)); do
			[ -n "$(pq "$e")" ] && break
			sleep 0.1
		done
		[ "$i" -lt 100 ] || { echo "dashboard query gave no data: $e" >&2; return 1; }
	done < <(dash_exprs)
	stop_pid "$exp_pid"
}

# kind_sum FILE FAMILY: the sum of FAMILY's fdatasync samples in FILE
kind_sum() {
	grep -E "^$2\{[^}]*kind=\"fdatasync\"" "$1" |
		awk '{ s += $NF } END { printf "%.9f\n", s }'
}

@test "exporter: --painter kernel: one record per sync; counts equal the workload's, phases add up, flush facts as the user painter's, the painter named, its consumer at normal priority" {
	local port port2 n=300 u="" u2="" got painted unp ph tot pol i kpid upid
	local f fk fu
	fss_mkfs ext4 256
	port=$(free_port)
	u="http://127.0.0.1:$port/metrics"
	# the default, user-space painter beside it, on the same syncs: its
	# counts from when the kernel painter's exporter is ready (which
	# calibrates on its own syncs, seen by this one)
	port2=$(free_port)
	u2="http://127.0.0.1:$port2/metrics"
	start_exporter exp2 --listen "127.0.0.1:$port2" --mount "$FSS_MNT" \
		--interval 1
	upid=$exp_pid
	start_exporter exp --painter kernel --listen "127.0.0.1:$port" \
		--mount "$FSS_MNT" --interval 1
	kpid=$exp_pid
	pol="$(fss_consumer_policy "$kpid" || echo none)"
	[ "$pol" = 0 ] || { echo "consumer policy $pol" >&2; return 1; }
	sleep 1.5
	scrape "$u2" "$FSS_SCRATCH/m0.txt"
	workload "$n"
	# every fdatasync is in the histograms, or counted as unpainted
	for ((i = 0; i < 200; i++)); do
		scrape "$u" "$FSS_SCRATCH/m.txt"
		got=$(metric "$FSS_SCRATCH/m.txt" "$FD")
		unp=$(metric "$FSS_SCRATCH/m.txt" \
			'fsyncscope_syncs_summarized_total\{kind="fdatasync",reason="unpainted"\}')
		[ $(( ${got:-0} + ${unp:-0} )) -eq "$n" ] && break
		sleep 0.1
	done
	echo "painted $got, unpainted ${unp:-0} of $n" >&2
	[ $(( ${got:-0} + ${unp:-0} )) -eq "$n" ]
	# a race or two at most (tests/kpaint.bats: one job paints them all)
	[ $(( ${unp:-0} * 50 )) -lt "$n" ]
	painted=$(metric "$FSS_SCRATCH/m.txt" \
		'fsyncscope_syncs_traced_in_full_total\{kind="fdatasync"\}')
	[ "$painted" -eq "$got" ]
	grep -q '^fsyncscope_painter_info{painter="kernel"} 1$' "$FSS_SCRATCH/m.txt"
	# the kernel's phases add up to each sync's total, so to their sum
	ph=$(kind_sum "$FSS_SCRATCH/m.txt" fsyncscope_phase_seconds_total)
	tot=$(kind_sum "$FSS_SCRATCH/m.txt" fsyncscope_sync_duration_seconds_sum)
	echo "phases $ph s, total $tot s" >&2
	awk -v a="$ph" -v b="$tot" 'BEGIN { d = a - b; if (d < 0) d = -d
		exit !(b > 0 && d / b < 1e-9) }'
	[ "$(grep -cE '^fsyncscope_phase_duration_seconds_count\{kind="fdatasync"[^}]*\} '"$got"'$' \
		"$FSS_SCRATCH/m.txt")" -eq 6 ]
	# the flush facts, counted in the kernel, are the user painter's
	# (which painted all $n): each fdatasync here sends a flush, so an
	# unpainted sync may take one from a per-sync count, and the
	# distinct requests are counted for every traced sync
	f=$(metric "$FSS_SCRATCH/m0.txt" "$FD")
	exp_wait "$u2" "$FD" $(( ${f:-0} + n ))
	cp "$FSS_SCRATCH/wait.txt" "$FSS_SCRATCH/m2.txt"
	grep -q '^fsyncscope_painter_info{painter="user"} 1$' "$FSS_SCRATCH/m2.txt"
	for f in flushes flush_syncs_served syncs_without_flush fua_writes \
		 fua_emulated_writes preflush_requests nvme_flush_commands; do
		fk=$(metric "$FSS_SCRATCH/m.txt" "fsyncscope_${f}_total")
		fu=$(metric "$FSS_SCRATCH/m2.txt" "fsyncscope_${f}_total")
		fu=$(( fu - $(metric "$FSS_SCRATCH/m0.txt" "fsyncscope_${f}_total") ))
		echo "$f: kernel '$fk', user '$fu'" >&2
		[ -n "$fk" ] && [ -n "$fu" ]
		[ $(( fk > fu ? fk - fu : fu - fk )) -le "${unp:-0}" ]
	done
	[ "$(metric "$FSS_SCRATCH/m.txt" fsyncscope_flushes_total)" -gt 0 ]
	if [ -x "$PROMTOOL" ]; then
		run "$PROMTOOL" check metrics < "$FSS_SCRATCH/m.txt"
		echo "$output" >&2
		[ "$status" -eq 0 ] && [ -z "$output" ]
	fi
	stop_pid "$upid"
	stop_pid "$kpid"
	# where the kernel cannot paint (the raw_tp block set): one line, and
	# user space paints, its consumer idle as by default
	exp_prefix=(env FSYNCSCOPE_BLOCK_HOOKS=raw_tp)
	start_exporter exp3 --painter kernel --listen "127.0.0.1:$port" \
		--mount "$FSS_MNT" --interval 1
	grep -q -- '--painter kernel: n/a here' "$FSS_SCRATCH/exp3.err"
	pol="$(fss_consumer_policy "$exp_pid" || echo none)"
	[ "$pol" = 5 ] || { echo "fallback consumer policy $pol" >&2; return 1; }
	workload 20
	exp_wait "$u" "$FD" 20
	grep -q '^fsyncscope_painter_info{painter="user"} 1$' "$FSS_SCRATCH/wait.txt"
	grep -q '^fsyncscope_flushes_total ' "$FSS_SCRATCH/wait.txt"
	stop_pid "$exp_pid"
}

@test "exporter: --painter kernel on overlayfs: its syncs keyed to the upper filesystem, all painted, labelled with the upper's device" {
	local port u n=100 got unp dev
	fss_mkfs ext4 256
	fss_mkoverlay
	dev="$(basename "$FSS_LOOP")"
	port=$(free_port)
	u="http://127.0.0.1:$port/metrics"
	start_exporter exp --painter kernel --listen "127.0.0.1:$port" \
		--interval 1
	FSS_MNT="$FSS_OVL" workload "$n"
	exp_wait "$u" 'fsyncscope_sync_duration_seconds_count\{kind="fdatasync",device="'"$dev"'"[^}]*\}' "$n"
	unp=$(metric "$FSS_SCRATCH/wait.txt" \
		'fsyncscope_syncs_summarized_total\{kind="fdatasync",reason="unpainted"\}')
	echo "unpainted '${unp:-0}'" >&2
	[ "${unp:-0}" -le 2 ]
	grep -qE '^fsyncscope_flushes_total [1-9]' "$FSS_SCRATCH/wait.txt"
	stop_pid "$exp_pid"
}

@test "exporter: promtool check metrics has no errors or lint warnings; OpenMetrics when Accept asks" {
	local port out
	[ -x "$PROMTOOL" ] || skip "promtool not installed (make deps)"
	fss_mkfs ext4 256
	port=$(free_port)
	start_exporter exp --listen "127.0.0.1:$port" --mount "$FSS_MNT" --interval 1 \
		--labels kind,device,comm,cgroup
	# the syncer stays alive after its syncs, so its cgroup can be read
	# from /proc (a process gone before its sync record is read is
	# cgroup="unknown", docs/prometheus.md)
	"$FSS_BUILD/tests/syncer" --fdatasync 50 --comm expsyncer "$FSS_MNT" \
		> "$FSS_SCRATCH/syncer.out" 2>&1 3>&- &
	bg_pids+=("$!")
	wait_for "$FSS_SCRATCH/syncer.out" '^done '
	exp_wait "http://127.0.0.1:$port/metrics" 'fsyncscope_sync_duration_seconds_count\{kind="fdatasync",[^}]*comm="expsyncer",cgroup="/[^"]*"\}' 50
	workload 50
	exp_wait "http://127.0.0.1:$port/metrics" 'fsyncscope_sync_duration_seconds_count\{kind="fdatasync",[^}]*comm="fsyncscope"[^}]*\}' 50
	scrape "http://127.0.0.1:$port/metrics" "$FSS_SCRATCH/m.txt"
	run "$PROMTOOL" check metrics < "$FSS_SCRATCH/m.txt"
	echo "$output" >&2
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	curl -sf -D "$FSS_SCRATCH/h.txt" -o "$FSS_SCRATCH/om.txt" \
		-H 'Accept: application/openmetrics-text; version=1.0.0' "http://127.0.0.1:$port/metrics"
	grep -qi '^content-type: application/openmetrics-text; version=1.0.0' "$FSS_SCRATCH/h.txt"
	[ "$(tail -1 "$FSS_SCRATCH/om.txt")" = "# EOF" ]
	grep -q '^# TYPE fsyncscope_phase_seconds counter$' "$FSS_SCRATCH/om.txt"
	grep -q '^# UNIT fsyncscope_sync_duration_seconds seconds$' "$FSS_SCRATCH/om.txt"
	grep -q '^# TYPE fsyncscope_build info$' "$FSS_SCRATCH/om.txt"
	stop_pid "$exp_pid"
}

@test "exporter: --textfile through node_exporter gives the same counts; SIGHUP rewrites the file" {
	local nport n=120 dir
	[ -x "$NODE_EXP" ] || skip "prometheus-node-exporter not installed (make deps)"
	fss_mkfs ext4 256
	dir="$FSS_SCRATCH/textfile"
	mkdir -p "$dir"
	# the exporter writes it as nobody (its default --user)
	chmod o+x "$FSS_SCRATCH"
	chown nobody: "$dir"
	start_exporter exp --textfile "$dir" --mount "$FSS_MNT" --interval 1
	[ -f "$dir/fsyncscope.prom" ]
	nport=$(free_port)
	"$NODE_EXP" --web.listen-address="127.0.0.1:$nport" \
		--collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$dir" > "$FSS_SCRATCH/node.log" 2>&1 3>&- &
	bg_pids+=("$!")
	workload "$n"
	exp_wait "http://127.0.0.1:$nport/metrics" "$FD" "$n"
	scrape "http://127.0.0.1:$nport/metrics" "$FSS_SCRATCH/node.txt"
	# node_exporter read the file without complaint
	[ "$(metric "$FSS_SCRATCH/node.txt" 'node_textfile_scrape_error')" = 0 ]
	[ "$(metric "$FSS_SCRATCH/node.txt" "$FD")" = "$(metric "$dir/fsyncscope.prom" "$FD")" ]
	# no temp files left; the file is nobody's
	[ "$(ls -A "$dir")" = "fsyncscope.prom" ]
	[ "$(stat -c %U "$dir/fsyncscope.prom")" = nobody ]
	rm "$dir/fsyncscope.prom"
	kill -HUP "$exp_pid"
	wait_for "$dir/fsyncscope.prom" "^$FD $n\$" 50
	stop_pid "$exp_pid"
	# the last counts stay for node_exporter
	[ "$(metric "$dir/fsyncscope.prom" "$FD")" = "$n" ]
}

@test "exporter: a restart is a counter reset to Prometheus, never a negative rate" {
	local port
	fss_mkfs ext4 256
	port=$(free_port)
	start_exporter exp1 --listen "127.0.0.1:$port" --mount "$FSS_MNT" --interval 1
	start_prom "127.0.0.1:$port"
	workload 200
	pq_wait 'sum(fsyncscope_sync_duration_seconds_count{kind="fdatasync"})' 200
	stop_pid "$exp_pid"
	start_exporter exp2 --listen "127.0.0.1:$port" --mount "$FSS_MNT" --interval 1
	workload 50
	pq_wait 'sum(fsyncscope_sync_duration_seconds_count{kind="fdatasync"})' 50
	sleep 2
	[ "$(pq 'sum(resets(fsyncscope_sync_duration_seconds_count{kind="fdatasync"}[5m]))')" = 1 ]
	# rate over the whole run, and at every second of it, is never negative
	[ "$(pq 'count(min_over_time(rate(fsyncscope_sync_duration_seconds_count{kind="fdatasync"}[3s])[5m:1s]) < 0)')" = "" ]
	[ "$(pq 'increase(fsyncscope_sync_duration_seconds_count{kind="fdatasync"}[5m]) >= 0')" != "" ]
	stop_pid "$exp_pid"
}

@test "exporter: --max-series bounds the label sets; the rest is folded and counted" {
	local port
	fss_mkfs ext4 256
	port=$(free_port)
	# room for one label set and the catch-all: the prefill fsync takes the
	# first, every fdatasync is folded
	start_exporter exp --listen "127.0.0.1:$port" --mount "$FSS_MNT" --interval 1 --max-series 2
	workload 100
	exp_wait "http://127.0.0.1:$port/metrics" 'fsyncscope_series_folded_total' 100
	scrape "http://127.0.0.1:$port/metrics" "$FSS_SCRATCH/m.txt"
	[ "$(metric "$FSS_SCRATCH/m.txt" 'fsyncscope_series')" = 2 ]
	[ "$(metric "$FSS_SCRATCH/m.txt" 'fsyncscope_sync_duration_seconds_count\{kind="other",device="other",mountpoint="other"\}')" = 100 ]
	[ "$(metric "$FSS_SCRATCH/m.txt" 'fsyncscope_sync_duration_seconds_count\{kind="fsync",[^}]*\}')" = 1 ]
	[ "$(grep -c '^fsyncscope_sync_duration_seconds_count' "$FSS_SCRATCH/m.txt")" -eq 2 ]
	stop_pid "$exp_pid"
}

@test "exporter: bad input is one line and a non-zero exit, nothing left behind" {
	local port lpid ro
	port=$(free_port)
	python3 -c 'import socket,sys,time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1); print("up", flush=True); time.sleep(120)' \
		"$port" > "$FSS_SCRATCH/busy.out" 3>&- &
	lpid=$!
	bg_pids+=("$lpid")
	wait_for "$FSS_SCRATCH/busy.out" '^up$'
	run -1 "$FSS_BIN" exporter --listen "127.0.0.1:$port"
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"Address already in use"* ]]
	run -2 "$FSS_BIN" exporter --listen "300.1.2.3:9469"
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"bad address"* ]]
	run -2 "$FSS_BIN" exporter --listen "127.0.0.1:99999"
	[ "${#lines[@]}" -eq 1 ]
	run -2 "$FSS_BIN" exporter --max-series 0
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"--max-series"* ]]
	run -2 "$FSS_BIN" exporter --labels kind,inode
	[ "${#lines[@]}" -eq 1 ]
	run -2 "$FSS_BIN" exporter --painter fast
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"--painter: 'fast' is not user or kernel"* ]]
	# an unwritable directory: a read-only tmpfs (root may write anywhere else)
	ro="$FSS_SCRATCH/ro"
	mkdir -p "$ro"
	mount -t tmpfs -o ro,size=1m tmpfs "$ro"
	echo "$ro" >> "$FSS_SCRATCH/.mounts"
	run -1 "$FSS_BIN" exporter --textfile "$ro"
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"cannot write there"* ]]
	run -1 "$FSS_BIN" exporter --textfile "$FSS_SCRATCH/nope"
	[ "${#lines[@]}" -eq 1 ]
	: > "$FSS_SCRATCH/afile"
	run -1 "$FSS_BIN" exporter --textfile "$FSS_SCRATCH/afile"
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"not a directory"* ]]
	[ -z "$(ls -A "$ro")" ]
}

@test "exporter: clients that never send, send garbage or never read block neither scrapes nor tracing" {
	local port i
	fss_mkfs ext4 256
	port=$(free_port)
	start_exporter exp --listen "127.0.0.1:$port" --mount "$FSS_MNT" --interval 1
	# silent: connect and send nothing (more of them than the server takes
	# connections); garbage: binary and a bad request line; reader: asks for
	# /metrics with a tiny receive buffer, never reads
	python3 -c 'import socket,sys,time
port = int(sys.argv[1])
def conn(rcvbuf=None):
    s = socket.socket()
    if rcvbuf: s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.connect(("127.0.0.1", port)); return s
keep = [conn() for _ in range(80)]     # more than the 64 connections
g = conn(); g.sendall(b"\x00\xff\x13garbage\x00"); keep.append(g)
g = conn(); g.sendall(b"HELLO WORLD\r\n\r\n"); keep.append(g)
for _ in range(5):
    r = conn(1024); r.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"); keep.append(r)
print("up", flush=True); time.sleep(120)' "$port" > "$FSS_SCRATCH/bad.out" 3>&- &
	bg_pids+=("$!")
	wait_for "$FSS_SCRATCH/bad.out" '^up$'
	for ((i = 0; i < 5; i++)); do
		scrape "http://127.0.0.1:$port/metrics" "$FSS_SCRATCH/ok.txt"
		grep -q '^fsyncscope_build_info' "$FSS_SCRATCH/ok.txt"
	done
	workload 100
	exp_wait "http://127.0.0.1:$port/metrics" "$FD" 100
	# a bad request line is answered 400 or the connection closed, headers
	# beyond the request size limit get a 431, a wrong path a 404, the rest 405
	local l
	l=$(printf 'NOPE\r\n\r\n' | curl -s --max-time 2 telnet://127.0.0.1:$port | head -1 | tr -d '\r')
	[ -z "$l" ] || [ "$l" = "HTTP/1.1 400 Bad Request" ]
	l=$(printf 'GET /metrics HTTP/1.1\r\nHost: x\r\nX: %s\r\n\r\n' "$(head -c 20000 /dev/zero | tr '\0' a)" |
		curl -s --max-time 2 telnet://127.0.0.1:$port | head -1 | tr -d '\r')
	[ "$l" = "HTTP/1.1 431 Request Header Fields Too Large" ]
	[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/nope")" = 404 ]
	[ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$port/metrics")" = 405 ]
	stop_pid "$exp_pid"
}

@test "contrib: the systemd unit passes systemd-analyze verify; the exporter runs with its ExecStart options (web config) and capability bounding set, and serves as nobody" {
	local t caps port url i
	command -v systemd-analyze >/dev/null || skip "systemd-analyze not installed (make deps installs systemd)"
	t="$FSS_SCRATCH/unit"
	mkdir -p "$t/man/man8"
	cp "$FSS_ROOT/docs/fsyncscope.8" "$t/man/man8/"
	# the unit as installed, pointing at this build
	sed "s|/usr/local/sbin/fsyncscope|$FSS_BIN|" "$UNIT" > "$t/fsyncscope-exporter.service"
	run env MANPATH="$t/man" systemd-analyze verify "$t/fsyncscope-exporter.service"
	echo "$output" >&2
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	grep -qx 'NoNewPrivileges=yes' "$UNIT"
	grep -qx 'ProtectSystem=strict' "$UNIT"
	# CapabilityBoundingSet=CAP_A CAP_B -> setpriv's -all,+a,+b
	caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$UNIT" | tr 'A-Z' 'a-z' |
		sed -e 's/cap_//g' -e 's/ /,+/g')
	[[ "$caps" == *bpf*perfmon* ]]
	fss_mkfs ext4 256
	port=$(free_port)
	# the unit's own ExecStart options, on a scratch port and our image
	web_config
	local -a args
	read -r -a args <<<"$(sed -n 's|^ExecStart=/usr/local/sbin/fsyncscope exporter ||p' "$UNIT" |
		sed -e "s|--listen :9469|--listen 127.0.0.1:$port|" \
		    -e "s|--web.config.file /etc/fsyncscope/web-config.yml|--web.config.file $FSS_SCRATCH/web.yml|")"
	[[ "${args[*]}" == *"--listen 127.0.0.1:$port --web.config.file $FSS_SCRATCH/web.yml"* ]]
	exp_prefix=(setpriv --no-new-privs --inh-caps=-all --bounding-set="-all,+$caps" --)
	start_exporter exp "${args[@]}" --mount "$FSS_MNT" --interval 1
	unprivileged "$exp_pid"
	workload 40
	url="https://127.0.0.1:$port/metrics"
	for ((i = 0; i < 100; i++)); do
		curl -sf --cacert "$FSS_SCRATCH/tls/server.crt" -u alice:"$web_pass" "$url" \
			-o "$FSS_SCRATCH/m.txt" && [ "$(metric "$FSS_SCRATCH/m.txt" "$FD")" = 40 ] && break
		sleep 0.1
	done
	[ "$(metric "$FSS_SCRATCH/m.txt" "$FD")" = 40 ]
	stop_pid "$exp_pid"
}

@test "contrib: the dashboard is valid JSON; its queries and the example alerts pass promtool; every metric they name is exported" {
	local port names n
	[ -x "$PROMTOOL" ] || skip "promtool not installed (make deps)"
	jq -e '.panels | length > 0' "$DASH" >/dev/null
	# the dashboard's queries as recording rules, for promtool check rules
	{
		echo "groups:"
		echo "  - name: dashboard"
		echo "    rules:"
		n=0
		while read -r e; do
			n=$((n + 1))
			echo "      - record: dashboard:query$n"
			printf '        expr: %s\n' "$(jq -Rn --arg e "$e" '$e')"
		done < <(dash_exprs)
	} > "$FSS_SCRATCH/dash-rules.yml"
	run "$PROMTOOL" check rules "$FSS_SCRATCH/dash-rules.yml"
	echo "$output" >&2
	[ "$status" -eq 0 ]
	[[ "$output" == *"SUCCESS: $n rules found"* ]]
	run "$PROMTOOL" check rules "$ALERTS"
	echo "$output" >&2
	[ "$status" -eq 0 ]
	# every fsyncscope_* name they use is in a real exposition
	fss_mkfs ext4 256
	port=$(free_port)
	start_exporter exp --listen "127.0.0.1:$port" --mount "$FSS_MNT" --interval 1 \
		--labels kind,device,comm
	workload 20
	exp_wait "http://127.0.0.1:$port/metrics" "$FD" 20
	scrape "http://127.0.0.1:$port/metrics" "$FSS_SCRATCH/m.txt"
	names=$( { dash_exprs; cat "$ALERTS"; } | grep -o 'fsyncscope_[a-z0-9_]*' | sort -u)
	[ -n "$names" ]
	for n in $names; do
		grep -q "^$n[ {]" "$FSS_SCRATCH/m.txt" || { echo "not exported: $n" >&2; return 1; }
	done
	stop_pid "$exp_pid"
}

@test "exporter: TLS and basic auth (web config): 401 / 401 / 200, plain HTTP refused, Prometheus scrapes over https; serves as nobody with no capabilities" {
	local port url n=100
	[ -x "$PROMTOOL" ] || skip "promtool not installed (make deps)"
	fss_mkfs ext4 256
	web_min=TLS13 web_config
	# the same file is valid to Prometheus's own checker
	run "$PROMTOOL" check web-config "$FSS_SCRATCH/web.yml"
	echo "$output" >&2
	[ "$status" -eq 0 ]
	port=$(free_port)
	url="https://127.0.0.1:$port/metrics"
	start_exporter exp --listen "127.0.0.1:$port" --web.config.file "$FSS_SCRATCH/web.yml" \
		--mount "$FSS_MNT" --interval 1
	grep -q '(https) as nobody' "$FSS_SCRATCH/exp.err"
	unprivileged "$exp_pid"
	# no credentials, a wrong password, an unknown user: 401 asking for Basic
	[ "$(tls_code "$url")" = 401 ]
	[ "$(tls_code "$url" -u alice:wrong)" = 401 ]
	[ "$(tls_code "$url" -u bob:"$web_pass")" = 401 ]
	curl -s -D - -o /dev/null --cacert "$FSS_SCRATCH/tls/server.crt" "$url" |
		grep -qi '^WWW-Authenticate: Basic realm="fsyncscope"'
	[ "$(tls_code "$url" -u alice:"$web_pass")" = 200 ]
	# plain HTTP on the TLS port: no HTTP response at all, so no metrics
	run curl -s --max-time 5 -o "$FSS_SCRATCH/plain.txt" -w '%{http_code}' "http://127.0.0.1:$port/metrics"
	[ "$status" -ne 0 ]
	[ "$output" = 000 ]
	! grep -q fsyncscope_ "$FSS_SCRATCH/plain.txt" 2>/dev/null || false
	# a client that offers at most TLS 1.2 is refused (min_version: TLS13;
	# the SIGHUP test has 1.2 accepted where the file allows it)
	[ "$(tls_code "$url" -u alice:"$web_pass" --tls-max 1.2)" = 000 ]
	# the real Prometheus, over https with basic_auth and tls_config
	start_prom "127.0.0.1:$port" "$(printf '%s\n' '    scheme: https' \
		'    basic_auth:' '      username: alice' "      password: $web_pass" \
		'    tls_config:' "      ca_file: $FSS_SCRATCH/tls/server.crt")"
	pq_wait 'up{job="fsyncscope"}' 1
	workload "$n"
	pq_wait 'sum(fsyncscope_sync_duration_seconds_count{kind="fdatasync"})' "$n"
	# lost events still read as nobody; on a kernel that refuses bpf() to
	# it, said on stderr and absent (never a made-up 0)
	if grep -q 'fsyncscope_events_lost_total is n/a' "$FSS_SCRATCH/exp.err"; then
		[ "$(pq 'count(fsyncscope_events_lost_total)')" = "" ]
	else
		[ "$(pq 'sum(fsyncscope_events_lost_total)')" = 0 ]
	fi
	# still nobody after serving and tracing
	unprivileged "$exp_pid"
	stop_pid "$exp_pid"
}

@test "exporter: client certificates (RequireAndVerifyClientCert): none or a foreign one closes the connection, the CA's passes" {
	local port url
	web_config RequireAndVerifyClientCert
	port=$(free_port)
	url="https://127.0.0.1:$port/metrics"
	start_exporter exp --listen "127.0.0.1:$port" --web.config.file "$FSS_SCRATCH/web.yml" \
		--interval 1
	# without one: no HTTP response
	[ "$(tls_code "$url" -u alice:"$web_pass")" = 000 ]
	# a certificate the CA did not sign: none either
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
		-subj /CN=mallory -keyout "$FSS_SCRATCH/m.key" -out "$FSS_SCRATCH/m.crt" 2>/dev/null
	[ "$(tls_code "$url" -u alice:"$web_pass" --cert "$FSS_SCRATCH/m.crt" --key "$FSS_SCRATCH/m.key")" = 000 ]
	# the CA's client certificate, and basic auth still applies
	[ "$(tls_code "$url" -u alice:wrong --cert "$FSS_SCRATCH/client.crt" --key "$FSS_SCRATCH/client.key")" = 401 ]
	[ "$(tls_code "$url" -u alice:"$web_pass" --cert "$FSS_SCRATCH/client.crt" --key "$FSS_SCRATCH/client.key")" = 200 ]
	stop_pid "$exp_pid"
}

@test "exporter: SIGHUP re-reads the web config (new password, new certificate); a bad one keeps the old; a named calibration file is not left behind" {
	local port url old
	web_config
	port=$(free_port)
	url="https://127.0.0.1:$port/metrics"
	# the files are nobody's to read again after the drop
	chmod o+x "$FSS_SCRATCH"
	chown -R nobody: "$FSS_SCRATCH/tls" "$FSS_SCRATCH/web.yml"
	# a named calibration file (no O_TMPFILE) in a directory nobody may
	# not write: its name goes before the drop, nothing is left behind
	mkdir "$FSS_SCRATCH/calib"
	exp_prefix=(env FSYNCSCOPE_NO_TMPFILE=1)
	start_exporter exp --listen "127.0.0.1:$port" --web.config.file "$FSS_SCRATCH/web.yml" \
		--interval 1 --calib-dir "$FSS_SCRATCH/calib"
	[ -z "$(ls -A "$FSS_SCRATCH/calib")" ]
	[ "$(tls_code "$url" -u alice:"$web_pass" --tls-max 1.2)" = 200 ]
	old=$(openssl s_client -connect "127.0.0.1:$port" </dev/null 2>/dev/null | openssl x509 -fingerprint -noout)
	# rotate: a new certificate and password
	web_pass=other-pass
	web_config
	chown -R nobody: "$FSS_SCRATCH/tls" "$FSS_SCRATCH/web.yml"
	kill -HUP "$exp_pid"
	wait_for "$FSS_SCRATCH/exp.err" '^fsyncscope: re-read '
	[ "$(tls_code "$url" -u alice:s3cret-pass)" = 401 ]
	[ "$(tls_code "$url" -u alice:other-pass)" = 200 ]
	[ "$(openssl s_client -connect "127.0.0.1:$port" </dev/null 2>/dev/null | openssl x509 -fingerprint -noout)" != "$old" ]
	# a broken file: one line, the old config stays
	echo "tls_server_config: [" > "$FSS_SCRATCH/web.yml"
	kill -HUP "$exp_pid"
	wait_for "$FSS_SCRATCH/exp.err" 'SIGHUP: .*kept the old web config'
	[ "$(tls_code "$url" -u alice:other-pass)" = 200 ]
	stop_pid "$exp_pid"
	[ -z "$(ls -A "$FSS_SCRATCH/calib")" ]
	! grep -q 'removed' "$FSS_SCRATCH/exp.err"
}

@test "exporter: a bad --web.config.file or --user is one line naming the key, exit 2, before anything is loaded" {
	local w="$FSS_SCRATCH/bad.yml" h
	web_config
	h=$(sed -n "s/^  alice: '\(.*\)'$/\1/p" "$FSS_SCRATCH/web.yml")
	# bad_cfg EXIT WANT: the file $w gives one line with WANT and exit EXIT
	bad_cfg() {
		run -"$1" "$FSS_BIN" exporter --listen 127.0.0.1:1 --web.config.file "$w"
		echo "$output" >&2
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == *"$2"* ]]
	}
	printf 'tls_server_config:\n  cert_file: tls/server.crt\n' > "$w"
	bad_cfg 2 "key_file is missing"
	printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\n  min_version: TLS9\n' \
		"$FSS_SCRATCH/tls/server.crt" "$FSS_SCRATCH/tls/server.key" > "$w"
	bad_cfg 2 "min_version: 'TLS9'"
	printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\n' \
		"$FSS_SCRATCH/tls/server.crt" "$FSS_SCRATCH/nope.key" > "$w"
	bad_cfg 2 "key_file: $FSS_SCRATCH/nope.key: No such file"
	# a key that is not the certificate's
	openssl genpkey -algorithm ec -pkeyopt ec_paramgen_curve:prime256v1 -out "$FSS_SCRATCH/other.key" 2>/dev/null
	printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\n' \
		"$FSS_SCRATCH/tls/server.crt" "$FSS_SCRATCH/other.key" > "$w"
	bad_cfg 2 "cert_file and key_file"
	# libmicrohttpd asks for client certificates only with a CA
	printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\n  client_auth_type: RequireAnyClientCert\n' \
		"$FSS_SCRATCH/tls/server.crt" "$FSS_SCRATCH/tls/server.key" > "$w"
	bad_cfg 2 "client_auth_type: needs client_ca_file"
	printf 'basic_auth_users:\n  alice: plaintext\n' > "$w"
	bad_cfg 2 "basic_auth_users.alice: not a bcrypt hash"
	printf 'basic_auth_users:\n  alice: "%s"\ncipher_suites: []\n' "$h" > "$w"
	bad_cfg 2 "line 3: cipher_suites: unknown key"
	printf 'tls_server_config:\n  cert_file: a\n  key_file: b\n  cipher_suites: [TLS_AES_128_GCM_SHA256]\n' > "$w"
	bad_cfg 2 "tls_server_config.cipher_suites: not supported"
	# a cost of 20 would take minutes per failed login (and to load)
	printf 'basic_auth_users:\n  alice: "$2y$20$%s"\n' \
		"abcdefghijklmnopqrstuu2r9OfJnfCsdneAXAGHnS4UpFFP8WIrW" > "$w"
	bad_cfg 2 "basic_auth_users.alice: not a bcrypt hash (\$2a\$, \$2b\$ or \$2y\$, cost at most 14"
	# a quoted key holding a newline is still one line (fuzz_webcfg)
	printf '"a\\nb": 1\n' > "$w"
	bad_cfg 2 "line 1: a?b: unknown key"
	printf 'basic_auth_users: {}\nbasic_auth_users: {}\n' > "$w"
	bad_cfg 2 "line 2: basic_auth_users: given twice"
	printf 'basic_auth_users: [\n' > "$w"
	bad_cfg 2 "bad.yml: line "
	run -2 "$FSS_BIN" exporter --listen 127.0.0.1:1 --web.config.file "$FSS_SCRATCH/none.yml"
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"none.yml: No such file"* ]]
	run -2 "$FSS_BIN" exporter --listen 127.0.0.1:1 --user no-such-user-here
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"--user no-such-user-here: no such user"* ]]
	run -2 "$FSS_BIN" exporter --listen 127.0.0.1:1 --user root
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"not an unprivileged user"* ]]
	# the good file and user pass (the address is checked after them)
	run -2 "$FSS_BIN" exporter --listen 300.1.2.3:1 --web.config.file "$FSS_SCRATCH/web.yml" --user 65534
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"bad address"* ]]
}
