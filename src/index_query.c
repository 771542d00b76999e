/* index_query.c: the queries of the interval index (see index.h): binary searches over a
 * row's slices, its prefix sums and max tree, a track's busy spans and its row tree, and
 * the nesting of slices by rows. */
#include "src/index.h"

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

static inline const struct slice *row_slice(const struct track *tr, const struct row *row, uint32_t i)
{
	return &tr->slices[row_idx(row, i)];
}

/* The first position of ROW whose slice satisfies COND (a condition on `s` that holds
 * from some position on): the first block whose first slice does, then the block before it
 * searched with one look at its base. */
#define ROW_SEARCH(tr, row, cond)                                                                         \
	do {                                                                                              \
		uint32_t nb_ = ((row)->n + ROW_BLOCK - 1) / ROW_BLOCK, lo_ = 0, hi_ = nb_;                \
		while (lo_ < hi_) {                                                                       \
			uint32_t mid_ = lo_ + (hi_ - lo_) / 2;                                            \
			const struct slice *s = &(tr)->slices[row_block_idx(row_block_at(row, mid_), 0)]; \
			if (cond)                                                                         \
				hi_ = mid_;                                                               \
			else                                                                              \
				lo_ = mid_ + 1;                                                           \
		}                                                                                         \
		if (lo_ == 0)                                                                             \
			return 0;                                                                         \
		/* in block lo_ - 1, past its first: [1, its end) */                                      \
		struct row_block bk_ = row_block_at(row, lo_ - 1);                                        \
		uint32_t at_ = (lo_ - 1) * ROW_BLOCK, a_ = 1,                                             \
			 b_ = (row)->n - at_ < ROW_BLOCK ? (row)->n - at_ : ROW_BLOCK;                    \
		while (a_ < b_) {                                                                         \
			uint32_t mid_ = a_ + (b_ - a_) / 2;                                               \
			const struct slice *s = &(tr)->slices[row_block_idx(bk_, mid_)];                  \
			if (cond)                                                                         \
				b_ = mid_;                                                                \
			else                                                                              \
				a_ = mid_ + 1;                                                            \
		}                                                                                         \
		return at_ + a_;                                                                          \
	} while (0)

/* First position whose slice ends after t, or is a zero-length slice at t or later. */
static uint32_t row_lower(const struct track *tr, const struct row *row, int64_t t)
{
	ROW_SEARCH(tr, row, slice_end_of(tr, s) > t || s->ts >= t);
}

/* First position from FROM on whose slice starts at or after t (FROM itself when none
 * before does), found by galloping from FROM: a range of a column of the timeline holds a
 * slice or two, found in as many looks instead of a search of the whole row. */
static uint32_t row_upper_from(const struct track *tr, const struct row *row, uint32_t from, int64_t t)
{
	uint32_t n = row->n, lo, hi, step = 1;
	if (from >= n || row_slice(tr, row, from)->ts >= t)
		return from;
	lo = from; /* starts before t */
	while (step < n - lo && row_slice(tr, row, lo + step)->ts < t) {
		lo += step;
		step = step < n / 2 ? 2 * step : n;
	}
	hi = step < n - lo ? lo + step : n; /* starts at or after t, or the end */
	lo++;
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
	*last = row_upper_from(tr, row, *first, t1);
}

