/* op_table.c: the operator and kernel tables (see op_table.h). */
#include "ui/op_table.h"

#include "ui/names.h"

enum { O_NAME, O_CALLS, O_SELF, O_TOTAL, O__COUNT };
static const struct column op_cols[O__COUNT] = {
	[O_NAME] = { "name", "operator", COL_TEXT, 1, 0 },
	[O_CALLS] = { "calls", "calls", COL_COUNT, 0, 0 },
	[O_SELF] = { "self_ns", "self", COL_DUR, 0, 0 },
	[O_TOTAL] = { "total_ns", "total", COL_DUR, 0, 0 },
};

void op_table_init(struct table *tb, const struct trace *t, const struct op_row *ops, uint32_t n)
{
	table_init(tb, op_cols, O__COUNT);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t r = table_add_row(tb, i);
		table_set_trace_str(tb, r, O_NAME, t, ops[i].name);
		table_set_int(tb, r, O_CALLS, (int64_t)ops[i].calls);
		table_set_int(tb, r, O_SELF, ops[i].cpu_self);
		table_set_int(tb, r, O_TOTAL, ops[i].cpu_total);
	}
}

enum { K_NAME, K_CALLS, K_TOTAL, K_MEAN, K_MIN, K_MAX, K__COUNT };
static const struct column kernel_cols[K__COUNT] = {
	[K_NAME] = { "name", "kernel", COL_TEXT, 1, 0 },    [K_CALLS] = { "calls", "calls", COL_COUNT, 0, 0 },
	[K_TOTAL] = { "total_ns", "total", COL_DUR, 0, 0 }, [K_MEAN] = { "mean_ns", "mean", COL_DUR, 0, 0 },
	[K_MIN] = { "min_ns", "min", COL_DUR, 0, 0 },       [K_MAX] = { "max_ns", "max", COL_DUR, 0, 0 },
};

void kernel_table_init(struct table *tb, const struct trace *t, const struct kernel_row *ks, uint32_t n)
{
	table_init(tb, kernel_cols, K__COUNT);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t r = table_add_row(tb, i);
		table_set_trace_str(tb, r, K_NAME, t, ks[i].name);
		table_set_int(tb, r, K_CALLS, (int64_t)ks[i].calls);
		table_set_int(tb, r, K_TOTAL, ks[i].total);
		table_set_int(tb, r, K_MEAN, ks[i].calls ? ks[i].total / (int64_t)ks[i].calls : 0);
		table_set_int(tb, r, K_MIN, ks[i].min);
		table_set_int(tb, r, K_MAX, ks[i].max);
	}
}
