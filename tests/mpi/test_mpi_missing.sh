#!/usr/bin/env bash
# test_mpi_missing.sh - gpubench built with MPI, run under mpirun where
# libmpi cannot be loaded: `gpubench nccl` and `gpubench run` with two ranks
# must each end at once with exit 3 and one line from rank 0 (never a hang,
# never one line per rank), and a single process must not need MPI at all.
#
# The library is really hidden where a mount namespace can be made (as root
# in CI: `unshare -m`, /dev/null bind-mounted over every libmpi file; mpirun
# itself needs only Open MPI's runtime libraries, not libmpi). Elsewhere
# GPUBENCH_MPI_LIBRARY names a file that does not exist, which takes the
# same path through the loader. Exits 77 only when there is no mpirun.
. "$(dirname "$0")/../cli/lib.sh"

MPIEXEC=${GPUBENCH_MPIEXEC:-$(command -v mpirun || true)}
if [ -z "$MPIEXEC" ] || ! command -v "$MPIEXEC" >/dev/null 2>&1; then
	echo "skipped: mpirun not found (GPUBENCH_MPIEXEC is not set)"
	exit 77
fi
flags=()
if "$MPIEXEC" --version 2>&1 | grep -qiE "open mpi|openrte|open-mpi"; then
	flags+=(--oversubscribe)
	[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
fi
# shellcheck disable=SC2206 # word splitting of user flags is intended
flags+=(${GPUBENCH_MPIEXEC_FLAGS:-})

# every libmpi.so* file the loader could find (real files, symbolic links resolved)
mpi_files() {
	{
		ldconfig -p 2>/dev/null | awk '/libmpi\.so/ { print $NF }'
		find /usr/lib /usr/lib64 /usr/local/lib /opt -name 'libmpi.so*' 2>/dev/null
	} | while read -r f; do readlink -f "$f"; done | sort -u
}

# hidden CMD...: run CMD with every libmpi file unreadable as a library
cat >"$TMP/hide.sh" <<'SH'
#!/usr/bin/env bash
# hide.sh FILES-LIST CMD...: inside a private mount namespace, /dev/null over each file
list=$1
shift
while read -r f; do
	[ -f "$f" ] && mount --bind /dev/null "$f" || exit 90
done <"$list"
exec "$@"
SH
chmod +x "$TMP/hide.sh"
mpi_files >"$TMP/mpi-files"
how=""
if [ -s "$TMP/mpi-files" ] && unshare -m "$TMP/hide.sh" "$TMP/mpi-files" true 2>/dev/null; then
	how="hidden"
	launch() { run timeout 120 unshare -m "$TMP/hide.sh" "$TMP/mpi-files" "$@"; }
else
	echo "note: cannot make a mount namespace here: GPUBENCH_MPI_LIBRARY names a missing file"
	how="named"
	launch() { run timeout 120 env GPUBENCH_MPI_LIBRARY="$TMP/none/libmpi.so.40" "$@"; }
fi

# the binary itself: no MPI library among what the loader must find before main
checks=$((checks + 1))
if readelf -d "$BIN" | grep -E 'NEEDED.*libmpi'; then
	fail "$BIN still names MPI as a needed library"
fi

# one process, MPI out of reach: it never looks for the library
launch "$BIN" --version
expect_rc 0 "--version with MPI $how"
expect_out "MPI \(.*loaded at run time\)" "--version says MPI is loaded at run time"
launch "$BIN" nccl --max-bytes 1M -q
checks=$((checks + 1))
case "$err" in *"cannot load MPI"*) fail "one process looked for MPI: $err" ;; esac

# two ranks, MPI out of reach: exit 3, one line from rank 0, at once
for cmd in "nccl --max-bytes 1M" "run --profile quick"; do
	start=$(date +%s)
	# shellcheck disable=SC2086 # the command's words
	launch "$MPIEXEC" "${flags[@]}" -np 2 "$BIN" $cmd -o "$TMP/r.json"
	elapsed=$(($(date +%s) - start))
	expect_rc 3 "$cmd: two ranks with MPI $how"
	checks=$((checks + 1))
	lines=$(printf '%s\n' "$err" | grep -c '^gpubench: ')
	[ "$lines" -eq 1 ] || fail "$cmd: expected one line from gpubench, got $lines: $err"
	checks=$((checks + 1))
	printf '%s\n' "$err" | grep -q "^gpubench: error: cannot start the MPI job: cannot load MPI" ||
		fail "$cmd: the line does not say MPI cannot be loaded: $err"
	checks=$((checks + 1))
	[ "$elapsed" -lt 30 ] || fail "$cmd: took ${elapsed}s to give up"
	checks=$((checks + 1))
	if [ -f "$TMP/r.json" ]; then
		validate "$TMP/r.json"
		[ "$(json_get "$TMP/r.json" '["run"]["status"]')" = error ] ||
			fail "$cmd: the report's status is not error"
	else
		fail "$cmd: rank 0 wrote no report"
	fi
	rm -f "$TMP/r.json"
done

finish
