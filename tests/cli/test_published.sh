#!/usr/bin/env bash
# Published figures (report/published.json, docs/published.md): `theory` shows
# them beside the spec sheet, its JSON carries them with their sources, a model
# with none says so, and docs/published.md lists every entry of the file.
# Needs no GPU.
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)

run "$BIN" theory --gpu h100-sxm
expect_rc 0 "theory --gpu h100-sxm"
expect_out "^measured by others: what healthy GPUs reach" "a section of published figures"
# 794.5 of 989.4 spec: 80%, figures from the file, not from the catalog
expect_out "^  bf16 GEMM +794.5 TFLOP/s, 80% of spec" "bf16 GEMM against the spec sheet"
expect_out "^  8-GPU all-reduce busbw +478.9 GB/s" "the 8-GPU all-reduce figure"
expect_out "^  fp16 GEMM +-$" "a figure nobody published is a dash"

run "$BIN" theory --gpu l4
expect_rc 0 "theory --gpu l4"
expect_out "^measured by others: nothing published for this model yet" "a model without figures says so"

run "$BIN" theory --gpu a100-sxm4-80gb --json
expect_rc 0 "theory --json"
printf '%s' "$out" >"$TMP/theory.json"
v=$(json_get "$TMP/theory.json" "['benchmarks'][0]['metrics']" | python3 -c '
import ast, sys
for m in ast.literal_eval(sys.stdin.read()):
    if m["name"] == "published_gemm_bf16_tflops":
        print(m["value"], m["description"][:200])')
case "$v" in "271.2 "*ml-engineering*) ;; *) fail "published_gemm_bf16_tflops is not 271.2 with its source: $v" ;; esac

# every entry of the file appears in the doc's table: model, figure and number
missing=$(python3 - "$root/report/published.json" "$root/docs/published.md" <<'PY'
import json, re, sys
doc = open(sys.argv[2]).read()
for m, figs in json.load(open(sys.argv[1]))["models"].items():
    for f, entries in figs.items():
        for e in entries:
            v = e["value"] if e.get("value") is not None else e["low"]
            if not re.search(r"^\| %s \| `%s` \| [^|]*%s" % (re.escape(m), re.escape(f), re.escape(str(v))), doc, re.M):
                print(m, f, v)
PY
)
[ -z "$missing" ] || fail "docs/published.md lacks: $missing"
finish
