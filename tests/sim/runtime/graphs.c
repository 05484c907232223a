/* SPDX-License-Identifier: MIT */
/*
 * graphs.c - stream capture and graphs, as far as this project uses them: a
 * graph is the list of work one stream queued while capturing; launching an
 * executable graph queues that list again, in order, on the launch stream.
 * Captured work keeps its context: run() is called once per launch with the
 * same ctx, and free_ctx once the graph and every exec made from it are gone
 * and no launch of it is still queued.
 */
#include "tests/sim/runtime/rt.h"

#include <stdlib.h>
#include <string.h>

struct rt_graph {
	int refs;                    /* the graph handle, each exec, each queued node */
	bool handle_alive;
	struct gbsim_work *nodes;
	int n, cap;
	const void *site;
	struct rt_graph *next_all;
};

struct rt_exec {
	struct rt_graph *graph;
	bool destroyed;
	const void *site;
	struct rt_exec *next_all;
};

static struct rt_graph *all_graphs; /* under rt_table_lock; kept to catch stale handles */
static struct rt_exec *all_execs;

static void graph_unref(struct rt_graph *g)
{
	bool last;

	pthread_mutex_lock(&rt_table_lock);
	last = --g->refs == 0;
	pthread_mutex_unlock(&rt_table_lock);
	if (!last)
		return;
	for (int i = 0; i < g->n; i++)
		if (g->nodes[i].free_ctx)
			g->nodes[i].free_ctx(g->nodes[i].ctx);
	free(g->nodes);
	g->nodes = NULL;
	g->n = g->cap = 0;
}

cudaError_t rt_graph_capture(struct rt_graph *g, const struct gbsim_work *w)
{
	pthread_mutex_lock(&rt_table_lock);
	if (g->n == g->cap) {
		int cap = g->cap ? g->cap * 2 : 16;
		struct gbsim_work *grown = realloc(g->nodes, (size_t)cap * sizeof(*grown));

		if (!grown) {
			pthread_mutex_unlock(&rt_table_lock);
			return cudaErrorMemoryAllocation;
		}
		g->nodes = grown;
		g->cap = cap;
	}
	g->nodes[g->n++] = *w;
	pthread_mutex_unlock(&rt_table_lock);
	return cudaSuccess;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
	struct rt_stream *s;
	struct rt_graph *g, *old;
	cudaError_t e;

	(void)mode; /* one capturing stream at a time in this project: modes do not differ */
	if ((e = rt_stream_get(stream, &s)) != cudaSuccess)
		return rt_ret(e);
	if (s->legacy) {
		gbsim_log("cudaStreamBeginCapture: the legacy stream cannot be captured");
		return rt_ret(cudaErrorStreamCaptureUnsupported);
	}
	if (!(g = calloc(1, sizeof(*g))))
		return rt_ret(cudaErrorMemoryAllocation);
	g->refs = 1;
	g->handle_alive = true;
	g->site = __builtin_return_address(0);
	rt_stream_set_capture(s, g, &old);
	if (old) {
		rt_stream_set_capture(s, old, &g);
		free(g);
		gbsim_log("cudaStreamBeginCapture: the stream is already capturing");
		return rt_ret(cudaErrorIllegalState);
	}
	return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph)
{
	struct rt_stream *s;
	struct rt_graph *g;
	cudaError_t e;

	if (!pGraph)
		return rt_ret(cudaErrorInvalidValue);
	if ((e = rt_stream_get(stream, &s)) != cudaSuccess)
		return rt_ret(e);
	rt_stream_set_capture(s, NULL, &g);
	if (!g) {
		gbsim_log("cudaStreamEndCapture: the stream is not capturing");
		return rt_ret(cudaErrorIllegalState);
	}
	pthread_mutex_lock(&rt_table_lock);
	g->next_all = all_graphs;
	all_graphs = g;
	pthread_mutex_unlock(&rt_table_lock);
	*pGraph = (cudaGraph_t)g;
	return cudaSuccess;
}

static struct rt_graph *graph_get(cudaGraph_t handle, const char *call)
{
	struct rt_graph *g;
	bool alive = false;

	pthread_mutex_lock(&rt_table_lock);
	for (g = all_graphs; g && g != (struct rt_graph *)handle; g = g->next_all)
		;
	if (g)
		alive = g->handle_alive;
	pthread_mutex_unlock(&rt_table_lock);
	if (!g || !alive) {
		gbsim_log("%s: graph %p %s", call, (void *)handle,
			  g ? "used after cudaGraphDestroy" : "is not a graph");
		return NULL;
	}
	return g;
}

static struct rt_exec *exec_get(cudaGraphExec_t handle, const char *call)
{
	struct rt_exec *x;
	bool destroyed = false;

