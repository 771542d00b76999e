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
	int64_t compiled_kernel_ns;  /* of those, Triton kernels and kernels launched inside a compiled region */
	int64_t library_compiled_ns; /* of those, library calls under any backend: matmuls, convolutions,
	                              * attention, collectives (cuBLAS, cuDNN, NCCL...) */
	int64_t aten_compiled_ns;    /* of those, ATen's own kernels (at::native::...) */
	bool compiled;               /* compiled code launches at least half the kernel time (with no kernels:
	                              * a compiled region ran) */
	bool partly_compiled;        /* compiled code launches 5% to half of the kernel time (under 5%: eager) */
	bool cuda_graphs;            /* graph_launches */
};

/* Fills *F for T: a model is compiled by the share of the GPU work its compiled code
 * launches, not by one compiled region in an eager job. Never fails. */
void compiled_facts_of(const struct trace *t, struct compiled_facts *f);
/* Where a torch.compile'd model's graphs break, by profiler step: the outermost compiled
 * regions that start in each step (a graph break splits a compiled function into several
 * graphs with eager code between them: regions - 1 breaks in a step of one compiled
 * model; a backward region, CompiledFunctionBackward, is its forward's other half, not
 * counted), the operators that ran eagerly in it (top-level CPU operators outside every
 * compiled region), and the Python frames that called the regions (the innermost one
 * with a file above each, "model.py(40): forward"), by how many regions each called. */
struct compiled_step {
	int64_t number; /* N of ProfilerStep#N */
	uint32_t regions, eager_ops;
};
struct compiled_frame {
	uint32_t name; /* string id of the frame */
	uint32_t regions;
};
struct compiled_breaks {
	struct compiled_step *steps; /* by ProfilerStep, in time order */
	uint32_t nsteps;
	uint32_t regions;              /* in all, steps or not */
	struct compiled_frame *frames; /* most regions first, then by name */
	uint32_t nframes;
};
/* Fills *B for T (free with compiled_breaks_free). Never fails. */
void compiled_breaks_of(const struct trace *t, struct compiled_breaks *b);
void compiled_breaks_free(struct compiled_breaks *b);
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
