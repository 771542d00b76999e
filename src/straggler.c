/* straggler.c: why the straggler is late (see straggler.h). Each rank's trace is swept once
 * into unions of absolute time (GPU busy, compute, DataLoader, synchronising calls, and the
 * last two's parts under GPU work) with their running lengths, so that a segment's figures
 * cost a few binary searches; its kernels are kept in time order for the matching of the
 * same kernel across ranks. */
#include "src/straggler.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/parallel.h"
#include "lib/timefmt.h"
#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "src/kernel_class.h"
#include "src/host_calls.h"
#include "src/spans.h"

/* A union with its running lengths. */
struct uset {
	struct span *v;
	int64_t *prefix;
	uint32_t n;
};

/* A kernel, for matching the same kernel across ranks. */
struct kent {
	const char *name;
	int32_t shape[6]; /* grid, block */
	int64_t start, dur;
	bool mine; /* the straggler's */
};

/* One rank's sweep, in absolute time (base + ts). */
struct side {
	bool gpu;                       /* it has GPU work (kernels, memcpys, memsets) */
	struct uset busy, comp, compdl; /* GPU busy; compute; compute under DataLoader (CPU mode) */
	struct uset dl, dlbusy;         /* DataLoader; its part under GPU work */
	struct uset sync, syncbusy;     /* synchronising calls; their part under GPU work */
	struct kent *k;                 /* non-communication kernels, by start */
	uint32_t nk;
};

struct vec {
	struct span *v;
	uint32_t n, cap;
};

static void vec_push(struct vec *x, int64_t a, int64_t b)
{
	if (x->n == x->cap)
		x->v = xreallocarray(x->v, x->cap = x->cap * 2 + 64, sizeof *x->v);
	x->v[x->n++] = (struct span){ a, b };
}

static struct uset uset_of(struct vec *x)
{
	struct uset u = { x->v, NULL, spans_merge(x->v, x->n) };
	u.prefix = spans_prefix(u.v, u.n);
	return u;
}

/* A ∩ B of two unions, as a union. */
static struct uset uset_and(const struct uset *a, const struct uset *b)
{
	struct vec x = { NULL, 0, 0 };
	uint32_t i = 0, j = 0;
	while (i < a->n && j < b->n) {
		int64_t s = a->v[i].start > b->v[j].start ? a->v[i].start : b->v[j].start;
		int64_t e = a->v[i].end < b->v[j].end ? a->v[i].end : b->v[j].end;
		if (e > s)
			vec_push(&x, s, e);
		if (a->v[i].end < b->v[j].end)
			i++;
		else
			j++;
	}
	return uset_of(&x);
}

static int64_t uset_within(const struct uset *u, int64_t a, int64_t b)
{
	return b > a ? spans_within_prefix(u->v, u->prefix, u->n, a, b) : 0;
}

static void uset_free(struct uset *u)
{
	free(u->v);
	free(u->prefix);
}

