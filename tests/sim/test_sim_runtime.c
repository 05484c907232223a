/* SPDX-License-Identifier: MIT */
/*
 * test_sim_runtime.c - the simulated CUDA runtime (tests/sim/runtime/): stream
 * order and asynchrony, simulated event time, the spin-then-release pattern of
 * the copy benchmarks, lazy mode, strict checks with the real error codes,
 * launch checks, sticky errors and the leak report at exit.
 *
 * Scenarios that need their own process (another machine file, a poisoned
 * device, a leak) run as this program again, `test_sim_runtime SCENARIO`, with
 * GPUBENCH_SIM_MACHINE set; the parent checks the exit status and stderr.
 * Machine files come from GBSIM_MACHINES (the build sets it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/sim/sim.h"
#include "tests/sim/runtime/rt.h"
#include "tests/sim/vclock.h"

/* ---- helpers ---- */

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

struct order_ctx {
	atomic_int *log;        /* ids in the order they ran */
	atomic_int *n;
	int id;
	atomic_int *gate;       /* if not NULL, wait until it is non-zero */
};

static cudaError_t order_run(void *arg)
{
	struct order_ctx *c = arg;

	/* in simulated time, as a kernel polls: a real sleep would hold the clock for good */
	while (c->gate && !atomic_load(c->gate))
		gbsim_vc_sleep(1e-3);
	atomic_store(&c->log[atomic_fetch_add(c->n, 1)], c->id);
	return cudaSuccess;
}

static struct gbsim_work order_work(struct order_ctx *c, double seconds)
{
	struct gbsim_work w = {.what = "test order", .run = order_run, .ctx = c,
			       .seconds = seconds};

	return w;
}

static cudaError_t fail_run(void *arg)
{
	(void)arg;
	return cudaErrorIllegalAddress;
}

static const char *machine(const char *file)
{
	static char path[1024];
	const char *dir = getenv("GBSIM_MACHINES");

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : "tests/sim/machines", file);
	return path;
}

static char self_path[1024];

