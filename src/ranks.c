/* ranks.c: alignment, collectives and the distributed figures (see ranks.h). */
#include "src/ranks.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/parallel.h"
#include "lib/sort.h"
#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "src/spans.h"
#include "src/kernel_class.h"
#include "src/straggler.h"

const char *align_mode_name(enum align_mode m)
{
	switch (m) {
	case ALIGN_RAW: return "raw";
	case ALIGN_STEP: return "step";
	case ALIGN_COLLECTIVE: return "collective";
	case ALIGN_MANUAL: return "manual";
	}
	return "?";
}

int align_mode_parse(const char *s)
{
	for (int m = ALIGN_RAW; m <= ALIGN_MANUAL; m++)
		if (strcmp(s, align_mode_name((enum align_mode)m)) == 0)
			return m;
	return -1;
}

/* Without distributedInfo: the number after "rank" or "worker" in the file's base name
 * (rank2.pt.trace.json, worker3_step_12.json), else FALLBACK (the position). */
static int rank_from_name(const char *path, int fallback)
{
	const char *base = strrchr(path, '/');
	base = base != NULL ? base + 1 : path;
	static const char *const words[] = { "rank", "worker" };
	for (size_t w = 0; w < sizeof words / sizeof *words; w++) {
		size_t wl = strlen(words[w]);
		for (const char *p = base; (p = strstr(p, words[w])) != NULL; p += wl) {
			const char *q = p + wl;
			while (*q == '_' || *q == '-')
				q++;
			if (*q >= '0' && *q <= '9') {
				long v = 0;
				while (*q >= '0' && *q <= '9' && v < 1000000)
					v = v * 10 + (*q++ - '0');
				return (int)v;
			}
		}
	}
	return fallback;
}

/* Appends one warning to R's list (separated by "; "; cut at the buffer's end). */
static void warn(struct rank_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct rank_report *r, const char *fmt, ...)
{
	size_t l = strlen(r->warnings);
	if (l + 2 >= sizeof r->warnings)
		return;
	if (l > 0) {
		memcpy(r->warnings + l, "; ", 3);
		l += 2;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->warnings + l, sizeof r->warnings - l, fmt, ap);
	va_end(ap);
}

static int64_t base_of(const struct trace *t) { return t->has_base ? t->base_ns : 0; }

/* One collective as found on one rank, before matching. */
struct found {
	char kind[48];
	struct slice_ref ref;
	int64_t start, end; /* absolute, unaligned */
	uint32_t kid;       /* the kind as a number, the same on every rank */
	uint32_t nth;       /* how many of that kind come before it on its rank */
};

/* A slice's start and end in absolute time (saturated: two ranks' time bases may lie
 * centuries apart). */
static int64_t abs_start(const struct trace *t, const struct slice *s) { return tt_add(base_of(t), s->ts); }
static int64_t abs_end(const struct trace *t, const struct track *tr, const struct slice *s)
{
	return tt_add(tt_add(base_of(t), s->ts), slice_dur(tr, s));
}

static bool is_gpu(const struct track *tr) { return tr->kind == TRACK_GPU_COMPUTE || tr->kind == TRACK_GPU_COMM; }

void ranks_collective_kind(const char *name, bool kernel, char *out, size_t n)
{
	const char *p = name;
	if (kernel && strstr(name, "Kernel_") == NULL) {
		if (strncmp(p, "void ", 5) == 0)
			p += 5;
		char plain[256]; /* the name without its "(anonymous namespace)::" parts */
		size_t k = 0;
		while (*p != '\0' && k + 1 < sizeof plain) {
			if (strncmp(p, "(anonymous namespace)::", 23) == 0) {
				p += 23;
				continue;
			}
			plain[k++] = *p++;
		}
		plain[k] = '\0';
		p = plain;
		size_t len = strcspn(p, "<(");
		for (size_t i = 0; i + 1 < len; i++) /* the last part of a qualified name */
			if (p[i] == ':' && p[i + 1] == ':') {
				p += i + 2;
				len -= i + 2;
				i = (size_t)-1;
			}
		snprintf(out, n, "%.*s", (int)len, p);
		return;
	}
	if (kernel) {
		const char *k = strstr(name, "Kernel_");
		p = k != NULL ? k + 7 : name;
	} else if (strncmp(name, "gloo:", 5) == 0) {
		p = name + 5;
	}
	size_t i = 0;
	while (p[i] && p[i] != '_' && p[i] != '(' && i + 1 < n) {
		out[i] = p[i];
		i++;
	}
	/* gloo kinds keep their underscores (all_reduce); kernel kinds stop at the first */
	if (!kernel) {
		i = 0;
		while (p[i] && p[i] != '(' && p[i] != ' ' && i + 1 < n) {
			out[i] = p[i];
			i++;
		}
	}
	out[i] = '\0';
}

