/* SPDX-License-Identifier: MIT */
/*
 * theory.c - theoretical peaks: per-SM per-clock rate tables, memory, PCIe and
 * NVLink bandwidth formulas, and the catalog of published spec-sheet figures
 * (CPU only, no printing).
 *
 * Everything here is data plus arithmetic, so it is testable without a GPU.
 * The rate table and the catalog are checked against each other in
 * tests/report/test_theory.c; docs/theory.md explains the formulas and sources.
 */
#include "report/theory.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

/* ---- precisions ---- */

static const char *const prec_names[GB_PREC_COUNT] = {
	[GB_PREC_FP64] = "fp64",
	[GB_PREC_FP64_TC] = "fp64_tc",
	[GB_PREC_FP32] = "fp32",
	[GB_PREC_TF32] = "tf32",
	[GB_PREC_FP16] = "fp16",
	[GB_PREC_BF16] = "bf16",
	[GB_PREC_FP16_ACC16] = "fp16acc16",
	[GB_PREC_FP8] = "fp8",
	[GB_PREC_INT8] = "int8",
};

static bool prec_valid(enum gb_precision p)
{
	/* The enum may arrive from an int loop or a parsed file: check both ends. */
	return (int)p >= 0 && (int)p < GB_PREC_COUNT;
}

const char *gb_precision_name(enum gb_precision p)
{
	return prec_valid(p) ? prec_names[p] : "unknown";
}

int gb_precision_from_name(const char *name)
{
	if (!name)
		return -1;
	for (int p = 0; p < GB_PREC_COUNT; p++)
		if (strcasecmp(name, prec_names[p]) == 0)
			return p;
	return -1;
}

bool gb_precision_is_tensor(enum gb_precision p)
{
	return prec_valid(p) && p != GB_PREC_FP64 && p != GB_PREC_FP32;
}

bool gb_precision_uses_tensor_clock(enum gb_precision p)
{
	return gb_precision_is_tensor(p) && p != GB_PREC_FP64_TC;
}

/* The FP32-accumulate tensor precisions that GeForce parts run at half rate. */
static bool is_fp32_acc_tensor(enum gb_precision p)
{
	return p == GB_PREC_TF32 || p == GB_PREC_FP16 || p == GB_PREC_BF16 || p == GB_PREC_FP8;
}

/* ---- product class ---- */

static bool contains_ci(const char *s, const char *pat)
{
	return s && strcasestr(s, pat) != NULL;
}

static bool is_alnum(char c)
{
	return isalnum((unsigned char)c) != 0;
}

static bool is_digit(char c)
{
	return isdigit((unsigned char)c) != 0;
}

/*
 * "RTX 4090", "RTX3060 Ti": a GeForce model number after "RTX". GeForce numbers
 * are 20xx..50xx with a third digit of 5..9 (x050..x090); requiring that keeps
 * workstation parts out: "RTX 2000/4000/5000 Ada" (third digit 0), "RTX 4500",
 * "RTX 5880", "RTX A6000", "RTX PRO 6000".
 */
static bool rtx_geforce_number(const char *d)
{
	int series;

	/* Checked in order so a short string stops at its NUL. */
	if (!is_digit(d[0]) || !is_digit(d[1]) || !is_digit(d[2]) || !is_digit(d[3]))
		return false;
	if (is_alnum(d[4]))
		return false;
	series = (d[0] - '0') * 10 + (d[1] - '0');
	if (series != 20 && series != 30 && series != 40 && series != 50)
		return false;
	return d[2] >= '5' && d[2] <= '9';
}

static bool has_geforce_rtx_number(const char *name)
{
	for (const char *s = name; s && (s = strcasestr(s, "rtx")) != NULL; s += 3) {
		const char *d = s + 3;

		if (s > name && is_alnum(s[-1]))
			continue;
		while (*d == ' ' || *d == '-')
			d++;
		if (rtx_geforce_number(d))
			return true;
	}
	return false;
}

enum gb_product_class gb_product_class_of(const char *name, const char *nvml_brand)
{
	/* NVML brands "GeForce", "GeForce RTX", "Titan", "Titan RTX" all contain these. */
	if (contains_ci(name, "geforce") || contains_ci(name, "titan") ||
	    contains_ci(nvml_brand, "geforce") || contains_ci(nvml_brand, "titan"))
		return GB_CLASS_GEFORCE;
	if (name && has_geforce_rtx_number(name))
		return GB_CLASS_GEFORCE;
	return GB_CLASS_DATACENTER;
}

/* ---- per-SM per-clock rates ---- */

/*
 * Dense FLOP (OP for INT8) per clock per SM, FMA = 2, for datacenter and
 * workstation parts. Tensor rates are back-computed from datasheets
 * (TFLOPS / (SMs x clock)); CUDA-core rates follow the CUDA C Best Practices
 * Guide throughput table. 0 = not supported by the architecture.
 */
