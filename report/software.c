/* SPDX-License-Identifier: MIT */
/* software.c - which software versions changed between two runs; see software.h. */
#include "report/software.h"

#include <stdio.h>
#include <string.h>

#include "report/format_util.h"

/* one version of each side, as printed; "" when unknown */
static void cuda_pair(struct gb_sw_change *p, const char *name, int a, int b)
{
	p->name = name;
	p->a[0] = p->b[0] = '\0';
	if (a > 0)
		gb_fmt_cuda_version(p->a, sizeof(p->a), a);
	if (b > 0)
		gb_fmt_cuda_version(p->b, sizeof(p->b), b);
}

static void lib_pair(struct gb_sw_change *p, const char *name, int a, int b)
{
	p->name = name;
	p->a[0] = p->b[0] = '\0';
	if (a >= 0)
		gb_fmt_lib_version(p->a, sizeof(p->a), a);
	if (b >= 0)
		gb_fmt_lib_version(p->b, sizeof(p->b), b);
}

size_t gb_software_changes(const struct gb_host_info *a, const struct gb_host_info *b,
			   struct gb_sw_change out[GB_SW_COUNT])
{
	struct gb_sw_change p[GB_SW_COUNT];
	size_t n = 0;

	p[0].name = "driver";
	snprintf(p[0].a, sizeof(p[0].a), "%s", a->driver_version ? a->driver_version : "");
	snprintf(p[0].b, sizeof(p[0].b), "%s", b->driver_version ? b->driver_version : "");
	cuda_pair(&p[1], "CUDA driver", a->cuda_driver_version, b->cuda_driver_version);
	cuda_pair(&p[2], "CUDA runtime", a->cuda_runtime_version, b->cuda_runtime_version);
	lib_pair(&p[3], "cuBLASLt", a->cublaslt_version, b->cublaslt_version);
	lib_pair(&p[4], "NCCL", a->nccl_version, b->nccl_version);
	for (size_t i = 0; i < GB_SW_COUNT; i++) {
		if (!p[i].a[0] || !p[i].b[0] || !strcmp(p[i].a, p[i].b))
			continue;
		out[n++] = p[i];
	}
	return n;
}

bool gb_software_changes_line(char *buf, size_t len, const struct gb_sw_change *c, size_t n)
{
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s %s -> %s", i ? ", " : "",
					 c[i].name, c[i].a, c[i].b);
	return n > 0;
}
