/* SPDX-License-Identifier: MIT */
/*
 * kexec_launch.h - GB_LAUNCH (kernels/launch.cuh) in the host build:
 *   GB_LAUNCH(grid, block, smem, stream, kernel)(args...)
 * becomes a call object that converts args to the kernel's parameter types,
 * as a launch does, keeps them in one place (the launch's param space, which
 * the kernel may read) and runs the grid on the executor, each CUDA thread
 * calling the kernel with its own by-value copies.
 */
#ifndef GPUBENCH_TESTS_KEXEC_KEXEC_LAUNCH_H
#define GPUBENCH_TESTS_KEXEC_KEXEC_LAUNCH_H

#include <cuda_runtime.h>

#include <tuple>
#include <type_traits>
#include <utility>

#include "tests/kexec/kexec_device.h"

/*
 * The extern __shared__ array of this translation unit's kernels, set
 * before main by its kx_<name>_tail.h (null without one): the launch's
 * dynamic shared memory, whose place the executor needs where an
 * instruction names shared memory in fewer bits than the host's window
 * has (wgmma's matrix descriptors, kexec_wgmma.cc).
 */
[[maybe_unused]] static unsigned char *gb_kx_tu_dynamic_smem = nullptr;

template <typename... P> struct gb_kx_launch_call {
	void (*kernel)(P...);
	const char *name;
	dim3 grid, block;
	size_t smem;
	const void *dyn_array;

	template <typename... A> cudaError_t operator()(A &&...a) const
	{
		using args_t = std::tuple<std::decay_t<P>...>;
		struct ctx_t {
			void (*kernel)(P...);
			args_t args;
		} ctx{ kernel, args_t(static_cast<std::decay_t<P>>(std::forward<A>(a))...) };

		return gb_kx_run_grid(
			name, (const void *)kernel, grid, block, smem, dyn_array,
			[](void *c) {
				ctx_t *x = static_cast<ctx_t *>(c);
				std::apply(x->kernel, x->args);
			},
			&ctx, &ctx, sizeof ctx);
	}
};

template <typename... P>
gb_kx_launch_call<P...> gb_kx_launch(dim3 grid, dim3 block, size_t smem, cudaStream_t,
				     const void *dyn_array, const char *name, void (*kernel)(P...))
{
	return gb_kx_launch_call<P...>{ kernel, name, grid, block, smem, dyn_array };
}

#define GB_LAUNCH(grid, block, smem, stream, ...)                                                  \
	gb_kx_launch((grid), (block), (smem), (stream), gb_kx_tu_dynamic_smem, #__VA_ARGS__,        \
		     __VA_ARGS__)

#endif
