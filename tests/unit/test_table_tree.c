/* test_table_tree.c: a table's rows as a tree that folds: parents checked, the levels
 * opened first, the rows shown under expanded rows, siblings sorted under their parent, a
 * filter keeping ancestors, and the nearest ancestor shown of a folded row. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ui/table_tree.h"
#include "tests/unit/tap.h"

static const struct column cols[] = {
	{ "name", "name", COL_TEXT, 1, 0 },
	{ "dur_ns", "duration", COL_DUR, 0, 0 },
};

#define R TABLE_TREE_ROOT

/* The rows shown, as "0 4 5" (a static buffer). */
static const char *shown(struct table_tree *tt, const struct table *t, const uint32_t *keep, uint32_t nkeep, int col,
                         bool desc)
{
	static char buf[512];
	uint32_t out[64];
	uint32_t n = table_tree_rows(tt, t, keep, nkeep, col, desc, out);
	size_t k = 0;
	buf[0] = '\0';
	for (uint32_t i = 0; i < n && k < sizeof buf - 12; i++)
		k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%u", i ? " " : "", out[i]);
	return buf;
}

int main(void)
{
	/* A(50) > b(10) > x(5), A > c(30); B(70) > d(1); C(20); a row whose parent comes after
	 * it and one that is its own parent: both roots */
	static const char *names[] = { "A", "b", "x", "c", "B", "d", "C", "late", "self" };
	static const int64_t durs[] = { 50, 10, 5, 30, 70, 1, 20, 0, 0 };
	static const uint32_t parent[] = { R, 0, 1, 0, R, 4, R, 8, 8 };
	struct table t;
	struct table_tree tt;
	table_init(&t, cols, 2);
	for (uint32_t r = 0; r < 9; r++) {
		table_add_row(&t, r);
		table_set_str(&t, r, 0, names[r]);
		if (r < 7)
			table_set_int(&t, r, 1, durs[r]);
	}
	table_tree_init(&tt, parent, 9);
	is_int(tt.parent[7], R, "a parent after its row makes the row a root");
	is_int(tt.parent[8], R, "so does a row that is its own parent");
	is_int(tt.depth[2], 2, "depth from the parents");
	is_str(shown(&tt, &t, NULL, 0, -1, false), "0 4 6 7 8", "all collapsed: the roots");
	ok(tt.branch[0] && tt.branch[1] && !tt.branch[2] && !tt.branch[6], "branch: rows with children");

	table_tree_open_levels(&tt, 5);
	is_str(shown(&tt, &t, NULL, 0, -1, false), "0 1 3 4 5 6 7 8",
	       "the roots are expanded first, however many rows that shows");
	table_tree_open_levels(&tt, 9);
	is_str(shown(&tt, &t, NULL, 0, -1, false), "0 1 2 3 4 5 6 7 8", "then the next depth while it fits");

	is_str(shown(&tt, &t, NULL, 0, 1, true), "4 5 0 3 1 2 6 7 8",
	       "sorted by duration: roots, then each row's children, largest first (nulls last)");
	is_str(shown(&tt, &t, NULL, 0, 1, false), "6 0 1 2 3 4 5 7 8", "smallest first");
	is_str(shown(&tt, &t, NULL, 0, 0, false), "0 1 2 3 4 5 6 7 8", "by name: A B C late self, b before c");

	tt.open[0] = 0;
	is_str(shown(&tt, &t, NULL, 0, -1, false), "0 4 5 6 7 8", "a collapsed row hides everything below it");
	uint32_t out[16];
	uint32_t n = table_tree_rows(&tt, &t, NULL, 0, -1, false, out);
	is_int(table_tree_shown_at(&tt, out, n, 2), 0, "a folded row's nearest ancestor shown");
	is_int(table_tree_shown_at(&tt, out, n, 5), 2, "a row shown is its own");

	table_tree_close_all(&tt);
	uint32_t keep[] = { 2 };
	is_str(shown(&tt, &t, keep, 1, -1, false), "0", "a filter keeps the ancestors, under collapsed rows still");
	ok(tt.branch[0] && tt.branch[1] && !tt.branch[4], "branch: a child kept by the filter, no more");
	table_tree_reveal(&tt, 2);
	is_str(shown(&tt, &t, keep, 1, -1, false), "0 1 2", "revealed: the match and its ancestors, no other row");
	uint32_t keep2[] = { 5, 3 };
	table_tree_reveal(&tt, 5);
	is_str(shown(&tt, &t, keep2, 2, -1, false), "0 3 4 5", "two matches in any order");

	table_tree_close_all(&tt);
	table_tree_open_below(&tt, 0);
	is_str(shown(&tt, &t, NULL, 0, -1, false), "0 1 2 3 4 6 7 8", "expand below: that subtree only");
	table_tree_open_below(&tt, 99);
	table_tree_reveal(&tt, 99);
	is_str(shown(&tt, &t, NULL, 0, -1, false), "0 1 2 3 4 6 7 8", "rows past the end change nothing");
	table_tree_free(&tt);

	struct table_tree empty;
	table_tree_init(&empty, NULL, 0);
	table_tree_open_levels(&empty, 40);
	is_int(table_tree_rows(&empty, &t, NULL, 0, -1, false, out), 0, "no rows: none shown");
	table_tree_free(&empty);

	/* A random tree in depth-first order: fully expanded in its own order it comes back
	 * as it is; filtered, each match once, each row after its parent, nothing but matches
	 * and their ancestors. */
	enum { N = 2000 };
	static uint32_t par[N], stack[N], rows[N], pos[N];
	static uint8_t match[N], need[N];
	uint32_t sp = 0, seed = 12345;
	for (uint32_t r = 0; r < N; r++) {
		seed = seed * 1103515245u + 12345u;
		uint32_t up = (seed >> 16) % 3; /* 0: a child of the last row, else climb */
		while (sp > 0 && up-- > 0 && r > 0)
			sp--;
		par[r] = sp > 0 ? stack[sp - 1] : R;
		stack[sp++] = r;
	}
	table_tree_init(&tt, par, N);
	table_tree_open_below(&tt, 0);
	for (uint32_t r = 0; r < N; r++)
		tt.open[r] = 1;
	struct table big;
	table_init(&big, cols, 2);
	for (uint32_t r = 0; r < N; r++)
		table_add_row(&big, r);
	n = table_tree_rows(&tt, &big, NULL, 0, -1, false, rows);
	bool same = n == N;
	for (uint32_t k = 0; k < n && same; k++)
		same = rows[k] == k;
	ok(same, "fully expanded, in its own order: the table's order");
	uint32_t keepn = 0, *kp = malloc(N * sizeof *kp);
	for (uint32_t r = N; r-- > 0;)
		if (r % 37 == 5) {
			kp[keepn++] = r;
			match[r] = 1;
			for (uint32_t a = r; a != R && !need[a]; a = tt.parent[a])
				need[a] = 1;
		}
	n = table_tree_rows(&tt, &big, kp, keepn, 1, true, rows);
	bool good = true;
	uint32_t nneed = 0, nmatch = 0;
	for (uint32_t r = 0; r < N; r++)
		nneed += need[r];
	memset(pos, 0xff, sizeof pos);
	for (uint32_t k = 0; k < n; k++) {
		good = good && need[rows[k]] && pos[rows[k]] == UINT32_MAX;
		pos[rows[k]] = k;
		nmatch += match[rows[k]];
		if (tt.parent[rows[k]] != R)
			good = good && pos[tt.parent[rows[k]]] < k;
	}
	ok(good && n == nneed, "filtered: matches and ancestors only, each once, after its parent");
	is_int(nmatch, keepn, "every match shown");
	free(kp);
	table_tree_free(&tt);
	table_free(&big);
	table_free(&t);
	return done_testing();
}
