/* event_blocks.c: the map of where a trace's events lie, block by block of its
 * decompressed stream (see event_blocks.h). */
#include "src/event_blocks.h"

#include <stdlib.h>
#include <string.h>

#include "lib/test_knobs.h"
#include "lib/xalloc.h"

static const struct event_block empty_block = {
	.first = UINT64_MAX,
	.lo = INT64_MAX,
	.hi = INT64_MIN,
	.cm_lo = INT64_MAX,
	.cm_hi = INT64_MIN,
	.flow_lo = UINT64_MAX,
	.flow_hi = 0,
};

/* T's block K, the array grown (empty blocks) to hold it. */
static struct event_block *block_at(struct trace *t, uint64_t k)
{
	if (k >= t->nblocks) {
		if (k >= t->blocks_cap) {
			uint64_t cap = t->blocks_cap ? t->blocks_cap : 64;
			while (cap <= k)
				cap *= 2;
			t->blocks = xreallocarray(t->blocks, cap, sizeof *t->blocks);
			t->blocks_cap = (uint32_t)cap;
		}
		for (uint64_t i = t->nblocks; i <= k; i++)
			t->blocks[i] = empty_block;
		t->nblocks = (uint32_t)k + 1;
	}
	return &t->blocks[k];
}

static void add(struct event_block *b, const struct event_block *x)
{
	b->first = x->first < b->first ? x->first : b->first;
	b->lo = x->lo < b->lo ? x->lo : b->lo;
	b->hi = x->hi > b->hi ? x->hi : b->hi;
	b->cm_lo = x->cm_lo < b->cm_lo ? x->cm_lo : b->cm_lo;
	b->cm_hi = x->cm_hi > b->cm_hi ? x->cm_hi : b->cm_hi;
	b->flow_lo = x->flow_lo < b->flow_lo ? x->flow_lo : b->flow_lo;
	b->flow_hi = x->flow_hi > b->flow_hi ? x->flow_hi : b->flow_hi;
	b->events += x->events;
	b->flags |= x->flags;
}

/* Notes a sample of the series KEY at TS in T's series. */
static void note_series(struct trace *t, uint64_t key, int64_t ts)
{
	if (t->series_nslots < 2 * (t->nseries + 1)) { /* the index, grown (made again) */
		free(t->series_slots);
		t->series_nslots = t->series_nslots ? t->series_nslots * 2 : 64;
		t->series_slots = xcalloc(t->series_nslots, sizeof *t->series_slots);
		for (uint32_t i = 0; i < t->nseries; i++) {
			uint32_t at =
				(uint32_t)(t->series[i].key * 0x9e3779b97f4a7c15ull >> 32) & (t->series_nslots - 1);
			while (t->series_slots[at] != 0)
				at = (at + 1) & (t->series_nslots - 1);
			t->series_slots[at] = i + 1;
		}
	}
	uint32_t at = (uint32_t)(key * 0x9e3779b97f4a7c15ull >> 32) & (t->series_nslots - 1);
	while (t->series_slots[at] != 0) {
		struct sample_series *s = &t->series[t->series_slots[at] - 1];
		if (s->key == key) {
			s->min_ts = ts < s->min_ts ? ts : s->min_ts;
			return;
		}
		at = (at + 1) & (t->series_nslots - 1);
	}
	if (t->nseries == t->series_cap)
		t->series = xreallocarray(t->series, t->series_cap = t->series_cap ? t->series_cap * 2 : 16,
		                          sizeof *t->series);
	t->series[t->nseries] = (struct sample_series){ key, ts };
	t->series_slots[at] = ++t->nseries;
}

void event_block_note(struct trace *t, uint64_t offset, uint32_t flags, bool timed, int64_t ts, int64_t end,
                      uint64_t flow_id, uint64_t series)
{
	if (t->block_shift == 0) {
		unsigned knob = test_knobs().block_shift;
		t->block_shift = knob ? knob : EVENT_BLOCK_SHIFT;
	}
	uint64_t k = offset >> t->block_shift;
	if (k >= UINT32_MAX - 1)
		return; /* past any file: the map is then short of events, and not kept */
	struct event_block x = empty_block;
	x.first = offset;
	x.events = 1;
	x.flags = flags;
	if (timed) {
		x.lo = ts;
		x.hi = end > ts ? end : ts;
		if (flags & EB_CM) {
			x.cm_lo = x.cm_hi = ts;
			note_series(t, series, ts);
		}
		if (flags & EB_FLOW)
			x.flow_lo = x.flow_hi = flow_id;
	}
	add(block_at(t, k), &x);
}

void event_blocks_merge(struct trace *dst, const struct trace *src)
{
	if (src->nblocks == 0)
		return;
	if (dst->block_shift == 0)
		dst->block_shift = src->block_shift;
	if (dst->block_shift != src->block_shift) { /* cannot be: the map is dropped */
		dst->block_shift = UINT32_MAX;
		return;
	}
	for (uint32_t k = 0; k < src->nblocks; k++)
		if (src->blocks[k].events > 0)
			add(block_at(dst, k), &src->blocks[k]);
	for (uint32_t i = 0; i < src->nseries; i++)
		note_series(dst, src->series[i].key, src->series[i].min_ts);
}

/* Frees P unless it lies in T's cache mapping. */
static void release(const struct trace *t, void *p)
{
	const char *m = t->cache_map, *q = p;
	if (!(m != NULL && q >= m && q < m + t->cache_map_len))
		free(p);
}

void event_blocks_drop(struct trace *t)
{
	release(t, t->blocks);
	release(t, t->series);
	free(t->series_slots);
	t->blocks = NULL;
	t->nblocks = t->blocks_cap = 0;
	t->series = NULL;
	t->nseries = t->series_cap = 0;
	t->series_slots = NULL;
	t->series_nslots = 0;
}

void event_blocks_done(struct trace *t)
{
	free(t->series_slots);
	t->series_slots = NULL;
	t->series_nslots = 0;
}

bool event_blocks_ok(const struct trace *t, uint64_t events)
{
	if (t->nblocks == 0 || t->block_shift < 6 || t->block_shift > 40)
		return false;
	if (t->nblocks - 1 > t->bytes >> t->block_shift)
		return false;
	uint64_t n = 0, last = 0;
	for (uint32_t k = 0; k < t->nblocks; k++) {
		const struct event_block *b = &t->blocks[k];
		if ((b->flags & ~(uint32_t)EB__ALL) || ((b->flags & EB_CM) && b->cm_lo > b->cm_hi))
			return false;
		n += b->events;
		if (b->events == 0)
			continue;
		/* the first event in the block, after the block before's */
		if (b->first >> t->block_shift != k || b->first >= t->bytes ||
		    (k > 0 && n > b->events && b->first <= last))
			return false;
		last = b->first;
	}
	return n == events;
}
