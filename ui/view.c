/* view.c: the timeline panel's state and actions (see view.h). No drawing here: render.c. */
#include "ui/view.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "src/index.h"
#include "src/ranks.h"
#include "src/timefmt.h"
#include "src/tmath.h"
#include "src/xalloc.h"
#include "ui/app.h"
#include "ui/escape.h"
#include "ui/prompt.h"
#include "ui/render.h"

static const struct panel_ops timeline_ops;
static void search_done(void *ctx, struct app *app, const char *text, bool accepted);

void view_status(struct view *v, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v->status, sizeof v->status, fmt, ap);
	va_end(ap);
}

static void set_window(struct view *v, int64_t t0, int64_t w);
static int64_t width(const struct view *v);

static void fit_all(struct view *v) { set_window(v, v->start, tt_sub(v->end, v->start)); }

static int gap_cmp_start(const void *a, const void *b)
{
	const struct gap *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->device < y->device ? -1 : x->device > y->device;
}

static struct gap *gaps_in_time_order(const struct gap_report *g)
{
	struct gap *out = xmalloc((g->ngaps ? g->ngaps : 1) * sizeof *out);
	if (g->ngaps > 0)
		memcpy(out, g->gaps, g->ngaps * sizeof *out);
	qsort(out, g->ngaps, sizeof *out, gap_cmp_start);
	return out;
}

static int gap_cmp_len(const void *a, const void *b)
{
	const struct gap *x = a, *y = b;
	int64_t dx = tt_sub(x->end, x->start), dy = tt_sub(y->end, y->start);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->rank != y->rank ? (x->rank < y->rank ? -1 : 1) : (x->device > y->device) - (x->device < y->device);
}

/* The gaps the gap keys and the gap list visit: every rank's, longest first, in view time,
 * their slice references as view ids. */
static void build_nav(struct view *v)
{
	uint32_t n = 0;
	for (int r = 0; r < v->nts; r++)
		n += v->rank_gaps[r]->r.ngaps;
	free(v->nav);
	free(v->gaps_by_time);
	v->nav = xmalloc((n ? n : 1) * sizeof *v->nav);
	v->nnav = 0;
	for (int r = 0; r < v->nts; r++) {
		const struct gap_report *gr = &v->rank_gaps[r]->r;
		for (uint32_t i = 0; i < gr->ngaps; i++) {
			struct gap g = gr->gaps[i];
			g.rank = r;
			g.start = tt_add(g.start, v->shift[r]);
			g.end = tt_add(g.end, v->shift[r]);
			if (g.track != TT_NONE)
				g.track = view_id(r, g.track);
			if (g.cpu.track != TT_NONE)
				g.cpu.track = view_id(r, g.cpu.track);
			if (g.next.track != TT_NONE)
				g.next.track = view_id(r, g.next.track);
			v->nav[v->nnav++] = g;
		}
	}
	qsort(v->nav, v->nnav, sizeof *v->nav, gap_cmp_len);
	struct gap_report all = { .gaps = v->nav, .ngaps = v->nnav };
	v->gaps_by_time = gaps_in_time_order(&all);
	v->gaps_version++;
}

static void compute_gaps(struct view *v)
{
	for (int r = 0; r < v->nts; r++)
		v->rank_gaps[r] = trace_gaps(v->ts[r], v->gap_min); /* computed once per trace and length */
	build_nav(v);
	v->gap_at = v->gap_rank = 0;
}

/* The distributed view's order: the straggler first, then by how often each rank arrived
 * last, then by position. */
static int dist_cmp(const void *a, const void *b, void *arg)
{
	const struct rank_report *rr = arg;
	int x = *(const int *)a, y = *(const int *)b;
	if ((x == rr->straggler) != (y == rr->straggler))
		return x == rr->straggler ? -1 : 1;
	if (rr->ranks[x].arrived_last != rr->ranks[y].arrived_last)
		return rr->ranks[x].arrived_last > rr->ranks[y].arrived_last ? -1 : 1;
	return (x > y) - (x < y);
}

