/* SPDX-License-Identifier: MIT */
/*
 * rt.h - internals of the simulated CUDA runtime (the .c files of tests/sim/runtime/), shared
 * by its files and by nothing else. The public face is the CUDA runtime API
 * (cuda_runtime_api.h) plus the gbsim_* functions of tests/sim/sim.h.
 *
 * Locks, in the only order they are ever nested:
 *   rt_table_lock   registries: allocations, streams, events, graphs, kernels, peers
 *   stream->lock    one stream's queue (never two stream locks at once)
 *   rt_fence_lock   fence states
 *   the simulated clock's lock (vclock.c, a leaf)
 */
#ifndef GPUBENCH_TESTS_SIM_RUNTIME_RT_H
#define GPUBENCH_TESTS_SIM_RUNTIME_RT_H

#include "tests/sim/sim.h"
#include "tests/sim/vclock.h"

#include <pthread.h>

/*
 * Time a launch or a copy within a device costs the GPU front end on top of
 * its work, seconds: the gap between back-to-back kernels or copies queued
 * ahead on one stream (1-2 us on Ampere and Hopper).
 */
#define RT_LAUNCH_OVERHEAD_S 1.5e-6

/* ---- errors.c ---- */
/* Remember err as the calling thread's last error (if it is one) and return it. */
cudaError_t rt_ret(cudaError_t err);
/* The sticky error of a device (cudaSuccess if none), and setting it. */
cudaError_t rt_sticky(int device);
void rt_set_sticky(int device, cudaError_t err, const char *what);
void rt_clear_sticky(int device);
/* Abort the process with a message: a broken invariant of the simulator itself. */
void rt_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* ---- leaks.c ---- */
/* A "hang" fault stopped a kernel on device for good: its leaks are not reported. */
void rt_mark_hung(int device);
bool rt_hung(int device);

/* ---- devices.c ---- */
extern pthread_mutex_t rt_table_lock;

/*
 * Work without declared writes is about to run, or has run (memory.c): move
 * the write epoch; before it runs, also flush the deferred writes it may read.
 */
void rt_mem_undeclared_work(bool before);
int rt_device_count(void);
bool rt_device_valid(int device);
bool rt_peer_enabled(int from, int to);
/* opt-in shared memory per block of a device, bytes */
int rt_smem_optin_bytes(int device);
void rt_reset_peers(int device);

/* ---- fences and the host clock (streams.c) ---- */
struct rt_stream;

/* Completes when one queued operation has run; carries its simulated end. */
struct rt_fence {
	int refs;
	bool done;
	double end_s;
	struct rt_stream *stream; /* whose operation it is (lazy mode releases it) */
	uint64_t seq;
};

struct rt_fence *rt_fence_ref(struct rt_fence *f);
void rt_fence_unref(struct rt_fence *f);
/*
 * Wait until f's operation has run and the simulated clock has reached its
 * end (releasing its stream in lazy mode); returns its end.
 */
double rt_fence_wait(struct rt_fence *f);
/* Non-blocking: run and reached? (in lazy mode the query releases the work first) */
bool rt_fence_poll(struct rt_fence *f, double *end_s);
/*
 * A query found f pending: let simulated time pass as a host thread that
 * spins on queries lets real time pass, up to RT_QUERY_S or f's end.
 */
void rt_query_pending(struct rt_fence *f);
#define RT_QUERY_S 5e-6
/* The simulated clock (vclock.c), when host work is queued. */
double rt_host_now(void);
/* A stream worker: a participant of the simulated clock (vclock.c). */
int rt_vc_thread_start_detached(void *(*fn)(void *), void *arg);

/* ---- streams.c ---- */

struct rt_graph;

struct rt_op {
	struct rt_op *next;
	struct gbsim_work work;     /* run == NULL: a marker (event record, wait) */
	bool keep_ctx;              /* a graph owns ctx: do not free it */
	uint64_t seq;
	double host_s;              /* the host's simulated clock when queued */
	struct rt_fence *fence;
	int ndeps;
	struct rt_fence **deps;
};

