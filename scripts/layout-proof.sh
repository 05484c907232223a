#!/usr/bin/env bash
# Proof that a change of layout changed no behaviour (issue 27): the same fixed
# commands, on every shipped machine file of the simulated GPU (fixed seeds,
# simulated time), give the same reports before and after, byte for byte apart
# from what differs between any two runs (dates, host name, the git commit the
# binary was built from, the report's own file name).
#
#   scripts/layout-proof.sh record DIR [BUILD]   run the commands, keep the outputs in DIR
#   scripts/layout-proof.sh compare OLD NEW      exit 1 and show the differences if any
#   scripts/layout-proof.sh sass DIR             the kernels' machine code (a cubin of each
#                                                kernels/*.cu per architecture) into DIR;
#                                                compare two such folders with sass-compare OLD NEW
#
# Every command's JSON report, its text summary, and the run report in every
# other format (markdown, csv, junit, prometheus, html, text) are kept, with
# compare and report --merge of two of them: the format writers and compare
# are covered as well as the benchmarks. BUILD defaults to build/.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MACHINES=$HERE/tests/sim/machines

# normalize FILE: what two runs of one build on one machine file may differ in, removed
normalize() {
	python3 - "$1" <<'PY'
import json, re, sys
path = sys.argv[1]
text = open(path, encoding="utf-8", errors="replace").read()
VARIES = {"started_at", "finished_at", "hostname", "git", "generated_at", "cuda_archs"}
def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in VARIES}
    if isinstance(x, list):
        return [strip(v) for v in x]
    if isinstance(x, str):
        return scrub(x)
    return x
def scrub(s):
    s = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ?", "<date>", s)
    s = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?( UTC)?", "<date>", s)
    s = re.sub(r"\b[0-9a-f]{12}\b", "<git>", s)
    s = s.replace(HOST, "<host>") if HOST else s
    # the checkout the machine files and sources were read from
    s = re.sub(r"/[\w./-]*/tests/sim/machines/", "<machines>/", s)
    # a CUDA error's source position (GB_CUDA_GOTO): a moved function has another
    s = re.sub(r"\b[\w/]+\.(c|cu|h):\d+", "<file:line>", s)
    # Prometheus: the report's own times
    s = re.sub(r"(_timestamp_seconds(\{[^}]*\})?) [0-9.e+]+", r"\1 <time>", s)
    return s
import socket
HOST = socket.gethostname()
try:
    print(json.dumps(strip(json.loads(text)), indent=1, sort_keys=True))
except ValueError:
    print(scrub(text))
PY
}

# one DIR TAG ARGS...: the command's report, summary and exit code, in DIR
one() {
	local dir=$1 tag=$2
	shift 2
	(cd "$dir" && "$bin" "$@" -o "$tag.json" >"$tag.txt" 2>"$tag.err"
	 echo "$?" >"$tag.rc")
}

