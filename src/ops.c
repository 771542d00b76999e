/* ops.c: the Operators view's figures (see ops.h).
 *
 * One sweep per CPU thread over its slices in (start, longer first) order builds the tree
 * the way the plugin does: a stack of open nodes and user annotations; a slice that
 * starts before the top ends is inside it. Runtime calls are not pushed: each gets the
 * top as its owner. A second pass over GPU activities adds their durations to their
 * runtime call's owner; then the merge of same-name single children (top-down), and
 * device totals (bottom-up: a child always follows its parent). */
#include "src/ops.h"

#include <stdlib.h>
#include <string.h>

#include "lib/sort.h"
#include "lib/tmath.h"
#include "lib/xalloc.h"

/* What a string says of the slice it names (or categorises), computed once per id. */
enum name_flag {
	NF_DONE = 1,
	NF_STEP = 2,        /* ProfilerStep#N */
	NF_NOT_ROW = 4,     /* an operator the plugin does not list */
	NF_COLLECTIVE = 8,  /* nccl:/gloo: collective annotations the plugin keeps as nodes */
	NF_MODULE = 16,     /* nn.Module python_function */
	NF_PYTHON_CAT = 32, /* the category "python" */
};

static bool starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

bool ops_legacy_op(const struct trace *t, const struct slice *s)
{
	return t->legacy && slice_cls(t, s) == SC_OTHER &&
	       strncmp(strtab_get(&t->strings, slice_name(t, s)), "ProfilerStep#", 13) != 0;
}

static uint8_t flags_new(const struct trace *t, uint8_t *cache, uint32_t id);

/* The flags of string ID, memoised in CACHE (by string id). */
static inline uint8_t flags_of(const struct trace *t, uint8_t *cache, uint32_t id)
{
	return cache[id] & NF_DONE ? cache[id] : flags_new(t, cache, id);
}

static uint8_t flags_new(const struct trace *t, uint8_t *cache, uint32_t id)
{
	static const char *const collectives[] = {
		"nccl:broadcast", "nccl:reduce", "nccl:all_reduce", "nccl:all_gather", "nccl:reduce_scatter",
		"gloo:broadcast", "gloo:reduce", "gloo:all_reduce", "gloo:all_gather", "gloo:reduce_scatter",
	};
	const char *s = strtab_get(&t->strings, id);
	size_t n = strtab_len(&t->strings, id);
	uint8_t f = NF_DONE;
	if (starts(s, "ProfilerStep#"))
		f |= NF_STEP | NF_NOT_ROW;
	if ((starts(s, "enumerate(DataLoader)#") && n >= 9 && strcmp(s + n - 9, ".__next__") == 0) ||
	    starts(s, "enumerate(DataPipe)#") || starts(s, "Optimizer.") || strcmp(s, "DataParallel.forward") == 0 ||
	    strcmp(s, "DistributedDataParallel.forward") == 0)
		f |= NF_NOT_ROW;
	for (size_t i = 0; i < sizeof collectives / sizeof *collectives; i++)
		if (strcmp(s, collectives[i]) == 0)
			f |= NF_COLLECTIVE;
	if (starts(s, "nn.Module: "))
		f |= NF_MODULE;
	if (strcmp(s, "python") == 0)
		f |= NF_PYTHON_CAT;
	return cache[id] = f;
}

enum kind { K_SKIP, K_NODE, K_ANNOTATION, K_RUNTIME };

/* What slice S is to the tree (a node, a user annotation that is not one, a runtime call,
 * or nothing), with its name's flags in *F and whether it is an operator (not a step) in
 * *OP: the one classification of both ops_tree_build and ops_by_name. */
static inline enum kind kind_of(const struct trace *t, uint8_t *nf, const struct slice *s, uint8_t *f, bool *op)
{
	*f = flags_of(t, nf, slice_name(t, s));
	*op = ops_counts_as_op(t, s) && !(*f & NF_STEP);
	if (*op ||
	    ((*f & NF_STEP) && (slice_cls(t, s) == SC_CPU_OP || slice_cls(t, s) == SC_USER_ANNOTATION || t->legacy)) ||
	    (slice_cls(t, s) == SC_USER_ANNOTATION && (*f & NF_COLLECTIVE)) ||
	    (slice_cls(t, s) == SC_PYTHON && (*f & NF_MODULE)) || (flags_of(t, nf, slice_cat(t, s)) & NF_PYTHON_CAT))
		return K_NODE;
	if (slice_cls(t, s) == SC_USER_ANNOTATION)
		return K_ANNOTATION;
	if (slice_cls(t, s) == SC_RUNTIME)
		return K_RUNTIME;
	return K_SKIP;
}

struct open {
	uint32_t slice;
	uint32_t node; /* the innermost node at or below this entry, or TT_NONE */
	uint32_t op;   /* the innermost operator at or below, or TT_NONE */
	int64_t end;
};

