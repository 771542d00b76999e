/* view_state.h: the timeline panel's state, for the timeline's own files only (the app
 * and the other panels use ui/view.h): what the user has done to the picture.
 *
 * The view is the visible time window, the time cursor, the selected row and slice,
 * marks, the search, the gaps being visited, the places to go back to and the
 * bookmarks. It is the panel at the bottom of the app's stack (ui/app.h); its actions
 * (ui/view.c) change the view only, ui/render.c draws it, ui/layout.c lays out its lines
 * and ui/search.c finds slices by name. Times are file-time nanoseconds of the first
 * trace. */
#ifndef TT_VIEW_STATE_H
#define TT_VIEW_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "src/analysis.h"
#include "src/gaps.h"
#include "src/model.h"
#include "src/ranks.h"
#include "ui/history.h"
#include "ui/keys.h"
#include "ui/panel.h"
#include "ui/view.h"

struct app;

/* One line of the track area: a track's row, or (track TT_NONE) by row: the group's
 * heading, its device's utilization, or a half of a counter track (ui/counter_track.h). */
enum { VIEW_ROW_HEADING, VIEW_ROW_UTIL, VIEW_ROW_SM, VIEW_ROW_COUNTER_TOP, VIEW_ROW_COUNTER_LOW };
struct view_line {
	uint32_t track; /* the view track id, or TT_NONE */
	uint16_t row;   /* row (depth) within the track, or VIEW_ROW_* */
	uint32_t group;
	uint32_t counter; /* a counter line's index into view.counters (else unset) */
};

struct view_group {
	uint32_t first_track_order; /* index into order[] */
	int rank;                   /* rank position of its tracks, or -1 when they mix ranks */
	int32_t device;             /* GPU device of a one-rank GPU group (its utilization line), else -1 */
	uint32_t ntracks;
	uint32_t first_counter; /* its counter tracks: index into view.counter_order */
	uint32_t ncounters;
	bool collapsed;
	char title[96];
};

/* View time is rank 0's file time; rank r's file time plus shift[r] is view time (view.h
 * says how view track ids name the ranks' tracks). */
