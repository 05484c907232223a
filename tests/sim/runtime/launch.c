/* SPDX-License-Identifier: MIT */
/*
 * launch.c - the hidden entry points nvcc 13's generated code calls, and the
 * kernel registry behind them.
 *
 * At load time each .cu object registers its kernels: __cudaRegisterFunction
 * maps a host stub to the kernel's mangled device name. We demangle it
 * (__cxa_demangle), drop every "(anonymous namespace)::" and per-file
 * "_INTERNAL_<hash>::" qualifier, and look the result up in the twin tables
 * (tests/sim/twins/twins.h). A <<<>>> launch then pushes its configuration,
 * the stub pops it, asks for a handle (__cudaGetKernel) and calls
 * __cudaLaunchKernel with an array of pointers to its arguments.
 *
 * The arguments live in the stub's frame, and the twin runs later on the
 * stream's worker, so they are copied at launch. Their sizes come from the
 * parameter types in the demangled name (pointers are 8 bytes; value types
 * from a table below); a kernel with a parameter type the table lacks cannot
 * be launched, with a message naming the type.
 *
 * A launch is checked before anything is queued, as a GPU checks it: the
 * runtime's limits (check_config), then the twin's own shape rules (its
 * gbsim_twin_check, sim.h). Either failure is the launch's return value and
 * the thread's last error, never sticky; only what a twin finds while it runs
 * (an illegal address, say) poisons the device (docs/simulation.md, "CUDA
 * semantics").
 *
 * GBSIM_LIST_KERNELS=1 prints every registered kernel and whether it has a twin.
 */
#include "tests/sim/runtime/rt.h"
#include "tests/sim/twins/twins.h"
#include "bench/nccl/nccl_math.h"

#include <cuda.h>
#include <stdatomic.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* libstdc++'s demangler (the C++ ABI), callable from C */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/*
 * Missing twin tables link as empty ones, so the runtime builds while they
 * are written; so do the launch-check tables of files whose kernels have none.
 */
#define WEAK_TABLE(file)                                                                      \
	__attribute__((weak)) const struct gbsim_twin gbsim_twins_##file[] = {{NULL, NULL, false}}; \
	__attribute__((weak)) const struct gbsim_twin_check gbsim_twin_checks_##file[] = {{NULL, NULL}};
GBSIM_TWIN_TABLES(WEAK_TABLE)
#undef WEAK_TABLE

#define TABLE_ENTRY(file) gbsim_twins_##file,
static const struct gbsim_twin *const twin_tables[] = {GBSIM_TWIN_TABLES(TABLE_ENTRY)};
#undef TABLE_ENTRY

#define CHECK_ENTRY(file) gbsim_twin_checks_##file,
static const struct gbsim_twin_check *const check_tables[] = {GBSIM_TWIN_TABLES(CHECK_ENTRY)};
#undef CHECK_ENTRY

#define MAX_ARGS 32
#define DEFAULT_DYN_SMEM (48 * 1024)

struct rt_kernel {
	const void *stub;            /* host stub: what <<<>>> and cudaFunc* name */
	char *name;                  /* normalised demangled name */
	const struct gbsim_twin *twin;
	gbsim_twin_check_fn check;   /* the twin's launch-time checks, NULL if none */
	int nargs;
	size_t arg_size[MAX_ARGS];
	char bad_type[96];           /* a parameter type we cannot size, "" if none */
	int max_dyn_smem[GBSIM_MAX_GPUS];
	struct rt_kernel *next;
};

static struct rt_kernel *kernels; /* under rt_table_lock */
static atomic_long launches[GBSIM_MAX_GPUS];

int rt_launch_count(int device)
{
	return device >= 0 && device < GBSIM_MAX_GPUS ? (int)atomic_load(&launches[device]) : 0;
}

/* ---- names ---- */

static void remove_all(char *s, const char *what)
{
	size_t n = strlen(what);
	char *p;

	while ((p = strstr(s, what)))
		memmove(p, p + n, strlen(p + n) + 1);
}

/* drop "_INTERNAL_<anything>::" qualifiers nvcc gives file-local entities */
static void remove_internal(char *s)
{
	char *p, *end;

	while ((p = strstr(s, "_INTERNAL_")) && (end = strstr(p, "::")))
		memmove(p, end + 2, strlen(end + 2) + 1);
}

