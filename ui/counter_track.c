/* counter_track.c: the memory counter tracks of the timeline (see counter_track.h).
 *
 * Times: a counter's samples are in its rank's file time; a view time t is file time
 * t - shift[rank]. A counter is two screen lines, one chart 16 eighths high: the lower
 * line (VIEW_ROW_COUNTER_LOW) holds eighths 1-8, the top line 9-16. In each cell the
 * allocated bar wins; a cell wholly above it but under the reserved level is shaded. */
#include "ui/counter_track.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/timefmt.h"
#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "src/analysis.h"
#include "ui/names.h"
#include "ui/render.h"

#define LEVELS 16 /* eighths in the two lines */

void counter_tracks_build(struct view *v)
{
	uint32_t cap = 0;
	v->counters = NULL;
	v->ncounters = 0;
	for (int r = 0; r < v->nts; r++) {
		if (v->ts[r]->nmem == 0)
			continue; /* no [memory] events: nothing to compute, no track */
		const struct memory_report *rep = trace_memory_points(v->ts[r]); /* the operators wait for U */
		for (int pass = 0; pass < 2; pass++) /* accelerators first, as the Memory view */
			for (uint32_t i = 0; i < rep->ndevices; i++) {
				const struct mem_device *d = &rep->devices[i];
				if (d->n == 0 || (d->type == 0) != (pass == 1))
					continue;
				if (v->ncounters == cap)
					v->counters = xreallocarray(v->counters, cap = cap ? cap * 2 : 4,
					                            sizeof *v->counters);
				struct counter_track *c = &v->counters[v->ncounters++];
				memset(c, 0, sizeof *c);
				c->rank = r;
				c->d = d;
				range_max_init(&c->allocated, d->allocated, d->n);
				range_max_init(&c->reserved, d->reserved, d->n);
				c->top = d->peak_reserved > d->peak_allocated ? d->peak_reserved : d->peak_allocated;
				memory_device_name(d, c->name, sizeof c->name);
			}
	}
}

void counter_tracks_free(struct view *v)
{
	for (uint32_t i = 0; i < v->ncounters; i++) {
		range_max_release(&v->counters[i].allocated);
		range_max_release(&v->counters[i].reserved);
	}
	free(v->counters);
	v->counters = NULL;
	v->ncounters = 0;
}

bool counter_track_on_gpu(const struct counter_track *c, int32_t device)
{
	return c->d->type != 0 && c->d->id == device;
}

void counter_track_label(const struct view *v, const struct view_line *l, char *buf, size_t n)
{
	const struct counter_track *c = &v->counters[l->counter];
	char rk[24] = "", top[32];
	if (v->nts > 1 && v->by_role)
		snprintf(rk, sizeof rk, "r%d ", view_rank_label(v, c->rank));
	if (l->row == VIEW_ROW_COUNTER_TOP)
		snprintf(buf, n, "  %s%s memory", rk, c->name);
	else
		snprintf(buf, n, "  peak %s", timefmt_bytes((double)c->top, top, sizeof top));
}

/* The most allocated and reserved of C over [A, B) (view time). False before the first sample. */
static bool column_max(const struct view *v, const struct counter_track *c, int64_t a, int64_t b, int64_t *al,
                       int64_t *re)
{
	uint32_t lo, hi;
	int64_t sh = v->shift[c->rank];
	if (!step_plot_span(c->d->ts, c->d->n, tt_sub(a, sh), tt_sub(b, sh), &lo, &hi))
		return false;
	*al = range_max_query(&c->allocated, lo, hi);
	*re = range_max_query(&c->reserved, lo, hi);
	return true;
}

/* VALUE as eighths of C's full height: something above zero is never drawn as nothing. */
static int level_of(const struct counter_track *c, int64_t value)
{
	if (value <= 0 || c->top <= 0)
		return 0;
	long double f = (long double)value / (long double)c->top * LEVELS + 0.5L;
	int lv = f > LEVELS ? LEVELS : (int)f;
	return lv < 1 ? 1 : lv;
}

void counter_track_draw(struct grid *g, const struct view *v, const struct render_opts *o, const int64_t *colt, int y,
                        const struct view_line *l)
{
	const struct counter_track *c = &v->counters[l->counter];
	int x0 = view_timeline_x(v), tw = view_timeline_w(v);
	int base = l->row == VIEW_ROW_COUNTER_TOP ? 8 : 0; /* the eighths below this line */
	int cx = render_col_of(v, v->cursor);
	int m0 = v->has_mark ? render_col_of(v, v->mark0) : -2, m1 = v->has_mark ? render_col_of(v, v->mark1) : -2;
	int64_t end = tt_add(v->ts[c->rank]->end, v->shift[c->rank]); /* the last value holds until the trace ends */
	for (int x = 0; x < tw; x++) {
		int64_t al, re, b = colt[x + 1] > colt[x] ? colt[x + 1] : tt_add(colt[x], 1);
		int la = 0, lr = 0;
		if (colt[x] < end && column_max(v, c, colt[x], b, &al, &re)) {
			la = level_of(c, al);
			lr = level_of(c, re);
		}
		if (la >= base + 8) {
			grid_set(g, x0 + x, y, o->ascii ? '#' : 0x2588, CS_MEM_ALLOC, 0);
		} else if (la > base) {
			int e = la - base; /* 1..7 eighths: ▁..▇, or in ASCII low, half, high */
			grid_set(g, x0 + x, y,
			         o->ascii ? (e <= 2   ? '_'
			                     : e <= 5 ? '='
			                              : '#')
			                  : 0x2580 + (uint32_t)e,
			         CS_MEM_ALLOC, 0);
		} else if (lr > base) {
			grid_set(g, x0 + x, y, o->ascii ? ':' : 0x2591, CS_MEM_RESERVED, 0);
		} else if (x == cx) {
			grid_set(g, x0 + x, y, o->ascii ? ':' : 0x2506, CS_CURSOR, 0);
		} else if (x == m0 || x == m1) {
			grid_set(g, x0 + x, y, o->ascii ? '!' : 0x2502, CS_MARK, 0);
		}
	}
}

