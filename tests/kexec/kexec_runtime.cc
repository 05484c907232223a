/* SPDX-License-Identifier: MIT */
/*
 * kexec_runtime.cc - the part of the CUDA runtime API that the kernels'
 * launchers and the executor's tests call, on host memory. Device memory is
 * host memory the checks know about (cudaMalloc registers it with memcheck,
 * filled with 0xff bytes as a poison: a NaN for every float type); streams
 * are all one, and every call completes before it returns. The device it
 * describes is gb_kx_set_device's (an H100 unless a test says otherwise).
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#include <cuda.h>

#include "tests/kexec/kexec_internal.h"

namespace gb_kx {

device_model device = { 9, 0, 233472, 232448 };

namespace {

cudaError_t last_error = cudaSuccess;
std::map<const void *, int> max_dyn_smem;  /* cudaFuncAttributeMaxDynamicSharedMemorySize */

cudaError_t keep(cudaError_t e)
{
	if (e != cudaSuccess)
		last_error = e;
	return e;
}

}  // namespace

size_t func_max_dyn_smem(const void *func)
{
	auto it = max_dyn_smem.find(func);

	return it == max_dyn_smem.end() ? 48 * 1024 : (size_t)it->second;
}

void set_last_error(cudaError_t e)
{
	keep(e);
}

}  // namespace gb_kx

using namespace gb_kx;

extern "C" void gb_kx_set_device(int cc_major, int cc_minor, int smem_per_sm,
				 int smem_per_block_optin)
{
	device = { cc_major, cc_minor, smem_per_sm, smem_per_block_optin };
}

cudaError_t cudaGetLastError(void)
{
	cudaError_t e = last_error;

	last_error = cudaSuccess;
	return e;
}

cudaError_t cudaPeekAtLastError(void)
{
	return last_error;
}

const char *cudaGetErrorString(cudaError_t e)
{
	static char buf[32];

	snprintf(buf, sizeof buf, "cuda error %d", (int)e);
	return buf;
}

cudaError_t cudaGetDevice(int *dev)
{
	*dev = 0;
	return cudaSuccess;
}

cudaError_t cudaSetDevice(int dev)
{
	return keep(dev == 0 ? cudaSuccess : cudaErrorInvalidDevice);
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int dev)
{
	if (dev != 0)
		return keep(cudaErrorInvalidDevice);
	switch (attr) {
	case cudaDevAttrComputeCapabilityMajor:
		*value = device.cc_major;
		return cudaSuccess;
	case cudaDevAttrComputeCapabilityMinor:
		*value = device.cc_minor;
		return cudaSuccess;
	case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
		*value = device.smem_per_sm;
		return cudaSuccess;
	case cudaDevAttrMaxSharedMemoryPerBlockOptin:
		*value = device.smem_per_block_optin;
		return cudaSuccess;
	case cudaDevAttrMaxThreadsPerMultiProcessor:
		*value = 2048;
		return cudaSuccess;
	case cudaDevAttrMultiProcessorCount:
		*value = 132;
		return cudaSuccess;
	case cudaDevAttrMaxThreadsPerBlock:
		*value = 1024;
		return cudaSuccess;
	default:
		return keep(cudaErrorInvalidValue);
	}
}

cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
	if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize)
		return cudaSuccess;
	if (value < 0 || value > device.smem_per_block_optin)
		return keep(cudaErrorInvalidValue);
	max_dyn_smem[func] = value;
	return cudaSuccess;
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
	memset(attr, 0, sizeof *attr);
	attr->maxThreadsPerBlock = 1024;
	/* what ptxas gives a __launch_bounds__(384, 1) kernel: wgmma.cu checks it */
	attr->numRegs = 168;
	attr->maxDynamicSharedSizeBytes = (int)func_max_dyn_smem(func);
	return cudaSuccess;
}

cudaError_t cudaMalloc(void **p, size_t bytes)
{
	/* 256-byte aligned like the real one; the poison makes unwritten outputs NaN */
	size_t rounded = (bytes + 255) / 256 * 256;
	void *m = aligned_alloc(256, rounded ? rounded : 256);

	if (!m)
		return keep(cudaErrorMemoryAllocation);
	memset(m, 0xff, rounded);
	register_allocation(m, bytes);
	*p = m;
	return cudaSuccess;
}

