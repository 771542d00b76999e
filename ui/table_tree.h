/* table_tree.h: the rows of a table that form a tree (the Operators view's call tree), as
 * the table panel shows them: which rows are expanded, and the list of rows shown.
 *
 * The tree is given by each row's parent, a row before it (so that a bad parent cannot
 * make a cycle: one that is not before its child makes the child a root). The rows shown
 * are depth first: the roots, then under each expanded row its children, siblings in the
 * table's own order or sorted by a column. A filter keeps the rows that match and their
 * ancestors; the others are not shown, nor counted as children. The expanded state
 * belongs to the viewer alone: the table and its reports are untouched. */
#ifndef TT_TABLE_TREE_H
#define TT_TABLE_TREE_H

#include <stdbool.h>
#include <stdint.h>

#include "ui/table.h"

/* The parent of a root. */
#define TABLE_TREE_ROOT UINT32_MAX
/* Depths drawn: deeper rows are indented as this one. */
#define TABLE_TREE_MAX_INDENT 40

struct table_tree {
	uint32_t n;       /* the table's rows */
	uint32_t *parent; /* by row: its parent (before it), or TABLE_TREE_ROOT */
	uint32_t *depth;  /* by row: 0 at a root */
	uint8_t *open;    /* by row: expanded */
	uint8_t *branch;  /* by row: has a child among the rows the last table_tree_rows kept */
	uint8_t *saved;   /* the expanded state before a filter, restored after it; NULL when none */
};

/* Sets TT up over N rows whose parents are PARENT[N] (copied; a parent that is not before
 * its row is taken as TABLE_TREE_ROOT), every row collapsed. */
void table_tree_init(struct table_tree *tt, const uint32_t *parent, uint32_t n);
void table_tree_free(struct table_tree *tt);

/* Expands the roots, then the rows of each next depth while at most MAX_ROWS rows would be
 * shown (the roots are expanded however many rows that shows); the rest is collapsed. */
void table_tree_open_levels(struct table_tree *tt, uint32_t max_rows);
/* Expands ROW and every row below it. */
void table_tree_open_below(struct table_tree *tt, uint32_t row);
/* Collapses every row. */
void table_tree_close_all(struct table_tree *tt);
/* Expands ROW's ancestors, so that ROW is shown when it is kept. */
void table_tree_reveal(struct table_tree *tt, uint32_t row);

/* Writes into OUT (room for TT->n) the rows shown, in order, and returns their count:
 * those of KEEP (NKEEP rows, any order; NULL: every row) and their ancestors, under
 * expanded rows only, siblings in the table's order or, when COL >= 0, sorted by column
 * COL of T (descending when DESC, ties in the table's order). Sets TT->branch. */
uint32_t table_tree_rows(struct table_tree *tt, const struct table *t, const uint32_t *keep, uint32_t nkeep, int col,
                         bool desc, uint32_t *out);
/* The nearest of ROW and its ancestors that is among the N rows SHOWN (as
 * table_tree_rows wrote them); its position there, or -1 when none is. */
int table_tree_shown_at(const struct table_tree *tt, const uint32_t *shown, uint32_t n, uint32_t row);

#endif
