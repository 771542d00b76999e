/* diff_view.c: the Diff panel (see diff_view.h): `ttrace diff` over two of the traces open,
 * B (the rank the user looks at, else the second) against A (the first), one table of the
 * figures, kernel families, operators and kernels, as the report words them. */
#include "ui/diff_view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/escape.h"
#include "lib/xalloc.h"
#include "src/analysis.h"
#include "src/kernels.h"
#include "src/ops.h"
#include "ui/app.h"
#include "ui/diff_report.h"
#include "ui/names.h"
#include "ui/table_panel.h"
#include "ui/view.h"

enum { D_KIND, D_NAME, D_A, D_B, D_CHANGE, D_PCT, D_SPREAD, D_VERDICT, D__COUNT };

static const struct column columns[D__COUNT] = {
	[D_KIND] = { "kind", "kind", COL_TEXT, 0, 0 },
	[D_NAME] = { "name", "figure, family, operator or kernel (per step)", COL_TEXT, 1, COL_WIDE },
	[D_A] = { "a", "A", COL_TEXT, 0, 0 },
	[D_B] = { "b", "B", COL_TEXT, 0, 0 },
	[D_CHANGE] = { "change", "change", COL_TEXT, 0, 0 },
	[D_PCT] = { "change_pct", "%", COL_PCT, 0, COL_SIGNED },
	[D_SPREAD] = { "spread", "spread", COL_TEXT, 0, 0 },
	[D_VERDICT] = { "verdict", "verdict", COL_TEXT, 0, 0 },
};

/* Row tags: the kind in the top bits, the index in its list below. */
enum { TAG_FIGURE, TAG_FAMILY, TAG_OP, TAG_KERNEL };
#define TAG(kind, i) (((uint64_t)(kind) << 32) | (uint64_t)(i))

struct diff_view {
	struct table t;
	struct view *v;
	int a, b; /* rank positions */
	struct diff_report r;
};

static void add_values(struct table *t, uint32_t row, enum diff_unit u, const double v[2], double spread)
{
	char buf[48];
	table_set_str(t, row, D_A, diff_value_text(u, v[0], false, buf, sizeof buf));
	table_set_str(t, row, D_B, diff_value_text(u, v[1], false, buf, sizeof buf));
	double a = isnan(v[0]) ? 0 : v[0], b = isnan(v[1]) ? 0 : v[1];
	table_set_str(t, row, D_CHANGE, diff_value_text(u, b - a, true, buf, sizeof buf));
	if (!isnan(v[0]) && !isnan(v[1]) && v[0] != 0)
		table_set_pct(t, row, D_PCT, 100.0 * (b - a) / v[0]);
	table_set_str(t, row, D_SPREAD, diff_value_text(u, spread, false, buf, sizeof buf));
}

static void rows_of(struct diff_view *d, const struct diff_row *rows, uint32_t n, int kind, const char *what)
{
	for (uint32_t i = 0; i < n; i++) {
		const struct diff_row *x = &rows[i];
		uint32_t row = table_add_row(&d->t, TAG(kind, i));
		table_set_str(&d->t, row, D_KIND, what);
		table_set_text(&d->t, row, D_NAME, strtab_get(&d->r.names, x->name), strtab_len(&d->r.names, x->name));
		add_values(&d->t, row, DU_NS, x->time, x->spread);
		table_set_str(&d->t, row, D_VERDICT, diff_row_verdict(x));
	}
}

static void build(struct diff_view *d)
{
	struct trace *a = view_rank_trace(d->v, d->a), *b = view_rank_trace(d->v, d->b);
	diff_analyse(&a, 1, &b, 1, view_align(d->v), DM_NAME, NULL, &d->r);
	table_init(&d->t, columns, D__COUNT);
	for (uint32_t i = 0; i < d->r.nfigs; i++) {
		const struct diff_figure *f = &d->r.figs[i];
		uint32_t row = table_add_row(&d->t, TAG(TAG_FIGURE, i));
		const char *title = f->title;
		while (*title == ' ')
			title++;
		table_set_str(&d->t, row, D_KIND, "figure");
		table_set_str(&d->t, row, D_NAME, title);
		add_values(&d->t, row, f->unit, f->v, f->spread);
		table_set_str(&d->t, row, D_VERDICT, diff_figure_verdict(f));
	}
	for (int k = 0; k < KC_FAMILY__COUNT; k++) {
		const struct diff_family *f = &d->r.families[k];
		if (f->time[0] == 0 && f->time[1] == 0)
			continue;
		uint32_t row = table_add_row(&d->t, TAG(TAG_FAMILY, k));
		char name[64];
		snprintf(name, sizeof name, "%s kernels (%.4g -> %.4g launches)",
		         kernel_class_family_name((enum kc_family)k), f->calls[0], f->calls[1]);
		table_set_str(&d->t, row, D_KIND, "family");
		table_set_str(&d->t, row, D_NAME, name);
		add_values(&d->t, row, DU_NS, f->time, NAN);
	}
	rows_of(d, d->r.ops, d->r.nops, TAG_OP, "operator");
	rows_of(d, d->r.kernels, d->r.nkernels, TAG_KERNEL, "kernel");
}

