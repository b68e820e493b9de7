#!/usr/bin/env bats
# The Debian package (issue 26, docs/package.md): `make deb` builds
# build/fsyncscope_VERSION_ARCH.deb from the tree; its metadata, contents
# and lintian are checked here, then it is installed with apt-get into a
# fresh Debian 12 root (debootstrap, minbase) and used there: --version,
# devices, check, a traced run and a trace of a command, as root in a
# chroot.
# The chroot's mounts live in a private mount namespace (unshare), so they
# go when it ends, also on failure; its test filesystem is a loop image.

load lib
bats_require_minimum_version 1.5.0

MIRROR="${FSS_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
# package names a host must not get from the package: build tools, servers
NOT_RUNTIME='^(gcc|clang|llvm|bpftool|make|postgresql|mariadb-server|prometheus)'
NOT_RUNTIME+='|-dev$|^gcc-|^clang-|^llvm-|^postgresql-[0-9]'

setup_file() {
	local v rc=0 log="$BATS_FILE_TMPDIR/make-deb.log"
	make -C "$FSS_ROOT" --no-print-directory deb > "$log" 2>&1 || rc=$?
	sed 's/^/# /' "$log" >&3
	[ "$rc" -eq 0 ] || { echo "make deb failed ($rc)" >&2; return 1; }
	v="$("$FSS_BIN" --version | cut -d' ' -f2)"
	DEB="$FSS_BUILD/fsyncscope_${v}_$(dpkg --print-architecture).deb"
	[ -f "$DEB" ] || { echo "make deb wrote no $DEB" >&2; return 1; }
	export DEB VERSION="$v"
}

setup() {
	fss_scratch
}

teardown() {
	fss_cleanup
}

@test "deb: version, architecture and Depends as computed from the binary: runtime libraries only" {
	local dep names so pkg f
	[ "$(dpkg-deb -f "$DEB" Package)" = fsyncscope ]
	[ "$(dpkg-deb -f "$DEB" Version)" = "$VERSION" ]
	[ "$(dpkg-deb -f "$DEB" Architecture)" = "$(dpkg --print-architecture)" ]
	dep="$(dpkg-deb -f "$DEB" Depends)"
	echo "Depends: $dep"
	# the package names, one per line
	names="$(tr ',' '\n' <<< "$dep" | sed 's/^ *//; s/ .*//')"
	# every library the binary needs is there, through its package
	for so in $(objdump -p "$FSS_BIN" | awk '$1 == "NEEDED" { print $2 }'); do
		f="$(ldd "$FSS_BIN" | awk -v so="$so" '$1 == so { print $3 }')"
		pkg="$( (dpkg -S "$f" || dpkg -S "$(readlink -f "$f")") 2>/dev/null |
			head -n1 | cut -d: -f1)"
		echo "$so: $f ($pkg)"
		grep -qxF "$pkg" <<< "$names" ||
			{ echo "$so ($pkg) not in Depends" >&2; return 1; }
	done
	for pkg in libbpf1 libjson-c5 libmount1 libnvme1 libpq5 libmariadb3 libc6; do
		grep -qxF "$pkg" <<< "$names"
	done
	# nothing to build with, no server
	! grep -E "$NOT_RUNTIME" <<< "$names"
}

@test "deb: contents: binary, man page, completion, unit (not enabled), dashboard, alerts, copyright" {
	local x="$FSS_SCRATCH/x" f
	dpkg-deb -x "$DEB" "$x"
	for f in usr/sbin/fsyncscope usr/share/man/man8/fsyncscope.8.gz \
		 usr/share/bash-completion/completions/fsyncscope \
		 lib/systemd/system/fsyncscope-exporter.service \
		 usr/share/fsyncscope/grafana-dashboard.json \
		 usr/share/fsyncscope/fsyncscope-alerts.yml \
		 usr/share/fsyncscope/web-config.yml \
		 usr/share/doc/fsyncscope/copyright \
		 usr/share/doc/fsyncscope/changelog.gz; do
		[ -f "$x/$f" ] || { echo "no $f" >&2; return 1; }
	done
	# no maintainer scripts: nothing is enabled or started on install
	[ "$(dpkg-deb -I "$DEB" | grep -cE ' (pre|post)(inst|rm) ')" -eq 0 ]
	[ ! -e "$x/etc" ]
	grep -qx 'ExecStart=/usr/sbin/fsyncscope exporter .*' \
		"$x/lib/systemd/system/fsyncscope-exporter.service"
	! grep -q /usr/local "$x/lib/systemd/system/fsyncscope-exporter.service" || false
	[ "$("$x/usr/sbin/fsyncscope" --version)" = "fsyncscope $VERSION" ]
	# one version: binary, man page, changelog
	zcat "$x/usr/share/man/man8/fsyncscope.8.gz" |
		grep -q "^\.TH .*\"fsyncscope $VERSION\""
	zcat "$x/usr/share/doc/fsyncscope/changelog.gz" | head -n1 |
		grep -qxF "fsyncscope ($VERSION) unstable; urgency=medium"
	cmp "$x/usr/share/bash-completion/completions/fsyncscope" \
	    "$FSS_ROOT/contrib/bash-completion/fsyncscope"
	jq -e .panels "$x/usr/share/fsyncscope/grafana-dashboard.json" >/dev/null
}

