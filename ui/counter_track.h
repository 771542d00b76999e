/* counter_track.h: counter tracks in the timeline, as Perfetto draws counters: each
 * device's memory allocated and reserved over time (src/memory.h, the curve of the Memory
 * view), two lines high, placed by ui/layout.c, drawn by ui/render.c.
 *
 * A counter track is a bar chart over the timeline's columns: each column shows the most
 * allocated (block glyphs, in eighths of a line) and reserved (a light shade above the
 * allocated bar) of the device at any time in the column, out of the device's peak (the
 * larger of peak reserved and peak allocated), which is full height. The scale is fixed per
 * device, so that panning and zooming never rescale the bars, and is the one the Memory
 * view's curve uses. A column's maxima cost O(log n) (src/range_max.h). */
#ifndef TT_COUNTER_TRACK_H
#define TT_COUNTER_TRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/memory.h"
#include "src/range_max.h"
#include "ui/grid.h"
#include "ui/panel.h"
#include "ui/view_state.h"

struct counter_track {
	int rank;                   /* rank position */
	const struct mem_device *d; /* its curve, in the rank's analysis cache (src/analysis.h) */
	struct range_max allocated, reserved;
	int64_t top;   /* the value drawn as full height */
	char name[32]; /* the device as torch names it: "cuda:0", "cpu" */
};

/* Makes V's counter tracks: one per device with a curve (n > 0) of each rank, by rank,
 * accelerators before cpu, then by device. Computes each rank's memory figures when its
 * trace has [memory] samples; nothing for one without. Freed by counter_tracks_free. */
void counter_tracks_build(struct view *v);
void counter_tracks_free(struct view *v);
/* Whether counter C belongs under the GPU group of DEVICE (an accelerator of that number). */
bool counter_track_on_gpu(const struct counter_track *c, int32_t device);
/* The track column's text of counter line L: the device's name on the top line, the scale
 * on the lower one. */
void counter_track_label(const struct view *v, const struct view_line *l, char *buf, size_t n);
/* Draws counter line L at screen line Y over the timeline's columns, whose start times
 * (view time) are COLT[0..w]. */
void counter_track_draw(struct grid *g, const struct view *v, const struct render_opts *o, const int64_t *colt, int y,
                        const struct view_line *l);
/* Writes the details panel's lines [Y0, Y0 + N) for counter line L: the values at the
 * cursor, the maxima of the cursor's column, the peaks. */
void counter_track_details(struct grid *g, const struct view *v, const struct view_line *l, int y0, int n);
/* Moves the cursor to the next (DIR > 0) or previous sample of L's counter that changes
 * its value, keeping it in the window. Returns false (nothing moved) past the last. */
bool counter_track_step(struct view *v, const struct view_line *l, int dir);

#endif
