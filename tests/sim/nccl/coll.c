/* SPDX-License-Identifier: MIT */
/*
 * coll.c - the collectives and send/receive of the simulated NCCL.
 *
 * A call checks its arguments and queues one piece of work on the rank's
 * stream (gbsim_enqueue); inside a group the work is queued at ncclGroupEnd,
 * the sends and receives of one communicator and stream fused into one
 * piece, so they progress together as NCCL's grouped p2p calls do.
 *
 * On the stream worker, a collective is the k-th its rank begins on that
 * communicator (k counted when the worker runs it, so a CUDA graph that
 * replays the same work still pairs the ranks' k-th operations). The ranks'
 * k-th operations meet in a rendezvous; the last to arrive checks every
 * rank's buffers (gbsim_check_access), checks that the ranks agree
 * (count, type, operator, root), moves the data for all of them and wakes
 * the others. Every rank's operation then ends at the same simulated time:
 * the latest arrival plus the cost model's time (cost.c). A rank whose
 * communicator is aborted or revoked while it waits leaves with its
 * operation abandoned (the stream goes on, the data is not written), as
 * an aborted NCCL kernel does; the peers wait on until their own
 * communicators are aborted, as they would on a GPU.
 *
 * A send is posted to the receiver (per ordered pair, the n-th send meets
 * the n-th receive); the receiver copies the data, so a sender waits until
 * each of its sends is taken.
 *
 * When the ranks are in several processes (the clique's xp), collectives
 * meet in the clique's shared segment instead ("across processes" below);
 * send and receive are not simulated there (the nccl command does not use
 * them: its all-to-all is ncclAlltoAll).
 */
#include "nccl_sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One send or receive of a fused p2p batch. */
struct gbn_item {
	bool send;
	void *buf;
	size_t count;
	ncclDataType_t type;
	int peer;
};

struct gbn_op {
	enum gbn_kind kind;
	const char *what;           /* the NCCL call, for messages */
	struct ncclComm *comm;
	cudaStream_t stream;
	const void *send;
	void *recv;
	size_t count;               /* NCCL's count argument */
	ncclDataType_t type;
	ncclRedOp_t op;
	int root;
	struct gbn_item *items;     /* GBN_P2P */
	int n_items;
	double seconds;             /* simulated duration of the last run */
	bool wrong;                 /* an nccl_wrong fault holds for this run (fault.c) */
	long wrong_at;              /* the element it corrupts */
};

/* Collectives begun per GPU: the after_launches trigger of NCCL faults (fault.c). */
static long colls_on_device[GBSIM_MAX_GPUS];
static bool wrong_logged[GBSIM_MAX_GPUS], hang_logged[GBSIM_MAX_GPUS];

/* The ranks' k-th collective on one clique. */
struct gbn_rdv {
	uint64_t seq;
	int arrived, left;
	bool computing, done, broken;
	struct gbn_op **ops;        /* by rank */
	double *start_s;            /* each rank's simulated clock at arrival */
	cudaError_t *err;           /* by rank */
	double end_s;
	struct gbn_rdv *next;
};

/* A send waiting for its receive. */
struct gbn_post {
	int from, to, from_device;
	uint64_t seq;
	const void *buf;
	size_t bytes;
	double start_s;             /* sender's clock at posting */
	bool taken;
	double end_s;               /* when the pair's transfer ends */
	struct gbn_post *next;
};

/* ---- kinds ---- */

static bool kind_reduces(enum gbn_kind k)
{
	return k == GBN_ALLREDUCE || k == GBN_REDUCESCATTER || k == GBN_REDUCE;
}

static bool kind_rooted(enum gbn_kind k)
{
	return k == GBN_BROADCAST || k == GBN_REDUCE;
}

/* ---- work lifetime ---- */

void gbn_op_free(struct gbn_op *op)
{
	if (!op)
		return;
	pthread_mutex_lock(&gbn_mu);
	gbn_comm_work_done_locked(op->comm);
	pthread_mutex_unlock(&gbn_mu);
	free(op->items);
	free(op);
}

static void op_free_ctx(void *ctx)
{
	gbn_op_free(ctx);
}

static double op_duration(void *ctx)
{
	return ((const struct gbn_op *)ctx)->seconds;
}

/* ---- rendezvous ---- */

static void rdv_free(struct gbn_rdv *v)
{
	free(v->ops);
	free(v->start_s);
	free(v->err);
	free(v);
}

void gbn_clique_free_rdvs_locked(struct gbn_clique *k)
{
	while (k->rdvs) {
		struct gbn_rdv *v = k->rdvs;

		k->rdvs = v->next;
		rdv_free(v);
	}
	while (k->posts) {
		struct gbn_post *p = k->posts;

		k->posts = p->next;
		free(p);
	}
}

static struct gbn_rdv *rdv_of_locked(struct gbn_clique *k, uint64_t seq)
{
	struct gbn_rdv *v;
	size_t n = (size_t)k->nranks;

	for (v = k->rdvs; v; v = v->next)
		if (v->seq == seq)
			return v;
	v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	v->ops = calloc(n, sizeof(*v->ops));
	v->start_s = calloc(n, sizeof(*v->start_s));
	v->err = calloc(n, sizeof(*v->err));
	if (!v->ops || !v->start_s || !v->err) {
		rdv_free(v);
		return NULL;
	}
	v->seq = seq;
	v->next = k->rdvs;
	k->rdvs = v;
	return v;
}

