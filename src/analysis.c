/* analysis.c: the per-trace cache of analyses (see analysis.h). */
#include "src/analysis.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/parallel.h"
#include "lib/xalloc.h"
#include "src/analysis_split.h"
#include "src/compiled.h"

struct ranks_entry {
	enum align_mode mode;
	int n;
	struct trace **ts; /* the set, in order */
	struct rank_report rr;
	struct advice_report *advice; /* the set's findings, or NULL until asked */
};

struct analysis_cache {
	struct gap_analysis gaps[ANALYSIS_GAPS_KEPT];
	int ngaps;
	/* never evicted: a caller may keep a shallow copy; there are as many as the sets and
	 * modes asked (three at most for the timeline, one for a report) */
	struct ranks_entry **ranks; /* each allocated apart: pointers to them stay valid */
	struct kernel_report *kernels[KG__COUNT];
	struct op_tree *op_tree;
	struct op_report *ops[OP__GROUPS];
	struct gpu_metrics *gpu;
	struct gpu_curves *curves;
	struct tb_step *tb_steps; /* the plugin's steps, found once for the gaps and the steps */
	uint32_t ntb_steps;
	struct memory_report *memory;
	struct step_report *steps;
	struct advice_report *advice;
	struct compiled_facts *compiled;
	int nranks;
	uint64_t clock;    /* ticks at every request, for LRU */
	uint64_t computed; /* analyses computed */
};

static void free_gap_analysis(struct gap_analysis *g)
{
	gaps_free(&g->r);
	free(g->by_device);
	free(g->devices);
	memset(g, 0, sizeof *g);
}

static void cache_free(struct analysis_cache *c)
{
	for (int i = 0; i < c->ngaps; i++)
		free_gap_analysis(&c->gaps[i]);
	for (int i = 0; i < c->nranks; i++) {
		ranks_free(&c->ranks[i]->rr);
		if (c->ranks[i]->advice != NULL)
			advice_free(c->ranks[i]->advice);
		free(c->ranks[i]->advice);
		free(c->ranks[i]->ts);
		free(c->ranks[i]);
	}
	free(c->ranks);
	for (int g = 0; g < KG__COUNT; g++) {
		if (c->kernels[g] != NULL)
			kernels_free(c->kernels[g]);
		free(c->kernels[g]);
	}
	for (int g = 0; g < OP__GROUPS; g++) {
		if (c->ops[g] != NULL)
			ops_free(c->ops[g]);
		free(c->ops[g]);
	}
	if (c->op_tree != NULL)
		ops_tree_free(c->op_tree);
	free(c->op_tree);
	free(c->tb_steps);
	if (c->gpu != NULL)
		gpu_metrics_free(c->gpu);
	free(c->gpu);
	if (c->curves != NULL)
		gpu_curves_free(c->curves);
	free(c->curves);
	if (c->memory != NULL)
		memory_free(c->memory);
	free(c->memory);
	if (c->steps != NULL)
		steps_free(c->steps);
	free(c->steps);
	if (c->advice != NULL)
		advice_free(c->advice);
	free(c->advice);
	free(c->compiled);
	free(c);
}

static struct analysis_cache *cache_of(struct trace *t)
{
	if (t->analyses == NULL) {
		t->analyses = xcalloc(1, sizeof *t->analyses);
		t->free_analyses = cache_free;
	}
	return t->analyses;
}

/* The plugin's steps of T (src/tb_steps.h), found on the first call: a pass over every GPU
 * link that the gaps (at each minimum length) and the step breakdown share. */
static const struct tb_step *tb_steps_of(struct analysis_cache *c, const struct trace *t, uint32_t *n)
{
	if (c->tb_steps == NULL)
		c->tb_steps = tb_steps_find(t, &c->ntb_steps);
	*n = c->ntb_steps;
	return c->tb_steps;
}

