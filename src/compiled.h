/* compiled.h: what torch.compile and CUDA graphs leave in a trace, for the analyses that
 * must not read a compiled model as an eager one: whether the trace is of a compiled model
 * (Triton kernels, compiled regions) and replays CUDA graphs, and which CPU slice launched
 * a kernel once the launcher frames between them (Triton's and inductor's Python,
 * `<built-in function _launch_kernel>`, the driver call under the runtime call, a graph's
 * replay) are skipped. */
#ifndef TT_COMPILED_H
#define TT_COMPILED_H

#include <stdbool.h>
#include <stdint.h>

#include "src/model.h"

/* A trace's compiled-model facts: counts of slices, one pass over them. */
struct compiled_facts {
	uint64_t triton_kernels;   /* kernels named triton_... (inductor's) */
	uint64_t compiled_regions; /* CPU slices named Torch-Compiled Region, CompiledFunction*, ## Call CompiledFxGraph
	                            */
	uint64_t graph_launches;   /* runtime calls cudaGraphLaunch, hipGraphLaunch, cuGraphLaunch */
	int64_t kernel_ns;         /* time of all kernels (summed) */
	int64_t compiled_kernel_ns; /* of those, Triton kernels and kernels launched inside a compiled region */
	bool compiled;              /* compiled code launches at least half the kernel time (with no kernels:
	                             * a compiled region ran) */
	bool partly_compiled;       /* compiled code launches 5% to half of the kernel time (under 5%: eager) */
	bool cuda_graphs;           /* graph_launches */
};

/* Fills *F for T: a model is compiled by the share of the GPU work its compiled code
 * launches, not by one compiled region in an eager job. Never fails. */
void compiled_facts_of(const struct trace *t, struct compiled_facts *f);
/* Whether NAME is a runtime call that replays a CUDA (HIP) graph. */
bool compiled_is_graph_launch(const char *name);
/* The CPU slice that launched the work of runtime call CALL of T, as a track index of
 * CALL's track: the slice directly above CALL, except when that is a launcher frame or
 * CALL replays a graph; then the nearest ancestor that is neither a launcher frame nor a
 * Python frame (a compiled region, a "## ... ##" annotation, an aten op), else the
 * nearest Python frame that is no launcher. TT_NONE when there is none; *GRAPH (may be
 * NULL) says whether CALL replays a graph. */
uint32_t compiled_launching_slice(const struct trace *t, struct slice_ref call, bool *graph);

#endif