static void rdv_unlink_locked(struct gbn_clique *k, struct gbn_rdv *v)
{
	for (struct gbn_rdv **p = &k->rdvs; *p; p = &(*p)->next)
		if (*p == v) {
			*p = v->next;
			return;
		}
}

/* ---- what each rank's buffers hold, per collective ---- */

static size_t send_elems(const struct gbn_op *o, int rank, int n)
{
	switch (o->kind) {
	case GBN_REDUCESCATTER:
	case GBN_ALLTOALL:
		return o->count * (size_t)n;
	case GBN_BROADCAST:
		return rank == o->root ? o->count : 0; /* only the root's is read */
	default:
		return o->count;
	}
}

static size_t recv_elems(const struct gbn_op *o, int rank, int n)
{
	switch (o->kind) {
	case GBN_ALLGATHER:
	case GBN_ALLTOALL:
		return o->count * (size_t)n;
	case GBN_REDUCE:
		return rank == o->root ? o->count : 0; /* only the root's is written */
	default:
		return o->count;
	}
}

/* nccl-tests' S of the cost model: the bytes one rank's operation stands for */
static size_t coll_bytes(const struct gbn_op *o, int n)
{
	size_t b = o->count * gbn_type_size(o->type);

	switch (o->kind) {
	case GBN_ALLGATHER:
	case GBN_REDUCESCATTER:
	case GBN_ALLTOALL:
		return b * (size_t)n;
	default:
		return b;
	}
}

/* The ranks must have called the same collective the same way, as NCCL requires. */
static bool ranks_agree(struct gbn_op *const *ops, int n)
{
	const struct gbn_op *a = ops[0];
	bool reduces = kind_reduces(a->kind), rooted = kind_rooted(a->kind);

	for (int r = 1; r < n; r++) {
		const struct gbn_op *b = ops[r];

		if (b->kind != a->kind || b->count != a->count || b->type != a->type ||
		    (reduces && b->op != a->op) || (rooted && b->root != a->root)) {
			gbn_fail(ncclInvalidUsage,
				 "the ranks' operation %s disagree: rank 0 %s(count %zu, %s, %s, "
				 "root %d), rank %d %s(count %zu, %s, %s, root %d)",
				 "arguments", a->what, a->count, gbn_type_name(a->type),
				 gbn_op_name(a->op), a->root, r, b->what, b->count,
				 gbn_type_name(b->type), gbn_op_name(b->op), b->root);
			return false;
		}
	}
	return true;
}

/* Every buffer every rank's kernel would touch; err[r] for the ranks that may not. */
static bool buffers_ok(struct gbn_op *const *ops, int n, cudaError_t *err)
{
	bool ok = true;

	for (int r = 0; r < n; r++) {
		const struct gbn_op *o = ops[r];
		size_t elt = gbn_type_size(o->type);
		size_t sb = send_elems(o, r, n) * elt, rb = recv_elems(o, r, n) * elt;
		cudaError_t e = cudaSuccess;

		if (sb)
			e = gbsim_check_access(o->comm->device, o->send, sb, o->what);
		if (e == cudaSuccess && rb)
			e = gbsim_check_access(o->comm->device, o->recv, rb, o->what);
		err[r] = e;
		ok &= e == cudaSuccess;
	}
	return ok;
}

static bool overlap(const void *a, size_t an, const void *b, size_t bn)
{
	const char *x = a, *y = b;

	return an && bn && x < y + bn && y < x + an;
}

/* Alltoall: rank r's chunk j comes from rank j's chunk r (sends copied first if they alias). */
static void alltoall(struct gbn_op *const *ops, int n)
{
	size_t chunk = ops[0]->count * gbn_type_size(ops[0]->type), all = chunk * (size_t)n;
	const void *src[GBN_MAX_RANKS];
	void *copy[GBN_MAX_RANKS] = { 0 };

	for (int r = 0; r < n; r++) {
		src[r] = ops[r]->send;
		if (overlap(ops[r]->send, all, ops[r]->recv, all) && (copy[r] = malloc(all))) {
			memcpy(copy[r], ops[r]->send, all);
			src[r] = copy[r];
		}
	}
	for (int r = 0; r < n; r++)
		for (int j = 0; j < n; j++)
			memmove((char *)ops[r]->recv + (size_t)j * chunk,
				(const char *)src[j] + (size_t)r * chunk, chunk);
	for (int r = 0; r < n; r++)
		free(copy[r]);
}

