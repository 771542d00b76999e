/* index.c: builds the interval index (see index.h) and answers its queries.
 *
 * Layout per track, after sorting its slices by (start, longer first, file order: the
 * args' offset, then name, category, flags and GPU record, so that ties are ordered alike
 * however the file was parsed):
 * - CPU and other tracks: depth by nesting, with a stack of open slices. A slice that
 *   starts inside the top of the stack but ends after it (a partial overlap) still goes
 *   one row deeper than the stack: every slice previously placed in that row has been
 *   popped, so has ended, and rows stay free of overlaps.
 * - GPU tracks: gpu_user_annotation spans nest in the first rows; kernels, memcpys and
 *   memsets go to the lowest row below them that is free at their start (overflow rows
 *   for overlapping work, never dropped).
 * Rows store slice indices; block_sum holds a prefix sum every ROW_BLOCK slices and
 * max_tree (a segment tree over blocks) the position of the longest slice, so busy time
 * and "which slice covers most of this column" are O(log n). */
#include "src/index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sort.h"
#include "lib/xalloc.h"

/* Outliers: events at ts 0 while the rest of the file lies this far from 0. */
#define OUTLIER_DISTANCE_NS 1000000000000ll /* 1000 s */

/* A track's slices are sorted by start, longer first, then in file order. File order is
 * the order the builder got them in for complete (X) slices, in a parse in one piece or in
 * parts alike; a slice closed from a begin (B/E) is pushed at its end, and in a parse in
 * parts at the merge, so those tie on the begin's args position, name, category, flags.
 * The sort moves a permutation of the slices of TR, then moves the slices and their arrays
 * by it. */
static inline bool perm_less(const uint32_t *x, const uint32_t *y, const struct track *tr)
{
	const struct slice *a = &tr->slices[*x], *b = &tr->slices[*y];
	if (a->ts != b->ts)
		return a->ts < b->ts;
	int64_t ad = slice_dur(tr, a), bd = slice_dur(tr, b);
	if (ad != bd)
		return ad > bd;
	if ((a->flags | b->flags) & SF_FROM_BE) {
		uint64_t aa = track_args_at(tr, *x), ba = track_args_at(tr, *y);
		if (aa != ba)
			return aa < ba;
		if (a->name != b->name)
			return a->name < b->name;
		if (a->cat_ix != b->cat_ix)
			return a->cat_ix < b->cat_ix;
		if (a->flags != b->flags)
			return a->flags < b->flags;
	}
	return *x < *y;
}

SORT_DEFINE_CTX(sort_perm, uint32_t, const struct track *, perm_less)

static void sort_track(struct track *tr)
{
	uint32_t n = tr->nslices;
	uint32_t i = 1;
	for (uint32_t k = 0; i < n; i++) { /* already in order (most tracks nearly are): done */
		k = i - 1;
		if (perm_less(&i, &k, tr))
			break;
	}
	if (i >= n)
		return;
	uint32_t *perm = xreallocarray(NULL, n, sizeof *perm);
	for (i = 0; i < n; i++)
		perm[i] = i;
	sort_perm(perm, n, tr);
	if (tr->nlong > 0) { /* the long lengths, by their new places */
		struct long_dur *moved = xreallocarray(NULL, tr->nlong, sizeof *moved);
		uint32_t m = 0;
		for (i = 0; i < n; i++)
			if (tr->slices[perm[i]].dur32 == SLICE_LONG)
				moved[m++] = (struct long_dur){ i, 0, track_long_dur(tr, perm[i]) };
		BUG_ON(m != tr->nlong);
		free(tr->long_durs);
		tr->long_durs = moved;
		tr->long_cap = m;
	}
	/* position i takes the slice at perm[i]: follow each cycle once, marking placed
	 * positions with perm[i] = i */
	for (i = 0; i < n; i++) {
		if (perm[i] == i)
			continue;
		struct slice s = tr->slices[i];
		uint32_t g = track_gpu_at(tr, i);
		uint64_t args = track_args_at(tr, i);
		uint32_t j = i;
		for (;;) {
			uint32_t k = perm[j];
			perm[j] = j;
			if (k == i) {
				tr->slices[j] = s;
				if (tr->gpu != NULL)
					tr->gpu[j] = g;
				if (tr->args != NULL)
					tr->args[j] = args;
				break;
			}
			tr->slices[j] = tr->slices[k];
			if (tr->gpu != NULL)
				tr->gpu[j] = tr->gpu[k];
			if (tr->args != NULL)
				tr->args[j] = tr->args[k];
			j = k;
		}
	}
	free(perm);
}

/* ---- outliers ------------------------------------------------------------------------ */

static void set_aside_outliers(struct trace *t)
{
	int64_t min_nonzero = INT64_MAX;
	uint64_t zeros = 0;

	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		for (uint32_t i = 0; i < tr->nslices; i++) {
			int64_t ts = tr->slices[i].ts;
			if (ts == 0)
				zeros++;
			else if (ts < min_nonzero && ts > 0)
				min_nonzero = ts;
		}
	}
	if (zeros == 0 || min_nonzero == INT64_MAX || min_nonzero < OUTLIER_DISTANCE_NS)
		return;
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		struct track *tr = &t->tracks[ti];
		uint32_t w = 0, lk = 0, lw = 0; /* long_durs: read at lk, kept at lw */
		for (uint32_t i = 0; i < tr->nslices; i++) {
			struct slice *s = &tr->slices[i];
			bool is_long = s->dur32 == SLICE_LONG;
			if (s->ts == 0) {
				struct quality *q = &t->quality;
				uint64_t k = q->count[Q_TS_ZERO_OUTLIER]++;
				if (k < QUALITY_EXAMPLES) {
					q->ex[Q_TS_ZERO_OUTLIER][k].offset = slice_args(tr, s) >> 24;
					q->ex[Q_TS_ZERO_OUTLIER][k].ts = 0;
					q->ex[Q_TS_ZERO_OUTLIER][k].name = s->name;
					q->ex[Q_TS_ZERO_OUTLIER][k].track = ti;
				}
				if (t->naside == t->aside_cap) {
					t->aside_cap = t->aside_cap ? t->aside_cap * 2 : 16;
					t->aside = xreallocarray(t->aside, t->aside_cap, sizeof *t->aside);
				}
				uint32_t g = slice_gpu(tr, s);
				if (g != TT_NONE && (s->cls == SC_KERNEL || s->cls == SC_MEMCPY || s->cls == SC_MEMSET))
					tr->gpu_slices--;
				/* its GPU facts stay unlinked: no slice refers to them, so relink_gpu_self
				 * leaves their self absent */
				t->aside[t->naside++] = (struct aside_slice){ s->ts, is_long ? tr->long_durs[lk].dur : s->dur32,
				                                               s->name, ti };
				lk += is_long;
				continue;
			}
			if (is_long)
				tr->long_durs[lw++] = (struct long_dur){ w, 0, tr->long_durs[lk++].dur };
			if (tr->gpu != NULL)
				tr->gpu[w] = tr->gpu[i];
			if (tr->args != NULL)
				tr->args[w] = tr->args[i];
			tr->slices[w++] = *s;
		}
		tr->nslices = w;
		tr->nlong = lw;
	}
	/* flow ends at 0 belong to the outliers too */
	uint32_t w = 0;
	for (uint32_t i = 0; i < t->nflow_ends; i++)
		if (t->flow_ends[i].ts != 0)
			t->flow_ends[w++] = t->flow_ends[i];
	t->nflow_ends = w;
	trace_warn(t, "%llu events at ts 0 lie far from the rest of the trace: set aside (not drawn, not in busy time or tables)",
	           (unsigned long long)t->quality.count[Q_TS_ZERO_OUTLIER]);
}