static char *normalise(const char *mangled)
{
	int status = 0;
	char *d = __cxa_demangle(mangled, NULL, NULL, &status);

	if (!d || status != 0) {
		free(d);
		d = strdup(mangled); /* extern "C" kernels are not mangled */
	}
	if (!d)
		rt_fatal("out of host memory for a kernel name");
	remove_all(d, "(anonymous namespace)::");
	remove_internal(d);
	return d;
}

static const struct gbsim_twin *find_twin(const char *name)
{
	for (size_t t = 0; t < sizeof(twin_tables) / sizeof(twin_tables[0]); t++)
		for (const struct gbsim_twin *w = twin_tables[t]; w->name; w++)
			if (!strcmp(w->name, name))
				return w;
	return NULL;
}

static gbsim_twin_check_fn find_check(const struct gbsim_twin *twin)
{
	if (!twin)
		return NULL;
	for (size_t t = 0; t < sizeof(check_tables) / sizeof(check_tables[0]); t++)
		for (const struct gbsim_twin_check *c = check_tables[t]; c->run; c++)
			if (c->run == twin->run)
				return c->check;
	return NULL;
}

/* Two twins for one name would make a launch ambiguous: refuse to start. */
__attribute__((constructor)) static void check_twin_tables(void)
{
	size_t n = sizeof(twin_tables) / sizeof(twin_tables[0]);

	for (size_t t = 0; t < n; t++)
		for (const struct gbsim_twin *a = twin_tables[t]; a->name; a++)
			for (size_t u = t; u < n; u++)
				for (const struct gbsim_twin *b = u == t ? a + 1 : twin_tables[u];
				     b->name; b++)
					if (!strcmp(a->name, b->name))
						rt_fatal("two twins for kernel '%s'", a->name);
}

/* ---- argument sizes from the parameter types ---- */

struct type_size {
	const char *type;
	size_t size;
};

static const struct type_size value_types[] = {
	{"bool", 1}, {"char", 1}, {"signed char", 1}, {"unsigned char", 1},
	{"short", 2}, {"unsigned short", 2}, {"int", 4}, {"unsigned int", 4},
	{"long", 8}, {"unsigned long", 8}, {"long long", 8}, {"unsigned long long", 8},
	{"float", 4}, {"double", 8},
	{"__half", 2}, {"__nv_bfloat16", 2}, {"__half2", 4}, {"__nv_bfloat162", 4},
	{"__nv_fp8_e4m3", 1}, {"__nv_fp8_e5m2", 1},
	{"__nv_fp8_interpretation_t", 4}, {"__nv_saturation_t", 4},
	{"cudaError", 4}, {"gb_dtype", 4},
	{"uint2", 8}, {"int2", 8}, {"float2", 8}, {"uint4", 16}, {"int4", 16}, {"float4", 16},
	{"double2", 16}, {"dim3", 12},
	{"CUtensorMap_st", sizeof(CUtensorMap)},
	{"gb_nccl_expect", sizeof(struct gb_nccl_expect)},
};

static void trim(char *s)
{
	size_t n = strlen(s), k = 0;

	while (n && s[n - 1] == ' ')
		s[--n] = 0;
	while (s[k] == ' ')
		k++;
	memmove(s, s + k, n - k + 1);
}

/* Size of one parameter type as the demangler prints it; 0 if unknown. */
static size_t type_size(const char *type)
{
	char t[96];

	if (strchr(type, '*') || strchr(type, '&'))
		return sizeof(void *);
	snprintf(t, sizeof(t), "%s", type);
	remove_all(t, "const");
	remove_all(t, "volatile");
	remove_all(t, "struct ");
	trim(t);
	for (size_t i = 0; i < sizeof(value_types) / sizeof(value_types[0]); i++)
		if (!strcmp(t, value_types[i].type))
			return value_types[i].size;
	return 0;
}

/* Split the parameter list at the end of the name into k->arg_size. */
static void size_args(struct rt_kernel *k)
{
	const char *s = k->name, *end = s + strlen(s), *open = NULL, *p, *start;
	int depth = 0;

	if (end == s || end[-1] != ')')
		return; /* extern "C": no parameter types to read */
	for (p = end - 1; p >= s; p--) {
		depth += *p == ')' ? 1 : *p == '(' ? -1 : 0;
		if (depth == 0) {
			open = p;
			break;
		}
	}
	if (!open || open + 2 == end)
		return; /* () : no parameters */
	depth = 0;
	for (p = start = open + 1; p < end; p++) {
		if (*p == '<' || *p == '(')
			depth++;
		else if ((*p == '>' || *p == ')') && depth > 0)
			depth--;
		else if ((*p == ',' && depth == 0) || p == end - 1) {
			char type[96];
			size_t len = (size_t)(p - start);

			snprintf(type, sizeof(type), "%.*s", (int)len, start);
			trim(type);
			if (k->nargs == MAX_ARGS || !(k->arg_size[k->nargs] = type_size(type))) {
				snprintf(k->bad_type, sizeof(k->bad_type), "%s", type);
				return;
			}
			k->nargs++;
			start = p + 1;
		}
	}
}

