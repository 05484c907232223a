/* SPDX-License-Identifier: MIT */
/*
 * sim.h - the simulated GPU's internal interface (tests only, never installed).
 *
 * The simulator is four stand-in libraries that gpubench-sim loads where
 * gpubench loads the real ones:
 *   libcudart.so.13     tests/sim/runtime/   the CUDA runtime: devices, memory,
 *                                            streams, events, graphs, launches
 *   libcublasLt.so.13   tests/sim/cublaslt/  matmul on the CPU, in stream order
 *   libnccl.so.2        tests/sim/nccl/      collectives among simulated GPUs
 *   libnvidia-ml.so.1   tests/fake_nvml/     NVML answers from the same machine
 * All four read one machine file (GPUBENCH_SIM_MACHINE, see docs/simulation.md)
 * through tests/sim/machine.c, so CUDA, NVML and NCCL always agree.
 *
 * The fake runtime exports the gbsim_* functions below; the fake cuBLASLt and
 * NCCL link against it and queue their work through them, so their work runs
 * in stream order and takes simulated time like a kernel's.
 *
 * Kernel twins (tests/sim/twins/) are CPU functions found by the demangled
 * name of the kernel a <<<>>> launch names; see struct gbsim_twin.
 */
#ifndef GPUBENCH_TESTS_SIM_SIM_H
#define GPUBENCH_TESTS_SIM_SIM_H

#include <cuda_runtime_api.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- machine */

#define GBSIM_MAX_GPUS 8
#define GBSIM_MAX_FAULTS 16
/* The CUDA version the simulated runtime is, and its machines' driver by default (13.0). */
#define GBSIM_CUDA_VERSION 13000

/* precisions of the cost model; names and order as report/theory.h's gb_precision */
enum gbsim_precision {
	GBSIM_FP64,
	GBSIM_FP32,
	GBSIM_TF32,
	GBSIM_FP16,
	GBSIM_BF16,
	GBSIM_FP8,
	GBSIM_INT8,
	GBSIM_PREC_COUNT
};

struct gbsim_gpu {
	int index;
	char model[48];            /* catalog key, `gpubench theory --list` */
	char name[96];             /* what cudaGetDeviceProperties and NVML say */
	char uuid[48];             /* "GPU-" + 36 characters, as NVML gives it */
	char pci_bus_id[32];       /* "00000000:18:00.0" */
	int cc_major, cc_minor;
	int sm_count;
	int sm_clock_mhz;          /* boost clock */
	int mem_clock_mhz;         /* memory clock such that 2 * clock * bus / 8 = bandwidth */
	int mem_bus_width;         /* bits */
	uint64_t memory_bytes;     /* after the machine file's override */
	uint64_t l2_bytes;         /* L2 cache: the architecture's flagship, or the override */
	double mem_bw_bps;         /* catalog bandwidth, bytes/s, before speed */
	double peak_flops[GBSIM_PREC_COUNT]; /* catalog peaks, FLOP/s, before speed; 0 = none */
	double speed;              /* 1.0 = catalog speed; 0.8 = 20% slow */
	int pcie_gen, pcie_width;          /* trained link */
	int pcie_max_gen, pcie_max_width;  /* what the slot and card allow */
	int numa_node;             /* -1 = none */
	double power_limit_w;
	bool geforce;              /* GeForce product (half-rate FP32-accumulate tensor math) */
	int model_pcie_gen;        /* the model's own PCIe generation (the card's maximum) */
	int model_nvlink_gen;      /* the model's NVLink generation, 0 = none */
	int model_nvlink_links;    /* the model's NVLink links, 0 = none */
};

/*
 * Shares of the spec figures the cost model reaches (the machine file's
 * "efficiency", docs/simulation.md). Each is in (0, 1].
 */
struct gbsim_efficiency {
	double gemm[GBSIM_PREC_COUNT]; /* kernel and library arithmetic, of the dense peak */
	double memory;             /* device-memory traffic, of the memory bandwidth */
	double pcie;               /* host <-> device copies from pinned memory, of the link */
	double pcie_p2p;           /* peer copies over PCIe, of the slower GPU's link */
	double nvlink;             /* peer copies over NVLink, of links x the per-link rate */
	double nccl_nvlink;        /* collectives' ring bandwidth over NVLink */
	double nccl_pcie;          /* collectives' ring bandwidth over PCIe */
};

