# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# lib_slurm.sh - a throwaway Slurm cluster on this machine for the tests of
# tests/slurm/ (Debian's slurmctld, slurmd and munge; scripts/install-deps.sh
# --test installs them).
#
#   slurm_start NODE...   munged, slurmctld and one slurmd per NODE, all on
#                         127.0.0.1; SLURM_CONF exported for the clients
#
# Everything lives in one temporary folder, $SL: slurm.conf, the munge key and
# socket, the state, spool and PMIx folders (TmpFS=$SL/tmp/%n: two slurmd of
# one host would otherwise share /tmp/spmix_appdir_*), the pid files and logs.
# Nothing is written to /etc. Ports: free ones asked of the kernel at start,
# so two clusters may run at once. The daemons run in the foreground as this
# shell's children, each also under timeout(1) (SLURM_TEST_LIFE_S, default
# 600 s), and a watcher kills them and removes $SL when this shell ends,
# however it ends (even by SIGKILL); the EXIT trap does the same at once.
#
# Several nodes on one host: each slurmd is started with -N NAME and its own
# port (NodeHostname is this host). ProctrackType=proctrack/linuxproc,
# TaskPlugin=task/none: no cgroups. MpiDefault=pmix: Open MPI's ranks started
# by srun find each other through Slurm's PMIx server; with mpi/none or
# mpi/pmi2 Debian's Open MPI 4.1 aborts in MPI_Init.
#
# Exits 77 (skipped), saying why, where Slurm cannot start: not root, or a
# daemon or client not installed. Once they are there, a munged or cluster
# that does not come up is a failure (exit 1, with the daemons' logs), never
# a skip.

# skip REASON: this machine cannot run a Slurm cluster
slurm_skip() {
	echo "skipped: $*"
	exit 77
}

# slurm_fail REASON: it should have, and did not
slurm_fail() {
	echo "FAIL: $*" >&2
	slurm_log_tail >&2
	exit 1
}

[ "$(id -u)" = 0 ] || slurm_skip "Slurm's daemons run as root here (SlurmUser=root); this is uid $(id -u)"
for _tool in munged munge slurmctld slurmd srun sbatch scontrol sinfo; do
	command -v "$_tool" >/dev/null 2>&1 ||
		slurm_skip "'$_tool' not found (scripts/install-deps.sh --test installs slurmctld, slurmd, slurm-client and munge)"
done
# a test run from inside a Slurm job must not talk to that job's cluster
while IFS='=' read -r _name _; do
	case "$_name" in SLURM_* | SBATCH_* | SRUN_* | SALLOC_*) unset "$_name" ;; esac
done < <(env)

SL=$(mktemp -d /tmp/gbslurm.XXXXXX)
# munged wants its socket's folder searchable by everyone
chmod 755 "$SL"
SLURM_PIDS=()
export SLURM_CONF="$SL/slurm.conf"

slurm_stop() {
	local p
	for p in "${SLURM_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${SLURM_PIDS[@]}"; do
		for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || break; sleep 0.5; done
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	SLURM_PIDS=()
	rm -rf "$SL"
}

