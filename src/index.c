/* index.c: builds the interval index (see index.h); the links between its slices are made
 * by src/index_links.c, its queries answered by src/index_query.c.
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

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>

#include "lib/helper.h"
#include "lib/sort.h"
#include "lib/stage_clock.h"
#include "lib/test_knobs.h"
#include "lib/xalloc.h"
#include "src/index_links.h"
#include "src/kinds.h"

/* Outliers: events at ts 0 while the rest of the file lies this far from 0. */
#define OUTLIER_DISTANCE_NS 1000000000000ll /* 1000 s */

/* A track's slices are sorted by start, longer first, then in file order. File order is
 * the order the builder got them in for complete (X) slices, in a parse in one piece or in
 * parts alike; a slice closed from a begin (B/E) is pushed at its end, and in a parse in
 * parts at the merge, so those tie on the begin's args position, name, category, flags.
 * The sort moves a permutation of the slices of TR, then moves the slices and their arrays
 * by it. */
/* What perm_less compares in: a track, and its trace. */
struct sort_of {
	const struct trace *t;
	const struct track *tr;
};

/* Slices A and B (args references AA and BB) at one start and of one length, one of them
 * closed from a begin: they tie on the begin's args position, name, category, flags
 * (-1: A first, 1: B first, 0: still tied). */
static inline int begin_tie(const struct trace *t, const struct slice *a, uint64_t aa, const struct slice *b,
                            uint64_t ba)
{
	if (aa != ba)
		return aa < ba ? -1 : 1;
	if (slice_name(t, a) != slice_name(t, b))
		return slice_name(t, a) < slice_name(t, b) ? -1 : 1;
	if (slice_cat_ix(t, a) != slice_cat_ix(t, b))
		return slice_cat_ix(t, a) < slice_cat_ix(t, b) ? -1 : 1;
	if (slice_flags(t, a) != slice_flags(t, b))
		return slice_flags(t, a) < slice_flags(t, b) ? -1 : 1;
	return 0;
}

static inline bool perm_less(const uint32_t *x, const uint32_t *y, const struct sort_of *so)
{
	const struct trace *t = so->t;
	const struct track *tr = so->tr;
	const struct slice *a = &tr->slices[*x], *b = &tr->slices[*y];
	if (a->ts != b->ts)
		return a->ts < b->ts;
	int64_t ad = slice_dur(tr, a), bd = slice_dur(tr, b);
	if (ad != bd)
		return ad > bd;
	if ((slice_flags(t, a) | slice_flags(t, b)) & SF_FROM_BE) {
		int c = begin_tie(t, a, track_args_at(tr, *x), b, track_args_at(tr, *y));
		if (c != 0)
			return c < 0;
	}
	return *x < *y;
}

SORT_DEFINE_CTX(sort_perm, uint32_t, const struct sort_of *, perm_less)

/* A track out of order in a few places only is a few runs in order, merged (most are: a
 * late event or two, or the seam of two parts of a file: a 100 MB trace's four tracks to
 * sort had one or two places each, its legacy twin's one thread 63,000). */
#define SORT_MERGE_RUNS 8

/* Slices from which a track's new order is gathered into new arrays rather than put in
 * place by following the permutation's cycles: the cycles of two runs merged over a whole
 * trace jump between the runs, a cache miss a slice once the track outgrows the cache (the
 * 10 GB trace's two biggest tracks, 10.8 and 7.2 million slices in two or three runs: 30% of
 * the load's CPU, bench/RESULTS.md "The 10 GB row again"), while a gather reads each run in
 * order. It holds the track's arrays twice for a moment (32 bytes a slice), so only tracks
 * of 4 GB traces and more take it: a 100 MB trace's peak is the memory row's. */
#define GATHER_MIN ((uint32_t)4 << 20)

/* Asks for huge pages under the LEN bytes at P about to be written (a new array of a
 * gather: hundreds of MB faulted 4 KB at a time cost more system time than the gather
 * saved). Only advice: nothing changes where the system says no. */