static int found_cmp(const void *a, const void *b)
{
	const struct found *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->ref.track < y->ref.track ? -1 : x->ref.track > y->ref.track;
}

static struct found *find_collectives(const struct trace *t, bool kernels, uint32_t *nout)
{
	struct found *v = NULL;
	uint32_t n = 0, cap = 0;
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		if (kernels ? !is_gpu(tr) : tr->kind != TRACK_CPU)
			continue;
		for (uint32_t i = 0; i < tr->nslices; i++) {
			const struct slice *s = &tr->slices[i];
			const char *nm = strtab_get(&t->strings, slice_name(t, s));
			if (kernels ? !(slice_cls(t, s) == SC_KERNEL && kernel_class_trace_is_comm(t, slice_name(t, s)))
			            : strncmp(nm, "gloo:", 5) != 0)
				continue;
			if (n == cap)
				v = xreallocarray(v, cap = cap ? cap * 2 : 64, sizeof *v);
			ranks_collective_kind(nm, kernels, v[n].kind, sizeof v[n].kind);
			/* collectives of different process groups are matched apart, in order within each */
			uint32_t g = slice_gpu(tr, s);
			if (g != TT_NONE && gpu_pg(t, &t->gpu[g]) != 0) {
				size_t l = strlen(v[n].kind);
				snprintf(v[n].kind + l, sizeof v[n].kind - l, " pg %s",
				         strtab_get(&t->strings, gpu_pg(t, &t->gpu[g])));
			}
			v[n].ref = (struct slice_ref){ ti, i };
			v[n].start = abs_start(t, s);
			v[n].end = abs_end(t, tr, s);
			n++;
		}
	}
	if (n > 0)
		qsort(v, n, sizeof *v, found_cmp);
	*nout = n;
	return v;
}

/* A collective in the order of (kind, rank, position): the key of the matching. */
struct kind_ref {
	const char *kind;
	uint32_t rank, k;
};

static inline bool kind_ref_less(const struct kind_ref *a, const struct kind_ref *b)
{
	int c = strcmp(a->kind, b->kind);
	if (c != 0)
		return c < 0;
	if (a->rank != b->rank)
		return a->rank < b->rank;
	return a->k < b->k;
}
SORT_DEFINE(sort_kind_refs, struct kind_ref, kind_ref_less)

/* Numbers the kinds of the N ranks' collectives F (NF each) and counts each one's
 * predecessors of its kind on its rank (found.kid, found.nth). Returns the collectives
 * sorted by (kind, rank, position), *NOUT of them, for find_nth (free with free()). */
static struct kind_ref *number_kinds(struct found **f, const uint32_t *nf, int n, uint32_t *nout)
{
	size_t total = 0;
	for (int i = 0; i < n; i++)
		total += nf[i];
	struct kind_ref *v = xmalloc((total ? total : 1) * sizeof *v);
	uint32_t m = 0;
	for (int i = 0; i < n; i++)
		for (uint32_t k = 0; k < nf[i]; k++)
			v[m++] = (struct kind_ref){ f[i][k].kind, (uint32_t)i, k };
	sort_kind_refs(v, m);
	uint32_t kid = 0, nth = 0;
	for (uint32_t j = 0; j < m; j++) {
		if (j > 0 && strcmp(v[j].kind, v[j - 1].kind) != 0) {
			kid++;
			nth = 0;
		} else if (j > 0 && v[j].rank != v[j - 1].rank) {
			nth = 0;
		}
		f[v[j].rank][v[j].k].kid = kid;
		f[v[j].rank][v[j].k].nth = nth++;
	}
	*nout = m;
	return v;
}

