/* spans.c: interval unions. */
#include "src/spans.h"

#include "lib/sort.h"
#include "lib/xalloc.h"

static inline bool span_less(const struct span *a, const struct span *b) { return a->start < b->start; }
SORT_DEFINE(sort_spans, struct span, span_less)

uint32_t spans_merge(struct span *v, uint32_t n)
{
	uint32_t m = 0;
	sort_spans(v, n); /* returns at once on sorted input (lib/sort.h) */
	for (uint32_t i = 0; i < n; i++) {
		if (v[i].end <= v[i].start)
			continue;
		if (m > 0 && v[i].start <= v[m - 1].end) {
			if (v[i].end > v[m - 1].end)
				v[m - 1].end = v[i].end;
		} else {
			v[m++] = v[i];
		}
	}
	return m;
}

int64_t spans_within(const struct span *u, uint32_t n, int64_t a, int64_t b)
{
	int64_t s = 0;
	for (uint32_t i = 0; i < n; i++) {
		int64_t x = u[i].start > a ? u[i].start : a, y = u[i].end < b ? u[i].end : b;
		if (y > x)
			s += y - x;
	}
	return s;
}

int64_t *spans_prefix(const struct span *u, uint32_t n)
{
	int64_t *p = xmalloc(((size_t)n + 1) * sizeof *p);
	p[0] = 0;
	for (uint32_t i = 0; i < n; i++)
		p[i + 1] = p[i] + (u[i].end - u[i].start);
	return p;
}

int64_t spans_within_prefix(const struct span *u, const int64_t *prefix, uint32_t n, int64_t a, int64_t b)
{
	uint32_t lo = 0, hi = n, first, last;
	if (b <= a || n == 0)
		return 0;
	while (lo < hi) { /* first span ending after a */
		uint32_t mid = lo + (hi - lo) / 2;
		if (u[mid].end > a)
			hi = mid;
		else
			lo = mid + 1;
	}
	first = lo;
	hi = n;
	while (lo < hi) { /* first span starting at or after b */
		uint32_t mid = lo + (hi - lo) / 2;
		if (u[mid].start >= b)
			hi = mid;
		else
			lo = mid + 1;
	}
	last = lo;
	if (first >= last)
		return 0;
	int64_t s = prefix[last] - prefix[first];
	if (u[first].start < a)
		s -= a - u[first].start;
	if (u[last - 1].end > b)
		s -= u[last - 1].end - b;
	return s;
}

int64_t spans_intersection(const struct span *a, uint32_t na, const struct span *b, uint32_t nb)
{
	int64_t s = 0;
	uint32_t i = 0, j = 0;
	while (i < na && j < nb) {
		int64_t x = a[i].start > b[j].start ? a[i].start : b[j].start;
		int64_t y = a[i].end < b[j].end ? a[i].end : b[j].end;
		if (y > x)
			s += y - x;
		if (a[i].end < b[j].end)
			i++;
		else
			j++;
	}
	return s;
}

int64_t spans_length(const struct span *u, uint32_t n)
{
	int64_t s = 0;
	for (uint32_t i = 0; i < n; i++)
		s += u[i].end - u[i].start;
	return s;
}
