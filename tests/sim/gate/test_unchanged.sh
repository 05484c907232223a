#!/usr/bin/env bash
# The CI gate holds on an unchanged machine (issue 26): on every shipped machine
# file, the gate's command set (lib_gate.sh) run with three seeds of the
# simulator's noise, and every pair of runs compared: exit 0 whatever the noise,
# with no metric only on one side and nothing incomplete.
. "$(dirname "$0")/lib_gate.sh"

for m in "$MACHINES"/*.json; do
	name=$(basename "$m" .json)
	for seed in 11 12 13; do
		variant "$m" "$TMP/$name-$seed.json" "d['seed'] = $seed"
		gate_set "$TMP/$name-$seed.json" "$name-$seed"
	done
	for pair in "11 12" "11 13" "12 13"; do
		set -- $pair
		for c in $GATE_CMDS; do
			gate_compare "$name-$1" "$name-$2" "$c"
			expect_rc 0 "$c on $name, seed $1 against seed $2: $(grep -E 'regression|only_|incomplete' <<<"$out" | head -5)"
			checks=$((checks + 1))
			grep -qE "^[0-9]+ unchanged, 0 improvements, 0 regressions, [0-9]+ changed \(no direction\), 0 only in A, 0 only in B$" <<<"$out" ||
				fail "$c on $name, seeds $1 and $2: $(tail -2 <<<"$out" | head -1)"
		done
	done
	rm -f "$TMP/$name"-*.json
done
finish
