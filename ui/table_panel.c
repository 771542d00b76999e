/* table_panel.c: the table panel (see table_panel.h).
 *
 * Its rectangle is the timeline's track area: line 0 the title with the sort and filter in
 * force, then the owner's header lines if it has any, the column titles, the rows, and at
 * the bottom the detail line. A tree's first column is drawn after its lead: two columns
 * a level of indentation, then the mark and a space. */
#include "ui/table_panel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "ui/app.h"
#include "lib/escape.h"
#include "ui/prompt.h"
#include "ui/view.h"

/* The columns the panel may show: the owner's set less those empty in every row (device
 * time on a CPU-only trace says nothing). */
static uint64_t shown_set(const struct table_panel *tp) { return tp->cols & ~tp->empty; }

static int page_rows(const struct table_panel *tp)
{
	int n = tp->base.r.h - 3 - tp->hdr;
	return n > 1 ? n : 1;
}

/* The owner's header lines for the panel's height: what it asks, leaving three rows. */
static void layout_header(struct table_panel *tp, struct app *app)
{
	int want = tp->own->header_rows != NULL ? tp->own->header_rows(tp, app, tp->base.r.h) : 0;
	int room = tp->base.r.h - 6; /* the title, the column titles, three rows, the detail line */
	tp->hdr = want < 0 ? 0 : want > room ? (room > 0 ? room : 0) : want;
}

static void clamp(struct table_panel *tp)
{
	int page = page_rows(tp);
	if (tp->sel >= (int)tp->nrows)
		tp->sel = (int)tp->nrows - 1;
	if (tp->sel < 0)
		tp->sel = 0;
	if (tp->sel < tp->top)
		tp->top = tp->sel;
	if (tp->sel >= tp->top + page)
		tp->top = tp->sel - page + 1;
	if (tp->tree != NULL && tp->top > (int)tp->nrows - page)
		tp->top = (int)tp->nrows - page; /* rows folded away below: the page fills up again */
	if (tp->top < 0)
		tp->top = 0;
}

/* The columns before the value of the first column of table row ROW, in a column of W:
 * the indentation (less when W is short) and the mark; 0 in a flat table. *INDENT gets
 * the indentation alone. */
static int tree_lead(const struct table_panel *tp, uint32_t row, int w, int *indent)
{
	*indent = 0;
	if (tp->tree == NULL || row >= tp->tree->n || w < 3)
		return 0;
	uint32_t d = tp->tree->depth[row];
	int ind = 2 * (int)(d < TABLE_TREE_MAX_INDENT ? d : TABLE_TREE_MAX_INDENT);
	int most = w - 2 - 8 > 0 ? w - 2 - 8 : 0; /* eight columns of the name stay */
	*indent = ind < most ? ind : most;
	return *indent + 2;
}

/* The first shown column: the one that stays whatever is scrolled, and a tree's. */
static int first_col(const struct table_panel *tp)
{
	for (int c = 0; c < tp->t->ncols; c++)
		if (table_col_shown(tp->t, c, shown_set(tp)))
			return c;
	return -1;
}

/* The columns drawn: those shown, less the HSCROLL after the first shown (which stays, so
 * that a row keeps its name whatever is scrolled). */
static uint64_t visible_cols(const struct table_panel *tp)
{
	uint64_t vis = shown_set(tp);
	int seen = 0;
	for (int c = 0; c < tp->t->ncols && c < 64; c++) {
		if (!table_col_shown(tp->t, c, vis))
			continue;
		if (seen > 0 && seen <= tp->hscroll)
			vis &= ~((uint64_t)1 << c);
		seen++;
	}
	return vis;
}

static int shown_count(const struct table_panel *tp)
{
	int n = 0;
	for (int c = 0; c < tp->t->ncols; c++)
		n += table_col_shown(tp->t, c, shown_set(tp));
	return n;
}

bool table_panel_selected(const struct table_panel *tp, uint64_t *tag)
{
	if (tp->sel < 0 || (uint32_t)tp->sel >= tp->nrows)
		return false;
	*tag = tp->t->tag[tp->rows[tp->sel]];
	return true;
}

/* The tree's expanded rows for the filter in force, when it changed: a filter starts from
 * the rows expanded before it and expands the ancestors of what it matches; clearing it
 * brings those rows back, with the selected row's ancestors expanded so that it stays. */
