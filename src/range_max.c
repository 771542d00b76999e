/* range_max.c: a segment tree of maxima over a step plot's values (see range_max.h).
 *
 * The tree is the iterative one for any n: nodes 1..n-1 are inner, node n + i is leaf i
 * (read from the caller's array, so the tree costs n - 1 values, not 2n), and node k's
 * children are 2k and 2k+1. A query climbs from both ends of [lo, hi) at once. */
#include "src/range_max.h"

#include <stdio.h>
#include <stdlib.h>

#include "lib/sort.h"
#include "lib/xalloc.h"

static int64_t node(const struct range_max *m, uint32_t k) { return k >= m->n ? m->leaf[k - m->n] : m->inner[k]; }

void range_max_init(struct range_max *m, const int64_t *v, uint32_t n)
{
	m->leaf = v;
	m->n = n;
	m->inner = xmalloc((n > 1 ? n : 1) * sizeof *m->inner);
	for (uint32_t k = n; k-- > 1;) {
		int64_t a = node(m, 2 * k), b = node(m, 2 * k + 1);
		m->inner[k] = a > b ? a : b;
	}
}

void range_max_release(struct range_max *m)
{
	free(m->inner);
	m->inner = NULL;
	m->n = 0;
}

int64_t range_max_query(const struct range_max *m, uint32_t lo, uint32_t hi)
{
	if (lo >= hi || hi > m->n) {
		fprintf(stderr, "ttrace: BUG: range_max_query [%u, %u) of %u\n", lo, hi, m->n);
		abort();
	}
	/* 64-bit node numbers: 2n may not fit in 32 bits */
	uint64_t l = (uint64_t)lo + m->n, r = (uint64_t)hi + m->n;
	int64_t best = INT64_MIN;
	while (l < r) {
		if (l & 1) {
			int64_t x = node(m, (uint32_t)l++);
			best = x > best ? x : best;
		}
		if (r & 1) {
			int64_t x = node(m, (uint32_t)--r);
			best = x > best ? x : best;
		}
		l >>= 1;
		r >>= 1;
	}
	return best;
}

/* The first sample at or after T. */
static uint32_t first_at(const int64_t *ts, uint32_t n, int64_t t) { return i64_lower_bound(ts, n, t); }

bool step_plot_span(const int64_t *ts, uint32_t n, int64_t t0, int64_t t1, uint32_t *lo, uint32_t *hi)
{
	uint32_t a = first_at(ts, n, t0), b = t1 > t0 ? first_at(ts, n, t1) : a;
	if (a > 0)
		a--; /* the value carried in */
	if (b <= a)
		return false;
	*lo = a;
	*hi = b;
	return true;
}

uint32_t step_plot_at(const int64_t *ts, uint32_t n, int64_t t)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) { /* the first sample after T */
		uint32_t mid = lo + (hi - lo) / 2;
		if (ts[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 ? lo - 1 : UINT32_MAX;
}