struct arch_rates {
	int major, minor;
	bool geforce_half;          /* GeForce SKUs halve FP32-accumulate tensor math */
	double rate[GB_PREC_COUNT]; /* columns in enum gb_precision order */
};

/* The rows below are positional: a new precision must get a new column. */
_Static_assert(GB_PREC_COUNT == 9, "arch_table columns must follow enum gb_precision");

static const struct arch_rates arch_table[] = {
	/*                  fp64 fp64tc  fp32  tf32  fp16  bf16 fp16a16   fp8   int8 */
	/* Volta: FP16 only, INT8 only via DP4A on CUDA cores */
	{ 7, 0, false, {     64,    0,   128,    0, 1024,    0,  1024,     0,     0 } },
	/* Turing: T4 full rate, GeForce RTX 20 half rate with FP32 accumulate */
	{ 7, 5, true, {       4,    0,   128,    0, 1024,    0,  1024,     0,  2048 } },
	/* A100 */
	{ 8, 0, false, {     64,  128,   128, 1024, 2048, 2048,  2048,     0,  4096 } },
	/* GA10x: A10, A40, RTX A6000; GeForce RTX 30 half rate */
	{ 8, 6, true, {       4,    0,   256,  512, 1024, 1024,  1024,     0,  2048 } },
	/*
	 * Orin: GA10x-style SM (128 FP32 lanes) with A100-class tensor cores.
	 * AGX Orin 170 sparse INT8 TOPS = 2 x 16 SMs x 4096 x 1.3 GHz.
	 */
	{ 8, 7, false, {      4,    0,   256, 1024, 2048, 2048,  2048,     0,  4096 } },
	/* Ada: L4, L40S, RTX 6000 Ada; GeForce RTX 40 half rate */
	{ 8, 9, true, {       4,    0,   256,  512, 1024, 1024,  1024,  2048,  2048 } },
	/* Hopper: H100, H200, GH200 */
	{ 9, 0, false, {    128,  256,   256, 2048, 4096, 4096,  4096,  8192,  8192 } },
	/* Blackwell datacenter: B200, GB200 */
	{ 10, 0, false, {   128,  128,   256, 4096, 8192, 8192,  8192, 16384, 16384 } },
	/*
	 * Blackwell Ultra: B300, GB300. FP32, TF32, FP16/BF16 and FP8 are B200's
	 * (same per-GPU figures, same 148 SMs). FP64 and INT8 are cut; those two
	 * are back-computed from the per-GPU HGX B300 figures (FP64 = FP64 TC
	 * 1.2 TFLOPS, INT8 0.15 POPS dense) at the spec clocks, 148 SMs:
	 * 1.2e12 / (148 x 1965 MHz) = 4.125 and 150e12 / (148 x 1860 MHz) = 545.
	 * They are not powers of two because NVIDIA's clock for these figures is
	 * not published; the table reproduces the datasheet rather than guess the
	 * silicon (docs/theory.md, "B300").
	 */
	{ 10, 3, false, { 4.125, 4.125,  256, 4096, 8192, 8192,  8192, 16384,   545 } },
	/* Blackwell GeForce / RTX PRO: RTX 5090 half rate with FP32 accumulate */
	{ 12, 0, true, {      4,    0,   256,  512, 1024, 1024,  1024,  2048,  2048 } },
	/* GB10 (DGX Spark), treated as sm_120 */
	{ 12, 1, true, {      4,    0,   256,  512, 1024, 1024,  1024,  2048,  2048 } },
};

static const struct arch_rates *find_arch(int cc_major, int cc_minor)
{
	for (size_t i = 0; i < sizeof(arch_table) / sizeof(arch_table[0]); i++)
		if (arch_table[i].major == cc_major && arch_table[i].minor == cc_minor)
			return &arch_table[i];
	return NULL;
}

double gb_flops_per_clk_per_sm(int cc_major, int cc_minor, enum gb_precision p,
			       enum gb_product_class cls)
{
	const struct arch_rates *a = find_arch(cc_major, cc_minor);
	double r;

	if (!a || !prec_valid(p))
		return 0;
	r = a->rate[p];
	/* FP16-accumulate stays at full rate, so GeForce FP16_ACC16 = 2 x its FP16. */
	if (cls == GB_CLASS_GEFORCE && a->geforce_half && is_fp32_acc_tensor(p))
		r /= 2;
	return r;
}

double gb_peak_flops(int cc_major, int cc_minor, enum gb_precision p, enum gb_product_class cls,
		     int sm_count, double clock_mhz)
{
	if (sm_count <= 0 || !(clock_mhz > 0))
		return 0;
	return gb_flops_per_clk_per_sm(cc_major, cc_minor, p, cls) * sm_count * clock_mhz * 1e6;
}