/* Per node while building: sums over its children and runtime calls, before the merge. */
struct build {
	uint32_t nchild, only_child;
	int64_t child_dur, rt_dur, rt_dev;
	uint32_t absorbed_by; /* TT_NONE, or the node that took this one's place */
	bool op;              /* an operator (may merge with a same-name child) */
};

static void push_node(struct op_tree *tree, struct build **b, uint32_t *cap, struct op_inst in, bool op)
{
	if (tree->n == *cap) {
		*cap = *cap ? *cap * 2 : 1024;
		tree->inst = xreallocarray(tree->inst, *cap, sizeof *tree->inst);
		*b = xreallocarray(*b, *cap, sizeof **b);
	}
	tree->inst[tree->n] = in;
	(*b)[tree->n] = (struct build){ 0, TT_NONE, 0, 0, 0, TT_NONE, op };
	tree->n++;
}

void ops_tree_build(const struct trace *t, struct op_tree *tree)
{
	uint32_t ns = t->strings.n ? t->strings.n : 1;
	uint8_t *nf = xcalloc(ns, 1);
	uint32_t **owner = xcalloc(t->ntracks ? t->ntracks : 1, sizeof *owner); /* by CPU slice: runtime call's node */
	struct build *b = NULL;
	uint32_t cap = 0, scap = 64;
	struct open *stack = xmalloc(scap * sizeof *stack);

	memset(tree, 0, sizeof *tree);
	/* room for every CPU slice at once: growing by doubling copied the arrays over and
	 * over (most of the time on a 1 GB trace); pages never written are never touched */
	uint64_t ncpu = 0;
	for (uint32_t ti = 0; ti < t->ntracks; ti++)
		if (t->tracks[ti].kind == TRACK_CPU)
			ncpu += t->tracks[ti].nslices;
	cap = ncpu > 0 && ncpu < UINT32_MAX ? (uint32_t)ncpu : 1024;
	tree->inst = xreallocarray(NULL, cap, sizeof *tree->inst);
	b = xreallocarray(NULL, cap, sizeof *b);
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		if (tr->kind != TRACK_CPU)
			continue;
		uint32_t sn = 0;
		int64_t rt_end = INT64_MIN;
		for (uint32_t i = 0; i < tr->nslices; i++) {
			const struct slice *s = &tr->slices[i];
			if (slice_name(t, s) >= ns || slice_cat(t, s) >= ns)
				continue;
			uint8_t f;
			bool op;
			enum kind k = kind_of(t, nf, s, &f, &op);
			if (k == K_SKIP)
				continue;
			int64_t end = tt_add(s->ts, slice_dur(tr, s));
			while (sn > 0 && !(s->ts < stack[sn - 1].end))
				sn--;
			if (k == K_RUNTIME) {
				if (owner[ti] == NULL) {
					owner[ti] = xmalloc(tr->nslices * sizeof **owner);
					memset(owner[ti], 0xff, tr->nslices * sizeof **owner);
				}
				uint32_t o = sn > 0 ? stack[sn - 1].op : TT_NONE;
				owner[ti][i] = o;
				/* a driver call inside a runtime call: its time is the runtime call's */
				if (o != TT_NONE && s->ts >= rt_end)
					b[o].rt_dur = tt_add(b[o].rt_dur, slice_dur(tr, s));
				if (s->ts >= rt_end || end > rt_end)
					rt_end = end;
				continue;
			}
			if (sn > 0 && end > stack[sn - 1].end)
				continue; /* overlaps the slice around it without nesting: the plugin leaves it out */
			uint32_t below = sn > 0 ? stack[sn - 1].node : TT_NONE, node = below;
			uint32_t op_below = sn > 0 ? stack[sn - 1].op : TT_NONE;
			if (k == K_NODE) {
				node = tree->n;
				struct op_inst in = { { ti, i },
					              below,
					              slice_name(t, s),
					              op && !(f & NF_NOT_ROW),
					              slice_dur(tr, s),
					              0,
					              0,
					              0 };
				push_node(tree, &b, &cap, in, op);
				if (below != TT_NONE) {
					struct build *p = &b[below];
					p->nchild++;
					p->only_child = node;
					p->child_dur = tt_add(p->child_dur, slice_dur(tr, s));
				}
			}
			if (sn == scap)
				stack = xreallocarray(stack, scap *= 2, sizeof *stack);
			stack[sn++] = (struct open){ i, node, ops_counts_as_op(t, s) ? node : op_below, end };
		}
	}
	free(stack);
	/* GPU activities to their runtime call's node */
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		for (uint32_t i = 0; i < tr->nslices; i++) {
			const struct slice *s = &tr->slices[i];
			if (slice_cls(t, s) != SC_KERNEL && slice_cls(t, s) != SC_MEMCPY &&
			    slice_cls(t, s) != SC_MEMSET)
				continue;
			tree->gpu_ops++;
			const struct gpu_info *g = slice_gpu(tr, s) != TT_NONE ? &t->gpu[slice_gpu(tr, s)] : NULL;
			if (g == NULL || g->peer.track >= t->ntracks || owner[g->peer.track] == NULL ||
			    g->peer.idx >= t->tracks[g->peer.track].nslices)
				continue;
			uint32_t o = owner[g->peer.track][g->peer.idx];
			if (o == TT_NONE)
				continue;
			b[o].rt_dev = tt_add(b[o].rt_dev, slice_dur(tr, s));
			tree->gpu_ops_linked++;
		}
	}
	for (uint32_t ti = 0; ti < t->ntracks; ti++)
		free(owner[ti]);
	free(owner);
	/* the merge, top-down: a parent is met before its children */
	for (uint32_t i = 0; i < tree->n; i++) {
		struct build *p = &b[i];
		if (p->absorbed_by != TT_NONE)
			continue;
		while (p->op && p->nchild == 1 && b[p->only_child].op &&
		       tree->inst[p->only_child].name == tree->inst[i].name) {
			struct build *c = &b[p->only_child];
			c->absorbed_by = i;
			p->nchild = c->nchild;
			p->only_child = c->only_child;
			p->child_dur = c->child_dur;
			p->rt_dur = c->rt_dur;
			p->rt_dev = c->rt_dev;
		}
	}
	/* parents past absorbed nodes; own figures */
	for (uint32_t i = 0; i < tree->n; i++) {
		struct op_inst *in = &tree->inst[i];
		if (in->parent != TT_NONE && b[in->parent].absorbed_by != TT_NONE)
			in->parent = b[in->parent].absorbed_by;
		in->cpu_self = tt_sub(tt_sub(in->dur, b[i].child_dur), b[i].rt_dur);
		in->dev_self = in->dev_total = b[i].rt_dev;
	}
	/* device totals, bottom-up */
	for (uint32_t i = tree->n; i-- > 0;) {
		const struct op_inst *in = &tree->inst[i];
		if (b[i].absorbed_by == TT_NONE && in->parent != TT_NONE)
			tree->inst[in->parent].dev_total = tt_add(tree->inst[in->parent].dev_total, in->dev_total);
	}
	/* drop the absorbed nodes, renumbering parents */
	uint32_t *renum = xmalloc((tree->n ? tree->n : 1) * sizeof *renum), n = 0;
	for (uint32_t i = 0; i < tree->n; i++) {
		if (b[i].absorbed_by != TT_NONE) {
			renum[i] = TT_NONE;
			continue;
		}
		renum[i] = n;
		struct op_inst in = tree->inst[i];
		in.parent = in.parent != TT_NONE ? renum[in.parent] : TT_NONE;
		tree->inst[n++] = in;
	}
	tree->n = n;
	free(renum);
	free(b);
	free(nf);
}

