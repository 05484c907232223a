/* SPDX-License-Identifier: MIT */
/*
 * test_sim_nccl.c - the simulated libnccl.so.2 (tests/sim/nccl/), loaded
 * with dlopen as gpubench loads NCCL (GPUBENCH_NCCL_LIBRARY, else the
 * default soname, found through this test's RUNPATH), on the 8-GPU machine
 * file: every collective's result with 2 and 4 ranks, one thread driving
 * every rank in a group; every type and operator of all-reduce; in-place
 * forms; send/receive; split; blocking and non-blocking init; abort and
 * revoke releasing a rank that waits for a peer that never comes; a destroy
 * with work pending; ranks that disagree; the simulated time of one op;
 * ranks in two processes (every collective, a split, a peer that exits).
 */

extern char **environ;
#include <dirent.h>
#include <dlfcn.h>
#include <math.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
/* nccl.h declares a few functions "()": the toolkit is not a system include here */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <nccl.h>
#pragma GCC diagnostic pop

#include "tests/sim/sim.h"

/* nccl.h declares these with "()": typed here so __typeof__ gives a prototype */
typedef ncclResult_t group_fn(void);

#define NCCL_FUNCS(X)                                                                              \
	X(ncclGetVersion) X(ncclGetUniqueId) X(ncclCommInitRankConfig) X(ncclCommInitRank)         \
	X(ncclCommInitAll) X(ncclCommDestroy) X(ncclCommAbort) X(ncclCommRevoke)                   \
	X(ncclCommFinalize) X(ncclCommSplit) X(ncclCommGetAsyncError) X(ncclGetErrorString)        \
	X(ncclGetLastError) X(ncclCommCount) X(ncclCommUserRank) X(ncclAllReduce)                  \
	X(ncclAllGather) X(ncclReduceScatter) X(ncclBroadcast) X(ncclReduce) X(ncclAlltoAll)       \
	X(ncclSend) X(ncclRecv)

#define NCCL_FIELD(name) __typeof__(name) *name;
static struct {
	NCCL_FUNCS(NCCL_FIELD)
	group_fn *ncclGroupStart;
	group_fn *ncclGroupEnd;
} nc;
#undef NCCL_FIELD

#define MAX_RANKS 4
#define COUNT 37 /* elements per rank: odd, so nothing lines up by luck */

/* One rank: its GPU, stream and buffers (big enough for n x COUNT of 8 bytes). */
struct rank {
	int dev;
	cudaStream_t stream;
	char *send, *recv;
};

static struct rank ranks[MAX_RANKS];
static const size_t buf_bytes = MAX_RANKS * COUNT * 8;

static int load_nccl(void **state)
{
	const char *lib = getenv("GPUBENCH_NCCL_LIBRARY");
	const char *dir = getenv("GBSIM_MACHINES");
	static char machine[1024];
	void *h;

	(void)state;
	/* this test needs 4 GPUs: the 8-GPU machine, whatever the harness chose */
	if (dir) {
		snprintf(machine, sizeof(machine), "%s/8x-h100-nvlink.json", dir);
		setenv("GPUBENCH_SIM_MACHINE", machine, 1);
	}
	h = dlopen(lib && *lib ? lib : "libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "cannot load the simulated NCCL: %s\n", dlerror());
		return -1;
	}
#define NCCL_LOAD(name) *(void **)(&nc.name) = dlsym(h, #name);
	NCCL_FUNCS(NCCL_LOAD)
	NCCL_LOAD(ncclGroupStart)
	NCCL_LOAD(ncclGroupEnd)
#undef NCCL_LOAD
	for (int i = 0; i < MAX_RANKS; i++) {
		ranks[i].dev = i;
		if (cudaSetDevice(i) || cudaStreamCreate(&ranks[i].stream) ||
		    cudaMalloc((void **)&ranks[i].send, buf_bytes) ||
		    cudaMalloc((void **)&ranks[i].recv, buf_bytes))
			return -1;
	}
	return 0;
}

static int unload(void **state)
{
	(void)state;
	for (int i = 0; i < MAX_RANKS; i++) {
		cudaSetDevice(i);
		cudaFree(ranks[i].send);
		cudaFree(ranks[i].recv);
		cudaStreamDestroy(ranks[i].stream);
	}
	return 0;
}

/* ---- communicators ---- */

/* Ranks 0..n-1 on GPUs 0..n-1, one thread, one group; blocking or polled. */
static void make_comms(int n, bool blocking, ncclComm_t *c)
{
	ncclUniqueId id;
	ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
	ncclResult_t r;

	cfg.blocking = blocking;
	assert_int_equal(nc.ncclGetUniqueId(&id), ncclSuccess);
	assert_int_equal(nc.ncclGroupStart(), ncclSuccess);
	for (int i = 0; i < n; i++) {
		assert_int_equal(cudaSetDevice(i), cudaSuccess);
		assert_int_equal(nc.ncclCommInitRankConfig(&c[i], n, id, i, &cfg), ncclSuccess);
		assert_non_null(c[i]);
	}
	r = nc.ncclGroupEnd();
	assert_int_equal(r, blocking ? ncclSuccess : ncclInProgress);
	for (int i = 0; i < n; i++) {
		ncclResult_t a = ncclInProgress;

		assert_int_equal(nc.ncclCommGetAsyncError(c[i], &a), ncclSuccess);
		assert_int_equal(a, ncclSuccess);
	}
}

