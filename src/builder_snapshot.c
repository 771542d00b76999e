/* builder_snapshot.c: a copy of a builder and its trace while the parse goes on
 * (src/builder.h, builder_snapshot), so that what is read so far can be indexed and drawn. */
#include "src/builder_state.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "src/kinds.h"

/* A snapshot's copy of an array of N elements of SIZE bytes, with room for CAP: made in
 * steps of COPY_STEP bytes, it gives up (NULL, and every later copy NULL too) once *CANCEL
 * is set: a part copying a builder of hundreds of MB for a snapshot would otherwise hold
 * up quitting for a second. */
#define COPY_STEP ((size_t)8 << 20)
struct copying {
	const _Atomic bool *cancel;
	bool stopped;
};

static void *copy_array(struct copying *cp, const void *p, size_t n, size_t cap, size_t size)
{
	if (p == NULL || cp->stopped)
		return NULL;
	char *q = xreallocarray(NULL, cap > n ? cap : (n ? n : 1), size);
	size_t bytes = n * size;
	for (size_t at = 0; at < bytes; at += COPY_STEP) {
		if (cp->cancel != NULL && atomic_load(cp->cancel)) {
			free(q);
			cp->stopped = true;
			return NULL;
		}
		memcpy(q + at, (const char *)p + at, bytes - at < COPY_STEP ? bytes - at : COPY_STEP);
	}
	return q;
}

/* A fresh array of CAP elements of SIZE (at least one) holding the first N of P, or NULL
 * when P is NULL. */
static void *dup_array(const void *p, size_t n, size_t cap, size_t size)
{
	struct copying cp = { NULL, false };
	return copy_array(&cp, p, n, cap, size);
}

struct builder *builder_snapshot(const struct builder *b, struct trace **tp, const _Atomic bool *cancel)
{
	const struct trace *s = b->t;
	struct copying cp = { cancel, false };

	*tp = NULL;
	if (cancel != NULL && atomic_load(cancel))
		return NULL;
	struct trace *t = xmalloc(sizeof *t);
	struct builder *c = xcalloc(1, sizeof *c);