struct view {
	struct panel base; /* the timeline is a panel: first, so a view is a panel */
	struct app *app;
	struct trace *t;         /* rank 0's trace */
	struct trace *const *ts; /* every rank's trace */
	int nts;
	int64_t *shift;     /* by rank position */
	int64_t start, end; /* the span of every rank, in view time */
	enum align_mode align;
	int64_t *manual; /* manual mode: each rank's offset */
	bool by_role;    /* layout: by role (else by rank) */
	const struct gap_analysis *
		*rank_gaps;    /* each rank's gaps (src/analysis.h), by rank position, in its own file time */
	struct rank_report rr; /* several ranks: the comparison under the alignment in force: a
	                        * shallow copy of the cached one (src/analysis.h), or, in manual
	                        * mode, the view's own (rr_owned) */
	bool rr_owned;
	int64_t align_ref;    /* rank 0's aligned time of its file time 0 */
	int w, h;             /* screen size */
	int64_t t0, t1;       /* visible window [t0, t1) */
	int64_t cursor;       /* the time cursor */
	int top;              /* first visible line */
	int sel_line;         /* selected line */
	struct slice_ref sel; /* selected slice, or {TT_NONE} */
	bool has_mark;
	int64_t mark0, mark1;
	bool ranging; /* a range selection is being made from range_anchor */
	int64_t range_anchor;
	/* search (ui/search.c) */
	char query[128];
	struct slice_ref *matches; /* in time order */
	uint32_t nmatches, match;  /* match is 1-based; 0 = none current */
	uint8_t **name_matches;    /* by rank, by string id: 1 when the name matches the query */
	bool abs_time;             /* the header shows absolute times */
	int64_t drag_from;         /* time where a mouse press began, when dragging */
	bool dragging;
	/* gaps (src/gaps.h), computed when the view opens */
	int64_t gap_min;
	uint32_t gaps_version; /* bumped whenever the gaps or the alignment change */
	struct gap *nav;       /* every rank's gaps, longest first, in view time and view ids */
	uint32_t nnav;
	struct gap *gaps_by_time; /* the same gaps in time order */
	uint32_t gap_at;          /* 1-based position in gaps_by_time of the last gap visited */
	uint32_t gap_rank;        /* 1-based position in gaps (longest first) of the last gap visited */
	bool gap_shown;           /* gap_cur was visited and its CPU slice is the selection */
	struct gap gap_cur;
	/* following (ui/follow.c) */
	struct slice_ref launch_root; /* the slice whose GPU work ] visits, or {TT_NONE} */
	struct slice_ref launch_at;   /* where ] went last: from there, ] goes to the next */
	uint32_t launch_pos;          /* its 1-based place in launch_root's GPU work */
	struct slice_ref climbed;     /* where [ or u went last: from there, [ climbs on */
	/* places (ui/places.c): back and forward, bookmarks */
	struct history history;
	struct bookmark *bookmarks;
	uint32_t nbookmarks;
	uint32_t bookmarks_made;    /* bookmarks ever made: the default names' numbers */
	uint32_t bookmarks_version; /* bumped when the bookmarks change (the list rebuilds) */
	struct slice_ref args_for;  /* the slice whose args args_text holds */
	char *args_text;            /* escaped, one arg a line ("key: value\n") */
	uint64_t advice_last;       /* the advice panel's last instance shown (its row tag), 0: none */
	uint16_t fold_rows;         /* CPU threads show at most this many rows (0: all; z toggles) */
	bool details_big;           /* the details panel enlarged (I) */
	int details_page;           /* the page of the args shown (0-based) */
	int details_pages;          /* pages the args took in the last frame */
	char status[256];
	/* a trace still loading (ui/loading.c): the view shows a snapshot (parsers/load.h) */
	bool partial;   /* the trace is a snapshot: no gaps, utilization or counters */
	bool deferred;  /* a big trace: its gaps, utilization lines and counter tracks
	                 * wait for view_complete, after the first frame */
	double loading; /* the fraction of the files read, while they load; else -1 */
	uint64_t loading_bytes, loading_total;
	int loading_files; /* files loading (the first alone is shown until all have loaded) */
	/* counter tracks (ui/counter_track.h), made once when the view opens */
	struct counter_track *counters;
	uint32_t ncounters;
	/* layout (ui/layout.c) */
	uint32_t *order;         /* tracks in display order */
	uint32_t *counter_order; /* counters in display order */
	struct view_group *groups;
	uint32_t ngroups;
	struct view_line *lines;
	uint32_t nlines;
};

/* Sets up a view of the N traces TS (one per rank; N >= 1) at size W x H showing them
 * whole, aligned by ALIGN when N > 1, as the bottom panel of APP. Free with view_free. */
void view_init(struct view *v, struct app *app, struct trace *const *ts, int n, enum align_mode align, int w, int h);
void view_free(struct view *v);
/* Applies one timeline action. Returns false for an action the timeline leaves to the app. */
bool view_act(struct view *v, enum action a);
/* The new screen size. */
void view_resize(struct view *v, int w, int h);
/* The time at the start of timeline column X. */
int64_t view_col_time(const struct view *v, int x);
/* True when [A, B) (rank position RANK's file time) touches a gap of DEVICE on RANK
 * (O(log n); ui/gap_nav.c). */
bool view_in_gap(const struct view *v, int rank, int32_t device, int64_t a, int64_t b);