/* ---- per-track layout ------------------------------------------------------------------ */

static void classify_track(struct trace *t, struct track *tr)
{
	uint32_t cpu_side = 0;
	for (uint32_t i = 0; i < tr->nslices; i++) {
		uint8_t c = tr->slices[i].cls;
		if (c == SC_CPU_OP || c == SC_PYTHON || c == SC_RUNTIME || c == SC_USER_ANNOTATION)
			cpu_side++;
	}
	if (tr->gpu_slices > 0 && tr->gpu_slices >= cpu_side) {
		uint32_t kernels = 0;
		for (uint32_t i = 0; i < tr->nslices; i++)
			kernels += tr->slices[i].cls == SC_KERNEL;
		tr->kind = kernels > 0 && tr->comm_kernels * 2 > kernels ? TRACK_GPU_COMM : TRACK_GPU_COMPUTE;
		return;
	}
	if (cpu_side > 0 || t->legacy) {
		tr->kind = TRACK_CPU;
		return;
	}
	if (!tr->pid_is_str && tr->pid >= 0 && !tr->tid_is_str && tr->nslices > 0)
		tr->kind = TRACK_CPU;
	else if (tr->nslices == 0 && tr->named && !tr->pid_is_str && tr->pid >= 0)
		tr->kind = TRACK_CPU;
	else
		tr->kind = TRACK_OTHER;
}

static void name_track(struct trace *t, struct track *tr)
{
	char buf[96];
	if (tr->name != 0) {
		const char *s = strtab_get(&t->strings, tr->name);
		uint32_t n = strtab_len(&t->strings, tr->name);
		if (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) {
			while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
				n--;
			tr->name = strtab_intern(&t->strings, s, n);
		}
		return;
	}
	if (tr->tid_is_str) {
		tr->name = (uint32_t)tr->tid;
		return;
	}
	if (tr->kind == TRACK_GPU_COMPUTE || tr->kind == TRACK_GPU_COMM)
		snprintf(buf, sizeof buf, "stream %lld", (long long)tr->stream);
	else
		snprintf(buf, sizeof buf, "thread %lld", (long long)tr->tid);
	tr->name = strtab_intern(&t->strings, buf, strlen(buf));
}

static void gpu_identity(struct trace *t, struct track *tr)
{
	for (uint32_t i = 0; i < tr->nslices; i++) {
		const struct slice *s = &tr->slices[i];
		uint32_t gi = slice_gpu(tr, s);
		if (gi == TT_NONE || (s->cls != SC_KERNEL && s->cls != SC_MEMCPY && s->cls != SC_MEMSET))
			continue;
		const struct gpu_info *g = &t->gpu[gi];
		if (tr->device < 0 && gpu_device(t, g) >= 0)
			tr->device = gpu_device(t, g);
		if (tr->stream < 0 && gpu_stream(t, g) >= 0)
			tr->stream = gpu_stream(t, g);
		if (tr->device >= 0 && tr->stream >= 0)
			break;
	}
	if (tr->device < 0 && !tr->pid_is_str)
		tr->device = (int32_t)tr->pid;
	if (tr->stream < 0) {
		if (!tr->tid_is_str) {
			tr->stream = tr->tid;
		} else {
			const char *s = strtab_get(&t->strings, (uint32_t)tr->tid);
			const char *d = s;
			while (*d && (*d < '0' || *d > '9'))
				d++;
			if (*d)
				tr->stream = strtoll(d, NULL, 10);
		}
	}
}

static void build_row_sums(struct track *tr, struct row *row)
{
	uint32_t nb = row->n / ROW_BLOCK + 1;
	int64_t acc = 0;
	row->block_sum = xmalloc(nb * sizeof *row->block_sum);
	row->max_dur = 0;
	for (uint32_t i = 0; i < row->n; i++) {
		if (i % ROW_BLOCK == 0)
			row->block_sum[i / ROW_BLOCK] = acc;
		int64_t d = track_dur_at(tr, row->idx[i]);
		acc += d;
		if (d > row->max_dur)
			row->max_dur = d;
	}
	if (row->n % ROW_BLOCK == 0)
		row->block_sum[row->n / ROW_BLOCK] = acc;
}

static void lay_out_cpu(struct trace *t, uint32_t ti, struct track *tr, uint16_t *nrows)
{
	uint32_t *stack = NULL;
	uint32_t sn = 0, scap = 0;
	uint16_t maxd = 0;

	tr->nested = true;
	for (uint32_t i = 0; i < tr->nslices; i++) {
		struct slice *s = &tr->slices[i];
		int64_t end = slice_end_of(tr, s);
		while (sn > 0 && slice_end_of(tr, &tr->slices[stack[sn - 1]]) <= s->ts)
			sn--;
		if (sn > 0 && end > slice_end_of(tr, &tr->slices[stack[sn - 1]])) {
			struct quality *q = &t->quality;
			uint64_t k = q->count[Q_CPU_PARTIAL_OVERLAP]++;
			if (k < QUALITY_EXAMPLES) {
				q->ex[Q_CPU_PARTIAL_OVERLAP][k].offset = slice_args(tr, s) >> 24;
				q->ex[Q_CPU_PARTIAL_OVERLAP][k].ts = s->ts;
				q->ex[Q_CPU_PARTIAL_OVERLAP][k].name = s->name;
				q->ex[Q_CPU_PARTIAL_OVERLAP][k].track = ti;
			}
			s->flags |= SF_PARTIAL;
			tr->nested = false;
		}
		uint16_t d = sn < 65535 ? (uint16_t)sn : 65534;
		if (sn >= 65535)
			tr->nested = false; /* the deepest row holds several levels */
		s->depth = d;
		if (d + 1 > maxd)
			maxd = (uint16_t)(d + 1);
		if (sn == scap) {
			scap = scap ? scap * 2 : 64;
			stack = xreallocarray(stack, scap, sizeof *stack);
		}
		stack[sn++] = i;
	}
	free(stack);
	*nrows = maxd;
}

