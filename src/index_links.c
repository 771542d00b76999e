/* index_links.c: the links the index makes between a trace's records (see index_links.h):
 * GPU facts to their slices and to the runtime calls that launched them, flow ends paired
 * into flows and bound to slices, and the ProfilerStep#N steps. */
#include "src/index_links.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lib/helper.h"
#include "lib/sort.h"
#include "lib/xalloc.h"
#include "src/index.h"

static inline bool is_gpu_activity(uint8_t cls) { return cls == SC_KERNEL || cls == SC_MEMCPY || cls == SC_MEMSET; }

/* The correlation id of T's GPU fact G. */
static inline int64_t corr_of(const struct trace *t, uint32_t g) { return gpu_correlation(t, &t->gpu[g]); }

/* The same while the facts are the builder's, in the file's order. */
static inline int64_t fact_corr(const struct trace *t, uint32_t g)
{
	return gpu_id_value(t, t->gpu_facts[g].corr_code);
}

/* Runtime calls by correlation id, as indices into T's facts in the file's order (4 bytes
 * a call rather than a copy of the id beside each): the first in the file wins when
 * several share one. */
static inline bool launch_less(const uint32_t *a, const uint32_t *b, const struct trace *t)
{
	int64_t ca = fact_corr(t, *a), cb = fact_corr(t, *b);
	if (ca != cb)
		return ca < cb;
	return *a < *b;
}

SORT_DEFINE_CTX(sort_launches, uint32_t, const struct trace *, launch_less)

static int gpu_bytes_cmp(const void *a, const void *b)
{
	const struct gpu_bytes *x = a, *y = b;
	return (x->gpu > y->gpu) - (x->gpu < y->gpu);
}

void index_unpack_gpu_bits(struct trace *t)
{
	uint32_t *next = xcalloc(t->ntracks ? t->ntracks : 1, sizeof *next); /* by track: the slice to look from */
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		struct track *tr = &t->tracks[ti];
		if (tr->gpu_bits == NULL)
			continue;
		tr->gpu = xreallocarray(NULL, tr->nslices ? tr->nslices : 1, sizeof *tr->gpu);
		for (uint32_t i = 0; i < tr->nslices; i++)
			tr->gpu[i] = TT_NONE;
	}
	/* a track's facts come in the order of its slices that have one: the k-th of them, by
	 * the bits, is the slice of the track's k-th fact */
	for (uint32_t g = 0; g < t->ngpu && t->gpu_fact_track != NULL; g++) {
		uint32_t ti = t->gpu_fact_track[g];
		struct track *tr = ti < t->ntracks ? &t->tracks[ti] : NULL;
		if (tr == NULL || tr->gpu_bits == NULL)
			BUG("GPU fact %u of track %u, which has no fact bits", g, ti);
		uint32_t i = next[ti], w = i / 64, nw = (tr->nslices + 63) / 64;
		uint64_t bits = w < nw ? tr->gpu_bits[w] & (~(uint64_t)0 << (i % 64)) : 0;
		while (bits == 0 && ++w < nw)
			bits = tr->gpu_bits[w];
		if (bits == 0)
			BUG("GPU fact %u has no slice on track %u", g, ti);
		i = w * 64 + (uint32_t)__builtin_ctzll(bits);
		tr->gpu[i] = g;
		next[ti] = i + 1;
	}
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		free(t->tracks[ti].gpu_bits);
		t->tracks[ti].gpu_bits = NULL;
	}
	free(t->gpu_fact_track);
	t->gpu_fact_track = NULL;
	free(next);
}

/* Numbers T's GPU facts in the order of their slices, track by track (the facts no slice
 * holds, of slices set aside, after them in their order), and gives each track its words
 * in place of its array of fact indices: the facts are permuted in place, by cycles, with
 * one index a fact beside them. Fills LK with the runtime calls, the first in the file
 * for each correlation id, numbered anew. */
