# lib_peers.sh - helpers of the peer and link tests (issue 26): the e2e
# helpers (lib_sim.sh, sourced on a shipped machine file for its setup), and
# machine files the tests write themselves, since no shipped machine has a
# slow GPU or a link down.
# shellcheck source=../e2e/lib_sim.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../e2e/lib_sim.sh" \
	"$(cd "$(dirname "${BASH_SOURCE[0]}")/../machines" && pwd)/2x-rtx4090-pcie.json"

# use_machine NAME JSON: write $TMP/NAME.json and make it the simulated machine
use_machine() {
	printf '%s\n' "$2" >"$TMP/$1.json"
	export GPUBENCH_SIM_MACHINE=$TMP/$1.json
	MACHINE_NAME=$1
}

# l40s_gpus SPEED2 [PCIE2]: four L40S-like GPUs (1 GiB, 4 MiB L2); GPU 2 at
# SPEED2 of its speed and, given, with the PCIe object PCIE2
l40s_gpus() {
	local g2='{ "model": "l40s", "memory": "1G", "l2": "4M", "speed": '"$1"
	[ -z "${2:-}" ] || g2="$g2"', "pcie": '"$2"
	g2="$g2 }"
	local g='{ "model": "l40s", "memory": "1G", "l2": "4M" }'
	printf '[ %s, %s, %s, %s ]' "$g" "$g" "$g2" "$g"
}

# checks_named FILE BENCH CHECK: "status:device" of every check of that name, sorted
checks_named() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(sorted("%s:%s" % (c["status"], c.get("device")) for b in d["benchmarks"]
                      if b["name"] == sys.argv[2] for c in b.get("checks", [])
                      if c["name"] == sys.argv[3])))' "$@"
}

# expect_checks FILE BENCH CHECK "failed:2 ...": exactly these statuses and devices
expect_checks() {
	checks=$((checks + 1))
	local got
	got=$(checks_named "$1" "$2" "$3")
	[ "$got" = "$4" ] || fail "$2 $3 on $MACHINE_NAME: '$got', expected '$4'"
}

# expect_text REGEX DESCRIPTION: a line of the text summary ($out) matches
expect_text() {
	checks=$((checks + 1))
	printf '%s\n' "$out" | grep -Eq -- "$1" ||
		fail "$2: no line of the summary matches '$1'; summary ends: $(printf '%s' "$out" | tail -5)"
}

# expect_failed_only FILE "bench/check (device N) ...": verdict.failed names exactly these
expect_failed_only() {
	checks=$((checks + 1))
	local got
	got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(sorted({f.split(":")[0].replace(" ", "_") for f in d["verdict"]["failed"]})))' "$1")
	[ "$got" = "$2" ] || fail "verdict.failed on $MACHINE_NAME: '$got', expected '$2'"
}
