/* SPDX-License-Identifier: MIT */
/*
 * catalog.h - the simulator's own spec sheets and link rates.
 *
 * The simulated GPUs take their peaks, bandwidths and link rates from here
 * and from the machine file, never from the product's theory
 * (report/theory.c): the product's "% of peak" and every figure an
 * end-to-end test predicts are then checked against numbers the product
 * did not produce. The figures are NVIDIA's published dense spec-sheet
 * values, written out as data (docs/simulation.md, "The simulator's
 * catalog"). The product's catalog is still consulted, as a check only:
 * the machine loader asks gb_gpu_spec_match whether the product recognises
 * each simulated device name as the same model.
 */
#ifndef GPUBENCH_TESTS_SIM_CATALOG_H
#define GPUBENCH_TESTS_SIM_CATALOG_H

#include "tests/sim/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gbsim_model {
	const char *key;           /* the product's key, `gpubench theory --list` */
	const char *device_name;   /* what the real device calls itself */
	int cc_major, cc_minor;
	int sm_count;
	int boost_mhz;
	double memory_gb;          /* as marketed; GiB of chips on HBM and GDDR alike */
	double mem_bw_gbps;        /* spec memory bandwidth, GB/s (1e9 bytes/s) */
	int bus_bits;              /* memory bus width */
	int pcie_gen;              /* host link generation (x16) */
	int nvlink_gen;            /* 0: none */
	int nvlink_links;          /* links per GPU, 0: none */
	double tdp_w;
	bool geforce;              /* GeForce: FP32-accumulate tensor math at half rate */
	/*
	 * Dense TFLOP/s (TOPS for int8) per precision as the spec sheet prints
	 * it: fp64 the CUDA-core rate, fp16/bf16/fp8 with FP32 accumulate,
	 * sparsity figures halved; 0 where the part has none or none is published.
	 */
	double dense_tflops[GBSIM_PREC_COUNT];
};

/* The model of that key (case-insensitive), or NULL. */
const struct gbsim_model *gbsim_model_by_key(const char *key);
/* Every model, terminated by an entry whose key is NULL. */
const struct gbsim_model *gbsim_models(void);

/*
 * PCIe per direction, bytes/s: the lanes' signalling rate minus the line
 * encoding (8b/10b on gen 1-2, 128b/130b on gen 3-5, the 242 B of 256 B
 * flits of gen 6), times the width. 0 outside gen 1-6 or width 1-32.
 */
double gbsim_pcie_bps(int gen, int width);
/* NVLink per link per direction, bytes/s, by generation (1-5); 0 otherwise. */
double gbsim_nvlink_link_bps(int gen);

#ifdef __cplusplus
}
#endif

#endif