static int kent_by_start(const void *a, const void *b)
{
	const struct kent *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static bool is_gpu_track(const struct track *tr) { return tr->kind == TRACK_GPU_COMPUTE || tr->kind == TRACK_GPU_COMM; }

enum { F_DL = 1, F_SYNC = 2, F_COPY = 4, F_COMM = 8, F_SKIP = 16, F_KNOWN = 128 };

/* What the sweep needs of name ID, worked out the first time it is asked (FL: by name):
 * most of a trace's strings are never a slice's name. */
static uint8_t name_flags(const struct trace *t, uint8_t *fl, uint32_t id)
{
	if (fl[id] != 0)
		return fl[id];
	const char *s = strtab_get(&t->strings, id);
	unsigned h = host_call_flags(s);
	return fl[id] = F_KNOWN | (h & HC_DATALOADER ? F_DL : 0) | (h & HC_SYNC ? F_SYNC : 0) |
	                (h & HC_MEMCPY_ASYNC ? F_COPY : 0) | (kernel_class_trace_is_comm(t, id) ? F_COMM : 0) |
	                (strncmp(s, "ProfilerStep#", 13) == 0 || strncmp(s, "c10d::", 6) == 0 ||
	                                 strncmp(s, "gloo:", 5) == 0
	                         ? F_SKIP
	                         : 0);
}

static void sweep(const struct trace *t, bool cpu, struct side *sd)
{
	int64_t base = t->has_base ? t->base_ns : 0;
	uint8_t *fl = xcalloc(t->strings.n ? t->strings.n : 1, 1); /* by name: F_KNOWN | flags, 0 till asked */
	struct vec busy = { 0 }, comp = { 0 }, dl = { 0 }, sync = { 0 };
	uint32_t kcap = 0;
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		for (uint32_t i = 0; i < tr->nslices; i++) {
			const struct slice *s = &tr->slices[i];
			int64_t a = tt_add(base, s->ts), b = tt_add(a, slice_dur(tr, s));
			uint8_t f = name_flags(t, fl, slice_name(t, s));
			if (is_gpu_track(tr)) {
				if (slice_cls(t, s) != SC_KERNEL && slice_cls(t, s) != SC_MEMCPY &&
				    slice_cls(t, s) != SC_MEMSET)
					continue;
				vec_push(&busy, a, b);
				if (slice_cls(t, s) != SC_KERNEL || (f & F_COMM))
					continue;
				vec_push(&comp, a, b);
				if (sd->nk == kcap)
					sd->k = xreallocarray(sd->k, kcap = kcap * 2 + 256, sizeof *sd->k);
				struct kent *k = &sd->k[sd->nk++];
				memset(k, 0, sizeof *k);
				k->name = strtab_get(&t->strings, slice_name(t, s));
				uint32_t g = slice_gpu(tr, s);
				if (g != TT_NONE && g < t->ngpu) {
					const struct kernel_launch *l = gpu_launch(t, &t->gpu[g]);
					memcpy(k->shape, l->grid, sizeof l->grid);
					memcpy(k->shape + 3, l->block, sizeof l->block);
				}
				k->start = a;
				k->dur = tt_sub(b, a);
				continue;
			}
			if (tr->kind != TRACK_CPU)
				continue;
			if (f & F_DL)
				vec_push(&dl, a, b);
			if ((f & F_SYNC) ||
			    ((f & F_COPY) && slice_cls(t, s) == SC_RUNTIME && host_call_blocking_copy(t, tr, s, NULL)))
				vec_push(&sync, a, b);
			if (cpu && !(f & (F_SKIP | F_DL)) &&
			    (slice_cls(t, s) == SC_CPU_OP || (t->legacy && slice_cls(t, s) == SC_OTHER)))
				vec_push(&comp, a, b);
		}
	}
	free(fl);
	sd->gpu = busy.n > 0;
	sd->busy = uset_of(&busy);
	sd->comp = uset_of(&comp);
	sd->dl = uset_of(&dl);
	sd->sync = uset_of(&sync);
	sd->dlbusy = uset_and(&sd->dl, &sd->busy);
	sd->syncbusy = uset_and(&sd->sync, &sd->busy);
	sd->compdl = uset_and(&sd->comp, &sd->dl);
	if (sd->nk > 1)
		qsort(sd->k, sd->nk, sizeof *sd->k, kent_by_start);
}

static void side_free(struct side *sd)
{
	uset_free(&sd->busy);
	uset_free(&sd->comp);
	uset_free(&sd->compdl);
	uset_free(&sd->dl);
	uset_free(&sd->dlbusy);
	uset_free(&sd->sync);
	uset_free(&sd->syncbusy);
	free(sd->k);
}

/* Rank I's segment before collective K, aligned: from the end of its nearest earlier
 * collective that ended by its arrival, else from the start of the ProfilerStep#N around
 * its arrival, else from the start of its trace. */
static int64_t segment_start(const struct rank_report *r, uint32_t k, int i)
{
	const struct coll_rank *p = &r->colls[k].per[i];
	for (uint32_t j = k; j-- > 0;) {
		const struct coll_rank *q = &r->colls[j].per[i];
		if (q->ref.track != TT_NONE && q->end <= p->start)
			return q->end;
	}
	const struct trace *t = r->traces[i];
	int64_t base = t->has_base ? t->base_ns : 0, off = r->ranks[i].offset;
	int64_t own = tt_sub(p->start, off);
	for (uint32_t q = 0; q < t->nsteps; q++) {
		const struct step *s = &t->steps[q];
		int64_t a = tt_add(base, s->ts);
		if (!s->gpu && a <= own && own < tt_add(a, s->dur))
			return tt_add(a, off);
	}
	return tt_add(tt_add(base, t->start), off);
}

/* The figures of one rank's segment [A, B) (absolute, its own time). */
enum { X_DL, X_SYNC, X_COMP, X__N };
static void segment_figures(const struct side *sd, bool cpu, int64_t a, int64_t b, double *x)
{
	/* as doubles: spans of hostile traces can be near the int64 range */
	x[X_DL] = (double)uset_within(&sd->dl, a, b) - (sd->gpu ? (double)uset_within(&sd->dlbusy, a, b) : 0);
	x[X_SYNC] = sd->gpu ? (double)uset_within(&sd->sync, a, b) - (double)uset_within(&sd->syncbusy, a, b) : 0;
	x[X_COMP] = (double)uset_within(&sd->comp, a, b) - (cpu ? (double)uset_within(&sd->compdl, a, b) : 0);
}

