/* kernel_view.c: the kernel table and its panel (see kernel_view.h). */
#include "ui/kernel_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/reports.h"
#include "lib/timefmt.h"
#include "lib/xalloc.h"
#include "src/analysis.h"
#include "ui/app.h"
#include "ui/names.h"
#include "ui/report.h"
#include "ui/table_panel.h"
#include "ui/view.h"

enum {
	K_NAME,
	K_CALLS,
	K_TOTAL,
	K_MEAN,
	K_MIN,
	K_MAX,
	K_BPS,
	K_OCC,
	K_GRID,
	K_BLOCK,
	K_REGS,
	K_SMEM,
	K_TC,
	K_NO_TC,
	K_OP,
	K_OP_TEXT,
	K_FAMILY,
	K_UNIT,
	K_PREC,
	K_OP_CALLS,
	K_VIA,
	K_LONGEST
};

int kernel_view_columns(struct column *cols)
{
	static const struct column c[KERNEL_TABLE_COLS] = {
		[K_NAME] = { "name", "kernel", COL_TEXT, 2, COL_WIDE },
		[K_CALLS] = { "calls", "calls", COL_COUNT, 0, 0 },
		[K_TOTAL] = { "total_ns", "total", COL_DUR, 0, 0 },
		[K_MEAN] = { "mean_ns", "mean", COL_DUR, 0, 0 },
		[K_MIN] = { "min_ns", "min", COL_DUR, 0, 0 },
		[K_MAX] = { "max_ns", "max", COL_DUR, 0, 0 },
		[K_BPS] = { "mean_blocks_per_sm", "blocks/SM", COL_REAL, 0, 0 },
		[K_OCC] = { "mean_est_achieved_occupancy_pct", "occupancy", COL_PCT, 0, 0 },
		[K_GRID] = { "grid", "grid", COL_TEXT, 0, 0 },
		[K_BLOCK] = { "block", "block", COL_TEXT, 0, 0 },
		[K_REGS] = { "registers_per_thread", "regs", COL_TEXT, 0, 0 },
		[K_SMEM] = { "shared_memory_bytes", "shared mem", COL_TEXT, 0, 0 },
		[K_FAMILY] = { "family", "family", COL_TEXT, 0, 0 },
		[K_UNIT] = { "math_unit", "unit", COL_TEXT, 0, 0 },
		[K_PREC] = { "precision", "prec", COL_TEXT, 0, 0 },
		[K_TC] = { "tensor_cores", "TC", COL_BOOL, 0, COL_JSON_ONLY },
		[K_NO_TC] = { "matmul_without_tensor_cores", "GEMM no TC", COL_BOOL, 0, COL_JSON_ONLY },
		[K_OP] = { "launched_by", "launched by", COL_TEXT, 1, COL_JSON_ONLY },
		[K_OP_TEXT] = { "launched_by", "launched by", COL_TEXT, 1, COL_TEXT_ONLY },
		[K_OP_CALLS] = { "launched_by_calls", "of calls", COL_COUNT, 0, COL_JSON_ONLY },
		[K_VIA] = { "launched_via", "via", COL_TEXT, 0, COL_JSON_ONLY | COL_OMIT_NULL },
		[K_LONGEST] = { "longest_start_ns", "longest at", COL_TIME, 0, COL_JSON_ONLY },
	};
	memcpy(cols, c, sizeof c);
	return KERNEL_TABLE_COLS;
}

static void set_shape(struct table *tb, uint32_t r, int col, const int32_t v[3], bool varies)
{
	char buf[48];
	if (varies)
		snprintf(buf, sizeof buf, "varies");
	else if (v[0] <= 0 && v[1] <= 0 && v[2] <= 0)
		return; /* not in the trace: null */
	else
		snprintf(buf, sizeof buf, "%d,%d,%d", v[0], v[1], v[2]);
	table_set_str(tb, r, col, buf);
}

/* One number, "varies", or null when the trace lacks it. */
static void set_one(struct table *tb, uint32_t r, int col, int32_t v, bool varies)
{
	char buf[24];
	if (!varies && v < 0)
		return;
	if (varies)
		snprintf(buf, sizeof buf, "varies");
	else
		snprintf(buf, sizeof buf, "%d", v);
	table_set_str(tb, r, col, buf);
}