/* Binary heaps of row numbers: by KEY[row] (smallest first), or by the row number itself. */
static void heap_up(uint32_t *h, uint32_t i, const int64_t *key)
{
	while (i > 0 && key[h[(i - 1) / 2]] > key[h[i]]) {
		uint32_t p = (i - 1) / 2, x = h[p];
		h[p] = h[i];
		h[i] = x;
		i = p;
	}
}

static void heap_down(uint32_t *h, uint32_t n, const int64_t *key, uint32_t i)
{
	for (;;) {
		uint32_t c = 2 * i + 1, x;
		if (c >= n)
			return;
		if (c + 1 < n && key[h[c + 1]] < key[h[c]])
			c++;
		if (key[h[i]] <= key[h[c]])
			return;
		x = h[c];
		h[c] = h[i];
		h[i] = x;
		i = c;
	}
}

static void heap_up_u32(uint32_t *h, uint32_t i)
{
	while (i > 0 && h[(i - 1) / 2] > h[i]) {
		uint32_t p = (i - 1) / 2, x = h[p];
		h[p] = h[i];
		h[i] = x;
		i = p;
	}
}

static void heap_down_u32(uint32_t *h, uint32_t n, uint32_t i)
{
	for (;;) {
		uint32_t c = 2 * i + 1, x;
		if (c >= n)
			return;
		if (c + 1 < n && h[c + 1] < h[c])
			c++;
		if (h[i] <= h[c])
			return;
		x = h[c];
		h[c] = h[i];
		h[i] = x;
		i = c;
	}
}

static void lay_out_gpu(struct trace *t, uint32_t ti, struct track *tr, uint16_t *nrows)
{
	/* pass 1: annotations nest (their depth among themselves; they go below the GPU work) */
	uint32_t *stack = NULL;
	uint32_t sn = 0, scap = 0;
	uint16_t arows = 0;
	for (uint32_t i = 0; i < tr->nslices; i++) {
		struct slice *s = &tr->slices[i];
		if (s->cls != SC_GPU_ANNOTATION)
			continue;
		while (sn > 0 && slice_end_of(tr, &tr->slices[stack[sn - 1]]) <= s->ts)
			sn--;
		uint16_t d = sn < 65535 ? (uint16_t)sn : 65534;
		s->depth = d;
		if (d + 1 > arows)
			arows = (uint16_t)(d + 1);
		if (sn == scap) {
			scap = scap ? scap * 2 : 16;
			stack = xreallocarray(stack, scap, sizeof *stack);
		}
		stack[sn++] = i;
	}
	free(stack);
	/* pass 2: everything else, lowest free row. Slices come in start order, so a row whose
	 * last slice ended by the current start stays free: rows move from BUSY (a heap by
	 * end) to FREE (a heap by row number) as the starts pass their ends, and each slice
	 * takes the lowest free row: O(n log rows) however many overlap. */
	int64_t *last_end = NULL;
	uint32_t *busy = NULL, *free_rows = NULL, nbusy = 0, nfree = 0;
	uint32_t nr = 0, rcap = 0;
	for (uint32_t i = 0; i < tr->nslices; i++) {
		struct slice *s = &tr->slices[i];
		uint32_t r;
		if (s->cls == SC_GPU_ANNOTATION)
			continue;
		while (nbusy > 0 && last_end[busy[0]] <= s->ts) {
			uint32_t row = busy[0];
			busy[0] = busy[--nbusy];
			heap_down(busy, nbusy, last_end, 0);
			free_rows[nfree++] = row;
			heap_up_u32(free_rows, nfree - 1);
		}
		if (nfree > 0) {
			r = free_rows[0];
			free_rows[0] = free_rows[--nfree];
			heap_down_u32(free_rows, nfree, 0);
		} else {
			if (nr == rcap) {
				rcap = rcap ? rcap * 2 : 4;
				last_end = xreallocarray(last_end, rcap, sizeof *last_end);
				busy = xreallocarray(busy, rcap, sizeof *busy);
				free_rows = xreallocarray(free_rows, rcap, sizeof *free_rows);
			}
			r = nr++;
		}
		last_end[r] = slice_end_of(tr, s);
		busy[nbusy++] = r;
		heap_up(busy, nbusy - 1, last_end);
		if (r > 0) {
			struct quality *q = &t->quality;
			uint64_t k = q->count[Q_GPU_OVERLAP]++;
			if (k < QUALITY_EXAMPLES) {
				q->ex[Q_GPU_OVERLAP][k].offset = slice_args(tr, s) >> 24;
				q->ex[Q_GPU_OVERLAP][k].ts = s->ts;
				q->ex[Q_GPU_OVERLAP][k].name = s->name;
				q->ex[Q_GPU_OVERLAP][k].track = ti;
			}
			s->flags |= SF_PARTIAL;
		}
		s->depth = r < 65535 ? (uint16_t)r : 65534;
	}
	free(last_end);
	free(busy);
	free(free_rows);
	/* the annotations' rows after those of the GPU work: the stream's first row shows what
	 * ran on it, never a gpu_user_annotation that would make an idle stream look busy */
	for (uint32_t i = 0; i < tr->nslices && arows > 0; i++)
		if (tr->slices[i].cls == SC_GPU_ANNOTATION) {
			uint32_t d = nr + tr->slices[i].depth;
			tr->slices[i].depth = d < 65535 ? (uint16_t)d : 65534;
		}
	tr->nested = false;
	tr->annotation_rows = arows;
	*nrows = (uint16_t)(arows + nr < 65535 ? arows + nr : 65535);
}

/* The row tree of a track deeper than ROW_TREE_MIN_ROWS whose slices do not nest (GPU
 * overflow rows, CPU partial overlaps), where the rows holding a time need not be 0..D:
 * a complete binary tree over the rows (leaf r = row r, padded to a power of two) whose
 * every node holds the union of its rows' slices as closed, disjoint spans in time order.
 * The deepest row holding a time is found by descending, deeper child first, through the
 * nodes whose union holds it: O(log rows) nodes, each a binary search. Memory: each
 * slice's span once per level. */
#define ROW_TREE_MIN_ROWS 256

/* Appends to SPANS (holding *N of *CAP) the union of the closed spans A[0..na) and
 * B[0..nb), both in time order and disjoint. */
static void union_into(struct span **spans, uint32_t *n, uint32_t *cap, const struct span *a, uint32_t na,
                       const struct span *b, uint32_t nb)
{
	uint32_t i = 0, j = 0, start = *n;
	while (i < na || j < nb) {
		struct span s = j >= nb || (i < na && a[i].start <= b[j].start) ? a[i++] : b[j++];
		if (*n > start && s.start <= (*spans)[*n - 1].end) {
			if (s.end > (*spans)[*n - 1].end)
				(*spans)[*n - 1].end = s.end;
			continue;
		}
		if (*n == *cap)
			*spans = xreallocarray(*spans, *cap = *cap ? *cap * 2 : 1024, sizeof **spans);
		(*spans)[(*n)++] = s;
	}
}

