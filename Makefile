# The steps behind the README's quick start, plus a few conveniences.
#   make build  install missing dependencies, configure, build build/gpubench
#   make test   install missing dependencies (and the tests' own), configure, build,
#               run every test
#   make run    build, then run the acceptance suite; make itself exits 2 when it
#               fails, whatever gpubench's code was, so the quick start runs
#               `make build && build/gpubench run` to keep gpubench's exit code
# Everything is CMake underneath; this file only strings the steps together.
BUILD ?= build
CMAKE_FLAGS ?=
RUN_ARGS ?=
JOBS ?= $(shell nproc)

FUZZ_SECONDS ?= 30

.PHONY: all deps configure build run test test-gpu dist sanitize fuzz style clean

all: build

deps:
	@scripts/install-deps.sh

configure: deps
	@[ -f $(BUILD)/build.ninja ] || cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# gpubench's own line says why it could not run; make adds its "Error N" after it
run: build
	@$(BUILD)/gpubench run $(RUN_ARGS)

test: build
	@scripts/install-deps.sh --test
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# a relocatable bundle for GPU hosts with only the driver: dist/gpubench-VERSION-linux-ARCH
# (bin/gpubench with run path $$ORIGIN/../lib, lib/libcjson.so.1) and its .tar.gz
dist: build
	scripts/make-dist.sh $(BUILD) dist

# on a GPU machine: every gpu-labelled test must run, none may skip
test-gpu: build
	cd $(BUILD) && GPUBENCH_REQUIRE_GPU=1 ctest --output-on-failure -L gpu

# the core library, its tests and the binary's CLI tests under AddressSanitizer and UBSan
sanitize: deps
	@[ -f build-asan/build.ninja ] || cmake -S . -B build-asan -G Ninja \
		-DCMAKE_BUILD_TYPE=Debug -DGPUBENCH_SANITIZE=ON $(CMAKE_FLAGS)
	cmake --build build-asan -j $(JOBS) --target unit_tests gpubench
	cd build-asan && ctest --output-on-failure -L 'unit|cli' -j $(JOBS)

# libFuzzer harnesses (clang) on the loaders and the options parser;
# FUZZ_SECONDS=3600 for the long run (docs/robustness.md)
fuzz:
	@scripts/install-deps.sh --test
	tests/fuzz/build-and-run.sh $(FUZZ_SECONDS)

# banned functions, printing outside cmd/, GPU-setting calls, shells
style:
	scripts/check-style.sh

clean:
	rm -rf $(BUILD) build-asan build-fuzz dist