/* fault kinds of issue 18; the runtime ignores what it does not implement yet */
enum gbsim_fault_kind {
	GBSIM_FAULT_NONE,
	GBSIM_FAULT_OOM,
	GBSIM_FAULT_STICKY_ERROR,
	GBSIM_FAULT_HANG,
	GBSIM_FAULT_BITFLIP_GEMM,
	GBSIM_FAULT_XID,
	GBSIM_FAULT_ECC_DBE,
	GBSIM_FAULT_ROW_REMAP_PENDING,
	GBSIM_FAULT_THERMAL_THROTTLE,
	GBSIM_FAULT_POWER_BRAKE,
	GBSIM_FAULT_SLOW,
	GBSIM_FAULT_PCIE_DEGRADED,
	GBSIM_FAULT_P2P_CORRUPT,
	GBSIM_FAULT_NVLINK_DOWN,
	GBSIM_FAULT_NCCL_WRONG,
	GBSIM_FAULT_NCCL_HANG,
	GBSIM_FAULT_DRIVER_STALL
};

struct gbsim_fault {
	enum gbsim_fault_kind kind;
	int gpu;                   /* index; -1 = every GPU */
	int peer;                  /* the other GPU of a pair fault, -1 if none */
	/* trigger: the first of these that is set (>= 0) */
	long after_launches;
	long after_allocs;
	double after_s;            /* simulated seconds */
	long value;                /* kind-specific: Xid number, ... */
};

struct gbsim_machine {
	char path[512];            /* the file it came from */
	char name[64];             /* "2x-rtx4090-pcie" */
	char hostname[64];         /* what the product reads as host name; "" = the real one */
	int gpu_count;
	struct gbsim_gpu gpus[GBSIM_MAX_GPUS];
	int nvlinks[GBSIM_MAX_GPUS][GBSIM_MAX_GPUS]; /* NVLink count per pair, 0 = none */
	int nvlink_gen;            /* 0 = none */
	bool p2p[GBSIM_MAX_GPUS][GBSIM_MAX_GPUS];    /* peer access allowed (i != j) */
	int numa_nodes;
	uint64_t seed;             /* noise seed */
	double noise;              /* relative standard deviation of timings, 0.01 = 1% */
	bool lazy;                 /* queued work runs only when the host synchronises */
	int driver_version;        /* what cudaDriverGetVersion answers; 0 = no driver */
	struct gbsim_efficiency efficiency;
	int fault_count;
	struct gbsim_fault faults[GBSIM_MAX_FAULTS];
};

/*
 * The machine this process simulates: loaded once from GPUBENCH_SIM_MACHINE
 * (or the default the build names), never NULL. A file that cannot be read or
 * parsed is fatal: one line on stderr naming the file and the problem, exit 2.
 */
const struct gbsim_machine *gbsim_machine(void);
/* Parse one machine file into *m; 0 on success, else -1 with a message in err. */
int gbsim_machine_load(const char *path, struct gbsim_machine *m, char *err, size_t len);
/*
 * GPUBENCH_SIM_MACHINE's value with "%r" replaced by this process's rank under
 * mpirun/srun (0 alone) and "%%" by "%"; 0, or -1 with a message in err.
 */
int gbsim_machine_path(const char *path, char *out, size_t len, char *err, size_t err_len);

/* ---------------------------------------------------------------- runtime */

/* The kind of memory a pointer lies in, as the runtime's allocation table knows it. */
enum gbsim_mem_kind {
	GBSIM_MEM_UNKNOWN,         /* not ours: pageable host memory, or garbage */
	GBSIM_MEM_DEVICE,          /* cudaMalloc */
	GBSIM_MEM_HOST,            /* cudaMallocHost / cudaHostAlloc (pinned) */
	GBSIM_MEM_MANAGED,         /* cudaMallocManaged */
	GBSIM_MEM_FREED            /* was one of ours, since freed */
};

/*
 * Kind and owning device of [p, p + bytes): the allocation must hold the whole
 * range. *device is set for DEVICE memory (else -1).
 */
enum gbsim_mem_kind gbsim_mem_kind(const void *p, size_t bytes, int *device);

/*
 * Check that a kernel or library on `device` may touch [p, p + bytes):
 * device memory of that device or of a peer with access enabled, pinned or
 * managed memory. cudaSuccess, or the error the real GPU would give
 * (cudaErrorIllegalAddress), after logging why with gbsim_log.
 */
cudaError_t gbsim_check_access(int device, const void *p, size_t bytes, const char *what);

/* The calling thread's current device (cudaGetDevice without the error). */
int gbsim_current_device(void);
/* The device a stream belongs to (the current device for the legacy stream 0). */
int gbsim_stream_device(cudaStream_t s);

/* Work queued on a stream: runs on the stream's worker thread, in stream order. */
typedef cudaError_t (*gbsim_work_fn)(void *ctx);

