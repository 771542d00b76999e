/* table_panel.h: the one panel that shows a table (ui/table.h).
 *
 * It gives every table view selection, scrolling, sort by any column (sort-next cycles
 * the column, sort-reverse flips the order), a filter by text (/), Enter calling back into
 * the owner (to jump to the timeline), and a detail line for the selected row that shows
 * whole what the columns had to cut. The owner (a view file such as ui/gap_list.c) fills
 * the table, names the panel and may take actions of its own (the gap list's cause
 * filter); after changing the table it calls table_panel_refresh. An owner may also draw
 * a header of its own between the title and the column titles (the Memory view's curve
 * and peaks).
 *
 * A table whose rows form a tree (table_panel_set_tree) is shown as one that folds: the
 * first column indented by depth behind a mark (expanded, collapsed, none for a leaf), the
 * tree keys expanding and collapsing rows, a sort ordering siblings under their parent,
 * and a filter keeping the rows that match with their ancestors, expanded to show them
 * (the rows expanded before the filter come back when it is cleared). */
#ifndef TT_TABLE_PANEL_H
#define TT_TABLE_PANEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ui/panel.h"
#include "ui/table.h"
#include "ui/table_tree.h"

struct table_panel;

struct table_owner {
	const char *name; /* the panel's name (ui/panels.c) */
	/* The title line: what the table shows ("13 gaps of 100 us or more"). */
	void (*title)(struct table_panel *tp, struct app *app, char *buf, size_t n);
	/* Enter on the row tagged TAG; the owner usually closes the panel and jumps. */
	void (*jump)(struct table_panel *tp, struct app *app, uint64_t tag);
	/* An action of the owner's own; returns whether it took it. May be NULL. */
	bool (*act)(struct table_panel *tp, struct app *app, enum action a);
	/* Called before each frame: the owner may rebuild a table that went stale. May be NULL. */
	void (*update)(struct table_panel *tp, struct app *app);
	/* Lines the owner draws between the title and the column headings (a summary, a
	 * curve) in a panel H lines high; the table keeps at least three rows. May be NULL. */
	int (*header_rows)(struct table_panel *tp, struct app *app, int h);
	/* Draws those lines into R of G. May be NULL when header_rows is. */
	void (*header)(struct table_panel *tp, struct app *app, struct grid *g, struct rect r,
	               const struct render_opts *o);
	/* A tint for the row tagged TAG (0: none). May be NULL. */
	uint8_t (*row_color)(struct table_panel *tp, struct app *app, uint64_t tag);
	/* Frees the owner's state (and the table when it owns it). */
	void (*free)(struct table_panel *tp);
};

struct table_panel {
	struct panel base;
	struct panel_ops ops; /* the table panel's, named after the owner */
	struct table *t;
	uint64_t cols;  /* the columns shown (of those table_col_shown allows); TABLE_ALL at first */
	uint64_t empty; /* the columns empty in every row (table_cols_empty): not shown */
	const struct table_owner *own;
	void *owner;
	uint32_t *rows; /* the rows shown: filtered, then sorted */
	uint32_t nrows;
	int sort_col; /* -1: the table's own order */
	bool desc;
	char filter[128];
	int sel, top;            /* positions in rows */
	int hscroll;             /* shown columns after the first that are scrolled off to the left */
	int *colw;               /* column widths for the rows shown, laid out for colw_for columns */
	int colw_for;            /* -1: stale (rows, columns or values changed) */
	int colw_hscroll;        /* the hscroll colw was laid out for */
	bool more_right;         /* the last frame had columns past the right edge */
	int hdr;                 /* lines of the owner's header (header_rows), laid out with the panel */
	struct table_tree *tree; /* the rows as a tree that folds; NULL: a flat table */
	char tree_filter[128];   /* the filter the tree's rows were last expanded for */
};

/* A panel over table T (the owner keeps it alive), in T's own order. */
struct panel *table_panel_new(struct table *t, const struct table_owner *own, void *owner);
/* Applies the filter and the sort again after T changed; keeps the selection on the same
 * tag when it is still shown. */
void table_panel_refresh(struct table_panel *tp);
/* Sorts by column COL (-1: the table's own order), descending when DESC. */
void table_panel_sort(struct table_panel *tp, int col, bool desc);
/* Shows T's rows as a tree: PARENT[r] is row r's parent (TABLE_TREE_ROOT for a root; a
 * parent after its row is taken as that), copied; NULL makes the table flat again. The
 * roots are expanded, then each next depth while at most OPEN_ROWS rows show. Applies the
 * filter and sort again (table_panel_refresh). */
void table_panel_set_tree(struct table_panel *tp, const uint32_t *parent, uint32_t open_rows);
/* Selects the row shown tagged TAG (the panel scrolls to it when drawn); false when no
 * such row is shown. */
bool table_panel_select_tag(struct table_panel *tp, uint64_t tag);
/* The tag of the selected row; false when the table shows no row. */
bool table_panel_selected(const struct table_panel *tp, uint64_t *tag);

#endif
