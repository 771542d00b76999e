/* op_view.c: the operator table and its panel (see op_view.h). */
#include "ui/op_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/reports.h"
#include "lib/timefmt.h"
#include "lib/xalloc.h"
#include "parsers/op_args.h"
#include "src/analysis.h"
#include "ui/app.h"
#include "ui/names.h"
#include "ui/report.h"
#include "ui/source.h"
#include "ui/table_panel.h"
#include "ui/view.h"

enum {
	O_LABEL,
	O_NAME,
	O_SHAPE,
	O_SOURCE,
	O_DEPTH,
	O_PARENT,
	O_CALLS,
	O_DSELF, /* device time first, as the plugin's table has it: the rows are in its order */
	O_DTOTAL,
	O_DMEAN,
	O_SELF,
	O_TOTAL,
	O_MEAN,
	O_MSELF,
	O_MTOTAL,
	O_LONGEST,
	O_LONGEST_DUR
};

/* The memory columns: shown when the trace has [memory] samples, and by name only. */
#define MEM_COLS (((uint64_t)1 << O_MSELF) | ((uint64_t)1 << O_MTOTAL))

int op_view_columns(struct column *cols)
{
	static const struct column c[OP_TABLE_COLS] = {
		/* the name as shown: indented by depth in the tree mode */
		[O_LABEL] = { "name", "operator", COL_TEXT, 2, COL_TEXT_ONLY | COL_WIDE },
		[O_NAME] = { "name", "operator", COL_TEXT, 0, COL_JSON_ONLY },
		[O_SHAPE] = { "input_shapes", "input shapes", COL_TEXT, 1, COL_OMIT_NULL },
		[O_SOURCE] = { "source", "source", COL_TEXT, 1, COL_OMIT_NULL },
		[O_DEPTH] = { "depth", "depth", COL_INT, 0, COL_JSON_ONLY | COL_OMIT_NULL },
		[O_PARENT] = { "parent", "parent", COL_INT, 0, COL_JSON_ONLY | COL_OMIT_NULL },
		[O_CALLS] = { "calls", "calls", COL_COUNT, 0, 0 },
		[O_SELF] = { "self_cpu_ns", "self CPU", COL_DUR, 0, 0 },
		[O_TOTAL] = { "cpu_total_ns", "CPU total", COL_DUR, 0, 0 },
		[O_MEAN] = { "cpu_mean_ns", "CPU mean", COL_DUR, 0, 0 },
		[O_DSELF] = { "self_device_ns", "self device", COL_DUR, 0, COL_ZERO_EMPTY },
		[O_DTOTAL] = { "device_total_ns", "device total", COL_DUR, 0, COL_ZERO_EMPTY },
		[O_DMEAN] = { "device_mean_ns", "device mean", COL_DUR, 0, COL_ZERO_EMPTY },
		[O_MSELF] = { "self_device_alloc_bytes", "self dev mem", COL_BYTES, 0, COL_ZERO_EMPTY },
		[O_MTOTAL] = { "device_alloc_bytes", "dev mem", COL_BYTES, 0, COL_ZERO_EMPTY },
		[O_LONGEST] = { "longest_start_ns", "longest at", COL_TIME, 0, COL_JSON_ONLY },
		[O_LONGEST_DUR] = { "longest_dur_ns", "longest", COL_DUR, 0, COL_JSON_ONLY },
	};
	memcpy(cols, c, sizeof c);
	return OP_TABLE_COLS;
}

/* The columns a grouping shows: the key column of its own, not the other's. */
static uint64_t group_cols(enum op_group g)
{
	uint64_t all = ((uint64_t)1 << OP_TABLE_COLS) - 1;
	if (g != OP_BY_SHAPE)
		all &= ~((uint64_t)1 << O_SHAPE);
	if (g != OP_BY_SOURCE)
		all &= ~((uint64_t)1 << O_SOURCE);
	return all;
}

/* Device memory the name allocated (the Memory view's table, src/memory.h, summed over
 * the devices that are not the CPU): self and with its descendants; false when none. */
static bool device_alloc(const struct memory_report *mem, uint32_t name, int64_t *self, int64_t *total)
{
	bool any = false;
	*self = *total = 0;
	for (uint32_t d = 0; mem != NULL && d < mem->ndevices; d++) {
		if (mem->devices[d].type == 0)
			continue;
		const struct mem_op_row *m = memory_op_row(mem, d, name);
		if (m == NULL)
			continue;
		*self += m->self_alloc_bytes;
		*total += m->alloc_bytes;
		any = true;
	}
	return any;
}

/* Fills TB from R; in the tree mode, the names indented by depth when INDENT (the text
 * report's tree), else as they are (the panel draws the tree itself). */