/* Move the data of one collective for every rank (buffers checked, ranks agreeing). */
static void move_data(struct gbn_op *const *ops, int n)
{
	const struct gbn_op *a = ops[0];
	size_t elt = gbn_type_size(a->type), bytes = a->count * elt;
	const void *src[GBN_MAX_RANKS];

	for (int r = 0; r < n; r++)
		src[r] = ops[r]->send;
	switch (a->kind) {
	case GBN_ALLREDUCE:
		/* into rank 0's output (in place, element by element), then copied */
		gbn_reduce(a->type, a->op, n, src, 0, ops[0]->recv, a->count);
		for (int r = 1; r < n; r++)
			memmove(ops[r]->recv, ops[0]->recv, bytes);
		break;
	case GBN_REDUCE:
		gbn_reduce(a->type, a->op, n, src, 0, ops[a->root]->recv, a->count);
		break;
	case GBN_BROADCAST:
		for (int r = 0; r < n; r++)
			memmove(ops[r]->recv, ops[a->root]->send, bytes);
		break;
	case GBN_ALLGATHER:
		/* in place, rank j's input is chunk j of its own output: never overwritten */
		for (int r = 0; r < n; r++)
			for (int j = 0; j < n; j++)
				memmove((char *)ops[r]->recv + (size_t)j * bytes, ops[j]->send, bytes);
		break;
	case GBN_REDUCESCATTER:
		/* in place, rank r's output is chunk r of its own input, read before written */
		for (int r = 0; r < n; r++)
			gbn_reduce(a->type, a->op, n, src, (size_t)r * a->count, ops[r]->recv,
				   a->count);
		break;
	case GBN_ALLTOALL:
		alltoall(ops, n);
		break;
	default:
		break;
	}
}

/*
 * One rank in place: NCCL returns without a kernel, except for the 1/n
 * pre-multiplication of a floating-point avg (bench/nccl/nccl_math.h says the same).
 */
static bool one_rank_noop(const struct gbn_op *o)
{
	bool float_avg = o->op == ncclAvg && kind_reduces(o->kind) &&
			 (o->type == ncclFloat16 || o->type == ncclFloat32 ||
			  o->type == ncclFloat64 || o->type == ncclBfloat16);

	return o->send == o->recv && !float_avg;
}

/* nccl_wrong: one element of rank r's output changed beyond any tolerance (fault.c). */
static void corrupt(const struct gbn_op *o, int r, int n)
{
	size_t elt = gbn_type_size(o->type), elems = recv_elems(o, r, n), at;
	int d = o->comm->device;

	if (!elems)
		return;
	at = o->wrong_at > 0 ? (size_t)o->wrong_at % elems : 0;
	((unsigned char *)o->recv)[at * elt + elt - 1] ^= 0x40;
	pthread_mutex_lock(&gbn_mu);
	if (d >= 0 && d < GBSIM_MAX_GPUS && !wrong_logged[d]) {
		wrong_logged[d] = true;
		gbsim_log("nccl: nccl_wrong fault: %s on GPU %d returns element %zu wrong (and every "
			  "collective after it)", o->what, d, at);
	}
	pthread_mutex_unlock(&gbn_mu);
}

/* The last rank to arrive: check, move, and fix when every rank's operation ends. */
static void compute(struct gbn_rdv *v, int n)
{
	int dev[GBN_MAX_RANKS];
	double latest = 0;

	for (int r = 0; r < n; r++) {
		dev[r] = v->ops[r]->comm->device;
		latest = r == 0 || v->start_s[r] > latest ? v->start_s[r] : latest;
	}
	if (!ranks_agree(v->ops, n)) {
		/* NCCL would hang or corrupt memory; here every rank's comm reports it */
		pthread_mutex_lock(&gbn_mu);
		for (int r = 0; r < n; r++)
			v->ops[r]->comm->async = ncclInvalidUsage;
		pthread_mutex_unlock(&gbn_mu);
	} else if (buffers_ok(v->ops, n, v->err)) {
		move_data(v->ops, n);
		for (int r = 0; r < n; r++)
			if (v->ops[r]->wrong)
				corrupt(v->ops[r], r, n);
	}
	if (n == 1 && one_rank_noop(v->ops[0]))
		v->end_s = latest; /* NCCL launches nothing */
	else
		v->end_s = latest + gbn_coll_seconds(v->ops[0]->kind, coll_bytes(v->ops[0], n), dev, n);
}

/*
 * nccl_hang (locked): this rank has delivered its part of the collective
 * (the peers complete it), but its own kernel never completes: its worker
 * waits until the communicator is aborted or revoked. Its stream never
 * reaches the next collective, so the peers wait there: they are one
 * operation ahead of the hung rank, which is what tells it apart (a rank's
 * completed operations, bench/nccl/nccl.c).
 */
static void hang_locked(struct gbn_op *o)
{
	struct ncclComm *c = o->comm;

	if (c->device >= 0 && c->device < GBSIM_MAX_GPUS && !hang_logged[c->device]) {
		hang_logged[c->device] = true;
		gbsim_log("nccl: nccl_hang fault: %s on rank %d (GPU %d) never completes", o->what,
			  c->rank, c->device);
	}
	c->waiting++;
	while (!c->revoked)
		gbn_wait_locked();
	c->waiting--;
	gbn_broadcast();
}

/* The faults that hold for this run of o on its device (locked); true: it hangs. */
static bool faults_locked(struct gbn_op *o, double now)
{
	int d = o->comm->device;
	long nth = d >= 0 && d < GBSIM_MAX_GPUS ? colls_on_device[d]++ : 0;

	o->wrong = gbn_fault(GBSIM_FAULT_NCCL_WRONG, d, now, nth, &o->wrong_at);
	return gbn_fault(GBSIM_FAULT_NCCL_HANG, d, now, nth, NULL);
}

