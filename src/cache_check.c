/* cache_check.c: the checks of a model read from a cache (see cache_check.h), made as the
 * parser and the index make the model: each track's slices in one sequential pass
 * (classes, flags, times, order, rows as the lay-out makes them, prefix sums, max trees,
 * busy spans), then its row tree, then the GPU facts, flows, instants, memory samples,
 * steps and the span. Tracks are checked on several threads for a big file. */
#include "src/cache_check.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/xalloc.h"
#include "src/cache_format.h"
#include "src/index.h"
#include "src/kernel_class.h"

static bool ref_ok(const struct trace *t, struct slice_ref ref)
{
	if (ref.track == TT_NONE)
		return true;
	return ref.track < t->ntracks && ref.idx < t->tracks[ref.track].nslices;
}

/* A bool stored as it is in memory, read as a byte: loading another value as a bool is
 * undefined. */
static inline bool bool_ok(const void *p)
{
	uint8_t b;
	memcpy(&b, p, 1);
	return b <= 1;
}

static inline bool is_gpu_kind(const struct track *tr)
{
	return tr->kind == TRACK_GPU_COMPUTE || tr->kind == TRACK_GPU_COMM;
}

/* Where the pass over a track's slices is in one of its rows. */
struct row_walk {
	const struct row *row;
	const int64_t *block_sum;
	const uint32_t *leaves; /* its max tree's leaves */
	uint32_t n;
	uint32_t pos;  /* the row's slices seen */
	uint32_t best; /* the position of the first longest of the current block */
	int64_t best_dur, max, sum, prev_end;
};

/* A thread's buffers for the checks of tracks. */
struct track_check {
	int64_t *stack; /* lay_out_cpu's stack of ends */
	uint32_t stack_cap;
	struct row_walk *rows; /* by row */
	uint32_t rows_cap;
	struct span *tmp; /* a row's spans, for its row tree leaf */
	uint32_t tmp_cap;
	struct kernel_comm_memo comm; /* which kernel names are communication */
};

/* The busy spans build_busy makes, compared with the stored ones as they are made. */
struct busy_walk {
	struct span cur; /* the span being merged */
	bool have;
	uint32_t k;    /* spans compared */
	int64_t total; /* their lengths */
};

/* The span being merged is whole: it must be stored span K, after the prefix sums. */
static bool busy_next(const struct track *tr, struct busy_walk *w)
{
	if (w->k >= tr->nbusy || tr->busy[w->k].start != w->cur.start || tr->busy[w->k].end != w->cur.end ||
	    (w->k % ROW_BLOCK == 0 && tr->busy_block_sum[w->k / ROW_BLOCK] != w->total) ||
	    __builtin_add_overflow(w->total, w->cur.end - w->cur.start, &w->total))
		return false;
	w->k++;
	return true;
}

/* Slice S (slice I of its track), of length DUR, ends at END: is it next in its row as
 * build_rows makes it? The row lists it next, after a slice that ends by its start (but in
 * row 65534, where deeper slices share), and the prefix sums and max tree's leaves hold so
 * far. */
static inline bool row_next(const struct trace *t, struct track_check *c, const struct slice *s, uint32_t i,
                            int64_t dur, int64_t end)
{
	struct row_walk *w = &c->rows[slice_depth(t, s)];
	uint32_t p = w->pos;
	if (p >= w->n || row_idx(w->row, p) != i || (slice_depth(t, s) < 65534 && s->ts < w->prev_end))
		return false;
	w->prev_end = end;
	if (p % ROW_BLOCK == 0) {
		if (w->block_sum[p / ROW_BLOCK] != w->sum)
			return false;
		w->best = p;
		w->best_dur = dur;
	} else if (dur > w->best_dur) {
		w->best = p;
		w->best_dur = dur;
	}
	/* a leaf of the max tree: its block's first longest */
	if ((p % ROW_BLOCK == ROW_BLOCK - 1 || p + 1 == w->n) && w->leaves[p / ROW_BLOCK] != w->best)
		return false;
	if (__builtin_add_overflow(w->sum, dur, &w->sum))
		return false;
	if (dur > w->max)
		w->max = dur;
	w->pos = p + 1;
	return true;
}