static void tree_follow_filter(struct table_panel *tp, const uint32_t *match, uint32_t nmatch, bool had, uint32_t row)
{
	struct table_tree *tt = tp->tree;
	if (strcmp(tp->filter, tp->tree_filter) == 0)
		return;
	snprintf(tp->tree_filter, sizeof tp->tree_filter, "%s", tp->filter);
	if (tp->filter[0] && tt->saved == NULL) {
		tt->saved = xmalloc(tt->n ? tt->n : 1);
		memcpy(tt->saved, tt->open, tt->n);
	}
	if (tt->saved != NULL)
		memcpy(tt->open, tt->saved, tt->n);
	if (tp->filter[0]) {
		for (uint32_t k = 0; k < nmatch; k++)
			table_tree_reveal(tt, match[k]);
	} else {
		free(tt->saved);
		tt->saved = NULL;
		if (had)
			table_tree_reveal(tt, row);
	}
}

void table_panel_refresh(struct table_panel *tp)
{
	tp->colw_for = -1; /* widths follow the rows shown */
	tp->empty = table_cols_empty(tp->t);
	uint64_t tag = 0;
	bool had = table_panel_selected(tp, &tag);
	uint32_t had_row = had ? tp->rows[tp->sel] : 0;
	uint32_t *match = xmalloc((tp->t->nrows ? tp->t->nrows : 1) * sizeof *match), nmatch = 0;
	for (uint32_t r = 0; r < tp->t->nrows; r++)
		if (table_row_matches(tp->t, r, tp->cols, tp->filter))
			match[nmatch++] = r;
	free(tp->rows);
	if (tp->tree != NULL && tp->tree->n == tp->t->nrows) {
		tree_follow_filter(tp, match, nmatch, had, had_row);
		tp->rows = xmalloc((tp->t->nrows ? tp->t->nrows : 1) * sizeof *tp->rows);
		tp->nrows = table_tree_rows(tp->tree, tp->t, tp->filter[0] ? match : NULL, nmatch, tp->sort_col,
		                            tp->desc, tp->rows);
		free(match);
	} else {
		tp->rows = match;
		tp->nrows = nmatch;
		if (tp->sort_col >= 0)
			table_sort(tp->t, tp->rows, tp->nrows, tp->sort_col, tp->desc);
	}
	tp->sel = 0;
	if (had) {
		int at = -1;
		for (uint32_t k = 0; k < tp->nrows && at < 0; k++)
			if (tp->t->tag[tp->rows[k]] == tag)
				at = (int)k;
		/* a row folded away: its nearest ancestor shown */
		if (at < 0 && tp->tree != NULL && tp->tree->n == tp->t->nrows)
			at = table_tree_shown_at(tp->tree, tp->rows, tp->nrows, had_row);
		tp->sel = at > 0 ? at : 0;
	}
	clamp(tp);
}

void table_panel_set_tree(struct table_panel *tp, const uint32_t *parent, uint32_t open_rows)
{
	if (tp->tree != NULL)
		table_tree_free(tp->tree);
	free(tp->tree);
	tp->tree = NULL;
	tp->tree_filter[0] = '\0';
	if (parent != NULL) {
		tp->tree = xmalloc(sizeof *tp->tree);
		table_tree_init(tp->tree, parent, tp->t->nrows);
		table_tree_open_levels(tp->tree, open_rows);
	}
	table_panel_refresh(tp);
}

/* Acts on a tree action for the selected row; false when the table is flat. */
static bool tree_act(struct table_panel *tp, enum action a)
{
	struct table_tree *tt = tp->tree;
	if (tt == NULL || tt->n != tp->t->nrows)
		return false;
	if (tp->sel < 0 || (uint32_t)tp->sel >= tp->nrows)
		return true;
	uint32_t row = tp->rows[tp->sel];
	switch (a) {
	case A_TREE_EXPAND: tt->open[row] = 1; break;
	case A_TREE_COLLAPSE:
		if (tt->branch[row] && tt->open[row]) {
			tt->open[row] = 0;
		} else if (tt->parent[row] != TABLE_TREE_ROOT) {
			int at = table_tree_shown_at(tt, tp->rows, tp->nrows, tt->parent[row]);
			if (at >= 0)
				tp->sel = at;
			return true;
		}
		break;
	case A_TREE_EXPAND_ALL: table_tree_open_below(tt, row); break;
	case A_TREE_COLLAPSE_ALL: table_tree_close_all(tt); break;
	default: return false;
	}
	table_panel_refresh(tp);
	return true;
}

void table_panel_sort(struct table_panel *tp, int col, bool desc)
{
	tp->sort_col = col < tp->t->ncols ? col : -1;
	tp->desc = desc;
	table_panel_refresh(tp);
}