/*
 * ---- a collective across processes (the clique's xp segment) ----
 *
 * The ranks' k-th collectives meet in the segment, each rank on its own:
 *   1. wait until every rank has finished reading collective k-1 (`left`),
 *      so this rank's staging area may be overwritten;
 *   2. copy its send buffer into its staging area, write its arguments and
 *      its clock, mark itself `arrived`;
 *   3. wait until every rank has arrived; check that they agree, compute
 *      its own output from every rank's staged data (the same arithmetic,
 *      in rank order, as one process's rendezvous), mark itself `left`.
 * Completion time: each rank's clock is its own; every rank computes the
 * same end, the latest arrival among the ranks plus the cost model's time
 * for the ranks' devices, so its operation takes end - its own arrival,
 * as in one process. A wait ends when this rank's own communicator is
 * aborted or revoked (the operation abandoned), or when a peer's process
 * is gone (ncclRemoteError on this rank's communicator, as NCCL reports a
 * closed connection). A peer that only aborts or destroys its
 * communicator is waited for, as in one process: each rank ends such a
 * wait with its own timeout and abort, so each rank sees its own progress
 * (bench/nccl/nccl.c names the one behind).
 */

/* Poll until every rank's counter (arrived or left) reaches `target`: 0, or -1 abandoned. */
static int xp_wait(struct gbn_op *o, uint64_t target, bool arrived)
{
	struct ncclComm *c = o->comm;
	struct gbn_xp_seg *seg = c->clique->seg;
	double since_s = gbn_wall_s();

	for (long spins = 0;; spins++) {
		int behind = -1;

		for (int r = 0; r < c->nranks && behind < 0; r++) {
			const struct gbn_xp_rank *x = &seg->r[r];

			if (atomic_load(arrived ? &x->arrived : &x->left) < target)
				behind = r;
		}
		if (behind < 0)
			return 0;
		pthread_mutex_lock(&gbn_mu);
		if (!c->revoked && gbn_xp_pid_dead(seg->r[behind].pid)) {
			c->async = gbn_fail(ncclRemoteError,
					    "%s on rank %d (GPU %d): rank %d (pid %d) exited", o->what,
					    c->rank, c->device, behind, seg->r[behind].pid);
			c->revoked = true; /* nothing more can complete on it */
		}
		if (c->revoked) {
			pthread_mutex_unlock(&gbn_mu);
			gbsim_log("nccl: %s on rank %d (GPU %d) abandoned: the communicator was "
				  "aborted, revoked or lost a peer", o->what, c->rank, c->device);
			return -1;
		}
		/*
		 * yield first (a peer is usually microseconds behind), then sleep a
		 * little, holding this process's clock (GBN_XP_HOLD_S); a peer that
		 * stays away longer is stuck: simulated time then goes on, 1 ms a turn
		 */
		if (gbn_wall_s() - since_s < GBN_XP_HOLD_S)
			gbn_timed_wait_locked(spins < 64 ? 1 : 200);
		else
			gbsim_vc_wait(&gbn_cv, &gbn_mu, gbsim_vc_now() + 1e-3);
		pthread_mutex_unlock(&gbn_mu);
	}
}

/* Step 2: stage this rank's data and arguments; err set when its buffers may not be touched. */
static void xp_stage(struct gbn_op *o, uint64_t seq, cudaError_t *err)
{
	struct ncclComm *c = o->comm;
	struct gbn_xp_rank *me = &c->clique->seg->r[c->rank];
	size_t elt = gbn_type_size(o->type);
	size_t sb = send_elems(o, c->rank, c->nranks) * elt;
	size_t rb = recv_elems(o, c->rank, c->nranks) * elt;
	cudaError_t e = cudaSuccess;

	if (sb)
		e = gbsim_check_access(c->device, o->send, sb, o->what);
	if (e == cudaSuccess && rb)
		e = gbsim_check_access(c->device, o->recv, rb, o->what);
	*err = e;
	me->bad = e != cudaSuccess;
	if (sb > gbn_xp_stage_bytes()) {
		pthread_mutex_lock(&gbn_mu);
		c->async = gbn_fail(ncclSystemError,
				    "%s on rank %d: %zu bytes to share, more than the %zu bytes a rank "
				    "may stage across processes (GBSIM_NCCL_STAGE_BYTES)", o->what,
				    c->rank, sb, gbn_xp_stage_bytes());
		pthread_mutex_unlock(&gbn_mu);
		me->bad = 1;
	}
	if (!me->bad && sb)
		memcpy(gbn_xp_stage(c->clique->seg, c->rank), o->send, sb);
	me->start_s = gbsim_now_s();
	me->kind = (int)o->kind;
	me->type = (int)o->type;
	me->op = (int)o->op;
	me->root = o->root;
	me->count = o->count;
	atomic_store(&me->arrived, seq + 1);
}

/* Whether every rank called what rank 0 called (the arguments that must agree). */
static bool xp_agree(const struct gbn_op *o)
{
	const struct gbn_xp_seg *seg = o->comm->clique->seg;
	const struct gbn_xp_rank *a = &seg->r[0];
	bool reduces = kind_reduces(o->kind), rooted = kind_rooted(o->kind);

	for (int r = 0; r < o->comm->nranks; r++) {
		const struct gbn_xp_rank *b = &seg->r[r];

		if (b->kind != a->kind || b->count != a->count || b->type != a->type ||
		    (reduces && b->op != a->op) || (rooted && b->root != a->root)) {
			gbn_fail(ncclInvalidUsage,
				 "the ranks' operation arguments disagree: rank 0 kind %d (count %llu, "
				 "type %d, op %d, root %d), rank %d kind %d (count %llu, type %d, op %d, "
				 "root %d)", a->kind, (unsigned long long)a->count, a->type, a->op,
				 a->root, r, b->kind, (unsigned long long)b->count, b->type, b->op,
				 b->root);
			return false;
		}
	}
	return true;
}