static void number_gpu_facts(struct trace *t, struct launch_keys *lk)
{
	uint32_t n = t->ngpu, k = 0, keys_cap = 0;
	uint32_t *map = xreallocarray(NULL, n ? n : 1, sizeof *map);
	*lk = (struct launch_keys){ NULL, 0, 0 };
	for (uint32_t g = 0; g < n; g++)
		map[g] = TT_NONE;
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		struct track *tr = &t->tracks[ti];
		tr->gpu_first = k;
		tr->gpu_count = 0;
		tr->gpu_words = NULL;
		if (tr->gpu == NULL)
			continue;
		uint32_t nw = (tr->nslices + 63) / 64;
		struct gpu_word *words = xcalloc(nw ? nw : 1, sizeof *words);
		for (uint32_t i = 0; i < tr->nslices; i++) {
			uint32_t g = tr->gpu[i];
			if (g >= n || map[g] != TT_NONE)
				continue; /* (the builder gives each fact one slice) */
			map[g] = k++;
			words[i / 64].bits |= (uint64_t)1 << (i % 64);
			if (fact_corr(t, g) >= 0 && !is_gpu_activity(slice_cls(t, &tr->slices[i]))) {
				if (lk->nrt == keys_cap)
					lk->keys = xreallocarray(lk->keys, keys_cap = keys_cap ? 2 * keys_cap : 1024,
					                         sizeof *lk->keys);
				lk->keys[lk->nrt++] = g; /* a runtime call's, by its index in the file */
			}
		}
		uint32_t before = 0;
		for (uint32_t w = 0; w < nw; w++) {
			words[w].before = before;
			before += gpu_bits_count(words[w].bits);
		}
		free(tr->gpu);
		tr->gpu = NULL;
		tr->gpu_count = before;
		if (before > 0)
			tr->gpu_words = words;
		else
			free(words);
	}
	for (uint32_t g = 0; g < n; g++)
		if (map[g] == TT_NONE)
			map[g] = k++;
	/* the calls by id, the first in the file kept for each, then numbered as their slices */
	sort_launches(lk->keys, lk->nrt, t);
	for (uint32_t i = 0; i < lk->nrt; i++)
		if (lk->n == 0 || fact_corr(t, lk->keys[lk->n - 1]) != fact_corr(t, lk->keys[i]))
			lk->keys[lk->n++] = lk->keys[i];
	for (uint32_t i = 0; i < lk->n; i++)
		lk->keys[i] = map[lk->keys[i]];
	for (uint32_t b = 0; b < t->ngpu_bytes; b++)
		if (t->gpu_bytes[b].gpu < n)
			t->gpu_bytes[b].gpu = map[t->gpu_bytes[b].gpu];
	if (t->ngpu_bytes > 1)
		qsort(t->gpu_bytes, t->ngpu_bytes, sizeof *t->gpu_bytes, gpu_bytes_cmp);
	for (uint32_t g = 0; g < n; g++)
		while (map[g] != g) { /* fact g goes to map[g]: swap it there, and look again at g */
			uint32_t d = map[g];
			struct gpu_fact f = t->gpu_facts[g];
			t->gpu_facts[g] = t->gpu_facts[d];
			t->gpu_facts[d] = f;
			map[g] = map[d];
			map[d] = d;
		}
	free(map);
}

/* Turns the builder's GPU facts into gpu_info, in place (the array grows from 16 to 24
 * bytes a fact, and each fact moves from the last to the first, so none is overwritten
 * before it is read), their links absent until index_link. */
static void expand_gpu_facts(struct trace *t)
{
	_Static_assert(sizeof(struct gpu_info) >= sizeof(struct gpu_fact), "a fact must move up");
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
		struct gpu_info g = { f.corr_code, f.ext_code, { TT_NONE, TT_NONE }, f.place, f.launch };
		memcpy(base + (size_t)i * sizeof g, &g, sizeof g);
	}
	t->gpu = (struct gpu_info *)(void *)base;
	t->gpu_cap = t->ngpu;
}

/* Links each kernel, memcpy and memset to the runtime call of the same correlation id in
 * LK: one binary search per GPU operation, so a file whose calls all share one id stays
 * O(n log n). */
