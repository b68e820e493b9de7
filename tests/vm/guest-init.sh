#!/usr/bin/env bash
# Runs INSIDE the VM-lane guest, started by scripts/vmtest through
# `vng -e`, in the repository (read-only, shared from the host).
#
#   tests/vm/guest-init.sh OUTDIR TIMEOUT_S BATS_PATH...
#
# OUTDIR is the host directory shared read-write (--rwdir): the TAP output
# goes to OUTDIR/tap as bats writes it, bats' exit status to OUTDIR/rc,
# guest facts to OUTDIR/guest.txt, and tests may leave JSON files under
# OUTDIR/artifacts for the report.  Exits with bats' status.
set -u

out="$1"
limit="$2"
shift 2

# Wall clock and uptime at start: scripts/vmtest turns this into boot time.
echo "$(date +%s) $(cut -d' ' -f1 /proc/uptime)" > "$out/booted"
mkdir -p "$out/artifacts"

# tracefs where the tests look for tracepoints (virtme-ng's init may not
# mount it)
mountpoint -q /sys/kernel/tracing ||
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null

# The syscall tracepoints' jump labels stay on for the whole session: one
# ftrace syscall event each way (getppid, which no test calls) is enabled
# here, before any load, so no tracer attach or detach under syscall load
# patches syscall_trace_enter / the exit path again.  That patching
# (text_poke_bp's int3) is what hung or crashed guests under software
# emulation (docs/kernels.md, "Open"); the patching is the kernel's, and
# the tests check our tracer, not it.
pinned=yes
for e in sys_enter_getppid sys_exit_getppid; do
	echo 1 > "/sys/kernel/tracing/events/syscalls/$e/enable" 2>/dev/null ||
		pinned=no
done

# Debian builds nvme, ext4, xfs and jbd2 as modules: load them before any
# test so their tracepoints and BTF exist when the tracer probes.
modprobe -a nvme ext4 xfs 2>"$out/modprobe.err"

# The emulated controller's namespace shows up asynchronously.
for _ in $(seq 100); do
	[ -b /dev/nvme0n1 ] && break
	sleep 0.1
done

{
	echo "kernel $(uname -r)"
	echo "nvme0n1 $([ -b /dev/nvme0n1 ] && echo present || echo missing)"
	echo "nvme_serial $(cat /sys/class/nvme/nvme0/serial 2>/dev/null | tr -d ' ')"
	echo "nvme_model $(cat /sys/class/nvme/nvme0/model 2>/dev/null | sed 's/ *$//')"
	echo "write_cache $(cat /sys/block/nvme0n1/queue/write_cache 2>/dev/null)"
	echo "fua $(cat /sys/block/nvme0n1/queue/fua 2>/dev/null)"
	echo "cpus $(nproc)"
	echo "version $(uname -v)"
	echo "syscall_tracepoints_pinned $pinned"
} > "$out/guest.txt"
cat "$out/guest.txt"

# Marks the environment for tests/vm/vmlib.bash: only inside this guest
# may a test format the NVMe disk.
export FSS_VM_GUEST=1
export FSS_VM_NVME=/dev/nvme0n1
export FSS_VM_OUT="$out"

# The TAP file is on a synchronous 9p mount, so whatever bats printed is
# on the host even if the guest is killed at the host's deadline.
timeout --kill-after=5 "$limit" bats --tap "$@" > "$out/tap"
rc=$?
[ "$rc" -ne 124 ] || echo "guest: bats timed out after $limit s" >&2
echo "$rc" > "$out/rc"
sync
exit "$rc"