	*t = *s; /* the counts, times and facts; every array is copied below (or NULL) */
	t->path = xstrdup(s->path);
	t->args = NULL;
	t->error = NULL;
	t->warnings = NULL;   /* a snapshot is drawn, never reported */
	t->comm_names = NULL; /* its own, made as asked */
	t->warning_tags = NULL;
	t->nwarnings = 0;
	strtab_init(&t->strings);
	for (uint32_t id = 1; id < s->strings.n; id++) /* the same ids, in the same order */
		strtab_intern(&t->strings, strtab_get(&s->strings, id), strtab_len(&s->strings, id));
	kinds_copy(t, s); /* the same indices */
	t->devices = copy_array(&cp, s->devices, s->ndevices, s->ndevices, sizeof *s->devices);
	t->tracks = copy_array(&cp, s->tracks, s->ntracks, b->tracks_cap, sizeof *s->tracks);
	if (t->tracks == NULL)
		t->ntracks = 0;
	for (uint32_t i = 0; i < t->ntracks; i++) {
		struct track *tr = &t->tracks[i];
		tr->slices = copy_array(&cp, tr->slices, tr->nslices, tr->cap, sizeof *tr->slices);
		tr->gpu_bits = copy_array(&cp, tr->gpu_bits, (tr->nslices + 63) / 64, (tr->cap + 63) / 64,
		                          sizeof *tr->gpu_bits);
		tr->gpu = NULL; /* made by the index */
		tr->args = copy_array(&cp, tr->args, tr->nslices, tr->cap, sizeof *tr->args);
		tr->long_durs = copy_array(&cp, tr->long_durs, tr->nlong, tr->long_cap, sizeof *tr->long_durs);
		tr->rows = NULL;
		tr->nrows = 0;
		tr->row_tree = NULL;
		tr->busy = NULL;
		tr->busy_block_sum = NULL;
		tr->nbusy = 0;
	}
	t->processes = copy_array(&cp, s->processes, s->nprocesses, b->processes_cap, sizeof *s->processes);
	t->gpu = NULL; /* made by the index */
	t->gpu_facts = copy_array(&cp, s->gpu_facts, s->ngpu, s->gpu_cap, sizeof *s->gpu_facts);
	t->gpu_fact_track = copy_array(&cp, s->gpu_fact_track, s->ngpu, s->gpu_cap, sizeof *s->gpu_fact_track);
	t->launches = copy_array(&cp, s->launches, s->nlaunches, s->launches_cap, sizeof *s->launches);
	t->gpu_places = copy_array(&cp, s->gpu_places, s->ngpu_places, s->gpu_places_cap, sizeof *s->gpu_places);
	t->wide_ids = copy_array(&cp, s->wide_ids, s->nwide_ids, s->wide_ids_cap, sizeof *s->wide_ids);
	t->gpu_bytes = copy_array(&cp, s->gpu_bytes, s->ngpu_bytes, s->gpu_bytes_cap, sizeof *s->gpu_bytes);
	t->aside = copy_array(&cp, s->aside, s->naside, s->aside_cap, sizeof *s->aside);
	t->flows = NULL; /* made by the index */
	t->nflows = 0;
	t->flow_ends = copy_array(&cp, s->flow_ends, s->nflow_ends, s->flow_ends_cap, sizeof *s->flow_ends);
	t->flow_ctx = copy_array(&cp, s->flow_ctx, s->nflow_ctx, s->flow_ctx_cap, sizeof *s->flow_ctx);
	t->instants = copy_array(&cp, s->instants, s->ninstants, s->instants_cap, sizeof *s->instants);
	t->mem = copy_array(&cp, s->mem, s->nmem, s->mem_cap, sizeof *s->mem);
	t->mem_runs = copy_array(&cp, s->mem_runs, s->nmem_runs, s->mem_runs_cap, sizeof *s->mem_runs);
	t->flops = copy_array(&cp, s->flops, s->nflops, s->flops_cap, sizeof *s->flops);
	t->comm_ops = copy_array(&cp, s->comm_ops, s->ncomm_ops, s->comm_ops_cap, sizeof *s->comm_ops);
	t->counters = copy_array(&cp, s->counters, s->ncounters, b->counters_cap, sizeof *s->counters);
	if (t->counters == NULL)
		t->ncounters = 0;
	for (uint32_t i = 0; i < t->ncounters; i++) {
		struct counter *k = &t->counters[i];
		k->ts = copy_array(&cp, k->ts, k->n, k->cap, sizeof *k->ts);
		k->value = copy_array(&cp, k->value, k->n, k->cap, sizeof *k->value);
	}
	t->steps = NULL;
	t->nsteps = 0;
	t->blocks = NULL; /* a snapshot is drawn, never cropped */
	t->nblocks = t->blocks_cap = 0;
	t->series = NULL;
	t->nseries = t->series_cap = 0;
	t->series_slots = NULL;
	t->series_nslots = 0;
	t->cache_map = NULL;
	t->cache_map_len = 0;
	t->cache_note = NULL;
	t->cache_save = NULL;
	t->finish_cache_save = NULL;
	t->analyses = NULL;
	t->free_analyses = NULL;
	if (cp.stopped) { /* every array not copied is NULL: the partial copy frees cleanly */
		trace_free(t);
		free(c);
		return NULL;
	}

	*tp = t;
	c->t = t;
	c->seed = b->seed;
	c->track_slots = dup_array(b->track_slots, b->nslots, b->nslots, sizeof *b->track_slots);
	c->nslots = b->nslots;
	c->tracks_cap = b->tracks_cap;
	c->processes_cap = b->processes_cap;
	c->process_slots = dup_array(b->process_slots, b->nprocess_slots, b->nprocess_slots, sizeof *b->process_slots);
	c->nprocess_slots = b->nprocess_slots;
	c->place_slots = dup_array(b->place_slots, b->nplace_slots, b->nplace_slots, sizeof *b->place_slots);
	c->nplace_slots = b->nplace_slots;
	c->launch_slots = dup_array(b->launch_slots, b->nlaunch_slots, b->nlaunch_slots, sizeof *b->launch_slots);
	c->nlaunch_slots = b->nlaunch_slots;
	c->last_place = b->last_place;
	c->counters_cap = b->counters_cap;
	c->last_counter = b->last_counter;
	c->max_end = b->max_end;
	c->saw_cat = b->saw_cat;
	c->part = b->part;
	/* no open begins and no orphan ends: what they pair with may not be read yet, so a
	 * snapshot shows no B/E slice that is not closed within its own part */
	return c;
}