/* The trace, the track and the view-time shift of view track id ID. */
static inline struct trace *view_trace_of(const struct view *v, uint32_t id) { return v->ts[id >> VIEW_RANK_SHIFT]; }
static inline struct track *view_track(const struct view *v, uint32_t id)
{
	return &v->ts[id >> VIEW_RANK_SHIFT]->tracks[id & VIEW_TRACK_MASK];
}
static inline int64_t view_shift_of(const struct view *v, uint32_t id) { return v->shift[id >> VIEW_RANK_SHIFT]; }
/* Whether L is a line of a counter track. */
static inline bool view_line_is_counter(const struct view_line *l)
{
	return l->track == TT_NONE && (l->row == VIEW_ROW_COUNTER_TOP || l->row == VIEW_ROW_COUNTER_LOW);
}
/* The rank position line L belongs to: its track's, its counter's, its group's; -1 for a
 * heading of several ranks. */
int view_line_rank(const struct view *v, const struct view_line *l);

/* Layout (ui/layout.c): the groups and lines of the track area, and where things are. */
void layout_build_groups(struct view *v);
void layout_build_lines(struct view *v);
/* Rows of track TR the layout shows (its rows, or v->fold_rows of a deep CPU thread). */
uint16_t layout_rows_shown(const struct view *v, const struct track *tr);
/* Folds deep CPU threads (v->fold_rows, 2 to 8 rows, as many as fit) when the tracks do
 * not fit the screen and a GPU would be off it; unfolds when they fit. */
void layout_fold_to_fit(struct view *v);
int view_track_col_width(const struct view *v); /* width of the track column */
int view_timeline_x(const struct view *v);      /* first column of the timeline */
int view_timeline_w(const struct view *v);      /* columns of the timeline */
int view_details_h(const struct view *v);       /* lines of the details panel */

/* Search (ui/search.c): runs v->query over every rank's slice names; steps DIR matches. */
void search_run(struct view *v);
void search_step(struct view *v, int dir);
void search_free(struct view *v);

/* Moving the selection (ui/view.c): selects slice R and scrolls to it; the selected line. */
void view_go_to(struct view *v, struct slice_ref r);
/* Selects and shows the line of row ROW of view track TRACK, expanding its group; false
 * when the layout has no such line. */
bool view_show_line(struct view *v, uint32_t track, uint16_t row);
const struct view_line *view_cur_line(const struct view *v);

/* The time window (ui/window.c): its width; set to start at T0, W wide, or to [T0, T1),
 * bounded as view.h says; the whole trace; zoom by FACTOR around the cursor; pan by a
 * fraction of a screen; move the cursor by columns; select and show a line. */
int64_t view_width(const struct view *v);
void view_set_window(struct view *v, int64_t t0, int64_t w);
void view_set_window_range(struct view *v, int64_t t0, int64_t t1);
void view_fit_all(struct view *v);
void view_zoom(struct view *v, double factor);
void view_pan(struct view *v, double screens);
void view_move_cursor(struct view *v, int cols);
void view_scroll_to_line(struct view *v, int line);

/* Gaps (ui/gap_nav.c): every rank's gaps for v->gap_min; the list the gap keys visit;
 * the gap keys' actions (false for another action). */
void view_compute_gaps(struct view *v);
void view_build_gap_nav(struct view *v);
bool gap_nav_act(struct view *v, enum action a);

/* Following (ui/follow.c): ] [ u i; false for another action. */
bool follow_act(struct view *v, enum action a);

/* Places (ui/places.c): back and forward, bookmarks (view.h). */
/* Shows place P again (the window bounded as view_set_window does). */
void view_pos_restore(struct view *v, const struct view_pos *p);
/* Back, forward, bookmark; false for another action. */
bool places_act(struct view *v, enum action a);
/* C: the marked range, else the window, written as a trace of its own (ui/crop_key.c). */
bool crop_key_act(struct view *v, enum action a);

/* Several ranks (ui/align.c): the shifts from the alignment in force; the layout,
 * alignment and shift actions (false for another action). */
void view_align_ranks(struct view *v);
bool align_act(struct view *v, enum action a);

#endif
