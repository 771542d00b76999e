/* tables.c: operator and kernel aggregates, computed on demand in one pass. */
#include "src/tables.h"

#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"

/* a + b for non-negative durations, saturating: totals over overlapping slices (nested
 * calls, kernels on several streams) may pass int64 where no single span does. */
static int64_t add_sat(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

bool tables_counts_as_op(const struct trace *t, const struct slice *s)
{
	if (s->cls == SC_CPU_OP)
		return true;
	if (t->legacy && s->cls == SC_OTHER) {
		const char *nm = strtab_get(&t->strings, s->name);
		return strncmp(nm, "ProfilerStep#", 13) != 0;
	}
	return false;
}

static const struct trace *sort_trace;

static int op_cmp(const void *a, const void *b)
{
	const struct op_stat *x = a, *y = b;
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return strcmp(strtab_get(&sort_trace->strings, x->name), strtab_get(&sort_trace->strings, y->name));
}

static int kernel_cmp(const void *a, const void *b)
{
	const struct kernel_stat *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(strtab_get(&sort_trace->strings, x->name), strtab_get(&sort_trace->strings, y->name));
}

struct frame {
	uint32_t idx;
	int64_t child;
};

struct op_stat *tables_ops(const struct trace *t, uint32_t *n)
{
	struct op_stat *by_name = xcalloc(t->strings.n, sizeof *by_name);
	struct frame *stack = NULL;
	uint32_t cap = 0, out = 0;

	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		uint32_t sn = 0;
		if (tr->kind != TRACK_CPU)
			continue;
		for (uint32_t i = 0; i <= tr->nslices; i++) {
			const struct slice *s = i < tr->nslices ? &tr->slices[i] : NULL;
			/* pop what ended before s (everything at the end) */
			while (sn > 0) {
				const struct slice *top = &tr->slices[stack[sn - 1].idx];
				if (s != NULL && top->ts + slice_dur(tr, top) > s->ts)
					break;
				if (tables_counts_as_op(t, top)) {
					struct op_stat *o = &by_name[top->name];
					int64_t self = slice_dur(tr, top) - stack[sn - 1].child;
					o->calls++;
					o->total = add_sat(o->total, slice_dur(tr, top));
					o->self = add_sat(o->self, self > 0 ? self : 0);
				}
				sn--;
			}
			if (s == NULL)
				break;
			if (sn > 0) {
				const struct slice *p = &tr->slices[stack[sn - 1].idx];
				int64_t e = s->ts + slice_dur(tr, s), pe = p->ts + slice_dur(tr, p);
				stack[sn - 1].child += (e < pe ? e : pe) - s->ts;
			}
			if (sn == cap) {
				cap = cap ? cap * 2 : 64;
				stack = xreallocarray(stack, cap, sizeof *stack);
			}
			stack[sn].idx = i;
			stack[sn].child = 0;
			sn++;
		}
	}
	free(stack);
	for (uint32_t id = 0; id < t->strings.n; id++) {
		if (by_name[id].calls == 0)
			continue;
		by_name[out] = by_name[id];
		by_name[out].name = id;
		out++;
	}
	sort_trace = t;
	qsort(by_name, out, sizeof *by_name, op_cmp);
	*n = out;
	return by_name;
}

struct kernel_stat *tables_kernels(const struct trace *t, uint32_t *n)
{
	struct kernel_stat *by_name = xcalloc(t->strings.n, sizeof *by_name);
	uint32_t out = 0;

	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		for (uint32_t i = 0; i < tr->nslices; i++) {
			const struct slice *s = &tr->slices[i];
			if (s->cls != SC_KERNEL)
				continue;
			struct kernel_stat *k = &by_name[s->name];
			if (k->calls == 0 || slice_dur(tr, s) < k->min)
				k->min = slice_dur(tr, s);
			if (slice_dur(tr, s) > k->max)
				k->max = slice_dur(tr, s);
			k->calls++;
			k->total = add_sat(k->total, slice_dur(tr, s));
		}
	}
	for (uint32_t id = 0; id < t->strings.n; id++) {
		if (by_name[id].calls == 0)
			continue;
		by_name[out] = by_name[id];
		by_name[out].name = id;
		out++;
	}
	sort_trace = t;
	qsort(by_name, out, sizeof *by_name, kernel_cmp);
	*n = out;
	return by_name;
}