static void destroy_comms(int n, ncclComm_t *c)
{
	for (int i = 0; i < n; i++)
		assert_int_equal(nc.ncclCommDestroy(c[i]), ncclSuccess);
}

static void sync_all(int n)
{
	for (int i = 0; i < n; i++)
		assert_int_equal(cudaStreamSynchronize(ranks[i].stream), cudaSuccess);
}

/* ---- values: small integers every type holds exactly ---- */

static int input(int rank, size_t i, ncclRedOp_t op)
{
	unsigned h = (unsigned)(rank * 131 + (int)i * 29 + 7) * 2654435761u;

	return op == ncclProd ? 1 + (int)(h >> 31) : 1 + (int)((h >> 28) & 3);
}

static size_t type_size(ncclDataType_t t)
{
	static const size_t size[] = { 1, 1, 4, 4, 8, 8, 2, 4, 8, 2 };

	return size[t];
}

static bool is_float(ncclDataType_t t)
{
	return t == ncclFloat16 || t == ncclFloat32 || t == ncclFloat64 || t == ncclBfloat16;
}

static void put(ncclDataType_t t, void *p, size_t i, double v)
{
	switch (t) {
	case ncclInt8:
	case ncclUint8:
		((uint8_t *)p)[i] = (uint8_t)(int64_t)v;
		break;
	case ncclInt32:
	case ncclUint32:
		((uint32_t *)p)[i] = (uint32_t)(int64_t)v;
		break;
	case ncclInt64:
	case ncclUint64:
		((uint64_t *)p)[i] = (uint64_t)(int64_t)v;
		break;
	case ncclFloat16:
		((uint16_t *)p)[i] = gbsim_f16_from_double(v);
		break;
	case ncclBfloat16:
		((uint16_t *)p)[i] = gbsim_bf16_from_double(v);
		break;
	case ncclFloat32:
		((float *)p)[i] = (float)v;
		break;
	default:
		((double *)p)[i] = v;
		break;
	}
}

static double get(ncclDataType_t t, const void *p, size_t i)
{
	switch (t) {
	case ncclInt8:
		return ((const int8_t *)p)[i];
	case ncclUint8:
		return ((const uint8_t *)p)[i];
	case ncclInt32:
		return ((const int32_t *)p)[i];
	case ncclUint32:
		return ((const uint32_t *)p)[i];
	case ncclInt64:
		return (double)((const int64_t *)p)[i];
	case ncclUint64:
		return (double)((const uint64_t *)p)[i];
	case ncclFloat16:
		return gbsim_f16_to_float(((const uint16_t *)p)[i]);
	case ncclBfloat16:
		return gbsim_bf16_to_float(((const uint16_t *)p)[i]);
	case ncclFloat32:
		return ((const float *)p)[i];
	default:
		return ((const double *)p)[i];
	}
}

static double expect_reduced(int n, size_t i, ncclRedOp_t op, ncclDataType_t t)
{
	double a = input(0, i, op);

	for (int r = 1; r < n; r++) {
		double v = input(r, i, op);

		switch (op) {
		case ncclProd:
			a *= v;
			break;
		case ncclMax:
			a = fmax(a, v);
			break;
		case ncclMin:
			a = fmin(a, v);
			break;
		default:
			a += v;
			break;
		}
	}
	if (op == ncclAvg)
		a = is_float(t) ? a / n : floor(a / n); /* integers: summed, then divided */
	return a;
}

/* Fill every rank's send buffer (elems elements) with input(), poison its receive buffer. */
static void fill(int n, ncclDataType_t t, ncclRedOp_t op, size_t elems)
{
	static char host[MAX_RANKS * COUNT * 8];

	for (int r = 0; r < n; r++) {
		for (size_t i = 0; i < elems; i++)
			put(t, host, i, input(r, i, op));
		assert_int_equal(cudaMemcpy(ranks[r].send, host, elems * type_size(t),
					    cudaMemcpyHostToDevice), cudaSuccess);
		memset(host, 0xff, buf_bytes);
		assert_int_equal(cudaMemcpy(ranks[r].recv, host, buf_bytes, cudaMemcpyHostToDevice),
				 cudaSuccess);
	}
}