/* Checks the slices of track TI in one pass against what the parser and the index make of
 * a file: ids in range, a class and flags that exist, times within the builder's limits
 * (no end, ts + length, overflows), sorted by start, longer first (src/index.c), lengths of
 * SLICE_LONG in long_durs, GPU facts that name the slice back; each slice's row as the
 * lay-out makes it (a CPU thread's: the depth of the stack of slices open at its start, at
 * most 65534, a slice ending after the one it starts in flagged partial, the track nesting
 * when none is and no stack ran deeper; a GPU stream's: gpu_user_annotation spans in its
 * last annotation_rows rows, the rest below) and its rows (row_next; the rows hold as many
 * slices as the track, so each lists exactly its own); the counts of GPU operations and
 * communication kernels, which size the analyses' arrays (the slices set aside, ASIDE of them, may
 * stay counted); and the busy spans, their prefix sums and total, when they are not row
 * 0's. Reading the slices in order, never through the rows, keeps it one sequential pass. */
static bool slices_ok(struct track_check *c, const struct trace *t, uint32_t ti, uint32_t aside)
{
	const struct track *tr = &t->tracks[ti];
	const struct slice *s = tr->slices;
	const bool gpu_kind = is_gpu_kind(tr), row0 = index_busy_is_row0(tr);
	const uint32_t first_annotation = (uint32_t)tr->nrows - tr->annotation_rows;
	uint32_t nstr = t->strings.n, nlong = 0, sn = 0, ops = 0, comm = 0;
	int64_t prev_ts = 0, prev_dur = 0;
	struct busy_walk bw = { { 0, 0 }, false, 0, 0 };
	bool nested = true;

	if (gpu_kind ? tr->nested || tr->annotation_rows > tr->nrows : tr->annotation_rows != 0)
		return false;
	if (tr->nrows > c->rows_cap)
		c->rows = xreallocarray(c->rows, c->rows_cap = tr->nrows, sizeof *c->rows);
	for (uint16_t r = 0; r < tr->nrows; r++) {
		const struct row *row = &tr->rows[r];
		c->rows[r] = (struct row_walk){
			row, row->block_sum, row->max_tree + (row->n + ROW_BLOCK - 1) / ROW_BLOCK, row->n, 0, 0, 0, 0,
			0,   INT64_MIN
		};
	}
	for (uint32_t i = 0; i < tr->nslices; i++) {
		if (s[i].kind >= t->nkinds || slice_name(t, &s[i]) >= nstr || slice_cat_ix(t, &s[i]) >= t->ncats ||
		    slice_cls(t, &s[i]) >= SC__COUNT ||
		    (slice_flags(t, &s[i]) & ~(SF_FROM_BE | SF_UNCLOSED | SF_PARTIAL)) != 0 ||
		    slice_depth(t, &s[i]) >= tr->nrows)
			return false;
		int64_t dur = s[i].dur32;
		if (s[i].dur32 == SLICE_LONG) {
			if (nlong >= tr->nlong || tr->long_durs[nlong].idx != i ||
			    tr->long_durs[nlong].dur < SLICE_LONG || tr->long_durs[nlong].unused != 0)
				return false;
			dur = tr->long_durs[nlong++].dur;
		}
		if (!cache_time_ok(s[i].ts) || dur > BUILDER_TIME_LIMIT - s[i].ts ||
		    (i > 0 && (s[i].ts < prev_ts || (s[i].ts == prev_ts && dur > prev_dur))))
			return false;
		prev_ts = s[i].ts;
		prev_dur = dur;
		int64_t end = s[i].ts + dur;
		if (gpu_kind) {
			if (tr->nrows < 65535 &&
			    (slice_cls(t, &s[i]) == SC_GPU_ANNOTATION) != (slice_depth(t, &s[i]) >= first_annotation))
				return false;
		} else {
			while (sn > 0 && c->stack[sn - 1] <= s[i].ts)
				sn--;
			bool partial = sn > 0 && end > c->stack[sn - 1];
			if (partial != ((slice_flags(t, &s[i]) & SF_PARTIAL) != 0) ||
			    slice_depth(t, &s[i]) != (sn < 65535 ? sn : 65534))
				return false;
			if (partial || sn >= 65535)
				nested = false;
			if (sn == c->stack_cap)
				c->stack = xreallocarray(c->stack, c->stack_cap = c->stack_cap ? 2 * c->stack_cap : 64,
				                         sizeof *c->stack);
			c->stack[sn++] = end;
		}
		if (!row_next(t, c, &s[i], i, dur, end))
			return false;
		if (slice_cls(t, &s[i]) == SC_KERNEL || slice_cls(t, &s[i]) == SC_MEMCPY ||
		    slice_cls(t, &s[i]) == SC_MEMSET) {
			ops++;
			comm += slice_cls(t, &s[i]) == SC_KERNEL &&
			        kernel_comm_memo_is(&c->comm, &t->strings, slice_name(t, &s[i]));
		}
		if (row0 || (gpu_kind && slice_cls(t, &s[i]) == SC_GPU_ANNOTATION))
			continue;
		if (bw.have && s[i].ts <= bw.cur.end) {
			if (end > bw.cur.end)
				bw.cur.end = end;
		} else if (s[i].dur32 != 0) {
			if (bw.have && !busy_next(tr, &bw))
				return false;
			bw.cur = (struct span){ s[i].ts, end };
			bw.have = true;
		}
	}
	if (nlong != tr->nlong || (!gpu_kind && (nested && tr->nslices > 0) != tr->nested))
		return false; /* a track of no slice is not laid out: it does not nest */
	if (tr->gpu_slices < ops || tr->gpu_slices - ops > aside || tr->comm_kernels < comm ||
	    tr->comm_kernels - comm > aside)
		return false;
	if (row0) /* track_ok checks its sums against row 0's */
		return tr->nbusy == 0;
	if (bw.have && !busy_next(tr, &bw))
		return false;
	return bw.k == tr->nbusy && (bw.k % ROW_BLOCK != 0 || tr->busy_block_sum[bw.k / ROW_BLOCK] == bw.total) &&
	       tr->busy_total == bw.total;
}