/* ---- memory, PCIe and NVLink bandwidth ---- */

double gb_mem_bandwidth_bps(double mem_clock_mhz, int bus_width_bits)
{
	if (!(mem_clock_mhz > 0) || bus_width_bits <= 0)
		return 0;
	/* x2: DDR. The driver reports half the per-pin rate, which also covers PAM4/PAM3. */
	return 2.0 * mem_clock_mhz * 1e6 * bus_width_bits / 8.0;
}

/* Per-lane transfer rate (GT/s) and line-encoding efficiency by PCIe generation. */
struct pcie_gen {
	double gtps;
	double efficiency;
};

static const struct pcie_gen pcie_gens[] = {
	{ 0, 0 },                 /* no generation 0 */
	{ 2.5, 8.0 / 10.0 },      /* Gen1 8b/10b */
	{ 5.0, 8.0 / 10.0 },      /* Gen2 8b/10b */
	{ 8.0, 128.0 / 130.0 },   /* Gen3 128b/130b */
	{ 16.0, 128.0 / 130.0 },  /* Gen4 */
	{ 32.0, 128.0 / 130.0 },  /* Gen5 */
	{ 64.0, 242.0 / 256.0 },  /* Gen6 PAM4, 242B/256B FLIT */
};

double gb_pcie_bandwidth_bps(int gen, int width)
{
	int n_gens = (int)(sizeof(pcie_gens) / sizeof(pcie_gens[0]));

	if (gen < 1 || gen >= n_gens || width < 1 || width > 32)
		return 0;
	/* One bit per transfer per lane, per direction. */
	return pcie_gens[gen].gtps * 1e9 * pcie_gens[gen].efficiency * width / 8.0;
}

double gb_nvlink_link_bps(int gen)
{
	/* Per link, per direction: NVLink 1 (P100) 20 GB/s; 2-4 25 GB/s; 5 (B200) 50 GB/s. */
	static const double link_gbps[] = { 0, 20, 25, 25, 25, 50 };

	if (gen < 1 || gen >= (int)(sizeof(link_gbps) / sizeof(link_gbps[0])))
		return 0;
	return link_gbps[gen] * 1e9;
}

int gb_nvlink_gen_for_cc(int cc_major, int cc_minor)
{
	/*
	 * Only the SXM datacenter dies carry NVLink ports worth modelling. GeForce
	 * and workstation dies (sm_75/86/89/120) and Jetson/Xavier have none or
	 * only narrow bridges, so they report 0.
	 */
	static const struct {
		int major, minor, gen;
	} map[] = {
		{ 6, 0, 1 }, { 7, 0, 2 }, { 8, 0, 3 }, { 9, 0, 4 }, { 10, 0, 5 }, { 10, 3, 5 },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i].major == cc_major && map[i].minor == cc_minor)
			return map[i].gen;
	return 0;
}

/* ---- catalog ---- */

/*
 * Published dense figures (no sparsity). FP16_ACC16 equals FP16 on parts that
 * run FP32 accumulate at full rate; datasheets quote one FP16 figure for both.
 */
