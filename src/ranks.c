/* ranks.c: alignment, collectives and the distributed figures (see ranks.h). */
#include "src/ranks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/spans.h"
#include "src/xalloc.h"

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

static int64_t base_of(const struct trace *t) { return t->has_base ? t->base_ns : 0; }

/* One collective as found on one rank, before matching. */
struct found {
	char kind[48];
	struct slice_ref ref;
	int64_t start, end; /* absolute, unaligned */
};

static bool is_gpu(const struct track *tr) { return tr->kind == TRACK_GPU_COMPUTE || tr->kind == TRACK_GPU_COMM; }

/* "ncclKernel_AllReduce_RING_LL_Sum_float(...)" -> "AllReduce"; "gloo:all_reduce" -> "all_reduce". */
static void kind_of(const char *name, bool kernel, char *out, size_t n)
{
	const char *p = name;
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
			const char *nm = strtab_get(&t->strings, s->name);
			if (kernels ? !(s->cls == SC_KERNEL && model_is_comm_kernel(nm)) : strncmp(nm, "gloo:", 5) != 0)
				continue;
			if (n == cap)
				v = xreallocarray(v, cap = cap ? cap * 2 : 64, sizeof *v);
			kind_of(nm, kernels, v[n].kind, sizeof v[n].kind);
			/* collectives of different process groups are matched apart, in order within each */
			if (s->gpu != TT_NONE && t->gpu[s->gpu].pg != 0) {
				size_t l = strlen(v[n].kind);
				snprintf(v[n].kind + l, sizeof v[n].kind - l, " pg %s", strtab_get(&t->strings, t->gpu[s->gpu].pg));
			}
			v[n].ref = (struct slice_ref){ ti, i };
			v[n].start = base_of(t) + s->ts;
			v[n].end = base_of(t) + s->ts + s->dur;
			n++;
		}
	}
	if (n > 0)
		qsort(v, n, sizeof *v, found_cmp);
	*nout = n;
	return v;
}