/* Compares the union of the closed spans A (NA, in start order) and B (NB) as src/index.c
 * makes it (touching spans merge) with WANT (NWANT): true when they are the same. */
static bool union_is(const struct span *a, uint32_t na, const struct span *b, uint32_t nb, const struct span *want,
                     uint32_t nwant)
{
	uint32_t i = 0, j = 0, k = 0;
	struct span cur = { 0, 0 };
	bool have = false;
	while (i < na || j < nb) {
		struct span x = j >= nb || (i < na && a[i].start <= b[j].start) ? a[i++] : b[j++];
		if (have && x.start <= cur.end) {
			if (x.end > cur.end)
				cur.end = x.end;
			continue;
		}
		if (have && (k >= nwant || want[k].start != cur.start || want[k++].end != cur.end))
			return false;
		cur = x;
		have = true;
	}
	if (have && (k >= nwant || want[k].start != cur.start || want[k++].end != cur.end))
		return false;
	return k == nwant;
}

/* Checks what is left of row R of TR once the pass over its slices (row_next) is done:
 * its last prefix sum, longest length and max tree's inner nodes. */
static bool row_ok(const struct track_check *c, const struct track *tr, uint16_t r)
{
	const struct row *row = &tr->rows[r];
	const struct row_walk *w = &c->rows[r];
	const uint32_t *node = row->max_tree;
	uint32_t nb = (row->n + ROW_BLOCK - 1) / ROW_BLOCK;
	if (w->pos != row->n || (row->n % ROW_BLOCK == 0 && row->block_sum[row->n / ROW_BLOCK] != w->sum) ||
	    row->max_dur != w->max)
		return false;
	for (uint32_t b = nb; b-- > 1;) {
		uint32_t x = node[2 * b], y = node[2 * b + 1];
		if (node[b] != (track_dur_at(tr, row_idx(row, y)) > track_dur_at(tr, row_idx(row, x)) ? y : x))
			return false;
	}
	return true;
}

/* Checks TR's row tree as build_row_tree makes it: each leaf the union of its row's
 * slices, each node the union of its children. */