static void fill(struct table *tb, const struct trace *t, const struct op_report *r, const struct memory_report *mem,
                 bool indent)
{
	tb->origin = t->start;
	char *label = NULL;
	size_t lcap = 0;
	for (uint32_t i = 0; i < r->n; i++) {
		const struct op_row *o = &r->rows[i];
		const struct slice *l = &t->tracks[o->longest.track].slices[o->longest.idx];
		uint32_t row = table_add_row(tb, i);
		if (r->group == OP_BY_TREE && indent) {
			/* two spaces a level, at most 40 levels shown */
			size_t ind = 2 * (size_t)(o->depth < 40 ? o->depth : 40), n = strtab_len(&t->strings, o->name);
			if (ind + n > lcap)
				label = xrealloc(label, lcap = ind + n + 1);
			memset(label, ' ', ind);
			memcpy(label + ind, strtab_get(&t->strings, o->name), n);
			table_set_text(tb, row, O_LABEL, label, ind + n);
		} else {
			table_set_trace_str(tb, row, O_LABEL, t, o->name);
		}
		if (r->group == OP_BY_TREE) {
			table_set_int(tb, row, O_DEPTH, o->depth);
			if (o->parent != TT_NONE)
				table_set_int(tb, row, O_PARENT, o->parent);
		}
		table_set_trace_str(tb, row, O_NAME, t, o->name);
		if (r->group == OP_BY_SHAPE || r->group == OP_BY_SOURCE)
			if (o->key != 0)
				table_set_text(tb, row, r->group == OP_BY_SHAPE ? O_SHAPE : O_SOURCE,
				               strtab_get(&r->keys, o->key), strtab_len(&r->keys, o->key));
		table_set_int(tb, row, O_CALLS, (int64_t)o->calls);
		table_set_int(tb, row, O_SELF, o->cpu_self);
		table_set_int(tb, row, O_TOTAL, o->cpu_total);
		table_set_int(tb, row, O_MEAN, o->calls ? o->cpu_total / (int64_t)o->calls : 0);
		table_set_int(tb, row, O_DSELF, o->dev_self);
		table_set_int(tb, row, O_DTOTAL, o->dev_total);
		table_set_int(tb, row, O_DMEAN, o->calls ? o->dev_total / (int64_t)o->calls : 0);
		int64_t ms, mt;
		if (r->group == OP_BY_NAME && mem != NULL && mem->samples > 0) {
			/* no sample under the name: 0 bytes, when the trace records memory */
			device_alloc(mem, o->name, &ms, &mt);
			table_set_int(tb, row, O_MSELF, ms);
			table_set_int(tb, row, O_MTOTAL, mt);
		}
		table_set_int(tb, row, O_LONGEST, l->ts);
		table_set_int(tb, row, O_LONGEST_DUR, slice_dur(&t->tracks[o->longest.track], l));
	}
	free(label);
}

void op_view_fill(struct table *tb, const struct trace *t, const struct op_report *r, const struct memory_report *mem)
{
	fill(tb, t, r, mem, true);
}

const struct op_report *op_view_report_of(struct trace *t, enum op_group g)
{
	return trace_ops_grouped(t, g, op_args_keys);
}

/* Why a grouping has no keys in T's report R (NULL when it has some, or needs none). */
static const char *missing(const struct op_report *r)
{
	if (r->n == 0 || r->keyed > 0)
		return NULL;
	if (r->group == OP_BY_SHAPE)
		return "no operator has input shapes (Input Dims): record with record_shapes=True";
	if (r->group == OP_BY_SOURCE)
		return "no operator has a source location (Call stack, or a python_function of user code around it): "
		       "record with with_stack=True";
	return NULL;
}

/* The order of the rows as built (src/ops.c row_cmp): device total, then CPU total, which
 * is all there is to sort by when no GPU activity was recorded. */
static const char *default_order(const struct op_report *r) { return r->gpu_ops == 0 ? "CPU total" : "device total"; }

static const char *group_words(enum op_group g)
{
	static const char *const w[OP__GROUPS] = { "names", "names and input shapes", "names and source locations",
		                                   "call paths" };
	return g < OP__GROUPS ? w[g] : "?";
}

/* ---- the reports (ui/report.h): one per grouping ------------------------------------ */

#define REPORT_FUNCS(G, g)                                                                         \
	static void report_fill_##g(struct table *tb, struct trace *t)                             \
	{                                                                                          \
		op_view_fill(tb, t, op_view_report_of(t, G), trace_memory(t));                     \
	}                                                                                          \
	static void report_json_head_##g(struct jsonw *w, struct trace *t) { json_head(w, t, G); } \
	static void report_text_head_##g(FILE *f, struct trace *t, const char *sort) { text_head(f, t, G, sort); }

