/* SPDX-License-Identifier: MIT */
/*
 * catalog.c - the simulator's own spec sheets and link rates (catalog.h).
 *
 * Every figure is written out from NVIDIA's published datasheets and
 * architecture whitepapers, dense (a "with sparsity" figure halved), not
 * computed from per-SM rates and clocks as the product's theory is: two
 * sources that agree within rounding (test_sim_machine checks within 5%)
 * make the product's "% of peak" a check rather than an identity.
 *
 * tests/sim/e2e/expect.py reads this table to predict what a simulated run
 * measures: keep one brace group per model, its fields in struct
 * gbsim_model's order, the peaks in TF(...).
 */
#include "tests/sim/catalog.h"

#include <strings.h>

/* fp64, fp32, tf32, fp16, bf16, fp8, int8 (TOPS), in enum gbsim_precision order */
#define TF(fp64, fp32, tf32, fp16, bf16, fp8, int8) { fp64, fp32, tf32, fp16, bf16, fp8, int8 }

static const struct gbsim_model models[] = {
	/* Tesla V100 datasheet (SXM2: 1530 MHz; PCIe: 1380 MHz); NVLink 2, 6 links */
	{ "v100-sxm2", "Tesla V100-SXM2-32GB", 7, 0, 80, 1530, 32, 900, 4096, 3, 2, 6, 300, false,
	  TF(7.8, 15.7, 0, 125, 0, 0, 0) },
	{ "v100-pcie", "Tesla V100-PCIE-16GB", 7, 0, 80, 1380, 16, 900, 4096, 3, 0, 0, 250, false,
	  TF(7.0, 14.0, 0, 112, 0, 0, 0) },
	/* T4 datasheet: mixed precision FP16/FP32 65 TFLOPS, INT8 130 TOPS */
	{ "t4", "Tesla T4", 7, 5, 40, 1590, 16, 320, 256, 3, 0, 0, 70, false,
	  TF(0.25, 8.1, 0, 65, 0, 0, 130) },
	/* A10 datasheet; FP64 is GA102's 1/64 rate */
	{ "a10", "NVIDIA A10", 8, 6, 72, 1695, 24, 600, 384, 4, 0, 0, 150, false,
	  TF(0.49, 31.2, 62.5, 125, 125, 0, 250) },
	/* A100 datasheet: FP64 9.7, FP32 19.5, TF32 156, FP16/BF16 312, INT8 624 */
	{ "a100-sxm4-80gb", "NVIDIA A100-SXM4-80GB", 8, 0, 108, 1410, 80, 2039, 5120, 4, 3, 12, 400,
	  false, TF(9.7, 19.5, 156, 312, 312, 0, 624) },
	{ "a100-pcie-80gb", "NVIDIA A100 80GB PCIe", 8, 0, 108, 1410, 80, 1935, 5120, 4, 3, 12, 300,
	  false, TF(9.7, 19.5, 156, 312, 312, 0, 624) },
	{ "a100-40gb", "NVIDIA A100-SXM4-40GB", 8, 0, 108, 1410, 40, 1555, 5120, 4, 3, 12, 400, false,
	  TF(9.7, 19.5, 156, 312, 312, 0, 624) },
	{ "a100-pcie-40gb", "NVIDIA A100-PCIE-40GB", 8, 0, 108, 1410, 40, 1555, 5120, 4, 3, 12, 250,
	  false, TF(9.7, 19.5, 156, 312, 312, 0, 624) },
	/* Ampere GA102 whitepaper, RTX 3090: FP32-accumulate tensor math at half rate */
	{ "rtx3090", "NVIDIA GeForce RTX 3090", 8, 6, 82, 1695, 24, 936, 384, 4, 0, 0, 350, true,
	  TF(0.556, 35.6, 35.6, 71, 71, 0, 284) },
	/* Ada whitepaper, RTX 4090: FP8 with FP32 accumulate 330.3 */
	{ "rtx4090", "NVIDIA GeForce RTX 4090", 8, 9, 128, 2520, 24, 1008, 384, 4, 0, 0, 450, true,
	  TF(1.29, 82.6, 82.6, 165.2, 165.2, 330.3, 660.6) },
	/* L4 datasheet: TF32 120, FP16/BF16 242, FP8/INT8 485, all with sparsity */
	{ "l4", "NVIDIA L4", 8, 9, 58, 2040, 24, 300, 192, 4, 0, 0, 72, false,
	  TF(0.47, 30.3, 60, 121, 121, 242.5, 242.5) },
	/* L40S datasheet: TF32 183, FP16/BF16 362.05, FP8/INT8 733 */
	{ "l40s", "NVIDIA L40S", 8, 9, 142, 2520, 48, 864, 384, 4, 0, 0, 350, false,
	  TF(1.43, 91.6, 183, 362.05, 362.05, 733, 733) },
	/* Hopper whitepaper, H100 SXM5: FP32 66.9, TF32 494.7, FP16/BF16 989.4, FP8 1978.9 */
	{ "h100-sxm", "NVIDIA H100 80GB HBM3", 9, 0, 132, 1980, 80, 3350, 5120, 5, 4, 18, 700, false,
	  TF(33.5, 66.9, 494.7, 989.4, 989.4, 1978.9, 1978.9) },
	/* Hopper whitepaper, H100 PCIe: 114 SMs at 1755 MHz; NVLink bridge, 12 links */
	{ "h100-pcie", "NVIDIA H100 PCIe", 9, 0, 114, 1755, 80, 2000, 5120, 5, 4, 12, 350, false,
	  TF(25.6, 51.2, 378, 756, 756, 1513, 1513) },
	/* H100 NVL datasheet: TF32 835, FP16/BF16 1671, FP8/INT8 3341 with sparsity; NVLink
	 * bridge 600 GB/s two-way, 12 links */
	{ "h100-nvl", "NVIDIA H100 NVL", 9, 0, 132, 1785, 94, 3900, 6144, 5, 4, 12, 400, false,
	  TF(30, 60, 417.5, 835.5, 835.5, 1670.5, 1670.5) },
	/* H200 datasheet: the H100 SXM's compute with 4.8 TB/s */
	{ "h200", "NVIDIA H200", 9, 0, 132, 1980, 141, 4800, 6144, 5, 4, 18, 700, false,
	  TF(33.5, 66.9, 494.7, 989.4, 989.4, 1978.9, 1978.9) },
	/* HGX B200 datasheet: TF32 2.2 PF, FP16/BF16 4.5 PF, FP8/INT8 9 PF with sparsity */
	{ "b200", "NVIDIA B200", 10, 0, 148, 1965, 180, 8000, 8192, 5, 5, 18, 1000, false,
	  TF(37, 75, 1100, 2250, 2250, 4500, 4500) },
	/* HGX B300 datasheet: FP64 1.25 TF; TF32, FP16/BF16 and FP8 as B200 */
	{ "b300", "NVIDIA B300", 10, 3, 148, 2032, 288, 8000, 8192, 6, 5, 18, 1100, false,
	  TF(1.25, 75, 1100, 2250, 2250, 4500, 150) },
	/* Blackwell GB202 whitepaper, RTX 5090: FP16/BF16 with FP32 accumulate 209.5 */
	{ "rtx5090", "NVIDIA GeForce RTX 5090", 12, 0, 170, 2407, 32, 1792, 512, 5, 0, 0, 575, true,
	  TF(1.64, 104.8, 104.8, 209.5, 209.5, 419, 838) },
	{ 0 },
};

