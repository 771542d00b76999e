/* diff.c: two runs side by side (see diff.h). Per trace, the figures come from its cached
 * analyses (steps, gaps, GPU metrics, memory, ranks, operators, kernels, advice); only the
 * per-step split of each operator's and kernel's time is made here, for the spread. */
#include "src/diff.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/parallel.h"
#include "lib/sort.h"
#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "src/advice.h"
#include "src/compiled.h"
#include "src/analysis.h"
#include "src/gaps.h"
#include "src/gpu_metrics.h"
#include "src/index.h"
#include "src/kernels.h"
#include "src/memory.h"
#include "src/ops.h"
#include "src/ranks.h"
#include "src/steps.h"

/* ---- the figures ------------------------------------------------------------------ */

enum {
	F_STEP,
	F_ROLE,                          /* ROLE__COUNT of them */
	F_PHASE = F_ROLE + ROLE__COUNT,  /* PHASE__COUNT of them */
	F_UTIL = F_PHASE + PHASE__COUNT, /* the GPU figures: of the device with the most kernel time */
	F_SM_EFF,
	F_OCC,
	F_TC,
	F_LAUNCHES,
	F_PEAK_ALLOC,
	F_PEAK_RES,
	F_EXPOSED,
	F__COUNT
};

/* clang-format off */
static const struct { const char *key, *title; enum diff_unit unit; } figs[F__COUNT] = {
	[F_STEP] = { "step_ns", "step time", DU_NS },
	[F_ROLE + ROLE_KERNEL] = { "breakdown.kernel_ns", "  Kernel", DU_NS },
	[F_ROLE + ROLE_MEMCPY] = { "breakdown.memcpy_ns", "  Memcpy", DU_NS },
	[F_ROLE + ROLE_MEMSET] = { "breakdown.memset_ns", "  Memset", DU_NS },
	[F_ROLE + ROLE_COMM] = { "breakdown.communication_ns", "  Communication", DU_NS },
	[F_ROLE + ROLE_RUNTIME] = { "breakdown.runtime_ns", "  Runtime", DU_NS },
	[F_ROLE + ROLE_DATALOADER] = { "breakdown.dataloader_ns", "  DataLoader", DU_NS },
	[F_ROLE + ROLE_CPU_EXEC] = { "breakdown.cpu_exec_ns", "  CPU Exec", DU_NS },
	[F_ROLE + ROLE_OTHER] = { "breakdown.other_ns", "  Other", DU_NS },
	[F_PHASE + PHASE_DATALOADER] = { "phases.dataloader_ns", "DataLoader phase (host)", DU_NS },
	[F_PHASE + PHASE_FORWARD] = { "phases.forward_ns", "Forward phase (host)", DU_NS },
	[F_PHASE + PHASE_BACKWARD] = { "phases.backward_ns", "Backward phase (host)", DU_NS },
	[F_PHASE + PHASE_OPTIMIZER] = { "phases.optimizer_ns", "Optimizer phase (host)", DU_NS },
	[F_PHASE + PHASE_OTHER] = { "phases.other_ns", "Other phase (host)", DU_NS },
	[F_UTIL] = { "gpu_utilization", "GPU utilization", DU_RATIO },
	[F_SM_EFF] = { "sm_efficiency", "est. SM efficiency", DU_RATIO },
	[F_OCC] = { "occupancy_pct", "est. achieved occupancy", DU_PERCENT },
	[F_TC] = { "tensor_cores", "time on Tensor Cores", DU_RATIO },
	[F_LAUNCHES] = { "kernels_per_step", "kernel launches", DU_COUNT },
	[F_PEAK_ALLOC] = { "peak_allocated_bytes", "peak allocated", DU_BYTES },
	[F_PEAK_RES] = { "peak_reserved_bytes", "peak reserved", DU_BYTES },
	[F_EXPOSED] = { "exposed_communication_ns", "exposed communication", DU_NS },
};
/* clang-format on */

/* A trace's figures: per step where they are per step, with their min and max over the
 * steps where it has them (lo > hi: none). */
struct figures {
	double v[F__COUNT];
	double lo[F__COUNT], hi[F__COUNT];
	uint32_t steps;
};

static void range_add(struct figures *f, int k, double x)
{
	if (f->lo[k] > f->hi[k])
		f->lo[k] = f->hi[k] = x;
	else if (x < f->lo[k])
		f->lo[k] = x;
	else if (x > f->hi[k])
		f->hi[k] = x;
}

/* The device of M with the most kernel time, or NULL. */
static const struct gpu_metrics_device *main_device(const struct gpu_metrics *m)
{
	const struct gpu_metrics_device *d = NULL;
	for (uint32_t i = 0; i < m->n; i++)
		if (d == NULL || m->devices[i].kernel_time > d->kernel_time)
			d = &m->devices[i];
	return d;
}

/* The step of time TS among the steps [START(i), END(i)) of SR (host steps with HOST), or
 * -1: *NEAR, the step the last call found (TT_NONE at first), is tried before a binary
 * search, for times that come mostly in order (a track's slices). */