/* The position on rank RANK of its NTH collective of kind KID, or UINT32_MAX. */
static uint32_t find_nth(const struct kind_ref *v, uint32_t m, struct found *const *f, uint32_t kid, uint32_t rank,
                         uint32_t nth)
{
	uint32_t lo = 0, hi = m;
	while (lo < hi) { /* the first of (kid, rank) */
		uint32_t mid = lo + (hi - lo) / 2;
		const struct found *x = &f[v[mid].rank][v[mid].k];
		if (x->kid < kid || (x->kid == kid && v[mid].rank < rank))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (nth >= m - lo)
		return UINT32_MAX;
	const struct kind_ref *r = &v[lo + nth];
	return r->rank == rank && f[r->rank][r->k].kid == kid ? r->k : UINT32_MAX;
}

static bool is_reduction(const char *kind) { return strstr(kind, "Reduce") != NULL || strstr(kind, "reduce") != NULL; }

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* The union of a rank's compute (non-communication kernels, or CPU ops when there are
 * no kernels) and of its communication, in absolute time. */
static void unions(const struct trace *t, bool kernels, struct span **cu, uint32_t *ncu, struct span **co,
                   uint32_t *nco)
{
	struct span *a = NULL, *b = NULL;
	uint32_t na = 0, nb = 0, ca = 0, cb = 0;
	bool has_kernels = false;
	for (uint32_t ti = 0; ti < t->ntracks && !has_kernels; ti++)
		for (uint32_t i = 0; i < t->tracks[ti].nslices && t->tracks[ti].gpu_slices > 0 && !has_kernels; i++)
			has_kernels = slice_cls(t, &t->tracks[ti].slices[i]) == SC_KERNEL;
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		if (kernels && has_kernels && tr->gpu_slices == 0)
			continue; /* both unions are of kernels: none on this track */
		for (uint32_t i = 0; i < tr->nslices; i++) {
			const struct slice *s = &tr->slices[i];
			const char *nm = strtab_get(&t->strings, slice_name(t, s));
			struct span sp = { abs_start(t, s), abs_end(t, tr, s) };
			bool comm = kernels ? (slice_cls(t, s) == SC_KERNEL &&
			                       kernel_class_trace_is_comm(t, slice_name(t, s)))
			                    : (tr->kind == TRACK_CPU && strncmp(nm, "gloo:", 5) == 0);
			bool compute;
			if (has_kernels)
				compute = slice_cls(t, s) == SC_KERNEL &&
				          !kernel_class_trace_is_comm(t, slice_name(t, s));
			else
				compute =
					tr->kind == TRACK_CPU && !comm &&
					(slice_cls(t, s) == SC_CPU_OP || (t->legacy && slice_cls(t, s) == SC_OTHER)) &&
					strncmp(nm, "ProfilerStep#", 13) != 0 && strncmp(nm, "c10d::", 6) != 0;
			if (comm) {
				if (nb == cb)
					b = xreallocarray(b, cb = cb ? cb * 2 : 256, sizeof *b);
				b[nb++] = sp;
			} else if (compute) {
				if (na == ca)
					a = xreallocarray(a, ca = ca ? ca * 2 : 1024, sizeof *a);
				a[na++] = sp;
			}
		}
	}
	*cu = a;
	*ncu = spans_merge(a, na);
	*co = b;
	*nco = spans_merge(b, nb);
}

/* The intersection of the unions A and B (merged) into OUT, room for NA + NB spans;
 * returns how many. */
static uint32_t spans_and(const struct span *a, uint32_t na, const struct span *b, uint32_t nb, struct span *out)
{
	uint32_t i = 0, j = 0, n = 0;
	while (i < na && j < nb) {
		int64_t s = a[i].start > b[j].start ? a[i].start : b[j].start;
		int64_t e = a[i].end < b[j].end ? a[i].end : b[j].end;
		if (e > s)
			out[n++] = (struct span){ s, e };
		if (a[i].end < b[j].end)
			i++;
		else
			j++;
	}
	return n;
}

/* Rank I's exposed communication inside [A, B) (absolute time) split into the part inside
 * its waits (from its arrival at a collective that two ranks or more have to the last
 * rank's, or to its own end if sooner) and the rest; with HIDE, less what its compute CU
 * covers. CO is its communication. R's collectives hold aligned times and waits. */