/* A device buffer's elements, on the host. */
static const void *fetch(const void *dev_buf, size_t bytes)
{
	static char host[MAX_RANKS * COUNT * 8];

	assert_int_equal(cudaMemcpy(host, dev_buf, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
	return host;
}

static void check_value(ncclDataType_t t, ncclRedOp_t op, double got, double want,
			const char *what, int rank, size_t i)
{
	double tol = op == ncclAvg && is_float(t) ? 0.02 * fabs(want) : 0;

	if (!(fabs(got - want) <= tol)) {
		print_error("%s rank %d element %zu type %d op %d: got %g, want %g\n", what, rank, i,
			    (int)t, (int)op, got, want);
		fail();
	}
}

/* ---- all-reduce: every type and operator, out of place and in place ---- */

static void allreduce_case(int n, ncclComm_t *c, ncclDataType_t t, ncclRedOp_t op, bool inplace)
{
	fill(n, t, op, COUNT);
	assert_int_equal(nc.ncclGroupStart(), ncclSuccess);
	for (int r = 0; r < n; r++)
		assert_int_equal(nc.ncclAllReduce(ranks[r].send,
						  inplace ? ranks[r].send : ranks[r].recv, COUNT, t,
						  op, c[r], ranks[r].stream),
				 ncclSuccess);
	assert_int_equal(nc.ncclGroupEnd(), ncclSuccess);
	sync_all(n);
	for (int r = 0; r < n; r++) {
		const void *h = fetch(inplace ? ranks[r].send : ranks[r].recv, COUNT * type_size(t));

		for (size_t i = 0; i < COUNT; i++)
			check_value(t, op, get(t, h, i), expect_reduced(n, i, op, t), "allreduce", r,
				    i);
	}
}

static void allreduce_all(int n)
{
	ncclComm_t c[MAX_RANKS];

	make_comms(n, true, c);
	for (int t = ncclInt8; t <= ncclBfloat16; t++)
		for (int op = ncclSum; op <= ncclAvg; op++)
			allreduce_case(n, c, (ncclDataType_t)t, (ncclRedOp_t)op, op == ncclSum);
	destroy_comms(n, c);
}

static void test_allreduce_2(void **state)
{
	(void)state;
	allreduce_all(2);
}

static void test_allreduce_4(void **state)
{
	(void)state;
	allreduce_all(4);
}

/* ---- the other collectives, float and int32 ---- */

static void check_allgather(int n, ncclComm_t *c, ncclDataType_t t, bool inplace)
{
	size_t e = type_size(t);

	fill(n, t, ncclSum, COUNT);
	if (inplace) /* rank r's input is chunk r of its output */
		for (int r = 0; r < n; r++)
			assert_int_equal(cudaMemcpy(ranks[r].recv + (size_t)r * COUNT * e,
						    ranks[r].send, COUNT * e,
						    cudaMemcpyDeviceToDevice), cudaSuccess);
	assert_int_equal(nc.ncclGroupStart(), ncclSuccess);
	for (int r = 0; r < n; r++)
		assert_int_equal(nc.ncclAllGather(inplace ? ranks[r].recv + (size_t)r * COUNT * e
							  : ranks[r].send,
						  ranks[r].recv, COUNT, t, c[r], ranks[r].stream),
				 ncclSuccess);
	assert_int_equal(nc.ncclGroupEnd(), ncclSuccess);
	sync_all(n);
	for (int r = 0; r < n; r++) {
		const void *h = fetch(ranks[r].recv, (size_t)n * COUNT * e);

		for (size_t i = 0; i < (size_t)n * COUNT; i++)
			check_value(t, ncclSum, get(t, h, i), input((int)(i / COUNT), i % COUNT, ncclSum),
				    "allgather", r, i);
	}
}

static void check_reducescatter(int n, ncclComm_t *c, ncclDataType_t t, ncclRedOp_t op,
				bool inplace)
{
	size_t e = type_size(t);

	fill(n, t, op, (size_t)n * COUNT);
	assert_int_equal(nc.ncclGroupStart(), ncclSuccess);
	for (int r = 0; r < n; r++)
		assert_int_equal(nc.ncclReduceScatter(ranks[r].send,
						      inplace ? ranks[r].send + (size_t)r * COUNT * e
							      : ranks[r].recv,
						      COUNT, t, op, c[r], ranks[r].stream),
				 ncclSuccess);
	assert_int_equal(nc.ncclGroupEnd(), ncclSuccess);
	sync_all(n);
	for (int r = 0; r < n; r++) {
		const void *h = fetch(inplace ? ranks[r].send + (size_t)r * COUNT * e : ranks[r].recv,
				      COUNT * e);

		for (size_t i = 0; i < COUNT; i++)
			check_value(t, op, get(t, h, i),
				    expect_reduced(n, (size_t)r * COUNT + i, op, t), "reducescatter",
				    r, i);
	}
}

static void check_broadcast(int n, ncclComm_t *c, ncclDataType_t t, int root, bool inplace)
{
	fill(n, t, ncclSum, COUNT);
	assert_int_equal(nc.ncclGroupStart(), ncclSuccess);
	for (int r = 0; r < n; r++)
		assert_int_equal(nc.ncclBroadcast(ranks[r].send,
						  inplace ? ranks[r].send : ranks[r].recv, COUNT, t,
						  root, c[r], ranks[r].stream),
				 ncclSuccess);
	assert_int_equal(nc.ncclGroupEnd(), ncclSuccess);
	sync_all(n);
	for (int r = 0; r < n; r++) {
		const void *h = fetch(inplace ? ranks[r].send : ranks[r].recv, COUNT * type_size(t));

		for (size_t i = 0; i < COUNT; i++)
			check_value(t, ncclSum, get(t, h, i), input(root, i, ncclSum), "broadcast",
				    r, i);
	}
}

static void check_reduce(int n, ncclComm_t *c, ncclDataType_t t, ncclRedOp_t op, int root)
{
	const void *h;

	fill(n, t, op, COUNT);
	assert_int_equal(nc.ncclGroupStart(), ncclSuccess);
	for (int r = 0; r < n; r++)
		assert_int_equal(nc.ncclReduce(ranks[r].send, ranks[r].recv, COUNT, t, op, root, c[r],
					       ranks[r].stream),
				 ncclSuccess);
	assert_int_equal(nc.ncclGroupEnd(), ncclSuccess);
	sync_all(n);
	h = fetch(ranks[root].recv, COUNT * type_size(t));
	for (size_t i = 0; i < COUNT; i++)
		check_value(t, op, get(t, h, i), expect_reduced(n, i, op, t), "reduce", root, i);
	/* the others' outputs are not NCCL's to write: still the poison */
	for (int r = 0; r < n; r++)
		if (r != root)
			assert_int_equal(((const uint8_t *)fetch(ranks[r].recv, 1))[0], 0xff);
}

static void check_alltoall(int n, ncclComm_t *c, ncclDataType_t t)
{
	size_t e = type_size(t);

	fill(n, t, ncclSum, (size_t)n * COUNT);
	assert_int_equal(nc.ncclGroupStart(), ncclSuccess);
	for (int r = 0; r < n; r++)
		assert_int_equal(nc.ncclAlltoAll(ranks[r].send, ranks[r].recv, COUNT, t, c[r],
						 ranks[r].stream),
				 ncclSuccess);
	assert_int_equal(nc.ncclGroupEnd(), ncclSuccess);
	sync_all(n);
	for (int r = 0; r < n; r++) {
		const void *h = fetch(ranks[r].recv, (size_t)n * COUNT * e);

		/* chunk j of rank r's output is chunk r of rank j's input */
		for (size_t i = 0; i < (size_t)n * COUNT; i++)
			check_value(t, ncclSum, get(t, h, i),
				    input((int)(i / COUNT), (size_t)r * COUNT + i % COUNT, ncclSum),
				    "alltoall", r, i);
	}
}

/* Each rank sends to the next and receives from the previous, and to itself, in one group. */
static void check_sendrecv(int n, ncclComm_t *c, ncclDataType_t t)
{
	size_t e = type_size(t);

	fill(n, t, ncclSum, COUNT);
	assert_int_equal(nc.ncclGroupStart(), ncclSuccess);
	for (int r = 0; r < n; r++) {
		assert_int_equal(nc.ncclSend(ranks[r].send, COUNT, t, (r + 1) % n, c[r],
					     ranks[r].stream), ncclSuccess);
		assert_int_equal(nc.ncclRecv(ranks[r].recv, COUNT, t, (r + n - 1) % n, c[r],
					     ranks[r].stream), ncclSuccess);
		assert_int_equal(nc.ncclSend(ranks[r].send, COUNT, t, r, c[r], ranks[r].stream),
				 ncclSuccess);
		assert_int_equal(nc.ncclRecv(ranks[r].recv + COUNT * e, COUNT, t, r, c[r],
					     ranks[r].stream), ncclSuccess);
	}
	assert_int_equal(nc.ncclGroupEnd(), ncclSuccess);
	sync_all(n);
	for (int r = 0; r < n; r++) {
		const void *h = fetch(ranks[r].recv, 2 * COUNT * e);

		for (size_t i = 0; i < COUNT; i++) {
			check_value(t, ncclSum, get(t, h, i), input((r + n - 1) % n, i, ncclSum),
				    "recv from the previous rank", r, i);
			check_value(t, ncclSum, get(t, h, COUNT + i), input(r, i, ncclSum),
				    "recv from itself", r, i);
		}
	}
}

static void collectives(int n)
{
	static const ncclDataType_t types[] = { ncclFloat32, ncclInt32, ncclBfloat16 };
	ncclComm_t c[MAX_RANKS];

	make_comms(n, true, c);
	for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
		ncclDataType_t t = types[k];

		check_allgather(n, c, t, false);
		check_allgather(n, c, t, true);
		check_reducescatter(n, c, t, ncclSum, false);
		check_reducescatter(n, c, t, ncclMax, true);
		check_broadcast(n, c, t, n - 1, false);
		check_broadcast(n, c, t, 0, true);
		check_reduce(n, c, t, ncclSum, n - 1);
		check_reduce(n, c, t, ncclProd, 0);
		check_alltoall(n, c, t);
		check_sendrecv(n, c, t);
	}
	destroy_comms(n, c);
}

static void test_collectives_2(void **state)
{
	(void)state;
	collectives(2);
}

static void test_collectives_4(void **state)
{
	(void)state;
	collectives(4);
}

/* ---- communicators ---- */

static ncclResult_t state_of(ncclComm_t c)
{
	ncclResult_t a = ncclInternalError;

	assert_int_equal(nc.ncclCommGetAsyncError(c, &a), ncclSuccess);
	return a;
}

/* Non-blocking init one rank at a time: in progress until the last rank joins. */
static void test_nonblocking_init(void **state)
{
	ncclUniqueId id;
	ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
	ncclComm_t c[2];
	int v = 0;

	(void)state;
	assert_int_equal(nc.ncclGetVersion(&v), ncclSuccess);
	assert_int_equal(v, NCCL_VERSION_CODE);
	cfg.blocking = 0;
	assert_int_equal(nc.ncclGetUniqueId(&id), ncclSuccess);
	cudaSetDevice(0);
	assert_int_equal(nc.ncclCommInitRankConfig(&c[0], 2, id, 0, &cfg), ncclInProgress);
	assert_int_equal(state_of(c[0]), ncclInProgress);
	cudaSetDevice(1);
	assert_int_equal(nc.ncclCommInitRankConfig(&c[1], 2, id, 1, &cfg), ncclInProgress);
	assert_int_equal(state_of(c[0]), ncclSuccess);
	assert_int_equal(state_of(c[1]), ncclSuccess);
	/* collectives on non-blocking comms: the group says in progress, then they are done */
	fill(2, ncclFloat32, ncclSum, COUNT);
	assert_int_equal(nc.ncclGroupStart(), ncclSuccess);
	for (int r = 0; r < 2; r++)
		assert_int_equal(nc.ncclAllReduce(ranks[r].send, ranks[r].recv, COUNT, ncclFloat32,
						  ncclSum, c[r], ranks[r].stream), ncclSuccess);
	assert_int_equal(nc.ncclGroupEnd(), ncclInProgress);
	sync_all(2);
	/* finalize (non-blocking: polled), then destroy */
	for (int r = 0; r < 2; r++) {
		ncclResult_t f = nc.ncclCommFinalize(c[r]);

		assert_true(f == ncclSuccess || f == ncclInProgress);
		while (state_of(c[r]) == ncclInProgress)
			;
		assert_int_equal(state_of(c[r]), ncclSuccess);
	}
	destroy_comms(2, c);
}

/* ncclCommInitAll, then the product's clean end: one group of finalizes, then destroys. */
static void test_init_all_finalize(void **state)
{
	ncclComm_t c[4];
	int devs[4] = { 3, 2, 1, 0 };

	(void)state;
	assert_int_equal(nc.ncclCommInitAll(c, 4, devs), ncclSuccess);
	for (int r = 0; r < 4; r++) {
		int rank = -1;

		assert_int_equal(nc.ncclCommUserRank(c[r], &rank), ncclSuccess);
		assert_int_equal(rank, r);
	}
	/* rank r is on GPU 3 - r: its stream is ranks[3 - r]'s */
	fill(4, ncclUint8, ncclMax, COUNT);
	assert_int_equal(nc.ncclGroupStart(), ncclSuccess);
	for (int r = 0; r < 4; r++)
		assert_int_equal(nc.ncclAllReduce(ranks[3 - r].send, ranks[3 - r].recv, COUNT,
						  ncclUint8, ncclMax, c[r], ranks[3 - r].stream),
				 ncclSuccess);
	assert_int_equal(nc.ncclGroupEnd(), ncclSuccess);
	assert_int_equal(nc.ncclGroupStart(), ncclSuccess);
	for (int r = 0; r < 4; r++)
		assert_int_equal(nc.ncclCommFinalize(c[r]), ncclSuccess);
	assert_int_equal(nc.ncclGroupEnd(), ncclSuccess); /* blocking: the work has drained */
	for (int r = 0; r < 4; r++) {
		const uint8_t *h = fetch(ranks[r].recv, COUNT);

		for (size_t i = 0; i < COUNT; i++)
			assert_int_equal(h[i], (int)expect_reduced(4, i, ncclMax, ncclUint8));
	}
	destroy_comms(4, c);
}

/* Split 4 ranks into two pairs by parity, reversed by key; use both children. */
static void test_split(void **state)
{
	ncclComm_t p[4], k[4];
	ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;

	(void)state;
	make_comms(4, false, p);
	cfg.blocking = 1;
	assert_int_equal(nc.ncclGroupStart(), ncclSuccess);
	for (int r = 0; r < 4; r++)
		assert_int_equal(nc.ncclCommSplit(p[r], r % 2, -r, &k[r], &cfg), ncclSuccess);
	/* the parents are non-blocking: the group is in progress, then ready */
	assert_int_equal(nc.ncclGroupEnd(), ncclInProgress);
	for (int r = 0; r < 4; r++) {
		int count = 0, rank = -1;

		assert_non_null(k[r]);
		assert_int_equal(state_of(p[r]), ncclSuccess);
		assert_int_equal(state_of(k[r]), ncclSuccess);
		assert_int_equal(nc.ncclCommCount(k[r], &count), ncclSuccess);
		assert_int_equal(nc.ncclCommUserRank(k[r], &rank), ncclSuccess);
		assert_int_equal(count, 2);
		assert_int_equal(rank, r < 2 ? 1 : 0); /* key -r: the higher parent rank first */
	}
	/* an all-reduce on the pairs {0,2} and {1,3}: ranks 2 and 3 are rank 0 there */
	fill(4, ncclInt32, ncclSum, COUNT);
	assert_int_equal(nc.ncclGroupStart(), ncclSuccess);
	for (int r = 0; r < 4; r++)
		assert_int_equal(nc.ncclAllReduce(ranks[r].send, ranks[r].recv, COUNT, ncclInt32,
						  ncclSum, k[r], ranks[r].stream), ncclSuccess);
	assert_int_equal(nc.ncclGroupEnd(), ncclSuccess);
	sync_all(4);
	for (int r = 0; r < 4; r++) {
		const int32_t *h = fetch(ranks[r].recv, COUNT * 4);

		for (size_t i = 0; i < COUNT; i++)
			assert_int_equal(h[i], input(r % 2, i, ncclSum) + input(r % 2 + 2, i, ncclSum));
	}
	destroy_comms(4, k);
	destroy_comms(4, p);
}

/* Whether rank 0's stream is still busy a little while after it was given work. */
static bool stream_busy(int r)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	return cudaStreamQuery(ranks[r].stream) == cudaErrorNotReady;
}