	pthread_mutex_lock(&rt_table_lock);
	for (x = all_execs; x && x != (struct rt_exec *)handle; x = x->next_all)
		;
	if (x)
		destroyed = x->destroyed;
	pthread_mutex_unlock(&rt_table_lock);
	if (!x || destroyed) {
		gbsim_log("%s: executable graph %p %s", call, (void *)handle,
			  x ? "used after cudaGraphExecDestroy" : "is not an executable graph");
		return NULL;
	}
	return x;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
				 unsigned long long flags)
{
	struct rt_graph *g = graph_get(graph, "cudaGraphInstantiate");
	struct rt_exec *x;

	(void)flags;
	if (!pGraphExec)
		return rt_ret(cudaErrorInvalidValue);
	if (!g)
		return rt_ret(cudaErrorInvalidResourceHandle);
	if (!(x = calloc(1, sizeof(*x))))
		return rt_ret(cudaErrorMemoryAllocation);
	x->graph = g;
	x->site = __builtin_return_address(0);
	pthread_mutex_lock(&rt_table_lock);
	g->refs++;
	x->next_all = all_execs;
	all_execs = x;
	pthread_mutex_unlock(&rt_table_lock);
	*pGraphExec = (cudaGraphExec_t)x;
	return cudaSuccess;
}

struct node_ctx {
	struct rt_graph *graph;
	int index;
};

static cudaError_t node_run(void *arg)
{
	struct node_ctx *c = arg;
	const struct gbsim_work *w = &c->graph->nodes[c->index];

	return w->run ? w->run(w->ctx) : cudaSuccess;
}

static double node_seconds(void *arg)
{
	struct node_ctx *c = arg;
	const struct gbsim_work *w = &c->graph->nodes[c->index];

	if (w->seconds >= 0)
		return w->seconds;
	return w->duration_fn ? w->duration_fn(w->ctx) : 0;
}

static void node_free(void *arg)
{
	struct node_ctx *c = arg;

	graph_unref(c->graph);
	free(c);
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream)
{
	struct rt_exec *x = exec_get(graphExec, "cudaGraphLaunch");
	struct rt_stream *s;
	cudaError_t e;

	if (!x)
		return rt_ret(cudaErrorInvalidResourceHandle);
	if ((e = rt_stream_get(stream, &s)) != cudaSuccess ||
	    (e = rt_sticky(s->device)) != cudaSuccess)
		return rt_ret(e);
	for (int i = 0; i < x->graph->n; i++) {
		struct node_ctx *c = malloc(sizeof(*c));
		struct gbsim_work w = {.what = x->graph->nodes[i].what, .run = node_run,
				       .seconds = -1, .duration_fn = node_seconds,
				       .free_ctx = node_free};

		if (!c)
			return rt_ret(cudaErrorMemoryAllocation);
		*c = (struct node_ctx){x->graph, i};
		w.ctx = c;
		pthread_mutex_lock(&rt_table_lock);
		x->graph->refs++;
		pthread_mutex_unlock(&rt_table_lock);
		if ((e = rt_stream_enqueue(s, &w, false, NULL, 0, NULL)) != cudaSuccess) {
			node_free(c);
			return rt_ret(e);
		}
	}
	return cudaSuccess;
}

cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream)
{
	struct rt_stream *s;
	cudaError_t e;

	if (!exec_get(graphExec, "cudaGraphUpload"))
		return rt_ret(cudaErrorInvalidResourceHandle);
	if ((e = rt_stream_get(stream, &s)) != cudaSuccess)
		return rt_ret(e);
	return rt_ret(rt_sticky(s->device));
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec)
{
	struct rt_exec *x = exec_get(graphExec, "cudaGraphExecDestroy");

	if (!x)
		return rt_ret(cudaErrorInvalidResourceHandle);
	pthread_mutex_lock(&rt_table_lock);
	x->destroyed = true;
	pthread_mutex_unlock(&rt_table_lock);
	graph_unref(x->graph);
	return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
	struct rt_graph *g = graph_get(graph, "cudaGraphDestroy");

	if (!g)
		return rt_ret(cudaErrorInvalidResourceHandle);
	pthread_mutex_lock(&rt_table_lock);
	g->handle_alive = false;
	pthread_mutex_unlock(&rt_table_lock);
	graph_unref(g);
	return cudaSuccess;
}

int rt_graph_leaks(int *execs)
{
	int graphs = 0;

	*execs = 0;
	pthread_mutex_lock(&rt_table_lock);
	for (struct rt_graph *g = all_graphs; g; g = g->next_all)
		graphs += g->handle_alive;
	for (struct rt_exec *x = all_execs; x; x = x->next_all)
		*execs += !x->destroyed;
	pthread_mutex_unlock(&rt_table_lock);
	return graphs;
}