static int step_near(const struct step_report *sr, int64_t ts, bool host, uint32_t *near)
{
	uint32_t k = *near;
	if (k < sr->n && (host ? sr->steps[k].host_start : sr->steps[k].start) <= ts &&
	    (k + 1 == sr->n || (host ? sr->steps[k + 1].host_start : sr->steps[k + 1].start) > ts))
		return ts < (host ? sr->steps[k].host_end : sr->steps[k].end) ? (int)k : -1;
	uint32_t lo = 0, hi = sr->n;
	while (lo < hi) { /* the first step starting after TS */
		uint32_t mid = lo + (hi - lo) / 2;
		if ((host ? sr->steps[mid].host_start : sr->steps[mid].start) <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	*near = lo - 1;
	const struct step_stats *s = &sr->steps[lo - 1];
	return ts < (host ? s->host_end : s->end) ? (int)lo - 1 : -1;
}

static void figures_of(struct trace *t, struct figures *f)
{
	for (int k = 0; k < F__COUNT; k++) {
		f->v[k] = NAN;
		f->lo[k] = 1;
		f->hi[k] = 0;
	}
	const struct step_report *sr = trace_steps(t);
	f->steps = sr->n;
	double n = sr->n ? (double)sr->n : 1;
	if (sr->n > 0) {
		f->v[F_STEP] = sr->dur_avg;
		for (int r = 0; r < ROLE__COUNT; r++)
			f->v[F_ROLE + r] = sr->role_avg[r];
		for (int p = 0; p < PHASE__COUNT; p++)
			f->v[F_PHASE + p] = sr->phase_cpu_avg[p];
		for (uint32_t i = 0; i < sr->n; i++) {
			const struct step_stats *s = &sr->steps[i];
			range_add(f, F_STEP, (double)(s->end - s->start));
			for (int r = 0; r < ROLE__COUNT; r++)
				range_add(f, F_ROLE + r, (double)s->role[r]);
			for (int p = 0; p < PHASE__COUNT; p++)
				if (s->phase_known & (1u << p))
					range_add(f, F_PHASE + p, (double)s->phase_cpu[p]);
		}
	}
	const struct gpu_metrics *m = trace_gpu_metrics(t);
	const struct gpu_metrics_device *d = main_device(m);
	if (d != NULL) {
		f->v[F_UTIL] = d->utilization;
		f->v[F_SM_EFF] = d->sm_efficiency;
		f->v[F_OCC] = d->occupancy;
		f->v[F_TC] = d->tensor_cores;
		f->v[F_LAUNCHES] = (double)d->kernels / n;
		const struct gap_report *g = &trace_gaps(t, ANALYSIS_DEFAULT_MIN_GAP)->r;
		for (uint32_t i = 0; i < g->ndevices; i++)
			if (g->devices[i].device == d->device && g->devices[i].step_kernel_busy != NULL)
				for (uint32_t k = 0; k < g->nsteps; k++) {
					int64_t len = g->steps[k].end - g->steps[k].start;
					if (len > 0)
						range_add(f, F_UTIL,
						          (double)g->devices[i].step_kernel_busy[k] / (double)len);
				}
	}
	if (t->nmem > 0) {
		const struct memory_report *mr = trace_memory_curves(t);
		for (uint32_t i = 0; i < mr->ndevices; i++) {
			const struct mem_device *md = &mr->devices[i];
			if (md->type == 0) /* the host's */
				continue;
			/* the totals' curve, else the one derived from Bytes (before PyTorch 1.10: no
			 * reserved memory then) */
			double alloc = md->n > 0           ? (double)md->peak_allocated
			               : md->derived.n > 0 ? (double)md->derived.peak
			                                   : NAN;
			if (!isnan(alloc) && (isnan(f->v[F_PEAK_ALLOC]) || alloc > f->v[F_PEAK_ALLOC]))
				f->v[F_PEAK_ALLOC] = alloc;
			if (md->n > 0 && (isnan(f->v[F_PEAK_RES]) || (double)md->peak_reserved > f->v[F_PEAK_RES]))
				f->v[F_PEAK_RES] = (double)md->peak_reserved;
		}
	}
	struct trace *one[1] = { t };
	const struct rank_report *rr = traces_ranks(one, 1, ALIGN_RAW);
	if (rr != NULL && rr->nranks > 0 && rr->ranks[0].comm > 0 && !rr->ranks[0].exposed_na)
		f->v[F_EXPOSED] = (double)rr->ranks[0].exposed / n;
}

/* ---- operators and kernels, per trace ---------------------------------------------- */

/* A growing byte buffer for key texts. */
struct buf_text {
	char *p;
	size_t n, cap;
};

static void text_reset(struct buf_text *b) { b->n = 0; }

static void text_add(struct buf_text *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap)
		b->p = xrealloc(b->p, b->cap = (b->n + n + 1) * 2);
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

/* A row of one trace: its figures over the whole trace and its time per step. */
struct acc {
	uint32_t key; /* its key's id in its accs' keyed (the name, or the name and more) */
	double calls, time, total, host;
	enum kc_family family;
	double *per_step;   /* its time in each step */
	double *calls_step; /* kernels: its calls in each step; NULL for operators */
};

struct accs {
	struct acc *a;
	uint32_t n;
	uint32_t *of_name;   /* by name: by the trace's string id, index into a, or TT_NONE */
	struct strtab keyed; /* the rows' keys (a name, or a name and more) */
	uint32_t *of_key;    /* grouped by more than the name: by id in keyed, index into a, or TT_NONE */
	uint32_t n_keys;
	uint32_t steps;
	bool no_split; /* no per-step split (operators by shape): no spread */
};

/* The row of key text KEY (N bytes), made when new. */
static struct acc *acc_keyed(struct accs *s, const char *key, size_t n)
{
	uint32_t id = strtab_intern(&s->keyed, key, n);
	if (id >= s->n_keys) {
		s->of_key = xreallocarray(s->of_key, id + 1, sizeof *s->of_key);
		for (uint32_t i = s->n_keys; i <= id; i++)
			s->of_key[i] = TT_NONE;
		s->n_keys = id + 1;
	}
	if (s->of_key[id] == TT_NONE) {
		s->a = xreallocarray(s->a, s->n + 1, sizeof *s->a);
		struct acc *a = &s->a[s->n];
		memset(a, 0, sizeof *a);
		a->key = id;
		a->per_step = xcalloc(s->steps ? s->steps : 1, sizeof *a->per_step);
		s->of_key[id] = s->n++;
	}
	return &s->a[s->of_key[id]];
}

/* The row of key text KEY, or NULL when there is none. */
static struct acc *acc_find(struct accs *s, const char *key, size_t n)
{
	uint32_t id = strtab_find(&s->keyed, key, n);
	return id < s->n_keys && s->of_key[id] != TT_NONE ? &s->a[s->of_key[id]] : NULL;
}

static struct acc *acc_for(struct accs *s, const struct trace *t, uint32_t name)
{
	if (name >= t->strings.n)
		return NULL;
	if (s->of_name[name] == TT_NONE) {
		s->a = xreallocarray(s->a, s->n + 1, sizeof *s->a);
		struct acc *a = &s->a[s->n];
		memset(a, 0, sizeof *a);
		a->key = strtab_intern(&s->keyed, strtab_get(&t->strings, name), strtab_len(&t->strings, name));
		a->per_step = xcalloc(s->steps ? s->steps : 1, sizeof *a->per_step);
		s->of_name[name] = s->n++;
	}
	return &s->a[s->of_name[name]];
}

static void accs_init(struct accs *s, const struct trace *t, uint32_t steps)
{
	memset(s, 0, sizeof *s);
	s->steps = steps;
	s->of_name = xmalloc((t->strings.n ? t->strings.n : 1) * sizeof *s->of_name);
	for (uint32_t i = 0; i < t->strings.n; i++)
		s->of_name[i] = TT_NONE;
	strtab_init(&s->keyed);
}

static void accs_free(struct accs *s)
{
	for (uint32_t i = 0; i < s->n; i++)
		free(s->a[i].per_step), free(s->a[i].calls_step);
	free(s->a);
	free(s->of_name);
	free(s->of_key);
	strtab_free(&s->keyed);
}

static void ops_of(struct trace *t, struct accs *s, enum diff_match match, op_keys_fn keys_fn)
{
	const struct step_report *sr = trace_steps(t);
	accs_init(s, t, sr->n);
	if (match == DM_SHAPE && keys_fn != NULL) {
		/* by name and input shapes: the Operators view's grouping; no per-step split */
		const struct op_report *op = trace_ops_grouped(t, OP_BY_SHAPE, keys_fn);
		struct buf_text b = { 0 };
		for (uint32_t i = 0; i < op->n; i++) {
			const struct op_row *o = &op->rows[i];
			if (o->name >= t->strings.n)
				continue;
			text_reset(&b);
			text_add(&b, strtab_get(&t->strings, o->name), strtab_len(&t->strings, o->name));
			if (o->key != 0) {
				text_add(&b, " ", 1);
				text_add(&b, strtab_get(&op->keys, o->key), strtab_len(&op->keys, o->key));
			}
			struct acc *a = acc_keyed(s, b.p, b.n);
			a->calls += (double)o->calls;
			a->time += (double)o->dev_self;
			a->total += (double)o->dev_total;
			a->host += (double)o->cpu_total;
		}
		free(b.p);
		s->no_split = true;
		return;
	}
	const struct op_report *op = trace_ops(t);
	for (uint32_t i = 0; i < op->n; i++) {
		struct acc *a = acc_for(s, t, op->rows[i].name);
		if (a == NULL)
			continue;
		a->calls += (double)op->rows[i].calls;
		a->time += (double)op->rows[i].dev_self;
		a->total += (double)op->rows[i].dev_total;
		a->host += (double)op->rows[i].cpu_total;
	}
	/* the per-step split of self device time, for the spread: each GPU activity counts for
	 * the innermost operator around its runtime call, in the step the call is in (the
	 * operator tree's attribution without building the tree): first each runtime call's
	 * GPU time, then one sweep of each CPU thread with a stack of the slices open */
	if (sr->n == 0 || t->ngpu == 0)
		return;
	double *call_dev = xcalloc(t->ngpu, sizeof *call_dev); /* by the runtime call's GPU fact */
	struct gpu_walk gw = gpu_walk_start(t);
	struct slice_ref self;
	uint32_t g;
	while (gpu_walk_next(&gw, &g, &self)) {
		if (g + TT_PREFETCH_AHEAD < t->ngpu)
			slice_prefetch(t, t->gpu[g + TT_PREFETCH_AHEAD].peer);
		struct slice_ref call = t->gpu[g].peer;
		if (self.track >= t->ntracks || self.idx >= t->tracks[self.track].nslices || call.track >= t->ntracks ||
		    call.idx >= t->tracks[call.track].nslices || t->tracks[self.track].gpu_slices == 0)
			continue; /* (a runtime call's fact: its slice, on a thread, need not be read) */
		const struct slice *act = &t->tracks[self.track].slices[self.idx];
		if (slice_cls(t, act) != SC_KERNEL && slice_cls(t, act) != SC_MEMCPY && slice_cls(t, act) != SC_MEMSET)
			continue;
		uint32_t gc = track_gpu_at(&t->tracks[call.track], call.idx);
		if (gc < t->ngpu)
			call_dev[gc] += (double)slice_dur(&t->tracks[self.track], act);
	}
	struct open {
		int64_t end;
		uint32_t op; /* the innermost operator's row (index into s->a) at this depth, or TT_NONE */
	};
	uint32_t cap = 64, sn;
	struct open *stack = xmalloc(cap * sizeof *stack);
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		if (tr->kind != TRACK_CPU)
			continue;
		sn = 0;
		uint32_t near = TT_NONE;
		for (uint32_t i = 0; i < tr->nslices; i++) {
			const struct slice *sl = &tr->slices[i];
			while (sn > 0 && !(sl->ts < stack[sn - 1].end))
				sn--;
			uint32_t below = sn > 0 ? stack[sn - 1].op : TT_NONE;
			if (slice_cls(t, sl) == SC_RUNTIME) {
				uint32_t gc = track_gpu_at(tr, i);
				if (gc < t->ngpu && call_dev[gc] > 0 && below != TT_NONE) {
					int k = step_near(sr, sl->ts, true, &near);
					if (k >= 0)
						s->a[below].per_step[k] += call_dev[gc];
				}
				continue;
			}
			int64_t end = tt_add(sl->ts, slice_dur(tr, sl));
			if (sn > 0 && end > stack[sn - 1].end)
				continue; /* overlaps the slice around it without nesting */
			if (sn == cap)
				stack = xreallocarray(stack, cap *= 2, sizeof *stack);
			uint32_t inner = below;
			if (slice_name(t, sl) < t->strings.n && s->of_name[slice_name(t, sl)] != TT_NONE &&
			    ops_counts_as_op(t, sl))
				inner = s->of_name[slice_name(t, sl)];
			stack[sn++] = (struct open){ end, inner };
		}
	}
	free(stack);
	free(call_dev);
}

/* Adds kernel row K's figures to row A of S (one trace's kernels, however grouped). */
static void kernel_row_add(struct accs *s, struct acc *a, const struct kernel_row *k)
{
	a->calls += (double)k->calls;
	a->time += (double)k->total;
	a->total += (double)k->total;
	a->host = NAN;
	a->family = k->cls.family;
	if (a->calls_step == NULL)
		a->calls_step = xcalloc(s->steps ? s->steps : 1, sizeof *a->calls_step);
}

/* The key text of a kernel grouped by MATCH into B: its name, then its launch shape, then
 * the operator that launched it (OP, a string id of T, or TT_NONE). */
static void kernel_key(struct buf_text *b, const struct trace *t, uint32_t name, const int32_t grid[3],
                       const int32_t block[3], int32_t regs, int32_t smem, uint32_t op, enum diff_match match)
{
	text_reset(b);
	text_add(b, strtab_get(&t->strings, name), strtab_len(&t->strings, name));
	char shape[128];
	if (grid[0] > 0 || block[0] > 0 || regs >= 0 || smem >= 0) { /* the trace gives the launch shape */
		int n = snprintf(shape, sizeof shape, " [grid %d,%d,%d block %d,%d,%d regs %d smem %d]", grid[0],
		                 grid[1], grid[2], block[0], block[1], block[2], regs, smem);
		text_add(b, shape, (size_t)n);
	}
	if (match == DM_OPERATOR) {
		text_add(b, " <- ", 4);
		if (op != TT_NONE && op < t->strings.n)
			text_add(b, strtab_get(&t->strings, op), strtab_len(&t->strings, op));
		else
			text_add(b, "(no operator)", 13);
	}
}

/* Kernels grouped by more than the name (launch shape, launching operator), with the
 * per-step split by the same key. */
static void kernels_keyed(struct trace *t, struct accs *s, double *launches, enum diff_match match)
{
	const struct step_report *sr = trace_steps(t);
	const struct kernel_report *kr = trace_kernels(t, match == DM_OPERATOR ? KG_OP : KG_SHAPE);
	struct buf_text b = { 0 };
	for (uint32_t i = 0; i < kr->n; i++) {
		const struct kernel_row *k = &kr->rows[i];
		if (k->name >= t->strings.n)
			continue;
		kernel_key(&b, t, k->name, k->grid, k->block, k->regs, k->smem, k->op, match);
		struct acc *a = acc_keyed(s, b.p, b.n);
		kernel_row_add(s, a, k);
	}
	for (uint32_t ti = 0; ti < t->ntracks && sr->n > 0; ti++) {
		const struct track *tr = &t->tracks[ti];
		if (tr->kind != TRACK_GPU_COMPUTE && tr->kind != TRACK_GPU_COMM)
			continue;
		uint32_t near = TT_NONE;
		for (uint32_t i = 0; i < tr->nslices; i++) {
			const struct slice *sl = &tr->slices[i];
			if (slice_cls(t, sl) != SC_KERNEL || slice_name(t, sl) >= t->strings.n)
				continue;
			int k = step_near(sr, sl->ts, false, &near);
			if (k < 0)
				continue;
			uint32_t g = slice_gpu(tr, sl);
			const struct kernel_launch *kl = g < t->ngpu ? gpu_launch(t, &t->gpu[g]) : &kernel_launch_none;
			uint32_t op = TT_NONE;
			if (match == DM_OPERATOR && g < t->ngpu && t->gpu[g].peer.track < t->ntracks) {
				uint32_t p = compiled_launching_slice(t, t->gpu[g].peer, NULL);
				if (p != TT_NONE)
					op = slice_name(t, &t->tracks[t->gpu[g].peer.track].slices[p]);
			}
			kernel_key(&b, t, slice_name(t, sl), kl->grid, kl->block, kl->regs, kl->smem, op, match);
			struct acc *a = acc_find(s, b.p, b.n);
			if (a != NULL) {
				a->per_step[k] += (double)slice_dur(tr, sl);
				a->calls_step[k] += 1;
			}
			launches[k] += 1;
		}
	}
	free(b.p);
}

static void kernels_of(struct trace *t, struct accs *s, double *launches, enum diff_match match)
{
	const struct step_report *sr = trace_steps(t);
	accs_init(s, t, sr->n);
	if (match != DM_NAME) {
		kernels_keyed(t, s, launches, match);
		return;
	}
	const struct kernel_report *kr = trace_kernels(t, KG_NAME);
	for (uint32_t i = 0; i < kr->n; i++) {
		struct acc *a = acc_for(s, t, kr->rows[i].name);
		if (a == NULL)
			continue;
		kernel_row_add(s, a, &kr->rows[i]);
	}
	for (uint32_t ti = 0; ti < t->ntracks && sr->n > 0; ti++) {
		const struct track *tr = &t->tracks[ti];
		if (tr->kind != TRACK_GPU_COMPUTE && tr->kind != TRACK_GPU_COMM)
			continue;
		uint32_t near = TT_NONE;
		for (uint32_t i = 0; i < tr->nslices; i++) {
			const struct slice *sl = &tr->slices[i];
			if (slice_cls(t, sl) != SC_KERNEL || slice_name(t, sl) >= t->strings.n ||
			    s->of_name[slice_name(t, sl)] == TT_NONE)
				continue;
			int k = step_near(sr, sl->ts, false, &near);
			if (k >= 0) {
				struct acc *a = &s->a[s->of_name[slice_name(t, sl)]];
				a->per_step[k] += (double)slice_dur(tr, sl);
				a->calls_step[k] += 1;
				launches[k] += 1;
			}
		}
	}
}

/* ---- the two sides ----------------------------------------------------------------- */

static enum diff_verdict judge(double a, double b, double spread, bool spread_known)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b) ? DV_SAME : DV_ONE_SIDE;
	if (a == b)
		return DV_SAME;
	if (!spread_known || isnan(spread))
		return DV_NO_SPREAD;
	return fabs(b - a) <= spread ? DV_NOISE : DV_CHANGE;
}

