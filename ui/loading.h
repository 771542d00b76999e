/* loading.h: the timeline while its one trace loads.
 *
 * ttrace opens the timeline as soon as the loader has a first snapshot of a big file
 * (parsers/load.h), then swaps in each newer snapshot and finally the whole trace, while
 * the keys work throughout. The header says how much is read ("LOADING 37%"). A snapshot
 * shows slices, flows and steps read so far: what it shows is in the trace, at its place,
 * but incomplete. What would be wrong on part of a trace waits for the whole: the gaps,
 * the utilization lines, the counter tracks, the advice and the views over analyses. */
#ifndef TT_LOADING_H
#define TT_LOADING_H

#include <stdbool.h>

#include "parsers/load.h"
#include "ui/app.h"

/* The app (made over FIRST, the first snapshot, through app->own) goes on loading S: the
 * app owns FIRST and S until loading_end. */
void loading_begin(struct app *app, struct load_session *s, struct trace *first);
/* Reads the load's progress into the timeline's header; true when the figure changed. */
bool loading_update(struct app *app);
/* Looks at the load: swaps in a newer snapshot or the whole trace, updates the progress.
 * True when the screen must be drawn again. A load that failed at the end sets app->quit. */
bool loading_poll(struct app *app);
/* While a snapshot is shown, says in the status line that the view named VIEW_NAME opens
 * once the trace has loaded, and returns true. */
bool loading_blocks(struct app *app, const char *view_name);
/* After the main loop: gives up a load still running. Returns the trace the app showed
 * last (to free after app_free, unless it is *WHOLE); *WHOLE is the whole trace when the
 * load ended (failed, or loaded: then the one shown), NULL when it was given up. */
struct trace *loading_end(struct app *app, struct trace **whole);

#endif
