/* diff_view.h: `ttrace diff` inside the timeline: B (the rank in focus, else the second
 * trace) against A (the first), per step, as one table panel (ui/diff_report.h words it);
 * Enter on an operator or kernel selects its longest call in B. */
#ifndef TT_DIFF_VIEW_H
#define TT_DIFF_VIEW_H

#include "ui/panel.h"

/* The Diff panel over APP's timeline, or NULL (saying why) with fewer than two traces. */
struct panel *diff_view_open(struct app *app);

#endif
