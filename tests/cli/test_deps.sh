#!/usr/bin/env bash
# test_deps.sh - the binary starts on a GPU host that has only the driver
# (issue 19, item 3).
#
#   - no MPI library among what the loader must find before main, and a
#     single process never opens one (the loader's own trace says so);
#   - under a launcher's environment with two ranks and MPI out of reach,
#     rank 0 says so in one line and every rank exits 3 (tests/mpi/
#     test_mpi_missing.sh does the same under a real mpirun);
#   - cJSON: the binary needs the system's libcjson.so.1, so `make dist`
#     (scripts/make-dist.sh) bundles it: the bundle, moved to another
#     directory, starts from a clean directory with LD_LIBRARY_PATH empty and
#     the system's cJSON hidden (a mount namespace with /dev/null over it,
#     where one can be made: as root in CI), while the plain binary then
#     cannot start, which shows the system copy was really hidden.
. "$(dirname "$0")/lib.sh"

ROOT=$(cd "$HERE/../.." && pwd)

# ---- MPI ----
checks=$((checks + 1))
if readelf -d "$BIN" | grep -E 'NEEDED.*libmpi'; then
	fail "the binary names MPI as a needed library"
fi
for args in --version help "theory --list"; do
	# shellcheck disable=SC2086 # the command's words
	LD_DEBUG=libs "$BIN" $args >"$TMP/out" 2>"$TMP/trace"
	rc=$?
	err=""
	expect_rc 0 "$args"
	checks=$((checks + 1))
	if grep -E 'find library=libmpi|calling init: .*libmpi' "$TMP/trace" | head -3 | grep .; then
		fail "'gpubench $args' looked for MPI"
	fi
done

if "$BIN" --version | grep -q 'MPI (.*loaded at run time)'; then
	for cmd in nccl run; do
		for rank in 0 1; do
			run env OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=$rank \
				GPUBENCH_MPI_LIBRARY="$TMP/none/libmpi.so.40" "$BIN" $cmd
			expect_rc 3 "$cmd as rank $rank of 2, MPI missing"
			if [ "$rank" = 0 ]; then
				expect_one_error "^gpubench: error: cannot start the MPI job: cannot load MPI \('$TMP/none/libmpi.so.40'" \
					"$cmd as rank 0 of 2, MPI missing"
			else
				checks=$((checks + 1))
				[ -z "$err" ] || fail "$cmd as rank 1 of 2 spoke: $err"
			fi
		done
	done
else
	echo "note: built without MPI; the missing-library checks do not apply"
fi

# ---- cJSON: the relocatable bundle ----
build=$(dirname "$BIN")
if [ ! -f "$build/cmake_install.cmake" ]; then
	echo "note: $BIN is not in a CMake build directory; the bundle is not checked"
	finish
fi
if readelf -d "$BIN" | grep -qE 'NEEDED.*lib(a|ub)san'; then
	echo "note: a sanitizer build is not for distribution; the bundle is not checked"
	finish
fi
if ! "$ROOT/scripts/make-dist.sh" "$build" "$TMP/dist" >"$TMP/dist.out" 2>&1; then
	fail "make-dist.sh failed: $(cat "$TMP/dist.out")"
	finish
fi
bundle=$(find "$TMP/dist" -mindepth 1 -maxdepth 1 -type d -name 'gpubench-*')
checks=$((checks + 1))
[ -f "$bundle.tar.gz" ] || fail "make-dist.sh made no tarball"
mkdir -p "$TMP/elsewhere" "$TMP/clean"
mv "$bundle" "$TMP/elsewhere/moved" # relocatable: nothing may point back at where it was made
moved=$TMP/elsewhere/moved

checks=$((checks + 1))
ldd "$moved/bin/gpubench" | grep -q "libcjson.so.1 => $moved/bin/../lib/libcjson.so.1" ||
	fail "the bundle does not load its own cJSON: $(ldd "$moved/bin/gpubench" | grep cjson)"

# every libcjson file the loader could find, made unreadable as a library
cat >"$TMP/hide.sh" <<'SH'
#!/usr/bin/env bash
# hide.sh CMD...: in a private mount namespace, /dev/null over every system libcjson
for f in $( { ldconfig -p | awk '/libcjson\.so/ { print $NF }'
	find /usr/lib /usr/lib64 /usr/local/lib -name 'libcjson.so*' 2>/dev/null; } |
	while read -r l; do readlink -f "$l"; done | sort -u); do
	mount --bind /dev/null "$f" || exit 90
done
cd "$CLEAN" && exec env -u LD_LIBRARY_PATH LD_LIBRARY_PATH= "$@"
SH
chmod +x "$TMP/hide.sh"
export CLEAN=$TMP/clean
if unshare -m "$TMP/hide.sh" true 2>/dev/null; then
	run unshare -m "$TMP/hide.sh" "$moved/bin/gpubench" --version
	expect_rc 0 "the bundle's --version with the system cJSON hidden"
	run unshare -m "$TMP/hide.sh" "$moved/bin/gpubench" theory --gpu a100-sxm4-80gb --json
	expect_rc 0 "the bundle's theory --json with the system cJSON hidden"
	checks=$((checks + 1))
	printf '%s' "$out" | python3 -c 'import json,sys; json.load(sys.stdin)' ||
		fail "the bundle's JSON does not parse"
	run unshare -m "$TMP/hide.sh" "$BIN" --version
	checks=$((checks + 1))
	[ "$rc" -ne 0 ] || fail "the system cJSON was not hidden: the plain binary still starts"
	checks=$((checks + 1))
	[ -z "$(ls -A "$TMP/clean")" ] || fail "the bundle wrote into the directory it ran in"
else
	echo "note: cannot make a mount namespace here: the bundle is checked with ldd only"
fi

finish