/* "2.10 GB" */
static const char *bytes(int64_t b, char *buf, size_t n) { return timefmt_bytes((double)b, buf, n); }

/* The name of the operator S on C's rank, escaped, or "" for none. */
static void op_name(const struct view *v, const struct counter_track *c, struct slice_ref s, char *buf, size_t n)
{
	const struct trace *t = v->ts[c->rank];
	buf[0] = '\0';
	if (s.track != TT_NONE)
		trace_str_escaped(t, slice_name(t, &t->tracks[s.track].slices[s.idx]), buf, n);
}

void counter_track_details(struct grid *g, const struct view *v, const struct view_line *l, int y0, int n)
{
	const struct counter_track *c = &v->counters[l->counter];
	const struct mem_device *d = c->d;
	int64_t sh = v->shift[c->rank];
	char line[768], rk[24] = "", at[48], a[32], b[32], e[32], f[48], op[256];
	if (v->nts > 1)
		snprintf(rk, sizeof rk, "rank %d ", view_rank_label(v, c->rank));
	timefmt_offset(tt_sub(v->cursor, v->start), at, sizeof at);
	uint32_t i = step_plot_at(d->ts, d->n, tt_sub(v->cursor, sh));
	if (i == UINT32_MAX)
		snprintf(line, sizeof line, "%s%s memory at %s: no sample yet (the first at %s)", rk, c->name, at,
		         timefmt_offset(tt_sub(tt_add(d->ts[0], sh), v->start), f, sizeof f));
	else
		snprintf(line, sizeof line, "%s%s memory at %s: allocated %s, reserved %s (unused %s)", rk, c->name, at,
		         bytes(d->allocated[i], a, sizeof a), bytes(d->reserved[i], b, sizeof b),
		         bytes(tt_sub(d->reserved[i], d->allocated[i]), e, sizeof e));
	if (n > 0)
		grid_text(g, 1, y0, g->w, line, CS_HILITE, 0);
	if (n > 1) {
		int x = render_col_of(v, v->cursor);
		int64_t al, re, ca = view_col_time(v, x), cb = view_col_time(v, x + 1);
		if (column_max(v, c, ca, cb > ca ? cb : tt_add(ca, 1), &al, &re))
			snprintf(line, sizeof line,
			         "its column (%s): at most %s allocated, %s reserved; full "
			         "height %s, the peak",
			         timefmt_dur(tt_sub(cb, ca), f, sizeof f), bytes(al, a, sizeof a),
			         bytes(re, b, sizeof b), bytes(c->top, e, sizeof e));
		else
			snprintf(line, sizeof line,
			         "the bars: allocated, and reserved shaded above it; full height %s, the peak",
			         bytes(c->top, e, sizeof e));
		grid_text(g, 1, y0 + 1, g->w, line, CS_DETAILS, 0);
	}
	if (n > 2) {
		op_name(v, c, d->peak_allocated_op, op, sizeof op);
		snprintf(line, sizeof line,
		         "peak allocated %s at %s%s%s, reserved %s at %s; . , step through its samples; "
		         "U: Memory view",
		         bytes(d->peak_allocated, a, sizeof a),
		         timefmt_offset(tt_sub(tt_add(d->peak_allocated_ts, sh), v->start), f, sizeof f),
		         op[0] ? " in " : "", op, bytes(d->peak_reserved, b, sizeof b),
		         timefmt_offset(tt_sub(tt_add(d->peak_reserved_ts, sh), v->start), at, sizeof at));
		grid_text(g, 1, y0 + 2, g->w, line, CS_DETAILS, 0);
	}
}

bool counter_track_step(struct view *v, const struct view_line *l, int dir)
{
	const struct counter_track *c = &v->counters[l->counter];
	const struct mem_device *d = c->d;
	int64_t sh = v->shift[c->rank], now = tt_sub(v->cursor, sh);
	uint32_t i = step_plot_at(d->ts, d->n, now); /* the sample in force at the cursor */
	uint32_t k;
	if (dir > 0) {
		/* the first later sample whose values differ from those in force */
		for (k = i == UINT32_MAX ? 0 : i + 1; k < d->n; k++)
			if (i == UINT32_MAX || d->allocated[k] != d->allocated[i] || d->reserved[k] != d->reserved[i])
				break;
		if (k >= d->n)
			return false;
	} else {
		/* the start of the run of equal values in force before the cursor's */
		if (i == UINT32_MAX)
			return false;
		uint32_t p = d->ts[i] < now ? i : step_plot_at(d->ts, d->n, tt_sub(now, 1));
		if (p == UINT32_MAX)
			return false;
		for (k = p; k > 0 && d->allocated[k - 1] == d->allocated[p] && d->reserved[k - 1] == d->reserved[p];
		     k--)
			;
	}
	v->cursor = tt_add(d->ts[k], sh);
	if (v->cursor < v->t0 || v->cursor >= v->t1)
		view_set_window(v, tt_sub(v->cursor, view_width(v) / 2), view_width(v));
	return true;
}
