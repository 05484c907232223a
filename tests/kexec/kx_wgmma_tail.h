/* SPDX-License-Identifier: MIT */
/*
 * kx_wgmma_tail.h - what the host build of kernels/wgmma.cu needs after it:
 * its extern __shared__ array, defined in the same unnamed namespace as the
 * block-scope declaration, at the largest dynamic size a block can ask for
 * (see kx_mma_tail.h). Also after each planted-bug copy of wgmma.cu
 * (CMakeLists.txt), each with its own array.
 */
namespace {

constexpr size_t kKxMaxDynamicSmem = 232448;  /* sm_90's opt-in maximum, 227 KiB */
thread_local __attribute__((aligned(1024))) unsigned char smem_raw[kKxMaxDynamicSmem];

/* the executor learns where it is before main */
[[maybe_unused]] const bool kx_smem_registered =
	(gb_kx_register_dynamic_smem(smem_raw, sizeof smem_raw), gb_kx_tu_dynamic_smem = smem_raw, true);

}  // namespace