/* Adds the rows of side SIDE (its N traces' accumulators S) into R's rows *ROWS (*NROWS),
 * matched by key through AT (by key: the row index, or TT_NONE). */
static void merge_rows(struct strtab *names, struct diff_row **rows, uint32_t *nrows, uint32_t **at, uint32_t *atn,
                       struct accs *s, int n, int side)
{
	for (int i = 0; i < n; i++) {
		double steps = s[i].steps ? (double)s[i].steps : 1;
		for (uint32_t j = 0; j < s[i].n; j++) {
			const struct acc *a = &s[i].a[j];
			uint32_t key =
				strtab_intern(names, strtab_get(&s[i].keyed, a->key), strtab_len(&s[i].keyed, a->key));
			if (key >= *atn) {
				uint32_t m = key * 2 + 16;
				*at = xreallocarray(*at, m, sizeof **at);
				for (uint32_t q = *atn; q < m; q++)
					(*at)[q] = TT_NONE;
				*atn = m;
			}
			if ((*at)[key] == TT_NONE) {
				*rows = xreallocarray(*rows, *nrows + 1, sizeof **rows);
				struct diff_row *d = &(*rows)[*nrows];
				memset(d, 0, sizeof *d);
				d->name = key;
				for (int q = 0; q < 2; q++)
					d->calls[q] = d->time[q] = d->total[q] = d->host[q] = NAN;
				d->spread = 0;
				d->family = a->family;
				(*at)[key] = (*nrows)++;
			}
			struct diff_row *d = &(*rows)[(*at)[key]];
			if (isnan(d->calls[side]))
				d->calls[side] = d->time[side] = d->total[side] = 0,
				d->host[side] = isnan(a->host) ? NAN : 0;
			d->calls[side] += a->calls / steps / n;
			d->time[side] += a->time / steps / n;
			d->total[side] += a->total / steps / n;
			if (!isnan(a->host))
				d->host[side] += a->host / steps / n;
			if (s[i].no_split) {
				d->spread = NAN; /* no per-step split: no spread */
			} else if (s[i].steps > 0 && !isnan(d->spread)) {
				double lo = a->per_step[0], hi = a->per_step[0];
				for (uint32_t k = 1; k < s[i].steps; k++) {
					lo = a->per_step[k] < lo ? a->per_step[k] : lo;
					hi = a->per_step[k] > hi ? a->per_step[k] : hi;
				}
				if (hi - lo > d->spread)
					d->spread = hi - lo;
			}
		}
	}
}

