/* op_view.h: the Operators view: every operator name of a trace with its CPU and device
 * times (src/ops.h) as a table, on screen (O) and as --report=operators. */
#ifndef TT_OP_VIEW_H
#define TT_OP_VIEW_H

#include "src/ops.h"
#include "ui/panel.h"
#include "ui/report.h"
#include "ui/table.h"

#define OP_TABLE_COLS 10

/* Fills COLS with the operator table's columns; returns how many. */
int op_view_columns(struct column *cols);
/* Fills TB (initialised with those columns) from T's operator report R, a row per name
 * tagged with its position in R. */
void op_view_fill(struct table *tb, const struct trace *t, const struct op_report *r);

/* --report=operators (ui/report.h). */
extern const struct table_report operators_report;

/* The Operators view over APP's first trace; NULL (saying why) when it has no operator. */
struct panel *op_view_open(struct app *app);

#endif
