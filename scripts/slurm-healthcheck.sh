#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# slurm-healthcheck.sh - a bounded gpubench check of this node's GPUs for Slurm:
# drain the node when a check fails, resume it when it passes again.
#
#   slurm-healthcheck.sh [options] [-- gpubench run options]
#
# Runs `gpubench run --profile quick --no-fleet` (plus what follows `--`) under a
# time limit it enforces itself (timeout(1): TERM at the limit, KILL 30 s
# later), then:
#   passed            if the node is drained with a reason starting "gpubench:"
#                     (this script drained it), resume it; exit 0
#   a check failed    drain the node, the reason built from the report's first
#                     failed check: "gpubench: GPU 1 CHECK: its message"; exit 1
#   time limit hit    drain it: "gpubench: hung in STEP (the last progress
#                     line) past the LIMIT limit"; exit 1
#   could not run     (gpubench exit 3: no GPU, no driver) drain it:
#                     "gpubench: could not run: ERROR"; exit 1
# A node drained (or draining) by anyone else, its reason not starting with
# "gpubench:", is never touched and not checked: exit 0. A usage error, a
# gpubench that is not there or not built with `run`, or a node Slurm does
# not know: no change to the node, exit 2.
#
# Options:
#   --time-limit T  the check's limit, timeout(1) syntax (90s, 10m, 1h)
#                   [GPUBENCH_HEALTHCHECK_TIME_LIMIT, else 10m]
#   --node NAME     the Slurm node [GPUBENCH_HEALTHCHECK_NODE, else SLURMD_NODENAME
#                   (set by slurmd for HealthCheckProgram, Prolog, Epilog),
#                   else hostname -s]
#   --dir DIR       where the last report (healthcheck.json), its summary and
#                   gpubench's stderr are kept [GPUBENCH_HEALTHCHECK_DIR, else
#                   /var/lib/gpubench/healthcheck]
#   --dry-run       judge and say what it would do; change nothing
#   --background    start the check detached and return at once (slurmd kills a
#                   HealthCheckProgram after 60 s; a quick profile takes minutes)
# The gpubench binary: GPUBENCH, else `gpubench` on PATH, else build/gpubench
# beside this script. Slurm's clients (scontrol, sinfo) find the cluster as
# usual (SLURM_CONF or /etc/slurm/slurm.conf). One check at a time per DIR
# (flock); a second one started meanwhile exits 0 at once. docs/slurm.md says
# how to use it as HealthCheckProgram, Prolog or Epilog.
set -u
me="slurm-healthcheck"
say() { printf '%s: %s\n' "$me" "$*" >&2; }
usage_error() {
	say "$*"
	say "usage: slurm-healthcheck.sh [--time-limit T] [--node NAME] [--dir DIR] [--dry-run] [--background] [-- gpubench run options]"
	exit 2
}

limit=${GPUBENCH_HEALTHCHECK_TIME_LIMIT:-10m}
node=${GPUBENCH_HEALTHCHECK_NODE:-${SLURMD_NODENAME:-}}
dir=${GPUBENCH_HEALTHCHECK_DIR:-/var/lib/gpubench/healthcheck}
dry_run=0
background=0
orig_args=("$@")
while [ $# -gt 0 ]; do
	case "$1" in
	--time-limit) [ $# -ge 2 ] || usage_error "--time-limit needs a value"; limit=$2; shift 2 ;;
	--node) [ $# -ge 2 ] || usage_error "--node needs a value"; node=$2; shift 2 ;;
	--dir) [ $# -ge 2 ] || usage_error "--dir needs a value"; dir=$2; shift 2 ;;
	--dry-run) dry_run=1; shift ;;
	--background) background=1; shift ;;
	--) shift; break ;;
	-h | --help) sed -n '3,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) usage_error "unknown option '$1'" ;;
	esac
done
run_args=("$@")
[[ "$limit" =~ ^[0-9]+(\.[0-9]+)?[smhd]?$ ]] || usage_error "cannot parse '$limit' as a time limit (e.g. 90s, 10m, 1h)"
[ -n "$node" ] || node=$(hostname -s)

if [ "$background" -eq 1 ]; then
	# drop --background, keep everything else; detached from slurmd's process group
	fg_args=()
	for a in "${orig_args[@]}"; do [ "$a" = --background ] || fg_args+=("$a"); done
	mkdir -p "$dir" || exit 2
	setsid nohup "$0" "${fg_args[@]}" </dev/null >>"$dir/background.log" 2>&1 &
	exit 0
fi

bin=${GPUBENCH:-$(command -v gpubench || true)}
[ -n "$bin" ] || bin="$(cd "$(dirname "$0")/.." && pwd)/build/gpubench"
[ -x "$bin" ] || usage_error "no gpubench at '$bin' (set GPUBENCH or put gpubench on PATH)"
for tool in scontrol sinfo timeout; do
	command -v "$tool" >/dev/null 2>&1 || usage_error "'$tool' not found"
done
mkdir -p "$dir" || usage_error "cannot create '$dir'"

exec 9>"$dir/healthcheck.lock"
if ! flock -n 9; then
	say "a check is already running on node '$node' ($dir): this one is left out"
	exit 0
fi