void kernel_view_fill(struct table *tb, const struct trace *t, const struct kernel_report *r, bool short_names)
{
	tb->origin = t->start;
	for (uint32_t i = 0; i < r->n; i++) {
		const struct kernel_row *k = &r->rows[i];
		uint32_t row = table_add_row(tb, i);
		if (short_names) {
			char buf[512];
			kernel_short_name(strtab_get(&t->strings, k->name), buf, sizeof buf);
			table_set_str(tb, row, K_NAME, buf);
		} else {
			table_set_trace_str(tb, row, K_NAME, t, k->name);
		}
		table_set_int(tb, row, K_CALLS, (int64_t)k->calls);
		table_set_int(tb, row, K_TOTAL, k->total);
		table_set_int(tb, row, K_MEAN, k->calls ? k->total / (int64_t)k->calls : 0);
		table_set_int(tb, row, K_MIN, k->min);
		table_set_int(tb, row, K_MAX, k->max);
		table_set_pct(tb, row, K_BPS, kernel_mean_bps(k)); /* NAN (none carries it): null */
		table_set_pct(tb, row, K_OCC, kernel_mean_occupancy(k));
		set_shape(tb, row, K_GRID, k->grid, k->grid_varies);
		set_shape(tb, row, K_BLOCK, k->block, k->block_varies);
		set_one(tb, row, K_REGS, k->regs, k->regs_varies);
		set_one(tb, row, K_SMEM, k->smem, k->smem_varies);
		/* the math unit as the names tell it (src/kernel_class.h): unknown is null, never "no" */
		table_set_str(tb, row, K_FAMILY, kernel_class_family_name(k->cls.family));
		table_set_str(tb, row, K_UNIT, kernel_class_unit_name(k->cls.unit));
		table_set_str(tb, row, K_PREC, kernel_class_prec_name(k->cls.prec));
		if (k->cls.unit != KC_UNIT_UNKNOWN)
			table_set_int(tb, row, K_TC, k->cls.unit == KC_UNIT_MATRIX);
		if (!kernel_class_is_matmul(k->cls.family))
			table_set_int(tb, row, K_NO_TC, 0);
		else if (k->cls.unit != KC_UNIT_UNKNOWN)
			table_set_int(tb, row, K_NO_TC, k->cls.unit != KC_UNIT_MATRIX);
		if (k->op != TT_NONE) {
			table_set_trace_str(tb, row, K_OP, t, k->op);
			table_set_int(tb, row, K_OP_CALLS, (int64_t)k->op_calls);
		}
		if (k->via == TT_NONE) {
			if (k->op != TT_NONE)
				table_set_trace_str(tb, row, K_OP_TEXT, t, k->op);
		} else { /* replayed from a CUDA graph: the graph launch, and the operator around it */
			const char *op = k->op != TT_NONE ? trace_str(t, k->op) : "";
			char *buf = xasprintf("%s%s%s", trace_str(t, k->via), op[0] ? " in " : "", op);
			table_set_str(tb, row, K_OP_TEXT, buf);
			free(buf);
			table_set_trace_str(tb, row, K_VIA, t, k->via);
		}
		table_set_int(tb, row, K_LONGEST, t->tracks[k->longest.track].slices[k->longest.idx].ts);
	}
}

/* ---- the report (ui/report.h) -------------------------------------------------- */

static const char *const group_keys[KG__COUNT] = { "name", "shape", "operator" };

static void json_head(struct jsonw *w, struct trace *t, enum kernel_group g)
{
	const struct kernel_report *r = trace_kernels(t, g);
	jsonw_key(w, "group_by");
	jsonw_str(w, group_keys[g]);
	jsonw_key(w, "kernel_time_ns");
	jsonw_int(w, r->total);
	jsonw_key(w, "tensor_core_time_ns");
	jsonw_int(w, r->tc_total);
	jsonw_key(w, "matmul_unit_unknown_ns");
	jsonw_int(w, r->matmul_unknown);
}

static void text_head(FILE *f, struct trace *t, enum kernel_group g)
{
	const struct kernel_report *r = trace_kernels(t, g);
	char a[48], line[512];
	snprintf(line, sizeof line,
	         "%u rows %s, %s of kernel time (sum of durations), %.1f%% of it on Tensor Cores or matrix cores, "
	         "%.1f%% in GEMM/convolution/attention kernels whose unit the name does not say (KERNEL CLASSES in "
	         "ttrace(1)); launch shape and occupancy: --json or the K view",
	         r->n,
	         g == KG_NAME    ? "by name"
	         : g == KG_SHAPE ? "by name and launch shape"
	                         : "by name, operator and launch shape",
	         timefmt_dur(r->total, a, sizeof a),
	         r->total > 0 ? 100.0 * (double)r->tc_total / (double)r->total : 0.0,
	         r->total > 0 ? 100.0 * (double)r->matmul_unknown / (double)r->total : 0.0);
	fputs("   ", f);
	report_wrap_text(f, line, 3, "   ");
}