static struct row_tree *build_row_tree(const struct track *tr)
{
	struct row_tree *rt = xcalloc(1, sizeof *rt);
	uint32_t cap = 0, n = 0;
	rt->leaves = 1;
	while (rt->leaves < tr->nrows)
		rt->leaves *= 2;
	rt->first = xcalloc(2 * (size_t)rt->leaves, sizeof *rt->first);
	rt->n = xcalloc(2 * (size_t)rt->leaves, sizeof *rt->n);
	for (uint32_t r = 0; r < tr->nrows; r++) {
		const struct row *row = &tr->rows[r];
		uint32_t node = rt->leaves + r;
		struct span *tmp = xmalloc((row->n ? row->n : 1) * sizeof *tmp);
		for (uint32_t i = 0; i < row->n; i++) {
			const struct slice *sl = &tr->slices[row->idx[i]];
			tmp[i] = (struct span){ sl->ts, slice_end_of(tr, sl) };
		}
		rt->first[node] = n;
		union_into(&rt->spans, &n, &cap, tmp, row->n, NULL, 0); /* touching slices merge */
		rt->n[node] = n - rt->first[node];
		free(tmp);
	}
	for (uint32_t node = rt->leaves; node-- > 1;) {
		uint32_t l = 2 * node, r = 2 * node + 1, start = n;
		/* the children's spans live in rt->spans, which union_into may move: copy offsets */
		uint32_t lf = rt->first[l], ln = rt->n[l], rf = rt->first[r], rn = rt->n[r];
		struct span *tmp = xmalloc(((size_t)ln + rn + 1) * sizeof *tmp);
		memcpy(tmp, rt->spans + lf, ln * sizeof *tmp);
		memcpy(tmp + ln, rt->spans + rf, rn * sizeof *tmp);
		union_into(&rt->spans, &n, &cap, tmp, ln, tmp + ln, rn);
		free(tmp);
		rt->first[node] = start;
		rt->n[node] = n - start;
	}
	return rt;
}

