/* SPDX-License-Identifier: MIT */
/*
 * theory.h - theoretical peaks from architecture tables and spec sheets (CPU only).
 *
 * Peak rate = SM count x per-SM per-clock rate (architecture, precision,
 * product class) x clock. Memory bandwidth = 2 x memory clock x bus width / 8.
 * PCIe and NVLink per direction from generation, width and link count.
 * The catalog holds published spec-sheet facts for known GPUs, so a peak can be
 * given both at the spec-sheet clock and at the device's own max clock.
 *
 * Units: rates in FLOP/s (or OP/s for INT8) per unit, TFLOPS helpers divide by
 * 1e12; bandwidths in bytes/s (decimal); clocks in MHz.
 */
#ifndef GPUBENCH_REPORT_THEORY_H
#define GPUBENCH_REPORT_THEORY_H

#include <stdbool.h>
#include <stddef.h>

enum gb_precision {
	GB_PREC_FP64 = 0,   /* FP64 on CUDA cores */
	GB_PREC_FP64_TC,    /* FP64 on tensor cores (DMMA), sm_80/90/100 */
	GB_PREC_FP32,       /* FP32 on CUDA cores */
	GB_PREC_TF32,       /* TF32 tensor cores, FP32 accumulate */
	GB_PREC_FP16,       /* FP16 tensor cores, FP32 accumulate */
	GB_PREC_BF16,       /* BF16 tensor cores, FP32 accumulate */
	GB_PREC_FP16_ACC16, /* FP16 tensor cores, FP16 accumulate (GeForce full rate) */
	GB_PREC_FP8,        /* FP8 (E4M3) tensor cores, FP32 accumulate */
	GB_PREC_INT8,       /* INT8 tensor cores, INT32 accumulate (OP/s) */
	GB_PREC_COUNT
};

/* "fp64", "fp64_tc", "fp32", "tf32", "fp16", "bf16", "fp16acc16", "fp8", "int8" */
const char *gb_precision_name(enum gb_precision p);
/* -1 if unknown name */
int gb_precision_from_name(const char *name);

/* The product class matters: GeForce parts run FP32-accumulate tensor math at half rate. */
enum gb_product_class {
	GB_CLASS_DATACENTER = 0, /* also workstation (RTX A6000, L40S, T4, ...) */
	GB_CLASS_GEFORCE         /* GeForce and TITAN */
};

/* Classify from the product name (and NVML brand string when known, may be NULL). */
enum gb_product_class gb_product_class_of(const char *name, const char *nvml_brand);

/*
 * Dense FLOP (or OP) per clock per SM for compute capability major.minor.
 * Returns 0 when the precision is not supported by that architecture
 * (e.g. BF16 on sm_70, FP8 below sm_89) or the architecture is unknown.
 */
double gb_flops_per_clk_per_sm(int cc_major, int cc_minor, enum gb_precision p,
			       enum gb_product_class cls);

/* sm_count x rate x clock_mhz x 1e6, in FLOP/s; 0 when unsupported */
double gb_peak_flops(int cc_major, int cc_minor, enum gb_precision p, enum gb_product_class cls,
		     int sm_count, double clock_mhz);

/* 2 x mem_clock_mhz x 1e6 x bus_width_bits / 8, bytes/s */
double gb_mem_bandwidth_bps(double mem_clock_mhz, int bus_width_bits);

/*
 * PCIe bandwidth per direction in bytes/s for generation 1..6 and width
 * 1..32, after line encoding (8b/10b for Gen1-2, 128b/130b for Gen3-5,
 * 242B/256B FLIT for Gen6) but before packet overheads. 0 if unknown.
 * Gen4 x16 = 31.5e9, Gen5 x16 = 63.0e9.
 */
double gb_pcie_bandwidth_bps(int gen, int width);

/* NVLink per-direction bandwidth of one link, generation 1..5, bytes/s; 0 if unknown. */
double gb_nvlink_link_bps(int gen);
/* NVLink generation from compute capability (sm_70 -> 2, sm_80 -> 3, sm_90 -> 4, sm_100 -> 5); 0 if none */
int gb_nvlink_gen_for_cc(int cc_major, int cc_minor);

/* Published spec-sheet facts for one GPU model. */
struct gb_gpu_spec {
	const char *key;          /* short id for `theory --gpu`: "h100-sxm", "rtx4090" */
	const char *name;         /* display name: "NVIDIA H100 SXM5 80GB" */
	const char *match[4];     /* case-insensitive substrings of the CUDA/NVML name; NULL-terminated */
	int cc_major, cc_minor;
	enum gb_product_class cls;
	int sm_count;
	double boost_mhz;         /* clock NVIDIA uses for CUDA-core (FP32/FP64) spec figures */
	double tensor_mhz;        /* clock used for tensor-core spec figures (== boost_mhz unless lower) */
	double memory_gb;         /* GB as marketed */
	double mem_bw_bps;        /* spec memory bandwidth, bytes/s */
	int pcie_gen;             /* host link generation; width is 16 */
	int nvlink_gen;           /* 0 if none */
	int nvlink_links;         /* links per GPU, 0 if none */
	double tdp_w;
	double spec_tflops[GB_PREC_COUNT]; /* published dense TFLOPS (TOPS for INT8); 0 = not published/unsupported */
	const char *source;       /* where the figures come from */
};

/* The catalog, terminated by an entry with key == NULL. */
const struct gb_gpu_spec *gb_gpu_catalog(void);
/* Find by key (exact, case-insensitive); NULL if none. */
const struct gb_gpu_spec *gb_gpu_spec_by_key(const char *key);
/*
 * Find the spec matching a device name (e.g. "NVIDIA H100 80GB HBM3") and SM
 * count (used to tell SXM from PCIe parts; pass 0 if unknown). NULL if none,
 * and NULL when the SM count is known and differs from the matched entry's:
 * a MIG slice or a cut-down part is not the GPU on the spec sheet (the peaks
 * at its max clock apply; docs/thresholds.md).
 */
const struct gb_gpu_spec *gb_gpu_spec_match(const char *device_name, int sm_count);
/* The entry a name alone matches, whatever the SM count (for messages). NULL if none. */
const struct gb_gpu_spec *gb_gpu_spec_match_name(const char *device_name);

/*
 * Peak computed from the tables for a catalog entry at its own spec clocks
 * (tensor precisions at tensor_mhz, CUDA-core precisions at boost_mhz), FLOP/s.
 */
double gb_gpu_spec_peak_flops(const struct gb_gpu_spec *spec, enum gb_precision p);

/* true when p runs on tensor cores (and so uses the tensor clock on parts that have one) */
bool gb_precision_is_tensor(enum gb_precision p);

/*
 * true when NVIDIA's spec figures for p use the lower tensor clock: every
 * tensor precision except FP64_TC, which is quoted at the boost clock
 * (H100 SXM FP64 TC 66.9 = 132 x 256 x 1.98 GHz; B200 37 = 148 x 128 x 1.965).
 */
bool gb_precision_uses_tensor_clock(enum gb_precision p);

#endif
