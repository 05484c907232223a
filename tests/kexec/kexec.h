/* SPDX-License-Identifier: MIT */
/*
 * kexec.h - what a test of the kernel executor sees (plain C).
 *
 * The executor runs the kernels' .cu files as written on the CPU (tests/kexec/README.md):
 * the launchers' CUDA runtime calls come from kexec_runtime.cc, so a test
 * allocates with cudaMalloc, launches through the kernels' own gb_launch_*,
 * and reads results back with cudaMemcpy. Every launch runs to completion
 * before the launcher returns. What the checks found is counted here; each
 * finding was printed on stderr when it happened, in compute-sanitizer's words.
 */
#ifndef GPUBENCH_TESTS_KEXEC_KEXEC_H
#define GPUBENCH_TESTS_KEXEC_KEXEC_H

#ifdef __cplusplus
extern "C" {
#endif

/* findings since the last gb_kx_reset_findings, by checker */
struct gb_kx_findings {
	unsigned long memcheck;  /* invalid global, shared or local accesses (the grid stops) */
	unsigned long racecheck; /* shared-memory hazards between threads of a block */
	unsigned long synccheck; /* barrier or warp-collective misuse, deadlocks, __trap */
};

struct gb_kx_findings gb_kx_findings(void);
void gb_kx_reset_findings(void);

/*
 * The device the runtime describes (cudaDeviceGetAttribute): compute
 * capability and shared-memory limits of an H100 (9.0) by default.
 */
void gb_kx_set_device(int cc_major, int cc_minor, int smem_per_sm, int smem_per_block_optin);

/* launches run so far (a test checks that its launcher really launched) */
unsigned long gb_kx_launches(void);

#ifdef __cplusplus
}
#endif

#endif