/* Rank 0 starts an all-reduce rank 1 never joins: it waits until its comm is aborted. */
static void test_abort_releases_waiter(void **state)
{
	ncclComm_t c[2];

	(void)state;
	make_comms(2, true, c);
	fill(2, ncclFloat32, ncclSum, COUNT);
	assert_int_equal(nc.ncclAllReduce(ranks[0].send, ranks[0].recv, COUNT, ncclFloat32, ncclSum,
					  c[0], ranks[0].stream), ncclSuccess);
	assert_true(stream_busy(0));
	/* work is queued: destroying the comm is an error, aborting it is the way out */
	assert_int_equal(nc.ncclCommDestroy(c[0]), ncclInvalidUsage);
	assert_int_equal(nc.ncclCommAbort(c[0]), ncclSuccess);
	assert_int_equal(cudaStreamSynchronize(ranks[0].stream), cudaSuccess);
	/* the abandoned op wrote nothing */
	assert_int_equal(((const uint8_t *)fetch(ranks[0].recv, 1))[0], 0xff);
	assert_int_equal(nc.ncclCommAbort(c[1]), ncclSuccess);
}

/* The same with revoke: the comm is in progress until quiescent, then aborted. */
static void test_revoke_releases_waiter(void **state)
{
	ncclComm_t c[2];

	(void)state;
	make_comms(2, true, c);
	assert_int_equal(nc.ncclBroadcast(ranks[1].send, ranks[1].recv, COUNT, ncclFloat32, 0, c[1],
					  ranks[1].stream), ncclSuccess);
	assert_true(stream_busy(1));
	assert_int_equal(nc.ncclCommRevoke(c[1], 0), ncclSuccess);
	assert_int_equal(cudaStreamSynchronize(ranks[1].stream), cudaSuccess);
	assert_int_equal(state_of(c[1]), ncclSuccess);
	/* a revoked comm takes no more work */
	assert_int_equal(nc.ncclAllReduce(ranks[1].send, ranks[1].recv, COUNT, ncclFloat32, ncclSum,
					  c[1], ranks[1].stream), ncclInvalidUsage);
	assert_int_equal(nc.ncclCommAbort(c[1]), ncclSuccess);
	assert_int_equal(nc.ncclCommAbort(c[0]), ncclSuccess);
}

