/* view.c: the timeline panel: its state, selection, the action switch (the gap keys are
 * in gap_nav.c, the ranks' in align.c, following flows and launches in follow.c, back,
 * forward and bookmarks in places.c, the window in window.c), the mouse and its panel
 * operations (see view.h). No drawing here: render.c. */
#include "ui/view_state.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "src/index.h"
#include "src/ranks.h"
#include "lib/test_knobs.h"
#include "lib/timefmt.h"
#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "src/analysis.h"
#include "ui/app.h"
#include "ui/counter_track.h"
#include "ui/prompt.h"
#include "ui/render.h"

static const struct panel_ops timeline_ops;
static void search_done(void *ctx, struct app *app, const char *text, bool accepted);

void view_status(struct view *v, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	view_vstatus(v, fmt, ap);
	va_end(ap);
}

/* Traces with this many slices in all draw their first frame before their analyses (a
 * reopened 1 GB trace: 3 M slices, 180 ms of gaps and memory curves). */
#define VIEW_DEFER_SLICES (1u << 20)

static bool defers(struct trace *const *ts, int n)
{
	struct test_knobs k = test_knobs(); /* tests: defer smaller traces */
	uint64_t limit = k.defer_set ? k.defer_slices : VIEW_DEFER_SLICES, slices = 0;
	for (int r = 0; r < n; r++)
		for (uint32_t i = 0; i < ts[r]->ntracks; i++)
			slices += ts[r]->tracks[i].nslices;
	return slices >= limit;
}

bool view_complete(struct view *v)
{
	if (!v->deferred)
		return false;
	int64_t t0 = v->t0, t1 = v->t1, cursor = v->cursor;
	v->deferred = false;
	counter_tracks_build(v);
	layout_build_groups(v);
	layout_fold_to_fit(v);
	layout_build_lines(v);
	v->t0 = t0;
	v->t1 = t1;
	v->cursor = cursor;
	view_compute_gaps(v);
	v->sel_line = v->nlines > 1 ? 1 : 0;
	return true;
}

void view_init(struct view *v, struct app *app, struct trace *const *ts, int n, enum align_mode align, int w, int h)
{
	int given = n;
	memset(v, 0, sizeof *v);
	v->base.ops = &timeline_ops;
	v->app = app;
	if (n > VIEW_MAX_RANKS)
		n = VIEW_MAX_RANKS;
	v->t = ts[0];
	v->ts = ts;
	v->nts = n;
	v->align = align;
	v->shift = xcalloc((size_t)n, sizeof *v->shift);
	v->manual = xcalloc((size_t)n, sizeof *v->manual);
	v->rank_gaps = xcalloc((size_t)n, sizeof *v->rank_gaps);
	v->name_matches = xcalloc((size_t)n, sizeof *v->name_matches);
	v->w = w > 20 ? w : 20; /* as view_resize: a smaller terminal shows the top left */
	v->h = h > 8 ? h : 8;
	v->sel.track = v->sel.idx = TT_NONE;
	v->args_for.track = v->args_for.idx = TT_NONE;
	v->launch_root.track = v->launch_root.idx = TT_NONE;
	v->launch_at = v->climbed = v->launch_root;
	v->dragging = false;
	v->partial = ts[0]->snapshot_bytes > 0;
	v->deferred = !v->partial && defers(ts, n);
	v->loading = -1;
	view_align_ranks(v);
	if (!v->partial && !v->deferred) /* memory curves of part of the events would be wrong */
		counter_tracks_build(v);
	layout_build_groups(v);
	layout_fold_to_fit(v); /* at 80x24 the GPU streams show, not only the CPU's deep rows */
	layout_build_lines(v);
	view_fit_all(v);
	v->gap_min = app->gap_min > 0 ? app->gap_min : ANALYSIS_DEFAULT_MIN_GAP;
	view_compute_gaps(v);
	v->cursor = v->t0;
	v->sel_line = v->nlines > 1 ? 1 : 0;
	if (given > n)
		view_status(v, "warning: the timeline shows the first %d of %d ranks", n, given);
	else if (v->nts > 1 && v->rr.warnings[0])
		view_status(v, "warning: %s", v->rr.warnings);
}