/* True when a span of node NODE holds ts (ends included). */
static bool row_tree_holds(const struct row_tree *rt, uint32_t node, int64_t ts)
{
	const struct span *s = rt->spans + rt->first[node];
	uint32_t lo = 0, hi = rt->n[node];
	while (lo < hi) { /* the first span starting after ts */
		uint32_t mid = lo + (hi - lo) / 2;
		if (s[mid].start <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && ts <= s[lo - 1].end;
}

static void build_rows(struct trace *t, uint32_t ti, struct track *tr)
{
	uint16_t nrows = 0;

	if (tr->nslices == 0)
		return;
	/* the lay-outs write each slice's depth (its row) */
	if (tr->kind == TRACK_GPU_COMPUTE || tr->kind == TRACK_GPU_COMM)
		lay_out_gpu(t, ti, tr, &nrows);
	else
		lay_out_cpu(t, ti, tr, &nrows);
	tr->nrows = nrows;
	tr->rows = xcalloc(nrows, sizeof *tr->rows);
	for (uint32_t i = 0; i < tr->nslices; i++)
		tr->rows[tr->slices[i].depth].n++;
	for (uint16_t r = 0; r < nrows; r++) {
		tr->rows[r].idx = xmalloc((tr->rows[r].n ? tr->rows[r].n : 1) * sizeof(uint32_t));
		tr->rows[r].n = 0;
	}
	for (uint32_t i = 0; i < tr->nslices; i++) {
		struct row *row = &tr->rows[tr->slices[i].depth];
		row->idx[row->n++] = i;
	}
	for (uint16_t r = 0; r < nrows; r++) {
		struct row *row = &tr->rows[r];
		build_row_sums(tr, row);
		/* max tree */
		uint32_t nb = (row->n + ROW_BLOCK - 1) / ROW_BLOCK;
		uint32_t *node = xmalloc((2 * (size_t)nb + 1) * sizeof *node);
		for (uint32_t b = 0; b < nb; b++) {
			uint32_t best = b * ROW_BLOCK;
			for (uint32_t i = b * ROW_BLOCK; i < row->n && i < (b + 1) * ROW_BLOCK; i++)
				if (track_dur_at(tr, row->idx[i]) > track_dur_at(tr, row->idx[best]))
					best = i;
			node[nb + b] = best;
		}
		for (uint32_t b = nb; b-- > 1;) {
			uint32_t l = node[2 * b], rr = node[2 * b + 1];
			node[b] = track_dur_at(tr, row->idx[rr]) > track_dur_at(tr, row->idx[l]) ? rr : l;
		}
		row->max_tree = node;
	}
	if (!tr->nested && nrows > ROW_TREE_MIN_ROWS)
		tr->row_tree = build_row_tree(tr);
}

/* Row 0's slices never overlap; when it holds every slice (one row, and on a GPU track no
 * annotation row) or the rows nest (every slice within one of row 0), their union is row
 * 0, whose sums the index has, and TR keeps no busy spans (a GPU stream's were 16 bytes a
 * kernel). */
static bool busy_is_row0(const struct track *tr)
{
	bool gpu = tr->kind == TRACK_GPU_COMPUTE || tr->kind == TRACK_GPU_COMM;
	return tr->nrows > 0 && (gpu ? tr->nrows == 1 && tr->annotation_rows == 0 : tr->nrows == 1 || tr->nested);
}

static void build_busy(struct track *tr)
{
	uint32_t n = 0, cap = 0;
	struct span *v = NULL;
	int64_t total = 0;
	bool gpu = tr->kind == TRACK_GPU_COMPUTE || tr->kind == TRACK_GPU_COMM, row0 = busy_is_row0(tr);

	if (row0)
		for (uint32_t i = 0; i < tr->rows[0].n; i++)
			total += slice_dur(tr, &tr->slices[tr->rows[0].idx[i]]);
	for (uint32_t i = 0; i < (row0 ? 0 : tr->nslices); i++) {
		const struct slice *s = &tr->slices[i];
		int64_t e = slice_end_of(tr, s);
		if (gpu && s->cls == SC_GPU_ANNOTATION)
			continue;
		if (n > 0 && s->ts <= v[n - 1].end) {
			if (e > v[n - 1].end)
				v[n - 1].end = e;
			continue;
		}
		if (s->dur32 == 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : tr->nslices < 64 ? tr->nslices : 64;
			v = xreallocarray(v, cap, sizeof *v);
		}
		v[n].start = s->ts;
		v[n].end = e;
		n++;
	}
	tr->busy = n ? xreallocarray(v, n, sizeof *v) : (free(v), NULL);
	tr->nbusy = n;
	tr->busy_block_sum = xmalloc((n / ROW_BLOCK + 1) * sizeof *tr->busy_block_sum);
	for (uint32_t i = 0; i < n; i++) {
		if (i % ROW_BLOCK == 0)
			tr->busy_block_sum[i / ROW_BLOCK] = total;
		total += tr->busy[i].end - tr->busy[i].start;
	}
	if (n % ROW_BLOCK == 0)
		tr->busy_block_sum[n / ROW_BLOCK] = total;
	tr->busy_total = total;
}

/* ---- links ----------------------------------------------------------------------------- */

/* Turns the builder's GPU facts into gpu_info, in place (the array grows from 16 to 32
 * bytes a fact, and each fact moves from the last to the first, so none is overwritten
 * before it is read), their links absent until relink_gpu_self and link_launches. */
static void expand_gpu_facts(struct trace *t)
{
	_Static_assert(sizeof(struct gpu_info) >= 2 * sizeof(struct gpu_fact), "a fact must move up");
	if (t->ngpu == 0) {
		free(t->gpu_facts);
		t->gpu_facts = NULL;
		t->gpu_cap = 0;
		return;
	}
	char *base = xreallocarray(t->gpu_facts, t->ngpu, sizeof(struct gpu_info));
	t->gpu_facts = NULL;
	for (uint32_t i = t->ngpu; i-- > 0;) {
		struct gpu_fact f;
		memcpy(&f, base + (size_t)i * sizeof f, sizeof f);
		struct gpu_info g = { f.corr_code, f.ext_code, { TT_NONE, TT_NONE }, { TT_NONE, TT_NONE }, f.place, f.launch };
		memcpy(base + (size_t)i * sizeof g, &g, sizeof g);
	}
	t->gpu = (struct gpu_info *)(void *)base;
	t->gpu_cap = t->ngpu;
}

static void relink_gpu_self(struct trace *t)
{
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		struct track *tr = &t->tracks[ti];
		for (uint32_t i = 0; i < tr->nslices; i++) {
			uint32_t g = slice_gpu(tr, &tr->slices[i]);
			if (g != TT_NONE) {
				t->gpu[g].self.track = ti;
				t->gpu[g].self.idx = i;
			}
		}
	}
}

static inline bool is_gpu_activity(uint8_t cls)
{
	return cls == SC_KERNEL || cls == SC_MEMCPY || cls == SC_MEMSET;
}

/* The correlation id of T's GPU fact G. */
static inline int64_t corr_of(const struct trace *t, uint32_t g)
{
	return gpu_correlation(t, &t->gpu[g]);
}

/* Runtime calls by correlation id, as indices into T's gpu (4 bytes a call rather than a
 * copy of the id beside each): the first in gpu order wins when several share one. */
static inline bool launch_less(const uint32_t *a, const uint32_t *b, const struct trace *t)
{
	int64_t ca = corr_of(t, *a), cb = corr_of(t, *b);
	if (ca != cb)
		return ca < cb;
	return *a < *b;
}

SORT_DEFINE_CTX(sort_launches, uint32_t, const struct trace *, launch_less)

/* Links each kernel, memcpy and memset to the runtime call of the same correlation id:
 * the calls sorted by id (then gpu order), one binary search per GPU operation, so a file
 * whose calls all share one id stays O(n log n). */
static void link_launches(struct trace *t)
{
	uint32_t nrt = 0, nkeys = 0;
	uint32_t *keys;

	for (uint32_t g = 0; g < t->ngpu; g++) {
		const struct gpu_info *gi = &t->gpu[g];
		if (gi->self.track == TT_NONE || gpu_correlation(t, gi) < 0)
			continue;
		if (!is_gpu_activity(t->tracks[gi->self.track].slices[gi->self.idx].cls))
			nrt++;
	}
	keys = xmalloc((nrt ? nrt : 1) * sizeof *keys);
	for (uint32_t g = 0; g < t->ngpu; g++) {
		const struct gpu_info *gi = &t->gpu[g];
		if (gi->self.track == TT_NONE || gpu_correlation(t, gi) < 0 ||
		    is_gpu_activity(t->tracks[gi->self.track].slices[gi->self.idx].cls))
			continue;
		keys[nkeys++] = g;
	}
	sort_launches(keys, nkeys, t);
	uint32_t m = 0;
	for (uint32_t i = 0; i < nkeys; i++)
		if (m == 0 || corr_of(t, keys[m - 1]) != corr_of(t, keys[i]))
			keys[m++] = keys[i];
	for (uint32_t g = 0; g < t->ngpu; g++) {
		struct gpu_info *gi = &t->gpu[g];
		if (gi->self.track == TT_NONE ||
		    !is_gpu_activity(t->tracks[gi->self.track].slices[gi->self.idx].cls))
			continue;
		uint32_t found = TT_NONE;
		int64_t want = gpu_correlation(t, gi);
		if (want >= 0) {
			uint32_t lo = 0, hi = m;
			while (lo < hi) {
				uint32_t mid = lo + (hi - lo) / 2;
				if (corr_of(t, keys[mid]) < want)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < m && corr_of(t, keys[lo]) == want)
				found = keys[lo];
		}
		if (found == TT_NONE) {
			if (nrt > 0) {
				const struct slice *s = &t->tracks[gi->self.track].slices[gi->self.idx];
				struct quality *q = &t->quality;
				uint64_t k = q->count[Q_KERNEL_NO_LAUNCH]++;
				if (k < QUALITY_EXAMPLES) {
					q->ex[Q_KERNEL_NO_LAUNCH][k].offset = track_args_at(&t->tracks[gi->self.track], gi->self.idx) >> 24;
					q->ex[Q_KERNEL_NO_LAUNCH][k].ts = s->ts;
					q->ex[Q_KERNEL_NO_LAUNCH][k].name = s->name;
					q->ex[Q_KERNEL_NO_LAUNCH][k].track = gi->self.track;
				}
			}
			continue;
		}
		gi->peer = t->gpu[found].self;
		if (t->gpu[found].peer.track != TT_NONE)
			t->shared_launch = true;
		t->gpu[found].peer = gi->self;
	}
	free(keys);
}

static inline bool flow_end_less(const struct flow_end *x, const struct flow_end *y)
{
	if (x->cat != y->cat)
		return x->cat < y->cat;
	if (x->id != y->id)
		return x->id < y->id;
	if (x->ts != y->ts)
		return x->ts < y->ts;
	if (x->ph != y->ph) /* s before t before f at equal times */
		return x->ph < y->ph;
	return x->track < y->track;
}

SORT_DEFINE(sort_flow_ends, struct flow_end, flow_end_less)

/* The innermost slice of TR that starts exactly at TS (Kineto puts flow ends there), or
 * TT_NONE: one binary search over the time-sorted slices. */
static uint32_t slice_starting_at(const struct track *tr, int64_t ts)
{
	uint32_t lo = 0, hi = tr->nslices;
	while (lo < hi) { /* first slice starting after ts */
		uint32_t mid = lo + (hi - lo) / 2;
		if (tr->slices[mid].ts <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* equal starts are sorted longest first: the last is the innermost */
	return lo > 0 && tr->slices[lo - 1].ts == ts ? lo - 1 : TT_NONE;
}

static struct slice_ref bind_end(struct trace *t, const struct flow_end *e)
{
	struct slice_ref r = { TT_NONE, TT_NONE };
	if (e->track >= t->ntracks)
		return r;
	uint32_t i = slice_starting_at(&t->tracks[e->track], e->ts);
	if (i == TT_NONE)
		i = index_slice_at(&t->tracks[e->track], e->ts);
	if (i != TT_NONE) {
		r.track = e->track;
		r.idx = i;
	}
	return r;
}

static void flow_note(struct trace *t, enum quality_kind k, const struct flow_end *e)
{
	struct quality *q = &t->quality;
	uint64_t n = q->count[k]++;
	if (n < QUALITY_EXAMPLES) {
		q->ex[k][n].offset = 0;
		q->ex[k][n].ts = e->ts;
		q->ex[k][n].name = e->cat;
		q->ex[k][n].track = e->track;
	}
}

/* Flows are made in two steps. pair_flows, before the index, sorts the flow ends and
 * pairs them into flows written over the ends themselves, so that the ends' array is
 * smaller (a flow per two ends) while the index is built; each end of a flow keeps its
 * track in from.track / to.track. bind_flows, once the index is built, binds each end to
 * its slice.
 *
 * Writing over the ends is safe: a flow takes an 's' and an 'f' end, distinct for each
 * flow, so the M-th flow (0-based) is written when its 'f' end K >= 2M + 1 has been read,
 * and fills bytes [M, M + 1) * sizeof(flow), which end before end K + 1 starts as long as
 * a flow is no bigger than two ends. The one end still needed from before K, an open 's',
 * is read before the flow is written, and no flow is written while an 's' waits. */
_Static_assert(sizeof(struct flow) <= 2 * sizeof(struct flow_end), "a flow must fit in two flow ends");

static void pair_flows(struct trace *t)
{
	struct flow_end *e = t->flow_ends;
	uint32_t n = t->nflow_ends;
	struct flow *flows = (struct flow *)(void *)e;

	sort_flow_ends(e, n);
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i, starts = 0, finishes = 0;
		while (j < n && e[j].cat == e[i].cat && e[j].id == e[i].id) {
			starts += e[j].ph == FLOW_PH_S;
			finishes += e[j].ph == FLOW_PH_F;
			j++;
		}
		if (starts > 1 || finishes > 1)
			flow_note(t, Q_FLOW_REPEATED_ID, &e[i]);
		/* pair each s with the next f in time */
		const struct flow_end *open = NULL;
		for (uint32_t k = i; k < j; k++) {
			if (e[k].ph == FLOW_PH_S) {
				if (open != NULL)
					flow_note(t, Q_FLOW_NO_FINISH, open);
				open = &e[k];
			} else if (e[k].ph == FLOW_PH_F) {
				if (open == NULL) {
					flow_note(t, Q_FLOW_NO_START, &e[k]);
					continue;
				}
				struct flow f;
				f.id_code = trace_id_code(t, (int64_t)e[k].id);
				f.cat = e[k].cat;
				f.ts_from = open->ts;
				f.ts_to = e[k].ts;
				f.from = (struct slice_ref){ open->track, TT_NONE };
				f.to = (struct slice_ref){ e[k].track, TT_NONE };
				memcpy(&flows[t->nflows++], &f, sizeof f);
				open = NULL;
			}
		}
		if (open != NULL)
			flow_note(t, Q_FLOW_NO_FINISH, open);
		i = j;
	}
	if (t->nflows > 0) {
		t->flows = xreallocarray(flows, t->nflows, sizeof *t->flows);
	} else {
		t->flows = NULL;
		free(e);
	}
	t->flow_ends = NULL;
	t->nflow_ends = 0;
	t->flow_ends_cap = 0;
}

static void bind_flows(struct trace *t)
{
	for (uint32_t i = 0; i < t->nflows; i++) {
		struct flow *f = &t->flows[i];
		struct flow_end from = { .id = flow_id(t, f), .ts = f->ts_from, .track = f->from.track, .cat = f->cat };
		struct flow_end to = { .id = flow_id(t, f), .ts = f->ts_to, .track = f->to.track, .cat = f->cat };
		f->from = bind_end(t, &from);
		f->to = bind_end(t, &to);
		if (f->from.track == TT_NONE)
			flow_note(t, Q_FLOW_UNBOUND, &from);
		if (f->to.track == TT_NONE)
			flow_note(t, Q_FLOW_UNBOUND, &to);
	}
}

static int step_cmp(const void *a, const void *b)
{
	const struct step *x = a, *y = b;
	if (x->gpu != y->gpu)
		return x->gpu ? 1 : -1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->number < y->number ? -1 : x->number > y->number;
}

static void find_steps(struct trace *t)
{
	static const char prefix[] = "ProfilerStep#";
	const size_t pn = sizeof prefix - 1;
	uint32_t cap = 0;

	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		if (tr->kind == TRACK_OTHER)
			continue;
		for (uint32_t i = 0; i < tr->nslices; i++) {
			const struct slice *s = &tr->slices[i];
			const char *nm = strtab_get(&t->strings, s->name);
			if (strtab_len(&t->strings, s->name) <= pn || memcmp(nm, prefix, pn) != 0)
				continue;
			if (t->nsteps == cap) {
				cap = cap ? cap * 2 : 16;
				t->steps = xreallocarray(t->steps, cap, sizeof *t->steps);
			}
			struct step *st = &t->steps[t->nsteps++];
			st->number = strtoll(nm + pn, NULL, 10);
			st->ts = s->ts;
			st->dur = slice_dur(tr, s);
			st->ref.track = ti;
			st->ref.idx = i;
			st->gpu = tr->kind != TRACK_CPU;
		}
	}
	if (t->nsteps > 0)
		qsort(t->steps, t->nsteps, sizeof *t->steps, step_cmp);
}

struct span index_trace_span(const struct trace *t)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		if (tr->nslices > 0 && tr->slices[0].ts < lo)
			lo = tr->slices[0].ts;
		for (uint16_t r = 0; r < tr->nrows; r++) {
			const struct row *row = &tr->rows[r];
			if (row->n > 0) {
				int64_t e = slice_end_of(tr, &tr->slices[row->idx[row->n - 1]]);
				if (e > hi)
					hi = e;
			}
		}
	}
	for (uint32_t i = 0; i < t->ninstants; i++) {
		if (t->instants[i].ts < lo)
			lo = t->instants[i].ts;
		if (t->instants[i].ts > hi)
			hi = t->instants[i].ts;
	}
	for (uint32_t i = 0; i < t->nmem; i++) {
		if (t->mem[i].ts < lo)
			lo = t->mem[i].ts;
		if (t->mem[i].ts > hi)
			hi = t->mem[i].ts;
	}
	if (lo == INT64_MAX)
		lo = hi = 0;
	return (struct span){ lo, hi };
}

