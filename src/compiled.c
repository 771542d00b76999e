/* compiled.c: compiled models and CUDA graphs in a trace (see compiled.h). Names decide:
 * inductor names its kernels triton_* and wraps its graphs in known annotations; the
 * launcher frames are Python frames of triton and torch/_inductor and the runtime's own
 * calls. */
#include "src/compiled.h"

#include <stdlib.h>
#include <string.h>

#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "src/index.h"
#include "src/kernel_class.h"
#include "src/pyframe.h"

static bool starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

bool compiled_is_graph_launch(const char *name)
{
	/* asked of every kernel's runtime call (cudaLaunchKernel...): the first letters decide */
	if (name[0] == 'c' && name[1] == 'u')
		return name[2] == 'd' ? name[3] == 'a' && starts(name + 4, "GraphLaunch")
		                      : starts(name + 2, "GraphLaunch");
	return name[0] == 'h' && starts(name, "hipGraphLaunch");
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
	const char *nm = strtab_get(&t->strings, slice_name(t, s));
	switch (slice_cls(t, s)) {
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
	bool replay = compiled_is_graph_launch(strtab_get(&t->strings, slice_name(t, &tr->slices[call.idx])));
	if (graph != NULL)
		*graph = replay;
	uint32_t p = index_parent(t, tr, call.idx);
	if (p == TT_NONE || (!replay && !launcher_frame(t, &tr->slices[p])))
		return p;
	uint32_t python = TT_NONE; /* the nearest Python frame that is no launcher */
	for (; p != TT_NONE; p = index_parent(t, tr, p)) {
		const struct slice *s = &tr->slices[p];
		if (launcher_frame(t, s))
			continue;
		if (slice_cls(t, s) != SC_PYTHON)
			return p;
		if (python == TT_NONE)
			python = p;
	}
	return python;
}

/* Where kernel NAME's code comes from: 1 a library call under any backend (matmul,
 * convolution, attention, collective: cuBLAS, cuDNN, NCCL...), 2 ATen's own kernels
 * (at::native), 3 anything else (a code generator's: Triton, nvFuser...). */
static uint8_t kernel_origin(const char *name)
{
	struct kernel_class kc;
	kernel_class_of(name, KC_ACT_KERNEL, false, &kc);
	if (kc.family == KC_GEMM || kc.family == KC_CONV || kc.family == KC_ATTENTION || kc.family == KC_COMM)
		return 1;
	return strstr(name, "at::native::") != NULL ? 2 : 3;
}

void compiled_facts_of(const struct trace *t, struct compiled_facts *f)
{
	memset(f, 0, sizeof *f);
	/* per string id: 0 unseen, 1 nothing, 2 triton kernel name, 3 region, 4 graph launch */
	uint8_t *seen = xcalloc(t->strings.n ? t->strings.n : 1, 1);
	/* per kind (a few thousand for millions of slices): which count its slices add to, 0
	 * none, else the class of its name (2, 3, 4 as above); when no kind counts, no slice is
	 * looked at */
	uint8_t *counts = xcalloc(t->nkinds ? t->nkinds : 1, 1);
	bool any = false;
	for (uint32_t k = 0; k < t->nkinds; k++) {
		const struct slice_kind *kd = &t->kinds[k];
		if (kd->name >= t->strings.n)
			continue;
		if (seen[kd->name] == 0) {
			const char *nm = strtab_get(&t->strings, kd->name);
			seen[kd->name] = starts(nm, "triton_")          ? 2
			                 : compiled_region(nm)          ? 3
			                 : compiled_is_graph_launch(nm) ? 4
			                                                : 1;
		}
		uint8_t c = seen[kd->name];
		if ((c == 2 && kd->cls == SC_KERNEL) || (c == 3 && kd->cls != SC_KERNEL && kd->cls != SC_PYTHON) ||
		    (c == 4 && kd->cls == SC_RUNTIME)) {
			counts[k] = c;
			any = true;
		}
	}
	for (uint32_t ti = 0; any && ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		for (uint32_t i = 0; i < tr->nslices; i++) {
			uint32_t k = tr->slices[i].kind;
			uint8_t c = k < t->nkinds ? counts[k] : 0;
			f->triton_kernels += c == 2;
			f->compiled_regions += c == 3;
			f->graph_launches += c == 4;
		}
	}
	free(counts);
	/* the kernel time compiled code launched: Triton kernels, and kernels whose runtime call
	 * nests in a compiled region */
	uint8_t *origin = xcalloc(t->strings.n ? t->strings.n : 1, 1); /* kernel_origin, 0: not yet */
	struct gpu_walk gw = gpu_walk_start(t);
	struct slice_ref self;
	uint32_t i;
	while (gpu_walk_next(&gw, &i, &self)) {
		const struct gpu_info *g = &t->gpu[i];
		if (t->tracks[self.track].gpu_slices == 0)
			continue; /* (a runtime call's fact: its slice, on a thread, need not be read) */
		if (i + TT_PREFETCH_AHEAD < t->ngpu)
			slice_prefetch(t, t->gpu[i + TT_PREFETCH_AHEAD].peer);
		const struct track *kt = &t->tracks[self.track];
		const struct slice *k = &kt->slices[self.idx];
		if (slice_cls(t, k) != SC_KERNEL || slice_name(t, k) >= t->strings.n)
			continue;
		int64_t d = slice_dur(kt, k);
		f->kernel_ns += d;
		bool by_compiled = seen[slice_name(t, k)] == 2;
		if (!by_compiled && f->compiled_regions > 0 && g->peer.track < t->ntracks &&
		    g->peer.idx < t->tracks[g->peer.track].nslices) {
			const struct track *ct = &t->tracks[g->peer.track];
			for (uint32_t p = index_parent(t, ct, g->peer.idx); p != TT_NONE && !by_compiled;
			     p = index_parent(t, ct, p))
				by_compiled = slice_name(t, &ct->slices[p]) < t->strings.n &&
				              seen[slice_name(t, &ct->slices[p])] == 3;
		}
		if (by_compiled) {
			f->compiled_kernel_ns += d;
			uint8_t *o = &origin[slice_name(t, k)];
			if (*o == 0)
				*o = kernel_origin(strtab_get(&t->strings, slice_name(t, k)));
			f->library_compiled_ns += *o == 1 ? d : 0;
			f->aten_compiled_ns += *o == 2 ? d : 0;
		}
	}
	free(seen);
	free(origin);
	f->compiled = f->kernel_ns > 0 ? 2 * f->compiled_kernel_ns >= f->kernel_ns && f->compiled_kernel_ns > 0
	                               : f->compiled_regions > 0;
	f->partly_compiled = !f->compiled && 20 * f->compiled_kernel_ns >= f->kernel_ns && f->compiled_kernel_ns > 0;
	f->cuda_graphs = f->graph_launches > 0;
}

/* ---- graph breaks ---------------------------------------------------------------------- */

/* The ProfilerStep whose host span holds TS: its position in STEPS (N of them, by start),
 * or N. */
static uint32_t step_at(const struct step *const *steps, uint32_t n, int64_t ts)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) { /* the first step starting after TS */
		uint32_t mid = lo + (hi - lo) / 2;
		if (steps[mid]->ts <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return n;
	const struct step *s = steps[lo - 1];
	return ts < tt_add(s->ts, s->dur) ? lo - 1 : n;
}

static int step_ptr_cmp(const void *a, const void *b)
{
	const struct step *x = *(const struct step *const *)a, *y = *(const struct step *const *)b;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

static int frame_cmp(const void *a, const void *b)
{
	const struct compiled_frame *x = a, *y = b;
	if (x->regions != y->regions)
		return x->regions > y->regions ? -1 : 1;
	return (x->name > y->name) - (x->name < y->name);
}

/* What the open slices above a slice say of it, in the sweep of a thread. */
struct breaks_open {
	int64_t end;
	bool inside;    /* a compiled region at or above */
	bool op;        /* an operator at or above */
	uint32_t frame; /* the innermost Python frame with a file at or above, TT_NONE */
};
enum { BN_REGION = 1, BN_BACKWARD = 2, BN_FILE = 4 };

void compiled_breaks_of(const struct trace *t, struct compiled_breaks *b)
{
	memset(b, 0, sizeof *b);
	const struct step **steps = xmalloc((t->nsteps ? t->nsteps : 1) * sizeof *steps);
	uint32_t n = 0;
	for (uint32_t i = 0; i < t->nsteps; i++)
		if (!t->steps[i].gpu)
			steps[n++] = &t->steps[i];
	qsort(steps, n, sizeof *steps, step_ptr_cmp);
	b->steps = xcalloc(n ? n : 1, sizeof *b->steps);
	b->nsteps = n;
	for (uint32_t i = 0; i < n; i++)
		b->steps[i].number = steps[i]->number;
	/* each name read once: the sweep below touches millions of slices */
	uint32_t ns = t->strings.n ? t->strings.n : 1;
	uint8_t *kind = xcalloc(ns, 1);
	for (uint32_t id = 0; id < t->strings.n; id++) {
		const char *nm = strtab_get(&t->strings, id);
		if (compiled_region(nm))
			kind[id] |= BN_REGION | (strstr(nm, "Backward") != NULL ? BN_BACKWARD : 0);
		if (pyframe_parse(nm, NULL, 0, NULL))
			kind[id] |= BN_FILE;
	}
	bool any = false;
	for (uint32_t id = 0; id < t->strings.n && !any; id++)
		any = (kind[id] & BN_REGION) != 0;
	if (!any) { /* no compiled region's name: an eager trace, no sweep */
		free(kind);
		free(steps);
		return;
	}
	uint32_t *by_frame = xcalloc(ns, sizeof *by_frame);
	struct breaks_open *st = NULL;
	uint32_t cap = 0;
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		if (tr->kind != TRACK_CPU)
			continue;
		uint32_t sp = 0;
		for (uint32_t i = 0; i < tr->nslices; i++) {
			const struct slice *s = &tr->slices[i];
			while (sp > 0 && st[sp - 1].end <= s->ts)
				sp--;
			struct breaks_open up = sp > 0 ? st[sp - 1] : (struct breaks_open){ 0, false, false, TT_NONE };
			uint8_t k = slice_name(t, s) < t->strings.n ? kind[slice_name(t, s)] : 0;
			bool region = (k & BN_REGION) && slice_cls(t, s) != SC_PYTHON;
			if (!up.inside) {
				uint32_t at = step_at(steps, n, s->ts);
				if (region && !(k & BN_BACKWARD)) { /* a backward is its forward's other half */
					b->regions++;
					if (at < n)
						b->steps[at].regions++;
					if (up.frame != TT_NONE)
						by_frame[up.frame]++;
				} else if (!region && slice_cls(t, s) == SC_CPU_OP && !up.op && at < n) {
					b->steps[at].eager_ops++;
				}
			}
			struct breaks_open me = { tt_add(s->ts, slice_dur(tr, s)), up.inside || region,
				                  up.op || slice_cls(t, s) == SC_CPU_OP, up.frame };
			if (slice_cls(t, s) == SC_PYTHON && (k & BN_FILE))
				me.frame = slice_name(t, s);
			if (sp == cap) {
				cap = cap ? cap * 2 : 64;
				st = xreallocarray(st, cap, sizeof *st);
			}
			st[sp++] = me;
		}
	}
	free(st);
	for (uint32_t id = 0; id < t->strings.n; id++)
		if (by_frame[id] > 0) {
			b->frames = xreallocarray(b->frames, b->nframes + 1, sizeof *b->frames);
			b->frames[b->nframes++] = (struct compiled_frame){ id, by_frame[id] };
		}
	if (b->nframes > 1)
		qsort(b->frames, b->nframes, sizeof *b->frames, frame_cmp);
	free(by_frame);
	free(kind);
	free(steps);
}

void compiled_breaks_free(struct compiled_breaks *b)
{
	free(b->steps);
	free(b->frames);
	memset(b, 0, sizeof *b);
}
