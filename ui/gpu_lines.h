/* gpu_lines.h: a GPU group's utilization and Est. SM efficiency lines in the timeline, the
 * TensorBoard plugin's two timeline counters (src/gpu_metrics.h, struct gpu_curves): each
 * bucket shaded by the share of it that the device's kernels cover (utilization; memcpy and
 * memset are not kernels) or by ∫ min(1, Σ blocks per SM) over it / its length (SM
 * efficiency).
 *
 * A bucket is the plugin's: 10^k us, the least power of ten that cuts the part of the trace
 * inside the window into at most 100 buckets, counted from the trace's start, the trace's
 * last bucket running to its end. Zoomed out on the whole trace these are the plugin's
 * buckets exactly; zoomed in they shrink with the window; a column longer than a bucket is
 * a bucket of its own. Placed by ui/layout.c, drawn by ui/render.c. */
#ifndef TT_GPU_LINES_H
#define TT_GPU_LINES_H

#include <stdbool.h>
#include <stdint.h>

#include "ui/grid.h"
#include "ui/render.h"
#include "ui/view_state.h"

struct gpu_bucket {
	int64_t a, b;    /* its range, in the rank's file time */
	int64_t size;    /* the 10^k us size, or 0 when it is a column */
	double util, sm; /* the shares of it; sm NAN without blocks per SM */
};

/* Whether DEVICE of rank position RANK has an SM efficiency line (some kernel carries
 * `blocks per SM`). */
bool gpu_lines_has_sm(struct view *v, int rank, int32_t device);
/* The bucket of the column [CA, CB) (view time) of DEVICE on RANK, into *OUT. False when
 * the column's middle lies outside the trace, or the device ran no kernel. */
bool gpu_lines_bucket(struct view *v, int rank, int32_t device, int64_t ca, int64_t cb, struct gpu_bucket *out);
/* Draws line L (VIEW_ROW_UTIL or VIEW_ROW_SM) at row Y; COLT holds the columns' times. */
void gpu_lines_draw(struct grid *g, struct view *v, const struct render_opts *o, const int64_t *colt, int y,
                    const struct view_line *l);
/* The details panel on line L: the bucket under the cursor, its figures and their
 * definitions, on N lines from Y0. */
void gpu_lines_details(struct grid *g, struct view *v, const struct view_line *l, int y0, int n);

#endif