/* Rows by the largest absolute change of time first, ties by name (text order). */
static bool row_less(const struct diff_row *a, const struct diff_row *b, const struct strtab *names)
{
	double da = fabs((isnan(a->time[1]) ? 0 : a->time[1]) - (isnan(a->time[0]) ? 0 : a->time[0]));
	double db = fabs((isnan(b->time[1]) ? 0 : b->time[1]) - (isnan(b->time[0]) ? 0 : b->time[0]));
	if (da != db)
		return da > db;
	return strtab_cmp(names, a->name, b->name) < 0;
}
SORT_DEFINE_CTX(sort_rows, struct diff_row, const struct strtab *, row_less)

static void finish_rows(const struct strtab *names, struct diff_row *rows, uint32_t n, bool spread_known)
{
	for (uint32_t i = 0; i < n; i++) {
		if (!spread_known)
			rows[i].spread = NAN;
		rows[i].verdict = judge(rows[i].time[0], rows[i].time[1], rows[i].spread, spread_known);
	}
	sort_rows(rows, n, names);
}

void diff_note(struct diff_report *r, const char *fmt, ...)
{
	if (r->nnotes == DIFF_MAX_NOTES)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->notes[r->nnotes++], sizeof r->notes[0], fmt, ap);
	va_end(ap);
}