static bool row_tree_ok(struct track_check *c, const struct track *tr)
{
	const struct row_tree *rt = tr->row_tree;
	for (uint32_t r = 0; r < rt->leaves; r++) {
		uint32_t node = rt->leaves + r;
		if (r >= tr->nrows) {
			if (rt->n[node] != 0)
				return false;
			continue;
		}
		const struct row *row = &tr->rows[r];
		if (row->n > c->tmp_cap)
			c->tmp = xreallocarray(c->tmp, c->tmp_cap = row->n, sizeof *c->tmp);
		for (uint32_t i = 0; i < row->n; i++) {
			const struct slice *s = &tr->slices[row_idx(row, i)];
			c->tmp[i] = (struct span){ s->ts, slice_end_of(tr, s) };
		}
		if (!union_is(c->tmp, row->n, NULL, 0, rt->spans + rt->first[node], rt->n[node]))
			return false;
	}
	for (uint32_t node = rt->leaves; node-- > 1;) {
		uint32_t a = 2 * node, b = 2 * node + 1;
		if (!union_is(rt->spans + rt->first[a], rt->n[a], rt->spans + rt->first[b], rt->n[b],
		              rt->spans + rt->first[node], rt->n[node]))
			return false;
	}
	return true;
}

/* Checks track TI: its slices, then its rows, row tree and busy time. */
static bool track_ok(struct track_check *c, const struct trace *t, uint32_t ti, uint32_t aside)
{
	const struct track *tr = &t->tracks[ti];
	if (!slices_ok(c, t, ti, aside))
		return false;
	for (uint16_t r = 0; r < tr->nrows; r++)
		if (!row_ok(c, tr, r))
			return false;
	if (index_busy_is_row0(tr) && (tr->busy_block_sum[0] != c->rows[0].sum || tr->busy_total != c->rows[0].sum))
		return false;
	return tr->row_tree == NULL || row_tree_ok(c, tr);
}

/* The checks of the tracks, shared by the threads that make them. */
struct tracks_check {
	const struct trace *t;
	const uint32_t *aside; /* by track: its slices set aside */
	_Atomic uint32_t next; /* the next track to check */
	_Atomic uint32_t bad;  /* the first track found wrong, or UINT32_MAX */
};

static void *tracks_main(void *arg)
{
	struct tracks_check *k = arg;
	struct track_check c = { NULL, 0, NULL, 0, NULL, 0, { NULL, 0 } };
	for (;;) {
		uint32_t i = atomic_fetch_add(&k->next, 1), b = atomic_load(&k->bad);
		/* tracks are handed out in order: every one before the first found wrong is
		 * checked, so that the one named is the same however many threads run */
		if (i >= k->t->ntracks || i > b)
			break;
		if (!track_ok(&c, k->t, i, k->aside[i]))
			while (i < b && !atomic_compare_exchange_weak(&k->bad, &b, i))
				;
	}
	free(c.stack);
	kernel_comm_memo_free(&c.comm);
	free(c.rows);
	free(c.tmp);
	return NULL;
}

/* Checks every track of T (track_ok), on several threads when PARALLEL. Returns the first
 * track found wrong, or UINT32_MAX. */