/* ---- registration ---- */

void **__cudaRegisterFatBinary(void *fatCubin)
{
	static void *handle_storage[64];
	static atomic_int next;
	int i = atomic_fetch_add(&next, 1) % 64;

	handle_storage[i] = fatCubin;
	return &handle_storage[i];
}

void __cudaRegisterFatBinaryEnd(void **fatCubinHandle)
{
	(void)fatCubinHandle;
}

/*
 * A Debug (-G) build's host code keeps nvcc's managed-memory initialiser,
 * which calls this; no project kernel has managed variables, so there is
 * nothing to set up: success (the runtime's 1).
 */
char __cudaInitModule(void **fatCubinHandle)
{
	(void)fatCubinHandle;
	return 1;
}

void __cudaUnregisterFatBinary(void **fatCubinHandle)
{
	(void)fatCubinHandle; /* kernels stay registered: workers may still be running at exit */
}

void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
			    const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
			    dim3 *bDim, dim3 *gDim, int *wSize)
{
	struct rt_kernel *k = calloc(1, sizeof(*k));
	const char *list = getenv("GBSIM_LIST_KERNELS");

	(void)fatCubinHandle, (void)deviceFun, (void)thread_limit, (void)tid, (void)bid;
	(void)bDim, (void)gDim, (void)wSize;
	if (!k)
		rt_fatal("out of host memory for the kernel registry");
	k->stub = hostFun;
	k->name = normalise(deviceName);
	k->twin = find_twin(k->name);
	k->check = find_check(k->twin);
	for (int d = 0; d < GBSIM_MAX_GPUS; d++)
		k->max_dyn_smem[d] = DEFAULT_DYN_SMEM;
	size_args(k);
	if (list && !strcmp(list, "1"))
		fprintf(stderr, "gpubench-sim: kernel %s: %s%s%s\n", k->twin ? "twin" : "NO TWIN",
			k->name, k->bad_type[0] ? " (cannot size argument type " : "",
			k->bad_type[0] ? k->bad_type : "");
	pthread_mutex_lock(&rt_table_lock);
	k->next = kernels;
	kernels = k;
	pthread_mutex_unlock(&rt_table_lock);
}

void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
		       const char *deviceName, int ext, size_t size, int constant, int global)
{
	(void)fatCubinHandle, (void)hostVar, (void)deviceAddress, (void)ext, (void)size;
	(void)constant, (void)global;
	/* no project kernel has device variables: one would need its own twin support */
	gbsim_log("device variable '%s' is not simulated", deviceName);
}

static struct rt_kernel *kernel_by_stub(const void *stub)
{
	struct rt_kernel *k;

	pthread_mutex_lock(&rt_table_lock);
	for (k = kernels; k && k->stub != stub; k = k->next)
		;
	pthread_mutex_unlock(&rt_table_lock);
	return k;
}

/* ---- launch configuration, pushed by <<<>>> and popped by the stub ---- */

struct call_config {
	dim3 grid, block;
	size_t shared;
	cudaStream_t stream;
};

#define MAX_PUSHED 16
static _Thread_local struct call_config pushed[MAX_PUSHED];
static _Thread_local int n_pushed;

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
				     struct CUstream_st *stream)
{
	if (n_pushed == MAX_PUSHED)
		rt_fatal("launch configurations nested more than %d deep", MAX_PUSHED);
	pushed[n_pushed++] = (struct call_config){gridDim, blockDim, sharedMem, stream};
	return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
				       void *stream)
{
	if (n_pushed == 0)
		return cudaErrorMissingConfiguration;
	n_pushed--;
	*gridDim = pushed[n_pushed].grid;
	*blockDim = pushed[n_pushed].block;
	*sharedMem = pushed[n_pushed].shared;
	*(cudaStream_t *)stream = pushed[n_pushed].stream;
	return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun)
{
	struct rt_kernel *k = kernel_by_stub(hostFun);

	if (!k)
		return rt_ret(cudaErrorInvalidDeviceFunction);
	*kernel = (cudaKernel_t)k;
	return cudaSuccess;
}