/* Each rank's shift from the alignment in force, and the span of them all. */
static void align_ranks(struct view *v)
{
	if (v->nts > 1) {
		struct rank_report *rr = &v->rr;
		ranks_free(rr);
		ranks_analyse(v->ts, v->nts, v->align, v->manual, rr);
		int64_t ref = tt_add(v->t->has_base ? v->t->base_ns : 0, rr->ranks[0].offset);
		for (int r = 0; r < v->nts; r++) {
			const struct trace *t = v->ts[r];
			v->shift[r] = tt_sub(tt_add(t->has_base ? t->base_ns : 0, rr->ranks[r].offset), ref);
			v->manual[r] = rr->ranks[r].offset;
		}
		v->align_ref = ref;
		for (int r = 0; r < v->nts; r++)
			v->dist_order[r] = r;
		qsort_r(v->dist_order, (size_t)v->nts, sizeof *v->dist_order, dist_cmp, rr);
	}
	v->start = INT64_MAX;
	v->end = INT64_MIN;
	for (int r = 0; r < v->nts; r++) {
		if (tt_add(v->ts[r]->start, v->shift[r]) < v->start)
			v->start = tt_add(v->ts[r]->start, v->shift[r]);
		if (tt_add(v->ts[r]->end, v->shift[r]) > v->end)
			v->end = tt_add(v->ts[r]->end, v->shift[r]);
	}
	if (v->start > v->end)
		v->start = v->end = 0;
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
	v->dist_order = xcalloc((size_t)n, sizeof *v->dist_order);
	v->manual = xcalloc((size_t)n, sizeof *v->manual);
	v->rank_gaps = xcalloc((size_t)n, sizeof *v->rank_gaps);
	v->name_matches = xcalloc((size_t)n, sizeof *v->name_matches);
	v->w = w > 20 ? w : 20; /* as view_resize: a smaller terminal shows the top left */
	v->h = h > 8 ? h : 8;
	v->sel.track = v->sel.idx = TT_NONE;
	v->args_for.track = v->args_for.idx = TT_NONE;
	v->dragging = false;
	align_ranks(v);
	layout_build_groups(v);
	layout_build_lines(v);
	fit_all(v);
	v->gap_min = 100000;
	compute_gaps(v);
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
	free(v->groups);
	free(v->lines);
	search_free(v);
	free(v->args_text);
	free(v->gaps_by_time);
	free(v->nav);
	free(v->rank_gaps);
	free(v->shift);
	free(v->manual);
	ranks_free(&v->rr);
	free(v->dist_order);
	memset(v, 0, sizeof *v);
}

void view_resize(struct view *v, int w, int h)
{
	v->w = w > 20 ? w : 20;
	v->h = h > 8 ? h : 8;
	set_window(v, v->t0, width(v)); /* at least 1 ns per column of the new width */
}

/* ---- moving around --------------------------------------------------------------------- */

/* The window [t0, t1) always satisfies t0 < t1 with t1 - t0 at most INT64_MAX, at least
 * one ns per column, and at most four times the span of the traces: every width below
 * fits an int64. Times outside it are moved with saturating arithmetic (src/tmath.h), so
 * that no key, however often pressed, and no trace, however far its times, overflows. */
static int64_t width(const struct view *v) { return v->t1 - v->t0; }

/* Sets the window to start at T0 (moved so that it shows some of the traces) and to be
 * W wide (bounded as above). */
