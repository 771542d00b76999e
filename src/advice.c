/* advice.c: the findings engine of one trace (see advice.h): each rule's figure, threshold,
 * evidence and text (the rules' fixed text is src/advice_rules.c, the rules of several
 * ranks src/advice_ranks.c). The figures come from the cached analyses and from two
 * sweeps: every CPU thread once, with a stack of the open slices (for the outermost
 * synchronising call and its calling operator, and the outermost DataLoader and
 * collective ops), and the GPU streams once (pageable copies, collectives and what hides
 * them, the waits for a launch). Instances are kept in fixed arrays of the worst
 * TT_ADVICE_MAX_INSTANCES (src/advice_finding.h): no allocation per event. */
#include "src/advice.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/timefmt.h"
#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "src/advice_finding.h"
#include "src/analysis_split.h"
#include "src/analysis.h"
#include "src/compiled.h"
#include "src/host_calls.h"
#include "src/spans.h"
#include "src/kernel_class.h"

/* ---- names ------------------------------------------------------------------------------ */

enum {
	N_DATALOADER = 1 << 0,
	N_SYNC = 1 << 1,        /* synchronises by its name */
	N_MEMCPY_CALL = 1 << 2, /* an asynchronous memcpy call: synchronises when its copy is blocking */
	N_PAGEABLE = 1 << 3,
	N_STEP = 1 << 5,    /* ProfilerStep#N */
	N_COMM_OP = 1 << 6, /* nccl:... / gloo:... */
	N_ALLREDUCE = 1 << 7,
	N_COMM_KERNEL = 1 << 8,
	N_DDP = 1 << 9,
};

static uint16_t *classify_names(const struct trace *t)
{
	uint16_t *f = xcalloc(t->strings.n ? t->strings.n : 1, sizeof *f);
	for (uint32_t id = 0; id < t->strings.n; id++) {
		const char *s = strtab_get(&t->strings, id);
		unsigned h = host_call_flags(s); /* src/host_calls.h: the gaps' causes read the same */
		if (h & HC_DATALOADER)
			f[id] |= N_DATALOADER;
		if (h & HC_SYNC)
			f[id] |= N_SYNC;
		if (h & HC_MEMCPY_ASYNC)
			f[id] |= N_MEMCPY_CALL;
		if (strstr(s, "Pageable") != NULL)
			f[id] |= N_PAGEABLE;
		if (strncmp(s, "ProfilerStep#", 13) == 0)
			f[id] |= N_STEP;
		if (strncmp(s, "nccl:", 5) == 0 || strncmp(s, "gloo:", 5) == 0)
			f[id] |= N_COMM_OP;
		if (strcasestr(s, "allreduce") != NULL || strcasestr(s, "all_reduce") != NULL)
			f[id] |= N_ALLREDUCE;
		if (kernel_class_is_comm_name(s))
			f[id] |= N_COMM_KERNEL;
		if (strncmp(s, "DistributedDataParallel.forward", 31) == 0)
			f[id] |= N_DDP;
	}
	return f;
}

/* ---- one trace -------------------------------------------------------------------------- */

struct ctx {
	struct trace *t;
	struct advice_report *r;
	const struct gap_report *g;
	const struct device_gaps *main; /* the device with the most kernel time, or NULL */
	int64_t w0, w1, wlen;           /* the window the scores are over */
	int64_t wall;                   /* the window with its warm-up steps: what figures over the whole
	                                 * kernel table (not windowed) are shares of */
	uint16_t *names;
	struct advice_topk tk[ADV__COUNT];
	int64_t sum[ADV__COUNT];  /* figures' numerators, ns */
	uint64_t sync_calls;      /* outermost synchronising calls in the window */
	uint64_t blocking_copies; /* of which blocking device-to-host copies */
	int64_t pageable_bytes;
	uint64_t launch_waits,
		launch_short; /* short waits for a launch; of which before a kernel shorter than its launch */
	uint64_t launch_gaps; /* longer gaps whose cause is launch-bound */
	int64_t launch_gap_ns;
	bool has_ddp;
	struct span *comm_ops; /* without a GPU: the nccl:/gloo: ops, for their union */
	uint32_t ncomm_ops, comm_ops_cap;
	int64_t dl_host; /* DataLoader host time in the window */
};

/* The compiled-model facts of the trace (src/compiled.h), from the analysis cache. */
static const struct compiled_facts *compiled_of(struct ctx *c) { return trace_compiled(c->t); }

static int64_t clip_len(const struct ctx *c, int64_t a, int64_t b)
{
	if (a < c->w0)
		a = c->w0;
	if (b > c->w1)
		b = c->w1;
	return b > a ? b - a : 0;
}

/* Time in [A, B) inside the window when device DG runs nothing. */
static int64_t idle_in(const struct ctx *c, const struct device_gaps *dg, int64_t a, int64_t b)
{
	if (a < c->w0)
		a = c->w0;
	if (b > c->w1)
		b = c->w1;
	if (b <= a || dg == NULL)
		return 0;
	return (b - a) - gaps_device_busy(dg, a, b);
}

static const struct device_gaps *device_of(const struct ctx *c, int32_t device)
{
	for (uint32_t i = 0; i < c->g->ndevices; i++)
		if (c->g->devices[i].device == device)
			return &c->g->devices[i];
	return c->main;
}

static struct advice_finding *add_finding(struct ctx *c, enum advice_rule rule, double figure, double score,
                                          enum advice_confidence conf)
{
	struct advice_report *r = c->r;
	r->findings = xreallocarray(r->findings, r->n + 1, sizeof *r->findings);
	struct advice_finding *f = &r->findings[r->n++];
	memset(f, 0, sizeof *f);
	f->rule = rule;
	f->figure = figure;
	f->threshold = advice_rule_info(rule)->threshold;
	f->score = score;
	f->confidence = conf;
	f->device = c->main != NULL ? c->main->device : -1;
	struct advice_topk *k = &c->tk[rule];
	if (k->n > 0) {
		advice_topk_sort(k);
		f->inst = xmalloc(k->n * sizeof *f->inst);
		memcpy(f->inst, k->v, k->n * sizeof *f->inst);
		f->ninst = k->n;
	}
	f->count = k->count;
	f->total = k->total;
	return f;
}

/* What the stack of open slices says about the slices under it. */
struct open {
	int64_t end;
	uint32_t outer_op; /* outermost cpu_op at or above, TT_NONE */
	uint32_t context;  /* innermost annotation or Python frame at or above (not a step), TT_NONE */
	uint8_t under;     /* U_* of it and everything above */
};
enum { U_SYNC = 1, U_DATALOADER = 2, U_COMM = 4 };

static void sweep_cpu(struct ctx *c)
{
	struct trace *t = c->t;
	struct open *st = NULL;
	uint32_t cap = 0;
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		if (tr->kind != TRACK_CPU)
			continue;
		uint32_t sp = 0;
		for (uint32_t i = 0; i < tr->nslices; i++) {
			const struct slice *s = &tr->slices[i];
			int64_t end = tt_add(s->ts, slice_dur(tr, s));
			while (sp > 0 && st[sp - 1].end <= s->ts)
				sp--;
			/* the parent's fields, read one by one (pushing below may move the stack; a copy
			 * of the whole entry, just stored field by field, stalled: a third of this loop) */
			uint8_t under = sp > 0 ? st[sp - 1].under : 0, mine = 0;
			uint32_t up_outer_op = sp > 0 ? st[sp - 1].outer_op : TT_NONE;
			uint32_t up_context = sp > 0 ? st[sp - 1].context : TT_NONE;
			uint16_t f = c->names[slice_name(t, s)];
			bool in_window = s->ts < c->w1 && end > c->w0;
			if (f & N_DATALOADER) {
				mine |= U_DATALOADER;
				if (!(under & U_DATALOADER) && in_window) {
					int64_t host = clip_len(c, s->ts, end);
					int64_t v = c->main != NULL ? idle_in(c, c->main, s->ts, end) : host;
					c->dl_host += host;
					c->sum[ADV_DATALOADER_STALL] += v;
					struct advice_instance x =
						advice_instance_of((struct slice_ref){ ti, i }, s->ts, end, v);
					advice_topk_add(&c->tk[ADV_DATALOADER_STALL], &x);
				}
			}
			int32_t dev = -1;
			bool sync = (f & N_SYNC) || ((f & N_MEMCPY_CALL) && slice_cls(t, s) == SC_RUNTIME &&
			                             host_call_blocking_copy(c->t, tr, s, &dev));
			if (sync && c->main != NULL) {
				mine |= U_SYNC;
				if (!(under & U_SYNC) && in_window) {
					const struct device_gaps *dg = dev >= 0 ? device_of(c, dev) : c->main;
					int64_t v = idle_in(c, dg, s->ts, end);
					c->sync_calls++;
					c->blocking_copies += !(f & N_SYNC);
					c->sum[ADV_HOST_SYNC] += v;
					struct advice_instance x =
						advice_instance_of((struct slice_ref){ ti, i }, s->ts, end, v);
					uint32_t op = up_outer_op != TT_NONE         ? up_outer_op
					              : slice_cls(t, s) == SC_CPU_OP ? i
					                                             : TT_NONE;
					if (op != TT_NONE)
						x.op = (struct slice_ref){ ti, op };
					if (up_context != TT_NONE)
						x.context = (struct slice_ref){ ti, up_context };
					advice_topk_add(&c->tk[ADV_HOST_SYNC], &x);
				}
			}
			if (f & N_COMM_OP) {
				mine |= U_COMM;
				if (!(under & U_COMM) && in_window && c->g->ndevices == 0) {
					int64_t v = clip_len(c, s->ts, end);
					struct advice_instance x =
						advice_instance_of((struct slice_ref){ ti, i }, s->ts, end, v);
					advice_topk_add(&c->tk[ADV_EXPOSED_COMMUNICATION], &x);
					if (c->ncomm_ops == c->comm_ops_cap)
						c->comm_ops = xreallocarray(c->comm_ops,
						                            c->comm_ops_cap = c->comm_ops_cap * 2 + 64,
						                            sizeof *c->comm_ops);
					c->comm_ops[c->ncomm_ops++] = (struct span){ s->ts, end };
				}
			}
			c->has_ddp |= (f & N_DDP) != 0;
			if (sp == cap)
				st = xreallocarray(st, cap = cap * 2 + 64, sizeof *st);
			struct open *o = &st[sp++];
			o->end = end;
			o->under = under | mine;
			o->outer_op = up_outer_op != TT_NONE ? up_outer_op : slice_cls(t, s) == SC_CPU_OP ? i : TT_NONE;
			o->context =
				(slice_cls(t, s) == SC_USER_ANNOTATION || slice_cls(t, s) == SC_PYTHON) && !(f & N_STEP)
					? i
					: up_context;
		}
	}
	free(st);
}

