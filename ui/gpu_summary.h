/* gpu_summary.h: the Overview's GPU Summary table, a row per device with the TensorBoard
 * plugin's figures (src/gpu_metrics.h): utilization, Est. SM efficiency, Est. achieved
 * occupancy and kernel time using Tensor Cores; one definition for the panel, the text
 * and the JSON. */
#ifndef TT_GPU_SUMMARY_H
#define TT_GPU_SUMMARY_H

#include "src/gpu_metrics.h"
#include "ui/table.h"

#define GPU_SUMMARY_COLS 11

/* Writes the columns into COLS (GPU_SUMMARY_COLS of them); returns how many. */
int gpu_summary_columns(struct column *cols);
/* A row per device of M, tagged by its position. T names the devices. */
void gpu_summary_fill(struct table *tb, const struct trace *t, const struct gpu_metrics *m);

#endif