#define KERNEL_REPORT(G, g)                                                                        \
	static void report_fill_##g(struct table *tb, struct trace *t)                             \
	{                                                                                          \
		kernel_view_fill(tb, t, trace_kernels(t, G), false);                               \
	}                                                                                          \
	static void report_json_head_##g(struct jsonw *w, struct trace *t) { json_head(w, t, G); } \
	static void report_text_head_##g(FILE *f, struct trace *t, const char *sort)               \
	{                                                                                          \
		(void)sort;                                                                        \
		text_head(f, t, G);                                                                \
	}
KERNEL_REPORT(KG_NAME, name)
KERNEL_REPORT(KG_SHAPE, shape)
KERNEL_REPORT(KG_OP, op)

/* the text leaves the launch shape and occupancy to JSON and the screen, so that the names
 * keep room at 120 columns; grouped by shape, the shape is the point */
#define TEXT_COLS                                                                                              \
	((1u << K_NAME) | (1u << K_CALLS) | (1u << K_TOTAL) | (1u << K_MEAN) | (1u << K_MIN) | (1u << K_MAX) | \
	 (1u << K_FAMILY) | (1u << K_UNIT) | (1u << K_PREC) | (1u << K_OP_TEXT))
#define SHAPE_COLS ((1u << K_GRID) | (1u << K_BLOCK) | (1u << K_REGS) | (1u << K_SMEM))
#define KERNEL_REPORT_DEF(g, cols)                                                                           \
	{                                                                                                    \
		.name = "kernels", .columns = kernel_view_columns, .fill = report_fill_##g,                  \
		.json_head = report_json_head_##g, .text_head = report_text_head_##g, .text_cols = (cols),   \
		.text_rows = 50, .empty = "no GPU kernel in this trace (record with ProfilerActivity.CUDA)", \
	}

static const struct table_report reports[KG__COUNT] = {
	KERNEL_REPORT_DEF(name, TEXT_COLS),
	KERNEL_REPORT_DEF(shape, (TEXT_COLS & ~(1u << K_OP)) | SHAPE_COLS),
	KERNEL_REPORT_DEF(op, TEXT_COLS | SHAPE_COLS),
};

const struct table_report *kernel_view_report(enum kernel_group g) { return &reports[g < KG__COUNT ? g : KG_NAME]; }

int kernel_group_of(const char *name)
{
	for (int g = 0; g < KG__COUNT; g++)
		if (strcmp(name, group_keys[g]) == 0)
			return g;
	return -1;
}

/* ---- the panel ------------------------------------------------------------------- */

struct kernel_view {
	struct table t;
	struct column cols[KERNEL_TABLE_COLS];
	struct view *v;
	int rank; /* the rank position it shows */
	enum kernel_group group;
	bool short_names;
	const struct kernel_report *r;    /* the rows shown: the cache's of GROUP, or FOLDED */
	const struct kernel_report *full; /* the cache's, of GROUP */
	struct kernel_report folded;      /* with short names: FULL's rows that fold to one merged */
	uint32_t *of;                     /* FULL's row -> FOLDED's (NULL unless folded) */
};

static const char *const group_text[KG__COUNT] = {
	"by name",
	"by name and launch shape (grid, block, registers, shared memory)",
	"by name, launching operator and launch shape",
};

static const char *const group_short[KG__COUNT] = { "by name", "by shape", "by operator" };

static void title(struct table_panel *tp, struct app *app, char *buf, size_t n)
{
	const struct kernel_view *k = tp->owner;
	char a[48];
	(void)app;
	char rk[32] = "";
	if (view_ranks(k->v) > 1)
		snprintf(rk, sizeof rk, "rank %d: ", view_rank_label(k->v, k->rank));
	char folded[64] = "";
	if (k->short_names)
		snprintf(folded, sizeof folded, " (names folded: %u rows before)", k->full->n);
	double tc = k->r->total > 0 ? 100.0 * (double)k->r->tc_total / (double)k->r->total : 0.0;
	int len = snprintf(buf, n, "%s%u rows %s%s, %s of kernel time, %.1f%% of it on Tensor Cores%s", rk, k->r->n,
	                   group_text[k->group], folded, timefmt_dur(k->r->total, a, sizeof a), tc,
	                   tp->sort_col < 0 ? ", by total time" : "");
	if (len > tp->base.r.w - 2) /* narrow: the figures first */
		snprintf(buf, n, "%s%u rows%s, %s of kernels, %.1f%% on Tensor Cores (g: %s)", rk, k->r->n,
		         k->short_names ? " (folded)" : "", a, tc, group_short[k->group]);
}