static inline bool is_gpu_op(uint8_t cls) { return cls == SC_KERNEL || cls == SC_MEMCPY || cls == SC_MEMSET; }
static inline bool is_gpu_track(const struct track *tr)
{
	return tr->kind == TRACK_GPU_COMPUTE || tr->kind == TRACK_GPU_COMM;
}

static void *sweep_cpu_main(void *c)
{
	sweep_cpu(c);
	return NULL;
}

/* Pageable copies, and per device the collectives against the compute that hides them. */
static void sweep_gpu(struct ctx *c)
{
	struct trace *t = c->t;
	bool any_comm = false;
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		if (!is_gpu_track(tr))
			continue;
		any_comm |= tr->comm_kernels > 0;
		for (uint32_t i = 0; i < tr->nslices; i++) {
			const struct slice *s = &tr->slices[i];
			if (slice_cls(t, s) != SC_MEMCPY || !(c->names[slice_name(t, s)] & N_PAGEABLE))
				continue;
			int64_t end = tt_add(s->ts, slice_dur(tr, s)), v = clip_len(c, s->ts, end);
			if (v == 0 && !(s->ts >= c->w0 && s->ts < c->w1))
				continue;
			struct advice_instance x = advice_instance_of((struct slice_ref){ ti, i }, s->ts, end, v);
			uint32_t g = slice_gpu(tr, s);
			if (g != TT_NONE && g < t->ngpu)
				x.bytes = gpu_bytes(t, &t->gpu[g]);
			if (x.bytes > 0)
				c->pageable_bytes = tt_add(c->pageable_bytes, x.bytes);
			c->sum[ADV_PAGEABLE_MEMCPY] += v;
			advice_topk_add(&c->tk[ADV_PAGEABLE_MEMCPY], &x);
		}
	}
	if (!any_comm)
		return;
	struct span *comp = NULL, *comm = NULL;
	uint32_t cap = 0, ccap = 0;
	for (uint32_t d = 0; d < c->g->ndevices; d++) {
		int32_t dev = c->g->devices[d].device;
		uint32_t n = 0, nc = 0;
		for (uint32_t ti = 0; ti < t->ntracks; ti++) {
			const struct track *tr = &t->tracks[ti];
			if (!is_gpu_track(tr) || tr->device != dev)
				continue;
			for (uint32_t i = 0; i < tr->nslices; i++) {
				const struct slice *s = &tr->slices[i];
				if (slice_cls(t, s) != SC_KERNEL)
					continue;
				if (c->names[slice_name(t, s)] & N_COMM_KERNEL) {
					if (nc == ccap)
						comm = xreallocarray(comm, ccap = ccap * 2 + 256, sizeof *comm);
					comm[nc++] = (struct span){ s->ts, tt_add(s->ts, slice_dur(tr, s)) };
					continue;
				}
				if (n == cap)
					comp = xreallocarray(comp, cap = cap * 2 + 1024, sizeof *comp);
				comp[n++] = (struct span){ s->ts, tt_add(s->ts, slice_dur(tr, s)) };
			}
		}
		n = spans_merge(comp, n);
		int64_t *prefix = spans_prefix(comp, n);
		/* TraceLens's exposed communication: the collectives' union less the compute's */
		nc = spans_merge(comm, nc);
		for (uint32_t k = 0; k < nc; k++) {
			int64_t a = comm[k].start > c->w0 ? comm[k].start : c->w0,
				b = comm[k].end < c->w1 ? comm[k].end : c->w1;
			if (b > a)
				c->sum[ADV_EXPOSED_COMMUNICATION] +=
					(b - a) - spans_within_prefix(comp, prefix, n, a, b);
		}
		for (uint32_t ti = 0; ti < t->ntracks; ti++) {
			const struct track *tr = &t->tracks[ti];
			if (!is_gpu_track(tr) || tr->device != dev || tr->comm_kernels == 0)
				continue;
			for (uint32_t i = 0; i < tr->nslices; i++) {
				const struct slice *s = &tr->slices[i];
				if (slice_cls(t, s) != SC_KERNEL || !(c->names[slice_name(t, s)] & N_COMM_KERNEL))
					continue;
				int64_t a = s->ts > c->w0 ? s->ts : c->w0, end = tt_add(s->ts, slice_dur(tr, s));
				int64_t b = end < c->w1 ? end : c->w1;
				if (b <= a)
					continue;
				int64_t exposed = (b - a) - spans_within_prefix(comp, prefix, n, a, b);
				struct advice_instance x =
					advice_instance_of((struct slice_ref){ ti, i }, s->ts, end, exposed);
				advice_topk_add(&c->tk[ADV_EXPOSED_COMMUNICATION], &x);
				if ((c->names[slice_name(t, s)] & N_ALLREDUCE) &&
				    (double)exposed >= TT_ADVICE_SERIAL_FRACTION * (double)(b - a) && exposed > 0) {
					c->sum[ADV_ALLREDUCE_AFTER_BACKWARD] += exposed;
					advice_topk_add(&c->tk[ADV_ALLREDUCE_AFTER_BACKWARD], &x);
				}
			}
		}
		free(prefix);
	}
	free(comp);
	free(comm);
}

/* A short idle stretch of the main device, [A, B), the GPU activity that ends it (NEXT) and
 * the runtime call that launched that (LAUNCH). */
struct short_gap {
	int64_t a, b;
	struct slice_ref next, launch;
};
#define SHORT_GAP_BATCH 256

/* The stretches W (N, in time order) whose activity was launched after the device ran dry,
 * into C's launch-bound figures: the launches read in order, each a few stretches ahead of
 * its use (the runtime calls lie anywhere on the threads: this was a cache miss each). */
static void launch_waits(struct ctx *c, const struct short_gap *w, uint32_t n)
{
	const struct trace *t = c->t;
	for (uint32_t i = 0; i < n; i++) {
		if (i + TT_PREFETCH_AHEAD < n)
			slice_prefetch(t, w[i + TT_PREFETCH_AHEAD].launch);
		int64_t a = w[i].a, b = w[i].b;
		struct slice_ref next = w[i].next, l = w[i].launch;
		const struct slice *op = &t->tracks[next.track].slices[next.idx];
		const struct slice *rt = &t->tracks[l.track].slices[l.idx];
		if (rt->ts <= a)
			continue; /* launched before the device ran dry: the GPU was not waiting for it */
		c->launch_waits++;
		c->launch_short += slice_cls(t, op) == SC_KERNEL &&
		                   slice_dur(&t->tracks[next.track], op) < slice_dur(&t->tracks[l.track], rt);
		c->sum[ADV_LAUNCH_BOUND] += b - a;
		struct advice_instance x = advice_instance_of(next, a, b, b - a);
		advice_topk_add(&c->tk[ADV_LAUNCH_BOUND], &x);
	}
}

/* The main device's idle time before an operation whose launch came after the device ran
 * dry: the idle stretches of its busy union shorter than the gaps' minimum (longer ones
 * are the gap list's, counted when their cause is launch-bound). One cursor per stream
 * walks to the operation that ends each stretch. */
