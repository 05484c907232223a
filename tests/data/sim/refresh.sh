#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# refresh.sh BIN - re-makes the simulated template reports in this folder with
# BIN (build/gpubench-sim: the real gpubench on the simulated GPU, see
# docs/simulation.md). tests/data/make_compare_data.py builds the compare
# fixtures (tests/data/base.json and the others) from these templates, so that
# the fixtures carry the metric names, units, params, peaks and checks the
# benchmarks really write; the templates are committed so that script needs no
# binary. After running this, run that script and the tests that read them.
#
# Each template is made by exactly one command line, listed below with the
# machine file that made it (the report says so too: host.simulated_machine
# and run.command_line). BIN must be built for sm_89 and sm_90 (the RTX 4090
# and the H100), e.g. -DCMAKE_CUDA_ARCHITECTURES="89-real;90-real": a build for
# 90-real only refuses the RTX 4090 (exit 3) and this script stops there.
set -u
if [ $# -ne 1 ] || [ ! -x "$1" ]; then
	echo "usage: $0 PATH/TO/gpubench-sim" >&2
	exit 2
fi
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
machines=$(cd "$here/../../sim/machines" && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# make NAME MACHINE ARGS...: one template; the run must pass (exit 0)
make_one() {
	local name=$1 machine=$2
	shift 2
	(cd "$tmp" && GPUBENCH_SIM_MACHINE="$machines/$machine" "$bin" "$@" -o "$name") >"$tmp/log" 2>&1
	local rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "refresh.sh: $name: exit $rc from $*" >&2
		cat "$tmp/log" >&2
		exit 1
	fi
	# the machine file as the repository names it, not this checkout's path
	sed "s|$machines/|tests/sim/machines/|g" "$tmp/$name" >"$here/$name"
	echo "wrote $here/$name"
}

# Small sizes: the twins compute every GEMM on the CPU, and a full
# `run --only gemm,bandwidth` (profile sizes) takes minutes. One template per
# benchmark; the fixture script puts them together.
gemm_args=(gemm -d 0,1 --precision bf16,fp32 --size 256 --warmup 0.2s --duration 0.5s)
bw_args=(bandwidth -d 0,1 --max-size 1M --samples 5)
# two H100s of the 8-GPU NVLink machine: base, regressed, noisy, improved
make_one h100-gemm.json 8x-h100-nvlink.json "${gemm_args[@]}"
make_one h100-bandwidth.json 8x-h100-nvlink.json "${bw_args[@]}"
# another model: other_model
make_one rtx4090-gemm.json 2x-rtx4090-pcie.json "${gemm_args[@]}"
make_one rtx4090-bandwidth.json 2x-rtx4090-pcie.json "${bw_args[@]}"