static void json_head(struct jsonw *w, struct trace *t, enum op_group g)
{
	const struct op_report *r = op_view_report_of(t, g);
	jsonw_key(w, "group_by");
	jsonw_str(w, ops_group_name(g));
	jsonw_key(w, "gpu_activities");
	jsonw_uint(w, r->gpu_ops);
	jsonw_key(w, "gpu_activities_linked");
	jsonw_uint(w, r->gpu_ops_linked);
	if (g == OP_BY_SHAPE || g == OP_BY_SOURCE) {
		jsonw_key(w, "instances_with_key");
		jsonw_uint(w, r->keyed);
		if (missing(r) != NULL) {
			jsonw_key(w, "missing");
			jsonw_str(w, missing(r));
		}
	}
}

static void text_head(FILE *f, struct trace *t, enum op_group g, const char *sort)
{
	const struct op_report *r = op_view_report_of(t, g);
	fprintf(f,
	        "   %u operator %s by %s; %llu of %llu GPU activities reach an operator (self device: "
	        "launched by the operator's own runtime calls; total: and its children's)\n",
	        r->n, group_words(g),
	        sort != NULL      ? sort
	        : g == OP_BY_TREE ? "call tree"
	                          : default_order(r),
	        (unsigned long long)r->gpu_ops_linked, (unsigned long long)r->gpu_ops);
	if (missing(r) != NULL)
		fprintf(f, "   %s\n", missing(r));
}

REPORT_FUNCS(OP_BY_NAME, name)
REPORT_FUNCS(OP_BY_SHAPE, shape)
REPORT_FUNCS(OP_BY_SOURCE, source)
REPORT_FUNCS(OP_BY_TREE, tree)

#define REPORT_DEF(G, g)                                                                               \
	{                                                                                              \
		.name = "operators", .columns = op_view_columns, .fill = report_fill_##g,              \
		.json_head = report_json_head_##g, .text_head = report_text_head_##g, .text_rows = 20, \
		.empty = "no operator in this trace (record with ProfilerActivity.CPU)",               \
	}

static struct table_report reports[OP__GROUPS] = {
	REPORT_DEF(OP_BY_NAME, name),
	REPORT_DEF(OP_BY_SHAPE, shape),
	REPORT_DEF(OP_BY_SOURCE, source),
	REPORT_DEF(OP_BY_TREE, tree),
};

const struct table_report *op_view_report(enum op_group g)
{
	if (g >= OP__GROUPS)
		g = OP_BY_NAME;
	reports[g].text_cols = group_cols(g) & ~MEM_COLS; /* 120 columns: the names keep room; JSON has them */
	return &reports[g];
}

/* ---- the panel ------------------------------------------------------------------------ */

struct op_view {
	struct table t;
	struct column cols[OP_TABLE_COLS];
	struct view *v;
	int rank; /* the rank position it shows */
	enum op_group group;
	const struct op_report *r; /* the cache's, for GROUP */
};

static void title(struct table_panel *tp, struct app *app, char *buf, size_t n)
{
	const struct op_view *o = tp->owner;
	(void)app;
	const char *why = missing(o->r);
	char rk[32] = "";
	if (view_ranks(o->v) > 1)
		snprintf(rk, sizeof rk, "rank %d: ", view_rank_label(o->v, o->rank));
	const char *order = o->group == OP_BY_TREE ? ", as a call tree"
	                    : tp->sort_col >= 0    ? ""
	                    : o->r->gpu_ops == 0   ? ", by CPU total"
	                                           : ", by device total";
	int len = snprintf(buf, n, "%s%u operator %s; %llu of %llu GPU activities reach an operator%s%s%s", rk, o->r->n,
	                   group_words(o->group), (unsigned long long)o->r->gpu_ops_linked,
	                   (unsigned long long)o->r->gpu_ops, order, why != NULL ? "; " : "", why != NULL ? why : "");
	if (len > tp->base.r.w - 2) /* narrow: the counts and the order first */
		snprintf(buf, n, "%s%u operator %s%s; %llu/%llu GPU activities linked%s%s", rk, o->r->n,
		         group_words(o->group), order, (unsigned long long)o->r->gpu_ops_linked,
		         (unsigned long long)o->r->gpu_ops, why != NULL ? "; " : "", why != NULL ? why : "");
}

static void jump(struct table_panel *tp, struct app *app, uint64_t tag)
{
	const struct op_view *o = tp->owner;
	struct view *v = o->v;
	int rank = o->rank;
	const struct op_report *r = o->r; /* the cache's: it outlives the panel */
	app_pop(app);                     /* frees the panel and O */
	if (tag < r->n) {
		struct slice_ref s = r->rows[tag].longest;
		view_select(v, rank, s);
		view_status(v, "the longest call of this operator (] leads to its GPU work)");
	}
}

/* The tree mode opens with its roots expanded, and each next depth while the rows shown
 * stay within about a screen. */
#define TREE_OPEN_ROWS 40

