#!/usr/bin/env bash
# scripts/mutate.sh (docs/robustness.md, "Mutation score"): the list cannot
# rot, and the script never loses a file.
#   1. `--list` on the project's scripts/mutants.txt: every mutant's text
#      occurs exactly once in its file; at least 40 mutants over cmd/, bench/,
#      report/ and kernels/; each of the issue's kinds present.
#   2. `--list` on a rotten list (a text gone, a text twice, a field missing)
#      exits 1 and names the mutant.
#   3. The run itself, in a scratch git repository with stand-ins for cmake
#      and ctest (MUTATE_CMAKE, MUTATE_CTEST): KILLED (by which test, or by the
#      build) and SURVIVED as the stand-in ctest answers, the kill ratio, the
#      fast set's selection when a mutant names no tests, the file back to its
#      committed bytes after each mutant, a dirty tree refused with the user's
#      edit kept, and SIGTERM mid-test (as Ctrl-C reaches the process group)
#      restoring the mutated file.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$HERE/../.." && pwd)
MUTATE=$ROOT/scripts/mutate.sh

# ---- 1. the project's list ----
run "$MUTATE" --list
expect_rc 0 "--list on scripts/mutants.txt (a mutant's text no longer occurs exactly once?)"
n=$(grep -c '^mutant: ' "$ROOT/scripts/mutants.txt")
checks=$((checks + 1))
[ "$n" -ge 40 ] || fail "scripts/mutants.txt has $n mutants, fewer than 40"
expect_out "mutate: $n mutants, each text found exactly once" "--list counts every mutant"
for dir in cmd bench report kernels; do
	checks=$((checks + 1))
	grep -q "^file: $dir/" "$ROOT/scripts/mutants.txt" || fail "no mutant in $dir/"
done
# the issue's kinds (issue 25 item 5), each at least once
for kind in copy-kind stop-event-stream missing-sync peer-one-way busbw-factor \
	nccl-count-bytes leak malloc-unchecked sweep-last mma-layout wgmma-layout \
	sgemm-k-loop wgmma-pipeline verdict-flip nan-pass bidir-once compare; do
	checks=$((checks + 1))
	grep -qx "kind: $kind" "$ROOT/scripts/mutants.txt" || fail "no mutant of kind '$kind'"
done

# ---- 2. a rotten list ----
bad=$TMP/bad.txt
cat >"$bad" <<'EOF'
mutant: fine
kind: compare
file: report/compare.c
what: still there
from: o->tolerance = 0.05;
to: o->tolerance = 0.5;

mutant: gone-text
kind: compare
file: report/compare.c
what: its text was edited away
from: this text is in no file at all
to: x
EOF
MUTATE_LIST=$bad run "$MUTATE" --list
expect_rc 1 "--list with a text that no longer occurs"
checks=$((checks + 1))
grep -q "mutant 2 (gone-text): its text occurs 0 times in report/compare.c" <<<"$err" ||
	fail "--list does not name the rotten mutant: $err"
printf 'mutant: twice\nkind: x\nfile: report/compare.c\nwhat: w\nfrom: return\nto: x\n' >"$bad"
MUTATE_LIST=$bad run "$MUTATE" --list
expect_rc 1 "--list with a text that occurs many times"
printf 'mutant: no-to\nkind: x\nfile: report/compare.c\nwhat: w\nfrom: o->tolerance = 0.05;\n' >"$bad"
MUTATE_LIST=$bad run "$MUTATE" --list
expect_rc 1 "--list with a mutant that has no 'to'"

# ---- 3. the run, in a scratch repository with stand-in cmake and ctest ----
repo=$TMP/repo
mkdir -p "$repo/scripts" "$repo/src" "$TMP/bin"
cp "$MUTATE" "$repo/scripts/mutate.sh"
printf 'int f(void)\n{\n\treturn 1 + 1;\n}\n/* keep */\n' >"$repo/src/a.c"
cat >"$repo/scripts/mutants.txt" <<'EOF'
mutant: caught
kind: arithmetic
file: src/a.c
tests: ^fake_
what: the stand-in ctest fails on BUG
from: return 1 + 1;
to: return 1 + 2; /* BUG */

mutant: missed
kind: arithmetic
file: src/a.c
what: nothing notices this one (no tests: the fast set)
from: /* keep */
to: /* changed */

mutant: no-build
kind: arithmetic
file: src/a.c
tests: ^fake_
what: the stand-in cmake fails on NOBUILD
from: int f(void)
to: int f(void) NOBUILD