void view_free(struct view *v)
{
	free(v->order);
	free(v->counter_order);
	free(v->groups);
	free(v->lines);
	counter_tracks_free(v);
	search_free(v);
	free(v->args_text);
	free(v->gaps_by_time);
	free(v->nav);
	free(v->rank_gaps);
	free(v->shift);
	free(v->manual);
	if (v->rr_owned)
		ranks_free(&v->rr);
	free(v->bookmarks);
	memset(v, 0, sizeof *v);
}

void view_resize(struct view *v, int w, int h)
{
	v->w = w > 20 ? w : 20;
	v->h = h > 8 ? h : 8;
	view_set_window(v, v->t0, view_width(v)); /* at least 1 ns per column of the new width */
}

bool view_show_line(struct view *v, uint32_t track, uint16_t row)
{
	for (uint32_t g = 0; g < v->ngroups; g++)
		for (uint32_t k = 0; k < v->groups[g].ntracks; k++)
			if (v->order[v->groups[g].first_track_order + k] == track && v->groups[g].collapsed) {
				v->groups[g].collapsed = false;
				layout_build_lines(v);
			}
	if (v->fold_rows > 0 && row >= layout_rows_shown(v, view_track(v, track))) {
		v->fold_rows = 0; /* a row folded away: unfold to show it */
		layout_build_lines(v);
	}
	for (uint32_t i = 0; i < v->nlines; i++)
		if (v->lines[i].track == track && v->lines[i].row == row) {
			view_scroll_to_line(v, (int)i);
			return true;
		}
	return false;
}

void view_go_to(struct view *v, struct slice_ref r)
{
	v->gap_shown = false;
	if (r.track == TT_NONE)
		return;
	const struct track *tr = view_track(v, r.track);
	const struct slice *s = &tr->slices[r.idx];
	int64_t ts = tt_add(s->ts, view_shift_of(v, r.track));
	v->sel = r;
	view_show_line(v, r.track, slice_depth(view_trace_of(v, r.track), s));
	v->cursor = ts;
	if (ts < v->t0 || ts >= v->t1) {
		int64_t w = view_width(v);
		if (slice_dur(tr, s) > w)
			w = tt_add(slice_dur(tr, s), slice_dur(tr, s) / 10);
		view_set_window(v, tt_sub(ts, w / 3), w);
	}
}

const struct view_line *view_cur_line(const struct view *v)
{
	return v->sel_line >= 0 && (uint32_t)v->sel_line < v->nlines ? &v->lines[v->sel_line] : NULL;
}

int view_line_rank(const struct view *v, const struct view_line *l)
{
	if (l->track != TT_NONE)
		return view_rank_of(l->track);
	if (view_line_is_counter(l))
		return v->counters[l->counter].rank;
	return l->group < v->ngroups ? v->groups[l->group].rank : -1;
}

int view_focus_rank(const struct view *v)
{
	const struct view_line *l = view_cur_line(v);
	if (l != NULL && view_line_is_counter(l))
		return v->counters[l->counter].rank; /* the Memory view opens on the counter's rank */
	if (v->sel.track != TT_NONE)
		return view_rank_of(v->sel.track);
	int r = l != NULL ? view_line_rank(v, l) : -1;
	return r >= 0 ? r : 0;
}

/* Selects on the selected row the slice at the time cursor (AT_CURSOR: the keyboard's
 * Enter, for which the cursor is an instant, as after k from a nested slice), else the
 * one that covers the most of a column from the cursor (what a click points at: the
 * slice drawn in the cell). */
