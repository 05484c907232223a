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