/* Run this program with a scenario; returns its exit status, stderr in err. */
static int run_child(const char *scenario, const char *machine_file, const char *leaks_fatal,
		     char *err, size_t len)
{
	char log[] = "/tmp/test_sim_runtime_XXXXXX";
	int fd = mkstemp(log), status = -1;
	pid_t pid;
	FILE *f;
	size_t n;

	assert_true(fd >= 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fd, 2);
		setenv("GPUBENCH_SIM_MACHINE", machine_file, 1);
		if (leaks_fatal)
			setenv("GBSIM_LEAKS_FATAL", leaks_fatal, 1);
		else
			unsetenv("GBSIM_LEAKS_FATAL");
		execl(self_path, self_path, scenario, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	f = fdopen(fd, "r");
	rewind(f);
	n = fread(err, 1, len - 1, f);
	err[n] = 0;
	fclose(f);
	unlink(log);
	fprintf(stderr, "[%s] %s", scenario, err);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* ---- in-process tests (machine: h100-sxm.json, one GPU, noise 1%) ---- */

/* Work runs on the stream's worker, after the call returned, in stream order. */
static void test_stream_async_order(void **state)
{
	atomic_int log[3] = {0}, n = 0, gate = 0;
	struct order_ctx c[3] = {{log, &n, 1, &gate}, {log, &n, 2, NULL}, {log, &n, 3, NULL}};
	cudaStream_t s;

	(void)state;
	assert_int_equal(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
	for (int i = 0; i < 3; i++) {
		struct gbsim_work w = order_work(&c[i], 1e-6);

		assert_int_equal(gbsim_enqueue(s, &w), cudaSuccess);
	}
	/* the first op waits for the host: nothing can have run yet */
	sleep_ms(20);
	assert_int_equal(atomic_load(&n), 0);
	assert_int_equal(cudaStreamQuery(s), cudaErrorNotReady);
	atomic_store(&gate, 1);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	assert_int_equal(atomic_load(&n), 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(atomic_load(&log[i]), i + 1);
	assert_int_equal(cudaStreamQuery(s), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
}

/* Events carry simulated time: 5 ms of work reads as 5 ms (noise 1%). */
static void test_event_elapsed_simulated(void **state)
{
	atomic_int log[1], n = 0;
	struct order_ctx c = {log, &n, 1, NULL};
	struct gbsim_work w = order_work(&c, 5e-3);
	cudaEvent_t a, b;
	cudaStream_t s;
	float ms = -1;
	double host_before = gbsim_now_s();

	(void)state;
	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	assert_int_equal(cudaEventCreate(&a), cudaSuccess);
	assert_int_equal(cudaEventCreate(&b), cudaSuccess);
	assert_int_equal(cudaEventRecord(a, s), cudaSuccess);
	assert_int_equal(gbsim_enqueue(s, &w), cudaSuccess);
	assert_int_equal(cudaEventRecord(b, s), cudaSuccess);
	assert_int_equal(cudaEventSynchronize(b), cudaSuccess);
	assert_int_equal(cudaEventElapsedTime(&ms, a, b), cudaSuccess);
	assert_true(ms > 4.75f && ms < 5.25f);
	/* the host's clock moved to the end of what it waited for */
	assert_true(gbsim_now_s() >= host_before + 4.75e-3);
	/* a second stream waiting on b starts after it in simulated time */
	{
		cudaStream_t t;
		cudaEvent_t c0, c1;

		assert_int_equal(cudaStreamCreate(&t), cudaSuccess);
		assert_int_equal(cudaEventCreate(&c0), cudaSuccess);
		assert_int_equal(cudaEventCreate(&c1), cudaSuccess);
		assert_int_equal(cudaEventRecord(a, s), cudaSuccess);
		w = order_work(&c, 2e-3);
		assert_int_equal(gbsim_enqueue(s, &w), cudaSuccess);
		assert_int_equal(cudaEventRecord(b, s), cudaSuccess);
		assert_int_equal(cudaStreamWaitEvent(t, b, 0), cudaSuccess);
		assert_int_equal(cudaEventRecord(c1, t), cudaSuccess);
		assert_int_equal(cudaStreamSynchronize(t), cudaSuccess);
		assert_int_equal(cudaEventElapsedTime(&ms, a, c1), cudaSuccess);
		assert_true(ms >= 1.9f);
		assert_int_equal(cudaEventDestroy(c0), cudaSuccess);
		assert_int_equal(cudaEventDestroy(c1), cudaSuccess);
		assert_int_equal(cudaStreamDestroy(t), cudaSuccess);
	}
	assert_int_equal(cudaEventDestroy(a), cudaSuccess);
	assert_int_equal(cudaEventDestroy(b), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
}

struct spin_ctx {
	volatile int *flag;
};

/* What kernels/copy.cu's spin kernel does: wait for the host through mapped memory. */
static cudaError_t spin_run(void *arg)
{
	struct spin_ctx *c = arg;

	while (!__atomic_load_n(c->flag, __ATOMIC_ACQUIRE))
		gbsim_vc_sleep(1e-3);
	return cudaSuccess;
}

/* The copy benchmarks' blocker: copies queue behind a spin the host releases. */
static void test_spin_then_release(void **state)
{
	int *flag = NULL, *flag_dev = NULL, *dst = NULL, *src_dev = NULL;
	int value = 0x5a5a5a5a;
	struct spin_ctx sc;
	struct gbsim_work spin = {.what = "spin", .run = spin_run, .ctx = &sc, .seconds = 1e-6};
	cudaStream_t s, t;
	cudaEvent_t started;

	(void)state;
	assert_int_equal(cudaHostAlloc((void **)&flag, sizeof(int),
				       cudaHostAllocMapped | cudaHostAllocPortable), cudaSuccess);
	assert_int_equal(cudaHostGetDevicePointer((void **)&flag_dev, flag, 0), cudaSuccess);
	assert_int_equal(cudaMallocHost((void **)&dst, sizeof(int)), cudaSuccess);
	assert_int_equal(cudaMalloc((void **)&src_dev, sizeof(int)), cudaSuccess);
	assert_int_equal(cudaMemcpy(src_dev, &value, sizeof(int), cudaMemcpyHostToDevice),
			 cudaSuccess);
	*flag = 0;
	*dst = 0;
	sc.flag = flag_dev;
	assert_int_equal(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
	assert_int_equal(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking), cudaSuccess);
	assert_int_equal(cudaEventCreateWithFlags(&started, cudaEventDisableTiming), cudaSuccess);
	assert_int_equal(gbsim_enqueue(s, &spin), cudaSuccess);
	assert_int_equal(cudaEventRecord(started, s), cudaSuccess);
	/* a copy on another stream, ordered after the spin by the event */
	assert_int_equal(cudaStreamWaitEvent(t, started, 0), cudaSuccess);
	assert_int_equal(cudaMemcpyAsync(dst, src_dev, sizeof(int), cudaMemcpyDeviceToHost, t),
			 cudaSuccess);
	sleep_ms(20);
	assert_int_equal(*(volatile int *)dst, 0);
	assert_int_equal(cudaEventQuery(started), cudaErrorNotReady);
	__atomic_store_n(flag, 1, __ATOMIC_RELEASE);
	assert_int_equal(cudaStreamSynchronize(t), cudaSuccess);
	assert_int_equal(*dst, value);
	assert_int_equal(cudaEventQuery(started), cudaSuccess);
	assert_int_equal(cudaEventDestroy(started), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(t), cudaSuccess);
	assert_int_equal(cudaFree(src_dev), cudaSuccess);
	assert_int_equal(cudaFreeHost(dst), cudaSuccess);
	assert_int_equal(cudaFreeHost(flag), cudaSuccess);
}

/* The legacy stream waits for blocking streams, and they for it. */
static void test_legacy_stream_order(void **state)
{
	atomic_int log[2] = {0}, n = 0, gate = 0;
	struct order_ctx first = {log, &n, 1, &gate}, second = {log, &n, 2, NULL};
	struct gbsim_work w1 = order_work(&first, 1e-6), w2 = order_work(&second, 1e-6);
	cudaStream_t s;

	(void)state;
	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	assert_int_equal(gbsim_enqueue(s, &w1), cudaSuccess);
	assert_int_equal(gbsim_enqueue(NULL, &w2), cudaSuccess);
	sleep_ms(20);
	assert_int_equal(atomic_load(&n), 0);
	atomic_store(&gate, 1);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	assert_int_equal(atomic_load(&log[0]), 1);
	assert_int_equal(atomic_load(&log[1]), 2);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
}

static void test_strict_memory_errors(void **state)
{
	int host[64] = {0};
	int *dev = NULL, *pinned = NULL;
	size_t free_b = 0, total_b = 0, free_after = 0;

	(void)state;
	assert_int_equal(cudaMemGetInfo(&free_b, &total_b), cudaSuccess);
	assert_int_equal(total_b, gbsim_machine()->gpus[0].memory_bytes);
	assert_int_equal(cudaMalloc((void **)&dev, sizeof(host)), cudaSuccess);
	assert_int_equal(cudaMemGetInfo(&free_after, &total_b), cudaSuccess);
	assert_true(free_after < free_b);
	assert_int_equal(gbsim_mem_kind(dev, sizeof(host), NULL), GBSIM_MEM_DEVICE);
	assert_int_equal(gbsim_mem_kind(dev, sizeof(host) + 1, NULL), GBSIM_MEM_UNKNOWN);
	/* kinds against the pointers' real kinds */
	assert_int_equal(cudaMemcpy(host, dev, sizeof(host), cudaMemcpyHostToDevice),
			 cudaErrorInvalidValue);
	assert_int_equal(cudaMemcpy(dev, host, sizeof(host), cudaMemcpyDeviceToHost),
			 cudaErrorInvalidValue);
	assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
	assert_int_equal(cudaGetLastError(), cudaSuccess);
	assert_int_equal(cudaMemcpy(dev, host, sizeof(host) + 4, cudaMemcpyHostToDevice),
			 cudaErrorInvalidValue);
	assert_int_equal(cudaMemcpy(dev, host, sizeof(host), cudaMemcpyDefault), cudaSuccess);
	/* a kernel on GPU 0 may not touch pageable memory */
	assert_int_equal(gbsim_check_access(0, host, sizeof(host), "test"), cudaErrorIllegalAddress);
	assert_int_equal(gbsim_check_access(0, dev, sizeof(host), "test"), cudaSuccess);
	/* use after free, double free */
	assert_int_equal(cudaFree(dev), cudaSuccess);
	assert_int_equal(gbsim_mem_kind(dev, 4, NULL), GBSIM_MEM_FREED);
	assert_int_equal(cudaMemcpy(host, dev, sizeof(host), cudaMemcpyDeviceToHost),
			 cudaErrorInvalidValue);
	assert_int_equal(gbsim_check_access(0, dev, 4, "test"), cudaErrorIllegalAddress);
	assert_int_equal(cudaFree(dev), cudaErrorInvalidValue);
	assert_int_equal(cudaFree(host), cudaErrorInvalidValue);
	/* pinned memory is freed with cudaFreeHost only */
	assert_int_equal(cudaMallocHost((void **)&pinned, 64), cudaSuccess);
	assert_int_equal(cudaFree(pinned), cudaErrorInvalidValue);
	assert_int_equal(cudaFreeHost(pinned), cudaSuccess);
	(void)cudaGetLastError();
}

static void test_strict_handle_errors(void **state)
{
	cudaStream_t s;
	cudaEvent_t e;
	int count = 0;
	float ms;

	(void)state;
	assert_int_equal(cudaGetDeviceCount(&count), cudaSuccess);
	assert_int_equal(count, 1);
	assert_int_equal(cudaSetDevice(count), cudaErrorInvalidDevice);
	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	assert_int_equal(cudaEventCreate(&e), cudaSuccess);
	assert_int_equal(cudaEventElapsedTime(&ms, e, e), cudaErrorInvalidResourceHandle);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s), cudaErrorInvalidResourceHandle);
	assert_int_equal(cudaEventRecord(e, s), cudaErrorInvalidResourceHandle);
	assert_int_equal(cudaStreamDestroy(s), cudaErrorInvalidResourceHandle);
	assert_int_equal(cudaEventDestroy(e), cudaSuccess);
	assert_int_equal(cudaEventRecord(e, NULL), cudaErrorInvalidResourceHandle);
	assert_int_equal(cudaEventQuery(e), cudaErrorInvalidResourceHandle);
	assert_string_equal(cudaGetErrorName(cudaErrorIllegalAddress), "cudaErrorIllegalAddress");
	assert_string_equal(cudaGetErrorString(cudaErrorInvalidValue), "invalid argument");
	(void)cudaGetLastError();
}

/* a kernel registered as nvcc's generated code registers one; its twin exists */
static void fake_stub(void)
{
}

static void test_launch_checks(void **state)
{
	static char fatbin[16];
	void **h = __cudaRegisterFatBinary(fatbin);
	cudaKernel_t k = NULL;
	void *dst = NULL, *src = NULL;
	unsigned long words = 0;
	void *args[3] = {&dst, &src, &words};
	dim3 one = {1, 1, 1}, big_block = {2048, 1, 1}, tall_grid = {1, 70000, 1};

	(void)state;
	__cudaRegisterFunction(h, (const char *)fake_stub, (char *)"_Z14sm_copy_kernelP5uint4PKS_m",
			       "_Z14sm_copy_kernelP5uint4PKS_m", -1, NULL, NULL, NULL, NULL, NULL);
	__cudaRegisterFatBinaryEnd(h);
	assert_int_equal(__cudaGetKernel(&k, (const void *)fake_stub), cudaSuccess);
	assert_int_equal(__cudaLaunchKernel(k, one, big_block, args, 0, NULL),
			 cudaErrorInvalidConfiguration);
	assert_int_equal(cudaGetLastError(), cudaErrorInvalidConfiguration);
	assert_int_equal(__cudaLaunchKernel(k, tall_grid, one, args, 0, NULL),
			 cudaErrorInvalidConfiguration);
	assert_int_equal(__cudaLaunchKernel(k, one, one, args, 64 * 1024, NULL),
			 cudaErrorInvalidValue);
	assert_int_equal(cudaFuncSetAttribute((const void *)fake_stub,
					      cudaFuncAttributeMaxDynamicSharedMemorySize, 300 * 1024),
			 cudaErrorInvalidValue);
	assert_int_equal(cudaFuncSetAttribute((const void *)fake_stub,
					      cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024),
			 cudaSuccess);
	assert_int_equal(__cudaLaunchKernel(k, one, one, args, 64 * 1024, NULL), cudaSuccess);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	(void)cudaGetLastError();
}

static cudaError_t nothing_run(void *arg)
{
	(void)arg;
	return cudaSuccess;
}

/* a write stamp taken now, which must differ from *old (and becomes it) */
static void expect_stamp_moved(void *p, size_t bytes, struct gbsim_mem_stamp *old)
{
	struct gbsim_mem_stamp now;

	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	assert_true(gbsim_mem_stamp(p, bytes, &now));
	assert_false(now.epoch == old->epoch && now.version == old->version);
	*old = now;
}

/* every write path moves the stamp the fake cuBLASLt trusts (sim.h) */
static void test_write_stamps(void **state)
{
	struct gbsim_work declared = {.what = "declared", .run = nothing_run, .seconds = 1e-6,
				      .writes_declared = true};
	struct gbsim_work undeclared = {.what = "undeclared", .run = nothing_run,
					.seconds = 1e-6};
	struct gbsim_mem_stamp st, again;
	char host[256] = {0};
	void *d, *other;

	(void)state;
	assert_int_equal(cudaMalloc(&d, sizeof(host)), cudaSuccess);
	assert_int_equal(cudaMalloc(&other, sizeof(host)), cudaSuccess);
	assert_true(gbsim_mem_stamp(d, sizeof(host), &st));
	/* nothing written: the same stamp, also after work that declares no write */
	assert_int_equal(gbsim_enqueue(NULL, &declared), cudaSuccess);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	assert_true(gbsim_mem_stamp(d, sizeof(host), &again));
	assert_true(again.epoch == st.epoch && again.version == st.version);
	assert_int_equal(cudaMemcpy(d, host, sizeof(host), cudaMemcpyHostToDevice), cudaSuccess);
	expect_stamp_moved(d, sizeof(host), &st);
	assert_int_equal(cudaMemset(d, 1, sizeof(host)), cudaSuccess);
	expect_stamp_moved(d, sizeof(host), &st);
	assert_int_equal(cudaMemcpy(d, other, sizeof(host), cudaMemcpyDeviceToDevice), cudaSuccess);
	expect_stamp_moved(d, sizeof(host), &st);
	/* queued work without a declared write set (kernels, NCCL) may write anything */
	assert_int_equal(gbsim_enqueue(NULL, &undeclared), cudaSuccess);
	expect_stamp_moved(d, sizeof(host), &st);
	gbsim_mem_wrote((char *)d + 8, 0);
	expect_stamp_moved(d, sizeof(host), &st);
	/* only within one live device allocation */
	assert_false(gbsim_mem_stamp(host, sizeof(host), &again));
	assert_false(gbsim_mem_stamp(d, sizeof(host) + 1, &again));
	assert_int_equal(cudaFree(d), cudaSuccess);
	assert_false(gbsim_mem_stamp(d, 1, &again));
	assert_int_equal(cudaFree(other), cudaSuccess);
}

/*
 * A device-to-device copy that ran last with neither end written since is
 * not done again (memory.c's copy memo): a byte poked behind the
 * simulator's back shows that it was skipped. Any seen write to either end
 * (a copy, a memset, undeclared work) makes the copy run again.
 */
static void test_copy_memo(void **state)
{
	struct gbsim_work undeclared = {.what = "undeclared", .run = nothing_run,
					.seconds = 1e-6};
	unsigned char host[4096], back[4096];
	unsigned char *src, *dst, *other;
	size_t n = sizeof(host);

	(void)state;
	for (size_t i = 0; i < n; i++)
		host[i] = (unsigned char)(i * 7 + 1);
	assert_int_equal(cudaMalloc((void **)&src, n), cudaSuccess);
	assert_int_equal(cudaMalloc((void **)&dst, n), cudaSuccess);
	assert_int_equal(cudaMalloc((void **)&other, n), cudaSuccess);
	assert_int_equal(cudaMemcpy(src, host, n, cudaMemcpyHostToDevice), cudaSuccess);
	/* device to device, cudaMemcpy does not wait (docs/simulation.md): sync to look */
	assert_int_equal(cudaMemcpy(dst, src, n, cudaMemcpyDeviceToDevice), cudaSuccess);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	assert_memory_equal(dst, host, n);
	/* unseen: the repeated copy is skipped and leaves the poke */
	dst[5] ^= 0xff;
	assert_int_equal(cudaMemcpy(dst, src, n, cudaMemcpyDeviceToDevice), cudaSuccess);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	assert_int_equal(dst[5], host[5] ^ 0xff);
	/* a declared write to the source (a copy into it): copied again */
	assert_int_equal(cudaMemcpy(other, src, n, cudaMemcpyDeviceToDevice), cudaSuccess);
	assert_int_equal(cudaMemcpy(src, other, n, cudaMemcpyDeviceToDevice), cudaSuccess);
	assert_int_equal(cudaMemcpy(dst, src, n, cudaMemcpyDeviceToDevice), cudaSuccess);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	assert_memory_equal(dst, host, n);
	/* a memset of the destination: copied again */
	assert_int_equal(cudaMemset(dst, 0, n), cudaSuccess);
	assert_int_equal(cudaMemcpy(dst, src, n, cudaMemcpyDeviceToDevice), cudaSuccess);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	assert_memory_equal(dst, host, n);
	/* work that may write anything (a kernel): copied again */
	dst[9] ^= 0xff;
	assert_int_equal(gbsim_enqueue(NULL, &undeclared), cudaSuccess);
	assert_int_equal(cudaMemcpy(dst, src, n, cudaMemcpyDeviceToDevice), cudaSuccess);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	assert_memory_equal(dst, host, n);
	/* another size is another copy */
	dst[0] ^= 0xff;
	assert_int_equal(cudaMemcpy(dst, src, n / 2, cudaMemcpyDeviceToDevice), cudaSuccess);
	assert_int_equal(cudaMemcpy(back, dst, n, cudaMemcpyDeviceToHost), cudaSuccess);
	assert_memory_equal(back, host, n);
	assert_int_equal(cudaFree(src), cudaSuccess);
	assert_int_equal(cudaFree(dst), cudaSuccess);
	assert_int_equal(cudaFree(other), cudaSuccess);
}

/* ---- CUDA's semantics where the simulator once differed (issue 25) ---- */

static void flip_stub(void)
{
}

/*
 * A launch the configuration makes impossible fails at the launch, with the
 * error a GPU gives there, and leaves the context usable: the error is the
 * calling thread's last error (peeked, then taken once), never sticky, and
 * the next launch, allocation and synchronisation succeed. That holds for
 * the runtime's own limits and for a twin's shape rules (flip_kernel runs
 * one thread: its twin's check, tests/sim/twins/twins_stress.c).
 */
static void test_launch_error_not_sticky(void **state)
{
	static char fatbin[16];
	void **h = __cudaRegisterFatBinary(fatbin);
	cudaKernel_t copy = NULL, flip = NULL;
	void *dst = NULL, *src = NULL, *p = NULL;
	unsigned long words = 0, index = 0;
	int half = 0;
	unsigned long long *out = NULL;
	void *copy_args[3] = {&dst, &src, &words};
	void *flip_args[4] = {&dst, &half, &index, &out};
	dim3 one = {1, 1, 1}, zero_grid = {0, 1, 1}, big_block = {1025, 1, 1};
	dim3 wide_grid = {1, 1, 65536}, two = {2, 1, 1};

	(void)state;
	__cudaRegisterFunction(h, (const char *)fake_stub, (char *)"_Z14sm_copy_kernelP5uint4PKS_m",
			       "_Z14sm_copy_kernelP5uint4PKS_m", -1, NULL, NULL, NULL, NULL, NULL);
	__cudaRegisterFunction(h, (const char *)flip_stub, (char *)"_Z11flip_kernelPvimPy",
			       "_Z11flip_kernelPvimPy", -1, NULL, NULL, NULL, NULL, NULL);
	__cudaRegisterFatBinaryEnd(h);
	assert_int_equal(__cudaGetKernel(&copy, (const void *)fake_stub), cudaSuccess);
	assert_int_equal(__cudaGetKernel(&flip, (const void *)flip_stub), cudaSuccess);
	assert_int_equal(cudaGetLastError(), cudaSuccess);
	/* the runtime's limits: grid 0 or too large, block too large, shared memory */
	assert_int_equal(__cudaLaunchKernel(copy, zero_grid, one, copy_args, 0, NULL),
			 cudaErrorInvalidConfiguration);
	assert_int_equal(cudaPeekAtLastError(), cudaErrorInvalidConfiguration);
	assert_int_equal(cudaPeekAtLastError(), cudaErrorInvalidConfiguration);
	assert_int_equal(cudaGetLastError(), cudaErrorInvalidConfiguration);
	assert_int_equal(cudaGetLastError(), cudaSuccess);
	assert_int_equal(__cudaLaunchKernel(copy, wide_grid, one, copy_args, 0, NULL),
			 cudaErrorInvalidConfiguration);
	assert_int_equal(__cudaLaunchKernel(copy, one, big_block, copy_args, 0, NULL),
			 cudaErrorInvalidConfiguration);
	assert_int_equal(__cudaLaunchKernel(copy, one, one, copy_args, 200 * 1024, NULL),
			 cudaErrorInvalidValue);
	assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
	/* the twin's shape rule, at the launch too: two threads for a one-thread kernel */
	assert_int_equal(__cudaLaunchKernel(flip, one, two, flip_args, 0, NULL),
			 cudaErrorInvalidConfiguration);
	assert_int_equal(cudaPeekAtLastError(), cudaErrorInvalidConfiguration);
	assert_int_equal(cudaGetLastError(), cudaErrorInvalidConfiguration);
	/* nothing was queued, and nothing sticks */
	assert_int_equal(cudaStreamQuery(NULL), cudaSuccess);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	assert_int_equal(cudaGetLastError(), cudaSuccess);
	assert_int_equal(cudaMalloc(&p, 64), cudaSuccess);
	assert_int_equal(__cudaLaunchKernel(copy, one, one, copy_args, 0, NULL), cudaSuccess);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	assert_int_equal(cudaGetLastError(), cudaSuccess);
	assert_int_equal(cudaFree(p), cudaSuccess);
}

/*
 * cudaMemcpy from device memory to device memory performs no host-side
 * synchronisation (the CUDA docs' "API synchronization behavior"): it
 * returns at once, in simulated time, before the copy's simulated end; the
 * copy is ordered on the legacy stream, so a synchronisation, or a later
 * copy to the host, sees it done. (The lazy scenario shows the bytes unmoved
 * until then.)
 */
static void test_memcpy_d2d_async(void **state)
{
	const size_t n = 64u << 20;
	/* the cost model's copy within a device (docs/simulation.md), memory efficiency 0.9 */
	const double copy_s =
		RT_LAUNCH_OVERHEAD_S + 2.0 * n / (gbsim_machine()->gpus[0].mem_bw_bps * 0.9);
	unsigned char *src, *dst, tail[16];
	double before, after;

	(void)state;
	assert_true(copy_s > 20e-6); /* 64 MiB within an H100: tens of microseconds */
	assert_int_equal(cudaMalloc((void **)&src, n), cudaSuccess);
	assert_int_equal(cudaMalloc((void **)&dst, n), cudaSuccess);
	assert_int_equal(cudaMemset(src, 0x3c, n), cudaSuccess);
	assert_int_equal(cudaMemset(dst, 0, n), cudaSuccess);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	before = gbsim_now_s();
	assert_int_equal(cudaMemcpy(dst, src, n, cudaMemcpyDeviceToDevice), cudaSuccess);
	after = gbsim_now_s();
	assert_true(after < before + copy_s / 2);
	assert_int_equal(cudaStreamQuery(NULL), cudaErrorNotReady);
	assert_int_equal(cudaMemcpy(tail, dst + n - sizeof(tail), sizeof(tail),
				    cudaMemcpyDeviceToHost), cudaSuccess);
	/* the copy to the host waited for the copy before it on the legacy stream */
	assert_true(gbsim_now_s() >= before + 0.95 * copy_s);
	for (size_t i = 0; i < sizeof(tail); i++)
		assert_int_equal(tail[i], 0x3c);
	/* and cudaMemcpyDefault between two device pointers alike */
	assert_int_equal(cudaMemset(dst, 0, n), cudaSuccess);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	before = gbsim_now_s();
	assert_int_equal(cudaMemcpy(dst, src, n, cudaMemcpyDefault), cudaSuccess);
	assert_true(gbsim_now_s() < before + copy_s / 2);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	assert_true(gbsim_now_s() >= before + 0.95 * copy_s);
	assert_int_equal(dst[n / 2], 0x3c);
	assert_int_equal(cudaFree(src), cudaSuccess);
	assert_int_equal(cudaFree(dst), cudaSuccess);
}

static void test_report_label(void **state)
{
	(void)state;
	assert_non_null(strstr(gbsim_report_label(), gbsim_machine()->name));
	assert_non_null(strstr(gbsim_report_label(), ".json"));
}

/* ---- tests in a child process ---- */

static void test_leak_report(void **state)
{
	char err[4096];

	(void)state;
	assert_int_equal(run_child("leak", machine("h100-sxm.json"), "1", err, sizeof(err)), 99);
	assert_non_null(strstr(err, "leak: 2 device allocations (3.0 MiB) on GPU 0, first from"));
	assert_non_null(strstr(err, "leak: 1 stream on GPU 0"));
	assert_non_null(strstr(err, "leak: 1 pinned host allocation"));
	assert_int_equal(run_child("leak", machine("h100-sxm.json"), NULL, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "leak: 2 device allocations"));
	assert_int_equal(run_child("clean", machine("h100-sxm.json"), "1", err, sizeof(err)), 0);
	assert_null(strstr(err, "leak"));
}

static void test_sticky_error(void **state)
{
	char err[4096];

	(void)state;
	assert_int_equal(run_child("sticky", machine("h100-sxm.json"), "1", err, sizeof(err)), 0);
	assert_non_null(strstr(err, "sticky"));
}

static void test_peer_checks(void **state)
{
	char err[4096];

	(void)state;
	assert_int_equal(run_child("peer", machine("2x-a100-nvlink.json"), "1", err, sizeof(err)), 0);
	assert_non_null(strstr(err, "without peer access"));
}

static void test_lazy_mode(void **state)
{
	char path[] = "/tmp/test_sim_lazy_XXXXXX.json", err[4096];
	int fd = mkstemps(path, 5);
	const char *json = "{\"name\": \"lazy-h100\", \"lazy\": true, \"noise\": 0,"
			   " \"gpus\": [{\"model\": \"h100-sxm\", \"memory\": \"256M\"}]}";

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, json, strlen(json)), (ssize_t)strlen(json));
	close(fd);
	assert_int_equal(run_child("lazy", path, "1", err, sizeof(err)), 0);
	assert_int_equal(run_child("lazy_d2d", path, "1", err, sizeof(err)), 0);
	unlink(path);
}

static void test_per_thread_stream(void **state)
{
	char err[4096];

	(void)state;
	assert_int_equal(run_child("per_thread", machine("h100-sxm.json"), "1", err, sizeof(err)),
			 0);
	assert_null(strstr(err, "leak"));
}

static void test_faults(void **state)
{
	char path[] = "/tmp/test_sim_faults_XXXXXX.json", err[4096];
	int fd = mkstemps(path, 5);
	const char *json = "{\"name\": \"faulty-h100\", \"noise\": 0,"
			   " \"gpus\": [{\"model\": \"h100-sxm\", \"memory\": \"256M\"}],"
			   " \"faults\": [{\"kind\": \"oom\", \"gpu\": 0, \"after_allocs\": 2},"
			   " {\"kind\": \"slow\", \"gpu\": 0, \"value\": 50}]}";

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, json, strlen(json)), (ssize_t)strlen(json));
	close(fd);
	assert_int_equal(run_child("faults", path, "1", err, sizeof(err)), 0);
	assert_non_null(strstr(err, "fault 'oom'"));
	unlink(path);
}