void ops_tree_free(struct op_tree *tree)
{
	free(tree->inst);
	memset(tree, 0, sizeof *tree);
}

/* ---- grouping ------------------------------------------------------------------------ */

struct keyed {
	uint32_t name, key, inst;
};

#define KEYED_LESS(x, y)                                \
	((x)->name != (y)->name ? (x)->name < (y)->name \
	 : (x)->key != (y)->key ? (x)->key < (y)->key   \
	                        : (x)->inst < (y)->inst)
SORT_DEFINE(sort_keyed, struct keyed, KEYED_LESS)

static void add_inst(const struct trace *t, struct op_row *o, const struct op_inst *in)
{
	const struct slice *l = o->calls ? &t->tracks[o->longest.track].slices[o->longest.idx] : NULL;
	if (l == NULL || in->dur > slice_dur(&t->tracks[o->longest.track], l))
		o->longest = in->ref;
	o->calls++;
	o->cpu_total = tt_add(o->cpu_total, in->dur);
	o->cpu_self = tt_add(o->cpu_self, in->cpu_self);
	o->dev_self = tt_add(o->dev_self, in->dev_self);
	o->dev_total = tt_add(o->dev_total, in->dev_total);
}

static int row_cmp(const void *a, const void *b)
{
	const struct op_row *x = a, *y = b;
	if (x->dev_total != y->dev_total)
		return x->dev_total > y->dev_total ? -1 : 1;
	if (x->cpu_total != y->cpu_total)
		return x->cpu_total > y->cpu_total ? -1 : 1;
	if (x->name != y->name)
		return (x->name > y->name) - (x->name < y->name);
	return (x->key > y->key) - (x->key < y->key);
}

