/* crop_blocks.c: the blocks of a trace's map of events read back for a crop, checked
 * against the map (crop_blocks.h). */
#include "cmd/crop_blocks.h"

#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "parsers/input.h"
#include "parsers/load_part.h"
#include "parsers/scan_keys.h"
#include "src/args.h"
#include "src/event_blocks.h"

/* Adds the pieces that read the blocks of T whose NEED is set, in order; NEED NULL: block
 * ONLY alone. */
void crop_blocks_add(struct crop_blocks *lo, const bool *need, uint32_t only)
{
	const struct trace *t = lo->t;
	uint32_t first = 0;
	while (first < t->nblocks && t->blocks[first].events == 0)
		first++;
	for (uint32_t k = need != NULL ? 0 : only; k < t->nblocks;) {
		if (need != NULL ? !need[k] || t->blocks[k].events == 0 : k != only) {
			if (need == NULL)
				break;
			k++;
			continue;
		}
		struct piece pc = { k == first ? 0 : t->blocks[k].first, 0, 0, k, 0 };
		uint32_t j = k; /* the blocks with events from K on, while needed and not too long */
		for (;;) {
			uint32_t nx = j + 1;
			while (nx < t->nblocks && t->blocks[nx].events == 0)
				nx++;
			if (nx >= t->nblocks) { /* J is the last block with events: to the end */
				pc.b1 = t->nblocks;
				pc.stop = 0;
				pc.end = t->bytes;
				break;
			}
			if (need == NULL || !need[nx] || t->blocks[nx].first - pc.start > PIECE_MAX) {
				pc.b1 = nx;
				pc.stop = pc.end = t->blocks[nx].first;
				break;
			}
			j = nx;
		}
		if (lo->n == lo->cap)
			lo->p = xreallocarray(lo->p, lo->cap = lo->cap ? lo->cap * 2 : 64, sizeof *lo->p);
		lo->p[lo->n++] = pc;
		lo->bytes += pc.end - pc.start;
		k = pc.b1;
	}
}

/* Checks EV against the map as it goes on to the sink: in the piece's blocks, the first of
 * its block where the map says, its kind and times within its block's. */
static void checked_event(void *ctx, const struct scan_event *ev)
{
	struct crop_blocks *lo = ctx;
	const struct trace *t = lo->t;
	uint64_t k = ev->offset >> t->block_shift;
	if (lo->lied || k < lo->cur->b0 || k >= lo->cur->b1) {
		lo->lied = true;
		return;
	}
	const struct event_block *b = &t->blocks[k];
	uint32_t flags;
	bool timed;
	int64_t end;
	uint64_t series;
	load_block_facts(ev, &flags, &timed, &end, &series);
	uintptr_t si = flags & EB_CM ? (uintptr_t)map64_get(&lo->series, series) : 0;
	if ((lo->seen[k - lo->cur->b0]++ == 0 && ev->offset != b->first) || (flags & ~b->flags) ||
	    (timed && (ev->ts < b->lo || end > b->hi ||
	               ((flags & EB_CM) &&
	                (ev->ts < b->cm_lo || ev->ts > b->cm_hi || si == 0 || ev->ts < t->series[si - 1].min_ts)) ||
	               ((flags & EB_FLOW) && (ev->id < b->flow_lo || ev->id > b->flow_hi))))) {
		lo->lied = true;
		return;
	}
	lo->inner.event(lo->inner.ctx, ev);
}

static void checked_header(void *ctx, const char *key, uint32_t keylen, const char *json, uint64_t len)
{
	struct crop_blocks *lo = ctx;
	if (lo->inner.header != NULL)
		lo->inner.header(lo->inner.ctx, key, keylen, json, len);
}

/* Reads and scans the pieces [FROM, TO) of LO through SINK, checking each event against the
 * map. False when a read failed or what was read is not what the map says (*CAUSE then
 * says why, for the message of a read that failed). */
bool crop_blocks_scan(struct crop_blocks *lo, size_t from, size_t to, const struct scan_sink *sink, char **cause)
{
	const struct trace *t = lo->t;
	lo->inner = *sink;
	struct scan_sink s = { .ctx = lo, .event = checked_event, .header = checked_header };
	for (size_t i = from; i < to && !lo->lied; i++) {
		const struct piece *pc = &lo->p[i];
		size_t len = (size_t)(pc->end - pc->start);
		char *buf = xmalloc(len ? len : 1);
		if (t->args->ops->read(t->args, pc->start, len, buf, cause) != 0) {
			free(buf);
			return false;
		}
		if (pc->start == 0) { /* the document: an object, or a bare array of events */
			size_t w = 0;
			while (w < len && (buf[w] == ' ' || buf[w] == '\t' || buf[w] == '\n' || buf[w] == '\r'))
				w++;
			lo->top_is_object = w >= len || buf[w] != '[';
		}
		struct input *in = input_open_mem(t->path, buf, len, pc->start, NULL);
		struct scan_range range = {
			.start = pc->start, .stop = pc->stop, .top_is_object = lo->top_is_object, .lines_known = true
		};
		lo->cur = pc;
		lo->seen = xcalloc(pc->b1 - pc->b0, sizeof *lo->seen);
		struct scan_stats st;
		char *why = NULL;
		enum scan_result r = scan_run_range(in, &s, &range, &st, &why);
		input_close(in);
		free(why);
		free(buf);
		if (r != (pc->stop ? SCAN_STOPPED : SCAN_OK))
			lo->lied = true;
		for (uint32_t k = pc->b0; k < pc->b1 && !lo->lied; k++)
			lo->lied = lo->seen[k - pc->b0] != t->blocks[k].events;
		free(lo->seen);
		lo->seen = NULL;
	}
	return !lo->lied;
}