static int gap_cmp_device(const void *a, const void *b)
{
	const struct gap *x = a, *y = b;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int device_cmp(const void *a, const void *b, void *arg)
{
	const struct device_gaps *d = arg;
	int32_t x = d[*(const uint32_t *)a].device, y = d[*(const uint32_t *)b].device;
	return x < y ? -1 : x > y;
}

const struct gap_analysis *trace_gaps(struct trace *t, int64_t min_gap)
{
	struct analysis_cache *c = cache_of(t);
	struct gap_analysis *g = NULL;
	c->clock++;
	for (int i = 0; i < c->ngaps; i++)
		if (c->gaps[i].min_gap == min_gap) {
			c->gaps[i].used = c->clock;
			return &c->gaps[i];
		}
	if (c->ngaps < ANALYSIS_GAPS_KEPT) {
		g = &c->gaps[c->ngaps++];
	} else {
		g = &c->gaps[0]; /* the least recently asked makes room */
		for (int i = 1; i < c->ngaps; i++)
			if (c->gaps[i].used < g->used)
				g = &c->gaps[i];
		free_gap_analysis(g);
	}
	g->min_gap = min_gap;
	g->used = c->clock;
	uint32_t ns;
	const struct tb_step *steps = tb_steps_of(c, t, &ns);
	gaps_analyse(t, min_gap, steps, ns, &g->r);
	/* the renderer finds a device's gap at a time by binary search, however many devices */
	g->by_device = xmalloc((g->r.ngaps ? g->r.ngaps : 1) * sizeof *g->by_device);
	if (g->r.ngaps > 0) {
		memcpy(g->by_device, g->r.gaps, g->r.ngaps * sizeof *g->by_device);
		qsort(g->by_device, g->r.ngaps, sizeof *g->by_device, gap_cmp_device);
	}
	g->devices = xcalloc(g->r.ndevices ? g->r.ndevices : 1, sizeof *g->devices);
	for (uint32_t i = 0; i < g->r.ndevices; i++)
		g->devices[i] = i;
	if (g->r.ndevices > 1)
		qsort_r(g->devices, g->r.ndevices, sizeof *g->devices, device_cmp, g->r.devices);
	c->computed++;
	return g;
}

/* The cache entry of the set TS (N traces) compared with MODE, made on the first call. */
static struct ranks_entry *ranks_entry_of(struct trace *const *ts, int n, enum align_mode mode)
{
	struct analysis_cache *c = cache_of(ts[0]);
	for (int i = 0; i < c->nranks; i++)
		if (c->ranks[i]->mode == mode && c->ranks[i]->n == n &&
		    memcmp(c->ranks[i]->ts, ts, (size_t)n * sizeof *ts) == 0)
			return c->ranks[i];
	c->ranks = xreallocarray(c->ranks, (size_t)c->nranks + 1, sizeof *c->ranks);
	struct ranks_entry *e = c->ranks[c->nranks++] = xcalloc(1, sizeof *e);
	e->mode = mode;
	e->n = n;
	e->ts = xmalloc((size_t)n * sizeof *e->ts);
	memcpy(e->ts, ts, (size_t)n * sizeof *ts);
	ranks_analyse(e->ts, n, mode, NULL, &e->rr);
	c->computed++;
	return e;
}

const struct rank_report *traces_ranks(struct trace *const *ts, int n, enum align_mode mode)
{
	return &ranks_entry_of(ts, n, mode)->rr;
}

const struct advice_report *trace_advice_found(const struct trace *t)
{
	return t->analyses != NULL ? t->analyses->advice : NULL;
}

/* The analyses that need nothing from this cache (kernels by name, memory curves,
 * operators by name, compiled-model facts), computed on threads of their own while this
 * one does the overview's, which chain (trace_overview): after a load the other core is
 * idle. */
struct side_warm {
	const struct trace *t;
	struct kernel_report *kernels;   /* NULL: in the cache already, or not asked */
	struct memory_report *memory;    /* likewise */
	struct op_report *ops;           /* likewise */
	struct compiled_facts *compiled; /* likewise */
};

/* The kernels and the operators (about as long as the overview's chain)... */
static void *side_warm_main(void *arg)
{
	struct side_warm *w = arg;
	if (w->kernels != NULL)
		kernels_analyse(w->t, KG_NAME, w->kernels);
	if (w->ops != NULL)
		ops_by_name(w->t, w->ops);
	return NULL;
}

/* ...and the memory curves and the compiled-model facts on a third thread: one thread for
 * all four was the last to finish, a core idle meanwhile (a cold diff's profile). */
static void *side_warm_rest(void *arg)
{
	struct side_warm *w = arg;
	if (w->memory != NULL)
		memory_curves(w->t, w->memory);
	if (w->compiled != NULL)
		compiled_facts_of(w->t, w->compiled);
	return NULL;
}

/* Puts the overview's analyses, the kernels by name, the memory curves, the
 * compiled-model facts and, with OPS, the operators by name in T's cache: all but the
 * overview's on two more threads (side_warm_main, side_warm_rest). */
static void warm_two_ways(struct trace *t, bool ops)
{
	struct analysis_cache *c = cache_of(t);
	struct side_warm w = { t, NULL, NULL, NULL, NULL };
	if (c->kernels[KG_NAME] == NULL)
		w.kernels = xcalloc(1, sizeof *w.kernels);
	if (c->memory == NULL)
		w.memory = xcalloc(1, sizeof *w.memory);
	if (ops && c->ops[OP_BY_NAME] == NULL)
		w.ops = xcalloc(1, sizeof *w.ops);
	if (c->compiled == NULL)
		w.compiled = xcalloc(1, sizeof *w.compiled);
	pthread_t th, th2;
	bool split = analysis_split(t);
	bool threaded =
		split && (w.kernels != NULL || w.ops != NULL) && pthread_create(&th, NULL, side_warm_main, &w) == 0;
	if (!threaded)
		side_warm_main(&w);
	bool threaded2 = split && (w.memory != NULL || w.compiled != NULL) &&
	                 pthread_create(&th2, NULL, side_warm_rest, &w) == 0;
	if (!threaded2)
		side_warm_rest(&w);
	const struct gpu_metrics *m;
	const struct step_report *s;
	trace_overview(t, &m, &s);
	if (threaded)
		pthread_join(th, NULL);
	if (threaded2)
		pthread_join(th2, NULL);
	c = cache_of(t);
	if (w.kernels != NULL) {
		c->kernels[KG_NAME] = w.kernels;
		c->computed++;
	}
	if (w.memory != NULL) {
		c->memory = w.memory;
		c->computed++;
	}
	if (w.ops != NULL) {
		c->ops[OP_BY_NAME] = w.ops;
		c->computed++;
	}
	if (w.compiled != NULL) {
		c->compiled = w.compiled;
		c->computed++;
	}
}

const struct compiled_facts *trace_compiled(struct trace *t)
{
	struct analysis_cache *c = cache_of(t);
	if (c->compiled == NULL) {
		c->compiled = xcalloc(1, sizeof *c->compiled);
		compiled_facts_of(t, c->compiled);
		c->computed++;
	}
	return c->compiled;
}

void trace_warm_overview_ops(struct trace *t) { warm_two_ways(t, true); }

const struct advice_report *trace_advice(struct trace *t)
{
	struct analysis_cache *c = cache_of(t);
	if (c->advice == NULL) {
		warm_two_ways(t, false);
		c = cache_of(t);
		struct advice_report *r = xcalloc(1, sizeof *r);
		advice_analyse(t, r); /* asks this cache for the figures it reads */
		c = cache_of(t);
		c->advice = r;
		c->computed++;
	}
	return c->advice;
}

/* One rank's findings, on one of parallel_for's threads. */
struct advice_job {
	struct trace *const *ts;
	const struct advice_report **per;
};

static void advice_one(void *arg, int i)
{
	struct advice_job *j = arg;
	j->per[i] = trace_advice(j->ts[i]);
}

const struct advice_report *traces_advice(struct trace *const *ts, int n, enum align_mode mode)
{
	struct ranks_entry *e = ranks_entry_of(ts, n, mode);
	if (e->advice == NULL) {
		const struct advice_report **per = xmalloc((size_t)n * sizeof *per);
		struct advice_job j = { ts, per };
		parallel_for(n, advice_one, &j); /* each trace's own cache: independent */
		struct advice_report *r = xcalloc(1, sizeof *r);
		advice_merge_ranks(ts, n, per, &e->rr, r);
		free(per);
		e->advice = r;
		cache_of(ts[0])->computed++;
	}
	return e->advice;
}

const struct kernel_report *trace_kernels(struct trace *t, enum kernel_group group)
{
	struct analysis_cache *c = cache_of(t);
	if (group < 0 || group >= KG__COUNT)
		group = KG_NAME;
	if (c->kernels[group] == NULL) {
		c->kernels[group] = xcalloc(1, sizeof *c->kernels[group]);
		kernels_analyse(t, group, c->kernels[group]);
		c->computed++;
	}
	return c->kernels[group];
}

const struct op_tree *trace_op_tree(struct trace *t)
{
	struct analysis_cache *c = cache_of(t);
	if (c->op_tree == NULL) {
		c->op_tree = xcalloc(1, sizeof *c->op_tree);
		ops_tree_build(t, c->op_tree);
		c->computed++;
	}
	return c->op_tree;
}

const struct step_report *trace_steps(struct trace *t)
{
	struct analysis_cache *c = cache_of(t);
	if (c->steps == NULL) {
		c->steps = xcalloc(1, sizeof *c->steps);
		uint32_t ns;
		const struct tb_step *steps = tb_steps_of(c, t, &ns);
		steps_analyse(t, steps, ns, c->steps);
		c->computed++;
	}
	return c->steps;
}

const struct gpu_metrics *trace_gpu_metrics(struct trace *t)
{
	struct analysis_cache *c = cache_of(t);
	if (c->gpu == NULL) {
		/* the plugin's window: its device-adjusted steps, whatever the gap length */
		const struct gap_report *g = &trace_gaps(t, ANALYSIS_DEFAULT_MIN_GAP)->r;
		c->gpu = xcalloc(1, sizeof *c->gpu);
		gpu_metrics_analyse(t, g->tb_start, g->tb_end, c->gpu);
		c->computed++;
	}
	return c->gpu;
}

const struct gpu_curves *trace_gpu_curves(struct trace *t)
{
	struct analysis_cache *c = cache_of(t);
	if (c->curves == NULL) {
		c->curves = xcalloc(1, sizeof *c->curves);
		gpu_curves_analyse(t, c->curves);
		c->computed++;
	}
	return c->curves;
}

/* The steps of trace_overview, on a thread of their own. */
struct steps_job {
	const struct trace *t;
	const struct tb_step *steps;
	uint32_t n;
	struct step_report *r;
};

static void *steps_main(void *arg)
{
	struct steps_job *j = arg;
	steps_analyse(j->t, j->steps, j->n, j->r);
	return NULL;
}

void trace_overview(struct trace *t, const struct gpu_metrics **m, const struct step_report **s)
{
	struct analysis_cache *c = cache_of(t);
	if (c->gpu == NULL && c->steps == NULL) {
		/* the plugin's steps first, which both read; then the steps in a second thread
		 * beside the gaps and the GPU figures over the gaps' window (independent: each
		 * reads the trace and those steps, and only this thread writes the cache) */
		uint32_t ns;
		const struct tb_step *steps = tb_steps_of(c, t, &ns);
		struct steps_job j = { t, steps, ns, xcalloc(1, sizeof *j.r) };
		pthread_t th;
		bool threaded = analysis_split(t) && pthread_create(&th, NULL, steps_main, &j) == 0;
		if (!threaded)
			steps_main(&j);
		const struct gap_report *g = &trace_gaps(t, ANALYSIS_DEFAULT_MIN_GAP)->r;
		struct gpu_metrics *gm = xcalloc(1, sizeof *gm);
		gpu_metrics_analyse(t, g->tb_start, g->tb_end, gm);
		if (threaded)
			pthread_join(th, NULL);
		c = cache_of(t);
		c->gpu = gm;
		c->steps = j.r;
		c->computed += 2;
	}
	*m = trace_gpu_metrics(t);
	*s = trace_steps(t);
}

const struct op_report *trace_ops_grouped(struct trace *t, enum op_group g, op_keys_fn keys_fn)
{
	struct analysis_cache *c = cache_of(t);
	if (c->ops[g] != NULL)
		return c->ops[g];
	if (g == OP_BY_NAME) { /* no tree needed: one sweep (src/ops.h) */
		struct op_report *r = xcalloc(1, sizeof *r);
		ops_by_name(t, r);
		c->computed++;
		return c->ops[g] = r;
	}
	const struct op_tree *tree = trace_op_tree(t);
	struct op_report *r = xcalloc(1, sizeof *r);
	if (g == OP_BY_TREE) {
		ops_group_tree(t, tree, r);
	} else if (keys_fn == NULL) {
		ops_group(t, tree, g, NULL, NULL, r);
	} else {
		uint32_t *keys = xcalloc(tree->n ? tree->n : 1, sizeof *keys);
		struct strtab text;
		strtab_init(&text);
		keys_fn(t, tree, g, keys, &text);
		ops_group(t, tree, g, keys, &text, r);
		strtab_free(&text);
		free(keys);
	}
	c->computed++;
	return c->ops[g] = r;
}

const struct op_report *trace_ops(struct trace *t) { return trace_ops_grouped(t, OP_BY_NAME, NULL); }

uint64_t analysis_computed(const struct trace *t) { return t->analyses != NULL ? t->analyses->computed : 0; }

const struct memory_report *trace_memory_curves(struct trace *t)
{
	struct analysis_cache *c = cache_of(t);
	if (c->memory == NULL) {
		c->memory = xcalloc(1, sizeof *c->memory);
		memory_curves(t, c->memory);
		c->computed++;
	}
	return c->memory;
}

const struct memory_report *trace_memory_points(struct trace *t)
{
	struct analysis_cache *c = cache_of(t);
	trace_memory_curves(t);
	memory_points(t, c->memory); /* once: made points are kept */
	return c->memory;
}

const struct memory_report *trace_memory(struct trace *t)
{
	struct analysis_cache *c = cache_of(t);
	trace_memory_points(t);
	if (!c->memory->ops_attached) {
		memory_attach_ops(t, c->memory);
		c->computed++;
	}
	return c->memory;
}