struct rt_stream {
	int id;                     /* device and creation number on it: seeds its noise */
	int device;
	unsigned int flags;         /* cudaStreamNonBlocking or default */
	bool legacy;                /* the device's stream 0 */
	bool per_thread;            /* a host thread's cudaStreamPerThread on this device */
	bool destroyed;
	const void *site;           /* who created it, for the leak report */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct rt_op *head, *tail;
	uint64_t enqueued;          /* sequence number of the last queued op */
	uint64_t released;          /* ops up to this number may run (lazy mode) */
	bool worker_started, stop;
	pthread_t worker;
	double clock_s;             /* end of the last op run (worker only) */
	struct rt_fence *last;      /* the last queued op's fence, NULL if none */
	struct rt_graph *capture;   /* being captured into, else NULL */
	struct rt_stream *next_all; /* registry list */
};

/*
 * Resolve a handle: 0 and cudaStreamLegacy are the current device's stream 0;
 * cudaStreamPerThread is the calling thread's own stream on the current device.
 */
cudaError_t rt_stream_get(cudaStream_t handle, struct rt_stream **out);
/*
 * Queue work (copied) on a stream after its implicit and explicit dependencies.
 * While the stream captures, the work goes into the graph instead.
 * *fence_out (if not NULL) receives a reference to the op's fence.
 */
cudaError_t rt_stream_enqueue(struct rt_stream *s, const struct gbsim_work *w, bool keep_ctx,
			      struct rt_fence *const *deps, int ndeps, struct rt_fence **fence_out);
/* Wait for everything queued so far on a stream; advances the host clock. */
cudaError_t rt_stream_sync(struct rt_stream *s);
/* Wait for every stream of a device. */
void rt_device_sync(int device);
/* Lazy mode: let a stream run its ops up to seq. */
void rt_stream_release(struct rt_stream *s, uint64_t seq);
/* Leak counts: live user streams per device. */
int rt_stream_leaks(int device, const void **first_site);
/* Start (g) or end (NULL) a capture; *old receives the graph it replaced. */
void rt_stream_set_capture(struct rt_stream *s, struct rt_graph *g, struct rt_graph **old);
/* Destroy every user stream of a device (cudaDeviceReset). */
void rt_streams_reset(int device);

/* ---- graphs.c ---- */
/* Record work into the graph a stream captures (called with no locks held). */
cudaError_t rt_graph_capture(struct rt_graph *g, const struct gbsim_work *w);
int rt_graph_leaks(int *execs);

/* ---- events.c ---- */
int rt_event_leaks(int device);
void rt_events_reset(int device);

/* ---- memory.c ---- */
struct rt_leak_mem {
	int count;
	size_t bytes;
	const void *first_site;
};
void rt_memory_leaks(int device, struct rt_leak_mem *dev, struct rt_leak_mem *pinned);
void rt_memory_reset(int device);

/* ---- timing.c: the cost model and noise ---- */
/* Seconds a copy of bytes takes; kinds by enum gbsim_mem_kind; devices -1 = host. */
double rt_copy_seconds(size_t bytes, int src_device, enum gbsim_mem_kind src_kind,
		       int dst_device, enum gbsim_mem_kind dst_kind);
/* 1 + noise * N(0,1), from the machine's seed, a stream and an op (deterministic) */
double rt_noise_factor(int stream_id, uint64_t seq);
/* The worker sets these around each op so gbsim_now_s answers from the stream. */
void rt_set_now(bool on_worker, double now_s);

/* Is a fault of this kind active on device now (timing.c)? launch, alloc: the
 * 1-based number of the launch or allocation being made, or -1. */
bool rt_fault_active(enum gbsim_fault_kind kind, int device, long launch, long alloc);

/* ---- launch.c, memory.c: counts per device, for fault triggers ---- */
int rt_launch_count(int device);
long rt_alloc_count(int device);

/* ---- the hidden entry points of nvcc's generated code (crt/host_runtime.h) ---- */
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
char __cudaInitModule(void **fatCubinHandle);
void __cudaUnregisterFatBinary(void **fatCubinHandle);
void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
			    const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
			    dim3 *bDim, dim3 *gDim, int *wSize);
void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
		       const char *deviceName, int ext, size_t size, int constant, int global);
unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
				     struct CUstream_st *stream);
cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
				       void *stream);
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun);
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
			       size_t sharedMem, cudaStream_t stream);

/* ---- site of a call, for leak reports ---- */
void rt_describe_site(const void *site, char *buf, size_t len);

#endif