/* Ranks that call with different counts: no data moved, both comms report it. */
static void test_ranks_disagree(void **state)
{
	ncclComm_t c[2];

	(void)state;
	make_comms(2, true, c);
	assert_int_equal(nc.ncclGroupStart(), ncclSuccess);
	for (int r = 0; r < 2; r++)
		assert_int_equal(nc.ncclAllReduce(ranks[r].send, ranks[r].recv, COUNT - (size_t)r,
						  ncclFloat32, ncclSum, c[r], ranks[r].stream),
				 ncclSuccess);
	assert_int_equal(nc.ncclGroupEnd(), ncclSuccess);
	sync_all(2);
	assert_int_equal(state_of(c[0]), ncclInvalidUsage);
	assert_int_equal(state_of(c[1]), ncclInvalidUsage);
	assert_string_not_equal(nc.ncclGetLastError(NULL), "");
	assert_int_equal(nc.ncclCommAbort(c[0]), ncclSuccess);
	assert_int_equal(nc.ncclCommAbort(c[1]), ncclSuccess);
}

/* Bad arguments are refused when called, with NCCL's codes. */
static void test_bad_arguments(void **state)
{
	ncclComm_t c[2];
	ncclUniqueId id;

	(void)state;
	memset(&id, 0, sizeof(id));
	assert_int_equal(nc.ncclCommInitRank(&c[0], 2, id, 0), ncclInvalidArgument);
	make_comms(2, true, c);
	assert_int_equal(nc.ncclBroadcast(ranks[0].send, ranks[0].recv, COUNT, ncclFloat32, 2, c[0],
					  ranks[0].stream), ncclInvalidArgument);
	assert_int_equal(nc.ncclAllReduce(ranks[0].send, ranks[0].recv, COUNT, ncclFloat8e4m3,
					  ncclSum, c[0], ranks[0].stream), ncclInvalidArgument);
	assert_int_equal(nc.ncclAllReduce(ranks[0].send, ranks[0].recv, COUNT, ncclFloat32,
					  ncclNumOps, c[0], ranks[0].stream), ncclInvalidArgument);
	/* the stream of another GPU */
	assert_int_equal(nc.ncclAllReduce(ranks[0].send, ranks[0].recv, COUNT, ncclFloat32, ncclSum,
					  c[0], ranks[1].stream), ncclUnhandledCudaError);
	assert_int_equal(nc.ncclGroupEnd(), ncclInvalidUsage); /* no group open */
	assert_string_equal(nc.ncclGetErrorString(ncclInProgress), "NCCL operation in progress");
	destroy_comms(2, c);
}