static void huge_pages(void *p, size_t len)
{
#if defined(MADV_HUGEPAGE)
	const uintptr_t big = (uintptr_t)2 << 20;
	uintptr_t a = ((uintptr_t)p + big - 1) & ~(big - 1), e = ((uintptr_t)p + len) & ~(big - 1);
	if (e > a)
		madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
	(void)p;
	(void)len;
#endif
}

/* A new array of N elements of SIZE bytes whose element i is A's element PERM[i] (A is
 * freed): the gather of sort_track. */
static inline void *gathered(void *a, size_t size, const uint32_t *perm, uint32_t n)
{
	char *out = xreallocarray(NULL, n, size);
	huge_pages(out, (size_t)n * size);
	for (uint32_t i = 0; i < n; i++)
		memcpy(out + (size_t)i * size, (const char *)a + (size_t)perm[i] * size, size);
	free(a);
	return out;
}

/* Merges PERM's runs [LO, MID) and [MID, HI), each in order, through TMP (room for the
 * shorter one): the order is total (perm_less ends on the slice's index), so the result is
 * the sort's. */
static void merge_runs(uint32_t *perm, uint32_t lo, uint32_t mid, uint32_t hi, uint32_t *tmp, const struct sort_of *so)
{
	if (mid - lo <= hi - mid) { /* the first run aside, merged from the front */
		uint32_t na = mid - lo, i = 0, j = mid, k = lo;
		memcpy(tmp, perm + lo, na * sizeof *tmp);
		while (i < na) {
			if (j < hi && perm_less(&perm[j], &tmp[i], so))
				perm[k++] = perm[j++];
			else
				perm[k++] = tmp[i++];
		}
	} else { /* the second run aside, merged from the back */
		uint32_t nb = hi - mid, i = mid, j = nb, k = hi;
		memcpy(tmp, perm + mid, nb * sizeof *tmp);
		while (j > 0) {
			if (i > lo && perm_less(&tmp[j - 1], &perm[i - 1], so))
				perm[--k] = perm[--i];
			else
				perm[--k] = tmp[--j];
		}
	}
}

/* Whether slice A (args reference AA) comes strictly before slice B (BB) in perm_less's
 * order leaving the file order out, both of a track without long lengths. */
static inline bool key_less(const struct trace *t, const struct slice *a, uint64_t aa, const struct slice *b,
                            uint64_t ba)
{
	if (a->ts != b->ts)
		return a->ts < b->ts;
	if (a->dur32 != b->dur32)
		return a->dur32 > b->dur32;
	return ((slice_flags(t, a) | slice_flags(t, b)) & SF_FROM_BE) && begin_tie(t, a, aa, b, ba) < 0;
}

/* Sorts TR (no long lengths; [0, FROM) in order) in place by insertion, each slice moved
 * back past the later ones it comes before, so that equal slices keep their file order:
 * the order of sort_perm without its permutation (4 bytes a slice at the peak of a
 * legacy trace's load, whose one thread comes in 63,000 runs, each slice at most 14
 * places from its own). Gives up, the array still the same slices with those before the
 * one it stopped at in order, once a slice would move back more than SORT_NEAR_SHIFT
 * places (MAX_SHIFT: TTRACE_TEST_SORT_NEAR) or the moves add up to more than SORT_NEAR_WORK
 * a slice: false. */
#define SORT_NEAR_SHIFT 256
#define SORT_NEAR_WORK 8
static bool sort_nearby(const struct trace *t, struct track *tr, uint32_t from, uint32_t max_shift)
{
	uint32_t n = tr->nslices;
	uint64_t budget = (uint64_t)n * SORT_NEAR_WORK;
	struct slice *sl = tr->slices;
	for (uint32_t i = from; i < n; i++) {
		uint64_t ai = track_args_at(tr, i);
		if (!key_less(t, &sl[i], ai, &sl[i - 1], track_args_at(tr, i - 1)))
			continue;
		uint32_t j = i - 1;
		while (j > 0 && i - j <= max_shift && key_less(t, &sl[i], ai, &sl[j - 1], track_args_at(tr, j - 1)))
			j--;
		if (i - j > max_shift || i - j > budget)
			return false;
		budget -= i - j;
		struct slice s = sl[i];
		memmove(&sl[j + 1], &sl[j], (size_t)(i - j) * sizeof *sl);
		sl[j] = s;
		if (tr->gpu != NULL) {
			uint32_t g = tr->gpu[i];
			memmove(&tr->gpu[j + 1], &tr->gpu[j], (size_t)(i - j) * sizeof *tr->gpu);
			tr->gpu[j] = g;
		}
		if (tr->args != NULL) {
			memmove(&tr->args[j + 1], &tr->args[j], (size_t)(i - j) * sizeof *tr->args);
			tr->args[j] = ai;
		}
	}
	return true;
}

