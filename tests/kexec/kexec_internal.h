/* SPDX-License-Identifier: MIT */
/*
 * kexec_internal.h - the executor's own state, shared by its parts: the
 * fiber scheduler (kexec_fiber.cc), the memory checks (kexec_check.cc), the
 * runtime (kexec_runtime.cc) and the PTX emulation (kexec_ptx.cc). None of
 * these files is instrumented: only the kernels' code is.
 */
#ifndef GPUBENCH_TESTS_KEXEC_KEXEC_INTERNAL_H
#define GPUBENCH_TESTS_KEXEC_KEXEC_INTERNAL_H

#include <cuda_runtime.h>
#include <ucontext.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tests/kexec/kexec.h"
#include "tests/kexec/kexec_device.h"

namespace gb_kx {

enum class state { runnable, at_barrier, at_warp, exited };

/* one CUDA thread: a fiber with its own stack */
struct thread {
	ucontext_t ctx;
	unsigned char *stack;  /* the usable part, above a guard page */
	size_t stack_bytes;
	uint3 tid;
	unsigned linear, warp, lane;
	state st;
	/* the warp collective this thread waits in (valid while at_warp) */
	int op;
	unsigned mask;
	uint64_t in, out;
	int param, width;
	void (*custom)(thread *const lanes[32]);  /* a warp-wide instruction's emulation */
	/* cp.async groups: copies issued and not yet waited for (kexec_ptx.cc) */
	void *async;
};

/* the block being run, and the grid it belongs to */
struct block {
	std::vector<thread> *threads;
	uint3 idx;
	unsigned live;           /* threads not yet exited */
	uint32_t epoch;          /* barrier interval, unique across blocks and launches */
	std::vector<uint32_t> warp_sync;  /* collectives completed, per warp */
};

struct launch {
	const char *kernel;
	dim3 grid, blk;
	size_t dyn_smem;
	const void *params;      /* the launch's arguments: read-only, like param space */
	size_t params_bytes;
	bool aborted;            /* a memcheck/synccheck finding stopped the grid */
	cudaError_t error;       /* what the launch returns then */
};

extern thread *cur;      /* the running CUDA thread; null outside kernels */
extern block blk;
extern launch *run;

/* fiber.cc */
[[noreturn]] void abort_grid(cudaError_t e);
/*
 * A warp-wide instruction (.sync.aligned: every lane of the warp executes
 * it): each lane passes its operands in `in`; when all 32 have arrived,
 * emulate(lanes) runs once, with cur set to each lane in turn where it
 * checks that lane's accesses (run_as), and writes every lane's results.
 */
void warp_instruction(void *operands, void (*emulate)(thread *const lanes[32]));
void run_as(thread *t);

/* check.cc */
void check_init();
void block_start_shared();  /* poison shared memory, start a new racecheck epoch */
enum class access { read, write, atomic };
void check_access(const void *p, size_t bytes, access kind);
void note_async_pending(const void *p, size_t bytes, int delta);
bool in_shared(const void *p, size_t bytes);
uintptr_t shared_base();
void report_memcheck(const char *what, const void *p, size_t bytes, access kind);
void report_sync(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void print_thread_line(const char *role, unsigned linear);
void count_racecheck();
void register_allocation(const void *p, size_t bytes);
bool unregister_allocation(const void *p, size_t *bytes);

/* ptx.cc */
void async_thread_exit(thread &t);

/* runtime.cc */
size_t func_max_dyn_smem(const void *func);
void set_last_error(cudaError_t e);
struct device_model {
	int cc_major, cc_minor, smem_per_sm, smem_per_block_optin;
};
extern device_model device;

}  // namespace gb_kx

#endif
