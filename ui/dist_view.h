/* dist_view.h: the distributed view: each rank's figures (the straggler first), then each
 * collective, as one table, on screen and in --report=distributed.
 *
 * dist_table_columns and dist_table_fill define the table; the report writes its rank rows
 * and its collective rows (ui/table.h); the panel (dist_view_open) shows them all. */
#ifndef TT_DIST_VIEW_H
#define TT_DIST_VIEW_H

#include "src/ranks.h"
#include "ui/panel.h"
#include "ui/table.h"

#define DIST_TABLE_COLS 23

/* Fills COLS with the distributed table's columns; returns how many. */
int dist_table_columns(struct column *cols);
/* The columns of a rank's row, and of a collective's row, of table TB. */
uint64_t dist_table_rank_cols(const struct table *tb);
uint64_t dist_table_coll_cols(const struct table *tb);
/* Sets TB up as the table of each collective's part on each rank (free with table_free). */
void dist_per_rank_init(struct table *tb);
/* Fills TB from RR: a row per rank in ORDER (rank positions, NTS of them), tagged with its
 * position; then a row per collective, tagged NTS + its index in RR's collectives. With
 * PER_RANK (set up by dist_per_rank_init), each collective's part on every rank goes
 * there too (JSON's per_rank), else that column stays empty. */
void dist_table_fill(struct table *tb, struct table *per_rank, const struct rank_report *rr, const int *order, int nts);

/* The distributed view over APP's timeline; NULL (saying why) for one trace. */
struct panel *dist_view_open(struct app *app);

#endif