static void split_exposed(const struct rank_report *r, int i, const struct span *cu, uint32_t ncu,
                          const struct span *co, uint32_t nco, bool hide, int64_t a, int64_t b, int64_t *wait,
                          int64_t *transfer)
{
	int64_t off = r->ranks[i].offset;
	struct span *w = xmalloc(((size_t)r->ncolls + 1) * sizeof *w);
	uint32_t nw = 0;
	for (uint32_t k = 0; k < r->ncolls; k++) {
		const struct coll_rank *p = &r->colls[k].per[i];
		if (p->ref.track == TT_NONE || r->colls[k].nranks_present < 2 || p->wait <= 0)
			continue;
		int64_t m = tt_add(p->start, p->wait);
		w[nw++] = (struct span){ tt_sub(p->start, off), tt_sub(m < p->end ? m : p->end, off) };
	}
	nw = spans_merge(w, nw);
	const struct span win = { a, b };
	struct span *cw = xmalloc(((size_t)nco + 1) * sizeof *cw), *x = xmalloc(((size_t)nw + nco + 1) * sizeof *x);
	uint32_t ncw = spans_and(co, nco, &win, 1, cw), nx = spans_and(w, nw, cw, ncw, x);
	int64_t exposed = spans_length(cw, ncw) - (hide ? spans_intersection(cw, ncw, cu, ncu) : 0);
	*wait = spans_length(x, nx) - (hide ? spans_intersection(x, nx, cu, ncu) : 0);
	*transfer = exposed - *wait;
	free(w);
	free(cw);
	free(x);
}

void ranks_exposed_split(const struct rank_report *r, int pos, int64_t w0, int64_t w1, bool hide, int64_t *wait,
                         int64_t *transfer)
{
	const struct trace *t = r->traces[pos];
	struct span *cu, *co;
	uint32_t ncu, nco;
	unions(t, r->comm_from_kernels, &cu, &ncu, &co, &nco);
	split_exposed(r, pos, cu, ncu, co, nco, hide, tt_add(base_of(t), w0), tt_add(base_of(t), w1), wait, transfer);
	free(cu);
	free(co);
}

uint32_t ranks_shared_collectives(const struct rank_report *r)
{
	uint32_t shared = 0;
	for (uint32_t k = 0; k < r->ncolls; k++)
		shared += r->colls[k].nranks_present >= 2;
	return shared;
}

int ranks_last_arrivers(const struct rank_report *r)
{
	int n = 0;
	for (int i = 0; i < r->nranks; i++)
		n += r->ranks[i].arrived_last > 0;
	return n;
}

/* One rank's collectives, on one of parallel_for's threads. */
struct find_job {
	struct trace *const *traces;
	bool kernels;
	struct found **f;
	uint32_t *nf;
};

static void find_rank(void *arg, int i)
{
	struct find_job *j = arg;
	j->f[i] = find_collectives(j->traces[i], j->kernels, &j->nf[i]);
}

/* One rank's figures (what it computes, communicates, exposes and waits), on one of
 * parallel_for's threads: it writes that rank's stats and its part of each collective. */
struct figures_job {
	struct rank_report *r;
	bool *clamped; /* by rank: a sum reached the clamp */
};

static void rank_figures(void *arg, int i)
{
	struct figures_job *j = arg;
	struct rank_report *r = j->r;
	struct trace *const *traces = r->traces;
	struct rank_stats *st = &r->ranks[i];
	struct span *cu, *co;
	uint32_t ncu, nco;
	unions(traces[i], r->comm_from_kernels, &cu, &ncu, &co, &nco);
	int64_t *cu_prefix = spans_prefix(cu, ncu);
	st->compute = spans_length(cu, ncu);
	st->comm = spans_length(co, nco);
	/* With CPU collectives the rank computes on one thread while a gloo thread
	 * communicates, so exposed is the communication during which no operator runs on
	 * its threads: its main thread waits. A legacy trace counts every slice as an
	 * operator, annotations that span the wait (backward) too: no figure then. */
	st->exposed_na = !r->comm_from_kernels && traces[i]->legacy && st->comm > 0;
	st->overlap = st->exposed_na ? 0 : spans_intersection(cu, ncu, co, nco);
	st->exposed = st->exposed_na ? 0 : st->comm - st->overlap;
	if (!st->exposed_na)
		split_exposed(r, i, cu, ncu, co, nco, true, INT64_MIN, INT64_MAX, &st->exposed_wait,
		              &st->exposed_transfer);
	for (uint32_t k = 0; k < r->ncolls; k++) {
		struct coll_rank *p = &r->colls[k].per[i];
		if (p->ref.track == TT_NONE || r->colls[k].nranks_present < 2)
			continue;
		st->waiting = tt_add(st->waiting, p->wait);
		if (st->waiting == INT64_MAX)
			j->clamped[i] = true;
		/* in the rank's own (unaligned) time, as the unions are */
		const struct slice *sl = &traces[i]->tracks[p->ref.track].slices[p->ref.idx];
		if (!st->exposed_na) {
			int64_t a = abs_start(traces[i], sl),
				b = abs_end(traces[i], &traces[i]->tracks[p->ref.track], sl);
			p->overlap = spans_within_prefix(cu, cu_prefix, ncu, a, b);
			/* the last rank's arrival, in this rank's own time, within [a, b] */
			int64_t m = tt_add(a, p->wait < 0 ? 0 : p->wait);
			if (m > b)
				m = b;
			p->exposed_wait = (m - a) - spans_within_prefix(cu, cu_prefix, ncu, a, m);
			p->exposed_transfer = (b - m) - spans_within_prefix(cu, cu_prefix, ncu, m, b);
		}
	}
	free(cu_prefix);
	free(cu);
	free(co);
}

