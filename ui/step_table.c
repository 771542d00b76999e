/* step_table.c: the step tables (see step_table.h). */
#include "ui/step_table.h"

enum { S_NUMBER, S_SIDE, S_START, S_DUR, S__COUNT };
static const struct column step_cols[S__COUNT] = {
	[S_NUMBER] = { "number", "step", COL_INT, 0, 0 },
	[S_SIDE] = { "side", "side", COL_TEXT, 0, 0 },
	[S_START] = { "start_ns", "start", COL_TIME, 0, 0 },
	[S_DUR] = { "dur_ns", "duration", COL_DUR, 0, 0 },
};

void step_table_init(struct table *tb, const struct trace *t)
{
	table_init(tb, step_cols, S__COUNT);
	tb->origin = t->start;
	for (uint32_t i = 0; i < t->nsteps; i++) {
		uint32_t r = table_add_row(tb, i);
		table_set_int(tb, r, S_NUMBER, t->steps[i].number);
		table_set_str(tb, r, S_SIDE, t->steps[i].gpu ? "gpu" : "cpu");
		table_set_int(tb, r, S_START, t->steps[i].ts);
		table_set_int(tb, r, S_DUR, t->steps[i].dur);
	}
}

enum { B_NUMBER, B_START, B_END, B__COUNT };
static const struct column tb_step_cols[B__COUNT] = {
	[B_NUMBER] = { "number", "step", COL_INT, 0, 0 },
	[B_START] = { "start_ns", "start", COL_TIME, 0, 0 },
	[B_END] = { "end_ns", "end", COL_TIME, 0, 0 },
};

void tb_step_table_init(struct table *tb, const struct gap_report *r)
{
	table_init(tb, tb_step_cols, B__COUNT);
	for (uint32_t k = 0; k < r->nsteps; k++) {
		uint32_t row = table_add_row(tb, k);
		table_set_int(tb, row, B_NUMBER, r->steps[k].number);
		table_set_int(tb, row, B_START, r->steps[k].start);
		table_set_int(tb, row, B_END, r->steps[k].end);
	}
}