void crop_blocks_note_flow(struct crop_blocks *lo, uint64_t id)
{
	if (lo->nids == lo->idcap)
		lo->ids = xreallocarray(lo->ids, lo->idcap = lo->idcap ? lo->idcap * 2 : 256, sizeof *lo->ids);
	lo->ids[lo->nids++] = id;
}

static int id_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

void crop_blocks_sort_flows(struct crop_blocks *lo) { qsort(lo->ids, lo->nids, sizeof *lo->ids, id_cmp); }

bool crop_blocks_has_flow_in(const struct crop_blocks *lo, uint64_t a, uint64_t b)
{
	size_t l = 0, h = lo->nids; /* the first id >= A */
	while (l < h) {
		size_t m = l + (h - l) / 2;
		if (lo->ids[m] < a)
			l = m + 1;
		else
			h = m;
	}
	return l < lo->nids && lo->ids[l] <= b;
}

/* The blocks read for their samples before the window: the latest of each series. */
static void sample_event(void *ctx, const struct scan_event *ev)
{
	struct crop_blocks *lo = ctx;
	uint64_t key;
	if (!ev->has_ts || ev->ts_nonfinite || ev->ts >= lo->w0 || !key_series(ev, &key))
		return;
	uintptr_t si = (uintptr_t)map64_get(&lo->series, key);
	if (si == 0) { /* checked_event made sure it is there */
		lo->lied = true;
		return;
	}
	if (!lo->found[si - 1]) {
		lo->found[si - 1] = true;
		lo->best[si - 1] = ev->ts;
		lo->nfound++;
	} else if (ev->ts > lo->best[si - 1]) {
		lo->best[si - 1] = ev->ts;
	}
}

struct cand {
	int64_t top; /* its latest sample that can be before the window */
	uint32_t k;
};

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	return (x->top < y->top) - (x->top > y->top); /* the latest first */
}

/* Sets NEED for the blocks that may hold the last sample before the window of a series (as
 * last_before keeps it): for each series with a sample before the window, its latest is at
 * L or later, L the earliest of those latest; so only the blocks with samples in [L, w0)
 * are needed. L is found by reading the blocks with samples before the window, the latest
 * first, until every such series has one and the next block's are all before L. False
 * when a read fails or disagrees with the map. */
bool crop_blocks_need_samples(struct crop_blocks *lo, int64_t w0, bool *need)
{
	const struct trace *t = lo->t;
	uint32_t nbefore = 0;
	for (uint32_t i = 0; i < t->nseries; i++)
		nbefore += t->series[i].min_ts < w0;
	if (nbefore == 0)
		return true;
	struct cand *cd = xmalloc(t->nblocks * sizeof *cd);
	uint32_t n = 0;
	for (uint32_t k = 0; k < t->nblocks; k++) {
		const struct event_block *b = &t->blocks[k];
		if (b->events > 0 && (b->flags & EB_CM) && b->cm_lo < w0) /* needed anyway or not */
			cd[n++] = (struct cand){ b->cm_hi < w0 ? b->cm_hi : w0 - 1, k };
	}
	qsort(cd, n, sizeof *cd, cand_cmp);
	lo->w0 = w0;
	lo->best = xcalloc(t->nseries, sizeof *lo->best);
	lo->found = xcalloc(t->nseries, sizeof *lo->found);
	int64_t L = INT64_MIN;
	bool ok = true;
	char *cause = NULL;
	struct scan_sink sink = { .ctx = lo, .event = sample_event };
	for (uint32_t i = 0; i < n && ok; i++) {
		if (lo->nfound == nbefore) {
			L = INT64_MAX;
			for (uint32_t s = 0; s < t->nseries; s++)
				if (lo->found[s] && lo->best[s] < L)
					L = lo->best[s];
			if (cd[i].top < L)
				break;
		}
		size_t at = lo->n;
		crop_blocks_add(lo, NULL, cd[i].k);
		ok = crop_blocks_scan(lo, at, lo->n, &sink, &cause);
		lo->n = at;
	}
	free(cause);
	if (ok && lo->nfound == nbefore) {
		L = INT64_MAX;
		for (uint32_t s = 0; s < t->nseries; s++)
			if (lo->found[s] && lo->best[s] < L)
				L = lo->best[s];
	} else {
		L = INT64_MIN; /* every block with samples before the window */
	}
	for (uint32_t i = 0; i < n; i++)
		if (cd[i].top >= L)
			need[cd[i].k] = true;
	free(cd);
	return ok;
}

void crop_blocks_free(struct crop_blocks *lo)
{
	free(lo->series.slot);
	free(lo->best);
	free(lo->found);
	free(lo->p);
	free(lo->ids);
	free(lo->seen);
	memset(lo, 0, sizeof *lo);
}
