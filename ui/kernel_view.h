/* kernel_view.h: the Kernels view: every kernel of a trace as a table (src/kernels.h), on
 * screen (K) and as --report=kernels. */
#ifndef TT_KERNEL_VIEW_H
#define TT_KERNEL_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "src/kernels.h"
#include "ui/panel.h"
#include "ui/report.h"
#include "ui/table.h"

#define KERNEL_TABLE_COLS 22

/* Fills COLS with the kernel table's columns; returns how many. */
int kernel_view_columns(struct column *cols);
/* Fills TB (initialised with those columns) from T's kernel report R, a row per kernel
 * tagged with its position in R; names folded (kernel_short_name) when SHORT_NAMES. */
void kernel_view_fill(struct table *tb, const struct trace *t, const struct kernel_report *r, bool short_names);

/* --report=kernels (ui/report.h), grouped by G (--group-by=name|shape|operator). */
const struct table_report *kernel_view_report(enum kernel_group g);
/* The grouping --group-by NAME names ("name", "shape", "operator"), or -1. */
int kernel_group_of(const char *name);

/* The Kernels view over APP's first trace; NULL (saying why) when it has no kernel. */
struct panel *kernel_view_open(struct app *app);

#endif