static void sort_track(const struct trace *t, struct track *tr, uint64_t gather_min, uint32_t near_shift)
{
	const struct sort_of so = { t, tr };
	uint32_t n = tr->nslices;
	uint32_t i = 1;
	for (uint32_t k = 0; i < n; i++) { /* already in order (most tracks nearly are): done */
		k = i - 1;
		if (perm_less(&i, &k, &so))
			break;
	}
	if (i >= n)
		return;
	if (tr->nlong == 0 && sort_nearby(t, tr, i, near_shift))
		return;
	/* where the runs in order begin, when there are few (the slices before I in order,
	 * whether sort_nearby moved some or none) */
	i = 1;
	for (uint32_t k = 0; i < n; i++) {
		k = i - 1;
		if (perm_less(&i, &k, &so))
			break;
	}
	uint32_t starts[SORT_MERGE_RUNS + 1], nruns = 1;
	starts[0] = 0;
	for (uint32_t k = i - 1; i < n && nruns <= SORT_MERGE_RUNS; k = i++)
		if (perm_less(&i, &k, &so))
			starts[nruns++] = i;
	uint32_t *perm = xreallocarray(NULL, n, sizeof *perm);
	for (i = 0; i < n; i++)
		perm[i] = i;
	if (nruns <= SORT_MERGE_RUNS) {
		/* each run merged into all those before it, the shorter side set aside */
		uint32_t aside = 1;
		for (uint32_t r = 1; r < nruns; r++) {
			uint32_t len = (r + 1 < nruns ? starts[r + 1] : n) - starts[r];
			uint32_t shorter = len < starts[r] ? len : starts[r];
			if (shorter > aside)
				aside = shorter;
		}
		uint32_t *tmp = xreallocarray(NULL, aside, sizeof *tmp);
		for (uint32_t r = 1; r < nruns; r++)
			merge_runs(perm, 0, starts[r], r + 1 < nruns ? starts[r + 1] : n, tmp, &so);
		free(tmp);
	} else {
		sort_perm(perm, n, &so);
	}
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
	if (n >= gather_min) {
		/* a big track: position i takes the slice at perm[i], gathered into new arrays */
		tr->slices = gathered(tr->slices, sizeof *tr->slices, perm, n);
		if (tr->gpu != NULL)
			tr->gpu = gathered(tr->gpu, sizeof *tr->gpu, perm, n);
		if (tr->args != NULL)
			tr->args = gathered(tr->args, sizeof *tr->args, perm, n);
		free(perm);
		return;
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
					q->ex[Q_TS_ZERO_OUTLIER][k].name = slice_name(t, s);
					q->ex[Q_TS_ZERO_OUTLIER][k].track = ti;
				}
				if (t->naside == t->aside_cap) {
					t->aside_cap = t->aside_cap ? t->aside_cap * 2 : 16;
					t->aside = xreallocarray(t->aside, t->aside_cap, sizeof *t->aside);
				}
				uint32_t g = slice_gpu(tr, s);
				if (g != TT_NONE && (slice_cls(t, s) == SC_KERNEL || slice_cls(t, s) == SC_MEMCPY ||
				                     slice_cls(t, s) == SC_MEMSET))
					tr->gpu_slices--;
				/* its GPU facts stay unlinked: no slice refers to them, so
				 * index_gpu_facts numbers them after the others' (gpu_self: none) */
				t->aside[t->naside++] =
					(struct aside_slice){ s->ts, is_long ? tr->long_durs[lk].dur : s->dur32,
					                      slice_name(t, s), ti };
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
	trace_warn(
		t,
		"%llu events at ts 0 lie far from the rest of the trace: set aside (not drawn, not in busy time or tables)",
		(unsigned long long)t->quality.count[Q_TS_ZERO_OUTLIER]);
}

