/* steps.c: the Overview's step figures (see steps.h).
 *
 * Both breakdowns are one operation: given span lists in priority order (each merged) and
 * windows, give each instant of a window to the first list that covers it (priority_sweep).
 * The role lists are built once from every complete event, as the TensorBoard plugin
 * classifies them; the phase lists from the markers on CPU threads. Each track is read
 * once: the CPU threads for their roles and the phases, the GPU streams for theirs in a
 * second thread (each with its own lazily filled names). */
#include "src/steps.h"

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/sort.h"
#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "src/analysis_split.h"
#include "src/spans.h"
#include "src/tb_steps.h"

/* clang-format off */
static const char *const role_titles[ROLE__COUNT] = { "Kernel", "Memcpy", "Memset", "Communication",
	                                              "Runtime", "DataLoader", "CPU Exec", "Other" };
static const char *const role_keys[ROLE__COUNT] = { "kernel", "memcpy", "memset", "communication",
	                                            "runtime", "dataloader", "cpu_exec", "other" };
static const char *const phase_titles[PHASE__COUNT] = { "DataLoader", "Forward", "Backward", "Optimizer", "Other" };
static const char *const phase_keys[PHASE__COUNT] = { "dataloader", "forward", "backward", "optimizer", "other" };
static const char *const source_names[PSRC__COUNT] = { "label",         "enumerate(DataLoader)",
	                                               "DDP.forward",   "nn.Module",
	                                               "autograd::engine::evaluate_function",
	                                               "autograd nodes", "Optimizer.step",
	                                               "before backward" };
/* clang-format on */

const char *step_role_title(enum step_role r) { return r < ROLE__COUNT ? role_titles[r] : "?"; }
const char *step_role_key(enum step_role r) { return r < ROLE__COUNT ? role_keys[r] : "?"; }
const char *step_phase_title(enum step_phase p) { return p < PHASE__COUNT ? phase_titles[p] : "?"; }
const char *step_phase_key(enum step_phase p) { return p < PHASE__COUNT ? phase_keys[p] : "?"; }

const char *phase_source_text(unsigned src, char *buf, size_t n)
{
	size_t len = 0;
	if (n == 0)
		return buf;
	buf[0] = '\0';
	if (src == 0) {
		snprintf(buf, n, "unknown");
		return buf;
	}
	for (int i = 0; i < PSRC__COUNT; i++)
		if (src & 1u << i) {
			int w = snprintf(buf + len, n - len, "%s%s", len ? "+" : "", source_names[i]);
			if (w < 0 || (size_t)w >= n - len)
				break;
			len += (size_t)w;
		}
	return buf;
}

double step_tflops(const struct step_stats *s)
{
	if (s->flop_ops == 0 || s->end <= s->start)
		return NAN;
	return (double)s->flops / (double)(s->end - s->start) / 1e3; /* flop/ns = GFLOP/s */
}

/* ---- what the plugin makes of an event's category ------------------------------------ */

/* clang-format off */
enum plugin_type { PT_NONE, PT_OPERATOR, PT_USER_ANNOTATION, PT_PYTHON, PT_RUNTIME, PT_KERNEL, PT_MEMCPY, PT_MEMSET,
	           PT_UNSEEN = 0xff };
/* clang-format on */

/* torch_tb_profiler's EventTypeMap, which lowercases the category first */
static enum plugin_type plugin_type_of(const char *cat, uint32_t n)
{
	/* clang-format off */
	static const struct {
		const char *cat;
		enum plugin_type type;
	} map[] = {
		{ "cpu_op", PT_OPERATOR },          { "operator", PT_OPERATOR },
		{ "user_annotation", PT_USER_ANNOTATION }, { "gpu_user_annotation", PT_USER_ANNOTATION },
		{ "python", PT_PYTHON },            { "runtime", PT_RUNTIME },
		{ "cuda_runtime", PT_RUNTIME },     { "mtia_runtime", PT_RUNTIME },
		{ "glow_runtime", PT_RUNTIME },     { "xpu_runtime", PT_RUNTIME },
		{ "privateuse1_runtime", PT_RUNTIME }, { "kernel", PT_KERNEL },
		{ "memcpy", PT_MEMCPY },            { "gpu_memcpy", PT_MEMCPY },
		{ "memset", PT_MEMSET },            { "gpu_memset", PT_MEMSET },
	};
	/* clang-format on */
	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if (strlen(map[i].cat) == n && strncasecmp(map[i].cat, cat, n) == 0)
			return map[i].type;
	return PT_NONE;
}

/* ---- what a name marks ----------------------------------------------------------------- */