/* ---- the launch ---- */

struct launch_ctx {
	struct gbsim_launch l;
	const struct gbsim_twin *twin;
	struct gbsim_cost cost;
	long number;                 /* 1-based launch number on its device */
	void *block;                 /* the copied arguments */
	void *args[MAX_ARGS];
};

/*
 * A "hang" fault (docs/simulation.md): this kernel never completes. The
 * stream's worker stays here, so everything queued behind it waits, as on a
 * GPU; the product must give the GPU up. Its allocations are then
 * abandoned, not leaked: the leak report skips a hung GPU (leaks.c).
 */
static _Noreturn void hang_forever(const struct launch_ctx *c)
{
	rt_mark_hung(c->l.device);
	gbsim_log("fault 'hang': launch %ld ('%s') on GPU %d never completes", c->number,
		  c->l.kernel, c->l.device);
	/* waiting for nothing, with no deadline: the simulated clock goes on without it */
	for (;;)
		gbsim_vc_sleep(INFINITY);
}

static cudaError_t launch_run(void *arg)
{
	struct launch_ctx *c = arg;

	memset(&c->cost, 0, sizeof(c->cost));
	if (rt_fault_active(GBSIM_FAULT_STICKY_ERROR, c->l.device, c->number, -1)) {
		gbsim_log("fault 'sticky_error': launch %ld ('%s') on GPU %d fails", c->number,
			  c->l.kernel, c->l.device);
		return cudaErrorIllegalAddress;
	}
	if (rt_fault_active(GBSIM_FAULT_HANG, c->l.device, c->number, -1))
		hang_forever(c);
	return c->twin->run(&c->l, &c->cost);
}

static double launch_seconds(void *arg)
{
	struct launch_ctx *c = arg;

	return gbsim_cost_seconds(c->l.device, &c->cost);
}

static void launch_free(void *arg)
{
	struct launch_ctx *c = arg;

	free(c->block);
	free(c);
}

static cudaError_t check_config(const struct rt_kernel *k, dim3 grid, dim3 block, size_t shared,
				int device)
{
	unsigned long long threads = (unsigned long long)block.x * block.y * block.z;
	int limit;

	if (!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z ||
	    threads > 1024 || block.x > 1024 || block.y > 1024 || block.z > 64 ||
	    grid.x > 0x7fffffffu || grid.y > 65535 || grid.z > 65535) {
		gbsim_log("kernel '%s': grid (%u, %u, %u) with blocks of (%u, %u, %u) is beyond the "
			  "device's limits", k->name, grid.x, grid.y, grid.z, block.x, block.y,
			  block.z);
		return cudaErrorInvalidConfiguration;
	}
	pthread_mutex_lock(&rt_table_lock);
	limit = k->max_dyn_smem[device];
	pthread_mutex_unlock(&rt_table_lock);
	if (shared > (size_t)limit) {
		gbsim_log("kernel '%s': %zu bytes of dynamic shared memory, above the %d allowed%s",
			  k->name, shared, limit, limit == DEFAULT_DYN_SMEM
				  ? " without cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize)"
				  : "");
		return cudaErrorInvalidValue;
	}
	return cudaSuccess;
}

static struct launch_ctx *make_ctx(const struct rt_kernel *k, dim3 grid, dim3 block,
				   size_t shared, void **args, int device)
{
	struct launch_ctx *c = calloc(1, sizeof(*c));
	size_t total = 0, off = 0;

	if (!c)
		return NULL;
	for (int i = 0; i < k->nargs; i++)
		total += (k->arg_size[i] + 63) & ~(size_t)63;
	c->block = aligned_alloc(64, total ? total : 64);
	if (!c->block) {
		free(c);
		return NULL;
	}
	for (int i = 0; i < k->nargs; i++) {
		c->args[i] = (char *)c->block + off;
		memcpy(c->args[i], args[i], k->arg_size[i]);
		off += (k->arg_size[i] + 63) & ~(size_t)63;
	}
	c->twin = k->twin;
	c->l = (struct gbsim_launch){k->name, grid, block, shared, c->args, device,
				     &gbsim_machine()->gpus[device]};
	return c;
}

