# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# lib_mpirun.sh - the launcher for the tests that start several ranks
# (tests/mpi, tests/sim/mpi). Sets MPIEXEC (GPUBENCH_MPIEXEC or mpirun),
# flags (its options) and rank_var (the variable a rank reads its rank from);
# exits 77 (skipped) when there is no mpirun. Open MPI refuses to run as root
# and to start more ranks than cores unless told: --allow-run-as-root (as
# root) and --oversubscribe are added for it; GPUBENCH_MPIEXEC_FLAGS adds more
# (e.g. "--mca btl self,tcp" in containers).
MPIEXEC=${GPUBENCH_MPIEXEC:-$(command -v mpirun || true)}
if [ -z "$MPIEXEC" ] || ! command -v "$MPIEXEC" >/dev/null 2>&1; then
	echo "skipped: mpirun not found (GPUBENCH_MPIEXEC is not set)"
	exit 77
fi
flags=()
rank_var=PMI_RANK
if "$MPIEXEC" --version 2>&1 | grep -qiE "open mpi|openrte|open-mpi"; then
	flags+=(--oversubscribe)
	[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
	rank_var=OMPI_COMM_WORLD_RANK
fi
# shellcheck disable=SC2206 # word splitting of user flags is intended
flags+=(${GPUBENCH_MPIEXEC_FLAGS:-})
