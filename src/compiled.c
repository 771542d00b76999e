/* compiled.c: compiled models and CUDA graphs in a trace (see compiled.h). Names decide:
 * inductor names its kernels triton_* and wraps its graphs in known annotations; the
 * launcher frames are Python frames of triton and torch/_inductor and the runtime's own
 * calls. */
#include "src/compiled.h"

#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "src/index.h"

static bool starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

bool compiled_is_graph_launch(const char *name)
{
	return starts(name, "cudaGraphLaunch") || starts(name, "hipGraphLaunch") || starts(name, "cuGraphLaunch");
}

static bool compiled_region(const char *name)
{
	return starts(name, "Torch-Compiled Region") || starts(name, "CompiledFunction") ||
	       starts(name, "## Call CompiledFxGraph");
}

/* Whether slice S of T is a frame between a kernel's launching operator and its launch:
 * the runtime's calls (a driver call under a runtime call), inductor's per-kernel
 * record_function (named like the kernel), and the Python of Triton's and inductor's
 * launchers and of a graph's replay. */
static bool launcher_frame(const struct trace *t, const struct slice *s)
{
	const char *nm = strtab_get(&t->strings, s->name);
	switch (s->cls) {
	case SC_RUNTIME: return true;
	case SC_CPU_OP:
	case SC_USER_ANNOTATION: return starts(nm, "triton_");
	case SC_PYTHON:
		return strstr(nm, "_launch_kernel") != NULL || strstr(nm, "triton") != NULL ||
		       strstr(nm, "torch/_inductor/") != NULL || strstr(nm, "torchinductor") != NULL ||
		       starts(nm, "<string>(1): launcher") || starts(nm, "<built-in method replay") ||
		       strstr(nm, "torch/cuda/graphs.py") != NULL;
	default: return false;
	}
}

uint32_t compiled_launching_slice(const struct trace *t, struct slice_ref call, bool *graph)
{
	if (graph != NULL)
		*graph = false;
	if (call.track >= t->ntracks || call.idx >= t->tracks[call.track].nslices)
		return TT_NONE;
	const struct track *tr = &t->tracks[call.track];
	bool replay = compiled_is_graph_launch(strtab_get(&t->strings, tr->slices[call.idx].name));
	if (graph != NULL)
		*graph = replay;
	uint32_t p = index_parent(tr, call.idx);
	if (p == TT_NONE || (!replay && !launcher_frame(t, &tr->slices[p])))
		return p;
	uint32_t python = TT_NONE; /* the nearest Python frame that is no launcher */
	for (; p != TT_NONE; p = index_parent(tr, p)) {
		const struct slice *s = &tr->slices[p];
		if (launcher_frame(t, s))
			continue;
		if (s->cls != SC_PYTHON)
			return p;
		if (python == TT_NONE)
			python = p;
	}
	return python;
}

void compiled_facts_of(const struct trace *t, struct compiled_facts *f)
{
	memset(f, 0, sizeof *f);
	/* per string id: 0 unseen, 1 nothing, 2 triton kernel name, 3 region, 4 graph launch */
	uint8_t *seen = xcalloc(t->strings.n ? t->strings.n : 1, 1);
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		for (uint32_t i = 0; i < tr->nslices; i++) {
			const struct slice *s = &tr->slices[i];
			if (s->name >= t->strings.n)
				continue;
			if (seen[s->name] == 0) {
				const char *nm = strtab_get(&t->strings, s->name);
				seen[s->name] = starts(nm, "triton_")          ? 2
				                : compiled_region(nm)          ? 3
				                : compiled_is_graph_launch(nm) ? 4
				                                               : 1;
			}
			if (seen[s->name] == 2 && s->cls == SC_KERNEL)
				f->triton_kernels++;
			else if (seen[s->name] == 3 && s->cls != SC_KERNEL && s->cls != SC_PYTHON)
				f->compiled_regions++;
			else if (seen[s->name] == 4 && s->cls == SC_RUNTIME)
				f->graph_launches++;
		}
	}
	/* the kernel time compiled code launched: Triton kernels, and kernels whose runtime call
	 * nests in a compiled region */
	for (uint32_t i = 0; i < t->ngpu; i++) {
		const struct gpu_info *g = &t->gpu[i];
		if (g->self.track >= t->ntracks || g->self.idx >= t->tracks[g->self.track].nslices)
			continue;
		const struct track *kt = &t->tracks[g->self.track];
		const struct slice *k = &kt->slices[g->self.idx];
		if (k->cls != SC_KERNEL || k->name >= t->strings.n)
			continue;
		int64_t d = slice_dur(kt, k);
		f->kernel_ns += d;
		bool by_compiled = seen[k->name] == 2;
		if (!by_compiled && f->compiled_regions > 0 && g->peer.track < t->ntracks &&
		    g->peer.idx < t->tracks[g->peer.track].nslices) {
			const struct track *ct = &t->tracks[g->peer.track];
			for (uint32_t p = index_parent(ct, g->peer.idx); p != TT_NONE && !by_compiled;
			     p = index_parent(ct, p))
				by_compiled = ct->slices[p].name < t->strings.n && seen[ct->slices[p].name] == 3;
		}
		if (by_compiled)
			f->compiled_kernel_ns += d;
	}
	free(seen);
	f->compiled = f->kernel_ns > 0 ? 2 * f->compiled_kernel_ns >= f->kernel_ns && f->compiled_kernel_ns > 0
	                               : f->compiled_regions > 0;
	f->partly_compiled = !f->compiled && 20 * f->compiled_kernel_ns >= f->kernel_ns && f->compiled_kernel_ns > 0;
	f->cuda_graphs = f->graph_launches > 0;
}