static void link_launches(struct trace *t, struct launch_keys *lk)
{
	const uint32_t *keys = lk->keys, m = lk->n;
	uint32_t g;
	struct slice_ref self;
	struct gpu_walk gw = gpu_walk_start(t);
	while (gpu_walk_next(&gw, &g, &self)) {
		struct gpu_info *gi = &t->gpu[g];
		const struct slice *s = &t->tracks[self.track].slices[self.idx];
		if (!is_gpu_activity(slice_cls(t, s)))
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
			if (lk->nrt > 0) {
				struct quality *q = &t->quality;
				uint64_t k = q->count[Q_KERNEL_NO_LAUNCH]++;
				if (k < QUALITY_EXAMPLES) {
					q->ex[Q_KERNEL_NO_LAUNCH][k].offset =
						track_args_at(&t->tracks[self.track], self.idx) >> 24;
					q->ex[Q_KERNEL_NO_LAUNCH][k].ts = s->ts;
					q->ex[Q_KERNEL_NO_LAUNCH][k].name = slice_name(t, s);
					q->ex[Q_KERNEL_NO_LAUNCH][k].track = self.track;
				}
			}
			continue;
		}
		gi->peer = gpu_self(t, found);
		if (t->gpu[found].peer.track != TT_NONE)
			t->shared_launch = true;
		t->gpu[found].peer = self;
	}
}

void index_gpu_facts(struct trace *t, struct launch_keys *lk)
{
	number_gpu_facts(t, lk);
	expand_gpu_facts(t);
}

/* By category and id (ctx numbered in that order first: rank_flow_ctx), time, phase and
 * track. */
static inline bool flow_end_less(const struct flow_end *x, const struct flow_end *y)
{
	if (x->ctx != y->ctx)
		return x->ctx < y->ctx;
	if (x->id_lo != y->id_lo)
		return x->id_lo < y->id_lo;
	if (x->ts != y->ts)
		return x->ts < y->ts;
	if (x->ph != y->ph) /* s before t before f at equal times */
		return x->ph < y->ph;
	return x->track < y->track;
}

SORT_DEFINE(sort_flow_ends, struct flow_end, flow_end_less)

static int flow_ctx_cmp(const void *a, const void *b)
{
	const struct flow_ctx *x = a, *y = b;
	if (x->cat != y->cat)
		return x->cat < y->cat ? -1 : 1;
	return (x->id_hi > y->id_hi) - (x->id_hi < y->id_hi);
}

/* Numbers T's flow contexts in the order of their categories and ids' high halves, and the
 * ends' with them, so that ends sort by ctx as they would by category and id. */
static void rank_flow_ctx(struct trace *t)
{
	uint32_t n = t->nflow_ctx;
	if (n < 2)
		return;
	struct flow_ctx *old = xreallocarray(NULL, n, sizeof *old);
	memcpy(old, t->flow_ctx, (size_t)n * sizeof *old);
	qsort(t->flow_ctx, n, sizeof *t->flow_ctx, flow_ctx_cmp);
	uint32_t *rank = xreallocarray(NULL, n, sizeof *rank);
	for (uint32_t i = 0; i < n; i++) { /* contexts are distinct: each finds its one place */
		const struct flow_ctx *c = bsearch(&old[i], t->flow_ctx, n, sizeof *t->flow_ctx, flow_ctx_cmp);
		rank[i] = (uint32_t)(c - t->flow_ctx);
	}
	for (uint32_t i = 0; i < t->nflow_ends; i++)
		t->flow_ends[i].ctx = rank[t->flow_ends[i].ctx];
	free(rank);
	free(old);
}

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

static void flow_note(struct trace *t, enum quality_kind k, int64_t ts, uint32_t cat, uint32_t track)
{
	struct quality *q = &t->quality;
	uint64_t n = q->count[k]++;
	if (n < QUALITY_EXAMPLES) {
		q->ex[k][n].offset = 0;
		q->ex[k][n].ts = ts;
		q->ex[k][n].name = cat;
		q->ex[k][n].track = track;
	}
}