/*
 * A collective's start, shared by both paths: gbn_mu taken, no time yet,
 * its fault triggers evaluated and its sequence number drawn. false (and
 * gbn_mu released) on an aborted communicator, whose kernels return at
 * once; true with gbn_mu still held.
 */
static bool begin_coll(struct gbn_op *o, uint64_t *seq, bool *hangs)
{
	struct ncclComm *c = o->comm;

	pthread_mutex_lock(&gbn_mu);
	o->seconds = 0;
	if (c->revoked) {
		pthread_mutex_unlock(&gbn_mu);
		return false;
	}
	*hangs = faults_locked(o, gbsim_now_s());
	*seq = c->colls_begun++;
	return true;
}

/* Step 3: this rank's output from every rank's staged data. */
static void xp_move(struct gbn_op *o)
{
	struct ncclComm *c = o->comm;
	struct gbn_xp_seg *seg = c->clique->seg;
	int n = c->nranks, me = c->rank;
	size_t elt = gbn_type_size(o->type), bytes = o->count * elt;
	const void *src[GBN_MAX_RANKS];

	for (int r = 0; r < n; r++)
		src[r] = gbn_xp_stage(seg, r);
	switch (o->kind) {
	case GBN_ALLREDUCE:
		gbn_reduce(o->type, o->op, n, src, 0, o->recv, o->count);
		break;
	case GBN_REDUCE:
		if (me == o->root)
			gbn_reduce(o->type, o->op, n, src, 0, o->recv, o->count);
		break;
	case GBN_BROADCAST:
		memcpy(o->recv, src[o->root], bytes);
		break;
	case GBN_ALLGATHER:
		for (int j = 0; j < n; j++)
			memcpy((char *)o->recv + (size_t)j * bytes, src[j], bytes);
		break;
	case GBN_REDUCESCATTER:
		gbn_reduce(o->type, o->op, n, src, (size_t)me * o->count, o->recv, o->count);
		break;
	case GBN_ALLTOALL:
		for (int j = 0; j < n; j++)
			memcpy((char *)o->recv + (size_t)j * bytes,
			       (const char *)src[j] + (size_t)me * bytes, bytes);
		break;
	default:
		break;
	}
}

static cudaError_t xp_run_coll(struct gbn_op *o)
{
	struct ncclComm *c = o->comm;
	struct gbn_xp_seg *seg = c->clique->seg;
	int n = c->nranks, dev[GBN_MAX_RANKS];
	cudaError_t err = cudaSuccess;
	double latest = 0;
	bool hangs, all_ok = true;
	uint64_t seq;

	if (!begin_coll(o, &seq, &hangs))
		return cudaSuccess;
	c->waiting++;
	pthread_mutex_unlock(&gbn_mu);
	if (xp_wait(o, seq, false))
		goto out;
	xp_stage(o, seq, &err);
	if (xp_wait(o, seq + 1, true))
		goto out;
	for (int r = 0; r < n; r++) {
		dev[r] = seg->r[r].device;
		latest = r == 0 || seg->r[r].start_s > latest ? seg->r[r].start_s : latest;
		all_ok &= !seg->r[r].bad;
	}
	if (!xp_agree(o)) {
		pthread_mutex_lock(&gbn_mu);
		c->async = ncclInvalidUsage;
		pthread_mutex_unlock(&gbn_mu);
	} else if (all_ok) {
		xp_move(o);
		if (o->wrong)
			corrupt(o, c->rank, n);
	}
	o->seconds = latest + gbn_coll_seconds(o->kind, coll_bytes(o, n), dev, n) -
		     seg->r[c->rank].start_s;
out:
	atomic_store(&seg->r[c->rank].left, seq + 1); /* this rank reads nothing more of seq */
	pthread_mutex_lock(&gbn_mu);
	c->waiting--;
	gbn_broadcast();
	if (hangs && !c->revoked)
		hang_locked(o);
	pthread_mutex_unlock(&gbn_mu);
	return err;
}

static cudaError_t run_coll(struct gbn_op *o)
{
	struct ncclComm *c = o->comm;
	struct gbn_clique *k = c->clique;
	struct gbn_rdv *v;
	cudaError_t err = cudaSuccess;
	int rank = c->rank;
	uint64_t seq;
	bool hangs;

	if (k->xp)
		return xp_run_coll(o);
	if (!begin_coll(o, &seq, &hangs))
		return cudaSuccess;
	v = rdv_of_locked(k, seq);
	if (!v) {
		gbn_fail(ncclSystemError, "%s: out of host memory", o->what);
		pthread_mutex_unlock(&gbn_mu);
		return cudaErrorMemoryAllocation;
	}
	v->ops[rank] = o;
	v->start_s[rank] = gbsim_now_s();
	v->arrived++;
	c->waiting++;
	if (v->arrived == k->nranks && !v->broken) {
		v->computing = true;
		pthread_mutex_unlock(&gbn_mu);
		compute(v, k->nranks);
		pthread_mutex_lock(&gbn_mu);
		v->done = true;
		gbn_broadcast();
	}
	/* a rank whose data is being moved waits for that even when aborted: its buffers are in use */
	while (!v->done && !(c->revoked && !v->computing))
		gbn_wait_locked();
	c->waiting--;
	if (v->done) {
		o->seconds = v->end_s - v->start_s[rank];
		err = v->err[rank];
	} else {
		v->broken = true; /* the peers can never complete it: they wait for their own abort */
		gbsim_log("nccl: %s on rank %d (GPU %d) abandoned: the communicator was aborted or "
			  "revoked", o->what, rank, c->device);
	}
	if (++v->left == k->nranks) {
		rdv_unlink_locked(k, v);
		rdv_free(v);
	}
	gbn_broadcast();
	if (hangs)
		hang_locked(o);
	pthread_mutex_unlock(&gbn_mu);
	return err;
}