static const char *device_name(const struct trace *t)
{
	for (uint32_t i = 0; i < t->ndevices; i++)
		if (t->devices[i].name != 0 && t->devices[i].name < t->strings.n)
			return strtab_get(&t->strings, t->devices[i].name);
	return "";
}

static bool has_python(const struct trace *t)
{
	for (uint32_t ti = 0; ti < t->ntracks; ti++)
		for (uint32_t i = 0; i < t->tracks[ti].nslices; i++)
			if (slice_cls(t, &t->tracks[ti].slices[i]) == SC_PYTHON)
				return true;
	return false;
}

/* What makes the sides hard to compare, said first. */
static void comparability(struct trace *const *side[2], const int n[2], struct diff_report *r)
{
	const char *nm[2] = { device_name(side[0][0]), device_name(side[1][0]) };
	if (strcmp(nm[0], nm[1]) != 0)
		diff_note(r, "different GPUs: A ran on %s, B on %s", nm[0][0] ? nm[0] : "(not said)",
		          nm[1][0] ? nm[1] : "(not said)");
	if (n[0] != n[1])
		diff_note(r,
		          "different numbers of ranks: A has %d, B %d (each side's figures are means over its ranks)",
		          n[0], n[1]);
	int w[2] = { side[0][0]->world_size, side[1][0]->world_size };
	if (w[0] != w[1])
		diff_note(r, "different world sizes: A's job has %d ranks, B's %d", w[0], w[1]);
	if (r->steps[0] != r->steps[1])
		diff_note(r, "different step counts: A has %u steps, B %u: figures are per step, means over the steps",
		          r->steps[0], r->steps[1]);
	for (int s = 0; s < 2; s++) {
		if (r->steps[s] < TT_DIFF_MIN_STEPS)
			diff_note(r, "%c has %u step%s: no run-to-run spread to judge a change by (need %d)", "AB"[s],
			          r -> steps[s], r -> steps[s] == 1 ? "" : "s", TT_DIFF_MIN_STEPS);
		if (side[s][0]->nsteps == 0)
			diff_note(r, "%c has no ProfilerStep#N: its one step is the whole trace", "AB"[s]);
		for (int i = 0; i < n[s]; i++)
			if (side[s][i]->status == LOAD_TRUNCATED) {
				diff_note(r, "%c's file %d is cut short: its figures stop at the cut", "AB"[s], i);
				break;
			}
		for (int i = 0; i < n[s]; i++)
			if (side[s][i]->legacy) {
				diff_note(r, "%c is a legacy-exporter trace: no launch links, times rounded to us",
				          "AB"[s]);
				break;
			}
	}
	bool mem[2] = { side[0][0]->nmem > 0, side[1][0]->nmem > 0 };
	if (mem[0] != mem[1])
		diff_note(r, "profiler settings differ: only %c recorded memory (profile_memory=True)",
		          mem[0] ? 'A' : 'B');
	bool py[2] = { has_python(side[0][0]), has_python(side[1][0]) };
	if (py[0] != py[1])
		diff_note(
			r,
			"profiler settings differ: only %c recorded Python stacks (with_stack=True), which add host time",
			py[0] ? 'A' : 'B');
}