static void set_window(struct view *v, int64_t t0, int64_t w)
{
	int64_t tw = view_timeline_w(v), span = tt_sub(v->end, v->start);
	if (tw < 1)
		tw = 1;
	if (span < tw)
		span = tw;
	if (w > tt_mul(span, 4))
		w = tt_mul(span, 4);
	if (w < tw)
		w = tw; /* at most 1 ns per column */
	int64_t lo = tt_sub(v->start, w / 2), hi = tt_sub(v->end, w / 2);
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
static void set_window_range(struct view *v, int64_t t0, int64_t t1)
{
	set_window(v, t0, t1 > t0 ? tt_sub(t1, t0) : 1);
}

static void zoom(struct view *v, double factor)
{
	int64_t w = width(v);
	long double frac = (long double)tt_sub(v->cursor, v->t0) / (long double)w;
	if (frac < 0 || frac > 1)
		frac = 0.5;
	int64_t nw = tt_from_ldouble((long double)w * factor);
	set_window(v, tt_sub(v->cursor, tt_from_ldouble(frac * (long double)nw)), nw);
}

static void pan(struct view *v, double screens)
{
	int64_t d = tt_from_ldouble((long double)width(v) * screens);
	if (d == 0)
		d = screens < 0 ? -1 : 1;
	set_window(v, tt_add(v->t0, d), width(v));
	if (v->cursor < v->t0 || v->cursor >= v->t1)
		v->cursor = v->t0 + width(v) / 2;
}

/* Time at the start of column X of the timeline (X may lie outside it). */
static int64_t col_time(const struct view *v, int x)
{
	return tt_add(v->t0, tt_from_ldouble((long double)width(v) * x / view_timeline_w(v)));
}

/* |A - B|, saturated. */
static int64_t distance(int64_t a, int64_t b) { return a > b ? tt_sub(a, b) : tt_sub(b, a); }

static void move_cursor(struct view *v, int cols)
{
	int64_t step = width(v) / view_timeline_w(v);
	if (step < 1)
		step = 1;
	v->cursor = tt_add(v->cursor, tt_mul(step, cols));
	if (v->cursor < v->start)
		v->cursor = v->start;
	if (v->cursor > v->end)
		v->cursor = v->end;
	if (v->cursor < v->t0 || v->cursor >= v->t1)
		set_window(v, tt_sub(v->cursor, width(v) / 2), width(v));
	if (v->ranging) {
		char d[48];
		view_status(v, "range %s (v or m marks it)", timefmt_dur(distance(v->cursor, v->range_anchor), d, sizeof d));
	}
}

static void scroll_to_line(struct view *v, int line)
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
void view_go_to(struct view *v, struct slice_ref r)
{
	v->gap_shown = false;
	if (r.track == TT_NONE)
		return;
	const struct slice *s = &view_track(v, r.track)->slices[r.idx];
	int64_t ts = tt_add(s->ts, view_shift_of(v, r.track));
	v->sel = r;
	for (uint32_t g = 0; g < v->ngroups; g++)
		for (uint32_t k = 0; k < v->groups[g].ntracks; k++)
			if (v->order[v->groups[g].first_track_order + k] == r.track && v->groups[g].collapsed) {
				v->groups[g].collapsed = false;
				layout_build_lines(v);
			}
	for (uint32_t i = 0; i < v->nlines; i++)
		if (v->lines[i].track == r.track && v->lines[i].row == s->depth) {
			scroll_to_line(v, (int)i);
			break;
		}
	v->cursor = ts;
	if (ts < v->t0 || ts >= v->t1) {
		int64_t w = width(v);
		if (s->dur > w)
			w = tt_add(s->dur, s->dur / 10);
		set_window(v, tt_sub(ts, w / 3), w);
	}
}

static const struct view_line *cur_line(const struct view *v)
{
	return v->sel_line >= 0 && (uint32_t)v->sel_line < v->nlines ? &v->lines[v->sel_line] : NULL;
}

static void select_under_cursor(struct view *v)
{
	const struct view_line *l = cur_line(v);
	if (l == NULL)
		return;
	if (l->track == TT_NONE) {
		view_act(v, A_TOGGLE_GROUP);
		return;
	}
	const struct track *tr = view_track(v, l->track);
	int64_t colw = width(v) / view_timeline_w(v), at = tt_sub(v->cursor, view_shift_of(v, l->track));
	uint32_t i = index_row_dominant(tr, l->row, at, tt_add(at, colw > 0 ? colw : 1));
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
	const struct view_line *l = cur_line(v);
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
		while (a < b && tr->slices[row->idx[a]].ts <= from)
			a++;
		if (a < b)
			view_go_to(v, (struct slice_ref){ l->track, row->idx[a] });
	} else {
		index_row_range(tr, l->row, INT64_MIN / 2, from, &a, &b);
		while (b > a && tr->slices[row->idx[b - 1]].ts >= from)
			b--;
		if (b > a)
			view_go_to(v, (struct slice_ref){ l->track, row->idx[b - 1] });
	}
}

