/* gpu_table.h: the per-device figures of the gap analysis (--report=gaps): the GPU's
 * utilization as the TensorBoard plugin defines it (and per step), its busy and idle
 * time, the idle time by cause and by HTA's classes; one definition for text and JSON. */
#ifndef TT_GPU_TABLE_H
#define TT_GPU_TABLE_H

#include "src/gaps.h"
#include "ui/table.h"

/* The device table and the child table its per-step utilizations point into. */
struct gpu_table {
	struct table t, steps;
	struct column cols[8 + GC__COUNT + HTA__COUNT];
	char keys[GC__COUNT + HTA__COUNT][64]; /* "idle_by_cause_ns.sync", ... */
};

/* Sets G up (free with gpu_table_free) with a row per device of R. */
void gpu_table_init(struct gpu_table *g, const struct gap_report *r);
void gpu_table_free(struct gpu_table *g);

#endif
