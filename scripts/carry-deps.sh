#!/usr/bin/env bash
# carry-deps.sh - prepare .carry/ (ignored by git) with what a GPU machine
# that cannot install packages needs to build and test gpubench:
#   .carry/root/   cJSON and cmocka (headers, CMake configs, shared libraries),
#                  unpacked from Debian packages (never into /)
#   .carry/nvml/   NVML's official nvml.h
#   .carry/whl/    the jsonschema wheels the tests validate reports with
# Run it here (it needs apt-get download and pip), then carry .carry to the GPU
# machine and run scripts/gpu-selftest.sh there: it picks .carry up by itself.
#
# usage: scripts/carry-deps.sh [PYTHON_VERSION]   (default 3.12, the GPU image's)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
py=${1:-3.12}
carry="$root/.carry"
say() { printf 'carry-deps: %s\n' "$*" >&2; }

"$root/scripts/install-deps.sh"
rm -rf "$carry"
mkdir -p "$carry/debs" "$carry/root" "$carry/nvml" "$carry/whl"

say "downloading cJSON and cmocka packages"
(cd "$carry/debs" && apt-get download libcjson-dev libcjson1 libcmocka-dev libcmocka0 2>/dev/null)
for deb in "$carry"/debs/*.deb; do
	dpkg -x "$deb" "$carry/root"
done
rm -rf "$carry/debs"

for nvml in /usr/local/cuda/include/nvml.h "$root/.deps/nvml/include/nvml.h"; do
	[ -f "$nvml" ] && cp "$nvml" "$carry/nvml/nvml.h" && break
done
[ -f "$carry/nvml/nvml.h" ] || { say "nvml.h not found"; exit 1; }

say "downloading jsonschema wheels for Python $py"
for pkg in jsonschema jsonschema-specifications referencing rpds-py attrs typing-extensions; do
	python3 -m pip download -q --no-deps --only-binary=:all: --python-version "$py" \
		--implementation cp --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
		--platform manylinux_2_28_x86_64 -d "$carry/whl" "$pkg"
done
say "done: $(du -sh "$carry" | cut -f1) in .carry (carry it as '.carry')"