static void select_under_cursor(struct view *v, bool at_cursor)
{
	const struct view_line *l = view_cur_line(v);
	if (l == NULL)
		return;
	if (view_line_is_counter(l)) {
		view_status(v, "a memory counter: the details show it at the cursor; . , step through its samples");
		return;
	}
	if (l->track == TT_NONE) {
		view_act(v, A_TOGGLE_GROUP);
		return;
	}
	const struct track *tr = view_track(v, l->track);
	int64_t colw = view_width(v) / view_timeline_w(v), at = tt_sub(v->cursor, view_shift_of(v, l->track));
	uint32_t i = TT_NONE;
	if (at_cursor && (i = index_row_slice_at(tr, l->row, at)) != TT_NONE) {
		const struct slice *s = &tr->slices[i];
		if (!(s->ts <= at && (at < tt_add(s->ts, slice_dur(tr, s)) || slice_dur(tr, s) == 0)))
			i = TT_NONE; /* it ends at the cursor: not under it */
	}
	if (i == TT_NONE)
		i = index_row_dominant(tr, l->row, at, tt_add(at, colw > 0 ? colw : 1));
	if (i == TT_NONE) {
		v->sel.track = v->sel.idx = TT_NONE;
		view_status(v, "nothing under the cursor on this row");
		return;
	}
	v->sel.track = l->track;
	v->sel.idx = i;
	v->gap_shown = false;
	view_status(v, "selected");
}

static void step_slice(struct view *v, int dir)
{
	const struct view_line *l = view_cur_line(v);
	if (l != NULL && view_line_is_counter(l)) {
		if (!counter_track_step(v, l, dir))
			view_status(v, "no %s sample that changes this counter", dir > 0 ? "later" : "earlier");
		return;
	}
	if (l == NULL || l->track == TT_NONE)
		return;
	const struct track *tr = view_track(v, l->track);
	const struct row *row = l->row < tr->nrows ? &tr->rows[l->row] : NULL;
	if (row == NULL || row->n == 0)
		return;
	uint32_t a, b;
	int64_t from = tt_sub(v->cursor, view_shift_of(v, l->track));
	if (v->sel.track == l->track && v->sel.idx != TT_NONE)
		from = tr->slices[v->sel.idx].ts;
	if (dir > 0) {
		index_row_range(tr, l->row, tt_add(from, 1), INT64_MAX, &a, &b);
		while (a < b && tr->slices[row_idx(row, a)].ts <= from)
			a++;
		if (a < b)
			view_go_to(v, (struct slice_ref){ l->track, row_idx(row, a) });
	} else {
		index_row_range(tr, l->row, INT64_MIN / 2, from, &a, &b);
		while (b > a && tr->slices[row_idx(row, b - 1)].ts >= from)
			b--;
		if (b > a)
			view_go_to(v, (struct slice_ref){ l->track, row_idx(row, b - 1) });
	}
}

