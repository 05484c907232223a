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

enum class state { runnable, at_barrier, at_warp, waiting, exited };

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
	/* state::waiting (an mbarrier wait): runnable again once ready(*this) holds */
	bool (*ready)(thread &);
	uint32_t wait_bar, wait_parity;
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
	const unsigned char *dyn_array;  /* the kernel's extern __shared__ array, or null */
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
/* suspend the running thread until ready(thread) holds (the scheduler asks between turns) */
void block_until(bool (*ready)(thread &), uint32_t bar, uint32_t parity);

/* check.cc */
void check_init();
void block_start_shared();  /* poison shared memory, start a new racecheck epoch */
/*
 * async_read, async_write: the async proxy (TMA's writes, wgmma's operand
 * reads), which __syncthreads does not order: bounds are checked, and
 * instead of the generic hazards, a TMA write to bytes an uncompleted wgmma
 * reads (WAR) and a wgmma read of bytes a TMA has not landed yet (RAW).
 */
enum class access { read, write, atomic, async_read, async_write };
void check_access(const void *p, size_t bytes, access kind);
void note_async_pending(const void *p, size_t bytes, int delta);
/* wgmma operand reads issued and not yet completed (a generic or TMA write there is WAR) */
void note_async_reads(const void *p, size_t bytes, int delta);
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
/* a 16-bit float's bits (bf16 or f16) as a float, exactly */
float half_bits_to_float(uint16_t h, bool bf16);
/* wgmma.cc: drop what the last block left in flight (copies, wgmma groups) and its marks */
void wgmma_block_start();

/* runtime.cc */
size_t func_max_dyn_smem(const void *func);
void set_last_error(cudaError_t e);
struct device_model {
	int cc_major, cc_minor, smem_per_sm, smem_per_block_optin;
};
extern device_model device;

/*
 * A CUtensorMap as the executor's cuTensorMapEncodeTiled writes it (the
 * driver's own encoding is opaque; this one fits its 128 bytes): what
 * cp.async.bulk.tensor needs to read a box. Strides in bytes, dims[0]
 * innermost.
 */
struct tensor_map {
	uint32_t magic;
	uint8_t rank, dtype, elem_bytes, swizzle, interleave, oob_fill, l2;
	const unsigned char *base;
	uint64_t dims[5];
	uint64_t strides[4];  /* of dims 1..rank-1 */
	uint16_t box[5];
	uint8_t elem_strides[5];
};
constexpr uint32_t kTensorMapMagic = 0x6b78746du;  /* "kxtm" */
static_assert(sizeof(tensor_map) <= 128, "a CUtensorMap is 128 bytes");

}  // namespace gb_kx

#endif