enum {
	NF_COMM = 1 << 0,          /* nccl:/gloo: broadcast, reduce, all_reduce, all_gather, reduce_scatter */
	NF_DATALOADER_TB = 1 << 1, /* the plugin's DataLoader role */
	NF_DATALOADER = 1 << 2,    /* enumerate(DataLoader)#... / enumerate(DataPipe)#... */
	NF_PROFILER_STEP = 1 << 3,
	NF_LABEL_DATALOADER = 1 << 4,
	NF_LABEL_FORWARD = 1 << 5,
	NF_LABEL_BACKWARD = 1 << 6,
	NF_LABEL_OPTIMIZER = 1 << 7,
	NF_DDP_FORWARD = 1 << 8,
	NF_MODULE = 1 << 9,
	NF_AUTOGRAD = 1 << 10,
	NF_AUTOGRAD_NODE = 1 << 11,
	NF_OPTIMIZER = 1 << 12,
	NF_UNSEEN = 1 << 15,
};

static bool starts(const char *s, uint32_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && memcmp(s, prefix, k) == 0;
}

static bool ends(const char *s, uint32_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* Which phase a record_function label names: its text without surrounding '#' and spaces,
 * in lower case, is one of the words below. */
static unsigned label_flags(const char *s, uint32_t n)
{
	/* clang-format off */
	static const struct {
		unsigned flag;
		const char *words[12];
	} labels[] = {
		{ NF_LABEL_DATALOADER, { "dataloader", "data_loader", "data loader", "data_loading", "data loading",
		                         "dataloading", "load_data", "load data", "copy_batch_to_gpu", "wait_for_batch" } },
		{ NF_LABEL_FORWARD, { "forward", "fwd", "forward_pass", "forward pass", "model_forward" } },
		{ NF_LABEL_BACKWARD, { "backward", "bwd", "backward_pass", "backward pass", "loss.backward" } },
		{ NF_LABEL_OPTIMIZER, { "optimizer", "optim", "optimizer_step", "optimizer step", "optimizer.step",
		                        "opt_step", "zero_grad", "optimizer.zero_grad", "optimizer_zero_grad" } },
	};
	/* clang-format on */
	char low[32];
	while (n > 0 && (*s == '#' || *s == ' '))
		s++, n--;
	while (n > 0 && (s[n - 1] == '#' || s[n - 1] == ' '))
		n--;
	if (n == 0 || n >= sizeof low)
		return 0;
	for (uint32_t i = 0; i < n; i++)
		low[i] = (char)tolower((unsigned char)s[i]);
	low[n] = '\0';
	for (size_t k = 0; k < sizeof labels / sizeof *labels; k++)
		for (size_t w = 0; w < 12 && labels[k].words[w] != NULL; w++)
			if (strcmp(low, labels[k].words[w]) == 0)
				return labels[k].flag;
	return 0;
}

static unsigned name_flags_of(const char *s, uint32_t n)
{
	static const char *const comm[] = { "broadcast", "reduce", "all_reduce", "all_gather", "reduce_scatter" };
	unsigned f = 0;
	if (starts(s, n, "nccl:") || starts(s, n, "gloo:"))
		for (size_t i = 0; i < sizeof comm / sizeof *comm; i++)
			if (n - 5 == strlen(comm[i]) && memcmp(s + 5, comm[i], n - 5) == 0)
				f |= NF_COMM;
	if (starts(s, n, "enumerate(DataLoader)#") || starts(s, n, "enumerate(DataPipe)#")) {
		f |= NF_DATALOADER;
		if (starts(s, n, "enumerate(DataPipe)#") || ends(s, n, ".__next__"))
			f |= NF_DATALOADER_TB;
	}
	if (starts(s, n, "ProfilerStep#"))
		f |= NF_PROFILER_STEP;
	if ((n == strlen("DistributedDataParallel.forward") && starts(s, n, "DistributedDataParallel.forward")) ||
	    (n == strlen("DataParallel.forward") && starts(s, n, "DataParallel.forward")))
		f |= NF_DDP_FORWARD;
	if (starts(s, n, "nn.Module: "))
		f |= NF_MODULE;
	if (starts(s, n, "autograd::engine::evaluate_function: "))
		f |= NF_AUTOGRAD;
	else {
		/* an autograd node: AddmmBackward0, CudnnConvolutionBackward, ... */
		uint32_t k = n;
		while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9')
			k--;
		if (k > 8 && memcmp(s + k - 8, "Backward", 8) == 0 && memchr(s, ' ', n) == NULL)
			f |= NF_AUTOGRAD_NODE;
	}
	if (starts(s, n, "Optimizer.step#") || starts(s, n, "Optimizer.zero_grad#"))
		f |= NF_OPTIMIZER;
	f |= label_flags(s, n);
	return f;
}

/* Lazily filled tables by string id: categories' plugin types, names' flags. */
struct names {
	const struct trace *t;
	uint8_t *type;
	uint16_t *flags;
};

static enum plugin_type type_of(struct names *nm, uint32_t cat)
{
	if (nm->type[cat] == PT_UNSEEN)
		nm->type[cat] =
			(uint8_t)plugin_type_of(strtab_get(&nm->t->strings, cat), strtab_len(&nm->t->strings, cat));
	return (enum plugin_type)nm->type[cat];
}

static unsigned flags_new(struct names *nm, uint32_t name)
{
	return nm->flags[name] =
	               (uint16_t)name_flags_of(strtab_get(&nm->t->strings, name), strtab_len(&nm->t->strings, name));
}

/* The flags of name NAME, memoised in NM (read for every slice of the CPU threads). */
static inline unsigned flags_of(struct names *nm, uint32_t name)
{
	return nm->flags[name] & NF_UNSEEN ? flags_new(nm, name) : nm->flags[name];
}

/* ---- span lists ------------------------------------------------------------------------ */

struct spanv {
	struct span *v;
	uint32_t n, cap;
};

/* Adds [A, B) to S, a union: an empty span adds nothing, and one that overlaps or touches
 * the last added joins it (a thread's slices come in start order, most nested in the one
 * before), so that S stays near the size of the union rather than of the trace. The list
 * is still to be merged (spans_merge), which gives the same union either way. */
static void spanv_grow(struct spanv *s)
{
	s->v = xreallocarray(s->v, s->cap = s->cap ? s->cap * 2 : 256, sizeof *s->v);
}

static inline void spanv_add(struct spanv *s, int64_t a, int64_t b)
{
	if (b <= a)
		return;
	if (s->n > 0 && a <= s->v[s->n - 1].end && b >= s->v[s->n - 1].start) {
		struct span *l = &s->v[s->n - 1];
		if (a < l->start)
			l->start = a;
		if (b > l->end)
			l->end = b;
		return;
	}
	if (s->n == s->cap)
		spanv_grow(s);
	s->v[s->n++] = (struct span){ a, b };
}

/* The first span of U (merged, N) that ends after T. */
static uint32_t first_ending_after(const struct span *u, uint32_t n, int64_t t)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (u[mid].end > t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* A stretch of a window in which the first list covering each instant does not change. */
struct piece {
	int64_t start, end;
	uint32_t window;
	int list; /* K: none */
};

struct piecev {
	struct piece *v;
	uint32_t n, cap;
};

/* For each window W[i], the time of each instant in it given to the first of the K lists
 * L (merged) that covers it, or to slot K when none: COST[i * (K + 1) + k] (added to).
 * With OUT, also the stretches of constant answer, in the windows' order. */
static void priority_sweep(const struct spanv *l, int k, const struct span *w, uint32_t nw, int64_t *cost,
                           struct piecev *out)
{
	uint32_t idx[16];
	for (uint32_t i = 0; i < nw; i++) {
		int64_t x = w[i].start, b = w[i].end;
		int64_t *c = &cost[(size_t)i * (size_t)(k + 1)];
		for (int r = 0; r < k; r++)
			idx[r] = first_ending_after(l[r].v, l[r].n, x);
		while (x < b) {
			int best = k;
			int64_t next = b;
			for (int r = 0; r < k; r++) {
				while (idx[r] < l[r].n && l[r].v[idx[r]].end <= x)
					idx[r]++;
				if (idx[r] == l[r].n)
					continue;
				const struct span *s = &l[r].v[idx[r]];
				if (s->start <= x) {
					best = r; /* the first to cover x wins until it ends or a better one starts */
					if (s->end < next)
						next = s->end;
					break;
				}
				if (s->start < next)
					next = s->start;
			}
			c[best] += next - x;
			if (out != NULL) {
				struct piece *last = out->n > 0 ? &out->v[out->n - 1] : NULL;
				if (last != NULL && last->window == i && last->list == best && last->end == x)
					last->end = next;
				else {
					if (out->n == out->cap)
						out->v = xreallocarray(out->v, out->cap = out->cap ? out->cap * 2 : 256,
						                       sizeof *out->v);
					out->v[out->n++] = (struct piece){ x, next, i, best };
				}
			}
			x = next;
		}
	}
}

/* The first piece of P (N, in time order) that ends after T. */
static uint32_t first_piece_after(const struct piece *p, uint32_t n, int64_t t)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (p[mid].end > t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* The first of the K lists L (merged) with a span holding T (start <= t < end), or K. */
static int first_covering(const struct spanv *l, int k, int64_t t)
{
	for (int r = 0; r < k; r++) {
		uint32_t i = first_ending_after(l[r].v, l[r].n, t);
		if (i < l[r].n && l[r].v[i].start <= t)
			return r;
	}
	return k;
}

/* The step of S (N, host spans in start order) whose host span holds T, or N: *NEAR, the
 * step the last call found (N at first), is tried before a binary search, for times that
 * come mostly in order (a thread's slices). */
static uint32_t host_step_near(const struct step_stats *s, uint32_t n, int64_t t, uint32_t *near)
{
	uint32_t k = *near;
	if (k < n && s[k].host_start <= t && (k + 1 == n || s[k + 1].host_start > t))
		return t >= s[k].host_end ? n : k;
	uint32_t lo = 0, hi = n;
	while (lo < hi) { /* last step starting at or before t */
		uint32_t mid = lo + (hi - lo) / 2;
		if (s[mid].host_start <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return n;
	*near = lo - 1;
	return t >= s[lo - 1].host_end ? n : lo - 1;
}

/* host_step_near without a last step. */
static uint32_t host_step_of(const struct step_stats *s, uint32_t n, int64_t t)
{
	uint32_t near = n;
	return host_step_near(s, n, t, &near);
}

static int i64_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The External ids of the communication ops (the plugin's: PYTHON, OPERATOR or
 * USER_ANNOTATION events named nccl:/gloo: broadcast, reduce, ...), sorted. */
static int64_t *comm_external_ids(const struct trace *t, struct names *nm, uint32_t *nout)
{
	int64_t *v = xmalloc((t->ncomm_ops ? t->ncomm_ops : 1) * sizeof *v);
	uint32_t n = 0;
	for (uint32_t i = 0; i < t->ncomm_ops; i++) {
		const struct comm_op *c = &t->comm_ops[i];
		enum plugin_type ty = type_of(nm, c->cat);
		if ((ty == PT_OPERATOR || ty == PT_USER_ANNOTATION || ty == PT_PYTHON) &&
		    flags_of(nm, c->name) & NF_COMM)
			v[n++] = c->external_id;
	}
	if (n > 1)
		qsort(v, n, sizeof *v, i64_cmp);
	*nout = n;
	return v;
}

static bool has_id(const int64_t *v, uint32_t n, int64_t id)
{
	if (id < 0)
		return false;
	uint32_t i = i64_lower_bound(v, n, id); /* inline: a bsearch call per kernel showed in profiles */
	return i < n && v[i] == id;
}

static void names_init(struct names *nm, const struct trace *t)
{
	uint32_t n = t->strings.n ? t->strings.n : 1;
	nm->t = t;
	nm->type = xmalloc(n);
	nm->flags = xmalloc(n * sizeof *nm->flags);
	memset(nm->type, PT_UNSEEN, n);
	for (uint32_t i = 0; i < n; i++)
		nm->flags[i] = NF_UNSEEN;
}

static void names_free(struct names *nm)
{
	free(nm->type);
	free(nm->flags);
}

/* ---- the analysis -------------------------------------------------------------------- */

/* Whether S, on TR, is an event of the legacy exporter (torch < 2 without Kineto), which
 * writes no category: every slice on a CPU thread is an operator (record_function labels,
 * DataLoader and optimizer markers included), and is taken as the plugin takes the
 * Operator category of the traces that have one. */
static bool legacy_op(const struct trace *t, const struct track *tr, const struct slice *s)
{
	return t->legacy && slice_cls(t, s) == SC_OTHER && tr->kind == TRACK_CPU;
}

/* The plugin's type of slice S on TR: by its category, but for what the plugin has no
 * category for: the legacy exporter's operators (legacy_op), and MTIA's device work
 * (category mtia_ccp_events), the kernels and copies of an accelerator (the builder's
 * class, from the parser) that the plugin, which knows only kernel/memcpy/memset, never
 * counted. */
static enum plugin_type slice_type(const struct trace *t, struct names *nm, const struct track *tr,
                                   const struct slice *s)
{
	if (legacy_op(t, tr, s))
		return PT_OPERATOR;
	uint32_t cat = slice_cat(t, s);
	enum plugin_type ty = type_of(nm, cat);
	if (ty == PT_NONE && (slice_cls(t, s) == SC_KERNEL || slice_cls(t, s) == SC_MEMCPY) &&
	    starts(strtab_get(&t->strings, cat), strtab_len(&t->strings, cat), "mtia_"))
		return slice_cls(t, s) == SC_KERNEL ? PT_KERNEL : PT_MEMCPY;
	return ty;
}

/* slice_type from the types of T's categories by index (IX_TYPE, made by ix_types): for a
 * loop over every slice of the CPU threads. */
static inline enum plugin_type slice_type_by_ix(const struct trace *t, struct names *nm, const struct track *tr,
                                                const struct slice *s, const uint8_t *ix_type)
{
	if (legacy_op(t, tr, s))
		return PT_OPERATOR;
	enum plugin_type ty = (enum plugin_type)ix_type[slice_cat_ix(t, s)];
	return ty == PT_NONE && (slice_cls(t, s) == SC_KERNEL || slice_cls(t, s) == SC_MEMCPY)
	               ? slice_type(t, nm, tr, s)
	               : ty;
}

/* The plugin's type of each of T's categories, by index into trace.cats (256). */
static void ix_types(const struct trace *t, struct names *nm, uint8_t *ix_type)
{
	for (uint32_t i = 0; i < 256; i++)
		ix_type[i] = i < t->ncats ? (uint8_t)type_of(nm, t->cats[i]) : (uint8_t)PT_NONE;
}

/* The plugin's role of slice S of type TY (comm: the collectives' External ids, NCOMM), or -1. */
static inline __attribute__((always_inline)) int role_typed(const struct trace *t, struct names *nm,
                                                            const int64_t *comm, uint32_t ncomm, const struct track *tr,
                                                            const struct slice *s, enum plugin_type ty)
{
	if (slice_flags(t, s) & SF_FROM_BE)
		return -1; /* the plugin reads complete (X) events only */
	switch (ty) {
	case PT_KERNEL:
		return slice_gpu(tr, s) != TT_NONE && has_id(comm, ncomm, gpu_external_id(t, &t->gpu[slice_gpu(tr, s)]))
		               ? ROLE_COMM
		               : ROLE_KERNEL;
	case PT_MEMCPY: return ROLE_MEMCPY;
	case PT_MEMSET: return ROLE_MEMSET;
	case PT_RUNTIME: return ROLE_RUNTIME;
	case PT_OPERATOR:
	case PT_USER_ANNOTATION: {
		unsigned f = flags_of(nm, slice_name(t, s));
		return f & NF_PROFILER_STEP   ? -1
		       : f & NF_DATALOADER_TB ? ROLE_DATALOADER
		       : f & NF_COMM          ? ROLE_COMM
		                              : ROLE_CPU_EXEC;
	}
	case PT_PYTHON: return flags_of(nm, slice_name(t, s)) & NF_COMM ? ROLE_COMM : ROLE_CPU_EXEC;
	default: return -1;
	}
}

/* The plugin's role of slice S (comm: the collectives' External ids, NCOMM), or -1. */
static int role_of(const struct trace *t, struct names *nm, const int64_t *comm, uint32_t ncomm, const struct track *tr,
                   const struct slice *s)
{
	return role_typed(t, nm, comm, ncomm, tr, s, slice_type(t, nm, tr, s));
}

/* The role lists (ROLE_OTHER of them) of the tracks other than CPU threads: a second
 * thread makes them while the first reads the CPU threads (phases). */
struct gpu_roles_job {
	const struct trace *t;
	const int64_t *comm;
	uint32_t ncomm;
	struct spanv l[ROLE_OTHER];
};

static void *gpu_roles_main(void *arg)
{
	struct gpu_roles_job *j = arg;
	const struct trace *t = j->t;
	struct names nm;
	names_init(&nm, t);
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		if (tr->kind == TRACK_CPU)
			continue;
		for (uint32_t i = 0; i < tr->nslices; i++) {
			if (i + TT_PREFETCH_AHEAD < tr->nslices) /* a kernel's External id, read by role_of */
				gpu_fact_prefetch(t, track_gpu_at(tr, i + TT_PREFETCH_AHEAD));
			int role = role_of(t, &nm, j->comm, j->ncomm, tr, &tr->slices[i]);
			if (role >= 0)
				spanv_add(&j->l[role], tr->slices[i].ts,
				          tt_add(tr->slices[i].ts, slice_dur(tr, &tr->slices[i])));
		}
	}
	names_free(&nm);
	return NULL;
}

/* The step roles from the lists of both threads (CPU and the others: A and B, freed). */
static void roles(struct spanv *a, struct spanv *b, struct step_report *r)
{
	for (int k = 0; k < ROLE_OTHER; k++) {
		/* one list: the union does not care which came first; the shorter is copied into
		 * the longer (a role lies mostly on one side) */
		if (b[k].n > a[k].n) {
			struct spanv x = a[k];
			a[k] = b[k];
			b[k] = x;
		}
		if (b[k].n > 0) {
			if (a[k].n + b[k].n > a[k].cap)
				a[k].v = xreallocarray(a[k].v, a[k].cap = a[k].n + b[k].n, sizeof *a[k].v);
			memcpy(a[k].v + a[k].n, b[k].v, b[k].n * sizeof *b[k].v);
			a[k].n += b[k].n;
		}
		free(b[k].v);
		a[k].n = spans_merge(a[k].v, a[k].n);
	}
	r->has_communication = a[ROLE_COMM].n > 0;
	struct span *w = xmalloc((r->n ? r->n : 1) * sizeof *w);
	int64_t *cost = xcalloc((size_t)(r->n ? r->n : 1) * ROLE__COUNT, sizeof *cost);
	for (uint32_t i = 0; i < r->n; i++)
		w[i] = (struct span){ r->steps[i].start, r->steps[i].end };
	priority_sweep(a, ROLE_OTHER, w, r->n, cost, NULL);
	for (uint32_t i = 0; i < r->n; i++)
		memcpy(r->steps[i].role, &cost[(size_t)i * ROLE__COUNT], sizeof r->steps[i].role);
	for (int k = 0; k < ROLE_OTHER; k++)
		free(a[k].v);
	free(w);
	free(cost);
}

/* Each phase's spans in priority order: DataLoader, Optimizer, Backward, Forward. */
enum { PL_DATALOADER, PL_OPTIMIZER, PL_BACKWARD, PL_FORWARD, PL__COUNT };
static const enum step_phase phase_of_list[PL__COUNT + 1] = { PHASE_DATALOADER, PHASE_OPTIMIZER, PHASE_BACKWARD,
	                                                      PHASE_FORWARD, PHASE_OTHER };

/* The phases of R's steps; the CPU threads' role lists (ROLE_OTHER, ROLE_L) on the way,
 * in the same read of their slices (COMM, NCOMM: the collectives' External ids). */
static void phases(const struct trace *t, struct names *nm, const int64_t *comm, uint32_t ncomm, struct step_report *r,
                   struct spanv *role_l)
{
	struct spanv l[PL__COUNT] = { { 0 } };
	unsigned src[PL__COUNT] = { 0 };
	uint32_t n = r->n;
	/* backward from the autograd engine: per host step, from the first function to the
	 * end of the last (hull[0]); autograd nodes (hull[1]) serve only when no
	 * evaluate_function is anywhere in the trace */
	bool any_autograd = false;
	unsigned hull_src[2] = { 0 };
	struct span *hull[2];
	for (int h = 0; h < 2; h++) {
		hull[h] = xmalloc((n ? n : 1) * sizeof *hull[h]);
		for (uint32_t i = 0; i < n; i++)
			hull[h][i] = (struct span){ INT64_MAX, INT64_MIN };
	}
	uint8_t ix_type[256];
	ix_types(t, nm, ix_type);
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		if (tr->kind != TRACK_CPU)
			continue;
		uint32_t near = n;
		for (uint32_t i = 0; i < tr->nslices; i++) {
			const struct slice *s = &tr->slices[i];
			int64_t end = tt_add(s->ts, slice_dur(tr, s));
			int role = role_typed(t, nm, comm, ncomm, tr, s, slice_type_by_ix(t, nm, tr, s, ix_type));
			if (role >= 0)
				spanv_add(&role_l[role], s->ts, end);
			unsigned f = flags_of(nm, slice_name(t, s));
			if (f == 0)
				continue;
			bool legacy = legacy_op(t, tr, s);
			bool op = slice_cls(t, s) == SC_CPU_OP || slice_cls(t, s) == SC_USER_ANNOTATION || legacy;
			if (op && f & NF_DATALOADER) {
				spanv_add(&l[PL_DATALOADER], s->ts, end);
				src[PL_DATALOADER] |= PSRC_DATALOADER;
			}
			if (op && f & NF_LABEL_DATALOADER) {
				spanv_add(&l[PL_DATALOADER], s->ts, end);
				src[PL_DATALOADER] |= PSRC_LABEL;
			}
			if (op && f & NF_OPTIMIZER) {
				spanv_add(&l[PL_OPTIMIZER], s->ts, end);
				src[PL_OPTIMIZER] |= PSRC_OPTIMIZER;
			}
			if (op && f & NF_LABEL_OPTIMIZER) {
				spanv_add(&l[PL_OPTIMIZER], s->ts, end);
				src[PL_OPTIMIZER] |= PSRC_LABEL;
			}
			if (op && f & NF_LABEL_BACKWARD) {
				spanv_add(&l[PL_BACKWARD], s->ts, end);
				src[PL_BACKWARD] |= PSRC_LABEL;
			}
			if (op && f & NF_LABEL_FORWARD) {
				spanv_add(&l[PL_FORWARD], s->ts, end);
				src[PL_FORWARD] |= PSRC_LABEL;
			}
			if (op && f & NF_DDP_FORWARD) {
				spanv_add(&l[PL_FORWARD], s->ts, end);
				src[PL_FORWARD] |= PSRC_DDP_FORWARD;
			}
			if (slice_cls(t, s) == SC_PYTHON && f & NF_MODULE) {
				spanv_add(&l[PL_FORWARD], s->ts, end);
				src[PL_FORWARD] |= PSRC_MODULE;
			}
			any_autograd |= (f & NF_AUTOGRAD) != 0;
			int h = f & NF_AUTOGRAD                                                    ? 0
			        : (slice_cls(t, s) == SC_CPU_OP || legacy) && f & NF_AUTOGRAD_NODE ? 1
			                                                                           : -1;
			if (h < 0)
				continue;
			uint32_t k = host_step_near(r->steps, n, s->ts, &near);
			if (k == n)
				continue;
			if (s->ts < hull[h][k].start)
				hull[h][k].start = s->ts;
			if (end > hull[h][k].end)
				hull[h][k].end = end < r->steps[k].host_end ? end : r->steps[k].host_end;
			hull_src[h] = h == 0 ? PSRC_AUTOGRAD : PSRC_AUTOGRAD_NODE;
		}
	}
	int h = any_autograd ? 0 : 1;
	src[PL_BACKWARD] |= hull_src[h];
	for (uint32_t i = 0; i < n; i++)
		if (hull[h][i].start < hull[h][i].end)
			spanv_add(&l[PL_BACKWARD], hull[h][i].start, hull[h][i].end);
	l[PL_BACKWARD].n = spans_merge(l[PL_BACKWARD].v, l[PL_BACKWARD].n);
	/* forward without a marker of its own: each step up to its first backward */
	bool inferred = false;
	uint8_t *fwd_known = xcalloc(n ? n : 1, 1);
	if (src[PL_FORWARD] == 0 && src[PL_BACKWARD] != 0) {
		for (uint32_t i = 0; i < n; i++) {
			uint32_t j = first_ending_after(l[PL_BACKWARD].v, l[PL_BACKWARD].n, r->steps[i].host_start);
			if (j == l[PL_BACKWARD].n || l[PL_BACKWARD].v[j].start >= r->steps[i].host_end)
				continue;
			int64_t b = l[PL_BACKWARD].v[j].start;
			if (b > r->steps[i].host_start)
				spanv_add(&l[PL_FORWARD], r->steps[i].host_start, b);
			fwd_known[i] = 1;
			inferred = true;
		}
		if (inferred)
			src[PL_FORWARD] = PSRC_BEFORE_BACKWARD;
	}
	for (int k = 0; k < PL__COUNT; k++)
		if (k != PL_BACKWARD)
			l[k].n = spans_merge(l[k].v, l[k].n);

	/* CPU time: the host step's instants by priority */
	struct span *w = xmalloc((n ? n : 1) * sizeof *w);
	int64_t *cost = xcalloc((size_t)(n ? n : 1) * (PL__COUNT + 1), sizeof *cost);
	bool ordered = true; /* host steps in order, apart: then the pieces are in time order */
	for (uint32_t i = 0; i < n; i++) {
		w[i] = (struct span){ r->steps[i].host_start, r->steps[i].host_end };
		ordered &= w[i].start <= w[i].end && (i == 0 || w[i].start >= w[i - 1].end);
	}
	struct piecev pc = { 0 };
	priority_sweep(l, PL__COUNT, w, n, cost, &pc);
	for (int k = 0; k < PL__COUNT; k++)
		r->phase_source[phase_of_list[k]] = src[k];
	for (uint32_t i = 0; i < n; i++) {
		struct step_stats *s = &r->steps[i];
		for (int k = 0; k <= PL__COUNT; k++)
			s->phase_cpu[phase_of_list[k]] = cost[(size_t)i * (PL__COUNT + 1) + (size_t)k];
		s->phase_known = 1u << PHASE_OTHER;
		for (int k = 0; k < PL__COUNT; k++)
			if (src[k] != 0 && (src[k] != PSRC_BEFORE_BACKWARD || fwd_known[i]))
				s->phase_known |= (uint8_t)(1u << phase_of_list[k]);
	}
	/* GPU time: each GPU operation to the phase its launch starts in: the piece that holds
	 * the launch (launches come mostly in time order, so the last piece usually does) */
	uint32_t last = 0;
	struct gpu_walk gw = gpu_walk_start(t);
	struct slice_ref self;
	uint32_t g;
	while (gpu_walk_next(&gw, &g, &self)) {
		const struct gpu_info *gi = &t->gpu[g];
		if (g + TT_PREFETCH_AHEAD < t->ngpu)
			slice_prefetch(t, t->gpu[g + TT_PREFETCH_AHEAD].peer);
		if (gi->peer.track >= t->ntracks || t->tracks[self.track].gpu_slices == 0)
			continue; /* a runtime call's, on a thread (whose slice need not be read) */
		const struct slice *op = &t->tracks[self.track].slices[self.idx];
		if (slice_cls(t, op) != SC_KERNEL && slice_cls(t, op) != SC_MEMCPY && slice_cls(t, op) != SC_MEMSET)
			continue;
		int64_t ts = t->tracks[gi->peer.track].slices[gi->peer.idx].ts;
		uint32_t k;
		int p;
		if (ordered) {
			if (last >= pc.n || ts < pc.v[last].start || ts >= pc.v[last].end) {
				uint32_t j = first_piece_after(pc.v, pc.n, ts);
				if (j == pc.n || pc.v[j].start > ts)
					continue; /* in no host step */
				last = j;
			}
			k = pc.v[last].window;
			p = pc.v[last].list;
		} else {
			k = host_step_of(r->steps, n, ts);
			if (k == n)
				continue;
			p = first_covering(l, PL__COUNT, ts);
		}
		int64_t od = slice_dur(&t->tracks[self.track], op);
		r->steps[k].phase_gpu[phase_of_list[p]] = tt_add(r->steps[k].phase_gpu[phase_of_list[p]], od);
		r->steps[k].gpu_launched = tt_add(r->steps[k].gpu_launched, od);
	}
	for (int k = 0; k < PL__COUNT; k++)
		free(l[k].v);
	free(pc.v);
	free(w);
	free(cost);
	free(hull[0]);
	free(hull[1]);
	free(fwd_known);
}

static void flops(const struct trace *t, struct step_report *r)
{
	r->has_flops = t->nflops > 0;
	for (uint32_t i = 0; i < t->nflops; i++) {
		uint32_t k = host_step_of(r->steps, r->n, t->flops[i].ts);
		if (k == r->n)
			continue;
		r->steps[k].flops = tt_add(r->steps[k].flops, t->flops[i].flops);
		r->steps[k].flop_ops++;
	}
}

void steps_analyse(const struct trace *t, const struct tb_step *steps, uint32_t nsteps, struct step_report *r)
{
	memset(r, 0, sizeof *r);

	uint32_t n = nsteps;
	struct tb_step *found = steps != NULL && nsteps > 0 ? NULL : tb_steps_find(t, &n);
	const struct tb_step *tb = found != NULL ? found : steps;
	r->steps = xcalloc(n, sizeof *r->steps);
	r->n = n;
	for (uint32_t i = 0; i < n; i++) {
		struct step_stats *s = &r->steps[i];
		s->number = tb[i].number;
		s->start = tb[i].start;
		s->end = tb[i].end;
		s->host_start = tb[i].host_start;
		s->host_end = tb[i].host_end;
	}
	free(found);
	for (uint32_t i = 0; i < t->nsteps; i++) {
		r->from_profiler_steps |= !t->steps[i].gpu;
		r->gpu_side_steps += t->steps[i].gpu;
	}
	/* the tracks are read once: the CPU threads for the phases and their roles, the others
	 * (GPU streams) for theirs in a second thread; each with its own names */
	struct names nm;
	names_init(&nm, t);
	uint32_t ncomm;
	int64_t *comm = comm_external_ids(t, &nm, &ncomm);
	struct gpu_roles_job job = { .t = t, .comm = comm, .ncomm = ncomm };
	pthread_t th;
	bool threaded = analysis_split(t) && pthread_create(&th, NULL, gpu_roles_main, &job) == 0;
	if (!threaded)
		gpu_roles_main(&job);
	struct spanv role_l[ROLE_OTHER] = { { 0 } };
	phases(t, &nm, comm, ncomm, r, role_l);
	names_free(&nm);
	if (threaded)
		pthread_join(th, NULL);
	roles(role_l, job.l, r);
	free(comm);
	flops(t, r);

	/* averages over the steps (the plugin's: every kept step counts) */
	int64_t dur_sum = 0;
	double host_sum = 0, gpu_sum = 0, phase_host[PHASE__COUNT] = { 0 }, phase_launched[PHASE__COUNT] = { 0 };
	for (uint32_t i = 0; i < n; i++) {
		const struct step_stats *s = &r->steps[i];
		dur_sum = tt_add(dur_sum, s->end - s->start);
		host_sum += (double)(s->host_end - s->host_start);
		gpu_sum += (double)s->gpu_launched;
		for (int k = 0; k < ROLE__COUNT; k++)
			r->role_avg[k] += (double)s->role[k];
		for (int p = 0; p < PHASE__COUNT; p++)
			if (s->phase_known & 1u << p) {
				r->phase_steps[p]++;
				r->phase_cpu_avg[p] += (double)s->phase_cpu[p];
				r->phase_gpu_avg[p] += (double)s->phase_gpu[p];
				phase_host[p] += (double)(s->host_end - s->host_start);
				phase_launched[p] += (double)s->gpu_launched;
			}
		r->flops_total = tt_add(r->flops_total, s->flops);
	}
	r->dur_avg = (double)dur_sum / n;
	r->host_avg = host_sum / n;
	r->gpu_launched_avg = gpu_sum / n;
	for (int k = 0; k < ROLE__COUNT; k++)
		r->role_avg[k] /= n;
	for (int p = 0; p < PHASE__COUNT; p++) {
		if (r->phase_steps[p] == 0) {
			r->phase_cpu_avg[p] = r->phase_gpu_avg[p] = r->phase_cpu_share[p] = r->phase_gpu_share[p] = NAN;
			continue;
		}
		r->phase_cpu_share[p] = phase_host[p] > 0 ? r->phase_cpu_avg[p] / phase_host[p] : NAN;
		r->phase_gpu_share[p] = phase_launched[p] > 0 ? r->phase_gpu_avg[p] / phase_launched[p] : NAN;
		r->phase_cpu_avg[p] /= r->phase_steps[p];
		r->phase_gpu_avg[p] /= r->phase_steps[p];
	}
	r->tflops_avg = r->has_flops && dur_sum > 0 ? (double)r->flops_total / (double)dur_sum / 1e3 : NAN;
}

void steps_free(struct step_report *r)
{
	free(r->steps);
	memset(r, 0, sizeof *r);
}
