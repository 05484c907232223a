#!/usr/bin/env bash
# test_nccl_mpi.sh - `gpubench nccl` under mpirun, for real: the rank
# bootstrap, the go/no-go decision, the gather of every rank's report and
# the merge by rank 0, with 2 and with 3 ranks.
#
# On a machine without a GPU every rank fails its probe: rank 0 alone
# prints and writes one report (exit 3) listing every rank with its host and
# its could-not-run reason, and every process exits 3. On a GPU machine the
# same report is checked for shape (exit 0, or 3 with fewer GPUs than ranks).
# A rank that never joins (a stand-in MPI program that sleeps) must not hang
# the others: rank 0 reports within --timeout and the job ends.
#
# Open MPI refuses to run as root and to start more ranks than cores unless
# told: --allow-run-as-root (as root) and --oversubscribe are added for it;
# GPUBENCH_MPIEXEC_FLAGS adds more (e.g. "--mca btl self,tcp" in containers).
# Exits 77 only when there is no mpirun.
. "$(dirname "$0")/../cli/lib.sh"

# shellcheck source=lib_mpirun.sh
. "$(dirname "$0")/lib_mpirun.sh"

# how many GPUs this machine has (0 without a driver)
gpus=$("$BIN" info --json 2>/dev/null | python3 -c 'import json,sys
try: print(len(json.load(sys.stdin)["devices"]))
except Exception: print(0)')

# check CONDITION-PYTHON-EXPR DESCRIPTION: evaluate against the report d
check() {
	checks=$((checks + 1))
	if ! python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
ranks = d["benchmarks"][0]["extra"]["ranks"] if d["benchmarks"] else []
sys.exit(0 if eval(sys.argv[2]) else 1)' "$report" "$1" 2>"$TMP/check.err"; then
		fail "$2 ($(tail -1 "$TMP/check.err"))"
	fi
}

host=$(hostname)
for np in 2 3; do
	report="$TMP/r$np.json"
	run timeout 120 "$MPIEXEC" "${flags[@]}" -np "$np" "$BIN" nccl --max-bytes 1M -o "$report"
	checks=$((checks + 1))
	[ -f "$report" ] || { fail "-np $np: no report written (exit $rc): $err"; continue; }
	validate "$report"
	check 'len(d["benchmarks"]) == 1 and d["benchmarks"][0]["name"] == "nccl"' \
		"-np $np: one nccl entry"
	check "len(ranks) == $np and [r['rank'] for r in ranks] == list(range($np))" \
		"-np $np: every rank listed, in order"
	check "all(r['host'] == '$host' for r in ranks)" "-np $np: every rank's host"
	check 'all(isinstance(r["pid"], (int, float)) for r in ranks)' "-np $np: every rank's pid"
	check "'mpirun' in d['benchmarks'][0]['extra']['launcher']" "-np $np: launcher recorded"
	check 'd["benchmarks"][0]["params"].get("nranks") == '"$np" "-np $np: params recorded"
	# rank 0 alone prints the summary
	checks=$((checks + 1))
	[ "$(printf '%s\n' "$out" | grep -c '^verdict:')" -eq 1 ] ||
		fail "-np $np: expected one summary on stdout, got: $out"
	if [ "$gpus" -eq 0 ]; then
		expect_rc 3 "-np $np without a GPU"
		check 'd["run"]["status"] == "error" and d["verdict"]["exit_code"] == 3' \
			"-np $np: run status error, exit code 3"
		check 'all(r["status"] == "error" for r in ranks)' "-np $np: every rank could not run"
		check 'all("no NVIDIA driver" in r["reason"] or "no CUDA-capable" in r["reason"] or "driver too old" in r["reason"] for r in ranks)' \
			"-np $np: every rank's could-not-run reason"
		check 'all(r["host_info"]["os"] for r in ranks)' "-np $np: every rank's host facts gathered"
		check '"rank 0 on host" in d["run"]["reason"]' "-np $np: run reason names the rank and host"
		# one line per rank on stderr, from rank 0
		for ((r = 0; r < np; r++)); do
			checks=$((checks + 1))
			printf '%s\n' "$err" | grep -q "gpubench: error: rank $r on host $host: " ||
				fail "-np $np: no error line for rank $r: $err"
		done
	elif [ "$gpus" -ge "$np" ]; then
		expect_rc 0 "-np $np on $gpus GPUs"
		check 'all(r["status"] == "passed" for r in ranks)' "-np $np: every rank passed"
		check 'len(d["benchmarks"][0]["extra"]["rows"]) > 0' "-np $np: rows measured"
		check 'all(x["nwrong"] == 0 for x in d["benchmarks"][0]["extra"]["rows"])' \
			"-np $np: no wrong elements"
		check "len(d['devices']) == $np" "-np $np: one device per rank"
	else
		expect_rc 3 "-np $np on $gpus GPUs (ranks share a GPU)"
	fi
done

# a usage error: one line, from rank 0 only, and every rank exits 2
run timeout 120 "$MPIEXEC" "${flags[@]}" -np 2 "$BIN" nccl --factor 1
expect_rc 2 "usage error under mpirun"
checks=$((checks + 1))
[ "$(printf '%s\n' "$err" | grep -c 'gpubench: error:')" -eq 1 ] ||
	fail "usage error printed more than once: $err"

# a rank that never joins: no hang, rank 0 still writes a report
MPICC=$(command -v mpicc || true)
if [ -n "$MPICC" ] && [ "$gpus" -eq 0 ]; then
	cat >"$TMP/sleeper.c" <<'C'
#include <mpi.h>
#include <unistd.h>
int main(int argc, char **argv) { MPI_Init(&argc, &argv); sleep(90); MPI_Finalize(); return 0; }
C
	if "$MPICC" -o "$TMP/sleeper" "$TMP/sleeper.c" 2>"$TMP/cc.err"; then
		report="$TMP/hang.json"
		start=$(date +%s)
		run timeout 60 "$MPIEXEC" "${flags[@]}" -np 2 "$BIN" nccl --timeout 3s -q -o "$report" \
			: -np 1 "$TMP/sleeper"
		elapsed=$(($(date +%s) - start))
		checks=$((checks + 1))
		[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "missing rank: exit $rc (124 is a hang)"
		checks=$((checks + 1))
		[ "$elapsed" -lt 45 ] || fail "missing rank: took ${elapsed}s with --timeout 3s"
		checks=$((checks + 1))
		if [ -f "$report" ]; then
			validate "$report"
			check 'd["run"]["status"] == "error" and "within 3 s" in d["run"]["reason"]' \
				"missing rank: the report says who waited and for how long"
		else
			fail "missing rank: rank 0 wrote no report"
		fi
	else
		echo "note: mpicc cannot build the stand-in rank; missing-rank check not run"
	fi
fi

finish