const struct gbsim_model *gbsim_models(void)
{
	return models;
}

const struct gbsim_model *gbsim_model_by_key(const char *key)
{
	for (const struct gbsim_model *m = models; key && m->key; m++)
		if (strcasecmp(m->key, key) == 0)
			return m;
	return NULL;
}

/*
 * Per lane per direction, bytes/s. Gen 1-2 carry 8 bits in 10 (2.5, 5 GT/s:
 * 0.25, 0.5 GB/s), gen 3-5 128 in 130 (8, 16, 32 GT/s: 0.985, 1.969, 3.938),
 * gen 6 (64 GT/s PAM4) has no line code but moves 242 payload bytes per
 * 256-byte flit: 8 x 242 / 256 = 7.5625 GB/s, not the 7.877 that 128b/130b
 * would give.
 */
static double pcie_lane_bps(int gen)
{
	static const double lane_bps[] = { 0, 2.5e9 * 8 / 10 / 8, 5e9 * 8 / 10 / 8,
					   8e9 * 128 / 130 / 8, 16e9 * 128 / 130 / 8,
					   32e9 * 128 / 130 / 8, 64e9 * 242 / 256 / 8 };

	return gen >= 1 && gen <= 6 ? lane_bps[gen] : 0;
}

double gbsim_pcie_bps(int gen, int width)
{
	if (width < 1 || width > 32)
		return 0;
	return pcie_lane_bps(gen) * width;
}

/*
 * NVLink per link per direction: NVLink 1 (P100) 20 GB/s; 2 (V100), 3 (A100)
 * and 4 (H100) 25 GB/s (300, 600, 900 GB/s two-way over 6, 12, 18 links);
 * 5 (B200) 50 GB/s (1.8 TB/s over 18).
 */
double gbsim_nvlink_link_bps(int gen)
{
	static const double link_bps[] = { 0, 20e9, 25e9, 25e9, 25e9, 50e9 };

	return gen >= 1 && gen <= 5 ? link_bps[gen] : 0;
}
