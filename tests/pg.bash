# PostgreSQL 15 (Debian) for the bats suites: a cluster on a loop FS image,
# on a unix socket in the scratch directory, stopped by pg_stop (call it
# from teardown; it does nothing when no cluster was started).
#
#   pg_setup FS [SERVER_OPTION...]  -> pg_data, pg_sock, pg_port; pgbench -i -s 2
#                                   FS "delay": on the delay fixture's mount
#                                   (delay_setup first, fixtures/delay.bash)
#   pg_sql SQL                      -> psql -At, one statement
#   pg_stop

PGBIN=/usr/lib/postgresql/15/bin

pg_setup() {
	[ -x "$PGBIN/initdb" ] || skip "postgresql-15 not installed"
	id postgres >/dev/null 2>&1 || skip "no postgres user"
	local fs="$1"
	shift
	if [ "$fs" = delay ]; then
		[ -n "${DELAY_MNT:-}" ] || { echo "pg_setup: no delay fixture" >&2; return 1; }
		FSS_MNT="$DELAY_MNT"
	else
		fss_mkfs "$fs"
	fi
	chmod 755 "$FSS_SCRATCH"
	pg_data="$FSS_MNT/pgdata"
	pg_sock="$FSS_SCRATCH/pg"
	pg_port=$((55000 + $$ % 1000))
	mkdir -p "$pg_data" "$pg_sock"
	chown postgres: "$pg_data" "$pg_sock"
	runuser -u postgres -- "$PGBIN/initdb" -D "$pg_data" -A trust --no-sync >/dev/null
	runuser -u postgres -- "$PGBIN/pg_ctl" -D "$pg_data" -l "$pg_sock/log" -w \
		-o "-k $pg_sock -p $pg_port -c listen_addresses='' $*" start >/dev/null 3>&-
	runuser -u postgres -- "$PGBIN/pgbench" -h "$pg_sock" -p "$pg_port" -i -s 2 -q postgres \
		>/dev/null 2>&1
}

pg_sql() {
	runuser -u postgres -- "$PGBIN/psql" -h "$pg_sock" -p "$pg_port" -At -c "$1" postgres
}

pg_stop() {
	if [ -n "${pg_data:-}" ] && [ -f "$pg_data/postmaster.pid" ]; then
		runuser -u postgres -- "$PGBIN/pg_ctl" -D "$pg_data" -m immediate -w stop >/dev/null 2>&1 || true
	fi
}