/* ---- child scenarios; exit status 0 = as expected ---- */

#define CHECK(cond)                                                                  \
	do {                                                                         \
		if (!(cond)) {                                                       \
			fprintf(stderr, "check failed at line %d: %s\n", __LINE__, #cond); \
			return 1;                                                    \
		}                                                                    \
	} while (0)

static int scenario_leak(void)
{
	void *a, *b, *p;
	cudaStream_t s;

	CHECK(cudaMalloc(&a, 1 << 20) == cudaSuccess);
	CHECK(cudaMalloc(&b, 2 << 20) == cudaSuccess);
	CHECK(cudaMallocHost(&p, 4096) == cudaSuccess);
	CHECK(cudaStreamCreate(&s) == cudaSuccess);
	return 0; /* nothing released: the report at exit must say so */
}

static int scenario_clean(void)
{
	void *a;
	cudaStream_t s;

	CHECK(cudaMalloc(&a, 1 << 20) == cudaSuccess);
	CHECK(cudaStreamCreate(&s) == cudaSuccess);
	CHECK(cudaStreamDestroy(s) == cudaSuccess);
	CHECK(cudaFree(a) == cudaSuccess);
	return 0;
}

static int scenario_sticky(void)
{
	struct gbsim_work w = {.what = "a faulting kernel", .run = fail_run, .seconds = 1e-6};
	void *p = NULL;

	CHECK(gbsim_enqueue(NULL, &w) == cudaSuccess);
	CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
	CHECK(cudaMalloc(&p, 64) == cudaErrorIllegalAddress);
	CHECK(cudaGetLastError() == cudaErrorIllegalAddress);
	CHECK(cudaGetLastError() == cudaErrorIllegalAddress); /* sticky: never clears */
	CHECK(cudaDeviceReset() == cudaSuccess);
	CHECK(cudaMalloc(&p, 64) == cudaSuccess);
	CHECK(cudaFree(p) == cudaSuccess);
	return 0;
}

static int scenario_peer(void)
{
	void *d0, *d1;
	cudaEvent_t e1;
	int can = 0;

	CHECK(cudaMalloc(&d0, 256) == cudaSuccess);
	CHECK(cudaSetDevice(1) == cudaSuccess);
	CHECK(cudaMalloc(&d1, 256) == cudaSuccess);
	CHECK(cudaEventCreate(&e1) == cudaSuccess);
	CHECK(cudaSetDevice(0) == cudaSuccess);
	/* an event of GPU 1 recorded on GPU 0's stream */
	CHECK(cudaEventRecord(e1, NULL) == cudaErrorInvalidResourceHandle);
	CHECK(cudaDeviceCanAccessPeer(&can, 0, 1) == cudaSuccess && can == 1);
	CHECK(gbsim_check_access(0, d1, 256, "test") == cudaErrorIllegalAddress);
	CHECK(cudaDeviceEnablePeerAccess(1, 0) == cudaSuccess);
	CHECK(cudaDeviceEnablePeerAccess(1, 0) == cudaErrorPeerAccessAlreadyEnabled);
	CHECK(gbsim_check_access(0, d1, 256, "test") == cudaSuccess);
	CHECK(gbsim_check_access(1, d0, 256, "test") == cudaErrorIllegalAddress);
	CHECK(cudaMemcpyPeerAsync(d1, 1, d0, 0, 256, NULL) == cudaSuccess);
	CHECK(cudaMemcpyPeerAsync(d1, 0, d0, 0, 256, NULL) == cudaErrorInvalidValue);
	CHECK(cudaDeviceSynchronize() == cudaSuccess);
	CHECK(cudaDeviceDisablePeerAccess(1) == cudaSuccess);
	CHECK(cudaEventDestroy(e1) == cudaSuccess);
	CHECK(cudaFree(d0) == cudaSuccess);
	CHECK(cudaFree(d1) == cudaSuccess);
	return 0;
}

/* Lazy mode: queued copies run only when the host synchronises. */
static int scenario_lazy(void)
{
	int *pinned_src, *pinned_dst, *dev;
	cudaStream_t s;

	CHECK(gbsim_machine()->lazy);
	CHECK(cudaMallocHost((void **)&pinned_src, 4) == cudaSuccess);
	CHECK(cudaMallocHost((void **)&pinned_dst, 4) == cudaSuccess);
	CHECK(cudaMalloc((void **)&dev, 4) == cudaSuccess);
	CHECK(cudaStreamCreate(&s) == cudaSuccess);
	*pinned_src = 42;
	*pinned_dst = 0;
	CHECK(cudaMemcpyAsync(dev, pinned_src, 4, cudaMemcpyHostToDevice, s) == cudaSuccess);
	CHECK(cudaMemcpyAsync(pinned_dst, dev, 4, cudaMemcpyDeviceToHost, s) == cudaSuccess);
	sleep_ms(30);
	CHECK(*(volatile int *)pinned_dst == 0); /* a missing synchronisation reads stale data */
	CHECK(cudaStreamSynchronize(s) == cudaSuccess);
	CHECK(*pinned_dst == 42);
	CHECK(cudaStreamDestroy(s) == cudaSuccess);
	CHECK(cudaFree(dev) == cudaSuccess);
	CHECK(cudaFreeHost(pinned_src) == cudaSuccess);
	CHECK(cudaFreeHost(pinned_dst) == cudaSuccess);
	return 0;
}

/*
 * Lazy mode shows that cudaMemcpy device to device does not synchronise the
 * host: nothing queued runs until the host synchronises, so the destination
 * still holds its old bytes when the call returns, and the copy's bytes
 * after a synchronisation. (A cudaMemcpy that waited would have run it.)
 */
static int scenario_lazy_d2d(void)
{
	int *a, *b, *pinned;

	CHECK(gbsim_machine()->lazy);
	CHECK(cudaMalloc((void **)&a, 4) == cudaSuccess);
	CHECK(cudaMalloc((void **)&b, 4) == cudaSuccess);
	CHECK(cudaMallocHost((void **)&pinned, 4) == cudaSuccess);
	*pinned = 42;
	CHECK(cudaMemcpy(a, pinned, 4, cudaMemcpyHostToDevice) == cudaSuccess);
	CHECK(cudaMemset(b, 0, 4) == cudaSuccess);
	CHECK(cudaDeviceSynchronize() == cudaSuccess);
	CHECK(*(volatile int *)a == 42 && *(volatile int *)b == 0);
	CHECK(cudaMemcpy(b, a, 4, cudaMemcpyDeviceToDevice) == cudaSuccess);
	sleep_ms(30);
	CHECK(*(volatile int *)b == 0); /* queued, not run: the host was not synchronised */
	CHECK(cudaDeviceSynchronize() == cudaSuccess);
	CHECK(*(volatile int *)b == 42);
	/* a copy to the host is ordered after it on the legacy stream */
	CHECK(cudaMemcpy(b, pinned, 4, cudaMemcpyHostToDevice) == cudaSuccess);
	*pinned = 7;
	CHECK(cudaMemcpy(a, pinned, 4, cudaMemcpyHostToDevice) == cudaSuccess);
	CHECK(cudaMemcpy(b, a, 4, cudaMemcpyDeviceToDevice) == cudaSuccess);
	*pinned = 0;
	CHECK(cudaMemcpy(pinned, b, 4, cudaMemcpyDeviceToHost) == cudaSuccess);
	CHECK(*pinned == 7);
	CHECK(cudaFree(a) == cudaSuccess && cudaFree(b) == cudaSuccess);
	CHECK(cudaFreeHost(pinned) == cudaSuccess);
	return 0;
}

/*
 * Does the stream's work complete within 5 ms of simulated time (1000
 * queries, each letting 5 us pass)? Never waits for good, so a stream that
 * wrongly waits for gated work fails the check instead of hanging.
 */
static bool completes(cudaStream_t s)
{
	for (int i = 0; i < 1000; i++)
		if (cudaStreamQuery(s) == cudaSuccess)
			return true;
	return false;
}

struct per_thread_ctx {
	atomic_int *log, *n;
	cudaError_t sync;
	int done_before_gate; /* the other thread's gated op had not run when this one synced */
	atomic_int *gate;
};

/* Another host thread: its cudaStreamPerThread is its own, so it does not wait for ours. */
static void *per_thread_other(void *arg)
{
	struct per_thread_ctx *p = arg;
	struct order_ctx c = {p->log, p->n, 9, NULL};
	struct gbsim_work w = order_work(&c, 1e-6);

	p->sync = gbsim_enqueue(cudaStreamPerThread, &w);
	if (p->sync == cudaSuccess && !completes(cudaStreamPerThread))
		p->sync = cudaErrorNotReady;
	p->done_before_gate = !atomic_load(p->gate);
	return NULL;
}

/*
 * cudaStreamPerThread is a stream of each host thread's own: not the legacy
 * stream (a user blocking stream does not wait for it, nor it for that
 * stream), another thread's per-thread stream runs past it, but the legacy
 * stream still waits for it, as the CUDA docs say of the per-thread default
 * stream. It is no leak (the parent sets GBSIM_LEAKS_FATAL).
 */
static int scenario_per_thread(void)
{
	atomic_int log[4] = {0}, n = 0, gate = 0;
	struct order_ctx gated = {log, &n, 1, &gate}, user = {log, &n, 2, NULL};
	struct order_ctx legacy_op = {log, &n, 3, NULL};
	struct gbsim_work w1 = order_work(&gated, 1e-6), w2 = order_work(&user, 1e-6);
	struct gbsim_work w3 = order_work(&legacy_op, 1e-6);
	struct per_thread_ctx other = {log, &n, cudaErrorUnknown, 0, &gate};
	cudaStream_t s;
	pthread_t t;

	CHECK(cudaStreamCreate(&s) == cudaSuccess);
	CHECK(gbsim_enqueue(cudaStreamPerThread, &w1) == cudaSuccess);
	/* a blocking user stream runs past it: it is not the legacy stream */
	CHECK(gbsim_enqueue(s, &w2) == cudaSuccess);
	if (!completes(s))
		atomic_store(&gate, 1); /* let the gated work end, so the process can */
	CHECK(!atomic_load(&gate));
	CHECK(atomic_load(&n) == 1 && atomic_load(&log[0]) == 2);
	CHECK(cudaStreamQuery(cudaStreamPerThread) == cudaErrorNotReady);
	/* another thread's per-thread stream is another stream */
	CHECK(gbsim_vc_thread_start(&t, per_thread_other, &other) == 0);
	CHECK(gbsim_vc_thread_join(t, INFINITY));
	if (other.sync != cudaSuccess)
		atomic_store(&gate, 1);
	CHECK(other.sync == cudaSuccess && other.done_before_gate);
	CHECK(atomic_load(&n) == 2 && atomic_load(&log[1]) == 9);
	/* the legacy stream waits for it */
	CHECK(gbsim_enqueue(NULL, &w3) == cudaSuccess);
	CHECK(cudaStreamQuery(NULL) == cudaErrorNotReady);
	CHECK(atomic_load(&n) == 2);
	atomic_store(&gate, 1);
	CHECK(cudaStreamSynchronize(NULL) == cudaSuccess);
	CHECK(atomic_load(&n) == 4 && atomic_load(&log[2]) == 1 && atomic_load(&log[3]) == 3);
	CHECK(cudaStreamSynchronize(cudaStreamPerThread) == cudaSuccess);
	CHECK(cudaStreamDestroy(cudaStreamPerThread) == cudaErrorInvalidResourceHandle);
	(void)cudaGetLastError();
	CHECK(cudaStreamDestroy(s) == cudaSuccess);
	return 0;
}

/* oom after 2 allocations; slow: the GPU at half speed in the cost model */
static int scenario_faults(void)
{
	const struct gbsim_gpu *g = &gbsim_machine()->gpus[0];
	struct gbsim_cost c = {.bytes = 1e9};
	double expect = 1e9 / (g->mem_bw_bps * 0.5 * 0.9) + RT_LAUNCH_OVERHEAD_S;
	void *a, *b, *x;

	CHECK(cudaMalloc(&a, 64) == cudaSuccess);
	CHECK(cudaMalloc(&b, 64) == cudaSuccess);
	CHECK(cudaMalloc(&x, 64) == cudaErrorMemoryAllocation);
	CHECK(cudaFree(a) == cudaSuccess && cudaFree(b) == cudaSuccess);
	CHECK(gbsim_cost_seconds(0, &c) > expect * 0.999 && gbsim_cost_seconds(0, &c) < expect * 1.001);
	return 0;
}

/* ---- peer access is one way (added with issue 25) ---- */

/* Simulated seconds of one cudaMemcpyPeerAsync of bytes from src to dst, on GPU 0's stream. */
static double timed_peer_copy_s(void *dst, int dst_dev, const void *src, int src_dev, size_t bytes)
{
	cudaEvent_t a, b;
	float ms = -1;

	if (cudaSetDevice(0) != cudaSuccess || cudaEventCreate(&a) != cudaSuccess ||
	    cudaEventCreate(&b) != cudaSuccess)
		return -1;
	cudaEventRecord(a, NULL);
	if (cudaMemcpyPeerAsync(dst, dst_dev, src, src_dev, bytes, NULL) != cudaSuccess)
		ms = -1;
	cudaEventRecord(b, NULL);
	if (cudaEventSynchronize(b) != cudaSuccess || cudaEventElapsedTime(&ms, a, b) != cudaSuccess)
		ms = -1;
	cudaEventDestroy(a);
	cudaEventDestroy(b);
	return ms / 1e3;
}

/* within 5% (the machine's noise is 1%) */
static bool near(double got, double want)
{
	return got > 0.95 * want && got < 1.05 * want;
}

/*
 * cudaDeviceEnablePeerAccess(1) on GPU 0 opens 0 -> 1 only: a copy from GPU 0
 * to GPU 1 runs over NVLink, the copy back is staged through the host (and
 * costs so), and a kernel on GPU 1 may not touch GPU 0's memory. Once GPU 1
 * enables its side too, both directions are peer copies. The expected times
 * are the cost model's (docs/simulation.md) from the machine file: 12 NVLink
 * 3 links of 25 GB/s at efficiency 0.85, PCIe Gen4 x16 staged at half.
 */
static int scenario_peer_one_way(void)
{
	const size_t bytes = 16u << 20;
	const double nvlink_s = 10e-6 + bytes / (0.85 * 12 * 25e9);
	const double staged_s = 20e-6 + bytes / (0.5 * 16 * 16e9 * 128 / 130 / 8);
	void *d0, *d1;

	CHECK(gbsim_machine()->nvlinks[0][1] == 12 && gbsim_machine()->nvlink_gen == 3);
	CHECK(cudaMalloc(&d0, bytes) == cudaSuccess);
	CHECK(cudaSetDevice(1) == cudaSuccess);
	CHECK(cudaMalloc(&d1, bytes) == cudaSuccess);
	CHECK(cudaSetDevice(0) == cudaSuccess);
	/* nothing enabled: both ways staged */
	CHECK(near(timed_peer_copy_s(d1, 1, d0, 0, bytes), staged_s));
	CHECK(near(timed_peer_copy_s(d0, 0, d1, 1, bytes), staged_s));
	CHECK(cudaDeviceEnablePeerAccess(1, 0) == cudaSuccess);
	CHECK(near(timed_peer_copy_s(d1, 1, d0, 0, bytes), nvlink_s));
	CHECK(near(timed_peer_copy_s(d0, 0, d1, 1, bytes), staged_s));
	CHECK(gbsim_check_access(0, d1, bytes, "test") == cudaSuccess);
	CHECK(gbsim_check_access(1, d0, bytes, "test") == cudaErrorIllegalAddress);
	/* the other side too: both ways over NVLink */
	CHECK(cudaSetDevice(1) == cudaSuccess);
	CHECK(cudaDeviceEnablePeerAccess(0, 0) == cudaSuccess);
	CHECK(gbsim_check_access(1, d0, bytes, "test") == cudaSuccess);
	CHECK(near(timed_peer_copy_s(d0, 0, d1, 1, bytes), nvlink_s));
	/* and off again from GPU 0: 0 -> 1 is staged, 1 -> 0 still a peer copy */
	CHECK(cudaSetDevice(0) == cudaSuccess);
	CHECK(cudaDeviceDisablePeerAccess(1) == cudaSuccess);
	CHECK(near(timed_peer_copy_s(d1, 1, d0, 0, bytes), staged_s));
	CHECK(near(timed_peer_copy_s(d0, 0, d1, 1, bytes), nvlink_s));
	CHECK(cudaDeviceSynchronize() == cudaSuccess);
	CHECK(cudaFree(d0) == cudaSuccess);
	CHECK(cudaFree(d1) == cudaSuccess);
	return 0;
}

static void test_peer_one_way(void **state)
{
	char err[4096];

	(void)state;
	assert_int_equal(run_child("peer_one_way", machine("2x-a100-nvlink.json"), "1", err,
				   sizeof(err)), 0);
	assert_non_null(strstr(err, "without peer access"));
}

/*
 * An observer due at the same simulated instant as a worker wakes only after
 * the worker has done what it does then, however long the CPU takes for it:
 * the telemetry sampler's sample lands after a step's mark every time.
 */
struct observed {
	double due;
	atomic_int written;
	int seen;
};

static void *observed_worker(void *arg)
{
	struct observed *o = arg;

	gbsim_vc_wait(&o->written, NULL, o->due);
	sleep_ms(30); /* computing: the clock stays at o->due meanwhile */
	atomic_store(&o->written, 1);
	return NULL;
}

static void *observer(void *arg)
{
	struct observed *o = arg;

	gbsim_vc_wait_observer(&o->seen, NULL, o->due);
	o->seen = atomic_load(&o->written);
	return NULL;
}

static void test_observer_wakes_last(void **state)
{
	(void)state;
	for (int round = 0; round < 4; round++) {
		struct observed o = { .due = gbsim_vc_now() + 1e-3 };
		pthread_t a, b;

		/* listed in either order: the observer is still last */
		assert_int_equal(gbsim_vc_thread_start(&a, round % 2 ? observer : observed_worker, &o), 0);
		assert_int_equal(gbsim_vc_thread_start(&b, round % 2 ? observed_worker : observer, &o), 0);
		assert_true(gbsim_vc_thread_join(a, INFINITY));
		assert_true(gbsim_vc_thread_join(b, INFINITY));
		assert_int_equal(o.seen, 1);
		assert_true(gbsim_vc_now() == o.due);
	}
}

static int run_scenario(const char *name)
{
	if (!strcmp(name, "peer_one_way"))
		return scenario_peer_one_way();
	if (!strcmp(name, "leak"))
		return scenario_leak();
	if (!strcmp(name, "clean"))
		return scenario_clean();
	if (!strcmp(name, "sticky"))
		return scenario_sticky();
	if (!strcmp(name, "peer"))
		return scenario_peer();
	if (!strcmp(name, "lazy"))
		return scenario_lazy();
	if (!strcmp(name, "lazy_d2d"))
		return scenario_lazy_d2d();
	if (!strcmp(name, "per_thread"))
		return scenario_per_thread();
	if (!strcmp(name, "faults"))
		return scenario_faults();
	fprintf(stderr, "unknown scenario '%s'\n", name);
	return 2;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stream_async_order),
		cmocka_unit_test(test_event_elapsed_simulated),
		cmocka_unit_test(test_spin_then_release),
		cmocka_unit_test(test_legacy_stream_order),
		cmocka_unit_test(test_strict_memory_errors),
		cmocka_unit_test(test_strict_handle_errors),
		cmocka_unit_test(test_launch_checks),
		cmocka_unit_test(test_report_label),
		cmocka_unit_test(test_leak_report),
		cmocka_unit_test(test_sticky_error),
		cmocka_unit_test(test_peer_checks),
		cmocka_unit_test(test_lazy_mode),
		cmocka_unit_test(test_faults),
		cmocka_unit_test(test_write_stamps),
		cmocka_unit_test(test_copy_memo),
		cmocka_unit_test(test_peer_one_way),
		cmocka_unit_test(test_launch_error_not_sticky),
		cmocka_unit_test(test_memcpy_d2d_async),
		cmocka_unit_test(test_per_thread_stream),
		cmocka_unit_test(test_observer_wakes_last),
	};
	ssize_t n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);

	if (n > 0)
		self_path[n] = 0;
	if (argc > 1)
		return run_scenario(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
