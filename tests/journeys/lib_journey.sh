# lib_journey.sh - what the journeys share: the CLI tests' helpers (tests/cli/lib.sh)
# and the machine files a user would write.
# shellcheck source=../cli/lib.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../cli/lib.sh"

MACHINES=${GBSIM_MACHINES:?GBSIM_MACHINES must point at tests/sim/machines}
export NO_COLOR=1

# machine SHIPPED DST PYTHON: the shipped machine file SHIPPED.json with 128 MiB per GPU
# (run then fits 512^3 GEMMs: about 25 s of CPU a run), changed by PYTHON (on d), as DST
machine() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for g in d["gpus"]:
    g["memory"] = "128M"
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))' "$MACHINES/$1.json" "$2" "${3:-}"
}

# gpubench ARGS...: what the user types, on the machine in $GPUBENCH_SIM_MACHINE
gpubench() {
	run "$BIN" "$@"
}

# expect_rc_in "0 1" DESCRIPTION
expect_rc_in() {
	checks=$((checks + 1))
	case " $1 " in
	*" $rc "*) ;;
	*) fail "$2: exit $rc, expected one of $1; stderr: $(tail -5 <<<"$err")" ;;
	esac
}

# expect_no MATCH DESCRIPTION: stdout does not match
expect_no() {
	checks=$((checks + 1))
	if grep -qE -- "$1" <<<"$out"; then
		fail "$2: stdout matches '$1': $(grep -E -- "$1" <<<"$out" | head -3)"
	fi
}
