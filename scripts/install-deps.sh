#!/usr/bin/env bash
# install-deps.sh - install what a Debian/Ubuntu machine with the CUDA toolkit
# lacks to build and test gpubench, and nothing where everything is there.
#
#   cJSON (libcjson-dev), cmocka (libcmocka-dev), Open MPI (libopenmpi-dev,
#   openmpi-bin), Ninja, and NVML's official header nvml.h. The header comes
#   from the CUDA toolkit when it has one, else from the nvidia-nvml-dev PyPI
#   package, unpacked into .deps/nvml/include (ignored by git).
#
# With --test it also installs what only the tests need: the jsonschema Python
# package (reports are validated against docs/report.schema.json), Chromium
# (the HTML report is rendered headless and its screenshot checked), and
# Slurm's daemons, clients and munge (slurmctld, slurmd, slurm-client, munge:
# tests/slurm/ starts a cluster of its own; the packages' own services are
# not used), and promtool (Debian's prometheus package, its server not
# started: tests/sim/prom lints the Prometheus textfiles).
#
# Idempotent; safe to run on every `make`. Uses sudo when not root.
set -euo pipefail
for_tests=0
[ "${1:-}" = "--test" ] && for_tests=1
root=$(cd "$(dirname "$0")/.." && pwd)
say() { printf 'install-deps: %s\n' "$*" >&2; }

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
	sudo_cmd=(sudo)
fi

need_pkgs=()
have_header() { [ -f "/usr/include/$1" ] || [ -f "/usr/local/include/$1" ]; }
have_header cjson/cJSON.h || need_pkgs+=(libcjson-dev)
have_header cmocka.h || need_pkgs+=(libcmocka-dev)
command -v mpicc >/dev/null 2>&1 || need_pkgs+=(libopenmpi-dev)
command -v mpirun >/dev/null 2>&1 || need_pkgs+=(openmpi-bin)
command -v ninja >/dev/null 2>&1 || need_pkgs+=(ninja-build)
command -v cmake >/dev/null 2>&1 || need_pkgs+=(cmake)
command -v python3 >/dev/null 2>&1 || need_pkgs+=(python3)
if [ "$for_tests" -eq 1 ]; then
	command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 ||
		need_pkgs+=(chromium)
	# libFuzzer and the sanitizer runtimes (clang only recommends the latter)
	command -v clang >/dev/null 2>&1 || need_pkgs+=(clang)
	# a throwaway Slurm cluster (tests/slurm/lib_slurm.sh)
	# (daemons in /usr/sbin, which a user's PATH may lack)
	have_sbin() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ]; }
	have_sbin slurmctld || need_pkgs+=(slurmctld)
	have_sbin slurmd || need_pkgs+=(slurmd)
	command -v srun >/dev/null 2>&1 || need_pkgs+=(slurm-client)
	have_sbin munged || need_pkgs+=(munge)
	ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 ||
		need_pkgs+=(libclang-rt-dev)
fi

if [ ${#need_pkgs[@]} -gt 0 ]; then
	say "installing ${need_pkgs[*]}"
	export DEBIAN_FRONTEND=noninteractive
	"${sudo_cmd[@]}" apt-get update -q >/dev/null
	"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${need_pkgs[@]}" >/dev/null
fi

# promtool lints the Prometheus textfiles (tests/sim/prom). Debian ships it in
# the prometheus package, with the server, whose service its install starts
# and enables: a policy-rc.d (where none is, as in a container) keeps apt from
# starting it, and on a systemd host the unit is disabled again, so the tests
# leave no daemon behind. Without recommends: no node exporter.
if [ "$for_tests" -eq 1 ] && ! command -v promtool >/dev/null 2>&1; then
	say "installing prometheus (for promtool; its server is not started)"
	export DEBIAN_FRONTEND=noninteractive
	policy=""
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		policy=/usr/sbin/policy-rc.d
		printf '#!/bin/sh\nexit 101\n' | "${sudo_cmd[@]}" tee "$policy" >/dev/null
		"${sudo_cmd[@]}" chmod 755 "$policy"
	fi
	"${sudo_cmd[@]}" apt-get update -q >/dev/null
	ok=0
	"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends prometheus >/dev/null || ok=$?
	[ -z "$policy" ] || "${sudo_cmd[@]}" rm -f "$policy"
	if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
		"${sudo_cmd[@]}" systemctl disable --now prometheus >/dev/null 2>&1 || true
	fi
	[ "$ok" -eq 0 ] || say "prometheus did not install: the promtool test will be skipped"
fi

# nvml.h: the toolkit's, else the PyPI package's, matching CUDA 13.
cuda_inc=""
if command -v nvcc >/dev/null 2>&1; then
	cuda_inc="$(dirname "$(dirname "$(command -v nvcc)")")/include"
fi
if [ -n "$cuda_inc" ] && [ -f "$cuda_inc/nvml.h" ]; then
	:
elif [ -f "$root/.deps/nvml/include/nvml.h" ]; then
	:
else
	say "fetching nvml.h (nvidia-nvml-dev) into .deps/nvml/include"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	python3 -m pip download -q --no-deps --only-binary=:all: -d "$tmp" 'nvidia-nvml-dev>=13.0,<14'
	mkdir -p "$root/.deps/nvml/include"
	python3 - "$tmp" "$root/.deps/nvml/include" <<'PY'
import glob, sys, zipfile
whl = glob.glob(sys.argv[1] + "/*.whl")[0]
with zipfile.ZipFile(whl) as z:
    name = next(n for n in z.namelist() if n.endswith("/nvml.h"))
    open(sys.argv[2] + "/nvml.h", "wb").write(z.read(name))
PY
fi

# jsonschema validates produced reports against docs/report.schema.json in the tests.
if [ "$for_tests" -eq 1 ] && ! python3 -c 'import jsonschema' >/dev/null 2>&1; then
	say "installing the jsonschema Python package"
	python3 -m pip install -q --user jsonschema 2>/dev/null ||
		python3 -m pip install -q --break-system-packages --user jsonschema
fi
