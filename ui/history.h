/* history.h: where the timeline has been: a place (the window, the cursor, the selection)
 * and the bounded history of places that back and forward walk, as a browser's does.
 *
 * Pure: nothing here knows the view or the terminal. ui/places.c takes a place before
 * each jump (a flow followed, a search, Enter in a list...), records it here when the
 * jump moved the timeline, and restores the places back and forward return. */
#ifndef TT_HISTORY_H
#define TT_HISTORY_H

#include <stdbool.h>
#include <stdint.h>

#include "src/gaps.h"
#include "src/model.h"

/* One place of the timeline: view times and view track ids (ui/view.h). */
struct view_pos {
	int64_t t0, t1; /* the window */
	int64_t cursor;
	struct slice_ref sel; /* the selected slice, or {TT_NONE} */
	int sel_line, top;    /* the selected line and the first one shown, by position */
	uint32_t line_track;  /* the selected line's track and row, to find it again after */
	uint16_t line_row;    /* the lines changed (a group folded, another layout) */
	bool gap_shown;       /* a gap was shown (the details give it), as of gaps_version */
	uint32_t gaps_version;
	struct gap gap;
};

/* Whether A and B show the same: window, cursor, selection and selected line. */
bool view_pos_same(const struct view_pos *a, const struct view_pos *b);

#define HISTORY_MAX 64

/* Places in time order: e[0, cur) lie back, e[cur + 1, n) forward; e[cur] is where the
 * user came back to, when cur < n; cur == n while the user is at a place the history
 * has not recorded (after a jump). Past HISTORY_MAX places, the oldest go. A zeroed
 * struct is an empty history. */
struct history {
	struct view_pos e[HISTORY_MAX];
	int n, cur;
};

/* Before a jump from NOW: NOW becomes the place back returns to first; the places
 * forward are forgotten. */
void history_record(struct history *h, const struct view_pos *now);
/* Back from NOW: false when nothing lies back; else *TO is the place before, and NOW is
 * kept as the place forward returns to. */
bool history_back(struct history *h, const struct view_pos *now, struct view_pos *to);
/* Forward from NOW (after going back): false when nothing lies forward; else *TO. */
bool history_forward(struct history *h, const struct view_pos *now, struct view_pos *to);
/* How many places lie back and forward. */
int history_back_count(const struct history *h);
int history_forward_count(const struct history *h);

#endif