void ranks_analyse(struct trace *const *traces, int n, enum align_mode mode, const int64_t *manual,
                   struct rank_report *r)
{
	struct found **f = xcalloc((size_t)n, sizeof *f);
	uint32_t *nf = xcalloc((size_t)n, sizeof *nf);

	memset(r, 0, sizeof *r);
	r->mode = mode;
	r->nranks = n;
	r->traces = traces;
	r->straggler = r->last_most = -1;
	r->ranks = xcalloc((size_t)n, sizeof *r->ranks);
	for (int i = 0; i < n; i++) {
		r->ranks[i].rank = traces[i]->rank >= 0 ? traces[i]->rank : rank_from_name(traces[i]->path, i);
		for (int j = 0; j < i; j++)
			if (r->ranks[j].rank == r->ranks[i].rank)
				warn(r, "rank %d appears twice (files %d and %d)", r->ranks[i].rank, j + 1, i + 1);
	}
	/* files of different jobs: their world sizes disagree */
	for (int i = 1; i < n; i++)
		if (traces[i]->world_size >= 0 && traces[0]->world_size >= 0 &&
		    traces[i]->world_size != traces[0]->world_size) {
			warn(r, "files of different jobs? world size %d (file 1) and %d (file %d)",
			     traces[0]->world_size, traces[i]->world_size, i + 1);
			break;
		}
	for (int i = 0; i < n; i++)
		for (uint32_t ti = 0; ti < traces[i]->ntracks; ti++)
			if (traces[i]->tracks[ti].comm_kernels > 0)
				r->comm_from_kernels = true;
	struct find_job fj = { traces, r->comm_from_kernels, f, nf };
	parallel_for(n, find_rank, &fj);

	/* match collectives by kind and order: the k-th of a kind on each rank */
	uint32_t cap = 0, nrefs;
	uint32_t *next = xcalloc((size_t)n, sizeof *next);
	struct kind_ref *refs = number_kinds(f, nf, n, &nrefs);
	for (int lead = 0;;) {
		/* the earliest unmatched collective of rank 0 (or the first rank that has one) leads */
		while (lead < n && next[lead] >= nf[lead])
			lead++;
		if (lead >= n)
			break;
		const char *kind = f[lead][next[lead]].kind;
		uint32_t kid = f[lead][next[lead]].kid;
		/* its index among collectives of that kind on the lead rank */
		uint32_t idx = f[lead][next[lead]].nth;
		if (r->ncolls == cap)
			r->colls = xreallocarray(r->colls, cap = cap ? cap * 2 : 32, sizeof *r->colls);
		struct collective *c = &r->colls[r->ncolls++];
		memset(c, 0, sizeof *c);
		snprintf(c->kind, sizeof c->kind, "%s", kind);
		c->number = r->ncolls - 1;
		c->kind_index = idx;
		c->per = xcalloc((size_t)n, sizeof *c->per);
		for (int i = 0; i < n; i++) {
			/* the idx-th collective of that kind on rank i */
			uint32_t k = find_nth(refs, nrefs, f, kid, (uint32_t)i, idx);
			c->per[i].ref.track = c->per[i].ref.idx = TT_NONE;
			if (k != UINT32_MAX) {
				c->per[i].ref = f[i][k].ref;
				c->per[i].start = f[i][k].start;
				c->per[i].end = f[i][k].end;
				c->nranks_present++;
				if (k >= next[i])
					next[i] = k + 1; /* never match an earlier one again */
			}
		}
	}
	free(next);
	free(refs);

