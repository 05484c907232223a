/* SPDX-License-Identifier: MIT */
/* gemm_size.c - the size -> efficiency model of gemm_size.h. */
#include "report/gemm_size.h"

#include <math.h>

/* waves / ceil(waves) of 128 x 128 output tiles over sm_count SMs */
static double occupancy(double m, double n, int sm_count)
{
	double tiles = ceil(m / GB_GEMM_SIZE_TILE) * ceil(n / GB_GEMM_SIZE_TILE);
	double waves = tiles / sm_count;

	return waves / ceil(waves);
}

double gb_gemm_size_share(double m, double n, double k, int sm_count, double limit_flops)
{
	double ref = GB_GEMM_LIMIT_REF_N, share, t;

	if (!(m > 0) || !(n > 0) || !(k > 0))
		return NAN;
	if (m * n * k >= ref * ref * ref || sm_count <= 0 || !(limit_flops > 0))
		return 1;
	share = fmin(1, occupancy(m, n, sm_count) / occupancy(ref, ref, sm_count));
	t = 2 * m * n * k / limit_flops;
	return share * t / (t + GB_GEMM_SIZE_FIXED_S);
}