static void sweep_launch(struct ctx *c)
{
	struct trace *t = c->t;
	const struct device_gaps *dg = c->main;
	if (dg == NULL)
		return;
	uint32_t nt = 0;
	for (uint32_t ti = 0; ti < t->ntracks; ti++)
		nt += is_gpu_track(&t->tracks[ti]) && t->tracks[ti].device == dg->device;
	uint32_t *tracks = xmalloc((nt ? nt : 1) * sizeof *tracks), *cur = xcalloc(nt ? nt : 1, sizeof *cur);
	nt = 0;
	for (uint32_t ti = 0; ti < t->ntracks; ti++)
		if (is_gpu_track(&t->tracks[ti]) && t->tracks[ti].device == dg->device)
			tracks[nt++] = ti;
	/* the short gaps a batch at a time, each with the GPU activity that ends it and the call
	 * that launched that; then their launches (launch_waits) */
	struct short_gap w[SHORT_GAP_BATCH];
	uint32_t nw = 0;
	for (uint32_t k = 0; k + 1 < dg->nbusy; k++) {
		int64_t a = dg->busy_spans[k].end, b = dg->busy_spans[k + 1].start;
		if (b - a >= c->g->min_gap || a < c->w0 || b > c->w1 || b <= a)
			continue;
		struct slice_ref next = advice_no_ref;
		for (uint32_t q = 0; q < nt; q++) {
			const struct track *tr = &t->tracks[tracks[q]];
			while (cur[q] < tr->nslices &&
			       (tr->slices[cur[q]].ts < b || !is_gpu_op(slice_cls(t, &tr->slices[cur[q]]))))
				cur[q]++;
			if (cur[q] < tr->nslices && tr->slices[cur[q]].ts == b && next.track == TT_NONE)
				next = (struct slice_ref){ tracks[q], cur[q] };
		}
		if (next.track == TT_NONE)
			continue;
		uint32_t og = track_gpu_at(&t->tracks[next.track], next.idx);
		if (og == TT_NONE || og >= t->ngpu)
			continue;
		struct slice_ref l = t->gpu[og].peer;
		if (l.track == TT_NONE || l.track >= t->ntracks || l.idx >= t->tracks[l.track].nslices)
			continue;
		w[nw++] = (struct short_gap){ a, b, next, l };
		if (nw == SHORT_GAP_BATCH) {
			launch_waits(c, w, nw);
			nw = 0;
		}
	}
	launch_waits(c, w, nw);
	/* the gap list's launch-bound gaps (by key: the causes are the gap analysis's) */
	for (uint32_t i = 0; i < c->g->ngaps; i++) {
		const struct gap *gp = &c->g->gaps[i];
		if (gp->device != dg->device || strcmp(gap_cause_key(gp->cause), "launch") != 0)
			continue;
		int64_t v = clip_len(c, gp->start, gp->end);
		if (v == 0)
			continue;
		c->launch_gaps++;
		c->launch_gap_ns += v;
		c->sum[ADV_LAUNCH_BOUND] += v;
		struct advice_instance x =
			advice_instance_of(gp->next.track != TT_NONE ? gp->next : gp->cpu, gp->start, gp->end, v);
		advice_topk_add(&c->tk[ADV_LAUNCH_BOUND], &x);
	}
	free(tracks);
	free(cur);
}

/* The cause (written into CAUSE, N bytes), fix and example of waiting for launches where the
 * model is compiled, in whole or in part (src/compiled.h): true with the three set; false for
 * an eager model, whose are the launch_bound rule's. */
static bool launch_remedy(struct ctx *c, char *cause, size_t n, const char **fix, const char **example)
{
	const struct compiled_facts cf = *compiled_of(c);
	if (cf.compiled && cf.cuda_graphs) {
		/* compiled and replaying graphs already: what still launches is outside them */
		snprintf(cause, n, "%s",
		         "the model is compiled and replays CUDA graphs, yet the GPU waits for launches: the work "
		         "outside the graphs (eager ops between compiled regions at graph breaks, parts the graphs do "
		         "not capture, inputs copied in before each replay) is still launched kernel by kernel");
		*fix = "find the graph breaks and the eager operators between the compiled regions and the graph "
		       "replays, and bring them into the compiled graph";
		*example = "TORCH_LOGS=graph_breaks,cudagraphs python train.py   # why a region is not compiled or "
			   "not captured";
		return true;
	}
	int64_t fusable = cf.compiled_kernel_ns - cf.library_compiled_ns;
	if (cf.compiled && cf.triton_kernels == 0 && fusable > 0 && 2 * cf.aten_compiled_ns >= fusable) {
		/* compiled regions run the kernels, but none is Triton's, and what a code generator
		 * would fuse (all but the library calls: matmuls, convolutions, attention,
		 * collectives) is mostly ATen's own kernels: the graphs were not code-generated (a
		 * backend such as aot_eager). Another generator's fused kernels (nvFuser's) are not
		 * ATen's: those fall through to the compiled cause. */
		char a[32], b[32];
		snprintf(
			cause, n,
			"the model runs in compiled regions (%s of the kernel time is launched inside them), but no "
			"kernel is a Triton kernel, and of that time outside matmuls, convolutions, attention and "
			"collectives %s is ATen's own kernels (at::native): the compiled graphs run them as many and as "
			"small as in eager mode (a backend that generates no code, such as aot_eager?), each launched "
			"from the host one by one, without CUDA graphs",
			advice_pct(advice_share(cf.compiled_kernel_ns, cf.kernel_ns), a, sizeof a),
			advice_pct(advice_share(cf.aten_compiled_ns, fusable), b, sizeof b));
		*fix = "compile with inductor (torch.compile's default backend) so that fused Triton kernels replace "
		       "the small ATen ones, and replay the graphs as CUDA graphs (mode 'reduce-overhead')";
		*example = "backend='inductor', mode='reduce-overhead' in the existing torch.compile call   # "
			   "TORCH_LOGS=graph_breaks lists the breaks";
		return true;
	}
	if (cf.compiled) {
		/* compiled, without CUDA graphs: each Triton kernel is still one launch from Python */
		snprintf(cause, n,
		         "the model is compiled (%s) but without CUDA graphs: each compiled kernel is still launched "
		         "from the host one by one, and eager ops between compiled regions (graph breaks) add their "
		         "dispatch",
		         cf.triton_kernels > 0 ? "Triton kernels, compiled regions" : "compiled regions");
		*fix = "replay the compiled graphs as CUDA graphs (mode 'reduce-overhead' of the torch.compile call "
		       "already there), and remove graph breaks so that fewer operators run eagerly";
		*example = "mode='reduce-overhead' in the existing torch.compile call   # CUDA graphs; "
			   "TORCH_LOGS=graph_breaks lists the breaks";
		return true;
	}
	if (cf.partly_compiled) {
		/* an eager job with some compiled code: the eager part is what launches one by one */
		char a[32];
		snprintf(cause, n,
		         "part of the model is compiled%s (%s of the kernel time comes from Triton kernels or compiled "
		         "regions); the rest runs eagerly, each operator's kernels launched from the host one by one",
		         cf.cuda_graphs ? " and replays CUDA graphs" : "",
		         advice_pct(advice_share(cf.compiled_kernel_ns, cf.kernel_ns), a, sizeof a));
		*fix = cf.cuda_graphs
		               ? "find the graph breaks and the eager operators between the compiled regions and "
		                 "the graph replays, and bring them into the compiled graph"
		               : "bring the eager part into the compiled graph (compile the modules outside it, "
		                 "remove graph breaks), then replay it as CUDA graphs";
		*example = "TORCH_LOGS=graph_breaks python train.py   # which code runs outside the compiled regions";
		return true;
	}
	return false;
}

/* Device D's utilization over the window: the plugin's figure, or with warm-up steps set
 * aside the same definition (|union of kernels| over the steps' time) over the steps after
 * them. */
static double steady_utilization(const struct ctx *c, const struct gpu_metrics_device *d)
{
	if (c->r->warmup_steps == 0 || c->wlen <= 0)
		return d->utilization;
	const struct device_gaps *dg = NULL;
	for (uint32_t i = 0; i < c->g->ndevices; i++)
		if (c->g->devices[i].device == d->device)
			dg = &c->g->devices[i];
	if (dg == NULL || dg->step_kernel_busy == NULL)
		return d->utilization;
	int64_t busy = 0;
	for (uint32_t k = c->r->warmup_steps; k < c->g->nsteps; k++)
		busy = tt_add(busy, dg->step_kernel_busy[k]);
	return advice_share(busy, c->wlen);
}

