/* gpu_summary.c: the GPU Summary table (see gpu_summary.h). */
#include "ui/gpu_summary.h"

#include <math.h>
#include <string.h>

#include "ui/names.h"

enum { G_DEVICE, G_NAME, G_KERNELS, G_KTIME, G_UTIL, G_SMEFF, G_OCC, G_TC, G_UNKNOWN, G_TC_PLUGIN, G_TCTIME };

int gpu_summary_columns(struct column *cols)
{
	static const struct column c[GPU_SUMMARY_COLS] = {
		[G_DEVICE] = { "device", "GPU", COL_INT, 0, 0 },
		[G_NAME] = { "name", "name", COL_TEXT, 0, COL_OMIT_NULL },
		[G_KERNELS] = { "kernels", "kernels", COL_COUNT, 0, 0 },
		[G_KTIME] = { "kernel_time_ns", "kernel time", COL_DUR, 0, 0 },
		[G_UTIL] = { "utilization", "utilization", COL_RATIO, 0, 0 },
		[G_SMEFF] = { "sm_efficiency", "est. SM efficiency", COL_RATIO, 0, 0 },
		[G_OCC] = { "achieved_occupancy", "est. occupancy", COL_RATIO, 0, 0 },
		[G_TC] = { "tensor_cores", "Tensor Cores", COL_RATIO, 0, 0 },
		[G_UNKNOWN] = { "math_unit_unknown", "unit unknown", COL_RATIO, 0, 0 },
		[G_TC_PLUGIN] = { "tensor_cores_plugin", "TC (plugin list)", COL_RATIO, 0, 0 },
		[G_TCTIME] = { "tensor_core_time_ns", "TC time", COL_DUR, 0, COL_JSON_ONLY },
	};
	memcpy(cols, c, sizeof c);
	return GPU_SUMMARY_COLS;
}

void gpu_summary_fill(struct table *tb, const struct trace *t, const struct gpu_metrics *m)
{
	for (uint32_t i = 0; i < m->n; i++) {
		const struct gpu_metrics_device *d = &m->devices[i];
		uint32_t row = table_add_row(tb, i);
		table_set_int(tb, row, G_DEVICE, d->device);
		for (uint32_t k = 0; k < t->ndevices; k++)
			if (t->devices[k].id == d->device && t->devices[k].name != 0)
				table_set_trace_str(tb, row, G_NAME, t, t->devices[k].name);
		table_set_int(tb, row, G_KERNELS, (int64_t)d->kernels);
		table_set_int(tb, row, G_KTIME, d->kernel_time);
		table_set_pct(tb, row, G_UTIL, d->utilization);
		table_set_pct(tb, row, G_SMEFF, d->sm_efficiency);
		table_set_pct(tb, row, G_OCC, d->occupancy / 100.0);
		table_set_pct(tb, row, G_TC, d->tensor_cores);
		table_set_pct(tb, row, G_UNKNOWN, d->unit_unknown);
		table_set_pct(tb, row, G_TC_PLUGIN, d->tensor_cores_plugin);
		table_set_int(tb, row, G_TCTIME, d->tc_time);
	}
}
