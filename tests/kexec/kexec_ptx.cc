/* SPDX-License-Identifier: MIT */
/*
 * kexec_ptx.cc - the PTX instructions of kernels/ptx.cuh, emulated from the
 * PTX ISA for the kernels run on the executor. The fragment layouts are the
 * ISA's, written here independently of the kernels (test_mma_layout.c
 * writes the same ones for its emulation of the mma kernel's indices):
 * they are the oracle the kernels' own index code is run against.
 *
 * Every shared or global access an instruction makes is checked as the
 * lane that makes it (memcheck, racecheck), like the kernels' own.
 */
#include <cstdio>
#include <cstring>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "tests/kexec/kexec_internal.h"
#include "tests/kexec/ptx_host.h"

using namespace gb_kx;

namespace {

/* ---- cp.async ---- */

struct async_copy {
	unsigned char *dst;
	const unsigned char *src;
	uint32_t src_bytes;
};

/* one thread's copies: the open group, then committed groups oldest first */
struct async_state {
	std::vector<async_copy> open;
	std::vector<std::vector<async_copy>> committed;
};

async_state &async_of(thread &t)
{
	if (!t.async)
		t.async = new async_state();
	return *static_cast<async_state *>(t.async);
}

/*
 * A copy lands: "cp.async ... copies src-size bytes from the source and
 * fills the remaining cp-size - src-size bytes of the destination with
 * zeros". The emulation lands it as late as the ISA allows, at the
 * wait_group that completes its group, so a read before then sees the old
 * bytes (and racecheck names it).
 */
void land(const async_copy &c)
{
	note_async_pending(c.dst, 16, -1);
	if (c.src_bytes)
		check_access(c.src, c.src_bytes, access::read);
	check_access(c.dst, 16, access::write);
	memcpy(c.dst, c.src, c.src_bytes);
	memset(c.dst + c.src_bytes, 0, 16 - c.src_bytes);
}

/* ---- ldmatrix ---- */

struct ldmatrix_operands {
	uint32_t addr;
	uint32_t *r;
};

/*
 * ldmatrix.sync.aligned.m8n8.x4.shared.b16, PTX ISA "ldmatrix": "Each
 * address corresponds to the start of a matrix row. Addresses addr0-addr7
 * correspond to the rows of the first matrix, addresses addr8-addr15 to the
 * rows of the second matrix, and so on." "A group of four threads loads an
 * entire row of the matrix": thread t receives row t / 4, 16-bit elements
 * 2 (t % 4) and 2 (t % 4) + 1, the first in the low half. "When .num = .x4,
 * elements of the third and fourth matrices are loaded in the subsequent
 * destination registers." The rows must be 16-byte aligned.
 */
void ldmatrix_x4_emulate(thread *const lanes[32])
{
	for (unsigned t = 0; t < 32; t++) {
		const ldmatrix_operands &me = *static_cast<ldmatrix_operands *>((void *)lanes[t]->in);

		run_as(lanes[t]);
		if (me.addr % 16) {
			report_sync("========= Error: ldmatrix row address 0x%x of lane %u is not "
				    "16-byte aligned", me.addr, t);
			abort_grid(cudaErrorMisalignedAddress);
		}
		for (unsigned j = 0; j < 4; j++) {
			const ldmatrix_operands &row =
				*static_cast<ldmatrix_operands *>((void *)lanes[8 * j + t / 4]->in);
			const unsigned char *p =
				static_cast<unsigned char *>(gb_kx_shared_ptr(row.addr + 4 * (t % 4)));

			if (!in_shared(p, 4)) {
				report_memcheck("__shared__", p, 4, access::read);
				abort_grid(cudaErrorIllegalAddress);
			}
			check_access(p, 4, access::read);
			memcpy(&me.r[j], p, 4);
		}
	}
}

/* ---- mma.sync m16n8k16 ---- */

struct mma_operands {
	float *c;
	const uint32_t *a, *b;
	bool bf16;
};

}  // namespace

float gb_kx::half_bits_to_float(uint16_t h, bool bf16)
{
	if (bf16) {
		__nv_bfloat16_raw r;

		r.x = h;
		return __bfloat162float(__nv_bfloat16(r));
	}
	__half_raw r;

	r.x = h;
	return __half2float(__half(r));
}