/* Appends the kernels of SD starting in [A, B) to *V. */
static void take_kernels(const struct side *sd, int64_t a, int64_t b, bool mine, struct kent **v, uint32_t *n,
                         uint32_t *cap)
{
	uint32_t lo = 0, hi = sd->nk;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (sd->k[mid].start < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32_t i = lo; i < sd->nk && sd->k[i].start < b; i++) {
		if (*n == *cap)
			*v = xreallocarray(*v, *cap = *cap * 2 + 256, sizeof **v);
		(*v)[*n] = sd->k[i];
		(*v)[(*n)++].mine = mine;
	}
}

static int kent_by_key(const void *a, const void *b)
{
	const struct kent *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c != 0)
		return c;
	return memcmp(x->shape, y->shape, sizeof x->shape);
}

/* Slower GPU: over the groups of the same kernel (name, grid, block) that the straggler and
 * the others both ran, its time minus its count times their mean duration. */
static double match_kernels(struct kent *v, uint32_t n, struct straggler_why *w)
{
	if (n > 1)
		qsort(v, n, sizeof *v, kent_by_key);
	double extra = 0, mine_all = 0, theirs_all = 0;
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i;
		double sm = 0, so = 0;
		uint32_t nm = 0, no = 0;
		for (; j < n && kent_by_key(&v[i], &v[j]) == 0; j++) {
			if (v[j].mine) {
				sm += (double)v[j].dur;
				nm++;
			} else {
				so += (double)v[j].dur;
				no++;
			}
		}
		if (nm > 0 && no > 0) {
			double theirs = nm * (so / no);
			extra += sm - theirs;
			mine_all += sm;
			theirs_all += theirs;
			w->matched += nm;
			w->shapes |= v[i].shape[0] > 0;
		}
		i = j;
	}
	w->gpu_ratio = theirs_all > 0 ? mine_all / theirs_all : 0;
	return extra;
}

static void explain_text(struct straggler_why *w, int rank)
{
	char l[48], x[48], b[48], d[4][48];
	int64_t late = w->late;
	timefmt_dur(late, l, sizeof l);
	double best = w->reason < SR_UNKNOWN ? (double)w->explained[w->reason] : 0;
	int pct = late > 0 ? (int)tt_round(100.0 * best / (double)late) : 0;
	timefmt_dur(w->reason < SR_UNKNOWN ? w->explained[w->reason] : 0, x, sizeof x);
	const char *before = "before the %u collective%s it arrived last at";
	char where[96];
	snprintf(where, sizeof where, before, w->collectives, w->collectives == 1 ? "" : "s");
	switch (w->reason) {
	case SR_DATALOADER:
		snprintf(
			w->text, sizeof w->text,
			"a DataLoader stall: %s, rank %d spends %s more than the other ranks (their mean) in DataLoader "
			"__next__ with %s, %d%% of its %s lateness",
			where, rank, x, w->cpu ? "nothing else running" : "its GPU idle", pct, l);
		break;
	case SR_HOST_SYNC:
		snprintf(
			w->text, sizeof w->text,
			"a host sync: %s, rank %d's GPU is idle %s longer than the other ranks' (their mean) while its host "
			"is in a synchronising call (.item(), a synchronize, a blocking copy), %d%% of its %s lateness",
			where, rank, x, pct, l);
		break;
	case SR_SLOWER_GPU:
		snprintf(
			w->text, sizeof w->text,
			"a slower GPU: %s, the same kernels (%u of rank %d's, matched by name%s) take %.2fx as long on "
			"rank %d as on the other ranks, %s more in all, %d%% of its %s lateness",
			where, w->matched, rank,
			w->shapes ? ", grid and block" : " alone: the trace has no launch shapes", w->gpu_ratio, rank,
			x, pct, l);
		break;
	case SR_COMPUTE:
		snprintf(
			w->text, sizeof w->text,
			"longer compute: %s, rank %d's %s %s longer than the other ranks' (their mean), %d%% of its %s "
			"lateness, %s",
			where, rank, w->cpu ? "operators run" : "GPU is busy", x, pct, l,
			w->cpu ? "with no kernels to tell more work (a larger or uneven batch, longer sequences) from a "
				 "slower host"
			       : "and not because the same kernels run slower: more work (a larger or uneven batch, longer "
				 "sequences, extra layers)");
		break;
	case SR_UNKNOWN:
	case SR__COUNT:
		timefmt_dur(w->explained[SR_DATALOADER], d[0], sizeof d[0]);
		timefmt_dur(w->explained[SR_HOST_SYNC], d[1], sizeof d[1]);
		timefmt_dur(w->explained[SR_SLOWER_GPU], d[2], sizeof d[2]);
		timefmt_dur(w->explained[SR_COMPUTE], d[3], sizeof d[3]);
		int n = snprintf(w->text, sizeof w->text,
		                 "unknown: %s, none of DataLoader (%s), host syncs (%s), a slower GPU (%s) or longer "
		                 "compute (%s) explains half of rank %d's %s lateness",
		                 where, d[0], d[1], d[2], d[3], rank, l);
		if (n > 0 && (size_t)n < sizeof w->text && late > 0 && w->before >= late - late / 2)
			snprintf(w->text + n, sizeof w->text - (size_t)n,
			         "; %s of it was there already where its segments start (the end of the previous "
			         "collective, or the step's start): it began them late, for a reason before them",
			         timefmt_dur(w->before, b, sizeof b));
		break;
	}
}