static void filter_change(void *ctx, struct app *app, const char *text, bool accepted)
{
	struct table_panel *tp = ctx;
	(void)app;
	(void)accepted;
	snprintf(tp->filter, sizeof tp->filter, "%s", text);
	table_panel_refresh(tp);
}

static void filter_done(void *ctx, struct app *app, const char *text, bool accepted)
{
	/* Esc clears the filter; Enter keeps what was typed */
	filter_change(ctx, app, accepted ? text : "", accepted);
}

static bool table_act(struct panel *p, struct app *app, enum action a, int key)
{
	struct table_panel *tp = (struct table_panel *)p;
	int page = page_rows(tp);
	(void)key;
	if (tp->own->act != NULL && tp->own->act(tp, app, a))
		return true;
	switch (a) {
	case A_ROW_UP: tp->sel--; break;
	case A_ROW_DOWN: tp->sel++; break;
	case A_PAGE_UP: tp->sel -= page; break;
	case A_PAGE_DOWN: tp->sel += page; break;
	case A_HOME: tp->sel = 0; break;
	case A_END: tp->sel = (int)tp->nrows - 1; break;
	case A_SORT_NEXT:
	case A_SORT_PREV: {
		/* the table's own order, then each column in turn; numbers largest first */
		int n = tp->t->ncols, step = a == A_SORT_NEXT ? 1 : -1, c = tp->sort_col;
		do {
			c += step;
			if (c >= n)
				c = -1;
			if (c < -1)
				c = n - 1;
		} while (c >= 0 && !table_col_shown(tp->t, c, shown_set(tp)));
		table_panel_sort(tp, c, c >= 0 && tp->t->cols[c].kind != COL_TEXT);
		app_status(app, "sorted by %s", c >= 0 ? tp->t->cols[c].title : "the table's own order");
		break;
	}
	case A_SORT_REVERSE:
		if (tp->sort_col < 0) {
			app_status(app, "choose a column to sort by first (%s)",
			           keymap_key_for(&app->keys, CTX_TABLE, A_SORT_NEXT));
			break;
		}
		table_panel_sort(tp, tp->sort_col, !tp->desc);
		break;
	case A_COLS_LEFT:
		if (tp->hscroll > 0)
			tp->hscroll--;
		break;
	case A_COLS_RIGHT:
		/* while columns lie off the right edge, and always keeping the first and one more */
		if (tp->more_right && tp->hscroll < shown_count(tp) - 2)
			tp->hscroll++;
		break;
	case A_FILTER: app_push(app, prompt_new_live("filter: ", tp->filter, filter_done, filter_change, tp)); break;
	case A_TREE_EXPAND:
	case A_TREE_COLLAPSE:
	case A_TREE_EXPAND_ALL:
	case A_TREE_COLLAPSE_ALL:
		if (!tree_act(tp, a))
			return false;
		break;
	case A_JUMP: {
		uint64_t tag;
		if (table_panel_selected(tp, &tag))
			tp->own->jump(tp, app, tag);
		return true; /* the owner may have closed the panel: touch nothing more */
	}
	default: return false;
	}
	clamp(tp);
	return true;
}

static void table_mouse(struct panel *p, struct app *app, enum mouse_kind kind, int x, int y)
{
	struct table_panel *tp = (struct table_panel *)p;
	(void)app;
	if (kind == TT_WHEEL_UP)
		tp->sel -= 3;
	else if (kind == TT_WHEEL_DOWN)
		tp->sel += 3;
	else if (kind == TT_CLICK && y >= p->r.y + 2 + tp->hdr && y < p->r.y + 2 + tp->hdr + page_rows(tp)) {
		tp->sel = tp->top + (y - p->r.y - 2 - tp->hdr);
		clamp(tp);
		/* a click on a tree's mark expands or collapses its row */
		int c0 = first_col(tp), indent;
		if (tp->tree != NULL && tp->colw != NULL && c0 >= 0 && tp->sel < (int)tp->nrows) {
			uint32_t row = tp->rows[tp->sel];
			if (tree_lead(tp, row, tp->colw[c0], &indent) > 0 && x == p->r.x + 1 + indent &&
			    tp->tree->branch[row])
				tree_act(tp, tp->tree->open[row] ? A_TREE_COLLAPSE : A_TREE_EXPAND);
		}
	}
	clamp(tp);
}

