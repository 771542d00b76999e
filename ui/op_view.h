/* op_view.h: the Operators view: a trace's operators with their CPU and device times
 * (src/ops.h) grouped by name, by name and input shapes, by name and source location, or
 * as a call tree, on screen (O; g changes the grouping; the tree folds, ui/table_tree.h)
 * and as --report=operators [--group-by=name|shape|source|tree]. */
#ifndef TT_OP_VIEW_H
#define TT_OP_VIEW_H

#include "src/memory.h"
#include "src/ops.h"
#include "ui/panel.h"
#include "ui/report.h"
#include "ui/table.h"

#define OP_TABLE_COLS 17

/* Fills COLS with the operator table's columns; returns how many. */
int op_view_columns(struct column *cols);
/* Fills TB (initialised with those columns) from T's operator report R, a row per row of R
 * tagged with its position there (the name indented by depth in the tree mode, as the text
 * report writes it; the panel draws its tree itself); by name, with the
 * device memory each name allocated from MEM, T's memory report (NULL or without samples:
 * none). */
void op_view_fill(struct table *tb, const struct trace *t, const struct op_report *r, const struct memory_report *mem);

/* T's operators grouped by G, from the trace's cache (src/analysis.h; the keys of shapes
 * and sources read from args by parsers/op_args.h on the first call). */
const struct op_report *op_view_report_of(struct trace *t, enum op_group g);
/* --report=operators --group-by=G (ui/report.h). */
const struct table_report *op_view_report(enum op_group g);

/* The Operators view over APP's first trace; NULL (saying why) when it has no operator. */
struct panel *op_view_open(struct app *app);

#endif
