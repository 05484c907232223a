/* SPDX-License-Identifier: MIT */
/*
 * driver.c - driver functions the project reaches through
 * cudaGetDriverEntryPointByVersion (kernels/wgmma.cu's tensor maps). Their
 * stand-ins live with the wgmma twin (tests/sim/twins/twins_wgmma.c); until
 * that file defines them, weak ones here say "not supported", which the
 * product treats as a driver without tensor maps.
 */
#include "tests/sim/runtime/rt.h"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <string.h>

CUresult gbsim_drv_cuTensorMapEncodeTiled(CUtensorMap *tensorMap, CUtensorMapDataType tensorDataType,
					  cuuint32_t tensorRank, void *globalAddress,
					  const cuuint64_t *globalDim, const cuuint64_t *globalStrides,
					  const cuuint32_t *boxDim, const cuuint32_t *elementStrides,
					  CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
					  CUtensorMapL2promotion l2Promotion,
					  CUtensorMapFloatOOBfill oobFill);
CUresult gbsim_drv_cuTensorMapReplaceAddress(CUtensorMap *tensorMap, void *globalAddress);

__attribute__((weak)) CUresult gbsim_drv_cuTensorMapEncodeTiled(
	CUtensorMap *tensorMap, CUtensorMapDataType tensorDataType, cuuint32_t tensorRank,
	void *globalAddress, const cuuint64_t *globalDim, const cuuint64_t *globalStrides,
	const cuuint32_t *boxDim, const cuuint32_t *elementStrides, CUtensorMapInterleave interleave,
	CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
	CUtensorMapFloatOOBfill oobFill)
{
	(void)tensorMap, (void)tensorDataType, (void)tensorRank, (void)globalAddress;
	(void)globalDim, (void)globalStrides, (void)boxDim, (void)elementStrides;
	(void)interleave, (void)swizzle, (void)l2Promotion, (void)oobFill;
	return CUDA_ERROR_NOT_SUPPORTED;
}

__attribute__((weak)) CUresult gbsim_drv_cuTensorMapReplaceAddress(CUtensorMap *tensorMap,
								   void *globalAddress)
{
	(void)tensorMap, (void)globalAddress;
	return CUDA_ERROR_NOT_SUPPORTED;
}

/* checked by the compiler: the stand-ins have exactly the driver's types */
static const PFN_cuTensorMapEncodeTiled_v12000 encode_tiled = gbsim_drv_cuTensorMapEncodeTiled;
static const PFN_cuTensorMapReplaceAddress_v12000 replace_address =
	gbsim_drv_cuTensorMapReplaceAddress;

cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr,
					     unsigned int cudaVersion, unsigned long long flags,
					     enum cudaDriverEntryPointQueryResult *driverStatus)
{
	void *fn = NULL;

	(void)flags;
	if (!symbol || !funcPtr)
		return rt_ret(cudaErrorInvalidValue);
	if (cudaVersion >= 12000 && !strcmp(symbol, "cuTensorMapEncodeTiled"))
		fn = (void *)encode_tiled;
	else if (cudaVersion >= 12000 && !strcmp(symbol, "cuTensorMapReplaceAddress"))
		fn = (void *)replace_address;
	*funcPtr = fn;
	if (driverStatus)
		*driverStatus = fn ? cudaDriverEntryPointSuccess : cudaDriverEntryPointSymbolNotFound;
	if (!fn)
		gbsim_log("driver function '%s' (version %u) is not simulated", symbol, cudaVersion);
	return cudaSuccess;
}