static void table_draw(struct panel *p, struct app *app, struct grid *g, const struct render_opts *o)
{
	struct table_panel *tp = (struct table_panel *)p;
	struct rect r = p->r;
	struct table *t;
	char title[400], line[512], raw[2048], shown[2048];
	if (tp->own->update != NULL)
		tp->own->update(tp, app);
	t = tp->t;
	layout_header(tp, app);
	clamp(tp);
	panel_clear(g, r, CS_DETAILS);
	tp->own->title(tp, app, title, sizeof title);
	size_t n = strlen(title);
	if (tp->sort_col >= 0)
		n += (size_t)snprintf(title + n, n < sizeof title ? sizeof title - n : 0, ", by %s%s",
		                      t->cols[tp->sort_col].title, tp->desc ? " (largest first)" : "");
	if (tp->filter[0] && n < sizeof title) {
		char f[160];
		escape_term_buf(tp->filter, strlen(tp->filter), f, sizeof f);
		n += (size_t)snprintf(title + n, sizeof title - n, ", filter \"%s\": %u rows", f, tp->nrows);
	}
	grid_text(g, r.x + 1, r.y, r.x + r.w, title, CS_HILITE, 0);
	if (tp->hdr > 0 && tp->own->header != NULL)
		tp->own->header(tp, app, g, (struct rect){ r.x, r.y + 1, r.w, tp->hdr }, o);
	int hy = r.y + 1 + tp->hdr; /* the column headings */

	/* widths from every row shown, so that scrolling does not move the columns; laid out
	 * once per change rather than every frame (100k gaps are 100k rows to format) */
	int avail = r.w - 2;
	uint64_t vis = visible_cols(tp);
	if (tp->colw_for != avail || tp->colw_hscroll != tp->hscroll || tp->colw == NULL) {
		free(tp->colw);
		tp->colw = xcalloc((size_t)t->ncols, sizeof *tp->colw);
		int *lead = NULL, c0 = first_col(tp), indent;
		if (tp->tree != NULL && c0 >= 0) {
			lead = xmalloc((tp->nrows ? tp->nrows : 1) * sizeof *lead);
			for (uint32_t k = 0; k < tp->nrows; k++)
				lead[k] = tree_lead(tp, tp->rows[k], avail, &indent);
		}
		table_layout_lead(t, tp->rows, tp->nrows, vis, avail, c0, lead, tp->colw);
		free(lead);
		tp->colw_for = avail;
		tp->colw_hscroll = tp->hscroll;
	}
	int *colw = tp->colw;
	int c0 = first_col(tp);
	int x = r.x + 1;
	for (int c = 0; c < t->ncols; c++) {
		if (!table_col_shown(t, c, vis))
			continue;
		if (x < r.x + r.w) {
			int sw = table_elide(t->cols[c].title, colw[c], o->ascii, shown, sizeof shown);
			int pad = table_col_right(&t->cols[c]) ? colw[c] - sw : 0;
			grid_text(g, x + pad, hy, r.x + r.w, shown, c == tp->sort_col ? CS_HILITE : CS_RULER, 0);
		}
		x += colw[c] + 1;
	}
	/* columns off either edge: a mark says so (Left and Right scroll them) */
	tp->more_right = x - 1 > r.x + r.w;
	if (tp->hscroll > 0)
		grid_set(g, r.x, hy, o->ascii ? '<' : 0x2039, CS_HILITE, 0);
	if (tp->more_right)
		grid_set(g, r.x + r.w - 1, hy, o->ascii ? '>' : 0x203a, CS_HILITE, 0);
	int page = page_rows(tp);
	for (int i = 0; i < page; i++) {
		int k = tp->top + i;
		if (k >= (int)tp->nrows)
			break;
		uint32_t row = tp->rows[k];
		int y = hy + 1 + i;
		enum cell_style st = k == tp->sel ? CS_HILITE : CS_DETAILS;
		uint8_t color =
			tp->own->row_color != NULL && k != tp->sel ? tp->own->row_color(tp, app, t->tag[row]) : 0;
		if (k == tp->sel)
			for (int xx = r.x; xx < r.x + r.w; xx++)
				grid_set(g, xx, y, ' ', CS_HILITE, 0);
		x = r.x + 1;
		for (int c = 0; c < t->ncols && x < r.x + r.w; c++) {
			if (!table_col_shown(t, c, vis))
				continue;
			int indent, lead = c == c0 ? tree_lead(tp, row, colw[c], &indent) : 0;
			if (lead > 0 && tp->tree->branch[row])
				grid_set(g, x + indent, y,
				         tp->tree->open[row] ? (o->ascii ? '-' : 0x25be) : (o->ascii ? '+' : 0x25b8),
				         st, color);
			table_format(t, row, c, raw, sizeof raw);
			int sw = table_elide(raw, colw[c] - lead, o->ascii, shown, sizeof shown);
			int pad = table_col_right(&t->cols[c]) ? colw[c] - lead - sw : 0;
			grid_text(g, x + lead + pad, y, r.x + r.w, shown, st, color);
			x += colw[c] + 1;
		}
	}
	if (tp->nrows == 0)
		grid_text(g, r.x + 1, hy + 1, r.x + r.w, tp->filter[0] ? "(no row holds the filter text)" : "(empty)",
		          CS_DETAILS, 0);
	/* the detail line: whole, what the columns cut of the selected row */
	int yd = r.y + r.h - 1;
	for (int xx = r.x; xx < r.x + r.w; xx++)
		grid_set(g, xx, yd, ' ', CS_RULER, 0);
	if (tp->nrows > 0) {
		uint32_t row = tp->rows[tp->sel];
		size_t ln = 0;
		line[0] = '\0';
		for (int c = 0; c < t->ncols; c++) {
			if (!table_col_shown(t, c, vis))
				continue;
			int indent, w = table_format(t, row, c, raw, sizeof raw);
			if (w <= colw[c] - (c == c0 ? tree_lead(tp, row, colw[c], &indent) : 0))
				continue;
			ln += (size_t)snprintf(line + ln, ln < sizeof line ? sizeof line - ln : 0, "%s%s: %s",
			                       ln ? "  " : "", t->cols[c].title, raw);
			if (ln >= sizeof line)
				break;
		}
		char pos[48];
		snprintf(pos, sizeof pos, "%d/%u ", tp->sel + 1, tp->nrows);
		int px = r.x + r.w - (int)strlen(pos);
		grid_text(g, r.x + 1, yd, px - 1, line, CS_RULER, 0);
		grid_text(g, px, yd, r.x + r.w, pos, CS_RULER, 0);
	}
}

