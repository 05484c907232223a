#!/usr/bin/env python3
"""The layout's rules (issue 27, ARCHITECTURE.md section 2), checked on the sources and the build.

    check_layout.py SOURCE_DIR [BUILD_DIR]

Fails, naming each offence, on:
  - an arrow up a layer: a file that includes a header of a higher layer, or one
    benchmark family that includes another family's files;
  - a circle: modules (X.c with X.h) that include each other round a loop, or,
    with BUILD_DIR, whose object files call each other round a loop (nm);
  - a product file (cmd/ bench/ kernels/ report/) past LIMIT lines;
  - a source of the CPU-only library (gpubench_core, from BUILD_DIR's
    compile_commands.json) that reaches a CUDA, cuBLAS, NCCL or MPI header,
    through any chain of includes.
The layers, lowest first (an arrow may point to its own layer's folder or down):
  report/ < kernels/ < bench/device/ and the benchmark API (bench/bench.h,
  bench/options.h) < bench/<family>/ < the registry (bench/registry.c,
  bench/bench_list.h) < cmd/.
"""
import json
import os
import re
import shlex
import subprocess
import sys

LIMIT = 1000
PRODUCT = ("cmd", "bench", "kernels", "report")
SOURCE_EXT = (".c", ".h", ".cu", ".cuh")
# headers that a CPU-only source must never reach
CUDA_HEADERS = re.compile(r"^(cuda.*\.h|cublas.*\.h|nccl\.h|mpi\.h|cuda/.*|crt/.*|mma\.h|cooperative_groups.*)$")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]', re.M)

API_HEADERS = {"bench/bench.h", "bench/bench.c", "bench/options.h"}
REGISTRY = {"bench/registry.c", "bench/bench_list.h"}


def layer(path):
    """(rank, group) of a product file: an arrow from A to B is allowed when
    rank(B) < rank(A), or both are in one group."""
    top = path.split("/")[0]
    if top == "report":
        return 0, "report"
    if top == "kernels":
        return 1, "kernels"
    if top == "cmd":
        return 5, "cmd"
    if path in API_HEADERS or path.startswith("bench/device/"):
        return 2, "device"
    if path in REGISTRY:
        return 4, "registry"
    parts = path.split("/")
    if len(parts) >= 3:  # bench/<family>/file
        return 3, "bench/" + parts[1]
    return 3, "bench"  # a file loose in bench/: a family of its own


def product_files(src):
    out = []
    for top in PRODUCT:
        for root, _dirs, files in os.walk(os.path.join(src, top)):
            for f in files:
                if f.endswith(SOURCE_EXT):
                    out.append(os.path.relpath(os.path.join(root, f), src))
    return sorted(out)


def resolve(src, including, name):
    """the repository path of a quoted include, or None (a system header, or
    one generated in the build folder such as build_info.h: no layer)"""
    for base in (os.path.dirname(including), ""):
        cand = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(src, cand)):
            return cand
    return None


def includes_of(src, path, cache={}):
    if path in cache:
        return cache[path]
    text = open(os.path.join(src, path), encoding="utf-8", errors="replace").read()
    local, system = [], []
    for kind, name in INCLUDE.findall(text):
        target = resolve(src, path, name) if kind == '"' else None
        if target:
            local.append(target)
        else:
            system.append(name)
    cache[path] = (local, system)
    return cache[path]


GROUP_OF = {}


def module(path):
    """A module: X.c with X.h (and X.cu)."""
    return os.path.splitext(path)[0]


def group(mod):
    """The files of one module split by concern share its private header
    X_internal.h: a circle among them is the module's own business; a circle
    that leaves the group is a design fault."""
    return GROUP_OF.get(mod, mod)


def real_circles(edges):
    return [c for c in cycles(edges) if len({group(m) for m in c}) > 1]


def find_groups(src, files):
    for f in files:
        stem = os.path.splitext(f)[0]
        if stem.endswith("_internal"):
            GROUP_OF[stem] = stem[: -len("_internal")]
            continue
        local, _ = includes_of(src, f)
        for t in local:
            if t.endswith("_internal.h") and os.path.dirname(t) == os.path.dirname(f):
                GROUP_OF[module(f)] = t[: -len("_internal.h")]
                break