# node_state: "STATE|REASON" as sinfo prints them ("drained|gpubench: ..."); empty when unknown
node_state() {
	timeout 30 sinfo -h -N -n "$node" -o '%T|%E' 2>/dev/null | head -1
}
# ours REASON: was the drain this script's?
ours() { case "$1" in gpubench:*) return 0 ;; *) return 1 ;; esac }

st=$(node_state)
[ -n "$st" ] || usage_error "Slurm does not know node '$node' (sinfo -n '$node' says nothing; set --node)"
state=${st%%|*}
reason=${st#*|}
case "$state" in
*drain*)
	if ! ours "$reason"; then
		say "node '$node' is $state by someone else ('$reason'): not checked, left as it is"
		exit 0
	fi
	;;
esac

report="$dir/healthcheck.json"
summary="$dir/healthcheck.txt"
log="$dir/healthcheck.log"
rm -f "$report" "$summary" "$log"
# The node alone (--no-fleet), whatever launcher's variables it inherits.
timeout -k 30s "$limit" "$bin" run --profile quick "${run_args[@]}" --no-fleet --no-color \
	-o "$report" >"$summary" 2>"$log"
rc=$?

# verdict_reason RC: the drain reason, from the report when there is one (any
# failed check's name, GPU and message, whatever the benchmark), else from the
# summary's first "failed:" line, else from gpubench's stderr
verdict_reason() {
	if command -v python3 >/dev/null 2>&1; then
		python3 - "$report" "$log" "$1" "$limit" <<'PY' && return
import json, re, sys

report, log, rc, limit = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]


def one_line(s):
    return re.sub(r"\s+", " ", str(s)).strip()


try:
    d = json.load(open(report))
except (OSError, ValueError):
    d = None
try:
    lines = [l.rstrip("\n") for l in open(log, errors="replace")]
except OSError:
    lines = []

if rc in (124, 137):  # timeout(1): TERM at the limit, KILL after
    step = None
    if d:
        step = next((b["name"] for b in d.get("benchmarks", [])
                     if b.get("status") in ("interrupted", "running")), None)
    # gpubench's progress lines: "gpubench: STEP: GPU n: what"
    progress = [l[len("gpubench: "):] for l in lines
                if l.startswith("gpubench: ") and not l.startswith("gpubench: error")]
    last = progress[-1] if progress else ""
    if not step and last:
        step = last.split(":", 1)[0]
    what = "hung in %s" % (step or "its start")
    if last and step and last.startswith(step + ": "):
        what += " (%s)" % last[len(step) + 2:]
    print("gpubench: %s past the %s limit" % (one_line(what), limit))
    sys.exit(0)

if rc == 3:
    errs = [l for l in lines if l.strip()]
    print("gpubench: could not run: %s" % one_line(errs[-1] if errs else "exit code 3"))
    sys.exit(0)

if d:
    for status in ("failed", "error"):
        for b in d.get("benchmarks", []):
            for c in b.get("checks", []) or []:
                if c.get("status") != status:
                    continue
                gpu = c.get("device")
                where = "GPU %d " % gpu if isinstance(gpu, int) else ""
                print("gpubench: %s%s: %s" % (where, c.get("name", b.get("name")),
                                              one_line(c.get("message", ""))))
                sys.exit(0)
    failed = d.get("verdict", {}).get("failed") or []
    if failed:
        print("gpubench: %s" % one_line(failed[0]))
        sys.exit(0)
sys.exit(1)
PY
	fi
	local line
	line=$(grep -m1 -E '^ *failed: ' "$summary" 2>/dev/null |
		sed -E 's/^ *failed: ([^ ]+) \(device ([0-9]+)\): /GPU \2 \1: /; s/^ *failed: //')
	[ -n "$line" ] || line=$(grep -v '^ *$' "$log" 2>/dev/null | tail -1)
	[ -n "$line" ] || line="exit code $1"
	printf 'gpubench: %s\n' "$line"
}

act() {
	if [ "$dry_run" -eq 1 ]; then
		say "dry run: would run: scontrol $*"
		return 0
	fi
	timeout 30 scontrol "$@" || { say "'scontrol $*' failed"; exit 2; }
}

case "$rc" in
0)
	case "$state" in
	*drain*)
		say "node '$node' passed again: resuming it (it was drained by this check: '$reason')"
		act update nodename="$node" state=resume
		;;
	*) say "node '$node' passed" ;;
	esac
	exit 0
	;;
1 | 3 | 124 | 137)
	why=$(verdict_reason "$rc")
	# Slurm keeps the reason as given; keep it one readable line
	[ ${#why} -le 200 ] || why="${why:0:197}..."
	say "node '$node' failed: $why (report: $report)"
	# a drain by someone else between the first look and now still wins
	st=$(node_state)
	case "${st%%|*}" in
	*drain*)
		if ! ours "${st#*|}"; then
			say "node '$node' was drained meanwhile by someone else ('${st#*|}'): left as it is"
			exit 1
		fi
		;;
	esac
	act update nodename="$node" state=drain reason="$why"
	exit 1
	;;
*)
	say "gpubench could not judge node '$node' (exit $rc): $(grep -v '^ *$' "$log" | tail -1); node left as it is"
	exit 2
	;;
esac