static void report_init(const struct op_tree *tree, enum op_group group, struct op_report *r)
{
	memset(r, 0, sizeof *r);
	r->group = group;
	if (tree != NULL) {
		r->gpu_ops = tree->gpu_ops;
		r->gpu_ops_linked = tree->gpu_ops_linked;
	}
	strtab_init(&r->keys);
}

/* Rows by name, a row per string id made at its first instance: the one grouping by name
 * of ops_group, ops_by_name and ops_thread_self (no sort of a million instances). */
struct name_rows {
	struct op_report *r;
	uint32_t *slot; /* by string id: its row, or TT_NONE */
	uint32_t ns, cap;
	int64_t *longest; /* by row: the longest instance's duration */
};

static void name_rows_init(struct name_rows *nr, const struct trace *t, struct op_report *r)
{
	nr->r = r;
	nr->ns = t->strings.n ? t->strings.n : 1;
	nr->slot = xmalloc(nr->ns * sizeof *nr->slot);
	memset(nr->slot, 0xff, nr->ns * sizeof *nr->slot);
	nr->cap = 0;
	nr->longest = NULL;
}

static void name_rows_free(struct name_rows *nr)
{
	free(nr->slot);
	free(nr->longest);
}

/* A new row for NAME, whose first instance is REF, lasting DUR: its number. */
static uint32_t name_row_new(struct name_rows *nr, uint32_t name, struct slice_ref ref, int64_t dur)
{
	struct op_report *r = nr->r;
	if (r->n == nr->cap) {
		nr->cap = nr->cap ? nr->cap * 2 : 256;
		r->rows = xreallocarray(r->rows, nr->cap, sizeof *r->rows);
		nr->longest = xreallocarray(nr->longest, nr->cap, sizeof *nr->longest);
	}
	r->rows[r->n] = (struct op_row){ .name = name, .key = 0, .parent = TT_NONE, .longest = ref };
	nr->longest[r->n] = dur;
	return nr->slot[name] = r->n++;
}

/* The row of NAME, which counts one more instance, REF, lasting DUR: its calls, CPU total
 * and longest instance (the first in tree order, thread then start, among the longest).
 * NULL when NAME is no string id. */
static inline struct op_row *name_row(struct name_rows *nr, uint32_t name, struct slice_ref ref, int64_t dur)
{
	if (name >= nr->ns)
		return NULL;
	uint32_t k = nr->slot[name];
	if (k == TT_NONE)
		k = name_row_new(nr, name, ref, dur);
	struct op_row *o = &nr->r->rows[k];
	if (dur > nr->longest[k] ||
	    (dur == nr->longest[k] &&
	     (ref.track < o->longest.track || (ref.track == o->longest.track && ref.idx < o->longest.idx)))) {
		nr->longest[k] = dur;
		o->longest = ref;
	}
	o->calls++;
	o->cpu_total = tt_add(o->cpu_total, dur);
	return o;
}

void ops_group(const struct trace *t, const struct op_tree *tree, enum op_group group, const uint32_t *keys,
               struct strtab *key_text, struct op_report *r)
{
	report_init(tree, group, r);
	if (key_text != NULL) {
		strtab_free(&r->keys);
		r->keys = *key_text;
		strtab_init(key_text);
	}
	if (keys == NULL) {
		/* by name alone: instances in tree order, as the sort below would give them */
		struct name_rows nr;
		name_rows_init(&nr, t, r);
		for (uint32_t i = 0; i < tree->n; i++) {
			const struct op_inst *in = &tree->inst[i];
			struct op_row *o = in->row ? name_row(&nr, in->name, in->ref, in->dur) : NULL;
			if (o == NULL)
				continue;
			o->cpu_self = tt_add(o->cpu_self, in->cpu_self);
			o->dev_self = tt_add(o->dev_self, in->dev_self);
			o->dev_total = tt_add(o->dev_total, in->dev_total);
		}
		name_rows_free(&nr);
		if (r->n > 1)
			qsort(r->rows, r->n, sizeof *r->rows, row_cmp);
		return;
	}
	struct keyed *k = xmalloc((tree->n ? tree->n : 1) * sizeof *k);
	uint32_t nk = 0;
	for (uint32_t i = 0; i < tree->n; i++) {
		if (!tree->inst[i].row)
			continue;
		uint32_t key = keys != NULL ? keys[i] : 0;
		if (key != 0)
			r->keyed++;
		k[nk++] = (struct keyed){ tree->inst[i].name, key, i };
	}
	sort_keyed(k, nk);
	r->rows = xmalloc((nk ? nk : 1) * sizeof *r->rows);
	for (uint32_t i = 0; i < nk; i++) {
		if (i == 0 || k[i].name != k[i - 1].name || k[i].key != k[i - 1].key)
			r->rows[r->n++] = (struct op_row){ .name = k[i].name, .key = k[i].key, .parent = TT_NONE };
		add_inst(t, &r->rows[r->n - 1], &tree->inst[k[i].inst]);
	}
	free(k);
	if (r->n > 1)
		qsort(r->rows, r->n, sizeof *r->rows, row_cmp);
}