# slurm_cancel_all: no job left (a test's last step, before the daemons stop,
# so that no slurmstepd outlives them)
slurm_cancel_all() {
	local _
	[ -f "$SLURM_CONF" ] || return 0
	timeout 10 scancel --quiet --full --user=root 2>/dev/null
	for _ in $(seq 40); do
		[ -z "$(timeout 10 squeue -h -o %i 2>/dev/null)" ] && return 0
		sleep 0.25
	done
}
trap 'slurm_cancel_all; slurm_stop; rm -rf "${TMP:-/nonexistent}"' EXIT
trap 'exit 130' INT TERM
# the watcher: when this shell is gone (even by SIGKILL), the daemons go too
slurm_watch() {
	local shell_pid=$$
	(
		while kill -0 "$shell_pid" 2>/dev/null; do sleep 1; done
		[ -d "$SL" ] || exit 0
		# timeout(1) passes TERM on; the pid files name the daemons themselves
		for p in "$@"; do kill -TERM "$p" 2>/dev/null; done
		sleep 3
		for f in "$SL"/*.pid; do [ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null; done
		rm -rf "$SL"
	) </dev/null >/dev/null 2>&1 &
}

# free_ports N: N TCP ports nobody listens on now
free_ports() {
	python3 -c '
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))' "$1"
}

# slurm_log_tail: the daemons' last lines, for a failure message
slurm_log_tail() {
	local f
	for f in "$SL"/*.log "$SL"/*.out; do
		[ -f "$f" ] && { echo "== $f"; tail -n 5 "$f"; }
	done
}

# daemon NAME CMD...: start CMD in the foreground, bounded, as our child
daemon() {
	local name=$1
	shift
	timeout -k 5 "${SLURM_TEST_LIFE_S:-600}" "$@" >"$SL/$name.out" 2>&1 &
	SLURM_PIDS+=($!)
}

slurm_start() {
	local host ports node i
	host=$(hostname -s)
	mkdir -p "$SL/state" "$SL/spool" "$SL/tmp" "$SL/munge"
	chmod 700 "$SL/munge"
	dd if=/dev/urandom of="$SL/munge/munge.key" bs=1024 count=1 status=none
	chmod 400 "$SL/munge/munge.key"
	daemon munged munged -F --force --socket="$SL/munge.sock" --key-file="$SL/munge/munge.key" \
		--pid-file="$SL/munged.pid" --log-file="$SL/munged.log" --seed-file="$SL/munge/seed"
	for _ in $(seq 50); do [ -S "$SL/munge.sock" ] && break; sleep 0.2; done
	timeout 10 munge -n -S "$SL/munge.sock" 2>/dev/null | timeout 10 unmunge -S "$SL/munge.sock" >/dev/null 2>&1 ||
		slurm_fail "munged did not start"

	read -r -a ports <<<"$(free_ports $(($# + 1)))"
	{
		echo "ClusterName=gbtest"
		echo "SlurmctldHost=$host(127.0.0.1)"
		echo "SlurmctldPort=${ports[0]}"
		echo "SlurmUser=root"
		echo "SlurmdUser=root"
		echo "AuthType=auth/munge"
		echo "CredType=cred/munge"
		echo "AuthInfo=socket=$SL/munge.sock"
		echo "StateSaveLocation=$SL/state"
		echo "SlurmdSpoolDir=$SL/spool/%n"
		echo "TmpFS=$SL/tmp/%n"
		echo "SlurmctldPidFile=$SL/slurmctld.pid"
		echo "SlurmdPidFile=$SL/slurmd.%n.pid"
		echo "SlurmctldLogFile=$SL/slurmctld.log"
		echo "SlurmdLogFile=$SL/slurmd.%n.log"
		echo "PlugStackConfig=$SL/plugstack.conf"
		echo "ProctrackType=proctrack/linuxproc"
		echo "TaskPlugin=task/none"
		echo "JobAcctGatherType=jobacct_gather/none"
		echo "AccountingStorageType=accounting_storage/none"
		echo "JobCompType=jobcomp/none"
		echo "SelectType=select/cons_tres"
		echo "SelectTypeParameters=CR_CPU"
		echo "MpiDefault=pmix"
		echo "ReturnToService=2"
		echo "SlurmctldTimeout=30"
		echo "SlurmdTimeout=30"
		echo "InactiveLimit=0"
		echo "KillWait=5"
		echo "MinJobAge=10"
		i=1
		for node in "$@"; do
			echo "NodeName=$node NodeHostname=$host NodeAddr=127.0.0.1 Port=${ports[$i]} CPUs=$(nproc) State=UNKNOWN"
			i=$((i + 1))
		done
		echo "PartitionName=gb Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4"
	} >"$SLURM_CONF"
	: >"$SL/plugstack.conf"
	for node in "$@"; do mkdir -p "$SL/spool/$node" "$SL/tmp/$node"; done

	daemon slurmctld slurmctld -D -i -f "$SLURM_CONF"
	for node in "$@"; do
		daemon "slurmd.$node" slurmd -D -f "$SLURM_CONF" -N "$node"
	done
	slurm_watch "${SLURM_PIDS[@]}"
	# up when every node is idle
	for _ in $(seq 100); do
		[ "$(timeout 10 sinfo -h -N -o '%T' 2>/dev/null | grep -c '^idle$')" -eq $# ] && return 0
		sleep 0.3
	done
	slurm_fail "the cluster did not come up within 30 s: $(timeout 10 sinfo -N 2>&1 | tr '\n' ' ')"
}

# node_state NODE: "STATE|REASON" as sinfo prints them (e.g. "drained|gpubench: ...")
node_state() {
	timeout 30 sinfo -h -N -n "$1" -o '%T|%E' 2>/dev/null | head -1
}