struct gbsim_work {
	const char *what;          /* for logs and errors: "cublasLtMatmul", "ncclAllReduce" */
	gbsim_work_fn run;         /* the work; an error is sticky on the device, as on a GPU */
	void *ctx;
	void (*free_ctx)(void *ctx); /* called after run, may be NULL */
	/*
	 * simulated duration in seconds, from gbsim_cost_seconds or the caller's own
	 * model; the runtime adds the seeded noise. Negative: ask duration_fn after run.
	 */
	double seconds;
	double (*duration_fn)(void *ctx);
	/*
	 * true: run writes only what it reports with gbsim_mem_wrote (the fake
	 * cuBLASLt). false (kernels, copies, collectives): it may write any
	 * device memory, so no write stamp taken before it matches after it,
	 * and deferred writes are flushed before it runs (it may read them).
	 */
	bool writes_declared;
};

/* Queue work on a stream; cudaSuccess or the error the runtime gives for a bad stream. */
cudaError_t gbsim_enqueue(cudaStream_t s, const struct gbsim_work *w);
/*
 * (added by the runtime's author) Work queued while its stream captures a graph
 * (cudaStreamBeginCapture) is recorded, not run: each cudaGraphLaunch then calls
 * run (and duration_fn) again with the same ctx, and free_ctx is called once,
 * when the graph, every exec made from it and every queued launch of it are gone.
 */

/*
 * Write stamps, so that the fake cuBLASLt can trust an operand it hashed once
 * without hashing it on every call: equal stamps of a device range mean that
 * nothing wrote it in between. Work without declared writes moves a global
 * epoch (before and after it runs); gbsim_mem_wrote moves the version of
 * the range written (of the whole allocation holding p when no size is
 * given), and a stamp is the newest version of any part of its range. gbsim_mem_stamp is false for anything but a
 * range within one live device allocation: host memory is written by the
 * host unseen, so it is never stamped (hash it every time).
 */
struct gbsim_mem_stamp {
	uint64_t epoch, version;
};
bool gbsim_mem_stamp(const void *p, size_t bytes, struct gbsim_mem_stamp *out);
/* [p, p + bytes) was written; bytes 0: the whole allocation holding p. */
void gbsim_mem_wrote(const void *p, size_t bytes);

/*
 * A 128-bit digest of n bytes folded into h (seed it, then feed each part in
 * turn): two independent 64-bit multiply-xorshift lanes, four chains over
 * 32-byte blocks so a multiply's latency does not bound it. Not
 * cryptographic; the result caches of the fake cuBLASLt and of the own-GEMM
 * twins key by it, so a collision would only serve a wrong cached product.
 */
void gbsim_hash_bytes(uint64_t h[2], const void *data, size_t n);

/*
 * Deferred writes: a library that keeps a result in its own memory and
 * copies it to the device only when someone may look (the fake cuBLASLt's
 * D, so that thousands of GEMMs into one D copy it once) registers three
 * hooks. flush(p, bytes) writes the deferred results that overlap the range
 * (NULL, 0: every one); the runtime calls it before every piece of work
 * without declared writes, on any stream, since it may read anything, and
 * work with declared writes flushes what it reads (gbsim_mem_flush).
 * forget(base, size) runs before that device range is freed (NULL, 0: every
 * deferred write, at a device reset), so nothing is written to memory that
 * is gone. content(p, bytes, digest) says whether the range is exactly one
 * deferred result, and names its content (gbsim_mem_digest). One
 * registration per process.
 */
void gbsim_set_deferred_hooks(void (*flush)(const void *p, size_t bytes),
			      void (*forget)(const void *base, size_t size),
			      bool (*content)(const void *p, size_t bytes, uint64_t digest[2]));
/* Work with declared writes that reads [p, p + bytes) of device memory: its deferred writes land first. */
void gbsim_mem_flush(const void *p, size_t bytes);
/*
 * A 128-bit name for the bytes of [p, p + bytes), within one device
 * allocation, as cheaply as it can be had: the deferred result the range
 * will hold, a digest taken earlier under the same write stamp, or else a
 * hash of the bytes (remembered with the stamp). Equal names, equal bytes
 * (up to the hash); equal bytes may have different names. false: not device
 * memory. A twin that is a pure function of what it reads memoizes its
 * answers by these names, so stress's thousands of verifications of the
 * same product cost one each.
 */
bool gbsim_mem_digest(const void *p, size_t bytes, uint64_t digest[2]);

/* The simulated clock of a device's stream at the moment the worker runs this (seconds). */
double gbsim_now_s(void);

/* Cost model: seconds a device needs for this much arithmetic and memory traffic. */
struct gbsim_cost {
	double flops;              /* useful operations (GEMM: 2mnk) */
	enum gbsim_precision prec; /* which peak the flops run at */
	double bytes;              /* device-memory bytes read plus written */
	double fixed_s;            /* extra time (a spin's wait, a latency); launch overhead is added anyway */
};
double gbsim_cost_seconds(int device, const struct gbsim_cost *c);