static void rule_gpu_utilization(struct ctx *c)
{
	const struct gpu_metrics *m = trace_gpu_metrics(c->t);
	const struct gpu_metrics_device *worst = NULL;
	double worst_u = 0;
	for (uint32_t i = 0; i < m->n; i++) {
		double u = steady_utilization(c, &m->devices[i]);
		if (m->devices[i].kernels > 0 && (worst == NULL || u < worst_u)) {
			worst = &m->devices[i];
			worst_u = u;
		}
	}
	if (worst == NULL || !(worst_u < TT_ADVICE_GPU_UTIL_MIN) || c->wlen <= 0)
		return;
	const struct device_gaps *dg = device_of(c, worst->device);
	for (uint32_t i = 0; i < c->g->ngaps; i++) {
		const struct gap *gp = &c->g->gaps[i];
		if (gp->device != worst->device || (c->r->warmup_steps > 0 && clip_len(c, gp->start, gp->end) == 0))
			continue;
		struct advice_instance x =
			advice_instance_of(gp->next, gp->start, gp->end, clip_len(c, gp->start, gp->end));
		x.context = gp->cpu;
		x.op = gp->op;
		advice_topk_add(&c->tk[ADV_LOW_GPU_UTILIZATION], &x);
	}
	/* the idle time's largest cause among the gaps (by the gap analysis's keys); with
	 * warm-up set aside, over the gaps' parts after it */
	struct device_gaps steady;
	if (dg != NULL && c->r->warmup_steps > 0) {
		steady = *dg;
		memset(steady.idle_by_cause, 0, sizeof steady.idle_by_cause);
		for (uint32_t i = 0; i < c->g->ngaps; i++)
			if (c->g->gaps[i].device == dg->device)
				steady.idle_by_cause[c->g->gaps[i].cause] +=
					clip_len(c, c->g->gaps[i].start, c->g->gaps[i].end);
		steady.idle = idle_in(c, dg, c->w0, c->w1);
		dg = &steady;
	}
	int best = -1;
	int64_t in_gaps = 0;
	if (dg != NULL)
		for (int k = 0; k < GC__COUNT; k++) {
			in_gaps += dg->idle_by_cause[k];
			if (best < 0 || dg->idle_by_cause[k] > dg->idle_by_cause[best])
				best = k;
		}
	double idle = 1.0 - worst_u;
	enum advice_confidence conf = c->r->steps >= 2 ? ADV_HIGH : ADV_MEDIUM;
	struct advice_finding *f = add_finding(c, ADV_LOW_GPU_UTILIZATION, worst_u, idle, conf);
	f->device = worst->device;
	char a[32], b[32], w[48];
	snprintf(f->symptom, sizeof f->symptom,
	         "%s %d runs kernels %s of the steps' time (%s over %u step%s); threshold: under %s",
	         trace_device_noun(c->t, worst->device), worst->device, advice_pct(worst_u, a, sizeof a),
	         timefmt_dur(c->wlen, w, sizeof w), c->r->steps, c->r->steps == 1 ? "" : "s",
	         advice_pct(TT_ADVICE_GPU_UTIL_MIN, b, sizeof b));
	/* the host is the cause only where gaps the host explains hold most of the idle time;
	 * gaps whose next work or launch the trace lacks (other) and waits on events, streams
	 * or collectives (wait) are not the host's */
	int64_t host = 0;
	if (dg != NULL)
		for (int k = 0; k < GC__COUNT; k++)
			if (k != GC_WAIT && k != GC_OTHER)
				host += dg->idle_by_cause[k];
	const char *why = NULL;
	if (dg != NULL && dg->idle > 0 && best >= 0) {
		char d[32];
		double best_share = advice_share(dg->idle_by_cause[best], dg->idle);
		double short_share = advice_share(dg->idle - in_gaps, dg->idle);
		bool unrecorded = best == GC_OTHER && best_share >= 0.5, waits = best == GC_WAIT && best_share >= 0.5;
		bool short_gaps = !unrecorded && !waits && short_share >= 0.5;
		const char *lead =
			unrecorded
				? "not in the trace: what the GPU waits for in most of its idle time is not recorded (no "
				  "next GPU operation, or no launch of it, e.g. idle to the window's end)"
			: waits ? "the GPU waits on events, other streams or collectives, not on the host"
			: short_gaps
				? "the GPU idles mostly in short gaps between kernels: the host queues work about as fast as the "
				  "GPU runs it (launch overhead, small kernels)"
			: advice_share(host, dg->idle) >= 0.5 ? "the GPU waits for the host"
							      : "no one cause: the GPU waits for the host in part";
		if (in_gaps == 0)
			snprintf(f->cause, sizeof f->cause, "%s; all of its idle time is in gaps under %s", lead,
			         timefmt_dur(c->g->min_gap, d, sizeof d));
		else
			snprintf(f->cause, sizeof f->cause,
			         "%s; of its idle time, %s is in gaps whose cause is %s (%s), %s in gaps under %s",
			         lead, advice_pct(best_share, a, sizeof a), gap_cause_text((enum gap_cause)best),
			         gap_cause_key((enum gap_cause)best), advice_pct(short_share, b, sizeof b),
			         timefmt_dur(c->g->min_gap, d, sizeof d));
		if (unrecorded) {
			f->confidence = ADV_LOW;
			why = "the trace does not say what the GPU waited for in most of its idle time";
			f->fix =
				"record what the host does around the idle time: a window of several steady steps, with "
				"Python stacks, so that the gaps' causes can be named";
			f->example =
				"torch.profiler.profile(schedule=torch.profiler.schedule(wait=1, warmup=2, active=3), "
				"with_stack=True)";
		} else if (waits) {
			f->fix =
				"find what the waiting stream waits for (the gap list's wait gaps name the next work): an "
				"event on another stream, a collective waiting for another rank, or a dependency that "
				"serialises streams";
			f->example =
				"with torch.cuda.stream(s): ...   # and s.wait_event(e) only where the data needs it";
		} else if (short_gaps) {
			char unused[512];
			if (!launch_remedy(c, unused, sizeof unused, &f->fix, &f->example)) {
				f->fix = advice_rule_info(ADV_LAUNCH_BOUND)->fix;
				f->example = advice_rule_info(ADV_LAUNCH_BOUND)->example;
			}
		}
		if (!short_gaps && best_share < 0.5 && f->confidence > ADV_MEDIUM)
			f->confidence = ADV_MEDIUM;
		if (short_gaps && f->confidence > ADV_MEDIUM) {
			f->confidence = ADV_MEDIUM;
			why = "short gaps between kernels come from launch overhead or from dependencies between them; the "
			      "trace tells them apart only where launch calls cover the gaps (see launch_bound)";
		}
	} else {
		snprintf(f->cause, sizeof f->cause, "%s", advice_rule_info(ADV_LOW_GPU_UTILIZATION)->cause);
	}
	snprintf(f->confidence_why, sizeof f->confidence_why, "%s",
	         why != NULL ? why
	         : c->r->steps < 2 && c->t->nsteps == 0
	                 ? "no profiler steps: the window mixes warm-up, one-offs and steady work"
	         : c->r->steps < 2           ? "one step only: warm-up or a one-off may dominate it"
	         : f->confidence == ADV_HIGH ? "several steps, and one cause explains most of the idle time"
	                                     : "several steps, but no single cause explains most of the idle time");
}

/* How many of the steps from FIRST on have ROLE's time above the share MAX, from the step
 * figures. */
static uint32_t steps_over(const struct step_report *sr, uint32_t first, enum step_role role, double max)
{
	uint32_t n = 0;
	for (uint32_t i = first; i < sr->n; i++) {
		int64_t d = sr->steps[i].end - sr->steps[i].start;
		n += d > 0 && (double)sr->steps[i].role[role] > max * (double)d;
	}
	return n;
}

static void rule_dataloader(struct ctx *c)
{
	double fig = advice_share(c->sum[ADV_DATALOADER_STALL], c->wlen);
	if (!(fig > TT_ADVICE_DATALOADER_MAX))
		return;
	/* steady or one-off: in how many DataLoader calls is the stall */
	uint64_t calls = c->tk[ADV_DATALOADER_STALL].count;
	int64_t worst = 0;
	for (uint32_t i = 0; i < c->tk[ADV_DATALOADER_STALL].n; i++)
		if (c->tk[ADV_DATALOADER_STALL].v[i].value > worst)
			worst = c->tk[ADV_DATALOADER_STALL].v[i].value;
	bool one_off = calls >= 2 && (double)worst > 0.8 * (double)c->sum[ADV_DATALOADER_STALL];
	enum advice_confidence conf = calls < 2 ? ADV_MEDIUM : one_off ? ADV_LOW : ADV_HIGH;
	struct advice_finding *f = add_finding(c, ADV_DATALOADER_STALL, fig, fig, conf);
	char a[32], b[32], d[48];
	snprintf(f->symptom, sizeof f->symptom,
	         "%s of the steps' time is spent in the DataLoader with the GPU idle (%s in %llu call%s)%s; threshold: "
	         "over %s",
	         advice_pct(fig, a, sizeof a), timefmt_dur(c->sum[ADV_DATALOADER_STALL], d, sizeof d),
	         (unsigned long long)calls, calls == 1 ? "" : "s", c->main != NULL ? "" : " (no GPU: host time)",
	         advice_pct(TT_ADVICE_DATALOADER_MAX, b, sizeof b));
	snprintf(f->cause, sizeof f->cause, "%s", advice_rule_info(ADV_DATALOADER_STALL)->cause);
	snprintf(f->confidence_why, sizeof f->confidence_why, "%s",
	         conf == ADV_HIGH ? "the stall recurs in several DataLoader calls"
	         : conf == ADV_LOW
	                 ? "one DataLoader call holds most of the stall: worker start-up or an epoch boundary?"
	                 : "a single DataLoader call in the trace: is it steady?");
}

