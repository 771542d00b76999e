/* builder_merge.c: merges the builder of a later part of a source parsed in parallel into
 * the builder of the parts before it (src/builder.h, builder_merge): its strings, tracks,
 * slices, GPU facts, flows, counters and notes renumbered into the earlier part's, and its
 * ends that close begins the earlier parts left open. */
#include "src/builder_state.h"

#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "src/event_blocks.h"
#include "src/kinds.h"

/* Appends N elements of SIZE bytes from SRC to *DST (holding *N of *CAP). The capacity
 * grows by half at least: a compressed stream is merged chunk by chunk, a thousand merges
 * for a 1 GB file, and growing to the exact size made each of them copy the whole array
 * (quadratic: 4x the CPU of the whole parse, bench/RESULTS.md "Compressed input"). */
static void append(void **dst, uint32_t *n, uint32_t *cap, const void *src, uint32_t count, size_t size)
{
	if (count == 0)
		return;
	if ((uint64_t)*n + count > UINT32_MAX)
		BUG("merged array of %llu elements", (unsigned long long)*n + count);
	if (*n + count > *cap) {
		uint64_t want = (uint64_t)*cap + *cap / 2;
		if (want < (uint64_t)*n + count)
			want = (uint64_t)*n + count;
		if (want > UINT32_MAX)
			want = UINT32_MAX;
		*cap = (uint32_t)want;
		*dst = xreallocarray(*dst, *cap, size);
	}
	memcpy((char *)*dst + (size_t)*n * size, src, (size_t)count * size);
	*n += count;
}

/* Moves the COUNT elements of SIZE bytes at *SRC to the end of *DST (holding *N of *CAP)
 * and frees *SRC. The copy runs from the end of *SRC in steps of DRAIN_STEP bytes, each
 * followed by a realloc that shrinks *SRC, so that the two arrays hold the elements
 * about once between them, not twice: a file parsed in two parts whose slices are all on
 * one thread would otherwise peak at one and a half times its slices. */
#define DRAIN_STEP ((size_t)1 << 20)
static void append_draining(void **dst, uint32_t *n, uint32_t *cap, void **src, uint32_t count, size_t size)
{
	size_t step = DRAIN_STEP / size;
	char *base;

	if (count > 0 && *n + count > *cap) {
		*cap = *n + count;
		*dst = xreallocarray(*dst, *cap, size);
	}
	base = (char *)*dst + (size_t)*n * size;
	*n += count;
	while (count > 0) {
		uint32_t k = count < step ? count : (uint32_t)step;
		count -= k;
		memcpy(base + (size_t)count * size, (char *)*src + (size_t)count * size, k * size);
		if (count > 0)
			*src = xreallocarray(*src, count, size);
	}
	free(*src);
	*src = NULL;
}

/* What a merge does to each of SRC's tracks once they all have their place in DST (tmap):
 * their slices appended to DST's (names and categories renumbered, GPU facts moved past
 * DST's), and SRC's arrays freed as it goes, so that the peak stays near the merged size,
 * not twice it. No two of SRC's tracks have one place (their (pid, tid) differ, and so
 * their renumbered ones), so the tracks can be appended in any order, on another thread. */
struct merge_tracks {
	struct trace *d, *s;
	const uint32_t *tmap, *kmap;
};