namespace {

float elem(uint32_t reg, unsigned half, bool bf16)
{
	return half_bits_to_float((uint16_t)(reg >> (16 * half)), bf16);
}

/*
 * mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}.{bf16,f16}.f32, PTX ISA
 * "Matrix Fragments for mma.m16n8k16 with floating point type", with
 * groupID = %laneid >> 2 and threadID_in_group = %laneid % 4:
 *   A, a0..a7 (four .f16x2/.bf16x2 registers, low half first):
 *     row = groupID for ai where 0 <= i < 2 || 4 <= i < 6, else groupID + 8
 *     col = threadID_in_group * 2 + (i & 0x1), + 8 for i >= 4
 *   B, b0..b3 (two registers): row (k) = threadID_in_group * 2 + (i & 0x1),
 *     + 8 for i >= 2; col (n) = groupID
 *   C, D, c0..c3: row = groupID for i < 2, else groupID + 8;
 *     col = threadID_in_group * 2 + (i & 0x1)
 * D = A B + C. The products of 16-bit values are exact; the sum is taken in
 * double and rounded once to FP32, within what the hardware's FP32
 * accumulation may differ by (the verification bound allows for it).
 */
void mma_m16n8k16_emulate(thread *const lanes[32])
{
	float a[16][16], b[16][8];
	const bool bf16 = static_cast<mma_operands *>((void *)lanes[0]->in)->bf16;

	for (unsigned lane = 0; lane < 32; lane++) {
		const mma_operands &o = *static_cast<mma_operands *>((void *)lanes[lane]->in);
		const unsigned g = lane >> 2, tig = lane % 4;

		for (unsigned i = 0; i < 8; i++) {
			const unsigned row = (i < 2 || (4 <= i && i < 6)) ? g : g + 8;
			const unsigned col = tig * 2 + (i & 1) + (i >= 4 ? 8 : 0);

			a[row][col] = elem(o.a[i / 2], i % 2, bf16);
		}
		for (unsigned i = 0; i < 4; i++)
			b[tig * 2 + (i & 1) + (i >= 2 ? 8 : 0)][g] = elem(o.b[i / 2], i % 2, bf16);
	}
	for (unsigned lane = 0; lane < 32; lane++) {
		const mma_operands &o = *static_cast<mma_operands *>((void *)lanes[lane]->in);
		const unsigned g = lane >> 2, tig = lane % 4;

		for (unsigned i = 0; i < 4; i++) {
			const unsigned row = i < 2 ? g : g + 8, col = tig * 2 + (i & 1);
			double sum = o.c[i];

			for (unsigned kk = 0; kk < 16; kk++)
				sum += (double)a[row][kk] * b[kk][col];
			o.c[i] = (float)sum;
		}
	}
}

void mma(float (&c)[4], const uint32_t (&a)[4], const uint32_t (&b)[2], bool bf16)
{
	mma_operands o = { c, a, b, bf16 };

	warp_instruction(&o, mma_m16n8k16_emulate);
}

}  // namespace

namespace gb_kx {

void async_thread_exit(thread &t)
{
	async_state *s = static_cast<async_state *>(t.async);

	if (!s)
		return;
	/* copies never waited for are dropped with their marks: nobody can wait any more */
	for (const async_copy &c : s->open)
		note_async_pending(c.dst, 16, -1);
	for (auto &g : s->committed)
		for (const async_copy &c : g)
			note_async_pending(c.dst, 16, -1);
	delete s;
	t.async = nullptr;
}

}  // namespace gb_kx

unsigned long long gb_ptx_globaltimer()
{
	return gb_kx_globaltimer();
}

/* cp.async.cg.shared.global [dst], [src], 16, src_size */
void gb_ptx_cp_async16(uint32_t dst, const void *src, uint32_t src_bytes)
{
	unsigned char *d = static_cast<unsigned char *>(gb_kx_shared_ptr(dst));

	if (dst % 16 || (uintptr_t)src % 16 || src_bytes > 16 || !in_shared(d, 16)) {
		report_memcheck("__shared__", d, 16, access::write);
		abort_grid(cudaErrorMisalignedAddress);
	}
	note_async_pending(d, 16, +1);
	async_of(*cur).open.push_back({ d, static_cast<const unsigned char *>(src), src_bytes });
}

/* cp.async.commit_group: the open copies become the newest group, even when none */
void gb_ptx_cp_async_commit()
{
	async_state &s = async_of(*cur);

	s.committed.push_back(std::move(s.open));
	s.open.clear();
}

/*
 * cp.async.wait_group N: "wait till only N or fewer of the most recent
 * cp.async-groups are pending and all the prior cp.async-groups committed
 * by the executing threads are complete". Copies not yet committed are not
 * waited for.
 */
void gb_kx_cp_async_wait(int pending)
{
	async_state &s = async_of(*cur);

	while (s.committed.size() > (size_t)pending) {
		for (const async_copy &c : s.committed.front())
			land(c);
		s.committed.erase(s.committed.begin());
	}
}

void gb_ptx_ldmatrix_x4(uint32_t (&r)[4], uint32_t addr)
{
	ldmatrix_operands o = { addr, r };

	warp_instruction(&o, ldmatrix_x4_emulate);
}

void gb_ptx_mma_m16n8k16_bf16(float (&c)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
{
	mma(c, a, b, true);
}

void gb_ptx_mma_m16n8k16_f16(float (&c)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
{
	mma(c, a, b, false);
}

/* st.shared.v4.b32 [addr], {a, b, c, d}: 16 bytes, 16-byte aligned */
void gb_ptx_st_shared_v4(uint32_t addr, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
	unsigned char *p = static_cast<unsigned char *>(gb_kx_shared_ptr(addr));
	const uint32_t v[4] = { a, b, c, d };

	if (addr % 16 || !in_shared(p, 16)) {
		report_memcheck("__shared__", p, 16, access::write);
		abort_grid(cudaErrorIllegalAddress);
	}
	check_access(p, 16, access::write);
	memcpy(p, v, 16);
}
