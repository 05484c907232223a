#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make-dist.sh [BUILD_DIR] [OUT_DIR] - a relocatable bundle of a built
# gpubench for GPU hosts that have the NVIDIA driver and nothing else
# (`make dist`; README, "Building by hand").
#
#   OUT_DIR/gpubench-VERSION-linux-ARCH/bin/gpubench     run path $ORIGIN/../lib
#   OUT_DIR/gpubench-VERSION-linux-ARCH/lib/libcjson.so.1
#   OUT_DIR/gpubench-VERSION-linux-ARCH/share/doc/gpubench/cJSON.copyright
#   OUT_DIR/gpubench-VERSION-linux-ARCH.tar.gz
#
# cJSON is the one library the binary links that a GPU host may lack:
# Debian ships it only as a shared library, so the bundle carries that copy
# beside the binary. The CUDA runtime is static; NVML, cuBLASLt, NCCL and
# MPI are loaded at run time, when a command needs them. The bundle is
# checked before it is packed: every needed library must be in lib/ or be
# part of the C and C++ runtime every Linux has, and the binary must start
# with LD_LIBRARY_PATH empty. Prints the tarball's path.
set -euo pipefail

build=${1:-build}
out=${2:-dist}
die() {
	echo "make-dist: $*" >&2
	exit 1
}

[ -x "$build/gpubench" ] || die "no '$build/gpubench': build it first (make build)"
version=$("$build/gpubench" --version | sed -n '1s/^gpubench \([^ ]*\) .*/\1/p')
[ -n "$version" ] || die "cannot read the version of '$build/gpubench'"
name=gpubench-$version-linux-$(uname -m)
mkdir -p "$out"
out=$(cd "$out" && pwd)
dir=$out/$name
rm -rf "$dir" "$dir.tar.gz"

# the binary (CMake rewrites its run path to $ORIGIN/../lib), then cJSON
cmake --install "$build" --prefix "$dir" >/dev/null
cmake --install "$build" --prefix "$dir" --component bundle >/dev/null

# what every Linux with a C and C++ runtime has; anything else must be in lib/
system_lib='^(libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s|ld-linux-[a-z0-9_-]+)\.so'
readelf -d "$dir/bin/gpubench" | grep -q 'RUNPATH.*\$ORIGIN/\.\./lib' ||
	die "bin/gpubench has no \$ORIGIN/../lib run path"
readelf -d "$dir/bin/gpubench" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | while read -r lib; do
	[[ $lib =~ $system_lib ]] || [ -f "$dir/lib/$lib" ] ||
		die "bin/gpubench needs '$lib', which the bundle does not carry"
done
LD_LIBRARY_PATH='' "$dir/bin/gpubench" --version >/dev/null ||
	die "the bundled gpubench does not start"

tar -C "$out" -czf "$dir.tar.gz" "$name"
echo "$dir.tar.gz"