bool view_act(struct view *v, enum action a)
{
	if (gap_nav_act(v, a) || align_act(v, a) || follow_act(v, a) || places_act(v, a) || crop_key_act(v, a))
		return true;
	switch (a) {
	case A_NONE: break;
	default: return false; /* not the timeline's: a view to open, quitting */
	case A_ZOOM_IN: view_zoom(v, 0.8); break;
	case A_ZOOM_OUT: view_zoom(v, 1.25); break;
	case A_ZOOM_IN_BIG: view_zoom(v, 0.4); break;
	case A_ZOOM_OUT_BIG: view_zoom(v, 2.5); break;
	case A_PAN_LEFT: view_pan(v, -0.1); break;
	case A_PAN_RIGHT: view_pan(v, 0.1); break;
	case A_PAN_LEFT_BIG: view_pan(v, -0.5); break;
	case A_PAN_RIGHT_BIG: view_pan(v, 0.5); break;
	case A_CURSOR_LEFT: view_move_cursor(v, -1); break;
	case A_CURSOR_RIGHT: view_move_cursor(v, 1); break;
	case A_CURSOR_LEFT_BIG: view_move_cursor(v, -10); break;
	case A_CURSOR_RIGHT_BIG: view_move_cursor(v, 10); break;
	case A_ROW_UP: view_scroll_to_line(v, v->sel_line - 1); break;
	case A_ROW_DOWN: view_scroll_to_line(v, v->sel_line + 1); break;
	case A_PAGE_UP: view_scroll_to_line(v, v->sel_line - view_area_h(v)); break;
	case A_PAGE_DOWN: view_scroll_to_line(v, v->sel_line + view_area_h(v)); break;
	case A_HOME:
		v->cursor = v->start;
		view_move_cursor(v, 0);
		break;
	case A_END:
		v->cursor = v->end;
		view_move_cursor(v, 0);
		break;
	case A_SELECT:
		select_under_cursor(v, true); /* once the prompt has closed, n and N move between matches */
		break;
	case A_FIT_ALL: view_fit_all(v); break;
	case A_FIT:
		if (v->sel.track != TT_NONE) {
			const struct track *tr = view_track(v, v->sel.track);
			const struct slice *s = &tr->slices[v->sel.idx];
			int64_t pad = slice_dur(tr, s) / 20 + 1, ts = tt_add(s->ts, view_shift_of(v, v->sel.track));
			view_set_window_range(v, tt_sub(ts, pad), tt_add(tt_add(ts, slice_dur(tr, s)), pad));
		} else if (v->has_mark) {
			view_set_window_range(v, v->mark0, v->mark1);
		} else {
			view_fit_all(v);
		}
		if (v->cursor < v->t0 || v->cursor >= v->t1)
			v->cursor = v->t0;
		break;
	case A_MARK:
		if (v->ranging) {
			v->has_mark = true;
			v->mark0 = v->range_anchor < v->cursor ? v->range_anchor : v->cursor;
			v->mark1 = v->range_anchor < v->cursor ? v->cursor : v->range_anchor;
			v->ranging = false;
		} else if (v->sel.track != TT_NONE) {
			const struct track *tr = view_track(v, v->sel.track);
			const struct slice *s = &tr->slices[v->sel.idx];
			v->has_mark = true;
			v->mark0 = tt_add(s->ts, view_shift_of(v, v->sel.track));
			v->mark1 = tt_add(v->mark0, slice_dur(tr, s));
		} else {
			view_status(v, "select a slice (Enter) or a range (v) to mark");
			break;
		}
		{
			char d[48];
			view_status(v, "marked %s", timefmt_dur(tt_sub(v->mark1, v->mark0), d, sizeof d));
		}
		break;
	case A_CLEAR_MARKS:
		v->has_mark = false;
		view_status(v, "mark cleared");
		break;
	case A_RANGE:
		if (!v->ranging) {
			v->ranging = true;
			v->range_anchor = v->cursor;
			view_status(v, "range from the cursor: move, then v (or m) to mark it");
		} else {
			view_act(v, A_MARK);
		}
		break;
	case A_SEARCH:
		v->query[0] = '\0';
		app_push(v->app, prompt_new("/", "", search_done, v));
		break;
	case A_NEXT_MATCH: search_step(v, 1); break;
	case A_PREV_MATCH: search_step(v, -1); break;
	case A_NEXT_SLICE: step_slice(v, 1); break;
	case A_PREV_SLICE: step_slice(v, -1); break;
	case A_TOGGLE_GROUP: {
		const struct view_line *l = view_cur_line(v);
		if (l == NULL)
			break;
		uint32_t g = l->group;
		v->groups[g].collapsed = !v->groups[g].collapsed;
		layout_build_lines(v);
		for (uint32_t i = 0; i < v->nlines; i++)
			if (v->lines[i].group == g && v->lines[i].track == TT_NONE) {
				view_scroll_to_line(v, (int)i);
				break;
			}
		break;
	}
	case A_FOLD_ROWS:
		if (v->fold_rows > 0) {
			v->fold_rows = 0;
		} else {
			layout_fold_to_fit(v);
			if (v->fold_rows == 0)
				v->fold_rows = 3; /* everything fits: fold anyway, as asked */
		}
		layout_build_lines(v);
		if (v->fold_rows > 0)
			view_status(v, "CPU threads folded to %u rows (z unfolds)", v->fold_rows);
		else
			view_status(v, "every row of every thread shown (z folds deep threads)");
		break;
	case A_DETAILS_MORE:
		if (!v->details_big) {
			v->details_big = true;
			v->details_page = 0;
		} else if (v->details_page + 1 < v->details_pages) {
			v->details_page++;
		} else {
			v->details_big = false;
			v->details_page = 0;
		}
		view_status(v, v->details_big ? "details enlarged (I: the next page of args, back after the last)"
		                              : "details back to their size");
		break;
	case A_ABS_TIME:
		v->abs_time = !v->abs_time;
		view_status(v, v->abs_time ? "absolute times (t: from the trace start)" : "times from the trace start");
		break;
	case A_CANCEL: /* as in Perfetto: the selection first, then the mark, then the search; the window stays */
		if (v->ranging) {
			v->ranging = false;
		} else if (v->sel.track != TT_NONE) {
			v->sel.track = v->sel.idx = TT_NONE;
		} else if (v->has_mark) {
			v->has_mark = false;
		} else if (v->nmatches > 0 || v->query[0]) {
			v->query[0] = '\0';
			search_run(v);
		}
		v->status[0] = '\0';
		break;
	}
	return true;
}