static void append_tracks(void *arg)
{
	const struct merge_tracks *m = arg;
	struct trace *d = m->d, *s = m->s;
	const uint32_t *kmap = m->kmap;
	for (uint32_t i = 0; i < s->ntracks; i++) {
		const struct track *st = &s->tracks[i];
		struct track *dt = &d->tracks[m->tmap[i]];
		if (st->nslices > 0) {
			uint32_t first = dt->nslices;
			append_draining((void **)&dt->slices, &dt->nslices, &dt->cap, (void **)&s->tracks[i].slices,
			                st->nslices, sizeof *st->slices);
			for (uint32_t k = first; k < dt->nslices; k++)
				dt->slices[k].kind = kmap[dt->slices[k].kind];
			if (st->gpu_bits != NULL || dt->gpu_bits != NULL) {
				/* SRC's bits after DST's: its facts follow DST's in the facts' order */
				size_t had = dt->gpu_bits != NULL ? ((size_t)first + 63) / 64 : 0,
				       words = ((size_t)dt->cap + 63) / 64;
				dt->gpu_bits = xreallocarray(dt->gpu_bits, words ? words : 1, sizeof *dt->gpu_bits);
				memset(dt->gpu_bits + had, 0, (words - had) * sizeof *dt->gpu_bits);
				for (uint32_t w = 0; st->gpu_bits != NULL && w < (st->nslices + 63) / 64; w++)
					for (uint64_t bits = st->gpu_bits[w]; bits != 0; bits &= bits - 1) {
						uint32_t k = first + w * 64 + (uint32_t)__builtin_ctzll(bits);
						dt->gpu_bits[k / 64] |= (uint64_t)1 << (k % 64);
					}
			}
			if (st->nlong > 0) {
				if (dt->nlong + st->nlong > dt->long_cap) {
					dt->long_cap = dt->nlong + st->nlong;
					dt->long_durs =
						xreallocarray(dt->long_durs, dt->long_cap, sizeof *dt->long_durs);
				}
				for (uint32_t k = 0; k < st->nlong; k++)
					dt->long_durs[dt->nlong++] = (struct long_dur){ st->long_durs[k].idx + first, 0,
						                                        st->long_durs[k].dur };
			}
			if (st->args != NULL || dt->args != NULL) {
				if (dt->args == NULL) {
					dt->args = xcalloc(dt->cap, sizeof *dt->args);
				} else {
					dt->args = xreallocarray(dt->args, dt->cap, sizeof *dt->args);
				}
				for (uint32_t k = first; k < dt->nslices; k++)
					dt->args[k] = st->args != NULL ? st->args[k - first] : 0;
			}
		}
		/* free as we go: the peak stays near the merged size, not twice it */
		free(s->tracks[i].slices);
		free(s->tracks[i].gpu_bits);
		s->tracks[i].gpu_bits = NULL;
		free(s->tracks[i].args);
		s->tracks[i].args = NULL;
		free(s->tracks[i].long_durs);
		s->tracks[i].long_durs = NULL;
		s->tracks[i].nlong = s->tracks[i].long_cap = 0;
		s->tracks[i].slices = NULL;
		s->tracks[i].nslices = 0;
		s->tracks[i].cap = 0;
	}
}

void builder_merge(struct builder *dst, struct builder *src) { builder_merge_helped(dst, src, NULL); }