static uint32_t check_tracks(const struct trace *t, const uint32_t *aside, bool parallel)
{
	struct tracks_check k = { .t = t, .aside = aside };
	pthread_t threads[MAX_VERIFY_THREADS];
	long ncpu = parallel ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
	int nthreads = ncpu > 1 ? (int)(ncpu < MAX_VERIFY_THREADS ? ncpu : MAX_VERIFY_THREADS) : 1, started = 0;

	atomic_init(&k.next, 0);
	atomic_init(&k.bad, UINT32_MAX);
	for (int i = 1; i < nthreads && (uint32_t)i < t->ntracks; i++)
		if (pthread_create(&threads[started], NULL, tracks_main, &k) == 0)
			started++;
	tracks_main(&k);
	for (int i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	return atomic_load(&k.bad);
}

/* Checks the steps as find_steps (src/index_links.c) makes them: each a ProfilerStep#N
 * slice of a CPU or GPU track, with its number, start, length and side, CPU steps first,
 * then GPU ones, each by start then number. */
static bool steps_ok(const struct trace *t)
{
	static const char prefix[] = "ProfilerStep#";
	const size_t pn = sizeof prefix - 1;
	for (uint32_t i = 0; i < t->nsteps; i++) {
		const struct step *st = &t->steps[i];
		if (!bool_ok(&st->gpu) || st->ref.track == TT_NONE || !ref_ok(t, st->ref))
			return false;
		const struct track *tr = &t->tracks[st->ref.track];
		const struct slice *s = &tr->slices[st->ref.idx];
		const char *nm = strtab_get(&t->strings, slice_name(t, s));
		if (tr->kind == TRACK_OTHER || st->gpu != (tr->kind != TRACK_CPU) || st->ts != s->ts ||
		    st->dur != slice_dur(tr, s) || strtab_len(&t->strings, slice_name(t, s)) <= pn ||
		    memcmp(nm, prefix, pn) != 0 || st->number != strtoll(nm + pn, NULL, 10))
			return false;
		if (i > 0) {
			const struct step *p = &t->steps[i - 1];
			if (p->gpu != st->gpu ? p->gpu : p->ts != st->ts ? p->ts > st->ts : p->number > st->number)
				return false;
		}
	}
	return true;
}

/* Each track's GPU words: their counts before each word add up, no bit past its slices,
 * its first fact where the tracks before it end, all of them within T's facts. */
static bool gpu_words_ok(const struct trace *t)
{
	uint64_t at = 0;
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		if (tr->gpu_first != at)
			return false;
		uint64_t n = 0;
		if (tr->gpu_words != NULL) {
			uint32_t nw = (tr->nslices + 63) / 64;
			for (uint32_t w = 0; w < nw; w++) {
				if (tr->gpu_words[w].before != n || tr->gpu_words[w].pad != 0)
					return false;
				n += gpu_bits_count(tr->gpu_words[w].bits);
			}
			if (nw > 0 && tr->nslices % 64 != 0 && (tr->gpu_words[nw - 1].bits >> (tr->nslices % 64)) != 0)
				return false;
			if (n == 0)
				return false;
		}
		if (n != tr->gpu_count)
			return false;
		at += n;
	}
	return at <= t->ngpu;
}