@test "deb: lintian reports no error and no warning" {
	command -v lintian >/dev/null ||
		{ echo "no lintian: make deps" >&2; return 1; }
	run lintian --fail-on error,warning --info "$DEB"
	echo "$output"
	[ "$status" -eq 0 ]
	! grep -qE '^[EW]: ' <<< "$output"
}

# in_root SCRIPT: bash SCRIPT in a private mount namespace where $R has
# /proc, /sys, /dev and the loop filesystem on /mnt; $R/... paths
inroot() {
	timeout -k 10 240 unshare -m --propagation private \
		env R="$ROOT" M="$FSS_MNT" bash -euo pipefail -c '
		mount -t proc proc "$R/proc"
		mount --rbind /sys "$R/sys"
		mount --rbind /dev "$R/dev"
		mount --bind "$M" "$R/mnt"
		'"$1"
}

@test "deb: apt-get installs it in a fresh Debian 12 root, pulling in runtime libraries only; it traces there" {
	fss_need_root
	command -v debootstrap >/dev/null ||
		{ echo "no debootstrap: make deps" >&2; return 1; }
	ROOT="$FSS_SCRATCH/root"
	debootstrap --variant=minbase bookworm "$ROOT" "$MIRROR" \
		> "$FSS_SCRATCH/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$FSS_SCRATCH/debootstrap.log"; return 1; }
	cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
	cp "$DEB" "$ROOT/tmp/"
	fss_mkfs ext4 256
	chroot "$ROOT" dpkg-query -W -f='${Package}\n' | sort > "$FSS_SCRATCH/before"

	inroot 'export DEBIAN_FRONTEND=noninteractive
		chroot "$R" apt-get update -q
		chroot "$R" apt-get install -y -q --no-install-recommends \
			/tmp/'"$(basename "$DEB")" > "$FSS_SCRATCH/apt.log" 2>&1 ||
		{ tail -n 30 "$FSS_SCRATCH/apt.log"; return 1; }
	chroot "$ROOT" dpkg-query -W -f='${Package}\n' | sort > "$FSS_SCRATCH/after"
	local new
	new="$(comm -13 "$FSS_SCRATCH/before" "$FSS_SCRATCH/after")"
	echo "installed: $(echo $new)"
	grep -qx fsyncscope <<< "$new"
	grep -qx libbpf1 <<< "$new"
	! grep -E "$NOT_RUNTIME|^(cpp|systemd)$" <<< "$new" || false
	[ "$(wc -l <<< "$new")" -le 30 ]
	# the unit is there, not enabled
	[ -f "$ROOT/lib/systemd/system/fsyncscope-exporter.service" ]
	[ -z "$(find "$ROOT/etc/systemd" -name 'fsyncscope*' 2>/dev/null)" ]

	inroot 'chroot "$R" fsyncscope --version
		chroot "$R" fsyncscope --help
		chroot "$R" fsyncscope devices /mnt
		chroot "$R" fsyncscope check --calib-dir /mnt
		chroot "$R" fsyncscope run -n 20 --method fdatasync -j /mnt \
			> "$R/tmp/run.json"
		chroot "$R" fsyncscope trace -j --calib-dir /mnt -- sh -c \
			"for i in 1 2 3 4 5; do dd if=/dev/zero of=/mnt/f bs=8k \
			 count=1 conv=fdatasync,notrunc status=none; done" \
			> "$R/tmp/trace.jsonl"' > "$FSS_SCRATCH/out" 2>&1 ||
		{ cat "$FSS_SCRATCH/out"; return 1; }
	cat "$FSS_SCRATCH/out"
	grep -qx "fsyncscope $VERSION" "$FSS_SCRATCH/out"
	grep -q "^Usage: fsyncscope" "$FSS_SCRATCH/out"
	grep -q "ext4 on /dev/loop" "$FSS_SCRATCH/out"
	grep -qx "ok: trace and run will break syncs down on this host" \
		"$FSS_SCRATCH/out"
	fss_jq "$ROOT/tmp/run.json" '.tests[0] | .syncs_traced == 20 and
		(.breakdown | type == "object")'
	jq -c 'select(.type == "summary") | .by_kind' "$ROOT/tmp/trace.jsonl"
	[ "$(jq 'select(.type == "summary") | .by_kind.fdatasync' \
		"$ROOT/tmp/trace.jsonl")" -eq 5 ]
}
