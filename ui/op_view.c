/* op_view.c: the operator table and its panel (see op_view.h). */
#include "ui/op_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/timefmt.h"
#include "lib/xalloc.h"
#include "src/analysis.h"
#include "ui/app.h"
#include "ui/names.h"
#include "ui/report.h"
#include "ui/table_panel.h"
#include "ui/view.h"

enum { O_NAME, O_CALLS, O_SELF, O_TOTAL, O_MEAN, O_DSELF, O_DTOTAL, O_DMEAN, O_LONGEST, O_LONGEST_DUR };

int op_view_columns(struct column *cols)
{
	static const struct column c[OP_TABLE_COLS] = {
		[O_NAME] = { "name", "operator", COL_TEXT, 1, 0 },
		[O_CALLS] = { "calls", "calls", COL_COUNT, 0, 0 },
		[O_SELF] = { "self_cpu_ns", "self CPU", COL_DUR, 0, 0 },
		[O_TOTAL] = { "cpu_total_ns", "CPU total", COL_DUR, 0, 0 },
		[O_MEAN] = { "cpu_mean_ns", "CPU mean", COL_DUR, 0, 0 },
		[O_DSELF] = { "self_device_ns", "self device", COL_DUR, 0, 0 },
		[O_DTOTAL] = { "device_total_ns", "device total", COL_DUR, 0, 0 },
		[O_DMEAN] = { "device_mean_ns", "device mean", COL_DUR, 0, 0 },
		[O_LONGEST] = { "longest_start_ns", "longest at", COL_TIME, 0, COL_JSON_ONLY },
		[O_LONGEST_DUR] = { "longest_dur_ns", "longest", COL_DUR, 0, COL_JSON_ONLY },
	};
	memcpy(cols, c, sizeof c);
	return OP_TABLE_COLS;
}

void op_view_fill(struct table *tb, const struct trace *t, const struct op_report *r)
{
	tb->origin = t->start;
	for (uint32_t i = 0; i < r->n; i++) {
		const struct op_row *o = &r->rows[i];
		const struct slice *l = &t->tracks[o->longest.track].slices[o->longest.idx];
		uint32_t row = table_add_row(tb, i);
		table_set_trace_str(tb, row, O_NAME, t, o->name);
		table_set_int(tb, row, O_CALLS, (int64_t)o->calls);
		table_set_int(tb, row, O_SELF, o->cpu_self);
		table_set_int(tb, row, O_TOTAL, o->cpu_total);
		table_set_int(tb, row, O_MEAN, o->calls ? o->cpu_total / (int64_t)o->calls : 0);
		table_set_int(tb, row, O_DSELF, o->dev_self);
		table_set_int(tb, row, O_DTOTAL, o->dev_total);
		table_set_int(tb, row, O_DMEAN, o->calls ? o->dev_total / (int64_t)o->calls : 0);
		table_set_int(tb, row, O_LONGEST, l->ts);
		table_set_int(tb, row, O_LONGEST_DUR, l->dur);
	}
}

/* ---- the report (ui/report.h) -------------------------------------------------- */

static void report_fill(struct table *tb, struct trace *t) { op_view_fill(tb, t, trace_ops(t)); }

static void report_json_head(struct jsonw *w, struct trace *t)
{
	const struct op_report *r = trace_ops(t);
	jsonw_key(w, "gpu_activities");
	jsonw_uint(w, r->gpu_ops);
	jsonw_key(w, "gpu_activities_linked");
	jsonw_uint(w, r->gpu_ops_linked);
}

static void report_text_head(FILE *f, struct trace *t, const char *sort)
{
	const struct op_report *r = trace_ops(t);
	fprintf(f, "   %u operators by %s; %llu of %llu GPU activities reach an operator (self device: "
	           "launched by the operator's own runtime calls; total: and its children's)\n",
	        r->n, sort != NULL ? sort : "device total", (unsigned long long)r->gpu_ops_linked,
	        (unsigned long long)r->gpu_ops);
}

const struct table_report operators_report = {
	.name = "operators",
	.columns = op_view_columns,
	.fill = report_fill,
	.json_head = report_json_head,
	.text_head = report_text_head,
	.text_cols = TABLE_ALL,
	.text_rows = 20,
	.empty = "no operator in this trace (record with ProfilerActivity.CPU)",
};

/* ---- the panel ------------------------------------------------------------------- */

struct op_view {
	struct table t;
	struct column cols[OP_TABLE_COLS];
	struct view *v;
	const struct op_report *r;
};

static void title(struct table_panel *tp, struct app *app, char *buf, size_t n)
{
	const struct op_view *o = tp->owner;
	(void)app;
	snprintf(buf, n, "%u operators; %llu of %llu GPU activities reach an operator%s", o->r->n,
	         (unsigned long long)o->r->gpu_ops_linked, (unsigned long long)o->r->gpu_ops,
	         tp->sort_col < 0 ? ", by device total" : "");
}

static void jump(struct table_panel *tp, struct app *app, uint64_t tag)
{
	const struct op_view *o = tp->owner;
	struct view *v = o->v;
	const struct op_report *r = o->r; /* the cache's: it outlives the panel */
	app_pop(app);                     /* frees the panel and O */
	if (tag < r->n) {
		struct slice_ref s = r->rows[tag].longest;
		view_go_to(v, (struct slice_ref){ view_id(0, s.track), s.idx });
		view_status(v, "the longest call of this operator");
	}
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
	.free = owner_free,
};

struct panel *op_view_open(struct app *app)
{
	struct view *v = app->tl;
	const struct op_report *r = trace_ops(v->ts[0]);
	if (r->n == 0) {
		view_status(v, "no operator in this trace (record with ProfilerActivity.CPU)");
		return NULL;
	}
	struct op_view *o = xcalloc(1, sizeof *o);
	o->v = v;
	o->r = r;
	table_init(&o->t, o->cols, op_view_columns(o->cols));
	op_view_fill(&o->t, v->ts[0], r);
	return table_panel_new(&o->t, &op_owner, o);
}