static void findings_of(struct trace *const *side[2], const int n[2], int align, struct diff_report *r)
{
	const struct advice_report *ar[2];
	for (int s = 0; s < 2; s++)
		ar[s] = n[s] == 1 ? trace_advice(side[s][0]) : traces_advice(side[s], n[s], (enum align_mode)align);
	for (int s = 0; s < 2; s++)
		for (uint32_t i = 0; i < ar[s]->n; i++) {
			const struct advice_finding *f = &ar[s]->findings[i];
			const struct advice_rule_info *ri = advice_rule_info(f->rule);
			struct diff_finding *d = NULL;
			for (uint32_t j = 0; j < r->nfindings && d == NULL; j++)
				if (strcmp(r->findings[j].key, ri->key) == 0)
					d = &r->findings[j];
			if (d == NULL) {
				r->findings = xreallocarray(r->findings, r->nfindings + 1, sizeof *r->findings);
				d = &r->findings[r->nfindings++];
				*d = (struct diff_finding){ ri->key, ri->title, { NAN, NAN }, { -1, -1 } };
			}
			if (d->confidence[s] < 0 || f->score > d->score[s]) {
				d->score[s] = f->score;
				d->confidence[s] = (int)f->confidence;
			}
		}
}

/* ---- each trace's analyses, in parallel ------------------------------------------- */

/* One trace's part of a diff, made on a worker thread: its analyses (cached in the trace),
 * its figures and its operator and kernel rows (keyed locally: no state shared). */
struct trace_work {
	struct trace *t;
	struct figures f;
	struct accs ops, ker;
	bool rows; /* figures and rows wanted (else the analyses alone) */
};

struct work_pool {
	struct trace_work *w;
	enum diff_match match;
	op_keys_fn keys_fn;
};

/* Asks T's cache for every analysis the diff reads: the traces' analyses are independent
 * of each other. */
void diff_prepare(struct trace *t)
{
	trace_warm_overview_ops(t); /* two threads: the overview's chain beside the rest */
	(void)trace_gaps(t, ANALYSIS_DEFAULT_MIN_GAP);
	if (t->nmem > 0)
		(void)trace_memory_curves(t);
	struct trace *one[1] = { t };
	(void)traces_ranks(one, 1, ALIGN_RAW);
	(void)trace_ops(t);
	(void)trace_kernels(t, KG_NAME);
	(void)trace_advice(t);
}

/* One trace's work, on one of parallel_for's threads. */
static void work_one(void *arg, int i)
{
	struct work_pool *p = arg;
	struct trace_work *w = &p->w[i];
	diff_prepare(w->t);
	if (!w->rows)
		return;
	figures_of(w->t, &w->f);
	ops_of(w->t, &w->ops, p->match, p->keys_fn);
	double *launches = xcalloc(w->f.steps ? w->f.steps : 1, sizeof *launches);
	kernels_of(w->t, &w->ker, launches, p->match);
	for (uint32_t k = 0; k < w->f.steps && !isnan(w->f.v[F_LAUNCHES]); k++)
		range_add(&w->f, F_LAUNCHES, launches[k]);
	free(launches);
}

/* Does the N works W on the machine's cores. */
static void work_all(struct trace_work *w, int n, enum diff_match match, op_keys_fn keys_fn)
{
	struct work_pool p = { w, match, keys_fn };
	parallel_for(n, work_one, &p);
}

