/* places.c: where the timeline has been and where the user wants to come back: the
 * place taken before each jump and kept in the history (ui/history.h) when the jump moved
 * the timeline, back and forward, and bookmarks (see view.h). The bookmarks' list is a
 * table panel of its own (ui/bookmark_list.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "ui/app.h"
#include "ui/prompt.h"
#include "ui/view_state.h"

void view_pos_take(const struct view *v, struct view_pos *p)
{
	const struct view_line *l = view_cur_line(v);
	memset(p, 0, sizeof *p);
	p->t0 = v->t0;
	p->t1 = v->t1;
	p->cursor = v->cursor;
	p->sel = v->sel;
	p->sel_line = v->sel_line;
	p->top = v->top;
	p->line_track = l != NULL ? l->track : TT_NONE;
	p->line_row = l != NULL ? l->row : 0;
	p->gap_shown = v->gap_shown;
	p->gaps_version = v->gaps_version;
	if (v->gap_shown)
		p->gap = v->gap_cur;
}

/* Whether view track id R names a slice of the traces. */
static bool valid_ref(const struct view *v, struct slice_ref r)
{
	if (r.track == TT_NONE || view_rank_of(r.track) >= v->nts)
		return false;
	const struct trace *t = view_trace_of(v, r.track);
	return (r.track & VIEW_TRACK_MASK) < t->ntracks && r.idx < view_track(v, r.track)->nslices;
}

void view_pos_restore(struct view *v, const struct view_pos *p)
{
	bool shown = false;
	v->sel = valid_ref(v, p->sel) ? p->sel : (struct slice_ref){ TT_NONE, TT_NONE };
	/* the line: the selection's, else the same track's row, else the same position (a
	 * heading, a counter) */
	v->top = p->top;
	if (v->sel.track != TT_NONE)
		shown = view_show_line(
			v, v->sel.track,
			slice_depth(view_trace_of(v, v->sel.track), &view_track(v, v->sel.track)->slices[v->sel.idx]));
	else if (p->line_track != TT_NONE)
		shown = view_show_line(v, p->line_track, p->line_row);
	if (!shown)
		view_scroll_to_line(v, p->sel_line);
	if (v->top > v->sel_line)
		v->top = v->sel_line;
	if (v->top < 0)
		v->top = 0;
	view_set_window_range(v, p->t0, p->t1);
	v->cursor = p->cursor;
	/* a gap shown before the gaps were found again (another minimum) is not shown */
	v->gap_shown = p->gap_shown && p->gaps_version == v->gaps_version;
	if (v->gap_shown)
		v->gap_cur = p->gap;
}

/* The actions after which the place the timeline left is kept: jumps, not steps. */
static bool is_jump(enum action a)
{
	switch (a) {
	case A_FLOW_FORWARD:
	case A_FLOW_BACK:
	case A_PARENT:
	case A_FIRST_CHILD:
	case A_ACCEPT: /* a search */
	case A_NEXT_MATCH:
	case A_PREV_MATCH:
	case A_JUMP: /* Enter in a list: gaps, operators, kernels, bookmarks... */
	case A_NEXT_GAP:
	case A_PREV_GAP:
	case A_BIGGEST_GAP: return true;
	default: return false;
	}
}

void places_after_action(struct view *v, enum action a, const struct view_pos *before)
{
	struct view_pos now;
	if (!is_jump(a))
		return;
	view_pos_take(v, &now);
	if (!view_pos_same(before, &now))
		history_record(&v->history, before);
}

static void bookmark_done(void *ctx, struct app *app, const char *text, bool accepted)
{
	struct view *v = ctx;
	(void)app;
	if (!accepted) {
		view_status(v, "no bookmark made");
		return;
	}
	if (v->nbookmarks == VIEW_MAX_BOOKMARKS) {
		view_status(v, "%d bookmarks already: delete one in the list first (%s, then x)", VIEW_MAX_BOOKMARKS,
		            keymap_key_for(&v->app->keys, CTX_TIMELINE, A_BOOKMARK_LIST));
		return;
	}
	v->bookmarks = xreallocarray(v->bookmarks, v->nbookmarks + 1, sizeof *v->bookmarks);
	struct bookmark *b = &v->bookmarks[v->nbookmarks++];
	view_pos_take(v, &b->pos);
	v->bookmarks_made++;
	/* the prompt takes printable ASCII only: the name needs no escaping */
	if (text[0])
		snprintf(b->name, sizeof b->name, "%s", text);
	else
		snprintf(b->name, sizeof b->name, "bookmark %u", v->bookmarks_made);
	v->bookmarks_version++;
	view_status(v, "bookmarked as \"%s\" (%s lists the bookmarks)", b->name,
	            keymap_key_for(&v->app->keys, CTX_TIMELINE, A_BOOKMARK_LIST));
}

void view_bookmark_delete(struct view *v, uint32_t i)
{
	if (i >= v->nbookmarks)
		return;
	memmove(&v->bookmarks[i], &v->bookmarks[i + 1], (v->nbookmarks - i - 1) * sizeof *v->bookmarks);
	v->nbookmarks--;
	v->bookmarks_version++;
}

bool places_act(struct view *v, enum action a)
{
	struct view_pos now, to;
	switch (a) {
	case A_BACK:
	case A_FORWARD:
		view_pos_take(v, &now);
		if (!(a == A_BACK ? history_back : history_forward)(&v->history, &now, &to)) {
			view_status(
				v, a == A_BACK
					   ? "nothing to go back to: jumps (] [ u i, a search, a gap, Enter in a list) "
					     "leave a place to come back to"
					   : "nothing to go forward to");
			return true;
		}
		view_pos_restore(v, &to);
		view_status(v, "%s: %d back, %d forward", a == A_BACK ? "back" : "forward",
		            history_back_count(&v->history), history_forward_count(&v->history));
		return true;
	case A_BOOKMARK: app_push(v->app, prompt_new("bookmark name: ", "", bookmark_done, v)); return true;
	default: return false;
	}
}