def cycles(edges):
    """strongly connected components with more than one node (Tarjan)"""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def check_sources(src, problems):
    files = product_files(src)
    find_groups(src, files)
    mod_edges = {}
    for f in files:
        n = sum(1 for _ in open(os.path.join(src, f), encoding="utf-8", errors="replace"))
        if n > LIMIT:
            problems.append(f"{f}: {n} lines, past the limit of {LIMIT}: split it by concern")
        local, _ = includes_of(src, f)
        rf, gf = layer(f)
        for t in local:
            if t.split("/")[0] not in PRODUCT:
                continue
            rt, gt = layer(t)
            if gt != gf and rt >= rf:
                what = "another family" if rt == rf else "a higher layer"
                problems.append(f"{f} includes {t}: an arrow to {what} ({gf} -> {gt})")
            if module(t) != module(f):
                mod_edges.setdefault(module(f), set()).add(module(t))
    for comp in real_circles(mod_edges):
        problems.append("include circle: " + " -> ".join(comp))
    return files


def compiled(build):
    """(source, object) of every file the build compiles, from compile_commands.json"""
    out = []
    for e in json.load(open(os.path.join(build, "compile_commands.json"))):
        args = shlex.split(e["command"])
        if "-o" in args:
            out.append((e["file"], os.path.join(e["directory"], args[args.index("-o") + 1])))
    return out


def core_sources(build):
    """(source, object) of every file compiled into gpubench_core"""
    return [(f, o) for f, o in compiled(build) if "/gpubench_core.dir/" in o]


def check_core(src, build, problems):
    for path, _obj in core_sources(build):
        rel = os.path.relpath(path, src)
        if rel.startswith(".."):
            continue  # generated in the build folder
        seen, todo = set(), [(rel, [rel])]
        while todo:
            f, chain = todo.pop()
            if f in seen:
                continue
            seen.add(f)
            local, system = includes_of(src, f)
            for s in system:
                if CUDA_HEADERS.match(s):
                    problems.append(f"{rel} is in the CPU-only core but reaches <{s}>: "
                                    + " -> ".join(chain))
            for t in local:
                todo.append((t, chain + [t]))


def symbols(obj):
    out = subprocess.run(["nm", "-P", obj], capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(name)
        elif kind in "TDBR":  # global and strong: code, data, read-only
            defined.add(name)
        elif kind in "CVW":  # common or weak: never a clash, but still a callee
            defined.add("~" + name)
    return defined, undefined


def check_calls(src, build, problems):
    """circles of calls between product files, from the objects' symbols"""
    objs = {}
    for f, obj in compiled(build):
        rel = os.path.relpath(f, src)
        if rel.split("/")[0] in PRODUCT and os.path.isfile(obj):
            objs[rel] = obj
    strong, weak, needs = {}, {}, {}
    for rel, obj in sorted(objs.items()):
        d, u = symbols(obj)
        for s in d:
            if s.startswith("~"):
                weak.setdefault(s[1:], rel)
            elif s in strong:
                # in one static library the linker takes whichever it meets first
                problems.append(f"{s} is defined twice: {strong[s]} and {rel}")
            else:
                strong[s] = rel
        needs[rel] = u
    edges = {}
    for rel, u in needs.items():
        for s in u:
            o = strong.get(s) or weak.get(s)
            if o and module(o) != module(rel):
                edges.setdefault(module(rel), set()).add(module(o))
    for comp in real_circles(edges):
        problems.append("call circle: " + " <-> ".join(comp))
    return len(objs)


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    src = os.path.abspath(sys.argv[1])
    build = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else None
    problems = []
    files = check_sources(src, problems)
    nobj = 0
    if build:
        check_core(src, build, problems)
        nobj = check_calls(src, build, problems)
    for p in problems:
        print("layout: " + p)
    if problems:
        print(f"layout: {len(problems)} problems in {len(files)} files", file=sys.stderr)
        return 1
    print(f"layout: {len(files)} files, {nobj} objects: no arrow up a layer, no circle, "
          f"none past {LIMIT} lines, the core reaches no CUDA header")
    return 0


if __name__ == "__main__":
    sys.exit(main())