/* ---- send and receive ---- */

static struct gbn_post *find_post_locked(struct gbn_clique *k, int from, int to, uint64_t seq)
{
	for (struct gbn_post *p = k->posts; p; p = p->next)
		if (p->from == from && p->to == to && p->seq == seq && !p->taken)
			return p;
	return NULL;
}

static void unlink_post_locked(struct gbn_clique *k, struct gbn_post *q)
{
	for (struct gbn_post **p = &k->posts; *p; p = &(*p)->next)
		if (*p == q) {
			*p = q->next;
			return;
		}
}

/* Receive item it from its posted send, if there; true once done. */
static bool try_receive_locked(struct gbn_op *o, const struct gbn_item *it, uint64_t seq,
			       double now, double *end_s, cudaError_t *err)
{
	struct ncclComm *c = o->comm;
	struct gbn_post *p = find_post_locked(c->clique, it->peer, c->rank, seq);
	size_t bytes = it->count * gbn_type_size(it->type);

	if (!p)
		return false;
	p->taken = true;
	if (p->bytes != bytes) {
		gbn_fail(ncclInvalidUsage, "ncclRecv on rank %d (GPU %d) of %zu bytes from rank %d, "
			 "which sent %zu", c->rank, c->device, bytes, it->peer, p->bytes);
		c->async = ncclInvalidUsage;
	} else {
		cudaError_t e = gbsim_check_access(c->device, it->buf, bytes, "ncclRecv");

		if (e == cudaSuccess)
			memmove(it->buf, p->buf, bytes);
		else
			*err = e;
	}
	p->end_s = fmax(p->start_s, now) + gbn_p2p_seconds(bytes, p->from_device, c->device);
	*end_s = fmax(*end_s, p->end_s);
	gbn_broadcast();
	return true;
}

/* Post every send of o (locked); err set when one of its buffers may not be read. */
static void post_sends_locked(struct gbn_op *o, struct gbn_post **mine, double now,
			      cudaError_t *err)
{
	struct ncclComm *c = o->comm;

	for (int i = 0; i < o->n_items; i++) {
		const struct gbn_item *it = &o->items[i];
		struct gbn_post *p;
		size_t bytes = it->count * gbn_type_size(it->type);
		cudaError_t e = gbsim_check_access(c->device, it->buf, bytes, "ncclSend");

		mine[i] = NULL;
		if (!it->send)
			continue;
		if (e != cudaSuccess)
			*err = e;
		p = calloc(1, sizeof(*p));
		if (!p) {
			*err = cudaErrorMemoryAllocation;
			continue;
		}
		*p = (struct gbn_post){ .from = c->rank, .to = it->peer, .from_device = c->device,
					.seq = c->sent[it->peer]++, .buf = e == cudaSuccess ? it->buf : NULL,
					.bytes = bytes, .start_s = now };
		if (!p->buf)
			p->bytes = (size_t)-1; /* an unreadable send: the receive reports a mismatch */
		p->next = c->clique->posts;
		c->clique->posts = p;
		mine[i] = p;
	}
}

static cudaError_t run_p2p(struct gbn_op *o)
{
	struct ncclComm *c = o->comm;
	struct gbn_post **mine = calloc((size_t)o->n_items, sizeof(*mine));
	uint64_t *seq = calloc((size_t)o->n_items, sizeof(*seq));
	bool *got = calloc((size_t)o->n_items, sizeof(*got));
	cudaError_t err = cudaSuccess;
	double now, end_s;

	o->seconds = 0;
	if (!mine || !seq || !got) {
		free(mine);
		free(seq);
		free(got);
		return cudaErrorMemoryAllocation;
	}
	pthread_mutex_lock(&gbn_mu);
	if (c->revoked)
		goto out;
	if (c->clique->xp) {
		/* the nccl command's collectives need none: its all-to-all is ncclAlltoAll */
		c->async = gbn_fail(ncclInvalidUsage, "%s on rank %d (GPU %d): send and receive "
				    "between processes are not simulated", o->what, c->rank,
				    c->device);
		goto out;
	}
	now = end_s = gbsim_now_s();
	post_sends_locked(o, mine, now, &err);
	for (int i = 0; i < o->n_items; i++)
		if (!o->items[i].send)
			seq[i] = c->received[o->items[i].peer]++;
	c->waiting++;
	for (;;) {
		bool all = true;

		for (int i = 0; i < o->n_items; i++) {
			if (o->items[i].send)
				got[i] = !mine[i] || mine[i]->taken;
			else if (!got[i])
				got[i] = try_receive_locked(o, &o->items[i], seq[i], now, &end_s, &err);
			all &= got[i];
		}
		if (all || c->revoked)
			break;
		gbn_wait_locked();
	}
	c->waiting--;
	for (int i = 0; i < o->n_items; i++) {
		if (!mine[i])
			continue;
		if (mine[i]->taken)
			end_s = fmax(end_s, mine[i]->end_s);
		unlink_post_locked(c->clique, mine[i]);
		free(mine[i]);
	}
	o->seconds = end_s - now;
	gbn_broadcast();
out:
	pthread_mutex_unlock(&gbn_mu);
	free(mine);
	free(seq);
	free(got);
	return err;
}