static const struct gb_gpu_spec catalog[] = {
	{
		.key = "v100-sxm2",
		.name = "NVIDIA Tesla V100 SXM2",
		.match = { "V100 SXM2", NULL },
		.cc_major = 7, .cc_minor = 0, .cls = GB_CLASS_DATACENTER,
		.sm_count = 80, .boost_mhz = 1530, .tensor_mhz = 1530,
		.memory_gb = 32, .mem_bw_bps = 900e9,
		.pcie_gen = 3, .nvlink_gen = 2, .nvlink_links = 6, .tdp_w = 300,
		.spec_tflops = {
			[GB_PREC_FP64] = 7.8, [GB_PREC_FP32] = 15.7,
			[GB_PREC_FP16] = 125, [GB_PREC_FP16_ACC16] = 125,
		},
		.source = "NVIDIA V100 datasheet (SXM2; the 16 GB part has the same rates)",
	},
	{
		.key = "v100-pcie",
		.name = "NVIDIA Tesla V100 PCIe",
		.match = { "V100 PCIE", NULL },
		.cc_major = 7, .cc_minor = 0, .cls = GB_CLASS_DATACENTER,
		.sm_count = 80, .boost_mhz = 1380, .tensor_mhz = 1380,
		.memory_gb = 16, .mem_bw_bps = 900e9,
		.pcie_gen = 3, .nvlink_gen = 0, .nvlink_links = 0, .tdp_w = 250,
		.spec_tflops = {
			[GB_PREC_FP64] = 7, [GB_PREC_FP32] = 14,
			[GB_PREC_FP16] = 112, [GB_PREC_FP16_ACC16] = 112,
		},
		.source = "NVIDIA V100 datasheet (PCIe; the 32 GB part has the same rates)",
	},
	{
		.key = "t4",
		.name = "NVIDIA T4",
		.match = { "T4", NULL },
		.cc_major = 7, .cc_minor = 5, .cls = GB_CLASS_DATACENTER,
		.sm_count = 40, .boost_mhz = 1590, .tensor_mhz = 1590,
		.memory_gb = 16, .mem_bw_bps = 320e9,
		.pcie_gen = 3, .nvlink_gen = 0, .nvlink_links = 0, .tdp_w = 70,
		.spec_tflops = {
			[GB_PREC_FP64] = 0.25, [GB_PREC_FP32] = 8.1,
			[GB_PREC_FP16] = 65, [GB_PREC_FP16_ACC16] = 65, [GB_PREC_INT8] = 130,
		},
		.source = "NVIDIA T4 datasheet (FP64 from 1/32 of FP32)",
	},
	{
		.key = "a10",
		.name = "NVIDIA A10",
		.match = { "A10", NULL },
		.cc_major = 8, .cc_minor = 6, .cls = GB_CLASS_DATACENTER,
		.sm_count = 72, .boost_mhz = 1695, .tensor_mhz = 1695,
		.memory_gb = 24, .mem_bw_bps = 600e9,
		.pcie_gen = 4, .nvlink_gen = 0, .nvlink_links = 0, .tdp_w = 150,
		.spec_tflops = {
			[GB_PREC_FP64] = 0.49, [GB_PREC_FP32] = 31.2, [GB_PREC_TF32] = 62.5,
			[GB_PREC_FP16] = 125, [GB_PREC_BF16] = 125, [GB_PREC_FP16_ACC16] = 125,
			[GB_PREC_INT8] = 250,
		},
		.source = "NVIDIA A10 datasheet (FP64 from 1/64 of FP32)",
	},
	{
		.key = "a100-sxm4-80gb",
		.name = "NVIDIA A100 SXM4 80GB",
		.match = { "A100 SXM4 80GB", "A100 SXM 80GB", NULL },
		.cc_major = 8, .cc_minor = 0, .cls = GB_CLASS_DATACENTER,
		.sm_count = 108, .boost_mhz = 1410, .tensor_mhz = 1410,
		.memory_gb = 80, .mem_bw_bps = 2039e9,
		.pcie_gen = 4, .nvlink_gen = 3, .nvlink_links = 12, .tdp_w = 400,
		.spec_tflops = {
			[GB_PREC_FP64] = 9.7, [GB_PREC_FP64_TC] = 19.5, [GB_PREC_FP32] = 19.5,
			[GB_PREC_TF32] = 156, [GB_PREC_FP16] = 312, [GB_PREC_BF16] = 312,
			[GB_PREC_FP16_ACC16] = 312, [GB_PREC_INT8] = 624,
		},
		.source = "NVIDIA A100 datasheet (SXM4 80GB)",
	},
	{
		.key = "a100-pcie-80gb",
		.name = "NVIDIA A100 PCIe 80GB",
		.match = { "A100 80GB PCIE", "A100 PCIE 80GB", NULL },
		.cc_major = 8, .cc_minor = 0, .cls = GB_CLASS_DATACENTER,
		.sm_count = 108, .boost_mhz = 1410, .tensor_mhz = 1410,
		.memory_gb = 80, .mem_bw_bps = 1935e9,
		.pcie_gen = 4, .nvlink_gen = 3, .nvlink_links = 12, .tdp_w = 300,
		.spec_tflops = {
			[GB_PREC_FP64] = 9.7, [GB_PREC_FP64_TC] = 19.5, [GB_PREC_FP32] = 19.5,
			[GB_PREC_TF32] = 156, [GB_PREC_FP16] = 312, [GB_PREC_BF16] = 312,
			[GB_PREC_FP16_ACC16] = 312, [GB_PREC_INT8] = 624,
		},
		.source = "NVIDIA A100 datasheet (PCIe 80GB; NVLink via 2-GPU bridge)",
	},
	{
		.key = "a100-40gb",
		.name = "NVIDIA A100 SXM4 40GB",
		.match = { "A100 SXM4 40GB", "A100 SXM 40GB", NULL },
		.cc_major = 8, .cc_minor = 0, .cls = GB_CLASS_DATACENTER,
		.sm_count = 108, .boost_mhz = 1410, .tensor_mhz = 1410,
		.memory_gb = 40, .mem_bw_bps = 1555e9,
		.pcie_gen = 4, .nvlink_gen = 3, .nvlink_links = 12, .tdp_w = 400,
		.spec_tflops = {
			[GB_PREC_FP64] = 9.7, [GB_PREC_FP64_TC] = 19.5, [GB_PREC_FP32] = 19.5,
			[GB_PREC_TF32] = 156, [GB_PREC_FP16] = 312, [GB_PREC_BF16] = 312,
			[GB_PREC_FP16_ACC16] = 312, [GB_PREC_INT8] = 624,
		},
		.source = "NVIDIA A100 datasheet (SXM4 40GB)",
	},
	{
		.key = "a100-pcie-40gb",
		.name = "NVIDIA A100 PCIe 40GB",
		.match = { "A100 PCIE 40GB", "A100 40GB PCIE", NULL },
		.cc_major = 8, .cc_minor = 0, .cls = GB_CLASS_DATACENTER,
		.sm_count = 108, .boost_mhz = 1410, .tensor_mhz = 1410,
		.memory_gb = 40, .mem_bw_bps = 1555e9,
		.pcie_gen = 4, .nvlink_gen = 3, .nvlink_links = 12, .tdp_w = 250,
		.spec_tflops = {
			[GB_PREC_FP64] = 9.7, [GB_PREC_FP64_TC] = 19.5, [GB_PREC_FP32] = 19.5,
			[GB_PREC_TF32] = 156, [GB_PREC_FP16] = 312, [GB_PREC_BF16] = 312,
			[GB_PREC_FP16_ACC16] = 312, [GB_PREC_INT8] = 624,
		},
		.source = "NVIDIA A100 datasheet (PCIe 40GB; NVLink via 2-GPU bridge)",
	},
	{
		.key = "rtx3090",
		.name = "NVIDIA GeForce RTX 3090",
		.match = { "RTX 3090", NULL },
		.cc_major = 8, .cc_minor = 6, .cls = GB_CLASS_GEFORCE,
		.sm_count = 82, .boost_mhz = 1695, .tensor_mhz = 1695,
		.memory_gb = 24, .mem_bw_bps = 936e9,
		/* Its NVLink bridge (4 x 14.06 GB/s) is not modelled by gb_nvlink_link_bps. */
		.pcie_gen = 4, .nvlink_gen = 0, .nvlink_links = 0, .tdp_w = 350,
		.spec_tflops = {
			[GB_PREC_FP64] = 0.56, [GB_PREC_FP32] = 35.6, [GB_PREC_TF32] = 35.6,
			[GB_PREC_FP16] = 71, [GB_PREC_BF16] = 71, [GB_PREC_FP16_ACC16] = 142,
			[GB_PREC_INT8] = 284,
		},
		.source = "NVIDIA Ampere GA102 whitepaper (RTX 3090)",
	},
	{
		.key = "rtx4090",
		.name = "NVIDIA GeForce RTX 4090",
		.match = { "RTX 4090", NULL },
		.cc_major = 8, .cc_minor = 9, .cls = GB_CLASS_GEFORCE,
		.sm_count = 128, .boost_mhz = 2520, .tensor_mhz = 2520,
		.memory_gb = 24, .mem_bw_bps = 1008e9,
		.pcie_gen = 4, .nvlink_gen = 0, .nvlink_links = 0, .tdp_w = 450,
		.spec_tflops = {
			[GB_PREC_FP64] = 1.29, [GB_PREC_FP32] = 82.6, [GB_PREC_TF32] = 82.6,
			[GB_PREC_FP16] = 165.2, [GB_PREC_BF16] = 165.2,
			[GB_PREC_FP16_ACC16] = 330.3, [GB_PREC_FP8] = 330.3, [GB_PREC_INT8] = 660.6,
		},
		.source = "NVIDIA Ada Lovelace whitepaper (RTX 4090)",
	},
	{
		.key = "l4",
		.name = "NVIDIA L4",
		.match = { "L4", NULL },
		.cc_major = 8, .cc_minor = 9, .cls = GB_CLASS_DATACENTER,
		.sm_count = 58, .boost_mhz = 2040, .tensor_mhz = 2040,
		.memory_gb = 24, .mem_bw_bps = 300e9,
		.pcie_gen = 4, .nvlink_gen = 0, .nvlink_links = 0, .tdp_w = 72,
		.spec_tflops = {
			[GB_PREC_FP64] = 0.47, [GB_PREC_FP32] = 30.3, [GB_PREC_TF32] = 60,
			[GB_PREC_FP16] = 121, [GB_PREC_BF16] = 121, [GB_PREC_FP16_ACC16] = 121,
			[GB_PREC_FP8] = 242.5, [GB_PREC_INT8] = 242.5,
		},
		.source = "NVIDIA L4 datasheet (FP64 from 1/64 of FP32)",
	},
	{
		.key = "l40s",
		.name = "NVIDIA L40S",
		.match = { "L40S", NULL },
		.cc_major = 8, .cc_minor = 9, .cls = GB_CLASS_DATACENTER,
		.sm_count = 142, .boost_mhz = 2520, .tensor_mhz = 2520,
		.memory_gb = 48, .mem_bw_bps = 864e9,
		.pcie_gen = 4, .nvlink_gen = 0, .nvlink_links = 0, .tdp_w = 350,
		.spec_tflops = {
			[GB_PREC_FP64] = 1.43, [GB_PREC_FP32] = 91.6, [GB_PREC_TF32] = 183,
			[GB_PREC_FP16] = 362, [GB_PREC_BF16] = 362, [GB_PREC_FP16_ACC16] = 362,
			[GB_PREC_FP8] = 733, [GB_PREC_INT8] = 733,
		},
		/* 362.05 is 1.2% under 142 x 1024 x 2.52 GHz; FP8 733 fits 2520 MHz exactly. */
		.source = "NVIDIA L40S datasheet (FP64 from 1/64 of FP32)",
	},
	{
		.key = "h100-sxm",
		.name = "NVIDIA H100 SXM5 80GB",
		.match = { "H100 80GB HBM3", "H100 SXM5", "H100" },
		.cc_major = 9, .cc_minor = 0, .cls = GB_CLASS_DATACENTER,
		.sm_count = 132, .boost_mhz = 1980, .tensor_mhz = 1830,
		.memory_gb = 80, .mem_bw_bps = 3.35e12,
		.pcie_gen = 5, .nvlink_gen = 4, .nvlink_links = 18, .tdp_w = 700,
		.spec_tflops = {
			[GB_PREC_FP64] = 33.5, [GB_PREC_FP64_TC] = 66.9, [GB_PREC_FP32] = 66.9,
			[GB_PREC_TF32] = 494.7, [GB_PREC_FP16] = 989.4, [GB_PREC_BF16] = 989.4,
			[GB_PREC_FP16_ACC16] = 989.4, [GB_PREC_FP8] = 1978.9,
			[GB_PREC_INT8] = 1978.9,
		},
		.source = "NVIDIA H100 datasheet (SXM5); tensor clock 1830 MHz (Glenn Lockwood)",
	},
	{
		.key = "h100-pcie",
		.name = "NVIDIA H100 PCIe 80GB",
		.match = { "H100 PCIE", "H100", NULL },
		.cc_major = 9, .cc_minor = 0, .cls = GB_CLASS_DATACENTER,
		.sm_count = 114, .boost_mhz = 1755, .tensor_mhz = 1620,
		.memory_gb = 80, .mem_bw_bps = 2.0e12,
		.pcie_gen = 5, .nvlink_gen = 4, .nvlink_links = 12, .tdp_w = 350,
		.spec_tflops = {
			[GB_PREC_FP64] = 25.6, [GB_PREC_FP64_TC] = 51.2, [GB_PREC_FP32] = 51.2,
			[GB_PREC_TF32] = 378, [GB_PREC_FP16] = 756, [GB_PREC_BF16] = 756,
			[GB_PREC_FP16_ACC16] = 756, [GB_PREC_FP8] = 1513, [GB_PREC_INT8] = 1513,
		},
		.source = "NVIDIA H100 datasheet (PCIe; clocks back-computed; NVLink via bridge)",
	},
	{
		.key = "h100-nvl",
		.name = "NVIDIA H100 NVL",
		.match = { "H100 NVL", NULL },
		.cc_major = 9, .cc_minor = 0, .cls = GB_CLASS_DATACENTER,
		.sm_count = 132, .boost_mhz = 1776, .tensor_mhz = 1545,
		.memory_gb = 94, .mem_bw_bps = 3.9e12,
		/* The NVLink bridge: 600 GB/s both ways = 12 links x 25 GB/s per direction. */
		.pcie_gen = 5, .nvlink_gen = 4, .nvlink_links = 12, .tdp_w = 400,
		.spec_tflops = {
			[GB_PREC_FP64] = 30, [GB_PREC_FP64_TC] = 60, [GB_PREC_FP32] = 60,
			[GB_PREC_TF32] = 417.5, [GB_PREC_FP16] = 835.5, [GB_PREC_BF16] = 835.5,
			[GB_PREC_FP16_ACC16] = 835.5, [GB_PREC_FP8] = 1670.5,
			[GB_PREC_INT8] = 1670.5,
		},
		/*
		 * Clocks back-computed like the PCIe card's: FP32 60 = 132 x 256 x 1.776 GHz,
		 * BF16 835.5 = 132 x 4096 x 1.545 GHz (TF32, FP8 and INT8 fit it too).
		 */
		.source = "NVIDIA H100 datasheet (H100 NVL, per GPU, sparse halved; 350-400 W); "
			  "clocks back-computed",
	},
	{
		.key = "h200",
		.name = "NVIDIA H200 SXM 141GB",
		.match = { "H200", NULL },
		.cc_major = 9, .cc_minor = 0, .cls = GB_CLASS_DATACENTER,
		.sm_count = 132, .boost_mhz = 1980, .tensor_mhz = 1830,
		.memory_gb = 141, .mem_bw_bps = 4.8e12,
		.pcie_gen = 5, .nvlink_gen = 4, .nvlink_links = 18, .tdp_w = 700,
		.spec_tflops = {
			[GB_PREC_FP64] = 33.5, [GB_PREC_FP64_TC] = 66.9, [GB_PREC_FP32] = 66.9,
			[GB_PREC_TF32] = 494.7, [GB_PREC_FP16] = 989.4, [GB_PREC_BF16] = 989.4,
			[GB_PREC_FP16_ACC16] = 989.4, [GB_PREC_FP8] = 1978.9,
			[GB_PREC_INT8] = 1978.9,
		},
		.source = "NVIDIA H200 datasheet (SXM)",
	},
	{
		.key = "b200",
		.name = "NVIDIA B200",
		.match = { "B200", NULL },
		.cc_major = 10, .cc_minor = 0, .cls = GB_CLASS_DATACENTER,
		.sm_count = 148, .boost_mhz = 1965, .tensor_mhz = 1860,
		.memory_gb = 180, .mem_bw_bps = 8.0e12,
		.pcie_gen = 5, .nvlink_gen = 5, .nvlink_links = 18, .tdp_w = 1000,
		.spec_tflops = {
			[GB_PREC_FP64] = 37, [GB_PREC_FP64_TC] = 37, [GB_PREC_FP32] = 75,
			[GB_PREC_TF32] = 1125, [GB_PREC_FP16] = 2250, [GB_PREC_BF16] = 2250,
			[GB_PREC_FP16_ACC16] = 2250, [GB_PREC_FP8] = 4500, [GB_PREC_INT8] = 4500,
		},
		.source = "NVIDIA HGX/DGX B200 datasheets, per GPU, sparse halved; "
			  "tensor clock ~1860 MHz back-computed",
	},
	{
		.key = "b300",
		.name = "NVIDIA B300",
		.match = { "B300", NULL },
		.cc_major = 10, .cc_minor = 3, .cls = GB_CLASS_DATACENTER,
		/* 148 SMs as devices report them; clocks as B200's, whose figures it shares. */
		.sm_count = 148, .boost_mhz = 1965, .tensor_mhz = 1860,
		.memory_gb = 288, .mem_bw_bps = 8.0e12,
		.pcie_gen = 6, .nvlink_gen = 5, .nvlink_links = 18, .tdp_w = 1100,
		.spec_tflops = {
			[GB_PREC_FP64] = 1.2, [GB_PREC_FP64_TC] = 1.2, [GB_PREC_FP32] = 75,
			[GB_PREC_TF32] = 1125, [GB_PREC_FP16] = 2250, [GB_PREC_BF16] = 2250,
			[GB_PREC_FP16_ACC16] = 2250, [GB_PREC_FP8] = 4500, [GB_PREC_INT8] = 150,
		},
		.source = "NVIDIA Blackwell Architecture Technical Brief v2.1, HGX B300 per GPU "
			  "(dense; INT8 and FP64 cut); 288 GB and 8 TB/s from NVIDIA's Blackwell "
			  "Ultra blog (HGX table: 270 GB, 7.7 TB/s)",
	},
	{
		.key = "rtx5090",
		.name = "NVIDIA GeForce RTX 5090",
		.match = { "RTX 5090", NULL },
		.cc_major = 12, .cc_minor = 0, .cls = GB_CLASS_GEFORCE,
		.sm_count = 170, .boost_mhz = 2407, .tensor_mhz = 2407,
		.memory_gb = 32, .mem_bw_bps = 1792e9,
		.pcie_gen = 5, .nvlink_gen = 0, .nvlink_links = 0, .tdp_w = 575,
		.spec_tflops = {
			[GB_PREC_FP64] = 1.64, [GB_PREC_FP32] = 104.8, [GB_PREC_TF32] = 104.8,
			[GB_PREC_FP16] = 209.5, [GB_PREC_BF16] = 209.5, [GB_PREC_FP16_ACC16] = 419,
			[GB_PREC_FP8] = 419, [GB_PREC_INT8] = 838,
		},
		.source = "NVIDIA RTX Blackwell whitepaper (RTX 5090)",
	},
	{ .key = NULL },
};

