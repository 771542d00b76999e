/* advice_view.h: the advice panel (!): the findings of src/advice.h, worst first, each with
 * its instances to walk in the timeline; and the hint the timeline's status line gives at
 * start when a finding is serious. */
#ifndef TT_ADVICE_VIEW_H
#define TT_ADVICE_VIEW_H

#include "ui/panel.h"

/* The least score (share of step time) of a finding the start-up hint names. */
#define ADVICE_HINT_SCORE 0.10

/* Opens the panel over what the timeline shows (one trace, or the set of ranks). */
struct panel *advice_view_open(struct app *app);
/* When the worst finding scores ADVICE_HINT_SCORE or more with medium or high
 * confidence, says so in the status line (not a modal: the timeline stays usable). */
void advice_hint(struct app *app);

#endif