static void follow_flow(struct view *v, bool forward)
{
	if (v->sel.track == TT_NONE) {
		view_status(v, "select a slice first (Enter)");
		return;
	}
	/* flows and launches stay within the rank */
	const struct trace *t = view_trace_of(v, v->sel.track);
	int rank = view_rank_of(v->sel.track);
	uint32_t local = v->sel.track & VIEW_TRACK_MASK;
	const struct slice *s = &t->tracks[local].slices[v->sel.idx];
	bool gpu_side = s->cls == SC_KERNEL || s->cls == SC_MEMCPY || s->cls == SC_MEMSET;
	if (s->gpu != TT_NONE && t->gpu[s->gpu].peer.track != TT_NONE && forward != gpu_side) {
		view_go_to(v, (struct slice_ref){ view_id(rank, t->gpu[s->gpu].peer.track), t->gpu[s->gpu].peer.idx });
		view_status(v, forward ? "launched on the GPU" : "launched from the CPU");
		return;
	}
	for (uint32_t i = 0; i < t->nflows; i++) {
		const struct flow *f = &t->flows[i];
		struct slice_ref here = forward ? f->from : f->to, there = forward ? f->to : f->from;
		if (here.track == local && here.idx == v->sel.idx && there.track != TT_NONE) {
			view_go_to(v, (struct slice_ref){ view_id(rank, there.track), there.idx });
			char cat[64];
			escape_term_buf(strtab_get(&t->strings, f->cat), strtab_len(&t->strings, f->cat), cat, sizeof cat);
			view_status(v, "followed a %s flow", cat);
			return;
		}
	}
	view_status(v, "no flow %s from this slice", forward ? "forward" : "back");
}

/* Shows gap G: the window around it, the cursor at its start, the CPU slice that
 * explains it selected, its cause in the status line. */
void view_go_to_gap(struct view *v, const struct gap *g, const char *which)
{
	char d[48], name[160] = "";
	int64_t len = tt_sub(g->end, g->start), pad = tt_add(len - len / 4, 1);
	if (g->cpu.track != TT_NONE) {
		view_go_to(v, g->cpu);
		const struct slice *s = &view_track(v, g->cpu.track)->slices[g->cpu.idx];
		const struct strtab *st = &view_trace_of(v, g->cpu.track)->strings;
		escape_term_buf(strtab_get(st, s->name), strtab_len(st, s->name), name, sizeof name);
	} else {
		v->sel.track = v->sel.idx = TT_NONE;
	}
	set_window_range(v, tt_sub(g->start, pad), tt_add(g->end, pad));
	v->cursor = g->start;
	v->gap_cur = *g;
	v->gap_shown = true;
	view_status(v, "%s: %s gap on GPU %d, %s%s%s (HTA: %s)", which, timefmt_dur(len, d, sizeof d), g->device,
	           gap_cause_text(g->cause), name[0] ? ": " : "", name, hta_class_key(g->hta));
}

/* Selects the first line of rank R: its communication stream when it has one. */
void view_go_to_rank(struct view *v, int r)
{
	int first = -1, comm = -1;
	for (uint32_t g = 0; g < v->ngroups; g++)
		for (uint32_t k = 0; k < v->groups[g].ntracks; k++) {
			uint32_t id = v->order[v->groups[g].first_track_order + k];
			if (view_rank_of(id) == r && view_track(v, id)->kind == TRACK_GPU_COMM && v->groups[g].collapsed) {
				v->groups[g].collapsed = false;
				layout_build_lines(v);
			}
		}
	for (uint32_t i = 0; i < v->nlines; i++) {
		const struct view_line *l = &v->lines[i];
		if (l->track == TT_NONE || view_rank_of(l->track) != r)
			continue;
		if (first < 0)
			first = (int)i;
		if (comm < 0 && view_track(v, l->track)->kind == TRACK_GPU_COMM)
			comm = (int)i;
	}
	v->sel.track = v->sel.idx = TT_NONE;
	if (comm >= 0 || first >= 0)
		scroll_to_line(v, comm >= 0 ? comm : first);
}

/* Shows collective C: every rank's part in the window, the last arrival selected. */
void view_go_to_collective(struct view *v, const struct collective *c)
{
	int64_t a = INT64_MAX, b = INT64_MIN;
	for (int r = 0; r < v->nts; r++)
		if (c->per[r].ref.track != TT_NONE) {
			if (tt_sub(c->per[r].start, v->align_ref) < a)
				a = tt_sub(c->per[r].start, v->align_ref);
			if (tt_sub(c->per[r].end, v->align_ref) > b)
				b = tt_sub(c->per[r].end, v->align_ref);
		}
	if (c->last >= 0 && c->per[c->last].ref.track != TT_NONE)
		view_go_to(v, (struct slice_ref){ view_id(c->last, c->per[c->last].ref.track), c->per[c->last].ref.idx });
	if (a < b) {
		int64_t pad = tt_sub(b, a) / 4 + 1;
		set_window_range(v, tt_sub(a, pad), tt_add(b, pad));
		v->cursor = a;
	}
}

