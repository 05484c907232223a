#!/usr/bin/env bash
# Every `gpubench ...` example in the README's code blocks must parse: on a
# machine without a GPU a measuring command then stops at the GPU probe (exit
# 3), never at its options (exit 2). Commands that read files get stand-ins
# from tests/data. On a GPU machine the examples would really run (hours of
# stress), so there this test is skipped.
. "$(dirname "$0")/lib.sh"

readme="$HERE/../../README.md"
data=${GPUBENCH_TEST_DATA:?}
if have_gpu; then
	echo "skipped: a GPU is present and the examples would run for real"
	exit 77
fi

# the example lines: inside ``` blocks, starting with "gpubench ", joined over "\"
examples=$(awk '/^```/ { inblock = !inblock; next }
	inblock && /^gpubench / { line = $0
		while (line ~ /\\$/ && (getline nxt) > 0) { sub(/\\$/, "", line); line = line " " nxt }
		print line }' "$readme")
[ -n "$examples" ] || { fail "no examples found in README.md"; finish; }

cd "$TMP"
cp "$data/base.json" base.json
for f in new a100 rtx4090 run node1 node2 accept; do cp base.json "$f.json"; done
while IFS= read -r line; do
	# split like the shell (quotes, globs) but run nothing: pipes, redirections
	# and comments are dropped, only the arguments matter here
	mapfile -d '' args < <(python3 -c '
import glob, shlex, sys
words = []
for w in shlex.split(sys.argv[1].replace("$(hostname)", "node"), comments=True):
    if w in ("|", ">", ">>") or w.startswith(">"):
        break
    hits = sorted(glob.glob(w)) if any(c in w for c in "*?[") else []
    words += hits or [w]
sys.stdout.write("\0".join(words[1:]) + "\0")' "$line")
	run "$BIN" "${args[@]}"
	checks=$((checks + 1))
	case "$rc" in
	0 | 1 | 3 | 4) ;;
	*) fail "README example exits $rc: $line; stderr: $err" ;;
	esac
done <<<"$examples"
finish