static cudaError_t launch(struct rt_kernel *k, dim3 grid, dim3 block, void **args,
			  size_t shared, cudaStream_t stream)
{
	struct gbsim_work w = {.run = launch_run, .seconds = -1, .duration_fn = launch_seconds,
			       .free_ctx = launch_free};
	struct launch_ctx *c;
	struct rt_stream *s;
	cudaError_t e;

	if ((e = rt_stream_get(stream, &s)) != cudaSuccess)
		return e;
	if ((e = rt_sticky(s->device)) != cudaSuccess)
		return e;
	if (s->device != gbsim_current_device()) {
		gbsim_log("kernel '%s': launched on a stream of GPU %d while GPU %d is current",
			  k->name, s->device, gbsim_current_device());
		return cudaErrorInvalidResourceHandle;
	}
	if (!k->twin) {
		gbsim_log("no twin for kernel '%s'", k->name);
		return cudaErrorInvalidDeviceFunction;
	}
	if (k->bad_type[0]) {
		gbsim_log("kernel '%s': cannot size its argument of type '%s' (add it to "
			  "tests/sim/runtime/launch.c)", k->name, k->bad_type);
		return cudaErrorInvalidDeviceFunction;
	}
	if ((e = check_config(k, grid, block, shared, s->device)) != cudaSuccess)
		return e;
	w.writes_declared = k->twin->declares_writes;
	if (!(c = make_ctx(k, grid, block, shared, args, s->device)))
		return cudaErrorMemoryAllocation;
	/* the kernel's own shape rules, at the launch as a GPU checks them: not sticky */
	if (k->check && (e = k->check(&c->l)) != cudaSuccess) {
		launch_free(c);
		return e;
	}
	c->number = atomic_fetch_add(&launches[s->device], 1) + 1;
	w.what = k->name;
	w.ctx = c;
	return rt_stream_enqueue(s, &w, false, NULL, 0, NULL);
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
			       size_t sharedMem, cudaStream_t stream)
{
	struct rt_kernel *k = (struct rt_kernel *)kernel;

	if (!k)
		return rt_ret(cudaErrorInvalidDeviceFunction);
	return rt_ret(launch(k, gridDim, blockDim, args, sharedMem, stream));
}

cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
			     size_t sharedMem, cudaStream_t stream)
{
	struct rt_kernel *k = kernel_by_stub(func);

	if (!k)
		return rt_ret(cudaErrorInvalidDeviceFunction);
	return rt_ret(launch(k, gridDim, blockDim, args, sharedMem, stream));
}

/* ---- function attributes ---- */

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
	struct rt_kernel *k = kernel_by_stub(func);
	int dev = gbsim_current_device();
	const struct gbsim_gpu *g = &gbsim_machine()->gpus[dev];

	if (!attr)
		return rt_ret(cudaErrorInvalidValue);
	if (!k)
		return rt_ret(cudaErrorInvalidDeviceFunction);
	memset(attr, 0, sizeof(*attr));
	attr->maxThreadsPerBlock = 1024;
	/*
	 * ptxas's real count is in the cubin, which the simulator does not read:
	 * 168 is what wgmma's 384-thread blocks get (setmaxnreg redistributes it)
	 * and fits every other kernel's launch bounds.
	 */
	attr->numRegs = 168;
	pthread_mutex_lock(&rt_table_lock);
	attr->maxDynamicSharedSizeBytes = k->max_dyn_smem[dev];
	pthread_mutex_unlock(&rt_table_lock);
	attr->ptxVersion = g->cc_major * 10 + g->cc_minor;
	attr->binaryVersion = attr->ptxVersion;
	attr->preferredShmemCarveout = -1;
	return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
	struct rt_kernel *k = kernel_by_stub(func);
	int dev = gbsim_current_device();

	if (!k)
		return rt_ret(cudaErrorInvalidDeviceFunction);
	switch (attr) {
	case cudaFuncAttributeMaxDynamicSharedMemorySize:
		if (value < 0 || value > rt_smem_optin_bytes(dev)) {
			gbsim_log("cudaFuncSetAttribute: %d bytes of dynamic shared memory for '%s', "
				  "above GPU %d's opt-in maximum %d", value, k->name, dev,
				  rt_smem_optin_bytes(dev));
			return rt_ret(cudaErrorInvalidValue);
		}
		pthread_mutex_lock(&rt_table_lock);
		k->max_dyn_smem[dev] = value;
		pthread_mutex_unlock(&rt_table_lock);
		return cudaSuccess;
	case cudaFuncAttributePreferredSharedMemoryCarveout:
		return value >= -1 && value <= 100 ? cudaSuccess : rt_ret(cudaErrorInvalidValue);
	default:
		return cudaSuccess; /* scheduling hints: nothing to simulate */
	}
}