static void compute_span(struct trace *t)
{
	struct span s = index_trace_span(t);
	t->start = s.start;
	t->end = s.end;
}

static void check_utf8(struct trace *t)
{
	for (uint32_t id = 0; id < t->strings.n; id++) {
		const unsigned char *p = (const unsigned char *)strtab_get(&t->strings, id);
		const unsigned char *e = p + strtab_len(&t->strings, id);
		while (p < e) {
			if (*p < 0x80) {
				p++;
				continue;
			}
			int n = (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2 : (*p & 0xf8) == 0xf0 ? 3 : -1;
			if (n < 0 || e - p <= n || (n == 1 && *p < 0xc2))
				goto bad;
			for (int k = 1; k <= n; k++)
				if ((p[k] & 0xc0) != 0x80)
					goto bad;
			p += n + 1;
		}
		continue;
bad:
		{
			struct quality *q = &t->quality;
			uint64_t k = q->count[Q_INVALID_UTF8]++;
			if (k < QUALITY_EXAMPLES) {
				q->ex[Q_INVALID_UTF8][k].name = id;
				q->ex[Q_INVALID_UTF8][k].track = TT_NONE;
			}
		}
	}
}

void index_build(struct trace *t)
{
	set_aside_outliers(t);
	pair_flows(t);       /* first: the flows take less room than their ends while the index is built */
	expand_gpu_facts(t); /* then: the facts grow to gpu_info once the ends have shrunk */
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		struct track *tr = &t->tracks[ti];
		if (tr->nslices > 0) {
			tr->slices = xreallocarray(tr->slices, tr->nslices, sizeof *tr->slices);
			if (tr->gpu != NULL)
				tr->gpu = xreallocarray(tr->gpu, tr->nslices, sizeof *tr->gpu);
			if (tr->args != NULL)
				tr->args = xreallocarray(tr->args, tr->nslices, sizeof *tr->args);
		}
		tr->cap = tr->nslices;
		sort_track(tr);
		classify_track(t, tr);
		if (tr->kind == TRACK_GPU_COMPUTE || tr->kind == TRACK_GPU_COMM)
			gpu_identity(t, tr);
		name_track(t, tr);
		build_rows(t, ti, tr);
		build_busy(tr);
	}
	relink_gpu_self(t);
	bind_flows(t);
	link_launches(t);
	find_steps(t);
	compute_span(t);
	check_utf8(t);
}