void builder_merge_helped(struct builder *dst, struct builder *src, struct helper *h)
{
	struct trace *d = dst->t, *s = src->t;
	event_blocks_merge(d, s);
	uint32_t *smap = xmalloc(s->strings.n * sizeof *smap);
	uint32_t *tmap = xmalloc((s->ntracks ? s->ntracks : 1) * sizeof *tmap);
	uint32_t gpu_base = d->ngpu;
	const struct where nowhere = { 0, 0 };

	for (uint32_t id = 0; id < s->strings.n; id++)
		smap[id] = strtab_intern(&d->strings, strtab_get(&s->strings, id), strtab_len(&s->strings, id));
	uint8_t cmap[TRACE_MAX_CATS] = { 0 }; /* SRC's category indices to DST's */
	for (uint32_t k = 1; k < s->ncats; k++)
		cmap[k] =
			k == TRACE_MAX_CATS - 1 ? builder_cat_overflow(dst) : builder_cat_index(dst, smap[s->cats[k]]);
#define ID(is_str_, v_) ((struct builder_id){ (is_str_), (is_str_) ? (int64_t)smap[(uint32_t)(v_)] : (v_) })
	for (uint32_t i = 0; i < s->nprocesses; i++) {
		const struct process *sp = &s->processes[i];
		uint32_t pi = builder_process(dst, ID(sp->pid_is_str, sp->pid));
		struct process *dp = &d->processes[pi];
		if (sp->name)
			builder_set_name(dst, nowhere, &dp->name, smap[sp->name], true, TT_NONE);
		if (sp->labels)
			builder_set_name(dst, nowhere, &dp->labels, smap[sp->labels], false, TT_NONE);
		if (sp->sort_index != INT64_MIN)
			builder_set_sort_index(dst, &dp->sort_index, sp->sort_index);
	}
	for (uint32_t i = 0; i < s->ntracks; i++) {
		const struct track *st = &s->tracks[i];
		uint32_t ti = builder_track(dst, ID(st->pid_is_str, st->pid), ID(st->tid_is_str, st->tid));
		struct track *dt = &d->tracks[ti];
		tmap[i] = ti;
		dt->events += st->events;
		dt->gpu_slices += st->gpu_slices;
		dt->comm_kernels += st->comm_kernels;
		if (st->named) {
			builder_set_name(dst, nowhere, &dt->name, smap[st->name], false, ti);
			dt->named = true;
		}
		if (st->sort_index != INT64_MIN)
			builder_set_sort_index(dst, &dt->sort_index, st->sort_index);
		if (st->nslices > 0 && dt->nslices > 0) {
			const struct slice *prev = &dt->slices[dt->nslices - 1], *next = &st->slices[0];
			if (prev->ts == next->ts && slice_dur(dt, prev) == slice_dur(st, next) &&
			    slice_name(d, prev) == smap[slice_name(s, next)])
				builder_note(dst, Q_EXACT_DUPLICATE, 0, next->ts, slice_name(d, prev), ti);
		}
	}
	/* the slices, on the helper when there is one, while this thread merges the rest that
	 * touches no track; the ends that close DST's begins push slices: after them */
	/* SRC's kinds in DST's table: its names and categories mapped (a few thousand) */
	uint32_t *kmap = xmalloc((s->nkinds ? s->nkinds : 1) * sizeof *kmap);
	for (uint32_t k = 0; k < s->nkinds; k++) {
		struct slice_kind sk = s->kinds[k];
		sk.name = smap[sk.name];
		sk.cat_ix = cmap[sk.cat_ix];
		kmap[k] = kinds_intern(d, sk);
	}
	struct merge_tracks mt = { d, s, tmap, kmap };
	if (h != NULL)
		helper_run(h, append_tracks, &mt);
	else
		append_tracks(&mt);
	uint32_t *pmap = xmalloc((s->ngpu_places ? s->ngpu_places : 1) * sizeof *pmap);
	for (uint32_t k = 0; k < s->ngpu_places; k++) {
		struct gpu_place p = s->gpu_places[k];
		p.pg = smap[p.pg];
		pmap[k] = builder_intern_place(dst, &p);
	}
	uint32_t *lmap = xreallocarray(NULL, s->nlaunches ? s->nlaunches : 1, sizeof *lmap);
	for (uint32_t k = 0; k < s->nlaunches; k++)
		lmap[k] = builder_intern_launch(dst, &s->launches[k]);
	for (uint32_t k = 0; k < s->ngpu; k++) {
		struct gpu_fact *g = &s->gpu_facts[k];
		g->place = g->place < s->ngpu_places ? pmap[g->place] : 0;
		if (g->corr_code >= GPU_ID_WIDE && g->corr_code != GPU_ID_NONE)
			g->corr_code = trace_id_code(d, gpu_id_value(s, g->corr_code));
		if (g->ext_code >= GPU_ID_WIDE && g->ext_code != GPU_ID_NONE)
			g->ext_code = trace_id_code(d, gpu_id_value(s, g->ext_code));
		if (g->launch != TT_NONE)
			g->launch = g->launch < s->nlaunches ? lmap[g->launch] : TT_NONE;
	}
	free(pmap);
	free(lmap);
	for (uint32_t k = 0; k < s->ngpu_bytes; k++)
		builder_add_bytes(d, s->gpu_bytes[k].gpu + gpu_base, s->gpu_bytes[k].bytes);
	free(s->launches);
	s->launches = NULL;
	s->nlaunches = s->launches_cap = 0;
	append_draining((void **)&d->gpu_facts, &d->ngpu, &d->gpu_cap, (void **)&s->gpu_facts, s->ngpu,
	                sizeof *s->gpu_facts);
	/* and their tracks, DST's now (the slices' bits were put after DST's on each track) */
	d->gpu_fact_track = xreallocarray(d->gpu_fact_track, d->gpu_cap ? d->gpu_cap : 1, sizeof *d->gpu_fact_track);
	for (uint32_t k = 0; k < s->ngpu; k++)
		d->gpu_fact_track[gpu_base + k] = tmap[s->gpu_fact_track[k]];
	free(s->gpu_fact_track);
	s->gpu_fact_track = NULL;
	{
		uint32_t *cxmap = xreallocarray(NULL, s->nflow_ctx ? s->nflow_ctx : 1, sizeof *cxmap);
		for (uint32_t k = 0; k < s->nflow_ctx; k++)
			cxmap[k] = builder_intern_flow_ctx(dst, smap[s->flow_ctx[k].cat], s->flow_ctx[k].id_hi);
		uint32_t first = d->nflow_ends;
		append_draining((void **)&d->flow_ends, &d->nflow_ends, &d->flow_ends_cap, (void **)&s->flow_ends,
		                s->nflow_ends, sizeof *s->flow_ends);
		for (uint32_t k = first; k < d->nflow_ends; k++) {
			d->flow_ends[k].ctx = cxmap[d->flow_ends[k].ctx];
			d->flow_ends[k].track = tmap[d->flow_ends[k].track];
		}
		free(cxmap);
		free(s->flow_ctx);
		s->flow_ctx = NULL;
		s->nflow_ctx = s->flow_ctx_cap = 0;
	}
	{
		uint32_t first = d->ninstants;
		append_draining((void **)&d->instants, &d->ninstants, &d->instants_cap, (void **)&s->instants,
		                s->ninstants, sizeof *s->instants);
		for (uint32_t k = first; k < d->ninstants; k++) {
			struct instant *in = &d->instants[k];
			in->name = smap[in->name];
			in->cat = smap[in->cat];
			if (in->track != TT_NONE)
				in->track = tmap[in->track];
		}
	}
	{
		/* the part's runs start past DST's samples, on DST's tracks; one that goes on
		 * where DST's last run ends joins it, as a one-piece parse would have it */
		uint32_t base = d->nmem;
		append_draining((void **)&d->mem, &d->nmem, &d->mem_cap, (void **)&s->mem, s->nmem, sizeof *s->mem);
		for (uint32_t k = 0; k < s->nmem_runs; k++) {
			struct mem_run r = s->mem_runs[k];
			r.first += base;
			if (r.track != TT_NONE)
				r.track = tmap[r.track];
			if (k == 0 && d->nmem_runs > 0 && mem_run_same(&d->mem_runs[d->nmem_runs - 1], &r))
				continue;
			if (d->nmem_runs == d->mem_runs_cap) {
				d->mem_runs_cap = d->mem_runs_cap ? d->mem_runs_cap * 2 : 64;
				d->mem_runs = xreallocarray(d->mem_runs, d->mem_runs_cap, sizeof *d->mem_runs);
			}
			d->mem_runs[d->nmem_runs++] = r;
		}
		free(s->mem_runs);
		s->mem_runs = NULL;
		s->nmem_runs = s->mem_runs_cap = 0;
	}
	append((void **)&d->flops, &d->nflops, &d->flops_cap, s->flops, s->nflops, sizeof *s->flops);
	free(s->flops);
	s->flops = NULL;
	{
		uint32_t first = d->ncomm_ops;
		append((void **)&d->comm_ops, &d->ncomm_ops, &d->comm_ops_cap, s->comm_ops, s->ncomm_ops,
		       sizeof *s->comm_ops);
		for (uint32_t k = first; k < d->ncomm_ops; k++) {
			d->comm_ops[k].name = smap[d->comm_ops[k].name];
			d->comm_ops[k].cat = smap[d->comm_ops[k].cat];
		}
		free(s->comm_ops);
		s->comm_ops = NULL;
	}
	for (uint32_t i = 0; i < s->ncounters; i++) {
		struct counter *sc = &s->counters[i];
		struct builder_id pid = ID(sc->pid_is_str, sc->pid);
		uint32_t name = smap[sc->name], key = smap[sc->key], ci = TT_NONE;
		for (uint32_t k = 0; k < d->ncounters && ci == TT_NONE; k++)
			if (builder_counter_is(&d->counters[k], pid, name, key))
				ci = k;
		if (ci == TT_NONE) {
			if (d->ncounters == dst->counters_cap) {
				dst->counters_cap = dst->counters_cap ? dst->counters_cap * 2 : 8;
				d->counters = xreallocarray(d->counters, dst->counters_cap, sizeof *d->counters);
			}
			ci = d->ncounters++;
			d->counters[ci] = *sc;
			d->counters[ci].pid = pid.v;
			d->counters[ci].name = name;
			d->counters[ci].key = key;
			sc->ts = NULL;
			sc->value = NULL;
			continue;
		}
		struct counter *dc = &d->counters[ci];
		uint32_t n = dc->n, cap = dc->cap;
		append((void **)&dc->ts, &n, &cap, sc->ts, sc->n, sizeof *sc->ts);
		append((void **)&dc->value, &dc->n, &dc->cap, sc->value, sc->n, sizeof *sc->value);
	}
	if (h != NULL)
		helper_wait(h);
	/* ends of SRC that close begins of DST, in source order */
	for (uint32_t k = 0; k < src->norphans; k++) {
		const struct orphan_e *o = &src->orphans[k];
		struct where w = { o->origin, o->ts };
		uint32_t ti = tmap[o->track];
		struct bstack *st = ti < dst->nstacks ? &dst->stacks[ti] : NULL;
		if (st == NULL || st->n == 0) {
			const char *name = o->name_len > 0 ? src->orphan_names + o->name_at : ""; /* none kept: NULL */
			builder_note(dst, Q_UNMATCHED_END, w.origin, w.ts,
			             strtab_intern(&d->strings, name, o->name_len), ti);
			continue;
		}
		struct open_b b = st->v[--st->n];
		if (o->ts < b.ts) /* as builder_end counts it */
			builder_note(dst, Q_NEGATIVE_DUR, w.origin, w.ts, b.name, ti);
		builder_push_slice(dst, ti, b.ts, o->ts > b.ts ? o->ts - b.ts : 0, b.name, b.cat, SC_OTHER, b.args,
		                   SF_FROM_BE, nowhere, false, NULL);
	}
	/* begins SRC left open go on top of DST's */
	for (uint32_t i = 0; i < src->nstacks && i < s->ntracks; i++) {
		const struct bstack *ss = &src->stacks[i];
		for (uint32_t k = 0; k < ss->n; k++) {
			struct open_b o = ss->v[k];
			o.name = smap[o.name];
			o.cat = smap[o.cat];
			builder_stack_push(builder_stack_of(dst, tmap[i]), &o);
		}
	}
	for (int q = 0; q < Q__COUNT; q++) {
		uint64_t have = d->quality.count[q];
		for (uint64_t k = 0; k < s->quality.count[q] && k < QUALITY_EXAMPLES && have + k < QUALITY_EXAMPLES;
		     k++) {
			struct quality_example e = s->quality.ex[q][k];
			e.name = smap[e.name];
			if (e.track != TT_NONE)
				e.track = tmap[e.track];
			d->quality.ex[q][have + k] = e;
		}
		d->quality.count[q] += s->quality.count[q];
	}
	for (int c = 0; c < 128; c++)
		d->count_by_ph[c] += s->count_by_ph[c];
	d->events += s->events;
	d->async_events += s->async_events;
	if (s->has_base) { /* the last valid base time wins, as in one piece */
		d->has_base = true;
		d->base_ns = s->base_ns;
	}
	if (d->rank < 0)
		d->rank = s->rank;
	if (d->world_size < 0)
		d->world_size = s->world_size;
	if (d->backend == 0 && s->backend != 0)
		d->backend = smap[s->backend];
	if (d->display_time_unit == 0 && s->display_time_unit != 0)
		d->display_time_unit = smap[s->display_time_unit];
	if (d->clock == 0 && s->clock != 0)
		d->clock = smap[s->clock];
	if (d->schema_version < 0)
		d->schema_version = s->schema_version;
	if (d->ndevices == 0 && s->ndevices > 0) {
		d->devices = s->devices;
		d->ndevices = s->ndevices;
		for (uint32_t i = 0; i < d->ndevices; i++)
			d->devices[i].name = smap[d->devices[i].name];
		s->devices = NULL;
		s->ndevices = 0;
	}
	for (uint32_t i = 0; i < s->nwarnings; i++) {
		struct warning_tag tag = s->warning_tags[i];
		uint32_t have = 0;
		if (tag.group == 0) {
			trace_warn(d, "%s", s->warnings[i]);
			continue;
		}
		for (uint32_t k = 0; k < d->nwarnings; k++)
			have += d->warning_tags[k].group == tag.group;
		if (have < tag.max) /* the first MAX of the group in source order, as one part shows */
			trace_warn_group(d, tag.group, tag.max, "%s", s->warnings[i]);
	}
	if (src->max_end > dst->max_end)
		dst->max_end = src->max_end;
	dst->saw_cat |= src->saw_cat;
#undef ID
	builder_free_state(src);
	trace_free(s);
	free(smap);
	free(tmap);
	free(kmap);
}