static void build(struct kernel_view *k)
{
	struct trace *t = view_rank_trace(k->v, k->rank);
	k->full = trace_kernels(t, k->group);
	kernels_free(&k->folded);
	free(k->of);
	k->of = NULL;
	k->r = k->full;
	if (k->short_names) {
		kernels_fold_names(t, k->full, &k->folded, &k->of);
		k->r = &k->folded;
	}
	table_clear(&k->t);
	kernel_view_fill(&k->t, t, k->r, k->short_names);
}

/* T: fold the names or unfold them, the selection staying on the row it was (a folded
 * row unfolds to its largest member), and the status line saying what merged. */
static void toggle_short_names(struct table_panel *tp, struct app *app, struct kernel_view *k)
{
	uint64_t tag = 0;
	bool had = table_panel_selected(tp, &tag);
	uint32_t before = k->r->n;
	uint32_t *of = k->of;
	k->of = NULL; /* kept across the rebuild: the map of the folding being undone */
	k->short_names = !k->short_names;
	build(k);
	table_panel_refresh(tp);
	if (had && k->short_names && tag < k->full->n)
		table_panel_select_tag(tp, k->of[tag]);
	else if (had && !k->short_names && of != NULL) {
		for (uint32_t i = 0; i < k->full->n; i++)
			if (of[i] == tag) { /* FULL is by total, largest first */
				table_panel_select_tag(tp, i);
				break;
			}
	}
	free(of);
	if (k->short_names && before > k->r->n)
		app_status(app, "names folded (<…> (…)): %u row%s merged into others, %u left (T unfolds)",
		           before - k->r->n, before - k->r->n == 1 ? "" : "s", k->r->n);
	else if (k->short_names)
		app_status(app, "names folded (<…> (…)): no two rows became the same (T unfolds)");
	else
		app_status(app, "names whole: %u rows", k->r->n);
}

static bool act(struct table_panel *tp, struct app *app, enum action a)
{
	struct kernel_view *k = tp->owner;
	(void)app;
	switch (a) {
	case A_GROUP_NEXT:
		k->group = (enum kernel_group)((k->group + 1) % KG__COUNT);
		build(k);
		tp->sel = tp->top = 0;
		break;
	case A_SHORT_NAMES: toggle_short_names(tp, app, k); return true;
	default: return false;
	}
	table_panel_refresh(tp);
	return true;
}

static void jump(struct table_panel *tp, struct app *app, uint64_t tag)
{
	const struct kernel_view *k = tp->owner;
	struct view *v = k->v;
	int rank = k->rank;
	bool have = tag < k->r->n;
	struct slice_ref s = have ? k->r->rows[tag].longest : (struct slice_ref){ 0 };
	app_pop(app); /* frees the panel and K */
	if (have) {
		view_select(v, rank, s);
		view_status(v, "the longest call of this kernel (] [ follow its launch)");
	}
}

static void owner_free(struct table_panel *tp)
{
	struct kernel_view *k = tp->owner;
	table_free(&k->t);
	kernels_free(&k->folded);
	free(k->of);
	free(k);
}

static const struct table_owner kernel_owner = {
	.name = "kernels",
	.title = title,
	.jump = jump,
	.act = act,
	.free = owner_free,
};

struct panel *kernel_view_open(struct app *app)
{
	struct view *v = app->tl;
	int rank = view_focus_rank(v);
	const struct kernel_report *r = trace_kernels(view_rank_trace(v, rank), KG_NAME);
	if (r->n == 0) {
		view_status(v, "no GPU kernel in this trace (record with ProfilerActivity.CUDA)");
		return NULL;
	}
	struct kernel_view *k = xcalloc(1, sizeof *k);
	k->v = v;
	k->rank = rank;
	table_init(&k->t, k->cols, kernel_view_columns(k->cols));
	build(k);
	return table_panel_new(&k->t, &kernel_owner, k);
}

static int write_kernels(FILE *f, struct trace *const *ts, int n, const struct report_opts *o)
{
	return report_table(f, ts, n, o->json, o->top, o->sort,
	                    kernel_view_report(o->group >= 0 ? (enum kernel_group)o->group : KG_NAME));
}

/* --report=kernels (ui/reports.h) */
const struct report_kind report_kernels_kind = {
	.name = "kernels",
	.json = true,
	.csv = true,
	.group_choices = "name, shape or operator",
	.group_of = kernel_group_of,
	.write = write_kernels,
	.help = "      --report=kernels   per file: every kernel's calls, times, launch shape, occupancy,\n"
		"                         Tensor Cores and launching operator (the K view)\n",
};
