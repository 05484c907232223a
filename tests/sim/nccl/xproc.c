/* SPDX-License-Identifier: MIT */
/*
 * xproc.c - the ranks of one simulated NCCL communicator in several
 * processes on one host (issue 18: `mpirun -np 2 gpubench-sim nccl`).
 *
 * A unique id names a segment of POSIX shared memory,
 * /dev/shm/gbsimnccl.[TAG.]<the id's bytes in hex>. Every rank that joins maps it
 * and writes its slot (pid, CUDA device), so a rank knows when all nranks
 * have joined, in whichever process. The rank that completes the join
 * unlinks the name at once: the mappings live on, and a process that dies
 * later leaves nothing in /dev/shm. A name whose join never completes (a
 * rank that never came) is unlinked when the clique is freed (destroy,
 * abort) and, failing that, at exit (gbn_xp_unlink_all).
 *
 * When every rank turns out to be in this process, the segment was only the
 * meeting place: the collectives meet in this process's memory, as before.
 * Else (xp) each collective meets in the segment (coll.c): each rank stages
 * its send buffer in its own area of the segment, marks itself arrived, and
 * computes its own output from every rank's staged data once all have
 * arrived. Sizes: each rank may stage GBSIM_NCCL_STAGE_BYTES (default
 * 64 MiB; the same on every rank) per collective; the file is sparse, so
 * only what is written uses memory.
 */
/* clock_gettime, kill, shm_open, ftruncate */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "nccl_sim.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_STAGE_BYTES (64ul << 20)
#define PAGE_BYTES 4096ul

static bool shm_failed_logged;

size_t gbn_xp_stage_bytes(void)
{
	static size_t bytes;
	const char *v;

	if (bytes)
		return bytes;
	v = getenv("GBSIM_NCCL_STAGE_BYTES");
	bytes = v && strtoull(v, NULL, 0) > 0 ? (size_t)strtoull(v, NULL, 0) : DEFAULT_STAGE_BYTES;
	bytes = (bytes + PAGE_BYTES - 1) / PAGE_BYTES * PAGE_BYTES;
	return bytes;
}

/* The header, rounded up to a page so every staging area is page-aligned. */
static size_t header_bytes(void)
{
	return (sizeof(struct gbn_xp_seg) + PAGE_BYTES - 1) / PAGE_BYTES * PAGE_BYTES;
}

void *gbn_xp_stage(struct gbn_xp_seg *seg, int r)
{
	return (char *)seg + header_bytes() + (size_t)r * gbn_xp_stage_bytes();
}

bool gbn_xp_pid_dead(int pid)
{
	return pid > 0 && kill(pid, 0) != 0 && errno == ESRCH;
}

void gbn_xp_split_id(const struct gbn_clique *k, uint64_t seq, int color,
		     unsigned char id[NCCL_UNIQUE_ID_BYTES])
{
	/* the parent's id with the split's number and colour folded into its tail */
	uint64_t mix = (seq + 1) * 0x9e3779b97f4a7c15ull ^ ((uint64_t)(unsigned)color << 1 | 1);

	memcpy(id, k->id, NCCL_UNIQUE_ID_BYTES);
	for (size_t i = 0; i < sizeof(mix); i++)
		id[28 + i] ^= (unsigned char)(mix >> (8 * i));
	id[36]++; /* a split of a split with the same numbers differs too */
}

/*
 * The segment's name: the id's bytes 8..40 (pid, count, time, split), in
 * hex, after GBSIM_NCCL_SHM_TAG if set (letters, digits, '-', '_': a test
 * tags its own segments to find any it left behind).
 */
static void seg_name(const struct gbn_clique *k, char *name, size_t len)
{
	const char *tag = getenv("GBSIM_NCCL_SHM_TAG");
	size_t at;

	if (!tag || strlen(tag) > 24 || strspn(tag, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
						  "0123456789-_") != strlen(tag))
		tag = "";
	at = (size_t)snprintf(name, len, "/gbsimnccl.%s%s", tag, *tag ? "." : "");

	for (size_t i = 8; i < 40 && at + 2 < len; i++)
		at += (size_t)snprintf(name + at, len - at, "%02x", k->id[i]);
}

/* Map k's segment (created by whichever rank comes first); false: none (logged once). */
static bool seg_map_locked(struct gbn_clique *k)
{
	size_t bytes = header_bytes() + (size_t)k->nranks * gbn_xp_stage_bytes();
	struct stat st;
	void *p;
	int fd;

	seg_name(k, k->seg_name, sizeof(k->seg_name));
	fd = shm_open(k->seg_name, O_RDWR | O_CREAT, 0600);
	if (fd < 0)
		goto fail;
	/* every rank asks for the same size; only grow, never cut a peer's mapping short */
	if (fstat(fd, &st) || ((size_t)st.st_size < bytes && ftruncate(fd, (off_t)bytes))) {
		close(fd);
		goto fail;
	}
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		goto fail;
	k->seg = p;
	k->seg_bytes = bytes;
	k->seg_linked = true;
	return true;
fail:
	if (!shm_failed_logged) {
		shm_failed_logged = true;
		gbsim_log("nccl: no shared memory for '%s' (%s): communicators stay within this "
			  "process", k->seg_name, strerror(errno));
	}
	shm_unlink(k->seg_name);
	return false;
}

ncclResult_t gbn_xp_join_locked(struct gbn_clique *k, int rank, int device, const char *what)
{
	struct gbn_xp_rank *slot;
	int expected = 0;

	if (!k->seg && !seg_map_locked(k))
		return ncclSuccess; /* this process only: complete when its ranks have joined */
	if (!atomic_compare_exchange_strong(&k->seg->nranks, &expected, k->nranks) &&
	    expected != k->nranks)
		return gbn_fail(ncclInvalidUsage, "%s: rank %d says %d ranks, a rank in another "
				"process said %d", what, rank, k->nranks, expected);
	slot = &k->seg->r[rank];
	if (atomic_load(&slot->joined))
		return gbn_fail(ncclInvalidUsage, "%s: rank %d joined twice (pid %d and pid %d)",
				what, rank, slot->pid, (int)getpid());
	slot->pid = (int)getpid();
	slot->device = device;
	atomic_store(&slot->joined, 1);
	atomic_fetch_add(&k->seg->joined, 1);
	return ncclSuccess;
}

bool gbn_xp_all_joined_locked(struct gbn_clique *k)
{
	bool mine = true;

	if (!k->seg)
		return k->joined == k->nranks;
	if (atomic_load(&k->seg->joined) < k->nranks)
		return false;
	for (int r = 0; r < k->nranks; r++)
		mine &= k->seg->r[r].pid == (int)getpid();
	k->xp = !mine;
	if (k->seg_linked) {
		shm_unlink(k->seg_name); /* every rank has it mapped: the name is no longer needed */
		k->seg_linked = false;
	}
	return true;
}

void gbn_xp_close_locked(struct gbn_clique *k)
{
	if (!k->seg)
		return;
	if (k->seg_linked)
		shm_unlink(k->seg_name);
	munmap(k->seg, k->seg_bytes);
	k->seg = NULL;
	k->seg_linked = false;
}

void gbn_xp_unlink_all_locked(struct gbn_clique *cliques)
{
	for (struct gbn_clique *k = cliques; k; k = k->next)
		if (k->seg_linked) {
			shm_unlink(k->seg_name);
			k->seg_linked = false;
		}
}