/* ---- by name, in one sweep -------------------------------------------------------------
 * The same figures as ops_tree_build then ops_group by name, without the tree: each
 * thread's sweep keeps the open nodes' sums on its stack and settles a node when it
 * closes. The merge is decided then, bottom-up, which gives what the top-down merge
 * gives (a node that absorbs its only child takes that child's figures, themselves
 * already merged): a closed node waits in its parent while it is the parent's only child,
 * and reaches its row when a second child comes or the parent closes without absorbing
 * it. Nothing is allocated per node: the first opening of the view on a 1 GB trace was
 * mostly the page faults of the tree's 140 MB. */

/* A node's figures once closed (after its merges). */
struct settled {
	struct slice_ref ref;
	uint32_t name, nchild;
	bool op, row;
	int64_t dur, child_dur, rt_dur, rt_dev;
	int64_t dev_children; /* the device totals of its child nodes */
	int64_t dev_total;    /* once closed: rt_dev + dev_children */
};

struct sweep_entry {
	int64_t end;
	uint32_t node;   /* stack position of the innermost node at or below, or TT_NONE */
	uint32_t op;     /* stack position of the innermost node that is an operator, or TT_NONE */
	uint32_t parent; /* a node: the stack position of its parent node, or TT_NONE */
	bool is_node;
	struct settled me; /* a node: its sums so far */
	bool waiting;      /* a node: its only child so far, closed, waits in `child` */
	struct settled child;
};

static inline __attribute__((always_inline)) void row_add(struct name_rows *nr, const struct settled *x)
{
	struct op_row *o = x->row ? name_row(nr, x->name, x->ref, x->dur) : NULL;
	if (o == NULL)
		return;
	o->cpu_self = tt_add(o->cpu_self, tt_sub(tt_sub(x->dur, x->child_dur), x->rt_dur));
	o->dev_self = tt_add(o->dev_self, x->rt_dev);
	o->dev_total = tt_add(o->dev_total, x->dev_total);
}

/* *D = *S field by field: S's fields were just stored one at a time, and a copy by wide
 * loads that straddle those stores waits for them to reach the cache (a quarter of this
 * sweep's time was such a copy). */
static inline void settled_copy(struct settled *d, const struct settled *s)
{
	d->ref = s->ref;
	d->name = s->name;
	d->nchild = s->nchild;
	d->op = s->op;
	d->row = s->row;
	d->dur = s->dur;
	d->child_dur = s->child_dur;
	d->rt_dur = s->rt_dur;
	d->rt_dev = s->rt_dev;
	d->dev_children = s->dev_children;
	d->dev_total = s->dev_total;
}

/* Closes the node at the top of the stack: its merge, then its place in its parent. */
static void close_node(struct name_rows *nr, struct sweep_entry *stack, uint32_t pos)
{
	struct sweep_entry *e = &stack[pos];
	struct settled *me = &e->me; /* settled in place: the entry is off the stack */
	if (e->waiting) {
		const struct settled *c = &e->child;
		if (me->nchild == 1 && me->op && c->op && c->name == me->name) {
			/* absorbs its only child: the child's children and runtime calls */
			me->nchild = c->nchild;
			me->child_dur = c->child_dur;
			me->rt_dur = c->rt_dur;
			me->rt_dev = c->rt_dev;
			me->dev_children = c->dev_children;
		} else {
			row_add(nr, c);
			me->dev_children = tt_add(me->dev_children, c->dev_total);
		}
	}
	me->dev_total = tt_add(me->rt_dev, me->dev_children);
	if (e->parent == TT_NONE) {
		row_add(nr, me);
		return;
	}
	struct sweep_entry *p = &stack[e->parent];
	if (p->me.nchild == 1) {
		p->waiting = true;
		settled_copy(&p->child, me);
	} else {
		row_add(nr, me);
		p->me.dev_children = tt_add(p->me.dev_children, me->dev_total);
	}
}

/* Device time of the GPU activities each runtime call launched, by gpu_info index, when
 * some call launched several (CUDA graphs): its peer then names only one of them. */
