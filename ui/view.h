/* view.h: the timeline's view state, the key table and the actions it drives.
 *
 * The view is what the user has done to the picture: the visible time window, the time
 * cursor, the selected row and slice, marks, the search. Keys map to named actions
 * through one table (view_bindings), used alike by the terminal (ui/tty.c), by the
 * headless --dump-screen and by the help screen. Actions change the view only; drawing
 * is ui/render.c's job. Times are file-time nanoseconds of the first trace. */
#ifndef TT_VIEW_H
#define TT_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "src/gaps.h"
#include "src/model.h"
#include "src/ranks.h"

/* Key codes: printable ASCII as themselves, the rest here (not curses' values). */
enum {
	TT_KEY_ENTER = 0x100,
	TT_KEY_S_ENTER,
	TT_KEY_ESC,
	TT_KEY_UP,
	TT_KEY_DOWN,
	TT_KEY_LEFT,
	TT_KEY_RIGHT,
	TT_KEY_S_LEFT,
	TT_KEY_S_RIGHT,
	TT_KEY_PGUP,
	TT_KEY_PGDN,
	TT_KEY_HOME,
	TT_KEY_END,
	TT_KEY_TAB,
	TT_KEY_BACKSPACE,
	TT_KEY_RESIZE,
};

/* Mouse events travel as key codes too, so that key scripts can replay them:
 * TT_MOUSE(kind, x, y) with screen coordinates below 4096. */
enum mouse_kind { TT_CLICK = 1, TT_PRESS, TT_RELEASE, TT_WHEEL_UP, TT_WHEEL_DOWN };
#define TT_MOUSE_BASE 0x40000000
#define TT_MOUSE(kind, x, y) (TT_MOUSE_BASE | (int)(kind) << 24 | ((y) & 0xfff) << 12 | ((x) & 0xfff))
#define TT_IS_MOUSE(k) ((k) >= TT_MOUSE_BASE)

enum action {
	A_NONE,
	A_ZOOM_IN, A_ZOOM_OUT, A_ZOOM_IN_BIG, A_ZOOM_OUT_BIG,
	A_PAN_LEFT, A_PAN_RIGHT, A_PAN_LEFT_BIG, A_PAN_RIGHT_BIG,
	A_CURSOR_LEFT, A_CURSOR_RIGHT, A_CURSOR_LEFT_BIG, A_CURSOR_RIGHT_BIG,
	A_ROW_UP, A_ROW_DOWN, A_PAGE_UP, A_PAGE_DOWN, A_HOME, A_END,
	A_SELECT, A_FIT, A_MARK, A_CLEAR_MARKS, A_RANGE,
	A_SEARCH, A_NEXT_MATCH, A_PREV_MATCH,
	A_NEXT_SLICE, A_PREV_SLICE, A_FLOW_FORWARD, A_FLOW_BACK,
	A_TOGGLE_GROUP, A_ABS_TIME,
	A_LAYOUT, A_ALIGN_NEXT, A_SHIFT_EARLIER, A_SHIFT_LATER, A_DIST_VIEW,
	A_NEXT_GAP, A_PREV_GAP, A_BIGGEST_GAP, A_GAP_LIST, A_GAP_MIN_UP, A_GAP_MIN_DOWN,
	A_HELP, A_QUIT, A_CANCEL,
	A__COUNT
};

struct binding {
	int key;
	enum action action;
};

/* The default key table, ending with {0, A_NONE}. */
extern const struct binding view_default_bindings[];
/* What an action does, in a few words ("zoom in around the cursor"). */
const char *action_text(enum action a);
/* The action's stable name for key map files ("zoom-in"). */
const char *action_name(enum action a);
struct view;
/* The name of the first key bound to A in V's table ("?" when none). Static buffer. */
const char *view_key_for(const struct view *v, enum action a);
/* A key's name for help and maps ("w", "Enter", "S-Left"). Returns a static buffer. */
const char *key_name(int key);

/* One line of the track area. */
struct view_line {
	uint32_t track;      /* TT_NONE for a group heading or (row 1) a utilization line */
	uint16_t row;        /* row (depth) within the track */
	uint32_t group;
};

struct view_group {
	uint32_t first_track_order; /* index into order[] */
	int rank;                   /* rank position of its tracks, or -1 when they mix ranks */
	int32_t device;             /* GPU device of a one-rank GPU group (its utilization line), else -1 */
	uint32_t ntracks;
	bool collapsed;
	char title[96];
};

/* Several traces (one per rank) share the view: a view track id is the rank position
 * shifted left by VIEW_RANK_SHIFT, or'ed with the track's index in that rank's trace, so
 * that with one trace view ids are the trace's own. View time is rank 0's file time; rank
 * r's file time plus shift[r] is view time. */
#define VIEW_RANK_SHIFT 22
#define VIEW_MAX_RANKS 1000
#define VIEW_TRACK_MASK ((1u << VIEW_RANK_SHIFT) - 1)