/* Both ranks' operations end at the same simulated time, after a plausible time. */
static void test_simulated_time(void **state)
{
	ncclComm_t c[2];
	cudaEvent_t start[2], stop[2];
	float ms[2];

	(void)state;
	make_comms(2, true, c);
	for (int r = 0; r < 2; r++) {
		cudaSetDevice(r);
		assert_int_equal(cudaEventCreate(&start[r]), cudaSuccess);
		assert_int_equal(cudaEventCreate(&stop[r]), cudaSuccess);
		assert_int_equal(cudaEventRecord(start[r], ranks[r].stream), cudaSuccess);
	}
	assert_int_equal(nc.ncclGroupStart(), ncclSuccess);
	for (int r = 0; r < 2; r++)
		assert_int_equal(nc.ncclAllReduce(ranks[r].send, ranks[r].recv, COUNT, ncclFloat32,
						  ncclSum, c[r], ranks[r].stream), ncclSuccess);
	assert_int_equal(nc.ncclGroupEnd(), ncclSuccess);
	for (int r = 0; r < 2; r++) {
		cudaSetDevice(r);
		assert_int_equal(cudaEventRecord(stop[r], ranks[r].stream), cudaSuccess);
		assert_int_equal(cudaEventSynchronize(stop[r]), cudaSuccess);
		assert_int_equal(cudaEventElapsedTime(&ms[r], start[r], stop[r]), cudaSuccess);
		cudaEventDestroy(start[r]);
		cudaEventDestroy(stop[r]);
	}
	/* a small all-reduce is latency: some microseconds, never zero, never a millisecond */
	for (int r = 0; r < 2; r++) {
		assert_true(ms[r] > 0.005f);
		assert_true(ms[r] < 1.0f);
	}
	assert_true(fabsf(ms[0] - ms[1]) < 0.2f * ms[0]);
	destroy_comms(2, c);
}