static void title(struct table_panel *tp, struct app *app, char *buf, size_t n)
{
	struct diff_view *d = tp->owner;
	(void)app;
	snprintf(buf, n,
	         "Diff: rank %d (B) against rank %d (A), per step; %u step%s and %u; Enter shows B's longest call",
	         view_rank_label(d->v, d->b), view_rank_label(d->v, d->a), d->r.steps[0], d->r.steps[0] == 1 ? "" : "s",
	         d->r.steps[1]);
}

static int header_rows(struct table_panel *tp, struct app *app, int h)
{
	struct diff_view *d = tp->owner;
	(void)app;
	int n = (int)d->r.nnotes;
	return n < h - 4 ? n : h - 4 > 0 ? h - 4 : 0;
}

static void header(struct table_panel *tp, struct app *app, struct grid *g, struct rect r, const struct render_opts *o)
{
	struct diff_view *d = tp->owner;
	(void)app;
	(void)o;
	for (int i = 0; i < r.h && i < (int)d->r.nnotes; i++) {
		char line[300];
		snprintf(line, sizeof line, "note: %s", d->r.notes[i]);
		char esc[600];
		escape_term_buf(line, strlen(line), esc, sizeof esc);
		grid_text(g, r.x + 1, r.y + i, r.x + r.w, esc, CS_HILITE, 0);
	}
}

/* Enter on an operator or a kernel: its longest call in B. */
static void jump(struct table_panel *tp, struct app *app, uint64_t tag)
{
	struct diff_view *d = tp->owner;
	int kind = (int)(tag >> 32);
	uint32_t i = (uint32_t)tag;
	if (kind != TAG_OP && kind != TAG_KERNEL)
		return;
	const struct diff_row *x = kind == TAG_OP ? &d->r.ops[i] : &d->r.kernels[i];
	const char *name = strtab_get(&d->r.names, x->name);
	size_t len = strtab_len(&d->r.names, x->name);
	struct trace *b = view_rank_trace(d->v, d->b);
	struct slice_ref longest = { TT_NONE, TT_NONE };
	if (kind == TAG_KERNEL) {
		const struct kernel_report *kr = trace_kernels(b, KG_NAME);
		for (uint32_t k = 0; k < kr->n && longest.track == TT_NONE; k++)
			if (strtab_len(&b->strings, kr->rows[k].name) == len &&
			    memcmp(strtab_get(&b->strings, kr->rows[k].name), name, len) == 0)
				longest = kr->rows[k].longest;
	} else {
		const struct op_report *op = trace_ops(b);
		for (uint32_t k = 0; k < op->n && longest.track == TT_NONE; k++)
			if (strtab_len(&b->strings, op->rows[k].name) == len &&
			    memcmp(strtab_get(&b->strings, op->rows[k].name), name, len) == 0)
				longest = op->rows[k].longest;
	}
	if (longest.track == TT_NONE) {
		app_status(app, "not in B (rank %d): gone", view_rank_label(d->v, d->b));
		return;
	}
	struct view *v = d->v; /* the pop frees the panel, D with it */
	int rank = d->b;
	app_pop(app);
	view_select(v, rank, longest);
}

static void owner_free(struct table_panel *tp)
{
	struct diff_view *d = tp->owner;
	table_free(&d->t);
	diff_free(&d->r);
	free(d);
}

static const struct table_owner diff_owner = {
	.name = "diff",
	.title = title,
	.jump = jump,
	.header_rows = header_rows,
	.header = header,
	.free = owner_free,
};

struct panel *diff_view_open(struct app *app)
{
	struct view *v = app->tl;
	if (view_ranks(v) < 2) {
		view_status(v, "the diff compares two traces: open two (ttrace --diff A B) or a directory of ranks");
		return NULL;
	}
	struct diff_view *d = xcalloc(1, sizeof *d);
	d->v = v;
	d->a = 0;
	d->b = view_focus_rank(v) > 0 ? view_focus_rank(v) : 1;
	build(d);
	return table_panel_new(&d->t, &diff_owner, d);
}
