/* align.c: several ranks on one timeline: each rank's shift from the alignment in force
 * (src/ranks.h), laying tracks out by rank or by role, manual shifts, and going to a rank
 * or a collective. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/timefmt.h"
#include "lib/tmath.h"
#include "lib/escape.h"
#include "src/analysis.h"
#include "ui/view_state.h"

/* Each rank's shift from the alignment in force, and the span of them all. */
void view_align_ranks(struct view *v)
{
	if (v->nts > 1) {
		struct rank_report *rr = &v->rr;
		if (v->rr_owned)
			ranks_free(rr);
		/* raw, step and collective are computed once per trace set (y cycles through
		 * them); manual offsets are the user's, computed each time */
		v->rr_owned = v->align == ALIGN_MANUAL;
		if (v->rr_owned)
			ranks_analyse(v->ts, v->nts, v->align, v->manual, rr);
		else
			*rr = *traces_ranks(v->ts, v->nts, v->align);
		int64_t ref = tt_add(v->t->has_base ? v->t->base_ns : 0, rr->ranks[0].offset);
		for (int r = 0; r < v->nts; r++) {
			const struct trace *t = v->ts[r];
			v->shift[r] = tt_sub(tt_add(t->has_base ? t->base_ns : 0, rr->ranks[r].offset), ref);
			v->manual[r] = rr->ranks[r].offset;
		}
		v->align_ref = ref;
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

/* Selects the first line of rank R: its communication stream when it has one. */
void view_go_to_rank(struct view *v, int r)
{
	int first = -1, comm = -1;
	for (uint32_t g = 0; g < v->ngroups; g++)
		for (uint32_t k = 0; k < v->groups[g].ntracks; k++) {
			uint32_t id = v->order[v->groups[g].first_track_order + k];
			if (view_rank_of(id) == r && view_track(v, id)->kind == TRACK_GPU_COMM &&
			    v->groups[g].collapsed) {
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
		view_scroll_to_line(v, comm >= 0 ? comm : first);
	/* the rank's rows from its first group's heading down, when its communication line
	 * still shows: the rank is read from the top, not found at the bottom of the screen */
	int head = first > 0 ? first - 1 : first;
	if (head >= 0 && v->sel_line - head < view_area_h(v))
		v->top = head;
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
		view_go_to(v,
		           (struct slice_ref){ view_id(c->last, c->per[c->last].ref.track), c->per[c->last].ref.idx });
	if (a < b) {
		int64_t pad = tt_sub(b, a) / 4 + 1;
		view_set_window_range(v, tt_sub(a, pad), tt_add(b, pad));
		v->cursor = a;
	}
}

/* The keys of several ranks: layout, alignment, shifts; false for another action. */
bool align_act(struct view *v, enum action a)
{
	switch (a) {
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
		view_align_ranks(v);
		view_build_gap_nav(v);
		view_status(v, "alignment: %s", align_mode_name(v->align));
		break;
	case A_SHIFT_EARLIER:
	case A_SHIFT_LATER: {
		const struct view_line *l = view_cur_line(v);
		int rank = l == NULL ? -1 : view_line_rank(v, l);
		if (v->nts < 2 || rank < 0) {
			view_status(v, v->nts < 2 ? "one trace: nothing to shift"
			                          : "select a line of one rank to shift it");
			break;
		}
		int64_t step = view_width(v) / 50 > 0 ? view_width(v) / 50 : 1;
		v->manual[rank] += a == A_SHIFT_LATER ? step : -step;
		v->align = ALIGN_MANUAL;
		view_align_ranks(v);
		view_build_gap_nav(v);
		char d[48];
		view_status(v, "manual: rank %d shifted %s by %s", view_rank_label(v, rank),
		            a == A_SHIFT_LATER ? "later" : "earlier", timefmt_dur(step, d, sizeof d));
		break;
	}
	default: return false;
	}
	return true;
}