static bool is_reduction(const char *kind)
{
	return strstr(kind, "Reduce") != NULL || strstr(kind, "reduce") != NULL;
}

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
		for (uint32_t i = 0; i < t->tracks[ti].nslices && !has_kernels; i++)
			has_kernels = t->tracks[ti].slices[i].cls == SC_KERNEL;
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		for (uint32_t i = 0; i < tr->nslices; i++) {
			const struct slice *s = &tr->slices[i];
			const char *nm = strtab_get(&t->strings, s->name);
			struct span sp = { base_of(t) + s->ts, base_of(t) + s->ts + s->dur };
			bool comm = kernels ? (s->cls == SC_KERNEL && model_is_comm_kernel(nm))
			                    : (tr->kind == TRACK_CPU && strncmp(nm, "gloo:", 5) == 0);
			bool compute;
			if (has_kernels)
				compute = s->cls == SC_KERNEL && !model_is_comm_kernel(nm);
			else
				compute = tr->kind == TRACK_CPU && !comm && (s->cls == SC_CPU_OP || (t->legacy && s->cls == SC_OTHER)) &&
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

void ranks_analyse(struct trace *const *traces, int n, enum align_mode mode, const int64_t *manual, struct rank_report *r)
{
	struct found **f = xcalloc((size_t)n, sizeof *f);
	uint32_t *nf = xcalloc((size_t)n, sizeof *nf);

	memset(r, 0, sizeof *r);
	r->mode = mode;
	r->nranks = n;
	r->traces = traces;
	r->straggler = -1;
	r->ranks = xcalloc((size_t)n, sizeof *r->ranks);
	for (int i = 0; i < n; i++) {
		r->ranks[i].rank = traces[i]->rank >= 0 ? traces[i]->rank : rank_from_name(traces[i]->path, i);
		for (int j = 0; j < i; j++)
			if (r->ranks[j].rank == r->ranks[i].rank) {
				size_t l = strlen(r->warnings);
				snprintf(r->warnings + l, sizeof r->warnings - l, "%srank %d appears twice (files %d and %d)",
				         l ? "; " : "", r->ranks[i].rank, j + 1, i + 1);
			}
	}
	/* files of different jobs: their world sizes disagree */
	for (int i = 1; i < n; i++)
		if (traces[i]->world_size >= 0 && traces[0]->world_size >= 0 && traces[i]->world_size != traces[0]->world_size) {
			size_t l = strlen(r->warnings);
			snprintf(r->warnings + l, sizeof r->warnings - l,
			         "%sfiles of different jobs? world size %d (file 1) and %d (file %d)", l ? "; " : "",
			         traces[0]->world_size, traces[i]->world_size, i + 1);
			break;
		}
	for (int i = 0; i < n; i++)
		for (uint32_t ti = 0; ti < traces[i]->ntracks; ti++)
			if (traces[i]->tracks[ti].comm_kernels > 0)
				r->comm_from_kernels = true;
	for (int i = 0; i < n; i++)
		f[i] = find_collectives(traces[i], r->comm_from_kernels, &nf[i]);

	/* match collectives by kind and order: the k-th of a kind on each rank */
	uint32_t cap = 0;
	uint32_t *next = xcalloc((size_t)n, sizeof *next);
	for (;;) {
		/* the earliest unmatched collective of rank 0 (or the first rank that has one) leads */
		int lead = -1;
		for (int i = 0; i < n; i++)
			if (next[i] < nf[i]) {
				lead = i;
				break;
			}
		if (lead < 0)
			break;
		const char *kind = f[lead][next[lead]].kind;
		/* its index among collectives of that kind on the lead rank */
		uint32_t idx = 0;
		for (uint32_t k = 0; k < next[lead]; k++)
			idx += strcmp(f[lead][k].kind, kind) == 0;
		if (r->ncolls == cap)
			r->colls = xreallocarray(r->colls, cap = cap ? cap * 2 : 32, sizeof *r->colls);
		struct collective *c = &r->colls[r->ncolls++];
		memset(c, 0, sizeof *c);
		snprintf(c->kind, sizeof c->kind, "%s", kind);
		c->index = idx;
		c->per = xcalloc((size_t)n, sizeof *c->per);
		for (int i = 0; i < n; i++) {
			/* the idx-th collective of that kind on rank i */
			uint32_t seen = 0, k;
			c->per[i].ref.track = c->per[i].ref.idx = TT_NONE;
			for (k = 0; k < nf[i]; k++)
				if (strcmp(f[i][k].kind, kind) == 0 && seen++ == idx)
					break;
			if (k < nf[i]) {
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

	/* offsets */
	for (int i = 0; i < n; i++)
		r->ranks[i].step_start = INT64_MIN;
	if (mode == ALIGN_MANUAL && manual != NULL) {
		for (int i = 0; i < n; i++)
			r->ranks[i].offset = manual[i];
	} else if (mode == ALIGN_STEP && n > 0) {
		/* the first ProfilerStep number that every rank has */
		int64_t common = INT64_MIN;
		for (uint32_t k = 0; k < traces[0]->nsteps && common == INT64_MIN; k++) {
			int64_t num = traces[0]->steps[k].number;
			bool all = !traces[0]->steps[k].gpu;
			for (int i = 1; i < n && all; i++) {
				bool has = false;
				for (uint32_t q = 0; q < traces[i]->nsteps; q++)
					has |= !traces[i]->steps[q].gpu && traces[i]->steps[q].number == num;
				all = has;
			}
			if (all)
				common = num;
		}
		if (common == INT64_MIN) {
			size_t l = strlen(r->warnings);
			snprintf(r->warnings + l, sizeof r->warnings - l, "%sno ProfilerStep common to all ranks: raw alignment",
			         l ? "; " : "");
		} else {
			int64_t ref = 0;
			for (int i = 0; i < n; i++)
				for (uint32_t q = 0; q < traces[i]->nsteps; q++)
					if (!traces[i]->steps[q].gpu && traces[i]->steps[q].number == common) {
						int64_t s = base_of(traces[i]) + traces[i]->steps[q].ts;
						if (i == 0)
							ref = s;
						r->ranks[i].offset = ref - s;
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
				if (r->colls[k].per[0].ref.track != TT_NONE && r->colls[k].per[i].ref.track != TT_NONE &&
				    (!any_reduce || is_reduction(r->colls[k].kind)))
					d[m++] = r->colls[k].per[0].end - r->colls[k].per[i].end;
			if (m == 0) {
				size_t l = strlen(r->warnings);
				snprintf(r->warnings + l, sizeof r->warnings - l,
				         "%srank %d shares no collective with rank %d: not aligned", l ? "; " : "", r->ranks[i].rank,
				         r->ranks[0].rank);
				continue;
			}
			qsort(d, m, sizeof *d, cmp_i64);
			r->ranks[i].offset = m % 2 ? d[m / 2] : d[m / 2 - 1] + (d[m / 2] - d[m / 2 - 1]) / 2;
		}
		free(d);
	}
	/* aligned times, waits, the last to arrive */
	for (uint32_t k = 0; k < r->ncolls; k++) {
		struct collective *c = &r->colls[k];
		int64_t latest = INT64_MIN, earliest = INT64_MAX, emin = INT64_MAX, emax = INT64_MIN;
		c->transfer = INT64_MAX;
		c->last = -1;
		for (int i = 0; i < n; i++) {
			struct coll_rank *p = &c->per[i];
			if (p->ref.track == TT_NONE)
				continue;
			p->start += r->ranks[i].offset;
			p->end += r->ranks[i].offset;
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
			if (p->end - p->start < c->transfer)
				c->transfer = p->end - p->start;
		}
		c->skew = latest - earliest;
		for (int i = 0; i < n; i++)
			if (c->per[i].ref.track != TT_NONE)
				c->per[i].wait = latest - c->per[i].start;
		if (c->nranks_present >= 2) {
			if (emax - emin > r->residual)
				r->residual = emax - emin;
			r->ranks[c->last].arrived_last++;
		}
	}
	/* per-rank figures */
	for (int i = 0; i < n; i++) {
		struct rank_stats *st = &r->ranks[i];
		struct span *cu, *co;
		uint32_t ncu, nco;
		unions(traces[i], r->comm_from_kernels, &cu, &ncu, &co, &nco);
		st->compute = spans_length(cu, ncu);
		st->comm = spans_length(co, nco);
		st->overlap = spans_intersection(cu, ncu, co, nco);
		st->exposed = st->comm - st->overlap;
		st->collectives = nf[i];
		for (uint32_t k = 0; k < r->ncolls; k++) {
			struct coll_rank *p = &r->colls[k].per[i];
			if (p->ref.track == TT_NONE || r->colls[k].nranks_present < 2)
				continue;
			st->waiting += p->wait;
			p->overlap = spans_within(cu, ncu, p->start - st->offset, p->end - st->offset);
		}
		free(cu);
		free(co);
	}
	/* the straggler: arrived last most often; ties go to the one that waited least */
	for (int i = 0; i < n; i++) {
		if (r->ranks[i].arrived_last == 0)
			continue;
		if (r->straggler < 0 || r->ranks[i].arrived_last > r->ranks[r->straggler].arrived_last ||
		    (r->ranks[i].arrived_last == r->ranks[r->straggler].arrived_last &&
		     r->ranks[i].waiting < r->ranks[r->straggler].waiting))
			r->straggler = i;
	}
	for (int i = 0; i < n; i++)
		free(f[i]);
	free(f);
	free(nf);
}

void ranks_free(struct rank_report *r)
{
	for (uint32_t k = 0; k < r->ncolls; k++)
		free(r->colls[k].per);
	free(r->colls);
	free(r->ranks);
	memset(r, 0, sizeof *r);
}