/* ---- per-track layout ------------------------------------------------------------------ */

/* A track of CUPTI range-profiler ranges (Kineto writes them on pid = device, tid 0) is a
 * pseudo-track: drawn, but neither a GPU stream nor a CPU thread to any analysis. */
static void classify_track(struct trace *t, struct track *tr)
{
	uint32_t cpu_side = 0, ranges = 0;
	for (uint32_t i = 0; i < tr->nslices; i++) {
		uint8_t c = slice_cls(t, &tr->slices[i]);
		if (c == SC_CPU_OP || c == SC_PYTHON || c == SC_RUNTIME || c == SC_USER_ANNOTATION)
			cpu_side++;
		ranges += c == SC_PROFILER_RANGE;
	}
	if (ranges > 0 && ranges >= tr->gpu_slices && ranges >= cpu_side) {
		tr->kind = TRACK_OTHER;
		return;
	}
	if (tr->gpu_slices > 0 && tr->gpu_slices >= cpu_side) {
		uint32_t kernels = 0;
		for (uint32_t i = 0; i < tr->nslices; i++)
			kernels += slice_cls(t, &tr->slices[i]) == SC_KERNEL;
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
	else if (tr->kind == TRACK_OTHER && tr->nslices > 0 && slice_cls(t, &tr->slices[0]) == SC_PROFILER_RANGE)
		snprintf(buf, sizeof buf, "profiler ranges (GPU %lld)", (long long)tr->pid);
	else
		snprintf(buf, sizeof buf, "thread %lld", (long long)tr->tid);
	tr->name = strtab_intern(&t->strings, buf, strlen(buf));
}

static void gpu_identity(struct trace *t, struct track *tr)
{
	for (uint32_t i = 0; i < tr->nslices; i++) {
		const struct slice *s = &tr->slices[i];
		uint32_t gi = slice_gpu(tr, s);
		if (gi == TT_NONE ||
		    (slice_cls(t, s) != SC_KERNEL && slice_cls(t, s) != SC_MEMCPY && slice_cls(t, s) != SC_MEMSET))
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
		int64_t d = track_dur_at(tr, row_idx(row, i));
		acc += d;
		if (d > row->max_dur)
			row->max_dur = d;
	}
	if (row->n % ROW_BLOCK == 0)
		row->block_sum[row->n / ROW_BLOCK] = acc;
}

/* What set_row interned last on a thread, by (kind, row, partial): a lay-out gives most
 * slices a kind it gave one before. */
#define ROW_MEMO 4096
struct row_memo {
	uint32_t from[ROW_MEMO], to[ROW_MEMO];
	uint16_t row[ROW_MEMO];
	uint8_t partial[ROW_MEMO];
};

static void row_memo_init(struct row_memo *m)
{
	for (int i = 0; i < ROW_MEMO; i++)
		m->from[i] = TT_NONE;
}

/* Gives slice S of T row D and, with PARTIAL, the partial flag: its kind interned again. */
static void set_row(struct trace *t, struct row_memo *m, struct slice *s, uint16_t d, bool partial)
{
	uint32_t h = (uint32_t)(((uint64_t)s->kind << 17 ^ (uint64_t)d << 1 ^ partial) * 0x9e3779b97f4a7c15ull >> 52) %
	             ROW_MEMO;
	if (m->from[h] == s->kind && m->row[h] == d && m->partial[h] == partial) {
		s->kind = m->to[h];
		return;
	}
	struct slice_kind k = *slice_kind_of(t, s);
	k.depth = d;
	if (partial)
		k.flags |= SF_PARTIAL;
	m->from[h] = s->kind;
	m->row[h] = d;
	m->partial[h] = partial;
	s->kind = m->to[h] = kinds_intern(t, k);
}

static void lay_out_cpu(struct trace *t, struct row_memo *m, struct quality *q, uint32_t ti, struct track *tr,
                        uint16_t *nrows)
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
		bool partial = false;
		if (sn > 0 && end > slice_end_of(tr, &tr->slices[stack[sn - 1]])) {
			uint64_t k = q->count[Q_CPU_PARTIAL_OVERLAP]++;
			if (k < QUALITY_EXAMPLES) {
				q->ex[Q_CPU_PARTIAL_OVERLAP][k].offset = slice_args(tr, s) >> 24;
				q->ex[Q_CPU_PARTIAL_OVERLAP][k].ts = s->ts;
				q->ex[Q_CPU_PARTIAL_OVERLAP][k].name = slice_name(t, s);
				q->ex[Q_CPU_PARTIAL_OVERLAP][k].track = ti;
			}
			partial = true;
			tr->nested = false;
		}
		uint16_t d = sn < 65535 ? (uint16_t)sn : 65534;
		if (sn >= 65535)
			tr->nested = false; /* the deepest row holds several levels */
		set_row(t, m, s, d, partial);
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

/* Whether slice S of a GPU stream is drawn beside its work rather than as work: a
 * gpu_user_annotation, or a cuda_sync span (Kineto's and the recorder's: the stream
 * waiting, not running anything, so no overlap with the work it waits for). */
static bool beside_work(const struct trace *t, const struct slice *s)
{
	return slice_cls(t, s) == SC_GPU_ANNOTATION || slice_cls(t, s) == SC_SYNC;
}

static void lay_out_gpu(struct trace *t, struct row_memo *m, struct quality *q, uint32_t ti, struct track *tr,
                        uint16_t *nrows)
{
	/* pass 1: annotations and waits nest among themselves; they go below the GPU work */
	uint32_t *stack = NULL;
	uint32_t sn = 0, scap = 0;
	uint16_t arows = 0;
	for (uint32_t i = 0; i < tr->nslices; i++) {
		struct slice *s = &tr->slices[i];
		if (!beside_work(t, s))
			continue;
		while (sn > 0 && slice_end_of(tr, &tr->slices[stack[sn - 1]]) <= s->ts)
			sn--;
		uint16_t d = sn < 65535 ? (uint16_t)sn : 65534;
		set_row(t, m, s, d, false);
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
		if (beside_work(t, s))
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
		bool partial = false;
		if (r > 0) {
			uint64_t k = q->count[Q_GPU_OVERLAP]++;
			if (k < QUALITY_EXAMPLES) {
				q->ex[Q_GPU_OVERLAP][k].offset = slice_args(tr, s) >> 24;
				q->ex[Q_GPU_OVERLAP][k].ts = s->ts;
				q->ex[Q_GPU_OVERLAP][k].name = slice_name(t, s);
				q->ex[Q_GPU_OVERLAP][k].track = ti;
			}
			partial = true;
		}
		set_row(t, m, s, r < 65535 ? (uint16_t)r : 65534, partial);
	}
	free(last_end);
	free(busy);
	free(free_rows);
	/* the annotations' rows after those of the GPU work: the stream's first row shows what
	 * ran on it, never a gpu_user_annotation that would make an idle stream look busy */
	for (uint32_t i = 0; i < tr->nslices && arows > 0; i++)
		if (beside_work(t, &tr->slices[i])) {
			uint32_t d = nr + slice_depth(t, &tr->slices[i]);
			set_row(t, m, &tr->slices[i], d < 65535 ? (uint16_t)d : 65534, false);
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
			const struct slice *sl = &tr->slices[row_idx(row, i)];
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

/* Appends slice I to ROW (row.lo and row.base hold room for every entry): in its block's
 * 2-byte distances while the block's entries lie within SPAN of its first (ROW_SPAN; less
 * under TTRACE_TEST_ROW_SPAN), else the block becomes wide, its entries copied whole. */
static void row_append(struct row *row, uint32_t i, uint32_t span)
{
	uint32_t p = row->n++, b = p / ROW_BLOCK, at = p % ROW_BLOCK;
	if (at == 0 && i < ROW_WIDE) {
		row->base[b] = i;
		row->lo[p] = 0;
		return;
	}
	if (at != 0 && !(row->base[b] & ROW_WIDE) && i - row->base[b] <= span) {
		row->lo[p] = (uint16_t)(i - row->base[b]);
		return;
	}
	if (at == 0 || !(row->base[b] & ROW_WIDE)) {
		uint32_t k = row->nwide++;
		if ((k & (k - 1)) == 0) /* room for 1, 2, 4, 8... blocks: a row of many grows in log steps */
			row->wide = xreallocarray(row->wide, (size_t)(k ? 2 * k : 1) * ROW_BLOCK, sizeof *row->wide);
		for (uint32_t j = 0; j < at; j++) {
			row->wide[(size_t)k * ROW_BLOCK + j] = row->base[b] + row->lo[b * ROW_BLOCK + j];
			row->lo[b * ROW_BLOCK + j] = 0;
		}
		for (uint32_t j = at; j < ROW_BLOCK; j++)
			row->wide[(size_t)k * ROW_BLOCK + j] = 0;
		row->base[b] = ROW_WIDE | k;
	}
	row->lo[p] = 0;
	row->wide[(size_t)(row->base[b] & ~ROW_WIDE) * ROW_BLOCK + at] = i;
}

static void build_rows(struct trace *t, struct row_memo *m, struct quality *q, uint32_t ti, struct track *tr,
                       uint32_t span)
{
	uint16_t nrows = 0;

	if (tr->nslices == 0)
		return;
	/* the lay-outs write each slice's depth (its row), and what they find into Q */
	if (tr->kind == TRACK_GPU_COMPUTE || tr->kind == TRACK_GPU_COMM)
		lay_out_gpu(t, m, q, ti, tr, &nrows);
	else
		lay_out_cpu(t, m, q, ti, tr, &nrows);
	tr->nrows = nrows;
	tr->rows = xcalloc(nrows, sizeof *tr->rows);
	for (uint32_t i = 0; i < tr->nslices; i++)
		tr->rows[slice_depth(t, &tr->slices[i])].n++;
	for (uint16_t r = 0; r < nrows; r++) {
		struct row *row = &tr->rows[r];
		row->lo = xmalloc((row->n ? row->n : 1) * sizeof *row->lo);
		row->base = xcalloc((row->n + ROW_BLOCK - 1) / ROW_BLOCK + 1, sizeof *row->base);
		row->n = 0;
	}
	for (uint32_t i = 0; i < tr->nslices; i++) {
		struct row *row = &tr->rows[slice_depth(t, &tr->slices[i])];
		uint32_t p = row->n, b = row->base[p / ROW_BLOCK];
		/* most entries: within their block's span, the block not wide */
		if (p % ROW_BLOCK != 0 && !(b & ROW_WIDE) && i - b <= span) {
			row->lo[p] = (uint16_t)(i - b);
			row->n = p + 1;
		} else {
			row_append(row, i, span);
		}
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
				if (track_dur_at(tr, row_idx(row, i)) > track_dur_at(tr, row_idx(row, best)))
					best = i;
			node[nb + b] = best;
		}
		for (uint32_t b = nb; b-- > 1;) {
			uint32_t l = node[2 * b], rr = node[2 * b + 1];
			node[b] = track_dur_at(tr, row_idx(row, rr)) > track_dur_at(tr, row_idx(row, l)) ? rr : l;
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
bool index_busy_is_row0(const struct track *tr)
{
	bool gpu = tr->kind == TRACK_GPU_COMPUTE || tr->kind == TRACK_GPU_COMM;
	return tr->nrows > 0 && (gpu ? tr->nrows == 1 && tr->annotation_rows == 0 : tr->nrows == 1 || tr->nested);
}

static void build_busy(const struct trace *t, struct track *tr)
{
	uint32_t n = 0, cap = 0;
	struct span *v = NULL;
	int64_t total = 0;
	bool gpu = tr->kind == TRACK_GPU_COMPUTE || tr->kind == TRACK_GPU_COMM, row0 = index_busy_is_row0(tr);

	if (row0)
		for (uint32_t i = 0; i < tr->rows[0].n; i++)
			total += slice_dur(tr, &tr->slices[row_idx(&tr->rows[0], i)]);
	for (uint32_t i = 0; i < (row0 ? 0 : tr->nslices); i++) {
		const struct slice *s = &tr->slices[i];
		int64_t e = slice_end_of(tr, s);
		if (gpu && slice_cls(t, s) == SC_GPU_ANNOTATION)
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
				int64_t e = slice_end_of(tr, &tr->slices[row_idx(row, row->n - 1)]);
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
/* clang-format off */
bad:
		{
			struct quality *q = &t->quality;
			uint64_t k = q->count[Q_INVALID_UTF8]++;
			if (k < QUALITY_EXAMPLES) {
				q->ex[Q_INVALID_UTF8][k].name = id;
				q->ex[Q_INVALID_UTF8][k].track = TT_NONE;
			}
		}
		/* clang-format on */
	}
}

/* ---- the tracks' part, on two threads --------------------------------------------------
 * Each track is sorted, then classified and named (which read its first slices and intern
 * strings: one thread), then laid out in rows with its sums (what the lay-outs find goes to
 * a quality of their own, added to the trace's in track order: the examples are those a
 * single thread keeps). A big trace's tracks are sorted by both threads from one list, and
 * laid out in two runs of about as many slices, the second on the helper (lib/helper.h):
 * this stage was a single core's, the other idle, after the parse of one file (350 ms of a
 * 1 GB trace's load). */

#define INDEX_TWO_THREADS_MIN 200000 /* slices: below, a thread costs more than it saves */

struct track_run {
	struct trace *t;
	uint32_t from, to; /* tracks [from, to) */
	struct quality q;  /* the lay-outs' findings */
	struct row_memo memo;
	uint32_t row_span; /* ROW_SPAN, or TTRACE_TEST_ROW_SPAN */
};

static void track_sort_one(const struct trace *t, struct track *tr, uint64_t gather_min, uint32_t near_shift)
{
	if (tr->nslices > 0) {
		tr->slices = xreallocarray(tr->slices, tr->nslices, sizeof *tr->slices);
		if (tr->gpu != NULL)
			tr->gpu = xreallocarray(tr->gpu, tr->nslices, sizeof *tr->gpu);
		if (tr->args != NULL)
			tr->args = xreallocarray(tr->args, tr->nslices, sizeof *tr->args);
	}
	tr->cap = tr->nslices;
	sort_track(t, tr, gather_min, near_shift);
}

/* The tracks' sorts, shared by the threads: each takes the next track, the biggest first,
 * so that they end together whatever the tracks' sizes (the sorts find nothing to note:
 * their order does not matter). */
struct sort_pool {
	struct trace *t;
	const uint32_t *order; /* track indices, most slices first */
	uint32_t n;
	uint64_t gather_min; /* GATHER_MIN, or TTRACE_TEST_GATHER_MIN */
	uint32_t near_shift; /* SORT_NEAR_SHIFT, or TTRACE_TEST_SORT_NEAR */
	atomic_uint next;
};

static void sort_pool_run(struct sort_pool *p)
{
	for (;;) {
		unsigned i = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
		if (i >= p->n)
			break;
		track_sort_one(p->t, &p->t->tracks[p->order[i]], p->gather_min, p->near_shift);
	}
}

static void sort_pool_task(void *arg) { sort_pool_run(arg); }

static int more_slices_first(const void *a, const void *b, void *ctx)
{
	const struct trace *t = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint32_t nx = t->tracks[x].nslices, ny = t->tracks[y].nslices;
	if (nx != ny)
		return nx > ny ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void track_run(void *arg)
{
	struct track_run *r = arg;
	row_memo_init(&r->memo);
	for (uint32_t ti = r->from; ti < r->to; ti++) {
		struct track *tr = &r->t->tracks[ti];
		build_rows(r->t, &r->memo, &r->q, ti, tr, r->row_span);
		build_busy(r->t, tr);
	}
}

/* Adds the findings FROM (counted after those of INTO) to INTO, examples in order. */
static void quality_add(struct quality *into, const struct quality *from)
{
	for (int k = 0; k < Q__COUNT; k++) {
		for (uint64_t j = 0; j < from->count[k] && j < QUALITY_EXAMPLES; j++)
			if (into->count[k] + j < QUALITY_EXAMPLES)
				into->ex[k][into->count[k] + j] = from->ex[k][j];
		into->count[k] += from->count[k];
	}
}

/* Lays out every track over runs R[0] (this thread) and R[1] (helper H's, or this thread's
 * when H is NULL), then adds their findings to T's, R[0]'s first. */
static void track_runs(struct track_run *r, struct helper *h)
{
	memset(&r[0].q, 0, sizeof r[0].q);
	memset(&r[1].q, 0, sizeof r[1].q);
	if (h != NULL && r[1].from < r[1].to)
		helper_run(h, track_run, &r[1]);
	track_run(&r[0]);
	if (h != NULL && r[1].from < r[1].to)
		helper_wait(h);
	else
		track_run(&r[1]);
	quality_add(&r[0].t->quality, &r[0].q);
	quality_add(&r[0].t->quality, &r[1].q);
}

void index_build(struct trace *t) { index_build_helped(t, NULL); }

void index_build_helped(struct trace *t, struct helper *given)
{
	stage_clock("builder finish");
	index_unpack_gpu_bits(t);
	set_aside_outliers(t);
	uint64_t total = 0;
	for (uint32_t ti = 0; ti < t->ntracks; ti++)
		total += t->tracks[ti].nslices;
	/* the cut: the track boundary that leaves the two runs the nearest in slices */
	uint32_t cut = t->ntracks;
	struct test_knobs k = test_knobs();
	if (total >= (k.index_split_set ? k.index_split : INDEX_TWO_THREADS_MIN)) {
		uint64_t before = 0, best = UINT64_MAX;
		for (uint32_t c = 0; c <= t->ntracks; c++) {
			uint64_t d = 2 * before > total ? 2 * before - total : total - 2 * before;
			if (d < best) {
				best = d;
				cut = c;
			}
			if (c < t->ntracks)
				before += t->tracks[c].nslices;
		}
	}
	/* On two threads (a helper's, which waits for each stage's share: lib/helper.h), the
	 * tracks' sorts begin on the helper while this one pairs the flows (which touch no
	 * track), and then share the rest */
	bool two = cut < t->ntracks;
	struct helper *h = !two ? NULL : given != NULL ? given : helper_start();
	struct sort_pool pool = { .t = t,
		                  .n = t->ntracks,
		                  .gather_min = k.gather_set ? k.gather_min : GATHER_MIN,
		                  .near_shift = k.sort_near_set ? k.sort_near : SORT_NEAR_SHIFT };
	uint32_t *order = xreallocarray(NULL, t->ntracks ? t->ntracks : 1, sizeof *order);
	for (uint32_t ti = 0; ti < t->ntracks; ti++)
		order[ti] = ti;
	if (two)
		qsort_r(order, t->ntracks, sizeof *order, more_slices_first, t);
	pool.order = order;
	atomic_init(&pool.next, 0);
	if (h != NULL)
		helper_run(h, sort_pool_task, &pool);
	index_pair_flows(t); /* first: the flows take less room than their ends while the index is built */
	stage_clock("index: flows paired");
	sort_pool_run(&pool);
	if (h != NULL)
		helper_wait(h);
	free(order);
	struct launch_keys lk;
	index_gpu_facts(t, &lk);
	stage_clock("index: tracks sorted");
	uint32_t span = k.row_span_set ? k.row_span : ROW_SPAN;
	struct track_run r[2] = { { .t = t, .from = 0, .to = cut, .row_span = span },
		                  { .t = t, .from = cut, .to = t->ntracks, .row_span = span } };
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		struct track *tr = &t->tracks[ti];
		classify_track(t, tr);
		if (tr->kind == TRACK_GPU_COMPUTE || tr->kind == TRACK_GPU_COMM)
			gpu_identity(t, tr);
		name_track(t, tr);
	}
	stage_clock("index: tracks classified");
	kinds_share(t, true); /* the lay-outs intern kinds on two threads */
	track_runs(r, h);
	kinds_share(t, false);
	stage_clock("index: rows laid out");
	index_link(t, &lk, h);
	if (h != given)
		helper_stop(h);
	stage_clock("index: linked");
	compute_span(t);
	check_utf8(t);
	stage_clock("index: done");
}