static void rule_host_sync(struct ctx *c)
{
	double fig = advice_share(c->sum[ADV_HOST_SYNC], c->wlen);
	if (c->main == NULL || !(fig > TT_ADVICE_SYNC_IDLE_MAX))
		return;
	struct advice_topk *k = &c->tk[ADV_HOST_SYNC];
	enum advice_confidence conf = k->count >= 2 ? ADV_HIGH : ADV_MEDIUM;
	struct advice_finding *f = add_finding(c, ADV_HOST_SYNC, fig, fig, conf);
	char a[32], b[32], d[48];
	snprintf(f->symptom, sizeof f->symptom,
	         "the GPU is idle %s (%s of the steps' time) while the host waits in %llu synchronising call%s "
	         "(%llu blocking device-to-host cop%s); threshold: over %s",
	         timefmt_dur(c->sum[ADV_HOST_SYNC], d, sizeof d), advice_pct(fig, a, sizeof a),
	         (unsigned long long)c->sync_calls, c->sync_calls == 1 ? "" : "s",
	         (unsigned long long)c->blocking_copies, c->blocking_copies == 1 ? "y" : "ies",
	         advice_pct(TT_ADVICE_SYNC_IDLE_MAX, b, sizeof b));
	snprintf(f->cause, sizeof f->cause, "%s%s", advice_rule_info(ADV_HOST_SYNC)->cause,
	         c->blocking_copies > 0 ? "; here copies to the host (.cpu(), .to('cpu'), .tolist()) block" : "");
	snprintf(f->confidence_why, sizeof f->confidence_why, "%s",
	         conf == ADV_HIGH ? "the GPU idles inside the calls themselves, in several of them"
	                          : "one call: it may be a one-off (the end of an epoch, a checkpoint)");
}

static void rule_pageable(struct ctx *c)
{
	double fig = advice_share(c->sum[ADV_PAGEABLE_MEMCPY], c->wlen);
	if (!(fig > TT_ADVICE_PAGEABLE_MAX))
		return;
	struct advice_finding *f = add_finding(c, ADV_PAGEABLE_MEMCPY, fig, fig, ADV_HIGH);
	char a[32], b[32], d[48], e[32];
	snprintf(f->symptom, sizeof f->symptom,
	         "%llu pageable cop%s take %s (%s of the steps' time), %s in all; threshold: over %s",
	         (unsigned long long)f->count, f->count == 1 ? "y" : "ies",
	         timefmt_dur(c->sum[ADV_PAGEABLE_MEMCPY], d, sizeof d), advice_pct(fig, a, sizeof a),
	         c->pageable_bytes > 0 ? timefmt_bytes((double)c->pageable_bytes, e, sizeof e) : "size unknown",
	         advice_pct(TT_ADVICE_PAGEABLE_MAX, b, sizeof b));
	snprintf(f->cause, sizeof f->cause, "%s", advice_rule_info(ADV_PAGEABLE_MEMCPY)->cause);
	snprintf(f->confidence_why, sizeof f->confidence_why, "%s",
	         "the copy's own name says Pageable (CUDA's memcpy kind)");
}

static void rule_launch(struct ctx *c)
{
	double fig = advice_share(c->sum[ADV_LAUNCH_BOUND], c->wlen);
	if (c->main == NULL || !(fig > TT_ADVICE_LAUNCH_IDLE_MAX))
		return;
	double short_share = c->launch_waits > 0 ? (double)c->launch_short / (double)c->launch_waits : 0;
	enum advice_confidence conf = short_share >= 0.5 ? ADV_HIGH : ADV_MEDIUM;
	struct advice_finding *f = add_finding(c, ADV_LAUNCH_BOUND, fig, fig, conf);
	char a[32], b[32], d[48], e[32];
	char g[48], h[32], k[48];
	snprintf(f->symptom, sizeof f->symptom,
	         "%s %d waits %s for launches (%s of the steps' time): %s in %llu waits under %s (%s of them end at a "
	         "kernel shorter than its launch call), %s in %llu longer gaps; threshold: over %s",
	         trace_device_noun(c->t, c->main->device), c->main->device,
	         timefmt_dur(c->sum[ADV_LAUNCH_BOUND], d, sizeof d), advice_pct(fig, a, sizeof a),
	         timefmt_dur(c->sum[ADV_LAUNCH_BOUND] - c->launch_gap_ns, g, sizeof g),
	         (unsigned long long)c->launch_waits, timefmt_dur(c->g->min_gap, h, sizeof h),
	         advice_pct(short_share, e, sizeof e), timefmt_dur(c->launch_gap_ns, k, sizeof k),
	         (unsigned long long)c->launch_gaps, advice_pct(TT_ADVICE_LAUNCH_IDLE_MAX, b, sizeof b));
	if (launch_remedy(c, f->cause, sizeof f->cause, &f->fix, &f->example)) {
		/* the model's own compilation says what still launches one by one */
	} else if (conf == ADV_HIGH) {
		snprintf(f->cause, sizeof f->cause, "%s", advice_rule_info(ADV_LAUNCH_BOUND)->cause);
	} else {
		/* the kernels after the waits mostly outlast their launch: launching is not what
		 * takes the host's time, whatever the rule's usual cause says */
		snprintf(f->cause, sizeof f->cause, "%s",
		         "the host launches late: fewer than half the waits end at a kernel shorter than its launch "
		         "call, so between launches the host is mostly busy with other work (Python, data handling, "
		         "synchronisation, eager mode's dispatch of operators that launch nothing)");
		f->fix = "find what the host does between the launches (a profile with Python stacks) and take it off "
			 "the step; capturing the step in a CUDA graph takes the host off the GPU's path";
		f->example = "torch.profiler.profile(..., with_stack=True)   # then torch.compile(model, "
			     "mode='reduce-overhead') to replay the step as CUDA graphs";
	}
	snprintf(f->confidence_why, sizeof f->confidence_why, "%s",
	         conf == ADV_HIGH ? "most waits end at a kernel that ran shorter than its launch call (HTA's short "
	                            "kernels)"
	                          : "the kernels after the waits are not mostly shorter than their launch: the host "
	                            "may be busy with other work");
}

/* Whether the trace's GPUs have matrix units, as far as deviceProperties tell: NVIDIA's
 * from compute capability 7 (Tensor Cores), AMD Instinct (CDNA matrix cores); 1 yes, 0 no,
 * -1 unknown (other AMD GPUs, or no properties). */
static int has_matrix_units(const struct trace *t)
{
	int known = -1;
	for (uint32_t i = 0; i < t->ndevices; i++) {
		const struct device_props *d = &t->devices[i];
		const char *nm = d->name ? strtab_get(&t->strings, d->name) : "";
		if (strstr(nm, "Instinct") != NULL || strstr(nm, "MI100") != NULL || strstr(nm, "MI2") != NULL ||
		    strstr(nm, "MI3") != NULL)
			return 1;
		if (strstr(nm, "AMD") != NULL || strstr(nm, "Radeon") != NULL)
			continue;
		if (d->compute_major > 0)
			known = d->compute_major >= 7 ? 1 : (known == 1 ? 1 : 0);
	}
	return known;
}

/* Whether P is a precision that matrix units take under mixed precision. */
static bool low_precision(enum kc_prec p)
{
	return p == KC_PREC_BF16 || p == KC_PREC_FP16 || p == KC_PREC_FP8 || p == KC_PREC_FP4 || p == KC_PREC_INT8 ||
	       p == KC_PREC_INT4 || p == KC_PREC_MIXED;
}

/* GEMM, convolution and attention kernels whose names say they run on SIMT lanes
 * (src/kernel_class.h), FP64 aside (no mixed precision for it); a kernel whose name does
 * not say its unit is never evidence, only a reason for less confidence. */