void diff_analyse(struct trace *const *a, int na, struct trace *const *b, int nb, int align, enum diff_match match,
                  op_keys_fn keys_fn, struct diff_report *r)
{
	memset(r, 0, sizeof *r);
	strtab_init(&r->names);
	struct trace *const *side[2] = { a, b };
	const int n[2] = { na, nb };
	r->ntraces[0] = na;
	r->ntraces[1] = nb;
	if (na <= 0 || nb <= 0)
		return;
	/* each distinct trace's work once (a trace may be on both sides), on worker threads */
	struct trace_work *w = xcalloc((size_t)(na + nb), sizeof *w);
	int nw = 0, *of = xmalloc((size_t)(na + nb) * sizeof *of); /* by side position: index into w */
	for (int i = 0; i < na + nb; i++) {
		struct trace *t = i < na ? a[i] : b[i - na];
		of[i] = -1;
		for (int j = 0; j < nw && of[i] < 0; j++)
			if (w[j].t == t)
				of[i] = j;
		if (of[i] < 0) {
			w[nw] = (struct trace_work){ .t = t, .rows = true };
			of[i] = nw++;
		}
	}
	work_all(w, nw, match, keys_fn);
	r->steps[0] = trace_steps(a[0])->n;
	r->steps[1] = trace_steps(b[0])->n;
	bool spread_known = r->steps[0] >= TT_DIFF_MIN_STEPS && r->steps[1] >= TT_DIFF_MIN_STEPS;
	comparability(side, n, r);

	/* the figures: each side's mean over its traces, the widest spread */
	struct figures mean[2];
	double spread[F__COUNT];
	bool has_range[F__COUNT];
	for (int k = 0; k < F__COUNT; k++)
		spread[k] = 0, has_range[k] = false;
	/* operators and kernels of each trace (the works', by side) */
	struct accs *ops[2], *ker[2];
	for (int s = 0; s < 2; s++) {
		ops[s] = xcalloc((size_t)n[s], sizeof *ops[s]);
		ker[s] = xcalloc((size_t)n[s], sizeof *ker[s]);
		for (int k = 0; k < F__COUNT; k++)
			mean[s].v[k] = NAN;
		for (int i = 0; i < n[s]; i++) {
			struct trace_work *tw = &w[of[s ? na + i : i]];
			ops[s][i] = tw->ops; /* shallow: freed once, through the works */
			ker[s][i] = tw->ker;
			const struct figures f = tw->f;
			for (int k = 0; k < F__COUNT; k++) {
				if (!isnan(f.v[k]))
					mean[s].v[k] = (isnan(mean[s].v[k]) ? 0 : mean[s].v[k]) + f.v[k] / n[s];
				if (f.lo[k] <= f.hi[k]) {
					has_range[k] = true;
					if (f.hi[k] - f.lo[k] > spread[k])
						spread[k] = f.hi[k] - f.lo[k];
				}
			}
		}
	}
	/* figures without per-step values: judged by the step time's relative spread */
	double rel = NAN;
	if (has_range[F_STEP] && !isnan(mean[0].v[F_STEP]) && !isnan(mean[1].v[F_STEP]))
		rel = spread[F_STEP] / tt_fmax(mean[0].v[F_STEP], mean[1].v[F_STEP]);
	r->figs = xcalloc(F__COUNT, sizeof *r->figs);
	for (int k = 0; k < F__COUNT; k++) {
		struct diff_figure *d = &r->figs[r->nfigs];
		d->key = figs[k].key;
		d->title = figs[k].title;
		d->unit = figs[k].unit;
		d->v[0] = mean[0].v[k];
		d->v[1] = mean[1].v[k];
		if (isnan(d->v[0]) && isnan(d->v[1]))
			continue; /* neither side has it: not shown */
		d->spread = has_range[k] ? spread[k] : !isnan(rel) ? rel * tt_fmax(fabs(d->v[0]), fabs(d->v[1])) : NAN;
		if (!spread_known)
			d->spread = NAN; /* fewer than TT_DIFF_MIN_STEPS steps: no spread to speak of */
		d->verdict = judge(d->v[0], d->v[1], d->spread, spread_known && !isnan(d->spread));
		r->nfigs++;
	}
	/* operators and kernels, matched by name */
	uint32_t *at = NULL, atn = 0;
	for (int s = 0; s < 2; s++)
		merge_rows(&r->names, &r->ops, &r->nops, &at, &atn, ops[s], n[s], s);
	for (uint32_t q = 0; q < atn; q++)
		at[q] = TT_NONE;
	for (int s = 0; s < 2; s++)
		merge_rows(&r->names, &r->kernels, &r->nkernels, &at, &atn, ker[s], n[s], s);
	free(at);
	finish_rows(&r->names, r->ops, r->nops, spread_known);
	finish_rows(&r->names, r->kernels, r->nkernels, spread_known);
	for (int f = 0; f < KC_FAMILY__COUNT; f++)
		for (int s = 0; s < 2; s++)
			r->families[f].time[s] = r->families[f].calls[s] = 0;
	for (uint32_t i = 0; i < r->nkernels; i++)
		for (int s = 0; s < 2; s++)
			if (!isnan(r->kernels[i].time[s])) {
				r->families[r->kernels[i].family].time[s] += r->kernels[i].time[s];
				r->families[r->kernels[i].family].calls[s] += r->kernels[i].calls[s];
			}
	for (int s = 0; s < 2; s++) {
		free(ops[s]);
		free(ker[s]);
	}
	for (int i = 0; i < nw; i++) {
		accs_free(&w[i].ops);
		accs_free(&w[i].ker);
	}
	free(w);
	free(of);
	findings_of(side, n, align, r);
	/* step by step, where the steps pair up */
	const struct step_report *sa = trace_steps(a[0]), *sb = trace_steps(b[0]);
	if (na == 1 && nb == 1 && sa->n == sb->n && sa->n > 1) {
		r->pairs = xcalloc(sa->n, sizeof *r->pairs);
		for (uint32_t i = 0; i < sa->n; i++, r->npairs++)
			for (int s = 0; s < 2; s++) {
				const struct step_stats *st = &(s ? sb : sa)->steps[i];
				r->pairs[i].number[s] = st->number;
				r->pairs[i].dur[s] = st->end - st->start;
				r->pairs[i].kernel[s] = st->role[ROLE_KERNEL];
			}
	}
}

/* ---- step against step ---------------------------------------------------------- */

/* The figures of step K of T (its plugin step): what has a per-step value, else NAN;
 * LAUNCHES: kernel launches by step. */
static void step_figures(struct trace *t, uint32_t k, const double *launches, double v[F__COUNT])
{
	for (int f = 0; f < F__COUNT; f++)
		v[f] = NAN;
	const struct step_report *sr = trace_steps(t);
	const struct step_stats *s = &sr->steps[k];
	v[F_STEP] = (double)(s->end - s->start);
	for (int q = 0; q < ROLE__COUNT; q++)
		v[F_ROLE + q] = (double)s->role[q];
	for (int p = 0; p < PHASE__COUNT; p++)
		if (s->phase_known & (1u << p))
			v[F_PHASE + p] = (double)s->phase_cpu[p];
	const struct gpu_metrics_device *d = main_device(trace_gpu_metrics(t));
	if (d == NULL)
		return;
	v[F_LAUNCHES] = launches[k];
	const struct gap_report *g = &trace_gaps(t, ANALYSIS_DEFAULT_MIN_GAP)->r;
	for (uint32_t i = 0; i < g->ndevices; i++)
		if (g->devices[i].device == d->device && g->devices[i].step_kernel_busy != NULL && k < g->nsteps &&
		    g->steps[k].end > g->steps[k].start)
			v[F_UTIL] = (double)g->devices[i].step_kernel_busy[k] /
			            (double)(g->steps[k].end - g->steps[k].start);
}