const struct gb_gpu_spec *gb_gpu_catalog(void)
{
	return catalog;
}

const struct gb_gpu_spec *gb_gpu_spec_by_key(const char *key)
{
	if (!key)
		return NULL;
	for (const struct gb_gpu_spec *s = catalog; s->key; s++)
		if (strcasecmp(s->key, key) == 0)
			return s;
	return NULL;
}

/* ---- name matching ---- */

/* Case-folded, with '-' and '_' read as ' ': "A100-SXM4-80GB" == "a100 sxm4 80gb". */
static int fold(char c)
{
	if (c == '-' || c == '_')
		return ' ';
	return tolower((unsigned char)c);
}

static bool folded_prefix(const char *s, const char *pat)
{
	for (; *pat; s++, pat++)
		if (*s == '\0' || fold(*s) != fold(*pat))
			return false;
	return true;
}

/*
 * A token right after a model name that makes it a different part:
 * "RTX 3090 Ti", "RTX 4090 D", "H100 NVL", "RTX 4090 Laptop GPU".
 */
static bool next_token_is_variant(const char *s)
{
	static const char *const variants[] = { "ti", "super", "d", "nvl", "laptop", "mobile",
						"max" };
	size_t n = 0;

	while (*s && !is_alnum(*s))
		s++;
	while (is_alnum(s[n]))
		n++;
	for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++)
		if (strlen(variants[i]) == n && strncasecmp(s, variants[i], n) == 0)
			return true;
	return false;
}