/*
 * ---- ranks in two processes (tests/sim/nccl/xproc.c) ----
 *
 * This test runs itself again as the peer (`--xp-peer HEX-ID MODE`): rank 1
 * on GPU 1 of the same machine file, rank 0 here on GPU 0. Both run the
 * same collectives on one blocking communicator and check their own
 * outputs; then a split (colour 0, keys reversed, so the ranks swap) and an
 * all-reduce on it. The peer's exit status is its count of wrong elements.
 * MODE "exit" makes the peer join and exit at once: rank 0's collective
 * must then fail with ncclRemoteError, not wait for ever.
 */

#define XP_COUNT COUNT

static void xp_fill(int me, float *host)
{
	for (size_t i = 0; i < 2 * XP_COUNT; i++)
		host[i] = (float)(me * 100 + (int)i);
}

/* Wrong elements of rank me's output of collective `which` (2 ranks, fill above). */
static int xp_wrong(int which, int me, const float *out)
{
	int bad = 0;

	for (size_t j = 0; j < 2; j++)
		for (size_t i = 0; i < XP_COUNT; i++) {
			size_t at = j * XP_COUNT + i;
			double want;

			switch (which) {
			case 0: /* allreduce sum */
			case 4: /* reduce sum to root 0: only rank 0's output */
				if (j || (which == 4 && me != 0))
					continue;
				want = 100 + 2.0 * (double)i;
				break;
			case 1: /* allgather */
				want = (double)j * 100 + (double)i;
				break;
			case 2: /* reducescatter: chunk me of both ranks' input, summed */
				if (j)
					continue;
				want = 100 + 2.0 * (double)(me * XP_COUNT + i);
				break;
			case 3: /* broadcast from root 1 */
				if (j)
					continue;
				want = 100 + (double)i;
				break;
			default: /* alltoall: chunk me of rank j's input */
				want = (double)j * 100 + (double)(me * XP_COUNT + i);
				break;
			}
			bad += out[at] != (float)want;
		}
	return bad;
}

static ncclResult_t xp_post(int which, ncclComm_t c, const void *s, void *r, cudaStream_t st)
{
	switch (which) {
	case 0:
		return nc.ncclAllReduce(s, r, XP_COUNT, ncclFloat32, ncclSum, c, st);
	case 1:
		return nc.ncclAllGather(s, r, XP_COUNT, ncclFloat32, c, st);
	case 2:
		return nc.ncclReduceScatter(s, r, XP_COUNT, ncclFloat32, ncclSum, c, st);
	case 3:
		return nc.ncclBroadcast(s, r, XP_COUNT, ncclFloat32, 1, c, st);
	case 4:
		return nc.ncclReduce(s, r, XP_COUNT, ncclFloat32, ncclSum, 0, c, st);
	default:
		return nc.ncclAlltoAll(s, r, XP_COUNT, ncclFloat32, c, st);
	}
}

/* Rank me of 2 on GPU me: every collective, then a split; wrong elements, or -1. */
static int xp_rank(int me, const ncclUniqueId *id)
{
	float host[4 * XP_COUNT];
	ncclComm_t c = NULL, child = NULL;
	ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
	struct rank *k = &ranks[me];
	int bad = 0, child_rank = -1;

	if (cudaSetDevice(me) || nc.ncclCommInitRank(&c, 2, *id, me) != ncclSuccess)
		return -1;
	xp_fill(me, host);
	for (int which = 0; which < 6; which++) {
		memset(host + 2 * XP_COUNT, 0xff, 2 * XP_COUNT * sizeof(float));
		if (cudaMemcpy(k->send, host, 2 * XP_COUNT * sizeof(float), cudaMemcpyHostToDevice) ||
		    cudaMemcpy(k->recv, host + 2 * XP_COUNT, 2 * XP_COUNT * sizeof(float),
			       cudaMemcpyHostToDevice) ||
		    xp_post(which, c, k->send, k->recv, k->stream) != ncclSuccess ||
		    cudaStreamSynchronize(k->stream) ||
		    cudaMemcpy(host + 2 * XP_COUNT, k->recv, 2 * XP_COUNT * sizeof(float),
			       cudaMemcpyDeviceToHost))
			return -1;
		bad += xp_wrong(which, me, host + 2 * XP_COUNT);
	}
	/* keys reversed: rank 1 of the parent is rank 0 of the child */
	cfg.blocking = 1;
	if (nc.ncclCommSplit(c, 0, 1 - me, &child, &cfg) != ncclSuccess || !child ||
	    nc.ncclCommUserRank(child, &child_rank) != ncclSuccess || child_rank != 1 - me ||
	    nc.ncclAllReduce(k->send, k->recv, XP_COUNT, ncclFloat32, ncclSum, child, k->stream) ||
	    cudaStreamSynchronize(k->stream) ||
	    cudaMemcpy(host + 2 * XP_COUNT, k->recv, XP_COUNT * sizeof(float),
		       cudaMemcpyDeviceToHost))
		return -1;
	bad += xp_wrong(0, 0, host + 2 * XP_COUNT);
	if (nc.ncclCommDestroy(child) != ncclSuccess || nc.ncclCommDestroy(c) != ncclSuccess)
		return -1;
	return bad;
}