/* The same for flow end E. */
static void flow_end_note(struct trace *t, enum quality_kind k, const struct flow_end *e)
{
	flow_note(t, k, e->ts, flow_end_cat(t, e), e->track);
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

void index_pair_flows(struct trace *t)
{
	struct flow_end *e = t->flow_ends;
	uint32_t n = t->nflow_ends;
	void *base = e; /* from malloc: aligned for a flow */
	struct flow *flows = base;

	rank_flow_ctx(t);
	sort_flow_ends(e, n);
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i, starts = 0, finishes = 0;
		while (j < n && e[j].ctx == e[i].ctx && e[j].id_lo == e[i].id_lo) {
			starts += e[j].ph == FLOW_PH_S;
			finishes += e[j].ph == FLOW_PH_F;
			j++;
		}
		if (starts > 1 || finishes > 1)
			flow_end_note(t, Q_FLOW_REPEATED_ID, &e[i]);
		/* pair each s with the next f in time */
		const struct flow_end *open = NULL;
		for (uint32_t k = i; k < j; k++) {
			if (e[k].ph == FLOW_PH_S) {
				if (open != NULL)
					flow_end_note(t, Q_FLOW_NO_FINISH, open);
				open = &e[k];
			} else if (e[k].ph == FLOW_PH_F) {
				if (open == NULL) {
					flow_end_note(t, Q_FLOW_NO_START, &e[k]);
					continue;
				}
				struct flow f;
				f.id_code = trace_id_code(t, (int64_t)flow_end_id(t, &e[k]));
				f.cat = flow_end_cat(t, &e[k]);
				f.ts_from = open->ts;
				f.ts_to = e[k].ts;
				f.from = (struct slice_ref){ open->track, TT_NONE };
				f.to = (struct slice_ref){ e[k].track, TT_NONE };
				memcpy(&flows[t->nflows++], &f, sizeof f);
				open = NULL;
			}
		}
		if (open != NULL)
			flow_end_note(t, Q_FLOW_NO_FINISH, open);
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
	free(t->flow_ctx);
	t->flow_ctx = NULL;
	t->nflow_ctx = t->flow_ctx_cap = 0;
}

/* Flows are bound in chunks by whichever thread takes the next (see index_link); an end
 * bound to nothing keeps its track, its slice TT_NONE, until bind_notes. */
#define BIND_CHUNK 1024

struct bind_pool {
	struct trace *t;
	atomic_uint next; /* the next chunk */
};

static void bind_chunks(struct bind_pool *p)
{
	struct trace *t = p->t;
	for (;;) {
		uint64_t lo = (uint64_t)atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed) * BIND_CHUNK;
		if (lo >= t->nflows)
			return;
		uint32_t hi = lo + BIND_CHUNK < t->nflows ? (uint32_t)lo + BIND_CHUNK : t->nflows;
		for (uint32_t i = (uint32_t)lo; i < hi; i++) {
			struct flow *f = &t->flows[i];
			struct flow_end from = { .ts = f->ts_from, .track = f->from.track };
			struct flow_end to = { .ts = f->ts_to, .track = f->to.track };
			struct slice_ref r = bind_end(t, &from);
			if (r.track != TT_NONE)
				f->from = r;
			r = bind_end(t, &to);
			if (r.track != TT_NONE)
				f->to = r;
		}
	}
}

static void bind_chunks_task(void *arg) { bind_chunks(arg); }

/* In flow order, as one thread would: each end bound to nothing noted (with the track it
 * was on), then its track dropped. */
static void bind_notes(struct trace *t)
{
	for (uint32_t i = 0; i < t->nflows; i++) {
		struct flow *f = &t->flows[i];
		if (f->from.idx == TT_NONE) {
			flow_note(t, Q_FLOW_UNBOUND, f->ts_from, f->cat, f->from.track);
			f->from.track = TT_NONE;
		}
		if (f->to.idx == TT_NONE) {
			flow_note(t, Q_FLOW_UNBOUND, f->ts_to, f->cat, f->to.track);
			f->to.track = TT_NONE;
		}
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
			const char *nm = strtab_get(&t->strings, slice_name(t, s));
			if (strtab_len(&t->strings, slice_name(t, s)) <= pn || memcmp(nm, prefix, pn) != 0)
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

void index_link(struct trace *t, struct launch_keys *lk, struct helper *h)
{
	/* The flows' ends are bound in chunks, by the helper from the start and by this thread
	 * once it has linked the GPU facts and found the steps: the binding reads the laid-out
	 * tracks and writes only the flows (a 100 MB trace: 4 ms of it beside 3); the ends left
	 * unbound are noted after, in flow order. */
	struct bind_pool pool = { .t = t };
	atomic_init(&pool.next, 0);
	bool helped = h != NULL && t->nflows > 0;
	if (helped)
		helper_run(h, bind_chunks_task, &pool);
	link_launches(t, lk);
	free(lk->keys);
	lk->keys = NULL;
	find_steps(t);
	bind_chunks(&pool);
	if (helped)
		helper_wait(h);
	bind_notes(t);
}
