#!/usr/bin/env bats
# Dependencies by purpose (issue 26): `make run` installs what building and
# running need and nothing else (no server, no test tool: it may be typed
# on a production database host); `make test` installs everything.  The
# lists come from `make print-deps`; apt-get and dpkg-query are replaced
# by stand-ins on PATH that log what make asked for, so nothing is
# installed here.  The libraries the build links are looked up in dpkg.

load lib
bats_require_minimum_version 1.5.0

# packages a production host must not get from `make run`: servers (they
# start on install), browsers, test runners and tools
NOT_FOR_RUN="postgresql-15 postgresql mariadb-server prometheus
	prometheus-node-exporter chromium bats fio sqlite3 strace bpftrace
	xfsprogs btrfs-progs python3-venv jq curl lintian debootstrap fuse3
	libfuse3-dev systemd"

setup() {
	fss_scratch
	STUB="$FSS_SCRATCH/bin"
	mkdir -p "$STUB"
	APTLOG="$FSS_SCRATCH/apt.log"
	: > "$APTLOG"
	# apt-get: logs its arguments; `update` works, `install` fails so
	# that make stops right there
	cat > "$STUB/apt-get" <<-EOF
	#!/bin/sh
	echo "\$*" >> "$APTLOG"
	[ "\$1" = update ] && exit 0
	exit 100
	EOF
	chmod +x "$STUB/apt-get"
}

teardown() {
	fss_cleanup
}

# stub_dpkg_query installed|missing: every package is that
stub_dpkg_query() {
	if [ "$1" = installed ]; then
		printf '#!/bin/sh\necho "install ok installed"\n' > "$STUB/dpkg-query"
	else
		printf '#!/bin/sh\nexit 1\n' > "$STUB/dpkg-query"
	fi
	chmod +x "$STUB/dpkg-query"
}

# deps KEY: that line of `make print-deps`, one word per line
deps() {
	make -s -C "$FSS_ROOT" --no-print-directory print-deps |
		sed -n "s/^$1: //p" | tr ' ' '\n' | sed '/^$/d'
}

# the packages of the log's `install` line, one per line, sorted
installed_asked() {
	sed -n 's/^install .* --no-install-recommends //p' "$APTLOG" |
		tr ' ' '\n' | sed '/^$/d' | sort -u
}

@test "print-deps: the build list has no server and no test tool, and shares nothing with the test list" {
	local build test p
	build="$(deps build)"
	test="$(deps test)"
	[ -n "$build" ] && [ -n "$test" ]
	echo "build: $(echo $build)"
	for p in $NOT_FOR_RUN; do
		! grep -qxF "$p" <<< "$build" ||
			{ echo "$p is in the build list" >&2; return 1; }
	done
	for p in $build; do
		! grep -qxF "$p" <<< "$test" ||
			{ echo "$p is in both lists" >&2; return 1; }
	done
}

@test "print-deps: every library the binary's build takes from pkg-config or -l comes from a package in the build list" {
	local build pc dir pkg lib so n=0
	build="$(deps build)"
	for pc in $(deps pkg-config); do
		dir="$(pkg-config --variable=pcfiledir "$pc")"
		pkg="$(dpkg -S "$dir/$pc.pc" | cut -d: -f1)"
		echo "pkg-config $pc -> $pkg"
		grep -qxF "$pkg" <<< "$build" ||
			{ echo "$pc.pc is from $pkg, not in the build list" >&2; return 1; }
		n=$((n + 1))
	done
	for lib in $(deps ldlibs); do
		lib="${lib#-l}"
		# the file the linker takes (libpthread: only a .a in glibc 2.34+)
		so="$(gcc -print-file-name="lib$lib.so")"
		[ -e "$so" ] || so="$(gcc -print-file-name="lib$lib.a")"
		so="$(readlink -f "$(dirname "$so")")/$(basename "$so")"
		pkg="$(dpkg -S "$so" | head -n1 | cut -d: -f1)"
		echo "-l$lib ($so) -> $pkg"
		grep -qxF "$pkg" <<< "$build" ||
			{ echo "-l$lib is from $pkg, not in the build list" >&2; return 1; }
		n=$((n + 1))
	done
	[ "$n" -ge 10 ]
	# the test fixtures' library is a test package
	dir="$(pkg-config --variable=pcfiledir fuse3)"
	pkg="$(dpkg -S "$dir/fuse3.pc" | cut -d: -f1)"
	deps test | grep -qxF "$pkg"
}

@test "make run with nothing installed asks apt-get for the build list only" {
	stub_dpkg_query missing
	run -2 env PATH="$STUB:$PATH" make -C "$FSS_ROOT" --no-print-directory \
		run OUTPUT="$FSS_SCRATCH/out"
	echo "$output"
	[[ "$output" == *"make deps-build: apt-get install failed for:"* ]]
	grep -qx update "$APTLOG" || grep -q '^update' "$APTLOG"
	diff <(installed_asked) <(deps build | sort -u)
	# it stopped there: nothing built, nothing run
	[ ! -e "$FSS_SCRATCH/out" ]
}

@test "make run with everything installed asks apt-get for nothing and runs" {
	stub_dpkg_query installed
	run -0 env PATH="$STUB:$PATH" make -C "$FSS_ROOT" --no-print-directory \
		run RUN_ARGS=--help
	[ ! -s "$APTLOG" ]
	[[ "$output" == *"./fsyncscope run --help"* ]]
	[[ "$output" == *"Usage: fsyncscope run"* ]]
}

@test "make test with nothing installed asks for every list: build, deb and test" {
	stub_dpkg_query missing
	run -2 env PATH="$STUB:$PATH" make -C "$FSS_ROOT" --no-print-directory \
		test OUTPUT="$FSS_SCRATCH/out"
	[[ "$output" == *"make deps: apt-get install failed for:"* ]]
	diff <(installed_asked) <( (deps build; deps deb; deps test) | sort -u)
	installed_asked | grep -qx postgresql-15
	installed_asked | grep -qx bats
}

@test "make deb with nothing installed asks for the build list and dpkg-dev only" {
	stub_dpkg_query missing
	run -2 env PATH="$STUB:$PATH" make -C "$FSS_ROOT" --no-print-directory \
		deb OUTPUT="$FSS_SCRATCH/out"
	[[ "$output" == *"make deps-deb: apt-get install failed for:"* ]]
	diff <(installed_asked) <( (deps build; deps deb) | sort -u)
}

@test "README's dependency table names every package of every list" {
	local p missing=
	for p in $(deps build) $(deps deb) $(deps test); do
		# the first column of the table
		sed -n '/^## Dependencies/,/^## /p' "$FSS_ROOT/README.md" |
			grep '^|' | cut -d'|' -f2 |
			grep -qE "(^|[ ,])$p([ ,]|$)" ||
			missing="$missing $p"
	done
	[ -z "$missing" ] || { echo "not in README:$missing" >&2; return 1; }
}