	/* offsets */
	for (int i = 0; i < n; i++)
		r->ranks[i].step_start = INT64_MIN;
	if (mode == ALIGN_MANUAL && manual != NULL) {
		for (int i = 0; i < n; i++)
			r->ranks[i].offset = manual[i];
	} else if (mode == ALIGN_STEP && n > 0) {
		/* the first ProfilerStep number that every rank has (each rank's numbers sorted) */
		int64_t common = INT64_MIN;
		int64_t **nums = xcalloc((size_t)n, sizeof *nums);
		uint32_t *nnums = xcalloc((size_t)n, sizeof *nnums);
		for (int i = 1; i < n; i++) {
			nums[i] = xmalloc((traces[i]->nsteps ? traces[i]->nsteps : 1) * sizeof **nums);
			for (uint32_t q = 0; q < traces[i]->nsteps; q++)
				if (!traces[i]->steps[q].gpu)
					nums[i][nnums[i]++] = traces[i]->steps[q].number;
			if (nnums[i] > 0)
				qsort(nums[i], nnums[i], sizeof **nums, cmp_i64);
		}
		for (uint32_t k = 0; k < traces[0]->nsteps && common == INT64_MIN; k++) {
			int64_t num = traces[0]->steps[k].number;
			bool all = !traces[0]->steps[k].gpu;
			for (int i = 1; i < n && all; i++)
				all = nnums[i] > 0 && bsearch(&num, nums[i], nnums[i], sizeof **nums, cmp_i64) != NULL;
			if (all)
				common = num;
		}
		for (int i = 1; i < n; i++)
			free(nums[i]);
		free(nums);
		free(nnums);
		if (common == INT64_MIN) {
			warn(r, "no ProfilerStep common to all ranks: raw alignment");
		} else {
			int64_t ref = 0;
			for (int i = 0; i < n; i++)
				for (uint32_t q = 0; q < traces[i]->nsteps; q++)
					if (!traces[i]->steps[q].gpu && traces[i]->steps[q].number == common) {
						int64_t s = tt_add(base_of(traces[i]), traces[i]->steps[q].ts);
						if (i == 0)
							ref = s;
						r->ranks[i].offset = tt_sub(ref, s);
						if (r->ranks[i].offset == INT64_MIN ||
						    r->ranks[i].offset == INT64_MAX) {
							warn(r,
							     "rank %d's clock lies too far from rank %d's (292 years or more): not aligned",
							     r->ranks[i].rank, r->ranks[0].rank);
							r->ranks[i].offset = 0;
						}
						break;
					}
		}
	} else if (mode == ALIGN_COLLECTIVE) {
		/* reductions end together on every rank; a broadcast's root may finish first, so
		 * reductions alone are used when there are any */
		bool any_reduce = false;
		for (uint32_t k = 0; k < r->ncolls; k++)
			any_reduce |= is_reduction(r->colls[k].kind);
		int64_t *d = xmalloc((r->ncolls ? r->ncolls : 1) * sizeof *d);
		for (int i = 1; i < n; i++) {
			uint32_t m = 0;
			for (uint32_t k = 0; k < r->ncolls; k++)
				if (r->colls[k].per[0].ref.track != TT_NONE &&
				    r->colls[k].per[i].ref.track != TT_NONE &&
				    (!any_reduce || is_reduction(r->colls[k].kind)))
					d[m++] = tt_sub(r->colls[k].per[0].end, r->colls[k].per[i].end);
			if (m == 0) {
				const char *c0 =
					traces[0]->clock ? strtab_get(&traces[0]->strings, traces[0]->clock) : NULL;
				const char *ci =
					traces[i]->clock ? strtab_get(&traces[i]->strings, traces[i]->clock) : NULL;
				if (c0 != NULL && ci != NULL && strcmp(c0, ci) == 0)
					/* both files say their times come from one host clock: it aligns them */
					warn(r,
					     "rank %d shares no collective with rank %d: aligned on the clock both files "
					     "give (%s): as good as the hosts' clocks agree",
					     r->ranks[i].rank, r->ranks[0].rank, c0);
				else
					warn(r, "rank %d shares no collective with rank %d: not aligned",
					     r->ranks[i].rank, r->ranks[0].rank);
				continue;
			}
			qsort(d, m, sizeof *d, cmp_i64);
			/* the median; of two middle values, their midpoint rounded down (d sorted: no overflow) */
			r->ranks[i].offset =
				m % 2 ? d[m / 2]
				      : d[m / 2 - 1] + (int64_t)(((uint64_t)d[m / 2] - (uint64_t)d[m / 2 - 1]) / 2);
			if (r->ranks[i].offset == INT64_MIN || r->ranks[i].offset == INT64_MAX) {
				warn(r, "rank %d's clock lies too far from rank %d's (292 years or more): not aligned",
				     r->ranks[i].rank, r->ranks[0].rank);
				r->ranks[i].offset = 0;
			}
		}
		free(d);
	}
	/* aligned times, waits, the last to arrive */
	bool clamped = false;
	for (uint32_t k = 0; k < r->ncolls; k++) {
		struct collective *c = &r->colls[k];
		int64_t latest = INT64_MIN, earliest = INT64_MAX, emin = INT64_MAX, emax = INT64_MIN;
		c->transfer = INT64_MAX;
		c->last = -1;
		for (int i = 0; i < n; i++) {
			struct coll_rank *p = &c->per[i];
			if (p->ref.track == TT_NONE)
				continue;
			p->start = tt_add(p->start, r->ranks[i].offset);
			p->end = tt_add(p->end, r->ranks[i].offset);
			if (p->start > latest) {
				latest = p->start;
				c->last = i;
			}
			if (p->start < earliest)
				earliest = p->start;
			if (p->end < emin)
				emin = p->end;
			if (p->end > emax)
				emax = p->end;
			if (tt_sub(p->end, p->start) < c->transfer)
				c->transfer = tt_sub(p->end, p->start);
		}
		c->skew = tt_sub(latest, earliest);
		if (c->skew == INT64_MAX)
			clamped = true;
		for (int i = 0; i < n; i++)
			if (c->per[i].ref.track != TT_NONE)
				c->per[i].wait = tt_sub(latest, c->per[i].start);
		if (c->nranks_present >= 2) {
			if (tt_sub(emax, emin) > r->residual)
				r->residual = tt_sub(emax, emin);
			if (r->residual == INT64_MAX)
				clamped = true;
			r->ranks[c->last].arrived_last++;
		}
	}
	/* per-rank figures */
	for (int i = 0; i < n; i++)
		r->ranks[i].collectives = nf[i];
	struct figures_job gj = { r, xcalloc((size_t)n, sizeof(bool)) };
	parallel_for(n, rank_figures, &gj);
	for (int i = 0; i < n; i++)
		clamped |= gj.clamped[i];
	free(gj.clamped);
	if (clamped)
		warn(r, "times of 292 years or more (clocks far apart?) are clamped to that");
	/* the rank last most often (ties: the one that waited least); the straggler when it is
	 * last at RANKS_STRAGGLER_LAST_MIN of the collectives two ranks or more have */
	for (int i = 0; i < n; i++) {
		if (r->ranks[i].arrived_last == 0)
			continue;
		if (r->last_most < 0 || r->ranks[i].arrived_last > r->ranks[r->last_most].arrived_last ||
		    (r->ranks[i].arrived_last == r->ranks[r->last_most].arrived_last &&
		     r->ranks[i].waiting < r->ranks[r->last_most].waiting))
			r->last_most = i;
	}
	uint32_t shared = ranks_shared_collectives(r);
	if (r->last_most >= 0 && (double)r->ranks[r->last_most].arrived_last >= RANKS_STRAGGLER_LAST_MIN * shared)
		r->straggler = r->last_most;
	if (r->straggler >= 0)
		straggler_explain(r);
	for (int i = 0; i < n; i++)
		free(f[i]);
	free(f);
	free(nf);
}

const char *straggler_reason_key(enum straggler_reason x)
{
	switch (x) {
	case SR_DATALOADER: return "dataloader_stall";
	case SR_HOST_SYNC: return "host_sync";
	case SR_SLOWER_GPU: return "slower_gpu";
	case SR_COMPUTE: return "longer_compute";
	case SR_UNKNOWN:
	case SR__COUNT: break;
	}
	return "unknown";
}

void ranks_free(struct rank_report *r)
{
	for (uint32_t k = 0; k < r->ncolls; k++)
		free(r->colls[k].per);
	free(r->colls);
	free(r->ranks);
	memset(r, 0, sizeof *r);
}
