/* memory_view.h: the Memory view: each device's allocated and reserved memory over time
 * (a curve over the timeline's window), its peaks, fragmentation and memory at each step
 * start, and the operators by bytes allocated (src/memory.h); on screen (U) and as
 * --report=memory. */
#ifndef TT_MEMORY_VIEW_H
#define TT_MEMORY_VIEW_H

#include "src/memory.h"
#include "ui/panel.h"
#include "ui/report.h"
#include "ui/table.h"

#define MEMORY_TABLE_COLS 11

/* Fills COLS with the memory table's columns; returns how many. */
int memory_view_columns(struct column *cols);
/* Fills TB (initialised with those columns) from T's memory report R, a row per device and
 * operator name tagged with its position in R->rows. */
void memory_view_fill(struct table *tb, const struct trace *t, const struct memory_report *r);

/* --report=memory (ui/report.h). */
extern const struct table_report memory_table_report;

/* The Memory view over APP's first trace; NULL (saying why) when it has no [memory] event. */
struct panel *memory_view_open(struct app *app);

#endif
