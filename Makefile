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
# TSAN_CTEST_ARGS narrows or widens the set; `make tsan TSAN_CTEST_ARGS='-L sim'`
# runs every sim test. TSan makes the CPU's share of the simulation (the kernel
# twins, every memmove checked byte range by byte range) 10-50x slower, so CI's
# set leaves out what is CPU arithmetic or a wall-clock judgement rather than
# threads, each of its threads still covered by a test that stays:
#   sim_gpu        the GPU test programs at GPU sizes (bandwidth, nccl: 212 s each);
#   8x-h100, h100x8  eight GPUs' worth of the same paths as the 2-GPU machines;
#   sim_run_       the whole suite (each step has its own sim test here);
#   sim_gemm_      every precision and own kernel computed by the CPU (over 300 s;
#                  gemm's sampler and workers run in sim_compare_report_*);
#   sim_fault_pcie_degraded, sim_fault_bitflip_gemm  512 MiB copies; GEMMs the CPU
#                  computes in full (each over 300 s);
#   sim_fault_slow, sim_fault_nccl_hang, sim_stress_, sim_mpi_  judged against wall
#                  time, which TSan's slow-down swamps: a 20 % slower GPU; a 3 s
#                  --timeout that must outlast the collectives before the hang; an
#                  --inject-fault batch within a 6 s run; mpirun's ranks, each under
#                  TSan, within the fleet's and the hang tests' waits;
#   sim_determinism_, sim_swarm_, sim_limits_  whole commands several times over
#                  (idle and busy, seeds x machines, run below its limits): their
#                  threads are the ones the tests that stay cover;
#   journey_, sim_gate_, sim_peers, sim_expect_published, sim_lazy_, sim_prom_, slurm_
#                  whole commands and suites run as a user would (two runs and a
#                  compare, every command on a lazy machine, every report rendered,
#                  run judged against published figures, a cluster):
#                  the compare, report and launcher code they add is CPU-only and
#                  unit tested; their threads are the ones the tests that stay cover.
# Stress's workers, monitor, watchdog and telemetry sampler stay covered by the
# fault tests that run stress (hang, ecc_dbe, row_remap_pending, power_brake,
# thermal_throttle, xid); the simulated streams by every test that stays.
TSAN_CTEST_ARGS ?= -L sim -LE sim_gpu \
	-E '8x-h100|h100x8|sim_run_|sim_gemm_|sim_stress_|sim_mpi_|sim_determinism_|sim_swarm_|sim_limits_|journey_|sim_gate_|sim_peers|sim_expect_published|sim_lazy_|sim_prom_|slurm_|sim_fault_(pcie_degraded|bitflip_gemm|slow|nccl_hang)$$'
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

# the mutation score (docs/robustness.md): each mutant of scripts/mutants.txt
# applied alone, rebuilt in build-mutate/, its tests run, the file restored;
# MUTATE_ARGS='--only 3,7' or '--list'. Not part of CI: it takes an hour on 2 cores.
MUTATE_ARGS ?=
.PHONY: mutate
mutate: deps
	@scripts/install-deps.sh --test
	scripts/mutate.sh $(MUTATE_ARGS)

# banned functions, printing outside cmd/, GPU-setting calls, shells
style:
	scripts/check-style.sh

clean:
	rm -rf $(BUILD) build-asan build-tsan build-fuzz dist
