/* gpu_table.c: the per-device figures of the gap analysis (see gpu_table.h). */
#include "ui/gpu_table.h"

#include <stdio.h>

static const struct column step_cols[] = {
	{ "number", "step", COL_INT, 0, 0 },
	{ "value", "utilization", COL_RATIO, 0, 0 },
};

void gpu_table_init(struct gpu_table *g, const struct gap_report *r)
{
	static const char *const hta_titles[HTA__COUNT] = { "host wait", "kernel wait", "other wait" };
	struct column *c = g->cols;
	int n = 0;
	c[n++] = (struct column){ "device", "GPU", COL_INT, 0, 0 };
	c[n++] = (struct column){ "gpu_utilization.definition", "definition", COL_TEXT, 0, COL_JSON_ONLY };
	c[n++] = (struct column){ "gpu_utilization.value", "utilization", COL_RATIO, 0, 0 };
	c[n++] = (struct column){ "gpu_utilization.kernel_busy_ns", "kernels", COL_DUR, 0, 0 };
	c[n++] = (struct column){ "gpu_utilization.steps", "steps", COL_ROWS, 0, COL_JSON_ONLY };
	c[n++] = (struct column){ "busy_ns", "busy", COL_DUR, 0, 0 };
	c[n++] = (struct column){ "idle_ns", "idle", COL_DUR, 0, 0 };
	c[n++] = (struct column){ "idle_pct", "idle %", COL_PCT, 0, COL_TEXT_ONLY };
	for (int k = 0; k < GC__COUNT; k++) {
		/* the idle time by cause and by HTA class: a column each, keyed by the cause */
		snprintf(g->keys[k], sizeof g->keys[k], "idle_by_cause_ns.%s", gap_cause_key((enum gap_cause)k));
		c[n++] = (struct column){ g->keys[k], gap_cause_text((enum gap_cause)k), COL_DUR, 0, COL_JSON_ONLY };
	}
	for (int k = 0; k < HTA__COUNT; k++) {
		char *key = g->keys[GC__COUNT + k];
		snprintf(key, sizeof g->keys[0], "stream_idle_by_hta_class_ns.%s", hta_class_key((enum hta_class)k));
		c[n++] = (struct column){ key, hta_titles[k], COL_DUR, 0, 0 };
	}
	table_init(&g->t, g->cols, n);
	table_init(&g->steps, step_cols, 2);
	table_set_child(&g->t, table_col(&g->t, "gpu_utilization.steps"), &g->steps);

	int64_t win = r->end - r->start, tbw = r->tb_end - r->tb_start;
	for (uint32_t d = 0; d < r->ndevices; d++) {
		const struct device_gaps *dg = &r->devices[d];
		uint32_t row = table_add_row(&g->t, d), first = g->steps.nrows;
		int col = 0;
		for (uint32_t k = 0; k < r->nsteps; k++) {
			int64_t sw = r->steps[k].end - r->steps[k].start;
			uint32_t s = table_add_row(&g->steps, k);
			table_set_int(&g->steps, s, 0, r->steps[k].number);
			table_set_pct(&g->steps, s, 1, sw > 0 ? (double)dg->step_kernel_busy[k] / (double)sw : 0.0);
		}
		table_set_int(&g->t, row, col++, dg->device);
		table_set_str(&g->t, row, col++, "tensorboard_plugin");
		table_set_pct(&g->t, row, col++, tbw > 0 ? (double)dg->kernel_busy / (double)tbw : 0.0);
		table_set_int(&g->t, row, col++, dg->kernel_busy);
		table_set_rows(&g->t, row, col++, first, r->nsteps);
		table_set_int(&g->t, row, col++, dg->busy);
		table_set_int(&g->t, row, col++, dg->idle);
		table_set_pct(&g->t, row, col++, win > 0 ? 100.0 * (double)dg->idle / (double)win : 0.0);
		for (int k = 0; k < GC__COUNT; k++)
			table_set_int(&g->t, row, col++, dg->idle_by_cause[k]);
		for (int k = 0; k < HTA__COUNT; k++)
			table_set_int(&g->t, row, col++, dg->idle_by_hta[k]);
	}
}

void gpu_table_free(struct gpu_table *g)
{
	table_free(&g->t);
	table_free(&g->steps);
}