/* The peer process: argv[2] the id in hex, argv[3] "run" or "exit". */
static int xp_peer(char **argv)
{
	ncclUniqueId id;
	ncclComm_t c = NULL;
	int rc;

	for (size_t i = 0; i < sizeof(id.internal); i++) {
		unsigned v = 0;

		if (sscanf(argv[2] + 2 * i, "%2x", &v) != 1)
			return 100;
		id.internal[i] = (char)v;
	}
	if (load_nccl(NULL))
		return 101;
	if (!strcmp(argv[3], "exit")) {
		/* joins, then is gone before any collective: its peer must not wait for ever */
		cudaSetDevice(1);
		_exit(nc.ncclCommInitRank(&c, 2, id, 1) == ncclSuccess ? 0 : 102);
	}
	rc = xp_rank(1, &id);
	unload(NULL);
	return rc < 0 ? 103 : rc > 99 ? 99 : rc;
}

/* Start this test again as rank 1, with id; its pid. */
static pid_t xp_spawn(const ncclUniqueId *id, const char *mode)
{
	char hex[2 * sizeof(id->internal) + 1], self[4096];
	char *argv[] = { self, "--xp-peer", hex, (char *)mode, NULL };
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	pid_t pid;

	assert_true(n > 0);
	self[n] = '\0';
	for (size_t i = 0; i < sizeof(id->internal); i++)
		snprintf(hex + 2 * i, 3, "%02x", (unsigned char)id->internal[i]);
	assert_int_equal(posix_spawn(&pid, self, NULL, NULL, argv, environ), 0);
	return pid;
}

/* No segment tagged for this test is left in /dev/shm. */
static int xp_segments_left(const char *tag)
{
	char prefix[64];
	struct dirent *e;
	DIR *d = opendir("/dev/shm");
	int n = 0;

	snprintf(prefix, sizeof(prefix), "gbsimnccl.%s.", tag);
	while (d && (e = readdir(d)))
		n += !strncmp(e->d_name, prefix, strlen(prefix));
	if (d)
		closedir(d);
	return n;
}

static void test_two_processes(void **state)
{
	char tag[32];
	ncclUniqueId id;
	pid_t pid;
	int status = -1;

	(void)state;
	snprintf(tag, sizeof(tag), "u%d", (int)getpid());
	setenv("GBSIM_NCCL_SHM_TAG", tag, 1);
	assert_int_equal(nc.ncclGetUniqueId(&id), ncclSuccess);
	pid = xp_spawn(&id, "run");
	assert_int_equal(xp_rank(0, &id), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0); /* rank 1's outputs were right too */
	assert_int_equal(xp_segments_left(tag), 0);
	unsetenv("GBSIM_NCCL_SHM_TAG");
}

static void test_peer_process_exits(void **state)
{
	char tag[32];
	ncclUniqueId id;
	ncclComm_t c = NULL;
	ncclResult_t a = ncclSuccess;
	pid_t pid;
	int status = -1;

	(void)state;
	snprintf(tag, sizeof(tag), "v%d", (int)getpid());
	setenv("GBSIM_NCCL_SHM_TAG", tag, 1);
	assert_int_equal(nc.ncclGetUniqueId(&id), ncclSuccess);
	pid = xp_spawn(&id, "exit");
	assert_int_equal(cudaSetDevice(0), cudaSuccess);
	assert_int_equal(nc.ncclCommInitRank(&c, 2, id, 0), ncclSuccess);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* the peer is gone: the collective ends (abandoned), the communicator says why */
	assert_int_equal(nc.ncclAllReduce(ranks[0].send, ranks[0].recv, XP_COUNT, ncclFloat32,
					  ncclSum, c, ranks[0].stream), ncclSuccess);
	assert_int_equal(cudaStreamSynchronize(ranks[0].stream), cudaSuccess);
	assert_int_equal(nc.ncclCommGetAsyncError(c, &a), ncclSuccess);
	assert_int_equal(a, ncclRemoteError);
	assert_non_null(strstr(nc.ncclGetLastError(c), "exited"));
	assert_int_equal(nc.ncclCommAbort(c), ncclSuccess);
	assert_int_equal(xp_segments_left(tag), 0);
	unsetenv("GBSIM_NCCL_SHM_TAG");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allreduce_2),
		cmocka_unit_test(test_allreduce_4),
		cmocka_unit_test(test_collectives_2),
		cmocka_unit_test(test_collectives_4),
		cmocka_unit_test(test_nonblocking_init),
		cmocka_unit_test(test_init_all_finalize),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_abort_releases_waiter),
		cmocka_unit_test(test_revoke_releases_waiter),
		cmocka_unit_test(test_ranks_disagree),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_simulated_time),
		cmocka_unit_test(test_two_processes),
		cmocka_unit_test(test_peer_process_exits),
	};

	if (argc == 4 && !strcmp(argv[1], "--xp-peer"))
		return xp_peer(argv);
	return cmocka_run_group_tests(tests, load_nccl, unload);
}