mutant: slow
kind: arithmetic
file: src/a.c
tests: ^fake_
what: the stand-in ctest waits on SLOW (the signal test)
from: {\n\treturn
to: { /* SLOW */\n\treturn
EOF
# cmake: configure makes build.ninja; a build fails on NOBUILD
cat >"$TMP/bin/cmake" <<EOF
#!/usr/bin/env bash
if [ "\$1" = -S ]; then mkdir -p "\$4" && touch "\$4/build.ninja"; exit 0; fi
! grep -q NOBUILD "$repo/src/a.c"
EOF
# ctest: its arguments to a log; fails fake_test on BUG, sleeps on SLOW
cat >"$TMP/bin/ctest" <<EOF
#!/usr/bin/env bash
[ "\$1" = -N ] && exit 0
echo "\$*" >>"$TMP/ctest-args"
if grep -q SLOW "$repo/src/a.c"; then touch "$TMP/slow-started"; sleep 30; fi
if grep -q BUG "$repo/src/a.c"; then
	printf 'The following tests FAILED:\n\t  3 - fake_test (Failed)\n'
	exit 8
fi
EOF
chmod +x "$TMP/bin/cmake" "$TMP/bin/ctest"
export MUTATE_CMAKE=$TMP/bin/cmake MUTATE_CTEST=$TMP/bin/ctest
git -C "$repo" init -q
git -C "$repo" -c user.name=t -c user.email=t@t add -A
git -C "$repo" -c user.name=t -c user.email=t@t commit -qm base
cp "$repo/src/a.c" "$TMP/a.c.orig"

run "$repo/scripts/mutate.sh" --only 1,2,3
expect_rc 1 "a run with a survivor"
expect_out "^  1 caught +KILLED by fake_test \(Failed\)" "mutant 1 killed by the stand-in test"
expect_out "^  2 missed +SURVIVED" "mutant 2 survived"
expect_out "^  3 no-build +KILLED by the build" "mutant 3 killed by the build"
expect_out "mutate: killed 2 of 3 \(66%\), survived 1 \(mutants 2\), errors 0" "the kill ratio"
checks=$((checks + 1))
cmp -s "$repo/src/a.c" "$TMP/a.c.orig" || fail "src/a.c is not back to its committed bytes"
checks=$((checks + 1))
[ -z "$(git -C "$repo" status --porcelain --untracked-files=no)" ] || fail "the tree is not clean after the run"
checks=$((checks + 1))
grep -q -- "-L ^(unit|cli|kexec|sim)\$ -LE ^(sim_gpu|mpi)\$ -E ^(sim_run_|sim_swarm_|sim_determinism_|sim_limits_) --stop-on-failure --no-tests=error --timeout 300" "$TMP/ctest-args" ||
	fail "a mutant without tests does not run the fast set: $(cat "$TMP/ctest-args")"
checks=$((checks + 1))
grep -q -- "-R ^fake_ --stop-on-failure" "$TMP/ctest-args" ||
	fail "a mutant's own tests are not what ctest runs: $(cat "$TMP/ctest-args")"

run "$repo/scripts/mutate.sh" --only 1 --tests '^other$' --timeout 7 --no-baseline
expect_rc 0 "--tests, --timeout, one mutant killed"
checks=$((checks + 1))
grep -q -- "-R ^other\$ --stop-on-failure --no-tests=error --timeout 7" "$TMP/ctest-args" ||
	fail "--tests and --timeout do not reach ctest: $(tail -1 "$TMP/ctest-args")"

run "$repo/scripts/mutate.sh" --only 9
expect_rc 2 "--only a mutant that does not exist"

# a dirty tree: refused, and the user's edit kept
printf '/* my edit */\n' >>"$repo/src/a.c"
cp "$repo/src/a.c" "$TMP/a.c.edited"
run "$repo/scripts/mutate.sh" --only 1
expect_rc 2 "a tree with uncommitted changes"
checks=$((checks + 1))
grep -q "uncommitted changes" <<<"$err" || fail "the refusal does not say why: $err"
checks=$((checks + 1))
cmp -s "$repo/src/a.c" "$TMP/a.c.edited" || fail "the user's edit to src/a.c was lost"
cp "$TMP/a.c.orig" "$repo/src/a.c"

# SIGTERM to the process group mid-test (what Ctrl-C does with SIGINT): restored
setsid "$repo/scripts/mutate.sh" --only slow --no-baseline >"$TMP/sig.out" 2>&1 &
pid=$!
for _ in $(seq 100); do
	[ -f "$TMP/slow-started" ] && break
	sleep 0.1
done
checks=$((checks + 1))
grep -q SLOW "$repo/src/a.c" || fail "the slow mutant was not applied"
kill -TERM -- -"$pid"
await_exit "$pid" 20 "mutate.sh after SIGTERM"
checks=$((checks + 1))
[ "${rc:-0}" -eq 143 ] || fail "mutate.sh after SIGTERM: exit ${rc:-?}, expected 143"
checks=$((checks + 1))
cmp -s "$repo/src/a.c" "$TMP/a.c.orig" || fail "src/a.c not restored after SIGTERM"
finish
