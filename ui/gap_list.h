/* gap_list.h: the gap list: every GPU gap as a table, on screen and in --report=gaps.
 *
 * One definition of the gap table serves both: gap_table_columns and gap_table_add fill
 * it, the panel (gap_list_open) shows it over the timeline, and the report writes it as
 * text or JSON (ui/table.h). */
#ifndef TT_GAP_LIST_H
#define TT_GAP_LIST_H

#include <stdbool.h>
#include <stdint.h>

#include "src/gaps.h"
#include "ui/panel.h"
#include "ui/table.h"

#define GAP_TABLE_MAX_COLS 28

/* Fills COLS with the gap table's columns (a rank column when RANKS); returns how many.
 * The same columns hold device gaps (every stream idle) and per-stream gaps: each list
 * writes its own set of them (gap_table_device_cols, gap_table_stream_cols). */
int gap_table_columns(struct column *cols, bool ranks);
/* The columns of a device gap list, and of a per-stream gap list, of table TB. */
uint64_t gap_table_device_cols(const struct table *tb);
uint64_t gap_table_stream_cols(const struct table *tb);
/* Appends gap G of trace T as a row tagged TAG: CPU and NEXT are the slices of T behind
 * and after it (or {TT_NONE}), N its position by length (1: the longest), RANK the rank to
 * show (when the table has the column). Times are T's (file or view time): set the table's
 * origin to show them from the trace's start. */
void gap_table_add(struct table *tb, const struct gap *g, const struct trace *t, struct slice_ref cpu,
                   struct slice_ref next, uint32_t n, int rank, uint64_t tag);

/* The gap list panel over APP's timeline. */
struct panel *gap_list_open(struct app *app);

#endif