/* The min-max of X[0..n) leaving index SKIP out; 0 when fewer than two values stay. */
static double spread_without(const double *x, uint32_t n, uint32_t skip, size_t stride)
{
	double lo = NAN, hi = NAN;
	for (uint32_t i = 0; i < n; i++) {
		double v = x[(size_t)i * stride];
		if (i == skip || isnan(v))
			continue;
		lo = isnan(lo) || v < lo ? v : lo;
		hi = isnan(hi) || v > hi ? v : hi;
	}
	return isnan(lo) ? NAN : hi - lo;
}

static void step_rows(struct strtab *names, struct accs *s, uint32_t med, uint32_t slow, struct diff_row **rows,
                      uint32_t *nrows)
{
	*rows = xcalloc(s->n ? s->n : 1, sizeof **rows);
	for (uint32_t i = 0; i < s->n; i++) {
		const struct acc *a = &s->a[i];
		if (a->per_step[med] == 0 && a->per_step[slow] == 0)
			continue; /* in neither step */
		struct diff_row *d = &(*rows)[(*nrows)++];
		d->name = strtab_intern(names, strtab_get(&s->keyed, a->key), strtab_len(&s->keyed, a->key));
		d->family = a->family;
		for (int q = 0; q < 2; q++) {
			uint32_t k = q ? slow : med;
			d->time[q] = d->total[q] = a->per_step[k];
			d->calls[q] = a->calls_step != NULL ? a->calls_step[k] : NAN;
			d->host[q] = NAN;
		}
		d->spread = spread_without(a->per_step, s->steps, slow, 1);
	}
	finish_rows(names, *rows, *nrows, true);
}

void diff_steps(struct trace *t, struct diff_report *r)
{
	memset(r, 0, sizeof *r);
	strtab_init(&r->names);
	r->ntraces[0] = r->ntraces[1] = 1;
	r->by_steps = true;
	r->step_number[0] = r->step_number[1] = -1;
	struct trace_work tw = { .t = t, .rows = false };
	work_all(&tw, 1, DM_NAME, NULL);
	const struct step_report *sr = trace_steps(t);
	uint32_t n = sr->n;
	if (n < TT_DIFF_MIN_STEPS) {
		diff_note(r, "step against step needs %d steps or more: this trace has %u", TT_DIFF_MIN_STEPS, n);
		return;
	}
	/* the slowest step, and the median one by duration (the lower middle) */
	uint32_t *ord = xmalloc(n * sizeof *ord), slow = 0;
	for (uint32_t i = 0; i < n; i++) {
		ord[i] = i;
		if (sr->steps[i].end - sr->steps[i].start > sr->steps[slow].end - sr->steps[slow].start)
			slow = i;
	}
	for (uint32_t i = 1; i < n; i++) /* insertion sort by duration: steps are few */
		for (uint32_t j = i; j > 0; j--) {
			const struct step_stats *x = &sr->steps[ord[j - 1]], *y = &sr->steps[ord[j]];
			if (x->end - x->start <= y->end - y->start)
				break;
			uint32_t tmp = ord[j];
			ord[j] = ord[j - 1];
			ord[j - 1] = tmp;
		}
	uint32_t med = ord[(n - 1) / 2];
	free(ord);
	r->steps[0] = r->steps[1] = 1;
	r->step_number[0] = sr->steps[med].number;
	r->step_number[1] = sr->steps[slow].number;
	diff_note(
		r,
		"step against step: B is the slowest step, #%lld, A the median one, #%lld, of the trace's %u; a change is "
		"noise within the other steps' spread (min-max without the slowest)",
		(long long)r->step_number[1], (long long)r->step_number[0], n);
	struct accs ops, ker;
	ops_of(t, &ops, DM_NAME, NULL);
	double *launches = xcalloc(n, sizeof *launches);
	kernels_of(t, &ker, launches, DM_NAME);
	double *v = xmalloc((size_t)n * F__COUNT * sizeof *v);
	for (uint32_t k = 0; k < n; k++)
		step_figures(t, k, launches, v + (size_t)k * F__COUNT);
	r->figs = xcalloc(F__COUNT, sizeof *r->figs);
	for (int f = 0; f < F__COUNT; f++) {
		struct diff_figure *d = &r->figs[r->nfigs];
		d->key = figs[f].key;
		d->title = figs[f].title;
		d->unit = figs[f].unit;
		d->v[0] = v[(size_t)med * F__COUNT + f];
		d->v[1] = v[(size_t)slow * F__COUNT + f];
		if (isnan(d->v[0]) && isnan(d->v[1]))
			continue;
		d->spread = spread_without(v + f, n, slow, F__COUNT);
		d->verdict = judge(d->v[0], d->v[1], d->spread, !isnan(d->spread));
		r->nfigs++;
	}
	free(v);
	step_rows(&r->names, &ops, med, slow, &r->ops, &r->nops);
	step_rows(&r->names, &ker, med, slow, &r->kernels, &r->nkernels);
	for (uint32_t i = 0; i < r->nkernels; i++)
		for (int q = 0; q < 2; q++) {
			r->families[r->kernels[i].family].time[q] += r->kernels[i].time[q];
			r->families[r->kernels[i].family].calls[q] += r->kernels[i].calls[q];
		}
	free(launches);
	accs_free(&ops);
	accs_free(&ker);
	diff_note(r, "findings are over the whole trace: they are not compared step against step");
}

void diff_free(struct diff_report *r)
{
	free(r->figs);
	free(r->ops);
	free(r->kernels);
	free(r->findings);
	free(r->pairs);
	strtab_free(&r->names);
	memset(r, 0, sizeof *r);
}

const char *diff_verdict_key(enum diff_verdict v)
{
	static const char *const keys[] = { "change", "noise", "no_spread", "one_side", "same" };
	return (unsigned)v < sizeof keys / sizeof *keys ? keys[v] : "?";
}
