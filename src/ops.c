/* ops.c: the Operators view's figures (see ops.h). */
#include "src/ops.h"

#include <stdlib.h>
#include <string.h>

#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "src/index.h"
#include "src/tables.h"

/* The slice directly above slice I of TR (one row up, holding its start), or TT_NONE. */
static uint32_t parent_of(const struct track *tr, uint32_t i)
{
	const struct slice *s = &tr->slices[i];
	uint32_t a, b;
	if (s->depth == 0 || s->depth > tr->nrows)
		return TT_NONE;
	index_row_range(tr, (uint16_t)(s->depth - 1), s->ts, s->ts + 1, &a, &b);
	return a < b ? tr->rows[s->depth - 1].idx[a] : TT_NONE;
}

static int row_cmp(const void *a, const void *b)
{
	const struct op_row *x = a, *y = b;
	if (x->dev_total != y->dev_total)
		return x->dev_total > y->dev_total ? -1 : 1;
	if (x->cpu_total != y->cpu_total)
		return x->cpu_total > y->cpu_total ? -1 : 1;
	return (x->name > y->name) - (x->name < y->name);
}

void ops_analyse(const struct trace *t, struct op_report *r)
{
	uint32_t ns = t->strings.n ? t->strings.n : 1;
	struct op_row *by = xcalloc(ns, sizeof *by);
	uint8_t *seen = xcalloc(ns, 1); /* by name: an instance was met (longest is set) */
	memset(r, 0, sizeof *r);
	/* CPU figures: src/tables.c's, one definition */
	uint32_t nops;
	struct op_stat *ops = tables_ops(t, &nops);
	for (uint32_t i = 0; i < nops; i++) {
		struct op_row *o = &by[ops[i].name];
		o->calls = ops[i].calls;
		o->cpu_total = ops[i].total;
		o->cpu_self = ops[i].self;
	}
	free(ops);
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		for (uint32_t i = 0; i < tr->nslices; i++) {
			const struct slice *s = &tr->slices[i];
			if (tr->kind == TRACK_CPU && s->name < ns && tables_counts_as_op(t, s)) {
				struct op_row *o = &by[s->name];
				if (!seen[s->name] || s->dur > t->tracks[o->longest.track].slices[o->longest.idx].dur)
					o->longest = (struct slice_ref){ ti, i };
				seen[s->name] = 1;
			}
			if (s->cls != SC_KERNEL && s->cls != SC_MEMCPY && s->cls != SC_MEMSET)
				continue;
			r->gpu_ops++;
			const struct gpu_info *g = s->gpu != TT_NONE ? &t->gpu[s->gpu] : NULL;
			if (g == NULL || g->peer.track == TT_NONE || g->peer.track >= t->ntracks)
				continue;
			const struct track *pt = &t->tracks[g->peer.track];
			if (g->peer.idx >= pt->nslices)
				continue;
			bool first = true;
			for (uint32_t p = parent_of(pt, g->peer.idx); p != TT_NONE; p = parent_of(pt, p)) {
				const struct slice *ps = &pt->slices[p];
				if (!tables_counts_as_op(t, ps) || ps->name >= ns)
					continue;
				struct op_row *o = &by[ps->name];
				if (first)
					o->dev_self = tt_add(o->dev_self, s->dur);
				o->dev_total = tt_add(o->dev_total, s->dur);
				if (first)
					r->gpu_ops_linked++;
				first = false;
			}
		}
	}
	uint32_t cap = 64;
	r->rows = xmalloc(cap * sizeof *r->rows);
	for (uint32_t id = 0; id < ns; id++) {
		if (by[id].calls == 0 || !seen[id])
			continue;
		if (r->n == cap)
			r->rows = xreallocarray(r->rows, cap *= 2, sizeof *r->rows);
		r->rows[r->n] = by[id];
		r->rows[r->n].name = id;
		r->n++;
	}
	free(by);
	free(seen);
	if (r->n > 1)
		qsort(r->rows, r->n, sizeof *r->rows, row_cmp);
}

void ops_free(struct op_report *r)
{
	free(r->rows);
	memset(r, 0, sizeof *r);
}