record() {
	local out=$1 build=${2:-$HERE/build}
	# absolute: every command runs in its machine's folder
	bin=$(cd "$build" 2>/dev/null && pwd)/gpubench-sim
	[ -x "$bin" ] || { echo "layout-proof: $build/gpubench-sim not built" >&2; exit 2; }
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	export NO_COLOR=1 GBSIM_LEAKS_FATAL=1
	local m name
	mkdir -p "$out/theory"
	(cd "$out/theory"
	 "$bin" theory --list >list.txt 2>&1
	 "$bin" theory --gpu h100-sxm --count 8 -o h100.json >h100.txt 2>&1
	 "$bin" theory --gpu "RTX 4090" --count 2 --price 0.5 --compare a100-sxm4-80gb -o 4090.json >4090.txt 2>&1
	 "$bin" theory --gpu b200 --count 4 --step-tflop 50 --precision fp8 >b200.txt 2>&1)
	for m in "$MACHINES"/*.json "$MACHINES"/below-limits/*.json; do
		name=$(basename "$m" .json)
		echo "layout-proof: $name" >&2
		mkdir -p "$out/$name"
		export GPUBENCH_SIM_MACHINE=$m
		one "$out/$name" info info
		one "$out/$name" gemm gemm --size 256 --warmup 0s --iters 2 --samples 5 --precision fp32,tf32,bf16,fp16
		one "$out/$name" own gemm --impl all --precision fp32,bf16 --size 128 --warmup 0s --iters 2 --samples 5
		one "$out/$name" bandwidth bandwidth --tests all --memory all --method all --min-size 4K --max-size 1M --samples 3 --loops 2
		one "$out/$name" p2p p2p --bytes 1M --samples 3 --loops 2
		one "$out/$name" nccl nccl --op all -b 1K -e 1M -f 8 --iters 2 --samples 2 -w 1 --timeout 120s
		one "$out/$name" stress stress --duration 3s --mem 10% --size 256
		one "$out/$name" scaling scaling --workload ddp --steps 3 --warmup-steps 1 --step-ms 5 --grad-bytes 1M --gemm-size 256
		one "$out/$name" fault stress --duration 2s --mem 5% --size 256 --inject-fault
		one "$out/$name" run run --profile quick --stress-duration 3s
		local fmt
		for fmt in text markdown csv junit prometheus html; do
			(cd "$out/$name" && "$bin" report run.json --format "$fmt" >"run.$fmt" 2>&1)
		done
		(cd "$out/$name" && "$bin" compare gemm.json run.json >compare.txt 2>&1
		 "$bin" compare gemm.json run.json -o compare.json >/dev/null 2>&1
		 "$bin" report --merge run.json gemm.json -o merge.json >merge.txt 2>&1)
	done
}

compare() {
	local old=$1 new=$2 bad=0 f rel
	while IFS= read -r f; do
		rel=${f#"$old"/}
		if [ ! -e "$new/$rel" ]; then
			echo "missing after: $rel"
			bad=1
			continue
		fi
		if ! diff <(normalize "$f") <(normalize "$new/$rel") >/tmp/layout-proof.diff.$$; then
			echo "differs: $rel"
			head -20 /tmp/layout-proof.diff.$$
			bad=1
		fi
	done < <(find "$old" -type f | sort)
	rm -f /tmp/layout-proof.diff.$$
	local n
	n=$(find "$old" -type f | wc -l)
	[ "$bad" = 0 ] && echo "layout-proof: $n outputs, the same before and after"
	return "$bad"
}

# sass DIR: each kernel file compiled alone for each architecture gpubench ships
# into a cubin (machine code, without -lineinfo, so no line number is in it);
# sass-compare says whether two such folders hold the same machine code.
# Where cuobjdump is installed, its listing too.
sass() {
	local out=$1 cu arch name
	mkdir -p "$out"
	for cu in "$HERE"/kernels/*.cu; do
		name=$(basename "$cu" .cu)
		for arch in 75 80 89 90 100 120; do
			[ "$name" = wgmma ] && arch=90a
			nvcc -std=c++17 -cubin -arch="sm_$arch" --expt-relaxed-constexpr -I"$HERE" \
				-I"$HERE/build/generated" -o "$out/$name.sm_$arch.cubin" "$cu" || return 1
			if command -v cuobjdump >/dev/null; then
				cuobjdump -sass "$out/$name.sm_$arch.cubin" >"$out/$name.sm_$arch.sass"
			fi
			[ "$name" = wgmma ] && break
		done
	done
	echo "layout-proof: $(ls "$out" | wc -l) files in $out"
}

# sass-compare OLD NEW: every cubin's machine code (its .text sections), the same in both;
# function names are compared with nvcc's path-derived hashes of anonymous namespaces
# and internal symbols taken out (two checkouts in different folders differ there)
sass_compare() {
	local old=$1 new=$2 f bad=0 n=0
	for f in "$old"/*.cubin; do
		n=$((n + 1))
		python3 - "$f" "$new/$(basename "$f")" <<'PY' || { echo "differs: $(basename "$f")"; bad=1; }
import re, struct, sys
def sections(path):
    d = open(path, 'rb').read()
    assert d[:4] == b'\x7fELF' and d[4] == 2
    shoff, = struct.unpack_from('<Q', d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', d, 0x3A)
    hdrs = [struct.unpack_from('<IIQQQQIIQQ', d, shoff + i * shentsize) for i in range(shnum)]
    stro = hdrs[shstrndx][4]
    out = []
    for h in hdrs:
        name_off, typ, flags, addr, off, size = h[:6]
        end = d.index(b'\0', stro + name_off)
        name = d[stro + name_off:end].decode()
        if name.startswith('.text.'):
            key = re.sub(r'_GLOBAL__N__[0-9a-f]+_', '_GLOBAL__N__', re.sub(r'_INTERNAL_[0-9a-f]+_', '_INTERNAL_', name))
            out.append((key, d[off:off + size]))
    return sorted(out)
a, b = sections(sys.argv[1]), sections(sys.argv[2])
if [k for k, _ in a] != [k for k, _ in b]:
    print('functions differ:', sorted(set(k for k, _ in a) ^ set(k for k, _ in b))[:5]); sys.exit(1)
bad = [x[0] for x, y in zip(a, b) if x[1] != y[1]]
if bad:
    print('code differs:', bad[:5]); sys.exit(1)
print(f'{len(a)} functions, same code')
PY
	done
	[ "$bad" = 0 ] && echo "layout-proof: $n cubins, the same machine code before and after"
	return "$bad"
}

case ${1:-} in
record) shift; record "$@" ;;
sass-compare) shift; sass_compare "$@" ;;
sass) shift; sass "$@" ;;
compare) shift; compare "$@" ;;
*) echo "usage: $0 record DIR [BUILD] | compare OLD NEW | sass DIR | sass-compare OLD NEW" >&2; exit 2 ;;
esac
