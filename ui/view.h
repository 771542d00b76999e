/* view.h: the timeline panel as the app and the other panels see it: a narrow door.
 *
 * The timeline shows every rank's tracks on one time axis, view time: rank 0's file time,
 * other ranks shifted by the alignment in force. Other panels (the tables, the memory
 * view) read which ranks it shows and where its window is, and ask it to show a place: a
 * rank's time, a span, a slice. They neither reach into its state nor keep theirs in it
 * (a panel's memory lives in the app, app_memory). The timeline's own files (view.c,
 * window.c, layout.c, render.c, search.c, gap_nav.c, follow.c, places.c, align.c,
 * sel_args.c, counter_track.c, loading.c) see its state through ui/view_state.h;
 * tests/layering.sh keeps everyone else out. Times passed to and returned by these
 * functions are a rank's file time unless the name says view time. */
#ifndef TT_VIEW_H
#define TT_VIEW_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "src/gaps.h"
#include "src/model.h"
#include "src/ranks.h"
#include "ui/grid.h"
#include "ui/history.h"
#include "ui/keys.h"
#include "ui/panel.h"

struct app;
struct view;

/* Several traces (one per rank) share the view: a view track id is the rank position
 * shifted left by VIEW_RANK_SHIFT, or'ed with the track's index in that rank's trace, so
 * that with one trace view ids are the trace's own. */
#define VIEW_RANK_SHIFT 22
#define VIEW_MAX_RANKS 1000
#define VIEW_TRACK_MASK ((1u << VIEW_RANK_SHIFT) - 1)
static inline uint32_t view_id(int rank, uint32_t track) { return (uint32_t)rank << VIEW_RANK_SHIFT | track; }
static inline int view_rank_of(uint32_t id) { return (int)(id >> VIEW_RANK_SHIFT); }

/* The app's: a timeline of the N traces TS (one per rank; N >= 1) at size W x H showing
 * them whole, aligned by ALIGN when N > 1, for the bottom of APP's stack. Its panel's
 * free op frees it. */
struct view *view_new(struct app *app, struct trace *const *ts, int n, enum align_mode align, int w, int h);
/* The timeline as a panel of the stack. */
struct panel *view_panel(struct view *v);
/* Computes what a big trace's first frame went without (its gaps, utilization lines and
 * counter tracks), so that the view is then as view_new would have made it. Returns false
 * when there was nothing left to compute. */
bool view_complete(struct view *v);
/* Around each key or mouse event the app dispatches, whatever panel takes it: the place
 * the timeline shows now; after action A, which found the timeline at BEFORE, BEFORE goes
 * into the history when A is a jump (ui/places.c names them) and the timeline moved;
 * the args of the selection are read when it changed (ui/sel_args.c: after each key,
 * never while a frame is drawn). */
void view_pos_take(const struct view *v, struct view_pos *p);
void places_after_action(struct view *v, enum action a, const struct view_pos *before);
void view_prepare_details(struct view *v);
/* Sets the shortest gap the gap keys and the gap list show, and finds them again. */
void view_set_gap_min(struct view *v, int64_t ns);
/* Sets the status line's message; whether there is one. */
void view_status(struct view *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void view_vstatus(struct view *v, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
bool view_has_status(const struct view *v);
/* Draws the status line (its message, else HINTS) at the bottom of G. */
void view_draw_status(struct grid *g, const struct view *v, const char *hints);
/* The lines of the track area, where the table views open: its first line, its height. */
int view_area_y(const struct view *v);
int view_area_h(const struct view *v);

/* What the panels read. The ranks shown (rank positions 0 .. n-1); rank R's trace; the
 * rank number to show for it (distributedInfo, the file name, or R); the rank the user is
 * looking at (the selected slice's, else the selected line's, else 0: views open on it). */
int view_ranks(const struct view *v);
struct trace *view_rank_trace(const struct view *v, int r);
/* Every rank's trace, by rank position (*N of them). */
struct trace *const *view_traces(const struct view *v, int *n);
int view_rank_label(const struct view *v, int r);
int view_focus_rank(const struct view *v);
/* Rank R's file time plus its shift is view time. */
int64_t view_rank_shift(const struct view *v, int r);
/* The view time the tables' time columns count from (the start of every rank). */
int64_t view_origin(const struct view *v);
/* The visible window [*T0, *T1) in rank R's file time. */
void view_rank_window(const struct view *v, int r, int64_t *t0, int64_t *t1);
/* Several ranks: the alignment in force and the comparison of the ranks under it (the
 * view's; valid until the alignment changes, which bumps view_gaps_version). */
enum align_mode view_align(const struct view *v);
const struct rank_report *view_rank_report(const struct view *v);
/* The gaps the gap keys visit, every rank's, longest first, in view time and view track
 * ids (*N of them); the shortest shown; a number that changes whenever they or the
 * alignment change; rank R's own gap report (its file time). */
const struct gap *view_gaps(const struct view *v, uint32_t *n);
int64_t view_gap_min(const struct view *v);
uint32_t view_gaps_version(const struct view *v);
const struct gap_report *view_rank_gaps(const struct view *v, int r);
/* The bookmarks: how many (and a number that changes when they do); bookmark I (its
 * place in view time and view ids, its name escaped and printable); shows bookmark I;
 * removes it. */
#define VIEW_MAX_BOOKMARKS 100
struct bookmark {
	struct view_pos pos;
	char name[64];
};
uint32_t view_bookmarks(const struct view *v, uint32_t *version);
const struct bookmark *view_bookmark(const struct view *v, uint32_t i);
void view_bookmark_show(struct view *v, uint32_t i);
void view_bookmark_delete(struct view *v, uint32_t i);

/* Where the panels send the timeline. Selects slice S of rank R (a track of R's trace),
 * scrolls to its row and centres the window on it, zoomed in until it is four columns
 * wide or more (a fifth of the window) or out until it fits. */
void view_select(struct view *v, int r, struct slice_ref s);
/* The selected slice: true, with its trace, its track and its index there; false when
 * nothing is selected. */
bool view_selection(const struct view *v, const struct trace **t, const struct track **tr, uint32_t *idx);
/* Shows [A, B] of rank R with PAD on each side, the cursor at A. With SEL, selects *SEL
 * of rank R (the window stays [A - PAD, B + PAD]) or, when SEL->track is TT_NONE, nothing;
 * without, leaves the selection as it is. */
void view_show_span(struct view *v, int r, int64_t a, int64_t b, int64_t pad, const struct slice_ref *sel);
/* Shows time T of rank R at the middle of a window as wide as now, the cursor at T; SEL
 * as view_show_span's. */
void view_show_time(struct view *v, int r, int64_t t, const struct slice_ref *sel);
/* Shows gap G (one of view_gaps) with WHICH in the status line; the lines of rank R;
 * collective C of view_rank_report. */
void view_go_to_gap(struct view *v, const struct gap *g, const char *which);
void view_go_to_rank(struct view *v, int r);
void view_go_to_collective(struct view *v, const struct collective *c);

#endif