struct view {
	struct trace *t;             /* rank 0's trace */
	struct trace *const *ts;     /* every rank's trace */
	int nts;
	int64_t *shift;              /* by rank position */
	int64_t start, end;          /* the span of every rank, in view time */
	enum align_mode align;
	int64_t *manual;             /* manual mode: each rank's offset */
	bool by_role;                /* layout: by role (else by rank) */
	struct gap_report *rank_gaps;    /* each rank's gaps, by rank position, in its own file time */
	struct gap **rank_gaps_by_device; /* each rank's gaps by device, then start, in its own file time */
	uint32_t **rank_devices;     /* each rank's rank_gaps[r].devices positions, by device number */
	struct rank_report rr;       /* several ranks: the comparison under the alignment in force */
	int64_t align_ref;           /* rank 0's aligned time of its file time 0 */
	int *dist_order;             /* rank positions, the straggler first */
	bool dist;                   /* the distributed view has the keyboard */
	int dist_sel, dist_top;      /* its selected and first shown row */
	int w, h;                    /* screen size */
	int64_t t0, t1;              /* visible window [t0, t1) */
	int64_t cursor;              /* the time cursor */
	int top;                     /* first visible line */
	int sel_line;                /* selected line */
	struct slice_ref sel;        /* selected slice, or {TT_NONE} */
	bool has_mark;
	int64_t mark0, mark1;
	bool ranging;                /* a range selection is being made from range_anchor */
	int64_t range_anchor;
	/* search */
	bool typing;                 /* the search prompt has the keyboard */
	char query[128];
	struct slice_ref *matches;   /* in time order */
	uint32_t nmatches, match;    /* match is 1-based; 0 = none current */
	uint8_t **name_matches;      /* by rank, by string id: 1 when the name matches the query */
	bool help;
	bool quit;
	bool abs_time;               /* the header shows absolute times */
	int64_t drag_from;           /* time where a mouse press began, when dragging */
	bool dragging;
	/* gaps (src/gaps.h), computed when the view opens */
	int64_t gap_min;
	struct gap *nav;             /* every rank's gaps, longest first, in view time and view ids */
	uint32_t nnav;
	struct gap *gaps_by_time;    /* the same gaps in time order */
	uint32_t gap_at;             /* 1-based position in gaps_by_time of the last gap visited */
	uint32_t gap_rank;           /* 1-based position in gaps (longest first) of the last gap visited */
	bool gap_list;               /* the gap list has the keyboard */
	bool gap_list_by_time;
	int gap_filter;              /* -1: every cause, else only this enum gap_cause */
	int32_t gap_device;          /* INT32_MIN: every device, else only this one */
	bool gap_shown;              /* gap_cur was visited and its CPU slice is the selection */
	struct gap gap_cur;
	int gap_sel, gap_top;        /* selected and first shown entry of the list */
	struct slice_ref args_for;   /* the slice whose args args_text holds */
	char *args_text;             /* escaped, one line */
	char status[256];
	/* layout */
	uint32_t *order;             /* tracks in display order */
	struct view_group *groups;
	uint32_t ngroups;
	struct view_line *lines;
	uint32_t nlines;
	struct binding bindings[128];
};

/* Sets up a view of the N traces TS (one per rank; N >= 1) at size W x H showing them
 * whole, aligned by ALIGN when N > 1. Free with view_free. */
void view_init(struct view *v, struct trace *const *ts, int n, enum align_mode align, int w, int h);
void view_free(struct view *v);
/* The key table in force (defaults, or as remapped by view_load_keymap). */
enum action view_action_for(const struct view *v, int key);
/* Handles one key: an action through the key table, or text for the search prompt. */
void view_key(struct view *v, int key);
/* Applies one action. */
void view_act(struct view *v, enum action a);
/* The new screen size. */
void view_resize(struct view *v, int w, int h);
/* Reads "KEY ACTION" lines from PATH into the key table. Returns 0, or -1 with *cause. */
int view_load_keymap(struct view *v, const char *path, char **cause);
/* Parses a key script ("wwd/aten<Enter>n<S-Enter>q") into *KEYS (allocated). Returns the
 * count, or -1 with *cause for an unknown <Name>. */
int view_parse_keys(const char *script, int **keys, char **cause);

/* Rows of the distributed view: the ranks (straggler first), then the collectives. */
int view_dist_rows(const struct view *v);

/* The K-th gap of the gap list as shown (order and filter in force) in *OUT, or NULL;
 * returns how many the list shows. */
uint32_t view_gap_list(const struct view *v, uint32_t k, const struct gap **out);
/* The time at the start of timeline column X. */
int64_t view_col_time(const struct view *v, int x);

/* The trace, the track and the view-time shift of view track id ID. */
static inline struct trace *view_trace_of(const struct view *v, uint32_t id) { return v->ts[id >> VIEW_RANK_SHIFT]; }
static inline struct track *view_track(const struct view *v, uint32_t id)
{
	return &v->ts[id >> VIEW_RANK_SHIFT]->tracks[id & VIEW_TRACK_MASK];
}
static inline int64_t view_shift_of(const struct view *v, uint32_t id) { return v->shift[id >> VIEW_RANK_SHIFT]; }
static inline int view_rank_of(uint32_t id) { return (int)(id >> VIEW_RANK_SHIFT); }
/* The rank number to show for rank position R (distributedInfo, the file name, or R). */
static inline int view_rank_label(const struct view *v, int r)
{
	return v->nts > 1 ? v->rr.ranks[r].rank : v->ts[r]->rank >= 0 ? v->ts[r]->rank : r;
}
static inline uint32_t view_id(int rank, uint32_t track) { return (uint32_t)rank << VIEW_RANK_SHIFT | track; }

/* Layout helpers shared with the renderer. */
int view_track_col_width(const struct view *v);  /* width of the track column */
int view_timeline_x(const struct view *v);       /* first column of the timeline */
int view_timeline_w(const struct view *v);       /* columns of the timeline */
int view_area_y(const struct view *v);           /* first line of the track area */
int view_area_h(const struct view *v);           /* lines of the track area */
int view_details_h(const struct view *v);        /* lines of the details panel */

#endif