static int64_t row_prefix(const struct track *tr, const struct row *row, uint32_t i)
{
	int64_t s = row->block_sum[i / ROW_BLOCK];
	if (i % ROW_BLOCK == 0)
		return s;
	struct row_block bk = row_block_at(row, i / ROW_BLOCK);
	for (uint32_t j = 0; j < i % ROW_BLOCK; j++)
		s += track_dur_at(tr, row_block_idx(bk, j));
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
	if (index_busy_is_row0(tr))
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

/* Positions [A, B) of ROW, all in one block, looked at for a longer slice than *BEST's
 * (of length *BEST_DUR): the first longest wins. */
static inline void longest_in_block(const struct track *tr, const struct row *row, uint32_t a, uint32_t b,
                                    uint32_t *best, int64_t *best_dur)
{
	if (a >= b)
		return;
	struct row_block bk = row_block_at(row, a / ROW_BLOCK);
	for (uint32_t i = a; i < b; i++) {
		int64_t d = track_dur_at(tr, row_block_idx(bk, i % ROW_BLOCK));
		if (d > *best_dur) {
			*best = i;
			*best_dur = d;
		}
	}
}

/* Position of the longest slice among positions [a, b) of the row (the first of them in
 * the order looked at: the blocks cut at each end, then the max tree's nodes). */
static uint32_t row_longest(const struct track *tr, const struct row *row, uint32_t a, uint32_t b)
{
	uint32_t best = a;
	int64_t best_dur = slice_dur(tr, row_slice(tr, row, a));
	uint32_t ba = (a + ROW_BLOCK - 1) / ROW_BLOCK, bb = b / ROW_BLOCK;
	if (ba >= bb) {
		/* within one block, or across the boundary of two */
		uint32_t cut = (a / ROW_BLOCK + 1) * ROW_BLOCK < b ? (a / ROW_BLOCK + 1) * ROW_BLOCK : b;
		longest_in_block(tr, row, a + 1, cut, &best, &best_dur);
		longest_in_block(tr, row, cut, b, &best, &best_dur);
		return best;
	}
	longest_in_block(tr, row, a + 1, ba * ROW_BLOCK, &best, &best_dur);
	longest_in_block(tr, row, bb * ROW_BLOCK, b, &best, &best_dur);
	uint32_t nb = (row->n + ROW_BLOCK - 1) / ROW_BLOCK;
	for (uint32_t l = ba + nb, r = bb + nb; l < r; l >>= 1, r >>= 1) {
		if (l & 1) {
			int64_t d = slice_dur(tr, row_slice(tr, row, row->max_tree[l]));
			if (d > best_dur) {
				best = row->max_tree[l];
				best_dur = d;
			}
			l++;
		}
		if (r & 1) {
			r--;
			int64_t d = slice_dur(tr, row_slice(tr, row, row->max_tree[r]));
			if (d > best_dur) {
				best = row->max_tree[r];
				best_dur = d;
			}
		}
	}
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
	return row_idx(row, best);
}

/* The slice of row R that contains ts (ends included), or TT_NONE. */
static uint32_t row_slice_at(const struct track *tr, uint16_t r, int64_t ts)
{
	const struct row *row = &tr->rows[r];
	uint32_t i = row_lower(tr, row, ts);
	if (i < row->n) {
		const struct slice *s = row_slice(tr, row, i);
		if (s->ts <= ts && ts <= slice_end_of(tr, s))
			return row_idx(row, i);
	}
	/* a slice ending exactly at ts */
	if (i > 0) {
		const struct slice *s = row_slice(tr, row, i - 1);
		if (s->ts <= ts && ts <= slice_end_of(tr, s))
			return row_idx(row, i - 1);
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
		if (row_idx(row, mid) >= idx)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Slices are laid out with a stack (lay_out_cpu): a slice at depth d > 0 was pushed over
 * the one at depth d - 1 then on top, which is the last slice of row d - 1 that comes
 * before it in the track's order. */
uint32_t index_parent(const struct trace *t, const struct track *tr, uint32_t idx)
{
	if (idx >= tr->nslices)
		return TT_NONE;
	const struct slice *s = &tr->slices[idx];
	if (slice_depth(t, s) == 0 || slice_depth(t, s) >= tr->nrows || !row_nests(tr, slice_depth(t, s)) ||
	    !row_nests(tr, (uint16_t)(slice_depth(t, s) - 1)))
		return TT_NONE;
	/* the last slice one level up before it: mostly a few slices back (a runtime call
	 * soon after its operator starts), else found in that row by binary search */
	uint16_t up = (uint16_t)(slice_depth(t, s) - 1);
	uint32_t par = TT_NONE;
	for (uint32_t j = idx; j > 0 && idx - j < 8; j--)
		if (slice_depth(t, &tr->slices[j - 1]) == up) {
			par = j - 1;
			break;
		}
	if (par == TT_NONE) {
		const struct row *row = &tr->rows[up];
		uint32_t p = row_first_from(row, idx);
		if (p == 0)
			return TT_NONE;
		par = row_idx(row, p - 1);
	}
	/* it started no later; always so, but a bad layout must not make a loop */
	return tr->slices[par].ts <= s->ts ? par : TT_NONE;
}

uint32_t index_first_child(const struct trace *t, const struct track *tr, uint32_t idx)
{
	if (idx >= tr->nslices)
		return TT_NONE;
	const struct slice *s = &tr->slices[idx];
	uint16_t d = (uint16_t)(slice_depth(t, s) + 1);
	if (slice_depth(t, s) == UINT16_MAX || d >= tr->nrows || !row_nests(tr, slice_depth(t, s)) || !row_nests(tr, d))
		return TT_NONE;
	const struct row *row = &tr->rows[d];
	uint32_t p = row_first_from(row, idx + 1);
	if (p == row->n)
		return TT_NONE;
	uint32_t c = row_idx(row, p);
	return index_parent(t, tr, c) == idx ? c : TT_NONE;
}