static void rule_tensor_cores(struct ctx *c)
{
	const struct kernel_report *kr = trace_kernels(c->t, KG_NAME);
	int mu = has_matrix_units(c->t);
	if (kr->total <= 0 || mu == 0)
		return;
	int64_t off = 0, low = 0, matmul = 0, unknown = 0;
	for (uint32_t i = 0; i < kr->n; i++) {
		const struct kernel_row *k = &kr->rows[i];
		if (!kernel_class_is_matmul(k->cls.family) || (c->names[k->name] & N_COMM_KERNEL))
			continue;
		matmul = tt_add(matmul, k->total);
		if (k->cls.unit == KC_UNIT_UNKNOWN) {
			unknown = tt_add(unknown, k->total);
			continue;
		}
		if (k->cls.unit == KC_UNIT_MATRIX) {
			if (low_precision(k->cls.prec))
				low = tt_add(low, k->total);
			continue;
		}
		if (k->cls.unit != KC_UNIT_SIMT || k->cls.prec == KC_PREC_FP64)
			continue;
		off = tt_add(off, k->total);
		const struct slice *s =
			k->longest.track != TT_NONE ? &c->t->tracks[k->longest.track].slices[k->longest.idx] : NULL;
		struct advice_instance x = advice_instance_of(
			k->longest, s ? s->ts : 0, s ? tt_add(s->ts, slice_dur(&c->t->tracks[k->longest.track], s)) : 0,
			k->total);
		advice_topk_add(&c->tk[ADV_TENSOR_CORES_UNUSED], &x);
	}
	double fig = advice_share(off, kr->total);
	if (!(fig > TT_ADVICE_TC_MATMUL_MAX))
		return;
	double score = TT_ADVICE_TC_GAIN * advice_share(off, c->wall);
	double unknown_share = advice_share(unknown, matmul);
	enum advice_confidence conf = mu != 1 ? ADV_LOW : (low > 0 || unknown_share > 0.1) ? ADV_MEDIUM : ADV_HIGH;
	struct advice_finding *f = add_finding(c, ADV_TENSOR_CORES_UNUSED, fig, score > 1 ? 1 : score, conf);
	char a[32], b[32], d[48], e[32], g[32], h[32];
	snprintf(f->symptom, sizeof f->symptom,
	         "GEMM/convolution/attention kernels on SIMT lanes (by name) take %s, %s of all kernel time (%llu "
	         "kernel name%s); on matrix units %s; threshold: over %s",
	         timefmt_dur(off, d, sizeof d), advice_pct(fig, a, sizeof a), (unsigned long long)f->count,
	         f->count == 1 ? "" : "s", advice_pct(advice_share(kr->tc_total, kr->total), e, sizeof e),
	         advice_pct(TT_ADVICE_TC_MATMUL_MAX, b, sizeof b));
	if (low > 0)
		snprintf(f->cause, sizeof f->cause,
		         "mixed precision is on (%s of the matmul time runs in bf16/fp16/fp8 on matrix units): these "
		         "kernels stayed in FP32, e.g. ops autocast keeps in FP32 or tensors made outside autocast",
		         advice_pct(advice_share(low, matmul), g, sizeof g));
	else
		snprintf(f->cause, sizeof f->cause, "%s%s", advice_rule_info(ADV_TENSOR_CORES_UNUSED)->cause,
		         kr->tc_total == 0 ? "; no kernel of the trace runs on matrix units" : "");
	if (mu != 1)
		snprintf(
			f->confidence_why, sizeof f->confidence_why, "%s",
			"the trace does not say which GPU it ran on (no deviceProperties naming one with matrix units)");
	else if (unknown_share > 0.1)
		snprintf(f->confidence_why, sizeof f->confidence_why,
		         "%s of the matmul time is in kernels whose names do not say their unit (left out)",
		         advice_pct(unknown_share, h, sizeof h));
	else if (low > 0)
		snprintf(f->confidence_why, sizeof f->confidence_why, "%s",
		         "mixed precision is on elsewhere: the kernels listed may be kept in FP32 on purpose");
	else
		snprintf(f->confidence_why, sizeof f->confidence_why, "%s",
		         "a GPU with matrix units, and the kernels' names say SIMT (FFMA, sgemm, simt)");
}

static void rule_occupancy(struct ctx *c)
{
	const struct kernel_report *kr = trace_kernels(c->t, KG_NAME);
	if (kr->total <= 0)
		return;
	int64_t flagged = 0;
	double occ_w = 0;
	int64_t occ_d = 0;
	uint32_t looked = 0;
	for (uint32_t i = 0; i < kr->n && looked < TT_ADVICE_TOP_KERNELS; i++) {
		const struct kernel_row *k = &kr->rows[i];
		if (c->names[k->name] & N_COMM_KERNEL)
			continue; /* collectives run a block per channel by design */
		looked++;
		double occ = kernel_known_occupancy(k), bps = kernel_mean_bps(k);
		bool low = (!isnan(occ) && occ < TT_ADVICE_OCCUPANCY_MIN) ||
		           (!isnan(bps) && bps < TT_ADVICE_BLOCKS_PER_SM_MIN);
		if (!low)
			continue;
		flagged += k->total;
		if (!isnan(occ)) {
			occ_w += occ * (double)k->total;
			occ_d += k->total;
		}
		const struct slice *s =
			k->longest.track != TT_NONE ? &c->t->tracks[k->longest.track].slices[k->longest.idx] : NULL;
		struct advice_instance x = advice_instance_of(
			k->longest, s ? s->ts : 0, s ? tt_add(s->ts, slice_dur(&c->t->tracks[k->longest.track], s)) : 0,
			k->total);
		advice_topk_add(&c->tk[ADV_LOW_OCCUPANCY], &x);
	}
	double kshare = advice_share(flagged, kr->total);
	if (!(kshare >= TT_ADVICE_KERNEL_SHARE_MIN) ||
	    !(advice_share(flagged, c->wall) >= TT_ADVICE_OCCUPANCY_STEP_MIN))
		return;
	double occ = occ_d > 0 ? occ_w / (double)occ_d : NAN;
	double score = TT_ADVICE_OCCUPANCY_GAIN * advice_share(flagged, c->wall);
	struct advice_finding *f = add_finding(c, ADV_LOW_OCCUPANCY, occ, score > 1 ? 1 : score, ADV_MEDIUM);
	char a[32], d[48];
	if (isnan(occ))
		snprintf(
			f->symptom, sizeof f->symptom,
			"%llu of the %u longest kernels (%s of kernel time, %s) run fewer blocks than SMs; threshold: under "
			"%.0f block per SM, on %.0f%% of the steps' time or more",
			(unsigned long long)f->count, looked, advice_pct(kshare, a, sizeof a),
			timefmt_dur(flagged, d, sizeof d), TT_ADVICE_BLOCKS_PER_SM_MIN,
			100 * TT_ADVICE_OCCUPANCY_STEP_MIN);
	else
		snprintf(
			f->symptom, sizeof f->symptom,
			"%llu of the %u longest kernels (%s of kernel time, %s) run at a mean est. achieved occupancy of "
			"%.1f%% or with fewer blocks than SMs; threshold: under %.0f%%, on %.0f%% of the steps' time or more",
			(unsigned long long)f->count, looked, advice_pct(kshare, a, sizeof a),
			timefmt_dur(flagged, d, sizeof d), occ, TT_ADVICE_OCCUPANCY_MIN,
			100 * TT_ADVICE_OCCUPANCY_STEP_MIN);
	snprintf(f->cause, sizeof f->cause, "%s", advice_rule_info(ADV_LOW_OCCUPANCY)->cause);
	const struct compiled_facts cf = *compiled_of(c);
	if (cf.compiled || cf.partly_compiled) /* the rule's example compiles the model: it is, in part */
		f->example = "mode='max-autotune' in the existing torch.compile call   # tunes the Triton kernels' "
			     "block sizes; or a larger batch_size";
	snprintf(
		f->confidence_why, sizeof f->confidence_why, "%s",
		"Kineto's occupancy is an estimate from the launch shape; whether it limits speed depends on the kernel");
}

static void rule_communication(struct ctx *c)
{
	double fig;
	if (c->g->ndevices > 0) {
		fig = advice_share(c->sum[ADV_EXPOSED_COMMUNICATION], c->wlen);
	} else {
		uint32_t n = spans_merge(c->comm_ops, c->ncomm_ops);
		fig = advice_share(spans_within(c->comm_ops, n, c->w0, c->w1), c->wlen);
	}
	if (!(fig > TT_ADVICE_COMM_EXPOSED_MAX))
		return;
	struct advice_finding *f = add_finding(c, ADV_EXPOSED_COMMUNICATION, fig, fig, ADV_MEDIUM);
	char a[32], b[32];
	snprintf(f->symptom, sizeof f->symptom,
	         "%s not hidden by compute take %s of the steps' time; threshold: over %s",
	         c->g->ndevices > 0 ? "collective kernels" : "collective ops (no GPU)", advice_pct(fig, a, sizeof a),
	         advice_pct(TT_ADVICE_COMM_EXPOSED_MAX, b, sizeof b));
	snprintf(f->cause, sizeof f->cause, "%s", advice_rule_info(ADV_EXPOSED_COMMUNICATION)->cause);
	snprintf(f->confidence_why, sizeof f->confidence_why, "%s",
	         "one rank cannot tell transfer from waiting for the others: load every rank's trace");
}