bool cache_check_model(const struct trace *t, bool parallel, char **cause)
{
	uint32_t nstr = t->strings.n;

	if (!gpu_words_ok(t))
		return cache_refuse(cause, "the tracks' GPU words do not add up");
	for (uint32_t i = 0; i < t->ngpu; i++)
		if (!ref_ok(t, t->gpu[i].peer) || t->gpu[i].place >= t->ngpu_places ||
		    (t->gpu[i].launch >= t->nlaunches && t->gpu[i].launch != TT_NONE))
			return cache_refuse(cause, "GPU info %u refers out of range", i);
	for (uint32_t i = 0; i < t->naside; i++)
		if (t->aside[i].name >= nstr || t->aside[i].track >= t->ntracks || t->aside[i].ts != 0 ||
		    t->aside[i].dur < 0 || t->aside[i].dur > BUILDER_TIME_LIMIT)
			return cache_refuse(cause, "a set-aside slice's ids or times are out of range");
	uint32_t *aside = xcalloc(t->ntracks ? t->ntracks : 1, sizeof *aside);
	for (uint32_t i = 0; i < t->naside; i++)
		aside[t->aside[i].track]++;
	uint32_t bad = check_tracks(t, aside, parallel);
	free(aside);
	if (bad != UINT32_MAX)
		return cache_refuse(
			cause, "track %u: its slices, rows or busy time are not as the parser and the index make them",
			bad);
	for (uint32_t i = 0; i < t->ngpu_places; i++)
		if (t->gpu_places[i].pg >= nstr)
			return cache_refuse(cause, "GPU place %u refers out of range", i);
	for (uint32_t i = 0; i < t->ngpu_bytes; i++)
		if (t->gpu_bytes[i].gpu >= t->ngpu || (i > 0 && t->gpu_bytes[i].gpu <= t->gpu_bytes[i - 1].gpu))
			return cache_refuse(cause, "GPU byte count %u is out of range or order", i);
	for (uint32_t i = 0; i < t->nprocesses; i++) {
		const struct process *p = &t->processes[i];
		if (!bool_ok(&p->pid_is_str) || p->name >= nstr || p->labels >= nstr ||
		    (p->pid_is_str && (uint64_t)p->pid >= nstr))
			return cache_refuse(cause, "process %u refers out of range", i);
	}
	for (uint32_t i = 0; i < t->ndevices; i++)
		if (t->devices[i].name >= nstr)
			return cache_refuse(cause, "device %u's name is out of range", i);
	for (uint32_t i = 0; i < t->nflows; i++)
		if (t->flows[i].cat >= nstr || !ref_ok(t, t->flows[i].from) || !ref_ok(t, t->flows[i].to) ||
		    !cache_time_ok(t->flows[i].ts_from) || !cache_time_ok(t->flows[i].ts_to))
			return cache_refuse(cause, "flow %u refers or lies out of range", i);
	for (uint32_t i = 0; i < t->ninstants; i++)
		if (t->instants[i].name >= nstr || t->instants[i].cat >= nstr ||
		    !cache_id_ok(t->instants[i].track, t->ntracks, true) || !cache_time_ok(t->instants[i].ts))
			return cache_refuse(cause, "instant %u refers or lies out of range", i);
	for (uint32_t i = 0; i < t->nmem; i++)
		if (!cache_time_ok(t->mem[i].ts))
			return cache_refuse(cause, "memory sample %u lies out of range", i);
	/* runs: the first at sample 0, each starting past the one before and before the end, and
	 * none where the last left off alike (a build never writes one: mem_sample_near does not
	 * need it, but equal models then have equal runs) */
	if ((t->nmem == 0) != (t->nmem_runs == 0))
		return cache_refuse(cause, "%u memory samples in %u runs", t->nmem, t->nmem_runs);
	for (uint32_t i = 0; i < t->nmem_runs; i++) {
		const struct mem_run *m = &t->mem_runs[i];
		if ((i == 0 ? m->first != 0
		            : m->first <= t->mem_runs[i - 1].first || m->first >= t->nmem ||
		                      mem_run_same(m, &t->mem_runs[i - 1])) ||
		    !cache_id_ok(m->track, t->ntracks, true) || (m->flags & ~(MEM_HAS_ADDR | MEM_HAS_BYTES)) != 0 ||
		    m->device_type < -1 || m->device_id < -1 || m->pad != 0)
			return cache_refuse(cause, "memory samples' run %u is out of range", i);
	}
	for (uint32_t i = 0; i < t->nflops; i++)
		if (!cache_time_ok(t->flops[i].ts))
			return cache_refuse(cause, "FLOP count %u lies out of range", i);
	for (uint32_t i = 0; i < t->ncomm_ops; i++)
		if (t->comm_ops[i].name >= nstr || t->comm_ops[i].cat >= nstr)
			return cache_refuse(cause, "collective op %u refers out of range", i);
	if (!steps_ok(t))
		return cache_refuse(cause, "the steps are not those of the slices");
	/* an example left all zero is none (the counts the scanner gives have none): its track 0
	 * need not exist; the reports leave it out */
	for (int q = 0; q < Q__COUNT; q++)
		for (uint64_t k = 0; k < QUALITY_EXAMPLES && k < t->quality.count[q]; k++) {
			const struct quality_example *e = &t->quality.ex[q][k];
			bool none = e->name == 0 && e->offset == 0 && e->ts == 0 && e->track == 0;
			if (!none && (e->name >= nstr || !cache_id_ok(e->track, t->ntracks, true)))
				return cache_refuse(cause, "a data-quality example refers out of range");
		}
	if (t->backend >= nstr || t->display_time_unit >= nstr || t->clock >= nstr)
		return cache_refuse(cause, "a header string is out of range");
	struct span span = index_trace_span(t);
	if (t->start != span.start || t->end != span.end)
		return cache_refuse(cause, "its span is not that of its events");
	return true;
}
