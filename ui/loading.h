/* loading.h: the timeline while its traces load.
 *
 * ttrace opens the timeline as soon as the loader has a first snapshot of a big file
 * (parsers/load.h), then swaps in each newer snapshot and finally the whole trace, while
 * the keys work throughout. The header says how much is read ("LOADING 37%"). A snapshot
 * shows slices, flows and steps read so far: what it shows is in the trace, at its place,
 * but incomplete. What would be wrong on part of a trace waits for the whole: the gaps,
 * the utilization lines, the counter tracks, the advice and the views over analyses.
 *
 * Several files (the ranks of a job) show the first alone while the others load: its
 * snapshots, then its whole trace, then every rank that loaded, aligned. The first rank
 * is the alignment's reference (src/ranks.h: its shift is 0), so its place in time does
 * not move when the others come; an alignment of part of the ranks could be wrong, and
 * the other ranks wait for it. The views and the advice wait for every file. */
#ifndef TT_LOADING_H
#define TT_LOADING_H

#include <stdbool.h>

#include "parsers/load.h"
#include "ui/app.h"

/* The app (made over FIRST, the first file's snapshot or its whole trace) goes on loading
 * S: the app owns S, and FIRST when it is a snapshot, until loading_end. */
void loading_begin(struct app *app, struct load_session *s, struct trace *first);
/* Reads the load's progress into the timeline's header; true when the figure changed. */
bool loading_update(struct app *app);
/* Looks at the load: swaps in a newer snapshot, the first file's whole trace, or every
 * file's once the load ended; updates the progress. True when the screen must be drawn
 * again. A load whose files all failed sets app->quit. */
bool loading_poll(struct app *app);
/* While the load runs, says in the status line that the view named VIEW_NAME opens once
 * everything has loaded, and returns true. */
bool loading_blocks(struct app *app, const char *view_name);
/* Replaces each trace of the app that was read from a cache cut while mapped
 * (trace_cache_lost) by a parse of its file, closes the views over it and says so in the
 * status line; the timeline keeps its window. The parses are the app's. True when any was
 * replaced. */
bool loading_recover(struct app *app);
/* After the main loop, before app_free: every file's trace goes to OUT[0..n) (n the files
 * of the load), the caller's. Returns true when the load had ended; false when it still
 * ran and was given up: the caller frees those traces after app_free (the app may show the
 * first). */
bool loading_end(struct app *app, struct trace **out);

#endif