bool view_act(struct view *v, enum action a)
{
	switch (a) {
	case A_NONE:
		break;
	default:
		return false; /* not the timeline's: a view to open, quitting */
	case A_ZOOM_IN: zoom(v, 0.8); break;
	case A_ZOOM_OUT: zoom(v, 1.25); break;
	case A_ZOOM_IN_BIG: zoom(v, 0.4); break;
	case A_ZOOM_OUT_BIG: zoom(v, 2.5); break;
	case A_PAN_LEFT: pan(v, -0.1); break;
	case A_PAN_RIGHT: pan(v, 0.1); break;
	case A_PAN_LEFT_BIG: pan(v, -0.5); break;
	case A_PAN_RIGHT_BIG: pan(v, 0.5); break;
	case A_CURSOR_LEFT: move_cursor(v, -1); break;
	case A_CURSOR_RIGHT: move_cursor(v, 1); break;
	case A_CURSOR_LEFT_BIG: move_cursor(v, -10); break;
	case A_CURSOR_RIGHT_BIG: move_cursor(v, 10); break;
	case A_ROW_UP: scroll_to_line(v, v->sel_line - 1); break;
	case A_ROW_DOWN: scroll_to_line(v, v->sel_line + 1); break;
	case A_PAGE_UP: scroll_to_line(v, v->sel_line - view_area_h(v)); break;
	case A_PAGE_DOWN: scroll_to_line(v, v->sel_line + view_area_h(v)); break;
	case A_HOME:
		v->cursor = v->start;
		move_cursor(v, 0);
		break;
	case A_END:
		v->cursor = v->end;
		move_cursor(v, 0);
		break;
	case A_SELECT:
		select_under_cursor(v); /* once the prompt has closed, n and N move between matches */
		break;
	case A_FIT:
		if (v->sel.track != TT_NONE) {
			const struct slice *s = &view_track(v, v->sel.track)->slices[v->sel.idx];
			int64_t pad = s->dur / 20 + 1, ts = tt_add(s->ts, view_shift_of(v, v->sel.track));
			set_window_range(v, tt_sub(ts, pad), tt_add(tt_add(ts, s->dur), pad));
		} else if (v->has_mark) {
			set_window_range(v, v->mark0, v->mark1);
		} else {
			fit_all(v);
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
			const struct slice *s = &view_track(v, v->sel.track)->slices[v->sel.idx];
			v->has_mark = true;
			v->mark0 = tt_add(s->ts, view_shift_of(v, v->sel.track));
			v->mark1 = tt_add(v->mark0, s->dur);
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
	case A_FLOW_FORWARD: follow_flow(v, true); break;
	case A_FLOW_BACK: follow_flow(v, false); break;
	case A_TOGGLE_GROUP: {
		const struct view_line *l = cur_line(v);
		if (l == NULL)
			break;
		uint32_t g = l->group;
		v->groups[g].collapsed = !v->groups[g].collapsed;
		layout_build_lines(v);
		for (uint32_t i = 0; i < v->nlines; i++)
			if (v->lines[i].group == g && v->lines[i].track == TT_NONE) {
				scroll_to_line(v, (int)i);
				break;
			}
		break;
	}
	case A_ABS_TIME:
		v->abs_time = !v->abs_time;
		view_status(v, v->abs_time ? "absolute times (t: from the trace start)" : "times from the trace start");
		break;
	case A_LAYOUT:
		if (v->nts < 2) {
			view_status(v, "one trace: nothing to lay out by rank or role");
			break;
		}
		v->by_role = !v->by_role;
		v->sel.track = v->sel.idx = TT_NONE;
		layout_build_groups(v);
		layout_build_lines(v);
		v->top = 0;
		v->sel_line = v->nlines > 1 ? 1 : 0;
		view_status(v, v->by_role ? "by role: compute, communication, main CPU thread of every rank"
		                         : "by rank: each rank's tracks together");
		break;
	case A_ALIGN_NEXT:
		if (v->nts < 2) {
			view_status(v, "one trace: nothing to align");
			break;
		}
		v->align = v->align == ALIGN_RAW ? ALIGN_STEP : v->align == ALIGN_STEP ? ALIGN_COLLECTIVE : ALIGN_RAW;
		align_ranks(v);
		build_nav(v);
		view_status(v, "alignment: %s", align_mode_name(v->align));
		break;
	case A_SHIFT_EARLIER:
	case A_SHIFT_LATER: {
		const struct view_line *l = cur_line(v);
		int rank = l == NULL ? -1 : l->track != TT_NONE ? view_rank_of(l->track) : v->groups[l->group].rank;
		if (v->nts < 2 || rank < 0) {
			view_status(v, v->nts < 2 ? "one trace: nothing to shift" : "select a line of one rank to shift it");
			break;
		}
		int64_t step = width(v) / 50 > 0 ? width(v) / 50 : 1;
		v->manual[rank] += a == A_SHIFT_LATER ? step : -step;
		v->align = ALIGN_MANUAL;
		align_ranks(v);
		build_nav(v);
		char d[48];
		view_status(v, "manual: rank %d shifted %s by %s", view_rank_label(v, rank),
		           a == A_SHIFT_LATER ? "later" : "earlier", timefmt_dur(step, d, sizeof d));
		break;
	}

	case A_NEXT_GAP:
	case A_PREV_GAP: {
		uint32_t n = v->nnav, i;
		if (n == 0) {
			view_status(v, "no gap of %lld ns or more (< and > change the minimum)", (long long)v->gap_min);
			break;
		}
		if (a == A_NEXT_GAP) {
			for (i = 0; i < n && v->gaps_by_time[i].start <= v->cursor; i++)
				;
			if (i == n)
				i = 0;
		} else {
			for (i = n; i > 0 && v->gaps_by_time[i - 1].start >= v->cursor; i--)
				;
			i = i == 0 ? n - 1 : i - 1;
		}
		v->gap_at = i + 1;
		char which[48];
		snprintf(which, sizeof which, "gap %u/%u in time", i + 1, n);
		view_go_to_gap(v, &v->gaps_by_time[i], which);
		break;
	}
	case A_BIGGEST_GAP: {
		if (v->nnav == 0) {
			view_status(v, "no gap of %lld ns or more", (long long)v->gap_min);
			break;
		}
		v->gap_rank = v->gap_rank >= v->nnav ? 1 : v->gap_rank + 1;
		char which[48];
		snprintf(which, sizeof which, "gap %u/%u by size", v->gap_rank, v->nnav);
		view_go_to_gap(v, &v->nav[v->gap_rank - 1], which);
		break;
	}
	case A_GAP_MIN_UP:
	case A_GAP_MIN_DOWN: {
		char d[48];
		if (a == A_GAP_MIN_UP && v->gap_min < INT64_MAX / 4)
			v->gap_min *= 2;
		else if (a == A_GAP_MIN_DOWN && v->gap_min > 1)
			v->gap_min /= 2;
		compute_gaps(v);
		view_status(v, "minimum gap %s: %u gaps", timefmt_dur(v->gap_min, d, sizeof d), v->nnav);
		break;
	}
	case A_CANCEL:
		if (v->ranging) {
			v->ranging = false;
		} else if (v->nmatches > 0 || v->query[0]) {
			v->query[0] = '\0';
			search_run(v);
		} else {
			v->sel.track = v->sel.idx = TT_NONE;
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
			v->cursor = col_time(v, x);
		view_act(v, kind == TT_WHEEL_UP ? A_ZOOM_IN : A_ZOOM_OUT);
		return;
	}
	if (!in_area)
		return;
	int64_t at = col_time(v, x);
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
	scroll_to_line(v, line);
	if (v->lines[v->sel_line].track != TT_NONE)
		select_under_cursor(v);
}

int64_t view_col_time(const struct view *v, int x) { return col_time(v, x); }

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
	static const enum action shown[8] = { A_ZOOM_IN, A_ZOOM_OUT, A_PAN_LEFT, A_PAN_RIGHT, A_SELECT, A_SEARCH, A_HELP, A_QUIT };
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
