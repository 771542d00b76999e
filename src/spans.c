/* spans.c: interval unions. */
#include "src/spans.h"

#include <stdlib.h>
#include <string.h>

#include "lib/sort.h"
#include "lib/xalloc.h"

static inline bool span_less(const struct span *a, const struct span *b) { return a->start < b->start; }
SORT_DEFINE(sort_spans, struct span, span_less)

/* The union of A[0..NA) and B[0..NB), each sorted by start (they may overlap within
 * themselves), at OUT, which overlaps neither: sorted, disjoint, without empty spans.
 * Returns its length. */
static uint32_t union_two(const struct span *a, uint32_t na, const struct span *b, uint32_t nb, struct span *out)
{
	uint32_t i = 0, j = 0, m = 0;
	while (i < na || j < nb) {
		struct span x = j >= nb || (i < na && a[i].start <= b[j].start) ? a[i++] : b[j++];
		if (x.end <= x.start)
			continue;
		if (m > 0 && x.start <= out[m - 1].end) {
			if (x.end > out[m - 1].end)
				out[m - 1].end = x.end;
		} else {
			out[m++] = x;
		}
	}
	return m;
}

/* Runs of spans sorted by start that spans_merge merges rather than sorts: the analyses
 * collect a list a thread or a stream at a time, a few sorted runs in all. */
#define SPANS_MAX_RUNS 64

/* spans_merge for V made of NRUNS (2..SPANS_MAX_RUNS) runs sorted by start, the run i
 * from AT[i] to AT[i + 1]: unions of pairs of runs, level by level, each union written
 * where its pair was in the other buffer. */
static uint32_t merge_runs(struct span *v, uint32_t n, uint32_t *at, uint32_t *len, uint32_t nruns)
{
	struct span *tmp = xmalloc((size_t)n * sizeof *tmp), *src = v, *dst = tmp;
	for (uint32_t i = 0; i < nruns; i++)
		len[i] = at[i + 1] - at[i];
	while (nruns > 1) {
		uint32_t k = 0;
		for (uint32_t i = 0; i < nruns; i += 2, k++) {
			if (i + 1 == nruns) {
				memcpy(dst + at[i], src + at[i], len[i] * sizeof *dst);
				len[k] = len[i];
			} else {
				len[k] = union_two(src + at[i], len[i], src + at[i + 1], len[i + 1], dst + at[i]);
			}
			at[k] = at[i];
		}
		nruns = k;
		struct span *x = src;
		src = dst;
		dst = x;
	}
	if (src != v)
		memcpy(v, src, len[0] * sizeof *v);
	free(tmp);
	return len[0];
}

uint32_t spans_merge(struct span *v, uint32_t n)
{
	uint32_t at[SPANS_MAX_RUNS + 1], len[SPANS_MAX_RUNS], nruns = 1;
	at[0] = 0;
	for (uint32_t i = 1; i < n && nruns <= SPANS_MAX_RUNS; i++)
		if (v[i].start < v[i - 1].start) {
			if (nruns < SPANS_MAX_RUNS)
				at[nruns] = i;
			nruns++;
		}
	if (nruns > 1 && nruns <= SPANS_MAX_RUNS) {
		at[nruns] = n;
		return merge_runs(v, n, at, len, nruns);
	}
	if (nruns > 1)
		sort_spans(v, n);
	uint32_t m = 0;
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