static void launched_sums(const struct trace *t, int64_t **dev, uint32_t **count)
{
	*dev = xcalloc(t->ngpu ? t->ngpu : 1, sizeof **dev);
	*count = xcalloc(t->ngpu ? t->ngpu : 1, sizeof **count);
	struct gpu_walk gw = gpu_walk_start(t);
	struct slice_ref self;
	uint32_t g;
	while (gpu_walk_next(&gw, &g, &self)) {
		const struct gpu_info *gi = &t->gpu[g];
		if (gi->peer.track >= t->ntracks)
			continue;
		const struct slice *a = &t->tracks[self.track].slices[self.idx];
		if (slice_cls(t, a) != SC_KERNEL && slice_cls(t, a) != SC_MEMCPY && slice_cls(t, a) != SC_MEMSET)
			continue;
		const struct track *pt = &t->tracks[gi->peer.track];
		if (gi->peer.idx >= pt->nslices || track_gpu_at(pt, gi->peer.idx) >= t->ngpu)
			continue;
		uint32_t rg = track_gpu_at(pt, gi->peer.idx);
		(*dev)[rg] = tt_add((*dev)[rg], slice_dur(&t->tracks[self.track], a));
		(*count)[rg]++;
	}
}

void ops_by_name(const struct trace *t, struct op_report *r)
{
	report_init(NULL, OP_BY_NAME, r);
	uint32_t ns = t->strings.n ? t->strings.n : 1;
	uint8_t *nf = xcalloc(ns, 1);
	struct name_rows nr;
	name_rows_init(&nr, t, r);
	int64_t *sum_dev = NULL;
	uint32_t *sum_n = NULL;
	if (t->shared_launch)
		launched_sums(t, &sum_dev, &sum_n);
	uint32_t scap = 64;
	struct sweep_entry *stack = xmalloc(scap * sizeof *stack);
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		r->gpu_ops += tr->gpu_slices;
		if (tr->kind != TRACK_CPU)
			continue;
		uint32_t sn = 0;
		int64_t rt_end = INT64_MIN;
		for (uint32_t i = 0; i <= tr->nslices; i++) {
			const struct slice *s = i < tr->nslices ? &tr->slices[i] : NULL;
			if (s != NULL && (slice_name(t, s) >= ns || slice_cat(t, s) >= ns))
				continue;
			uint8_t f = 0;
			bool op = false;
			enum kind k = K_SKIP;
			if (s != NULL && (k = kind_of(t, nf, s, &f, &op)) == K_SKIP)
				continue;
			/* close what ends before this slice starts (everything at the track's end) */
			while (sn > 0 && (s == NULL || !(s->ts < stack[sn - 1].end))) {
				sn--;
				if (stack[sn].is_node)
					close_node(&nr, stack, sn);
			}
			if (s == NULL)
				break;
			int64_t end = tt_add(s->ts, slice_dur(tr, s));
			if (k == K_RUNTIME) {
				uint32_t o = sn > 0 ? stack[sn - 1].op : TT_NONE;
				if (o != TT_NONE) {
					struct settled *me = &stack[o].me;
					/* a driver call inside a runtime call: its time is the runtime call's */
					if (s->ts >= rt_end)
						me->rt_dur = tt_add(me->rt_dur, slice_dur(tr, s));
					uint32_t g = slice_gpu(tr, s);
					if (g < t->ngpu) {
						if (sum_dev != NULL) {
							me->rt_dev = tt_add(me->rt_dev, sum_dev[g]);
							r->gpu_ops_linked += sum_n[g];
						} else {
							struct slice_ref p = t->gpu[g].peer;
							const struct slice *a =
								p.track < t->ntracks &&
										p.idx < t->tracks[p.track].nslices
									? &t->tracks[p.track].slices[p.idx]
									: NULL;
							if (a != NULL && (slice_cls(t, a) == SC_KERNEL ||
							                  slice_cls(t, a) == SC_MEMCPY ||
							                  slice_cls(t, a) == SC_MEMSET)) {
								me->rt_dev = tt_add(me->rt_dev,
								                    slice_dur(&t->tracks[p.track], a));
								r->gpu_ops_linked++;
							}
						}
					}
				}
				if (s->ts >= rt_end || end > rt_end)
					rt_end = end;
				continue;
			}
			if (sn > 0 && end > stack[sn - 1].end)
				continue; /* overlaps the slice around it without nesting: the plugin leaves it out */
			uint32_t below = sn > 0 ? stack[sn - 1].node : TT_NONE;
			uint32_t op_below = sn > 0 ? stack[sn - 1].op : TT_NONE;
			if (sn == scap)
				stack = xreallocarray(stack, scap *= 2, sizeof *stack);
			struct sweep_entry *e = &stack[sn];
			e->end = end;
			e->is_node = k == K_NODE;
			e->node = e->is_node ? sn : below;
			e->op = ops_counts_as_op(t, s) ? e->node : op_below;
			if (e->is_node) {
				e->parent = below;
				e->waiting = false;
				e->me = (struct settled){ { ti, i },
					                  slice_name(t, s),
					                  0,
					                  op,
					                  op && !(f & NF_NOT_ROW),
					                  slice_dur(tr, s),
					                  0,
					                  0,
					                  0,
					                  0,
					                  0 };
				if (below != TT_NONE) {
					struct sweep_entry *p = &stack[below];
					if (++p->me.nchild == 2 && p->waiting) {
						/* a second child: the first cannot be absorbed */
						row_add(&nr, &p->child);
						p->me.dev_children = tt_add(p->me.dev_children, p->child.dev_total);
						p->waiting = false;
					}
					p->me.child_dur = tt_add(p->me.child_dur, slice_dur(tr, s));
				}
			}
			sn++;
		}
	}
	free(stack);
	free(sum_dev);
	free(sum_n);
	name_rows_free(&nr);
	free(nf);
	if (r->n > 1)
		qsort(r->rows, r->n, sizeof *r->rows, row_cmp);
}