static cudaError_t op_run(void *ctx)
{
	struct gbn_op *o = ctx;

	return o->kind == GBN_P2P ? run_p2p(o) : run_coll(o);
}

/* ---- queueing ---- */

ncclResult_t gbn_op_enqueue(struct gbn_op *o)
{
	struct gbsim_work w = {
		.what = o->what,
		.run = op_run,
		.ctx = o,
		.free_ctx = op_free_ctx,
		.seconds = -1, /* known once the rendezvous is over */
		.duration_fn = op_duration,
	};
	int sdev = gbsim_stream_device(o->stream);
	cudaError_t e;

	if (sdev != o->comm->device) {
		ncclResult_t r = gbn_fail(ncclUnhandledCudaError,
					  "%s: rank %d's communicator is on GPU %d, the stream on "
					  "GPU %d", o->what, o->comm->rank, o->comm->device, sdev);

		gbn_op_free(o);
		return r;
	}
	e = gbsim_enqueue(o->stream, &w);
	if (e != cudaSuccess) {
		ncclResult_t r = gbn_fail(ncclUnhandledCudaError,
					  "%s: rank %d (GPU %d): cannot queue on the stream: %s",
					  o->what, o->comm->rank, o->comm->device,
					  cudaGetErrorString(e));

		gbn_op_free(o);
		return r;
	}
	return ncclSuccess;
}

/* Fold every later p2p op of the same comm and stream into o (one batch). */
static void fuse_p2p(struct gbn_op **ops, int n, int first)
{
	struct gbn_op *o = ops[first];

	for (int j = first + 1; j < n; j++) {
		struct gbn_op *q = ops[j];
		struct gbn_item *items;

		if (!q || q->kind != GBN_P2P || q->comm != o->comm || q->stream != o->stream)
			continue;
		items = realloc(o->items, (size_t)(o->n_items + q->n_items) * sizeof(*items));
		if (!items)
			continue; /* left as its own batch */
		o->items = items;
		memcpy(o->items + o->n_items, q->items, (size_t)q->n_items * sizeof(*items));
		o->n_items += q->n_items;
		gbn_op_free(q);
		ops[j] = NULL;
	}
}

ncclResult_t gbn_enqueue_group(struct gbn_op **ops, int n)
{
	ncclResult_t r = ncclSuccess;

	for (int i = 0; i < n; i++)
		if (ops[i] && ops[i]->kind == GBN_P2P)
			fuse_p2p(ops, n, i);
	for (int i = 0; i < n; i++) {
		if (!ops[i])
			continue;
		if (r == ncclSuccess)
			r = gbn_op_enqueue(ops[i]);
		else
			gbn_op_free(ops[i]);
	}
	return r;
}

/* ---- the calls ---- */

/* Checks NCCL makes when called (locked): the communicator, type, operator, root, buffers. */
static ncclResult_t call_checks_locked(const struct gbn_op *o)
{
	struct ncclComm *c = o->comm;
	ncclResult_t r = gbn_comm_check_locked(c, o->what);
	int peer_or_root = o->kind == GBN_P2P ? o->items[0].peer : o->root;

	if (r != ncclSuccess)
		return r;
	r = gbn_comm_state_locked(c);
	if (r != ncclSuccess || c->revoked || c->phase != GBN_LIVE)
		return gbn_fail(ncclInvalidUsage, "%s: rank %d (GPU %d): the communicator is %s",
				o->what, c->rank, c->device,
				c->revoked		  ? "revoked"
				: c->phase != GBN_LIVE	  ? "finalized"
				: r == ncclInProgress	  ? "not ready (in progress)"
							  : ncclGetErrorString(r));
	if (!gbn_type_size(o->type))
		return gbn_fail(ncclInvalidArgument, "%s: data type %d (%s) is not simulated",
				o->what, (int)o->type, gbn_type_name(o->type));
	if (kind_reduces(o->kind) && (unsigned)o->op >= (unsigned)ncclNumOps)
		return gbn_fail(ncclInvalidArgument, "%s: reduction operator %d is not simulated",
				o->what, (int)o->op);
	if ((kind_rooted(o->kind) || o->kind == GBN_P2P) &&
	    (peer_or_root < 0 || peer_or_root >= c->nranks))
		return gbn_fail(ncclInvalidArgument, "%s: %s %d is not a rank (0..%d)", o->what,
				o->kind == GBN_P2P ? "peer" : "root", peer_or_root, c->nranks - 1);
	return ncclSuccess;
}