/* One rank's sweep, on one of parallel_for's threads. */
struct sweep_job {
	struct trace *const *traces;
	bool cpu;
	struct side *sd;
};

static void sweep_rank(void *arg, int i)
{
	struct sweep_job *j = arg;
	sweep(j->traces[i], j->cpu, &j->sd[i]);
}

void straggler_explain(struct rank_report *r)
{
	struct straggler_why *w = &r->why;
	memset(w, 0, sizeof *w);
	w->reason = SR_UNKNOWN;
	int sp = r->straggler, n = r->nranks;
	if (sp < 0 || n < 2)
		return;
	w->cpu = true;
	for (int i = 0; i < n && w->cpu; i++)
		for (uint32_t ti = 0; ti < r->traces[i]->ntracks && w->cpu; ti++)
			for (uint32_t k = 0; k < r->traces[i]->tracks[ti].nslices && w->cpu; k++)
				if (slice_cls(r->traces[i], &r->traces[i]->tracks[ti].slices[k]) == SC_KERNEL)
					w->cpu = false;
	struct side *sd = xcalloc((size_t)n, sizeof *sd);
	struct sweep_job sj = { r->traces, w->cpu, sd };
	parallel_for(n, sweep_rank, &sj);
	double late = 0, before = 0, ex[X__N] = { 0 };
	struct kent *kv = NULL;
	uint32_t nk = 0, kcap = 0;
	for (uint32_t k = 0; k < r->ncolls; k++) {
		const struct collective *c = &r->colls[k];
		if (c->last != sp || c->nranks_present < 2 || c->per[sp].ref.track == TT_NONE)
			continue;
		w->collectives++;
		double mine[X__N], sum[X__N] = { 0 }, x[X__N], arr = 0, seg = 0;
		int others = 0;
		int64_t a_sp = segment_start(r, k, sp), b_sp = c->per[sp].start;
		for (int i = 0; i < n; i++) {
			const struct coll_rank *p = &c->per[i];
			if (p->ref.track == TT_NONE)
				continue;
			int64_t a = i == sp ? a_sp : segment_start(r, k, i), b = p->start, off = r->ranks[i].offset;
			if (a > b)
				a = b;
			segment_figures(&sd[i], w->cpu, tt_sub(a, off), tt_sub(b, off), i == sp ? mine : x);
			take_kernels(&sd[i], tt_sub(a, off), tt_sub(b, off), i == sp, &kv, &nk, &kcap);
			if (i == sp)
				continue;
			others++;
			for (int q = 0; q < X__N; q++)
				sum[q] += x[q];
			arr += (double)b_sp - (double)b;
			seg += (double)(a_sp < b_sp ? a_sp : b_sp) - (double)a;
		}
		late += arr / others;
		before += seg / others;
		for (int q = 0; q < X__N; q++)
			ex[q] += mine[q] - sum[q] / others;
	}
	double slower = match_kernels(kv, nk, w);
	free(kv);
	w->late = tt_from_double(late);
	w->before = tt_from_double(before);
	w->explained[SR_DATALOADER] = tt_from_double(ex[X_DL]);
	w->explained[SR_HOST_SYNC] = tt_from_double(ex[X_SYNC]);
	w->explained[SR_SLOWER_GPU] = tt_from_double(slower);
	w->explained[SR_COMPUTE] = tt_from_double(ex[X_COMP] - (slower > 0 ? slower : 0));
	int best = -1;
	for (int q = 0; q < SR_UNKNOWN; q++)
		if (best < 0 || w->explained[q] > w->explained[best])
			best = q;
	if (w->late > 0 && w->explained[best] >= w->late - w->late / 2)
		w->reason = (enum straggler_reason)best;
	explain_text(w, r->ranks[sp].rank);
	for (int i = 0; i < n; i++)
		side_free(&sd[i]);
	free(sd);
}
