/* window.c: the timeline's time window, time cursor and scrolling: zoom and pan keep
 * every width and time within int64 whatever the keys or the trace (see view.h). */
#include <stdio.h>

#include "lib/timefmt.h"
#include "lib/tmath.h"
#include "ui/view_state.h"

void view_fit_all(struct view *v) { view_set_window(v, v->start, tt_sub(v->end, v->start)); }

/* The window [t0, t1) always satisfies t0 < t1 with t1 - t0 at most INT64_MAX, at least
 * one ns per column, and, as in Perfetto, stays on the traces: at most their span and a
 * margin of a hundredth of it on each side, never further than that margin past either
 * end (zooming out stops at the whole trace, panning at its ends). Times outside it are
 * moved with saturating arithmetic (src/tmath.h), so that no key, however often pressed,
 * and no trace, however far its times, overflows. */
int64_t view_width(const struct view *v) { return v->t1 - v->t0; }

/* Sets the window to start at T0 (moved so that it shows some of the traces) and to be
 * W wide (bounded as above). */
void view_set_window(struct view *v, int64_t t0, int64_t w)
{
	int64_t tw = view_timeline_w(v), span = tt_sub(v->end, v->start);
	if (tw < 1)
		tw = 1;
	if (span < tw)
		span = tw;
	int64_t margin = span / 100, most = tt_add(span, tt_mul(margin, 2));
	if (w > most)
		w = most;
	if (w < tw)
		w = tw; /* at most 1 ns per column */
	/* from the start less the margin to the end plus the margin; a window wider than the
	 * traces (a span under the timeline's columns) is centred on them */
	int64_t lo = tt_sub(v->start, margin), hi = tt_sub(tt_add(v->end, margin), w);
	if (hi < lo)
		lo = hi = tt_sub(tt_add(v->start, tt_sub(v->end, v->start) / 2), w / 2);
	if (t0 < lo)
		t0 = lo;
	if (t0 > hi)
		t0 = hi;
	if (t0 > INT64_MAX - w)
		t0 = INT64_MAX - w;
	v->t0 = t0;
	v->t1 = t0 + w;
}

/* Sets the window to [T0, T1), bounded as set_window does. */
void view_set_window_range(struct view *v, int64_t t0, int64_t t1)
{
	view_set_window(v, t0, t1 > t0 ? tt_sub(t1, t0) : 1);
}

void view_zoom(struct view *v, double factor)
{
	int64_t w = view_width(v);
	long double frac = (long double)tt_sub(v->cursor, v->t0) / (long double)w;
	if (frac < 0 || frac > 1)
		frac = 0.5;
	int64_t nw = tt_from_ldouble((long double)w * factor);
	view_set_window(v, tt_sub(v->cursor, tt_from_ldouble(frac * (long double)nw)), nw);
}

void view_pan(struct view *v, double screens)
{
	int64_t d = tt_from_ldouble((long double)view_width(v) * screens);
	if (d == 0)
		d = screens < 0 ? -1 : 1;
	view_set_window(v, tt_add(v->t0, d), view_width(v));
	if (v->cursor < v->t0 || v->cursor >= v->t1)
		v->cursor = v->t0 + view_width(v) / 2;
}

/* Time at the start of column X of the timeline (X may lie outside it). */
int64_t view_col_time(const struct view *v, int x)
{
	return tt_add(v->t0, tt_from_ldouble((long double)view_width(v) * x / view_timeline_w(v)));
}

/* |A - B|, saturated. */
static int64_t distance(int64_t a, int64_t b) { return a > b ? tt_sub(a, b) : tt_sub(b, a); }

void view_move_cursor(struct view *v, int cols)
{
	int64_t step = view_width(v) / view_timeline_w(v);
	if (step < 1)
		step = 1;
	v->cursor = tt_add(v->cursor, tt_mul(step, cols));
	if (v->cursor < v->start)
		v->cursor = v->start;
	if (v->cursor > v->end)
		v->cursor = v->end;
	if (v->cursor < v->t0 || v->cursor >= v->t1)
		view_set_window(v, tt_sub(v->cursor, view_width(v) / 2), view_width(v));
	if (v->ranging) {
		char d[48];
		view_status(v, "range %s (v or m marks it)",
		            timefmt_dur(distance(v->cursor, v->range_anchor), d, sizeof d));
	}
}

void view_scroll_to_line(struct view *v, int line)
{
	if (v->nlines == 0)
		return;
	if (line < 0)
		line = 0;
	if (line >= (int)v->nlines)
		line = (int)v->nlines - 1;
	v->sel_line = line;
	if (v->sel_line < v->top)
		v->top = v->sel_line;
	if (v->sel_line >= v->top + view_area_h(v))
		v->top = v->sel_line - view_area_h(v) + 1;
}

/* Selects slice R: its group expanded, its line selected and visible, the cursor on it. */