/*
 * For the product's report: the simulated machine's name and file,
 * "2x-rtx4090-pcie (tests/sim/machines/2x-rtx4090-pcie.json)". gpubench finds
 * it with dlsym(RTLD_DEFAULT, "gbsim_report_label"): present only in
 * gpubench-sim, so a report says host.simulated true exactly when it is.
 */
const char *gbsim_report_label(void);

/*
 * For the product's host name (cmd/launcher.c, found with dlsym as above):
 * the machine file's "hostname", or NULL when it names none. With "%r" in
 * GPUBENCH_SIM_MACHINE each rank of an mpirun on one machine is its own node.
 */
const char *gbsim_hostname(void);

/* One line on stderr, "gpubench-sim: ..." (and in the leak report at exit). */
void gbsim_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---------------------------------------------------------------- twins */

/* What a twin is handed: the launch as the host asked for it. */
struct gbsim_launch {
	const char *kernel;        /* normalised demangled name, for messages */
	dim3 grid, block;
	size_t shared_bytes;
	void **args;               /* as <<<>>> passes them: args[i] points at argument i */
	int device;
	const struct gbsim_gpu *gpu;
};

/*
 * A CPU twin of one kernel instance. `run` computes what the kernel computes
 * (every output the kernel writes, in the same bits wherever the kernel's
 * arithmetic is exactly reproducible on the CPU), checks every pointer with
 * gbsim_check_access, and fills *cost for the time model. It returns
 * cudaSuccess or the error the GPU would raise (sticky on the device).
 */
typedef cudaError_t (*gbsim_twin_fn)(const struct gbsim_launch *l, struct gbsim_cost *cost);

struct gbsim_twin {
	/*
	 * The kernel's demangled name with every "(anonymous namespace)::" and
	 * per-file "_INTERNAL_<hash>..." namespace removed, e.g.
	 * "void fill_random_kernel<float>(float*, unsigned long, unsigned long, unsigned long)"
	 */
	const char *name;
	gbsim_twin_fn run;
	/*
	 * true: run writes no device memory but what it reports with
	 * gbsim_mem_wrote, and flushes the deferred writes of what it reads
	 * (gbsim_mem_flush), so the launch keeps every other range's write stamp
	 * (gbsim_work.writes_declared). false: it may write anything.
	 */
	bool declares_writes;
};

/*
 * Each twins file defines one NULL-terminated table; tests/sim/twins/twins.h
 * lists them (GBSIM_TWIN_TABLES), and the runtime looks launches up in all of them.
 */

/*
 * The checks of a launch's shape (grid, block, dynamic shared memory, the
 * device) that a kernel, or its twin, imposes beyond the runtime's own
 * limits. The runtime runs them at the launch itself, as a GPU checks a
 * launch's configuration: an error is what the launch, cudaGetLastError
 * and cudaPeekAtLastError return, nothing is queued, and it is not sticky
 * (the context stays usable). The error is the one a GPU gives at launch:
 * cudaErrorLaunchOutOfResources above the kernel's __launch_bounds__,
 * cudaErrorNoKernelImageForDevice on a device it was not built for, and
 * cudaErrorInvalidConfiguration for a shape the kernel's indexing (or the
 * twin) does not handle. Each twins file may define one NULL-terminated
 * table of them (gbsim_twin_checks_<file>, tests/sim/twins/twins.h), keyed
 * by the twin's run function.
 */
typedef cudaError_t (*gbsim_twin_check_fn)(const struct gbsim_launch *l);

struct gbsim_twin_check {
	gbsim_twin_fn run;          /* the twin (struct gbsim_twin.run) whose launches it checks */
	gbsim_twin_check_fn check;
};

/* ---------------------------------------------------------------- numbers */

/* Conversions the twins and the fake cuBLASLt share (tests/sim/twins/sim_float.c),
 * each rounding to nearest even as the CUDA intrinsics named do. */
uint16_t gbsim_f16_from_double(double x);      /* __double2half */
uint16_t gbsim_f16_from_float(float x);        /* __float2half_rn */
float gbsim_f16_to_float(uint16_t h);
uint16_t gbsim_bf16_from_double(double x);     /* __double2bfloat16 */
uint16_t gbsim_bf16_from_float(float x);       /* __float2bfloat16_rn */
float gbsim_bf16_to_float(uint16_t h);
uint8_t gbsim_e4m3_from_double(double x);      /* __nv_fp8_e4m3(double): saturating */
uint8_t gbsim_e4m3_from_float(float x);
float gbsim_e4m3_to_float(uint8_t v);
float gbsim_tf32_round(float x);               /* what a TF32 tensor core sees of x */

#ifdef __cplusplus
}
#endif

#endif