static void regroup(struct table_panel *tp, struct op_view *o, enum op_group g)
{
	o->group = g;
	o->r = op_view_report_of(view_rank_trace(o->v, o->rank), g);
	table_clear(&o->t);
	fill(&o->t, view_rank_trace(o->v, o->rank), o->r, trace_memory(view_rank_trace(o->v, o->rank)), false);
	tp->cols =
		group_cols(g) &
		(g == OP_BY_NAME && trace_memory(view_rank_trace(o->v, o->rank))->samples > 0 ? TABLE_ALL : ~MEM_COLS);
	tp->hscroll = 0;
	tp->sort_col = g == OP_BY_TREE ? -1 : tp->sort_col;
	if (g == OP_BY_TREE) {
		uint32_t *parent = xmalloc((o->r->n ? o->r->n : 1) * sizeof *parent);
		for (uint32_t i = 0; i < o->r->n; i++)
			parent[i] = o->r->rows[i].parent == TT_NONE ? TABLE_TREE_ROOT : o->r->rows[i].parent;
		table_panel_set_tree(tp, parent, TREE_OPEN_ROWS);
		free(parent);
	} else {
		table_panel_set_tree(tp, NULL, 0);
	}
}

static bool act(struct table_panel *tp, struct app *app, enum action a)
{
	struct op_view *o = tp->owner;
	if (o->group != OP_BY_TREE &&
	    (a == A_TREE_EXPAND || a == A_TREE_COLLAPSE || a == A_TREE_EXPAND_ALL || a == A_TREE_COLLAPSE_ALL)) {
		app_status(app,
		           "expanding and collapsing rows is for the tree grouping (%s groups the rows the next way)",
		           keymap_key_for(&app->keys, CTX_TABLE, A_GROUP_NEXT));
		return true;
	}
	if (a == A_EDIT_SOURCE) { /* the row's source location, grouped by source */
		size_t n = 0;
		const char *txt = o->group == OP_BY_SOURCE && tp->sel >= 0 && (uint32_t)tp->sel < tp->nrows
		                          ? table_text(&o->t, tp->rows[tp->sel], O_SOURCE, &n)
		                          : NULL;
		if (o->group != OP_BY_SOURCE)
			app_status(app, "e opens a row's source when the operators are grouped by source location (%s)",
			           keymap_key_for(&app->keys, CTX_TABLE, A_GROUP_NEXT));
		else if (txt == NULL || n == 0)
			app_status(app, "this row has no source location");
		else {
			char frame[2048];
			snprintf(frame, sizeof frame, "%.*s", (int)n, txt);
			source_open_frame(app, frame, "this row's source");
		}
		return true;
	}
	if (a != A_GROUP_NEXT)
		return false;
	regroup(tp, o, (enum op_group)((o->group + 1) % OP__GROUPS));
	app_status(app, "operators by %s", group_words(o->group));
	return true;
}

static void owner_free(struct table_panel *tp)
{
	struct op_view *o = tp->owner;
	table_free(&o->t);
	free(o);
}

static const struct table_owner op_owner = {
	.name = "operators",
	.title = title,
	.jump = jump,
	.act = act,
	.free = owner_free,
};

struct panel *op_view_open(struct app *app)
{
	struct view *v = app->tl;
	int rank = view_focus_rank(v);
	const struct op_report *r = trace_ops(view_rank_trace(v, rank));
	if (r->n == 0) {
		view_status(v, "no operator in this trace (record with ProfilerActivity.CPU)");
		return NULL;
	}
	struct op_view *o = xcalloc(1, sizeof *o);
	o->v = v;
	o->rank = rank;
	o->r = r;
	o->group = OP_BY_NAME;
	table_init(&o->t, o->cols, op_view_columns(o->cols));
	fill(&o->t, view_rank_trace(v, rank), r, trace_memory(view_rank_trace(v, rank)), false);
	struct panel *p = table_panel_new(&o->t, &op_owner, o);
	((struct table_panel *)p)->cols =
		group_cols(OP_BY_NAME) & (trace_memory(view_rank_trace(v, rank))->samples > 0 ? TABLE_ALL : ~MEM_COLS);
	return p;
}

static int write_operators(FILE *f, struct trace *const *ts, int n, const struct report_opts *o)
{
	return report_table(f, ts, n, o->json, o->top, o->sort,
	                    op_view_report(o->group >= 0 ? (enum op_group)o->group : OP_BY_NAME));
}

/* --report=operators (ui/reports.h) */
const struct report_kind report_operators_kind = {
	.name = "operators",
	.json = true,
	.csv = true,
	.group_choices = "name, shape, source or tree",
	.group_of = ops_group_of,
	.write = write_operators,
	.help = "      --report=operators per file: every operator's calls, self and total CPU and device\n"
		"                         time (the O view)\n",
};