static void rule_allreduce(struct ctx *c)
{
	double fig = advice_share(c->sum[ADV_ALLREDUCE_AFTER_BACKWARD], c->wlen);
	if (!(fig > TT_ADVICE_ALLREDUCE_EXPOSED_MAX))
		return;
	struct advice_finding *f =
		add_finding(c, ADV_ALLREDUCE_AFTER_BACKWARD, fig, fig, c->has_ddp ? ADV_MEDIUM : ADV_LOW);
	char a[32], b[32], d[48];
	snprintf(f->symptom, sizeof f->symptom,
	         "%llu AllReduce kernel%s run%s mostly alone: %s not hidden by compute (%s of the steps' time); "
	         "threshold: over %s",
	         (unsigned long long)f->count, f->count == 1 ? "" : "s", f->count == 1 ? "s" : "",
	         timefmt_dur(c->sum[ADV_ALLREDUCE_AFTER_BACKWARD], d, sizeof d), advice_pct(fig, a, sizeof a),
	         advice_pct(TT_ADVICE_ALLREDUCE_EXPOSED_MAX, b, sizeof b));
	snprintf(f->cause, sizeof f->cause, "%s", advice_rule_info(ADV_ALLREDUCE_AFTER_BACKWARD)->cause);
	snprintf(f->confidence_why, sizeof f->confidence_why, "%s",
	         c->has_ddp ? "the trace runs DistributedDataParallel, whose gradient AllReduce this is likely to be"
	                    : "no DistributedDataParallel in the trace: the AllReduce may not be a gradient sync");
}

static void rule_other(struct ctx *c, const struct step_report *sr)
{
	if (c->t->legacy || sr->dur_avg <= 0)
		return; /* the legacy exporter writes no categories: every instant would be Other */
	/* a trace that records no CPU operator (GPU activity only, or not PyTorch's) has no
	 * Other of the user's code: only what the profiler did not record */
	bool ops = false;
	for (uint32_t ti = 0; ti < c->t->ntracks && !ops; ti++)
		for (uint32_t i = 0; i < c->t->tracks[ti].nslices && !ops; i++)
			ops = slice_cls(c->t, &c->t->tracks[ti].slices[i]) == SC_CPU_OP;
	if (!ops)
		return;
	/* over the steps of the window (warm-up set aside) */
	int64_t other = 0, dur = 0;
	uint32_t first = 0, nsteady = 0;
	while (first < sr->n && sr->steps[first].start < c->w0 && c->r->warmup_steps > 0)
		first++;
	for (uint32_t i = first; i < sr->n; i++, nsteady++) {
		other = tt_add(other, sr->steps[i].role[ROLE_OTHER]);
		dur = tt_add(dur, sr->steps[i].end - sr->steps[i].start);
	}
	double fig = first == 0 ? sr->role_avg[ROLE_OTHER] / sr->dur_avg : advice_share(other, dur);
	if (!(fig > TT_ADVICE_OTHER_MAX))
		return;
	for (uint32_t i = first; i < sr->n; i++) {
		struct advice_instance x = advice_instance_of(advice_no_ref, sr->steps[i].start, sr->steps[i].end,
		                                              sr->steps[i].role[ROLE_OTHER]);
		advice_topk_add(&c->tk[ADV_LARGE_OTHER_SHARE], &x);
	}
	bool python = false;
	for (uint32_t ti = 0; ti < c->t->ntracks && !python; ti++)
		for (uint32_t i = 0; i < c->t->tracks[ti].nslices && i < 4096 && !python; i++)
			python = slice_cls(c->t, &c->t->tracks[ti].slices[i]) == SC_PYTHON;
	uint32_t over = steps_over(sr, first, ROLE_OTHER, TT_ADVICE_OTHER_MAX);
	struct advice_finding *f = add_finding(c, ADV_LARGE_OTHER_SHARE, fig, fig, over >= 2 ? ADV_MEDIUM : ADV_LOW);
	char a[32], b[32];
	snprintf(f->symptom, sizeof f->symptom,
	         "%s of the mean step runs no kernel, copy, runtime call or operator (%u of %u steps over the "
	         "threshold); threshold: over %s",
	         advice_pct(fig, a, sizeof a), over, nsteady, advice_pct(TT_ADVICE_OTHER_MAX, b, sizeof b));
	snprintf(f->cause, sizeof f->cause, "%s%s", advice_rule_info(ADV_LARGE_OTHER_SHARE)->cause,
	         python ? "; the trace has Python frames (python_function): the time is in them"
	                : "; the trace has no Python frames to say which code");
	snprintf(f->confidence_why, sizeof f->confidence_why, "%s",
	         over >= 2           ? "several steps have it"
	         : c->t->nsteps == 0 ? "no profiler steps: the whole trace is one window; a one-off?"
	                             : "a single step has it: a one-off?");
}

