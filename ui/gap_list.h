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

#define GAP_TABLE_MAX_COLS 10

/* Fills COLS with the gap table's columns (a rank column when RANKS); returns how many. */
int gap_table_columns(struct column *cols, bool ranks);
/* Appends gap G, of the trace T that CPU (a slice of T, or {TT_NONE}) belongs to, as a row
 * tagged TAG: N is its position by length (1: the longest), RANK the rank to show (when
 * the table has the column), times from ORIGIN (view or file time). */
void gap_table_add(struct table *tb, const struct gap *g, const struct trace *t, struct slice_ref cpu, uint32_t n,
                   int rank, int64_t origin, uint64_t tag);

/* The gap list panel over APP's timeline. */
struct panel *gap_list_open(struct app *app);

#endif
