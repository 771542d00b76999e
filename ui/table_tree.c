/* table_tree.c: a table's rows as a tree that folds (see table_tree.h).
 *
 * The rows shown are rebuilt whole on each change, in O(n log n) for a sort and O(n)
 * otherwise: the kept rows with their ancestors, (sorted), bucketed under their parents
 * in that order, then walked depth first from the roots, entering expanded rows only. */
#include "ui/table_tree.h"

#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"

void table_tree_init(struct table_tree *tt, const uint32_t *parent, uint32_t n)
{
	size_t cells = n ? n : 1;
	memset(tt, 0, sizeof *tt);
	tt->n = n;
	tt->parent = xmalloc(cells * sizeof *tt->parent);
	tt->depth = xmalloc(cells * sizeof *tt->depth);
	tt->open = xcalloc(cells, 1);
	tt->branch = xcalloc(cells, 1);
	for (uint32_t r = 0; r < n; r++) {
		uint32_t p = parent[r] < r ? parent[r] : TABLE_TREE_ROOT;
		tt->parent[r] = p;
		tt->depth[r] = p == TABLE_TREE_ROOT ? 0 : tt->depth[p] + 1;
		if (p != TABLE_TREE_ROOT)
			tt->branch[p] = 1;
	}
}

void table_tree_free(struct table_tree *tt)
{
	free(tt->parent);
	free(tt->depth);
	free(tt->open);
	free(tt->branch);
	free(tt->saved);
	memset(tt, 0, sizeof *tt);
}

void table_tree_open_levels(struct table_tree *tt, uint32_t max_rows)
{
	/* rows at each depth: with the depths above D all expanded, the rows shown are those
	 * of depth D + 1 and less */
	uint32_t maxd = 0;
	for (uint32_t r = 0; r < tt->n; r++)
		if (tt->depth[r] > maxd)
			maxd = tt->depth[r];
	uint32_t *at = xcalloc((size_t)maxd + 2, sizeof *at);
	for (uint32_t r = 0; r < tt->n; r++)
		at[tt->depth[r]]++;
	uint32_t open_to = 0, shown = at[0] + at[1];
	while (open_to + 1 <= maxd && shown + at[open_to + 2] <= max_rows)
		shown += at[++open_to + 1];
	for (uint32_t r = 0; r < tt->n; r++)
		tt->open[r] = tt->depth[r] <= open_to;
	free(at);
}

void table_tree_open_below(struct table_tree *tt, uint32_t row)
{
	if (row >= tt->n)
		return;
	/* a parent comes before its children: one pass down from ROW finds them all */
	uint8_t *below = xcalloc(tt->n, 1);
	below[row] = 1;
	tt->open[row] = 1;
	for (uint32_t r = row + 1; r < tt->n; r++)
		if (tt->parent[r] != TABLE_TREE_ROOT && below[tt->parent[r]])
			below[r] = tt->open[r] = 1;
	free(below);
}

void table_tree_close_all(struct table_tree *tt)
{
	if (tt->n > 0)
		memset(tt->open, 0, tt->n);
}

void table_tree_reveal(struct table_tree *tt, uint32_t row)
{
	if (row >= tt->n)
		return;
	for (uint32_t p = tt->parent[row]; p != TABLE_TREE_ROOT && !tt->open[p]; p = tt->parent[p])
		tt->open[p] = 1;
}

uint32_t table_tree_rows(struct table_tree *tt, const struct table *t, const uint32_t *keep, uint32_t nkeep, int col,
                         bool desc, uint32_t *out)
{
	uint32_t n = tt->n;
	if (n == 0)
		return 0;
	uint8_t *kept = xcalloc(n, 1);
	uint32_t *list = xmalloc(n * sizeof *list), nl = 0;
	if (keep == NULL) {
		memset(kept, 1, n);
	} else {
		for (uint32_t k = 0; k < nkeep; k++)
			for (uint32_t r = keep[k]; r < n && !kept[r]; r = tt->parent[r])
				kept[r] = 1;
	}
	memset(tt->branch, 0, n);
	for (uint32_t r = 0; r < n; r++)
		if (kept[r]) {
			list[nl++] = r;
			if (tt->parent[r] != TABLE_TREE_ROOT)
				tt->branch[tt->parent[r]] = 1;
		}
	if (col >= 0 && col < t->ncols)
		table_sort(t, list, nl, col, desc);

	/* the children of each row, and the roots (under row N), in LIST's order */
	uint32_t *first = xcalloc((size_t)n + 2, sizeof *first), *kids = xmalloc(n * sizeof *kids);
	for (uint32_t k = 0; k < nl; k++) {
		uint32_t p = tt->parent[list[k]];
		first[(p == TABLE_TREE_ROOT ? n : p) + 1]++;
	}
	for (uint32_t i = 1; i < n + 2; i++)
		first[i] += first[i - 1];
	uint32_t *fill = xmalloc(((size_t)n + 1) * sizeof *fill);
	memcpy(fill, first, ((size_t)n + 1) * sizeof *fill);
	for (uint32_t k = 0; k < nl; k++) {
		uint32_t p = tt->parent[list[k]];
		kids[fill[p == TABLE_TREE_ROOT ? n : p]++] = list[k];
	}

	/* depth first: a stack of rows still to write, the next sibling on top */
	uint32_t *stack = list, sp = 0, nout = 0; /* LIST is spent: each row is pushed once */
	for (uint32_t i = first[n + 1]; i > first[n]; i--)
		stack[sp++] = kids[i - 1];
	while (sp > 0) {
		uint32_t r = stack[--sp];
		out[nout++] = r;
		if (tt->open[r])
			for (uint32_t i = first[r + 1]; i > first[r]; i--)
				stack[sp++] = kids[i - 1];
	}
	free(fill);
	free(first);
	free(kids);
	free(list);
	free(kept);
	return nout;
}

int table_tree_shown_at(const struct table_tree *tt, const uint32_t *shown, uint32_t n, uint32_t row)
{
	for (uint32_t r = row; r < tt->n; r = tt->parent[r])
		for (uint32_t k = 0; k < n; k++)
			if (shown[k] == r)
				return (int)k;
	return -1;
}
