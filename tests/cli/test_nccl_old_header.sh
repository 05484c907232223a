#!/usr/bin/env bash
# test_nccl_old_header.sh - gpubench builds against an nccl.h older than the
# one on this machine. pip wheels and torch builds ship their own NCCL, and
# the GPU machines may only have those: an entry point the older header
# does not declare (ncclAlltoAll before 2.28, ncclCommSplit before 2.18)
# must not break the build, and a header older than 2.14 must stop it with
# a message that says what is needed.
#
# How: copy the nccl.h this build used, lower its version and delete the
# declarations that version would not have, then compile every file that
# includes nccl.h with the build's own flags and the copy first on the
# include path. Exits 77 when the build has no NCCL or no
# compile_commands.json.
. "$(dirname "$0")/lib.sh"

build=$(cd "$(dirname "$BIN")" && pwd)
commands="$build/compile_commands.json"
nccl_dir=$(sed -n 's/^NCCL_INCLUDE_DIR:PATH=//p' "$build/CMakeCache.txt" 2>/dev/null)
if [ ! -f "$commands" ] || [ -z "$nccl_dir" ] || [ ! -f "$nccl_dir/nccl.h" ]; then
	echo "skipped: no NCCL header or no compile_commands.json in $build"
	exit 77
fi

# make_header MINOR DIR FUNCTION...: nccl.h as NCCL 2.MINOR would ship it, without FUNCTIONs
make_header() {
	local minor=$1 dir=$2
	shift 2
	mkdir -p "$dir"
	python3 - "$nccl_dir/nccl.h" "$dir/nccl.h" "$minor" "$@" <<'EOF'
import re, sys
src, dst, minor, gone = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
text = open(src).read()
text, n = re.subn(r"#define NCCL_MINOR \d+", "#define NCCL_MINOR %d" % minor, text)
assert n == 1, "no NCCL_MINOR in nccl.h"
text, n = re.subn(r"#define NCCL_VERSION_CODE \d+", "#define NCCL_VERSION_CODE %d" % (20000 + minor * 100 + 9), text)
assert n == 1, "no NCCL_VERSION_CODE in nccl.h"
for f in gone:
    text, n = re.subn(r"ncclResult_t\s+p?%s\s*\([^;]*\);" % f, "", text)
    assert n == 2, "%s: expected its two declarations (%s and p%s), found %d" % (f, f, f, n)
    assert re.search(r"\b%s\s*\(" % f, text) is None, f + " is still declared"
open(dst, "w").write(text)
EOF
}

# compile_with DIR FILE: FILE's compile command from the build, DIR first on the include path
compile_with() {
	python3 - "$commands" "$1" "$2" <<'EOF'
import json, shlex, subprocess, sys
commands, include, wanted = sys.argv[1:]
for e in json.load(open(commands)):
    if e["file"].endswith("/" + wanted):
        args = e.get("arguments") or shlex.split(e["command"])
        # a system directory, as the build's own NCCL directory is, and searched before it
        out, i = [args[0], "-isystem", include], 1
        while i < len(args):
            if args[i] == "-o":
                i += 2
                continue
            out.append("-fsyntax-only" if args[i] == "-c" else args[i])
            i += 1
        sys.exit(subprocess.run(out, cwd=e["directory"]).returncode)
print("no compile command for " + wanted, file=sys.stderr)
sys.exit(2)
EOF
}

# every source that sees nccl.h, directly or through the loader
root=$(cd "$HERE/../.." && pwd)
# (or through the private header of a command split over several files)
files=$(cd "$root" && grep -lE '#include (<nccl\.h>|"bench/(device|nccl|scaling)/(nccl_dl|nccl_internal|scaling_internal)\.h")' \
	bench/*.c bench/*/*.c cmd/*.c)
for f in bench/nccl/nccl.c bench/device/nccl_dl.c bench/device/nccl_comm.c bench/nccl/nccl_timing.c bench/scaling/scaling.c \
	bench/scaling/scaling_allreduce.c; do
	checks=$((checks + 1))
	printf '%s\n' "$files" | grep -qx "$f" || fail "$f is not among the sources that see nccl.h"
done

make_header 27 "$TMP/2.27" ncclAlltoAll
make_header 17 "$TMP/2.17" ncclAlltoAll ncclCommSplit ncclCommShrink
for f in $files; do
	for v in 2.27 2.17; do
		run compile_with "$TMP/$v" "$f"
		expect_rc 0 "$f builds with nccl.h $v"
	done
done

# older than 2.14: refused with a message, not a cascade of errors
make_header 13 "$TMP/2.13" ncclAlltoAll ncclCommSplit ncclCommShrink
run compile_with "$TMP/2.13" bench/device/nccl_dl.c
checks=$((checks + 1))
[ "$rc" -ne 0 ] || fail "bench/device/nccl_dl.c builds with nccl.h 2.13"
checks=$((checks + 1))
printf '%s\n' "$err" | grep -q "needs nccl.h from NCCL 2.14 or later" ||
	fail "nccl.h 2.13: no clear message: $err"

finish
