/* SPDX-License-Identifier: MIT */
/*
 * hash.c - the simulator's content digest (sim.h gbsim_hash_bytes): what the
 * fake cuBLASLt and the own-GEMM twins key their result caches by.
 */
#include <stdint.h>
#include <string.h>

#include "tests/sim/sim.h"

/*
 * Two independent 64-bit lanes over the bytes, 8 at a time. Each step is a
 * multiply's latency, so 32-byte blocks go through four chains at once (two
 * per lane, on alternate words), joined at the end: the hash runs on every
 * call, and one chain per lane was most of a cache hit's time.
 */
void gbsim_hash_bytes(uint64_t h[2], const void *data, size_t n)
{
	const unsigned char *b = data;
	uint64_t w, v, g[2] = { h[0] ^ 0x452821e638d01377ULL, h[1] + 0xbe5466cf34e90c6cULL };
	size_t i = 0;

	for (; i + 32 <= n; i += 32) {
		for (int q = 0; q < 2; q++) {
			memcpy(&w, b + i + 16 * q, 8);
			memcpy(&v, b + i + 16 * q + 8, 8);
			h[0] = (h[0] ^ w) * 0x9e3779b97f4a7c15ULL;
			h[0] ^= h[0] >> 29;
			g[0] = (g[0] ^ v) * 0x9e3779b97f4a7c15ULL;
			g[0] ^= g[0] >> 29;
			h[1] = (h[1] + w) * 0xc2b2ae3d27d4eb4fULL;
			h[1] ^= h[1] >> 31;
			g[1] = (g[1] + v) * 0xc2b2ae3d27d4eb4fULL;
			g[1] ^= g[1] >> 31;
		}
	}
	/* join the chains: the odd words' state enters each lane as one more word */
	h[0] = (h[0] ^ g[0]) * 0x9e3779b97f4a7c15ULL;
	h[0] ^= h[0] >> 29;
	h[1] = (h[1] + g[1]) * 0xc2b2ae3d27d4eb4fULL;
	h[1] ^= h[1] >> 31;
	for (; i + 8 <= n; i += 8) {
		memcpy(&w, b + i, 8);
		h[0] = (h[0] ^ w) * 0x9e3779b97f4a7c15ULL;
		h[0] ^= h[0] >> 29;
		h[1] = (h[1] + w) * 0xc2b2ae3d27d4eb4fULL;
		h[1] ^= h[1] >> 31;
	}
	for (; i < n; i++) {
		h[0] = (h[0] ^ b[i]) * 0x100000001b3ULL;
		h[1] = (h[1] + b[i]) * 0xff51afd7ed558ccdULL;
	}
	h[0] ^= n;
	h[1] += n;
}