static void rule_memory(struct ctx *c)
{
	const struct memory_report *mr = trace_memory_curves(c->t);
	const struct mem_device *frag = NULL, *grow = NULL, *cap = NULL;
	double frag_x = 0, grow_x = 0, cap_x = 0;
	int64_t frag_unused = 0, frag_ts = 0, frag_res = 0, grow_first = 0, grow_last = 0, cap_total = 0;
	uint32_t grow_steps = 0, grow_rises = 0;
	for (uint32_t d = 0; d < mr->ndevices; d++) {
		const struct mem_device *md = &mr->devices[d];
		if (md->type == 0 || md->n == 0)
			continue; /* the host's memory is not the GPU's */
		/* fragmentation: what the allocator reserved beyond the most it ever had allocated */
		int64_t best = md->peak_reserved - md->peak_allocated, best_res = md->peak_reserved;
		int64_t best_ts = md->peak_reserved_ts;
		double fx = best_res > 0 ? (double)best / (double)best_res : 0;
		if (fx > TT_ADVICE_FRAGMENTATION_MAX && best >= TT_ADVICE_FRAGMENTATION_MIN_BYTES && fx > frag_x) {
			frag = md;
			frag_x = fx;
			frag_unused = best;
			frag_ts = best_ts;
			frag_res = best_res;
		}
		/* growth: allocated at each step's start */
		int64_t first = -1, last = -1, prev = -1;
		uint32_t valid = 0, rises = 0;
		for (uint32_t k = 0; k < mr->nsteps; k++) {
			int64_t v = md->step_allocated[k];
			if (v < 0)
				continue;
			if (first < 0)
				first = v;
			if (prev >= 0 && v > prev)
				rises++;
			prev = last = v;
			valid++;
		}
		if (valid >= TT_ADVICE_GROWTH_MIN_STEPS && last > first &&
		    (double)(last - first) >= TT_ADVICE_GROWTH_MIN * (double)first &&
		    last - first >= TT_ADVICE_GROWTH_MIN_BYTES && 3 * rises >= 2 * (valid - 1)) {
			double gx = (double)(last - first) / (double)(valid - 1);
			if (gx > grow_x) {
				grow = md;
				grow_x = gx;
				grow_first = first;
				grow_last = last;
				grow_steps = valid;
				grow_rises = rises;
			}
		}
		/* capacity */
		for (uint32_t i = 0; i < c->t->ndevices; i++) {
			const struct device_props *p = &c->t->devices[i];
			if (p->id != md->id || p->total_global_mem <= 0)
				continue;
			double x = (double)md->peak_reserved / (double)p->total_global_mem;
			if (x > TT_ADVICE_CAPACITY_MAX && x > cap_x) {
				cap = md;
				cap_x = x;
				cap_total = p->total_global_mem;
			}
		}
	}
	char a[32], b[32], d[32], e[32], nm[32];
	if (frag != NULL) {
		struct advice_instance x = advice_instance_of(frag->peak_reserved_op, frag_ts, frag_ts, frag_unused);
		advice_topk_add(&c->tk[ADV_MEMORY_FRAGMENTATION], &x);
		struct advice_finding *f =
			add_finding(c, ADV_MEMORY_FRAGMENTATION, frag_x, TT_ADVICE_MEMORY_WEIGHT * frag_x, ADV_MEDIUM);
		f->device = frag->id;
		snprintf(f->symptom, sizeof f->symptom,
		         "%s reserves up to %s, %s (%s) more than it ever allocates at once; threshold: over %s and at "
		         "least %s",
		         memory_device_name(frag, nm, sizeof nm), timefmt_bytes((double)frag_res, a, sizeof a),
		         timefmt_bytes((double)frag_unused, b, sizeof b), advice_pct(frag_x, d, sizeof d),
		         advice_pct(TT_ADVICE_FRAGMENTATION_MAX, e, sizeof e), "256 MiB");
		snprintf(f->cause, sizeof f->cause, "%s", advice_rule_info(ADV_MEMORY_FRAGMENTATION)->cause);
		snprintf(f->confidence_why, sizeof f->confidence_why, "%s",
		         "the allocator's own totals; whether it hurts depends on how close the GPU is to full");
	}
	if (grow != NULL) {
		for (uint32_t k = 0; k < mr->nsteps; k++) {
			const struct step *s = &c->t->steps[mr->steps[k]];
			if (grow->step_allocated[k] < 0)
				continue;
			struct advice_instance x =
				advice_instance_of(s->ref, s->ts, tt_add(s->ts, s->dur), grow->step_allocated[k]);
			advice_topk_add(&c->tk[ADV_MEMORY_GROWTH], &x);
		}
		double sx = (double)(grow_last - grow_first) / (double)grow_last;
		struct advice_finding *f = add_finding(c, ADV_MEMORY_GROWTH, grow_x, TT_ADVICE_MEMORY_WEIGHT * sx,
		                                       grow_rises == grow_steps - 1 ? ADV_MEDIUM : ADV_LOW);
		f->device = grow->id;
		f->threshold = TT_ADVICE_GROWTH_MIN_BYTES;
		snprintf(
			f->symptom, sizeof f->symptom,
			"%s: allocated at step start grows from %s to %s over %u steps (%s per step, rising %u times); "
			"threshold: %.0f%% of the first and at least 16 MiB over %d steps or more",
			memory_device_name(grow, nm, sizeof nm), timefmt_bytes((double)grow_first, a, sizeof a),
			timefmt_bytes((double)grow_last, b, sizeof b), grow_steps, timefmt_bytes(grow_x, d, sizeof d),
			grow_rises, 100 * TT_ADVICE_GROWTH_MIN, TT_ADVICE_GROWTH_MIN_STEPS);
		snprintf(f->cause, sizeof f->cause, "%s", advice_rule_info(ADV_MEMORY_GROWTH)->cause);
		snprintf(f->confidence_why, sizeof f->confidence_why, "%s",
		         grow_rises == grow_steps - 1 ? "it rises at every step, but few steps are traced"
		                                      : "it does not rise at every step");
	}
	if (cap != NULL) {
		struct advice_instance x = advice_instance_of(cap->peak_reserved_op, cap->peak_reserved_ts,
		                                              cap->peak_reserved_ts, cap->peak_reserved);
		advice_topk_add(&c->tk[ADV_MEMORY_NEAR_CAPACITY], &x);
		struct advice_finding *f =
			add_finding(c, ADV_MEMORY_NEAR_CAPACITY, cap_x, TT_ADVICE_MEMORY_WEIGHT * cap_x, ADV_HIGH);
		f->device = cap->id;
		snprintf(f->symptom, sizeof f->symptom, "%s reserves up to %s of its %s (%s); threshold: over %s",
		         memory_device_name(cap, nm, sizeof nm), timefmt_bytes((double)cap->peak_reserved, a, sizeof a),
		         timefmt_bytes((double)cap_total, b, sizeof b), advice_pct(cap_x, d, sizeof d),
		         advice_pct(TT_ADVICE_CAPACITY_MAX, e, sizeof e));
		snprintf(f->cause, sizeof f->cause, "%s", advice_rule_info(ADV_MEMORY_NEAR_CAPACITY)->cause);
		snprintf(f->confidence_why, sizeof f->confidence_why, "%s",
		         "the allocator's own peak against the memory the trace's deviceProperties give");
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The median of the N durations D (N >= 1); reorders a copy. */
static int64_t median_of(const int64_t *d, uint32_t n)
{
	int64_t *s = xmalloc(n * sizeof *s);
	memcpy(s, d, n * sizeof *s);
	qsort(s, n, sizeof *s, cmp_i64);
	int64_t m = n % 2 ? s[n / 2] : s[n / 2 - 1] / 2 + s[n / 2] / 2;
	free(s);
	return m;
}

/* How many leading steps of the N step durations D are warm-up: each over
 * TT_ADVICE_WARMUP_RATIO times the median of the steps after it, at least two of which
 * stay. *MEDIAN: the median of the steps that stay. */
static uint32_t warmup_steps(const int64_t *d, uint32_t n, int64_t *median)
{
	uint32_t k = 0;
	*median = 0;
	while (k + 3 <= n) {
		int64_t m = median_of(d + k + 1, n - k - 1);
		if (!(m > 0 && (double)d[k] > TT_ADVICE_WARMUP_RATIO * (double)m))
			break;
		k++;
	}
	if (k > 0)
		*median = median_of(d + k, n - k);
	return k;
}

/* Sets the window's start past the warm-up steps of the N steps [START[i], END[i]) numbered
 * NUM[i], and says so in R. */
static void set_aside_warmup(struct ctx *c, const int64_t *start, const int64_t *end, const int64_t *num, uint32_t n)
{
	if (n < 3)
		return;
	int64_t *d = xmalloc(n * sizeof *d);
	for (uint32_t i = 0; i < n; i++)
		d[i] = end[i] > start[i] ? end[i] - start[i] : 0;
	int64_t median;
	uint32_t k = warmup_steps(d, n, &median);
	free(d);
	if (k == 0 || start[k] <= c->w0)
		return;
	c->r->warmup_steps = k;
	c->r->warmup_first = num[0];
	c->r->warmup_last = num[k - 1];
	c->r->warmup_ns = start[k] - c->w0;
	c->r->steady_median_ns = median;
	c->w0 = start[k];
	c->r->steps -= k;
}

void advice_analyse(struct trace *t, struct advice_report *r)
{
	memset(r, 0, sizeof *r);
	r->nranks = 1;
	struct ctx *c = xcalloc(1, sizeof *c);
	c->t = t;
	c->r = r;
	c->g = &trace_gaps(t, ANALYSIS_DEFAULT_MIN_GAP)->r;
	const struct step_report *sr = trace_steps(t);
	r->has_gpu = c->g->ndevices > 0;
	for (uint32_t d = 0; d < c->g->ndevices; d++)
		if (c->main == NULL || c->g->devices[d].kernel_busy > c->main->kernel_busy)
			c->main = &c->g->devices[d];
	if (r->has_gpu) {
		c->w0 = c->g->tb_start;
		c->w1 = c->g->tb_end;
		r->steps = c->g->nsteps;
	} else {
		/* without GPU work the plugin keeps one step: take the host steps instead */
		uint32_t n = 0;
		for (uint32_t i = 0; i < t->nsteps; i++) {
			const struct step *s = &t->steps[i];
			if (s->gpu)
				continue;
			if (n == 0 || s->ts < c->w0)
				c->w0 = s->ts;
			if (n == 0 || tt_add(s->ts, s->dur) > c->w1)
				c->w1 = tt_add(s->ts, s->dur);
			n++;
		}
		if (n == 0) {
			c->w0 = t->start;
			c->w1 = t->end;
		}
		r->steps = n ? n : 1;
	}
	c->wall = c->w1 > c->w0 ? c->w1 - c->w0 : 0;
	/* the leading warm-up steps are set aside: the findings are over the steady ones */
	uint32_t ns = r->has_gpu ? c->g->nsteps : 0;
	if (!r->has_gpu)
		for (uint32_t i = 0; i < t->nsteps; i++)
			ns += !t->steps[i].gpu;
	if (ns >= 3) {
		int64_t *st = xmalloc(3 * ns * sizeof *st), *en = st + ns, *num = en + ns;
		uint32_t k = 0;
		for (uint32_t i = 0; i < (r->has_gpu ? c->g->nsteps : t->nsteps); i++) {
			if (r->has_gpu) {
				st[k] = c->g->steps[i].start, en[k] = c->g->steps[i].end,
				num[k++] = c->g->steps[i].number;
			} else if (!t->steps[i].gpu) {
				st[k] = t->steps[i].ts, en[k] = tt_add(t->steps[i].ts, t->steps[i].dur);
				num[k++] = t->steps[i].number;
			}
		}
		if (r->steps == k)
			set_aside_warmup(c, st, en, num, k);
		free(st);
	}
	c->wlen = c->w1 > c->w0 ? c->w1 - c->w0 : 0;
	r->window_start = c->w0;
	r->window_end = c->w1;
	if (c->wlen > 0) {
		c->names = classify_names(t);
		/* the CPU threads' sweep on a second thread beside the GPU streams' and the
		 * launches': they read the trace and write figures of different rules (the CPU
		 * sweep's exposed communication only without a GPU: then it runs alone) */
		pthread_t th;
		bool threaded =
			c->g->ndevices > 0 && analysis_split(c->t) && pthread_create(&th, NULL, sweep_cpu_main, c) == 0;
		if (!threaded)
			sweep_cpu(c);
		sweep_gpu(c);
		sweep_launch(c);
		if (threaded)
			pthread_join(th, NULL);
		rule_gpu_utilization(c);
		rule_dataloader(c);
		rule_host_sync(c);
		rule_pageable(c);
		rule_launch(c);
		rule_tensor_cores(c);
		rule_occupancy(c);
		rule_communication(c);
		rule_allreduce(c);
		rule_other(c, sr);
		rule_memory(c);
	}
	advice_limits_trace(t, r);
	if (r->n > 1)
		qsort(r->findings, r->n, sizeof *r->findings, advice_finding_cmp);
	free(c->comm_ops);
	free(c->names);
	free(c);
}

void advice_free(struct advice_report *r)
{
	for (uint32_t i = 0; i < r->n; i++) {
		free(r->findings[i].inst);
		free(r->findings[i].ranks);
	}
	free(r->findings);
	memset(r, 0, sizeof *r);
}