/* ---- queries ------------------------------------------------------------------------------ */

static inline const struct slice *row_slice(const struct track *tr, const struct row *row, uint32_t i)
{
	return &tr->slices[row->idx[i]];
}

/* First position whose slice ends after t, or is a zero-length slice at t or later. */
static uint32_t row_lower(const struct track *tr, const struct row *row, int64_t t)
{
	uint32_t lo = 0, hi = row->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct slice *s = row_slice(tr, row, mid);
		if (slice_end_of(tr, s) > t || s->ts >= t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* First position whose slice starts at or after t. */
static uint32_t row_upper(const struct track *tr, const struct row *row, int64_t t)
{
	uint32_t lo = 0, hi = row->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (row_slice(tr, row, mid)->ts >= t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

void index_row_range(const struct track *tr, uint16_t r, int64_t t0, int64_t t1, uint32_t *first, uint32_t *last)
{
	const struct row *row;
	if (r >= tr->nrows || t1 <= t0) {
		*first = *last = 0;
		return;
	}
	row = &tr->rows[r];
	*first = row_lower(tr, row, t0);
	*last = row_upper(tr, row, t1);
	if (*last < *first)
		*last = *first;
}

static int64_t row_prefix(const struct track *tr, const struct row *row, uint32_t i)
{
	int64_t s = row->block_sum[i / ROW_BLOCK];
	for (uint32_t k = i - i % ROW_BLOCK; k < i; k++)
		s += slice_dur(tr, row_slice(tr, row, k));
	return s;
}

int64_t index_row_busy(const struct track *tr, uint16_t r, int64_t t0, int64_t t1)
{
	uint32_t a, b;
	index_row_range(tr, r, t0, t1, &a, &b);
	if (a >= b)
		return 0;
	const struct row *row = &tr->rows[r];
	int64_t sum = row_prefix(tr, row, b) - row_prefix(tr, row, a);
	const struct slice *f = row_slice(tr, row, a), *l = row_slice(tr, row, b - 1);
	if (f->ts < t0)
		sum -= t0 - f->ts;
	if (slice_end_of(tr, l) > t1)
		sum -= slice_end_of(tr, l) - t1;
	return sum > 0 ? sum : 0;
}

int64_t index_track_busy(const struct track *tr, int64_t t0, int64_t t1)
{
	uint32_t lo = 0, hi = tr->nbusy, a, b;
	if (busy_is_row0(tr))
		return t1 > t0 ? index_row_busy(tr, 0, t0, t1) : 0;
	if (t1 <= t0 || tr->nbusy == 0)
		return 0;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (tr->busy[mid].end > t0)
			hi = mid;
		else
			lo = mid + 1;
	}
	a = lo;
	hi = tr->nbusy;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (tr->busy[mid].start >= t1)
			hi = mid;
		else
			lo = mid + 1;
	}
	b = lo;
	if (a >= b)
		return 0;
	int64_t pa = tr->busy_block_sum[a / ROW_BLOCK], pb = tr->busy_block_sum[b / ROW_BLOCK];
	for (uint32_t k = a - a % ROW_BLOCK; k < a; k++)
		pa += tr->busy[k].end - tr->busy[k].start;
	for (uint32_t k = b - b % ROW_BLOCK; k < b; k++)
		pb += tr->busy[k].end - tr->busy[k].start;
	int64_t sum = pb - pa;
	if (tr->busy[a].start < t0)
		sum -= t0 - tr->busy[a].start;
	if (tr->busy[b - 1].end > t1)
		sum -= tr->busy[b - 1].end - t1;
	return sum;
}

static inline int64_t coverage(const struct track *tr, const struct slice *s, int64_t t0, int64_t t1)
{
	int64_t a = s->ts > t0 ? s->ts : t0, e = slice_end_of(tr, s), b = e < t1 ? e : t1;
	return b > a ? b - a : 0;
}

/* Position of the longest slice among positions [a, b) of the row. */
static uint32_t row_longest(const struct track *tr, const struct row *row, uint32_t a, uint32_t b)
{
	uint32_t best = a;
#define BETTER(i) (slice_dur(tr, row_slice(tr, row, (i))) > slice_dur(tr, row_slice(tr, row, best)))
	uint32_t ba = (a + ROW_BLOCK - 1) / ROW_BLOCK, bb = b / ROW_BLOCK;
	if (ba >= bb) {
		for (uint32_t i = a; i < b; i++)
			if (BETTER(i))
				best = i;
		return best;
	}
	for (uint32_t i = a; i < ba * ROW_BLOCK; i++)
		if (BETTER(i))
			best = i;
	for (uint32_t i = bb * ROW_BLOCK; i < b; i++)
		if (BETTER(i))
			best = i;
	uint32_t nb = (row->n + ROW_BLOCK - 1) / ROW_BLOCK;
	for (uint32_t l = ba + nb, r = bb + nb; l < r; l >>= 1, r >>= 1) {
		if (l & 1) {
			if (BETTER(row->max_tree[l]))
				best = row->max_tree[l];
			l++;
		}
		if (r & 1) {
			r--;
			if (BETTER(row->max_tree[r]))
				best = row->max_tree[r];
		}
	}
#undef BETTER
	return best;
}

uint32_t index_row_dominant(const struct track *tr, uint16_t r, int64_t t0, int64_t t1)
{
	uint32_t a, b, best;
	int64_t cov;
	index_row_range(tr, r, t0, t1, &a, &b);
	if (a >= b)
		return TT_NONE;
	const struct row *row = &tr->rows[r];
	best = a;
	cov = coverage(tr, row_slice(tr, row, a), t0, t1);
	if (b - 1 > a) {
		int64_t c = coverage(tr, row_slice(tr, row, b - 1), t0, t1);
		if (c > cov) {
			best = b - 1;
			cov = c;
		}
	}
	if (b - a > 2) {
		uint32_t m = row_longest(tr, row, a + 1, b - 1);
		if (slice_dur(tr, row_slice(tr, row, m)) > cov)
			best = m;
	}
	return row->idx[best];
}

/* The slice of row R that contains ts (ends included), or TT_NONE. */
static uint32_t row_slice_at(const struct track *tr, uint16_t r, int64_t ts)
{
	const struct row *row = &tr->rows[r];
	uint32_t i = row_lower(tr, row, ts);
	if (i < row->n) {
		const struct slice *s = row_slice(tr, row, i);
		if (s->ts <= ts && ts <= slice_end_of(tr, s))
			return row->idx[i];
	}
	/* a slice ending exactly at ts */
	if (i > 0) {
		const struct slice *s = row_slice(tr, row, i - 1);
		if (s->ts <= ts && ts <= slice_end_of(tr, s))
			return row->idx[i - 1];
	}
	return TT_NONE;
}

uint32_t index_row_slice_at(const struct track *tr, uint16_t r, int64_t ts)
{
	return r < tr->nrows ? row_slice_at(tr, r, ts) : TT_NONE;
}

uint32_t index_slice_at(const struct track *tr, int64_t ts)
{
	if (tr->nested && tr->nrows > 0) {
		/* a slice's parent contains it, so the rows containing ts are 0..D: find D by
		 * binary search, O(log depth) rows instead of every row of a deep thread */
		if (row_slice_at(tr, 0, ts) == TT_NONE)
			return TT_NONE;
		uint16_t lo = 0, hi = (uint16_t)(tr->nrows - 1); /* row lo contains ts */
		while (lo < hi) {
			uint16_t mid = (uint16_t)(lo + (hi - lo + 1) / 2);
			if (row_slice_at(tr, mid, ts) != TT_NONE)
				lo = mid;
			else
				hi = (uint16_t)(mid - 1);
		}
		return row_slice_at(tr, lo, ts);
	}
	if (tr->row_tree != NULL) {
		const struct row_tree *rt = tr->row_tree;
		uint32_t node = 1;
		if (!row_tree_holds(rt, 1, ts))
			return TT_NONE;
		while (node < rt->leaves)
			node = row_tree_holds(rt, 2 * node + 1, ts) ? 2 * node + 1 : 2 * node;
		return row_slice_at(tr, (uint16_t)(node - rt->leaves), ts);
	}
	for (uint16_t r = tr->nrows; r-- > 0;) {
		uint32_t i = row_slice_at(tr, r, ts);
		if (i != TT_NONE)
			return i;
	}
	return TT_NONE;
}

/* ---- nesting ------------------------------------------------------------------------------ */

/* Whether slices of TR's row R nest: rows of CPU threads and other tracks, and a GPU
 * stream's gpu_user_annotation rows; never a stream's kernel rows, which only overflow. */
static bool row_nests(const struct track *tr, uint16_t r)
{
	return (tr->kind != TRACK_GPU_COMPUTE && tr->kind != TRACK_GPU_COMM) || r < tr->annotation_rows;
}

/* The position in ROW of the first slice whose index into tr->slices is IDX or more: a
 * row lists its slices in the track's order, so the indices grow along it. */
static uint32_t row_first_from(const struct row *row, uint32_t idx)
{
	uint32_t lo = 0, hi = row->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (row->idx[mid] >= idx)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Slices are laid out with a stack (lay_out_cpu): a slice at depth d > 0 was pushed over
 * the one at depth d - 1 then on top, which is the last slice of row d - 1 that comes
 * before it in the track's order. */
uint32_t index_parent(const struct track *tr, uint32_t idx)
{
	if (idx >= tr->nslices)
		return TT_NONE;
	const struct slice *s = &tr->slices[idx];
	if (s->depth == 0 || s->depth >= tr->nrows || !row_nests(tr, s->depth) || !row_nests(tr, (uint16_t)(s->depth - 1)))
		return TT_NONE;
	const struct row *row = &tr->rows[s->depth - 1];
	uint32_t p = row_first_from(row, idx);
	if (p == 0)
		return TT_NONE;
	uint32_t par = row->idx[p - 1];
	/* it started no later; always so, but a bad layout must not make a loop */
	return tr->slices[par].ts <= s->ts ? par : TT_NONE;
}

uint32_t index_first_child(const struct track *tr, uint32_t idx)
{
	if (idx >= tr->nslices)
		return TT_NONE;
	const struct slice *s = &tr->slices[idx];
	uint16_t d = (uint16_t)(s->depth + 1);
	if (s->depth == UINT16_MAX || d >= tr->nrows || !row_nests(tr, s->depth) || !row_nests(tr, d))
		return TT_NONE;
	const struct row *row = &tr->rows[d];
	uint32_t p = row_first_from(row, idx + 1);
	if (p == row->n)
		return TT_NONE;
	uint32_t c = row->idx[p];
	return index_parent(tr, c) == idx ? c : TT_NONE;
}