cudaError_t cudaFree(void *p)
{
	if (!p)
		return cudaSuccess;
	if (!unregister_allocation(p, nullptr))
		return keep(cudaErrorInvalidValue);
	free(p);
	return cudaSuccess;
}

cudaError_t cudaMallocHost(void **p, size_t bytes)
{
	return cudaMalloc(p, bytes);
}

cudaError_t cudaHostAlloc(void **p, size_t bytes, unsigned int)
{
	return cudaMalloc(p, bytes);
}

cudaError_t cudaFreeHost(void *p)
{
	return cudaFree(p);
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind)
{
	memmove(dst, src, n);
	return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
			    cudaStream_t)
{
	return cudaMemcpy(dst, src, n, kind);
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
			      size_t width, size_t height, enum cudaMemcpyKind, cudaStream_t)
{
	for (size_t r = 0; r < height; r++)
		memmove((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
	return cudaSuccess;
}

cudaError_t cudaMemset(void *p, int v, size_t n)
{
	memset(p, v, n);
	return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t)
{
	return cudaMemset(p, v, n);
}

cudaError_t cudaDeviceSynchronize(void)
{
	return last_error;
}

cudaError_t cudaStreamSynchronize(cudaStream_t)
{
	return last_error;
}

/* ---- events: every call completes before it returns, so an event is always reached ---- */

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned int)
{
	static int token;

	*e = reinterpret_cast<cudaEvent_t>(&token);
	return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t)
{
	return keep(e ? cudaSuccess : cudaErrorInvalidResourceHandle);
}

cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
	return keep(e ? cudaSuccess : cudaErrorInvalidResourceHandle);
}

cudaError_t cudaEventDestroy(cudaEvent_t e)
{
	return keep(e ? cudaSuccess : cudaErrorInvalidResourceHandle);
}

cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t e, unsigned int)
{
	return keep(e ? cudaSuccess : cudaErrorInvalidResourceHandle);
}

/* ---- the driver's tensor maps (TMA), for cudaGetDriverEntryPointByVersion ---- */