/* A mouse event: a click selects under the pointer, a drag marks the range between
 * press and release, the wheel zooms around the pointer. */
static void timeline_mouse(struct panel *p, struct app *app, enum mouse_kind kind, int mx, int y)
{
	struct view *v = (struct view *)p;
	int x = mx - view_timeline_x(v);
	(void)app;
	int line = v->top + y - view_area_y(v);
	bool in_area = y >= view_area_y(v) && y < view_area_y(v) + view_area_h(v) && x >= 0 && x < view_timeline_w(v);
	if (kind == TT_WHEEL_UP || kind == TT_WHEEL_DOWN) {
		if (x >= 0 && x < view_timeline_w(v))
			v->cursor = view_col_time(v, x);
		view_act(v, kind == TT_WHEEL_UP ? A_ZOOM_IN : A_ZOOM_OUT);
		return;
	}
	if (!in_area)
		return;
	int64_t at = view_col_time(v, x);
	if (kind == TT_PRESS) {
		v->drag_from = at;
		v->dragging = true;
		return;
	}
	if (kind == TT_RELEASE && v->dragging && at != v->drag_from) {
		v->ranging = true;
		v->range_anchor = v->drag_from;
		v->cursor = at;
		v->dragging = false;
		view_act(v, A_MARK);
		return;
	}
	v->dragging = false;
	if (line < 0 || (uint32_t)line >= v->nlines)
		return; /* below the last line: nothing there */
	v->cursor = at;
	view_scroll_to_line(v, line);
	if (v->lines[v->sel_line].track != TT_NONE)
		select_under_cursor(v, false);
}

/* ---- the timeline as a panel ------------------------------------------------------ */

static void search_done(void *ctx, struct app *app, const char *text, bool accepted)
{
	struct view *v = ctx;
	(void)app;
	/* Enter runs the search; Esc leaves no query and no matches behind */
	snprintf(v->query, sizeof v->query, "%s", accepted ? text : "");
	search_run(v);
}

static bool timeline_act(struct panel *p, struct app *app, enum action a, int key)
{
	struct view *v = (struct view *)p;
	(void)app;
	(void)key;
	v->status[0] = '\0';
	return view_act(v, a);
}

static void timeline_draw(struct panel *p, struct app *app, struct grid *g, const struct render_opts *o)
{
	(void)app;
	render_timeline(g, (struct view *)p, o);
}

static void timeline_hints(struct panel *p, struct app *app, char *buf, size_t n)
{
	const struct keymap *km = &app->keys;
	char k[8][16];
	static const enum action shown[8] = { A_ZOOM_IN, A_ZOOM_OUT, A_PAN_LEFT, A_PAN_RIGHT,
		                              A_SELECT,  A_SEARCH,   A_HELP,     A_QUIT };
	(void)p;
	for (int i = 0; i < 8; i++)
		snprintf(k[i], sizeof k[i], "%s", keymap_key_for(km, CTX_TIMELINE, shown[i]));
	snprintf(buf, n, "%s/%s zoom  %s/%s pan  %s select  %s search  %s help  %s quit", k[0], k[1], k[2], k[3], k[4],
	         k[5], k[6], k[7]);
}

static void timeline_layout(struct panel *p, struct app *app)
{
	struct view *v = (struct view *)p;
	view_resize(v, app->w, app->h);
	p->r = (struct rect){ 0, 0, v->w, v->h };
}

static void timeline_free(struct panel *p)
{
	view_free((struct view *)p);
	free(p);
}

static const struct panel_ops timeline_ops = {
	.name = "timeline",
	.ctx = CTX_TIMELINE,
	.act = timeline_act,
	.mouse = timeline_mouse,
	.draw = timeline_draw,
	.hints = timeline_hints,
	.layout = timeline_layout,
	.free = timeline_free,
};
