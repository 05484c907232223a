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

.PHONY: all deps configure build run test test-gpu dist sanitize tsan fuzz style clean

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

# the simulator's end-to-end tests (label sim) under ThreadSanitizer, gpubench and the
# fake CUDA/NCCL/NVML libraries all instrumented: stress workers, the telemetry
# sampler, the watchdogs, the simulated streams. Every report is a failure: the
# first one stops its process (exit 66) and is kept in build-tsan/tsan-logs/; the
# suppressions, each with its reason, are in tests/sim/tsan.supp.
# LD_LIBRARY_PATH: TSan intercepts dlopen, and glibc then searches the run path of
# libtsan, not of gpubench-sim, so the fake libnvidia-ml.so.1 beside the fake
# libcudart ($$ORIGIN/sim/lib) is not found without it.
# TSAN_CTEST_ARGS narrows or widens the set. sim_gpu is left out: those are the GPU
# test programs at GPU sizes, over 10 min each under TSan on 2 cores (bandwidth,
# nccl: 212 s); `make tsan TSAN_CTEST_ARGS='-L sim'` runs them too.
TSAN_CTEST_ARGS ?= -L sim -LE sim_gpu
# only the GPUs of tests/sim/machines and the fault files (A100 sm_80, RTX 4090
# sm_89, H100 sm_90): the kernels' device code is never run, and 3 targets
# instead of the default 7 keep nvcc's share of CI short
TSAN_CUDA_ARCHS ?= 80-real;89-real;90-real
TSAN_LOGS = $(CURDIR)/build-tsan/tsan-logs
tsan: deps
	@scripts/install-deps.sh --test
	@[ -f build-tsan/build.ninja ] || cmake -S . -B build-tsan -G Ninja \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUBENCH_TSAN=ON \
		-DCMAKE_CUDA_ARCHITECTURES="$(TSAN_CUDA_ARCHS)" $(CMAKE_FLAGS)
	cmake --build build-tsan -j $(JOBS)
	rm -rf $(TSAN_LOGS) && mkdir -p $(TSAN_LOGS)
	@rc=0; cd build-tsan && LD_LIBRARY_PATH=$(CURDIR)/build-tsan/sim/lib \
		TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 \
		suppressions=$(CURDIR)/tests/sim/tsan.supp log_path=$(TSAN_LOGS)/tsan" \
		ctest --output-on-failure $(TSAN_CTEST_ARGS) -j $(JOBS) || rc=$$?; \
	if ls $(TSAN_LOGS)/tsan.* >/dev/null 2>&1; then \
		echo "ThreadSanitizer reports in $(TSAN_LOGS):"; grep -h SUMMARY $(TSAN_LOGS)/tsan.*; \
		exit 1; fi; exit $$rc

# libFuzzer harnesses (clang) on the loaders and the options parser;
# FUZZ_SECONDS=3600 for the long run (docs/robustness.md)
fuzz:
	@scripts/install-deps.sh --test
	tests/fuzz/build-and-run.sh $(FUZZ_SECONDS)

# banned functions, printing outside cmd/, GPU-setting calls, shells
style:
	scripts/check-style.sh

clean:
	rm -rf $(BUILD) build-asan build-tsan build-fuzz dist