/* ---- self time on the thread ----------------------------------------------------------------
 * The summary's figure, not the plugin's: one sweep per CPU thread over all its slices with
 * a stack of the open ones; a slice adds to the one around it the part of it that lies
 * inside; an operator that closes counts its duration less that. */

struct enclosing {
	uint32_t idx;
	int64_t child; /* the time of its direct children so far */
};

static bool self_less(const struct op_row *x, const struct op_row *y, const struct strtab *names)
{
	return x->cpu_self != y->cpu_self ? x->cpu_self > y->cpu_self : strtab_cmp(names, x->name, y->name) < 0;
}
SORT_DEFINE_CTX(sort_by_self, struct op_row, const struct strtab *, self_less)

void ops_thread_self(const struct trace *t, struct op_report *r)
{
	struct name_rows nr;
	struct enclosing *stack = NULL;
	uint32_t cap = 0;

	report_init(NULL, OP_BY_NAME, r);
	name_rows_init(&nr, t, r);
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		uint32_t sn = 0;
		if (tr->kind != TRACK_CPU)
			continue;
		for (uint32_t i = 0; i <= tr->nslices; i++) {
			const struct slice *s = i < tr->nslices ? &tr->slices[i] : NULL;
			/* close what ended before s (everything at the track's end) */
			while (sn > 0) {
				const struct enclosing *e = &stack[sn - 1];
				const struct slice *top = &tr->slices[e->idx];
				int64_t dur = slice_dur(tr, top);
				if (s != NULL && top->ts + dur > s->ts)
					break;
				struct op_row *o = NULL;
				if (ops_counts_as_op(t, top))
					o = name_row(&nr, slice_name(t, top), (struct slice_ref){ ti, e->idx }, dur);
				if (o != NULL)
					o->cpu_self = tt_add(o->cpu_self, dur - e->child > 0 ? dur - e->child : 0);
				sn--;
			}
			if (s == NULL)
				break;
			if (sn > 0) {
				const struct slice *p = &tr->slices[stack[sn - 1].idx];
				int64_t end = s->ts + slice_dur(tr, s), pend = p->ts + slice_dur(tr, p);
				stack[sn - 1].child += (end < pend ? end : pend) - s->ts;
			}
			if (sn == cap) {
				cap = cap ? cap * 2 : 64;
				stack = xreallocarray(stack, cap, sizeof *stack);
			}
			stack[sn++] = (struct enclosing){ i, 0 };
		}
	}
	free(stack);
	name_rows_free(&nr);
	sort_by_self(r->rows, r->n, &t->strings);
}

/* ---- the tree mode ----------------------------------------------------------------------
 * A path is (parent path, name); paths are numbered as they are met, so a parent path has
 * a smaller number than its children. Rows are then laid out depth first. */

struct path_key {
	uint32_t parent, name, inst;
};

#define PATH_LESS(x, y)                                         \
	((x)->parent != (y)->parent ? (x)->parent < (y)->parent \
	 : (x)->name != (y)->name   ? (x)->name < (y)->name     \
	                            : (x)->inst < (y)->inst)
SORT_DEFINE(sort_paths, struct path_key, PATH_LESS)

struct path_node {
	struct op_row row;
	uint32_t first_child, nchild; /* into the children list */
};

static bool child_less(const uint32_t *a, const uint32_t *b, const struct path_node *nodes)
{
	return row_cmp(&nodes[*a].row, &nodes[*b].row) < 0;
}
SORT_DEFINE_CTX(sort_children, uint32_t, const struct path_node *, child_less)

