/* SPDX-License-Identifier: MIT */
/*
 * kx_mma_tail.h - what the host build of kernels/mma.cu needs after it: the
 * extern __shared__ array its kernel declares, defined in the same unnamed
 * namespace as the block-scope declaration, at the largest dynamic size a
 * block can ask for. Launches that ask for less get memcheck findings for
 * accesses past their size (kexec_check.cc).
 */
namespace {

constexpr size_t kKxMaxDynamicSmem = 232448;  /* sm_90's opt-in maximum, 227 KiB */
thread_local __attribute__((aligned(128))) unsigned char smem[kKxMaxDynamicSmem];

/* the executor learns where it is before main */
[[maybe_unused]] const bool kx_smem_registered =
	(gb_kx_register_dynamic_smem(smem, sizeof smem), gb_kx_tu_dynamic_smem = smem, true);

}  // namespace