namespace {

unsigned tensor_elem_bytes(CUtensorMapDataType t)
{
	switch (t) {
	case CU_TENSOR_MAP_DATA_TYPE_UINT8:
		return 1;
	case CU_TENSOR_MAP_DATA_TYPE_UINT16:
	case CU_TENSOR_MAP_DATA_TYPE_FLOAT16:
	case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16:
		return 2;
	case CU_TENSOR_MAP_DATA_TYPE_UINT32:
	case CU_TENSOR_MAP_DATA_TYPE_INT32:
	case CU_TENSOR_MAP_DATA_TYPE_FLOAT32:
	case CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ:
	case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32:
	case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ:
		return 4;
	case CU_TENSOR_MAP_DATA_TYPE_UINT64:
	case CU_TENSOR_MAP_DATA_TYPE_INT64:
	case CU_TENSOR_MAP_DATA_TYPE_FLOAT64:
		return 8;
	default:
		return 0;  /* the packed sub-byte types: not emulated */
	}
}

/* the swizzle span in bytes, 0 for none */
unsigned swizzle_bytes(CUtensorMapSwizzle s)
{
	return s == CU_TENSOR_MAP_SWIZZLE_32B	? 32
	       : s == CU_TENSOR_MAP_SWIZZLE_64B ? 64
	       : s == CU_TENSOR_MAP_SWIZZLE_128B ? 128
						 : 0;
}

/*
 * cuTensorMapEncodeTiled, with the requirements of the driver API's
 * reference ("Tensor Map Object Management"): tensorMap 64-byte aligned;
 * rank 1..5 (3.. when interleaved); globalAddress 16-byte aligned (32 with
 * 32-byte interleave); each globalDim non-zero and at most 2^32;
 * globalStrides multiples of 16 below 2^40, the first at least
 * globalDim[0] x element size; boxDim non-zero, at most 256, and with no
 * interleave boxDim[0] x element size a multiple of 16 bytes; elementStrides
 * 1..8; with a swizzle and no interleave, boxDim[0] x element size at most
 * the swizzle span. Interleaved layouts are refused here (not emulated).
 */
CUresult CUDAAPI kx_tensor_map_encode_tiled(CUtensorMap *map, CUtensorMapDataType type,
					    cuuint32_t rank, void *base, const cuuint64_t *dims,
					    const cuuint64_t *strides, const cuuint32_t *box,
					    const cuuint32_t *elem_strides,
					    CUtensorMapInterleave interleave,
					    CUtensorMapSwizzle swizzle,
					    CUtensorMapL2promotion l2,
					    CUtensorMapFloatOOBfill oob)
{
	const unsigned eb = tensor_elem_bytes(type);
	tensor_map tm = {};

	if (!map || (uintptr_t)map % 64 || !eb || rank < 1 || rank > 5 ||
	    interleave != CU_TENSOR_MAP_INTERLEAVE_NONE || !base || (uintptr_t)base % 16)
		return CUDA_ERROR_INVALID_VALUE;
	for (cuuint32_t i = 0; i < rank; i++) {
		if (!dims[i] || dims[i] > (1ull << 32) || !box[i] || box[i] > 256 ||
		    !elem_strides[i] || elem_strides[i] > 8)
			return CUDA_ERROR_INVALID_VALUE;
		if (i + 1 < rank && (strides[i] % 16 || strides[i] >= (1ull << 40)))
			return CUDA_ERROR_INVALID_VALUE;
	}
	if (rank > 1 && strides[0] < dims[0] * eb)
		return CUDA_ERROR_INVALID_VALUE;
	if (box[0] * eb % 16 || (swizzle_bytes(swizzle) && box[0] * eb > swizzle_bytes(swizzle)))
		return CUDA_ERROR_INVALID_VALUE;
	tm.magic = kTensorMapMagic;
	tm.rank = (uint8_t)rank;
	tm.dtype = (uint8_t)type;
	tm.elem_bytes = (uint8_t)eb;
	tm.swizzle = (uint8_t)swizzle;
	tm.interleave = (uint8_t)interleave;
	tm.oob_fill = (uint8_t)oob;
	tm.l2 = (uint8_t)l2;
	tm.base = static_cast<const unsigned char *>(base);
	for (cuuint32_t i = 0; i < rank; i++) {
		tm.dims[i] = dims[i];
		tm.box[i] = (uint16_t)box[i];
		tm.elem_strides[i] = (uint8_t)elem_strides[i];
		if (i + 1 < rank)
			tm.strides[i] = strides[i];
	}
	memset(map, 0, sizeof *map);
	memcpy(map, &tm, sizeof tm);
	return CUDA_SUCCESS;
}

/* cuTensorMapReplaceAddress: the same map on another (16-byte aligned) buffer */
CUresult CUDAAPI kx_tensor_map_replace_address(CUtensorMap *map, void *base)
{
	tensor_map tm;

	if (!map || (uintptr_t)map % 64 || !base || (uintptr_t)base % 16)
		return CUDA_ERROR_INVALID_VALUE;
	memcpy(&tm, map, sizeof tm);
	if (tm.magic != kTensorMapMagic)
		return CUDA_ERROR_INVALID_VALUE;
	tm.base = static_cast<const unsigned char *>(base);
	memcpy(map, &tm, sizeof tm);
	return CUDA_SUCCESS;
}

}  // namespace

/* the driver entry points the kernels' launchers look up: the two tensor-map calls */
cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **fn, unsigned int,
					     unsigned long long,
					     enum cudaDriverEntryPointQueryResult *status)
{
	void *p = nullptr;

	if (!strcmp(symbol, "cuTensorMapEncodeTiled"))
		p = reinterpret_cast<void *>(&kx_tensor_map_encode_tiled);
	else if (!strcmp(symbol, "cuTensorMapReplaceAddress"))
		p = reinterpret_cast<void *>(&kx_tensor_map_replace_address);
	*fn = p;
	if (status)
		*status = p ? cudaDriverEntryPointSuccess : cudaDriverEntryPointSymbolNotFound;
	return cudaSuccess;
}