/* NULL buffers NCCL refuses at the call (it checks every pointer it will use). */
static ncclResult_t buffer_checks(const struct gbn_op *o)
{
	bool need_send, need_recv;

	if (o->kind == GBN_P2P)
		return o->items[0].count && !o->items[0].buf
			       ? gbn_fail(ncclInvalidArgument, "%s: buffer is NULL", o->what)
			       : ncclSuccess;
	need_send = o->kind != GBN_BROADCAST || o->comm->rank == o->root;
	need_recv = o->kind != GBN_REDUCE || o->comm->rank == o->root;
	if (o->count && ((need_send && !o->send) || (need_recv && !o->recv)))
		return gbn_fail(ncclInvalidArgument, "%s: rank %d: %s is NULL", o->what,
				o->comm->rank, need_send && !o->send ? "sendbuff" : "recvbuff");
	return ncclSuccess;
}

/* Check o, then queue it (now, or at ncclGroupEnd); o is always consumed. */
static ncclResult_t submit(struct gbn_op *o)
{
	ncclResult_t r;

	pthread_mutex_lock(&gbn_mu);
	r = call_checks_locked(o);
	if (r == ncclSuccess)
		r = buffer_checks(o);
	if (r == ncclSuccess)
		o->comm->outstanding++; /* from here the comm outlives o: gbn_op_free lets go */
	pthread_mutex_unlock(&gbn_mu);
	if (r != ncclSuccess) {
		gbn_group_fail(r);
		free(o->items);
		free(o);
		return r;
	}
	if (gbn_in_group()) {
		gbn_group_add_op(o, o->comm);
		return ncclSuccess;
	}
	return gbn_op_enqueue(o);
}

static ncclResult_t coll(enum gbn_kind kind, const char *what, const void *send, void *recv,
			 size_t count, ncclDataType_t type, ncclRedOp_t op, int root,
			 ncclComm_t comm, cudaStream_t stream)
{
	struct gbn_op *o = calloc(1, sizeof(*o));

	if (!o)
		return gbn_fail(ncclSystemError, "%s: out of host memory", what);
	*o = (struct gbn_op){ .kind = kind, .what = what, .comm = comm, .stream = stream,
			      .send = send, .recv = recv, .count = count, .type = type,
			      .op = op, .root = root };
	return submit(o);
}

static ncclResult_t p2p(bool is_send, const char *what, void *buf, size_t count,
			ncclDataType_t type, int peer, ncclComm_t comm, cudaStream_t stream)
{
	struct gbn_op *o = calloc(1, sizeof(*o));
	struct gbn_item *it = calloc(1, sizeof(*it));

	if (!o || !it) {
		free(o);
		free(it);
		return gbn_fail(ncclSystemError, "%s: out of host memory", what);
	}
	*it = (struct gbn_item){ .send = is_send, .buf = buf, .count = count, .type = type,
				 .peer = peer };
	*o = (struct gbn_op){ .kind = GBN_P2P, .what = what, .comm = comm, .stream = stream,
			      .count = count, .type = type, .items = it, .n_items = 1 };
	return submit(o);
}

ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
			   ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
			   cudaStream_t stream)
{
	return coll(GBN_ALLREDUCE, "ncclAllReduce", sendbuff, recvbuff, count, datatype, op, 0,
		    comm, stream);
}

ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount,
			   ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream)
{
	return coll(GBN_ALLGATHER, "ncclAllGather", sendbuff, recvbuff, sendcount, datatype,
		    ncclSum, 0, comm, stream);
}

ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount,
			       ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
			       cudaStream_t stream)
{
	return coll(GBN_REDUCESCATTER, "ncclReduceScatter", sendbuff, recvbuff, recvcount,
		    datatype, op, 0, comm, stream);
}

ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
			   ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream)
{
	return coll(GBN_BROADCAST, "ncclBroadcast", sendbuff, recvbuff, count, datatype, ncclSum,
		    root, comm, stream);
}

ncclResult_t ncclBcast(void *buff, size_t count, ncclDataType_t datatype, int root,
		       ncclComm_t comm, cudaStream_t stream)
{
	return coll(GBN_BROADCAST, "ncclBcast", buff, buff, count, datatype, ncclSum, root, comm,
		    stream);
}

ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count,
			ncclDataType_t datatype, ncclRedOp_t op, int root, ncclComm_t comm,
			cudaStream_t stream)
{
	return coll(GBN_REDUCE, "ncclReduce", sendbuff, recvbuff, count, datatype, op, root, comm,
		    stream);
}

ncclResult_t ncclAlltoAll(const void *sendbuff, void *recvbuff, size_t count,
			  ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream)
{
	return coll(GBN_ALLTOALL, "ncclAlltoAll", sendbuff, recvbuff, count, datatype, ncclSum, 0,
		    comm, stream);
}

ncclResult_t ncclSend(const void *sendbuff, size_t count, ncclDataType_t datatype, int peer,
		      ncclComm_t comm, cudaStream_t stream)
{
	/* never written: the item keeps one pointer type for both directions */
	return p2p(true, "ncclSend", (void *)(uintptr_t)sendbuff, count, datatype, peer, comm,
		   stream);
}

ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype, int peer,
		      ncclComm_t comm, cudaStream_t stream)
{
	return p2p(false, "ncclRecv", recvbuff, count, datatype, peer, comm, stream);
}