/*
 * Length of pat when it occurs in name as whole tokens ("A10" is not in
 * "A100", "L4" not in "L40S") not followed by a variant token, else 0.
 */
static size_t token_match(const char *name, const char *pat)
{
	size_t len = strlen(pat);

	for (const char *s = name; *s; s++) {
		if (s > name && is_alnum(s[-1]))
			continue;
		if (!folded_prefix(s, pat) || is_alnum(s[len]))
			continue;
		if (!next_token_is_variant(s + len))
			return len;
	}
	return 0;
}

static size_t spec_name_score(const struct gb_gpu_spec *s, const char *name)
{
	size_t best = 0;

	for (int i = 0; i < 4 && s->match[i]; i++) {
		size_t len = token_match(name, s->match[i]);

		if (len > best)
			best = len;
	}
	return best;
}

struct match_rank {
	bool sm_equal; /* the device's SM count equals the catalog's */
	size_t len;    /* longest matching pattern: more specific wins */
};

static int rank_cmp(struct match_rank a, struct match_rank b)
{
	if (a.sm_equal != b.sm_equal)
		return a.sm_equal ? 1 : -1;
	return (a.len > b.len) - (a.len < b.len);
}

const struct gb_gpu_spec *gb_gpu_spec_match(const char *device_name, int sm_count)
{
	const struct gb_gpu_spec *best = NULL;
	struct match_rank best_rank = { false, 0 };
	bool tied = false;

	if (!device_name)
		return NULL;
	for (const struct gb_gpu_spec *s = catalog; s->key; s++) {
		struct match_rank r = { sm_count > 0 && s->sm_count == sm_count,
					spec_name_score(s, device_name) };
		int c;

		if (r.len == 0)
			continue;
		c = rank_cmp(r, best_rank);
		if (c > 0) {
			best = s;
			best_rank = r;
			tied = false;
		} else if (c == 0) {
			tied = true;
		}
	}
	/* A bare "NVIDIA H100" without an SM count could be SXM or PCIe: do not guess. */
	if (tied)
		return NULL;
	/*
	 * Known SM count, and it is not the catalog's: this is not the part the
	 * spec sheet describes. A MIG slice reports its parent's name with the
	 * slice's SMs (an H100 3g.40gb: 60 of 132), and cut-down parts share
	 * names. Return nothing, so the peaks at the device's max clock, which
	 * are computed from its own SM count, apply, and the thresholds warn
	 * (spec_unknown). Scaling the spec by the SM ratio would give about the
	 * same compute figure, but no honest memory bandwidth: a MIG slice gets
	 * memory slices in other fractions than SMs (3g.40gb: 3/7 of the compute,
	 * 4/8 of the memory), so the spec bandwidth would have to be dropped
	 * anyway. One rule, no guessed numbers.
	 */
	if (best && sm_count > 0 && best->sm_count != sm_count)
		return NULL;
	return best;
}

const struct gb_gpu_spec *gb_gpu_spec_match_name(const char *device_name)
{
	return gb_gpu_spec_match(device_name, 0);
}

double gb_gpu_spec_peak_flops(const struct gb_gpu_spec *spec, enum gb_precision p)
{
	double mhz;

	if (!spec)
		return 0;
	mhz = gb_precision_uses_tensor_clock(p) ? spec->tensor_mhz : spec->boost_mhz;
	return gb_peak_flops(spec->cc_major, spec->cc_minor, p, spec->cls, spec->sm_count, mhz);
}