void ops_group_tree(const struct trace *t, const struct op_tree *tree, struct op_report *r)
{
	report_init(tree, OP_BY_TREE, r);
	uint32_t nsz = tree->n ? tree->n : 1;
	/* paths are numbered level by level: at depth d, the nodes sorted by (parent's path,
	 * name) give each distinct pair a number (no hash table: names come from a file) */
	uint32_t *depth = xmalloc(nsz * sizeof *depth), *path = xmalloc(nsz * sizeof *path);
	uint32_t maxd = 0;
	for (uint32_t i = 0; i < tree->n; i++) {
		const struct op_inst *in = &tree->inst[i];
		const struct slice *s = &t->tracks[in->ref.track].slices[in->ref.idx];
		bool step = strncmp(strtab_get(&t->strings, slice_name(t, s)), "ProfilerStep#", 13) == 0;
		uint32_t d = in->parent == TT_NONE ? 0 : depth[in->parent] + (path[in->parent] != TT_NONE);
		/* steps are no path of their own: their children are roots */
		path[i] = step ? TT_NONE : 0;
		depth[i] = step ? (in->parent == TT_NONE ? 0 : depth[in->parent]) : d;
		if (!step && d > maxd)
			maxd = d;
	}
	struct path_node *nodes = NULL;
	uint32_t nn = 0, ncap = 0;
	struct path_key *pk = xmalloc(nsz * sizeof *pk);
	for (uint32_t d = 0; d <= maxd && tree->n > 0; d++) {
		uint32_t np = 0;
		for (uint32_t i = 0; i < tree->n; i++) {
			if (path[i] == TT_NONE || depth[i] != d)
				continue;
			/* the nearest ancestor with a path (steps have none) */
			uint32_t a = tree->inst[i].parent;
			while (a != TT_NONE && path[a] == TT_NONE)
				a = tree->inst[a].parent;
			pk[np++] = (struct path_key){ a == TT_NONE ? TT_NONE : path[a], tree->inst[i].name, i };
		}
		sort_paths(pk, np);
		for (uint32_t j = 0; j < np; j++) {
			if (j == 0 || pk[j].parent != pk[j - 1].parent || pk[j].name != pk[j - 1].name) {
				if (nn == ncap)
					nodes = xreallocarray(nodes, ncap = ncap ? ncap * 2 : 256, sizeof *nodes);
				nodes[nn++] = (struct path_node){
					.row = { .name = pk[j].name,
					         .parent = pk[j].parent,
					         .depth = (uint16_t)(d < 65535 ? d : 65535) },
				};
			}
			path[pk[j].inst] = nn - 1;
			add_inst(t, &nodes[nn - 1].row, &tree->inst[pk[j].inst]);
		}
	}
	free(pk);
	free(depth);
	free(path);
	/* children lists: paths sorted by parent give contiguous runs */
	uint32_t *kids = xmalloc((nn ? nn : 1) * sizeof *kids), nkids = 0, nroots = 0;
	uint32_t *roots = xmalloc((nn ? nn : 1) * sizeof *roots);
	for (uint32_t i = 0; i < nn; i++)
		nodes[i].nchild = 0;
	for (uint32_t i = 0; i < nn; i++)
		if (nodes[i].row.parent != TT_NONE)
			nodes[nodes[i].row.parent].nchild++;
	for (uint32_t i = 0; i < nn; i++) {
		nodes[i].first_child = nkids;
		nkids += nodes[i].nchild;
		nodes[i].nchild = 0;
	}
	for (uint32_t i = 0; i < nn; i++) {
		uint32_t p = nodes[i].row.parent;
		if (p == TT_NONE)
			roots[nroots++] = i;
		else
			kids[nodes[p].first_child + nodes[p].nchild++] = i;
	}
	sort_children(roots, nroots, nodes);
	for (uint32_t i = 0; i < nn; i++)
		if (nodes[i].nchild > 1)
			sort_children(kids + nodes[i].first_child, nodes[i].nchild, nodes);
	/* depth first, with an explicit stack: trees can be deep */
	r->rows = xmalloc((nn ? nn : 1) * sizeof *r->rows);
	uint32_t *rowof = xmalloc((nn ? nn : 1) * sizeof *rowof);
	uint32_t *st = xmalloc((nn ? nn : 1) * sizeof *st), sn = 0;
	for (uint32_t i = nroots; i-- > 0;)
		st[sn++] = roots[i];
	while (sn > 0) {
		uint32_t p = st[--sn];
		rowof[p] = r->n;
		r->rows[r->n] = nodes[p].row;
		r->rows[r->n].parent = nodes[p].row.parent != TT_NONE ? rowof[nodes[p].row.parent] : TT_NONE;
		r->n++;
		for (uint32_t c = nodes[p].nchild; c-- > 0;)
			st[sn++] = kids[nodes[p].first_child + c];
	}
	free(st);
	free(rowof);
	free(roots);
	free(kids);
	free(nodes);
}

void ops_free(struct op_report *r)
{
	free(r->rows);
	strtab_free(&r->keys);
	memset(r, 0, sizeof *r);
}

static const char *const group_names[OP__GROUPS] = { "name", "shape", "source", "tree" };

const char *ops_group_name(enum op_group g) { return g < OP__GROUPS ? group_names[g] : "?"; }

int ops_group_of(const char *name)
{
	for (int g = 0; g < OP__GROUPS; g++)
		if (strcmp(name, group_names[g]) == 0)
			return g;
	return -1;
}
