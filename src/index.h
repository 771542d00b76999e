/* index.h: the interval index over a trace model, and its queries.
 *
 * Built once by index_build (from builder_finish). Per track: slices sorted by start;
 * rows (depths) in which slices never overlap, each a list of slice indices in time
 * order with a prefix sum of durations every ROW_BLOCK slices and a max tree of
 * durations over those blocks; and the merged union of busy time with its own prefix
 * sums. Every query below is O(log n) (plus at most 2*ROW_BLOCK steps), whatever the
 * zoom and the trace size.
 *
 * The build is src/index.c (the links between records src/index_links.c), the queries
 * src/index_query.c. */
#ifndef TT_INDEX_H
#define TT_INDEX_H

#include "lib/helper.h"
#include "src/model.h"

/* Sorts, lays out rows, links launches and flows, finds steps; fills the index. */
void index_build(struct trace *t);
/* As index_build, its work split with helper H's thread (lib/helper.h; NULL: as
 * index_build), which it leaves idle, not stopped. */
void index_build_helped(struct trace *t, struct helper *h);
/* The span of T's drawn events (slices by their rows, instants, memory samples), as
 * index_build sets t->start and t->end; 0 .. 0 when there is none. */
struct span index_trace_span(const struct trace *t);
/* Whether TR keeps no busy spans of its own because its busy time is its row 0's (its
 * slices all in row 0, or nesting in row 0's): then index_track_busy reads row 0. */
bool index_busy_is_row0(const struct track *tr);

/* The positions [*first, *last) in row R of track TR of the slices that overlap
 * [t0, t1) (a zero-length slice at t overlaps when t0 <= t < t1). */
void index_row_range(const struct track *tr, uint16_t r, int64_t t0, int64_t t1, uint32_t *first, uint32_t *last);
/* Time in [t0, t1) covered by the slices of row R. */
int64_t index_row_busy(const struct track *tr, uint16_t r, int64_t t0, int64_t t1);
/* Time in [t0, t1) during which anything runs on the track (union of all rows; on GPU
 * tracks of kernels, memcpys and memsets only, not gpu_user_annotation spans). */
int64_t index_track_busy(const struct track *tr, int64_t t0, int64_t t1);
/* The slice of row R that covers most of [t0, t1) as an index into tr->slices, or
 * TT_NONE when the row is empty there. A zero-length slice inside counts as covering
 * nothing but is returned when nothing else is there, so tiny work never vanishes. */
uint32_t index_row_dominant(const struct track *tr, uint16_t r, int64_t t0, int64_t t1);
/* The slice of row R of track TR that contains time TS (start <= ts <= end), or TT_NONE. */
uint32_t index_row_slice_at(const struct track *tr, uint16_t r, int64_t ts);
/* The deepest slice of track TR that contains time TS (start <= ts <= end), or TT_NONE. */
uint32_t index_slice_at(const struct track *tr, int64_t ts);
/* The slice that slice IDX of TR nests in (the one on the row above that was open when
 * it began), or TT_NONE at depth 0, on a GPU stream's kernel rows (they overflow, never
 * nest) and for a bad IDX. O(log n). */
uint32_t index_parent(const struct trace *t, const struct track *tr, uint32_t idx);
/* The first slice nested in slice IDX of TR (its earliest child), or TT_NONE. O(log n). */
uint32_t index_first_child(const struct trace *t, const struct track *tr, uint32_t idx);

#endif
