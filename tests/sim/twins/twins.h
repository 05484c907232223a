/* SPDX-License-Identifier: MIT */
/*
 * twins.h - the CPU twins of every kernel in the .cu files of kernels/, one table per file.
 *
 * To add a kernel: write its twin in the twins file of its .cu (the name is
 * the demangled, normalised name, see struct gbsim_twin in sim.h). A launch
 * with no twin, or a name found twice, stops the simulator with a message
 * naming the kernel.
 */
#ifndef GPUBENCH_TESTS_SIM_TWINS_H
#define GPUBENCH_TESTS_SIM_TWINS_H

#include "tests/sim/sim.h"

#define GBSIM_TWIN_TABLES(X) \
	X(copy)              \
	X(fill)              \
	X(verify)            \
	X(stress)            \
	X(nccl_check)        \
	X(sgemm)             \
	X(sgemm_tiled)       \
	X(mma)               \
	X(wgmma)

#define GBSIM_TWIN_DECLARE(file)                                   \
	extern const struct gbsim_twin gbsim_twins_##file[];       \
	extern const struct gbsim_twin_check gbsim_twin_checks_##file[];
GBSIM_TWIN_TABLES(GBSIM_TWIN_DECLARE)
#undef GBSIM_TWIN_DECLARE

#endif
