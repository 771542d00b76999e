/* advice_finding.c: what the rules of one trace and of several ranks share to make a
 * finding (see advice_finding.h). The worst instances are kept in a fixed array, the least
 * bad of them known once it is full: no allocation per instance. */
#include "src/advice_finding.h"

#include <stdio.h>
#include <string.h>

#include "lib/sort.h"
#include "lib/tmath.h"

const struct slice_ref advice_no_ref = { TT_NONE, TT_NONE };

/* Whether A is worse (listed before) B: larger value, then earlier, then by slice. */
static bool inst_worse(const struct advice_instance *a, const struct advice_instance *b)
{
	if (a->value != b->value)
		return a->value > b->value;
	if (a->rank != b->rank)
		return a->rank < b->rank;
	if (a->start != b->start)
		return a->start < b->start;
	if (a->ref.track != b->ref.track)
		return a->ref.track < b->ref.track;
	return a->ref.idx < b->ref.idx;
}
SORT_DEFINE(sort_insts, struct advice_instance, inst_worse)

void advice_topk_add(struct advice_topk *k, const struct advice_instance *x)
{
	k->count++;
	k->total = tt_add(k->total, x->value);
	if (k->n < TT_ADVICE_MAX_INSTANCES) {
		k->v[k->n++] = *x;
		if (k->n == TT_ADVICE_MAX_INSTANCES) {
			k->min = 0;
			for (uint32_t i = 1; i < k->n; i++)
				if (inst_worse(&k->v[k->min], &k->v[i]))
					k->min = i;
		}
		return;
	}
	if (!inst_worse(x, &k->v[k->min]))
		return;
	k->v[k->min] = *x;
	for (uint32_t i = 0; i < k->n; i++)
		if (inst_worse(&k->v[k->min], &k->v[i]))
			k->min = i;
}

struct advice_instance advice_instance_of(struct slice_ref ref, int64_t start, int64_t end, int64_t value)
{
	struct advice_instance x;
	memset(&x, 0, sizeof x);
	x.ref = ref;
	x.op.track = x.op.idx = x.context.track = x.context.idx = TT_NONE;
	x.start = start;
	x.end = end;
	x.value = value;
	x.bytes = -1;
	return x;
}

void advice_topk_sort(struct advice_topk *k) { sort_insts(k->v, k->n); }

const char *advice_pct(double x, char *buf, size_t n)
{
	snprintf(buf, n, "%.1f%%", 100.0 * x);
	return buf;
}

int advice_finding_cmp(const void *a, const void *b)
{
	const struct advice_finding *x = a, *y = b;
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return (int)x->rule - (int)y->rule;
}
