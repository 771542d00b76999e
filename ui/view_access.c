/* view_access.c: the narrow door into the timeline (view.h): what the app and the other
 * panels may read of it and the places they may ask it to show, over its state
 * (view_state.h). */
#include <stdio.h>
#include <stdlib.h>

#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "ui/render.h"
#include "ui/view_state.h"

struct view *view_new(struct app *app, struct trace *const *ts, int n, enum align_mode align, int w, int h)
{
	struct view *v = xcalloc(1, sizeof *v);
	view_init(v, app, ts, n, align, w, h);
	return v;
}

struct panel *view_panel(struct view *v) { return &v->base; }

void view_set_gap_min(struct view *v, int64_t ns)
{
	v->gap_min = ns;
	view_compute_gaps(v);
}

void view_vstatus(struct view *v, const char *fmt, va_list ap) { vsnprintf(v->status, sizeof v->status, fmt, ap); }

bool view_has_status(const struct view *v) { return v->status[0] != '\0'; }

void view_draw_status(struct grid *g, const struct view *v, const char *hints) { render_status(g, v, hints); }

int view_ranks(const struct view *v) { return v->nts; }

struct trace *view_rank_trace(const struct view *v, int r) { return v->ts[r]; }

struct trace *const *view_traces(const struct view *v, int *n)
{
	*n = v->nts;
	return v->ts;
}

int view_rank_label(const struct view *v, int r)
{
	return v->nts > 1 ? v->rr.ranks[r].rank : v->ts[r]->rank >= 0 ? v->ts[r]->rank : r;
}

int64_t view_rank_shift(const struct view *v, int r) { return v->shift[r]; }

int64_t view_origin(const struct view *v) { return v->start; }

void view_rank_window(const struct view *v, int r, int64_t *t0, int64_t *t1)
{
	*t0 = tt_sub(v->t0, v->shift[r]);
	*t1 = tt_sub(v->t1, v->shift[r]);
}

enum align_mode view_align(const struct view *v) { return v->align; }

const struct rank_report *view_rank_report(const struct view *v) { return &v->rr; }

const struct gap *view_gaps(const struct view *v, uint32_t *n)
{
	*n = v->nnav;
	return v->nav;
}

int64_t view_gap_min(const struct view *v) { return v->gap_min; }

uint32_t view_gaps_version(const struct view *v) { return v->gaps_version; }

const struct gap_report *view_rank_gaps(const struct view *v, int r) { return &v->rank_gaps[r]->r; }

uint32_t view_bookmarks(const struct view *v, uint32_t *version)
{
	if (version != NULL)
		*version = v->bookmarks_version;
	return v->nbookmarks;
}

const struct bookmark *view_bookmark(const struct view *v, uint32_t i) { return &v->bookmarks[i]; }

void view_bookmark_show(struct view *v, uint32_t i) { view_pos_restore(v, &v->bookmarks[i].pos); }

bool view_selection(const struct view *v, const struct trace **t, const struct track **tr, uint32_t *idx)
{
	if (v->sel.track == TT_NONE)
		return false;
	*t = view_trace_of(v, v->sel.track);
	*tr = view_track(v, v->sel.track);
	*idx = v->sel.idx;
	return true;
}

void view_select(struct view *v, int r, struct slice_ref s)
{
	struct slice_ref ref = { view_id(r, s.track), s.idx };
	view_go_to(v, ref);
	if (s.track == TT_NONE)
		return;
	/* centred, at a zoom where it shows: a slice under four columns wide gets a fifth of
	 * the window, one wider than the window a window a quarter wider than it */
	const struct track *tr = view_track(v, ref.track);
	const struct slice *sl = &tr->slices[ref.idx];
	int64_t dur = slice_dur(tr, sl), w = view_width(v), cols = view_timeline_w(v);
	if (cols < 1)
		cols = 1;
	if (dur > 0 && dur < 4 * (w / cols))
		w = dur > INT64_MAX / 5 ? INT64_MAX : dur * 5;
	else if (dur > w)
		w = tt_add(dur, dur / 4);
	int64_t mid = tt_add(tt_add(sl->ts, view_shift_of(v, ref.track)), dur / 2);
	view_set_window(v, tt_sub(mid, w / 2), w);
}

void view_show_span(struct view *v, int r, int64_t a, int64_t b, int64_t pad, const struct slice_ref *sel)
{
	int64_t sh = v->shift[r];
	a = tt_add(a, sh);
	b = tt_add(b, sh);
	view_set_window_range(v, tt_sub(a, pad), tt_add(b, pad));
	v->cursor = a;
	if (sel == NULL)
		return;
	if (sel->track != TT_NONE) {
		view_go_to(v, (struct slice_ref){ view_id(r, sel->track), sel->idx });
		view_set_window_range(v, tt_sub(a, pad), tt_add(b, pad)); /* the span's window, not the slice's */
		v->cursor = a;
	} else {
		v->sel.track = v->sel.idx = TT_NONE;
	}
}

void view_show_time(struct view *v, int r, int64_t t, const struct slice_ref *sel)
{
	int64_t ts = tt_add(t, v->shift[r]), len = tt_sub(v->t1, v->t0);
	view_set_window_range(v, tt_sub(ts, len / 2), tt_add(ts, len / 2));
	v->cursor = ts;
	if (sel == NULL)
		return;
	if (sel->track != TT_NONE) {
		view_go_to(v, (struct slice_ref){ view_id(r, sel->track), sel->idx });
		v->cursor = ts;
	} else {
		v->sel.track = v->sel.idx = TT_NONE;
	}
}