static void table_hints(struct panel *p, struct app *app, char *buf, size_t n)
{
	const struct keymap *km = &app->keys;
	char k[6][16];
	char fold[48] = "";
	static const enum action shown[6] = { A_JUMP, A_SORT_NEXT, A_SORT_REVERSE, A_FILTER, A_CLOSE, A_HELP };
	for (int i = 0; i < 6; i++)
		snprintf(k[i], sizeof k[i], "%s", keymap_key_for(km, CTX_TABLE, shown[i]));
	if (((struct table_panel *)p)->tree != NULL) {
		char e[16];
		snprintf(e, sizeof e, "%s", keymap_key_for(km, CTX_TABLE, A_TREE_EXPAND));
		snprintf(fold, sizeof fold, "%s/%s expand  ", e, keymap_key_for(km, CTX_TABLE, A_TREE_COLLAPSE));
	}
	snprintf(buf, n, "%s jump  %s%s sort  %s reverse  %s filter  %s close  %s help", k[0], fold, k[1], k[2], k[3],
	         k[4], k[5]);
}

static void table_layout_fn(struct panel *p, struct app *app)
{
	/* over the timeline's track area: the header, the details and the status stay */
	p->r = (struct rect){ 0, view_area_y(app->tl), app->w, view_area_h(app->tl) };
	layout_header((struct table_panel *)p, app);
	clamp((struct table_panel *)p);
}

static void table_panel_free(struct panel *p)
{
	struct table_panel *tp = (struct table_panel *)p;
	if (tp->own->free != NULL)
		tp->own->free(tp);
	free(tp->rows);
	free(tp->colw);
	if (tp->tree != NULL)
		table_tree_free(tp->tree);
	free(tp->tree);
	free(tp);
}

static const struct panel_ops table_ops = {
	.name = "table",
	.ctx = CTX_TABLE,
	.act = table_act,
	.mouse = table_mouse,
	.draw = table_draw,
	.hints = table_hints,
	.layout = table_layout_fn,
	.free = table_panel_free,
};

struct panel *table_panel_new(struct table *t, const struct table_owner *own, void *owner)
{
	struct table_panel *tp = xcalloc(1, sizeof *tp);
	/* each table view has its own name (for the app's toggling) */
	tp->ops = table_ops;
	tp->ops.name = own->name;
	tp->base.ops = &tp->ops;
	tp->t = t;
	tp->cols = TABLE_ALL;
	tp->own = own;
	tp->owner = owner;
	tp->sort_col = -1;
	table_panel_refresh(tp);
	return &tp->base;
}

bool table_panel_select_tag(struct table_panel *tp, uint64_t tag)
{
	for (uint32_t k = 0; k < tp->nrows; k++)
		if (tp->t->tag[tp->rows[k]] == tag) {
			tp->sel = (int)k;
			if (tp->sel < tp->top)
				tp->top = tp->sel;
			return true;
		}
	return false;
}
