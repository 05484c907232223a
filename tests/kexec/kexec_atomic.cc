/* SPDX-License-Identifier: MIT */
/*
 * kexec_atomic.cc - CUDA's atomic functions for kernels on the executor.
 * Fibers never interleave inside a call, so each is a plain read-modify-
 * write, after the same check as any access (memcheck sees a bad address;
 * racecheck, like compute-sanitizer's, leaves atomics alone).
 */
#include <algorithm>

#include "tests/kexec/kexec_internal.h"

using namespace gb_kx;

namespace {

template <typename T> T rmw(T *p, gb_kx_atomic_op op, T v)
{
	T old;

	check_access(p, sizeof *p, access::atomic);
	old = *p;
	switch (op) {
	case GB_KX_ADD:
		*p = old + v;
		break;
	case GB_KX_MAX:
		*p = std::max(old, v);
		break;
	case GB_KX_MIN:
		*p = std::min(old, v);
		break;
	case GB_KX_XOR:
		*p = old ^ v;
		break;
	case GB_KX_OR:
		*p = old | v;
		break;
	case GB_KX_AND:
		*p = old & v;
		break;
	case GB_KX_EXCH:
		*p = v;
		break;
	}
	return old;
}

template <typename T> T add(T *p, T v)
{
	T old;

	check_access(p, sizeof *p, access::atomic);
	old = *p;
	*p = old + v;
	return old;
}

template <typename T> T cas(T *p, T cmp, T v)
{
	T old;

	check_access(p, sizeof *p, access::atomic);
	old = *p;
	if (old == cmp)
		*p = v;
	return old;
}

}  // namespace

unsigned long long gb_kx_atomic_u64(unsigned long long *p, gb_kx_atomic_op op,
				    unsigned long long v)
{
	return rmw(p, op, v);
}

unsigned gb_kx_atomic_u32(unsigned *p, gb_kx_atomic_op op, unsigned v)
{
	return rmw(p, op, v);
}

int gb_kx_atomic_i32(int *p, gb_kx_atomic_op op, int v)
{
	return rmw(p, op, v);
}

double gb_kx_atomic_add_f64(double *p, double v)
{
	return add(p, v);
}

float gb_kx_atomic_add_f32(float *p, float v)
{
	return add(p, v);
}

unsigned long long gb_kx_atomic_cas_u64(unsigned long long *p, unsigned long long cmp,
					unsigned long long v)
{
	return cas(p, cmp, v);
}

unsigned gb_kx_atomic_cas_u32(unsigned *p, unsigned cmp, unsigned v)
{
	return cas(p, cmp, v);
}
